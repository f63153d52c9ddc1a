//! The reductions phase 1 applies to the pairs of each sequence (spec §2.10): transitive pairs
//! and, per pipe pair, pairs covered by one with a later set or an earlier wait are dropped.
//!
//! Both look only at the pairs found in the sequence (`pairs[start..]`) and compare each with
//! the few that share an end with it, found through indexes built over those pairs alone, so a
//! sequence costs time linear in its own pairs (for straight-line code) whatever came before.
//! The indexes are tables indexed by position ([`Indexes`]), kept by the caller between
//! sequences and left empty after each use, so building one costs no hashing or allocation.

use super::pairs::{Pair, PairList};
use super::position::{before, depth, dominates, same_scope, some_dominates, Elem, Kind, PosId, Positions};
use super::rules::Rules;

/// Keeps the first pair of each identity ([`Pair::key`]) among `pairs[start..]`, in order
/// (earlier pairs are neither dropped nor compared). Equal pairs share their wait, so each pair
/// is compared only with the earlier ones of its wait's group.
pub fn remove_duplicates(list: &mut PairList, start: usize, ix: &mut Indexes) {
    let pairs = &list.as_slice()[start..];
    ix.by_wait.build(pairs, |p| p.wait);
    let by_wait = &ix.by_wait;
    ix.drop.clear();
    ix.drop.extend(pairs.iter().enumerate().map(|(k, p)| is_duplicate(pairs, by_wait, k, p)));
    ix.by_wait.release(pairs, |p| p.wait);
    list.drop_marked_from(start, &ix.drop);
}

/// True if pair `k` (`p`) of `pairs` equals an earlier one ([`remove_duplicates`]).
fn is_duplicate(pairs: &[Pair], by_wait: &Index, k: usize, p: &Pair) -> bool {
    by_wait.group(p.wait).take_while(|&j| j < k).any(|j| pairs[j].key() == p.key())
}

/// [`remove_duplicates`], then drops `A→C` (index ≥ start) when some `A→B` and `B→C` exist
/// with A before B before C. Decided on the list as it is, then removed all at once.
///
/// A pair ending at `C` was found while visiting `C`, inside this sequence, so every `B→C` is
/// among `pairs[start..]`; `A→B` may be anywhere (`A` and `B` may precede the sequence) and is
/// asked of the list's index of ends. The strict order A < B < C makes the three pairs distinct.
///
/// Both reductions are decided in one pass over one index: whether a pair is transitive
/// depends only on the ends present in the list, which dropping a duplicate does not change
/// (an equal pair stays), so deciding on the list with its duplicates gives the same result.
pub fn remove_duplicates_and_transitive(
    list: &mut PairList,
    positions: &Positions,
    start: usize,
    ix: &mut Indexes,
    rules: Rules,
) {
    let pairs = &list.as_slice()[start..];
    ix.by_wait.build(pairs, |p| p.wait);
    // `B→C` can only make another pair transitive if B is before C: decided once per pair.
    ix.forward.clear();
    ix.forward.extend(pairs.iter().map(|p| positions.before(p.set, p.wait)));
    let (by_wait, forward) = (&ix.by_wait, &ix.forward);
    let mut middles: Vec<&[Elem]> = Vec::new();
    ix.drop.clear();
    ix.drop.extend(pairs.iter().enumerate().map(|(k, ac)| {
        if is_duplicate(pairs, by_wait, k, ac) {
            return true;
        }
        // The `B`s of `A→B`, `B→C`: `A→C` goes only if one of them runs on every path to `C`
        // (F2b: a `B` in one branch of an `if` does not order `A` before `C` on the other).
        middles.clear();
        middles.extend(
            by_wait
                .group(ac.wait)
                .map(|k| (k, pairs[k].set))
                .filter(|&(k, b)| b != ac.set && forward[k] && positions.before(ac.set, b) && list.links(ac.set, b))
                .map(|(_, b)| positions.path(b)),
        );
        !middles.is_empty() && (!rules.guarded() || some_dominates(positions, &middles, positions.path(ac.wait)))
    }));
    ix.by_wait.release(pairs, |p| p.wait);
    list.drop_marked_from(start, &ix.drop);
}

