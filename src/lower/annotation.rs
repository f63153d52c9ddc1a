//! How an annotation and the type of the value it annotates combine (spec `ir-and-syntax.md`
//! §3.10, docs/language.md "Types").
//!
//! The reference's DSL parser ignores annotations: a variable's type is its value's. ptoc takes
//! the value's view too, but keeps what only the annotation can say — the MemRef after the memory
//! passes, and a view written out in full (printed IR) — and checks the rest: an annotation whose
//! kind, shape, dtype or memory space disagrees with the value is a mistake the reference would
//! silently ignore (hand-written text) or IR built to differ on purpose (printed text, for the
//! verifier to judge). [`merge`] says which; the caller decides what a disagreement means.

use crate::ir::{dims_equal, Type, VarTable};
use std::sync::Arc;

/// What the annotation says that the value's type contradicts.
#[derive(Debug, PartialEq)]
pub(super) enum Disagreement {
    Kind,
    Dtype,
    Shape,
    MemorySpace,
}

impl Disagreement {
    pub(super) fn what(&self) -> &'static str {
        match self {
            Disagreement::Kind => "kind",
            Disagreement::Dtype => "dtype",
            Disagreement::Shape => "shape",
            Disagreement::MemorySpace => "memory space",
        }
    }
}

/// The type of a variable annotated `ann` whose value has type `value`, or the disagreement.
/// An annotation that writes a MemRef or a view is the whole type (printed IR: after the memory
/// passes only the annotation carries the MemRef, and the reference's tests build IR whose
/// variables lack the view their values would have); one that writes neither is the value's type
/// (without its MemRef): its symbolic dims, never compared, must not replace the value's shape
/// (docs/fuzzing.md, F7). An unknown type on either side gives the other. The annotation's
/// variables (its MemRef) are those of `ann_vars`, the value's those of `value_vars`: a call's
/// parameter types belong to the callee.
pub(super) fn merge(
    ann_vars: &VarTable,
    value_vars: &VarTable,
    ann: &Type,
    value: &Type,
) -> Result<Type, Disagreement> {
    match (ann, value) {
        (_, Type::Unknown) => Ok(ann.clone()),
        (Type::Unknown, _) => Ok(value.clone()),
        (Type::Scalar(a), Type::Scalar(v)) => {
            if a == v {
                Ok(ann.clone())
            } else {
                Err(Disagreement::Dtype)
            }
        }
        (Type::Tensor(a), Type::Tensor(v)) => {
            check((ann_vars, value_vars), a.dtype == v.dtype, &a.shape, &v.shape, a.memref, v.memref)?;
            Ok(written_or_value(ann, value, a.memref.is_some() || a.view.is_some()))
        }
        (Type::Tile(a), Type::Tile(v)) => {
            check((ann_vars, value_vars), a.dtype == v.dtype, &a.shape, &v.shape, a.memref, v.memref)?;
            Ok(written_or_value(ann, value, a.memref.is_some() || a.view.is_some()))
        }
        (Type::Tuple(a), Type::Tuple(v)) => {
            if a.len() != v.len() {
                return Err(Disagreement::Shape);
            }
            a.iter()
                .zip(v)
                .map(|(a, v)| merge(ann_vars, value_vars, a, v))
                .collect::<Result<Vec<_>, _>>()
                .map(Type::Tuple)
        }
        (Type::MemRef, Type::MemRef) => Ok(ann.clone()),
        _ => Err(Disagreement::Kind),
    }
}

/// The annotation `ann` when it writes a MemRef or a view (`writes`), else the value's type
/// without its MemRef (shared with the value, not copied, when it has none).
fn written_or_value(ann: &Type, value: &Type, writes: bool) -> Type {
    if writes {
        return ann.clone();
    }
    let mut t = value.clone();
    match &mut t {
        Type::Tensor(v) if v.memref.is_some() => Arc::make_mut(v).memref = None,
        Type::Tile(v) if v.memref.is_some() => Arc::make_mut(v).memref = None,
        _ => {}
    }
    t
}

fn check(
    (ann_vars, value_vars): (&VarTable, &VarTable),
    same_dtype: bool,
    ann_shape: &[crate::ir::Expr],
    value_shape: &[crate::ir::Expr],
    ann_memref: Option<crate::ir::VarId>,
    value_memref: Option<crate::ir::VarId>,
) -> Result<(), Disagreement> {
    if !same_dtype {
        return Err(Disagreement::Dtype);
    }
    // Only dims known on both sides can disagree: symbolic dims are not compared (two spellings
    // of one size, `n * 2` and `2 * n`, must not be an error).
    let known_differ = |a: &crate::ir::Expr, v: &crate::ir::Expr| {
        a.as_const_int().is_some() && v.as_const_int().is_some() && !dims_equal(a, v)
    };
    if ann_shape.len() != value_shape.len() || ann_shape.iter().zip(value_shape).any(|(a, v)| known_differ(a, v)) {
        return Err(Disagreement::Shape);
    }
    if let (Some(a), Some(v)) = (ann_memref, value_memref) {
        let space = |vars: &VarTable, m| match &vars.get(m)?.kind {
            crate::ir::VarKind::MemRef(info) => Some(info.space),
            _ => None,
        };
        if space(ann_vars, a) != space(value_vars, v) {
            return Err(Disagreement::MemorySpace);
        }
    }
    Ok(())
}
