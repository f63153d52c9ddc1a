//! The MemRef plan of init-mem-ref (`passes-and-codegen.md` §2.8 steps 2–3): which buffer each
//! tensor and tile variable of a function gets, in the reference's visit order. The pass
//! (`passes::init_mem_ref`) creates the plan's MemRefs; lowering (`lower::memrefs`) asks the same
//! plan which MemRef a variable whose type the text does not show was given. It lives below
//! both (docs/architecture.md, "Layers"), so lowering does not call into a pass.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::diag::Span;
use crate::ir::visit::{child_stmts, for_each_var, stmt_exprs};
use crate::ir::{Call, DataType, Expr, Function, MemRefInfo, MemorySpace, Stmt, Type, VarId, VarKind, VarTable};
use crate::ops;

/// The MemRefs init-mem-ref gives the tensor and tile variables of one function (§2.8 steps
/// 2–3), before any is created: MemRef `id` is `buffers[id]` (its description and the span of
/// the variable it was made for), and `memref_of` maps each variable that gets a MemRef to its
/// id. It depends only on the function's statements — which op writes each variable, and the
/// order of the reference's visit — not on the MemRefs its types carry already, so lowering can
/// ask it which MemRef a variable whose type the text does not show had (`lower::memrefs`).
pub(crate) struct MemRefPlan {
    pub buffers: Vec<(MemRefInfo, Span)>,
    pub memref_of: FxHashMap<VarId, usize>,
}

/// The [`MemRefPlan`] of `f` (whose body need not be normalised: normalising only regroups
/// statements, it does not reorder them).
pub(crate) fn plan_memrefs(table: &VarTable, f: &Function) -> MemRefPlan {
    plan_recording(table, f, None)
}

/// [`plan_memrefs`], recording in `occurrences` (when given) the variable occurrences of the
/// body in the order init-mem-ref lists its allocs in: the planner's walk order, with each
/// assignment's target moved before the variables of its value.
pub(crate) fn plan_recording(table: &VarTable, f: &Function, mut occurrences: Option<&mut Vec<VarId>>) -> MemRefPlan {
    let vars = memory_spaces(&f.body);
    // Nearly every buffer is a block op's result or a parameter: room for them all up front
    // (the buffers are large entries, and growing copies them).
    let expected = vars.len() + f.params.len();
    let mut memref_of = FxHashMap::default();
    memref_of.reserve(expected);
    let mut planner = Planner { table, vars, plan: MemRefPlan { buffers: Vec::with_capacity(expected), memref_of } };
    for p in &f.params {
        planner.visit_var(p.var);
    }
    walk_vars(&f.body, &mut |occ| {
        if let Some(order) = occurrences.as_deref_mut() {
            match occ {
                Occurrence::Var(v) => order.push(v),
                Occurrence::Assigned { var, uses, .. } => order.insert(order.len() - uses, var),
            }
        }
        planner.visit(occ)
    });
    planner.plan
}

// ---------------------------------------------------------------------------------------------
// Step 2: memory spaces

/// The memory space each `x = block.*(…)` writes to (§2.8 step 2), in the planner's table
/// (nothing visited yet). Variables without a space (parameters, non-block assignments, loop
/// and return vars) live in DDR.
fn memory_spaces(body: &Stmt) -> FxHashMap<VarId, VarVisit> {
    let mut spaces = FxHashMap::default();
    crate::ir::visit::walk_stmts(body, &mut |s| {
        if let Stmt::Assign { var, value, .. } = s {
            if let Some((def, call)) = op_call(value) {
                if def.category == ops::Category::Block {
                    spaces.insert(*var, VarVisit { space: Some(ops::result_space_of(def, call)), seen: false });
                }
            }
        }
    });
    spaces
}

/// The table entry and call of an operator call (not a function call).
fn op_call(e: &Expr) -> Option<(&'static ops::OpDef, &Call)> {
    let call = e.as_call()?;
    Some((ops::def(call.callee.op()?), call))
}

// ---------------------------------------------------------------------------------------------
// Variable occurrences in the reference's visit order

