//! The access window of each tensor parameter (spec `passes-and-codegen.md` §6.1 Q22): a
//! kernel's GlobalTensor `Shape<…>` is the shape of the first `block.load` / `block.store` /
//! `block.l0c_store` made on the parameter — directly, or through a variable that aliases it
//! (an iter_arg it initialises, a store result, a for/if return value). pto-isa's TLOAD/TSTORE
//! check the tile against this shape, so the whole tensor's shape would be wrong for a tiled
//! access.

use std::collections::BTreeMap;

use crate::ir::{Call, Callee, ExprKind, Function, Stmt, VarId, VarKind, VarTable};
use crate::ops::cce::CceEmit;

/// Parameter → window (the `shapes` argument of its first access). Parameters without an
/// access, or whose first access has non-constant shapes, are absent.
pub fn windows(f: &Function) -> BTreeMap<VarId, Vec<i64>> {
    let vars = &f.vars;
    let mut w = Walk { vars, root: BTreeMap::new(), windows: BTreeMap::new() };
    for p in &f.params {
        w.root.insert(p.var, p.var);
    }
    w.stmt(&f.body);
    w.windows.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))).collect()
}

struct Walk<'p> {
    vars: &'p VarTable,
    /// Variable → the parameter whose GlobalTensor it names.
    root: BTreeMap<VarId, VarId>,
    windows: BTreeMap<VarId, Option<Vec<i64>>>,
}

impl Walk<'_> {
    fn alias(&mut self, var: VarId, of: Option<VarId>) {
        if let Some(r) = of.and_then(|v| self.root.get(&v).copied()) {
            self.root.insert(var, r);
        }
    }

    /// A call assigned to `var` (none for a statement): a load or store records its window.
    fn access(&mut self, var: Option<VarId>, c: &Call) {
        let Callee::Op(op) = c.callee else { return };
        let tensor_arg = match crate::ops::def(op).cce {
            Some(CceEmit::Load) => 0,
            Some(CceEmit::Store) => 3,
            _ => return,
        };
        let Some(t) = c.args.get(tensor_arg).and_then(|a| a.as_var()) else { return };
        if let (3, Some(var)) = (tensor_arg, var) {
            self.alias(var, Some(t));
        }
        if let Some(&r) = self.root.get(&t) {
            let shape = c.args.get(2).and_then(|e| match &e.kind {
                ExprKind::MakeTuple(xs) => xs.iter().map(|x| x.as_const_int()).collect::<Option<Vec<i64>>>(),
                _ => None,
            });
            self.windows.entry(r).or_insert(shape);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { var, value, .. } => match &value.kind {
                ExprKind::Call(c) => self.access(Some(*var), c),
                _ => self.alias(*var, value.as_var()),
            },
            // A store written as a statement (an outlined kernel's `pl.store(...)`) is an
            // access like an assigned one.
            Stmt::Eval { expr, .. } => {
                if let ExprKind::Call(c) = &expr.kind {
                    self.access(None, c);
                }
            }
            Stmt::For { iter_args, body, return_vars, .. } | Stmt::While { iter_args, body, return_vars, .. } => {
                for &a in iter_args {
                    if let VarKind::IterArg { init } = &self.vars.var(a).kind {
                        self.alias(a, init.as_var());
                    }
                }
                self.stmt(body);
                for (&rv, &a) in return_vars.iter().zip(iter_args) {
                    self.alias(rv, Some(a));
                }
            }
            Stmt::If { then_body, else_body, return_vars, .. } => {
                self.stmt(then_body);
                if let Some(e) = else_body {
                    self.stmt(e);
                }
                if let Stmt::Yield { values, .. } = crate::ir::visit::last_stmt(then_body) {
                    for (&rv, v) in return_vars.iter().zip(values) {
                        self.alias(rv, v.as_var());
                    }
                }
            }
            _ => {
                for c in crate::ir::visit::child_stmts(s) {
                    self.stmt(c);
                }
            }
        }
    }
}
