//! Step 1 of BasicMemoryReuse (spec `passes-and-codegen.md` §2.9): the linear statement list
//! the lifetimes are measured on, built like the reference's dependency analyzer.
//!
//! The function body is cut into basic blocks; a block's statements are its children with
//! `SeqStmts`/`OpStmts` flattened away. Statements are then numbered consecutively across all
//! blocks. The reference's limits are kept on purpose (§6 Q14): an `if`/`for` nested inside a
//! block (i.e. inside a loop body) is dropped with everything in it, and `while`/scope
//! statements nested in a block are opaque single statements.

use crate::ir::Stmt;

/// The statements of `body` in analysis order; a statement's index is its position.
pub fn linear_statements(body: &Stmt) -> Vec<&Stmt> {
    let mut out = Vec::new();
    process(body, &mut out);
    out
}

/// The reference's `process(s)`: appends the blocks of `s` to `out`. Blocks only matter for
/// their order, so they are appended directly rather than kept as separate lists.
fn process<'a>(s: &'a Stmt, out: &mut Vec<&'a Stmt>) {
    match s {
        Stmt::Seq { stmts, .. } => {
            // Consecutive straight-line children form one block; flushing it before a
            // control-flow child keeps the order, so appending as we go is the same thing.
            for c in stmts {
                match c {
                    Stmt::If { .. } | Stmt::For { .. } | Stmt::While { .. } | Stmt::Seq { .. } => process(c, out),
                    _ => flatten_into(c, out),
                }
            }
        }
        Stmt::If { then_body, else_body, .. } => {
            process(then_body, out);
            if let Some(e) = else_body {
                process(e, out);
            }
        }
        Stmt::For { body, .. } | Stmt::While { body, .. } => flatten_into(body, out),
        other => flatten_into(other, out),
    }
}

/// A block's statements: `SeqStmts`/`OpStmts` are flattened recursively, nested `if`/`for`
/// are dropped entirely, anything else (incl. `while` and scopes) is one opaque statement.
fn flatten_into<'a>(s: &'a Stmt, out: &mut Vec<&'a Stmt>) {
    match s {
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|c| flatten_into(c, out)),
        Stmt::If { .. } | Stmt::For { .. } => {}
        other => out.push(other),
    }
}
