//! Kwarg value kinds: checking a [`KwValue`] against a [`KwKind`] and converting the forms the
//! reference accepts (a dtype code for a DataType, a mode name for `mode`) to the stored form.

use super::modes::{CmpMode, RoundMode};
use super::table::KwKind;
use crate::ir::{DataType, Expr, ExprKind, KwValue, PipeType, TilePad, UnOp};

/// Converts `v` to the stored form of `kind`, or `None` when it is not of that kind.
pub(crate) fn coerce(kind: KwKind, v: KwValue) -> Option<KwValue> {
    match (kind, v) {
        (KwKind::Int, v @ KwValue::Int(_))
        | (KwKind::Bool, v @ KwValue::Bool(_))
        | (KwKind::Str, v @ KwValue::Str(_))
        | (KwKind::Float, v @ KwValue::Float(_))
        | (KwKind::DType, v @ KwValue::DType(_)) => Some(v),
        (KwKind::Float, KwValue::Int(i)) => Some(KwValue::Float(i as f64)),
        (KwKind::DType, KwValue::Int(code)) => dtype_from_code(code).map(KwValue::DType),
        (KwKind::Space(allowed), KwValue::Space(s)) if allowed.is_empty() || allowed.contains(&s) => {
            Some(KwValue::Space(s))
        }
        (KwKind::Pad, v @ KwValue::Pad(p)) if p != TilePad::Null => Some(v),
        (KwKind::Mode, KwValue::Int(m)) if RoundMode::from_code(m).is_some() => Some(KwValue::Int(m)),
        (KwKind::Mode, KwValue::Str(name)) => RoundMode::from_name(&name).map(|m| KwValue::Int(m.code())),
        (KwKind::Cmp, KwValue::Int(c)) if CmpMode::from_code(c).is_some() => Some(KwValue::Int(c)),
        (KwKind::Pipe, KwValue::Int(p)) if PipeType::from_index(p).is_some() => Some(KwValue::Int(p)),
        (KwKind::Pipe, KwValue::Str(name)) => PipeType::from_name(&name).map(|p| KwValue::Int(p.index() as i64)),
        _ => None,
    }
}

/// Whether `v` is acceptable for `kind` as stored in IR (an int dtype code is, §4).
pub(crate) fn accepts(kind: KwKind, v: &KwValue) -> bool {
    coerce(kind, v.clone()).is_some()
}

/// The DataType with this one-byte code.
pub(crate) fn dtype_from_code(code: i64) -> Option<DataType> {
    DataType::all_names().filter_map(DataType::from_name).find(|d| i64::from(d.code()) == code)
}

/// What a kind expects, for messages ("a dtype").
pub(crate) fn expected(kind: KwKind) -> String {
    match kind {
        KwKind::Int => "an integer".into(),
        KwKind::Bool => "a bool".into(),
        KwKind::Str => "a string".into(),
        KwKind::Float => "a float".into(),
        KwKind::DType => "a dtype (e.g. pl.FP32)".into(),
        KwKind::Space(&[]) => "a memory space (pl.MemorySpace.X)".into(),
        KwKind::Space(allowed) => {
            let names: Vec<String> = allowed.iter().map(|s| format!("pl.MemorySpace.{}", s.name())).collect();
            format!("one of {}", names.join(", "))
        }
        KwKind::Mode => {
            let names: Vec<&str> = RoundMode::ALL.iter().map(|m| m.name()).collect();
            format!("a rounding mode (0..6 or one of '{}')", names.join("', '"))
        }
        KwKind::Cmp => format!("a comparison ({})", CmpMode::range_text()),
        KwKind::Pipe => "a pipe (pl.PipeType.X)".into(),
        KwKind::Pad => "a pad value (pl.PadValue.zero, max or min)".into(),
    }
}

/// What a value is, for messages ("a string").
pub(crate) fn describe(v: &KwValue) -> String {
    match v {
        KwValue::Int(i) => format!("the integer {i}"),
        KwValue::Bool(b) => format!("the bool {}", if *b { "True" } else { "False" }),
        KwValue::Str(s) => format!("the string '{s}'"),
        KwValue::Float(_) => "a float".into(),
        KwValue::DType(d) => format!("the dtype pl.{}", d.name()),
        KwValue::Space(s) => format!("pl.MemorySpace.{}", s.name()),
        KwValue::Pad(p) => format!("pl.PadValue.{}", p.name()),
    }
}

/// The plain value of a literal expression (`1`, `-1`, `1.5`, `True`), as the reference's
/// kwarg conversion would see it; `None` for anything else.
pub(crate) fn literal_value(e: &Expr) -> Option<KwValue> {
    match &e.kind {
        ExprKind::ConstInt(v, _) => Some(KwValue::Int(*v)),
        ExprKind::ConstFloat(v, _) => Some(KwValue::Float(*v)),
        ExprKind::ConstBool(b) => Some(KwValue::Bool(*b)),
        ExprKind::Unary(UnOp::Neg, inner) => match literal_value(inner)? {
            KwValue::Int(v) => v.checked_neg().map(KwValue::Int),
            KwValue::Float(v) => Some(KwValue::Float(-v)),
            _ => None,
        },
        _ => None,
    }
}
