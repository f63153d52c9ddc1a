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
//! may still be unfinished for its waiter; per MemRef location, the last writers and the readers
//! since.
//! Joins take unions ("may"), so the result holds on every path.
//!
//! Cost: the checker runs after every sync pass and remove-redundant-sync runs it per deletion
//! trial, so the leaves of a body are prepared once ([`Prepared`]: effects with MemRefs as dense
//! indices, pipe masks) and shared by every analysis of it, the per-pipe pending sets are one
//! flat bit vector, and the last round of a loop's fixpoint is the reporting walk (its findings
//! are kept, those of earlier rounds dropped) instead of an extra walk after it.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::analysis::effects::{self, memref_loc, Event, Kind, MemLoc, Mode};
use crate::analysis::tensor_aliases::TensorAliases;
use crate::analysis::windows;
use crate::backend::Backend;
use crate::diag::Span;
use crate::ir::{MemorySpace, PipeType, Stmt, VarId, VarTable};

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
    /// The set may still be outstanding when the function ends (no wait consumed it on some
    /// path, e.g. one a `break` took past the wait): a later kernel's wait would pass on it.
    UnconsumedSet { set: usize },
}

/// One leaf statement as seen by the analysis.
#[derive(Clone, Debug)]
pub struct Leaf {
    pub span: Span,
    /// The op's IR name (`block.load`), the called function, or the statement kind.
    pub op: Cow<'static, str>,
    /// What the leaf does (its MemRefs are in [`Prepared`]).
    pub kind: Kind,
    /// The `if` arms around the leaf, outermost first: (number of the `if` in program order,
    /// else arm). Two leaves on different arms of one `if` never run in the same iteration.
    pub arms: Rc<[(usize, bool)]>,
    /// How many loops (for or while) enclose the leaf.
    pub loops: usize,
}

impl Leaf {
    /// Whether `self` and `other` lie on different arms of one `if`.
    pub fn exclusive(&self, other: &Leaf) -> bool {
        self.arms.iter().any(|(i, arm)| other.arms.iter().any(|(j, arm2)| i == j && arm != arm2))
    }
}

/// What the walk needs of a leaf: its effect with MemRefs as indices into [`Prepared::locs`].
#[derive(Clone, Copy, Debug)]
pub(super) enum Fx {
    /// An access on pipe `pipe` (`PipeType::index`); its reads are `mems[r.0..r.1]`, its writes
    /// `mems[w.0..w.1]`.
    Access {
        pipe: u8,
        r: (u32, u32),
        w: (u32, u32),
    },
    Set(Event),
    Wait(Event),
    Barrier(u8),
    All,
    Nothing,
}

/// The leaves of one function body, prepared once for every analysis of that body.
#[derive(Debug)]
pub struct Prepared {
    pub leaves: Vec<Leaf>,
    pub(super) fx: Vec<Fx>,
    /// The MemRef indices read and written by accesses (ranges of [`Fx::Access`]).
    pub(super) mems: Vec<u32>,
    /// The distinct MemRef locations of the body, sorted.
    pub(super) locs: Vec<MemLoc>,
    /// For location `m`, the locations that may share bytes with it (itself included):
    /// `alias[alias_at[m]..alias_at[m + 1]]`.
    alias_at: Vec<u32>,
    alias: Vec<u32>,
    /// Words of a leaf bit set.
    words: usize,
    /// Per pipe, the accesses on that pipe (8 bit sets of `words` words, one after the other).
    on_pipe: Vec<u64>,
    /// Per loop (by the id of its body's first leaf): the end of its leaf ids and the
    /// locations whose accesses in different iterations are disjoint
    /// ([`crate::analysis::windows`]).
    private: rustc_hash::FxHashMap<usize, (usize, Vec<u32>)>,
}

const PIPES: usize = 8;

