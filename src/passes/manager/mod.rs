//! The pass manager: the one loop that runs a list of passes on a program. The driver, `ptoc
//! run`, the tests, the benchmarks and the fuzz targets all call it, so that what a pass sees
//! (and what is checked around it) is the same everywhere.
//!
//! Around each pass it runs instruments ([`instrument`]), as spec `passes-and-codegen.md`
//! §1.5–1.7 asks: with `verify_each`, the properties the pass requires before it and those it
//! produces after it ([`VerifyEach`]); with `auto_verify`, the pipeline's automatically checked
//! properties when a pass produces them ([`auto_verify`]); with `sync_postcondition`, the sync
//! passes' output ([`sync_postcondition`]); and the caller's own (dumps, timings, findings).
//! It collects each pass's findings ([`PassInfo::findings`], e.g. `run-verifier`'s report),
//! which do not fail the run.

pub mod auto_verify;
pub mod instrument;
pub mod sync_postcondition;

use std::ops::Range;

use super::{Carried, PassEnv, PassInfo, Property, Transform};
use crate::diag::{line_col, Diagnostic, Span};
use crate::ir::{Function, Program};
use crate::verify::{self, VerifyDiagnostic};
use auto_verify::AutoVerify;
pub use instrument::{Found, FunctionCheck, Instrument, Step, VerifyEach};
use sync_postcondition::SyncPostcondition;

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
    /// function: every function goes through the whole stretch, with the function checks after
    /// each pass, on `--jobs` threads, instead of every pass going over every function in turn.
    /// The output and the diagnostics are the same; instruments are not called for the passes
    /// of a chain, so only callers whose instruments look at nothing but findings set it (the
    /// driver without dumps, statistics or `--time-passes`). Ignored with `verify_each`.
    pub fuse: bool,
}

/// How a run gets its starting program again when a pass fails: the failing pass's input is
/// rebuilt (see [`Manager::run_observed`]) instead of every successful run keeping a copy.
pub type Start<'s> = &'s dyn Fn() -> Result<Program, Vec<Diagnostic>>;

