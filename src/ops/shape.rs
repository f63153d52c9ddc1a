//! Shape helpers of type inference: NumPy broadcasting (§4 `B`), constant dims, tuple values as
//! dims, and compact rendering of dims and types for messages.

use crate::ir::{dims_equal, BinOp, DataType, Expr, ExprKind, Type, UnOp, VarTable};

/// The constant value of a dim, looking through a negation (`-1` may arrive as `Neg(1)`).
pub(crate) fn const_dim(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::ConstInt(v, _) => Some(*v),
        ExprKind::Unary(UnOp::Neg, inner) => const_dim(inner).and_then(i64::checked_neg),
        _ => None,
    }
}

/// The packed bit mask pto-isa's TCMP/TCMPS write for a tile of `rows` × `cols` (a 1-D tile
/// is one row): `(rows, cols, bytes)` with the elements seen as `rows` × `cols` in memory
/// order — a column `[N, 1]` (N > 1), which Vec lays out column-major, is the row `[1, N]` —
/// and `bytes` the bytes of a mask row, one bit per element, padded to 32 bytes.
pub fn mask_layout(rows: i64, cols: i64) -> (i64, i64, i64) {
    let (rows, cols) = if cols == 1 && rows > 1 { (1, rows) } else { (rows, cols) };
    (rows, cols, ((cols + 7) / 8 + 31) / 32 * 32)
}

/// Right-aligned NumPy broadcast: missing dims and constant-1 dims take the other side; other
/// dims must be equal ([`dims_equal`]). `None` when incompatible.
pub(crate) fn broadcast(a: &[Expr], b: &[Expr]) -> Option<Vec<Expr>> {
    let n = a.len().max(b.len());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let da = (i < a.len()).then(|| &a[a.len() - 1 - i]);
        let db = (i < b.len()).then(|| &b[b.len() - 1 - i]);
        let d = match (da, db) {
            (Some(x), None) => x,
            (None, Some(y)) => y,
            (Some(x), Some(y)) if dims_equal(x, y) => x,
            (Some(x), Some(y)) if const_dim(x) == Some(1) => y,
            (Some(x), Some(y)) if const_dim(y) == Some(1) => x,
            _ => return None,
        };
        out.push(d.clone());
    }
    out.reverse();
    Some(out)
}

/// Product of the dims when all are constant.
pub(crate) fn static_numel(dims: &[Expr]) -> Option<i64> {
    dims.iter().try_fold(1i64, |acc, d| const_dim(d).and_then(|v| acc.checked_mul(v)))
}

/// Normalizes a possibly negative axis against `rank`; `None` when out of range.
pub(crate) fn norm_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    (0..r).contains(&a).then_some(a as usize)
}

/// The elements of a tuple value as dims: a literal list gives its elements, a tuple-typed
/// expression gives `e[0]`, `e[1]`, … (§5). `None` when `e` is not a tuple.
pub(crate) fn tuple_elements(vars: &VarTable, e: &Expr) -> Option<Vec<Expr>> {
    if let ExprKind::MakeTuple(items) = &e.kind {
        return Some(items.clone());
    }
    match vars.type_of(e) {
        Type::Tuple(types) => Some(
            types
                .iter()
                .enumerate()
                .map(|(i, t)| Expr::new(ExprKind::TupleGetItem(Box::new(e.clone()), i), t.clone(), e.span))
                .collect(),
        ),
        _ => None,
    }
}

/// The element types of a tuple value (literal list or tuple-typed expression).
pub(crate) fn tuple_element_types<'a>(vars: &'a VarTable, e: &'a Expr) -> Option<Vec<&'a Type>> {
    if let ExprKind::MakeTuple(items) = &e.kind {
        return Some(items.iter().map(|x| vars.type_of(x)).collect());
    }
    match vars.type_of(e) {
        Type::Tuple(types) => Some(types.iter().collect()),
        _ => None,
    }
}

/// `[64, n, 1]`: dims rendered compactly for messages.
pub(crate) fn fmt_dims(vars: &VarTable, dims: &[Expr]) -> String {
    let parts: Vec<String> = dims.iter().map(|d| fmt_expr(vars, d)).collect();
    format!("[{}]", parts.join(", "))
}

/// A dim or small scalar expression rendered for messages (not the canonical printer).
pub(crate) fn fmt_expr(vars: &VarTable, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Var(v) => vars.get(*v).map_or_else(|| "?".to_string(), |d| d.name.clone()),
        ExprKind::ConstInt(v, _) => v.to_string(),
        ExprKind::ConstFloat(v, _) => v.to_string(),
        ExprKind::ConstBool(b) => if *b { "True" } else { "False" }.to_string(),
        ExprKind::TupleGetItem(t, i) => format!("{}[{i}]", fmt_expr(vars, t)),
        ExprKind::MakeTuple(items) => fmt_dims(vars, items),
        ExprKind::Binary(op, l, r) => match op.symbol() {
            Some(s) => format!("{} {s} {}", fmt_operand(vars, l), fmt_operand(vars, r)),
            None => format!(
                "{}({}, {})",
                if *op == BinOp::Min { "min" } else { "max" },
                fmt_expr(vars, l),
                fmt_expr(vars, r)
            ),
        },
        ExprKind::Unary(UnOp::Neg, x) => format!("-{}", fmt_operand(vars, x)),
        ExprKind::Unary(op, x) => format!("{}({})", op.node_name(), fmt_expr(vars, x)),
        ExprKind::Call(_) => "<call>".to_string(),
    }
}

fn fmt_operand(vars: &VarTable, e: &Expr) -> String {
    match e.kind {
        ExprKind::Binary(..) => format!("({})", fmt_expr(vars, e)),
        _ => fmt_expr(vars, e),
    }
}

/// A type rendered compactly for messages: `Tile[[64, 64], FP32]`, `Scalar[INT64]`.
pub(crate) fn fmt_type(vars: &VarTable, t: &Type) -> String {
    match t {
        Type::Scalar(d) => format!("Scalar[{}]", d.name()),
        Type::Tensor(t) => format!("Tensor[{}, {}]", fmt_dims(vars, &t.shape), t.dtype.name()),
        Type::Tile(t) => format!("Tile[{}, {}]", fmt_dims(vars, &t.shape), t.dtype.name()),
        Type::Tuple(ts) => {
            let parts: Vec<String> = ts.iter().map(|t| fmt_type(vars, t)).collect();
            format!("Tuple[{}]", parts.join(", "))
        }
        other => other.kind_name().to_string(),
    }
}

/// Integer dtype check used by `IntTuple`.
pub(crate) fn is_int_scalar(t: &Type) -> bool {
    matches!(t, Type::Scalar(d) if d.is_int())
}

/// `tuple<i64>` element check.
pub(crate) fn is_index_scalar(t: &Type) -> bool {
    matches!(t, Type::Scalar(DataType::Int64 | DataType::UInt64))
}
