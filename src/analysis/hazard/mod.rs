//! The sync hazard analysis: given IR with sync ops, finds every cross-pipe RAW/WAR/WAW
//! dependency on a MemRef that no set/wait pair (matching pipes and event id) or barrier orders,
//! and every wait that may find no matching set — following program order per pipe through
//! sequences, both arms of `if`s and loops (including the back edge). It also finds sync ops
//! whose removal would create no finding ([`redundant_syncs`], and the search of
//! remove-redundant-sync, [`removable_syncs`]).
//!
//! It is independent of InsertSync's algorithm (spec `passes-and-codegen.md` §2.10): it models
//! the hardware ([`dataflow`]) instead of re-deriving the pass's pairs, so it can judge the
//! pass's output. The leaf effects (which MemRefs an op reads and writes, on which pipe) are
//! the pass's: both read a leaf through [`crate::analysis::effects`]. Each function is checked
//! on its own from an idle machine; calls and ops without a pipe (scalar pipe S) are not
//! accesses ([`leaf_effect`]).
//!
//! Its users: the sync checker (`verify::sync_hazard`: `--verify-sync`,
//! `--report-redundant-sync`), the pass manager's sync postcondition ([`check_function`]),
//! insert-sync at `-O0` ([`is_hazard_free`]) and remove-redundant-sync ([`removable_syncs`],
//! [`delete_leaves`]).

mod dataflow;
mod leaf;
mod necessity;
mod prune;

use std::collections::BTreeSet;
use std::fmt;

pub use crate::analysis::effects::{Event, Kind, MemLoc};
pub use dataflow::{DepKind, SyncModel};
pub use leaf::{hazard_kind, leaf_effect, Effect};
pub use prune::RemovableSyncs;
pub use prune::{delete_leaves, removable_syncs};

use crate::backend::Backend;
use crate::diag::{codes, Diagnostic, Severity, Span};
use crate::ir::{Function, PipeType, Program, Stmt, VarTable};
use dataflow::{analyse, Analysis, Finding, Prepared};

/// An op involved in a finding.
#[derive(Clone, Debug, PartialEq)]
pub struct OpSite {
    /// The op's IR name (`block.load`, `system.sync_dst`).
    pub op: String,
    /// The pipe it runs on (for sync ops: the pipe that sets or waits).
    pub pipe: PipeType,
    /// The statement; for a statement without a position (made by a pass), the position of
    /// the next statement that has one (else the previous).
    pub span: Span,
    /// The op with its event for set/wait ops (`sync_src(set_pipe=MTE2, wait_pipe=V,
    /// event_id=0)`), else the op name.
    pub detail: String,
}

/// A hazard in a function.
#[derive(Clone, Debug, PartialEq)]
pub enum Hazard {
    /// `second` may start on its pipe before `first` finished, and they conflict on `memref`.
    Dependency {
        function: String,
        kind: DepKind,
        memref: MemLoc,
        first: OpSite,
        second: OpSite,
        /// `first` is in an earlier iteration of a loop around both (found over the back edge).
        loop_carried: bool,
    },
    /// A wait that may find no set of its event outstanding (it would hang, or consume a stale
    /// set); `on_some_paths`: a set is outstanding on some paths into it but not all.
    UnmatchedWait { function: String, wait: OpSite, event: Event, on_some_paths: bool },
    /// A set that may still be outstanding when the function ends: no wait consumes it on some
    /// path (a later wait of the event, in this kernel's next run or another kernel, would pass
    /// on it before its own producer finished).
    UnconsumedSet { function: String, set: OpSite, event: Event },
}

/// A sync op (or a set/wait pair) that can be deleted without creating a finding.
#[derive(Clone, Debug, PartialEq)]
pub struct RedundantSync {
    pub function: String,
    /// The ops deleted together: a barrier, a dangling set, or a wait with the set(s) it
    /// consumes; in program order.
    pub ops: Vec<OpSite>,
}

/// The hazards of one function, in program order.
pub fn check_function(f: &Function, backend: Backend, model: &SyncModel) -> Vec<Hazard> {
    let prep = Prepared::new(&f.vars, &f.body, backend);
    let a = analyse(&prep, &f.body, model, &[]);
    let mut found: Vec<Finding> = a.findings.iter().copied().collect();
    found.sort_by_key(|f| match *f {
        Finding::Dependency { first, second, .. } => (second, first),
        Finding::UnmatchedWait { wait, .. } => (wait, wait),
        Finding::UnconsumedSet { set } => (set, set),
    });
    found.into_iter().map(|x| hazard(f, &prep, x)).collect()
}

/// Whether the body `body` over `vars` has no hazard at all (the check insert-sync makes of
/// the reference's placement at `-O0`).
pub fn is_hazard_free(vars: &VarTable, body: &Stmt, backend: Backend) -> bool {
    let prep = Prepared::new(vars, body, backend);
    analyse(&prep, body, &SyncModel::default(), &[]).findings.is_empty()
}

