//! Deleting sync ops the checker calls redundant, as many as possible (the machinery of the
//! `remove-redundant-sync` pass): the same deletion candidates as [`super::redundant_syncs`]
//! (a barrier, a set no wait consumes, a wait with the sets it may consume), tried one at a time
//! in a fixed order, each kept deleted only if the checker then finds nothing that it did not
//! find before any deletion. Each trial is checked against the deletions already made, so a
//! deletion that makes another sync op necessary is seen.
//!
//! Order (most expensive first): candidates in deeper loops first (they run more often), then
//! barriers before set/wait pairs before dangling sets, then program order. Sweeps repeat until
//! one deletes nothing, so that the result has no redundant sync op left by the checker's own
//! definition.
//!
//! Cost: most sync ops are needed, and [`necessity::needed`] shows most of those without an
//! analysis (a wait or barrier that alone orders two conflicting accesses in straight-line
//! code, or over a loop's back edge): those are never tried. Every other candidate gets one
//! analysis of the function with the deletions, which stops at its first new finding; the
//! analysis of the last deletion that was kept is the base of the next sweep.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use super::dataflow::{analyse_with, Analysis, Options, Prepared, SyncModel};
use super::necessity;
use crate::analysis::effects::Kind;
use crate::backend::Backend;
use crate::ir::{Stmt, VarTable};

/// What [`removable_syncs`] found and how much work it took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RemovableSyncs {
    /// The leaves (ids in program order, as the analysis numbers them) to delete.
    pub drop: BTreeSet<usize>,
    /// Deletion candidates shown needed without an analysis.
    pub shown_needed: usize,
    /// Analyses of the function run (the first one included).
    pub analyses: usize,
}

/// The leaves (ids in program order, as the analysis numbers them) of the sync ops of `body`
/// that can be deleted together without the checker finding anything new.
pub fn removable_syncs(vars: &VarTable, body: &Stmt, backend: Backend, model: &SyncModel) -> RemovableSyncs {
    let prep = Prepared::new(vars, body, backend);
    let mut base = analyse_with(&prep, body, model, Options { skip: None, allowed: None });
    let mut out = RemovableSyncs { analyses: 1, ..RemovableSyncs::default() };
    let allowed = base.findings.clone();
    let needed = necessity::needed(&prep, body, model, &allowed, &base.reached);
    let mut skip = prep.leaf_set();
    // A group that failed once stays needed: deleting more only removes ordering (the states
    // only grow), so only groups that are new in a later sweep are tried there.
    let mut tried: rustc_hash::FxHashSet<Vec<usize>> = Default::default();
    loop {
        let mut kept: Option<Analysis> = None;
        for group in ordered_candidates(&prep, &base) {
            if !tried.insert(group.clone()) {
                continue;
            }
            let group: Vec<usize> = group.into_iter().filter(|i| !out.drop.contains(i)).collect();
            if group.is_empty() {
                continue;
            }
            if group.iter().any(|&i| needed.contains(i)) {
                out.shown_needed += 1;
                continue;
            }
            let mut trial = skip.clone();
            group.iter().for_each(|&i| trial.insert(i));
            let t = analyse_with(&prep, body, model, Options { skip: Some(&trial), allowed: Some(&allowed) });
            out.analyses += 1;
            if !t.aborted && t.findings.is_subset(&allowed) {
                skip = trial;
                out.drop.extend(group);
                kept = Some(t);
            }
        }
        // The next sweep sees the matches after the deletions: those of the analysis of the
        // last deletion kept, which ran to the end (it found nothing new) with all of them.
        match kept {
            Some(t) => base = t,
            None => return out,
        }
    }
}

/// The deletion candidates of `a` (leaves it skipped are absent from its matches but are
/// still listed, and dropped by the caller), in the order they are tried.
fn ordered_candidates(prep: &Prepared, a: &Analysis) -> Vec<Vec<usize>> {
    let mut groups = super::deletion_candidates(prep, a);
    let class = |g: &[usize]| -> u8 {
        let kinds = g.iter().map(|&i| prep.leaves[i].kind);
        if kinds.clone().any(|e| matches!(e, Kind::PipeBarrier(_) | Kind::BarrierAll)) {
            0
        } else if kinds.clone().any(|e| matches!(e, Kind::Wait(_))) {
            1
        } else {
            2
        }
    };
    let depth = |g: &[usize]| g.iter().map(|&i| prep.leaves[i].loops).max().unwrap_or(0);
    groups.sort_by_cached_key(|g| (Reverse(depth(g)), class(g), g.first().copied()));
    groups
}

/// `body` without the leaves whose ids are in `drop`, numbering leaves as the analysis does
/// (assignments and evaluations in program order: sequences in order, then-arm before else-arm,
/// loop and scope bodies once). An `OpStmts` left empty is dropped from its sequence.
pub fn delete_leaves(body: Stmt, drop: &BTreeSet<usize>) -> Stmt {
    let mut next = 0;
    delete(body, drop, &mut next)
}

fn delete(s: Stmt, drop: &BTreeSet<usize>, next: &mut usize) -> Stmt {
    let body = |b: Box<Stmt>, next: &mut usize| Box::new(delete(*b, drop, next));
    match s {
        Stmt::Seq { stmts, span } => Stmt::Seq { stmts: delete_all(stmts, drop, next), span },
        Stmt::Ops { stmts, span } => Stmt::Ops { stmts: delete_all(stmts, drop, next), span },
        Stmt::If { cond, then_body, else_body, return_vars, span } => {
            let then_body = body(then_body, next);
            let else_body = else_body.map(|e| body(e, next));
            Stmt::If { cond, then_body, else_body, return_vars, span }
        }
        Stmt::For { loop_var, start, stop, step, iter_args, body: b, return_vars, kind, span } => {
            Stmt::For { loop_var, start, stop, step, iter_args, body: body(b, next), return_vars, kind, span }
        }
        Stmt::While { cond, iter_args, body: b, return_vars, span } => {
            Stmt::While { cond, iter_args, body: body(b, next), return_vars, span }
        }
        Stmt::Scope { kind, body: b, span } => Stmt::Scope { kind, body: body(b, next), span },
        other => other,
    }
}

fn delete_all(stmts: Vec<Stmt>, drop: &BTreeSet<usize>, next: &mut usize) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        if matches!(s, Stmt::Assign { .. } | Stmt::Eval { .. }) {
            let id = *next;
            *next += 1;
            if !drop.contains(&id) {
                out.push(s);
            }
            continue;
        }
        match delete(s, drop, next) {
            Stmt::Ops { stmts, .. } if stmts.is_empty() => {}
            kept => out.push(kept),
        }
    }
    out
}
