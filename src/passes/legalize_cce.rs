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

use rustc_hash::FxHashSet;

use super::{alloc_stmts, Carried, PassEnv};
use crate::backend::Backend;
use crate::diag::{Diagnostic, Span};
use crate::ir::{
    Call, Callee, DataType, Expr, ExprKind, Function, KwValue, MemRefInfo, MemorySpace, Stmt, Type, VarId, VarKind,
    VarTable,
};
use crate::ops::id;

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
}

impl Legalize<'_> {
    fn stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Assign { value, span, .. } => {
                self.vec_move(value);
                // A lone assignment (a body of one statement) with a scratch tile to make.
                let span = *span;
                if let Some(pre) = self.transpose_scratch(value, span) {
                    let assign = std::mem::replace(s, Stmt::empty());
                    *s = Stmt::Ops { stmts: vec![pre, assign], span };
                }
            }
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                let mut out = Vec::with_capacity(stmts.len());
                for mut c in std::mem::take(stmts) {
                    if let Stmt::Assign { value, span, .. } = &mut c {
                        let span = *span;
                        out.extend(self.transpose_scratch(value, span));
                    }
                    self.stmt(&mut c);
                    out.push(c);
                }
                *stmts = out;
            }
            Stmt::Scope { body, .. } => self.stmt(body),
            Stmt::For { iter_args, body, return_vars, .. } | Stmt::While { iter_args, body, return_vars, .. } => {
                self.stmt(body);
                self.carry(iter_args, body, return_vars);
            }
            Stmt::If { then_body, else_body, return_vars, .. } => {
                self.stmt(then_body);
                if let Some(e) = else_body {
                    self.stmt(e);
                }
                self.if_results(then_body, else_body.as_deref_mut(), return_vars);
            }
            _ => {}
        }
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

    /// The copies of a loop's yielded tiles into the carried buffers.
    fn carry(&mut self, iter_args: &[VarId], body: &mut Stmt, return_vars: &[VarId]) {
        let Some(yielded) = body.final_yield().map(<[Expr]>::to_vec) else { return };
        // Per copy: index among the yields, source variable, destination MemRef.
        let mut copies: Vec<(usize, VarId, VarId)> = Vec::new();
        for (k, &a) in iter_args.iter().enumerate() {
            let Type::Tile(t) = self.vars.var_type(a) else { continue };
            let Some(m) = t.memref else { continue };
            let Some(y) = yielded.get(k).and_then(Expr::as_var) else { continue };
            let read_after = return_vars.get(k).is_none_or(|r| self.used.contains(r));
            if !self.used.contains(&a) && !read_after {
                continue;
            }
            if let Some(&r) = return_vars.get(k) {
                if matches!(self.vars.var_type(r), Type::Tile(_)) && self.vars.var_type(r).memref() != Some(m) {
                    self.changed = true;
                    crate::analysis::memref_plan::set_memref(&mut self.vars.var_mut(r).ty, m);
                }
            }
            if self.vars.var_type(y).memref() == Some(m) || self.memref_space(m) != Some(MemorySpace::Vec) {
                continue;
            }
            if self.space(&yielded[k]) != Some(MemorySpace::Vec) {
                continue;
            }
            copies.push((k, y, m));
        }
        if copies.is_empty() {
            return;
        }
        self.changed = true;
        let span = body.span();
        let mut stmts = Vec::new();
        // A source in a buffer another copy writes is read before any copy writes.
        let dests: Vec<VarId> = copies.iter().map(|c| c.2).collect();
        for (_, src, m) in copies.iter_mut() {
            let sm = self.vars.var_type(*src).memref();
            if dests.iter().any(|d| Some(*d) == sm && d != m) {
                let fresh = self.new_memref_like(*src, span);
                let ty = retyped(self.vars.var_type(*src), fresh);
                let staged = self.new_tile(&format!("{}_staged", self.vars.var_name(*src)), ty, span);
                stmts.push(copy_stmt(self.vars, staged, *src, span));
                *src = staged;
            }
        }
        let mut new_values = yielded.clone();
        for &(k, src, m) in &copies {
            let ty = retyped(self.vars.var_type(iter_args[k]), m);
            let home = self.new_tile(&format!("{}_next", self.vars.var_name(iter_args[k])), ty, span);
            stmts.push(copy_stmt(self.vars, home, src, span));
            new_values[k] = Expr::var(home, yielded[k].span);
        }
        replace_final_yield(body, stmts, new_values);
    }

    /// The copies of an `if`'s yielded tiles into its results' own Vec buffers.
    fn if_results(&mut self, then_body: &mut Stmt, else_body: Option<&mut Stmt>, return_vars: &[VarId]) {
        let then_yield = then_body.final_yield().map(<[Expr]>::to_vec);
        let else_yield = else_body.as_deref().and_then(Stmt::final_yield).map(<[Expr]>::to_vec);
        let mut then_copies = Vec::new();
        let mut else_copies = Vec::new();
        for (j, &r) in return_vars.iter().enumerate() {
            let Type::Tile(t) = self.vars.var_type(r) else { continue };
            let Some(m) = t.memref else { continue };
            if self.memref_space(m) != Some(MemorySpace::Ddr) {
                continue;
            }
            // Every branch's value must be a Vec tile: the copy is a vector instruction (code
            // generation reports any other).
            let yields: Vec<&Expr> =
                [&then_yield, &else_yield].into_iter().flatten().filter_map(|ys| ys.get(j)).collect();
            if yields.is_empty()
                || yields.iter().any(|y| y.as_var().is_none() || self.space(y) != Some(MemorySpace::Vec))
            {
                continue;
            }
            let Some(first) = yields[0].as_var() else { continue };
            // The DDR MemRef becomes a Vec buffer: every type naming it (an iter arg started
            // from the result shares its MemRef) is then on chip.
            let size = self.vars.var_type(first).memref().map_or(0, |fm| self.size(fm));
            let var = self.vars.var_mut(m);
            if let VarKind::MemRef(info) = &mut var.kind {
                info.space = MemorySpace::Vec;
                info.size = size;
                var.name = info.derived_name();
            }
            self.new_memrefs.push(m);
            self.changed = true;
            if then_yield.as_ref().is_some_and(|ys| ys.len() > j) {
                then_copies.push((j, r));
            }
            if else_yield.as_ref().is_some_and(|ys| ys.len() > j) {
                else_copies.push((j, r));
            }
        }
        if let Some(ys) = then_yield {
            self.branch_copies(then_body, ys, &then_copies);
        }
        if let (Some(ys), Some(e)) = (else_yield, else_body) {
            self.branch_copies(e, ys, &else_copies);
        }
    }

    /// Copies yield `j` of `body` into a tile of result `r`'s type, for each `(j, r)`.
    fn branch_copies(&mut self, body: &mut Stmt, yielded: Vec<Expr>, copies: &[(usize, VarId)]) {
        if copies.is_empty() {
            return;
        }
        self.changed = true;
        let span = body.span();
        let mut stmts = Vec::new();
        let mut values = yielded.clone();
        for &(j, r) in copies {
            let Some(src) = yielded[j].as_var() else { continue };
            let ty = self.vars.var_type(r).clone();
            let home = self.new_tile(&format!("{}_home", self.vars.var_name(r)), ty, span);
            stmts.push(copy_stmt(self.vars, home, src, span));
            values[j] = Expr::var(home, yielded[j].span);
        }
        replace_final_yield(body, stmts, values);
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
        let info =
            MemRefInfo { space: MemorySpace::Vec, addr: Expr::int(-1, DataType::Int64, span), size, id: self.next_id };
        self.next_id += 1;
        let name = info.derived_name();
        self.names.insert(name.clone());
        let m = self.vars.new_var(name, Type::MemRef, VarKind::MemRef(Box::new(info)), span);
        self.new_memrefs.push(m);
        m
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

/// `dst = block.vec_move(src)`.
fn copy_stmt(vars: &VarTable, dst: VarId, src: VarId, span: Span) -> Stmt {
    let call = Call { callee: Callee::Op(id::VEC_MOVE), args: vec![Expr::var(src, span)], kwargs: Vec::new() };
    let value = Expr::new(ExprKind::Call(Box::new(call)), vars.var_type(dst).clone(), span);
    Stmt::Assign { var: dst, value, span }
}

/// Puts `stmts` before the yield that ends `body` and makes it yield `values`.
fn replace_final_yield(body: &mut Stmt, stmts: Vec<Stmt>, values: Vec<Expr>) {
    // The copies go into an `OpStmts` (normalised structure: a sequence holds no bare
    // assignment), the one before the yield when there is one.
    match body {
        Stmt::Yield { values: vs, .. } => {
            *vs = values;
            if !stmts.is_empty() {
                let y = std::mem::replace(body, Stmt::empty());
                let span = y.span();
                *body = Stmt::Seq { stmts: vec![Stmt::Ops { stmts, span }, y], span };
            }
        }
        Stmt::Ops { stmts: list, .. } if matches!(list.last(), Some(Stmt::Yield { .. })) => {
            if let Some(Stmt::Yield { values: vs, .. }) = list.last_mut() {
                *vs = values;
            }
            let at = list.len() - 1;
            list.splice(at..at, stmts);
        }
        Stmt::Seq { stmts: list, span } if matches!(list.last(), Some(Stmt::Yield { .. })) => {
            if let Some(Stmt::Yield { values: vs, .. }) = list.last_mut() {
                *vs = values;
            }
            if stmts.is_empty() {
                return;
            }
            let at = list.len() - 1;
            match at.checked_sub(1).map(|i| &mut list[i]) {
                Some(Stmt::Ops { stmts: ops, .. }) => ops.extend(stmts),
                _ => list.insert(at, Stmt::Ops { stmts, span: *span }),
            }
        }
        Stmt::Seq { stmts: list, .. } | Stmt::Ops { stmts: list, .. } => {
            if let Some(last) = list.last_mut() {
                replace_final_yield(last, stmts, values);
            }
        }
        Stmt::Scope { body, .. } => replace_final_yield(body, stmts, values),
        _ => {}
    }
}