/// Whether `f` holds a sync op with a source position: one written in the input, not made by
/// a pass.
pub fn has_written_syncs(f: &Function) -> bool {
    let mut found = false;
    crate::ir::visit::walk_stmts(&f.body, &mut |s| {
        if !found && !s.span().is_none() && matches!(s, crate::ir::Stmt::Eval { .. }) {
            found = leaf_effect(&f.vars, s, Backend::Cce).is_sync();
        }
    });
    found
}

/// The sync ops of `prog` that could each be deleted (alone) without the checker finding
/// anything new: barriers, sets no wait consumes, and waits together with the sets they
/// consume. Deleting several at once may not be safe.
pub fn redundant_syncs(prog: &Program, backend: Backend) -> Vec<RedundantSync> {
    redundant_syncs_with(prog, backend, &SyncModel::default())
}

/// [`redundant_syncs`] with an explicit hardware model.
pub fn redundant_syncs_with(prog: &Program, backend: Backend, model: &SyncModel) -> Vec<RedundantSync> {
    let mut out = Vec::new();
    for f in &prog.functions {
        let prep = Prepared::new(&f.vars, &f.body, backend);
        let base = analyse(&prep, &f.body, model, &[]);
        // A group holding a wait or barrier that alone orders some dependency is needed: no
        // analysis is needed to say so.
        let needed = necessity::needed(&prep, &f.body, model, &base.findings, &base.reached);
        for candidate in deletion_candidates(&prep, &base) {
            if candidate.iter().any(|&i| needed.contains(i)) {
                continue;
            }
            let trial = analyse(&prep, &f.body, model, &candidate);
            if trial.findings.is_subset(&base.findings) {
                let ops = candidate.iter().map(|&i| site(&prep, i)).collect();
                out.push(RedundantSync { function: f.name.clone(), ops });
            }
        }
    }
    out
}

/// The groups of sync ops to try deleting: each barrier; each wait with the sets it may
/// consume; each set that no wait consumes. Each group is sorted.
fn deletion_candidates(prep: &Prepared, a: &Analysis) -> Vec<Vec<usize>> {
    let consumed: BTreeSet<usize> = a.matches.values().flatten().copied().collect();
    let mut out = Vec::new();
    for (i, leaf) in prep.leaves.iter().enumerate() {
        match leaf.kind {
            Kind::PipeBarrier(_) | Kind::BarrierAll => out.push(vec![i]),
            Kind::Set(_) if !consumed.contains(&i) => out.push(vec![i]),
            Kind::Wait(_) => {
                let mut group: BTreeSet<usize> = a.matches.get(&i).cloned().unwrap_or_default();
                group.insert(i);
                out.push(group.into_iter().collect());
            }
            _ => {}
        }
    }
    out
}

fn site(a: &Prepared, leaf: usize) -> OpSite {
    let l = &a.leaves[leaf];
    let located = |x: &&dataflow::Leaf| !x.span.is_none();
    let span = if l.span.is_none() {
        let next = a.leaves[leaf..].iter().find(located);
        next.or_else(|| a.leaves[..leaf].iter().rev().find(located)).map_or(l.span, |x| x.span)
    } else {
        l.span
    };
    let detail = match &l.kind {
        Kind::Set(e) => event_text("sync_src", e),
        Kind::Wait(e) => event_text("sync_dst", e),
        _ => l.op.to_string(),
    };
    let pipe = match l.kind {
        Kind::Access(pipe) => pipe,
        Kind::Set(e) => e.set_pipe,
        Kind::Wait(e) => e.wait_pipe,
        Kind::PipeBarrier(p) => p,
        Kind::BarrierAll => PipeType::All,
        Kind::Nothing => PipeType::S,
    };
    OpSite { op: l.op.to_string(), pipe, span, detail }
}

fn hazard(f: &Function, a: &Prepared, x: Finding) -> Hazard {
    let function = f.name.clone();
    match x {
        Finding::Dependency { first, second, kind, mem } => Hazard::Dependency {
            function,
            kind,
            memref: mem,
            first: site(a, first),
            second: site(a, second),
            // Only the back edge leads from a later leaf, or from another arm of an `if`.
            loop_carried: first >= second || a.leaves[first].exclusive(&a.leaves[second]),
        },
        Finding::UnmatchedWait { wait, somewhere } => {
            let event = match a.leaves[wait].kind {
                Kind::Wait(e) => e,
                _ => Event { set_pipe: PipeType::S, wait_pipe: PipeType::S, id: -1 },
            };
            Hazard::UnmatchedWait { function, wait: site(a, wait), event, on_some_paths: somewhere }
        }
        Finding::UnconsumedSet { set } => {
            let event = match a.leaves[set].kind {
                Kind::Set(e) => e,
                _ => Event { set_pipe: PipeType::S, wait_pipe: PipeType::S, id: -1 },
            };
            Hazard::UnconsumedSet { function, set: site(a, set), event }
        }
    }
}

