//! Padding a tile as pto-isa's `TFILLPAD` family does: the value it writes outside a tile's
//! valid part, and `TFILLPAD_EXPAND`'s copy into a larger tile (read by the op semantics and by
//! the partial-tile rules alike).

use super::numeric::int_range;
use super::value::{Array, Num, Value};
use crate::diag::{codes, Diagnostic};
use crate::ir::{DataType, Expr, TilePad, Type};

/// pto-isa's `TFILLPAD_EXPAND`: the `valid` part of `src` in the top-left corner of a tile of
/// `shape` (the call `e`'s result, whose type carries the pad value), the pad value elsewhere.
pub(super) fn expand(src: &Array, valid: &[usize], e: &Expr, shape: Vec<usize>) -> Result<Value, Diagnostic> {
    let pad = match &e.ty {
        Type::Tile(t) => t.view.as_ref().map_or(TilePad::Null, |v| v.pad),
        _ => TilePad::Null,
    };
    let (&[sr, sc], &[_, dc]) = (src.shape(), shape.as_slice()) else {
        return Err(Diagnostic::error(codes::RUN_ERROR, e.span, "a padded operand is not a 2-D tile".to_string()));
    };
    let fill = pad_value(src.dtype(), pad);
    let mut out = Array::zeros(src.dtype(), shape.clone());
    for i in 0..out.len() {
        let (r, c) = (i / dc.max(1), i % dc.max(1));
        let inside = r < sr && c < sc && valid.first().is_none_or(|&v| r < v) && valid.get(1).is_none_or(|&v| c < v);
        out.set(i, if inside { src.get(r * sc + c) } else { fill });
    }
    Ok(Value::tile(out))
}

/// The value pto-isa's `TFILLPAD` writes for `pad` in dtype `d`.
pub(super) fn pad_value(d: DataType, pad: TilePad) -> Num {
    match (pad, d.is_float()) {
        (TilePad::Max, true) => Num::F(f64::INFINITY),
        (TilePad::Min, true) => Num::F(f64::NEG_INFINITY),
        (TilePad::Max, false) => Num::I(int_range(d).1),
        (TilePad::Min, false) => Num::I(int_range(d).0),
        _ => zero(d),
    }
}

/// Zero in dtype `d`.
pub(super) fn zero(d: DataType) -> Num {
    if d.is_float() {
        Num::F(0.0)
    } else {
        Num::I(0)
    }
}
