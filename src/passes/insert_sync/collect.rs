//! Phase 1 of InsertSync (spec §2.10): walk the body, pair every leaf with the earlier
//! leaves it depends on through a MemRef (RAW, WAW, WAR), and prune redundant pairs.
//!
//! The state is "who wrote / read each MemRef last" per control-flow path; an `if` merges its
//! branches' states by concatenation and a loop body is walked twice in a row so that the
//! second copy sees the first copy's accesses (cross-iteration dependences), after which
//! positions of the copy are mapped back onto the original statements.

use std::borrow::{Borrow, Cow};

use rustc_hash::FxHashMap;

use super::effects::{leaf_accesses, memref_of, Effects, MemKey, Recorded, Renamed};
use super::pairs::{CarriedFlag, Pair, PairList};
use super::position::{Elem, Kind, Path, PosId, Positions};
use super::reduce::{remove_duplicates, remove_duplicates_and_transitive, remove_linear, Indexes};
use super::rules::Rules;
use super::stamps::{Marks, Memo};
use crate::analysis::effects::Mode;
use crate::analysis::tensor_aliases::TensorAliases;
use crate::backend::Backend;
use crate::diag::Span;
use crate::ir::{Expr, PipeType, Stmt, VarId, VarKind, VarTable};

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
    /// The position of every `break` and `continue`, a loop body's copy folded onto the body
    /// (phase 2 keeps the ends of a pair on the same side of them).
    pub jumps: Vec<PosId>,
    /// The rules the phases follow.
    pub rules: Rules,
    /// Whether phase 2 synchronises a dependence across iterations of a loop by a carried flag
    /// ([`CarriedFlag`], at `-O2`) instead of a wait at the end of the iteration.
    pub carried_flags: bool,
    /// The carried flags phase 2 chose (phase 3 gives them their event ids and adds their
    /// pairs).
    pub carried: Vec<CarriedFlag>,
}

impl Analysis {
    /// The source span of the leaf at `p` (none for positions that are not leaves).
    pub fn span(&self, p: PosId) -> Span {
        self.spans.get(p.index()).copied().flatten().unwrap_or(Span::NONE)
    }
}

/// Last writers and readers of each MemRef, indexed by the MemRef's dense index in the function
/// ([`Collector::memrefs`]; past the end: none yet). Only looked up by MemRef (and each MemRef's
/// lists rewritten on their own), never iterated in an order that reaches the output (§6 Q7
/// concerns orders, and the lists keep theirs).
#[derive(Clone, Debug, Default)]
struct State {
    access: Vec<Access>,
}

/// The last writers and readers of one MemRef, in the order they were recorded.
#[derive(Clone, Debug, Default)]
struct Access {
    writers: Vec<PosId>,
    readers: Vec<PosId>,
}

impl State {
    /// The state after an `if`: each MemRef's lists are the then lists followed by the else lists.
    fn merge(mut a: State, b: State) -> State {
        if a.access.len() < b.access.len() {
            a.access.resize_with(b.access.len(), Access::default);
        }
        for (x, mut y) in a.access.iter_mut().zip(b.access) {
            x.writers.append(&mut y.writers);
            x.readers.append(&mut y.readers);
        }
        a
    }
}

/// [`Collector::by_memref`] of a MemRef variable not met yet, and of one that is no MemRef.
const UNSEEN: u32 = u32::MAX;
const NO_MEMREF: u32 = u32::MAX - 1;

/// Runs phase 1 on a function body, reading the MemRefs in `renamed` as the ones they map to.
///
/// `windows`: a tensor whose accesses in different iterations of a loop touch disjoint
/// windows ([`crate::analysis::windows`]) is read as not carried across that loop's iterations
/// (`-O1`, `-O2`; `-O0` places the reference's syncs).
pub fn collect(
    vars: &VarTable,
    renamed: &Renamed,
    backend: Backend,
    body: &Stmt,
    rules: Rules,
    windows: bool,
) -> Analysis {
    let aliases = TensorAliases::of(vars, [body]);
    let renamed = with_tensor_aliases(renamed, &aliases);
    let walk = |c: &mut Collector, state: &mut State| c.stmt(body, state);
    run(vars, &renamed, backend, positions_hint(body), rules, windows.then_some(&aliases), walk)
}

