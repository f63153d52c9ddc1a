//! IR that crosses from one function to another.
//!
//! A function owns its variables, so IR written in one function's table means nothing in
//! another's. Two things move:
//! - **A type into a caller** ([`VarTable::import_type`]): a call's result type is written in the
//!   callee's variables (a symbolic dimension `n`, a MemRef in printed IR). Each variable it names
//!   gets a stand-in in the caller with the same name, type and kind, one per foreign variable,
//!   so that two results of the same callee still have equal dims.
//! - **Statements into a new function** ([`VarTable::extract`]): an outlined scope's body keeps
//!   the ids of its parent's table until the new function gets a table of its own, holding only
//!   the variables the function mentions, renumbered in their old order.
//!
//! Both rewrite every variable id of the IR through [`type_vars_mut`], [`expr_vars_mut`] and
//! [`stmt_vars_mut`], which reach the ids in expressions' types too.

use super::{Expr, ExprKind, Param, Stmt, Type, VarData, VarId, VarKind, VarTable};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The stand-ins a function has made for the variables of one other function.
pub type Imported = FxHashMap<VarId, VarId>;

impl VarTable {
    /// `ty`, written in the variables of `from`, rewritten into this table's (see the module
    /// documentation). `memo` holds the stand-ins made for `from` so far. A type that names no
    /// variable (static shapes, no MemRef; nearly all) is returned as it is.
    pub fn import_type(&mut self, from: &VarTable, ty: &Type, memo: &mut Imported) -> Type {
        let mut ty = ty.clone();
        type_vars_mut(&mut ty, &mut |v| {
            *v = match memo.get(v) {
                Some(&u) => u,
                None => {
                    let Some(d) = from.get(*v) else { return };
                    let kind = match &d.kind {
                        VarKind::MemRef(info) => VarKind::MemRef(info.clone()),
                        _ => VarKind::Plain,
                    };
                    let u = self.new_var(d.name.clone(), d.ty.clone(), kind, d.span);
                    memo.insert(*v, u);
                    u
                }
            }
        });
        ty
    }

    /// The table of a function made of IR written in this table's ids (an outlined scope): the
    /// variables that `params`, `body` and `return_types` mention, with those their types and
    /// kinds mention in turn, renumbered in their order here; the ids of the IR are rewritten to
    /// the new table's.
    pub fn extract(&self, params: &mut [Param], body: &mut Stmt, return_types: &mut [Type]) -> VarTable {
        let mut seen = std::collections::BTreeSet::new();
        let mut note = |v: &mut VarId| {
            seen.insert(*v);
        };
        params.iter_mut().for_each(|p| note(&mut p.var));
        stmt_vars_mut(body, &mut note);
        return_types.iter_mut().for_each(|t| type_vars_mut(t, &mut note));
        // What the variables' types and kinds mention (a dim, a MemRef, an iter arg's init).
        let mut todo: Vec<VarId> = seen.iter().copied().collect();
        while let Some(v) = todo.pop() {
            let Some(mut d) = self.get(v).cloned() else { continue };
            data_vars_mut(&mut d, &mut |u| {
                if seen.insert(*u) {
                    todo.push(*u);
                }
            });
        }
        let map: BTreeMap<VarId, VarId> = seen.iter().enumerate().map(|(k, &v)| (v, VarId(k as u32))).collect();
        let mut rename = |v: &mut VarId| {
            if let Some(&u) = map.get(v) {
                *v = u;
            }
        };
        let mut out = VarTable::new();
        out.reserve(map.len());
        for &v in map.keys() {
            // Every id below `len` was given out by this table, so each entry exists; a dangling
            // id (malformed IR) gets a placeholder, as it would print.
            let mut d = self.get(v).cloned().unwrap_or_else(|| VarData {
                name: "<invalid var>".into(),
                ty: Type::Unknown,
                kind: VarKind::Plain,
                span: super::Span::NONE,
            });
            data_vars_mut(&mut d, &mut rename);
            out.new_var(d.name, d.ty, d.kind, d.span);
        }
        params.iter_mut().for_each(|p| rename(&mut p.var));
        stmt_vars_mut(body, &mut rename);
        return_types.iter_mut().for_each(|t| type_vars_mut(t, &mut rename));
        out
    }
}

/// Every variable id of a variable's type and kind.
fn data_vars_mut(d: &mut VarData, f: &mut impl FnMut(&mut VarId)) {
    type_vars_mut(&mut d.ty, f);
    match &mut d.kind {
        VarKind::Plain => {}
        VarKind::IterArg { init } => expr_vars_mut(init, f),
        VarKind::MemRef(info) => expr_vars_mut(&mut info.addr, f),
    }
}

