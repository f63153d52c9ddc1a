//! Printer: IR → canonical `.pto` text (spec `ir-and-syntax.md` §3 with the canonical-text
//! changes of `README.md` §2.5).
//!
//! Each statement line is a `pretty` document (built in an arena of its own and rendered into
//! the one string of the print call, so the documents of a whole program never exist at once);
//! the block structure (lines, indentation, empty bodies) is kept by `stmt::Writer`, since
//! indentation is syntax and never depends on the width. The only break points are inside
//! brackets — call arguments, lists, type parameters, parameter lists — where the language
//! joins lines implicitly, so wrapped text reads back as the same program. At the default
//! width ([`NO_WRAP`]) nothing wraps and every statement is one line, as the reference prints
//! it. Submodules: `doc` (the document helpers), `expr` (expressions, §3.6/§3.8), `types`
//! (§3.4), `stmt` (statements, functions, program, §3.2/§3.5), `float` (§3.7), `order`
//! (function order, §3.9).

mod declare;
mod doc;
mod expr;
mod float;
mod order;
mod stmt;
#[cfg(test)]
mod tests;
mod types;

pub use float::format_float;
pub use order::function_order;

use crate::ir::{Expr, Function, Program, Stmt, Type, VarId, VarTable};
use stmt::Writer;

/// The width at which nothing wraps: the default, the reference's one-line-per-statement text.
pub const NO_WRAP: usize = usize::MAX;

/// What a print call knows: the variables of the function printed, whether the text sits
/// inside the `class` of a program (calls to functions print `self.f(...)`, `def` has `self`)
/// and the line width past which bracket contents wrap.
#[derive(Clone, Copy)]
struct Ctx<'p> {
    vars: &'p VarTable,
    in_program: bool,
    width: usize,
}

/// Variable lookups that never panic: the printer also renders malformed IR for messages, so a
/// dangling id prints a placeholder instead.
impl<'p> Ctx<'p> {
    fn var_name(&self, id: VarId) -> &'p str {
        self.vars.get(id).map_or("<invalid var>", |v| v.name.as_str())
    }
    fn var_type(&self, id: VarId) -> &'p Type {
        self.vars.get(id).map_or(&Type::Unknown, |v| &v.ty)
    }
}

/// Prints a program in the canonical text form (no trailing newline, like the reference).
pub fn print_program(p: &Program) -> String {
    print_program_width(p, NO_WRAP)
}

/// [`print_program`] with bracket contents wrapped where a line would pass `width` columns
/// (`--print-width`); the text parses back to the same program.
pub fn print_program_width(p: &Program, width: usize) -> String {
    print_program_with_jobs(p, width, 1)
}

/// [`print_program_width`], the functions printed on `jobs` threads (each into its own string,
/// joined in the §3.9 order: the text does not depend on `jobs`).
pub fn print_program_with_jobs(p: &Program, width: usize, jobs: usize) -> String {
    let members = crate::par::map(&p.functions, jobs, |f| member(f, width));
    print_members(p, members)
}

/// One function printed in its program's class, with the names of the functions it calls (its
/// place in the text depends on them, §3.9): the last step of a compilation that prints each
/// function as soon as its passes are done (`driver::compile`).
pub struct Member {
    name: String,
    calls: std::collections::BTreeSet<String>,
    text: String,
}

/// Function `f` as a [`Member`] of its program's class, at line width `width`.
pub fn member(f: &Function, width: usize) -> Member {
    let text = Writer::class_member(Ctx { vars: &f.vars, in_program: true, width }, f);
    let calls = order::called_names(f).into_iter().map(str::to_string).collect();
    Member { name: f.name.clone(), calls, text }
}

/// The text of program `p` (its name is what is read of it) whose functions are `members`.
pub fn print_members(p: &Program, members: Vec<Member>) -> String {
    let empty = VarTable::new();
    let mut head = Writer::new(Ctx { vars: &empty, in_program: true, width: NO_WRAP });
    head.program_head(p);
    let mut out = head.finish();
    let calls: Vec<(&str, &std::collections::BTreeSet<String>)> =
        members.iter().map(|m| (m.name.as_str(), &m.calls)).collect();
    let order = order::order(&calls);
    let mut texts: Vec<String> = members.into_iter().map(|m| m.text).collect();
    let texts: Vec<String> = order.into_iter().map(|i| std::mem::take(&mut texts[i])).collect();
    if texts.is_empty() {
        // An empty class body is one empty line, as any empty block.
        out.push('\n');
    }
    for text in texts {
        out.push('\n');
        out.push_str(&text);
    }
    out
}

/// Prints one function in the standalone form: decorator at column 0, no `self`, calls to
/// other functions as bare `name(args)`.
pub fn print_function(f: &Function) -> String {
    print_function_width(f, NO_WRAP)
}

/// [`print_function`] at a line width (see [`print_program_width`]).
pub fn print_function_width(f: &Function, width: usize) -> String {
    let mut w = Writer::new(Ctx { vars: &f.vars, in_program: false, width });
    w.function(f);
    w.finish()
}

/// Prints a statement of a function with variables `vars` at column 0 (standalone form; yields
/// print bare).
pub fn print_stmt<'p>(vars: &'p VarTable, s: &'p Stmt) -> String {
    let mut w = Writer::new(Ctx { vars, in_program: false, width: NO_WRAP });
    w.stmt(s);
    w.finish()
}

/// Prints an expression of a function with variables `vars` (standalone form: a call to a
/// function prints `f(args)`).
pub fn print_expr<'p>(vars: &'p VarTable, e: &'p Expr) -> String {
    let ctx = Ctx { vars, in_program: false, width: NO_WRAP };
    let arena = doc::Arena::new();
    doc::render(ctx.expr(&arena, e), NO_WRAP)
}

/// Prints a type of a function with variables `vars` (`pl.Tile[[64, 64], pl.FP32,
/// pl.MemRef(...)]`).
pub fn print_type<'p>(vars: &'p VarTable, t: &'p Type) -> String {
    let ctx = Ctx { vars, in_program: false, width: NO_WRAP };
    let arena = doc::Arena::new();
    doc::render(ctx.ty(&arena, t), NO_WRAP)
}
