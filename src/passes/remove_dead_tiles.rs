//! `remove-dead-tiles` (ptoc's own pass, `-O1` and `-O2`; not in the reference): deletes each
//! assignment of a tile computed by an op and never used, until none is left. Such a tile costs
//! its pipe the whole instruction and its memory space a buffer while computing nothing the
//! kernel stores (generated programs and hand-edited kernels leave them), and a double-buffered
//! loop body whose dead tiles are gone may fit its memory twice where it did not.
//!
//! Deleted: `x = op(...)` in an InCore function where `x` is a tile that no expression or loop
//! init of the function names, and the op writes nothing but its result (no sync op,
//! no destination argument: [`crate::ops::OpDef::written_arg`]; its result is a buffer of its
//! own or a view of an operand). A scratch operand (`tmp_tile`) such an op writes holds
//! unspecified contents afterwards by the operator's contract, so nothing may read it.

use rustc_hash::FxHashSet;

use super::PassEnv;
use crate::diag::Diagnostic;
use crate::ir::visit::{for_each_var, map_bodies, walk_all_exprs};
use crate::ir::{Callee, Function, FunctionType, Stmt, Type, VarId, VarKind};
use crate::ops::ResultBuffer;

/// The pass's registry name.
pub const NAME: &str = "remove-dead-tiles";

/// The pass on one function.
pub fn function(mut f: Function, _env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    if f.kind != FunctionType::InCore {
        return Ok(f);
    }
    loop {
        let used = used_vars(&f);
        let mut removed = false;
        let body = std::mem::replace(&mut f.body, Stmt::empty());
        f.body = retain(body, &mut |s| {
            let dead = removable(&f, s, &used);
            removed |= dead;
            !dead
        });
        if !removed {
            return Ok(f);
        }
    }
}

/// Every variable an expression or a loop init of `f` names. (Types name scalars, for dynamic
/// dimensions, and MemRefs, which init-mem-ref gives later: never a tile.)
fn used_vars(f: &Function) -> FxHashSet<VarId> {
    let mut used = FxHashSet::default();
    walk_all_exprs(&f.body, &mut |e| used.extend(e.as_var()));
    for (_, data) in f.vars.iter() {
        if let VarKind::IterArg { init } = &data.kind {
            for_each_var(init, &mut |v| {
                used.insert(v);
            });
        }
    }
    used
}

/// Whether `s` assigns a dead tile from an op that writes nothing else.
fn removable(f: &Function, s: &Stmt, used: &FxHashSet<VarId>) -> bool {
    let Stmt::Assign { var, value, .. } = s else { return false };
    if used.contains(var) || !matches!(f.vars.var_type(*var), Type::Tile(_)) {
        return false;
    }
    let Some(call) = value.as_call() else { return false };
    let Callee::Op(op) = call.callee else { return false };
    let def = crate::ops::def(op);
    def.sync.is_none() && def.written_arg().is_none() && !matches!(def.result_buffer, ResultBuffer::Destination(_))
}

/// `s` keeping only the leaves (`Assign`, `Eval`) of its sequences for which `keep` holds.
fn retain(s: Stmt, keep: &mut impl FnMut(&Stmt) -> bool) -> Stmt {
    match s {
        Stmt::Seq { stmts, span } => Stmt::Seq { stmts: retain_all(stmts, keep), span },
        Stmt::Ops { stmts, span } => Stmt::Ops { stmts: retain_all(stmts, keep), span },
        other => map_bodies(other, |b, _| retain(b, keep)),
    }
}

fn retain_all(stmts: Vec<Stmt>, keep: &mut impl FnMut(&Stmt) -> bool) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        if !matches!(s, Stmt::Assign { .. } | Stmt::Eval { .. }) {
            out.push(retain(s, keep));
        } else if keep(&s) {
            out.push(s);
        }
    }
    out
}
