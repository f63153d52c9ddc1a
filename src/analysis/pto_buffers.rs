//! The buffers of a function in the PTO backend (spec `pto-codegen.md` §5.1): every distinct
//! MemRef met on a tile-typed variable of the body, in the reference's visiting order, each
//! with the type of the first tile met on it (its *representative*), which its
//! `!pto.tile_buf` spells. Shared by the MLIR writer (`codegen::pto`) and the PTO form rule
//! (`verify::pto_form`), which checks those spellings.

use rustc_hash::FxHashMap;

use crate::ir::{Expr, ExprKind, MemorySpace, Stmt, TileType, Type, VarId, VarKind, VarTable};

/// A MemRef's identity in the printed program: its memory space and id (§17).
pub type BufferKey = (MemorySpace, u64);

/// One buffer: its representative tile type and memory space.
pub struct Buffer {
    pub key: BufferKey,
    pub tile: TileType,
    /// The representative variable.
    pub var: VarId,
}

/// The buffers in first-met order, and the names of the tile assignment targets that live in
/// each (the reference binds those names to the buffer's value).
#[derive(Default)]
pub struct Buffers {
    pub list: Vec<Buffer>,
    index: FxHashMap<BufferKey, usize>,
    /// (target name, buffer index) in body order.
    pub targets: Vec<(String, usize)>,
}

impl Buffers {
    /// The buffer a variable's tile type lives in, if it is a tile with a MemRef.
    pub fn of_var(&self, vars: &VarTable, v: VarId) -> Option<usize> {
        key_of(vars, vars.var_type(v)).and_then(|k| self.index.get(&k).copied())
    }

    fn meet(&mut self, vars: &VarTable, v: VarId) -> Option<usize> {
        let ty = vars.var_type(v);
        let key = key_of(vars, ty)?;
        let Type::Tile(t) = ty else { return None };
        Some(*self.index.entry(key).or_insert_with(|| {
            self.list.push(Buffer { key, tile: (**t).clone(), var: v });
            self.list.len() - 1
        }))
    }
}

/// The buffer key of a tile type with a MemRef.
fn key_of(vars: &VarTable, ty: &Type) -> Option<BufferKey> {
    let Type::Tile(t) = ty else { return None };
    match &vars.var(t.memref?).kind {
        VarKind::MemRef(info) => Some((info.space, info.id)),
        _ => None,
    }
}

/// Walks `body` in the reference's generic visiting order (§5.1): an assignment's target
/// before its value, a loop's variable, bounds and iter args before its body and return vars.
pub fn collect(vars: &VarTable, body: &Stmt) -> Buffers {
    let mut b = Buffers::default();
    stmt(vars, body, &mut b);
    b
}

fn stmt(vars: &VarTable, s: &Stmt, b: &mut Buffers) {
    match s {
        Stmt::Assign { var, value, .. } => {
            if let Some(k) = b.meet(vars, *var) {
                b.targets.push((vars.var_name(*var).to_string(), k));
            }
            expr(vars, value, b);
        }
        Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, .. } => {
            b.meet(vars, *loop_var);
            for e in [start, stop, step] {
                expr(vars, e, b);
            }
            for a in iter_args {
                b.meet(vars, *a);
            }
            stmt(vars, body, b);
            for r in return_vars {
                b.meet(vars, *r);
            }
        }
        Stmt::If { cond, then_body, else_body, return_vars, .. } => {
            expr(vars, cond, b);
            stmt(vars, then_body, b);
            if let Some(e) = else_body {
                stmt(vars, e, b);
            }
            for r in return_vars {
                b.meet(vars, *r);
            }
        }
        Stmt::While { cond, iter_args, body, return_vars, .. } => {
            expr(vars, cond, b);
            for a in iter_args {
                b.meet(vars, *a);
            }
            stmt(vars, body, b);
            for r in return_vars {
                b.meet(vars, *r);
            }
        }
        Stmt::Scope { body, .. } => stmt(vars, body, b),
        Stmt::Yield { values, .. } | Stmt::Return { values, .. } => {
            for v in values {
                expr(vars, v, b);
            }
        }
        Stmt::Eval { expr: e, .. } => expr(vars, e, b),
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
            for s in stmts {
                stmt(vars, s, b);
            }
        }
        Stmt::Break { .. } | Stmt::Continue { .. } => {}
    }
}

fn expr(vars: &VarTable, e: &Expr, b: &mut Buffers) {
    match &e.kind {
        ExprKind::Var(v) => {
            b.meet(vars, *v);
        }
        ExprKind::Call(c) => c.args.iter().for_each(|a| expr(vars, a, b)),
        ExprKind::MakeTuple(items) => items.iter().for_each(|a| expr(vars, a, b)),
        ExprKind::TupleGetItem(x, _) | ExprKind::Unary(_, x) => expr(vars, x, b),
        ExprKind::Binary(_, l, r) => {
            expr(vars, l, b);
            expr(vars, r, b);
        }
        ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => {}
    }
}
