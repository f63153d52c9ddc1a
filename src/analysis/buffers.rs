//! Which buffer a use of a variable touches, for the analyses that order memory accesses
//! (insert-sync and the sync hazard checker, which must agree: fuzz finding F8 was the two
//! disagreeing).

use crate::ir::{VarId, VarKind, VarTable};

/// The variable whose MemRef a use of `v` touches: an iter arg stands for its init value when
/// the init is a variable with a MemRef (spec §2.10 "Leaf effects"; the C++ carries a loop's
/// tile in its init's buffer, and the iter arg's own MemRef is stale when the reference's
/// `-O0` memory plan moved the init, §6 Q14); any other variable stands for itself.
pub fn holder(vars: &VarTable, v: VarId) -> VarId {
    if let VarKind::IterArg { init } = &vars.var(v).kind {
        if let Some(i) = init.as_var().filter(|&i| has_memref(vars, i)) {
            return i;
        }
    }
    v
}

/// Whether `v`'s type holds a MemRef variable.
fn has_memref(vars: &VarTable, v: VarId) -> bool {
    let m = vars.var_type(v).memref().and_then(|m| vars.get(m));
    m.is_some_and(|m| matches!(m.kind, VarKind::MemRef(_)))
}
