//! Positions of leaf statements in a function body (spec §2.10 "Positions").
//!
//! A position is the path from the body to a leaf: `Seq(i)` for the i-th child of a
//! `SeqStmts`, `Op(j)` for the j-th statement of an `OpStmts`, and markers for if branches,
//! loop bodies and (ptoc's fix of §6.1 Q21) `with pl.incore():` bodies. Paths compare
//! lexicographically (kind first, then index), which is the order the reference's maps and
//! event-id sort use; [`before`] is the weaker "executes earlier in the same straight-line
//! code" relation that the reductions and event-id reuse rely on.

use rustc_hash::FxHashMap;

/// The kind of one path element, in the reference's order (`Seq < Op < IfThen < IfElse <
/// ForBody`); `ScopeBody` (Q21) sorts last so that paths without scopes keep their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Seq,
    Op,
    IfThen,
    IfElse,
    ForBody,
    ScopeBody,
}

/// One path element; markers (branches, bodies) have index 0. Packed in one word, the kind in
/// the top byte above the index, so that comparing, hashing and ordering an element (kind first,
/// then index, the reference's order) is one integer operation on the hot paths of the pass.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Elem(u64);

/// Bits of an element below its kind; statement indices never come near 2^56.
const INDEX_BITS: u32 = 56;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;
/// The kinds by their packed code (`Kind as u64`).
const KINDS: [Kind; 6] = [Kind::Seq, Kind::Op, Kind::IfThen, Kind::IfElse, Kind::ForBody, Kind::ScopeBody];

impl Elem {
    fn new(kind: Kind, index: usize) -> Elem {
        Elem(((kind as u64) << INDEX_BITS) | (index as u64 & INDEX_MASK))
    }
    pub fn seq(index: usize) -> Elem {
        Elem::new(Kind::Seq, index)
    }
    pub fn op(index: usize) -> Elem {
        Elem::new(Kind::Op, index)
    }
    pub fn marker(kind: Kind) -> Elem {
        Elem::new(kind, 0)
    }
    pub fn kind(self) -> Kind {
        KINDS[(self.0 >> INDEX_BITS) as usize]
    }
    pub fn index(self) -> usize {
        (self.0 & INDEX_MASK) as usize
    }
    /// The element with the same kind and another index.
    pub fn with_index(self, index: usize) -> Elem {
        Elem::new(self.kind(), index)
    }
}

impl std::fmt::Debug for Elem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}({})", self.kind(), self.index())
    }
}

/// The last element recorded for the root, which has none: a marker, so that [`before_elem`]
/// of it and any element is false (the root, a prefix of every path, is before nothing and
/// nothing is before it), as the root shares its parent (itself) with its children.
const ROOT_LAST: Elem = Elem((Kind::ScopeBody as u64) << INDEX_BITS);

/// The path being walked, pushed and popped; interned into a [`PosId`] at each leaf.
pub type Path = Vec<Elem>;

/// A position interned in [`Positions`]: equal ids are equal paths. Pairs, indexes and
/// de-duplication sets hold ids, so hashing or comparing a position for identity costs one
/// integer instead of a walk over its path; order (`before`, the event-id sort) still goes
/// through the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PosId(usize);

impl PosId {
    /// The dense index of the id, for tables indexed by position.
    pub fn index(self) -> usize {
        self.0
    }
}

