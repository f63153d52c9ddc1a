//! Which variables whose types the text does not show get a declaration `v: T` (spec §7 Q19).
//!
//! Iter args (`for i, (a, b) in pl.range(…, init_values=(x, y))`) and the return vars of a
//! multi-value yield (`r, s = pl.yield_(u, v)`) carry no annotation. Reading the text back gives
//! each the MemRef init-mem-ref's plan gives it (`lower::memrefs`); a pass that adds variables
//! or re-points buffers after init-mem-ref (legalize-cce, pipeline-loops, basic-memory-reuse)
//! can leave such a variable with another MemRef, or shift the plan's ids. The printer runs the
//! same plan on the IR it prints and declares exactly the variables the plan would not give
//! back, so every printed stage reads back to the program it was printed from, whatever the
//! passes before it did, and the text of a program that needs none stays as the reference
//! prints it.

use rustc_hash::FxHashSet;

use crate::analysis::memref_plan::plan_memrefs;
use crate::ir::visit::walk_stmts;
use crate::ir::{Function, MemRefInfo, Stmt, VarId, VarKind, VarTable};

/// The variables of `f` the text declares before their statement: hidden types (see the
/// module comment) that reading the text back would not give back.
pub(super) fn to_declare(f: &Function) -> FxHashSet<VarId> {
    let table = &f.vars;
    let mut out = FxHashSet::default();
    let has_memrefs = table.iter().any(|(_, v)| matches!(v.kind, VarKind::MemRef(_)));
    if !has_memrefs {
        return out;
    }
    let mut hidden = Vec::new();
    // MemRefs some annotation or alloc of the text describes (which the read-back interns).
    let mut described = FxHashSet::default();
    let describe = |described: &mut FxHashSet<VarId>, v: VarId| {
        if matches!(table.var(v).kind, VarKind::MemRef(_)) {
            described.insert(v);
        }
        if let Some(m) = table.var_type(v).memref() {
            described.insert(m);
        }
    };
    for p in &f.params {
        describe(&mut described, p.var);
    }
    walk_stmts(&f.body, &mut |s| match s {
        Stmt::Assign { var, .. } => describe(&mut described, *var),
        Stmt::For { iter_args, return_vars, .. } | Stmt::While { iter_args, return_vars, .. } => {
            hidden.extend_from_slice(iter_args);
            shown_or_hidden(return_vars, &mut hidden, &mut |v| describe(&mut described, v));
        }
        Stmt::If { return_vars, .. } => shown_or_hidden(return_vars, &mut hidden, &mut |v| describe(&mut described, v)),
        _ => {}
    });
    let plan = plan_memrefs(table, f);
    for v in hidden {
        let planned = plan.memref_of.get(&v).and_then(|&id| plan.buffers.get(id)).map(|(info, _)| info);
        let actual = table.var_type(v).memref();
        let given_back = match (actual, planned) {
            (None, None) => true,
            (Some(m), Some(info)) => {
                same_buffer(table, m, info) && (described.contains(&m) || is_undescribed_default(table, m))
            }
            _ => false,
        };
        if !given_back {
            out.insert(v);
        }
    }
    out
}

/// A single return var is shown by its yield's annotation (`r: T = pl.yield_(x)`); several
/// are not.
fn shown_or_hidden(return_vars: &[VarId], hidden: &mut Vec<VarId>, shown: &mut impl FnMut(VarId)) {
    match return_vars {
        [r] => shown(*r),
        rs => hidden.extend_from_slice(rs),
    }
}

/// Whether MemRef `m` has the planned id, space and size.
fn same_buffer(table: &VarTable, m: VarId, planned: &MemRefInfo) -> bool {
    matches!(&table.var(m).kind, VarKind::MemRef(i) if i.id == planned.id && i.space == planned.space && i.size == planned.size)
}

/// Whether MemRef `m` is what the read-back makes for a planned id the text does not describe:
/// no address yet (`addr` −1).
fn is_undescribed_default(table: &VarTable, m: VarId) -> bool {
    matches!(&table.var(m).kind, VarKind::MemRef(i) if i.addr.as_const_int() == Some(-1))
}
