//! Printer: IR → canonical `.pto` text (spec `ir-and-syntax.md` §3 with the canonical-text
//! changes of `README.md` §2.5).
//!
//! Layout (program, functions, blocks) is built with the `pretty` crate in one arena per print
//! call; every statement is a single pre-formatted line, so the documents are rendered at an
//! unbounded width and nothing is ever broken. Submodules: `expr` (expressions, §3.6/§3.8),
//! `types` (§3.4), `stmt` (statements, functions, program, §3.2/§3.5), `float` (§3.7),
//! `order` (function order, §3.9).

mod expr;
mod float;
mod order;
mod stmt;
#[cfg(test)]
mod tests;
mod types;

pub use float::format_float;
pub use order::function_order;

use crate::ir::{Expr, Function, Program, Stmt, Type, VarId};
use pretty::Arena;
use stmt::{Doc, DocPrinter};

/// What a print call knows: the program (for the variable table) and whether the text sits
/// inside the `class` of a program (calls to functions print `self.f(...)`, `def` has `self`).
#[derive(Clone, Copy)]
struct Ctx<'p> {
    prog: &'p Program,
    in_program: bool,
}

/// Variable lookups that never panic: the printer also renders malformed IR for messages, so a
/// dangling id prints a placeholder instead.
impl<'p> Ctx<'p> {
    fn var_name(&self, id: VarId) -> &'p str {
        self.prog.vars.get(id.index()).map_or("<invalid var>", |v| v.name.as_str())
    }
    fn var_type(&self, id: VarId) -> &'p Type {
        self.prog.vars.get(id.index()).map_or(&Type::Unknown, |v| &v.ty)
    }
}

/// Prints a program in the canonical text form (no trailing newline, like the reference).
pub fn print_program(p: &Program) -> String {
    let arena = Arena::new();
    let printer = DocPrinter { ctx: Ctx { prog: p, in_program: true }, arena: &arena };
    render(printer.program(p))
}

/// Prints one function in the standalone form: decorator at column 0, no `self`, calls to
/// other functions as bare `name(args)`.
pub fn print_function(p: &Program, f: &Function) -> String {
    let arena = Arena::new();
    let printer = DocPrinter { ctx: Ctx { prog: p, in_program: false }, arena: &arena };
    render(printer.function(f))
}

/// Prints a statement at column 0 (standalone form; yields print bare).
pub fn print_stmt(p: &Program, s: &Stmt) -> String {
    let arena = Arena::new();
    let printer = DocPrinter { ctx: Ctx { prog: p, in_program: false }, arena: &arena };
    let mut lines = Vec::new();
    printer.stmt(s, &mut lines);
    render(printer.lines(lines))
}

/// Prints an expression (standalone form: a call to a function prints `f(args)`).
pub fn print_expr(p: &Program, e: &Expr) -> String {
    let mut out = String::new();
    Ctx { prog: p, in_program: false }.expr(e, &mut out);
    out
}

/// Prints a type (`pl.Tile[[64, 64], pl.FP32, pl.MemRef(...)]`).
pub fn print_type(p: &Program, t: &Type) -> String {
    let mut out = String::new();
    Ctx { prog: p, in_program: false }.ty(t, &mut out);
    out
}

/// Renders a document. Lines never break (unbounded width). `pretty` writes the indentation
/// even on a line with nothing else (Marwes/pretty.rs#85) — here the line an empty block body
/// leaves — so lines made only of spaces are emptied.
fn render(doc: Doc<'_>) -> String {
    let mut raw = String::new();
    // Writing into a String cannot fail.
    let _ = doc.render_fmt(usize::MAX, &mut raw);
    if !raw.split('\n').any(is_blank_with_spaces) {
        return raw;
    }
    let mut out = String::with_capacity(raw.len());
    for (i, line) in raw.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if !is_blank_with_spaces(line) {
            out.push_str(line);
        }
    }
    out
}

fn is_blank_with_spaces(line: &str) -> bool {
    !line.is_empty() && line.bytes().all(|b| b == b' ')
}
