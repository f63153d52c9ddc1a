//! LegalizeCce: makes the copies the CCE kernel needs ops of the IR, so that insert-sync orders
//! them and allocate-memory-addr places their buffers (nothing the C++ does is hidden from the
//! passes or from `--verify-sync`).
//!
//! - A Vec → Vec `block.move` (no transpose) is a copy on the vector pipe: it becomes
//!   `block.vec_move`, which the operator table puts on pipe V (`block.move` is on MTE1, which
//!   moves only between the cube's buffers).
//! - A loop-carried tile lives in its iter arg's buffer (init-mem-ref gives the iter arg its
//!   init's MemRef): a yielded tile in another buffer is copied there (`block.vec_move` into a
//!   tile of that MemRef) before the yield, which then yields the copy. When one copy's source is
//!   the buffer another copy writes (`yield(b, a)` of two carried tiles), that source is first
//!   copied to a tile of its own, so no copy reads a value already overwritten. The loop's tile
//!   result is the carried buffer: its MemRef becomes the iter arg's.
//! - A tile result of an `if` gets a Vec buffer of its own: init-mem-ref gives it a DDR MemRef
//!   (spec §6 Q6, where no tile can live), which becomes a Vec one (so does every iter arg
//!   started from the result, which shares it), and each branch copies its yielded tile there.
//!
//! The pass runs after basic-memory-reuse, whose plans keep an iter arg's buffer live through
//! the loop body (the carried value is moved there), and before insert-sync and
//! allocate-memory-addr. For the PTO backend it changes nothing: `scf.yield` hands the yielded
//! buffer itself to the next iteration.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{alloc_stmts, Carried, PassEnv};
use crate::backend::Backend;
use crate::diag::{Diagnostic, Span};
use crate::ir::{
    Call, Callee, DataType, Expr, ExprKind, Function, KwValue, MemorySpace, Stmt, Type, VarId, VarKind, VarTable,
};
use crate::ops::id;

mod copies;
mod operands;

/// `legalize-cce` on one function. What the pass before handed over (basic-memory-reuse's
/// sync analysis) is handed on when the function is unchanged, and dropped otherwise.
pub fn carrying(mut f: Function, carried: Carried, env: &PassEnv) -> Result<(Function, Carried), Vec<Diagnostic>> {
    if env.backend != Backend::Cce {
        return Ok((f, carried));
    }
    let mut used = FxHashSet::default();
    crate::ir::visit::walk_all_exprs(&f.body, &mut |e| {
        if let Some(v) = e.as_var() {
            used.insert(v);
        }
    });
    let next_id = f.vars.next_memref_id();
    let names = f.vars.iter().map(|(_, d)| d.name.clone()).collect();
    let mut cx = Legalize {
        vars: &mut f.vars,
        used,
        names,
        next_id,
        new_memrefs: Vec::new(),
        hoisted: Vec::new(),
        changed: false,
        scratch: FxHashMap::default(),
        scratch_tiles: FxHashMap::default(),
        converted: FxHashMap::default(),
    };
    cx.stmt(&mut f.body);
    if !cx.changed {
        return Ok((f, carried));
    }
    let mut allocs: Vec<Stmt> = cx.new_memrefs.iter().filter_map(|&m| alloc_stmts::alloc_stmt(cx.vars, m)).collect();
    allocs.append(&mut cx.hoisted);
    alloc_stmts::insert_after_allocs(&mut f.body, allocs);
    Ok((f, Carried::Nothing))
}

struct Legalize<'v> {
    vars: &'v mut VarTable,
    /// Every variable the function reads: a carried tile nobody reads needs no copy.
    used: FxHashSet<VarId>,
    /// The names taken, so that a new variable's name is unique in the printed IR.
    names: FxHashSet<String>,
    /// The id of the next MemRef made.
    next_id: u64,
    /// The MemRefs made, in creation order (their `block.alloc`s are added at the top).
    new_memrefs: Vec<VarId>,
    /// Scratch tiles of constant shape, made once at the top after the allocs: the operator
    /// table puts `block.create_tile` on MTE2 (as the reference does), so one made next to its
    /// use would cost a flag pair there, and one in a loop a pair per iteration.
    hoisted: Vec<Stmt>,
    /// Whether the function was rewritten.
    changed: bool,
    /// The shared scratch buffers, by role and size (see [`operands`]).
    scratch: FxHashMap<(operands::Role, u64), VarId>,
    /// The hoisted scratch tiles, by role, shape and dtype.
    scratch_tiles: FxHashMap<(operands::Role, Vec<i64>, DataType), VarId>,
    /// What each conversion buffer holds in the statement list being legalized: scratch
    /// buffer → (source tile, dtype, the converted tile). A later use of the same conversion
    /// there reads it again instead of converting again; forgotten at every compound statement
    /// (a conversion in a loop body or branch does not dominate what follows, and one before
    /// it may be overwritten inside).
    converted: FxHashMap<VarId, (VarId, DataType, VarId)>,
}