impl Prepared {
    /// Numbers and describes the leaves of `body` as the walk meets them: sequences in order,
    /// then-arm before else-arm, loop and scope bodies once.
    pub fn new(vars: &VarTable, body: &Stmt, backend: Backend) -> Prepared {
        let mut b = Collect {
            vars,
            aliases: TensorAliases::of(vars, [body]),
            backend,
            leaves: Vec::new(),
            arms: Rc::from(Vec::new()),
            next_if: 0,
            depth: 0,
            reads: Vec::new(),
            writes: Vec::new(),
            seen: Default::default(),
            by_memref: vec![UNSEEN; vars.len()],
            locs: Vec::new(),
            mems: Vec::new(),
            fx: Vec::new(),
            private: Vec::new(),
        };
        b.stmt(body);
        let Collect { leaves, mut locs, mut mems, fx, private, .. } = b;
        let words = leaves.len().div_ceil(64).max(1);
        let mut on_pipe = vec![0u64; PIPES * words];
        for (i, f) in fx.iter().enumerate() {
            if let Fx::Access { pipe, .. } = f {
                on_pipe[*pipe as usize * words + i / 64] |= 1 << (i % 64);
            }
        }
        // The locations were numbered as met; renumber them in sorted order (same-id locations
        // next to each other, for the alias table).
        let mut order: Vec<u32> = (0..locs.len() as u32).collect();
        order.sort_unstable_by_key(|&i| locs[i as usize]);
        let mut rank = vec![0u32; locs.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        mems.iter_mut().for_each(|m| *m = rank[*m as usize]);
        // Each access's lists in location order again, as the renumbering may have changed it.
        for f in &fx {
            if let Fx::Access { r, w, .. } = *f {
                mems[r.0 as usize..r.1 as usize].sort_unstable();
                mems[w.0 as usize..w.1 as usize].sort_unstable();
            }
        }
        locs = order.iter().map(|&i| locs[i as usize]).collect();
        let (alias_at, alias) = alias_table(&locs);
        let private = private
            .into_iter()
            .map(|(first, end, ms)| (first, (end, ms.into_iter().map(|m| rank[m as usize]).collect())))
            .collect();
        Prepared { leaves, fx, mems, locs, alias_at, alias, words, on_pipe, private }
    }

    /// The locations that may share bytes with location `m`.
    pub(super) fn aliases(&self, m: u32) -> &[u32] {
        &self.alias[self.alias_at[m as usize] as usize..self.alias_at[m as usize + 1] as usize]
    }

    fn on_pipe(&self, p: usize) -> &[u64] {
        &self.on_pipe[p * self.words..(p + 1) * self.words]
    }

    /// An empty set of this body's leaves.
    pub fn leaf_set(&self) -> LeafSet {
        LeafSet { words: vec![0; self.words] }
    }
}

/// [`Prepared::alias_at`] and [`Prepared::alias`] of sorted locations: the same MemRef id
/// (neighbours in the sorted order), or overlapping allocated ranges in one on-chip memory (only
/// after address allocation, and only those locations are compared pairwise).
fn alias_table(locs: &[MemLoc]) -> (Vec<u32>, Vec<u32>) {
    let placed: Vec<usize> =
        (0..locs.len()).filter(|&i| locs[i].addr.is_some() && locs[i].space != MemorySpace::Ddr).collect();
    let mut at = Vec::with_capacity(locs.len() + 1);
    let mut alias = Vec::with_capacity(locs.len());
    for (i, m) in locs.iter().enumerate() {
        at.push(alias.len() as u32);
        let start = alias.len();
        let same_id = locs.partition_point(|x| x.id < m.id);
        alias.extend((same_id..locs.len()).take_while(|&j| locs[j].id == m.id).map(|j| j as u32));
        if m.addr.is_some() && m.space != MemorySpace::Ddr {
            alias.extend(placed.iter().filter(|&&j| locs[j].id != m.id && m.aliases(&locs[j])).map(|&j| j as u32));
        }
        alias[start..].sort_unstable();
        debug_assert!(alias[start..].contains(&(i as u32)));
    }
    at.push(alias.len() as u32);
    (at, alias)
}

/// The leaf walk of [`Prepared::new`].
struct Collect<'a> {
    vars: &'a VarTable,
    /// The DDR MemRefs that are one tensor, read as one location.
    aliases: TensorAliases,
    backend: Backend,
    leaves: Vec<Leaf>,
    arms: Rc<[(usize, bool)]>,
    next_if: usize,
    depth: usize,
    /// Scratch lists for one leaf's location indices.
    reads: Vec<u32>,
    writes: Vec<u32>,
    /// The dense index of each location met so far.
    seen: rustc_hash::FxHashMap<MemLoc, u32>,
    /// The location index of each MemRef variable met so far, indexed by `VarId` ([`UNSEEN`]
    /// before it is met, [`NO_LOC`] for one that is no location): a leaf's MemRefs are found by
    /// an index, not by building and hashing their locations each time.
    by_memref: Vec<u32>,
    locs: Vec<MemLoc>,
    mems: Vec<u32>,
    fx: Vec<Fx>,
    /// Per loop with tensors private to its iterations: its first and end leaf ids and those
    /// tensors' location indices (before the renumbering).
    private: Vec<(usize, usize, Vec<u32>)>,
}

