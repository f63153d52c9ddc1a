//! The dependence pairs of InsertSync, and the list phase 1 keeps them in while it adds, folds
//! and prunes them.

use rustc_hash::FxHashSet;

use super::position::PosId;
use crate::ir::PipeType;

/// A dependence to synchronise: `src` pipe at `set` must finish before `dst` pipe at `wait`.
#[derive(Clone, Copy, Debug, PartialEq)]
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
    /// Identity for de-duplication: the program points of the set and the wait, and the pipes.
    /// The flags are part of it: phase 2 can give a pair moved out of a nested producer a set
    /// *before* a statement and a pair of that statement's own result the same position with
    /// the set *after* it; taken for one, the first dropped the second, and the statement's
    /// consumers then ran unsynchronised (fuzz finding F6, docs/fuzzing.md).
    pub fn key(&self) -> (PosId, bool, PosId, bool, PipeType, PipeType) {
        (self.set, self.set_before, self.wait, self.wait_after, self.src, self.dst)
    }
}

/// A dependence from `set` in one iteration of a loop to `wait` in a later one, both directly
/// in the loop body, `wait` before `set` (`-O2`): instead of a wait at the end of the
/// iteration, which holds the waiting pipe back until `set` finished before anything of the
/// next iteration runs on it, the flag is carried to the next iteration. `sync_src` after `set`,
/// `sync_dst` right before `wait` (the next iteration's), one `sync_src` before the loop (the
/// first iteration's wait finds it) and one `sync_dst` after it (consuming the last
/// iteration's set). Each flag has an event id of its own for the whole loop
/// ([`super::events::assign_event_ids`]). With two copies of a body (pipeline-loops), copy k's next load
/// waits only for copy k's readers, not for the last copy's store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarriedFlag {
    pub src: PipeType,
    pub dst: PipeType,
    pub set: PosId,
    pub wait: PosId,
    /// The loop statement.
    pub loop_at: PosId,
}

/// Keeps the first pair of each identity among `pairs[start..]`, in order (earlier pairs are
/// neither dropped nor compared).
pub fn dedup_from(pairs: &mut Vec<Pair>, start: usize) {
    let drop = duplicates(&pairs[start..]);
    drop_marked_from(pairs, start, &drop, |_| {});
}

/// For each pair, whether one before it in `pairs` has the same identity.
fn duplicates(pairs: &[Pair]) -> Vec<bool> {
    let mut seen = FxHashSet::with_capacity_and_hasher(pairs.len(), Default::default());
    pairs.iter().map(|p| !seen.insert(p.key())).collect()
}

/// Removes `pairs[start + k]` for every `drop[k]`, keeping the order, and hands each removed
/// pair to `dropped`; only the tail is moved.
fn drop_marked_from(pairs: &mut Vec<Pair>, start: usize, drop: &[bool], mut dropped: impl FnMut(&Pair)) {
    let Some(first) = drop.iter().position(|&d| d) else { return };
    let mut kept = start + first;
    for (k, &d) in drop.iter().enumerate().skip(first) {
        let p = pairs[start + k];
        if d {
            dropped(&p);
        } else {
            pairs[kept] = p;
            kept += 1;
        }
    }
    pairs.truncate(kept);
}

/// The pairs found so far, with an index of their ends that is kept up to date by every change,
/// so that no reduction has to rebuild an index over the pairs outside its own sequence
/// (which made phase 1 quadratic in the number of sibling loops).
#[derive(Debug, Default)]
pub struct PairList {
    pairs: Vec<Pair>,
    /// How many pairs link each (set, wait), whatever their pipes: per wait (indexed by
    /// position) a chain of its sets through `links`. A leaf waits on a handful of producers,
    /// so walking its chain is cheaper than hashing the two ends (this index is updated for
    /// every pair found). Entries whose count reaches zero stay in their chain, as the ends
    /// are often linked again.
    heads: Vec<u32>,
    links: Vec<Link>,
}

