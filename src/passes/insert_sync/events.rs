//! Phases 2 and 3 of InsertSync (spec §2.10): move the ends of pairs that cross a scope
//! boundary to the edge of the `OpStmts` on the outer side, then give each cross-pipe pair a
//! hardware event id (0–7 per pipe pair), reusing an id once its previous wait is behind.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::collect::Analysis;
use super::pairs::{dedup_from, Pair};
use super::position::{before, depth, dominates, same_scope, Elem, Kind, PosId, Positions};
use crate::ir::PipeType;

/// Hardware event ids per (set pipe, wait pipe).
pub const MAX_EVENT_IDS: u8 = 8;

/// Phase 2 over all pairs, in order; then de-duplicates them (first wins).
pub fn adjust_scopes(a: &mut Analysis) {
    let Analysis { pairs, positions, op_counts, jumps, rules, .. } = a;
    for p in pairs.iter_mut() {
        let (set, wait) = (positions.path(p.set), positions.path(p.wait));
        let same = same_scope(set, wait);
        if same && (before(wait, set) || p.wait == p.set) {
            // Cross-iteration dependence: wait at the end of the iteration (after the set's run).
            p.wait = end_of_ops(positions, p.set, op_counts);
            p.wait_after = true;
        } else if same && !p.same_pipe() && jumps.iter().any(|&j| splits(positions.path(j), set, wait)) {
            // A `break` or `continue` between the two would leave the set without its wait
            // (a stale flag for a later wait, or a second set of the flag in the next
            // iteration): wait right after the producer's run of ops, before the jump.
            p.wait = end_of_ops(positions, p.set, op_counts);
            p.wait_after = true;
        } else if p.same_pipe() || same {
        } else if depth(wait) > depth(set) {
            // The consumer is nested deeper: wait right after the producer's run of ops.
            p.wait = end_of_ops(positions, p.set, op_counts);
            p.wait_after = true;
        } else {
            // The producer is nested deeper: set right before the consumer's run of ops.
            p.set = begin_of_ops(positions, p.wait);
            p.set_before = true;
        }
    }
    dedup_from(pairs, 0);
    if rules.guarded() {
        merge_shared_sets(pairs, positions);
    }
}

/// Cross-pipe pairs that phase 2 gave one set position (producers nested deeper than their
/// consumers, moved to the start of the consumers' run of ops) share one `sync_src`, so one
/// event, which only one `sync_dst` can consume; the others would wait for a flag never set.
/// (A set moved before the statement at a position and one left after it are two sets.)
/// Keeps the pair with the earliest wait when that wait runs on every path to the others' (it
/// then orders their consumers too), and drops the others. (A reduction through a loop body is
/// refused, as the loop may not run: fuzz finding F2b, docs/fuzzing.md.)
fn merge_shared_sets(pairs: &mut Vec<Pair>, positions: &Positions) {
    let mut groups: FxHashMap<(PipeType, PipeType, PosId, bool), Vec<usize>> = FxHashMap::default();
    for (i, p) in pairs.iter().enumerate() {
        if !p.same_pipe() {
            groups.entry((p.src, p.dst, p.set, p.set_before)).or_default().push(i);
        }
    }
    let mut drop = vec![false; pairs.len()];
    for members in groups.values().filter(|m| m.len() > 1) {
        let wait = |i: usize| positions.path(pairs[i].wait);
        let Some(&first) = members.iter().min_by(|&&x, &&y| wait(x).cmp(wait(y))) else { continue };
        let others = members.iter().filter(|&&i| i != first);
        if others.clone().all(|&i| before(wait(first), wait(i)) && positions.dominates(wait(first), wait(i))) {
            others.for_each(|&i| drop[i] = true);
        }
    }
    let mut k = 0;
    pairs.retain(|_| {
        k += 1;
        !drop[k - 1]
    });
}

/// Whether the jump at `jump` lies between `set` and `wait` (in one `SeqStmts`, the set's
/// statement first) and leaves that sequence: it is inside a statement between them and not
/// inside a loop of that statement (whose own iteration it would end).
fn splits(jump: &[Elem], set: &[Elem], wait: &[Elem]) -> bool {
    let Some(k) = depth(set) else { return false };
    let (i, j) = (set[k].index(), wait[k].index());
    jump.len() > k
        && jump[..k] == set[..k]
        && jump[k].kind() == Kind::Seq
        && (i < jump[k].index() && jump[k].index() < j)
        && !jump[k + 1..].iter().any(|e| e.kind() == Kind::ForBody)
}