/// The positions of one function body, each stored once and numbered densely in the order
/// they were first seen (an index for per-position tables such as the leaves' pipes).
///
/// The positions form a tree: every prefix of an interned path is a position too (the empty
/// path is [`Positions::ROOT`]), and a position is found from its parent and its last element
/// ([`Positions::child`]), so that interning the statements of an `OpStmts` costs one small
/// lookup each instead of hashing their whole paths. The paths lie back to back in one vector,
/// so interning allocates nothing per position. The statements of one `OpStmts` are usually
/// interned together ([`Positions::intern_ops`]): their ids are consecutive and a lookup of one
/// is an index into a table, not a hash lookup (phase 1 does one per leaf and per folded end).
#[derive(Debug)]
pub struct Positions {
    elems: Vec<Elem>,
    /// Where each id's path lies in `elems`.
    bounds: Vec<(usize, usize)>,
    /// The child of a position with one more element (only looked up), except the `Op`
    /// children held by `ops`.
    children: FxHashMap<(PosId, Elem), PosId>,
    /// How each id's `Op` children are found, indexed by id.
    ops: Vec<OpChildren>,
    /// Each id's parent, the id of its path without the last element (the root's is itself),
    /// and that last element ([`ROOT_LAST`] for the root), for [`Positions::before`].
    nodes: Vec<(PosId, Elem)>,
    /// Reused by [`Positions::intern_edited`].
    scratch: Path,
    /// The `ForBody` positions of loops that run at least once (constant bounds), for
    /// [`some_dominates`].
    always: rustc_hash::FxHashSet<PosId>,
}

impl Default for Positions {
    fn default() -> Self {
        Positions {
            elems: Vec::new(),
            bounds: vec![(0, 0)],
            children: FxHashMap::default(),
            ops: vec![OpChildren::None],
            nodes: vec![(Positions::ROOT, ROOT_LAST)],
            scratch: Path::new(),
            always: Default::default(),
        }
    }
}

impl Positions {
    /// The empty path, the parent of the outermost elements.
    pub const ROOT: PosId = PosId(0);

    /// The id of the path of `parent` followed by `e`, added if it is new.
    pub fn child(&mut self, parent: PosId, e: Elem) -> PosId {
        if let Some(id) = self.run_child(parent, e) {
            return id;
        }
        let next = PosId(self.bounds.len());
        let id = *self.children.entry((parent, e)).or_insert(next);
        if id == next {
            self.push(parent, e);
            if e.kind() == Kind::Op && self.ops[parent.0] == OpChildren::None {
                self.ops[parent.0] = OpChildren::Each;
            }
        }
        id
    }

    /// Interns `Op(0)` … `Op(n − 1)` under `parent` as consecutive ids, so that [`Positions::child`]
    /// finds each by its index. Only when `parent` has no `Op` child yet (otherwise they are
    /// interned one at a time, as [`Positions::child`] is asked for them): a path keeps one id.
    pub fn intern_ops(&mut self, parent: PosId, n: usize) {
        if self.ops[parent.0] != OpChildren::None || n == 0 {
            return;
        }
        let first = self.bounds.len();
        self.ops[parent.0] = OpChildren::Run { first, len: n };
        for j in 0..n {
            self.push(parent, Elem::op(j));
        }
    }

    /// The id of `Op(j)` under `parent` if it is in a run of [`Positions::intern_ops`].
    fn run_child(&self, parent: PosId, e: Elem) -> Option<PosId> {
        match self.ops[parent.0] {
            OpChildren::Run { first, len } if e.kind() == Kind::Op && e.index() < len => Some(PosId(first + e.index())),
            _ => None,
        }
    }

    /// Adds the new position `parent` followed by `e`.
    fn push(&mut self, parent: PosId, e: Elem) {
        let (start, end) = self.bounds[parent.0];
        let at = self.elems.len();
        self.elems.extend_from_within(start..end);
        self.elems.push(e);
        self.bounds.push((at, self.elems.len()));
        self.nodes.push((parent, e));
        self.ops.push(OpChildren::None);
    }

    /// Makes room for `n` more positions (of about four elements each; most of them ops, which
    /// need no entry in the map of children).
    pub fn reserve(&mut self, n: usize) {
        self.children.reserve(n / 4);
        self.bounds.reserve(n);
        self.nodes.reserve(n);
        self.ops.reserve(n);
        self.elems.reserve(n.saturating_mul(4));
    }

    /// The id of `parent` followed by `e` if it has been interned.
    pub fn get_child(&self, parent: PosId, e: Elem) -> Option<PosId> {
        self.run_child(parent, e).or_else(|| self.children.get(&(parent, e)).copied())
    }

