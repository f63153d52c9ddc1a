//! The pass manager: the one loop that runs a list of passes on a program. The driver, `ptoc
//! run`, the tests, the benchmarks and the fuzz targets all call it, so that what a pass sees
//! (and what is checked around it) is the same everywhere.
//!
//! Around each pass it does what spec `passes-and-codegen.md` §1.5–1.7 asks: with
//! `verify_each`, check the properties the pass requires before it and those it produces after
//! it; with `auto_verify`, verify the pipeline's automatically checked properties when a pass
//! produces them; collect the pass's findings ([`PassInfo::findings`], e.g. `run-verifier`'s
//! report), which do not fail the run. What happens with each step (dumps, printing findings)
//! is the caller's business, through the `observe` callback.

use std::ops::Range;

use super::{Carried, PassEnv, PassInfo, Property, Transform};
use crate::diag::{codes, line_col, Diagnostic, Span};
use crate::ir::{Function, Program};
use crate::verify::{self, VerifyDiagnostic};

/// How to run a list of passes.
#[derive(Clone, Copy)]
pub struct Manager<'a> {
    pub passes: &'a [&'static PassInfo],
    pub env: PassEnv,
    /// Verifier rules the passes' findings leave out (`--disable-rule`).
    pub disabled_rules: &'a [String],
    /// Verify the pipeline's automatically checked properties after the passes that produce
    /// them (§1.6): on for named pipelines at verification level `basic`, off for direct pass
    /// lists (direct pass calls in the reference).
    pub auto_verify: bool,
    /// Check each pass's required properties before it and its produced ones after it.
    pub verify_each: bool,
    /// Check the output of the sync passes for hazards ([`sync_postcondition`]).
    pub sync_postcondition: bool,
    /// Run each stretch of consecutive function passes (without findings) as one chain per
    /// function: every function goes through the whole stretch, with the checks after each
    /// pass, on `--jobs` threads, instead of every pass going over every function in turn. The
    /// output and the diagnostics are the same; the observer is not called for the passes of a
    /// chain, so only callers whose observer looks at nothing but findings set it (the driver
    /// without dumps, statistics or `--time-passes`). Ignored with `verify_each`.
    pub fuse: bool,
}

/// One pass done, as the `observe` callback of [`Manager::run_observed`] sees it.
pub struct Step<'p> {
    /// 1-based position of the pass in the list.
    pub position: usize,
    pub pass: &'static PassInfo,
    /// The program after the pass.
    pub program: &'p Program,
    /// What the pass found (empty for passes without findings).
    pub findings: &'p [VerifyDiagnostic],
}

/// How a run gets its starting program again when a pass fails: the failing pass's input is
/// rebuilt (see [`Manager::run_observed`]) instead of every successful run keeping a copy.
pub type Start<'s> = &'s dyn Fn() -> Result<Program, Vec<Diagnostic>>;

/// The properties a pipeline verifies by itself (§1.6).
const AUTO_VERIFIED: &[Property] = &[Property::SsaForm, Property::TypeChecked, Property::AllocatedMemoryAddr];

