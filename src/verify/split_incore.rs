//! Property verifier(s) of `passes-and-codegen.md` §1.3 (to be written with the pass that produces the property).

use super::VerifyDiagnostic;
use crate::ir::{Function, Program};

/// SplitIncoreOrch (§1.3): no InCore ScopeStmt in an Opaque function.
pub(super) fn check(prog: &Program, f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let _ = (prog, f, out);
}
