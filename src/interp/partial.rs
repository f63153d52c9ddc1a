//! Partial tiles: ops compute on the valid part of their tiles, as pto-isa's instructions do
//! (each loops over the destination's or the source's valid rows and columns).
//!
//! A tile value holds its whole array; the valid extents of each tile operand and of the result
//! come from their types (evaluated, so a dynamic extent is its variable's value). What this
//! module changes of a call that [`super::semantics`] computes on whole arrays:
//! - a reduction reduces the valid part of its source only;
//! - `block.store` writes the valid part of its tile only;
//! - `block.fillpad` writes the pad value over the invalid part of its source (pto-isa's
//!   `TFILLPAD`: +inf/-inf for `max`/`min` of a float dtype, the dtype's largest and smallest
//!   value of an integer one, zero for `zero` and when no pad value is given);
//! - every other result of a partial type has zeros outside its valid part. pto-isa leaves
//!   whatever the destination's memory held there, which no program can read: stores write the
//!   valid part only and ops compute on it.

use super::padding::{expand, pad_value, zero};
use super::semantics;
use super::value::{Array, Num, Scalar, Value};
use crate::diag::{codes, Diagnostic};
use crate::ir::{Call, DataType, Expr, OpId, TilePad, Type};
use crate::ops::id;

/// The valid extents of a tile (one per axis), when it has a valid shape.
pub(super) type Valid = Option<Vec<usize>>;

/// Executes the call `call` of `op` (the expression `e`) on `args`, whose tile operands have the
/// valid extents `arg_valid`, into a result whose valid extents are `res_valid`.
pub(super) fn apply(
    op: OpId,
    call: &Call,
    e: &Expr,
    mut args: Vec<Value>,
    arg_valid: &[Valid],
    res_valid: Valid,
) -> Result<Value, Diagnostic> {
    let src_valid = arg_valid.first().cloned().flatten();
    match op {
        id::STORE | id::L0C_STORE => {
            if let (Some(v), Some(Value::Tuple(shape))) = (&src_valid, args.get(2)) {
                // The window written: the valid part of the stored window.
                let clipped: Vec<Value> = shape
                    .iter()
                    .zip(v.iter().chain(std::iter::repeat(&usize::MAX)))
                    .map(|(s, &n)| match s {
                        Value::Scalar(s) => {
                            let m = (s.num.as_i128()).min(n as i128);
                            Value::Scalar(Scalar::new(s.dtype, Num::I(m)))
                        }
                        other => other.clone(),
                    })
                    .collect();
                args[2] = Value::Tuple(clipped);
            }
            semantics::apply(op, call, e, args)
        }
        id::FILLPAD_EXPAND => {
            let src = args.first().and_then(Value::array).ok_or_else(|| not_tile(e))?;
            let valid = src_valid.unwrap_or_else(|| src.shape().to_vec());
            let shape = static_shape(&e.ty).ok_or_else(|| not_tile(e))?;
            expand(&src, &valid, e, shape)
        }
        id::FILLPAD | id::FILLPAD_INPLACE => {
            let src = args.first().and_then(Value::array).ok_or_else(|| not_tile(e))?;
            let Some(v) = src_valid else { return semantics::apply(op, call, e, args) };
            let pad = match e.ty.clone() {
                Type::Tile(t) => t.view.as_ref().map_or(TilePad::Null, |v| v.pad),
                _ => TilePad::Null,
            };
            let fill = pad_value(src.dtype(), pad);
            Ok(Value::tile(outside(&src, &v, |_| fill)))
        }
        id::ROW_SUM | id::ROW_MAX | id::ROW_MIN | id::SUM | id::MAX | id::MIN if src_valid.is_some() => {
            let v = src_valid.unwrap_or_default();
            let full = args.first().and_then(Value::array).ok_or_else(|| not_tile(e))?;
            let shape = full.shape().to_vec();
            // The source and a scratch tile of its shape, cut to the valid part.
            for a in args.iter_mut() {
                if let Some(arr) = a.array().filter(|x| x.shape() == shape.as_slice()) {
                    *a = Value::tile(crop(&arr, &v));
                }
            }
            let got = semantics::apply(op, call, e, args)?;
            let Some(small) = got.array() else { return Ok(got) };
            let Some(out_shape) = static_shape(&e.ty) else { return Ok(got) };
            Ok(Value::tile(embed(&small, out_shape)))
        }
        id::PARTADD | id::PARTMUL | id::PARTMAX | id::PARTMIN => part(op, e, &args, arg_valid, res_valid),
        _ => {
            let got = semantics::apply(op, call, e, args)?;
            match (res_valid, got.array(), &got) {
                (Some(v), Some(a), Value::Tile(_)) => Ok(Value::tile(outside(&a, &v, zero))),
                _ => Ok(got),
            }
        }
    }
}