impl<'a> Manager<'a> {
    /// Runs `passes` with no checks between them and no rules disabled.
    pub fn new(passes: &'a [&'static PassInfo], env: PassEnv) -> Manager<'a> {
        Manager {
            passes,
            env,
            disabled_rules: &[],
            auto_verify: false,
            verify_each: false,
            sync_postcondition: false,
            fuse: false,
        }
    }

    /// Runs the passes in order on `prog`; the first pass that is not implemented or fails
    /// ends the run with its diagnostics.
    pub fn run(&self, prog: Program) -> Result<Program, Vec<Diagnostic>> {
        self.run_observed(prog, None, &mut |_| {})
    }

    /// [`Manager::run`], calling `observe` after each pass (each pass outside a chain, see
    /// [`Manager::fuse`]). When a pass fails and `start` is given, the pass's input is rebuilt
    /// from it (passes consume their input and are deterministic) to say which required
    /// property it lacks.
    pub fn run_observed(
        &self,
        prog: Program,
        start: Option<Start<'_>>,
        observe: &mut dyn FnMut(Step<'_>),
    ) -> Result<Program, Vec<Diagnostic>> {
        self.run_finishing::<()>(prog, start, observe, None).map(|(prog, _)| prog)
    }

    /// [`Manager::run_observed`], then `finish` (when given) on every function, on `--jobs`
    /// threads, with what it returns in function order. When the list ends with a chain,
    /// `finish` is the chain's last step: each function is finished as soon as its own passes
    /// are done (the driver makes a kernel's C++ there and keeps only a stand-in of its IR),
    /// and none is kept when any fails.
    pub fn run_finishing<T: Send>(
        &self,
        mut prog: Program,
        start: Option<Start<'_>>,
        observe: &mut dyn FnMut(Step<'_>),
        finish: Option<&Finish<'_, T>>,
    ) -> Result<(Program, Vec<T>), Vec<Diagnostic>> {
        let checks = self.checks();
        // The functions holding sync ops written in the text, as the first sync pass finds
        // them (a later one may delete those syncs): the sync postcondition leaves them alone.
        let mut written_syncs: Option<Vec<String>> = None;
        let mut k = 0;
        while k < self.passes.len() {
            let end = self.chain_end(k);
            if end > k + 1 {
                let last = finish.filter(|_| end == self.passes.len());
                let (out, written, finished) =
                    self.run_chain(prog, k..end, &checks, written_syncs.as_deref(), start, last)?;
                if last.is_some() {
                    return Ok((out, finished));
                }
                prog = out;
                if checks.first_sync.is_some_and(|s| (k..end).contains(&s)) {
                    written_syncs = Some(written);
                }
                k = end;
                continue;
            }
            let pass = self.passes[k];
            let run = pass.run;
            if self.verify_each {
                check_properties(&prog, pass, Moment::Before)?;
            }
            if checks.first_sync == Some(k) {
                written_syncs = Some(functions_with_written_syncs(&prog));
            }
            prog = match run.apply(prog, &self.env) {
                Ok(out) => out,
                Err(diags) => return Err(self.failed_run(diags, start, k)),
            };
            let findings = pass.findings.map_or_else(Vec::new, |f| f(&prog, self.disabled_rules, self.env.jobs));
            observe(Step { position: k + 1, pass, program: &prog, findings: &findings });
            if self.verify_each {
                check_properties(&prog, pass, Moment::After)?;
            }
            let todo = &checks.auto_verify[k];
            if !todo.is_empty() {
                let found = verify::verify_with_jobs(&prog, todo, self.env.jobs);
                if !found.is_empty() {
                    return Err(vec![auto_verify_error(pass, todo, &found)]);
                }
            }
            if checks.last_sync == Some(k) {
                let written = written_syncs.as_deref().unwrap_or_default();
                sync_postcondition(&prog, &checks.sync_passes, written, &self.env)?;
            }
            k += 1;
        }
        let Some(finish) = finish else { return Ok((prog, Vec::new())) };
        let functions = std::mem::take(&mut prog.functions);
        let (functions, finished) = crate::par::map_into(functions, self.env.jobs, finish).into_iter().unzip();
        prog.functions = functions;
        Ok((prog, finished))
    }

    /// What is checked after each pass of the list, decided before any runs.
    fn checks(&self) -> Checks {
        // §1.6 step 2, pass by pass: forget what the pass invalidated, then verify what it
        // produced that is not verified yet. Like the reference, this checks SSAForm and
        // TypeChecked after convert-to-ssa and nothing more until a pass produces them again.
        let mut verified: Vec<Property> = Vec::new();
        let mut auto_verify = Vec::new();
        for pass in self.passes {
            let mut todo = Vec::new();
            if self.auto_verify {
                verified.retain(|p| !pass.invalidated.contains(p));
                let new: Vec<Property> = AUTO_VERIFIED
                    .iter()
                    .copied()
                    .filter(|p| pass.produced.contains(p) && !verified.contains(p))
                    .collect();
                todo = rules_for(&new);
                verified.extend(todo.iter().copied());
            }
            auto_verify.push(todo);
        }
        // The postcondition runs once, after the last sync pass of the list: later sync passes
        // only remove syncs, so a hazard left by an earlier one is still there to be found.
        let syncs = || self.passes.iter().enumerate().filter(|(_, p)| is_sync_pass(p)).map(|(k, _)| k);
        let last_sync = syncs().next_back().filter(|_| self.sync_postcondition);
        Checks {
            auto_verify,
            first_sync: syncs().next().filter(|_| last_sync.is_some()),
            last_sync,
            sync_passes: match last_sync {
                Some(last) => self.passes[..=last].iter().filter(|p| is_sync_pass(p)).map(|p| p.name).collect(),
                None => Vec::new(),
            },
        }
    }

    /// The end of the chain of function passes starting at pass `k` (`k + 1` when there is
    /// none to make).
    fn chain_end(&self, k: usize) -> usize {
        if !self.fuse || self.verify_each {
            return k + 1;
        }
        let chainable =
            |p: &PassInfo| matches!(p.run, Transform::Function(_) | Transform::Carrying(_)) && p.findings.is_none();
        let mut end = k;
        while end < self.passes.len() && chainable(self.passes[end]) {
            end += 1;
        }
        end.max(k + 1)
    }

    /// Runs the passes `range` (all function passes) as one chain per function, with the
    /// checks after each pass; the first failure in pass order is reported as the pass-by-pass
    /// run reports it (every function that fails at that pass and check, in function order).
    /// With `finish`, each function that passes them is finished after them; the names of the
    /// functions with sync ops written in the text (see [`Manager::run_finishing`]) come back
    /// with the program.
    #[allow(clippy::type_complexity)] // the program, the written-sync functions, the finished
    fn run_chain<T: Send>(
        &self,
        mut prog: Program,
        range: Range<usize>,
        checks: &Checks,
        written_syncs: Option<&[String]>,
        start: Option<Start<'_>>,
        finish: Option<&Finish<'_, T>>,
    ) -> Result<(Program, Vec<String>, Vec<T>), Vec<Diagnostic>> {
        let functions = std::mem::take(&mut prog.functions);
        let results = crate::par::map_into(functions, self.env.jobs, |f| -> Result<_, ChainFailure> {
            let (f, written) = self.chain_function(f, range.clone(), checks, written_syncs)?;
            Ok(match finish {
                Some(finish) => {
                    let (f, t) = finish(f);
                    (f, written, Some(t))
                }
                None => (f, written, None),
            })
        });
        let mut failures = Vec::new();
        let mut written = Vec::new();
        let mut finished = Vec::new();
        for r in results {
            match r {
                Ok((f, has_written_syncs, t)) => {
                    if has_written_syncs {
                        written.push(f.name.clone());
                    }
                    prog.functions.push(f);
                    finished.extend(t);
                }
                Err(failure) => failures.push(failure),
            }
        }
        let Some(first) = failures.iter().map(|f| (f.pass, f.check)).min() else {
            return Ok((prog, written, finished));
        };
        let failures = failures.into_iter().filter(|f| (f.pass, f.check) == first);
        let (k, pass) = (first.0, self.passes[first.0]);
        Err(match first.1 {
            Check::Run => self.failed_run(failures.flat_map(|f| f.diags).collect(), start, k),
            Check::AutoVerify => {
                // In the automatic verification's order: property by property, functions in order.
                let found = verify::in_rule_order(failures.map(|f| f.found).collect());
                vec![auto_verify_error(pass, &checks.auto_verify[k], &found)]
            }
            Check::SyncPostcondition => failures.flat_map(|f| f.diags).collect(),
        })
    }

    /// One function through the chain `range`, with the checks after each pass; with whether
    /// it holds sync ops written in the text (see [`Manager::run_observed`]).
    fn chain_function(
        &self,
        mut f: Function,
        range: Range<usize>,
        checks: &Checks,
        written_syncs: Option<&[String]>,
    ) -> Result<(Function, bool), ChainFailure> {
        let fail = |pass, check, diags, found| ChainFailure { pass, check, diags, found };
        let mut written = written_syncs.is_some_and(|w| w.contains(&f.name));
        // What the last pass handed over: for the next pass only.
        let mut carried = Carried::Nothing;
        for k in range {
            if checks.first_sync == Some(k) {
                written = crate::analysis::hazard::has_written_syncs(&f);
            }
            let ran = self.passes[k].run.run_function(f, carried, &self.env);
            (f, carried) =
                ran.expect("a chain has only function passes").map_err(|d| fail(k, Check::Run, d, Vec::new()))?;
            let todo = &checks.auto_verify[k];
            if !todo.is_empty() {
                let found = verify::check_rules(&f, todo);
                if found.iter().any(|v| !v.is_empty()) {
                    return Err(fail(k, Check::AutoVerify, Vec::new(), found));
                }
            }
            if checks.last_sync == Some(k) && !written {
                let hazards = function_sync_hazards(&f, &checks.sync_passes, &self.env);
                if !hazards.is_empty() {
                    return Err(fail(k, Check::SyncPostcondition, hazards, Vec::new()));
                }
            }
        }
        Ok((f, written))
    }

    /// The error of pass `k`'s run: its diagnostics, with what its input lacks when `start`
    /// can rebuild that input.
    fn failed_run(&self, diags: Vec<Diagnostic>, start: Option<Start<'_>>, k: usize) -> Vec<Diagnostic> {
        match start.and_then(|start| self.replay(start, k)) {
            Some(input) => with_missing_preconditions(diags, &input, self.passes[k]),
            None => diags,
        }
    }

    /// The input of pass number `k`: the start program through the passes before it again.
    fn replay(&self, start: Start<'_>, k: usize) -> Option<Program> {
        self.passes[..k].iter().try_fold(start().ok()?, |prog, pass| pass.run.apply(prog, &self.env).ok())
    }
}

/// The last step of a run for each function (see [`Manager::run_finishing`]): the function
/// (or what is left of it) and what the step made of it.
pub type Finish<'f, T> = dyn Fn(Function) -> (Function, T) + Sync + 'f;

/// What the manager checks after each pass (see [`Manager::checks`]).
struct Checks {
    /// For each pass, the properties the automatic verification checks after it (in the
    /// verifier's order).
    auto_verify: Vec<Vec<Property>>,
    /// The first and the last sync pass, when the sync postcondition is on.
    first_sync: Option<usize>,
    last_sync: Option<usize>,
    /// The names of the sync passes up to the last one.
    sync_passes: Vec<&'static str>,
}

/// The steps of a pass, in the order they run (a failing run stops before its checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Check {
    Run,
    AutoVerify,
    SyncPostcondition,
}

