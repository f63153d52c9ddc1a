//! Property verifier(s) of `passes-and-codegen.md` §1.3 (to be written with the pass that produces the property).

use super::VerifyDiagnostic;
use crate::ir::{Function, Program};

/// IncoreBlockOps (§1.3): no convertible tensor op in an InCore function.
pub(super) fn check(prog: &Program, f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let _ = (prog, f, out);
}
