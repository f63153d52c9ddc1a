//! What a leaf statement does to memory, and on which pipe (spec §2.10 "Leaf effects").

use crate::backend;
use crate::ir::visit::walk_expr;
use crate::ir::{Callee, Expr, ExprKind, PipeType, Stmt, VarId, VarKind, VarTable};
use crate::ops::ResultBuffer;
use crate::passes::Backend;

/// A MemRef, ordered by its id (creation order) and then its variable: never by address
/// (§6 Q7, §6.1 Q24).
pub type MemKey = (u64, VarId);

/// The MemRefs a leaf reads and writes (each ascending) and the pipe it runs on. One value is
/// refilled for every leaf ([`leaf_effects`]), so that the lists are allocated once per function.
/// `K` names a MemRef: its [`MemKey`], or the dense index phase 1 gives it in its function.
#[derive(Debug)]
pub struct Effects<K = MemKey> {
    pub pipe: PipeType,
    pub reads: Vec<K>,
    pub writes: Vec<K>,
}

impl<K> Default for Effects<K> {
    fn default() -> Self {
        Effects { pipe: PipeType::S, reads: Vec::new(), writes: Vec::new() }
    }
}

/// The effects of the leaves of the first copy of an unrolled loop body, in visiting order,
/// replayed for the second copy (the same statements in the same order), so that the operands
/// of a leaf are walked once per loop. Used as a stack: an unrolled body records above the
/// entries of the bodies around it and truncates back to its [`Recorded::mark`] when done.
#[derive(Debug)]
pub struct Recorded<K> {
    /// Per leaf: its pipe and where its reads and writes lie in `keys`, or `None` for a leaf
    /// touching no MemRef.
    leaves: Vec<Option<(PipeType, usize, usize, usize)>>,
    keys: Vec<K>,
}

impl<K> Default for Recorded<K> {
    fn default() -> Self {
        Recorded { leaves: Vec::new(), keys: Vec::new() }
    }
}

impl<K: Copy> Recorded<K> {
    /// The current top of the stack, for [`Recorded::truncate`].
    pub fn mark(&self) -> (usize, usize) {
        (self.leaves.len(), self.keys.len())
    }

    /// Drops everything recorded since `mark`.
    pub fn truncate(&mut self, (leaves, keys): (usize, usize)) {
        self.leaves.truncate(leaves);
        self.keys.truncate(keys);
    }

    /// Records the next leaf's effects (`None`: it touches no MemRef).
    pub fn record(&mut self, fx: Option<&Effects<K>>) {
        let entry = fx.map(|fx| {
            let start = self.keys.len();
            self.keys.extend_from_slice(&fx.reads);
            self.keys.extend_from_slice(&fx.writes);
            (fx.pipe, start, start + fx.reads.len(), self.keys.len())
        });
        self.leaves.push(entry);
    }

    /// The pipe, reads and writes recorded at index `k`, read in place; `None` for a leaf
    /// touching no MemRef (as [`leaf_effects`] returns false).
    pub fn get(&self, k: usize) -> Option<(PipeType, &[K], &[K])> {
        let (pipe, start, mid, end) = self.leaves.get(k).copied().flatten()?;
        Some((pipe, &self.keys[start..mid], &self.keys[mid..end]))
    }
}

