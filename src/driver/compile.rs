//! One compilation: text → IR → the planned passes → emitted IR text or C++ files.

use crate::diag::{codes, Diagnostic, Span};
use crate::ir::Program;
use crate::passes::{remove_redundant_sync, run_verifier, PassEnv, PassInfo, Property};
use crate::verify::{self, sync_hazard, Rule};
use crate::{lower, parser, printer};

/// What a successful compilation produced.
#[derive(Debug)]
pub enum Emitted {
    /// Canonical `.pto` text of the final program (no trailing newline, like the printer).
    Ir(String),
    /// C++ files: relative path (e.g. `kernels/aiv/k.cpp`) and text, sorted by path; without
    /// those already written through [`Request::early`].
    Files(Vec<(String, String)>),
}

/// What to do with the program once it is lowered.
pub struct Request<'a> {
    pub passes: &'a [&'static PassInfo],
    pub env: PassEnv,
    pub print_after_all: bool,
    pub verify_each: bool,
    pub emit_cpp: bool,
    /// Emit PTO-ISA MLIR instead of IR text (`pto-codegen.md`), in this form.
    pub emit_pto: Option<PtoOutput>,
    /// Verify the pipeline's automatically checked properties after the passes that produce
    /// them (spec `passes-and-codegen.md` §1.6): on for named pipelines at verification level
    /// `basic`, off for `--passes` runs (direct pass calls in the reference).
    pub auto_verify: bool,
    /// Rules `run-verifier` leaves out (`--disable-rule`).
    pub disabled_rules: &'a [String],
    /// The input's name, for the locations in `run-verifier`'s report.
    pub source_name: &'a str,
    /// `--verify-sync`: sync hazards of the final program are errors.
    pub verify_sync: bool,
    /// `--report-redundant-sync`: list removable sync ops on stderr.
    pub report_redundant_sync: bool,
    /// Check the output of the sync passes for hazards (verification level `basic`).
    pub sync_postcondition: bool,
    /// `--stats`: statistics of the final program on stderr.
    pub stats: Option<super::cli::StatsFormat>,
    /// Compile function at a time on this many threads when the request allows it
    /// ([`super::by_function`]); `None` (`--whole-program`) never does.
    pub by_function: Option<usize>,
    /// Where C++ files may be written as soon as each is ready (the CLI with `-o DIR`); files
    /// placed there are left out of [`Emitted::Files`].
    pub early: Option<Early<'a>>,
}

/// The two forms of PTO-ISA MLIR output (`pto-codegen.md` §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtoOutput {
    /// One MLIR module with every function (§1.1), as IR-like text.
    Module,
    /// `kernels/<core>/<f>.pto` per InCore function and the orchestration C++ (§1.2).
    Files,
}

/// An output directory and the batch that writes into it (see [`Request::early`]).
#[derive(Clone, Copy)]
pub struct Early<'a> {
    pub dir: &'a std::path::Path,
    pub batch: &'a super::output::Batch,
}

/// The front end: parse and lower.
pub fn frontend(source: &str) -> Result<Program, Vec<Diagnostic>> {
    let module = parser::parse(source)?;
    lower::lower(module)
}

/// Runs the request on `source`. IR dumps of `--print-after-all` are appended to `dumps` as
/// they happen, so they survive a later error.
pub fn compile(source: &str, req: &Request, dumps: &mut String) -> Result<Emitted, Vec<Diagnostic>> {
    // Statistics are of the whole program (and count what each pass removed).
    if let Some(jobs) = req.by_function.filter(|_| req.stats.is_none() && super::by_function::applies(req)) {
        if let Some(files) = super::by_function::compile(source, req, jobs) {
            return Ok(Emitted::Files(files));
        }
        // Compiling whole writes every file at the end; take back what the fast path wrote.
        if let Some(early) = req.early {
            early.batch.discard();
        }
    }
    let mut removed = super::stats::Removed::new();
    let prog = run_passes(&|| frontend(source), source, req, dumps, &mut removed)?;
    check_sync(&prog, source, req, dumps)?;
    if let Some(format) = req.stats {
        dumps.push_str(&super::stats::render(&prog, req.env.backend, &removed, format));
    }
    if req.emit_cpp {
        emit_cpp(&prog).map(Emitted::Files)
    } else if let Some(form) = req.emit_pto {
        emit_pto(&prog, form)
    } else {
        Ok(Emitted::Ir(printer::print_program(&prog)))
    }
}