/// [`Collect::by_memref`] of a MemRef variable not met yet, and of one that is no location.
const UNSEEN: u32 = u32::MAX;
const NO_LOC: u32 = u32::MAX - 1;

impl Collect<'_> {
    fn index(&mut self, m: MemLoc) -> u32 {
        let locs = &mut self.locs;
        *self.seen.entry(m).or_insert_with(|| {
            locs.push(m);
            locs.len() as u32 - 1
        })
    }

    /// The location index of the MemRef of variable `v`, if it has one.
    fn location_of(&mut self, v: VarId) -> Option<u32> {
        let m = self.vars.var_type(v).memref()?;
        let slot = self.by_memref.get(m.0 as usize).copied().unwrap_or(NO_LOC);
        let k = match slot {
            UNSEEN => {
                let k = memref_loc(self.vars, self.aliases.get(m)).map_or(NO_LOC, |loc| self.index(loc));
                self.by_memref[m.0 as usize] = k;
                k
            }
            k => k,
        };
        (k != NO_LOC).then_some(k)
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|c| self.stmt(c)),
            Stmt::Assign { value, .. } | Stmt::Eval { expr: value, .. } => {
                let op: Cow<'static, str> = match value.as_call().map(|c| &c.callee) {
                    Some(crate::ir::Callee::Op(op)) => Cow::Borrowed(crate::ops::name(*op)),
                    Some(crate::ir::Callee::Function(f)) => Cow::Owned(f.clone()),
                    None => Cow::Borrowed(s.node_name()),
                };
                let (mut reads, mut writes) = (std::mem::take(&mut self.reads), std::mem::take(&mut self.writes));
                reads.clear();
                writes.clear();
                let kind = super::leaf::hazard_kind(s, self.backend);
                if let Kind::Access(_) = kind {
                    effects::accesses(self.vars, s, &mut |mode, v| {
                        if let Some(k) = self.location_of(v) {
                            if mode == Mode::Write { &mut writes } else { &mut reads }.push(k);
                        }
                    });
                }
                let fx = match kind {
                    Kind::Access(pipe) => {
                        // Each list sorted and without repeats (by location: the indices are
                        // renumbered in location order at the end, and each list sorted again).
                        let r0 = self.mems.len() as u32;
                        reads.sort_unstable();
                        reads.dedup();
                        self.mems.extend_from_slice(&reads);
                        let w0 = self.mems.len() as u32;
                        writes.sort_unstable();
                        writes.dedup();
                        self.mems.extend_from_slice(&writes);
                        Fx::Access { pipe: pipe.index() as u8, r: (r0, w0), w: (w0, self.mems.len() as u32) }
                    }
                    Kind::Set(e) => Fx::Set(e),
                    Kind::Wait(e) => Fx::Wait(e),
                    Kind::PipeBarrier(p) => Fx::Barrier(p.index() as u8),
                    Kind::BarrierAll => Fx::All,
                    Kind::Nothing => Fx::Nothing,
                };
                (self.reads, self.writes) = (reads, writes);
                self.fx.push(fx);
                self.leaves.push(Leaf { span: s.span(), op, kind, arms: self.arms.clone(), loops: self.depth });
            }
            Stmt::If { then_body, else_body, .. } => {
                let n = self.next_if;
                self.next_if += 1;
                let outer = self.arms.clone();
                for (arm, body) in [(false, Some(then_body)), (true, else_body.as_ref())] {
                    let Some(body) = body else { continue };
                    self.arms = outer.iter().copied().chain([(n, arm)]).collect();
                    self.stmt(body);
                }
                self.arms = outer;
            }
            Stmt::For { loop_var, step, iter_args, body, .. } => {
                let first = self.leaves.len();
                let private = windows::iteration_private(
                    self.vars,
                    self.backend,
                    &self.aliases,
                    *loop_var,
                    step,
                    iter_args,
                    body,
                );
                let locs: Vec<u32> =
                    private.into_iter().filter_map(|m| memref_loc(self.vars, m)).map(|l| self.index(l)).collect();
                self.depth += 1;
                self.stmt(body);
                self.depth -= 1;
                if !locs.is_empty() {
                    self.private.push((first, self.leaves.len(), locs));
                }
            }
            Stmt::While { body, .. } => {
                self.depth += 1;
                self.stmt(body);
                self.depth -= 1;
            }
            Stmt::Scope { body, .. } => self.stmt(body),
            Stmt::Yield { .. } | Stmt::Return { .. } | Stmt::Break { .. } | Stmt::Continue { .. } => {}
        }
    }
}