/// For pairs with the same pipes (index ≥ start): with the same wait keep the latest set;
/// with the same set keep the earliest wait. Decided in order, skipping dropped pairs.
/// Only pairs sharing the pipes and the wait or the set can interact, so each pair is
/// compared with the later ones of those (found through two indexes, visited in list order)
/// and no others.
///
/// A loop-carried pair never stands in for a forward one or one carried by another loop
/// ([`covers`]): once a loop body's positions are folded, a loop-carried `B→C` can share its
/// wait with a forward `A→C` from before the loop, but phase 2 moves its wait to the end of
/// the iteration, so it does not order `A` before `C` in the first iteration (fuzz finding
/// F2; the spec's reduction, §2.10, has no such guard).
pub fn remove_linear(list: &mut PairList, positions: &Positions, start: usize, ix: &mut Indexes, rules: Rules) {
    let pairs = &list.as_slice()[start..];
    ix.by_wait.build(pairs, |p| p.wait);
    ix.by_set.build(pairs, |p| p.set);
    let (by_wait, by_set) = (&ix.by_wait, &ix.by_set);
    // The later pairs with the pipes of pair `i` and its wait (or its set).
    let same_pipes = |i: usize| move |&j: &usize| pairs[j].src == pairs[i].src && pairs[j].dst == pairs[i].dst;
    let path = |id| positions.path(id);
    let redundant = &mut ix.drop;
    redundant.clear();
    redundant.resize(pairs.len(), false);
    for i in 0..pairs.len() {
        if redundant[i] {
            continue;
        }
        let p1 = &pairs[i];
        for j in merge(by_wait.after(i).filter(same_pipes(i)), by_set.after(i).filter(same_pipes(i))) {
            let p2 = &pairs[j];
            if redundant[j] {
                continue;
            }
            // A barrier stays where its pair is (phase 2 moves only loop-carried same-pipe
            // pairs), so the kept barrier must run whenever the dropped one would: its set
            // on every path to the shared wait, its wait on every path to the other's.
            // A cross-pipe pair's nested ends are moved out by phase 2, so for those the kept
            // pair's ends where phase 2 puts them must run whenever the dropped pair's wait
            // would (F2b: a pair left inside one branch of an `if` covered a wait after it).
            let runs = |kept: &Pair, dropped: &Pair, b, c| {
                if !rules.guarded() {
                    return true;
                }
                if p1.same_pipe() {
                    return dominates(path(b), path(c));
                }
                let ((ks, kw), (_, dw)) = (adjusted(positions, kept), adjusted(positions, dropped));
                positions.dominates(ks, dw) && positions.dominates(kw, dw)
            };
            let covers = |kept: &Pair, dropped: &Pair| !rules.guarded() || covers(positions, kept, dropped);
            if p1.wait == p2.wait {
                if positions.before(p1.set, p2.set) && covers(p2, p1) && runs(p2, p1, p2.set, p2.wait) {
                    redundant[i] = true;
                    break;
                } else if positions.before(p2.set, p1.set) && covers(p1, p2) && runs(p1, p2, p1.set, p1.wait) {
                    redundant[j] = true;
                }
            } else if p1.set == p2.set {
                let keeps = |kept: &Pair, dropped: &Pair| {
                    (covers(kept, dropped) && runs(kept, dropped, kept.wait, dropped.wait))
                        || waits_in_every_iteration(positions, kept, dropped)
                };
                if positions.before(p1.wait, p2.wait) && keeps(p1, p2) {
                    redundant[j] = true;
                } else if positions.before(p2.wait, p1.wait) && keeps(p2, p1) {
                    redundant[i] = true;
                    break;
                }
            }
        }
    }
    ix.by_wait.release(pairs, |p| p.wait);
    ix.by_set.release(pairs, |p| p.set);
    list.drop_marked_from(start, &ix.drop);
}

/// True if `kept`, carried by a loop with its set and wait in one sequence, covers `dropped`
/// (the same set) whose wait is after that loop: phase 2 puts `kept`'s wait at the end of the
/// set's run of ops, so it runs in every iteration that ran the set, before the loop is left.
/// This is the spec's rule (same set: keep the earliest wait) where it is sound, which
/// [`covers`] alone refuses (a loop-carried pair never stands in for a forward one): conformance
/// cases `conformance-dsl/0021_loop_s10` and `0037_reduce_s28` drop such a post-loop pair.
fn waits_in_every_iteration(positions: &Positions, kept: &Pair, dropped: &Pair) -> bool {
    let (set, wait) = (positions.path(kept.set), positions.path(kept.wait));
    let carried_in_one_sequence = same_scope(set, wait) && (before(wait, set) || kept.wait == kept.set);
    if kept.set != dropped.set || !carried_in_one_sequence || !positions.before(dropped.set, dropped.wait) {
        return false;
    }
    // The body of the loop carrying `kept`: `dropped`'s wait must lie outside it.
    match carrier(positions, kept) {
        Some(k) => !positions.path(dropped.wait).starts_with(&set[..=k]),
        None => false,
    }
}