/// How one function failed in a chain: at which pass and step, with the pass's diagnostics or
/// the sync hazards (`diags`), or the automatic verification's findings by property (`found`).
struct ChainFailure {
    pass: usize,
    check: Check,
    diags: Vec<Diagnostic>,
    found: Vec<Vec<VerifyDiagnostic>>,
}

/// The functions of `prog` holding sync ops written in the text.
fn functions_with_written_syncs(prog: &Program) -> Vec<String> {
    use crate::analysis::hazard;
    prog.functions.iter().filter(|f| hazard::has_written_syncs(f)).map(|f| f.name.clone()).collect()
}

/// The passes whose output must be free of sync hazards.
const SYNC_PASSES: &[&str] = &["insert-sync", super::remove_redundant_sync::NAME];

fn is_sync_pass(p: &PassInfo) -> bool {
    SYNC_PASSES.contains(&p.name)
}

/// After the last of the sync passes `ran`, like Cranelift's verifier after a pass: a sync
/// hazard in their output is a bug of ptoc, reported as an internal compiler error that names
/// the two ops and the passes. A function that held sync ops written in the input (`written`:
/// they have a source position, the passes' own have none) is left to `--verify-sync`: its
/// hazards may be the author's, even once remove-redundant-sync has deleted those ops.
fn sync_postcondition(prog: &Program, ran: &[&str], written: &[String], env: &PassEnv) -> Result<(), Vec<Diagnostic>> {
    // Each function is checked on its own, on `jobs` threads; the findings in program order.
    let hazards = crate::par::map(&prog.functions, env.jobs, |f| {
        if written.contains(&f.name) {
            Vec::new()
        } else {
            function_sync_hazards(f, ran, env)
        }
    });
    let found: Vec<Diagnostic> = hazards.into_iter().flatten().collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(found)
    }
}

