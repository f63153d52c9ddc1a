//! Read-only traversal helpers over statements and expressions, shared by the verifiers and the
//! passes so that "what are the children of this node" is written once.
//!
//! Orders follow the reference's visitor (`IRVisitor`): an `if` yields its then branch before its
//! else branch; a `for` yields `start`, `stop`, `step`; a call yields its arguments in order.
//! Nothing here looks into the variable table: the init values of iter args
//! ([`VarKind::IterArg`](super::VarKind)) and the dims of variable types are not visited.

use super::{Expr, ExprKind, Stmt, VarId};

/// The direct sub-statements of `s`, in order (sequence elements; then/else branches; loop and
/// scope bodies). Leaves (assign, eval, yield, return, break, continue) have none.
pub fn child_stmts(s: &Stmt) -> impl Iterator<Item = &Stmt> {
    let (first, second): (&[Stmt], Option<&Stmt>) = match s {
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => (stmts, None),
        Stmt::If { then_body, else_body, .. } => (std::slice::from_ref(&**then_body), else_body.as_deref()),
        Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Scope { body, .. } => {
            (std::slice::from_ref(&**body), None)
        }
        Stmt::Assign { .. }
        | Stmt::Yield { .. }
        | Stmt::Return { .. }
        | Stmt::Eval { .. }
        | Stmt::Break { .. }
        | Stmt::Continue { .. } => (&[], None),
    };
    first.iter().chain(second)
}

/// Calls `f` on `s` and every statement nested in it, parents before children (pre-order).
pub fn walk_stmts<'a>(s: &'a Stmt, f: &mut impl FnMut(&'a Stmt)) {
    f(s);
    for c in child_stmts(s) {
        walk_stmts(c, f);
    }
}

/// The expressions held directly by statement `s` (not those of nested statements): an assign's
/// value, an if/while condition, a for's `start`/`stop`/`step`, yield/return values, an eval's
/// expression. Iter-arg init values live in the variable table and are not included.
pub fn stmt_exprs(s: &Stmt) -> impl Iterator<Item = &Expr> {
    let (fixed, rest): ([Option<&Expr>; 3], &[Expr]) = match s {
        Stmt::Assign { value, .. } => ([Some(value), None, None], &[]),
        Stmt::If { cond, .. } | Stmt::While { cond, .. } => ([Some(cond), None, None], &[]),
        Stmt::For { start, stop, step, .. } => ([Some(start), Some(stop), Some(step)], &[]),
        Stmt::Eval { expr, .. } => ([Some(expr), None, None], &[]),
        Stmt::Yield { values, .. } | Stmt::Return { values, .. } => ([None, None, None], values),
        Stmt::Scope { .. } | Stmt::Seq { .. } | Stmt::Ops { .. } | Stmt::Break { .. } | Stmt::Continue { .. } => {
            ([None, None, None], &[])
        }
    };
    fixed.into_iter().flatten().chain(rest)
}

/// The direct sub-expressions of `e`, in order (call arguments, tuple elements, the tuple of a
/// `TupleGetItem`, binary operands left then right, a unary operand).
pub fn child_exprs(e: &Expr) -> impl Iterator<Item = &Expr> {
    let (fixed, rest): ([Option<&Expr>; 2], &[Expr]) = match &e.kind {
        ExprKind::Call(c) => ([None, None], &c.args),
        ExprKind::MakeTuple(items) => ([None, None], items),
        ExprKind::TupleGetItem(t, _) => ([Some(t), None], &[]),
        ExprKind::Binary(_, l, r) => ([Some(l), Some(r)], &[]),
        ExprKind::Unary(_, x) => ([Some(x), None], &[]),
        ExprKind::Var(_) | ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => {
            ([None, None], &[])
        }
    };
    fixed.into_iter().flatten().chain(rest)
}

/// Calls `f` on `e` and every expression nested in it, parents before children (pre-order).
pub fn walk_expr<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    f(e);
    for c in child_exprs(e) {
        walk_expr(c, f);
    }
}

/// Calls `f` on every variable used in `e`, in pre-order: what [`walk_expr`] meets as
/// `ExprKind::Var` nodes, with a direct match instead of a closure call per node (the passes
/// that only look at variables call this once per statement).
pub fn for_each_var(e: &Expr, f: &mut impl FnMut(VarId)) {
    match &e.kind {
        ExprKind::Var(v) => f(*v),
        ExprKind::Call(c) => c.args.iter().for_each(|a| for_each_var(a, f)),
        ExprKind::MakeTuple(items) => items.iter().for_each(|a| for_each_var(a, f)),
        ExprKind::TupleGetItem(t, _) | ExprKind::Unary(_, t) => for_each_var(t, f),
        ExprKind::Binary(_, l, r) => {
            for_each_var(l, f);
            for_each_var(r, f);
        }
        ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => {}
    }
}