    /// The id of the path of `id` without its last element (the root for the root).
    pub fn parent(&self, id: PosId) -> PosId {
        self.nodes[id.0].0
    }

    /// The id of `path`, added (with its prefixes) if it is new.
    pub fn intern(&mut self, path: &[Elem]) -> PosId {
        path.iter().fold(Positions::ROOT, |p, &e| self.child(p, e))
    }

    /// The id of the path of `p` changed by `edit`, added if it is new.
    pub fn intern_edited(&mut self, p: PosId, edit: impl FnOnce(&mut Path)) -> PosId {
        let mut path = std::mem::take(&mut self.scratch);
        path.clear();
        path.extend_from_slice(self.path(p));
        edit(&mut path);
        let id = self.intern(&path);
        self.scratch = path;
        id
    }

    /// The id of `path` if it has been interned.
    pub fn get(&self, path: &[Elem]) -> Option<PosId> {
        path.iter().try_fold(Positions::ROOT, |p, &e| self.get_child(p, e))
    }

    /// [`before`] on the paths of two ids. Positions in one run of ops or one sequence share
    /// their parent and differ in their last element only: that common case compares the two
    /// elements and walks no path (this runs for every candidate of the reductions).
    #[inline]
    /// Records that the loop body at `id` (a `ForBody` position) runs at least once.
    pub fn mark_always_runs(&mut self, id: PosId) {
        self.always.insert(id);
    }

    /// Whether the element at `path[k]` may not run when its parent runs: an if arm, or the body
    /// of a loop not known to run at least once.
    fn may_skip(&self, path: &[Elem], k: usize) -> bool {
        match path[k].kind() {
            Kind::IfThen | Kind::IfElse => true,
            Kind::ForBody => !self.get(&path[..=k]).is_some_and(|id| self.always.contains(&id)),
            _ => false,
        }
    }

    /// [`dominates`], with the bodies of loops that run at least once taken as run.
    pub fn dominates(&self, b: &[Elem], c: &[Elem]) -> bool {
        let common = b.iter().zip(c).take_while(|(x, y)| x == y).count();
        !(common..b.len()).any(|k| self.may_skip(b, k))
    }

    pub fn before(&self, a: PosId, b: PosId) -> bool {
        let ((pa, x), (pb, y)) = (self.nodes[a.0], self.nodes[b.0]);
        if pa == pb {
            return before_elem(x, y);
        }
        before(self.path(a), self.path(b))
    }

    /// The path of an id handed out by this table.
    pub fn path(&self, id: PosId) -> &[Elem] {
        let (start, end) = self.bounds[id.0];
        &self.elems[start..end]
    }
}

/// How the `Op` children of a position are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpChildren {
    /// It has none yet.
    None,
    /// `Op(j)` for `j < len` is id `first + j` ([`Positions::intern_ops`]); any other in the map.
    Run { first: usize, len: usize },
    /// In the map of children, interned one at a time.
    Each,
}

/// True iff `a` certainly executes before `b` in the same straight-line code: at the first
/// element where they differ both are `Seq` or both `Op` indices and `a`'s is smaller.
/// Prefixes, different branches and different kinds are unordered.
pub fn before(a: &[Elem], b: &[Elem]) -> bool {
    match a.iter().zip(b).find(|(x, y)| x != y) {
        Some((&x, &y)) => before_elem(x, y),
        None => false,
    }
}

/// [`before`] at the first element where two paths differ: the same kind, `Seq` or `Op`, and a
/// smaller index. On the packed words: the same kind code, one of the two lowest codes, and
/// then the smaller word has the smaller index, without decoding the kind.
fn before_elem(x: Elem, y: Elem) -> bool {
    let kind = x.0 >> INDEX_BITS;
    kind == y.0 >> INDEX_BITS && kind <= Kind::Op as u64 && x.0 < y.0
}