/// Where phase 2 ([`super::events::adjust_scopes`]) will put the set and the wait of a pair,
/// as far as [`dominates`] can tell: a wait moved to the end of the set's run of ops is taken
/// at the set, a set moved to the start of the wait's run at the wait (the index within a run
/// does not change what dominates what).
fn adjusted<'p>(positions: &'p Positions, p: &Pair) -> (&'p [Elem], &'p [Elem]) {
    let (set, wait) = (positions.path(p.set), positions.path(p.wait));
    let same = same_scope(set, wait);
    if same && (before(wait, set) || p.wait == p.set) {
        (set, set)
    } else if p.same_pipe() || same {
        (set, wait)
    } else if depth(wait) > depth(set) {
        (set, set)
    } else {
        (wait, wait)
    }
}

/// The scratch tables of the reductions, kept between sequences (see the module doc).
#[derive(Debug, Default)]
pub struct Indexes {
    by_wait: Index,
    by_set: Index,
    /// Per pair of the tail: its set is before its wait.
    forward: Vec<bool>,
    /// Per pair of the tail: the reduction drops it.
    drop: Vec<bool>,
}

/// True if dropping `dropped` in favour of `kept` is sound as far as loops go: a loop-carried
/// pair (its wait does not come after its set in folded positions: a dependence on an earlier
/// iteration, synchronised at the end of an iteration or at the top of the next by phase 2)
/// cannot replace one within an iteration, nor one carried by another loop (an outer loop's
/// sync runs once per outer iteration, not between the inner iterations). Two forward pairs,
/// or two pairs carried by the same loop, keep the reduction of the spec.
fn covers(positions: &Positions, kept: &Pair, dropped: &Pair) -> bool {
    match (carrier(positions, kept), carrier(positions, dropped)) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(k), Some(d)) => k == d,
    }
}

/// The loop carrying a pair whose wait is not after its set: the depth of the innermost
/// `ForBody` the two positions share (a leaf depending on itself is carried by its innermost
/// loop). `None` for a forward pair (and for a backward one outside any loop, which phase 1
/// does not create).
fn carrier(positions: &Positions, p: &Pair) -> Option<usize> {
    if positions.before(p.set, p.wait) {
        return None;
    }
    let (set, wait) = (positions.path(p.set), positions.path(p.wait));
    let common = set.iter().zip(wait).take_while(|(a, b)| a == b).count();
    set[..common].iter().rposition(|e| e.kind() == Kind::ForBody)
}

/// The indices of a slice of pairs grouped by one end, each group chained in ascending order
/// through `next`, its head in a table indexed by position (no map, no vector per group). The
/// table is all [`END`] between uses: [`Index::release`] clears the entries [`Index::build`] set.
#[derive(Debug, Default)]
struct Index {
    first: Vec<usize>,
    next: Vec<usize>,
}

const END: usize = usize::MAX;

impl Index {
    fn build(&mut self, pairs: &[Pair], end: impl Fn(&Pair) -> PosId) {
        self.next.clear();
        self.next.resize(pairs.len(), END);
        for (k, p) in pairs.iter().enumerate().rev() {
            let e = end(p).index();
            if self.first.len() <= e {
                self.first.resize(e + 1, END);
            }
            self.next[k] = std::mem::replace(&mut self.first[e], k);
        }
    }

    /// Empties the table again (`pairs` and `end` as given to [`Index::build`]).
    fn release(&mut self, pairs: &[Pair], end: impl Fn(&Pair) -> PosId) {
        for p in pairs {
            self.first[end(p).index()] = END;
        }
    }

    /// The indices with this end, ascending.
    fn group(&self, at: PosId) -> Chain<'_> {
        Chain { next: &self.next, at: self.first.get(at.index()).copied().unwrap_or(END) }
    }

    /// The indices after `k` with the end of `k`, ascending.
    fn after(&self, k: usize) -> Chain<'_> {
        Chain { next: &self.next, at: self.next[k] }
    }
}

/// One group of an [`Index`].
#[derive(Clone)]
struct Chain<'a> {
    next: &'a [usize],
    at: usize,
}

impl Iterator for Chain<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        let k = self.at;
        if k == END {
            return None;
        }
        self.at = self.next[k];
        Some(k)
    }
}

