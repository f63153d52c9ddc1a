//! Phases 2 and 3 of InsertSync (spec §2.10): move the ends of pairs that cross a scope
//! boundary to the edge of the `OpStmts` on the outer side, then give each cross-pipe pair a
//! hardware event id (0–7 per pipe pair), reusing an id once its previous wait is behind.

use std::collections::{BTreeMap, HashMap};

use super::collect::{dedup_from, Analysis};
use super::position::{before, depth, same_scope, Elem, Kind, Pos};
use crate::ir::PipeType;

/// Hardware event ids per (set pipe, wait pipe).
pub const MAX_EVENT_IDS: u8 = 8;

/// Phase 2 over all pairs, in order; then de-duplicates them (flags ignored, first wins).
pub fn adjust_scopes(a: &mut Analysis) {
    let op_counts = &a.op_counts;
    for p in &mut a.pairs {
        let same = same_scope(&p.set, &p.wait);
        if same && (before(&p.wait, &p.set) || p.wait == p.set) {
            // Cross-iteration dependence: wait at the end of the iteration (after the set's run).
            p.wait = end_of_ops(&p.set, op_counts);
            p.wait_after = true;
        } else if p.same_pipe() || same {
        } else if depth(&p.wait) > depth(&p.set) {
            // The consumer is nested deeper: wait right after the producer's run of ops.
            p.wait = end_of_ops(&p.set, op_counts);
            p.wait_after = true;
        } else {
            // The producer is nested deeper: set right before the consumer's run of ops.
            p.set = begin_of_ops(&p.wait);
            p.set_before = true;
        }
    }
    dedup_from(&mut a.pairs, 0);
}

/// The last statement of the `OpStmts` holding `p` (`p` itself if it is not in one).
fn end_of_ops(p: &Pos, op_counts: &HashMap<Pos, usize>) -> Pos {
    match p.split_last() {
        Some((last, run)) if last.kind == Kind::Op && !run.is_empty() => match op_counts.get(run) {
            Some(&n) => {
                let mut q = run.to_vec();
                q.push(Elem::op(n.saturating_sub(1)));
                Pos::from(q)
            }
            None => p.clone(),
        },
        _ => p.clone(),
    }
}

/// The first statement of the `OpStmts` holding `p` (`p` itself if it is not in one).
fn begin_of_ops(p: &Pos) -> Pos {
    if p.len() >= 2 && p.last().is_some_and(|e| e.kind == Kind::Op) {
        let mut q = p.to_vec();
        *q.last_mut().unwrap() = Elem::op(0);
        return Pos::from(q);
    }
    p.clone()
}

/// Phase 3 failed: the pair at this index found all event ids of its pipe pair in use.
#[derive(Debug, PartialEq)]
pub struct OutOfEventIds {
    pub pair: usize,
}

/// Phase 3: cross-pipe pairs in ascending set position (stable), each takes the id already
/// given to its (pipes, set position) or the smallest id whose last wait is before the set.
pub fn assign_event_ids(a: &mut Analysis) -> Result<(), OutOfEventIds> {
    let mut order: Vec<usize> = (0..a.pairs.len()).filter(|&i| !a.pairs[i].same_pipe()).collect();
    order.sort_by(|&x, &y| a.pairs[x].set.cmp(&a.pairs[y].set));
    let mut ids = EventIds::default();
    for i in order {
        let p = &a.pairs[i];
        let id = ids.alloc(p.src, p.dst, &p.set).ok_or(OutOfEventIds { pair: i })?;
        ids.free(p.src, p.dst, &p.wait, id);
        a.pairs[i].event_id = Some(id);
    }
    Ok(())
}

#[derive(Default)]
struct EventIds {
    by_set: BTreeMap<(PipeType, PipeType, Pos), u8>,
    /// Latest wait position of each id, per pipe pair.
    freed_at: BTreeMap<(PipeType, PipeType, u8), Pos>,
}

impl EventIds {
    fn alloc(&mut self, src: PipeType, dst: PipeType, set: &Pos) -> Option<u8> {
        if let Some(&id) = self.by_set.get(&(src, dst, set.clone())) {
            return Some(id);
        }
        let id = (0..MAX_EVENT_IDS).find(|&id| self.freed_at.get(&(src, dst, id)).is_none_or(|w| before(w, set)))?;
        self.by_set.insert((src, dst, set.clone()), id);
        Some(id)
    }

    fn free(&mut self, src: PipeType, dst: PipeType, wait: &Pos, id: u8) {
        let slot = self.freed_at.entry((src, dst, id)).or_insert_with(|| wait.clone());
        if before(slot, wait) {
            *slot = wait.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PipeType::{Mte1, Mte2};

    fn at(i: usize) -> Pos {
        Pos::from([Elem::seq(0), Elem::op(i)])
    }

    #[test]
    fn an_id_is_reused_once_its_wait_is_before_the_next_set() {
        let mut ids = EventIds::default();
        assert_eq!(ids.alloc(Mte2, Mte1, &at(0)), Some(0));
        ids.free(Mte2, Mte1, &at(1), 0);
        // Set at the wait itself: not strictly after it, so a new id.
        assert_eq!(ids.alloc(Mte2, Mte1, &at(1)), Some(1));
        ids.free(Mte2, Mte1, &at(3), 1);
        assert_eq!(ids.alloc(Mte2, Mte1, &at(2)), Some(0));
        // The same set position of the same pipe pair keeps its id.
        assert_eq!(ids.alloc(Mte2, Mte1, &at(2)), Some(0));
        // Other pipe pairs have their own ids.
        assert_eq!(ids.alloc(Mte1, Mte2, &at(1)), Some(0));
    }

    #[test]
    fn free_keeps_the_latest_wait() {
        let mut ids = EventIds::default();
        ids.free(Mte2, Mte1, &at(5), 0);
        ids.free(Mte2, Mte1, &at(2), 0);
        assert_eq!(ids.alloc(Mte2, Mte1, &at(4)), Some(1));
        assert_eq!(ids.alloc(Mte2, Mte1, &at(6)), Some(0));
    }

    #[test]
    fn eight_outstanding_events_exhaust_a_pipe_pair() {
        let mut ids = EventIds::default();
        for i in 0..8 {
            let id = ids.alloc(Mte2, Mte1, &at(i)).unwrap();
            assert_eq!(id, i as u8);
            ids.free(Mte2, Mte1, &at(100), id);
        }
        assert_eq!(ids.alloc(Mte2, Mte1, &at(8)), None);
    }
}