/// The last step of a run for each function (see [`Manager::run_finishing`]): the function
/// (or what is left of it) and what the step made of it.
pub type Finish<'f, T> = dyn Fn(Function) -> (Function, T) + Sync + 'f;

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

    /// Runs the passes in order on `prog`; the first pass that fails ends the run with its
    /// diagnostics.
    pub fn run(&self, prog: Program) -> Result<Program, Vec<Diagnostic>> {
        self.run_observed(prog, None, &mut |_: Step<'_>| {})
    }

    /// [`Manager::run`], calling `observe` after each pass (each pass outside a chain, see
    /// [`Manager::fuse`]). When a pass fails and `start` is given, the pass's input is rebuilt
    /// from it (passes consume their input and are deterministic) to say which required
    /// property it lacks.
    pub fn run_observed(
        &self,
        prog: Program,
        start: Option<Start<'_>>,
        mut observe: &mut dyn FnMut(Step<'_>),
    ) -> Result<Program, Vec<Diagnostic>> {
        self.run_finishing::<()>(prog, start, &mut [&mut observe], None).map(|(prog, _)| prog)
    }

    /// [`Manager::run`] with the caller's `instruments` (after the manager's own), then
    /// `finish` (when given) on every function, on `--jobs` threads, with what it returns in
    /// function order. When the list ends with a chain, `finish` is the chain's last step:
    /// each function is finished as soon as its own passes are done (the driver makes a
    /// kernel's C++ there and keeps only a stand-in of its IR), and none is kept when any
    /// fails.
    pub fn run_finishing<T: Send>(
        &self,
        mut prog: Program,
        start: Option<Start<'_>>,
        instruments: &mut [&mut dyn Instrument],
        finish: Option<&Finish<'_, T>>,
    ) -> Result<(Program, Vec<T>), Vec<Diagnostic>> {
        let checks = self.function_checks();
        let mut verify_each = self.verify_each.then_some(VerifyEach);
        let mut k = 0;
        while k < self.passes.len() {
            let end = self.chain_end(k);
            if end > k + 1 {
                let last = finish.filter(|_| end == self.passes.len());
                let (out, finished) = self.run_chain(prog, k..end, &checks, start, last)?;
                if last.is_some() {
                    return Ok((out, finished));
                }
                prog = out;
                k = end;
                continue;
            }
            prog = self.run_pass(prog, k, &checks, &mut verify_each, instruments, start)?;
            k += 1;
        }
        let Some(finish) = finish else { return Ok((prog, Vec::new())) };
        let functions = std::mem::take(&mut prog.functions);
        let (functions, finished) = crate::par::map_into(functions, self.env.jobs, finish).into_iter().unzip();
        prog.functions = functions;
        Ok((prog, finished))
    }

    /// The manager's own function checks of this list, in the order they run after a pass.
    fn function_checks(&self) -> Vec<Box<dyn FunctionCheck + 'static>> {
        let mut checks: Vec<Box<dyn FunctionCheck>> = Vec::new();
        if self.auto_verify {
            checks.push(Box::new(AutoVerify::new(self.passes)));
        }
        if self.sync_postcondition {
            if let Some(check) = SyncPostcondition::new(self.passes, self.env) {
                checks.push(Box::new(check));
            }
        }
        checks
    }

    /// Pass `k` on the whole program, with the instruments around it and the function checks
    /// after it.
    fn run_pass(
        &self,
        prog: Program,
        k: usize,
        checks: &[Box<dyn FunctionCheck>],
        verify_each: &mut Option<VerifyEach>,
        instruments: &mut [&mut dyn Instrument],
        start: Option<Start<'_>>,
    ) -> Result<Program, Vec<Diagnostic>> {
        let pass = self.passes[k];
        // The manager's own instrument first, then the caller's.
        let mut instruments: Vec<&mut dyn Instrument> = verify_each
            .iter_mut()
            .map(|v| v as &mut dyn Instrument)
            .chain(instruments.iter_mut().map(|i| &mut **i as &mut dyn Instrument))
            .collect();
        for i in instruments.iter_mut() {
            i.before_pass(k + 1, pass, &prog)?;
        }
        for check in checks {
            crate::par::map(&prog.functions, self.env.jobs, |f| check.before(k, f));
        }
        let prog = match pass.run.apply(prog, &self.env) {
            Ok(out) => out,
            Err(diags) => {
                let mut diags = self.failed_run(diags, start, k);
                for i in instruments.iter_mut() {
                    i.after_failed(k + 1, pass, &mut diags);
                }
                return Err(diags);
            }
        };
        let findings = pass.findings.map_or_else(Vec::new, |f| f(&prog, self.disabled_rules, self.env.jobs));
        // After-hooks in the reverse order of the before-hooks, like MLIR's instrumentations:
        // the innermost instrument sees the pass first.
        for i in instruments.iter_mut().rev() {
            i.after_pass(Step { position: k + 1, pass, program: &prog, findings: &findings })?;
        }
        for check in checks {
            let found: Vec<Found> =
                crate::par::map(&prog.functions, self.env.jobs, |f| check.after(k, f)).into_iter().flatten().collect();
            if !found.is_empty() {
                return Err(check.report(k, found));
            }
        }
        Ok(prog)
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
    /// function checks after each pass; the first failure in pass order is reported as the
    /// pass-by-pass run reports it (every function that fails at that pass and check, in
    /// function order). With `finish`, each function that passes them is finished after them.
    fn run_chain<T: Send>(
        &self,
        mut prog: Program,
        range: Range<usize>,
        checks: &[Box<dyn FunctionCheck>],
        start: Option<Start<'_>>,
        finish: Option<&Finish<'_, T>>,
    ) -> Result<(Program, Vec<T>), Vec<Diagnostic>> {
        let functions = std::mem::take(&mut prog.functions);
        let results = crate::par::map_into(functions, self.env.jobs, |f| -> Result<_, ChainFailure> {
            let f = self.chain_function(f, range.clone(), checks)?;
            Ok(match finish {
                Some(finish) => {
                    let (f, t) = finish(f);
                    (f, Some(t))
                }
                None => (f, None),
            })
        });
        let mut failures = Vec::new();
        let mut finished = Vec::new();
        for r in results {
            match r {
                Ok((f, t)) => {
                    prog.functions.push(f);
                    finished.extend(t);
                }
                Err(failure) => failures.push(failure),
            }
        }
        let Some(first) = failures.iter().map(|f| (f.pass, f.stage)).min() else {
            return Ok((prog, finished));
        };
        let failures = failures.into_iter().filter(|f| (f.pass, f.stage) == first);
        Err(match first.1 {
            Stage::Run => self.failed_run(failures.flat_map(|f| f.diags).collect(), start, first.0),
            Stage::Check(c) => checks[c].report(first.0, failures.filter_map(|f| f.found).collect()),
        })
    }

    /// One function through the chain `range`, with the function checks after each pass.
    fn chain_function(
        &self,
        mut f: Function,
        range: Range<usize>,
        checks: &[Box<dyn FunctionCheck>],
    ) -> Result<Function, ChainFailure> {
        // What the last pass handed over: for the next pass only.
        let mut carried = Carried::Nothing;
        for k in range {
            for check in checks {
                check.before(k, &f);
            }
            let ran = self.passes[k].run.run_function(f, carried, &self.env);
            (f, carried) = ran.expect("a chain has only function passes").map_err(|diags| ChainFailure {
                pass: k,
                stage: Stage::Run,
                diags,
                found: None,
            })?;
            for (c, check) in checks.iter().enumerate() {
                if let Some(found) = check.after(k, &f) {
                    return Err(ChainFailure {
                        pass: k,
                        stage: Stage::Check(c),
                        diags: Vec::new(),
                        found: Some(found),
                    });
                }
            }
        }
        Ok(f)
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

/// The steps of a pass, in the order they run (a failing run stops before its checks; the
/// checks run in the order of [`Manager::function_checks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Run,
    Check(usize),
}

/// How one function failed in a chain: at which pass and stage, with the pass's diagnostics
/// or what the check found.
struct ChainFailure {
    pass: usize,
    stage: Stage,
    diags: Vec<Diagnostic>,
    found: Option<Found>,
}

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

/// These properties in the verifier's order (each is checked by its rule).
fn rules_for(props: &[Property]) -> Vec<Property> {
    Property::ALL.iter().copied().filter(|r| props.contains(r)).collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::diag::codes;
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
            edits_syncs: false,
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

    /// Writes what each hook sees into a shared log, tagged.
    struct Log<'l>(&'static str, &'l std::cell::RefCell<Vec<String>>);

    impl Instrument for Log<'_> {
        fn before_pass(&mut self, position: usize, pass: &'static PassInfo, _prog: &Program) -> instrument::Hooked {
            self.1.borrow_mut().push(format!("{} before {position} {}", self.0, pass.name));
            Ok(())
        }
        fn after_pass(&mut self, step: Step<'_>) -> instrument::Hooked {
            self.1.borrow_mut().push(format!("{} after {} {}", self.0, step.position, step.program.name));
            Ok(())
        }
        fn after_failed(&mut self, position: usize, pass: &'static PassInfo, diags: &mut Vec<Diagnostic>) {
            self.1.borrow_mut().push(format!("{} failed {position} {}", self.0, pass.name));
            diags[0].notes.push(format!("seen by {}", self.0));
        }
    }

    #[test]
    fn instruments_run_around_each_pass_after_hooks_in_reverse() {
        let log = std::cell::RefCell::new(Vec::new());
        let (mut a, mut b) = (Log("a", &log), Log("b", &log));
        let out = Manager::new(&[&MARK, &FAIL], ENV).run_finishing::<()>(
            Program::new("p"),
            None,
            &mut [&mut a, &mut b],
            None,
        );
        let e = out.unwrap_err();
        assert_eq!(e[0].notes, ["seen by a", "seen by b"]);
        assert_eq!(
            *log.borrow(),
            [
                "a before 1 mark",
                "b before 1 mark",
                "b after 1 p+",
                "a after 1 p+",
                "a before 2 fail",
                "b before 2 fail",
                "a failed 2 fail",
                "b failed 2 fail"
            ]
        );
    }

    /// An instrument whose after-hook fails the run.
    struct Refuse;
    impl Instrument for Refuse {
        fn after_pass(&mut self, step: Step<'_>) -> instrument::Hooked {
            Err(vec![Diagnostic::error(codes::VERIFY_FAILED, Span::NONE, format!("refused {}", step.program.name))])
        }
    }

    #[test]
    fn an_instrument_can_fail_the_run() {
        let e = Manager::new(&[&MARK, &MARK], ENV)
            .run_finishing::<()>(Program::new("p"), None, &mut [&mut Refuse], None)
            .unwrap_err();
        assert_eq!(e[0].message, "refused p+");
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