/// Runs the request's passes (whole program) and returns the final program instead of
/// emitting it: what `ptoc run` interprets.
pub(super) fn compile_program(source: &str, req: &Request, dumps: &mut String) -> Result<Program, Vec<Diagnostic>> {
    let prog = run_passes(&|| frontend(source), source, req, dumps, &mut super::stats::Removed::new())?;
    check_sync(&prog, source, req, dumps)?;
    Ok(prog)
}

/// How a compilation gets its starting program: parse and lower the source. It is called again
/// when a pass fails, to rebuild the failing pass's input (see [`replay`]).
type Start<'s> = &'s dyn Fn() -> Result<Program, Vec<Diagnostic>>;

/// Runs the planned passes in order on the program `start` gives; the first pass that is not
/// implemented or fails ends the run. `source` is the text that program was lowered from (for
/// locations in reports). The sync ops each function lost in remove-redundant-sync are added
/// to `removed` when statistics are asked for.
fn run_passes(
    start: Start,
    source: &str,
    req: &Request,
    dumps: &mut String,
    removed: &mut super::stats::Removed,
) -> Result<Program, Vec<Diagnostic>> {
    let mut prog = start()?;
    // Properties verified so far by the pipeline's automatic verification (§1.6).
    let mut verified: Vec<Property> = Vec::new();
    for (k, pass) in req.passes.iter().enumerate() {
        let Some(run) = pass.run else {
            return Err(vec![not_implemented(pass, req.passes)]);
        };
        if req.verify_each {
            check_properties(&prog, pass, Moment::Before)?;
        }
        let counting = req.stats.is_some() && pass.name == remove_redundant_sync::NAME;
        let before = if counting { super::stats::sync_counts(&prog) } else { Vec::new() };
        prog = match run(prog, &req.env) {
            Ok(out) => out,
            Err(diags) => {
                return Err(match replay(start, &req.passes[..k], &req.env) {
                    Some(input) => with_missing_preconditions(diags, &input, pass),
                    None => diags,
                })
            }
        };
        if counting {
            super::stats::add_removed(removed, &before, &prog);
        }
        report_verifier_findings(&prog, pass, source, req, dumps);
        if req.print_after_all {
            dumps.push_str(&dump_header(k + 1, pass.name));
            dumps.push('\n');
            dumps.push_str(&printer::print_program(&prog));
            dumps.push('\n');
        }
        if req.verify_each {
            check_properties(&prog, pass, Moment::After)?;
        }
        verify_after(&prog, pass, req, &mut verified)?;
    }
    Ok(prog)
}

/// What is verified after each pass by default: the pipeline's automatic verification (when
/// on) and the sync postcondition.
pub(super) fn verify_after(
    prog: &Program,
    pass: &PassInfo,
    req: &Request,
    verified: &mut Vec<Property>,
) -> Result<(), Vec<Diagnostic>> {
    if req.auto_verify {
        auto_verify(prog, pass, verified)?;
    }
    if req.sync_postcondition {
        sync_postcondition(prog, pass, req.env.backend)?;
    }
    Ok(())
}

/// The passes whose output must be free of sync hazards.
const SYNC_PASSES: &[&str] = &["insert-sync", remove_redundant_sync::NAME];