/// Everything one analysis of one function found.
#[derive(Debug, Default)]
pub struct Analysis {
    pub findings: BTreeSet<Finding>,
    /// For each wait, the sets that may be the ones it consumes.
    pub matches: BTreeMap<usize, BTreeSet<usize>>,
    /// A finding outside [`Options::allowed`] was met and the walk stopped: the findings are
    /// incomplete.
    pub aborted: bool,
    /// The leaves some walk reached (control flow alone decides this, not the sync ops).
    pub reached: LeafSet,
}

/// What an analysis run asks for besides the body.
#[derive(Clone, Copy)]
pub struct Options<'s> {
    /// Leaves treated as absent (to ask "what if these sync ops were deleted"); `None`: none.
    pub skip: Option<&'s LeafSet>,
    /// Stop at the first finding not in this set, reached on any walk (a finding of an early
    /// round of a loop's fixpoint is one of the final round too: the states only grow).
    pub allowed: Option<&'s BTreeSet<Finding>>,
}

/// Analyses one function body (`prep` prepared from it). Leaves whose id is in `skip` are
/// treated as absent (to ask "what if this sync op were deleted").
pub fn analyse(prep: &Prepared, body: &Stmt, model: &SyncModel, skip: &[usize]) -> Analysis {
    let mut set = prep.leaf_set();
    skip.iter().for_each(|&i| set.insert(i));
    analyse_with(prep, body, model, Options { skip: Some(&set), allowed: None })
}

/// [`analyse`] with every option.
pub fn analyse_with(prep: &Prepared, body: &Stmt, model: &SyncModel, opts: Options) -> Analysis {
    let mut in_order = [true; PIPES];
    for p in &model.barrier_pipes {
        in_order[p.index()] = false;
    }
    let mut a = Analyzer {
        prep,
        in_order,
        skip: opts.skip,
        allowed: opts.allowed,
        found: Vec::new(),
        aborted: false,
        matches: BTreeMap::new(),
        reached: prep.leaf_set(),
        next: 0,
        loops: Vec::new(),
        scratch: Vec::new(),
        returns: None,
    };
    let mut st = Some(State::new(prep.words, prep.locs.len()));
    a.stmt(body, &mut st);
    if let Some(end) = join(a.returns.take(), st) {
        for (_, slot) in &end.slots {
            for &set in &slot.sets {
                a.report(Finding::UnconsumedSet { set: set as usize });
            }
        }
    }
    Analysis { findings: a.found.into_iter().collect(), matches: a.matches, aborted: a.aborted, reached: a.reached }
}

/// A set of leaf ids of one body as a bit set (every set of a body has the same width).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeafSet {
    words: Vec<u64>,
}

impl LeafSet {
    pub fn insert(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
    pub fn contains(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

fn or(a: &mut [u64], b: &[u64]) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
}
fn and(a: &mut [u64], b: &[u64]) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x &= y);
}
fn and_not(a: &mut [u64], b: &[u64]) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x &= !y);
}
fn set_bit(a: &mut [u64], i: usize) {
    if let Some(w) = a.get_mut(i / 64) {
        *w |= 1 << (i % 64);
    }
}
fn bit(a: &[u64], i: usize) -> bool {
    a[i / 64] & (1 << (i % 64)) != 0
}