/// The last statement of the `OpStmts` holding `p` (`p` itself if it is not in one).
fn end_of_ops(positions: &mut Positions, p: PosId, op_counts: &FxHashMap<PosId, usize>) -> PosId {
    match positions.path(p).split_last() {
        Some((last, run)) if last.kind() == Kind::Op && !run.is_empty() => {
            match positions.get(run).and_then(|r| op_counts.get(&r)) {
                Some(&n) => positions.intern_edited(p, |q| {
                    q.pop();
                    q.push(Elem::op(n.saturating_sub(1)));
                }),
                None => p,
            }
        }
        _ => p,
    }
}

/// The first statement of the `OpStmts` holding `p` (`p` itself if it is not in one).
fn begin_of_ops(positions: &mut Positions, p: PosId) -> PosId {
    let path = positions.path(p);
    if path.len() >= 2 && path.last().is_some_and(|e| e.kind() == Kind::Op) {
        return positions.intern_edited(p, |q| {
            q.pop();
            q.push(Elem::op(0));
        });
    }
    p
}

/// Phase 3 failed: the pair at this index found all event ids of its pipe pair in use.
#[derive(Debug, PartialEq)]
pub struct OutOfEventIds {
    pub pair: usize,
}

/// Phase 3: cross-pipe pairs in ascending set position (stable), each takes the id already
/// given to its (pipes, set position) or the smallest id whose last wait is before the set.
///
/// Where that finds all eight ids of the pipe pair outstanding (the reference fails there:
/// E0601), one is freed by moving waits earlier ([`free_by_hoisting`]), so a valid program does
/// not run out of ids; programs the reference's allocation handles are unaffected.
pub fn assign_event_ids(a: &mut Analysis) -> Result<(), OutOfEventIds> {
    let mut order: Vec<usize> = (0..a.pairs.len()).filter(|&i| !a.pairs[i].same_pipe()).collect();
    order.sort_by(|&x, &y| a.positions.path(a.pairs[x].set).cmp(a.positions.path(a.pairs[y].set)));
    let mut ids = EventIds::default();
    for (n, &i) in order.iter().enumerate() {
        let p = a.pairs[i];
        let id = match ids.alloc(&a.positions, p.src, p.dst, p.set, p.set_before) {
            Some(id) => id,
            None => {
                let id = free_by_hoisting(a, &order[..n], i).ok_or(OutOfEventIds { pair: i })?;
                ids.freed_at.insert((p.src, p.dst, id), p.set);
                ids.by_set.insert((p.src, p.dst, p.set, p.set_before), id);
                id
            }
        };
        ids.free(&a.positions, p.src, p.dst, p.wait, id);
        a.pairs[i].event_id = Some(id);
    }
    Ok(())
}

/// Frees an event id for pair `new` (whose set is after its statement) when all eight of its
/// pipe pair are outstanding there: the waits of the id whose last wait comes first move to
/// just before the statement of the new set. A wait may move earlier as long as it stays after
/// its set: it then holds back its pipe sooner, which orders everything it ordered before. Only
/// ids whose outstanding pairs have their set on every path to the new set qualify (else the
/// moved wait could wait for a set that did not run). `done`: the pairs given ids so far.
fn free_by_hoisting(a: &mut Analysis, done: &[usize], new: usize) -> Option<u8> {
    let p = a.pairs[new];
    if p.set_before {
        return None;
    }
    let positions = &a.positions;
    let at = positions.path(p.set);
    // Per id: the pairs still outstanding at the new set, and the last of their waits.
    let mut outstanding: [(Vec<usize>, Option<PosId>); MAX_EVENT_IDS as usize] = Default::default();
    for &j in done {
        let q = &a.pairs[j];
        let Some(id) = q.event_id else { continue };
        if (q.src, q.dst) != (p.src, p.dst) || before(positions.path(q.wait), at) {
            continue;
        }
        let slot = &mut outstanding[id as usize];
        slot.0.push(j);
        if slot.1.is_none_or(|w| before(positions.path(w), positions.path(q.wait))) {
            slot.1 = Some(q.wait);
        }
    }
    let movable = |(pairs, _): &(Vec<usize>, Option<PosId>)| {
        pairs.iter().all(|&j| {
            let q = &a.pairs[j];
            q.set != p.set && before(positions.path(q.set), at) && dominates(positions.path(q.set), at)
        })
    };
    let last = |k: u8| outstanding[k as usize].1.map(|w| positions.path(w));
    let id = (0..MAX_EVENT_IDS)
        .filter(|&k| movable(&outstanding[k as usize]) && last(k).is_some())
        .min_by(|&x, &y| last(x).cmp(&last(y)))?;
    for &j in &outstanding[id as usize].0 {
        a.pairs[j].wait = p.set;
        a.pairs[j].wait_after = false;
    }
    Some(id)
}

