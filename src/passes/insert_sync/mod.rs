//! `insert-sync` (spec `passes-and-codegen.md` §2.10): inserts `sync_src`/`sync_dst` event
//! pairs between dependent statements on different hardware pipes, and `bar_v`/`bar_m`
//! barriers between dependent statements on the same vector/cube pipe.
//!
//! Per function, in four phases (one module each):
//! 1. [`collect`]: dependences through MemRefs between leaves, loops unrolled once, redundant
//!    pairs pruned per sequence ([`reduce`]);
//! 2. [`events::adjust_scopes`]: pairs crossing an if/for/scope boundary are moved to the
//!    outer side;
//! 3. [`events::assign_event_ids`]: event ids 0–7 per pipe pair, reused when free;
//! 4. [`insert`]: the sync statements spliced into the neighbouring `OpStmts`.
//!
//! Everything that reaches the output is ordered by positions and MemRef ids, never by
//! addresses (§6 Q7, §6.1 Q24). Fixed reference bug §6.1 Q21: the bodies of
//! `with pl.incore():` scopes are analysed and synchronised like any other nested sequence
//! (the reference skipped them). Fixed reference bug §6 Q8 and two more gaps found by fuzzing
//! (F2, docs/fuzzing.md), all checked by the sync hazard checker: folding an unrolled loop body
//! rewrites only that loop's index ([`collect`]), the linear reduction never lets a loop-carried
//! pair replace a forward one ([`reduce`]), and a barrier after a statement is not merged with one before it
//! ([`insert`]). And F2b: the transitive and the linear reductions rely only on syncs that run
//! on every path to the dependence they drop ([`reduce`]), and pairs that phase 2 gives one
//! set are merged or kept apart so that no set has two waits ([`events`]). The body is normalised first (§2.3, scope bodies made
//! sequences too), which is invisible in the printed IR.
//!
//! `break` and `continue` (which the reference's CCE backend does not support): phase 2 gives a
//! pair whose set and wait a jump out of their sequence would separate a wait right after its
//! set, so that no path leaves a flag set ([`events`]), and phase 4 puts a `bar_all` before each
//! jump, which orders what ran before it before what runs after its target, the paths the
//! pairs were not placed for ([`insert`]).
//!
//! Positions are interned per function ([`position::Positions`]): pairs and indexes hold dense
//! ids, and each reduction looks only at its own sequence's pairs, so the pass is linear in
//! the length of a function for straight-line code.

mod collect;
mod depth;
mod effects;
mod events;
mod insert;
mod pairs;
mod position;
mod reduce;
mod rules;
mod stamps;

pub use effects::{leaf_reading, Effects, MemKey, Renamed};

use super::stmt_structure::normalize_body;
use super::{Carried, OptLevel, PassEnv};
use crate::diag::{codes, Diagnostic};
use crate::ir::{Function, Stmt, VarTable};
use rules::Rules;
use std::borrow::{Borrow, Cow};

/// The pass on one function. The body is consumed (phase 4 moves untouched statements instead
/// of cloning); the result depends only on the body and the variables, which this pass does
/// not change.
pub fn function(mut f: Function, env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    let flags = super::schedule_of(&f, env.opt).carried_flags;
    let body = std::mem::replace(&mut f.body, Stmt::empty());
    f.body = sync_function(&f.vars, env, body, flags)?;
    Ok(f)
}

/// The pass as the pass manager runs it (registered as `insert-sync`): [`function`], unless
/// the pass before handed over this pass's analysis of this very function
/// ([`Carried::SyncAnalysis`], from basic-memory-reuse's weighing at `-O1`), which is then
/// applied instead of being computed a second time.
pub fn carrying(mut f: Function, carried: Carried, env: &PassEnv) -> Result<(Function, Carried), Vec<Diagnostic>> {
    match carried {
        Carried::SyncAnalysis(analysed) => {
            let body = std::mem::replace(&mut f.body, Stmt::empty());
            f.body = insert::Plan::build(&f.vars, &analysed.0).apply(body);
            Ok((f, Carried::Nothing))
        }
        Carried::Nothing => function(f, env).map(|f| (f, Carried::Nothing)),
    }
}

