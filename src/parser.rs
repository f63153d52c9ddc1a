//! Parser: tokens from [`crate::lexer`] → [`crate::ast::Module`] via the lalrpop grammar.
use crate::ast::Module;
use crate::diag::Diagnostic;

/// Parses a whole `.pto` file. All syntax errors the parser can recover from are reported.
pub fn parse(source: &str) -> Result<Module, Vec<Diagnostic>> {
    let _ = source;
    todo!("parser")
}
