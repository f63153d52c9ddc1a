//! Step 2 of BasicMemoryReuse (spec §2.9): the lifetime interval of every tile definition (or
//! group of definitions sharing one MemRef) over the numbered statements of [`super::blocks`].

use rustc_hash::FxHashMap;

use crate::ir::visit::{for_each_var, walk_all_exprs, walk_stmts};
use crate::ir::{ExprKind, MemorySpace, Program, Stmt, Type, VarId, VarKind};

/// One lifetime: a tile definition, or all definitions sharing one MemRef (reshape chains).
#[derive(Clone, Debug)]
pub struct Interval {
    /// The first tile variable of the group (the representative); see [`Interval::members`].
    pub first: VarId,
    /// The group's other tile variables, in definition order (most groups have none, and an
    /// empty `Vec` allocates nothing).
    pub rest: Vec<VarId>,
    /// The MemRef variable the group holds before the pass.
    pub memref: VarId,
    pub space: MemorySpace,
    pub size: u64,
    /// First definition index.
    pub def: usize,
    /// Last definition or use index.
    pub last: usize,
}

impl Interval {
    /// The tile variables of the group, in definition order.
    pub fn members(&self) -> impl Iterator<Item = VarId> + '_ {
        std::iter::once(self.first).chain(self.rest.iter().copied())
    }

    /// Touching at one index counts as overlapping (a statement may read one and write the
    /// other). The pass itself needs only the special case of intervals in definition order
    /// (see `decide`); the tests' literal definition of step 3 uses this.
    #[cfg(test)]
    pub fn overlaps(&self, other: &Interval) -> bool {
        !(self.last < other.def || other.last < self.def)
    }
}

/// The intervals of the tile definitions among `stmts`, in definition order of their
/// representatives.
pub fn intervals(prog: &Program, stmts: &[&Stmt]) -> Vec<Interval> {
    // Definitions: (tile var, its MemRef, index), in statement order. Sized for the usual
    // kernel (about one tile definition per statement, each used a few statements later), so
    // that neither is copied while it grows.
    let mut defs: Vec<(VarId, VarId, usize)> = Vec::with_capacity(stmts.len());
    let mut last_use: FxHashMap<VarId, usize> = FxHashMap::default();
    last_use.reserve(stmts.len());
    for (i, s) in stmts.iter().enumerate() {
        if let Stmt::Assign { var, .. } = s {
            if let Type::Tile(t) = prog.var_type(*var) {
                if let Some(m) = t.memref.filter(|m| matches!(prog.var(*m).kind, VarKind::MemRef(_))) {
                    defs.push((*var, m, i));
                }
            }
        }
        for_each_used_var(prog, s, &mut |v| {
            last_use.insert(v, i);
        });
    }
    // One interval per MemRef, in order of its first definition; later definitions of the
    // same MemRef (reshape chains) join it.
    let mut index_of: FxHashMap<VarId, usize> = FxHashMap::default();
    index_of.reserve(defs.len());
    let mut out: Vec<Interval> = Vec::with_capacity(defs.len());
    for &(var, memref, idx) in &defs {
        let iv = match index_of.get(&memref) {
            Some(&k) => {
                out[k].rest.push(var);
                &mut out[k]
            }
            None => {
                let VarKind::MemRef(info) = &prog.var(memref).kind else { continue };
                let k = out.len();
                index_of.insert(memref, k);
                out.push(Interval { first: var, rest: Vec::new(), memref, space: info.space, size: info.size, def: idx, last: 0 });
                &mut out[k]
            }
        };
        iv.last = iv.last.max(idx).max(last_use.get(&var).copied().unwrap_or(0));
    }
    out
}

/// The variables statement `s` uses. The reference records the variables of assignment values
/// and evaluated expressions only (yields, returns and loop bounds record none), with an
/// iter-arg reference standing for its init value's variables.
///
/// Deviation (spec §6.1 Q20): a `with pl.incore():` scope kept as one opaque statement uses
/// every variable referenced anywhere inside it, so a tile the scope reads stays live until the
/// scope; the reference saw no use there and handed the tile's buffer to a later tile.
///
/// (The reference's walk also visits the shape dims of tensor types; those are scalars and
/// never tile variables, so they cannot change an interval and are not visited here.)
///
/// `f` is called once per use (a variable may come more than once), in no promised order: all
/// uses of one statement have the same index, which is all the lifetimes need.
fn for_each_used_var(prog: &Program, s: &Stmt, f: &mut impl FnMut(VarId)) {
    // An iter-arg reference stands for its init value's variables.
    let mut used = |v: VarId| match &prog.var(v).kind {
        VarKind::IterArg { init } => for_each_var(init, f),
        _ => f(v),
    };
    match s {
        Stmt::Assign { value, .. } => for_each_var(value, &mut used),
        Stmt::Eval { expr, .. } => for_each_var(expr, &mut used),
        Stmt::Scope { body, .. } => {
            walk_all_exprs(body, &mut |e| {
                if let ExprKind::Var(v) = e.kind {
                    used(v);
                }
            });
            walk_stmts(body, &mut |st| {
                if let Stmt::For { iter_args, .. } | Stmt::While { iter_args, .. } = st {
                    for a in iter_args {
                        if let VarKind::IterArg { init } = &prog.var(*a).kind {
                            for_each_var(init, &mut used);
                        }
                    }
                }
            });
        }
        _ => {}
    }
}
