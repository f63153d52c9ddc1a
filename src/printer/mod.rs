//! Printer: IR → canonical `.pto` text (spec `ir-and-syntax.md` §3 with the canonical-text
//! changes of `README.md` §2.5).
//!
//! Every statement is a single line and nothing is ever broken, so the text is written straight
//! into one string per print call (`stmt::Writer`), with no document tree. Submodules: `expr`
//! (expressions, §3.6/§3.8), `types` (§3.4), `stmt` (statements, functions, program,
//! §3.2/§3.5), `float` (§3.7), `order` (function order, §3.9).

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
use stmt::Writer;

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
    let mut w = Writer::new(Ctx { prog: p, in_program: true });
    w.program(p);
    w.finish()
}

/// Prints one function in the standalone form: decorator at column 0, no `self`, calls to
/// other functions as bare `name(args)`.
pub fn print_function(p: &Program, f: &Function) -> String {
    let mut w = Writer::new(Ctx { prog: p, in_program: false });
    w.function(f);
    w.finish()
}

/// Prints a statement at column 0 (standalone form; yields print bare).
pub fn print_stmt(p: &Program, s: &Stmt) -> String {
    let mut w = Writer::new(Ctx { prog: p, in_program: false });
    w.stmt(s);
    w.finish()
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
