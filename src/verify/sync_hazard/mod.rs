//! The sync hazard checker (`--verify-sync`, `--report-redundant-sync`): the hazard analysis
//! ([`crate::analysis::hazard`], which the sync passes use too) run on every function of a
//! program, its findings as diagnostics.
//!
//! Typical use, after a pass that inserts sync ops:
//! `assert!(sync_hazard::check_sync(&prog, Backend::Cce).is_empty())`.

pub use crate::analysis::hazard::{
    check_function, delete_leaves, has_written_syncs, is_hazard_free, leaf_effect, redundant_syncs,
    redundant_syncs_with, removable_syncs, DepKind, Effect, Event, Hazard, Kind, MemLoc, OpSite, RedundantSync,
    RemovableSyncs, SyncModel,
};

use crate::backend::Backend;
use crate::diag::Diagnostic;
use crate::ir::Program;

/// Checks every function of `prog` with the default [`SyncModel`]; findings in function order,
/// then program order.
pub fn check_sync(prog: &Program, backend: Backend) -> Vec<Hazard> {
    check_sync_with(prog, backend, &SyncModel::default())
}

/// [`check_sync`] with an explicit hardware model.
pub fn check_sync_with(prog: &Program, backend: Backend, model: &SyncModel) -> Vec<Hazard> {
    prog.functions.iter().flat_map(|f| check_function(f, backend, model)).collect()
}

/// [`check_sync`] as diagnostics (errors `E0603` / `E0604` / `E0608`, pointing at the later op
/// or the set).
pub fn hazard_diagnostics(prog: &Program, backend: Backend) -> Vec<Diagnostic> {
    check_sync(prog, backend).iter().map(Hazard::to_diagnostic).collect()
}

/// [`redundant_syncs`] as warnings (`E0605`), one per candidate, pointing at its last op.
pub fn redundant_diagnostics(prog: &Program, backend: Backend) -> Vec<Diagnostic> {
    redundant_syncs(prog, backend).iter().map(RedundantSync::to_diagnostic).collect()
}

#[cfg(test)]
mod tests;
