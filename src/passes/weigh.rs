//! Weighing a pass's candidates by the cycle model ([`crate::analysis::cycles`]): a pass that
//! can rewrite a function several ways (basic-memory-reuse's plans and schedules, split-rows'
//! row blocks) runs each candidate through the passes of the default pipeline after itself and
//! keeps the one with the fewest estimated cycles. One helper, so that every weighing pass
//! estimates the same way: as the CCE backend synchronises the kernel, whatever the backend
//! (for the PTO backend ptoas places the syncs, but the dependences are the same), so that the
//! choice, and so the printed IR, does not depend on the backend.

use crate::analysis::cycles::{estimate, Options};
use crate::backend::Backend;
use crate::ir::Function;
use crate::passes::{Carried, OptLevel, PassEnv, PassInfo, Pipeline};

/// The passes of the default pipeline at `opt` after the pass `name`. When the level does not
/// run `name` (`--passes` runs passes at `-O0`), the passes after it at `-O2`, the level that
/// runs every pass of the pipeline.
pub fn passes_after(name: &str, opt: OptLevel) -> Vec<&'static PassInfo> {
    let after = |opt| {
        let passes = Pipeline::Default.passes_at(opt);
        let at = passes.iter().position(|p| p.name == name)?;
        Some(passes[at + 1..].to_vec())
    };
    after(opt).or_else(|| after(OptLevel::O2)).unwrap_or_default()
}

/// The estimated cycles of `f` once `rest` has run on it, estimated as the CCE backend
/// synchronises it; `None` when a pass fails, the model cut the run short, or a wait has no
/// set before it (a candidate the passes could not synchronise is never chosen).
pub fn cycles_after(f: Function, rest: &[&PassInfo], env: &PassEnv) -> Option<u64> {
    let env = &PassEnv { backend: Backend::Cce, ..*env };
    let (mut f, mut carried) = (f, Carried::Nothing);
    for p in rest {
        (f, carried) = p.run.run_function(f, carried, env)?.ok()?;
    }
    let e = estimate(&f, env.backend, &Options::default());
    (!e.truncated && e.unmatched_waits == 0).then_some(e.cycles)
}
