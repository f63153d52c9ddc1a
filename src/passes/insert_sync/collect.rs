//! Phase 1 of InsertSync (spec §2.10): walk the body, pair every leaf with the earlier
//! leaves it depends on through a MemRef (RAW, WAW, WAR), and prune redundant pairs.
//!
//! The state is "who wrote / read each MemRef last" per control-flow path; an `if` merges its
//! branches' states by concatenation and a loop body is walked twice in a row so that the
//! second copy sees the first copy's accesses (cross-iteration dependences), after which
//! positions of the copy are mapped back onto the original statements.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::effects::{leaf_effects, MemKey};
use super::position::{before, dominates, Elem, Kind, Path, Pos};
use crate::diag::Span;
use crate::ir::{PipeType, Program, Stmt};
use crate::passes::Backend;

/// A dependence to synchronise: `src` pipe at `set` must finish before `dst` pipe at `wait`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub src: PipeType,
    pub dst: PipeType,
    pub set: Pos,
    pub wait: Pos,
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
    fn key(&self) -> (&Pos, &Pos, PipeType, PipeType) {
        (&self.set, &self.wait, self.src, self.dst)
    }
}

/// What phase 1 hands to the later phases.
#[derive(Debug, Default)]
pub struct Analysis {
    pub pairs: Vec<Pair>,
    /// Number of statements of each `OpStmts`, keyed by the path of its `Seq(i)`.
    /// (Hash maps here and below are only looked up, never iterated: output order is unaffected.)
    pub op_counts: HashMap<Pos, usize>,
    /// Source span of every leaf visited, for diagnostics.
    pub spans: HashMap<Pos, Span>,
}

/// Last writers and readers of each MemRef (keyed in MemRef-id order, §6 Q7).
#[derive(Clone, Debug, Default)]
struct State {
    writers: BTreeMap<MemKey, Vec<Pos>>,
    readers: BTreeMap<MemKey, Vec<Pos>>,
}

impl State {
    /// The state after an `if`: each MemRef's lists are the then lists followed by the else lists.
    fn merge(a: State, b: State) -> State {
        fn cat(mut x: BTreeMap<MemKey, Vec<Pos>>, y: BTreeMap<MemKey, Vec<Pos>>) -> BTreeMap<MemKey, Vec<Pos>> {
            for (k, mut v) in y {
                x.entry(k).or_default().append(&mut v);
            }
            x
        }
        State { writers: cat(a.writers, b.writers), readers: cat(a.readers, b.readers) }
    }
}

/// Runs phase 1 on a function body.
pub fn collect(prog: &Program, backend: Backend, body: &Stmt) -> Analysis {
    let mut c = Collector { prog, backend, path: Vec::new(), pipes: HashMap::new(), out: Analysis::default() };
    let mut state = State::default();
    c.stmt(body, &mut state);
    c.out
}

struct Collector<'a> {
    prog: &'a Program,
    backend: Backend,
    /// Path of the statement being visited.
    path: Path,
    /// Pipe of every leaf with memory effects (the reference's `pos_to_stmt`).
    pipes: HashMap<Pos, PipeType>,
    out: Analysis,
}

