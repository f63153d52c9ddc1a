//! Lowering: syntax tree → IR.
use crate::ast::Module;
use crate::diag::Diagnostic;
use crate::ir::Program;

/// Lowers a parsed file to a program.
pub fn lower(module: &Module, source: &str) -> Result<Program, Vec<Diagnostic>> {
    let _ = (module, source);
    todo!("lowering")
}
