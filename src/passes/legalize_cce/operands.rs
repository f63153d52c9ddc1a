//! Operands in the form pto-isa's instructions want, made by ops the passes see.
//!
//! pto-isa's element-wise instructions take tiles of the result's dtype and shape; the IR's ops
//! convert and broadcast (spec §4.7). Where a call's operands differ, the pass adds the ops that
//! bring them there, into scratch buffers of their own that allocate-memory-addr places and
//! insert-sync orders:
//! - an operand of another dtype: `x_cvt = block.cast(x, target_type=…, mode=1)` (round to
//!   nearest, the conversion the interpreter does), which a later op of the same statement list
//!   reads again while its buffer still holds it;
//! - a broadcast operand: `block.add/sub/mul/div/maximum/minimum` of a tile and a broadcast row
//!   or column vector become the fused `block.row_expand_*` / `block.col_expand_*` (one
//!   instruction instead of an expansion and the op); any other broadcast is expanded first,
//!   `e = block.full(shape, 0)` then `e = block.row_expand_add(e, v)` (or `col_expand_add`).
//!   Broadcasting follows numpy: a `[R, 1]` operand is a column repeated along the rows, a
//!   `[1, C]` or 1-D `[C]` one a row repeated down the columns;
//! - a row reduction (`block.sum/max/min` along the last axis) gets the scratch tile pto-isa's
//!   TROWSUM/TROWMAX/TROWMIN work in (`tmp_tile=`), made once per shape and dtype at the top of
//!   the function;
//! - a column sum of FP16 or BF16 elements is summed in FP32 and rounded once (TCOLSUM adds in
//!   its destination's dtype, so an FP16 sum would round every partial sum);
//! - `block.cmp`/`cmps`, whose result holds 1 / 0 elements, become pto-isa's comparison into a
//!   packed bit mask (`block.cmp_bits`) and a select of 1 or 0 by that mask (`block.select_bits`).
//!
//! The scratch buffers of one role and size are shared by every call: each is written and read
//! by adjacent vector instructions, which insert-sync orders on the vector pipe.
//!
//! Column-major tiles (a `[N, 1]` column in Vec) are only converted when every operand has the
//! result's shape: code generation computes on them through row-major views then, and writes
//! any other mix as the reference does.

use super::Legalize;
use crate::diag::Span;
use crate::ir::{
    Call, Callee, DataType, Expr, ExprKind, KwValue, MemRefInfo, MemorySpace, OpId, Stmt, TileType, TileView, Type,
    VarId,
};
use crate::ops::cce::{CceEmit, Family};
use crate::ops::id;

/// What a scratch buffer holds: the buffers of one role are shared between calls, those of
/// different roles (two operands of one op) are distinct.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Role {
    /// Operand `i` converted to the result's dtype.
    Convert(usize),
    /// Operand `i` broadcast to the result's shape.
    Broadcast(usize),
    /// A column sum in FP32.
    ColSum,
    /// The packed bit mask of a comparison.
    Mask,
    /// The scratch tile of a row reduction.
    Reduce,
    /// The scratch tile of a select by bit mask.
    Select,
}

/// How an operand broadcasts to the result's `[R, C]`.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Bcast {
    /// `[R, 1]`: a column, repeated along each row.
    Column,
    /// `[1, C]` or `[C]`: a row, repeated down each column.
    Row,
}

