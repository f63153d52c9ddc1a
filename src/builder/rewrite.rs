//! Replacing the uses of one variable by another inside a loop body, when `exit_for` turns a
//! value rebound in the body into a loop-carried one (the body then reads the iter arg).
//!
//! `ir::visit` only offers read-only walks; this is the one mutable walk the builder needs.
//! It visits the same places: every statement's expressions, nested bodies, and the init
//! values of iter args defined inside the body (which live in the variable table).

use crate::ir::{Expr, ExprKind, Stmt, VarId, VarKind, VarTable};

/// Replaces every use of `from` by `to` in `stmts` (and in the init values of iter args that
/// `stmts` define).
pub(super) fn replace_uses(vars: &mut VarTable, stmts: &mut [Stmt], from: VarId, to: VarId) {
    let mut nested_iter_args = Vec::new();
    for s in stmts {
        stmt(s, from, to, &mut nested_iter_args);
    }
    for a in nested_iter_args {
        if let VarKind::IterArg { init } = &mut vars.var_mut(a).kind {
            expr(init, from, to);
        }
    }
}

pub(super) fn expr(e: &mut Expr, from: VarId, to: VarId) {
    match &mut e.kind {
        ExprKind::Var(v) if *v == from => *v = to,
        ExprKind::Var(_) | ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => {}
        ExprKind::Call(c) => c.args.iter_mut().for_each(|a| expr(a, from, to)),
        ExprKind::MakeTuple(items) => items.iter_mut().for_each(|a| expr(a, from, to)),
        ExprKind::TupleGetItem(t, _) => expr(t, from, to),
        ExprKind::Binary(_, l, r) => {
            expr(l, from, to);
            expr(r, from, to);
        }
        ExprKind::Unary(_, x) => expr(x, from, to),
    }
}

fn stmt(s: &mut Stmt, from: VarId, to: VarId, iter_args: &mut Vec<VarId>) {
    match s {
        Stmt::Assign { value, .. } => expr(value, from, to),
        Stmt::Eval { expr: e, .. } => expr(e, from, to),
        Stmt::Yield { values, .. } | Stmt::Return { values, .. } => values.iter_mut().for_each(|v| expr(v, from, to)),
        Stmt::If { cond, then_body, else_body, .. } => {
            expr(cond, from, to);
            stmt(then_body, from, to, iter_args);
            if let Some(e) = else_body {
                stmt(e, from, to, iter_args);
            }
        }
        Stmt::For { start, stop, step, iter_args: ia, body, .. } => {
            expr(start, from, to);
            expr(stop, from, to);
            expr(step, from, to);
            iter_args.extend(ia.iter().copied());
            stmt(body, from, to, iter_args);
        }
        Stmt::While { cond, iter_args: ia, body, .. } => {
            expr(cond, from, to);
            iter_args.extend(ia.iter().copied());
            stmt(body, from, to, iter_args);
        }
        Stmt::Scope { body, .. } => stmt(body, from, to, iter_args),
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
            stmts.iter_mut().for_each(|c| stmt(c, from, to, iter_args))
        }
        Stmt::Break { .. } | Stmt::Continue { .. } => {}
    }
}
