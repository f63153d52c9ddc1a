//! `remove-redundant-sync` (ptoc's own pass, `-O1`; not in the reference): runs after
//! insert-sync and deletes every sync op (`sync_src`/`sync_dst` pair, dangling `sync_src`,
//! `bar_v`/`bar_m`/`bar_all`) whose deletion makes the sync hazard checker find nothing it did
//! not find before, then renumbers the event ids of each pipe pair compactly.
//!
//! The checker is the judge ([`hazard::removable_syncs`], in the analysis layer the checker runs, holds the search: order, trials,
//! re-checks after each deletion); this module only applies its answer to the IR. Every
//! function is treated on its own, as the checker checks it.

use std::collections::BTreeMap;

use super::PassEnv;
use crate::analysis::hazard::{self, SyncModel};
use crate::diag::Diagnostic;
use crate::ir::{Function, KwValue, Stmt};
use crate::ops::SyncOp;

/// The pass's registry name.
pub const NAME: &str = "remove-redundant-sync";

/// The pass on one function.
pub fn function(mut f: Function, env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    let drop = hazard::removable_syncs(&f.vars, &f.body, env.backend, &SyncModel::default()).drop;
    if !drop.is_empty() {
        let body = std::mem::replace(&mut f.body, Stmt::empty());
        f.body = hazard::delete_leaves(body, &drop);
        renumber_events(&mut f.body);
    }
    Ok(f)
}

/// Renumbers the event ids of each (set pipe, wait pipe) pair to 0, 1, … in the order of the
/// old ids. A one-to-one renaming within a pipe pair orders exactly what the old ids did.
fn renumber_events(body: &mut Stmt) {
    let mut used: BTreeMap<(i64, i64), BTreeMap<i64, i64>> = BTreeMap::new();
    for_each_sync(body, &mut |kw| {
        if let Some((pipes, id)) = event_of(kw) {
            used.entry(pipes).or_default().insert(id, 0);
        }
    });
    for ids in used.values_mut() {
        for (k, new) in ids.values_mut().enumerate() {
            *new = k as i64;
        }
    }
    for_each_sync(body, &mut |kw| {
        let Some((pipes, id)) = event_of(kw) else { return };
        let new = used.get(&pipes).and_then(|m| m.get(&id)).copied().unwrap_or(id);
        crate::ops::kwargs::set_event_id(kw, new);
    });
}

/// ((set pipe, wait pipe), event id) of a sync op's kwargs.
fn event_of(kw: &[(&'static str, KwValue)]) -> Option<((i64, i64), i64)> {
    let e = crate::ops::kwargs::sync_event_of(kw)?;
    Some(((e.set_pipe.index() as i64, e.wait_pipe.index() as i64), e.id))
}

/// Calls `f` with the kwargs of every `system.sync_src` / `system.sync_dst` in `s`.
fn for_each_sync(s: &mut Stmt, f: &mut impl FnMut(&mut Vec<(&'static str, KwValue)>)) {
    match s {
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter_mut().for_each(|c| for_each_sync(c, f)),
        Stmt::If { then_body, else_body, .. } => {
            for_each_sync(then_body, f);
            if let Some(e) = else_body {
                for_each_sync(e, f);
            }
        }
        Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Scope { body, .. } => for_each_sync(body, f),
        Stmt::Eval { expr, .. } => {
            if let crate::ir::ExprKind::Call(call) = &mut expr.kind {
                let sync = call.callee.op().and_then(|op| crate::ops::def(op).sync);
                if matches!(sync, Some(SyncOp::Set | SyncOp::Wait)) {
                    f(&mut call.kwargs);
                }
            }
        }
        _ => {}
    }
}
