//! Tensors whose accesses in different iterations of a loop touch disjoint windows: a loop that
//! loads and stores rows `i·R .. i·R + R` of one tensor in iteration `i` never reads, in one
//! iteration, what another one wrote. Insert-sync (at `-O1` and `-O2`) and the sync hazard
//! checker both read such a tensor's accesses as conflicting only within one iteration and with
//! what runs before and after the loop, not across its back edge — one reading, so that the
//! checker verifies what the pass relies on.
//!
//! A tensor's MemRef is private to the iterations of a loop over `i` (constant step `st`) when:
//! - every access to it on a pipe in the loop body (nested statements included) is a load or
//!   store of a window (the op's `offsets` and `shapes` arguments, list literals of the
//!   tensor's rank with constant shapes) of a tensor variable with that MemRef, all those
//!   variables of one static shape (one coordinate system: no reshaped view);
//! - in some dimension `d`, every window's offset is `a·i + c + Σ kᵥ·v` with one constant `a ≠ 0`
//!   and one sum `Σ kᵥ·v` of variables that do not change in the loop, and constants `c`;
//! - with `D = a·st` (how far one iteration moves the windows), a window of any access in
//!   an iteration ends at or before the start of every window of the next (`D > 0`: `D + c' ≥ c +
//!   s`; `D < 0` mirrored), so windows of iterations further apart are disjoint too.

use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

use crate::analysis::effects::{self, Kind};
use crate::analysis::tensor_aliases::TensorAliases;
use crate::backend::Backend;
use crate::ir::visit::{walk_defined_vars, walk_stmts};
use crate::ir::{BinOp, Expr, ExprKind, MemorySpace, PipeType, Stmt, Type, VarId, VarKind, VarTable};

/// An offset as `a·i + c + Σ kᵥ·v` in the loop variable `i`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Affine {
    a: i64,
    c: i64,
    rest: BTreeMap<VarId, i64>,
}

impl Affine {
    fn scaled(mut self, k: i64) -> Option<Affine> {
        self.a = self.a.checked_mul(k)?;
        self.c = self.c.checked_mul(k)?;
        for v in self.rest.values_mut() {
            *v = v.checked_mul(k)?;
        }
        self.rest.retain(|_, k| *k != 0);
        Some(self)
    }

    fn plus(mut self, o: Affine) -> Option<Affine> {
        self.a = self.a.checked_add(o.a)?;
        self.c = self.c.checked_add(o.c)?;
        for (v, k) in o.rest {
            let e = self.rest.entry(v).or_insert(0);
            *e = e.checked_add(k)?;
        }
        self.rest.retain(|_, k| *k != 0);
        Some(self)
    }

    fn constant(&self) -> Option<i64> {
        (self.a == 0 && self.rest.is_empty()).then_some(self.c)
    }
}

