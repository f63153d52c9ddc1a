//! The dataflow analysis behind the checker: an abstract execution of one function body that
//! follows program order through sequences, both arms of every `if`, and loops up to a fixpoint
//! (so the back edge is followed), tracking which earlier accesses each pipe may still overlap.
//!
//! Hardware model (conservative: only what is guaranteed counts as ordering):
//! * the scalar unit issues ops in program order into per-pipe queues; ops of one pipe execute
//!   in order, except on the pipes of [`SyncModel::barrier_pipes`] (V and M by default), whose
//!   dependent ops need a pipe barrier (`bar_v` / `bar_m`);
//! * different pipes are unordered, except that `sync_src(P1→P2, k)` fires once every earlier
//!   P1 op (and everything P1 was already ordered after) has finished, and `sync_dst(P1→P2, k)`
//!   holds back later P2 ops until a matching set fired; `bar_all` drains every pipe.
//!
//! State: for each pipe Q, the accesses that may not have finished when the next op of Q
//! starts (`pending[Q]`); for each event, whether a set is surely/possibly outstanding and what
//! may still be unfinished for its waiter; per MemRef, the last writers and the readers since.
//! Joins take unions ("may"), so the result holds on every path.

use std::collections::{BTreeMap, BTreeSet};

use super::effects::{leaf_effect, Effect, Event, MemLoc};
use crate::diag::Span;
use crate::ir::{PipeType, Program, Stmt};
use crate::passes::Backend;

/// Which same-pipe dependencies need a barrier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncModel {
    /// Pipes whose dependent ops are not ordered without a pipe barrier. Default: V and M (what
    /// InsertSync assumes when it inserts `bar_v` / `bar_m`); empty = every pipe is in order.
    pub barrier_pipes: Vec<PipeType>,
}

impl State {
    /// Forgets the set ops in `sets` (deleted): a slot whose outstanding sets are all among
    /// them is no longer outstanding.
    pub fn forget_sets(&mut self, sets: &BTreeSet<usize>) {
        self.slots.retain(|_, slot| {
            let had = !slot.sets.is_empty();
            slot.sets.retain(|s| !sets.contains(s));
            !(had && slot.sets.is_empty())
        });
    }
}

impl Default for SyncModel {
    fn default() -> Self {
        SyncModel { barrier_pipes: vec![PipeType::V, PipeType::M] }
    }
}

/// The kind of a data dependency between two accesses of one MemRef.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DepKind {
    /// Read after write.
    Raw,
    /// Write after read.
    War,
    /// Write after write.
    Waw,
}

impl DepKind {
    pub fn name(self) -> &'static str {
        match self {
            DepKind::Raw => "RAW",
            DepKind::War => "WAR",
            DepKind::Waw => "WAW",
        }
    }
}

/// A finding, by the static ids of the leaves involved (ids number the leaf statements of a
/// function body in program order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Finding {
    /// `second` may start before `first` finished; they conflict on MemRef `mem`.
    Dependency { first: usize, second: usize, kind: DepKind, mem: MemLoc },
    /// The wait may find no set outstanding; `somewhere` = a set is outstanding on some paths.
    UnmatchedWait { wait: usize, somewhere: bool },
}

/// One leaf statement as seen by the analysis.
#[derive(Clone, Debug)]
pub struct Leaf {
    pub span: Span,
    /// The op's IR name (`block.load`), or the statement kind for non-calls.
    pub op: String,
    pub effect: Effect,
    /// The `if` arms around the leaf, outermost first: (number of the `if` in program order,
    /// else arm). Two leaves on different arms of one `if` never run in the same iteration.
    pub arms: Vec<(usize, bool)>,
    /// How many loops (for or while) enclose the leaf.
    pub loops: usize,
}

impl Leaf {
    /// Whether `self` and `other` lie on different arms of one `if`.
    pub fn exclusive(&self, other: &Leaf) -> bool {
        self.arms.iter().any(|(i, arm)| other.arms.iter().any(|(j, arm2)| i == j && arm != arm2))
    }
}

/// Everything one analysis of one function found.
#[derive(Debug, Default)]
pub struct Analysis {
    pub leaves: Vec<Leaf>,
    pub findings: BTreeSet<Finding>,
    /// For each wait, the sets that may be the ones it consumes.
    pub matches: BTreeMap<usize, BTreeSet<usize>>,
    /// A finding outside [`Options::allowed`] was met and the walk stopped: the findings are
    /// incomplete.
    pub aborted: bool,
    /// With [`Options::snapshots`]: for each sync leaf reached, the state just before it in
    /// the walk that reports (a loop's last), and where it is.
    pub snapshots: BTreeMap<usize, Snapshot>,
}