/// Phases 1–3 of the pass on one body, done ([`weigh`]) and not applied yet: what
/// [`carrying`] applies.
#[derive(Debug)]
pub struct Analysed(collect::Analysis);

/// The synchronised body of one function. At `-O0` (and for `--passes`) the reference's
/// placement ([`Rules::Reference`]) when the sync hazard checker finds it sound, so that ptoc
/// places exactly what the reference places unless that has a hazard; else, and at `-O1`,
/// the guarded rules'.
/// `flags`: with carried flags ([`pairs::CarriedFlag`]).
fn sync_function(vars: &VarTable, env: &PassEnv, body: Stmt, flags: bool) -> Result<Stmt, Vec<Diagnostic>> {
    depth::check(&body).map_err(|d| vec![d])?;
    let body = normalize_scopes(normalize_body(body));
    if env.opt == OptLevel::O0 {
        let reference = synchronised(vars, env, body.clone(), Rules::Reference, flags);
        if let Some(r) = reference.ok().filter(|r| crate::analysis::hazard::is_hazard_free(vars, r, env.backend)) {
            return Ok(r);
        }
    }
    synchronised(vars, env, body, Rules::Guarded, flags)
}

/// `body` (prepared) with the syncs of `rules` inserted.
fn synchronised(
    vars: &VarTable,
    env: &PassEnv,
    body: Stmt,
    rules: Rules,
    flags: bool,
) -> Result<Stmt, Vec<Diagnostic>> {
    let windows = env.opt >= OptLevel::O1;
    let collect = || collect::collect(vars, &Renamed::default(), env.backend, &body, rules, windows);
    let analysis = place_events_at(flags, collect).map_err(|(a, e)| vec![out_of_event_ids(&a, e.pair)])?;
    Ok(insert::Plan::build(vars, &analysis).apply(body))
}

/// Phases 2 and 3 on what `collect` finds: with carried flags when `flags`
/// ([`pairs::CarriedFlag`]), and without them when they leave the other pairs too few event
/// ids.
fn place_events_at(
    flags: bool,
    collect: impl Fn() -> collect::Analysis,
) -> Result<collect::Analysis, (collect::Analysis, events::OutOfEventIds)> {
    if flags {
        let mut analysis = collect();
        analysis.carried_flags = true;
        if let Ok(a) = place_events(analysis) {
            return Ok(a);
        }
    }
    place_events(collect())
}

/// The sync points of phase 1 with scopes adjusted and event ids assigned; on running out of
/// event ids, the analysis so far and the error.
fn place_events(
    mut analysis: collect::Analysis,
) -> Result<collect::Analysis, (collect::Analysis, events::OutOfEventIds)> {
    events::adjust_scopes(&mut analysis);
    match events::assign_event_ids(&mut analysis) {
        Ok(()) => Ok(analysis),
        Err(e) => Err((analysis, e)),
    }
}

/// `body` as insert-sync analyses it (normalised), for [`weigh`]; `None` when insert-sync
/// would refuse it (a loop nest too deep). Borrowed when it is in that form already, as the
/// bodies of the memory passes are (a copy of a function's body was a tenth of -O1's
/// basic-memory-reuse).
pub fn prepared_body(body: &Stmt) -> Option<Cow<'_, Stmt>> {
    depth::check(body).ok()?;
    Some(if is_prepared(body) {
        Cow::Borrowed(body)
    } else {
        Cow::Owned(normalize_scopes(normalize_body(body.clone())))
    })
}

/// The top-level statements of a body in the form of [`prepared_body`] (a sequence).
pub fn top_level(body: &Stmt) -> &[Stmt] {
    collect::as_seq(body)
}

