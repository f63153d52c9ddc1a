//! What a leaf statement does to memory, and on which pipe (spec §2.10 "Leaf effects"), as
//! phase 1 records it: the decisions are [`crate::analysis::effects`]'s (shared with the sync
//! checker); this module keeps the per-function forms phase 1 works with (MemRefs as
//! [`MemKey`]s or dense indexes, effects recorded for an unrolled loop body's second copy).

use crate::analysis::effects::{self, Kind, Mode};
use crate::backend::Backend;
use crate::ir::{PipeType, Stmt, VarId, VarKind, VarTable};

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

/// The memory a leaf reads and writes as phase 1 reads it: each variable whose MemRef it
/// reads or writes given to `mem` ([`effects::accesses`], the reading the sync checker shares),
/// and the pipe it runs on (S for scalar work, and for sync ops, which touch no memory); `None`
/// for statements that are no leaf. Scalar work gives no accesses: no pipe's sync orders it,
/// and the sync checker reads it as no access (`analysis::hazard::hazard_kind`). Were a tile
/// op on S (one without a pipe on the backend) its buffer's last writer here, the vector write
/// before it would stay unsynchronised to the checker.
pub fn leaf_accesses(
    vars: &VarTable,
    s: &Stmt,
    backend: Backend,
    mem: &mut impl FnMut(Mode, VarId),
) -> Option<PipeType> {
    match effects::kind(s, backend)? {
        Kind::Access(PipeType::S) => Some(PipeType::S),
        Kind::Access(pipe) => {
            effects::accesses(vars, s, mem);
            Some(pipe)
        }
        _ => Some(PipeType::S),
    }
}

/// One leaf as phase 1 reads it: its pipe, the MemRefs it reads (ascending, no repeats) and
/// those it writes (in operand order), or `None` when it touches no MemRef — what phase 1
/// records for it, for the tests that compare this reading with the sync checker's.
pub fn leaf_reading(vars: &VarTable, s: &Stmt, backend: Backend) -> Option<Effects> {
    let mut fx = Effects::default();
    let renamed = Renamed::default();
    let pipe = leaf_accesses(vars, s, backend, &mut |mode, v| {
        if let Some(k) = memref_of(vars, &renamed, v) {
            if mode == Mode::Write { &mut fx.writes } else { &mut fx.reads }.push(k);
        }
    })?;
    if fx.reads.is_empty() && fx.writes.is_empty() {
        return None;
    }
    fx.reads.sort_unstable();
    fx.reads.dedup();
    fx.pipe = pipe;
    Some(fx)
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
