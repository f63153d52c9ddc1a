//! Printer: IR → canonical `.pto` text.
use crate::ir::Program;

/// Prints a program in the canonical text form (no trailing newline, like the reference).
pub fn print_program(p: &Program) -> String {
    let _ = p;
    todo!("printer")
}
