//! The postcondition of the passes that place or remove sync ops ([`PassInfo::edits_syncs`]),
//! like Cranelift's verifier after a pass: after the last of them, a sync hazard in a
//! function is a bug of ptoc, reported as an internal error that names the two ops and the
//! passes. It runs once, after the last sync pass of the list: later sync passes only remove
//! syncs, so a hazard left by an earlier one is still there to be found.
//!
//! A function that held sync ops written in the input (they have a source position, the
//! passes' own have none), as the first sync pass finds it, is left to `--verify-sync`: its
//! hazards may be the author's, even once remove-redundant-sync has deleted those ops.

use std::sync::Mutex;

use super::instrument::{Found, FunctionCheck};
use crate::analysis::hazard;
use crate::diag::Diagnostic;
use crate::ir::Function;
use crate::passes::{PassEnv, PassInfo};

pub struct SyncPostcondition {
    first: usize,
    last: usize,
    /// The sync passes up to the last one, as the message names them.
    passes: String,
    env: PassEnv,
    /// The functions with sync ops written in the text, as the first sync pass sees them.
    written: Mutex<Vec<String>>,
}

impl SyncPostcondition {
    /// The check for the list `passes`, or `None` when it has no sync pass.
    pub fn new(passes: &[&'static PassInfo], env: PassEnv) -> Option<SyncPostcondition> {
        let syncs = || passes.iter().enumerate().filter(|(_, p)| p.edits_syncs).map(|(k, _)| k);
        let (first, last) = (syncs().next()?, syncs().next_back()?);
        let names: Vec<String> = syncs().map(|k| format!("`{}`", passes[k].name)).collect();
        Some(SyncPostcondition { first, last, passes: names.join(" and "), env, written: Mutex::new(Vec::new()) })
    }

    fn written(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        // A thread that panicked while holding the lock left a whole list behind.
        self.written.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl FunctionCheck for SyncPostcondition {
    fn before(&self, k: usize, f: &Function) {
        if k == self.first && hazard::has_written_syncs(f) {
            self.written().push(f.name.clone());
        }
    }

    fn after(&self, k: usize, f: &Function) -> Option<Found> {
        if k != self.last || self.written().contains(&f.name) {
            return None;
        }
        let hazards: Vec<Diagnostic> = hazard::check_function(f, self.env.backend, &hazard::SyncModel::default())
            .into_iter()
            .map(|h| {
                let mut d = h.to_diagnostic();
                d.severity = crate::diag::Severity::Internal; // a bug of ptoc, not of the input
                d.message = format!("{} left a sync hazard in `{}`: {}", self.passes, f.name, d.message);
                d.notes.push(
                    "this is a bug in ptoc; please report it with the input file (`--verify-level none` skips this check)"
                        .into(),
                );
                d
            })
            .collect();
        (!hazards.is_empty()).then_some(Found::Diagnostics(hazards))
    }

    fn report(&self, _k: usize, found: Vec<Found>) -> Vec<Diagnostic> {
        found
            .into_iter()
            .flat_map(|f| match f {
                Found::Diagnostics(d) => d,
                Found::Findings(_) => Vec::new(),
            })
            .collect()
    }
}
