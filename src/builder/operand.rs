//! Operands of builder calls: values, literals, lists and plain attribute values, converted to
//! the operator table's argument form ([`ArgIn`]) with the text front end's defaults
//! (an integer literal is INT64, a float literal FP32).

use super::Value;
use crate::ir::{DataType, Expr, ExprKind, KwValue, MemorySpace, Span, Type, VarTable};
use crate::ops::{ArgIn, ArgValue, KwIn};

/// An argument of an operator or statement.
#[derive(Clone, Debug)]
pub enum Operand {
    /// A value made by the builder.
    Value(Value),
    /// Any IR expression (a literal, a scalar expression from [`Builder::scalar_op`], …).
    ///
    /// [`Builder::scalar_op`]: super::Builder::scalar_op
    Expr(Expr),
    /// A literal list `[a, b]` (offsets, shapes).
    List(Vec<Operand>),
    /// A plain attribute value: a dtype, a memory space, a string.
    Attr(KwValue),
}

impl Operand {
    /// A list operand: `Operand::list([i32_expr.into(), 0.into()])`.
    pub fn list(items: impl IntoIterator<Item = Operand>) -> Operand {
        Operand::List(items.into_iter().collect())
    }

    /// The operand as an IR expression (`None` for an attribute).
    pub(super) fn to_expr(&self, vars: &VarTable) -> Option<Expr> {
        match self {
            Operand::Value(v) => Some(Expr::var(v.0, Span::NONE)),
            Operand::Expr(e) => Some(e.clone()),
            Operand::List(items) => {
                let elems = items.iter().map(|i| i.to_expr(vars)).collect::<Option<Vec<_>>>()?;
                let ty = Type::Tuple(elems.iter().map(|e| vars.type_of(e).clone()).collect());
                Some(Expr::new(ExprKind::MakeTuple(elems), ty, Span::NONE))
            }
            Operand::Attr(_) => None,
        }
    }

    pub(super) fn to_arg(&self, vars: &VarTable) -> ArgIn {
        let value = match (self, self.to_expr(vars)) {
            (Operand::Attr(v), _) => ArgValue::Value(v.clone()),
            (_, Some(e)) => ArgValue::Expr(e),
            // A list holding an attribute: let the table report it as a bad argument.
            (_, None) => ArgValue::Value(KwValue::Str("<list of attributes>".into())),
        };
        ArgIn { value, span: Span::NONE }
    }

    /// A keyword argument; literals given as keywords are plain values, as in the text
    /// (`axis=-1` is an attribute, not an expression).
    pub(super) fn to_kwarg(&self, name: &str, vars: &VarTable) -> KwIn {
        let value = match self {
            Operand::Expr(Expr { kind: ExprKind::ConstInt(v, _), .. }) => ArgValue::Value(KwValue::Int(*v)),
            Operand::Expr(Expr { kind: ExprKind::ConstFloat(v, _), .. }) => ArgValue::Value(KwValue::Float(*v)),
            Operand::Expr(Expr { kind: ExprKind::ConstBool(v), .. }) => ArgValue::Value(KwValue::Bool(*v)),
            other => other.to_arg(vars).value,
        };
        KwIn { name: name.to_string(), name_span: Span::NONE, value, span: Span::NONE }
    }
}

impl From<Value> for Operand {
    fn from(v: Value) -> Self {
        Operand::Value(v)
    }
}
impl From<&Value> for Operand {
    fn from(v: &Value) -> Self {
        Operand::Value(*v)
    }
}
impl From<Expr> for Operand {
    fn from(e: Expr) -> Self {
        Operand::Expr(e)
    }
}
/// An integer literal: INT64, like an integer in the text.
impl From<i64> for Operand {
    fn from(v: i64) -> Self {
        Operand::Expr(Expr::int(v, DataType::Int64, Span::NONE))
    }
}
impl From<i32> for Operand {
    fn from(v: i32) -> Self {
        Operand::from(i64::from(v))
    }
}
/// A float literal: FP32, like a float in the text.
impl From<f64> for Operand {
    fn from(v: f64) -> Self {
        Operand::Expr(Expr::float(v, DataType::Fp32, Span::NONE))
    }
}
impl From<bool> for Operand {
    fn from(v: bool) -> Self {
        Operand::Expr(Expr::bool(v, Span::NONE))
    }
}
impl From<DataType> for Operand {
    fn from(d: DataType) -> Self {
        Operand::Attr(KwValue::DType(d))
    }
}
impl From<MemorySpace> for Operand {
    fn from(s: MemorySpace) -> Self {
        Operand::Attr(KwValue::Space(s))
    }
}
impl From<&str> for Operand {
    fn from(s: &str) -> Self {
        Operand::Attr(KwValue::Str(s.to_string()))
    }
}
impl<T: Into<Operand>, const N: usize> From<[T; N]> for Operand {
    fn from(items: [T; N]) -> Self {
        Operand::List(items.into_iter().map(Into::into).collect())
    }
}
impl<T: Into<Operand>> From<Vec<T>> for Operand {
    fn from(items: Vec<T>) -> Self {
        Operand::List(items.into_iter().map(Into::into).collect())
    }
}

/// A dimension of a tensor or tile shape: a constant or a symbolic scalar.
#[derive(Clone, Copy, Debug)]
pub enum Dim {
    Const(i64),
    Sym(Value),
}

impl Dim {
    pub(super) fn to_expr(self) -> Expr {
        match self {
            Dim::Const(c) => Expr::int(c, DataType::Int64, Span::NONE),
            Dim::Sym(v) => Expr::var(v.0, Span::NONE),
        }
    }
}
impl From<i64> for Dim {
    fn from(v: i64) -> Self {
        Dim::Const(v)
    }
}
impl From<i32> for Dim {
    fn from(v: i32) -> Self {
        Dim::Const(i64::from(v))
    }
}
impl From<Value> for Dim {
    fn from(v: Value) -> Self {
        Dim::Sym(v)
    }
}