/// After insert-sync and remove-redundant-sync, like Cranelift's verifier after every pass: a
/// sync hazard in their output is a bug of ptoc, reported as an internal compiler error that
/// names the two ops. A function that held sync ops written in the input (they have a source
/// position; the passes' own have none) is left to `--verify-sync`: its hazards may be the
/// author's.
fn sync_postcondition(prog: &Program, pass: &PassInfo, backend: crate::passes::Backend) -> Result<(), Vec<Diagnostic>> {
    if !SYNC_PASSES.contains(&pass.name) {
        return Ok(());
    }
    let model = sync_hazard::SyncModel::default();
    let mut found = Vec::new();
    for f in &prog.functions {
        if sync_hazard::has_written_syncs(prog, f) {
            continue;
        }
        for h in sync_hazard::check_function(prog, f, backend, &model) {
            let mut d = h.to_diagnostic();
            d.message = format!("{INTERNAL_ERROR_PREFIX}`{}` left a sync hazard in `{}`: {}", pass.name, f.name, d.message);
            d.notes.push("this is a bug in ptoc; please report it with the input file (`--verify-level none` skips this check)".into());
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

/// The properties a pipeline verifies by itself (§1.6).
const AUTO_VERIFIED: &[Property] = &[Property::SsaForm, Property::TypeChecked, Property::AllocatedMemoryAddr];

/// §1.6 step 2: forget what the pass invalidated, then verify what it produced that is not
/// verified yet. Like the reference, this checks SSAForm and TypeChecked after convert-to-ssa
/// and nothing more until a pass produces them again.
pub(super) fn auto_verify(prog: &Program, pass: &PassInfo, verified: &mut Vec<Property>) -> Result<(), Vec<Diagnostic>> {
    verified.retain(|p| !pass.invalidated.contains(p));
    let mut todo: Vec<Property> =
        pass.produced.iter().copied().filter(|p| AUTO_VERIFIED.contains(p) && !verified.contains(p)).collect();
    todo.sort(); // printed in bit order, like the reference's property sets

    if todo.is_empty() {
        return Ok(());
    }
    let found = verify::verify(prog, &rules_for(&todo));
    if !found.is_empty() {
        let names: Vec<&str> = todo.iter().map(|p| p.name()).collect();
        let reference_name = pass.aliases.first().copied().unwrap_or(pass.name);
        let mut d = Diagnostic::error(
            codes::VERIFY_FAILED,
            found[0].span,
            format!("Verification failed after '{reference_name}' for properties {{{}}}", names.join(", ")),
        );
        for v in &found {
            d = d.with_note(format!("{} ({}): {}", v.rule.name(), v.error_code, v.message));
        }
        return Err(vec![d]);
    }
    verified.extend(todo);
    Ok(())
}

/// The verifier rules that check these properties (properties without a rule are skipped).
fn rules_for(props: &[Property]) -> Vec<Rule> {
    Rule::ALL.iter().copied().filter(|r| props.iter().any(|p| p.verifier_rule() == Some(*r))).collect()
}

/// The hook of `run-verifier` (spec §1.7): the pass returns the program unchanged; its findings
/// are printed on stderr (with the dumps, in run order) and do not fail the run.
fn report_verifier_findings(prog: &Program, pass: &PassInfo, source: &str, req: &Request, stderr: &mut String) {
    if pass.name == run_verifier::NAME {
        stderr.push_str(&run_verifier::report(prog, req.disabled_rules, req.source_name, source));
    }
}

/// `--report-redundant-sync` (one short line per finding, appended to stderr) and
/// `--verify-sync` (hazards are errors) on the final program.
fn check_sync(prog: &Program, source: &str, req: &Request, stderr: &mut String) -> Result<(), Vec<Diagnostic>> {
    let backend = req.env.backend;
    if req.report_redundant_sync {
        for d in sync_hazard::redundant_diagnostics(prog, backend) {
            stderr.push_str(&crate::diag::short(&d, req.source_name, source));
            stderr.push('\n');
        }
    }
    if req.verify_sync {
        let hazards = sync_hazard::hazard_diagnostics(prog, backend);
        if !hazards.is_empty() {
            return Err(hazards);
        }
    }
    Ok(())
}

/// The line before each `--print-after-all` dump (`position` is 1-based).
pub fn dump_header(position: usize, pass: &str) -> String {
    format!("# ==== after-{position:02}-{pass} ====")
}

/// C++ emission (spec §4): the CCE code generator.
fn emit_cpp(prog: &Program) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    crate::codegen::generate(prog)
}

/// PTO-ISA MLIR emission (`pto-codegen.md`).
fn emit_pto(prog: &Program, form: PtoOutput) -> Result<Emitted, Vec<Diagnostic>> {
    use crate::codegen::pto;
    match form {
        // The module ends with a newline; `Emitted::Ir` text gets one added on output.
        PtoOutput::Module => pto::module(prog).map(|m| Emitted::Ir(m.trim_end_matches('\n').to_string())).map_err(|d| vec![d]),
        PtoOutput::Files => pto::files(prog).map(Emitted::Files),
    }
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
/// The input of pass number `passes.len()`: the start program through `passes` again. Passes
/// consume their input (no pass copies the program), so the error path rebuilds it instead of
/// every successful run keeping a copy; passes are deterministic, so this is the same program.
fn replay(start: Start, passes: &[&'static PassInfo], env: &PassEnv) -> Option<Program> {
    passes.iter().try_fold(start().ok()?, |prog, pass| (pass.run?)(prog, env).ok())
}

fn with_missing_preconditions(mut diags: Vec<Diagnostic>, input: &Program, pass: &PassInfo) -> Vec<Diagnostic> {
    let missing: Vec<&str> = pass
        .required
        .iter()
        .filter(|p| p.verifier_rule().is_some_and(|r| !verify::verify(input, &[r]).is_empty()))
        .map(|p| p.name())
        .collect();
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
            let msg = format!("{what} pass '{reference_name}': {} ({}): {}", v.rule.name(), v.error_code, v.message);
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
        }
    }

    fn run(passes: &[&'static PassInfo]) -> Result<Program, Vec<Diagnostic>> {
        let req = Request {
            passes,
            env: PassEnv { backend: Backend::Cce },
            print_after_all: false,
            verify_each: false,
            auto_verify: false,
            emit_cpp: false,
            emit_pto: None,
            disabled_rules: &[],
            source_name: "p.pto",
            verify_sync: false,
            report_redundant_sync: false,
            sync_postcondition: false,
            stats: None,
            by_function: None,
            early: None,
        };
        run_passes(&|| Ok(Program::new("p")), "", &req, &mut String::new(), &mut Default::default())
    }

    #[test]
    fn passes_run_in_order() {
        assert_eq!(run(&[&MARK, &MARK]).unwrap().name, "p++");
        assert_eq!(run(&[]).unwrap().name, "p");
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
    fn dump_header_matches_corpus_stage_names() {
        assert_eq!(dump_header(3, "run-verifier"), "# ==== after-03-run-verifier ====");
        assert_eq!(dump_header(12, "x"), "# ==== after-12-x ====");
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
        ..fake("breaks-types", Some(|_, _| crate::driver::compile::frontend(ILL_TYPED)))
    };
    const ILL_TYPED: &str = "# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n    @pl.function\n    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        for i, (s,) in pl.range(0, 10, 1, init_values=(a,)):\n            r: pl.Scalar[pl.INT64] = pl.yield_(1.0)\n        return r\n";

    #[test]
    fn automatic_verification_checks_what_a_pass_produces_once() {
        let mut verified = Vec::new();
        let e = auto_verify(&frontend(ILL_TYPED).unwrap(), &BREAKS_TYPES, &mut verified).unwrap_err();
        assert_eq!(e[0].code, codes::VERIFY_FAILED);
        assert_eq!(e[0].message, "Verification failed after 'breaks-types' for properties {SSAForm, TypeChecked}");
        assert!(e[0].notes.iter().any(|n| n.starts_with("TypeCheck (102): Dtype mismatch in ForStmt")), "{:?}", e[0].notes);
        // Already verified properties are not checked again.
        let mut verified = vec![Property::SsaForm, Property::TypeChecked];
        assert!(auto_verify(&frontend(ILL_TYPED).unwrap(), &BREAKS_TYPES, &mut verified).is_ok());
    }

    #[test]
    fn verify_level_comes_from_the_flag_then_the_environment() {
        use crate::driver::cli::VerifyLevel;
        assert_eq!(VerifyLevel::resolve(None, None), VerifyLevel::Basic);
        assert_eq!(VerifyLevel::resolve(None, Some("NONE")), VerifyLevel::None);
        assert_eq!(VerifyLevel::resolve(None, Some("basic")), VerifyLevel::Basic);
        assert_eq!(VerifyLevel::resolve(Some(VerifyLevel::Basic), Some("none")), VerifyLevel::Basic);
    }

    /// Requires SSAForm and always fails, as a pass whose precondition does not hold might.
    static NEEDS_SSA: PassInfo = PassInfo {
        required: &[Property::SsaForm],
        ..fake("needs-ssa", Some(|_, _| Err(vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, "cannot handle this")])))
    };

    #[test]
    fn a_rejected_input_names_the_missing_precondition() {
        let e = with_missing_preconditions(
            vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, "cannot handle this")],
            &frontend(NOT_SSA).unwrap(),
            &NEEDS_SSA,
        );
        assert_eq!(e[0].notes, ["the input lacks SSAForm required by `needs-ssa` (run with --verify-each to see where)"]);
        let fine = with_missing_preconditions(vec![Diagnostic::error(codes::OP_CHECK, Span::NONE, "x")], &Program::new("p"), &NEEDS_SSA);
        assert!(fine[0].notes.is_empty());
    }
    /// An if with return vars but no else: not in SSA form (SSAVerify code 3).
    const NOT_SSA: &str = "# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n    @pl.function\n    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        if a > 0:\n            r: pl.Scalar[pl.INT64] = pl.yield_(a)\n        return r\n";
}
