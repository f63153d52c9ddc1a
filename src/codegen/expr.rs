//! Scalar expressions as C++ value strings (spec `passes-and-codegen.md` §4.5).
//!
//! Differences from the reference, which emits code that does not compile (§6.1 Q23): scalar
//! `min`/`max` become conditional expressions instead of undeclared `min(…)`/`max(…)` calls.

use super::ctype::c_type;
use crate::diag::{codes, Diagnostic};
use crate::ir::{BinOp, Expr, ExprKind, UnOp, VarId};

/// Renders `e`; `name` gives the C++ name of a variable (or an error when it has none).
pub fn value(e: &Expr, name: &dyn Fn(VarId, &Expr) -> Result<String, Diagnostic>) -> Result<String, Diagnostic> {
    let v = |x: &Expr| value(x, name);
    Ok(match &e.kind {
        ExprKind::Var(id) => name(*id, e)?,
        ExprKind::ConstInt(i, _) => i.to_string(),
        ExprKind::ConstFloat(f, _) => {
            if !f.is_finite() {
                return Err(Diagnostic::error(codes::UNSUPPORTED, e.span, format!("CCE codegen: float constant {f} has no C++ literal")));
            }
            format!("{f:.6}")
        }
        ExprKind::ConstBool(b) => b.to_string(),
        ExprKind::TupleGetItem(t, k) => format!("{}[{k}]", v(t)?),
        ExprKind::Binary(op, l, r) => {
            let (l, r) = (v(l)?, v(r)?);
            match c_binop(*op) {
                Some(sym) => format!("({l} {sym} {r})"),
                None if *op == BinOp::Min => format!("({l} < {r} ? {l} : {r})"),
                None if *op == BinOp::Max => format!("({l} > {r} ? {l} : {r})"),
                None => format!("pow({l}, {r})"),
            }
        }
        ExprKind::Unary(op, x) => {
            let x = v(x)?;
            match op {
                UnOp::Neg => format!("(-{x})"),
                UnOp::Not => format!("(!{x})"),
                UnOp::BitNot => format!("(~{x})"),
                UnOp::Abs => format!("abs({x})"),
                UnOp::Cast => {
                    let dt = e.ty.scalar_dtype().ok_or_else(|| {
                        Diagnostic::error(codes::UNSUPPORTED, e.span, "CCE codegen: cast to a non-scalar type")
                    })?;
                    format!("(({}){x})", c_type(dt, e.span)?)
                }
            }
        }
        ExprKind::Call(_) => {
            return Err(Diagnostic::error(codes::UNSUPPORTED, e.span, "CCE codegen: a call nested in an expression")
                .with_note("run flatten-call-expr before --emit cpp"))
        }
        ExprKind::MakeTuple(_) => {
            return Err(Diagnostic::error(codes::UNSUPPORTED, e.span, "CCE codegen: a list literal used as a value"))
        }
    })
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
