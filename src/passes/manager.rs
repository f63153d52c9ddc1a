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

use super::{PassEnv, PassInfo, Property};
use crate::diag::{codes, line_col, Diagnostic, Span};
use crate::ir::Program;
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
        Manager { passes, env, disabled_rules: &[], auto_verify: false, verify_each: false, sync_postcondition: false }
    }

    /// Runs the passes in order on `prog`; the first pass that is not implemented or fails
    /// ends the run with its diagnostics.
    pub fn run(&self, prog: Program) -> Result<Program, Vec<Diagnostic>> {
        self.run_observed(prog, None, &mut |_| {})
    }

    /// [`Manager::run`], calling `observe` after each pass. When a pass fails and `start` is
    /// given, the pass's input is rebuilt from it (passes consume their input and are
    /// deterministic) to say which required property it lacks.
    pub fn run_observed(
        &self,
        mut prog: Program,
        start: Option<Start<'_>>,
        observe: &mut dyn FnMut(Step<'_>),
    ) -> Result<Program, Vec<Diagnostic>> {
        // Properties verified so far by the automatic verification (§1.6).
        let mut verified: Vec<Property> = Vec::new();
        // The functions holding sync ops written in the text, as the first sync pass finds
        // them (a later one may delete those syncs): the sync postcondition leaves them alone.
        let mut written_syncs: Option<Vec<String>> = None;
        // The postcondition runs once, after the last sync pass of the list: later sync passes
        // only remove syncs, so a hazard left by an earlier one is still there to be found.
        let last_sync_pass = self.passes.iter().rposition(|p| is_sync_pass(p)).filter(|_| self.sync_postcondition);
        for (k, &pass) in self.passes.iter().enumerate() {
            let Some(run) = pass.run else {
                return Err(vec![not_implemented(pass, self.passes)]);
            };
            if self.verify_each {
                check_properties(&prog, pass, Moment::Before)?;
            }
            if last_sync_pass.is_some() && is_sync_pass(pass) && written_syncs.is_none() {
                written_syncs = Some(functions_with_written_syncs(&prog));
            }
            prog = match run(prog, &self.env) {
                Ok(out) => out,
                Err(diags) => {
                    let input = start.and_then(|start| self.replay(start, k));
                    return Err(match input {
                        Some(input) => with_missing_preconditions(diags, &input, pass),
                        None => diags,
                    });
                }
            };
            let findings = pass.findings.map_or_else(Vec::new, |f| f(&prog, self.disabled_rules));
            observe(Step { position: k + 1, pass, program: &prog, findings: &findings });
            if self.verify_each {
                check_properties(&prog, pass, Moment::After)?;
            }
            if self.auto_verify {
                auto_verify(&prog, pass, &mut verified, self.env.jobs)?;
            }
            if last_sync_pass == Some(k) {
                let ran: Vec<&str> = self.passes[..=k].iter().filter(|p| is_sync_pass(p)).map(|p| p.name).collect();
                sync_postcondition(&prog, &ran, written_syncs.as_deref().unwrap_or_default(), &self.env)?;
            }
        }
        Ok(prog)
    }

    /// The input of pass number `k`: the start program through the passes before it again.
    fn replay(&self, start: Start<'_>, k: usize) -> Option<Program> {
        self.passes[..k].iter().try_fold(start().ok()?, |prog, pass| (pass.run?)(prog, &self.env).ok())
    }
}

/// The functions of `prog` holding sync ops written in the text.
fn functions_with_written_syncs(prog: &Program) -> Vec<String> {
    use crate::verify::sync_hazard;
    prog.functions.iter().filter(|f| sync_hazard::has_written_syncs(f)).map(|f| f.name.clone()).collect()
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
    let (backend, jobs) = (env.backend, env.jobs);
    use crate::verify::sync_hazard;
    let passes = ran.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" and ");
    let model = sync_hazard::SyncModel::default();
    // Each function is checked on its own, on `jobs` threads; the findings in program order.
    let hazards = crate::par::map(&prog.functions, jobs, |f| {
        if written.contains(&f.name) {
            Vec::new()
        } else {
            sync_hazard::check_function(f, backend, &model)
        }
    });
    let mut found = Vec::new();
    for (f, hazards) in prog.functions.iter().zip(hazards) {
        for h in hazards {
            let mut d = h.to_diagnostic();
            d.message = format!("{INTERNAL_ERROR_PREFIX}{passes} left a sync hazard in `{}`: {}", f.name, d.message);
            d.notes.push(
                "this is a bug in ptoc; please report it with the input file (`--verify-level none` skips this check)"
                    .into(),
            );
            found.push(d);
        }
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(found)
    }
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