/// Whether `body` is what [`normalize_body`] and [`normalize_scopes`] make of it: a sequence
/// whose statements are `OpStmts` of assignments and evals or other statements, none a bare
/// assignment, eval or sequence, every branch, loop and scope body such a sequence too.
fn is_prepared(body: &Stmt) -> bool {
    let Stmt::Seq { stmts, .. } = body else { return false };
    stmts.iter().all(|s| match s {
        Stmt::Assign { .. } | Stmt::Eval { .. } | Stmt::Seq { .. } => false,
        Stmt::Ops { stmts, .. } => stmts.iter().all(super::stmt_structure::is_op),
        Stmt::If { then_body, else_body, .. } => is_prepared(then_body) && else_body.as_deref().is_none_or(is_prepared),
        Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Scope { body, .. } => is_prepared(body),
        _ => true,
    })
}

/// The number of sync ops (sets, waits, barriers) insert-sync would give the function body
/// `Seq(top)` without syncs (in the form of [`prepared_body`]), were the MemRefs in `renamed`
/// the ones they map to, with the analysis that counted them; `None` when it fails (out of
/// event ids). For the memory plan of -O1, which weighs the syncs each candidate plan costs
/// without re-pointing any type: the insertions are counted, not made. The statements are given
/// one by one so that the plan's dead allocs can be left out without copying the body: the
/// analysis is then that of the body the plan makes, which [`carrying`] can apply.
pub fn weigh<S: Borrow<Stmt>>(
    vars: &VarTable,
    renamed: &Renamed,
    env: &PassEnv,
    top: &[S],
) -> Option<(usize, Analysed)> {
    let flags = env.opt >= OptLevel::O2;
    let analysis = place_events_at(flags, || collect::collect_seq(vars, renamed, env.backend, top)).ok()?;
    let n = insert::Plan::build(vars, &analysis).len();
    Some((n, Analysed(analysis)))
}

/// Makes every scope body a normalised `SeqStmts`, so that its statements have positions in
/// an `OpStmts` like those of loop bodies, and splices a sequence nested directly in another
/// into it: the analysis reads a sequence's children as its statements, and would take a nested
/// sequence for one opaque statement (no sync for anything in it).
fn normalize_scopes(s: Stmt) -> Stmt {
    let rec = |b: Box<Stmt>| Box::new(normalize_scopes(*b));
    match s {
        Stmt::Seq { stmts, span } => {
            let mut flat = Vec::with_capacity(stmts.len());
            for child in stmts.into_iter().map(normalize_scopes) {
                match child {
                    Stmt::Seq { stmts, .. } => flat.extend(stmts),
                    other => flat.push(other),
                }
            }
            Stmt::Seq { stmts: flat, span }
        }
        Stmt::If { cond, then_body, else_body, return_vars, span } => {
            Stmt::If { cond, then_body: rec(then_body), else_body: else_body.map(rec), return_vars, span }
        }
        Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, span } => {
            Stmt::For { loop_var, start, stop, step, iter_args, body: rec(body), return_vars, kind, span }
        }
        Stmt::While { cond, iter_args, body, return_vars, span } => {
            Stmt::While { cond, iter_args, body: rec(body), return_vars, span }
        }
        Stmt::Scope { kind, body, span } => {
            Stmt::Scope { kind, body: Box::new(normalize_scopes(normalize_body(*body))), span }
        }
        other => other,
    }
}

