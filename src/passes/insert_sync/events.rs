//! Phases 2 and 3 of InsertSync (spec §2.10): move the ends of pairs that cross a scope
//! boundary to the edge of the `OpStmts` on the outer side, then give each cross-pipe pair a
//! hardware event id (0–7 per pipe pair), reusing an id once its previous wait is behind.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::collect::Analysis;
use super::pairs::{dedup_from, CarriedFlag, Pair};
use super::position::{before, depth, dominates, same_scope, Elem, Kind, PosId, Positions};
use crate::ir::PipeType;

/// Hardware event ids per (set pipe, wait pipe).
pub const MAX_EVENT_IDS: u8 = 8;

/// Phase 2 over all pairs, in order; then de-duplicates them (first wins).
pub fn adjust_scopes(a: &mut Analysis) {
    let Analysis { pairs, positions, op_counts, jumps, rules, carried_flags, carried, .. } = a;
    let mut flagged = vec![false; pairs.len()];
    for (i, p) in pairs.iter_mut().enumerate() {
        let (set, wait) = (positions.path(p.set), positions.path(p.wait));
        let same = same_scope(set, wait);
        if *carried_flags && same && !p.same_pipe() && before(wait, set) {
            let body = carried_loop_body(set, wait, positions, jumps);
            // The loop statement was interned as phase 1 entered it.
            if let Some(loop_at) = body.and_then(|b| positions.get(&b[..b.len() - 1])) {
                carried.push(CarriedFlag { src: p.src, dst: p.dst, set: p.set, wait: p.wait, loop_at });
                flagged[i] = true;
                continue;
            }
        }
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
    let mut k = 0;
    pairs.retain(|_| {
        k += 1;
        !flagged[k - 1]
    });
    reduce_carried(carried, positions);
    dedup_from(pairs, 0);
    if rules.guarded() {
        merge_shared_sets(pairs, positions);
    }
}

/// The path of the loop body holding `set` and `wait` (in one sequence, [`same_scope`])
/// directly, when a carried flag can synchronise them: the sequence is a loop body, both are
/// its statements (or statements of its `OpStmts`), and no `break` or `continue` lies in the
/// loop (a jump past the set would leave the next wait without its flag).
fn carried_loop_body<'p>(set: &'p [Elem], wait: &[Elem], positions: &Positions, jumps: &[PosId]) -> Option<&'p [Elem]> {
    let k = depth(set)?;
    let direct = |p: &[Elem]| p.len() == k + 1 || (p.len() == k + 2 && p[k + 1].kind() == Kind::Op);
    if k == 0 || set[k - 1].kind() != Kind::ForBody || !direct(set) || !direct(wait) {
        return None;
    }
    let body = &set[..k];
    if jumps.iter().any(|&j| positions.path(j).starts_with(body)) {
        return None;
    }
    Some(body)
}

