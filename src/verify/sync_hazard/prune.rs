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
//! Cost: most sync ops are needed, and the op right after them shows it. So before the full
//! analysis of a trial, [`analysis::resume`] walks on from the state the last analysis had just
//! before the candidate through the straight-line code around it; a new finding there settles
//! the trial (it can only reject, never accept). The full analysis stops at its first new
//! finding.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use super::analysis::{self, analyse_with, Analysis, Options, SyncModel};
use super::effects::Effect;
use crate::ir::{Program, Stmt};
use crate::passes::Backend;

/// The leaves (ids in program order, as the analysis numbers them) of the sync ops of `body`
/// that can be deleted together without the checker finding anything new.
pub fn removable_syncs(prog: &Program, body: &Stmt, backend: Backend, model: &SyncModel) -> BTreeSet<usize> {
    let empty = BTreeSet::new();
    let mut base = analyse_with(prog, body, backend, model, Options { skip: &empty, allowed: None, snapshots: true });
    let allowed = base.findings.clone();
    let mut skip: BTreeSet<usize> = BTreeSet::new();
    // A group that failed once stays needed: deleting more only removes ordering (the states
    // only grow), so only groups that are new in a later sweep are tried there.
    let mut tried: BTreeSet<BTreeSet<usize>> = BTreeSet::new();
    loop {
        let mut deleted_any = false;
        for group in ordered_candidates(&base) {
            if !tried.insert(group.clone()) {
                continue;
            }
            let group: BTreeSet<usize> = group.difference(&skip).copied().collect();
            let Some(&start) = group.first() else { continue };
            let mut trial = skip.clone();
            trial.extend(group.iter().copied());
            let trial_opts = Options { skip: &trial, allowed: Some(&allowed), snapshots: false };
            let locally_needed =
                analysis::resume(prog, body, backend, model, &mut base, start, trial_opts, |st| st.forget_sets(&group));
            if locally_needed == Some(true) {
                continue;
            }
            let t = analyse_with(prog, body, backend, model, trial_opts);
            if !t.aborted && t.findings.is_subset(&allowed) {
                skip = trial;
                deleted_any = true;
            }
        }
        if !deleted_any {
            return skip;
        }
        // The next sweep sees the matches after the deletions; its new groups (rare) go
        // straight to a full trial, so no snapshots are needed.
        base = analyse_with(prog, body, backend, model, Options { skip: &skip, allowed: None, snapshots: false });
    }
}

/// The deletion candidates of `a` (leaves it skipped are absent from its matches but are
/// still listed, and dropped by the caller), in the order they are tried.
fn ordered_candidates(a: &Analysis) -> Vec<BTreeSet<usize>> {
    let mut groups = super::deletion_candidates(a);
    let class = |g: &BTreeSet<usize>| -> u8 {
        let kinds = g.iter().map(|&i| &a.leaves[i].effect);
        if kinds.clone().any(|e| matches!(e, Effect::PipeBarrier(_) | Effect::BarrierAll)) {
            0
        } else if kinds.clone().any(|e| matches!(e, Effect::Wait(_))) {
            1
        } else {
            2
        }
    };
    let depth = |g: &BTreeSet<usize>| g.iter().map(|&i| a.leaves[i].loops).max().unwrap_or(0);
    groups.sort_by_key(|g| (Reverse(depth(g)), class(g), g.first().copied()));
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