impl Legalize<'_> {
    fn stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Assign { var, value, span } => {
                // A lone assignment (a body of one statement) with statements to go before it.
                let (var, span) = (*var, *span);
                let pre = self.assign(var, value, span);
                if !pre.is_empty() {
                    let assign = std::mem::replace(s, Stmt::empty());
                    let mut stmts = pre;
                    stmts.push(assign);
                    *s = Stmt::Ops { stmts, span };
                }
            }
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                let mut out = Vec::with_capacity(stmts.len());
                for mut c in std::mem::take(stmts) {
                    match &mut c {
                        Stmt::Assign { var, value, span } => {
                            let (var, span) = (*var, *span);
                            out.extend(self.assign(var, value, span));
                        }
                        _ => self.stmt(&mut c),
                    }
                    out.push(c);
                }
                *stmts = out;
            }
            Stmt::Scope { body, .. } => {
                self.converted.clear();
                self.stmt(body);
                self.converted.clear();
            }
            Stmt::For { iter_args, body, return_vars, .. } | Stmt::While { iter_args, body, return_vars, .. } => {
                self.converted.clear();
                self.stmt(body);
                self.converted.clear();
                self.carry(iter_args, body, return_vars);
            }
            Stmt::If { then_body, else_body, return_vars, .. } => {
                self.converted.clear();
                self.stmt(then_body);
                self.converted.clear();
                if let Some(e) = else_body {
                    self.stmt(e);
                    self.converted.clear();
                }
                self.if_results(then_body, else_body.as_deref_mut(), return_vars);
            }
            _ => {}
        }
    }

    /// Legalizes `var = value`; returns the statements to go before it.
    fn assign(&mut self, var: VarId, value: &mut Expr, span: Span) -> Vec<Stmt> {
        self.vec_move(value);
        let mut pre: Vec<Stmt> = self.transpose_scratch(value, span).into_iter().collect();
        pre.extend(self.operands(var, value, span));
        pre
    }

    /// A Vec → Vec `block.move` without transpose becomes `block.vec_move`.
    fn vec_move(&mut self, value: &mut Expr) {
        let ExprKind::Call(c) = &mut value.kind else { return };
        if !c.callee.is_op(id::MOVE) || c.args.len() != 1 {
            return;
        }
        let to = c.kwargs.iter().find(|(k, _)| *k == "target_memory").map(|(_, v)| v);
        let transpose = c.kwargs.iter().find(|(k, _)| *k == "transpose").map(|(_, v)| v);
        let to_vec = matches!(to, Some(KwValue::Space(MemorySpace::Vec)))
            || matches!(to, Some(KwValue::Int(i)) if MemorySpace::from_index(*i) == Some(MemorySpace::Vec));
        let transposes = matches!(transpose, Some(KwValue::Bool(true)) | Some(KwValue::Int(1..)));
        let from_vec = self.space(&c.args[0]) == Some(MemorySpace::Vec);
        if to_vec && from_vec && !transposes {
            c.callee = Callee::Op(id::VEC_MOVE);
            c.kwargs.clear();
            self.changed = true;
        }
    }

    /// A 2-D `block.transpose` of a Vec tile without its scratch tile gets one,
    /// `tmp = block.create_tile(shape, dtype=…, target_memory=Vec)` (a buffer of its own, which
    /// allocate-memory-addr places), as its last argument. The creation is hoisted (see
    /// [`Legalize::hoisted`]) when the shape is constant, else returned to go before the call.
    fn transpose_scratch(&mut self, value: &mut Expr, span: Span) -> Option<Stmt> {
        let ExprKind::Call(c) = &mut value.kind else { return None };
        if !c.callee.is_op(id::TRANSPOSE) || c.args.len() != 3 {
            return None;
        }
        let src = c.args[0].as_var()?;
        let Type::Tile(t) = self.vars.var_type(src) else { return None };
        if t.shape.len() != 2 || self.space(&c.args[0]) != Some(MemorySpace::Vec) {
            return None;
        }
        let (shape, dtype) = (t.shape.clone(), t.dtype);
        let constant = shape.iter().all(|d| d.as_const_int().is_some());
        let m = self.new_memref_like(src, span);
        let ty = retyped(self.vars.var_type(src), m);
        let tmp = self.new_tile(&format!("{}_trans_tmp", self.vars.var_name(src)), ty.clone(), span);
        let dims_ty = Type::Tuple(shape.iter().map(|d| self.vars.type_of(d).clone()).collect());
        let create = Call {
            callee: Callee::Op(id::CREATE_TILE),
            args: vec![Expr::new(ExprKind::MakeTuple(shape), dims_ty, span)],
            kwargs: vec![("dtype", KwValue::DType(dtype)), ("target_memory", KwValue::Space(MemorySpace::Vec))],
        };
        c.args.push(Expr::var(tmp, span));
        self.changed = true;
        let stmt = Stmt::Assign { var: tmp, value: Expr::new(ExprKind::Call(Box::new(create)), ty, span), span };
        if constant {
            self.hoisted.push(stmt);
            return None;
        }
        Some(stmt)
    }

    fn memref_space(&self, m: VarId) -> Option<MemorySpace> {
        match &self.vars.var(m).kind {
            VarKind::MemRef(info) => Some(info.space),
            _ => None,
        }
    }

    /// The memory space of a tile operand.
    fn space(&self, e: &Expr) -> Option<MemorySpace> {
        self.memref_space(self.vars.type_of(e).memref()?)
    }

    fn size(&self, m: VarId) -> u64 {
        match &self.vars.var(m).kind {
            VarKind::MemRef(info) => info.size,
            _ => 0,
        }
    }

    /// A new Vec MemRef of the size of `like`'s buffer (no address yet).
    fn new_memref_like(&mut self, like: VarId, span: Span) -> VarId {
        let size = self.vars.var_type(like).memref().map_or(0, |m| self.size(m));
        self.new_memref(size, span)
    }

    /// A new tile variable of type `ty`, named after `base` (made unique).
    fn new_tile(&mut self, base: &str, ty: Type, span: Span) -> VarId {
        let mut name = base.to_string();
        let mut n = 1;
        while self.names.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.names.insert(name.clone());
        self.vars.new_var(name, ty, VarKind::Plain, span)
    }
}

/// `ty` (a tile type) in the buffer `m`.
fn retyped(ty: &Type, m: VarId) -> Type {
    let mut ty = ty.clone();
    crate::analysis::memref_plan::set_memref(&mut ty, m);
    ty
}