/// The memory a leaf reads and writes: each variable whose MemRef an assignment or eval reads
/// (`mem(false, v)`) or writes (`mem(true, v)`), in operand order, reads first, repeats and
/// variables without a MemRef included (an iter arg stands for its init value, see
/// [`crate::analysis::buffers::holder`]); the leaf's value (whose call gives its pipe,
/// [`pipe_of`]), or `None` for other statements. A leaf whose variables have no MemRef touches
/// no memory (e.g. `block.alloc`, whose target is the MemRef itself, or scalar code).
pub fn leaf_accesses<'s>(vars: &VarTable, s: &'s Stmt, mem: &mut impl FnMut(bool, VarId)) -> Option<&'s Expr> {
    let (value, target) = match s {
        Stmt::Assign { var, value, .. } => (value, Some(*var)),
        Stmt::Eval { expr, .. } => (expr, None),
        _ => return None,
    };
    let holder = |v| crate::analysis::buffers::holder(vars, v);
    // An op whose result is its destination (`block.store`, spec §2.10) writes it through the
    // assigned var and does not read it; its other operands are read.
    let destination = value.as_call().and_then(|c| match crate::ops::def(c.callee.op()?).result_buffer {
        ResultBuffer::Destination(k) => Some((c, k)),
        _ => None,
    });
    let mut read = |root: &Expr| walk_expr(root, &mut |e| e.as_var().into_iter().for_each(|v| mem(false, holder(v))));
    match destination {
        Some((c, k)) => c.args.iter().enumerate().filter(|&(i, _)| i != k).for_each(|(_, a)| read(a)),
        None => read(value),
    }
    if let Some(v) = target {
        mem(true, v);
    }
    // A store whose result is not assigned (`pl.block.store(t, …, out)` as a statement) writes
    // its destination tensor all the same (the hazard checker's rule too). The reference
    // records no write there, and its syncs then miss a load of that tensor before the store.
    if let (None, Some(c)) = (target, value.as_call()) {
        if let Callee::Op(op) = c.callee {
            let def = crate::ops::def(op);
            for (_, arg) in c.args.iter().enumerate().filter(|(k, _)| def.writes_arg(*k)) {
                walk_expr(arg, &mut |e| e.as_var().into_iter().for_each(|v| mem(true, holder(v))));
            }
        }
    }
    Some(value)
}

/// The pipe of a leaf's call in the backend table; S for anything else.
pub fn pipe_of(value: &Expr, backend: Backend) -> PipeType {
    match &value.kind {
        ExprKind::Call(c) => match c.callee {
            Callee::Op(op) => backend::pipe(op, backend).unwrap_or(PipeType::S),
            Callee::Function(_) => PipeType::S,
        },
        _ => PipeType::S,
    }
}

/// MemRefs to read as others (`from` → `to`): a memory plan under trial, before it re-points
/// any type (see [`super::weigh`]). Empty for the pass itself.
pub type Renamed = rustc_hash::FxHashMap<VarId, VarId>;

/// The MemRef in a tensor or tile variable's type (renamed by `renamed`).
pub fn memref_of(vars: &VarTable, renamed: &Renamed, v: VarId) -> Option<MemKey> {
    let m = vars.var_type(v).memref()?;
    let m = renamed.get(&m).copied().unwrap_or(m);
    match &vars.var(m).kind {
        VarKind::MemRef(info) => Some((info.id, m)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::VarId;

    fn effects(pipe: PipeType, reads: &[MemKey], writes: &[MemKey]) -> Effects {
        Effects { pipe, reads: reads.to_vec(), writes: writes.to_vec() }
    }

    #[test]
    fn recorded_effects_replay_in_order_and_truncate_to_a_mark() {
        let (m1, m2, m3) = ((1, VarId(1)), (2, VarId(2)), (3, VarId(3)));
        let mut rec = Recorded::default();
        rec.record(Some(&effects(PipeType::Mte2, &[m1], &[m2])));
        let mark = rec.mark();
        rec.record(None);
        rec.record(Some(&effects(PipeType::V, &[m2, m3], &[])));
        assert_eq!(rec.get(1), None, "a leaf touching no MemRef replays as none");
        assert_eq!(rec.get(2), Some((PipeType::V, &[m2, m3][..], &[][..])));
        assert_eq!(rec.get(0), Some((PipeType::Mte2, &[m1][..], &[m2][..])));
        rec.truncate(mark);
        assert_eq!(rec.get(1), None, "entries above the mark are gone");
        assert_eq!(rec.get(0), Some((PipeType::Mte2, &[m1][..], &[m2][..])));
        assert_eq!(rec.mark(), mark);
    }
}
