//! TEMPORARY STUB (kernel codegen helper): replaced by the orchestration helper's module.
//! (to be written: spec passes-and-codegen.md §4.9)

use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{Function, Program};

/// Stub: not implemented yet.
pub fn emit(prog: &Program, f: &Function) -> Result<String, Vec<Diagnostic>> {
    let _ = prog;
    Err(vec![Diagnostic::error(codes::PASS_NOT_IMPLEMENTED, Span::NONE, format!("orchestration emission for {} is not implemented yet", f.name))])
}