/// What may be outstanding for an event.
#[derive(Clone, Debug, PartialEq)]
struct Slot {
    /// A set is outstanding on every path.
    must: bool,
    /// The set ops that may be outstanding (sorted).
    sets: Vec<u32>,
    /// Accesses that may be unfinished for an op ordered after the waiter.
    unfinished: Vec<u64>,
}

impl Slot {
    fn new(words: usize) -> Slot {
        Slot { must: false, sets: Vec::new(), unfinished: vec![0; words] }
    }
}

#[derive(Clone, Debug, PartialEq)]
struct State {
    /// Accesses that may not have finished when the next op of pipe Q starts: `words` words
    /// per pipe, indexed by `PipeType::index()`.
    pending: Vec<u64>,
    /// Sorted by event.
    slots: Vec<(Event, Slot)>,
    /// Per location (indexed as [`Prepared::locs`]), sorted: its last writers …
    writers: Vec<Vec<u32>>,
    /// … and its readers since. (Lists per location rather than one table sorted by location:
    /// an access then finds its location's entries by index, not by binary searches, which
    /// were most of the walk's time.)
    readers: Vec<Vec<u32>>,
}

impl State {
    fn new(words: usize, locs: usize) -> State {
        State {
            pending: vec![0; PIPES * words],
            slots: Vec::new(),
            writers: vec![Vec::new(); locs],
            readers: vec![Vec::new(); locs],
        }
    }
}

/// Sorted union of two sorted, duplicate-free lists.
fn merge<T: Ord + Copy>(a: &[T], b: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The state after either of two paths (`None` = unreachable).
fn join(a: Option<State>, b: Option<State>) -> Option<State> {
    let (mut a, b) = match (a, b) {
        (None, x) | (x, None) => return x,
        (Some(a), Some(b)) => (a, b),
    };
    or(&mut a.pending, &b.pending);
    if !(a.slots.is_empty() && b.slots.is_empty()) {
        let mut slots = Vec::with_capacity(a.slots.len().max(b.slots.len()));
        let mut ys = b.slots.into_iter().peekable();
        for (e, mut x) in a.slots {
            while let Some((ey, y)) = ys.next_if(|(ey, _)| *ey < e) {
                slots.push((ey, only_one_side(y)));
            }
            match ys.next_if(|(ey, _)| *ey == e) {
                Some((_, y)) => {
                    x.must &= y.must;
                    if x.sets != y.sets {
                        x.sets = merge(&x.sets, &y.sets);
                    }
                    or(&mut x.unfinished, &y.unfinished);
                    slots.push((e, x));
                }
                None => slots.push((e, only_one_side(x))),
            }
        }
        slots.extend(ys.map(|(e, y)| (e, only_one_side(y))));
        a.slots = slots;
    }
    for (x, y) in a.writers.iter_mut().zip(&b.writers).chain(a.readers.iter_mut().zip(&b.readers)) {
        if x != y {
            *x = merge(x, y);
        }
    }
    Some(a)
}

/// A slot joined with the absent slot of the other path: the event is not outstanding on every
/// path.
fn only_one_side(mut s: Slot) -> Slot {
    s.must = false;
    s
}

/// Exits collected inside a loop body.
#[derive(Default)]
struct LoopExits {
    breaks: Option<State>,
    continues: Option<State>,
}

struct Analyzer<'a> {
    prep: &'a Prepared,
    /// Per pipe: ops of the pipe execute in order (no barrier needed between them).
    in_order: [bool; PIPES],
    skip: Option<&'a LeafSet>,
    allowed: Option<&'a BTreeSet<Finding>>,
    /// Findings of the walks that count: a loop drops those of its rounds before the last.
    found: Vec<Finding>,
    aborted: bool,
    matches: BTreeMap<usize, BTreeSet<usize>>,
    reached: LeafSet,
    /// Id of the next leaf in program order.
    next: usize,
    loops: Vec<LoopExits>,
    scratch: Vec<Finding>,
    /// The states at the function's `return`s.
    returns: Option<State>,
}

/// A bound on fixpoint rounds; each round grows the state, so this is never reached on real
/// input, it only guarantees termination.
const MAX_ROUNDS: usize = 100_000;