/// Keeps the carried flags that are needed: of those with one set (and pipes), the earliest
/// wait (it holds back the waiting pipe, so the later waits' statements too); of those with one
/// wait, the latest set (it fires once the earlier ones' statements finished, being on their
/// pipe). In order of set, then wait.
fn reduce_carried(carried: &mut Vec<CarriedFlag>, positions: &Positions) {
    let path = |p: PosId| positions.path(p);
    carried.sort_by(|x, y| path(x.set).cmp(path(y.set)).then_with(|| path(x.wait).cmp(path(y.wait))));
    carried.dedup_by(|later, first| {
        (later.src, later.dst, later.set, later.loop_at) == (first.src, first.dst, first.set, first.loop_at)
    });
    let mut latest: FxHashMap<(PipeType, PipeType, PosId), PosId> = FxHashMap::default();
    for c in carried.iter() {
        let slot = latest.entry((c.src, c.dst, c.wait)).or_insert(c.set);
        if before(path(*slot), path(c.set)) {
            *slot = c.set;
        }
    }
    carried.retain(|c| latest.get(&(c.src, c.dst, c.wait)) == Some(&c.set));
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
///
/// Carried flags take the highest ids of their pipe pair, one each, kept from every other pair
/// of the function (a flag is outstanding through its whole loop); a flag of a loop nested in
/// another's takes ids below the outer loop's. Their pairs are added last.
pub fn assign_event_ids(a: &mut Analysis) -> Result<(), OutOfEventIds> {
    let mut order: Vec<usize> = (0..a.pairs.len()).filter(|&i| !a.pairs[i].same_pipe()).collect();
    order.sort_by(|&x, &y| a.positions.path(a.pairs[x].set).cmp(a.positions.path(a.pairs[y].set)));
    let mut ids = EventIds::default();
    let flags = carried_ids(a, &mut ids)?;
    for (n, &i) in order.iter().enumerate() {
        let p = a.pairs[i];
        let id = match ids.alloc(&a.positions, p.src, p.dst, p.set, p.set_before) {
            Some(id) => id,
            None => {
                let limit = ids.limit(p.src, p.dst);
                let id = free_by_hoisting(a, &order[..n], i, limit).ok_or(OutOfEventIds { pair: i })?;
                ids.freed_at.insert((p.src, p.dst, id), p.set);
                ids.by_set.insert((p.src, p.dst, p.set, p.set_before), id);
                id
            }
        };
        ids.free(&a.positions, p.src, p.dst, p.wait, id);
        a.pairs[i].event_id = Some(id);
    }
    for (c, id) in a.carried.iter().zip(flags) {
        let pair = |set, set_before, wait, wait_after| Pair {
            src: c.src,
            dst: c.dst,
            set,
            wait,
            set_before,
            wait_after,
            event_id: Some(id),
        };
        // In the body; the prologue (before the loop, for the first iteration's wait); the
        // drain (after the loop, for the last iteration's set).
        a.pairs.push(pair(c.set, false, c.wait, false));
        a.pairs.push(pair(c.loop_at, true, c.wait, false));
        a.pairs.push(pair(c.set, false, c.loop_at, true));
    }
    Ok(())
}

/// The event id of each carried flag of `a` (in order), and the ids below them left to the
/// other pairs in `ids`. An error when a pipe pair would need more ids than it has (the caller
/// then places the syncs without carried flags, so the error's pair is never reported).
fn carried_ids(a: &Analysis, ids: &mut EventIds) -> Result<Vec<u8>, OutOfEventIds> {
    let positions = &a.positions;
    let mut out = Vec::with_capacity(a.carried.len());
    // Per (pipe pair, loop): the flags given ids so far.
    let mut per_loop: FxHashMap<(PipeType, PipeType, PosId), u8> = FxHashMap::default();
    for c in &a.carried {
        let inside = |outer: PosId| {
            let (o, l) = (positions.path(outer), positions.path(c.loop_at));
            o.len() < l.len() && l.starts_with(o)
        };
        // The flags of the loops around this one, which are outstanding all through it.
        let enclosing = a.carried.iter().filter(|o| (o.src, o.dst) == (c.src, c.dst) && inside(o.loop_at)).count();
        let enclosing = u8::try_from(enclosing).unwrap_or(u8::MAX);
        let own = per_loop.entry((c.src, c.dst, c.loop_at)).or_insert(0);
        let used = enclosing.saturating_add(*own).saturating_add(1);
        if used > MAX_EVENT_IDS {
            return Err(OutOfEventIds { pair: 0 });
        }
        *own += 1;
        out.push(MAX_EVENT_IDS - used);
        let limit = ids.limits.entry((c.src, c.dst)).or_insert(MAX_EVENT_IDS);
        *limit = (*limit).min(MAX_EVENT_IDS - used);
    }
    Ok(out)
}

/// Frees an event id for pair `new` (whose set is after its statement) when all eight of its
/// pipe pair are outstanding there: the waits of the id whose last wait comes first move to
/// just before the statement of the new set. A wait may move earlier as long as it stays after
/// its set: it then holds back its pipe sooner, which orders everything it ordered before. Only
/// ids whose outstanding pairs have their set on every path to the new set qualify (else the
/// moved wait could wait for a set that did not run). `done`: the pairs given ids so far.
fn free_by_hoisting(a: &mut Analysis, done: &[usize], new: usize, limit: u8) -> Option<u8> {
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
    let id = (0..limit)
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
    /// Per pipe pair, the ids below which the pairs' ids are (the ones from there on are
    /// carried flags'); all ids when absent.
    limits: FxHashMap<(PipeType, PipeType), u8>,
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
        let id = (0..self.limit(src, dst))
            .find(|&id| self.freed_at.get(&(src, dst, id)).is_none_or(|&w| before(positions.path(w), set_path)))?;
        self.by_set.insert((src, dst, set, before_it), id);
        Some(id)
    }

    fn limit(&self, src: PipeType, dst: PipeType) -> u8 {
        self.limits.get(&(src, dst)).copied().unwrap_or(MAX_EVENT_IDS)
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
    fn carried_flags_take_the_top_ids_and_an_inner_loop_those_below_the_outer_ones() {
        let mut a = Analysis::default();
        let ps = &mut a.positions;
        let outer_at = ps.intern(&[Elem::seq(0)]);
        let outer = [Elem::seq(0), Elem::marker(Kind::ForBody)];
        let inner_at = ps.intern(&[outer[0], outer[1], Elem::seq(1)]);
        let inner = [outer[0], outer[1], Elem::seq(1), Elem::marker(Kind::ForBody)];
        let at = |ps: &mut Positions, body: &[Elem], i| ps.intern(&[body, &[Elem::seq(0), Elem::op(i)]].concat());
        let (ow, os) = (at(ps, &outer, 0), at(ps, &outer, 1));
        let (iw, is) = (at(ps, &inner, 0), at(ps, &inner, 1));
        let flag = |set, wait, loop_at| CarriedFlag { src: Mte2, dst: Mte1, set, wait, loop_at };
        a.carried = vec![flag(os, ow, outer_at), flag(is, iw, inner_at)];
        let mut ids = EventIds::default();
        assert_eq!(carried_ids(&a, &mut ids), Ok(vec![7, 6]));
        assert_eq!(ids.limit(Mte2, Mte1), 6, "the other pairs keep ids 0-5");
        assert_eq!(ids.limit(Mte1, Mte2), MAX_EVENT_IDS, "other pipe pairs keep all ids");
        // Nine flags of one pipe pair in one loop are more than its ids.
        a.carried = (0..9).map(|_| flag(os, ow, outer_at)).collect();
        assert!(carried_ids(&a, &mut EventIds::default()).is_err());
    }

    #[test]
    fn of_carried_flags_with_one_set_the_earliest_wait_and_with_one_wait_the_latest_set_stay() {
        let (ps, at) = ops(6);
        let flag = |set, wait| CarriedFlag { src: Mte2, dst: Mte1, set, wait, loop_at: at[5] };
        // One set, two waits: the earlier wait holds back the later one's statement too.
        let mut flags = vec![flag(at[3], at[1]), flag(at[3], at[0])];
        reduce_carried(&mut flags, &ps);
        assert_eq!(flags, [flag(at[3], at[0])]);
        // One wait, two sets: the later set fires once the earlier one's statement finished.
        let mut flags = vec![flag(at[4], at[0]), flag(at[2], at[0])];
        reduce_carried(&mut flags, &ps);
        assert_eq!(flags, [flag(at[4], at[0])]);
        // Other waits and sets are kept.
        let mut flags = vec![flag(at[4], at[1]), flag(at[3], at[0])];
        reduce_carried(&mut flags, &ps);
        assert_eq!(flags.len(), 2);
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