/// Calls `f` on every variable id of `ty` (dims, strides, offsets, MemRefs). A shared type that
/// names no variable is left shared.
pub fn type_vars_mut(ty: &mut Type, f: &mut impl FnMut(&mut VarId)) {
    if !names_vars(ty) {
        return;
    }
    match ty {
        Type::Tensor(t) => {
            let t = Arc::make_mut(t);
            t.shape.iter_mut().for_each(|e| expr_vars_mut(e, f));
            if let Some(m) = &mut t.memref {
                f(m);
            }
            if let Some(view) = &mut t.view {
                view.stride.iter_mut().for_each(|e| expr_vars_mut(e, f));
            }
        }
        Type::Tile(t) => {
            let t = Arc::make_mut(t);
            t.shape.iter_mut().for_each(|e| expr_vars_mut(e, f));
            if let Some(m) = &mut t.memref {
                f(m);
            }
            if let Some(view) = &mut t.view {
                view.valid_shape.iter_mut().for_each(|e| expr_vars_mut(e, f));
                view.stride.iter_mut().for_each(|e| expr_vars_mut(e, f));
                if let Some(e) = &mut view.start_offset {
                    expr_vars_mut(e, f);
                }
            }
        }
        Type::Tuple(items) => items.iter_mut().for_each(|t| type_vars_mut(t, f)),
        Type::Unknown | Type::Scalar(_) | Type::MemRef => {}
    }
}

/// Calls `f` on every variable id of `e`, its sub-expressions and their types.
pub fn expr_vars_mut(e: &mut Expr, f: &mut impl FnMut(&mut VarId)) {
    type_vars_mut(&mut e.ty, f);
    match &mut e.kind {
        ExprKind::Var(v) => f(v),
        ExprKind::Call(c) => c.args.iter_mut().for_each(|a| expr_vars_mut(a, f)),
        ExprKind::MakeTuple(items) => items.iter_mut().for_each(|a| expr_vars_mut(a, f)),
        ExprKind::TupleGetItem(t, _) | ExprKind::Unary(_, t) => expr_vars_mut(t, f),
        ExprKind::Binary(_, l, r) => {
            expr_vars_mut(l, f);
            expr_vars_mut(r, f);
        }
        ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => {}
    }
}

/// Calls `f` on every variable id `s` holds: defined (assignment targets, loop vars, iter args,
/// return vars) and used (in its expressions and their types), nested statements included.
pub fn stmt_vars_mut(s: &mut Stmt, f: &mut impl FnMut(&mut VarId)) {
    match s {
        Stmt::Assign { var, value, .. } => {
            f(var);
            expr_vars_mut(value, f);
        }
        Stmt::If { cond, then_body, else_body, return_vars, .. } => {
            expr_vars_mut(cond, f);
            stmt_vars_mut(then_body, f);
            if let Some(e) = else_body {
                stmt_vars_mut(e, f);
            }
            return_vars.iter_mut().for_each(&mut *f);
        }
        Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, .. } => {
            f(loop_var);
            for e in [start, stop, step] {
                expr_vars_mut(e, f);
            }
            iter_args.iter_mut().for_each(&mut *f);
            stmt_vars_mut(body, f);
            return_vars.iter_mut().for_each(&mut *f);
        }
        Stmt::While { cond, iter_args, body, return_vars, .. } => {
            expr_vars_mut(cond, f);
            iter_args.iter_mut().for_each(&mut *f);
            stmt_vars_mut(body, f);
            return_vars.iter_mut().for_each(&mut *f);
        }
        Stmt::Scope { body, .. } => stmt_vars_mut(body, f),
        Stmt::Yield { values, .. } | Stmt::Return { values, .. } => values.iter_mut().for_each(|e| expr_vars_mut(e, f)),
        Stmt::Eval { expr, .. } => expr_vars_mut(expr, f),
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter_mut().for_each(|c| stmt_vars_mut(c, f)),
        Stmt::Break { .. } | Stmt::Continue { .. } => {}
    }
}

