//! A bound on loop nesting for insert-sync. Phase 1 analyses every loop body twice (the
//! unrolled copy that finds loop-carried dependences, spec §6 Q8) inside each of the two copies
//! of every enclosing loop, so a body at loop depth d is walked 2^d times: 25 nested loops take
//! minutes and gigabytes (fuzz finding F5). Kernels nest a handful of loops; deeper nests get a
//! diagnostic at the first loop beyond the limit instead of a hang.

use crate::diag::{codes, Diagnostic};
use crate::ir::Stmt;

/// The deepest loop nest insert-sync analyses (2^12 walks of the innermost body at most).
pub const MAX_LOOP_DEPTH: usize = 12;

/// The first `for`/`while` nested deeper than [`MAX_LOOP_DEPTH`] loops in `body`, as an error.
pub fn check(body: &Stmt) -> Result<(), Diagnostic> {
    match too_deep(body, 0) {
        None => Ok(()),
        Some(s) => Err(Diagnostic::error(
            codes::LOOP_NEST_TOO_DEEP,
            s.span(),
            format!("loops nested more than {MAX_LOOP_DEPTH} deep: insert-sync does not analyse this nest"),
        )
        .with_note(format!(
            "insert-sync walks a loop body twice per enclosing loop (2^depth walks); this loop is at depth {}",
            MAX_LOOP_DEPTH + 1
        ))),
    }
}

/// The first loop at depth `MAX_LOOP_DEPTH + 1` (counting `s` at `depth` enclosing loops).
fn too_deep(s: &Stmt, depth: usize) -> Option<&Stmt> {
    let inner = match s {
        Stmt::For { .. } | Stmt::While { .. } if depth == MAX_LOOP_DEPTH => return Some(s),
        Stmt::For { .. } | Stmt::While { .. } => depth + 1,
        _ => depth,
    };
    crate::ir::visit::child_stmts(s).find_map(|c| too_deep(c, inner))
}