/// The state just before a sync leaf, and the way to the leaf from the function body: what
/// [`resume`] needs to walk on from there.
#[derive(Clone, Debug)]
pub struct Snapshot {
    state: State,
    path: Vec<Step>,
}

/// One step of the way from a function body down to a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Child `i` of a `SeqStmts` / `OpStmts`.
    Child(usize),
    Then,
    Else,
    /// Into a for or while body.
    Loop,
    Scope,
}

/// What an analysis run asks for besides the body.
#[derive(Clone, Copy)]
pub struct Options<'s> {
    /// Leaves treated as absent (to ask "what if these sync ops were deleted").
    pub skip: &'s BTreeSet<usize>,
    /// Stop at the first finding not in this set, reached on any walk (a finding of an early
    /// round of a loop's fixpoint is one of the final round too: the states only grow).
    pub allowed: Option<&'s BTreeSet<Finding>>,
    /// Record [`Analysis::snapshots`].
    pub snapshots: bool,
}

/// Analyses one function body. Leaves whose id is in `skip` are treated as absent (to ask
/// "what if this sync op were deleted").
pub fn analyse(prog: &Program, body: &Stmt, backend: Backend, model: &SyncModel, skip: &BTreeSet<usize>) -> Analysis {
    analyse_with(prog, body, backend, model, Options { skip, allowed: None, snapshots: false })
}

/// [`analyse`] with every option.
pub fn analyse_with(prog: &Program, body: &Stmt, backend: Backend, model: &SyncModel, opts: Options) -> Analysis {
    let mut a = Analyzer::new(prog, backend, model, opts, Analysis::default());
    a.stmt(body, Some(State::default()));
    a.out
}

/// Walks on from a snapshot of `base` (an analysis of `body` with snapshots) taken before leaf
/// `at`, to the end of the straight-line code around it: the rest of each enclosing sequence,
/// out to the nearest enclosing `if` arm or loop body (scopes are passed through). `edit`
/// adjusts the snapshot's state first. Returns whether a finding outside `opts.allowed` was met.
///
/// The walk starts from the state the final walk had there, which is no larger than the state
/// of a full analysis with more leaves skipped: what it finds, such an analysis finds too. So
/// it can only prove that deleting sync ops creates a finding, never that it does not.
pub fn resume(
    prog: &Program,
    body: &Stmt,
    backend: Backend,
    model: &SyncModel,
    base: &mut Analysis,
    at: usize,
    opts: Options,
    edit: impl FnOnce(&mut State),
) -> Option<bool> {
    let snap = base.snapshots.get(&at)?;
    // The enclosing sequences, innermost last, up to the nearest arm or loop body.
    let mut seqs: Vec<(&[Stmt], usize)> = Vec::new();
    let mut cur = body;
    for step in &snap.path {
        cur = match (cur, *step) {
            (Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. }, Step::Child(i)) => {
                seqs.push((stmts, i));
                stmts.get(i)?
            }
            (Stmt::If { then_body, .. }, Step::Then) => {
                seqs.clear();
                then_body
            }
            (Stmt::If { else_body: Some(e), .. }, Step::Else) => {
                seqs.clear();
                e
            }
            (Stmt::For { body, .. } | Stmt::While { body, .. }, Step::Loop) => {
                seqs.clear();
                body
            }
            (Stmt::Scope { body, .. }, Step::Scope) => body,
            _ => return None,
        };
    }
    let mut st = snap.state.clone();
    edit(&mut st);
    // The leaves are lent to the walk (they are all known), not copied.
    let leaves = std::mem::take(&mut base.leaves);
    let mut a = Analyzer::new(prog, backend, model, Options { snapshots: false, ..opts }, Analysis { leaves, ..Analysis::default() });
    a.next = at;
    let mut st = Some(st);
    let mut first = true;
    for (stmts, i) in seqs.into_iter().rev() {
        let from = if first { i } else { i + 1 };
        first = false;
        for c in &stmts[from..] {
            st = a.stmt(c, st);
        }
        if a.out.aborted {
            break;
        }
    }
    base.leaves = a.out.leaves;
    Some(a.out.aborted)
}