/// One variable occurrence met by [`walk_vars`].
enum Occurrence<'a> {
    /// Any occurrence other than an assignment's target: a use, a param, a loop/iter/return var.
    Var(VarId),
    /// The target of `var = value`, met right after the `uses` occurrences of the variables of
    /// `value`.
    Assigned { var: VarId, value: &'a Expr, uses: usize },
}

/// Calls `f` on every variable occurrence of `s` in the reference mutator's order: an
/// assignment's value before its target; a `for`'s loop var, `start`/`stop`/`step`, iter args, body, return vars; an `if`'s condition, branches,
/// return vars; a `while`'s condition, iter args, body, return vars. Iter-arg init values live
/// in the variable table and are left to the caller.
fn walk_vars<'a>(s: &'a Stmt, f: &mut impl FnMut(Occurrence<'a>)) {
    match s {
        Stmt::Assign { var, value, .. } => {
            let mut uses = 0;
            expr_uses(value, &mut |occ| {
                uses += 1;
                f(occ)
            });
            f(Occurrence::Assigned { var: *var, value, uses });
        }
        Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, .. } => {
            f(Occurrence::Var(*loop_var));
            for e in [start, stop, step] {
                expr_uses(e, f);
            }
            iter_args.iter().for_each(|v| f(Occurrence::Var(*v)));
            walk_vars(body, f);
            return_vars.iter().for_each(|v| f(Occurrence::Var(*v)));
        }
        Stmt::While { cond, iter_args, body, return_vars, .. } => {
            expr_uses(cond, f);
            iter_args.iter().for_each(|v| f(Occurrence::Var(*v)));
            walk_vars(body, f);
            return_vars.iter().for_each(|v| f(Occurrence::Var(*v)));
        }
        Stmt::If { cond, then_body, else_body, return_vars, .. } => {
            expr_uses(cond, f);
            walk_vars(then_body, f);
            if let Some(e) = else_body {
                walk_vars(e, f);
            }
            return_vars.iter().for_each(|v| f(Occurrence::Var(*v)));
        }
        _ => {
            for e in stmt_exprs(s) {
                expr_uses(e, f);
            }
            for c in child_stmts(s) {
                walk_vars(c, f);
            }
        }
    }
}

/// Calls `f` on every variable used in `e`, in pre-order.
fn expr_uses<'a>(e: &'a Expr, f: &mut impl FnMut(Occurrence<'a>)) {
    for_each_var(e, &mut |v| f(Occurrence::Var(v)));
}

// ---------------------------------------------------------------------------------------------
// Step 3: MemRef creation

/// Plans a MemRef for each tensor/tile variable of one function at its first occurrence.
struct Planner<'p> {
    table: &'p VarTable,
    /// What the planner knows per variable (one table, so a visit costs one lookup).
    vars: FxHashMap<VarId, VarVisit>,
    plan: MemRefPlan,
}

/// One variable in the [`Planner`]'s table.
#[derive(Clone, Copy, Default)]
struct VarVisit {
    /// The space its producing op writes to (step 2).
    space: Option<MemorySpace>,
    /// Already visited in this function.
    seen: bool,
}

