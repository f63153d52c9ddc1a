//! Scalar expressions as C++ value strings (spec `passes-and-codegen.md` §4.5).
//!
//! Differences from the reference, which emits code that does not compile (§6.1 Q23): scalar
//! `min`/`max` become conditional expressions instead of undeclared `min(…)`/`max(…)` calls.

use std::fmt::Write;

use super::ctype::c_type;
use crate::diag::{codes, Diagnostic};
use crate::ir::{BinOp, Expr, ExprKind, UnOp, VarId};
use crate::text::cat;

/// The C++ name of a variable used at an expression, or the error when it has none.
pub type NameOf<'n> = dyn Fn(VarId, &Expr) -> Result<&'n str, Diagnostic> + 'n;

/// Appends the C++ text of `e` to `out`; `name` gives the C++ name of a variable. On an error
/// `out` holds a partial text (the caller discards the whole file).
pub fn write_value(e: &Expr, name: &NameOf<'_>, out: &mut String) -> Result<(), Diagnostic> {
    // `write!` into a String cannot fail.
    match &e.kind {
        ExprKind::Var(id) => out.push_str(name(*id, e)?),
        ExprKind::ConstInt(i, _) => cat!(out; *i),
        ExprKind::ConstFloat(f, _) => {
            if !f.is_finite() {
                return Err(refused(e.span, &format!("a float constant {f}")));
            }
            if f.fract() == 0.0 && f.abs() < 1e15 && !(*f == 0.0 && f.is_sign_negative()) {
                // What `{f:.6}` writes for an integral value, without the float formatter.
                cat!(out; *f as i64, ".000000");
            } else {
                let _ = write!(out, "{f:.6}");
            }
        }
        ExprKind::ConstBool(b) => out.push_str(if *b { "true" } else { "false" }),
        ExprKind::TupleGetItem(t, k) => {
            write_value(t, name, out)?;
            let _ = write!(out, "[{k}]");
        }
        ExprKind::Binary(op, l, r) => match c_binop(*op) {
            Some(sym) => {
                out.push('(');
                write_value(l, name, out)?;
                out.push(' ');
                out.push_str(sym);
                out.push(' ');
                write_value(r, name, out)?;
                out.push(')');
            }
            None => {
                // Each operand appears twice (`min`/`max`) or as a call argument (`pow`).
                let (l, r) = (value(l, name)?, value(r, name)?);
                let _ = match op {
                    BinOp::Min => write!(out, "({l} < {r} ? {l} : {r})"),
                    BinOp::Max => write!(out, "({l} > {r} ? {l} : {r})"),
                    _ => write!(out, "pow({l}, {r})"),
                };
            }
        },
        ExprKind::Unary(op, x) => {
            let (open, close) = match op {
                UnOp::Neg => ("(-", ")"),
                UnOp::Not => ("(!", ")"),
                UnOp::BitNot => ("(~", ")"),
                UnOp::Abs => ("abs(", ")"),
                UnOp::Cast => {
                    // The operand's errors come first, then the cast's own.
                    let x = value(x, name)?;
                    let dt = e.ty.scalar_dtype().ok_or_else(|| refused(e.span, "a cast to a non-scalar type"))?;
                    let _ = write!(out, "(({}){x})", c_type(dt, e.span)?);
                    return Ok(());
                }
            };
            out.push_str(open);
            write_value(x, name, out)?;
            out.push_str(close);
        }
        ExprKind::Call(_) => return Err(refused(e.span, "a call nested in an expression")),
        ExprKind::MakeTuple(_) => return Err(refused(e.span, "a list literal used as a value")),
    }
    Ok(())
}

/// A value the C++ form rule ([`crate::verify::cce_form`]) refuses, found while writing it: a
/// bug of ptoc.
fn refused(span: crate::diag::Span, what: &str) -> Diagnostic {
    Diagnostic::internal(codes::NO_CPP_FORM, span, format!("CCE codegen: {what}, which the C++ form rule refuses"))
}

/// The C++ text of `e` as a new string (see [`write_value`]).
pub fn value(e: &Expr, name: &NameOf<'_>) -> Result<String, Diagnostic> {
    let mut out = String::new();
    write_value(e, name, &mut out)?;
    Ok(out)
}

/// The C++ infix operator; `None` for `min`, `max` and `pow`.
fn c_binop(op: BinOp) -> Option<&'static str> {
    use BinOp::*;
    Some(match op {
        Add => "+",
        Sub => "-",
        Mul => "*",
        FloorDiv | FloatDiv => "/",
        FloorMod => "%",
        Eq => "==",
        Ne => "!=",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        And => "&&",
        Or => "||",
        Xor | BitXor => "^",
        BitAnd => "&",
        BitOr => "|",
        Shl => "<<",
        Shr => ">>",
        Min | Max | Pow => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;
    use crate::ir::{DataType, Type};

    /// Float constants print like `{:.6}`, including the integral fast path and its edges.
    #[test]
    fn float_constants_print_like_fixed_six() {
        let no_vars: &NameOf<'_> = &|_, e| Err(Diagnostic::error(codes::NO_CPP_FORM, e.span, "no variables"));
        for f in [4.0, -4.0, 0.0, -0.0, 0.5, -2.25, 1e-7, 123456789.0, 1e15, -1e15, 999999999999999.0, 3e20, 0.1] {
            let e = Expr::new(ExprKind::ConstFloat(f, DataType::Fp32), Type::Scalar(DataType::Fp32), Span::NONE);
            assert_eq!(value(&e, no_vars).ok(), Some(format!("{f:.6}")), "{f:?}");
        }
    }
}