/// `renamed` with each DDR MemRef read as its tensor's ([`TensorAliases`]): a plan renames
/// on-chip MemRefs only, so the two maps have no key in common.
fn with_tensor_aliases<'r>(renamed: &'r Renamed, aliases: &TensorAliases) -> Cow<'r, Renamed> {
    if aliases.is_empty() {
        return Cow::Borrowed(renamed);
    }
    let mut all = renamed.clone();
    all.extend(aliases.pairs());
    Cow::Owned(all)
}

/// [`collect`] of the body `Seq(top)`, its statements given one by one (so that a caller can
/// leave some out or stand others in for them without copying the rest of the body).
pub fn collect_seq<S: Borrow<Stmt>>(vars: &VarTable, renamed: &Renamed, backend: Backend, top: &[S]) -> Analysis {
    let hint = top.iter().map(|s| positions_hint(s.borrow())).fold(1, usize::saturating_add);
    let aliases = TensorAliases::of(vars, top.iter().map(Borrow::borrow));
    let renamed = with_tensor_aliases(renamed, &aliases);
    run(vars, &renamed, backend, hint, Rules::Guarded, Some(&aliases), |c, state| c.seq(top, 1, state, &[]))
}

/// A collector over `vars` that `walk` drives; `hint`: about how many positions it interns.
fn run(
    vars: &VarTable,
    renamed: &Renamed,
    backend: Backend,
    hint: usize,
    rules: Rules,
    windows: Option<&TensorAliases>,
    walk: impl FnOnce(&mut Collector, &mut State),
) -> Analysis {
    let mut c = Collector {
        vars,
        renamed,
        windows,
        backend,
        path: Vec::new(),
        ids: vec![Positions::ROOT],
        pipes: Vec::new(),
        pairs: PairList::default(),
        marks: Marks::default(),
        folded: Memo::default(),
        indexes: Indexes::default(),
        memrefs: FxHashMap::default(),
        keys: Vec::new(),
        by_memref: vec![UNSEEN; vars.len()],
        effects: Effects::default(),
        recorded: Recorded::default(),
        out: Analysis { rules, ..Analysis::default() },
    };
    c.out.positions.reserve(hint.min(MAX_POSITIONS_HINT));
    let mut state = State::default();
    walk(&mut c, &mut state);
    c.out.pairs = c.pairs.into_vec();
    c.out
}

/// The most positions reserved ahead (a hint, not a limit: a deep nest of loops can make
/// the estimate huge).
const MAX_POSITIONS_HINT: usize = 1 << 20;

/// About how many positions phase 1 interns for `s`: one per statement it walks, a loop body
/// counted twice (both copies), so that the table of positions is sized once instead of grown.
fn positions_hint(s: &Stmt) -> usize {
    let hint = |b: &Stmt| positions_hint(b);
    match s {
        Stmt::Seq { stmts, .. } => stmts.iter().map(hint).fold(1, usize::saturating_add),
        Stmt::Ops { stmts, .. } => stmts.len() + 1,
        Stmt::If { then_body, else_body, .. } => {
            else_body.as_deref().map_or(0, hint).saturating_add(hint(then_body)).saturating_add(3)
        }
        Stmt::For { body, .. } | Stmt::While { body, .. } => hint(body).saturating_mul(2).saturating_add(2),
        Stmt::Scope { body, .. } => hint(body).saturating_add(2),
        _ => 1,
    }
}

/// Which repetition of its sequence a leaf is visited in (see [`Collector::seq`]).
#[derive(Clone, Copy)]
enum Copy {
    /// The sequence is walked once.
    Only,
    /// The first of several repetitions: the effects are computed and recorded.
    First,
    /// A later repetition: the effects are those recorded at this index.
    Again(usize),
}

