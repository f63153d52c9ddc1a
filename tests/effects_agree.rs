//! Insert-sync and the sync hazard checker read every leaf alike: both take a leaf's pipe and
//! the variables it reads and writes from `ptoc::analysis::effects`, and each resolves those
//! variables to MemRefs its own way (insert-sync by MemRef id and variable, the checker by
//! location). For every leaf of the lit tests and of genmix programs of every kind, after each
//! pass from init-mem-ref on (both backends' pipe tables), the two readings must name the same
//! MemRefs on the same pipe: insert-sync's reading (`passes::insert_sync::leaf_reading`) against
//! the checker's (`verify::sync_hazard::leaf_effect`). The checker leaves out the scalar unit's
//! work (pipe S), which no pipe's sync orders, and insert-sync pairs nothing with it.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use ptoc::backend::Backend;
use ptoc::ir::{visit::walk_stmts, Function, PipeType, Program};
use ptoc::passes::manager::Manager;
use ptoc::passes::{insert_sync, OptLevel, PassEnv, Pipeline};
use ptoc::verify::sync_hazard::{leaf_effect, Effect};

/// genmix kinds (`genmix.py --kind`).
const KINDS: [&str; 7] = ["vector", "matmul", "loop", "branch", "reduce", "scalar", "mixed"];

/// How many leaves were compared, and the disagreements found.
#[derive(Default)]
struct Tally {
    leaves: usize,
    accesses: usize,
    failures: Vec<String>,
}

fn ids<'a>(xs: impl IntoIterator<Item = &'a u64>) -> BTreeSet<u64> {
    xs.into_iter().copied().collect()
}

/// Compares the two readings of every leaf of `f`.
fn compare(what: &str, f: &Function, backend: Backend, tally: &mut Tally) {
    walk_stmts(&f.body, &mut |s| {
        if !matches!(s, ptoc::ir::Stmt::Assign { .. } | ptoc::ir::Stmt::Eval { .. }) {
            return;
        }
        tally.leaves += 1;
        let ours = insert_sync::leaf_reading(&f.vars, s, backend);
        let checker = leaf_effect(&f.vars, s, backend);
        let agree = match (&ours, &checker) {
            (Some(fx), Effect::Access { pipe, reads, writes }) => {
                tally.accesses += 1;
                fx.pipe == *pipe
                    && ids(fx.reads.iter().map(|k| &k.0)) == ids(reads.iter().map(|l| &l.id))
                    && ids(fx.writes.iter().map(|k| &k.0)) == ids(writes.iter().map(|l| &l.id))
            }
            (None, Effect::Access { reads, writes, .. }) => reads.is_empty() && writes.is_empty(),
            (Some(fx), Effect::Nothing) => fx.pipe == PipeType::S,
            (None, _) => true,
            (Some(_), _) => false,
        };
        if !agree && tally.failures.len() < 20 {
            tally.failures.push(format!(
                "{what}, function `{}`, {backend:?}: leaf at {:?}: insert-sync reads {ours:?}, the checker {checker:?}",
                f.name,
                s.span()
            ));
        }
    });
}

/// Runs the default pipeline at both levels on `text` and compares every leaf after each pass
/// from init-mem-ref on (a failing pass ends the comparison there).
fn check_program(what: &str, text: &str, tally: &mut Tally) {
    for opt in [OptLevel::O0, OptLevel::O1] {
        for backend in [Backend::Cce, Backend::Pto] {
            let Ok(prog) = ptoc::driver::frontend(text) else { return };
            let passes = Pipeline::Default.passes_at(opt);
            let env = PassEnv { opt, jobs: 1, ..PassEnv::new(backend) };
            let mut memrefs = false;
            let mut observe = |step: ptoc::passes::manager::Step<'_>| {
                memrefs |= step.pass.name == "init-mem-ref";
                if memrefs {
                    let p: &Program = step.program;
                    let label = format!("{what} -{opt:?} after {}", step.pass.name);
                    p.functions.iter().for_each(|f| compare(&label, f, backend, tally));
                }
            };
            let _ = Manager::new(&passes, env).run_observed(prog, None, &mut observe);
        }
    }
}

#[test]
fn insert_sync_and_the_checker_read_every_leaf_alike() {
    let mut tally = Tally::default();
    let lit = common::manifest_dir().join("lit-tests");
    for path in common::files_under(&lit, ".pto") {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        check_program(&common::relative_name(&path, &lit), &text, &mut tally);
    }
    let script = common::manifest_dir().join("../shared/tools/genmix.py");
    let mut generated = 0;
    if Path::new(&script).is_file() {
        for kind in KINDS {
            for seed in 1..=6 {
                let Some(text) = common::genmix(&script, kind, seed) else { continue };
                generated += 1;
                check_program(&format!("genmix --kind {kind} --seed {seed}"), &text, &mut tally);
            }
        }
    }
    if generated == 0 {
        eprintln!("effects_agree: no genmix programs (no python3 or genmix.py); lit tests only");
    }
    eprintln!(
        "effects_agree: {} leaves compared ({} accesses), lit tests and {generated} genmix programs",
        tally.leaves, tally.accesses
    );
    assert!(tally.accesses > 1000, "too few accesses compared: {} of {} leaves", tally.accesses, tally.leaves);
    assert!(tally.failures.is_empty(), "the readings disagree:\n{}", tally.failures.join("\n"));
}