/// The sync hazards of one function, as internal errors (see [`sync_postcondition`]).
fn function_sync_hazards(f: &Function, ran: &[&str], env: &PassEnv) -> Vec<Diagnostic> {
    use crate::analysis::hazard;
    let passes = ran.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" and ");
    let model = hazard::SyncModel::default();
    hazard::check_function(f, env.backend, &model)
        .into_iter()
        .map(|h| {
            let mut d = h.to_diagnostic();
            d.message = format!("{INTERNAL_ERROR_PREFIX}{passes} left a sync hazard in `{}`: {}", f.name, d.message);
            d.notes.push(
                "this is a bug in ptoc; please report it with the input file (`--verify-level none` skips this check)"
                    .into(),
            );
            d
        })
        .collect()
}

/// How the message of an internal-error diagnostic starts (the driver exits with status 101).
pub const INTERNAL_ERROR_PREFIX: &str = "internal compiler error: ";

/// The reference's verification report for findings (`IR Verification Report …`), each
/// located `file:line:col` in `source`; spanless findings at `file:-1:-1`. Empty when nothing
/// was found, since the reference logs nothing then.
pub fn findings_report(found: &[VerifyDiagnostic], file: &str, source: &str) -> String {
    let location = |span: Span| {
        if span.is_none() {
            format!("{file}:-1:-1")
        } else {
            let (line, col) = line_col(source, span.lo as usize);
            format!("{file}:{line}:{col}")
        }
    };
    verify::report(found, &location)
}

