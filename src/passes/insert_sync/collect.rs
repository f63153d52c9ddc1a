//! Phase 1 of InsertSync (spec §2.10): walk the body, pair every leaf with the earlier
//! leaves it depends on through a MemRef (RAW, WAW, WAR), and prune redundant pairs.
//!
//! The state is "who wrote / read each MemRef last" per control-flow path; an `if` merges its
//! branches' states by concatenation and a loop body is walked twice in a row so that the
//! second copy sees the first copy's accesses (cross-iteration dependences), after which
//! positions of the copy are mapped back onto the original statements.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::effects::{leaf_effects, MemKey};
use super::pairs::{Pair, PairList};
use super::position::{Elem, Kind, Path, PosId, Positions};
use super::reduce::{remove_linear, remove_transitive};
use crate::diag::Span;
use crate::ir::{PipeType, Program, Stmt};
use crate::passes::Backend;

/// What phase 1 hands to the later phases.
#[derive(Debug, Default)]
pub struct Analysis {
    pub pairs: Vec<Pair>,
    /// Every position of the pairs (phase 2 adds the ones it moves ends to).
    pub positions: Positions,
    /// Number of statements of each `OpStmts`, keyed by the position of its `Seq(i)`.
    /// (Only looked up, never iterated: output order is unaffected.)
    pub op_counts: FxHashMap<PosId, usize>,
    /// Source span of every leaf visited, indexed by position, for diagnostics.
    spans: Vec<Option<Span>>,
}

impl Analysis {
    /// The source span of the leaf at `p` (none for positions that are not leaves).
    pub fn span(&self, p: PosId) -> Span {
        self.spans.get(p.index()).copied().flatten().unwrap_or(Span::NONE)
    }
}

/// Last writers and readers of each MemRef (keyed in MemRef-id order, §6 Q7).
#[derive(Clone, Debug, Default)]
struct State {
    writers: BTreeMap<MemKey, Vec<PosId>>,
    readers: BTreeMap<MemKey, Vec<PosId>>,
}

impl State {
    /// The state after an `if`: each MemRef's lists are the then lists followed by the else lists.
    fn merge(a: State, b: State) -> State {
        fn cat(mut x: BTreeMap<MemKey, Vec<PosId>>, y: BTreeMap<MemKey, Vec<PosId>>) -> BTreeMap<MemKey, Vec<PosId>> {
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
    let mut c = Collector {
        prog,
        backend,
        path: Vec::new(),
        pipes: Vec::new(),
        pairs: PairList::default(),
        producers: FxHashSet::default(),
        out: Analysis::default(),
    };
    let mut state = State::default();
    c.stmt(body, &mut state);
    c.out.pairs = c.pairs.into_vec();
    c.out
}

struct Collector<'a> {
    prog: &'a Program,
    backend: Backend,
    /// Path of the statement being visited.
    path: Path,
    /// Pipe of every leaf with memory effects, indexed by position (the reference's
    /// `pos_to_stmt`).
    pipes: Vec<Option<PipeType>>,
    pairs: PairList,
    /// The producers paired with the current leaf (kept to reuse its table).
    producers: FxHashSet<PosId>,
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
        let start = self.pairs.len();
        for (i, s) in stmts.iter().cycle().take(stmts.len() * reps).enumerate() {
            self.path.push(Elem::seq(i));
            match s {
                Stmt::Ops { stmts: ops, .. } => {
                    let run = self.out.positions.intern(&self.path);
                    self.out.op_counts.insert(run, ops.len());
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
        self.pairs.dedup_from(start);
        remove_transitive(&mut self.pairs, &self.out.positions, start);
        remove_linear(&mut self.pairs, &self.out.positions, start);
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
        let start = self.pairs.len();
        self.seq(stmts, 2, state);
        let (body_path, positions) = (self.path.as_slice(), &mut self.out.positions);
        let mut fold = |p| fold_copy(positions, p, body_path, n);
        self.pairs.map_ends_from(start, &mut fold);
        let mut seen = FxHashSet::default();
        for lists in [&mut state.writers, &mut state.readers] {
            for list in lists.values_mut() {
                seen.clear();
                list.iter_mut().for_each(|p| *p = fold(*p));
                list.retain(|&p| seen.insert(p));
            }
        }
        self.pairs.dedup_from(start);
        self.path.pop();
    }

    fn leaf(&mut self, s: &Stmt, state: &mut State) {
        let here = self.out.positions.intern(&self.path);
        let k = here.index();
        if self.out.spans.len() <= k {
            self.out.spans.resize(k + 1, None);
        }
        self.out.spans[k].get_or_insert(s.span());
        let Some(fx) = leaf_effects(self.prog, self.backend, s) else { return };
        if self.pipes.len() <= k {
            self.pipes.resize(k + 1, None);
        }
        self.pipes[k] = Some(fx.pipe);
        // Each producer is paired once: a repeat (a leaf writing what it reads, or one producer
        // of two operands) would be the same pair, which the de-duplication drops anyway.
        // (`state` is not part of `self`, so the lists are read in place.)
        let mut producers = std::mem::take(&mut self.producers);
        producers.clear();
        let writers = fx.reads.iter().chain(&fx.writes).flat_map(|m| state.writers.get(m)).flatten();
        let readers = fx.writes.iter().flat_map(|m| state.readers.get(m)).flatten();
        for &p in writers.chain(readers) {
            if producers.insert(p) {
                self.pair(p, here);
            }
        }
        self.producers = producers;
        for m in &fx.writes {
            let writers = state.writers.entry(*m).or_default();
            writers.clear();
            writers.push(here);
            state.readers.entry(*m).or_default().clear();
        }
        for m in &fx.reads {
            state.readers.entry(*m).or_default().push(here);
        }
    }

    /// Records `producer → consumer` unless either end runs on the scalar pipe.
    fn pair(&mut self, producer: PosId, consumer: PosId) {
        let pipe = |p: PosId| self.pipes.get(p.index()).copied().flatten();
        let (Some(src), Some(dst)) = (pipe(producer), pipe(consumer)) else { return };
        if src == PipeType::S || dst == PipeType::S {
            return;
        }
        self.pairs.push(Pair {
            src,
            dst,
            set: producer,
            wait: consumer,
            set_before: false,
            wait_after: false,
            event_id: None,
        });
    }
}

/// Maps a position in the second copy of an unrolled body (`body` is the path of the loop's
/// `ForBody` marker, `n` the body's length) back onto the original: only the element right after
/// `body` changes, and only for positions inside this loop (a new position only when it changes).
fn fold_copy(positions: &mut Positions, p: PosId, body: &[Elem], n: usize) -> PosId {
    let path = positions.path(p);
    let k = body.len();
    match path.get(k) {
        Some(e) if e.kind == Kind::Seq && e.index >= n && path.starts_with(body) => {
            positions.intern_edited(p, |v| v[k].index -= n)
        }
        _ => p,
    }
}

/// The children of a body: a sequence's, or the body itself as a one-child sequence.
pub fn as_seq(body: &Stmt) -> &[Stmt] {
    match body {
        Stmt::Seq { stmts, .. } => stmts,
        other => std::slice::from_ref(other),
    }
}
