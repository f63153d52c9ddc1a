//! The PTO backend's partial-tile rule: the PTO-ISA generator writes every tile of its full
//! shape (its `!pto.tile_buf` types carry no valid rows and columns), so a kernel that makes a
//! partial tile is refused before its MLIR is written, at the call that makes it: a
//! `block.load` or `block.create_tile` with a `valid_shape`, or a `block.set_validshape`.
//! Every other partial tile is the result of an op on one of these. The CCE backend
//! (`--emit cpp`) compiles them.

use crate::diag::{codes, Diagnostic};
use crate::ir::{visit, Callee, ExprKind, Function};
use crate::ops::id;

/// Checks kernel `f`; the first call that makes a partial tile, in program order.
pub fn check(f: &Function) -> Result<(), Diagnostic> {
    let mut found = None;
    visit::walk_all_exprs(&f.body, &mut |e| {
        let ExprKind::Call(c) = &e.kind else { return };
        let Callee::Op(op) = c.callee else { return };
        let partial = match op {
            id::SET_VALIDSHAPE => true,
            id::LOAD => c.args.len() > 3,
            id::CREATE_TILE => c.args.len() > 1,
            _ => false,
        };
        if partial && found.is_none() {
            found = Some(
                Diagnostic::error(
                    codes::NO_PTO_FORM,
                    e.span,
                    format!(
                        "the PTO backend has no partial tiles: {} gives a tile a valid shape",
                        crate::ops::name(op)
                    ),
                )
                .with_note("help: the CCE backend (`--emit cpp`) compiles partial tiles"),
            );
        }
    });
    found.map_or(Ok(()), Err)
}