impl Analyzer<'_> {
    /// Walks `s` from state `st` (`None`: unreachable), leaving the state after it there.
    fn stmt(&mut self, s: &Stmt, st: &mut Option<State>) {
        if self.aborted {
            *st = None;
            return;
        }
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|c| self.stmt(c, st)),
            Stmt::Assign { .. } | Stmt::Eval { .. } => self.leaf(st),
            Stmt::If { then_body, else_body, .. } => {
                let mut then_st = st.clone();
                self.stmt(then_body, &mut then_st);
                if let Some(e) = else_body {
                    self.stmt(e, st);
                }
                *st = join(then_st, st.take());
            }
            Stmt::For { start, stop, step, body, .. } => {
                // A loop with constant bounds that runs at least once has no zero-trip path.
                let runs = match (start.as_const_int(), stop.as_const_int(), step.as_const_int()) {
                    (Some(a), Some(b), Some(c)) => (c > 0 && b > a) || (c < 0 && b < a),
                    _ => false,
                };
                *st = self.repeat(body, st.take(), runs);
            }
            Stmt::While { body, .. } => *st = self.repeat(body, st.take(), false),
            Stmt::Scope { body, .. } => self.stmt(body, st),
            Stmt::Yield { .. } => {}
            Stmt::Return { .. } => self.returns = join(self.returns.take(), st.take()),
            Stmt::Break { .. } => {
                if let Some(l) = self.loops.last_mut() {
                    l.breaks = join(l.breaks.take(), st.take());
                }
                *st = None;
            }
            Stmt::Continue { .. } => {
                if let Some(l) = self.loops.last_mut() {
                    l.continues = join(l.continues.take(), st.take());
                }
                *st = None;
            }
        }
    }

    /// A loop body run any number of times (at least once if `at_least_once`): iterate the
    /// state at the loop head to a fixpoint (the back edge). The round that walks the body from
    /// the fixpoint is the one whose findings count.
    fn repeat(&mut self, body: &Stmt, entry: Option<State>, at_least_once: bool) -> Option<State> {
        let first = self.next;
        let mark = self.found.len();
        let mut head = entry.clone();
        let mut last = (None, None);
        let private = self.prep.private.get(&first);
        for _ in 0..MAX_ROUNDS {
            if self.aborted {
                break;
            }
            self.found.truncate(mark);
            // An iteration's accesses to a tensor private to the iterations conflict with
            // none of the next one's: the body starts without them (the exit keeps them).
            let mut start = head.clone();
            if let (Some((end, locs)), Some(st)) = (private, start.as_mut()) {
                let earlier = |id: &u32| !(first..*end).contains(&(*id as usize));
                for &m in locs {
                    st.writers[m as usize].retain(earlier);
                    st.readers[m as usize].retain(earlier);
                }
            }
            let (back, breaks) = self.body_once(body, start, first);
            let new_head = join(entry.clone(), back.clone());
            last = (back, breaks);
            if new_head == head {
                break;
            }
            head = new_head;
        }
        let (back, breaks) = last;
        let exit = if at_least_once { back } else { join(head, back) };
        join(exit, breaks)
    }

    /// One walk of a loop body from `head`: the state at the back edge and at breaks.
    fn body_once(&mut self, body: &Stmt, mut st: Option<State>, first: usize) -> (Option<State>, Option<State>) {
        self.next = first;
        self.loops.push(LoopExits::default());
        self.stmt(body, &mut st);
        let exits = self.loops.pop().unwrap_or_default();
        (join(st, exits.continues), exits.breaks)
    }

    fn leaf(&mut self, st: &mut Option<State>) {
        let id = self.next;
        self.next += 1;
        let Some(st) = st else { return };
        self.reached.insert(id);
        if self.skip.is_some_and(|s| s.contains(id)) {
            return;
        }
        let words = self.prep.words;
        match self.prep.fx.get(id).copied().unwrap_or(Fx::Nothing) {
            Fx::Access { pipe, r, w } => self.access(st, id, pipe as usize, r, w),
            Fx::Set(e) => {
                let p = e.set_pipe.index();
                let slot = match st.slots.binary_search_by(|(x, _)| x.cmp(&e)) {
                    Ok(i) => &mut st.slots[i].1,
                    Err(i) => {
                        st.slots.insert(i, (e, Slot::new(words)));
                        &mut st.slots[i].1
                    }
                };
                slot.must = true;
                if let Err(k) = slot.sets.binary_search(&(id as u32)) {
                    slot.sets.insert(k, id as u32);
                }
                // What the set pipe was still waiting for, less its own ops (which finish
                // before the set fires).
                let pending = &st.pending[p * words..(p + 1) * words];
                let own = self.prep.on_pipe(p);
                for ((u, x), o) in slot.unfinished.iter_mut().zip(pending).zip(own) {
                    *u |= x & !o;
                }
            }
            Fx::Wait(e) => {
                let slot = match st.slots.binary_search_by(|(x, _)| x.cmp(&e)) {
                    Ok(i) => Some(st.slots.remove(i).1),
                    Err(_) => None,
                };
                let matched = self.matches.entry(id).or_default();
                if let Some(s) = &slot {
                    matched.extend(s.sets.iter().map(|&x| x as usize));
                }
                match slot {
                    Some(s) if s.must => {
                        let p = e.wait_pipe.index();
                        and(&mut st.pending[p * words..(p + 1) * words], &s.unfinished);
                    }
                    s => {
                        let somewhere = s.is_some_and(|s| !s.sets.is_empty());
                        self.report(Finding::UnmatchedWait { wait: id, somewhere });
                    }
                }
            }
            Fx::Barrier(p) => {
                let p = p as usize;
                and_not(&mut st.pending[p * words..(p + 1) * words], self.prep.on_pipe(p));
            }
            Fx::All => {
                st.pending.iter_mut().for_each(|w| *w = 0);
                st.slots.iter_mut().for_each(|(_, s)| s.unfinished.iter_mut().for_each(|w| *w = 0));
            }
            Fx::Nothing => {}
        }
    }

    /// Checks access `id` against the conflicting earlier accesses its pipe may overlap, then
    /// records it as issued.
    fn access(&mut self, st: &mut State, id: usize, pipe: usize, r: (u32, u32), w: (u32, u32)) {
        let prep = self.prep;
        let words = prep.words;
        let reads = &prep.mems[r.0 as usize..r.1 as usize];
        let writes = &prep.mems[w.0 as usize..w.1 as usize];
        let pending = &st.pending[pipe * words..(pipe + 1) * words];
        let mut found = std::mem::take(&mut self.scratch);
        let mut check = |table: &[Vec<u32>], m: u32, kind: DepKind| {
            for &x in prep.aliases(m) {
                for &a in &table[x as usize] {
                    if bit(pending, a as usize) {
                        found.push(Finding::Dependency {
                            first: a as usize,
                            second: id,
                            kind,
                            mem: prep.locs[m as usize],
                        });
                    }
                }
            }
        };
        for &m in reads {
            check(&st.writers, m, DepKind::Raw);
        }
        for &m in writes {
            check(&st.writers, m, DepKind::Waw);
            check(&st.readers, m, DepKind::War);
        }
        for f in found.drain(..) {
            self.report(f);
        }
        self.scratch = found;
        let id32 = id as u32;
        for &m in writes {
            let w = &mut st.writers[m as usize];
            w.clear();
            w.push(id32);
            st.readers[m as usize].clear();
        }
        for &m in reads {
            // Ids grow along a walk, so the new reader mostly goes last; a loop's later
            // rounds restart the ids below those its state holds.
            let r = &mut st.readers[m as usize];
            match r.last() {
                Some(&last) if last >= id32 => {
                    if let Err(k) = r.binary_search(&id32) {
                        r.insert(k, id32);
                    }
                }
                _ => r.push(id32),
            }
        }
        let (w, bit) = (id / 64, 1u64 << (id % 64));
        for q in 0..PIPES {
            if !(self.in_order[pipe] && q == pipe) {
                st.pending[q * words + w] |= bit;
            }
        }
        for (_, slot) in &mut st.slots {
            set_bit(&mut slot.unfinished, id);
        }
    }

    fn report(&mut self, f: Finding) {
        if self.allowed.is_some_and(|ok| !ok.contains(&f)) {
            self.aborted = true;
        }
        self.found.push(f);
    }
}
