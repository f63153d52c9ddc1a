//! Step 2 of BasicMemoryReuse (spec §2.9): the lifetime interval of every tile definition (or
//! group of definitions sharing one MemRef) over the numbered statements of [`super::blocks`].

use rustc_hash::FxHashMap;

use super::blocks::Loop;

use crate::ir::visit::{for_each_var, walk_all_exprs, walk_stmts};
use crate::ir::{ExprKind, MemorySpace, Stmt, Type, VarId, VarKind, VarTable};

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
    /// `last` is the end of a loop body that reads the group again in its next iteration
    /// (`-O1`), not a last use: nothing may be written over it there.
    pub extended: bool,
    /// The group is yielded by a loop body starting at this index (`-O1`): the PTO emitter
    /// hands the yielded buffer itself to the next iteration, so nothing written in the body
    /// may share it.
    pub carried_from: Option<usize>,
}

impl Interval {
    /// The tile variables of the group, in definition order.
    pub fn members(&self) -> impl Iterator<Item = VarId> + '_ {
        std::iter::once(self.first).chain(self.rest.iter().copied())
    }

    /// Touching at one index counts as overlapping (a statement may read one and write the
    /// other). The reference's plan needs only the special case of intervals in definition
    /// order (see `decide`); `-O0`'s check of that plan against the true lifetimes and the
    /// tests' literal definition of step 3 use this.
    pub fn overlaps(&self, other: &Interval) -> bool {
        !(self.last < other.def || other.last < self.def)
    }
}

/// The intervals of the tile definitions among `stmts`, in definition order of their
/// representatives (the reference's rules, `-O0`).
pub fn intervals(vars: &VarTable, body: &Stmt, stmts: &[&Stmt]) -> Vec<Interval> {
    group(vars, &var_spans(vars, body, stmts, None))
}

/// The intervals of the lifetime plan (`-O1`), over [`super::blocks::linear_statements_with_loops`]:
/// the reference's rules with its limits of spec §6 Q14 removed. A yield or return uses its
/// values; an opaque nested `if`/scope uses every variable inside it and defines the tiles
/// assigned inside it, at its index; a tile defined before a loop and used in its body stays
/// live to the end of the body (the next iteration reads it again). A loop-carried value lives
/// in its init's buffer (the CCE code generator moves each yield there) or in the yielded
/// tile's (the PTO emitter), so the init of an iter arg stays live to the end of the loop body,
/// and a use of an iter arg or of a loop's result is a use of everything it stands for
/// ([`carried_values`]).
pub fn plan_intervals(vars: &VarTable, body: &Stmt, stmts: &[&Stmt], loops: &[Loop]) -> Vec<Interval> {
    group(vars, &var_spans(vars, body, stmts, Some(loops)))
}

/// The lifetime of one tile variable: `(var, its MemRef, definition index, last index,
/// extended over a loop)`, in definition order. `loops: Some(..)` selects the `-O1` rules.
pub fn var_spans(vars: &VarTable, body: &Stmt, stmts: &[&Stmt], loops: Option<&[Loop]>) -> Vec<VarSpan> {
    let plan = loops.is_some();
    let loops = loops.unwrap_or(&[]);
    let stands_for = carried_values(vars, body, plan);
    // Definitions: (tile var, its MemRef, index), in statement order. Sized for the usual
    // kernel (about one tile definition per statement, each used a few statements later), so
    // that neither is copied while it grows.
    let mut defs: Vec<(VarId, VarId, usize)> = Vec::with_capacity(stmts.len());
    let mut last_use: FxHashMap<VarId, usize> = FxHashMap::default();
    last_use.reserve(stmts.len());
    let mut yielded_at: FxHashMap<VarId, usize> = FxHashMap::default();
    let tile_memref = |v: VarId| match vars.var_type(v) {
        Type::Tile(t) => t.memref.filter(|m| matches!(vars.var(*m).kind, VarKind::MemRef(_))),
        _ => None,
    };
    for (i, s) in stmts.iter().enumerate() {
        match s {
            Stmt::Assign { var, .. } => {
                if let Some(m) = tile_memref(*var) {
                    defs.push((*var, m, i));
                }
            }
            Stmt::If { .. } | Stmt::For { .. } | Stmt::While { .. } | Stmt::Scope { .. } if plan => {
                walk_stmts(s, &mut |st| {
                    if let Stmt::Assign { var, .. } = st {
                        if let Some(m) = tile_memref(*var) {
                            defs.push((*var, m, i));
                        }
                    }
                });
            }
            _ => {}
        }
        for_each_used_var(vars, s, plan, &mut |v| {
            each_meaning(&stands_for, v, &mut |u| _ = last_use.insert(u, i));
        });
        if let (true, Stmt::Yield { values, .. }) = (plan, s) {
            values.iter().for_each(|e| for_each_var(e, &mut |v| _ = yielded_at.insert(v, i)));
        }
    }
    // The iter args' inits hold the carried values until the body's last statement.
    for l in loops {
        let (Stmt::For { iter_args, .. } | Stmt::While { iter_args, .. }) = l.stmt else { continue };
        let end = l.body.end - 1;
        for &a in iter_args {
            each_meaning(&stands_for, a, &mut |u| {
                let e = last_use.entry(u).or_insert(end);
                *e = (*e).max(end);
            });
        }
    }
    defs.into_iter()
        .map(|(var, memref, def)| {
            let mut last = def.max(last_use.get(&var).copied().unwrap_or(0));
            let mut extended = false;
            let mut carried_from = None;
            // Inner loops come first: a use in an inner loop extends to its end, then to the
            // end of each loop around it that the tile was defined before.
            for r in loops.iter().map(|l| &l.body) {
                if def < r.start && last >= r.start && last < r.end {
                    last = r.end - 1;
                    extended = true;
                }
                if carried_from.is_none() && r.contains(&def) && yielded_at.get(&var).is_some_and(|y| r.contains(y)) {
                    carried_from = Some(r.start);
                }
            }
            VarSpan { var, memref, def, last, extended, carried_from }
        })
        .collect()
}

