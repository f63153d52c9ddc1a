//! CCE C++ code generation (spec `passes-and-codegen.md` §4): one kernel file per kernel
//! function, and for a program with an Orchestration function its orchestration file and
//! `kernel_config.py`.

pub mod kernel;
pub mod kernel_config;
pub mod orchestration;

use crate::diag::Diagnostic;
use crate::ir::Program;

/// Generates every file of `prog`: (relative path, text), sorted by path (§4.1).
pub fn generate(prog: &Program) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    let _ = prog;
    Err(vec![Diagnostic::error(
        crate::diag::codes::PASS_NOT_IMPLEMENTED,
        crate::diag::Span::NONE,
        "C++ emission is not implemented yet",
    )
    .with_note("use --emit ir")])
}
