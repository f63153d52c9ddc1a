//! Which DDR MemRefs of a kernel are one tensor. init-mem-ref gives a loop's or an `if`'s
//! tensor result a MemRef of its own (as the reference does), but a tensor is never copied: a
//! loop result is the memory its iter arg started from, an `if` result the memory its branches
//! yield, a tensor assigned from another that tensor. The sync analyses read every MemRef of
//! such a class as the class's first (by MemRef id), so that a load through a loop's result
//! waits for the stores the loop made through its iter arg; without this, neither insert-sync
//! nor the hazard checker saw that dependence.

use rustc_hash::FxHashMap;

use crate::analysis::effects::holder;
use crate::ir::visit::{child_stmts, last_stmt};
use crate::ir::{ExprKind, MemorySpace, Stmt, VarId, VarKind, VarTable};

/// DDR MemRef variable → the MemRef variable of its class that the sync analyses use; MemRefs
/// alone in their class are absent.
#[derive(Clone, Debug, Default)]
pub struct TensorAliases(FxHashMap<VarId, VarId>);

impl TensorAliases {
    /// The classes of the DDR MemRefs of `body` (statements given one by one).
    pub fn of<'s>(vars: &VarTable, body: impl IntoIterator<Item = &'s Stmt>) -> TensorAliases {
        let mut uf = Classes { vars, parent: FxHashMap::default() };
        for s in body {
            uf.stmt(s);
        }
        let members: Vec<VarId> = uf.parent.keys().copied().collect();
        let mut out = FxHashMap::default();
        for m in members {
            let r = uf.find(m);
            if r != m {
                out.insert(m, r);
            }
        }
        TensorAliases(out)
    }

    /// The MemRef the sync analyses read MemRef `m` as.
    pub fn get(&self, m: VarId) -> VarId {
        self.0.get(&m).copied().unwrap_or(m)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The pairs (MemRef, its class's MemRef) of the MemRefs not alone in their class.
    pub fn pairs(&self) -> impl Iterator<Item = (VarId, VarId)> + '_ {
        self.0.iter().map(|(&a, &b)| (a, b))
    }
}

struct Classes<'v> {
    vars: &'v VarTable,
    parent: FxHashMap<VarId, VarId>,
}

impl Classes<'_> {
    /// The DDR MemRef variable of tensor variable `v` (an iter arg read as its init).
    fn memref(&self, v: VarId) -> Option<VarId> {
        let v = holder(self.vars, v);
        let m = self.vars.var_type(v).memref()?;
        match &self.vars.get(m)?.kind {
            VarKind::MemRef(info) if info.space == MemorySpace::Ddr => Some(m),
            _ => None,
        }
    }

    fn id(&self, m: VarId) -> u64 {
        match &self.vars.var(m).kind {
            VarKind::MemRef(info) => info.id,
            _ => u64::MAX,
        }
    }

    fn find(&mut self, m: VarId) -> VarId {
        let mut r = m;
        while let Some(&p) = self.parent.get(&r).filter(|&&p| p != r) {
            r = p;
        }
        self.parent.insert(m, r);
        r
    }

    /// Puts the tensors of variables `a` and `b` in one class, led by the lower MemRef id.
    fn union(&mut self, a: VarId, b: VarId) {
        let (Some(a), Some(b)) = (self.memref(a), self.memref(b)) else { return };
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        let (lead, other) = if (self.id(ra), ra) <= (self.id(rb), rb) { (ra, rb) } else { (rb, ra) };
        self.parent.insert(other, lead);
        self.parent.insert(lead, lead);
    }

    fn yielded(&mut self, body: &Stmt, results: &[VarId]) {
        if let Stmt::Yield { values, .. } = last_stmt(body) {
            for (&r, v) in results.iter().zip(values) {
                if let Some(v) = v.as_var() {
                    self.union(r, v);
                }
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { var, value, .. } => {
                if let ExprKind::Var(v) = value.kind {
                    self.union(*var, v);
                }
            }
            Stmt::For { iter_args, return_vars, body, .. } | Stmt::While { iter_args, return_vars, body, .. } => {
                for (&r, &a) in return_vars.iter().zip(iter_args) {
                    self.union(r, a);
                }
                self.yielded(body, return_vars);
                self.stmt(body);
            }
            Stmt::If { then_body, else_body, return_vars, .. } => {
                self.yielded(then_body, return_vars);
                if let Some(e) = else_body {
                    self.yielded(e, return_vars);
                }
                self.stmt(then_body);
                if let Some(e) = else_body {
                    self.stmt(e);
                }
            }
            _ => {
                for c in child_stmts(s) {
                    self.stmt(c);
                }
            }
        }
    }
}
