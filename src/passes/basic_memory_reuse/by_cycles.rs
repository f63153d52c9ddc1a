//! The memory plan and loop schedule of a kernel chosen by the cycle model
//! ([`crate::analysis::cycles`]) at `-O1` and `-O2`: fewer syncs do not make fewer cycles (a
//! plan that shares more buffers has fewer syncs, but its loads wait for the computations of
//! the buffer's last tile), so for a kernel where estimating is cheap (a loop, at most
//! [`MAX_STATEMENTS`] statements) each candidate goes through the passes after this one
//! ([`weigh`]) and the one with the fewest estimated cycles is kept; the first candidate on a
//! tie.
//!
//! The candidates: the lifetime plan chosen by its syncs ([`super::choose_plan`]) and the
//! reference's plan (`-O0`'s), each at `-O2` with pipeline-loops' own loops in 2 (with and
//! without carried flags), 3 or 4 copies or not pipelined (with and without carried flags)
//! ([`Schedule`], kept in [`Function::schedule`] for the later passes). At `-O2` this includes what `-O1` does, so
//! no kernel is estimated slower at `-O2` than at `-O1`, nor at `-O1` than with `-O0`'s plan.

use crate::ir::{Function, FunctionType, Stmt};
use crate::passes::{weigh, OptLevel, PassEnv, Schedule};

/// The most statements (leaves and compound statements) of a kernel whose plan is chosen by
/// cycles: each candidate costs a run of the later passes and of the model.
pub const MAX_STATEMENTS: usize = 256;

/// Whether `f`'s plan is chosen by cycles: an InCore function with a loop and at most
/// [`MAX_STATEMENTS`] statements.
pub fn applies(f: &Function, env: &PassEnv) -> bool {
    env.opt >= OptLevel::O1 && loops_and_size(f).is_some_and(|n| n <= MAX_STATEMENTS)
}

/// Whether `f` is an InCore kernel with a loop whose plan is not chosen by cycles (it has more
/// than [`MAX_STATEMENTS`] statements).
pub fn too_large(f: &Function) -> bool {
    loops_and_size(f).is_some_and(|n| n > MAX_STATEMENTS)
}

/// The number of statements of an InCore function with a loop; `None` for other functions.
fn loops_and_size(f: &Function) -> Option<usize> {
    if f.kind != FunctionType::InCore {
        return None;
    }
    let (mut n, mut loops) = (0usize, false);
    crate::ir::visit::walk_stmts(&f.body, &mut |s| {
        n += 1;
        loops |= matches!(s, Stmt::For { .. } | Stmt::While { .. });
    });
    loops.then_some(n)
}

/// The schedules tried at a level, what the level does first.
pub fn schedules(opt: OptLevel) -> Vec<Schedule> {
    let s = |stages, carried_flags| Schedule { stages, carried_flags };
    if opt < OptLevel::O2 {
        return vec![s(1, false)];
    }
    let auto = crate::passes::pipeline_loops::AUTO_STAGES;
    vec![s(auto, true), s(auto, false), s(3, true), s(4, true), s(1, true), s(1, false)]
}

/// The schedule of a kernel too large to weigh ([`too_large`]), at every level: `-O1`'s (no
/// copies, no carried flags), so that no level pipelines a loop the model did not weigh.
pub fn unweighed() -> Schedule {
    Schedule { stages: 1, carried_flags: false }
}

/// The candidate with the fewest estimated cycles, its schedule set; the first one on a tie,
/// and as it is when no candidate could be estimated.
pub fn choose(candidates: Vec<Function>, env: &PassEnv) -> Function {
    let rest = weigh::passes_after("basic-memory-reuse", env.opt);
    let mut best: Option<(u64, usize, Schedule)> = None;
    for (k, f) in candidates.iter().enumerate() {
        for s in schedules(env.opt) {
            let mut trial = f.clone();
            trial.schedule = Some(s);
            let Some(cycles) = weigh::cycles_after(trial, &rest, env) else { continue };
            if best.is_none_or(|(b, ..)| cycles < b) {
                best = Some((cycles, k, s));
            }
        }
    }
    let (k, s) = best.map_or((0, None), |(_, k, s)| (k, Some(s)));
    let mut f = candidates.into_iter().nth(k).unwrap_or_else(|| unreachable!("a candidate at least"));
    f.schedule = s;
    f
}

#[cfg(test)]
mod tests {
    use crate::analysis::cycles::{estimate, Options};
    use crate::backend::Backend;
    use crate::ir::{FunctionType, Program};
    use crate::passes::{manager::Manager, OptLevel, PassEnv, Pipeline};

    /// A loop of load, scale and store, whose memory plans differ in cycles.
    const SRC: &str = include_str!("../../../examples/tiled_loop.pto");

    fn compiled(opt: OptLevel) -> Program {
        let prog = crate::driver::frontend(SRC).expect("lowers");
        let env = PassEnv { opt, ..PassEnv::new(Backend::Cce) };
        Manager::new(&Pipeline::Default.passes_at(opt), env).run(prog).expect("passes")
    }

    fn kernel_cycles(p: &Program) -> u64 {
        let k = p.functions.iter().find(|f| f.kind == FunctionType::InCore).expect("a kernel");
        estimate(k, Backend::Cce, &Options::default()).cycles
    }

    #[test]
    fn each_level_is_estimated_no_slower_than_the_one_below() {
        let [o0, o1, o2] = [OptLevel::O0, OptLevel::O1, OptLevel::O2].map(compiled);
        let [c0, c1, c2] = [&o0, &o1, &o2].map(kernel_cycles);
        assert!(c1 <= c0 && c2 <= c1, "-O0 {c0}, -O1 {c1}, -O2 {c2} cycles");
        // The lifetime plan gives the loaded and the scaled tile one buffer, so the next load
        // waits for the store; -O2 pipelines the loop with carried flags.
        assert!(c2 < c0, "-O2 {c2} is no faster than -O0 {c0}");
        let kernel = |p: &Program| p.functions.iter().find(|f| f.kind == FunctionType::InCore).unwrap().schedule;
        assert_eq!(kernel(&o0), None, "-O0 chooses nothing");
        let s2 = kernel(&o2).expect("-O2 chose a schedule");
        assert!(s2.stages >= 2 && s2.carried_flags, "{s2:?}");
        assert_eq!(kernel(&o1).map(|s| (s.stages, s.carried_flags)), Some((1, false)));
    }
}
