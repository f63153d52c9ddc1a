//! `run-verifier` (spec `passes-and-codegen.md` §1.7, §2.5): the reference's
//! `RunVerifier(disabled_rules)` runs the default verifier (SSAVerify, TypeCheck, NoNestedCall)
//! minus the disabled rules, logs the report when there are findings, never fails, and returns
//! the program unchanged.
//!
//! A [`super::PassFn`] can only return a program or errors, so the transform is the identity
//! and the findings come from [`findings`] (the pass's [`super::PassInfo::findings`]), which the
//! pass manager asks for right after the run; the driver prints them on stderr (as [`report`]
//! words them) without failing the run.

use super::PassEnv;
use crate::diag::Diagnostic;
use crate::ir::Program;
use crate::verify::{self, Property, VerifyDiagnostic};

/// The transform: the program, unchanged.
pub fn run(prog: Program, _env: &PassEnv) -> Result<Program, Vec<Diagnostic>> {
    Ok(prog)
}

/// What the pass finds: the default rules minus `disabled` (unknown names are ignored, like
/// the reference's `DisableRule`), in the verifier's order. The functions are checked on `jobs`
/// threads (on one, the check left a core idle for 5 ms at 50k lines); the findings do not
/// depend on it.
pub fn diagnostics<S: AsRef<str>>(prog: &Program, disabled: &[S], jobs: usize) -> Vec<VerifyDiagnostic> {
    verify::verify_with_jobs(prog, &Property::default_without(disabled), jobs)
}

/// [`diagnostics`] as the pass's findings.
pub fn findings(prog: &Program, disabled: &[String], jobs: usize) -> Vec<VerifyDiagnostic> {
    diagnostics(prog, disabled, jobs)
}

/// The reference's report text for [`diagnostics`] (see [`super::manager::findings_report`]).
pub fn report<S: AsRef<str>>(prog: &Program, disabled: &[S], file: &str, source: &str) -> String {
    super::manager::findings_report(&diagnostics(prog, disabled, 1), file, source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;

    const SRC: &str = "# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def f(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        if x > 0:
            y: pl.Scalar[pl.INT64] = pl.yield_(x)
        return y
";

    #[test]
    fn returns_the_program_unchanged_and_reports_separately() {
        let prog = crate::driver::frontend(SRC).expect("valid input");
        let env = PassEnv::new(Backend::Cce);
        let out = run(prog.clone(), &env).expect("never fails");
        assert_eq!(crate::printer::print_program(&out), crate::printer::print_program(&prog));
        let found = diagnostics(&prog, &[] as &[&str], 2);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].rule, found[0].error_code), (Property::SsaForm, 3));
        let text = report(&prog, &[] as &[&str], "f.pto", SRC);
        assert!(text.starts_with("IR Verification Report\n"), "{text}");
        assert!(text.contains("  Location: f.pto:8:9\n"), "{text}");
        assert!(text.ends_with("Status: FAILED (1 error(s) found)\n"), "{text}");
    }

    #[test]
    fn disabled_rules_are_skipped_and_unknown_names_ignored() {
        let prog = crate::driver::frontend(SRC).expect("valid input");
        assert!(diagnostics(&prog, &["SSAVerify"], 2).is_empty());
        assert_eq!(diagnostics(&prog, &["NoSuchRule"], 1).len(), 1);
        assert_eq!(report(&prog, &["SSAVerify"], "f.pto", SRC), "");
    }
}
