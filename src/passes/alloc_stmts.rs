//! The `block.alloc` statements of a function: how one is built from its MemRef variable and
//! where the passes that make buffers (init-mem-ref, legalize-cce) put them.

use crate::ir::{Call, Callee, DataType, Expr, ExprKind, Stmt, Type, VarId, VarKind, VarTable};
use crate::ops::id;

/// `mem_<s>_<id>: pl.MemRefType = pl.block.alloc(<S>, addr, size, id)` for the MemRef variable
/// `m`; `None` when `m` is not a MemRef.
pub fn alloc_stmt(vars: &VarTable, m: VarId) -> Option<Stmt> {
    let VarKind::MemRef(info) = &vars.var(m).kind else { return None };
    let span = vars.var(m).span;
    let int = |v: i64| Expr::int(v, DataType::Int64, span);
    let args = vec![
        int(info.space.index() as i64),
        info.addr.clone(),
        int(i64::try_from(info.size).unwrap_or(i64::MAX)),
        int(i64::try_from(info.id).unwrap_or(i64::MAX)),
    ];
    let call = Call { callee: Callee::Op(id::ALLOC), args, kwargs: Vec::new() };
    Some(Stmt::Assign { var: m, value: Expr::new(ExprKind::Call(Box::new(call)), Type::MemRef, span), span })
}

fn is_alloc(s: &Stmt) -> bool {
    matches!(s, Stmt::Assign { value, .. } if value.as_call().is_some_and(|c| c.callee.is_op(id::ALLOC)))
}

/// Makes `body` a sequence (wrapping a single statement) and returns its statements.
fn as_sequence(body: &mut Stmt) -> &mut Vec<Stmt> {
    if !matches!(body, Stmt::Seq { .. }) {
        let span = body.span();
        let old = std::mem::replace(body, Stmt::empty());
        *body = Stmt::Seq { stmts: vec![old], span };
    }
    let Stmt::Seq { stmts, .. } = body else { unreachable!("made a sequence above") };
    stmts
}

/// Puts `allocs` at the start of the first `OpStmts` child of the (normalised) top-level
/// sequence, or in a new leading `OpStmts` when there is none (init-mem-ref, as the reference
/// does: spec §2.8 step 4, §6 Q15).
pub fn insert_first(body: &mut Stmt, allocs: Vec<Stmt>) {
    if allocs.is_empty() {
        return;
    }
    let span = body.span();
    let stmts = as_sequence(body);
    match stmts.iter_mut().find_map(|s| match s {
        Stmt::Ops { stmts, .. } => Some(stmts),
        _ => None,
    }) {
        Some(ops) => drop(ops.splice(0..0, allocs)),
        None => stmts.insert(0, Stmt::Ops { stmts: allocs, span }),
    }
}

/// Puts `allocs` right after the last alloc of the top-level sequence, whether that alloc stands
/// in the sequence or in one of its `OpStmts` (the grouping of statements is not part of the
/// program's text, so a program read back from its printout may group them differently), or
/// as [`insert_first`] does when the function has none.
pub fn insert_after_allocs(body: &mut Stmt, allocs: Vec<Stmt>) {
    if allocs.is_empty() {
        return;
    }
    let stmts = as_sequence(body);
    let mut last = None;
    for (i, s) in stmts.iter().enumerate() {
        match s {
            s if is_alloc(s) => last = Some((i, None)),
            Stmt::Ops { stmts: ops, .. } => {
                if let Some(j) = ops.iter().rposition(is_alloc) {
                    last = Some((i, Some(j)));
                }
            }
            _ => {}
        }
    }
    match last {
        Some((i, None)) => drop(stmts.splice(i + 1..i + 1, allocs)),
        Some((i, Some(j))) => {
            let Stmt::Ops { stmts: ops, .. } = &mut stmts[i] else { unreachable!("found an OpStmts above") };
            drop(ops.splice(j + 1..j + 1, allocs));
        }
        None => insert_first(body, allocs),
    }
}