impl Legalize<'_> {
    /// Legalizes the operands of `var = value`; returns the statements to go before it.
    pub(super) fn operands(&mut self, var: VarId, value: &mut Expr, span: Span) -> Vec<Stmt> {
        let ExprKind::Call(c) = &mut value.kind else { return Vec::new() };
        let Callee::Op(op) = c.callee else { return Vec::new() };
        let Type::Tile(rt) = self.vars.var_type(var).clone() else { return Vec::new() };
        if rt.memref.is_none() {
            return Vec::new();
        }
        let mut pre = Vec::new();
        match crate::ops::def(op).cce {
            Some(CceEmit::Elementwise { family, .. }) => {
                let scalar = (family == Family::BinaryScalar).then_some(1);
                self.elementwise(c, &rt, scalar, true, span, &mut pre);
            }
            Some(CceEmit::Reduce { .. }) => self.reduce(c, &rt, span, &mut pre),
            Some(CceEmit::Cmp { .. }) => self.compare(var, value, &rt, span, &mut pre),
            _ => {}
        }
        if !pre.is_empty() {
            self.changed = true;
        }
        pre
    }

    /// Converts and broadcasts the tile operands of an element-wise op (`scalar`: the position
    /// of a scalar operand; `fuse`: a broadcast may make the op a fused expanding one).
    fn elementwise(
        &mut self,
        c: &mut Call,
        rt: &TileType,
        scalar: Option<usize>,
        fuse: bool,
        span: Span,
        pre: &mut Vec<Stmt>,
    ) {
        if rows_cols(&rt.shape).is_none() {
            return;
        }
        let tiles: Vec<usize> = (0..c.args.len()).filter(|&i| Some(i) != scalar).collect();
        let same_shape = tiles.iter().all(|&i| self.tile(&c.args[i]).is_some_and(|t| same_dims(&t.shape, &rt.shape)));
        if is_column(&rt.shape) && !same_shape {
            return;
        }
        for &i in &tiles {
            if self.tile(&c.args[i]).is_some_and(|t| t.dtype != rt.dtype) {
                c.args[i] = self.cast(&c.args[i], rt.dtype, Role::Convert(i), span, pre);
            }
        }
        if same_shape {
            return;
        }
        let bcasts: Vec<(usize, Bcast)> =
            tiles.iter().filter_map(|&i| Some((i, broadcast(&self.tile(&c.args[i])?.shape, &rt.shape)?))).collect();
        if let (true, Some(op), [(i, how)], 2) = (fuse, c.callee.op(), bcasts.as_slice(), tiles.len()) {
            let other = tiles[1 - *i];
            if let Some(fused) = fused(op, *how, *i == 1) {
                if self.tile(&c.args[other]).is_some_and(|t| same_dims(&t.shape, &rt.shape)) {
                    let (t, v) = (c.args[other].clone(), c.args[*i].clone());
                    c.callee = Callee::Op(fused);
                    c.args = vec![t, v];
                    return;
                }
            }
        }
        for (i, how) in bcasts {
            c.args[i] = self.expand(&c.args[i], rt, how, Role::Broadcast(i), span, pre);
        }
    }

    /// A row reduction without its scratch tile gets one; an FP16/BF16 column sum is summed in
    /// FP32.
    fn reduce(&mut self, c: &mut Call, rt: &TileType, span: Span, pre: &mut Vec<Stmt>) {
        let Some(x) = self.tile(&c.args[0]).cloned() else { return };
        let rank = x.shape.len() as i64;
        let Some(axis) = crate::ops::kwargs::int(c, "axis") else { return };
        let along_rows = !(rank == 2 && (axis == 0 || axis == -2));
        if along_rows {
            if c.args.len() == 1 && rows_cols(&x.shape).is_some() {
                let tmp = self.hoisted_tile(&x.shape, x.dtype, Role::Reduce, span);
                c.args.push(Expr::var(tmp, span));
                self.changed = true;
            }
            return;
        }
        if !c.callee.is_op(id::SUM) || !matches!(x.dtype, DataType::Fp16 | DataType::Bf16) {
            return;
        }
        let wide = self.cast(&c.args[0], DataType::Fp32, Role::Convert(0), span, pre);
        let sum_ty = self.scratch_type(&rt.shape, DataType::Fp32, Role::ColSum, span);
        let sum = self.new_tile("colsum_fp32", sum_ty.clone(), span);
        let call = Call { callee: c.callee.clone(), args: vec![wide], kwargs: c.kwargs.clone() };
        pre.push(assign(sum, call, sum_ty, span));
        *c = cast_call(Expr::var(sum, span), rt.dtype);
    }

    /// `block.cmp(a, b)` / `block.cmps(a, s)` as `m = block.cmp_bits(a', b')`,
    /// `o = block.full(shape, 1)` in the result's buffer and `block.select_bits(m, o, tmp, 0)`.
    /// Operands are compared in the result's dtype where pto-isa compares it (INT32, FP16,
    /// FP32) and in FP32 otherwise (exact for the smaller integers and BF16).
    fn compare(&mut self, var: VarId, value: &mut Expr, rt: &TileType, span: Span, pre: &mut Vec<Stmt>) {
        let ExprKind::Call(c) = &mut value.kind else { return };
        let Some((rows, cols)) = rows_cols(&rt.shape) else { return };
        let (mask_rows, view_cols, mask_bytes) = crate::ops::mask_layout(rows, cols);
        if view_cols % 8 != 0 || c.args.len() != 2 {
            return;
        }
        let scalar = c.callee.is_op(id::CMPS);
        let cmp_dtype = match rt.dtype {
            DataType::Int32 | DataType::Fp16 | DataType::Fp32 => rt.dtype,
            _ => DataType::Fp32,
        };
        let work = TileType { dtype: cmp_dtype, ..rt.clone() };
        let mut operands = c.clone();
        self.elementwise(&mut operands, &work, scalar.then_some(1), false, span, pre);
        let mask_shape = vec![int(mask_rows, span), int(mask_bytes, span)];
        let mut mask_ty = self.scratch_type(&mask_shape, DataType::UInt8, Role::Mask, span);
        if let Type::Tile(t) = &mut mask_ty {
            let valid = vec![int(mask_rows, span), int((view_cols + 7) / 8, span)];
            std::sync::Arc::make_mut(t).view = Some(TileView { valid_shape: valid, ..TileView::default() });
        }
        let mask = self.new_tile("cmp_mask", mask_ty.clone(), span);
        let bits = if scalar { id::CMPS_BITS } else { id::CMP_BITS };
        let call = Call { callee: Callee::Op(bits), args: operands.args, kwargs: c.kwargs.clone() };
        pre.push(assign(mask, call, mask_ty, span));
        let ones_ty = Type::tile(rt.clone());
        let ones = self.new_tile(&format!("{}_ones", self.vars.var_name(var)), ones_ty.clone(), span);
        pre.push(assign(ones, full_call(&rt.shape, rt.dtype, 1, self, span), ones_ty, span));
        let elem_bytes = i64::from(rt.dtype.bits() / 8).max(1);
        let tmp = self.hoisted_tile(&[int(1, span), int(32 / elem_bytes, span)], rt.dtype, Role::Select, span);
        **c = Call {
            callee: Callee::Op(id::SELECT_BITS),
            args: vec![Expr::var(mask, span), Expr::var(ones, span), Expr::var(tmp, span), zero(rt.dtype, span)],
            kwargs: Vec::new(),
        };
    }

    /// `x` converted to `dtype` (rounding to nearest) into the scratch buffer of `role`.
    /// A conversion still in its buffer is reused: `x` converted to `dtype` earlier in the same
    /// statement list, with no other conversion written to that buffer since (see
    /// [`Legalize::converted`]).
    fn cast(&mut self, x: &Expr, dtype: DataType, role: Role, span: Span, pre: &mut Vec<Stmt>) -> Expr {
        let shape = self.tile(x).map(|t| t.shape.clone()).unwrap_or_default();
        let ty = self.scratch_type(&shape, dtype, role, span);
        let buffer = ty.memref();
        if let (Some(b), Some(src)) = (buffer, x.as_var()) {
            if let Some(&(from, to, t)) = self.converted.get(&b) {
                if (from, to) == (src, dtype) {
                    return Expr::var(t, span);
                }
            }
        }
        let base = x.as_var().map_or("operand".to_string(), |v| self.vars.var_name(v).to_string());
        let t = self.new_tile(&format!("{base}_cvt"), ty.clone(), span);
        pre.push(assign(t, cast_call(x.clone(), dtype), ty, span));
        if let Some(b) = buffer {
            match x.as_var() {
                Some(src) => self.converted.insert(b, (src, dtype, t)),
                None => self.converted.remove(&b),
            };
        }
        Expr::var(t, span)
    }

    /// `v` broadcast to `rt`'s shape into the scratch buffer of `role`: zeros, then the vector
    /// added along rows or columns.
    fn expand(&mut self, v: &Expr, rt: &TileType, how: Bcast, role: Role, span: Span, pre: &mut Vec<Stmt>) -> Expr {
        let dtype = self.tile(v).map_or(rt.dtype, |t| t.dtype);
        let ty = self.scratch_type(&rt.shape, dtype, role, span);
        let base = v.as_var().map_or("operand".to_string(), |x| self.vars.var_name(x).to_string());
        let zeros = self.new_tile(&format!("{base}_zeros"), ty.clone(), span);
        pre.push(assign(zeros, full_call(&rt.shape, dtype, 0, self, span), ty.clone(), span));
        let e = self.new_tile(&format!("{base}_bcast"), ty.clone(), span);
        let op = match how {
            Bcast::Column => id::ROW_EXPAND_ADD,
            Bcast::Row => id::COL_EXPAND_ADD,
        };
        let call = Call { callee: Callee::Op(op), args: vec![Expr::var(zeros, span), v.clone()], kwargs: Vec::new() };
        pre.push(assign(e, call, ty, span));
        Expr::var(e, span)
    }

    /// The tile type `shape` × `dtype` in the shared scratch buffer of `role` of its size.
    fn scratch_type(&mut self, shape: &[Expr], dtype: DataType, role: Role, span: Span) -> Type {
        let mut ty = Type::tile(TileType { dtype, shape: shape.to_vec(), memref: None, view: None });
        let size = crate::analysis::memref_plan::buffer_size(&ty);
        let m = match self.scratch.get(&(role, size)) {
            Some(&m) => m,
            None => {
                let m = self.new_memref(size, span);
                self.scratch.insert((role, size), m);
                m
            }
        };
        crate::analysis::memref_plan::set_memref(&mut ty, m);
        ty
    }

    /// A scratch tile `shape` × `dtype` of `role`, made once at the top of the function
    /// (`block.create_tile`, see [`Legalize::hoisted`]).
    fn hoisted_tile(&mut self, shape: &[Expr], dtype: DataType, role: Role, span: Span) -> VarId {
        let key = (role, shape.iter().filter_map(Expr::as_const_int).collect::<Vec<i64>>(), dtype);
        if let Some(&t) = self.scratch_tiles.get(&key) {
            return t;
        }
        let ty = self.scratch_type(shape, dtype, role, span);
        let name = match role {
            Role::Reduce => "reduce_tmp",
            _ => "select_tmp",
        };
        let t = self.new_tile(name, ty.clone(), span);
        let create = Call {
            callee: Callee::Op(id::CREATE_TILE),
            args: vec![self.shape_tuple(shape, span)],
            kwargs: vec![("dtype", KwValue::DType(dtype)), ("target_memory", KwValue::Space(MemorySpace::Vec))],
        };
        self.hoisted.push(assign(t, create, ty, span));
        self.scratch_tiles.insert(key, t);
        t
    }

    /// A new Vec MemRef of `size` bytes (no address yet).
    pub(super) fn new_memref(&mut self, size: u64, span: Span) -> VarId {
        let info =
            MemRefInfo { space: MemorySpace::Vec, addr: Expr::int(-1, DataType::Int64, span), size, id: self.next_id };
        self.next_id += 1;
        let name = info.derived_name();
        self.names.insert(name.clone());
        let m = self.vars.new_var(name, Type::MemRef, crate::ir::VarKind::MemRef(Box::new(info)), span);
        self.new_memrefs.push(m);
        m
    }

    /// The tuple expression of a shape.
    pub(super) fn shape_tuple(&self, shape: &[Expr], span: Span) -> Expr {
        let ty = Type::Tuple(shape.iter().map(|d| self.vars.type_of(d).clone()).collect());
        Expr::new(ExprKind::MakeTuple(shape.to_vec()), ty, span)
    }

    /// The tile type of a placed tile operand.
    fn tile<'a>(&'a self, e: &'a Expr) -> Option<&'a TileType> {
        match self.vars.type_of(e) {
            Type::Tile(t) if t.memref.is_some() => Some(t),
            _ => None,
        }
    }
}