/// A partial-combine op (`block.partadd` …) as pto-isa's CPU simulator computes it: over the
/// destination's valid region, both operands' combination where both are valid, the one valid
/// operand's element where only one is (zero where neither is, and outside the region). The
/// a2a3 instruction asserts when a source's valid region extends past the destination's, which
/// the type rule refuses for static extents; a dynamic one is checked here.
fn part(op: OpId, e: &Expr, args: &[Value], arg_valid: &[Valid], res_valid: Valid) -> Result<Value, Diagnostic> {
    let (Some(a), Some(b)) = (args.first().and_then(Value::array), args.get(1).and_then(Value::array)) else {
        return Err(not_tile(e));
    };
    let shape = a.shape().to_vec();
    if b.shape() != shape.as_slice() || shape.len() != 2 {
        return Err(Diagnostic::error(
            codes::RUN_SHAPE,
            e.span,
            format!(
                "{} needs two 2-D tiles of one shape, but got {:?} and {:?}",
                crate::ops::name(op),
                shape,
                b.shape()
            ),
        ));
    }
    let whole = || shape.clone();
    let dst = res_valid.unwrap_or_else(whole);
    let (va, vb) = (
        arg_valid.first().cloned().flatten().unwrap_or_else(whole),
        arg_valid.get(1).cloned().flatten().unwrap_or_else(whole),
    );
    if va.iter().zip(&dst).chain(vb.iter().zip(&dst)).any(|(s, d)| s > d) {
        return Err(Diagnostic::error(
            codes::RUN_ERROR,
            e.span,
            format!(
                "{}: a source's valid extents ({va:?}, {vb:?}) exceed the result's ({dst:?}), which pto-isa's a2a3 \
                 instruction asserts against",
                crate::ops::name(op)
            ),
        ));
    }
    let out = e.ty.dtype().unwrap_or(a.dtype());
    let mut res = Array::zeros(out, shape.clone());
    for i in 0..res.len() {
        if !inside(i, &shape, &dst) {
            continue;
        }
        let v = match (inside(i, &shape, &va), inside(i, &shape, &vb)) {
            (true, true) => semantics::part_combine(op, out, a.get(i), b.get(i))
                .map_err(|m| Diagnostic::error(codes::RUN_ERROR, e.span, m))?,
            (true, false) => a.get(i),
            (false, true) => b.get(i),
            (false, false) => zero(out),
        };
        res.set(i, v);
    }
    Ok(Value::tile(res))
}

fn not_tile(e: &Expr) -> Diagnostic {
    Diagnostic::error(codes::RUN_ERROR, e.span, "a partial-tile operand is not a tile".to_string())
}

/// The static shape of a tile type.
fn static_shape(ty: &Type) -> Option<Vec<usize>> {
    ty.shape()?.iter().map(|d| d.as_const_int().and_then(|n| usize::try_from(n).ok())).collect()
}

/// Whether row-major element `flat` of an array of `shape` lies inside the extents `valid`.
fn inside(flat: usize, shape: &[usize], valid: &[usize]) -> bool {
    let mut rest = flat;
    for k in (0..shape.len()).rev() {
        let i = rest % shape[k].max(1);
        rest /= shape[k].max(1);
        if valid.get(k).is_some_and(|&v| i >= v) {
            return false;
        }
    }
    true
}

/// `a` with every element outside `valid` replaced by `f(dtype)`.
fn outside(a: &Array, valid: &[usize], f: impl Fn(DataType) -> Num) -> Array {
    let mut out = a.clone();
    for i in 0..a.len() {
        if !inside(i, a.shape(), valid) {
            out.set(i, f(a.dtype()));
        }
    }
    out
}

/// The part of `a` inside `valid` (its top-left corner).
fn crop(a: &Array, valid: &[usize]) -> Array {
    let shape: Vec<usize> = a.shape().iter().zip(valid).map(|(s, v)| (*s).min(*v)).collect();
    Array::from_nums(a.dtype(), shape, (0..a.len()).filter(|&i| inside(i, a.shape(), valid)).map(|i| a.get(i)))
}

/// `small` in the top-left corner of a zero array of `shape`.
fn embed(small: &Array, shape: Vec<usize>) -> Array {
    let mut out = Array::zeros(small.dtype(), shape.clone());
    let mut k = 0;
    for i in 0..out.len() {
        if inside(i, &shape, small.shape()) && k < small.len() {
            out.set(i, small.get(k));
            k += 1;
        }
    }
    out
}