/// The union of two ascending sequences, ascending, each index once.
fn merge(a: impl Iterator<Item = usize>, b: impl Iterator<Item = usize>) -> impl Iterator<Item = usize> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek().copied(), b.peek().copied()) {
        (Some(x), Some(y)) if x == y => {
            b.next();
            a.next()
        }
        (Some(x), Some(y)) if y < x => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::PipeType::{Mte2, V};
    use crate::passes::insert_sync::position::{ops, PosId};

    fn pair(src: crate::ir::PipeType, dst: crate::ir::PipeType, set: PosId, wait: PosId) -> Pair {
        Pair { src, dst, set, wait, set_before: false, wait_after: false, event_id: None }
    }

    #[test]
    fn duplicates_in_the_tail_are_dropped_the_first_kept() {
        let (_, at) = ops(3);
        let mut list = PairList::default();
        list.push(pair(Mte2, V, at[0], at[1])); // before the tail: not compared
        list.push(pair(Mte2, V, at[0], at[1]));
        list.push(pair(V, V, at[0], at[1])); // other pipes: another identity
        list.push(pair(Mte2, V, at[0], at[1]));
        list.push(pair(Mte2, V, at[1], at[2]));
        list.push(pair(Mte2, V, at[1], at[2]));
        // A wait after the statement instead of before it: another program point, kept.
        let mut after = pair(Mte2, V, at[1], at[2]);
        after.wait_after = true;
        list.push(after);
        remove_duplicates(&mut list, 1, &mut Indexes::default());
        let left: Vec<_> = list.as_slice().iter().map(|p| (p.src, p.set, p.wait, p.wait_after)).collect();
        assert_eq!(
            left,
            [
                (Mte2, at[0], at[1], false),
                (Mte2, at[0], at[1], false),
                (V, at[0], at[1], false),
                (Mte2, at[1], at[2], false),
                (Mte2, at[1], at[2], true)
            ]
        );
        assert!(list.links(at[0], at[1]) && list.links(at[1], at[2]));
    }

    #[test]
    fn a_transitive_pair_is_dropped_through_a_pair_before_the_sequence() {
        let (ps, at) = ops(3);
        let mut list = PairList::default();
        list.push(pair(Mte2, V, at[0], at[1])); // A→B, found before the sequence
        list.push(pair(V, V, at[1], at[2])); // B→C
        list.push(pair(Mte2, V, at[0], at[2])); // A→C
        list.push(pair(Mte2, V, at[0], at[2])); // a duplicate of A→C
        list.push(pair(V, V, at[1], at[2])); // a duplicate of B→C
        remove_duplicates_and_transitive(&mut list, &ps, 1, &mut Indexes::default(), Rules::Guarded);
        assert_eq!(
            list.as_slice().iter().map(|p| (p.set, p.wait)).collect::<Vec<_>>(),
            [(at[0], at[1]), (at[1], at[2])]
        );
        assert!(!list.links(at[0], at[2]), "the index of ends follows the removal");
    }

    #[test]
    fn without_the_middle_link_nothing_is_transitive() {
        let (ps, at) = ops(3);
        let mut list = PairList::default();
        list.push(pair(V, V, at[1], at[2]));
        list.push(pair(Mte2, V, at[0], at[2]));
        remove_duplicates_and_transitive(&mut list, &ps, 0, &mut Indexes::default(), Rules::Guarded);
        assert_eq!(list.len(), 2);
    }

    #[test]
    fn the_linear_reduction_keeps_the_latest_set_and_the_earliest_wait() {
        let (ps, at) = ops(4);
        let mut list = PairList::default();
        list.push(pair(Mte2, V, at[0], at[3]));
        list.push(pair(Mte2, V, at[1], at[3])); // later set, same wait: covers the first
        list.push(pair(Mte2, V, at[1], at[2])); // same set, earlier wait: covers the second
        list.push(pair(V, V, at[0], at[3])); // other pipes: untouched
        remove_linear(&mut list, &ps, 0, &mut Indexes::default(), Rules::Guarded);
        let left: Vec<_> = list.as_slice().iter().map(|p| (p.src, p.set, p.wait)).collect();
        assert_eq!(left, [(Mte2, at[1], at[2]), (V, at[0], at[3])]);
    }

    #[test]
    fn merged_chains_are_ascending_and_distinct() {
        let (_, at) = ops(3);
        let pairs =
            [pair(V, V, at[0], at[1]), pair(V, V, at[0], at[2]), pair(V, V, at[1], at[2]), pair(V, V, at[0], at[2])];
        let (mut by_set, mut by_wait) = (Index::default(), Index::default());
        by_set.build(&pairs, |p| p.set);
        by_wait.build(&pairs, |p| p.wait);
        assert_eq!(by_set.group(at[0]).collect::<Vec<_>>(), [0, 1, 3]);
        assert_eq!(by_wait.after(1).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(merge(by_set.after(0), by_wait.after(1)).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(by_set.group(at[2]).count(), 0);
        by_set.release(&pairs, |p| p.set);
        assert!(by_set.first.iter().all(|&f| f == END), "released tables are empty for the next use");
    }
}