/// Calls `f` on every expression held by `s` or by statements nested in it, with their
/// sub-expressions (statements in pre-order, each statement's expressions in
/// [`stmt_exprs`] order, each expression in pre-order).
pub fn walk_all_exprs<'a>(s: &'a Stmt, f: &mut impl FnMut(&'a Expr)) {
    walk_stmts(s, &mut |st| {
        for e in stmt_exprs(st) {
            walk_expr(e, f);
        }
    });
}

/// The variables that `s` itself defines (its Def fields, spec §2.5): an assign's var; an if's
/// return vars; a for's loop var, iter args and return vars; a while's iter args and return vars.
pub fn defined_vars(s: &Stmt) -> impl Iterator<Item = VarId> + '_ {
    let (single, lists): (Option<VarId>, [&[VarId]; 2]) = match s {
        Stmt::Assign { var, .. } => (Some(*var), [&[], &[]]),
        Stmt::If { return_vars, .. } => (None, [&[], return_vars]),
        Stmt::For { loop_var, iter_args, return_vars, .. } => (Some(*loop_var), [iter_args, return_vars]),
        Stmt::While { iter_args, return_vars, .. } => (None, [iter_args, return_vars]),
        _ => (None, [&[], &[]]),
    };
    single.into_iter().chain(lists.into_iter().flatten().copied())
}

/// Calls `f` on the variables defined by `s` and by every statement nested in it: what
/// [`walk_stmts`] with [`defined_vars`] meets, in the same order, with a direct match per
/// statement instead of iterator adapters (for the passes that walk every statement).
pub fn walk_defined_vars(s: &Stmt, f: &mut impl FnMut(VarId)) {
    match s {
        Stmt::Assign { var, .. } => f(*var),
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|c| walk_defined_vars(c, f)),
        Stmt::If { then_body, else_body, return_vars, .. } => {
            return_vars.iter().for_each(|v| f(*v));
            walk_defined_vars(then_body, f);
            if let Some(e) = else_body {
                walk_defined_vars(e, f);
            }
        }
        Stmt::For { loop_var, iter_args, return_vars, body, .. } => {
            f(*loop_var);
            iter_args.iter().chain(return_vars).for_each(|v| f(*v));
            walk_defined_vars(body, f);
        }
        Stmt::While { iter_args, return_vars, body, .. } => {
            iter_args.iter().chain(return_vars).for_each(|v| f(*v));
            walk_defined_vars(body, f);
        }
        Stmt::Scope { body, .. } => walk_defined_vars(body, f),
        Stmt::Yield { .. } | Stmt::Return { .. } | Stmt::Eval { .. } | Stmt::Break { .. } | Stmt::Continue { .. } => {}
    }
}