struct Collector<'a> {
    vars: &'a VarTable,
    renamed: &'a Renamed,
    /// With the DDR tensor classes when tensors private to a loop's iterations are read so
    /// ([`collect`]'s `windows`).
    windows: Option<&'a TensorAliases>,
    backend: Backend,
    /// Path of the statement being visited.
    path: Path,
    /// The id of every prefix of `path` (the root first, the current position last), so that
    /// a leaf's position costs one lookup from its parent instead of a walk over its path.
    ids: Vec<PosId>,
    /// Pipe of every leaf with memory effects, indexed by position (the reference's
    /// `pos_to_stmt`).
    pipes: Vec<Option<PipeType>>,
    pairs: PairList,
    /// The producers paired with the current leaf, or the entries of a folded list.
    marks: Marks,
    /// The folding of the current loop body's copy, per position.
    folded: Memo,
    /// Scratch tables of the reductions.
    indexes: Indexes,
    /// The dense index of each MemRef the leaves walked so far touch, in order of first sight:
    /// the index of its entry in a [`State`]. Sized by what the function uses, and looked up
    /// once per MemRef variable (then [`Collector::by_memref`] answers).
    memrefs: FxHashMap<MemKey, usize>,
    /// The MemRef of each dense index.
    keys: Vec<MemKey>,
    /// The dense index of the MemRef of each MemRef variable met so far, indexed by `VarId`
    /// (`UNSEEN` before it is met, `NO_MEMREF` for one that is no MemRef): an operand's index
    /// is one lookup, not a rename, a key and a hash each time.
    by_memref: Vec<u32>,
    /// The effects of the current leaf (kept to reuse its lists).
    effects: Effects<usize>,
    /// The effects of the leaves of the first copy of the unrolled bodies being walked.
    recorded: Recorded<usize>,
    out: Analysis,
}