/// `sync_src(set_pipe=MTE2, wait_pipe=V, event_id=0)`-style text of an event.
fn event_text(op: &str, e: &Event) -> String {
    format!("{op}(set_pipe={}, wait_pipe={}, event_id={})", e.set_pipe.name(), e.wait_pipe.name(), e.id)
}

impl Hazard {
    pub fn function(&self) -> &str {
        match self {
            Hazard::Dependency { function, .. }
            | Hazard::UnmatchedWait { function, .. }
            | Hazard::UnconsumedSet { function, .. } => function,
        }
    }

    /// An error diagnostic at the later op (the earlier one as a secondary label).
    pub fn to_diagnostic(&self) -> Diagnostic {
        match self {
            Hazard::Dependency { kind, memref, first, second, loop_carried, .. } => {
                let (later, earlier) = match kind {
                    DepKind::Raw => ("reads", "written"),
                    DepKind::War => ("writes", "read"),
                    DepKind::Waw => ("writes", "written"),
                };
                let when = if *loop_carried { " (in an earlier loop iteration)" } else { "" };
                let help = if first.pipe == second.pipe {
                    let bar = if first.pipe == PipeType::M { "bar_m" } else { "bar_v" };
                    format!("help: put `pl.system.{bar}()` between them")
                } else {
                    format!(
                        "help: put `pl.system.sync_src(set_pipe=pl.PipeType.{p}, wait_pipe=pl.PipeType.{c}, event_id=…)` after the first op and the matching `sync_dst` before the second",
                        p = first.pipe.name(),
                        c = second.pipe.name()
                    )
                };
                Diagnostic::error(codes::SYNC_HAZARD, second.span, self.to_string())
                    .with_label(format!("{later} {} here on pipe {}", memref.name(), second.pipe.name()))
                    .with_secondary(first.span, format!("{earlier} here on pipe {}{when}", first.pipe.name()))
                    .with_note(help)
            }
            Hazard::UnmatchedWait { on_some_paths, .. } => {
                let note = if *on_some_paths {
                    "a matching sync_src is outstanding on some paths to this wait but not on all"
                } else {
                    "no sync_src with the same pipes and event id is outstanding when this wait runs"
                };
                Diagnostic::error(codes::UNMATCHED_WAIT, self.span(), self.to_string()).with_note(note)
            }
            Hazard::UnconsumedSet { .. } => Diagnostic::error(codes::UNCONSUMED_SET, self.span(), self.to_string())
                .with_note("a later wait of this event would pass on the stale flag before its own producer finished")
                .with_note("help: wait for it on every path before the function ends (a `break` or `return` between a set and its wait skips the wait)"),
        }
    }

    /// The later op of a dependency, or the wait.
    pub fn span(&self) -> Span {
        match self {
            Hazard::Dependency { second, .. } => second.span,
            Hazard::UnmatchedWait { wait, .. } => wait.span,
            Hazard::UnconsumedSet { set, .. } => set.span,
        }
    }
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hazard::Dependency { kind, memref, first, second, loop_carried, .. } => write!(
                f,
                "unsynchronized {} dependency on {}: `{}` (pipe {}) may run before `{}` (pipe {}{}) has finished",
                kind.name(),
                memref.name(),
                second.op,
                second.pipe.name(),
                first.op,
                first.pipe.name(),
                if *loop_carried { ", earlier iteration" } else { "" }
            ),
            Hazard::UnmatchedWait { event, on_some_paths, .. } => write!(
                f,
                "`{}` may wait for a flag that is never set{}",
                event_text("sync_dst", event),
                if *on_some_paths { " on some paths" } else { "" }
            ),
            Hazard::UnconsumedSet { event, .. } => write!(
                f,
                "`{}` may still be outstanding when the function ends: no wait consumes it on some path",
                event_text("sync_src", event)
            ),
        }
    }
}

impl RedundantSync {
    /// A warning at the last op of the group.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let span = self.ops.last().map_or(Span::NONE, |o| o.span);
        let mut d = Diagnostic::error(codes::REDUNDANT_SYNC, span, self.to_string());
        d.severity = Severity::Warning;
        for o in &self.ops[..self.ops.len().saturating_sub(1)] {
            d = d.with_secondary(o.span, format!("deleted together with `{}`", o.detail));
        }
        d
    }
}

impl fmt::Display for RedundantSync {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.ops.iter().map(|o| o.detail.as_str()).collect();
        write!(f, "redundant sync: deleting `{}` creates no hazard", names.join("` + `"))
    }
}