/// What may be outstanding for an event.
#[derive(Clone, Debug, Default, PartialEq)]
struct Slot {
    /// A set is outstanding on every path.
    must: bool,
    /// The set ops that may be outstanding.
    sets: BTreeSet<usize>,
    /// Accesses that may be unfinished for an op ordered after the waiter.
    unfinished: LeafSet,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    /// Indexed by `PipeType::index()`: accesses that may not have finished when the next op
    /// of that pipe starts.
    pending: [LeafSet; 8],
    slots: BTreeMap<Event, Slot>,
    writers: BTreeMap<MemLoc, BTreeSet<usize>>,
    readers: BTreeMap<MemLoc, BTreeSet<usize>>,
}

fn union<K: Ord + Clone>(a: &mut BTreeSet<K>, b: &BTreeSet<K>) {
    a.extend(b.iter().cloned());
}

fn union_map(a: &mut BTreeMap<MemLoc, BTreeSet<usize>>, b: &BTreeMap<MemLoc, BTreeSet<usize>>) {
    for (k, v) in b {
        union(a.entry(*k).or_default(), v);
    }
}

/// A set of leaf ids as a bit set: the pending sets hold a good part of a function's leaves,
/// and states are cloned, joined and compared at every loop round and snapshot.
#[derive(Clone, Debug, Default)]
pub struct LeafSet {
    words: Vec<u64>,
}

impl LeafSet {
    fn insert(&mut self, i: usize) {
        let w = i / 64;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (i % 64);
    }
    fn contains(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    fn union(&mut self, o: &LeafSet) {
        if self.words.len() < o.words.len() {
            self.words.resize(o.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&o.words) {
            *a |= b;
        }
    }
    fn intersect(&mut self, o: &LeafSet) {
        for (i, a) in self.words.iter_mut().enumerate() {
            *a &= o.words.get(i).copied().unwrap_or(0);
        }
    }
    fn clear(&mut self) {
        self.words.clear();
    }
    /// Keeps the ids for which `keep` holds.
    fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        for (k, w) in self.words.iter_mut().enumerate() {
            let mut bits = *w;
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if !keep(k * 64 + b) {
                    *w &= !(1 << b);
                }
            }
        }
    }
}

impl PartialEq for LeafSet {
    /// Equal as sets: trailing zero words do not count.
    fn eq(&self, o: &LeafSet) -> bool {
        let n = self.words.len().max(o.words.len());
        (0..n).all(|i| self.words.get(i).copied().unwrap_or(0) == o.words.get(i).copied().unwrap_or(0))
    }
}

/// The state after either of two paths (`None` = unreachable).
fn join(a: Option<State>, b: Option<State>) -> Option<State> {
    let (mut a, b) = match (a, b) {
        (None, x) | (x, None) => return x,
        (Some(a), Some(b)) => (a, b),
    };
    for (p, q) in a.pending.iter_mut().zip(&b.pending) {
        p.union(q);
    }
    let events: BTreeSet<Event> = a.slots.keys().chain(b.slots.keys()).copied().collect();
    for e in events {
        let y = b.slots.get(&e).cloned().unwrap_or_default();
        let x = a.slots.entry(e).or_default();
        x.must &= y.must;
        union(&mut x.sets, &y.sets);
        x.unfinished.union(&y.unfinished);
    }
    union_map(&mut a.writers, &b.writers);
    union_map(&mut a.readers, &b.readers);
    Some(a)
}

/// Exits collected inside a loop body.
#[derive(Default)]
struct LoopExits {
    breaks: Option<State>,
    continues: Option<State>,
}

struct Analyzer<'a> {
    prog: &'a Program,
    backend: Backend,
    model: &'a SyncModel,
    skip: &'a BTreeSet<usize>,
    allowed: Option<&'a BTreeSet<Finding>>,
    snapshots: bool,
    /// The way from the body to the statement being walked (for snapshots).
    path: Vec<Step>,
    /// Loops around the statement being walked.
    depth: usize,
    out: Analysis,
    /// Id of the next leaf in program order.
    next: usize,
    /// Number of the next `if` in program order, and the arms entered (see [`Leaf::arms`]).
    next_if: usize,
    arms: Vec<(usize, bool)>,
    /// False while iterating a loop to its fixpoint: findings are recorded on the final pass.
    reporting: bool,
    loops: Vec<LoopExits>,
}