/// The fused op for `op` with a broadcast operand (`rhs`: it is the second one), when there is
/// one: `t op v` along rows or columns, for `v op t` only when `op` commutes.
fn fused(op: OpId, how: Bcast, rhs: bool) -> Option<OpId> {
    let (row, col, commutes) = match op {
        id::ADD => (id::ROW_EXPAND_ADD, id::COL_EXPAND_ADD, true),
        id::SUB => (id::ROW_EXPAND_SUB, id::COL_EXPAND_SUB, false),
        id::MUL => (id::ROW_EXPAND_MUL, id::COL_EXPAND_MUL, true),
        id::DIV => (id::ROW_EXPAND_DIV, id::COL_EXPAND_DIV, false),
        id::MAXIMUM => (id::ROW_EXPAND_MAX, id::COL_EXPAND_MAX, true),
        id::MINIMUM => (id::ROW_EXPAND_MIN, id::COL_EXPAND_MIN, true),
        _ => return None,
    };
    if !rhs && !commutes {
        return None;
    }
    Some(match how {
        Bcast::Column => row,
        Bcast::Row => col,
    })
}

/// A tile's `(rows, cols)` as code generation lays it out (a 1-D tile is a row); `None` for
/// a dynamic shape or more than two dimensions.
fn rows_cols(shape: &[Expr]) -> Option<(i64, i64)> {
    match shape {
        [c] => Some((1, c.as_const_int()?)),
        [r, c] => Some((r.as_const_int()?, c.as_const_int()?)),
        _ => None,
    }
}