impl Planner<'_> {
    fn visit(&mut self, occ: Occurrence<'_>) {
        match occ {
            Occurrence::Var(v) => self.visit_var(v),
            Occurrence::Assigned { var, value, .. } => {
                if self.vars.get(&var).is_some_and(|e| e.seen) {
                    return;
                }
                match self.shared_memref(value) {
                    Some(m) if is_buffer(self.table.var_type(var)) => {
                        self.vars.entry(var).or_default().seen = true;
                        self.plan.memref_of.insert(var, m);
                    }
                    _ => self.visit_var(var),
                }
            }
        }
    }

    /// The MemRef an assignment's target shares instead of getting its own (§2.8 step 3):
    /// a store's result is its destination tensor; a reshape's result is its input tile.
    fn shared_memref(&self, value: &Expr) -> Option<usize> {
        let (def, call) = op_call(value)?;
        let source = call.args.get(def.result_buffer.shared_arg()?)?;
        self.plan.memref_of.get(&source.as_var()?).copied()
    }

    /// First occurrence of `v`: an iter arg takes its init variable's MemRef (an init value
    /// that is not a variable has none); any other tensor/tile variable gets a new one; scalars
    /// get none.
    fn visit_var(&mut self, v: VarId) {
        let entry = self.vars.entry(v).or_default();
        if entry.seen {
            return;
        }
        entry.seen = true;
        let space = entry.space.unwrap_or(MemorySpace::Ddr);
        if !is_buffer(self.table.var_type(v)) {
            return;
        }
        if let VarKind::IterArg { init } = &self.table.var(v).kind {
            for_each_var(init, &mut |u| self.visit_var(u));
            if let Some(&m) = init.as_var().and_then(|u| self.plan.memref_of.get(&u)) {
                self.plan.memref_of.insert(v, m);
            }
            return;
        }
        let data = self.table.var(v);
        let id = self.plan.buffers.len();
        let info = MemRefInfo {
            space,
            addr: Expr::int(-1, DataType::Int64, Span::NONE),
            size: buffer_size(&data.ty),
            id: id as u64,
        };
        self.plan.buffers.push((info, data.span));
        self.plan.memref_of.insert(v, id);
    }
}

/// Gives a type MemRef `m`: a tile keeps its tile view, a tensor loses its tensor view (§6 Q5);
/// other types have no MemRef.
pub(crate) fn set_memref(ty: &mut Type, m: VarId) {
    match ty {
        Type::Tensor(t) => {
            let t = Arc::make_mut(t);
            t.memref = Some(m);
            t.view = None;
        }
        Type::Tile(t) => Arc::make_mut(t).memref = Some(m),
        _ => {}
    }
}

/// Whether a variable of this type lives in a buffer (tensor or tile).
fn is_buffer(ty: &Type) -> bool {
    matches!(ty, Type::Tensor(_) | Type::Tile(_))
}

/// Bytes of a tensor/tile: product of the dims × whole bytes per element, or 0 when a dim is
/// not an integer constant (or the product does not fit).
pub(crate) fn buffer_size(ty: &Type) -> u64 {
    let (Some(shape), Some(dtype)) = (ty.shape(), ty.dtype()) else { return 0 };
    let elem_bytes = u64::from(dtype.bits().div_ceil(8));
    shape.iter().try_fold(elem_bytes, |acc, d| acc.checked_mul(u64::try_from(d.as_const_int()?).ok()?)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The occurrences the planning walk records are the body's variables with each
    /// assignment's target before its value's variables, the order the allocs are listed in.
    #[test]
    fn recorded_occurrences_put_targets_before_values() {
        let src = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, a_0: pl.Tensor[[16], pl.FP32], out_0: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:\n        z_0: pl.Tile[[16], pl.FP32] = pl.block.load(a_0, [0], [16], target_memory=pl.MemorySpace.Vec)\n        for i_0, (acc_1,) in pl.range(0, 4, 1, init_values=(z_0,)):\n            s_0: pl.Tile[[16], pl.FP32] = pl.block.add(acc_1, z_0)\n            acc_2: pl.Tile[[16], pl.FP32] = pl.yield_(s_0)\n        r_0: pl.Tensor[[16], pl.FP32] = pl.block.store(acc_2, [0], [16], out_0)\n        return r_0\n";
        let table = crate::driver::frontend(src).expect("input lowers");
        let f = &table.functions[0];
        let mut recorded = Vec::new();
        let with = plan_recording(&f.vars, f, Some(&mut recorded));
        let names: Vec<&str> = recorded.iter().map(|&v| f.var_name(v)).collect();
        assert_eq!(
            names,
            ["z_0", "a_0", "i_0", "acc_1", "s_0", "acc_1", "z_0", "s_0", "acc_2", "r_0", "acc_2", "out_0", "r_0"]
        );
        // Recording does not change the plan.
        let without = plan_memrefs(&f.vars, f);
        assert_eq!(with.buffers, without.buffers);
        assert_eq!(with.memref_of, without.memref_of);
    }
}