/// True iff every execution that reaches `c` has run `b` (for `b` [`before`] `c`): `b` is not
/// inside an if branch or a loop body (which may run zero times) that does not also hold `c`.
/// The linear reduction of phase 1 may only rely on a sync at `b` when this holds (fuzz finding
/// F2: a barrier in an if branch was taken to cover a dependence around the `if`).
pub fn dominates(b: &[Elem], c: &[Elem]) -> bool {
    let common = b.iter().zip(c).take_while(|(x, y)| x == y).count();
    !b[common..].iter().any(|e| matches!(e.kind(), Kind::IfThen | Kind::IfElse | Kind::ForBody))
}

/// True iff every execution that reaches `c` has run one of `bs` (each [`before`] `c`): one of
/// them [`dominates`] `c`, or some `if` before `c` that dominates it has in each arm a
/// position of `bs` that runs whenever the arm runs (recursively through nested `if`s). The
/// transitive reduction of phase 1 may rely on a middle statement only when this holds: one
/// in each branch of an `if` covers the `if` (conformance case
/// `insert-sync/0015_test_for_with_if_branches`), one in a single branch does not (fuzz
/// finding F2b).
pub fn some_dominates(positions: &Positions, bs: &[&[Elem]], c: &[Elem]) -> bool {
    if bs.iter().any(|b| positions.dominates(b, c)) {
        return true;
    }
    bs.iter().any(|b| {
        let common = b.iter().zip(c).take_while(|(x, y)| x == y).count();
        // An `if` holding `b` that is an earlier sibling statement of an ancestor of `c` (not
        // an ancestor of `c` itself: its other arm would not lead to `c`).
        match first_branch(positions, b, common) {
            Some(m) if m > common && matches!(b[m].kind(), Kind::IfThen | Kind::IfElse) => {
                if_covered(positions, bs, &b[..m])
            }
            _ => false,
        }
    })
}

/// Index (from `from` on) of the first element of `path` that may not run whenever its parent
/// runs (an if arm, or a loop body that may run zero times), if any.
fn first_branch(positions: &Positions, path: &[Elem], from: usize) -> Option<usize> {
    (from..path.len()).find(|&k| positions.may_skip(path, k))
}

/// True iff both arms of the `if` at `at` run a position of `bs` whenever they run.
fn if_covered(positions: &Positions, bs: &[&[Elem]], at: &[Elem]) -> bool {
    [Kind::IfThen, Kind::IfElse].into_iter().all(|arm| {
        bs.iter().any(|b| {
            if b.len() <= at.len() || !b.starts_with(at) || b[at.len()].kind() != arm {
                return false;
            }
            match first_branch(positions, b, at.len() + 1) {
                None => true,
                Some(m) => matches!(b[m].kind(), Kind::IfThen | Kind::IfElse) && if_covered(positions, bs, &b[..m]),
            }
        })
    })
}

/// Index of the innermost `Seq` element (the scope anchor), if any.
pub fn depth(p: &[Elem]) -> Option<usize> {
    p.iter().rposition(|e| e.kind() == Kind::Seq)
}

/// True iff both positions have their innermost `Seq` at the same depth and agree on every
/// element before it (the same `SeqStmts`).
pub fn same_scope(a: &[Elem], b: &[Elem]) -> bool {
    match (depth(a), depth(b)) {
        (Some(k), Some(l)) if k == l => a[..k] == b[..k],
        _ => false,
    }
}

/// Where a position sits in its `SeqStmts`: child `i`, and statement `j` of it if it is an
/// `OpStmts` (`None` for the child itself).
pub type SeqKey = (usize, Option<usize>);

/// The `SeqStmts` holding a position and the key of the position in it: `(i, Some(j))` for
/// `…, Seq(i), Op(j)`, `(i, None)` for `…, Seq(i)`; `None` for anything else.
pub fn split_parent(p: &[Elem]) -> Option<(&[Elem], SeqKey)> {
    match p {
        [parent @ .., s, o] if o.kind() == Kind::Op => Some((parent, (s.index(), Some(o.index())))),
        [parent @ .., s] if s.kind() == Kind::Seq => Some((parent, (s.index(), None))),
        _ => None,
    }
}