/// The automatic verification's error after `pass` (§1.6): `found` are the findings of the
/// properties `todo`, which the pass produced and which were not verified yet.
fn auto_verify_error(pass: &PassInfo, todo: &[Property], found: &[VerifyDiagnostic]) -> Diagnostic {
    let mut names: Vec<Property> = todo.to_vec();
    names.sort(); // printed in bit order, like the reference's property sets
    let names: Vec<&str> = names.iter().map(|p| p.name()).collect();
    let reference_name = pass.aliases.first().copied().unwrap_or(pass.name);
    let mut d = Diagnostic::error(
        codes::VERIFY_FAILED,
        found[0].span,
        format!("Verification failed after '{reference_name}' for properties {{{}}}", names.join(", ")),
    );
    for v in found {
        d = d.with_note(format!("{} ({}): {}", v.rule.rule_name(), v.error_code, v.message));
    }
    d
}

/// These properties in the verifier's order (each is checked by its rule).
fn rules_for(props: &[Property]) -> Vec<Property> {
    Property::ALL.iter().copied().filter(|r| props.contains(r)).collect()
}

/// When [`check_properties`] runs, relative to the pass.
#[derive(Clone, Copy)]
enum Moment {
    Before,
    After,
}

/// When a pass rejects its input, says which of the properties it requires the input lacks
/// (a pass may assume them: spec §1.2, they are only checked with `--verify-each`).
fn with_missing_preconditions(mut diags: Vec<Diagnostic>, input: &Program, pass: &PassInfo) -> Vec<Diagnostic> {
    let missing: Vec<&str> =
        pass.required.iter().filter(|&&p| !verify::verify(input, &[p]).is_empty()).map(|p| p.name()).collect();
    if let (Some(first), false) = (diags.first_mut(), missing.is_empty()) {
        first.notes.push(format!(
            "the input lacks {} required by `{}` (run with --verify-each to see where)",
            missing.join(", "),
            pass.name
        ));
    }
    diags
}