impl Collector<'_> {
    /// Only sequences, ifs and loops are entered; anything else at this level is opaque.
    fn stmt(&mut self, s: &Stmt, state: &mut State) {
        match s {
            Stmt::Seq { stmts, .. } => self.seq(stmts, 1, state),
            Stmt::If { then_body, else_body, .. } => self.if_stmt(then_body, else_body.as_deref(), state),
            Stmt::For { body, .. } => self.for_body(body, state),
            _ => {}
        }
    }

    /// The statements `reps` times in a row (2 for an unrolled loop body: the copy has
    /// indices n..2n−1), without materialising the copy.
    fn seq(&mut self, stmts: &[Stmt], reps: usize, state: &mut State) {
        let start = self.out.pairs.len();
        for (i, s) in stmts.iter().cycle().take(stmts.len() * reps).enumerate() {
            self.path.push(Elem::seq(i));
            match s {
                Stmt::Ops { stmts: ops, .. } => {
                    self.out.op_counts.insert(Pos::from(self.path.as_slice()), ops.len());
                    for (j, op) in ops.iter().enumerate() {
                        self.path.push(Elem::op(j));
                        self.leaf(op, state);
                        self.path.pop();
                    }
                }
                Stmt::If { then_body, else_body, .. } => self.if_stmt(then_body, else_body.as_deref(), state),
                Stmt::For { body, .. } => self.for_body(body, state),
                // §6.1 Q21 (fixed): an InCore scope runs on the same core, in program order.
                Stmt::Scope { body, .. } => {
                    self.path.push(Elem::marker(Kind::ScopeBody));
                    self.seq(as_seq(body), 1, state);
                    self.path.pop();
                }
                other => self.leaf(other, state),
            }
            self.path.pop();
        }
        self.dedup(start);
        self.remove_transitive(start);
        self.remove_linear(start);
    }

    fn if_stmt(&mut self, then_body: &Stmt, else_body: Option<&Stmt>, state: &mut State) {
        let saved = state.clone();
        self.path.push(Elem::marker(Kind::IfThen));
        self.stmt(then_body, state);
        self.path.pop();
        let after_then = std::mem::replace(state, saved);
        if let Some(e) = else_body {
            self.path.push(Elem::marker(Kind::IfElse));
            self.stmt(e, state);
            self.path.pop();
        }
        let after_else = std::mem::take(state);
        *state = State::merge(after_then, after_else);
    }

    /// The body twice in a row (indices n..2n−1 for the copy), then the copy's positions are
    /// mapped back: the `Seq(i ≥ n)` right after this loop's `ForBody` becomes `Seq(i − n)`.
    ///
    /// Fixed reference bug §6 Q8 (fuzz finding F2): the reference rewrites every `ForBody,
    /// Seq(i ≥ n)` of a path, so a loop nested at index ≥ n of an outer body moved the outer
    /// positions of its pairs onto another statement, and the syncs of the outer loop were lost
    /// or misplaced. No corpus case has such a nest.
    fn for_body(&mut self, body: &Stmt, state: &mut State) {
        let stmts = as_seq(body);
        if stmts.is_empty() {
            return;
        }
        self.path.push(Elem::marker(Kind::ForBody));
        let n = stmts.len();
        let start = self.out.pairs.len();
        self.seq(stmts, 2, state);
        let body_path = self.path.as_slice();
        for p in &mut self.out.pairs[start..] {
            fold_copy(&mut p.set, body_path, n);
            fold_copy(&mut p.wait, body_path, n);
        }
        for lists in [&mut state.writers, &mut state.readers] {
            for positions in lists.values_mut() {
                let mut seen = BTreeSet::new();
                positions.iter_mut().for_each(|p| fold_copy(p, body_path, n));
                positions.retain(|p| seen.insert(p.clone()));
            }
        }
        self.dedup(start);
        self.path.pop();
    }

    fn leaf(&mut self, s: &Stmt, state: &mut State) {
        let here = Pos::from(self.path.as_slice());
        if !self.out.spans.contains_key(&here) {
            self.out.spans.insert(here.clone(), s.span());
        }
        let Some(fx) = leaf_effects(self.prog, self.backend, s) else { return };
        self.pipes.insert(here.clone(), fx.pipe);
        // `state` is not part of `self`, so the lists are read in place.
        for m in fx.reads.iter().chain(&fx.writes) {
            for w in state.writers.get(m).into_iter().flatten() {
                self.pair(w, &here);
            }
        }
        for m in &fx.writes {
            for r in state.readers.get(m).into_iter().flatten() {
                self.pair(r, &here);
            }
        }
        for m in &fx.writes {
            state.writers.insert(*m, vec![here.clone()]);
            state.readers.insert(*m, Vec::new());
        }
        for m in &fx.reads {
            state.readers.entry(*m).or_default().push(here.clone());
        }
    }

    /// Records `producer → consumer` unless either end runs on the scalar pipe.
    fn pair(&mut self, producer: &Pos, consumer: &Pos) {
        let (Some(&src), Some(&dst)) = (self.pipes.get(producer), self.pipes.get(consumer)) else { return };
        if src == PipeType::S || dst == PipeType::S {
            return;
        }
        self.out.pairs.push(Pair {
            src,
            dst,
            set: producer.clone(),
            wait: consumer.clone(),
            set_before: false,
            wait_after: false,
            event_id: None,
        });
    }

    fn dedup(&mut self, start: usize) {
        dedup_from(&mut self.out.pairs, start);
    }

    /// Drops `A→C` (index ≥ start) when some `A→B` and `B→C` exist with A before B before C.
    /// Decided on the list as it is, then removed all at once. The candidates `A→B` and `B→C`
    /// are looked up in indexes by set and by (set, wait), which keeps this linear in the
    /// number of pairs for straight-line code instead of cubic.
    fn remove_transitive(&mut self, start: usize) {
        let pairs = &self.out.pairs;
        let mut by_set: HashMap<&Pos, Vec<usize>> = HashMap::new();
        let mut by_ends: HashMap<(&Pos, &Pos), Vec<usize>> = HashMap::new();
        for (k, p) in pairs.iter().enumerate() {
            by_set.entry(&p.set).or_default().push(k);
            by_ends.entry((&p.set, &p.wait)).or_default().push(k);
        }
        let redundant: Vec<bool> = (0..pairs.len())
            .map(|i| {
                let ac = &pairs[i];
                i >= start
                    && by_set[&ac.set].iter().any(|&j| {
                        let ab = &pairs[j];
                        j != i
                            && before(&ac.set, &ab.wait)
                            && before(&ab.wait, &ac.wait)
                            && by_ends
                                .get(&(&ab.wait, &ac.wait))
                                .is_some_and(|ks| ks.iter().any(|&k| k != i && k != j))
                    })
            })
            .collect();
        drop_marked(&mut self.out.pairs, &redundant);
    }

    /// For pairs with the same pipes (index ≥ start): with the same wait keep the latest set;
    /// with the same set keep the earliest wait. Decided in order, skipping dropped pairs.
    /// Only pairs sharing the pipes and the wait or the set can interact, so each pair is
    /// compared with those (found through two indexes, visited in list order) and no others.
    ///
    /// A loop-carried pair never stands in for a forward one or one carried by another loop
    /// ([`covers`]): once a loop body's positions are folded, a loop-carried `B→C` can share its
    /// wait with a forward `A→C` from before the loop, but phase 2 moves its wait to the end of
    /// the iteration, so it does not order `A` before `C` in the first iteration (fuzz finding
    /// F2; the spec's reduction, §2.10, has no such guard).
    fn remove_linear(&mut self, start: usize) {
        let pairs = &self.out.pairs;
        let mut by_wait: HashMap<(PipeType, PipeType, &Pos), Vec<usize>> = HashMap::new();
        let mut by_set: HashMap<(PipeType, PipeType, &Pos), Vec<usize>> = HashMap::new();
        for (k, p) in pairs.iter().enumerate().skip(start) {
            by_wait.entry((p.src, p.dst, &p.wait)).or_default().push(k);
            by_set.entry((p.src, p.dst, &p.set)).or_default().push(k);
        }
        let mut redundant = vec![false; pairs.len()];
        let mut candidates = Vec::new();
        for i in start..pairs.len() {
            if redundant[i] {
                continue;
            }
            let p1 = &pairs[i];
            candidates.clear();
            for index in [&by_wait[&(p1.src, p1.dst, &p1.wait)], &by_set[&(p1.src, p1.dst, &p1.set)]] {
                candidates.extend(index.iter().copied().filter(|&j| j > i));
            }
            candidates.sort_unstable();
            candidates.dedup();
            for &j in &candidates {
                let p2 = &pairs[j];
                if redundant[j] {
                    continue;
                }
                // A barrier stays where its pair is (phase 2 moves only loop-carried same-pipe
                // pairs), so the kept barrier must run whenever the dropped one would: its set
                // on every path to the shared wait, its wait on every path to the other's.
                // (Cross-pipe pairs keep the spec's rule: their nested ends are moved out by
                // phase 2, and one set must not get two waits.)
                let runs = |b: &Pos, c: &Pos| !p1.same_pipe() || dominates(b, c);
                if p1.wait == p2.wait {
                    if before(&p1.set, &p2.set) && covers(p2, p1) && runs(&p2.set, &p2.wait) {
                        redundant[i] = true;
                        break;
                    } else if before(&p2.set, &p1.set) && covers(p1, p2) && runs(&p1.set, &p1.wait) {
                        redundant[j] = true;
                    }
                } else if p1.set == p2.set {
                    if before(&p1.wait, &p2.wait) && covers(p1, p2) && runs(&p1.wait, &p2.wait) {
                        redundant[j] = true;
                    } else if before(&p2.wait, &p1.wait) && covers(p2, p1) && runs(&p2.wait, &p1.wait) {
                        redundant[i] = true;
                        break;
                    }
                }
            }
        }
        drop_marked(&mut self.out.pairs, &redundant);
    }
}

