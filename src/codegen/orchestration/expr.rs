//! Expression strings of the orchestration file (§4.9): variables by base name, constants as in
//! §4.5, arithmetic and comparisons parenthesised, `std::min<T>`/`std::max<T>`, casts.

use super::base_name;
use crate::diag::Diagnostic;
use std::collections::{BTreeMap, BTreeSet};

use crate::ir::{BinOp, DataType, Expr, ExprKind, UnOp, VarId, VarTable};

/// C type of a scalar dtype (§4.5).
pub fn c_type(d: DataType) -> &'static str {
    match d {
        DataType::Bool => "bool",
        DataType::Int8 => "int8_t",
        DataType::Int16 => "int16_t",
        DataType::Int32 => "int32_t",
        DataType::Int64 => "int64_t",
        DataType::UInt8 => "uint8_t",
        DataType::UInt16 => "uint16_t",
        DataType::UInt32 => "uint32_t",
        DataType::UInt64 => "uint64_t",
        DataType::Fp16 => "half",
        DataType::Fp32 => "float",
        DataType::Bf16 => "bfloat16_t",
        _ => "unknown",
    }
}

/// The C++ text of `e`. Errors (unsupported node kinds) are appended to `errors`; the returned
/// text is then unusable.
pub fn render(vars: &VarTable, e: &Expr, errors: &mut Vec<Diagnostic>) -> String {
    render_renamed(vars, e, &BTreeMap::new(), errors)
}

/// [`render`] with some variables under other names than their base names (`renamed`: an
/// assignment in a loop body that would hide the loop-carried variable of its name).
pub fn render_renamed(
    vars: &VarTable,
    e: &Expr,
    renamed: &BTreeMap<VarId, String>,
    errors: &mut Vec<Diagnostic>,
) -> String {
    let r = |x: &Expr, errors: &mut Vec<Diagnostic>| render_renamed(vars, x, renamed, errors);
    match &e.kind {
        ExprKind::Var(v) => match renamed.get(v) {
            Some(n) => n.clone(),
            None => base_name(vars.var_name(*v)).to_string(),
        },
        ExprKind::ConstInt(v, _) => v.to_string(),
        ExprKind::ConstFloat(v, _) => format!("{v:.6}"),
        ExprKind::ConstBool(b) => u8::from(*b).to_string(),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (r(a, errors), r(b, errors));
            let sym = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::FloorDiv | BinOp::FloatDiv => "/",
                BinOp::FloorMod => "%",
                BinOp::Eq => "==",
                BinOp::Ne => "!=",
                BinOp::Lt => "<",
                BinOp::Le => "<=",
                BinOp::Gt => ">",
                BinOp::Ge => ">=",
                BinOp::Min | BinOp::Max => {
                    let f = if *op == BinOp::Min { "min" } else { "max" };
                    let t = vars.type_of(e).scalar_dtype().map_or("int64_t", c_type);
                    return format!("std::{f}<{t}>({a}, {b})");
                }
                _ => return not_implemented(e, op.node_name(), errors),
            };
            format!("({a} {sym} {b})")
        }
        ExprKind::Unary(UnOp::Neg, x) => format!("(-{})", r(x, errors)),
        ExprKind::Unary(UnOp::Cast, x) => {
            let t = vars.type_of(e).scalar_dtype().map_or("unknown", c_type);
            format!("static_cast<{t}>({})", r(x, errors))
        }
        ExprKind::Unary(op, _) => not_implemented(e, op.node_name(), errors),
        ExprKind::TupleGetItem(t, k) => format!("{}_{k}", r(t, errors)),
        ExprKind::Call(_) => not_implemented(e, "Call", errors),
        ExprKind::MakeTuple(_) => not_implemented(e, "MakeTuple", errors),
    }
}

/// A tensor dimension (constant or scalar expression). A variable of it whose C++ name (base
/// name) has no value in the function (`known` holds those that have one: parameters, the
/// symbolic dimensions of tensor parameters, which the host passes, and variables the body
/// defines) is reported: a call's result type names the callee's symbolic dimensions, which the
/// caller does not know.
/// The error is reported at `at`, the use that needs the extent, with the dimension where it
/// is written (for a callee's, in the callee's signature).
pub fn dim_string(
    vars: &VarTable,
    d: &Expr,
    at: crate::diag::Span,
    known: &BTreeSet<String>,
    errors: &mut Vec<Diagnostic>,
) -> String {
    if unknown_var(vars, d, known).is_some() {
        errors.push(super::broken(at, "a tensor extent the function has no value for"));
        return String::new();
    }
    render(vars, d, errors)
}

/// A rendered dimension as an element of a `uint64_t` shape array: a computed extent (an
/// `int64_t`) is converted, since a narrowing conversion in an initializer list does not compile.
pub fn shape_item(d: String) -> String {
    if d.bytes().all(|b| b.is_ascii_digit()) {
        d
    } else {
        format!("static_cast<uint64_t>({d})")
    }
}

/// The first variable of `d` that has no value in the function (see [`dim_string`]).
pub fn unknown_var(vars: &VarTable, d: &Expr, known: &BTreeSet<String>) -> Option<VarId> {
    let mut unknown = None;
    crate::ir::visit::for_each_var(d, &mut |v| {
        if unknown.is_none() && !known.contains(base_name(vars.var_name(v))) {
            unknown = Some(v);
        }
    });
    unknown
}

fn not_implemented(e: &Expr, kind: &str, errors: &mut Vec<Diagnostic>) -> String {
    errors.push(super::broken(e.span, &format!("an expression of kind {kind}")));
    String::new()
}