/// A bound on fixpoint rounds; each round grows the state, so this is never reached on real
/// input, it only guarantees termination.
const MAX_ROUNDS: usize = 100_000;

impl<'a> Analyzer<'a> {
    fn new(prog: &'a Program, backend: Backend, model: &'a SyncModel, opts: Options<'a>, out: Analysis) -> Self {
        Analyzer {
            prog,
            backend,
            model,
            skip: opts.skip,
            allowed: opts.allowed,
            snapshots: opts.snapshots,
            path: Vec::new(),
            depth: 0,
            out,
            next: 0,
            next_if: 0,
            arms: Vec::new(),
            reporting: true,
            loops: Vec::new(),
        }
    }

    /// `s` entered through `step` (only tracked when snapshots are taken).
    fn within(&mut self, step: Step, s: &Stmt, st: Option<State>) -> Option<State> {
        if !self.snapshots {
            return self.stmt(s, st);
        }
        self.path.push(step);
        let out = self.stmt(s, st);
        self.path.pop();
        out
    }

    fn stmt(&mut self, s: &Stmt, st: Option<State>) -> Option<State> {
        if self.out.aborted {
            return None;
        }
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                stmts.iter().enumerate().fold(st, |st, (i, c)| self.within(Step::Child(i), c, st))
            }
            Stmt::Assign { .. } | Stmt::Eval { .. } => self.leaf(s, st),
            Stmt::If { then_body, else_body, .. } => {
                let n = self.next_if;
                self.next_if += 1;
                self.arms.push((n, false));
                let then_out = self.within(Step::Then, then_body, st.clone());
                self.arms.pop();
                self.arms.push((n, true));
                let else_out = match else_body {
                    Some(e) => self.within(Step::Else, e, st),
                    None => st,
                };
                self.arms.pop();
                join(then_out, else_out)
            }
            Stmt::For { start, stop, step, body, .. } => {
                // A loop with constant bounds that runs at least once has no zero-trip path.
                let runs = match (start.as_const_int(), stop.as_const_int(), step.as_const_int()) {
                    (Some(a), Some(b), Some(c)) => (c > 0 && b > a) || (c < 0 && b < a),
                    _ => false,
                };
                self.repeat(body, st, runs)
            }
            Stmt::While { body, .. } => self.repeat(body, st, false),
            Stmt::Scope { body, .. } => self.within(Step::Scope, body, st),
            Stmt::Yield { .. } => st,
            Stmt::Return { .. } => None,
            Stmt::Break { .. } => {
                if let Some(l) = self.loops.last_mut() {
                    l.breaks = join(l.breaks.take(), st);
                }
                None
            }
            Stmt::Continue { .. } => {
                if let Some(l) = self.loops.last_mut() {
                    l.continues = join(l.continues.take(), st);
                }
                None
            }
        }
    }

    /// A loop body run any number of times (at least once if `at_least_once`): iterate the
    /// state at the loop head to a fixpoint (the back edge), then walk the body once more to
    /// record findings.
    fn repeat(&mut self, body: &Stmt, entry: Option<State>, at_least_once: bool) -> Option<State> {
        let first = (self.next, self.next_if);
        let reporting = std::mem::replace(&mut self.reporting, false);
        self.depth += 1;
        let mut head = entry.clone();
        for _ in 0..MAX_ROUNDS {
            if self.out.aborted {
                break;
            }
            let back = self.body_once(body, head.clone(), first).0;
            let new_head = join(entry.clone(), back);
            if new_head == head {
                break;
            }
            head = new_head;
        }
        self.reporting = reporting;
        let (back, breaks) = self.body_once(body, head.clone(), first);
        self.depth -= 1;
        let exit = if at_least_once { back } else { join(head, back) };
        join(exit, breaks)
    }

    /// One walk of a loop body from `head`: the state at the back edge and at breaks.
    fn body_once(&mut self, body: &Stmt, head: Option<State>, first: (usize, usize)) -> (Option<State>, Option<State>) {
        (self.next, self.next_if) = first;
        self.loops.push(LoopExits::default());
        let end = self.within(Step::Loop, body, head);
        let exits = self.loops.pop().unwrap_or_default();
        (join(end, exits.continues), exits.breaks)
    }

    fn leaf(&mut self, s: &Stmt, st: Option<State>) -> Option<State> {
        let id = self.next;
        self.next += 1;
        if id == self.out.leaves.len() {
            let op = match s {
                Stmt::Assign { value, .. } | Stmt::Eval { expr: value, .. } => match value.as_call().map(|c| &c.callee) {
                    Some(crate::ir::Callee::Op(op)) => crate::ops::name(*op).to_string(),
                    Some(crate::ir::Callee::Function(f)) => f.clone(),
                    None => s.node_name().to_string(),
                },
                _ => s.node_name().to_string(),
            };
            let effect = leaf_effect(self.prog, s, self.backend);
            self.out.leaves.push(Leaf { span: s.span(), op, effect, arms: self.arms.clone(), loops: self.depth });
        }
        let mut st = st?;
        if self.skip.contains(&id) {
            return Some(st);
        }
        if self.snapshots && self.reporting && self.out.leaves[id].effect.is_sync() {
            self.out.snapshots.insert(id, Snapshot { state: st.clone(), path: self.path.clone() });
        }
        match self.out.leaves[id].effect.clone() {
            Effect::Access { pipe, reads, writes } => self.access(&mut st, id, pipe, &reads, &writes),
            Effect::Set(e) => {
                let mut unfinished = st.pending[e.set_pipe.index()].clone();
                unfinished.retain(|a| self.pipe_of(a) != Some(e.set_pipe));
                let slot = st.slots.entry(e).or_default();
                slot.must = true;
                slot.sets.insert(id);
                slot.unfinished.union(&unfinished);
            }
            Effect::Wait(e) => {
                let slot = st.slots.remove(&e).unwrap_or_default();
                self.out.matches.entry(id).or_default().extend(slot.sets.iter().copied());
                if slot.must {
                    st.pending[e.wait_pipe.index()].intersect(&slot.unfinished);
                } else {
                    self.report(Finding::UnmatchedWait { wait: id, somewhere: !slot.sets.is_empty() });
                }
            }
            Effect::PipeBarrier(p) => {
                let leaves = &self.out.leaves;
                st.pending[p.index()].retain(|a| !matches!(leaves[a].effect, Effect::Access { pipe, .. } if pipe == p));
            }
            Effect::BarrierAll => {
                st.pending.iter_mut().for_each(LeafSet::clear);
                st.slots.values_mut().for_each(|s| s.unfinished.clear());
            }
            Effect::Nothing => {}
        }
        Some(st)
    }

    fn pipe_of(&self, leaf: usize) -> Option<PipeType> {
        match self.out.leaves[leaf].effect {
            Effect::Access { pipe, .. } => Some(pipe),
            _ => None,
        }
    }

    /// Checks access `id` against the conflicting earlier accesses its pipe may overlap, then
    /// records it as issued.
    fn access(&mut self, st: &mut State, id: usize, pipe: PipeType, reads: &[MemLoc], writes: &[MemLoc]) {
        let pending = &st.pending[pipe.index()];
        let mut found = Vec::new();
        let mut check = |table: &BTreeMap<MemLoc, BTreeSet<usize>>, m: &MemLoc, kind: DepKind| {
            for (_, ids) in table.iter().filter(|(loc, _)| loc.aliases(m)) {
                for &a in ids.iter().filter(|&&a| pending.contains(a)) {
                    found.push(Finding::Dependency { first: a, second: id, kind, mem: *m });
                }
            }
        };
        for m in reads {
            check(&st.writers, m, DepKind::Raw);
        }
        for m in writes {
            check(&st.writers, m, DepKind::Waw);
            check(&st.readers, m, DepKind::War);
        }
        for f in found {
            self.report(f);
        }
        for m in writes {
            st.writers.insert(*m, BTreeSet::from([id]));
            st.readers.remove(m);
        }
        for m in reads {
            st.readers.entry(*m).or_default().insert(id);
        }
        let in_order = !self.model.barrier_pipes.contains(&pipe);
        for (q, set) in st.pending.iter_mut().enumerate() {
            if !(in_order && q == pipe.index()) {
                set.insert(id);
            }
        }
        for slot in st.slots.values_mut() {
            slot.unfinished.insert(id);
        }
    }

    fn report(&mut self, f: Finding) {
        if self.allowed.is_some_and(|ok| !ok.contains(&f)) {
            self.out.aborted = true;
        }
        if self.reporting {
            self.out.findings.insert(f);
        }
    }
}