/// True if dropping `dropped` in favour of `kept` is sound as far as loops go: a loop-carried
/// pair (its wait does not come after its set in folded positions: a dependence on an earlier
/// iteration, synchronised at the end of an iteration or at the top of the next by phase 2)
/// cannot replace one within an iteration, nor one carried by another loop (an outer loop's
/// sync runs once per outer iteration, not between the inner iterations). Two forward pairs,
/// or two pairs carried by the same loop, keep the reduction of the spec.
fn covers(kept: &Pair, dropped: &Pair) -> bool {
    match (carrier(kept), carrier(dropped)) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(k), Some(d)) => k == d,
    }
}

/// The loop carrying a pair whose wait is not after its set: the depth of the innermost
/// `ForBody` the two positions share (a leaf depending on itself is carried by its innermost
/// loop). `None` for a forward pair (and for a backward one outside any loop, which phase 1
/// does not create).
fn carrier(p: &Pair) -> Option<usize> {
    if before(&p.set, &p.wait) {
        return None;
    }
    let common = p.set.iter().zip(p.wait.iter()).take_while(|(a, b)| a == b).count();
    p.set[..common].iter().rposition(|e| e.kind == Kind::ForBody)
}

/// Keeps the first pair per (set, wait, pipes) among those at index ≥ start, in order.
pub fn dedup_from(pairs: &mut Vec<Pair>, start: usize) {
    let mut seen = HashSet::new();
    let drop: Vec<bool> = pairs.iter().enumerate().map(|(i, p)| i >= start && !seen.insert(p.key())).collect();
    drop_marked(pairs, &drop);
}

fn drop_marked(pairs: &mut Vec<Pair>, redundant: &[bool]) {
    let mut i = 0;
    pairs.retain(|_| {
        let keep = !redundant[i];
        i += 1;
        keep
    });
}

/// Maps a position in the second copy of an unrolled body (`body` is the path of the loop's
/// `ForBody` marker, `n` the body's length) back onto the original: only the element right after
/// `body` changes, and only for positions inside this loop (a new position only when it changes).
fn fold_copy(p: &mut Pos, body: &[Elem], n: usize) {
    let k = body.len();
    match p.get(k) {
        Some(e) if e.kind == Kind::Seq && e.index >= n && p.starts_with(body) => {
            let mut v = p.to_vec();
            v[k].index -= n;
            *p = Pos::from(v);
        }
        _ => {}
    }
}

/// The children of a body: a sequence's, or the body itself as a one-child sequence.
pub fn as_seq(body: &Stmt) -> &[Stmt] {
    match body {
        Stmt::Seq { stmts, .. } => stmts,
        other => std::slice::from_ref(other),
    }
}