/// §1.6 step 2: forget what the pass invalidated, then verify what it produced that is not
/// verified yet. Like the reference, this checks SSAForm and TypeChecked after convert-to-ssa
/// and nothing more until a pass produces them again.
pub fn auto_verify(
    prog: &Program,
    pass: &PassInfo,
    verified: &mut Vec<Property>,
    jobs: usize,
) -> Result<(), Vec<Diagnostic>> {
    verified.retain(|p| !pass.invalidated.contains(p));
    let mut todo: Vec<Property> =
        pass.produced.iter().copied().filter(|p| AUTO_VERIFIED.contains(p) && !verified.contains(p)).collect();
    todo.sort(); // printed in bit order, like the reference's property sets

    if todo.is_empty() {
        return Ok(());
    }
    let found = verify::verify_with_jobs(prog, &rules_for(&todo), jobs);
    if !found.is_empty() {
        let names: Vec<&str> = todo.iter().map(|p| p.name()).collect();
        let reference_name = pass.aliases.first().copied().unwrap_or(pass.name);
        let mut d = Diagnostic::error(
            codes::VERIFY_FAILED,
            found[0].span,
            format!("Verification failed after '{reference_name}' for properties {{{}}}", names.join(", ")),
        );
        for v in &found {
            d = d.with_note(format!("{} ({}): {}", v.rule.rule_name(), v.error_code, v.message));
        }
        return Err(vec![d]);
    }
    verified.extend(todo);
    Ok(())
}

/// These properties in the verifier's order (each is checked by its rule).
fn rules_for(props: &[Property]) -> Vec<Property> {
    Property::ALL.iter().copied().filter(|r| props.contains(r)).collect()
}

fn not_implemented(pass: &PassInfo, run: &[&'static PassInfo]) -> Diagnostic {
    let missing: Vec<&str> = run.iter().filter(|p| !p.is_implemented()).map(|p| p.name).collect();
    Diagnostic::error(codes::PASS_NOT_IMPLEMENTED, Span::NONE, format!("pass `{}` is not implemented yet", pass.name))
        .with_note(format!("passes of this run that are not implemented yet: {}", missing.join(", ")))
        .with_note("`--pipeline none` parses and prints without passes; `--passes` selects passes")
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
    use crate::passes::{Backend, PassKind};

    /// A pass that appends `+` to the program name (so the order of runs is visible).
    static MARK: PassInfo = fake(
        "mark",
        Some(|mut p, _| {
            p.name.push('+');
            Ok(p)
        }),
    );
    static FAIL: PassInfo = fake("fail", Some(|_, _| Err(vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, "no")])));
    static TODO: PassInfo = fake("todo", None);

    const fn fake(name: &'static str, run: Option<crate::passes::PassFn>) -> PassInfo {
        PassInfo {
            name,
            aliases: &[],
            description: "",
            kind: PassKind::Program,
            required: &[],
            produced: &[],
            invalidated: &[],
            run,
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
    fn unimplemented_pass_stops_the_run_by_name() {
        let e = run(&[&MARK, &TODO, &MARK]).unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].code, codes::PASS_NOT_IMPLEMENTED);
        assert!(e[0].message.contains("`todo`"), "{}", e[0].message);
        assert!(e[0].notes[0].ends_with(": todo"), "{:?}", e[0].notes);
    }

    #[test]
    fn a_failing_pass_reports_its_diagnostics() {
        let e = run(&[&MARK, &FAIL, &TODO]).unwrap_err();
        assert_eq!(e[0].code, codes::OP_CHECK);
    }

    #[test]
    fn not_implemented_names_the_pass_and_the_rest() {
        static LATER: PassInfo = fake("later", None);
        let d = not_implemented(&TODO, &[&MARK, &TODO, &LATER]);
        assert_eq!(d.code, codes::PASS_NOT_IMPLEMENTED);
        assert!(d.message.contains("`todo`"));
        assert!(d.notes[0].ends_with(": todo, later"), "{:?}", d.notes);
    }

    /// A pass that claims SSAForm and TypeChecked but returns a program whose loop yields a
    /// float into an INT64 iter arg.
    static BREAKS_TYPES: PassInfo = PassInfo {
        produced: &[Property::SsaForm, Property::TypeChecked],
        ..fake("breaks-types", Some(|_, _| Ok(frontend(ILL_TYPED))))
    };
    const ILL_TYPED: &str = "# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n    @pl.function\n    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        for i, (s,) in pl.range(0, 10, 1, init_values=(a,)):\n            r: pl.Scalar[pl.INT64] = pl.yield_(1.0)\n        return r\n";

    #[test]
    fn automatic_verification_checks_what_a_pass_produces_once() {
        let mut verified = Vec::new();
        let e = auto_verify(&frontend(ILL_TYPED), &BREAKS_TYPES, &mut verified, 1).unwrap_err();
        assert_eq!(e[0].code, codes::VERIFY_FAILED);
        assert_eq!(e[0].message, "Verification failed after 'breaks-types' for properties {SSAForm, TypeChecked}");
        assert!(
            e[0].notes.iter().any(|n| n.starts_with("TypeCheck (102): Dtype mismatch in ForStmt")),
            "{:?}",
            e[0].notes
        );
        // Already verified properties are not checked again.
        let mut verified = vec![Property::SsaForm, Property::TypeChecked];
        assert!(auto_verify(&frontend(ILL_TYPED), &BREAKS_TYPES, &mut verified, 1).is_ok());
        // Through the manager.
        let list: &[&'static PassInfo] = &[&BREAKS_TYPES];
        let m = Manager { auto_verify: true, ..Manager::new(list, ENV) };
        assert_eq!(m.run(Program::new("p")).unwrap_err()[0].code, codes::VERIFY_FAILED);
    }

    /// Requires SSAForm and always fails, as a pass whose precondition does not hold might.
    static NEEDS_SSA: PassInfo = PassInfo {
        required: &[Property::SsaForm],
        ..fake(
            "needs-ssa",
            Some(|_, _| Err(vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, "cannot handle this")])),
        )
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
}
