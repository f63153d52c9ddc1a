//! Property verifier of `passes-and-codegen.md` §1.3 (to be written with the pass that produces the property).

use super::VerifyDiagnostic;
use crate::ir::{Function, Program};

/// AllocatedMemoryAddr (§1.3): every on-chip MemRef of a tile variable has an address, within the backend's capacity.
pub(super) fn check(prog: &Program, f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let _ = (prog, f, out);
}
