//! Step 1 of BasicMemoryReuse (spec `passes-and-codegen.md` §2.9): the linear statement list
//! the lifetimes are measured on, built like the reference's dependency analyzer.
//!
//! The function body is cut into basic blocks; a block's statements are its children with
//! `SeqStmts`/`OpStmts` flattened away. Statements are then numbered consecutively across all
//! blocks. The reference's limits are kept on purpose (§6 Q14): an `if`/`for` nested inside a
//! block (i.e. inside a loop body) is dropped with everything in it, and `while`/scope
//! statements nested in a block are opaque single statements.
//!
//! The `-O1` plan ([`linear_statements_with_loops`]) numbers the statements of nested loop
//! bodies too, so that tiles of an inner loop share buffers like those of an outer one.

use std::ops::Range;

use crate::ir::Stmt;

/// The statements of `body` in analysis order; a statement's index is its position.
pub fn linear_statements(body: &Stmt) -> Vec<&Stmt> {
    let mut walk = Walk { out: Vec::new(), loops: Vec::new(), keep_nested: false };
    walk.process(body);
    walk.out
}

/// A loop whose body is numbered among the linear statements of the `-O1` plan.
#[derive(Clone, Debug)]
pub struct Loop<'a> {
    /// The index range of its body's statements (never empty).
    pub body: Range<usize>,
    /// The `for`/`while` statement itself (not among the linear statements).
    pub stmt: &'a Stmt,
}

/// The statements of `body` for the lifetime plan of `-O1`, and every loop whose body is
/// numbered among them, inner loops before the loops around them (ranges of nested loops nest,
/// others are disjoint). Unlike [`linear_statements`], a `for`/`while` nested in a block is
/// numbered like one at the top, and an `if` nested in a block is kept as one opaque statement
/// instead of being dropped (spec §6 Q14): the tiles it reads must stay live until it runs.
pub fn linear_statements_with_loops(body: &Stmt) -> (Vec<&Stmt>, Vec<Loop<'_>>) {
    let mut walk = Walk { out: Vec::new(), loops: Vec::new(), keep_nested: true };
    walk.process(body);
    (walk.out, walk.loops)
}

struct Walk<'a> {
    out: Vec<&'a Stmt>,
    loops: Vec<Loop<'a>>,
    /// Number nested loops and keep nested `if`s as opaque statements (-O1) instead of
    /// dropping them.
    keep_nested: bool,
}

impl<'a> Walk<'a> {
    /// The reference's `process(s)`: appends the blocks of `s` to `out`. Blocks only matter for
    /// their order, so they are appended directly rather than kept as separate lists.
    fn process(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Seq { stmts, .. } => {
                // Consecutive straight-line children form one block; flushing it before a
                // control-flow child keeps the order, so appending as we go is the same thing.
                for c in stmts {
                    match c {
                        Stmt::If { .. } | Stmt::For { .. } | Stmt::While { .. } | Stmt::Seq { .. } => self.process(c),
                        _ => self.flatten_into(c),
                    }
                }
            }
            Stmt::If { then_body, else_body, .. } => {
                self.process(then_body);
                if let Some(e) = else_body {
                    self.process(e);
                }
            }
            Stmt::For { .. } | Stmt::While { .. } => self.number_loop(s),
            other => self.flatten_into(other),
        }
    }

    fn number_loop(&mut self, s: &'a Stmt) {
        let (Stmt::For { body, .. } | Stmt::While { body, .. }) = s else { return };
        let start = self.out.len();
        self.flatten_into(body);
        if self.out.len() > start {
            self.loops.push(Loop { body: start..self.out.len(), stmt: s });
        }
    }

    /// A block's statements: `SeqStmts`/`OpStmts` are flattened recursively, nested `if`/`for`
    /// are dropped entirely (with `keep_nested`: loops are numbered, an `if` is kept whole),
    /// anything else (incl. `while` and scopes) is one opaque statement.
    fn flatten_into(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|c| self.flatten_into(c)),
            Stmt::If { .. } | Stmt::For { .. } if !self.keep_nested => {}
            Stmt::For { .. } | Stmt::While { .. } if self.keep_nested => self.number_loop(s),
            other => self.out.push(other),
        }
    }
}
