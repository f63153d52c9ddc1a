//! Property verifier of `passes-and-codegen.md` §1.3 (to be written with the pass that produces the property).

use super::VerifyDiagnostic;
use crate::ir::{Function, Program};

/// HasMemRefs (§1.3): every AssignStmt whose variable has a Tile type has a MemRef.
pub(super) fn check(prog: &Program, f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let _ = (prog, f, out);
}