/// Whether two shapes are the same constant dims.
fn same_dims(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| x.as_const_int().is_some() && x.as_const_int() == y.as_const_int())
}

/// Whether a tile of `shape` is a 2-D column, which Vec lays out column-major.
fn is_column(shape: &[Expr]) -> bool {
    shape.len() == 2 && shape[1].as_const_int() == Some(1)
}

/// How an operand of `shape` broadcasts to `(rows, cols)` (numpy's rule), when it is a
/// vector that does.
fn broadcast(shape: &[Expr], result: &[Expr]) -> Option<Bcast> {
    let (rows, cols) = match result {
        [r, c] => (r.as_const_int()?, c.as_const_int()?),
        _ => return None,
    };
    let dims: Vec<i64> = shape.iter().map(Expr::as_const_int).collect::<Option<_>>()?;
    match dims.as_slice() {
        [r, 1] if *r == rows && cols > 1 => Some(Bcast::Column),
        [1, c] if *c == cols && rows > 1 => Some(Bcast::Row),
        [c] if *c == cols && rows > 1 => Some(Bcast::Row),
        _ => None,
    }
}

/// `block.cast(x, target_type=dtype, mode=1)`: round to nearest.
fn cast_call(x: Expr, dtype: DataType) -> Call {
    Call {
        callee: Callee::Op(id::CAST),
        args: vec![x],
        kwargs: vec![("target_type", KwValue::DType(dtype)), ("mode", KwValue::Int(1))],
    }
}

/// `block.full(shape, value, dtype=…)`.
fn full_call(shape: &[Expr], dtype: DataType, value: i64, cx: &Legalize<'_>, span: Span) -> Call {
    let v = if dtype.is_float() { Expr::float(value as f64, dtype, span) } else { Expr::int(value, dtype, span) };
    Call {
        callee: Callee::Op(id::FULL),
        args: vec![cx.shape_tuple(shape, span), v],
        kwargs: vec![("dtype", KwValue::DType(dtype))],
    }
}

fn zero(dtype: DataType, span: Span) -> Expr {
    if dtype.is_float() {
        Expr::float(0.0, dtype, span)
    } else {
        Expr::int(0, dtype, span)
    }
}

fn int(v: i64, span: Span) -> Expr {
    Expr::int(v, DataType::Int64, span)
}

/// `var = call` with the call's value typed `ty`.
fn assign(var: VarId, call: Call, ty: Type, span: Span) -> Stmt {
    Stmt::Assign { var, value: Expr::new(ExprKind::Call(Box::new(call)), ty, span), span }
}