/// `e` as an affine form in `i`, its other variables none of `variant`'s.
fn affine(e: &Expr, i: VarId, variant: &FxHashSet<VarId>) -> Option<Affine> {
    let zero = || Affine { a: 0, c: 0, rest: BTreeMap::new() };
    match &e.kind {
        ExprKind::ConstInt(c, _) => Some(Affine { c: *c, ..zero() }),
        ExprKind::Var(v) if *v == i => Some(Affine { a: 1, ..zero() }),
        ExprKind::Var(v) if !variant.contains(v) => Some(Affine { rest: BTreeMap::from([(*v, 1)]), ..zero() }),
        ExprKind::Binary(op, x, y) => {
            let (x, y) = (affine(x, i, variant)?, affine(y, i, variant)?);
            match op {
                BinOp::Add => x.plus(y),
                BinOp::Sub => x.plus(y.scaled(-1)?),
                BinOp::Mul => match (x.constant(), y.constant()) {
                    (Some(k), _) => y.scaled(k),
                    (_, Some(k)) => x.scaled(k),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// One window access: its offsets and constant shapes.
struct Window<'e> {
    offsets: &'e [Expr],
    shapes: Vec<i64>,
}

/// A tensor's window accesses in a loop body and the shape of the variables naming it.
type Accesses<'e> = (Vec<Window<'e>>, Vec<i64>);

/// The MemRef variables (as `aliases` reads them) of the DDR tensors private to the
/// iterations of the loop over `loop_var` (step `step`, iter args `iter_args`) with body
/// `body` (see the module doc); empty for a loop that is no `for`.
pub fn iteration_private(
    vars: &VarTable,
    backend: Backend,
    aliases: &TensorAliases,
    loop_var: VarId,
    step: &Expr,
    iter_args: &[VarId],
    body: &Stmt,
) -> Vec<VarId> {
    let Some(st) = step.as_const_int().filter(|&s| s != 0) else { return Vec::new() };
    let mut variant: FxHashSet<VarId> = iter_args.iter().copied().collect();
    variant.insert(loop_var);
    walk_defined_vars(body, &mut |v| {
        variant.insert(v);
    });
    // Per tensor MemRef: its windows and the shapes of the variables accessing it, or `None`
    // once an access that is no window access is met.
    let mut by_memref: FxHashMap<VarId, Option<Accesses>> = FxHashMap::default();
    walk_stmts(body, &mut |s| {
        let Some(Kind::Access(pipe)) = effects::kind(s, backend) else { return };
        if pipe == PipeType::S {
            return;
        }
        let window = window_of(s);
        let mut touched = Vec::new();
        effects::accesses(vars, s, &mut |_, v| {
            if let Some(m) = ddr_memref(vars, aliases, v) {
                touched.push((m, v));
            }
        });
        for (m, v) in touched {
            let entry = by_memref.entry(m).or_insert_with(|| Some((Vec::new(), Vec::new())));
            let Some((windows, shape)) = entry else { continue };
            let Some(var_shape) = static_shape(vars, v) else {
                *entry = None;
                continue;
            };
            if shape.is_empty() {
                *shape = var_shape.clone();
            }
            match &window {
                Some((tensor, w)) if *shape == var_shape && ddr_memref(vars, aliases, *tensor) == Some(m) => {
                    if w.offsets.len() != shape.len() {
                        *entry = None;
                    } else if !windows.iter().any(|x: &Window| std::ptr::eq(x.offsets, w.offsets)) {
                        windows.push(Window { offsets: w.offsets, shapes: w.shapes.clone() });
                    }
                }
                _ => *entry = None,
            }
        }
    });
    let mut out: Vec<VarId> = by_memref
        .into_iter()
        .filter_map(|(m, e)| {
            let (windows, shape) = e?;
            (0..shape.len()).any(|d| disjoint_in(&windows, d, loop_var, st, &variant)).then_some(m)
        })
        .collect();
    out.sort_unstable();
    out
}

/// Whether the windows of one iteration end before those of the next start in dimension `d`.
fn disjoint_in(windows: &[Window], d: usize, i: VarId, st: i64, variant: &FxHashSet<VarId>) -> bool {
    let mut forms = Vec::with_capacity(windows.len());
    for w in windows {
        let Some(f) = affine(&w.offsets[d], i, variant) else { return false };
        forms.push((f, w.shapes[d]));
    }
    let Some((first, _)) = forms.first() else { return false };
    let (a, rest) = (first.a, first.rest.clone());
    if a == 0 || forms.iter().any(|(f, _)| f.a != a || f.rest != rest) {
        return false;
    }
    let Some(dist) = a.checked_mul(st) else { return false };
    // `(c, s)` of an access in one iteration, `(c2, s2)` of one in the next, shifted by `dist`.
    forms.iter().all(|(f, s)| {
        forms.iter().all(|(g, s2)| {
            let (c, c2) = (i128::from(f.c), i128::from(g.c) + i128::from(dist));
            if dist > 0 {
                c2 >= c + i128::from(*s)
            } else {
                c2 + i128::from(*s2) <= c
            }
        })
    })
}

/// The tensor variable and window of a leaf that loads or stores one (`offsets` and `shapes`
/// list arguments, constant shapes).
fn window_of(s: &Stmt) -> Option<(VarId, Window<'_>)> {
    let value = match s {
        Stmt::Assign { value, .. } => value,
        Stmt::Eval { expr, .. } => expr,
        _ => return None,
    };
    let call = value.as_call()?;
    let def = crate::ops::def(call.callee.op()?);
    let arg = |name: &str| def.arg_params().position(|p| p.name == name).and_then(|k| call.args.get(k));
    let tensor = match def.written_arg() {
        Some(k) => call.args.get(k)?,
        None => arg("tensor")?,
    };
    let (ExprKind::MakeTuple(offsets), ExprKind::MakeTuple(shapes)) = (&arg("offsets")?.kind, &arg("shapes")?.kind)
    else {
        return None;
    };
    let shapes = shapes.iter().map(Expr::as_const_int).collect::<Option<Vec<_>>>()?;
    (shapes.len() == offsets.len()).then_some(())?;
    Some((tensor.as_var()?, Window { offsets, shapes }))
}

/// The MemRef variable of tensor variable `v` (an iter arg read as its init's, a MemRef as its
/// tensor's) when it is in DDR.
fn ddr_memref(vars: &VarTable, aliases: &TensorAliases, v: VarId) -> Option<VarId> {
    let v = effects::holder(vars, v);
    let Type::Tensor(_) = vars.var_type(v) else { return None };
    let m = vars.var_type(v).memref()?;
    match &vars.get(m)?.kind {
        VarKind::MemRef(info) if info.space == MemorySpace::Ddr => Some(aliases.get(m)),
        _ => None,
    }
}

/// The constant shape of tensor variable `v`.
fn static_shape(vars: &VarTable, v: VarId) -> Option<Vec<i64>> {
    vars.var_type(effects::holder(vars, v)).shape()?.iter().map(Expr::as_const_int).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Function;

    /// Kernel `k` with `body` (4-space indented under the function) over `out: [128, 64]`.
    fn kernel(body: &str) -> Function {
        let src = format!(
            "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, out: pl.InOut[pl.Tensor[[128, 64], pl.FP32]], n: pl.Scalar[pl.INT64]) -> pl.Tensor[[128, 64], pl.FP32]:\n{body}        return res\n"
        );
        use crate::passes::{manager::Manager, OptLevel, PassEnv, Pipeline};
        let prog = crate::driver::frontend(&src).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
        // The tensors have MemRefs from init-mem-ref on: the whole pipeline, -O1 (no copies).
        let env = PassEnv { opt: OptLevel::O1, ..PassEnv::new(Backend::Cce) };
        let prog = Manager::new(&Pipeline::Default.passes_at(OptLevel::O1), env).run(prog).expect("passes");
        prog.functions.into_iter().next().expect("one function")
    }

    /// How many tensors are private to the iterations of `f`'s first loop.
    fn private(f: &Function) -> usize {
        let mut n = None;
        walk_stmts(&f.body, &mut |s| {
            if let (None, Stmt::For { loop_var, step, iter_args, body, .. }) = (n, s) {
                let aliases = TensorAliases::of(&f.vars, [&f.body]);
                n = Some(iteration_private(&f.vars, Backend::Cce, &aliases, *loop_var, step, iter_args, body).len());
            }
        });
        n.expect("a loop")
    }

    fn looped(step: i64, load_at: &str, store_at: &str, rows: i64) -> Function {
        kernel(&format!(
            "        for i, (acc,) in pl.range(0, 4, {step}, init_values=(out,)):\n            t: pl.Tile[[{rows}, 64], pl.FP32] = pl.block.load(acc, [{load_at}, 0], [{rows}, 64])\n            r: pl.Tensor[[128, 64], pl.FP32] = pl.block.store(t, [{store_at}, 0], [{rows}, 64], acc)\n            res: pl.Tensor[[128, 64], pl.FP32] = pl.yield_(r)\n"
        ))
    }

    #[test]
    fn windows_a_whole_window_apart_are_private_to_their_iterations() {
        assert_eq!(private(&looped(1, "i * 32", "i * 32", 32)), 1);
        assert_eq!(private(&looped(1, "n + i * 32", "i * 32 + n", 32)), 1, "a loop-invariant term");
        assert_eq!(private(&looped(2, "i * 16", "i * 16 + 16", 16)), 1, "two windows per iteration");
        assert_eq!(private(&looped(1, "96 - i * 32", "96 - i * 32", 32)), 1, "moving down");
    }

    #[test]
    fn overlapping_or_unknown_windows_are_not() {
        assert_eq!(private(&looped(1, "i * 16", "i * 16", 32)), 0, "overlapping");
        assert_eq!(private(&looped(1, "i * 32", "i * 32 + 16", 32)), 0, "the store reaches the next load");
        assert_eq!(private(&looped(1, "i * n", "i * n", 32)), 0, "a stride not known");
        assert_eq!(private(&looped(1, "i * 32", "0", 32)), 0, "a store to the same rows every time");
    }
}
