//! The dependence pairs of InsertSync, and the list phase 1 keeps them in while it adds, folds
//! and prunes them.

use rustc_hash::{FxHashMap, FxHashSet};

use super::position::PosId;
use crate::ir::PipeType;

/// A dependence to synchronise: `src` pipe at `set` must finish before `dst` pipe at `wait`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub src: PipeType,
    pub dst: PipeType,
    pub set: PosId,
    pub wait: PosId,
    /// Insert the `sync_src` before the statement at `set` instead of after it.
    pub set_before: bool,
    /// Insert the `sync_dst` / barrier after the statement at `wait` instead of before it.
    pub wait_after: bool,
    /// Hardware event id (cross-pipe pairs only, phase 3).
    pub event_id: Option<u8>,
}

impl Pair {
    pub fn same_pipe(&self) -> bool {
        self.src == self.dst
    }
    /// Identity for de-duplication (the flags are not part of it).
    pub fn key(&self) -> (PosId, PosId, PipeType, PipeType) {
        (self.set, self.wait, self.src, self.dst)
    }
}

/// Keeps the first pair of each identity among `pairs[start..]`, in order (earlier pairs are
/// neither dropped nor compared).
pub fn dedup_from(pairs: &mut Vec<Pair>, start: usize) {
    let drop = duplicates(&pairs[start..]);
    drop_marked_from(pairs, start, &drop);
}

/// For each pair, whether one before it in `pairs` has the same identity.
fn duplicates(pairs: &[Pair]) -> Vec<bool> {
    let mut seen = FxHashSet::with_capacity_and_hasher(pairs.len(), Default::default());
    pairs.iter().map(|p| !seen.insert(p.key())).collect()
}

/// Removes `pairs[start + k]` for every `drop[k]`, keeping the order; only the tail is moved.
fn drop_marked_from(pairs: &mut Vec<Pair>, start: usize, drop: &[bool]) {
    let Some(first) = drop.iter().position(|&d| d) else { return };
    let mut kept = start + first;
    for (k, _) in drop.iter().enumerate().skip(first).filter(|(_, &d)| !d) {
        pairs.swap(kept, start + k);
        kept += 1;
    }
    pairs.truncate(kept);
}

/// The pairs found so far, with an index of their ends that is kept up to date by every change,
/// so that no reduction has to rebuild an index over the pairs outside its own sequence
/// (which made phase 1 quadratic in the number of sibling loops).
#[derive(Debug, Default)]
pub struct PairList {
    pairs: Vec<Pair>,
    /// How many pairs link each (set, wait), whatever their pipes (zero for ends no pair links
    /// any more).
    ends: FxHashMap<(PosId, PosId), usize>,
}

impl PairList {
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn as_slice(&self) -> &[Pair] {
        &self.pairs
    }

    pub fn push(&mut self, p: Pair) {
        *self.ends.entry((p.set, p.wait)).or_default() += 1;
        self.pairs.push(p);
    }

    /// True iff some pair (at any index) has these ends.
    pub fn links(&self, set: PosId, wait: PosId) -> bool {
        self.ends.get(&(set, wait)).is_some_and(|&n| n > 0)
    }

    /// Removes `pairs[start + k]` for every `drop[k]`, keeping the order.
    pub fn drop_marked_from(&mut self, start: usize, drop: &[bool]) {
        for (p, _) in self.pairs[start..].iter().zip(drop).filter(|(_, &d)| d) {
            forget(&mut self.ends, p);
        }
        drop_marked_from(&mut self.pairs, start, drop);
    }

    /// Replaces both ends of every pair at index ≥ `start` by `f` of them.
    pub fn map_ends_from(&mut self, start: usize, mut f: impl FnMut(PosId) -> PosId) {
        for p in &mut self.pairs[start..] {
            let (set, wait) = (f(p.set), f(p.wait));
            if (set, wait) != (p.set, p.wait) {
                forget(&mut self.ends, p);
                (p.set, p.wait) = (set, wait);
                *self.ends.entry((set, wait)).or_default() += 1;
            }
        }
    }

    pub fn into_vec(self) -> Vec<Pair> {
        self.pairs
    }
}

/// Takes one pair out of the count of its ends.
/// (A count that reaches zero stays in the map: removing it would cost a second lookup, and
/// the ends are often linked again.)
fn forget(ends: &mut FxHashMap<(PosId, PosId), usize>, p: &Pair) {
    if let Some(n) = ends.get_mut(&(p.set, p.wait)) {
        *n = n.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::PipeType::{Mte2, V};
    use crate::passes::insert_sync::position::{Elem, Positions};

    fn ids(n: usize) -> Vec<PosId> {
        let mut positions = Positions::default();
        (0..n).map(|i| positions.intern(&[Elem::op(i)])).collect()
    }

    fn pair(set: PosId, wait: PosId) -> Pair {
        Pair { src: Mte2, dst: V, set, wait, set_before: false, wait_after: false, event_id: None }
    }

    #[test]
    fn dedup_keeps_the_first_of_the_tail_only() {
        let at = ids(3);
        let mut pairs = vec![pair(at[0], at[1]), pair(at[0], at[1]), pair(at[0], at[1]), pair(at[1], at[2])];
        pairs[2].wait_after = true;
        dedup_from(&mut pairs, 1);
        assert_eq!(pairs.len(), 3, "the pair before `start` is not compared");
        assert!(!pairs[1].wait_after, "the first of the tail wins");
        assert_eq!((pairs[2].set, pairs[2].wait), (at[1], at[2]));
    }

    #[test]
    fn the_index_of_ends_follows_every_change() {
        let at = ids(4);
        let mut list = PairList::default();
        list.push(pair(at[0], at[1]));
        list.push(pair(at[0], at[1]));
        list.push(pair(at[2], at[3]));
        list.drop_marked_from(0, &[false, true, false]);
        assert!(list.links(at[0], at[1]), "one of the two is left");
        list.map_ends_from(1, |p| if p == at[3] { at[1] } else { p });
        assert!(!list.links(at[2], at[3]));
        assert!(list.links(at[2], at[1]));
        list.drop_marked_from(0, &[true, false]);
        assert!(!list.links(at[0], at[1]));
        assert_eq!(list.into_vec(), [pair(at[2], at[1])]);
    }
}