/// Whether `ty` names a variable anywhere (a dim, a stride, an offset, a MemRef).
pub fn names_vars(ty: &Type) -> bool {
    let exprs_name = |es: &[Expr]| es.iter().any(expr_names_vars);
    match ty {
        Type::Tensor(t) => {
            t.memref.is_some() || exprs_name(&t.shape) || t.view.as_ref().is_some_and(|v| exprs_name(&v.stride))
        }
        Type::Tile(t) => {
            t.memref.is_some()
                || exprs_name(&t.shape)
                || t.view.as_ref().is_some_and(|v| {
                    exprs_name(&v.valid_shape)
                        || exprs_name(&v.stride)
                        || v.start_offset.as_deref().is_some_and(expr_names_vars)
                })
        }
        Type::Tuple(items) => items.iter().any(names_vars),
        Type::Unknown | Type::Scalar(_) | Type::MemRef => false,
    }
}

fn expr_names_vars(e: &Expr) -> bool {
    let mut found = false;
    super::visit::walk_expr(e, &mut |x| found |= matches!(x.kind, ExprKind::Var(_)) || names_vars(&x.ty));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DataType, ParamDirection, Span, TensorType};

    fn tensor(dims: Vec<Expr>) -> Type {
        Type::tensor(TensorType { dtype: DataType::Fp32, shape: dims, memref: None, view: None })
    }

    /// A callee's symbolic dim becomes one stand-in of the caller, with the callee's name,
    /// shared by every import of a type naming it; a static type is returned unchanged.
    #[test]
    fn symbolic_dims_get_one_stand_in() {
        let mut callee = VarTable::new();
        let n = callee.new_var("n", Type::Scalar(DataType::Int64), VarKind::Plain, Span::NONE);
        let mut caller = VarTable::new();
        caller.new_var("x", Type::Scalar(DataType::Int64), VarKind::Plain, Span::NONE);
        let ty = tensor(vec![Expr::var(n, Span::NONE), Expr::int(64, DataType::Int64, Span::NONE)]);
        let mut memo = Imported::default();
        let a = caller.import_type(&callee, &ty, &mut memo);
        let b = caller.import_type(&callee, &ty, &mut memo);
        assert_eq!(a, b);
        let Some(ExprKind::Var(stand_in)) = a.shape().map(|s| s[0].kind.clone()) else { panic!("a dim var") };
        assert_ne!(stand_in, n);
        assert_eq!(caller.var_name(stand_in), "n");
        assert_eq!(caller.len(), 2);
        let fixed = tensor(vec![Expr::int(8, DataType::Int64, Span::NONE)]);
        assert_eq!(caller.import_type(&callee, &fixed, &mut memo), fixed);
        assert_eq!(caller.len(), 2);
    }

    /// An extracted table holds only what the IR mentions (through types and iter-arg inits
    /// too), in the old order, and the IR's ids are rewritten to it.
    #[test]
    fn extraction_keeps_what_is_mentioned_in_order() {
        let s = Span::NONE;
        let mut t = VarTable::new();
        let _unused = t.new_var("unused", Type::Scalar(DataType::Int64), VarKind::Plain, s);
        let n = t.new_var("n", Type::Scalar(DataType::Int64), VarKind::Plain, s);
        let x = t.new_var("x", tensor(vec![Expr::var(n, s)]), VarKind::Plain, s);
        let _also_unused = t.new_var("junk", Type::Unknown, VarKind::Plain, s);
        let acc =
            t.new_var("acc", Type::Scalar(DataType::Int64), VarKind::IterArg { init: Box::new(Expr::var(n, s)) }, s);
        let y = t.new_var("y", tensor(vec![Expr::var(n, s)]), VarKind::Plain, s);
        let mut params = vec![Param { var: x, direction: ParamDirection::In }];
        let mut body = Stmt::Seq {
            stmts: vec![
                Stmt::Assign { var: y, value: Expr::var(x, s), span: s },
                Stmt::Eval { expr: Expr::var(acc, s), span: s },
            ],
            span: s,
        };
        let mut returns = vec![tensor(vec![Expr::var(n, s)])];
        let out = t.extract(&mut params, &mut body, &mut returns);
        let names: Vec<&str> = out.iter().map(|(_, d)| d.name.as_str()).collect();
        assert_eq!(names, ["n", "x", "acc", "y"]);
        assert_eq!(params[0].var, VarId(1));
        let Stmt::Seq { stmts, .. } = &body else { panic!("seq") };
        assert!(matches!(&stmts[0], Stmt::Assign { var: VarId(3), value, .. } if value.as_var() == Some(VarId(1))));
        assert_eq!(out.var_type(VarId(1)), &tensor(vec![Expr::var(VarId(0), s)]));
        assert!(matches!(&out.var(VarId(2)).kind, VarKind::IterArg { init } if init.as_var() == Some(VarId(0))));
        assert_eq!(returns[0], tensor(vec![Expr::var(VarId(0), s)]));
    }
}
