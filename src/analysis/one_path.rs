//! What a name bound on only one path of an `if` is on the other path.
//!
//! A tensor that an op writes in place and returns (a store's result is its destination,
//! [`OpDef::written_arg`](crate::ops::OpDef::written_arg)) is that destination: on the path
//! that does not store, the name bound to the store's result is the destination tensor, as the
//! reference's SSA and its C++ (which only ever names the destination) mean it. PyPTO's own
//! kernels rely on this (`if is_last: out = pl.store(t, …, dst)` … `return out`).
//! convert-to-ssa uses it for the phi of such a name, the interpreter for the path it skips;
//! any other value bound on one path only has no value on the other.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::{Callee, Expr, ExprKind, Stmt, Type, VarId, VarTable};

/// Every variable `branch` defines whose value is, through in-place writes (stores, plain
/// copies of a tensor, `if` results that are the same tensor on both paths), a tensor defined
/// outside `branch`: that tensor.
pub fn written_outside(branch: &Stmt, vars: &VarTable) -> FxHashMap<VarId, VarId> {
    let mut w = Walk { vars, roots: FxHashMap::default(), defined: FxHashSet::default() };
    w.stmt(branch);
    let Walk { roots, defined, .. } = w;
    roots.into_iter().filter(|(_, r)| !defined.contains(r)).collect()
}

struct Walk<'v> {
    vars: &'v VarTable,
    roots: FxHashMap<VarId, VarId>,
    defined: FxHashSet<VarId>,
}

impl Walk<'_> {
    fn root(&self, v: VarId) -> VarId {
        self.roots.get(&v).copied().unwrap_or(v)
    }

    /// The tensor `e` is, when it is a tensor variable.
    fn tensor(&self, e: &Expr) -> Option<VarId> {
        let v = e.as_var()?;
        matches!(self.vars.var_type(v), Type::Tensor(_)).then(|| self.root(v))
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { var, value, .. } => {
                self.defined.insert(*var);
                if !matches!(self.vars.var_type(*var), Type::Tensor(_)) {
                    return;
                }
                let root = match &value.kind {
                    ExprKind::Call(c) => match c.callee {
                        Callee::Op(op) => {
                            crate::ops::def(op).written_arg().and_then(|k| c.args.get(k)).and_then(|a| self.tensor(a))
                        }
                        _ => None,
                    },
                    ExprKind::Var(_) => self.tensor(value),
                    _ => None,
                };
                if let Some(r) = root {
                    self.roots.insert(*var, r);
                }
            }
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|c| self.stmt(c)),
            Stmt::Scope { body, .. } => self.stmt(body),
            Stmt::If { then_body, else_body, return_vars, .. } => {
                self.stmt(then_body);
                if let Some(e) = else_body {
                    self.stmt(e);
                }
                self.defined.extend(return_vars.iter().copied());
                let (Some(t), Some(e)) = (trailing_yield(then_body), else_body.as_deref().and_then(trailing_yield))
                else {
                    return;
                };
                for ((rv, tv), ev) in return_vars.iter().zip(t).zip(e) {
                    if let (Some(a), Some(b)) = (self.tensor(tv), self.tensor(ev)) {
                        if a == b {
                            self.roots.insert(*rv, a);
                        }
                    }
                }
            }
            Stmt::For { loop_var, iter_args, body, return_vars, .. } => {
                self.defined.insert(*loop_var);
                self.defined.extend(iter_args.iter().chain(return_vars).copied());
                self.stmt(body);
            }
            Stmt::While { iter_args, body, return_vars, .. } => {
                self.defined.extend(iter_args.iter().chain(return_vars).copied());
                self.stmt(body);
            }
            Stmt::Yield { .. }
            | Stmt::Return { .. }
            | Stmt::Eval { .. }
            | Stmt::Break { .. }
            | Stmt::Continue { .. } => {}
        }
    }
}

/// The values of the yield that ends `body` (itself, or the last statement of a sequence).
fn trailing_yield(body: &Stmt) -> Option<&[Expr]> {
    match body {
        Stmt::Yield { values, .. } => Some(values),
        Stmt::Seq { stmts, .. } => stmts.last().and_then(trailing_yield),
        _ => None,
    }
}