/// `--verify-each`: before a pass, checks the properties it requires; after it, the properties
/// it promises to produce — with the verifier rules that exist for them (SSAVerify, TypeCheck,
/// NoNestedCall), like the reference's `VerificationInstrument(BEFORE_AND_AFTER)`.
fn check_properties(prog: &Program, pass: &PassInfo, moment: Moment) -> Result<(), Vec<Diagnostic>> {
    let (props, what) = match moment {
        Moment::Before => (pass.required, "Pre-verification failed before"),
        Moment::After => (pass.produced, "Post-verification failed after"),
    };
    let rules = rules_for(props);
    if rules.is_empty() {
        return Ok(());
    }
    let found = verify::verify(prog, &rules);
    if found.is_empty() {
        return Ok(());
    }
    Err(found
        .into_iter()
        .map(|v| {
            // The reference's wording (§1.5), one diagnostic per finding so each has its span.
            let reference_name = pass.aliases.first().copied().unwrap_or(pass.name);
            let msg =
                format!("{what} pass '{reference_name}': {} ({}): {}", v.rule.rule_name(), v.error_code, v.message);
            Diagnostic::error(codes::VERIFY_FAILED, v.span, msg)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::passes::Transform;

    /// A pass that appends `+` to the program name (so the order of runs is visible).
    static MARK: PassInfo = fake("mark", |mut p, _| {
        p.name.push('+');
        Ok(p)
    });
    static FAIL: PassInfo = fake("fail", |_, _| Err(vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, "no")]));

    const fn fake(name: &'static str, run: crate::passes::PassFn) -> PassInfo {
        PassInfo {
            name,
            aliases: &[],
            description: "",
            required: &[],
            produced: &[],
            invalidated: &[],
            run: Transform::Program(run),
            findings: None,
        }
    }

    const ENV: PassEnv = PassEnv::new(Backend::Cce);

    fn run(passes: &[&'static PassInfo]) -> Result<Program, Vec<Diagnostic>> {
        Manager::new(passes, ENV).run(Program::new("p"))
    }

    fn frontend(source: &str) -> Program {
        crate::lower::lower(crate::parser::parse(source).expect("parses")).expect("lowers")
    }

    #[test]
    fn passes_run_in_order_and_are_observed() {
        assert_eq!(run(&[&MARK, &MARK]).unwrap().name, "p++");
        assert_eq!(run(&[]).unwrap().name, "p");
        let mut seen = Vec::new();
        let out = Manager::new(&[&MARK, &MARK], ENV)
            .run_observed(Program::new("p"), None, &mut |s| seen.push((s.position, s.program.name.clone())));
        assert_eq!(out.unwrap().name, "p++");
        assert_eq!(seen, [(1, "p+".to_string()), (2, "p++".to_string())]);
    }

    #[test]
    fn a_failing_pass_reports_its_diagnostics() {
        let e = run(&[&MARK, &FAIL, &MARK]).unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].code, codes::OP_CHECK);
    }

    /// A pass that claims SSAForm and TypeChecked but returns a program whose loop yields a
    /// float into an INT64 iter arg.
    static BREAKS_TYPES: PassInfo = PassInfo {
        produced: &[Property::SsaForm, Property::TypeChecked],
        ..fake("breaks-types", |_, _| Ok(frontend(ILL_TYPED)))
    };
    const ILL_TYPED: &str = "# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n    @pl.function\n    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        for i, (s,) in pl.range(0, 10, 1, init_values=(a,)):\n            r: pl.Scalar[pl.INT64] = pl.yield_(1.0)\n        return r\n";

    /// Like [`BREAKS_TYPES`], but the program it returns is well typed.
    static KEEPS_TYPES: PassInfo = PassInfo {
        produced: &[Property::SsaForm, Property::TypeChecked],
        ..fake("keeps-types", |_, _| Ok(frontend(WELL_TYPED)))
    };
    const WELL_TYPED: &str = "# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n    @pl.function\n    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        return a\n";

    #[test]
    fn automatic_verification_checks_what_a_pass_produces_once() {
        let list: &[&'static PassInfo] = &[&BREAKS_TYPES];
        let checked = Manager { auto_verify: true, ..Manager::new(list, ENV) };
        let e = checked.run(Program::new("p")).unwrap_err();
        assert_eq!(e[0].code, codes::VERIFY_FAILED);
        assert_eq!(e[0].message, "Verification failed after 'breaks-types' for properties {SSAForm, TypeChecked}");
        assert!(
            e[0].notes.iter().any(|n| n.starts_with("TypeCheck (102): Dtype mismatch in ForStmt")),
            "{:?}",
            e[0].notes
        );
        // Properties verified after an earlier pass are not checked again.
        let list: &[&'static PassInfo] = &[&KEEPS_TYPES, &BREAKS_TYPES];
        assert!(Manager { auto_verify: true, ..Manager::new(list, ENV) }.run(Program::new("p")).is_ok());
    }

    /// Requires SSAForm and always fails, as a pass whose precondition does not hold might.
    static NEEDS_SSA: PassInfo = PassInfo {
        required: &[Property::SsaForm],
        ..fake("needs-ssa", |_, _| Err(vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, "cannot handle this")]))
    };
    /// An if with return vars but no else: not in SSA form (SSAVerify code 3).
    const NOT_SSA: &str = "# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n    @pl.function\n    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        if a > 0:\n            r: pl.Scalar[pl.INT64] = pl.yield_(a)\n        return r\n";

    #[test]
    fn a_rejected_input_names_the_missing_precondition() {
        let e = with_missing_preconditions(
            vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, "cannot handle this")],
            &frontend(NOT_SSA),
            &NEEDS_SSA,
        );
        assert_eq!(
            e[0].notes,
            ["the input lacks SSAForm required by `needs-ssa` (run with --verify-each to see where)"]
        );
        let fine = with_missing_preconditions(
            vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, "x")],
            &Program::new("p"),
            &NEEDS_SSA,
        );
        assert!(fine[0].notes.is_empty());
        // Through the manager, which rebuilds the failing pass's input from the start.
        let start = || Ok(frontend(NOT_SSA));
        let e = Manager::new(&[&MARK, &NEEDS_SSA], ENV).run_observed(start().unwrap(), Some(&start), &mut |_| {});
        assert_eq!(e.unwrap_err()[0].notes.len(), 1);
    }

    #[test]
    fn findings_are_observed_and_do_not_fail_the_run() {
        let prog = frontend(NOT_SSA);
        let verifier = crate::passes::lookup("run-verifier").expect("registered");
        let mut found = Vec::new();
        let out = Manager::new(&[verifier], ENV).run_observed(prog, None, &mut |s| found.extend_from_slice(s.findings));
        assert!(out.is_ok());
        assert_eq!(found.len(), 1);
        let disabled = ["SSAVerify".to_string()];
        let list = [verifier];
        let m = Manager { disabled_rules: &disabled, ..Manager::new(&list, ENV) };
        let mut found = Vec::new();
        assert!(m.run_observed(frontend(NOT_SSA), None, &mut |s| found.extend_from_slice(s.findings)).is_ok());
        assert!(found.is_empty());
    }

    /// A function pass for the chain tests: `run` on every function.
    const fn function_pass(name: &'static str, run: crate::passes::FunctionFn) -> PassInfo {
        PassInfo { run: Transform::Function(run), ..fake(name, |p, _| Ok(p)) }
    }
    static MARK_F: PassInfo = function_pass("mark-f", |mut f, _| {
        f.name.push('+');
        Ok(f)
    });
    /// Fails on the functions whose name starts with `b`.
    static FAIL_B: PassInfo = function_pass("fail-b", |f, _| {
        if f.name.starts_with('b') {
            return Err(vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, format!("b fails: {}", f.name))]);
        }
        Ok(f)
    });
    /// Fails on the functions whose name starts with `a`.
    static FAIL_A: PassInfo = function_pass("fail-a", |f, _| {
        if f.name.starts_with('a') {
            return Err(vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, format!("a fails: {}", f.name))]);
        }
        Ok(f)
    });
    /// Replaces every function by the ill-typed one, keeping its name, and claims it well typed.
    static ILL_F: PassInfo = PassInfo {
        produced: &[Property::SsaForm, Property::TypeChecked],
        ..function_pass("ill-f", |f, _| {
            let ill = frontend(ILL_TYPED).functions.remove(0);
            Ok(Function { name: f.name, ..ill })
        })
    };

    /// Functions `a` and `b` of a program (bodies from [`WELL_TYPED`]).
    fn two_functions() -> Program {
        let mut prog = frontend(WELL_TYPED);
        let f = prog.functions.remove(0);
        prog.functions = vec![Function { name: "a".into(), ..f.clone() }, Function { name: "b".into(), ..f }];
        prog
    }

    /// Runs `passes` on [`two_functions`] as chains and pass by pass: the same outcome either
    /// way, returned with what the observer saw of the chained run.
    fn both_ways(passes: &[&'static PassInfo]) -> (Result<Program, Vec<Diagnostic>>, Vec<usize>) {
        let m = Manager { auto_verify: true, ..Manager::new(passes, ENV) };
        let mut seen = Vec::new();
        let chained = Manager { fuse: true, ..m }.run_observed(two_functions(), None, &mut |s| seen.push(s.position));
        let by_pass = m.run(two_functions());
        let text = |r: &Result<Program, Vec<Diagnostic>>| match r {
            Ok(p) => crate::printer::print_program(p),
            Err(ds) => ds.iter().map(|d| format!("{} {:?}\n", d.message, d.notes)).collect(),
        };
        assert_eq!(text(&chained), text(&by_pass));
        (chained, seen)
    }

    #[test]
    fn chains_give_the_output_of_pass_by_pass_runs() {
        let (out, seen) = both_ways(&[&MARK_F, &MARK_F, &MARK, &MARK_F]);
        let names: Vec<String> = out.unwrap().functions.iter().map(|f| f.name.clone()).collect();
        assert_eq!(names, ["a+++", "b+++"]);
        // The chained passes are not observed; the program pass after them is, and so is a lone
        // function pass (a chain of one is an ordinary run).
        assert_eq!(seen, [3, 4]);
    }

    #[test]
    fn a_chain_reports_the_first_failing_pass_as_a_pass_by_pass_run() {
        // `b` fails at the second pass, `a` only at the third: the run stops at the second.
        let (out, _) = both_ways(&[&MARK_F, &FAIL_B, &FAIL_A]);
        let e = out.unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].message, "b fails: b+");
        // Every function failing at that pass, in function order.
        let (out, _) = both_ways(&[&MARK_F, &ILL_F, &FAIL_A]);
        let e = out.unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].message, "Verification failed after 'ill-f' for properties {SSAForm, TypeChecked}");
        assert_eq!(e[0].notes.len(), 4, "{:?}", e[0].notes);
    }
}