/// The statement that ends `s`: descends into the last element of trailing `SeqStmts` only
/// (like the reference's `GetLastStmt`); an empty sequence is its own last statement.
pub fn last_stmt(s: &Stmt) -> &Stmt {
    match s {
        Stmt::Seq { stmts, .. } => stmts.last().map_or(s, last_stmt),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DataType, Span, Type};

    fn int(v: i64) -> Expr {
        Expr::int(v, DataType::Int64, Span::NONE)
    }

    #[test]
    fn last_stmt_descends_trailing_seqs_only() {
        let y = Stmt::Yield { values: vec![int(1)], span: Span::NONE };
        let inner = Stmt::Seq { stmts: vec![Stmt::Break { span: Span::NONE }, y.clone()], span: Span::NONE };
        let outer = Stmt::Seq { stmts: vec![Stmt::Continue { span: Span::NONE }, inner], span: Span::NONE };
        assert!(matches!(last_stmt(&outer), Stmt::Yield { .. }));
        let scoped = Stmt::Scope { kind: crate::ir::ScopeKind::InCore, body: Box::new(y), span: Span::NONE };
        assert!(matches!(last_stmt(&scoped), Stmt::Scope { .. }));
        let empty = Stmt::empty();
        assert!(matches!(last_stmt(&empty), Stmt::Seq { .. }));
    }

    /// `for v0, (v1,) in range(0, 8, 1)` with return var v2 around `body`.
    fn counted_for(body: Stmt) -> Stmt {
        Stmt::For {
            loop_var: VarId(0),
            start: Box::new(int(0)),
            stop: Box::new(int(8)),
            step: Box::new(int(1)),
            iter_args: vec![VarId(1)],
            body: Box::new(body),
            return_vars: vec![VarId(2)],
            kind: crate::ir::ForKind::Sequential,
            span: Span::NONE,
        }
    }

    #[test]
    fn walks_in_reference_order() {
        let s = counted_for(Stmt::Yield { values: vec![int(5)], span: Span::NONE });
        let mut seen = Vec::new();
        walk_all_exprs(&s, &mut |e| seen.push(e.as_const_int().unwrap()));
        assert_eq!(seen, vec![0, 8, 1, 5]);
        assert_eq!(defined_vars(&s).collect::<Vec<_>>(), vec![VarId(0), VarId(1), VarId(2)]);
    }

    #[test]
    fn walk_defined_vars_meets_what_walk_stmts_with_defined_vars_meets() {
        let assign = |v: u32| Stmt::Assign { var: VarId(v), value: int(0), span: Span::NONE };
        let body = Stmt::Seq {
            stmts: vec![
                assign(3),
                Stmt::If {
                    cond: Box::new(int(1)),
                    then_body: Box::new(assign(4)),
                    else_body: Some(Box::new(Stmt::Scope {
                        kind: crate::ir::ScopeKind::InCore,
                        body: Box::new(assign(5)),
                        span: Span::NONE,
                    })),
                    return_vars: vec![VarId(6)],
                    span: Span::NONE,
                },
                Stmt::While {
                    cond: Box::new(int(1)),
                    iter_args: vec![VarId(7)],
                    body: Box::new(Stmt::Ops { stmts: vec![assign(8)], span: Span::NONE }),
                    return_vars: vec![VarId(9)],
                    span: Span::NONE,
                },
            ],
            span: Span::NONE,
        };
        let s = counted_for(body);
        let mut walked = Vec::new();
        walk_stmts(&s, &mut |st| walked.extend(defined_vars(st)));
        let mut direct = Vec::new();
        walk_defined_vars(&s, &mut |v| direct.push(v.0));
        assert_eq!(direct, vec![0, 1, 2, 3, 6, 4, 5, 7, 9, 8]);
        assert_eq!(direct, walked.iter().map(|v| v.0).collect::<Vec<_>>());
    }

    #[test]
    fn for_each_var_meets_the_var_nodes_of_walk_expr() {
        use crate::ir::{BinOp, Call, Callee, OpId, UnOp};
        let v = |i: u32| Expr::var(VarId(i), Span::NONE);
        let bin = |l: Expr, r: Expr| {
            Expr::new(ExprKind::Binary(BinOp::Add, Box::new(l), Box::new(r)), Type::Unknown, Span::NONE)
        };
        let tuple = Expr::new(ExprKind::MakeTuple(vec![v(3), int(2), v(4)]), Type::Unknown, Span::NONE);
        let get = Expr::new(ExprKind::TupleGetItem(Box::new(tuple), 0), Type::Unknown, Span::NONE);
        let neg = Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(v(5))), Type::Unknown, Span::NONE);
        let call =
            Call { callee: Callee::Op(OpId(0)), args: vec![bin(v(1), v(2)), get, neg, v(1)], kwargs: Vec::new() };
        let e = Expr::new(ExprKind::Call(Box::new(call)), Type::Unknown, Span::NONE);
        let mut walked = Vec::new();
        walk_expr(&e, &mut |x| walked.extend(x.as_var()));
        let mut direct = Vec::new();
        for_each_var(&e, &mut |x| direct.push(x));
        assert_eq!(direct, vec![VarId(1), VarId(2), VarId(3), VarId(4), VarId(5), VarId(1)]);
        assert_eq!(direct, walked);
    }
}

/// Which kind of body [`map_bodies`] hands to its function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// An if's then or else branch.
    Branch,
    /// A for or while body.
    Loop,
    /// A scope's body.
    Scope,
}

/// Rebuilds an if/for/while/scope with each body replaced by `f(body, kind)` (then before
/// else); any other statement is returned unchanged. The rewriting passes use it so that each
/// says only what it does to bodies.
pub fn map_bodies(s: Stmt, mut f: impl FnMut(Stmt, BodyKind) -> Stmt) -> Stmt {
    match s {
        Stmt::If { cond, then_body, else_body, return_vars, span } => Stmt::If {
            cond,
            then_body: Box::new(f(*then_body, BodyKind::Branch)),
            else_body: else_body.map(|e| Box::new(f(*e, BodyKind::Branch))),
            return_vars,
            span,
        },
        Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, span } => Stmt::For {
            loop_var,
            start,
            stop,
            step,
            iter_args,
            body: Box::new(f(*body, BodyKind::Loop)),
            return_vars,
            kind,
            span,
        },
        Stmt::While { cond, iter_args, body, return_vars, span } => {
            Stmt::While { cond, iter_args, body: Box::new(f(*body, BodyKind::Loop)), return_vars, span }
        }
        Stmt::Scope { kind, body, span } => Stmt::Scope { kind, body: Box::new(f(*body, BodyKind::Scope)), span },
        other => other,
    }
}