/// The error for a ninth outstanding event of one pipe pair, at the statement that sets it.
fn out_of_event_ids(a: &collect::Analysis, pair: usize) -> Diagnostic {
    let p = &a.pairs[pair];
    let span = a.span(p.set);
    let pipes = format!("{}->{}", p.src.name(), p.dst.name());
    Diagnostic::error(
        codes::EVENT_IDS_EXHAUSTED,
        span,
        format!("Out of hardware event IDs (max {}) for pipe pair {pipes}", events::MAX_EVENT_IDS),
    )
    .with_label(format!("this needs a ninth {pipes} event while eight are still waiting"))
    .with_note(format!(
        "each {} -> {} dependence holds one of {} event ids from its sync_src until its sync_dst",
        p.src.name(),
        p.dst.name(),
        events::MAX_EVENT_IDS
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::ir::Program;
    use crate::passes::Pipeline;

    /// A kernel loading and adding in a loop, through basic-memory-reuse.
    fn planned() -> Program {
        let src = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, a: pl.Tensor[[48, 128], pl.FP16], out: pl.Out[pl.Tensor[[48, 128], pl.FP16]]) -> pl.Tensor[[48, 128], pl.FP16]:\n        run: pl.Tile[[16, 128], pl.FP16] = pl.block.load(a, [0, 0], [16, 128])\n        for i in pl.range(0, 3, 1):\n            tx: pl.Tile[[16, 128], pl.FP16] = pl.block.load(a, [i * 16, 0], [16, 128])\n            run: pl.Tile[[16, 128], pl.FP16] = pl.block.add(run, tx)\n        r: pl.Tensor[[48, 128], pl.FP16] = pl.block.store(run, [0, 0], [16, 128], out)\n        return r\n";
        let prog = crate::driver::frontend(src).expect("lowers");
        let passes: Vec<_> = Pipeline::Default.passes().into_iter().take_while(|p| p.name != "insert-sync").collect();
        crate::passes::manager::Manager::new(&passes, PassEnv::new(Backend::Cce)).run(prog).expect("passes")
    }

    /// [`is_prepared`] holds only of bodies normalising leaves unchanged: on every corpus
    /// program, as lowered and at each stage up to insert-sync.
    #[test]
    fn a_body_taken_as_prepared_is_its_own_normal_form() {
        let (mut taken, mut bodies) = (0, 0);
        for (name, text) in crate::parser::split_tests::corpus() {
            let Ok(mut prog) = crate::driver::frontend_with_jobs(&text, 1) else { continue };
            let passes: Vec<_> =
                Pipeline::Default.passes().into_iter().take_while(|p| p.name != "insert-sync").collect();
            for pass in std::iter::once(None).chain(passes.iter().map(Some)) {
                if let Some(pass) = pass {
                    let one = [*pass];
                    match crate::passes::manager::Manager::new(&one, PassEnv::new(Backend::Cce)).run(prog) {
                        Ok(p) => prog = p,
                        Err(_) => break,
                    }
                }
                for f in &prog.functions {
                    bodies += 1;
                    if is_prepared(&f.body) {
                        taken += 1;
                        let normal = normalize_scopes(normalize_body(f.body.clone()));
                        assert_eq!(format!("{normal:?}"), format!("{:?}", f.body), "{name}: {}", f.name);
                    }
                }
            }
        }
        assert!(taken > 100 && taken < bodies, "{taken} of {bodies} bodies taken as prepared");
    }

    fn syncs(prog: &Program) -> usize {
        let text = crate::printer::print_program(prog);
        text.lines().filter(|l| l.contains("pl.system.")).count()
    }

    #[test]
    fn a_sequence_nested_in_a_sequence_is_analysed_as_its_statements() {
        let env = PassEnv::new(Backend::Cce);
        let flat = crate::passes::Transform::Function(function).apply(planned(), &env).expect("insert-sync");
        assert!(syncs(&flat) > 0);
        // The same body with its statements after the allocs in a sequence of their own.
        let mut nested = planned();
        let f = &mut nested.functions[0];
        let Stmt::Seq { stmts, span } = std::mem::replace(&mut f.body, Stmt::empty()) else { panic!("a sequence") };
        let (allocs, rest) = stmts.split_at(1);
        let mut outer = allocs.to_vec();
        outer.push(Stmt::Seq { stmts: rest.to_vec(), span });
        f.body = Stmt::Seq { stmts: outer, span };
        let nested = crate::passes::Transform::Function(function).apply(nested, &env).expect("insert-sync");
        assert_eq!(syncs(&nested), syncs(&flat));
    }
}