/// The ids in use. (Only looked up, never iterated.)
#[derive(Default)]
struct EventIds {
    /// The id of each set statement: a set moved before the statement at a position and one
    /// after it are two statements, so two events.
    by_set: FxHashMap<(PipeType, PipeType, PosId, bool), u8>,
    /// Latest wait position of each id, per pipe pair.
    freed_at: BTreeMap<(PipeType, PipeType, u8), PosId>,
}

impl EventIds {
    fn alloc(
        &mut self,
        positions: &Positions,
        src: PipeType,
        dst: PipeType,
        set: PosId,
        before_it: bool,
    ) -> Option<u8> {
        if let Some(&id) = self.by_set.get(&(src, dst, set, before_it)) {
            return Some(id);
        }
        let set_path = positions.path(set);
        let id = (0..MAX_EVENT_IDS)
            .find(|&id| self.freed_at.get(&(src, dst, id)).is_none_or(|&w| before(positions.path(w), set_path)))?;
        self.by_set.insert((src, dst, set, before_it), id);
        Some(id)
    }

    fn free(&mut self, positions: &Positions, src: PipeType, dst: PipeType, wait: PosId, id: u8) {
        let slot = self.freed_at.entry((src, dst, id)).or_insert(wait);
        if before(positions.path(*slot), positions.path(wait)) {
            *slot = wait;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::insert_sync::position::ops;
    use PipeType::{Mte1, Mte2};

    #[test]
    fn an_id_is_reused_once_its_wait_is_before_the_next_set() {
        let (ps, at) = ops(101);
        let mut ids = EventIds::default();
        assert_eq!(ids.alloc(&ps, Mte2, Mte1, at[0], false), Some(0));
        ids.free(&ps, Mte2, Mte1, at[1], 0);
        // Set at the wait itself: not strictly after it, so a new id.
        assert_eq!(ids.alloc(&ps, Mte2, Mte1, at[1], false), Some(1));
        ids.free(&ps, Mte2, Mte1, at[3], 1);
        assert_eq!(ids.alloc(&ps, Mte2, Mte1, at[2], false), Some(0));
        // The same set position of the same pipe pair keeps its id.
        assert_eq!(ids.alloc(&ps, Mte2, Mte1, at[2], false), Some(0));
        // Other pipe pairs have their own ids.
        assert_eq!(ids.alloc(&ps, Mte1, Mte2, at[1], false), Some(0));
    }

    #[test]
    fn free_keeps_the_latest_wait() {
        let (ps, at) = ops(101);
        let mut ids = EventIds::default();
        ids.free(&ps, Mte2, Mte1, at[5], 0);
        ids.free(&ps, Mte2, Mte1, at[2], 0);
        assert_eq!(ids.alloc(&ps, Mte2, Mte1, at[4], false), Some(1));
        assert_eq!(ids.alloc(&ps, Mte2, Mte1, at[6], false), Some(0));
    }

    #[test]
    fn eight_outstanding_events_exhaust_a_pipe_pair() {
        let (ps, at) = ops(101);
        let mut ids = EventIds::default();
        for i in 0..8 {
            let id = ids.alloc(&ps, Mte2, Mte1, at[i], false).unwrap();
            assert_eq!(id, i as u8);
            ids.free(&ps, Mte2, Mte1, at[100], id);
        }
        assert_eq!(ids.alloc(&ps, Mte2, Mte1, at[8], false), None);
    }
}
