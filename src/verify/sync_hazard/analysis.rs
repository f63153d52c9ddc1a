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
}

/// Analyses one function body. Leaves whose id is in `skip` are treated as absent (to ask
/// "what if this sync op were deleted").
pub fn analyse(prog: &Program, body: &Stmt, backend: Backend, model: &SyncModel, skip: &BTreeSet<usize>) -> Analysis {
    let mut a = Analyzer {
        prog,
        backend,
        model,
        skip,
        out: Analysis::default(),
        next: 0,
        next_if: 0,
        arms: Vec::new(),
        reporting: true,
        loops: Vec::new(),
    };
    a.stmt(body, Some(State::default()));
    a.out
}

/// What may be outstanding for an event.
#[derive(Clone, Debug, Default, PartialEq)]
struct Slot {
    /// A set is outstanding on every path.
    must: bool,
    /// The set ops that may be outstanding.
    sets: BTreeSet<usize>,
    /// Accesses that may be unfinished for an op ordered after the waiter.
    unfinished: BTreeSet<usize>,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct State {
    /// Indexed by `PipeType::index()`: accesses that may not have finished when the next op
    /// of that pipe starts.
    pending: [BTreeSet<usize>; 8],
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

/// The state after either of two paths (`None` = unreachable).
fn join(a: Option<State>, b: Option<State>) -> Option<State> {
    let (mut a, b) = match (a, b) {
        (None, x) | (x, None) => return x,
        (Some(a), Some(b)) => (a, b),
    };
    for (p, q) in a.pending.iter_mut().zip(&b.pending) {
        union(p, q);
    }
    let events: BTreeSet<Event> = a.slots.keys().chain(b.slots.keys()).copied().collect();
    for e in events {
        let y = b.slots.get(&e).cloned().unwrap_or_default();
        let x = a.slots.entry(e).or_default();
        x.must &= y.must;
        union(&mut x.sets, &y.sets);
        union(&mut x.unfinished, &y.unfinished);
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

impl Analyzer<'_> {
    fn stmt(&mut self, s: &Stmt, st: Option<State>) -> Option<State> {
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().fold(st, |st, c| self.stmt(c, st)),
            Stmt::Assign { .. } | Stmt::Eval { .. } => self.leaf(s, st),
            Stmt::If { then_body, else_body, .. } => {
                let n = self.next_if;
                self.next_if += 1;
                self.arms.push((n, false));
                let then_out = self.stmt(then_body, st.clone());
                self.arms.pop();
                self.arms.push((n, true));
                let else_out = match else_body {
                    Some(e) => self.stmt(e, st),
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
            Stmt::Scope { body, .. } => self.stmt(body, st),
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
        let mut head = entry.clone();
        for _ in 0..MAX_ROUNDS {
            let back = self.body_once(body, head.clone(), first).0;
            let new_head = join(entry.clone(), back);
            if new_head == head {
                break;
            }
            head = new_head;
        }
        self.reporting = reporting;
        let (back, breaks) = self.body_once(body, head.clone(), first);
        let exit = if at_least_once { back } else { join(head, back) };
        join(exit, breaks)
    }

    /// One walk of a loop body from `head`: the state at the back edge and at breaks.
    fn body_once(&mut self, body: &Stmt, head: Option<State>, first: (usize, usize)) -> (Option<State>, Option<State>) {
        (self.next, self.next_if) = first;
        self.loops.push(LoopExits::default());
        let end = self.stmt(body, head);
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
            self.out.leaves.push(Leaf { span: s.span(), op, effect, arms: self.arms.clone() });
        }
        let mut st = st?;
        if self.skip.contains(&id) {
            return Some(st);
        }
        match self.out.leaves[id].effect.clone() {
            Effect::Access { pipe, reads, writes } => self.access(&mut st, id, pipe, &reads, &writes),
            Effect::Set(e) => {
                let unfinished: BTreeSet<usize> =
                    st.pending[e.set_pipe.index()].iter().copied().filter(|&a| self.pipe_of(a) != Some(e.set_pipe)).collect();
                let slot = st.slots.entry(e).or_default();
                slot.must = true;
                slot.sets.insert(id);
                union(&mut slot.unfinished, &unfinished);
            }
            Effect::Wait(e) => {
                let slot = st.slots.remove(&e).unwrap_or_default();
                self.out.matches.entry(id).or_default().extend(slot.sets.iter().copied());
                if slot.must {
                    st.pending[e.wait_pipe.index()].retain(|a| slot.unfinished.contains(a));
                } else {
                    self.report(Finding::UnmatchedWait { wait: id, somewhere: !slot.sets.is_empty() });
                }
            }
            Effect::PipeBarrier(p) => {
                let leaves = &self.out.leaves;
                st.pending[p.index()].retain(|&a| !matches!(leaves[a].effect, Effect::Access { pipe, .. } if pipe == p));
            }
            Effect::BarrierAll => {
                st.pending.iter_mut().for_each(BTreeSet::clear);
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
                for &a in ids.iter().filter(|a| pending.contains(a)) {
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
        if self.reporting {
            self.out.findings.insert(f);
        }
    }
}