/// What each loop-carried variable of `body` stands for: an iter arg for the variables of its
/// init, a loop's result for its iter arg (so a use of the result after the loop is a use of
/// the init, whose buffer holds the carried value) and, with `yields` (`-O1`), the variables its
/// body's final yield gives it (the PTO emitter's buffer of the result).
fn carried_values(vars: &VarTable, body: &Stmt, yields: bool) -> FxHashMap<VarId, Vec<VarId>> {
    let mut out: FxHashMap<VarId, Vec<VarId>> = FxHashMap::default();
    walk_stmts(body, &mut |s| {
        let (Stmt::For { iter_args, return_vars, body, .. } | Stmt::While { iter_args, return_vars, body, .. }) = s
        else {
            return;
        };
        let yielded = body.final_yield().filter(|_| yields);
        for (k, &a) in iter_args.iter().enumerate() {
            if let VarKind::IterArg { init } = &vars.var(a).kind {
                let mut used = Vec::new();
                for_each_var(init, &mut |v| used.push(v));
                out.insert(a, used);
            }
            if let Some(&r) = return_vars.get(k) {
                let mut used = vec![a];
                if let Some(y) = yielded.and_then(|ys| ys.get(k)) {
                    for_each_var(y, &mut |v| used.push(v));
                }
                out.insert(r, used);
            }
        }
    });
    out
}

/// Calls `f` with `v` and, transitively, everything it stands for in `stands_for`.
fn each_meaning(stands_for: &FxHashMap<VarId, Vec<VarId>>, v: VarId, f: &mut impl FnMut(VarId)) {
    let mut todo = vec![v];
    let mut seen = 0usize;
    while let Some(u) = todo.pop() {
        f(u);
        seen += 1;
        // SSA has no cycles here; the bound only guards against malformed input.
        if seen <= 4096 {
            if let Some(more) = stands_for.get(&u) {
                todo.extend_from_slice(more);
            }
        }
    }
}

/// One tile variable's lifetime (see [`var_spans`]).
#[derive(Clone, Copy, Debug)]
pub struct VarSpan {
    pub var: VarId,
    pub memref: VarId,
    pub def: usize,
    pub last: usize,
    /// Its last index was moved to the end of a loop body that reads it.
    pub extended: bool,
    /// See [`Interval::carried_from`].
    pub carried_from: Option<usize>,
}

/// One interval per MemRef, in order of its first definition; later definitions of the same
/// MemRef (reshape chains) join it.
fn group(vars: &VarTable, spans: &[VarSpan]) -> Vec<Interval> {
    let mut index_of: FxHashMap<VarId, usize> = FxHashMap::default();
    index_of.reserve(spans.len());
    let mut out: Vec<Interval> = Vec::with_capacity(spans.len());
    for sp in spans {
        let iv = match index_of.get(&sp.memref) {
            Some(&k) => {
                out[k].rest.push(sp.var);
                &mut out[k]
            }
            None => {
                let VarKind::MemRef(info) = &vars.var(sp.memref).kind else { continue };
                let k = out.len();
                index_of.insert(sp.memref, k);
                out.push(Interval {
                    first: sp.var,
                    rest: Vec::new(),
                    memref: sp.memref,
                    space: info.space,
                    size: info.size,
                    def: sp.def,
                    last: 0,
                    extended: false,
                    carried_from: None,
                });
                &mut out[k]
            }
        };
        if sp.last > iv.last {
            iv.extended = sp.extended;
        } else if sp.last == iv.last {
            iv.extended |= sp.extended;
        }
        iv.last = iv.last.max(sp.last);
        iv.carried_from = match (iv.carried_from, sp.carried_from) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
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
///
/// With `plan` (`-O1`), yields and returns use their values and an opaque nested `if`/`for`/
/// `while` uses everything inside it, like a scope.
fn for_each_used_var(vars: &VarTable, s: &Stmt, plan: bool, f: &mut impl FnMut(VarId)) {
    // An iter-arg reference stands for its init value's variables.
    let mut used = |v: VarId| match &vars.var(v).kind {
        VarKind::IterArg { init } => for_each_var(init, f),
        _ => f(v),
    };
    match s {
        Stmt::Assign { value, .. } => for_each_var(value, &mut used),
        Stmt::Eval { expr, .. } => for_each_var(expr, &mut used),
        Stmt::Yield { values, .. } | Stmt::Return { values, .. } if plan => {
            values.iter().for_each(|e| for_each_var(e, &mut used))
        }
        Stmt::If { .. } | Stmt::For { .. } | Stmt::While { .. } if plan => uses_inside(vars, s, &mut used),
        Stmt::Scope { body, .. } => uses_inside(vars, body, &mut used),
        _ => {}
    }
}

/// Every variable referenced anywhere in `body`, and the init values of its loops' iter args.
fn uses_inside(vars: &VarTable, body: &Stmt, used: &mut impl FnMut(VarId)) {
    walk_all_exprs(body, &mut |e| {
        if let ExprKind::Var(v) = e.kind {
            used(v);
        }
    });
    walk_stmts(body, &mut |st| {
        if let Stmt::For { iter_args, .. } | Stmt::While { iter_args, .. } = st {
            for a in iter_args {
                if let VarKind::IterArg { init } = &vars.var(*a).kind {
                    for_each_var(init, &mut *used);
                }
            }
        }
    });
}
