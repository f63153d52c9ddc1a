//! Types that cross from one function to another.
//!
//! A function owns its variables, so a type written in a callee's variables (a parameter or
//! result type naming a symbolic dimension `n`, or a MemRef in printed IR) means nothing in the
//! caller's table. A caller that takes such a type (a call's result type) imports it: each
//! variable the type names is replaced by a stand-in of the caller with the same name, type and
//! kind, one per foreign variable, so that two results of the same callee still have equal dims.

use super::{Expr, ExprKind, Type, VarId, VarKind, VarTable};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The stand-ins a function has made for the variables of one other function.
pub type Imported = FxHashMap<VarId, VarId>;

impl VarTable {
    /// `ty`, written in the variables of `from`, rewritten into this table's (see the module
    /// documentation). `memo` holds the stand-ins made for `from` so far. A type that names no
    /// variable (static shapes, no MemRef; nearly all) is returned as it is.
    pub fn import_type(&mut self, from: &VarTable, ty: &Type, memo: &mut Imported) -> Type {
        if !names_vars(ty) {
            return ty.clone();
        }
        let mut map = |v: VarId, this: &mut VarTable| -> VarId {
            if let Some(&u) = memo.get(&v) {
                return u;
            }
            let Some(d) = from.get(v) else { return v };
            let kind = match &d.kind {
                VarKind::MemRef(info) => VarKind::MemRef(info.clone()),
                _ => VarKind::Plain,
            };
            let u = this.new_var(d.name.clone(), d.ty.clone(), kind, d.span);
            memo.insert(v, u);
            u
        };
        self.map_type(ty, &mut map)
    }

    fn map_type(&mut self, ty: &Type, map: &mut impl FnMut(VarId, &mut VarTable) -> VarId) -> Type {
        match ty {
            Type::Tensor(t) => {
                let mut t = (**t).clone();
                t.shape = t.shape.iter().map(|e| self.map_expr(e, map)).collect();
                t.memref = t.memref.map(|m| map(m, self));
                if let Some(view) = &mut t.view {
                    view.stride = view.stride.iter().map(|e| self.map_expr(e, map)).collect();
                }
                Type::Tensor(Arc::new(t))
            }
            Type::Tile(t) => {
                let mut t = (**t).clone();
                t.shape = t.shape.iter().map(|e| self.map_expr(e, map)).collect();
                t.memref = t.memref.map(|m| map(m, self));
                if let Some(view) = &mut t.view {
                    view.valid_shape = view.valid_shape.iter().map(|e| self.map_expr(e, map)).collect();
                    view.stride = view.stride.iter().map(|e| self.map_expr(e, map)).collect();
                    view.start_offset = view.start_offset.as_ref().map(|e| Box::new(self.map_expr(e, map)));
                }
                Type::Tile(Arc::new(t))
            }
            Type::Tuple(items) => Type::Tuple(items.iter().map(|t| self.map_type(t, map)).collect()),
            Type::Unknown | Type::Scalar(_) | Type::MemRef => ty.clone(),
        }
    }

    fn map_expr(&mut self, e: &Expr, map: &mut impl FnMut(VarId, &mut VarTable) -> VarId) -> Expr {
        let kind = match &e.kind {
            ExprKind::Var(v) => ExprKind::Var(map(*v, self)),
            ExprKind::Call(c) => {
                let mut c = (**c).clone();
                c.args = c.args.iter().map(|a| self.map_expr(a, map)).collect();
                ExprKind::Call(Box::new(c))
            }
            ExprKind::MakeTuple(items) => ExprKind::MakeTuple(items.iter().map(|a| self.map_expr(a, map)).collect()),
            ExprKind::TupleGetItem(t, i) => ExprKind::TupleGetItem(Box::new(self.map_expr(t, map)), *i),
            ExprKind::Binary(op, l, r) => {
                ExprKind::Binary(*op, Box::new(self.map_expr(l, map)), Box::new(self.map_expr(r, map)))
            }
            ExprKind::Unary(op, x) => ExprKind::Unary(*op, Box::new(self.map_expr(x, map))),
            ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => e.kind.clone(),
        };
        Expr { kind, ty: self.map_type(&e.ty, map), span: e.span }
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
    use crate::ir::{DataType, Span, TensorType};

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
}
