//! One compilation: text → IR → the planned passes → emitted IR text or C++ files.

use crate::diag::{codes, Diagnostic, Span};
use crate::ir::Program;
use crate::passes::{run_verifier, PassEnv, PassInfo};
use crate::verify::{self, Rule};
use crate::{lower, parser, printer};

/// What a successful compilation produced.
#[derive(Debug)]
pub enum Emitted {
    /// Canonical `.pto` text of the final program (no trailing newline, like the printer).
    Ir(String),
    /// C++ files: relative path (e.g. `kernels/aiv/k.cpp`) and text, sorted by path.
    Files(Vec<(String, String)>),
}

/// What to do with the program once it is lowered.
pub struct Request<'a> {
    pub passes: &'a [&'static PassInfo],
    pub env: PassEnv,
    pub print_after_all: bool,
    pub verify_each: bool,
    pub emit_cpp: bool,
    /// Rules `run-verifier` leaves out (`--disable-rule`).
    pub disabled_rules: &'a [String],
    /// The input's name, for the locations in `run-verifier`'s report.
    pub source_name: &'a str,
}

/// The front end: parse and lower.
pub fn frontend(source: &str) -> Result<Program, Vec<Diagnostic>> {
    let module = parser::parse(source)?;
    lower::lower(&module, source)
}

/// Runs the request on `source`. IR dumps of `--print-after-all` are appended to `dumps` as
/// they happen, so they survive a later error.
pub fn compile(source: &str, req: &Request, dumps: &mut String) -> Result<Emitted, Vec<Diagnostic>> {
    let prog = run_passes(frontend(source)?, source, req, dumps)?;
    if req.emit_cpp {
        emit_cpp(&prog).map(Emitted::Files)
    } else {
        Ok(Emitted::Ir(printer::print_program(&prog)))
    }
}

/// Runs the planned passes in order; the first pass that is not implemented or fails ends the run.
/// `source` is the text `prog` was lowered from (for locations in reports).
fn run_passes(mut prog: Program, source: &str, req: &Request, dumps: &mut String) -> Result<Program, Vec<Diagnostic>> {
    for (k, pass) in req.passes.iter().enumerate() {
        let Some(run) = pass.run else {
            return Err(vec![not_implemented(pass, req.passes)]);
        };
        if req.verify_each {
            check_properties(&prog, pass, Moment::Before)?;
        }
        prog = run(&prog, &req.env)?;
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
    }
    Ok(prog)
}

/// The hook of `run-verifier` (spec §1.7): the pass returns the program unchanged; its findings
/// are printed on stderr (with the dumps, in run order) and do not fail the run.
fn report_verifier_findings(prog: &Program, pass: &PassInfo, source: &str, req: &Request, stderr: &mut String) {
    if pass.name == run_verifier::NAME {
        stderr.push_str(&run_verifier::report(prog, req.disabled_rules, req.source_name, source));
    }
}

/// The line before each `--print-after-all` dump (`position` is 1-based).
pub fn dump_header(position: usize, pass: &str) -> String {
    format!("# ==== after-{position:02}-{pass} ====")
}

/// C++ emission. The CCE code generator does not exist yet; this is where it plugs in.
fn emit_cpp(_prog: &Program) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    Err(vec![Diagnostic::error(codes::PASS_NOT_IMPLEMENTED, Span::NONE, "C++ emission is not implemented yet")
        .with_note("use --emit ir")])
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

/// `--verify-each`: before a pass, checks the properties it requires; after it, the properties
/// it promises to produce — with the verifier rules that exist for them (SSAVerify, TypeCheck,
/// NoNestedCall), like the reference's `VerificationInstrument(BEFORE_AND_AFTER)`.
fn check_properties(prog: &Program, pass: &PassInfo, moment: Moment) -> Result<(), Vec<Diagnostic>> {
    let (props, when) = match moment {
        Moment::Before => (pass.required, "before"),
        Moment::After => (pass.produced, "after"),
    };
    let rules: Vec<Rule> =
        Rule::ALL.iter().copied().filter(|r| props.iter().any(|p| p.verifier_rule() == Some(*r))).collect();
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
            let msg = format!(
                "IR is invalid {when} pass `{}`: {} ({}): {}",
                pass.name,
                v.rule.name(),
                v.error_code,
                v.message
            );
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
        Some(|p, _| {
            let mut q = p.clone();
            q.name.push('+');
            Ok(q)
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
            emit_cpp: false,
            disabled_rules: &[],
            source_name: "p.pto",
        };
        run_passes(Program::new("p"), "", &req, &mut String::new())
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
        let run = crate::passes::Pipeline::Ptoas.passes();
        let d = not_implemented(run[0], &run);
        assert_eq!(d.code, codes::PASS_NOT_IMPLEMENTED);
        assert!(d.message.contains("`convert-to-ssa`"));
        assert!(d.notes[0].contains("allocate-memory-addr"));
    }
}
