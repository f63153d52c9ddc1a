//! Property verifier(s) of `passes-and-codegen.md` §1.3 (to be written with the pass that produces the property).

use super::VerifyDiagnostic;
use crate::ir::{Function, Program};

/// NormalizedStmtStructure (§1.3): bodies are SeqStmts, no bare Assign/Eval in a SeqStmts.
pub(super) fn check_normalized(prog: &Program, f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let _ = (prog, f, out);
}

/// FlattenedSingleStmt (§1.3): no SeqStmts/OpStmts of one element.
pub(super) fn check_flattened(prog: &Program, f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let _ = (prog, f, out);
}