/// For the unit tests of the pass: the positions `Seq(0), Op(i)` for i < n, and their ids.
#[cfg(test)]
pub(super) fn ops(n: usize) -> (Positions, Vec<PosId>) {
    let mut positions = Positions::default();
    let at = (0..n).map(|i| positions.intern(&[Elem::seq(0), Elem::op(i)])).collect();
    (positions, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(i: usize) -> Elem {
        Elem::seq(i)
    }

    #[test]
    fn before_needs_the_same_kind_at_the_first_difference() {
        assert!(before(&[seq(0), Elem::op(1)], &[seq(0), Elem::op(2)]));
        assert!(before(&[seq(0), Elem::op(5)], &[seq(1)]));
        assert!(!before(&[seq(1)], &[seq(0), Elem::op(0)]));
        assert!(!before(&[seq(0)], &[seq(0), Elem::op(0)]), "prefixes are unordered");
        let then_leaf = [seq(1), Elem::marker(Kind::IfThen), seq(0)];
        let else_leaf = [seq(1), Elem::marker(Kind::IfElse), seq(0)];
        assert!(!before(&then_leaf, &else_leaf));
        assert!(!before(&else_leaf, &then_leaf));
    }

    #[test]
    fn before_on_ids_agrees_with_before_on_paths() {
        let paths: [&[Elem]; 7] = [
            &[seq(0), Elem::op(1)],
            &[seq(0), Elem::op(2)],
            &[seq(0)],
            &[seq(1)],
            &[seq(1), Elem::marker(Kind::IfThen), seq(0)],
            &[seq(1), Elem::marker(Kind::IfElse), seq(0)],
            &[seq(1), Elem::marker(Kind::IfElse), seq(2)],
        ];
        let mut ps = Positions::default();
        let ids: Vec<PosId> = paths.iter().map(|p| ps.intern(p)).collect();
        for (a, pa) in ids.iter().zip(paths) {
            assert!(!ps.before(Positions::ROOT, *a) && !ps.before(*a, Positions::ROOT));
            for (b, pb) in ids.iter().zip(paths) {
                assert_eq!(ps.before(*a, *b), before(pa, pb), "{pa:?} before {pb:?}");
            }
        }
    }

    #[test]
    fn only_unconditional_code_dominates() {
        let then_leaf = [seq(1), Elem::marker(Kind::IfThen), seq(0), Elem::op(0)];
        let body_leaf = [seq(1), Elem::marker(Kind::ForBody), seq(0), Elem::op(0)];
        let after = [seq(2), Elem::op(0)];
        assert!(dominates(&[seq(0), Elem::op(3)], &after));
        assert!(!dominates(&then_leaf, &after), "the branch may not run");
        assert!(!dominates(&body_leaf, &after), "the loop may run zero times");
        assert!(dominates(&then_leaf, &[seq(1), Elem::marker(Kind::IfThen), seq(0), Elem::op(2)]));
        let scope_leaf = [seq(1), Elem::marker(Kind::ScopeBody), seq(0), Elem::op(0)];
        assert!(dominates(&scope_leaf, &after), "a scope body always runs");
    }

    #[test]
    fn scopes_are_anchored_at_the_innermost_seq() {
        let body = [seq(1), Elem::marker(Kind::ForBody), seq(0), Elem::op(2)];
        let body2 = [seq(1), Elem::marker(Kind::ForBody), seq(3)];
        assert!(same_scope(&body, &body2));
        assert!(!same_scope(&body, &[seq(0), Elem::op(0)]));
        assert_eq!(depth(&body), Some(2));
        assert_eq!(depth(&[Elem::marker(Kind::ForBody)]), None);
        assert!(!same_scope(&[Elem::marker(Kind::ForBody)], &[Elem::marker(Kind::ForBody)]));
    }

    #[test]
    fn interning_gives_one_id_per_path() {
        let mut ps = Positions::default();
        let a = ps.intern(&[seq(0), Elem::op(1)]);
        let b = ps.intern(&[seq(0), Elem::op(2)]);
        let parent = ps.get(&[seq(0)]).expect("prefixes are interned too");
        assert_ne!(a, b);
        assert_ne!(a, parent);
        assert_eq!(ps.intern(&[seq(0), Elem::op(1)]), a);
        assert_eq!(ps.child(parent, Elem::op(2)), b, "a child is its parent's path and one element");
        assert_eq!(ps.path(b), &[seq(0), Elem::op(2)]);
        assert_eq!(ps.intern(&[seq(0)]), parent);
        assert_eq!(ps.get(&[seq(1)]), None);
        assert_eq!(ps.get(&[]), Some(Positions::ROOT));
        assert_eq!(ps.parent(a), parent);
        assert_eq!(ps.parent(parent), Positions::ROOT);
        assert_eq!(ps.get_child(parent, Elem::op(1)), Some(a));
        assert_eq!(ps.get_child(parent, Elem::op(7)), None);
        assert_eq!(ps.intern_edited(a, |p| p[1] = p[1].with_index(2)), b);
        let c = ps.intern_edited(a, |p| p.push(Elem::marker(Kind::ForBody)));
        assert_eq!(ps.path(c), &[seq(0), Elem::op(1), Elem::marker(Kind::ForBody)]);
        assert_eq!(ps.path(a), &[seq(0), Elem::op(1)], "editing a copy leaves the original");
        let mut ids = [Positions::ROOT, parent, a, b, c].map(PosId::index);
        ids.sort_unstable();
        assert_eq!(ids, [0, 1, 2, 3, 4], "ids are dense");
    }

    #[test]
    fn ops_interned_together_are_consecutive_and_keep_one_id_per_path() {
        let mut ps = Positions::default();
        let run = ps.intern(&[seq(0)]);
        ps.intern_ops(run, 3);
        let ids: Vec<usize> = (0..3).map(|j| ps.child(run, Elem::op(j)).index()).collect();
        assert_eq!(ids, [run.index() + 1, run.index() + 2, run.index() + 3]);
        assert_eq!(ps.intern(&[seq(0), Elem::op(2)]).index(), ids[2]);
        assert_eq!(ps.get(&[seq(0), Elem::op(1)]).map(PosId::index), Some(ids[1]));
        assert_eq!(ps.path(PosId(ids[1])), &[seq(0), Elem::op(1)]);
        assert_eq!(ps.parent(PosId(ids[1])), run);
        assert_eq!(ps.get_child(run, Elem::op(3)), None, "past the run");
        let past = ps.child(run, Elem::op(3));
        assert_eq!(ps.get_child(run, Elem::op(3)), Some(past));
        ps.intern_ops(run, 5);
        assert_eq!(ps.child(run, Elem::op(3)), past, "a second run adds no ids");
        assert_eq!(ps.get_child(run, Elem::op(4)), None);
        // Op children interned one at a time first: the run is not allocated.
        let other = ps.intern(&[seq(1)]);
        let single = ps.child(other, Elem::op(1));
        ps.intern_ops(other, 3);
        assert_eq!(ps.child(other, Elem::op(1)), single);
        assert_eq!(ps.get_child(other, Elem::op(0)), None);
        let zero = ps.child(other, Elem::op(0));
        assert_eq!(ps.path(zero), &[seq(1), Elem::op(0)]);
        assert_eq!(ps.get(&[seq(1), Elem::op(0)]), Some(zero));
    }

    #[test]
    fn parents_strip_op_and_seq() {
        let p = [seq(1), Elem::marker(Kind::ForBody), seq(0), Elem::op(2)];
        assert_eq!(split_parent(&p), Some((&p[..2], (0, Some(2)))));
        assert_eq!(split_parent(&p[..3]), Some((&p[..2], (0, None))));
        assert_eq!(split_parent(&p[..2]), None);
    }
}
