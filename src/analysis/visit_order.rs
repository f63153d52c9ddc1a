//! The order in which the reference's allocator visits the tile variables of a function
//! body (spec §2.11 step 1): allocate-memory-addr places MemRefs in it and the
//! AllocatedMemoryAddr verifier checks addresses in it.

use crate::ir::visit::for_each_var;
use crate::ir::{Expr, Stmt, Type, VarId, VarKind, VarTable};

/// The distinct tile-typed variables with a MemRef that `body` mentions, in the reference
/// visitor's order: statements in order; an assignment's target before its value; a loop's
/// loop var, range, iter args (each followed by its init value), body, then return vars; an
/// if's condition, branches, then return vars. Parameters appear only where the body uses them.
pub fn tile_vars_in_visit_order(vars: &VarTable, body: &Stmt) -> Vec<VarId> {
    let mut order = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    visit_vars(vars, body, &mut |v| {
        if matches!(vars.var_type(v), Type::Tile(t) if t.memref.is_some()) && seen.insert(v) {
            order.push(v);
        }
    });
    order
}

/// Calls `f` on every variable mentioned by `s`, in the order of [`tile_vars_in_visit_order`].
fn visit_vars(vars: &VarTable, s: &Stmt, f: &mut impl FnMut(VarId)) {
    let exprs = |e: &Expr, f: &mut dyn FnMut(VarId)| for_each_var(e, &mut |v| f(v));
    let iter_args = |args: &[VarId], f: &mut dyn FnMut(VarId)| {
        for &a in args {
            f(a);
            if let VarKind::IterArg { init } = &vars.var(a).kind {
                exprs(init, f);
            }
        }
    };
    match s {
        Stmt::Assign { var, value, .. } => {
            f(*var);
            exprs(value, f);
        }
        Stmt::If { cond, then_body, else_body, return_vars, .. } => {
            exprs(cond, f);
            visit_vars(vars, then_body, f);
            if let Some(e) = else_body {
                visit_vars(vars, e, f);
            }
            return_vars.iter().for_each(|&v| f(v));
        }
        Stmt::For { loop_var, start, stop, step, iter_args: args, body, return_vars, .. } => {
            f(*loop_var);
            for e in [start, stop, step] {
                exprs(e, f);
            }
            iter_args(args, f);
            visit_vars(vars, body, f);
            return_vars.iter().for_each(|&v| f(v));
        }
        Stmt::While { cond, iter_args: args, body, return_vars, .. } => {
            iter_args(args, f);
            exprs(cond, f);
            visit_vars(vars, body, f);
            return_vars.iter().for_each(|&v| f(v));
        }
        Stmt::Yield { values, .. } | Stmt::Return { values, .. } => values.iter().for_each(|e| exprs(e, f)),
        Stmt::Eval { expr, .. } => exprs(expr, f),
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|c| visit_vars(vars, c, f)),
        Stmt::Scope { body, .. } => visit_vars(vars, body, f),
        Stmt::Break { .. } | Stmt::Continue { .. } => {}
    }
}