impl Collector<'_> {
    /// Steps into `e`: pushes it on the path and its position on the id stack.
    fn enter(&mut self, e: Elem) {
        let id = self.out.positions.child(self.here(), e);
        self.path.push(e);
        self.ids.push(id);
    }

    fn leave(&mut self) {
        self.path.pop();
        self.ids.pop();
    }

    /// The position of the current path.
    fn here(&self) -> PosId {
        self.ids.last().copied().unwrap_or(Positions::ROOT)
    }

    /// Only sequences, ifs and loops are entered; anything else at this level is opaque.
    fn stmt(&mut self, s: &Stmt, state: &mut State) {
        match s {
            Stmt::Seq { stmts, .. } => self.seq(stmts, 1, state, &[]),
            Stmt::If { then_body, else_body, .. } => self.if_stmt(then_body, else_body.as_deref(), state),
            // A while loop is a loop like any other (the reference does not analyse while
            // loops, §2.10 step 5, so their hazards stay unordered): its body may run again
            // after itself.
            Stmt::For { loop_var, start, stop, step, iter_args, body, .. } => {
                let private = self.private_memrefs(*loop_var, step, iter_args, body);
                self.for_body(body, state, runs_once(start, stop, step), &private)
            }
            Stmt::While { body, .. } => self.for_body(body, state, false, &[]),
            _ => {}
        }
    }

    /// The statements `reps` times in a row (2 for an unrolled loop body: the copy has
    /// indices n..2n−1), without materialising the copy.
    ///
    /// The leaves directly in the statements have the same effects in every repetition: they
    /// are computed in the first and replayed from [`Recorded`] in the others.
    ///
    /// `again`: MemRef entries the second repetition starts from (the loop's tensors private to
    /// its iterations, as they were before the first).
    fn seq<S: Borrow<Stmt>>(&mut self, stmts: &[S], reps: usize, state: &mut State, again: &[(usize, Access)]) {
        let start = self.pairs.len();
        let mark = self.recorded.mark();
        let mut next = mark.0;
        for (i, s) in stmts.iter().cycle().take(stmts.len() * reps).enumerate() {
            if i % stmts.len() == 0 {
                next = mark.0;
            }
            if i == stmts.len() {
                for (m, entry) in again {
                    if let Some(a) = state.access.get_mut(*m) {
                        *a = entry.clone();
                    }
                }
            }
            let mut copy = || match (reps, i < stmts.len()) {
                (1, _) => Copy::Only,
                (_, true) => Copy::First,
                (_, false) => {
                    next += 1;
                    Copy::Again(next - 1)
                }
            };
            self.enter(Elem::seq(i));
            match s.borrow() {
                Stmt::Ops { stmts: ops, .. } => {
                    let run = self.here();
                    self.out.op_counts.insert(run, ops.len());
                    self.out.positions.intern_ops(run, ops.len());
                    for (j, op) in ops.iter().enumerate() {
                        let here = self.out.positions.child(run, Elem::op(j));
                        self.leaf_at(here, op, state, copy());
                    }
                }
                Stmt::If { then_body, else_body, .. } => self.if_stmt(then_body, else_body.as_deref(), state),
                Stmt::For { loop_var, start, stop, step, iter_args, body, .. } => {
                    let private = self.private_memrefs(*loop_var, step, iter_args, body);
                    self.for_body(body, state, runs_once(start, stop, step), &private)
                }
                Stmt::While { body, .. } => self.for_body(body, state, false, &[]),
                // §6.1 Q21 (fixed): an InCore scope runs on the same core, in program order.
                Stmt::Scope { body, .. } => {
                    self.enter(Elem::marker(Kind::ScopeBody));
                    self.seq(as_seq(body), 1, state, &[]);
                    self.leave();
                }
                // No effects; where it is tells phase 2 which pairs a jump could split.
                Stmt::Break { .. } | Stmt::Continue { .. } => self.out.jumps.push(self.here()),
                other => self.leaf_at(self.here(), other, state, copy()),
            }
            self.leave();
        }
        self.recorded.truncate(mark);
        let rules = self.out.rules;
        remove_duplicates_and_transitive(&mut self.pairs, &self.out.positions, start, &mut self.indexes, rules);
        remove_linear(&mut self.pairs, &self.out.positions, start, &mut self.indexes, rules);
    }

    fn if_stmt(&mut self, then_body: &Stmt, else_body: Option<&Stmt>, state: &mut State) {
        let saved = state.clone();
        self.enter(Elem::marker(Kind::IfThen));
        self.stmt(then_body, state);
        self.leave();
        let after_then = std::mem::replace(state, saved);
        if let Some(e) = else_body {
            self.enter(Elem::marker(Kind::IfElse));
            self.stmt(e, state);
            self.leave();
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
    /// `runs`: the loop runs at least once (constant bounds), recorded for the reductions.
    /// `private`: the dense indexes of the MemRefs private to the loop's iterations.
    fn for_body(&mut self, body: &Stmt, state: &mut State, runs: bool, private: &[usize]) {
        let stmts = as_seq(body);
        if stmts.is_empty() {
            return;
        }
        self.enter(Elem::marker(Kind::ForBody));
        if runs {
            let here = self.here();
            self.out.positions.mark_always_runs(here);
        }
        let n = stmts.len();
        let start = self.pairs.len();
        let jumps_start = self.out.jumps.len();
        let again: Vec<(usize, Access)> =
            private.iter().map(|&m| (m, state.access.get(m).cloned().unwrap_or_default())).collect();
        self.seq(stmts, 2, state, &again);
        let body = self.here();
        let (body_path, positions, folded) = (self.path.as_slice(), &mut self.out.positions, &mut self.folded);
        folded.next_round();
        let mut fold = |p| folded.get_or(p, |p| fold_copy(positions, p, (body, body_path), n));
        self.pairs.map_ends_from(start, &mut fold);
        // Each jump was met in both copies: keep the first copy's.
        let jumps = &mut self.out.jumps;
        jumps.truncate(jumps_start + (jumps.len() - jumps_start) / 2);
        jumps[jumps_start..].iter_mut().for_each(|j| *j = fold(*j));
        let marks = &mut self.marks;
        for access in &mut state.access {
            for list in [&mut access.writers, &mut access.readers] {
                marks.next_round();
                list.iter_mut().for_each(|p| *p = fold(*p));
                list.retain(|&p| marks.first(p));
            }
        }
        remove_duplicates(&mut self.pairs, start, &mut self.indexes);
        self.leave();
    }

    /// The dense indexes of the tensors private to the iterations of a loop
    /// ([`crate::analysis::windows`]), when [`Collector::windows`] asks for them.
    fn private_memrefs(&mut self, loop_var: VarId, step: &Expr, iter_args: &[VarId], body: &Stmt) -> Vec<usize> {
        let Some(aliases) = self.windows else { return Vec::new() };
        let ms = crate::analysis::windows::iteration_private(
            self.vars,
            self.backend,
            aliases,
            loop_var,
            step,
            iter_args,
            body,
        );
        let mut out: Vec<usize> = ms.into_iter().filter_map(|m| self.dense_of_memref(m)).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The leaf `s` at `here`, in the given repetition of its sequence.
    fn leaf_at(&mut self, here: PosId, s: &Stmt, state: &mut State, copy: Copy) {
        let k = here.index();
        if self.out.spans.len() <= k {
            self.out.spans.resize(k + 1, None);
        }
        self.out.spans[k].get_or_insert(s.span());
        if let Copy::Again(k) = copy {
            // The recorded lists are read in place (taken out of `self` for the call), not copied.
            let recorded = std::mem::take(&mut self.recorded);
            if let Some((pipe, reads, writes)) = recorded.get(k) {
                self.record(pipe, reads, writes, here, state);
            }
            self.recorded = recorded;
            return;
        }
        let mut fx = std::mem::take(&mut self.effects);
        let touches_memory = self.effects_of(s, &mut fx);
        if let Copy::First = copy {
            self.recorded.record(touches_memory.then_some(&fx));
        }
        if touches_memory {
            self.record(fx.pipe, &fx.reads, &fx.writes, here, state);
        }
        self.effects = fx;
    }

    /// Fills `fx` with the effects of leaf `s` ([`leaf_accesses`]), its MemRefs given by
    /// their dense indexes: the reads in MemRef order ([`MemKey`]) without repeats, the writes
    /// in operand order; false when it touches no MemRef.
    fn effects_of(&mut self, s: &Stmt, fx: &mut Effects<usize>) -> bool {
        fx.reads.clear();
        fx.writes.clear();
        let backend = self.backend;
        let Some(pipe) = leaf_accesses(self.vars, s, backend, &mut |mode, v| {
            if let Some(k) = self.dense_memref(v) {
                if mode == Mode::Write { &mut fx.writes } else { &mut fx.reads }.push(k);
            }
        }) else {
            return false;
        };
        if fx.reads.is_empty() && fx.writes.is_empty() {
            return false;
        }
        let keys = &self.keys;
        fx.reads.sort_unstable_by_key(|&k| keys[k]);
        fx.reads.dedup();
        fx.pipe = pipe;
        true
    }

    /// The dense index of the MemRef of variable `v` ([`memref_of`]; new ones numbered in
    /// order of first sight), found through its MemRef variable's entry in `by_memref` once
    /// that MemRef was met.
    fn dense_memref(&mut self, v: VarId) -> Option<usize> {
        let m = self.vars.var_type(v).memref()?;
        let slot = m.0 as usize;
        match self.by_memref.get(slot).copied() {
            Some(NO_MEMREF) => return None,
            Some(k) if k != UNSEEN => return Some(k as usize),
            _ => {}
        }
        let dense = memref_of(self.vars, self.renamed, v).map(|key| {
            let next = self.memrefs.len();
            let keys = &mut self.keys;
            *self.memrefs.entry(key).or_insert_with(|| {
                keys.push(key);
                next
            })
        });
        if let Some(entry) = self.by_memref.get_mut(slot) {
            *entry = dense.map_or(NO_MEMREF, |k| k as u32);
        }
        dense
    }

    /// The dense index of MemRef variable `m` (as [`Collector::dense_memref`] keys it).
    fn dense_of_memref(&mut self, m: VarId) -> Option<usize> {
        let m = self.renamed.get(&m).copied().unwrap_or(m);
        let VarKind::MemRef(info) = &self.vars.get(m)?.kind else { return None };
        let key = (info.id, m);
        let next = self.memrefs.len();
        let keys = &mut self.keys;
        Some(*self.memrefs.entry(key).or_insert_with(|| {
            keys.push(key);
            next
        }))
    }

    /// Pairs the leaf at `here` (on `pipe`, with these MemRef indexes) with its producers in
    /// `state`, then records its accesses.
    fn record(&mut self, pipe: PipeType, reads: &[usize], writes: &[usize], here: PosId, state: &mut State) {
        let k = here.index();
        if self.pipes.len() <= k {
            self.pipes.resize(k + 1, None);
        }
        self.pipes[k] = Some(pipe);
        // Every MemRef of the leaf has an entry (its index is below the number seen so far).
        if state.access.len() < self.memrefs.len() {
            state.access.resize_with(self.memrefs.len(), Access::default);
        }
        // Each producer is paired once: a repeat (a leaf writing what it reads, or one producer
        // of two operands) would be the same pair, which the de-duplication drops anyway.
        // (`state` is not part of `self`, so the lists are read in place.)
        // Plain loops rather than one flattened iterator: this runs for every leaf.
        self.marks.next_round();
        for &m in reads.iter().chain(writes) {
            self.pair_unmarked(&state.access[m].writers, here);
        }
        for &m in writes {
            self.pair_unmarked(&state.access[m].readers, here);
        }
        for &m in writes {
            let access = &mut state.access[m];
            access.writers.clear();
            access.writers.push(here);
            access.readers.clear();
        }
        for &m in reads {
            state.access[m].readers.push(here);
        }
    }

    /// Pairs each producer not marked yet in this round with `consumer`, and marks it.
    fn pair_unmarked(&mut self, producers: &[PosId], consumer: PosId) {
        for &p in producers {
            if self.marks.first(p) {
                self.pair(p, consumer);
            }
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

/// Maps a position in the second copy of an unrolled body (`body` is the id and the path of the
/// loop's `ForBody` marker, `n` the body's length) back onto the original: only the element
/// right after `body` changes, and only for positions inside this loop (a new position only when
/// it changes). The original is found by walking down from `body`, the rest of the path unchanged.
fn fold_copy(positions: &mut Positions, p: PosId, (body, body_path): (PosId, &[Elem]), n: usize) -> PosId {
    let path = positions.path(p);
    let k = body_path.len();
    match path.get(k) {
        Some(&e) if e.kind() == Kind::Seq && e.index() >= n && path.starts_with(body_path) => {
            let mut id = positions.child(body, e.with_index(e.index() - n));
            for i in k + 1..positions.path(p).len() {
                let e = positions.path(p)[i];
                id = positions.child(id, e);
            }
            id
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

/// Whether a `for` loop with these bounds runs at least once (constant bounds only; the sync
/// hazard checker's rule).
fn runs_once(start: &Expr, stop: &Expr, step: &Expr) -> bool {
    match (start.as_const_int(), stop.as_const_int(), step.as_const_int()) {
        (Some(a), Some(b), Some(c)) => (c > 0 && b > a) || (c < 0 && b < a),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::insert_sync::position::ops;

    fn access(writers: &[PosId], readers: &[PosId]) -> Access {
        Access { writers: writers.to_vec(), readers: readers.to_vec() }
    }

    #[test]
    fn merging_states_of_different_lengths_keeps_every_memref() {
        let (_, at) = ops(4);
        // The then branch saw one MemRef, the else branch a second one too.
        let then = State { access: vec![access(&[at[0]], &[at[1]])] };
        let other = State { access: vec![access(&[at[2]], &[]), access(&[], &[at[3]])] };
        let merged = State::merge(then, other);
        assert_eq!(merged.access.len(), 2);
        assert_eq!(merged.access[0].writers, [at[0], at[2]], "then lists first, else lists after");
        assert_eq!(merged.access[0].readers, [at[1]]);
        assert!(merged.access[1].writers.is_empty());
        assert_eq!(merged.access[1].readers, [at[3]]);
        let merged = State::merge(State::default(), State { access: vec![access(&[at[0]], &[])] });
        assert_eq!(merged.access.len(), 1);
        assert_eq!(merged.access[0].writers, [at[0]]);
    }
}
