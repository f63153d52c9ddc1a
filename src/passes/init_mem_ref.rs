//! InitMemRef (`passes-and-codegen.md` §2.8): every tensor and tile variable gets a MemRef in the
//! memory space its producing op writes to, and each on-chip buffer gets a `block.alloc`
//! statement at the top of the function.
//!
//! Types live in the variable table, so "re-creating a variable with a MemRef" is re-typing its
//! table entry: every use sees the new type at once. MemRefs are [`VarKind::MemRef`] variables;
//! two variables share a buffer exactly when their types name the same MemRef variable. The
//! MemRefs are planned first ([`crate::analysis::memref_plan`]) and then created, so that lowering can ask the
//! plan which MemRefs the variables whose types the text does not show were given.
//!
//! Reproduced reference behaviour: a tensor re-typed with a MemRef loses its tensor view
//! (§6 Q5); if/for/while return vars are never in the space map, so tile-typed ones get fresh
//! DDR MemRefs (§6 Q6); the allocs go into the first top-level `OpStmts`, even one after a loop
//! that uses them (§6 Q15).

use rustc_hash::FxHashSet;

use super::alloc_stmts::{alloc_stmt, insert_first};
use super::stmt_structure::normalize_body;
use super::PassEnv;
use crate::analysis::memref_plan::{self, set_memref};
use crate::diag::Diagnostic;
use crate::ir::{Function, MemorySpace, Stmt, Type, VarId, VarKind, VarTable};

/// The pass on one function (registered as `init-mem-ref`).
pub fn function(f: Function, _env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    Ok(init_function(f))
}

/// Normalises `f` (§2.8 step 1), gives its variables MemRefs (steps 2–3) and inserts the allocs
/// (step 4).
fn init_function(mut f: Function) -> Function {
    f.body = normalize_body(std::mem::replace(&mut f.body, Stmt::empty()));
    let mut table = std::mem::take(&mut f.vars);
    let table = &mut table;
    // The walk that plans the MemRefs also records the body's variable occurrences in the
    // order the allocs are listed in, so that listing them needs no second walk.
    let mut occurrences = Vec::new();
    let plan = memref_plan::plan_recording(table, &f, Some(&mut occurrences));
    // One table entry per MemRef: grown once, not copied on every doubling.
    table.reserve(plan.buffers.len());
    let first_new = table.len();
    let memrefs: Vec<VarId> = plan
        .buffers
        .into_iter()
        .map(|(info, span)| table.new_var(info.derived_name(), Type::MemRef, VarKind::MemRef(Box::new(info)), span))
        .collect();
    // Each variable's type is set on its own: the map's order does not matter.
    for (v, id) in plan.memref_of {
        set_memref(&mut table.var_mut(v).ty, memrefs[id]);
    }
    let allocs = alloc_stmts(table, &f, &occurrences, first_new);
    insert_first(&mut f.body, allocs);
    f.vars = std::mem::take(table);
    f
}

// ---------------------------------------------------------------------------------------------
// Step 4: alloc statements

/// One `mem_<s>_<id>: pl.MemRefType = pl.block.alloc(<S>, addr, size, id)` per distinct
/// on-chip MemRef of a tile variable, in first-appearance order: params, then the body's
/// variable `occurrences` (targets before values, see [`memref_plan::plan_recording`]). The MemRefs made for `f` are
/// the variables from index `first_new` on.
fn alloc_stmts(table: &VarTable, f: &Function, occurrences: &[VarId], first_new: usize) -> Vec<Stmt> {
    let mut order = Vec::new();
    // Which MemRefs are listed: the function's own (nearly all) in a table indexed from
    // `first_new`, which is cheaper than hashing each of the many occurrences; any other
    // (a MemRef the input gave a parameter) in a set.
    let mut listed_new = vec![false; table.len() - first_new];
    let mut listed_other = FxHashSet::default();
    let mut note = |v: VarId| {
        if let Type::Tile(t) = table.var_type(v) {
            if let Some(m) = t.memref {
                if matches!(&table.var(m).kind, VarKind::MemRef(i) if i.space != MemorySpace::Ddr) {
                    let first_time = match (m.0 as usize).checked_sub(first_new) {
                        Some(i) => !std::mem::replace(&mut listed_new[i], true),
                        None => listed_other.insert(m),
                    };
                    if first_time {
                        order.push(m);
                    }
                }
            }
        }
    };
    f.params.iter().for_each(|p| note(p.var));
    occurrences.iter().for_each(|&v| note(v));
    order.into_iter().filter_map(|m| alloc_stmt(table, m)).collect()
}
