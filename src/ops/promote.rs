//! The two dtype-promotion rules (spec §1.1) and the scalar expression builders that use rule (a).

use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{BinOp, DataType, Expr, ExprKind, Type, UnOp, VarTable};

/// Rule 1.1(b), used by operator type inference: equal → that dtype; exactly one float → the
/// float; otherwise the wider; equal width → the signed int if any (first checked first);
/// otherwise the first.
pub fn promote_dtypes(a: DataType, b: DataType) -> DataType {
    if a == b {
        return a;
    }
    match (a.is_float(), b.is_float()) {
        (true, false) => return a,
        (false, true) => return b,
        _ => {}
    }
    if a.bits() != b.bits() {
        return if a.bits() > b.bits() { a } else { b };
    }
    if !a.is_float() && a.is_signed_int() {
        a
    } else if !b.is_float() && b.is_signed_int() {
        b
    } else {
        a
    }
}

/// Rule 1.1(a), used by the scalar helpers: no BOOL, same category (signed and unsigned ints
/// are one category), the wider dtype, the left one on equal widths.
pub(crate) fn promote_scalar(op: &str, a: DataType, b: DataType) -> Result<DataType, String> {
    if a == DataType::Bool || b == DataType::Bool {
        return Err(format!("Operator '{op}' does not accept bool dtype"));
    }
    let same_category = (a.is_float() && b.is_float()) || (a.is_int() && b.is_int());
    if !same_category {
        return Err(format!(
            "Operator '{op}' requires same numeric dtype category, but got {} and {}",
            a.lower_name(),
            b.lower_name()
        ));
    }
    Ok(if b.bits() > a.bits() { b } else { a })
}

/// Wraps `e` in a `Cast` to `to` unless it already has that dtype.
fn cast_to(e: Expr, from: DataType, to: DataType) -> Expr {
    if from == to {
        return e;
    }
    let span = e.span;
    Expr::new(ExprKind::Unary(UnOp::Cast, Box::new(e)), Type::Scalar(to), span)
}

fn bad(span: Span, message: String) -> Diagnostic {
    Diagnostic::error(codes::BAD_SCALAR_OP, span, message)
}

/// The dtype of a scalar operand, or the reference's "must be ScalarExpr" error. `which` names
/// the operand in the message ("the left operand").
fn operand_dtype(vars: &VarTable, op: &str, which: &str, e: &Expr) -> Result<DataType, Diagnostic> {
    match vars.type_of(e) {
        Type::Scalar(d) => Ok(*d),
        other => {
            Err(bad(e.span, format!("Operator '{op}' requires {which} to be a scalar, but got {}", other.kind_name()))
                .with_label(format!("this is a {}", other.kind_name())))
        }
    }
}

fn is_bitwise(op: BinOp) -> bool {
    matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr)
}

/// See [`crate::ops::scalar_binary`].
pub(crate) fn scalar_binary(vars: &VarTable, op: BinOp, lhs: Expr, rhs: Expr, span: Span) -> Result<Expr, Diagnostic> {
    let name = op.node_name();
    let l = operand_dtype(vars, name, "the left operand", &lhs)?;
    let r = operand_dtype(vars, name, "the right operand", &rhs)?;
    let binary =
        |lhs, rhs, dtype| Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), Type::Scalar(dtype), span);
    if matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) {
        return Ok(binary(lhs, rhs, DataType::Bool));
    }
    // Equality of two booleans has no helper in the reference, but its printer prints such
    // nodes (`x < y == p`, §3.13); ptoc reads them back as BOOL comparisons.
    if matches!(op, BinOp::Eq | BinOp::Ne) && l == DataType::Bool && r == DataType::Bool {
        return Ok(binary(lhs, rhs, DataType::Bool));
    }
    let dtype = promote_scalar(name, l, r).map_err(|m| bad(span, m))?;
    if is_bitwise(op) && !(l.is_int() && r.is_int()) {
        return Err(bad(
            span,
            format!("Operator '{name}' requires integer dtype, but got {} and {}", l.lower_name(), r.lower_name()),
        ));
    }
    let result = if op.is_comparison() { DataType::Bool } else { dtype };
    Ok(binary(cast_to(lhs, l, dtype), cast_to(rhs, r, dtype), result))
}

/// See [`crate::ops::scalar_unary`].
pub(crate) fn scalar_unary(vars: &VarTable, op: UnOp, operand: Expr, span: Span) -> Result<Expr, Diagnostic> {
    let name = op.node_name();
    let d = operand_dtype(vars, name, "its operand", &operand)?;
    let dtype = match op {
        UnOp::Neg | UnOp::Abs => d,
        UnOp::Not => DataType::Bool,
        UnOp::BitNot if d.is_int() => d,
        UnOp::BitNot => {
            return Err(bad(span, format!("Operator '{name}' requires integer dtype, but got {}", d.lower_name())))
        }
        // A cast needs its target dtype: callers use `scalar_cast`.
        UnOp::Cast => {
            return Err(bad(span, "Operator 'Cast' needs a target dtype: use pl.cast(x, pl.DTYPE)".to_string()))
        }
    };
    Ok(Expr::new(ExprKind::Unary(op, Box::new(operand)), Type::Scalar(dtype), span))
}

/// See [`crate::ops::scalar_cast`].
pub(crate) fn scalar_cast(vars: &VarTable, operand: Expr, dtype: DataType, span: Span) -> Result<Expr, Diagnostic> {
    operand_dtype(vars, "Cast", "its operand", &operand)?;
    Ok(Expr::new(ExprKind::Unary(UnOp::Cast, Box::new(operand)), Type::Scalar(dtype), span))
}