/// One (set, wait) of [`PairList`]'s index: the set, its count, the next entry of the wait's chain.
#[derive(Debug)]
struct Link {
    set: PosId,
    count: u32,
    next: u32,
}

/// The end of a chain of [`PairList`]'s index.
const NO_LINK: u32 = u32::MAX;

impl PairList {
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn as_slice(&self) -> &[Pair] {
        &self.pairs
    }

    pub fn push(&mut self, p: Pair) {
        self.add(p.set, p.wait);
        self.pairs.push(p);
    }

    /// True iff some pair (at any index) has these ends.
    pub fn links(&self, set: PosId, wait: PosId) -> bool {
        link(&self.heads, &self.links, set, wait).is_some_and(|k| self.links[k].count > 0)
    }

    /// Adds one pair with these ends to the index.
    fn add(&mut self, set: PosId, wait: PosId) {
        if let Some(k) = link(&self.heads, &self.links, set, wait) {
            self.links[k].count += 1;
            return;
        }
        let w = wait.index();
        if self.heads.len() <= w {
            self.heads.resize(w + 1, NO_LINK);
        }
        let next = std::mem::replace(&mut self.heads[w], self.links.len() as u32);
        self.links.push(Link { set, count: 1, next });
    }

    /// Removes `pairs[start + k]` for every `drop[k]`, keeping the order.
    pub fn drop_marked_from(&mut self, start: usize, drop: &[bool]) {
        let PairList { pairs, heads, links } = self;
        drop_marked_from(pairs, start, drop, |p| forget(heads, links, p.set, p.wait));
    }

    /// Replaces both ends of every pair at index ≥ `start` by `f` of them.
    pub fn map_ends_from(&mut self, start: usize, mut f: impl FnMut(PosId) -> PosId) {
        for i in start..self.pairs.len() {
            let p = &self.pairs[i];
            let (old_set, old_wait) = (p.set, p.wait);
            let (set, wait) = (f(old_set), f(old_wait));
            if (set, wait) != (old_set, old_wait) {
                forget(&self.heads, &mut self.links, old_set, old_wait);
                self.add(set, wait);
                let p = &mut self.pairs[i];
                (p.set, p.wait) = (set, wait);
            }
        }
    }

    pub fn into_vec(self) -> Vec<Pair> {
        self.pairs
    }
}

/// The index in `links` of the entry of [`PairList`]'s index for (set, wait), if there is one.
fn link(heads: &[u32], links: &[Link], set: PosId, wait: PosId) -> Option<usize> {
    let mut k = heads.get(wait.index()).copied().unwrap_or(NO_LINK);
    while k != NO_LINK {
        let l = &links[k as usize];
        if l.set == set {
            return Some(k as usize);
        }
        k = l.next;
    }
    None
}

/// Takes one pair out of the count of its ends in [`PairList`]'s index.
fn forget(heads: &[u32], links: &mut [Link], set: PosId, wait: PosId) {
    if let Some(k) = link(heads, links, set, wait) {
        let n = &mut links[k].count;
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
        let mut pairs =
            vec![pair(at[0], at[1]), pair(at[0], at[1]), pair(at[0], at[1]), pair(at[0], at[1]), pair(at[1], at[2])];
        // The event id is not part of a pair's identity (it marks the first of the tail); where
        // around its statement a wait goes is (fuzz finding F6).
        pairs[1].event_id = Some(7);
        pairs[3].wait_after = true;
        dedup_from(&mut pairs, 1);
        assert_eq!(pairs.len(), 4, "the pair before `start` is not compared");
        assert_eq!(pairs[1].event_id, Some(7), "the first of the tail wins");
        assert!(pairs[2].wait_after, "a wait after the statement is another pair");
        assert_eq!((pairs[3].set, pairs[3].wait), (at[1], at[2]));
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
