//! The semantics of every operator of the table (`crate::ops::table`), one arm per operator
//! family. Arithmetic happens in `f64` / `i128` and each result element is rounded or wrapped
//! to the result dtype, which is always the one the type rules gave the call (`Expr::ty`).

use super::err;
use super::numeric::check_dtype;
use super::numeric::{float_to_int, is_float, round_float, wrap_int};
use super::value::{element_count, next_index, strides_of, Array, Num, Scalar, Tensor, Value};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{Call, DataType, Expr, KwValue, OpId, Type};
use crate::ops::id;
use crate::ops::modes::{CmpMode, RoundMode};

/// Operators of the table that the interpreter refuses, with the reason (shown in the error).
pub const NOT_EXECUTED: &[(OpId, &str)] = &[
    (
        id::SELS,
        "its PyPTO signature (lhs, rhs, select_mode) has no counterpart in pto-isa (TSELS takes a mask tile and a scalar)",
    ),
    (id::TEST_OP, "it exists only for the reference's unit tests and has no semantics"),
];

/// The message of the catch-all arm; a unit test checks that no operator of the table reaches it.
const NO_IMPLEMENTATION: &str = "has no implementation in the interpreter";

/// Executes one operator call on its evaluated arguments.
pub(super) fn apply(op: OpId, call: &Call, e: &Expr, args: Vec<Value>) -> Result<Value, Diagnostic> {
    let def = crate::ops::def(op);
    let cx = Cx { call, e, args, op, name: def.name };
    if let Some((_, why)) = NOT_EXECUTED.iter().find(|(o, _)| *o == op) {
        return Err(err(
            codes::RUN_UNSUPPORTED,
            e.span,
            format!("the interpreter cannot execute `{}`: {why}", def.name),
        ));
    }
    if let Some(d) = e.ty.dtype() {
        check_dtype(d, e.span)?;
    }
    cx.run()
}

/// One call being executed.
struct Cx<'a> {
    call: &'a Call,
    e: &'a Expr,
    args: Vec<Value>,
    op: OpId,
    name: &'static str,
}

/// Binary element operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

fn bin_kind(short: &str) -> Option<Bin> {
    Some(match short {
        "add" | "adds" | "add_scalar" => Bin::Add,
        "sub" | "subs" | "sub_scalar" => Bin::Sub,
        "mul" | "muls" | "mul_scalar" => Bin::Mul,
        "div" | "divs" | "div_scalar" => Bin::Div,
        "maximum" | "maxs" => Bin::Max,
        "minimum" | "mins" => Bin::Min,
        "rem" | "rems" | "fmod" | "fmods" => Bin::Rem,
        "and" | "ands" => Bin::And,
        "or" | "ors" => Bin::Or,
        "xor" | "xors" => Bin::Xor,
        "shl" | "shls" => Bin::Shl,
        "shr" | "shrs" => Bin::Shr,
        _ => return None,
    })
}

/// `a op b` computed in the class of `out` (float or integer); the caller stores the result
/// into `out` (rounding / wrapping).
/// C++'s `std::max(a, b)`: `(a < b) ? b : a` (a NaN `a` is kept, a NaN `b` dropped).
pub(super) fn cpp_max(a: f64, b: f64) -> f64 {
    if a < b {
        b
    } else {
        a
    }
}

/// C++'s `std::min(a, b)`: `(b < a) ? b : a`.
pub(super) fn cpp_min(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

fn arith(op: Bin, out: DataType, a: Num, b: Num) -> Result<Num, String> {
    if is_float(out) {
        let (x, y) = (a.as_f64(), b.as_f64());
        return Ok(Num::F(match op {
            Bin::Add => x + y,
            Bin::Sub => x - y,
            Bin::Mul => x * y,
            Bin::Div => x / y,
            // std::max / std::min as pto-isa's TMAX / TMIN compute them: with a NaN the result
            // depends on the operand order (Rust's f64::max would drop the NaN).
            Bin::Max => cpp_max(x, y),
            Bin::Min => cpp_min(x, y),
            // C's fmod (the sign of the dividend), as TFMOD / TREM on pto-isa's CPU simulator.
            Bin::Rem => x % y,
            _ => return Err(format!("{op:?} needs integer operands, but the result is {}", out.name())),
        }));
    }
    let (x, y) = (a.as_i128(), b.as_i128());
    let nonzero = || {
        if y == 0 {
            Err("integer division by zero".to_string())
        } else {
            Ok(y)
        }
    };
    Ok(Num::I(match op {
        Bin::Add => x + y,
        Bin::Sub => x - y,
        Bin::Mul => x.wrapping_mul(y),
        // C++ integer division and remainder truncate toward zero.
        Bin::Div => x / nonzero()?,
        Bin::Rem => x % nonzero()?,
        Bin::Max => x.max(y),
        Bin::Min => x.min(y),
        Bin::And => x & y,
        Bin::Or => x | y,
        Bin::Xor => x ^ y,
        Bin::Shl | Bin::Shr => {
            if !(0..i128::from(out.bits())).contains(&y) {
                return Err(format!("shift by {y} is outside 0..{} for {}", out.bits(), out.name()));
            }
            // Operate on the wrapped value so that unsigned shifts are logical.
            let x = wrap_int(out, x);
            if op == Bin::Shl {
                x << y
            } else {
                x >> y
            }
        }
    }))
}

/// A comparison as 1 / 0.
fn compare(cmp: CmpMode, a: Num, b: Num) -> Num {
    let ord = match (a, b) {
        (Num::I(x), Num::I(y)) => Some(x.cmp(&y)),
        _ => a.as_f64().partial_cmp(&b.as_f64()),
    };
    Num::I(i128::from(cmp.holds(ord)))
}

/// A unary element operation computed for result dtype `out`.
fn unary(short: &str, out: DataType, a: Num) -> Result<Num, String> {
    if !is_float(out) {
        let x = a.as_i128();
        match short {
            "neg" => return Ok(Num::I(-x)),
            "abs" => return Ok(Num::I(x.abs())),
            "relu" => return Ok(Num::I(x.max(0))),
            "not" => return Ok(Num::I(!x)),
            _ => {}
        }
    }
    let x = a.as_f64();
    Ok(Num::F(match short {
        "neg" => -x,
        "exp" => x.exp(),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "recip" => 1.0 / x,
        "sqrt" => x.sqrt(),
        "rsqrt" => 1.0 / x.sqrt(),
        "log" => x.ln(),
        "abs" => x.abs(),
        "relu" => cpp_max(x, 0.0),
        _ => return Err(format!("`{short}` needs an integer tile")),
    }))
}

/// `cast` of one element to `to` with a rounding mode, as pto-isa's CPU simulator (TCvt):
/// float → integer rounds to an integral value with the mode, then converts (truncating,
/// saturating here where C++ is undefined); float → float and integer → float round to
/// nearest even whatever the mode; integer → integer wraps.
fn cast(a: Num, from: DataType, to: DataType, mode: RoundMode) -> Num {
    match (is_float(from), is_float(to)) {
        (true, false) => Num::I(wrap_int(to, float_to_int(to, mode.to_integral(a.as_f64())))),
        (_, true) => Num::F(round_float(to, a.as_f64())),
        (false, false) => Num::I(wrap_int(to, a.as_i128())),
    }
}

/// NumPy broadcast of two shapes.
fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for k in 0..n {
        let da = if k + a.len() >= n { a[k + a.len() - n] } else { 1 };
        let db = if k + b.len() >= n { b[k + b.len() - n] } else { 1 };
        out[k] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// Flat index into an operand of shape `shape` broadcast to the output multi-index `idx`.
fn bcast_index(idx: &[usize], shape: &[usize]) -> usize {
    let off = idx.len() - shape.len();
    let mut flat = 0;
    for (k, &n) in shape.iter().enumerate() {
        let i = if n == 1 { 0 } else { idx[off + k] };
        flat = flat * n + i;
    }
    flat
}

/// Applies `f` element-wise over broadcast operands; each result is stored into `out`.
fn zip(ops: &[&Array], out: DataType, f: impl Fn(&[Num]) -> Result<Num, String>) -> Result<Array, String> {
    let mut shape: Vec<usize> = Vec::new();
    for a in ops {
        shape = broadcast(&shape, a.shape()).ok_or_else(|| {
            let shapes: Vec<String> = ops.iter().map(|a| format!("{:?}", a.shape())).collect();
            format!("operand shapes {} do not broadcast", shapes.join(", "))
        })?;
    }
    let n = element_count(&shape)?;
    let same: Vec<bool> = ops.iter().map(|a| a.shape() == shape.as_slice()).collect();
    let mut idx = vec![0usize; shape.len()];
    let mut res = Array::zeros(out, shape.clone());
    let mut vals = Vec::with_capacity(ops.len());
    for flat in 0..n {
        vals.clear();
        for (a, &s) in ops.iter().zip(&same) {
            vals.push(a.get(if s { flat } else { bcast_index(&idx, a.shape()) }));
        }
        res.set(flat, f(&vals)?);
        next_index(&mut idx, &shape);
    }
    Ok(res)
}

/// (rows, cols) of a tile's elements in memory order as pto-isa's bit masks see them
/// ([`crate::ops::mask_layout`]).
fn mask_dims(shape: &[usize]) -> (usize, usize) {
    let (rows, cols) = as_2d(shape);
    let (r, c, _) = crate::ops::mask_layout(rows as i64, cols as i64);
    (r as usize, c as usize)
}

/// (rows, cols) of a shape seen as a matrix: the last dim is the columns, the others the rows.
fn as_2d(shape: &[usize]) -> (usize, usize) {
    match shape.split_last() {
        Some((c, rest)) => (rest.iter().product(), *c),
        None => (1, 1),
    }
}

/// Matrix product `a @ b` (+ `acc`) (+ `bias` row), accumulated in f64 / i128 and stored once.
fn matmul2d(a: &Array, b: &Array, acc: Option<&Array>, bias: Option<&Array>, out: DataType) -> Result<Array, String> {
    let (&[m, k], &[k2, n]) = (a.shape(), b.shape()) else {
        return Err(format!("matmul needs two matrices, got shapes {:?} and {:?}", a.shape(), b.shape()));
    };
    if k != k2 {
        return Err(format!("matmul of [{m}, {k}] by [{k2}, {n}]: the inner dimensions differ"));
    }
    if let Some(c) = acc {
        if c.shape() != [m, n] {
            return Err(format!("the accumulator is {:?}, the product is [{m}, {n}]", c.shape()));
        }
    }
    if let Some(bv) = bias {
        if bv.len() < n {
            return Err(format!("the bias {:?} has fewer than {n} elements", bv.shape()));
        }
    }
    let mut res = Array::zeros(out, vec![m, n]);
    let float = is_float(out) || is_float(a.dtype()) || is_float(b.dtype());
    for i in 0..m {
        for j in 0..n {
            let mut fs = 0.0f64;
            let mut is: i128 = 0;
            let mut add = |v: Num| match v {
                Num::F(x) => fs += x,
                Num::I(x) => is = is.wrapping_add(x),
            };
            if let Some(c) = acc {
                add(c.get(i * n + j));
            }
            if let Some(bv) = bias {
                add(bv.get(j));
            }
            for p in 0..k {
                let (x, y) = (a.get(i * k + p), b.get(p * n + j));
                if float {
                    fs += x.as_f64() * y.as_f64();
                } else {
                    is = is.wrapping_add(x.as_i128().wrapping_mul(y.as_i128()));
                }
            }
            res.set(i * n + j, if float { Num::F(fs + is as f64) } else { Num::I(is + fs as i128) });
        }
    }
    Ok(res)
}

/// Swaps two axes of an array (a copy).
fn transpose_array(a: &Array, x: usize, y: usize) -> Array {
    let mut shape = a.shape().to_vec();
    shape.swap(x, y);
    let src_strides = strides_of(a.shape());
    let mut idx = vec![0usize; shape.len()];
    let n = a.len();
    let mut res = Array::zeros(a.dtype(), shape.clone());
    for flat in 0..n {
        let mut src = idx.clone();
        src.swap(x, y);
        let s: usize = src.iter().zip(&src_strides).map(|(i, st)| i * st).sum();
        res.set(flat, a.get(s));
        next_index(&mut idx, &shape);
    }
    res
}

/// Batched / vector matrix product with NumPy's `matmul` rules.
fn matmul_nd(a: &Array, b: &Array, out: DataType) -> Result<Array, String> {
    let (a, drop_m) =
        if a.shape().len() == 1 { (a.clone().reshaped(vec![1, a.len()]), true) } else { (a.clone(), false) };
    let (b, drop_n) =
        if b.shape().len() == 1 { (b.clone().reshaped(vec![b.len(), 1]), true) } else { (b.clone(), false) };
    if a.shape().len() < 2 || b.shape().len() < 2 {
        return Err("matmul of a rank-0 operand".into());
    }
    let (ab, am) = a.shape().split_at(a.shape().len() - 2);
    let (bb, bm) = b.shape().split_at(b.shape().len() - 2);
    let batch = broadcast(ab, bb).ok_or_else(|| format!("batch shapes {ab:?} and {bb:?} do not broadcast"))?;
    let (m, k, n) = (am[0], am[1], bm[1]);
    let mut shape = batch.clone();
    shape.extend([m, n]);
    element_count(&shape)?;
    let nb: usize = batch.iter().product();
    let mut res = Array::zeros(out, shape.clone());
    let mut idx = vec![0usize; batch.len()];
    for t in 0..nb {
        let ia = bcast_index(&idx, ab);
        let ib = bcast_index(&idx, bb);
        let sub = |x: &Array, start: usize, r: usize, c: usize| {
            Array::from_nums(x.dtype(), vec![r, c], (0..r * c).map(|i| x.get(start + i)))
        };
        let prod = matmul2d(&sub(&a, ia * m * k, m, k), &sub(&b, ib * bm[0] * n, bm[0], n), None, None, out)?;
        for i in 0..m * n {
            res.set(t * m * n + i, prod.get(i));
        }
        next_index(&mut idx, &batch);
    }
    if drop_m {
        shape.remove(shape.len() - 2);
    }
    if drop_n {
        shape.pop();
    }
    Ok(res.reshaped(shape))
}

#[derive(Clone, Copy)]
enum Red {
    Sum,
    Max,
    Min,
    Prod,
}

/// Reduces `axis`, accumulating sequentially in f64 / i128 and rounding once at the end (the
/// cpusim reference does the same; pto-isa's TROWSUM accumulates in the tile's sum type).
fn reduce(a: &Array, axis: usize, red: Red, out: DataType, keep: bool) -> Result<Array, String> {
    let shape = a.shape();
    let n = shape[axis];
    if n == 0 && !matches!(red, Red::Sum) {
        return Err("max/min over an empty axis".into());
    }
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut rshape = shape.to_vec();
    if keep {
        rshape[axis] = 1;
    } else {
        rshape.remove(axis);
    }
    let mut res = Array::zeros(out, rshape);
    for o in 0..outer {
        for i in 0..inner {
            let vals = (0..n).map(|k| a.get(o * n * inner + k * inner + i));
            let r = if is_float(a.dtype()) || is_float(out) {
                let mut vs = vals.map(Num::as_f64);
                // Max/min as pto-isa's TROWMAX/TCOLMAX/… compute them: start from the first
                // element and keep the running value unless the next one compares greater
                // (less). A NaN in the first element stays; a NaN later is passed over.
                Num::F(match red {
                    // Float sums accumulate in f32, element after element, as pto-isa's
                    // TROWSUM/TCOLSUM do for FP32, FP16 and BF16 results: an f64 sum rounded once
                    // differs from it by more than the FP32 tolerance where a row cancels.
                    Red::Sum if sums_in_f32(out) => f64::from(vs.fold(0f32, |s, x| s + x as f32)),
                    Red::Sum => vs.sum(),
                    // pto-isa's TROWPROD/TCOLPROD multiply in the result dtype, from 1.
                    Red::Prod if sums_in_f32(out) => f64::from(vs.fold(1f32, |p, x| p * x as f32)),
                    Red::Prod => vs.product(),
                    Red::Max => vs.next().map_or(0.0, |f| vs.fold(f, cpp_max)),
                    Red::Min => vs.next().map_or(0.0, |f| vs.fold(f, cpp_min)),
                })
            } else {
                let mut vs = vals.map(Num::as_i128);
                Num::I(match red {
                    Red::Sum => vs.fold(0i128, i128::wrapping_add),
                    Red::Prod => vs.fold(1i128, i128::wrapping_mul),
                    Red::Max => vs.next().map_or(0, |f| vs.fold(f, i128::max)),
                    Red::Min => vs.next().map_or(0, |f| vs.fold(f, i128::min)),
                })
            };
            res.set(o * inner + i, r);
        }
    }
    Ok(res)
}

/// The position along `axis` of the greatest (`max`) or least element, as pto-isa's
/// TROWARGMAX/TCOLARGMAX/… find it: from the first element, a later one is taken only when it
/// compares strictly greater (less), so the first of equal elements wins and a NaN is passed
/// over unless it is first.
fn arg_reduce(a: &Array, axis: usize, max: bool, out: DataType) -> Result<Array, String> {
    let shape = a.shape();
    let n = shape[axis];
    if n == 0 {
        return Err("an arg reduction over an empty axis".into());
    }
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut rshape = shape.to_vec();
    rshape[axis] = 1;
    let mut res = Array::zeros(out, rshape);
    let better = |x: Num, best: Num| {
        let ord = match (x, best) {
            (Num::I(x), Num::I(y)) => Some(x.cmp(&y)),
            _ => x.as_f64().partial_cmp(&best.as_f64()),
        };
        ord == Some(if max { std::cmp::Ordering::Greater } else { std::cmp::Ordering::Less })
    };
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| a.get(o * n * inner + k * inner + i);
            let (mut best, mut idx) = (at(0), 0usize);
            for k in 1..n {
                if better(at(k), best) {
                    (best, idx) = (at(k), k);
                }
            }
            res.set(o * inner + i, Num::I(idx as i128));
        }
    }
    Ok(res)
}

/// Whether sums with this result dtype accumulate in f32 (pto-isa's sum type: `float` for
/// `float`, `half` and `bfloat16_t` tiles).
fn sums_in_f32(d: DataType) -> bool {
    matches!(d, DataType::Fp32 | DataType::Fp16 | DataType::Bf16)
}

fn red_kind(short: &str) -> Red {
    if short.ends_with("prod") {
        Red::Prod
    } else if short.ends_with("max") {
        Red::Max
    } else if short.ends_with("min") {
        Red::Min
    } else {
        Red::Sum
    }
}

/// Normalizes an axis in [-rank, rank).
fn norm_axis(axis: i128, rank: usize) -> Result<usize, String> {
    let r = rank as i128;
    let a = if axis < 0 { axis + r } else { axis };
    if (0..r).contains(&a) {
        Ok(a as usize)
    } else {
        Err(format!("axis {axis} is out of range for rank {rank}"))
    }
}

impl Cx<'_> {
    fn short(&self) -> &'static str {
        self.name.split_once('.').map_or(self.name, |(_, s)| s)
    }
    fn span(&self, i: usize) -> Span {
        self.call.args.get(i).map(|a| a.span).filter(|s| !s.is_none()).unwrap_or(self.e.span)
    }
    fn fail(&self, code: &'static str, i: usize, msg: impl Into<String>) -> Diagnostic {
        err(code, self.span(i), format!("{}: {}", self.name, msg.into()))
    }
    /// A shape error at the call.
    fn shape_err(&self, msg: impl Into<String>) -> Diagnostic {
        err(codes::RUN_SHAPE, self.e.span, format!("{}: {}", self.name, msg.into()))
    }
    fn arg(&self, i: usize) -> Result<&Value, Diagnostic> {
        self.args.get(i).ok_or_else(|| self.fail(codes::RUN_SHAPE, i, format!("argument {i} is missing")))
    }
    /// A tile or tensor argument's elements, or a scalar as a rank-0 array.
    fn arr(&self, i: usize) -> Result<Array, Diagnostic> {
        match self.arg(i)? {
            Value::Tile(a) => Ok((**a).clone()),
            Value::Tensor(t) => Ok(t.to_array()),
            Value::Scalar(s) => Ok(Array::from_nums(s.dtype, Vec::new(), [s.num])),
            v => Err(self.fail(codes::RUN_SHAPE, i, format!("expected a tile or tensor, found {}", v.kind_name()))),
        }
    }
    fn tensor(&self, i: usize) -> Result<Tensor, Diagnostic> {
        match self.arg(i)? {
            Value::Tensor(t) => Ok(t.clone()),
            v => Err(self.fail(codes::RUN_SHAPE, i, format!("expected a tensor, found {}", v.kind_name()))),
        }
    }
    fn scalar(&self, i: usize) -> Result<Scalar, Diagnostic> {
        match self.arg(i)? {
            Value::Scalar(s) => Ok(*s),
            v => Err(self.fail(codes::RUN_SHAPE, i, format!("expected a scalar, found {}", v.kind_name()))),
        }
    }
    /// A list of integers (a literal list or a tuple value).
    fn ints(&self, i: usize) -> Result<Vec<i128>, Diagnostic> {
        match self.arg(i)? {
            Value::Tuple(vs) => vs
                .iter()
                .map(|v| match v {
                    Value::Scalar(s) => Ok(s.num.as_i128()),
                    v => Err(self.fail(codes::RUN_SHAPE, i, format!("expected integers, found {}", v.kind_name()))),
                })
                .collect(),
            v => Err(self.fail(codes::RUN_SHAPE, i, format!("expected a list of integers, found {}", v.kind_name()))),
        }
    }
    /// A list of non-negative sizes (of at most `MAX_ELEMENTS` elements in all).
    fn dims(&self, i: usize) -> Result<Vec<usize>, Diagnostic> {
        let dims = self
            .ints(i)?
            .into_iter()
            .map(|d| usize::try_from(d).map_err(|_| self.fail(codes::RUN_SHAPE, i, format!("bad size {d}"))))
            .collect::<Result<Vec<usize>, Diagnostic>>()?;
        element_count(&dims).map_err(|m| self.fail(codes::RUN_ERROR, i, m))?;
        Ok(dims)
    }
    /// The call's kwarg, or the operator table's default for it.
    fn kw(&self, name: &str) -> Option<KwValue> {
        crate::ops::kwargs::kwarg(self.call, name)
    }
    /// An int kwarg (a bool counts as 0 / 1), else the table default, else `fallback` for a
    /// kwarg the table gives no default (the type checker made sure a required one is there).
    fn kw_int(&self, name: &str, fallback: i64) -> i64 {
        match self.kw(name) {
            Some(KwValue::Int(v)) => v,
            Some(KwValue::Bool(b)) => i64::from(b),
            _ => fallback,
        }
    }
    fn kw_bool(&self, name: &str, fallback: bool) -> bool {
        crate::ops::kwargs::bool(self.call, name).unwrap_or(fallback)
    }
    /// The result dtype the type rules gave the call (else `fallback`).
    fn out(&self, fallback: DataType) -> DataType {
        self.e.ty.dtype().unwrap_or(fallback)
    }
    /// Wraps an array as the call's result kind (tensor or tile).
    fn wrap(&self, a: Array) -> Value {
        match &self.e.ty {
            Type::Tensor(_) => Value::tensor(a),
            Type::Tile(_) => Value::tile(a),
            _ => match self.args.first() {
                Some(Value::Tensor(_)) => Value::tensor(a),
                _ => Value::tile(a),
            },
        }
    }
    fn elementwise(
        &self,
        ops: &[&Array],
        out: DataType,
        f: impl Fn(&[Num]) -> Result<Num, String>,
    ) -> Result<Value, Diagnostic> {
        for a in ops {
            check_dtype(a.dtype(), self.e.span)?;
        }
        zip(ops, out, f).map(|a| self.wrap(a)).map_err(|m| {
            let code = if m.contains("broadcast") { codes::RUN_SHAPE } else { codes::RUN_ERROR };
            err(code, self.e.span, format!("{}: {m}", self.name))
        })
    }
    fn runtime(&self, r: Result<Array, String>) -> Result<Array, Diagnostic> {
        r.map_err(|m| self.shape_err(m))
    }
    /// Checks that `off + shape` lies inside `extent` on every axis.
    fn window_check(
        &self,
        off: &[i128],
        shape: &[usize],
        extent: &[usize],
        what: &str,
        off_arg: usize,
    ) -> Result<(), Diagnostic> {
        if off.len() != shape.len() || shape.len() != extent.len() {
            return Err(self.shape_err(format!(
                "{} offsets and {} sizes for a {what} of rank {}",
                off.len(),
                shape.len(),
                extent.len()
            )));
        }
        for k in 0..shape.len() {
            if off[k] < 0 || off[k] + shape[k] as i128 > extent[k] as i128 {
                return Err(self.fail(
                    codes::RUN_OUT_OF_BOUNDS,
                    off_arg,
                    format!(
                        "the window [{}, {}) of axis {k} is outside the {what}'s extent {} (shape {extent:?})",
                        off[k],
                        off[k] + shape[k] as i128,
                        extent[k]
                    ),
                ));
            }
        }
        Ok(())
    }

    fn run(&self) -> Result<Value, Diagnostic> {
        let short = self.short();
        match self.op {
            id::SYNC_SRC | id::SYNC_DST | id::BAR_V | id::BAR_M | id::BAR_ALL | id::ALLOC => Ok(Value::Unit),
            // One core runs everything: block 0.
            id::GET_BLOCK_IDX => Ok(Value::Scalar(Scalar::new(DataType::UInt64, Num::I(0)))),
            // Fresh buffers hold zeros (device memory would be uninitialised).
            id::TENSOR_CREATE => Ok(Value::tensor(Array::zeros(self.out(DataType::Fp32), self.dims(0)?))),
            id::CREATE_TILE => Ok(Value::tile(Array::zeros(self.out(DataType::Fp32), self.dims(0)?))),
            id::FULL => {
                let shape = self.dims(0)?;
                let v = self.scalar(1)?;
                let n = shape.iter().product();
                Ok(Value::tile(Array::from_nums(self.out(v.dtype), shape, std::iter::repeat_n(v.num, n))))
            }
            id::EXPANDS => {
                let t = self.arr(0)?;
                let v = self.scalar(1)?;
                let n = t.len();
                Ok(Value::tile(Array::from_nums(
                    self.out(t.dtype()),
                    t.shape().to_vec(),
                    std::iter::repeat_n(v.num, n),
                )))
            }
            id::TENSOR_READ => {
                let t = self.tensor(0)?;
                let idx = self.ints(1)?;
                self.window_check(&idx, &vec![1; idx.len()], t.shape(), "tensor", 1)?;
                let idx: Vec<usize> = idx.iter().map(|&i| i as usize).collect();
                Ok(Value::Scalar(Scalar::new(t.dtype(), t.get(&idx))))
            }
            id::TENSOR_DIM => {
                let shape = self.arr(0)?.shape().to_vec();
                let axis = norm_axis(self.scalar(1)?.num.as_i128(), shape.len()).map_err(|m| self.shape_err(m))?;
                Ok(Value::Scalar(Scalar::new(DataType::Int64, Num::I(shape[axis] as i128))))
            }
            id::LOAD => {
                let t = self.tensor(0)?;
                let off = self.ints(1)?;
                let shape = self.dims(2)?;
                self.window_check(&off, &shape, t.shape(), "tensor", 1)?;
                let n: usize = shape.iter().product();
                let mut idx = vec![0usize; shape.len()];
                let mut res = Array::zeros(self.out(t.dtype()), shape.clone());
                let mut at = vec![0usize; shape.len()];
                for flat in 0..n {
                    for k in 0..idx.len() {
                        at[k] = off[k] as usize + idx[k];
                    }
                    res.set(flat, t.get(&at));
                    next_index(&mut idx, &shape);
                }
                Ok(Value::tile(res))
            }
            id::STORE | id::L0C_STORE => {
                let tile = self.arr(0)?;
                let off = self.ints(1)?;
                let shape = self.dims(2)?;
                let out = self.tensor(3)?;
                self.window_check(&off, &shape, out.shape(), "tensor", 1)?;
                // The tile is seen as a matrix whose top-left corner covers the window.
                let (tr, tc) = as_2d(tile.shape());
                let (wr, wc) = as_2d(&shape);
                if wr > tr || wc > tc {
                    return Err(
                        self.shape_err(format!("the window {shape:?} is larger than the tile {:?}", tile.shape()))
                    );
                }
                let mut idx = vec![0usize; shape.len()];
                let mut at = vec![0usize; shape.len()];
                let n: usize = shape.iter().product();
                for flat in 0..n {
                    let (i, j) = flat.checked_div(wc).map_or((0, 0), |i| (i, flat % wc));
                    for k in 0..idx.len() {
                        at[k] = off[k] as usize + idx[k];
                    }
                    out.set(&at, tile.get(i * tc + j));
                    next_index(&mut idx, &shape);
                }
                Ok(Value::Tensor(out))
            }
            id::MOVE => {
                let t = self.arr(0)?;
                let t = if self.kw_bool("transpose", false) && t.shape().len() == 2 {
                    transpose_array(&t, 0, 1)
                } else {
                    t
                };
                let out = self.out(t.dtype());
                Ok(Value::tile(Array::from_nums(out, t.shape().to_vec(), (0..t.len()).map(|i| t.get(i)))))
            }
            // Padding and pipe-to-pipe copies do not change values.
            id::FILLPAD_EXPAND => {
                let src = self.arr(0)?;
                super::padding::expand(&src, src.shape(), self.e, self.dims(1)?)
            }
            id::VEC_MOVE | id::FILLPAD | id::FILLPAD_INPLACE | id::SET_VALIDSHAPE => Ok(Value::tile(self.arr(0)?)),
            id::VIEW => {
                let t = self.arr(0)?;
                let shape = self.dims(1)?;
                let off = self.ints(2)?;
                self.window_check(&off, &shape, t.shape(), "tile", 2)?;
                let st = strides_of(t.shape());
                let n: usize = shape.iter().product();
                let mut idx = vec![0usize; shape.len()];
                let mut res = Array::zeros(t.dtype(), shape.clone());
                for flat in 0..n {
                    let s: usize = idx.iter().zip(&off).zip(&st).map(|((i, o), s)| (i + *o as usize) * s).sum();
                    res.set(flat, t.get(s));
                    next_index(&mut idx, &shape);
                }
                Ok(Value::tile(res))
            }
            id::RESHAPE => {
                let t = self.arr(0)?;
                let shape = self.dims(1)?;
                if shape.iter().product::<usize>() != t.len() {
                    return Err(self.shape_err(format!("cannot reshape {:?} to {shape:?}", t.shape())));
                }
                Ok(Value::tile(t.reshaped(shape)))
            }
            id::TRANSPOSE | id::TENSOR_TRANSPOSE => {
                let rank = self.arr(0)?.shape().len();
                let a1 = norm_axis(self.scalar(1)?.num.as_i128(), rank).map_err(|m| self.shape_err(m))?;
                let a2 = norm_axis(self.scalar(2)?.num.as_i128(), rank).map_err(|m| self.shape_err(m))?;
                match self.arg(0)? {
                    // A transposed tensor is another window onto the same memory.
                    Value::Tensor(t) => {
                        let mut shape = t.shape().to_vec();
                        let mut strides = t.strides().to_vec();
                        shape.swap(a1, a2);
                        strides.swap(a1, a2);
                        Ok(Value::Tensor(t.window(shape, strides, t.offset())))
                    }
                    _ => Ok(Value::tile(transpose_array(&self.arr(0)?, a1, a2))),
                }
            }
            id::TENSOR_VIEW => {
                let t = self.tensor(0)?;
                let shape = self.dims(1)?;
                let off = self.ints(2)?;
                if off.len() == t.shape().len() && shape.len() == off.len() {
                    self.window_check(&off, &shape, t.shape(), "tensor", 2)?;
                    let start = t.buf_index(&off.iter().map(|&o| o as usize).collect::<Vec<_>>());
                    return Ok(Value::Tensor(t.window(shape, t.strides().to_vec(), start)));
                }
                // A view of another rank reads the contiguous memory from the offset on.
                if !t.is_contiguous() || off.len() != t.shape().len() {
                    return Err(err(
                        codes::RUN_UNSUPPORTED,
                        self.e.span,
                        "tensor.view: a view of another rank is only executed on a contiguous tensor with one offset per axis",
                    ));
                }
                self.window_check(&off, &vec![1; off.len()], t.shape(), "tensor", 2)?;
                let start_rel: usize = off.iter().zip(t.strides()).map(|(o, s)| *o as usize * s).sum();
                let total: usize = t.shape().iter().product();
                if start_rel + shape.iter().product::<usize>() > total {
                    return Err(self.fail(
                        codes::RUN_OUT_OF_BOUNDS,
                        2,
                        format!("a view {shape:?} from this offset runs past the tensor's end"),
                    ));
                }
                Ok(Value::Tensor(t.window(shape.clone(), strides_of(&shape), t.offset() + start_rel)))
            }
            id::TENSOR_RESHAPE => {
                let t = self.tensor(0)?;
                let shape = self.dims(1)?;
                if shape.iter().product::<usize>() != t.shape().iter().product::<usize>() {
                    return Err(self.shape_err(format!("cannot reshape {:?} to {shape:?}", t.shape())));
                }
                if t.is_contiguous() {
                    Ok(Value::Tensor(t.window(shape.clone(), strides_of(&shape), t.offset())))
                } else {
                    Ok(Value::tensor(t.to_array().reshaped(shape)))
                }
            }
            id::TENSOR_ASSEMBLE => {
                let target = self.tensor(0)?;
                let src = self.arr(1)?;
                let off = self.ints(2)?;
                self.window_check(&off, src.shape(), target.shape(), "tensor", 2)?;
                let mut idx = vec![0usize; src.shape().len()];
                let mut at = idx.clone();
                for flat in 0..src.len() {
                    for k in 0..idx.len() {
                        at[k] = off[k] as usize + idx[k];
                    }
                    target.set(&at, src.get(flat));
                    next_index(&mut idx, src.shape());
                }
                Ok(Value::Tensor(target))
            }
            id::CAST | id::TENSOR_CAST => {
                let a = self.arr(0)?;
                let to = self.out(a.dtype());
                let mode = crate::ops::kwargs::round_mode(self.call).ok_or_else(|| {
                    err(codes::RUN_UNSUPPORTED, self.e.span, format!("{}: unknown rounding mode", self.name))
                })?;
                let from = a.dtype();
                self.elementwise(&[&a], to, |v| Ok(cast(v[0], from, to, mode)))
            }
            id::CMP | id::CMPS => {
                let (a, b) = (self.arr(0)?, self.arr(1)?);
                let c = crate::ops::kwargs::cmp_mode(self.call).ok_or_else(|| {
                    err(codes::RUN_UNSUPPORTED, self.e.span, format!("{}: unknown comparison", self.name))
                })?;
                self.elementwise(&[&a, &b], self.out(a.dtype()), |v| Ok(compare(c, v[0], v[1])))
            }
            id::CMP_BITS | id::CMPS_BITS => {
                // pto-isa's TCMP/TCMPS: bit `b` of byte `w` of a row holds the comparison of
                // element `8w + b`; rows padded to 32 bytes (the type rule's shape).
                let (a, b) = (self.arr(0)?, self.arr(1)?);
                let c = crate::ops::kwargs::cmp_mode(self.call).ok_or_else(|| {
                    err(codes::RUN_UNSUPPORTED, self.e.span, format!("{}: unknown comparison", self.name))
                })?;
                let bits = zip(&[&a, &b], DataType::UInt8, |v| Ok(compare(c, v[0], v[1])))
                    .map_err(|m| err(codes::RUN_SHAPE, self.e.span, format!("{}: {m}", self.name)))?;
                let (rows, cols) = mask_dims(bits.shape());
                let words = crate::ops::mask_layout(rows as i64, cols as i64).2 as usize;
                let mut mask = Array::zeros(DataType::UInt8, vec![rows, words]);
                for r in 0..rows {
                    for w in 0..cols.div_ceil(8) {
                        let byte = (0..8)
                            .filter(|b| 8 * w + b < cols && bits.get(r * cols + 8 * w + b).is_true())
                            .fold(0i128, |acc, b| acc | (1 << b));
                        mask.set(r * words + w, Num::I(byte));
                    }
                }
                Ok(Value::tile(mask))
            }
            id::SELECT_BITS => {
                // pto-isa's TSELS: the source element where its mask bit is set, else the scalar.
                let (m, src, v) = (self.arr(0)?, self.arr(1)?, self.scalar(3)?);
                let (rows, cols) = mask_dims(src.shape());
                let (_, words) = as_2d(m.shape());
                if m.len() < rows * cols.div_ceil(8) || words < cols.div_ceil(8) {
                    return Err(err(codes::RUN_SHAPE, self.e.span, format!("{}: the mask is too small", self.name)));
                }
                let out = self.out(src.dtype());
                let mut res = Array::zeros(out, src.shape().to_vec());
                for i in 0..src.len() {
                    let (r, c) = (i / cols, i % cols);
                    let bit = m.get(r * words + c / 8).as_i128() >> (c % 8) & 1;
                    res.set(i, if bit == 1 { src.get(i) } else { v.num.to_dtype(out) });
                }
                Ok(Value::tile(res))
            }
            id::SEL => {
                let (m, l, r) = (self.arr(0)?, self.arr(1)?, self.arr(2)?);
                // The mask selects the lhs element where it is non-zero (element-wise, not
                // pto-isa's packed bit mask: block.cmp gives 1 / 0 elements here).
                self.elementwise(&[&m, &l, &r], self.out(l.dtype()), |v| Ok(if v[0].is_true() { v[1] } else { v[2] }))
            }
            id::ADDC | id::SUBC | id::ADDSC | id::SUBSC => {
                let (a, b, c) = (self.arr(0)?, self.arr(1)?, self.arr(2)?);
                let out = self.out(a.dtype());
                let first = if short.starts_with("add") { Bin::Add } else { Bin::Sub };
                // pto-isa: dst = src0 ± src1 + src2, each step stored in the tile dtype.
                self.elementwise(&[&a, &b, &c], out, |v| {
                    arith(Bin::Add, out, arith(first, out, v[0], v[1])?.to_dtype(out), v[2])
                })
            }
            id::LRELU | id::PRELU => {
                let (a, s) = (self.arr(0)?, self.arr(1)?);
                let out = self.out(a.dtype());
                self.elementwise(&[&a, &s], out, |v| {
                    if v[0].as_f64() > 0.0 {
                        Ok(v[0])
                    } else {
                        arith(Bin::Mul, out, v[0], v[1])
                    }
                })
            }
            id::MATMUL | id::GEMV => {
                let (a, b) = (self.arr(0)?, self.arr(1)?);
                let r = self.runtime(matmul2d(&a, &b, None, None, self.out(DataType::Fp32)))?;
                Ok(Value::tile(r))
            }
            id::MATMUL_ACC | id::GEMV_ACC => {
                let (c, a, b) = (self.arr(0)?, self.arr(1)?, self.arr(2)?);
                let r = self.runtime(matmul2d(&a, &b, Some(&c), None, self.out(DataType::Fp32)))?;
                Ok(Value::tile(r))
            }
            id::MATMUL_BIAS | id::GEMV_BIAS => {
                let (a, b, bias) = (self.arr(0)?, self.arr(1)?, self.arr(2)?);
                let r = self.runtime(matmul2d(&a, &b, None, Some(&bias), self.out(DataType::Fp32)))?;
                Ok(Value::tile(r))
            }
            id::BATCH_MATMUL => {
                let (a, b) = (self.arr(0)?, self.arr(1)?);
                let r = self.runtime(matmul_nd(&a, &b, self.out(a.dtype())))?;
                Ok(Value::tile(r))
            }
            id::TENSOR_MATMUL => {
                let (mut a, mut b) = (self.arr(0)?, self.arr(1)?);
                if self.kw_bool("a_trans", false) && a.shape().len() >= 2 {
                    let r = a.shape().len();
                    a = transpose_array(&a, r - 2, r - 1);
                }
                if self.kw_bool("b_trans", false) && b.shape().len() >= 2 {
                    let r = b.shape().len();
                    b = transpose_array(&b, r - 2, r - 1);
                }
                let r = self.runtime(matmul_nd(&a, &b, self.out(a.dtype())))?;
                Ok(Value::tensor(r))
            }
            id::SUM | id::MAX | id::MIN => {
                let a = self.arr(0)?;
                let axis =
                    norm_axis(i128::from(self.kw_int("axis", -1)), a.shape().len()).map_err(|m| self.shape_err(m))?;
                let keep = self.kw_bool("keepdim", false);
                let r = self.runtime(reduce(&a, axis, red_kind(short), self.out(a.dtype()), keep))?;
                Ok(if r.shape().is_empty() { Value::Scalar(Scalar::new(r.dtype(), r.get(0))) } else { Value::tile(r) })
            }
            id::TENSOR_ROW_MAX | id::TENSOR_ROW_SUM => {
                let a = self.arr(0)?;
                let axis =
                    norm_axis(i128::from(self.kw_int("axis", -1)), a.shape().len()).map_err(|m| self.shape_err(m))?;
                let keep = self.kw_bool("keep_dim", true);
                let r = self.runtime(reduce(&a, axis, red_kind(short), self.out(a.dtype()), keep))?;
                Ok(if r.shape().is_empty() {
                    Value::Scalar(Scalar::new(r.dtype(), r.get(0)))
                } else {
                    Value::tensor(r)
                })
            }
            id::ROW_SUM | id::ROW_MAX | id::ROW_MIN => {
                let a = self.arr(0)?;
                if a.shape().is_empty() {
                    return Err(self.shape_err("a row reduction needs a tile of rank ≥ 1"));
                }
                let r = self.runtime(reduce(&a, a.shape().len() - 1, red_kind(short), self.out(a.dtype()), true))?;
                Ok(Value::tile(r))
            }
            id::ROW_PROD => {
                let a = self.arr(0)?;
                if a.shape().len() < 2 {
                    return Err(self.shape_err("a row reduction needs a tile of rank ≥ 2"));
                }
                let r = self.runtime(reduce(&a, a.shape().len() - 1, Red::Prod, self.out(a.dtype()), true))?;
                Ok(Value::tile(r))
            }
            id::COL_PROD => {
                let a = self.arr(0)?;
                if a.shape().len() < 2 {
                    return Err(self.shape_err("a column reduction needs a tile of rank ≥ 2"));
                }
                let r = self.runtime(reduce(&a, a.shape().len() - 2, Red::Prod, self.out(a.dtype()), true))?;
                Ok(Value::tile(r))
            }
            id::ROW_ARGMAX | id::ROW_ARGMIN | id::COL_ARGMAX | id::COL_ARGMIN => {
                let a = self.arr(0)?;
                let rank = a.shape().len();
                if rank < 2 {
                    return Err(self.shape_err("an arg reduction needs a tile of rank ≥ 2"));
                }
                let axis = if short.starts_with("row") { rank - 1 } else { rank - 2 };
                let r = self.runtime(arg_reduce(&a, axis, short.ends_with("max"), self.out(DataType::Int32)))?;
                Ok(Value::tile(r))
            }
            id::CONCAT => {
                let (a, b) = (self.arr(0)?, self.arr(1)?);
                let (&[r, c0], &[r1, c1]) = (a.shape(), b.shape()) else {
                    return Err(self.shape_err("concat needs 2-D tiles"));
                };
                if r1 != r {
                    return Err(self.shape_err(format!("concat of {r} and {r1} rows")));
                }
                let out = self.out(a.dtype());
                let c = c0 + c1;
                let at = |i: usize| {
                    let (ri, ci) = (i / c, i % c);
                    if ci < c0 {
                        a.get(ri * c0 + ci)
                    } else {
                        b.get(ri * c1 + ci - c0)
                    }
                };
                Ok(Value::tile(Array::from_nums(out, vec![r, c], (0..r * c).map(at))))
            }
            id::GATHER => {
                let (src, idx) = (self.arr(0)?, self.arr(1)?);
                let n = src.len();
                let out = self.out(src.dtype());
                let mut vals = Vec::with_capacity(idx.len());
                for i in 0..idx.len() {
                    let k = idx.get(i).as_i128();
                    let Some(k) = usize::try_from(k).ok().filter(|&k| k < n) else {
                        let msg = format!("index {k} at element {i} is outside the source's {n} elements");
                        return Err(self.fail(codes::RUN_ERROR, 1, msg));
                    };
                    vals.push(src.get(k).to_dtype(out));
                }
                Ok(Value::tile(Array::from_nums(out, idx.shape().to_vec(), vals)))
            }
            id::GATHER_MASK => {
                let src = self.arr(0)?;
                let (&[r, c], Some((k, first, _))) =
                    (src.shape(), crate::ops::mask_pattern(self.kw_int("mask_pattern", 0)))
                else {
                    return Err(self.shape_err("gather_mask needs a 2-D source and a mask_pattern in [1, 7]"));
                };
                let out = self.out(src.dtype());
                let kept = (0..r * c).filter(|i| i % c % k == first);
                let vals = kept.map(|i| reinterpret(src.get(i), src.dtype(), out)).collect::<Vec<_>>();
                Ok(Value::tile(Array::from_nums(out, vec![r, c / k], vals)))
            }
            id::SCATTER => {
                let (dst, src, idx) = (self.arr(0)?, self.arr(1)?, self.arr(2)?);
                let n = dst.len();
                let out = self.out(dst.dtype());
                let mut vals: Vec<Num> = (0..n).map(|i| dst.get(i)).collect();
                for i in 0..idx.len().min(src.len()) {
                    let k = idx.get(i).as_i128();
                    let Some(k) = usize::try_from(k).ok().filter(|&k| k < n) else {
                        let msg = format!("index {k} at element {i} is outside the destination's {n} elements");
                        return Err(self.fail(codes::RUN_ERROR, 2, msg));
                    };
                    vals[k] = src.get(i);
                }
                Ok(Value::tile(Array::from_nums(out, dst.shape().to_vec(), vals)))
            }
            id::GATHERB => {
                let (src, off) = (self.arr(0)?, self.arr(1)?);
                let out = self.out(src.dtype());
                let size = (src.dtype().bits() / 8).max(1) as usize;
                let per = 32 / size;
                let (&[r, k], true) = (off.shape(), src.shape().len() == 2) else {
                    return Err(self.shape_err("gatherb needs a 2-D source and 2-D offsets"));
                };
                let mut vals = Vec::with_capacity(r * k * per);
                for i in 0..r * k {
                    let at = off.get(i).as_i128();
                    // The a2a3 instruction reads 32-byte blocks; the CPU simulator skips a block
                    // past the source, which the NPU would read from whatever lies there.
                    if at % 32 != 0 || at < 0 || at as usize / size + per > src.len() {
                        return Err(self.fail(
                            codes::RUN_OUT_OF_BOUNDS,
                            1,
                            format!(
                                "gatherb offset {at} is not a 32-byte block of the {}-byte source",
                                src.len() * size
                            ),
                        ));
                    }
                    let base = at as usize / size;
                    vals.extend((0..per).map(|j| reinterpret(src.get(base + j), src.dtype(), out)));
                }
                Ok(Value::tile(Array::from_nums(out, vec![r, k * per], vals)))
            }
            id::SORT32 => {
                let (src, idx) = (self.arr(0)?, self.arr(1)?);
                let (&[r, c], true) = (src.shape(), idx.shape() == src.shape()) else {
                    return Err(self.shape_err("sort32 needs a 2-D source and indices of its shape"));
                };
                Ok(Value::tile(Array::from_nums(self.out(DataType::Fp32), vec![r, 2 * c], sort32(&src, &idx, r, c))))
            }
            id::MRGSORT => {
                let src = self.arr(0)?;
                let len = usize::try_from(self.scalar(1)?.num.as_i128()).unwrap_or(0);
                let c = src.len();
                if len == 0 || len % 2 != 0 || c % (4 * len) != 0 {
                    return Err(self.shape_err(format!("mrgsort of {c} elements in runs of {len}")));
                }
                Ok(Value::tile(Array::from_nums(self.out(DataType::Fp32), src.shape().to_vec(), mrgsort(&src, len))))
            }
            // pto-isa's CPU simulator asserts a nonzero divisor of TFMODS (TFMOD's zero
            // divisors give C's fmod, NaN).
            id::FMODS if self.scalar(1)?.num.as_f64() == 0.0 => {
                Err(self.fail(codes::RUN_ERROR, 1, "fmods by zero (pto-isa's TFMODS asserts a nonzero scalar)"))
            }
            id::CI => {
                let start = self.scalar(0)?.num.as_i128();
                let dims = self.dims(1)?;
                let down = self.kw_bool("descending", false);
                let out = self.out(DataType::Int32);
                let cols = dims.last().copied().unwrap_or(0);
                let vals = (0..dims.iter().product::<usize>()).map(|i| {
                    let j = (i % cols.max(1)) as i128;
                    Num::I(wrap_int(out, if down { start - j } else { start + j }))
                });
                Ok(Value::tile(Array::from_nums(out, dims, vals.collect::<Vec<_>>())))
            }
            id::TRI => {
                let diagonal = self.scalar(0)?.num.as_i128();
                let dims = self.dims(1)?;
                let upper = self.kw_bool("upper", false);
                let out = self.out(DataType::Int32);
                let cols = dims.last().copied().unwrap_or(0).max(1);
                let one = |i: usize| {
                    let (r, c) = ((i / cols) as i128, (i % cols) as i128);
                    if upper {
                        c >= r + diagonal
                    } else {
                        c <= r + diagonal
                    }
                };
                let vals = (0..dims.iter().product::<usize>()).map(|i| match (one(i), out.is_float()) {
                    (true, true) => Num::F(1.0),
                    (false, true) => Num::F(0.0),
                    (b, false) => Num::I(i128::from(b)),
                });
                Ok(Value::tile(Array::from_nums(out, dims, vals.collect::<Vec<_>>())))
            }
            id::PARTADD | id::PARTMUL | id::PARTMAX | id::PARTMIN => {
                // Whole operands: every element is valid in both, the plain element-wise op
                // (`partial` computes the partial forms).
                let (a, b) = (self.arr(0)?, self.arr(1)?);
                let out = self.out(a.dtype());
                self.elementwise(&[&a, &b], out, |v| part_combine(self.op, out, v[0], v[1]))
            }
            id::ROW_EXPAND => {
                let a = self.arr(0)?;
                let (_, c) = as_2d(a.shape());
                let out = self.out(a.dtype());
                Ok(Value::tile(Array::from_nums(
                    out,
                    a.shape().to_vec(),
                    (0..a.len()).map(|i| a.get(i - i % c.max(1))),
                )))
            }
            id::COL_EXPAND => {
                let (t, v) = (self.arr(0)?, self.arr(1)?);
                let (_, c) = as_2d(t.shape());
                if v.len() < c {
                    return Err(
                        self.shape_err(format!("the column vector {:?} has fewer than {c} elements", v.shape()))
                    );
                }
                let out = self.out(t.dtype());
                Ok(Value::tile(Array::from_nums(out, t.shape().to_vec(), (0..t.len()).map(|i| v.get(i % c.max(1))))))
            }
            id::ROW_EXPAND_EXPDIF | id::COL_EXPAND_EXPDIF => {
                let (t, v) = (self.arr(0)?, self.arr(1)?);
                let (r, c) = as_2d(t.shape());
                let row = self.op == id::ROW_EXPAND_EXPDIF;
                if v.len() < if row { r } else { c } {
                    return Err(self.shape_err(format!(
                        "the vector {:?} is too short for the tile {:?}",
                        v.shape(),
                        t.shape()
                    )));
                }
                // The CPU simulator subtracts in the tile's dtype, then takes the exponential
                // of that difference in double.
                let out = self.out(t.dtype());
                let mut res = Array::zeros(out, t.shape().to_vec());
                for i in 0..t.len() {
                    let (ri, ci) = (i / c.max(1), i % c.max(1));
                    let d = round_float(out, t.get(i).as_f64() - v.get(if row { ri } else { ci }).as_f64());
                    res.set(i, Num::F(d.exp()));
                }
                Ok(Value::tile(res))
            }
            id::ROW_EXPAND_ADD
            | id::ROW_EXPAND_SUB
            | id::ROW_EXPAND_MUL
            | id::ROW_EXPAND_DIV
            | id::COL_EXPAND_MUL
            | id::COL_EXPAND_DIV
            | id::COL_EXPAND_SUB
            | id::ROW_EXPAND_MAX
            | id::ROW_EXPAND_MIN
            | id::COL_EXPAND_ADD
            | id::COL_EXPAND_MAX
            | id::COL_EXPAND_MIN => {
                let (t, v) = (self.arr(0)?, self.arr(1)?);
                let (r, c) = as_2d(t.shape());
                let row = short.starts_with("row");
                if v.len() < if row { r } else { c } {
                    return Err(self.shape_err(format!(
                        "the {} vector {:?} is too short for the tile {:?}",
                        if row { "row" } else { "column" },
                        v.shape(),
                        t.shape()
                    )));
                }
                let op = match short.rsplit('_').next().unwrap_or("") {
                    "max" => Bin::Max,
                    "min" => Bin::Min,
                    other => bin_kind(other).unwrap_or(Bin::Add),
                };
                let out = self.out(t.dtype());
                let mut res = Array::zeros(out, t.shape().to_vec());
                for i in 0..t.len() {
                    let (ri, ci) = (i / c.max(1), i % c.max(1));
                    let x =
                        arith(op, out, t.get(i), v.get(if row { ri } else { ci })).map_err(|m| self.shape_err(m))?;
                    res.set(i, x);
                }
                Ok(Value::tile(res))
            }
            id::TENSOR_EXP => {
                let a = self.arr(0)?;
                let out = self.out(DataType::Fp32);
                self.elementwise(&[&a], out, |v| unary("exp", out, v[0]))
            }
            _ if self.name.starts_with("block.")
                && matches!(
                    short,
                    "neg" | "exp" | "sin" | "cos" | "recip" | "sqrt" | "rsqrt" | "log" | "abs" | "relu" | "not"
                ) =>
            {
                let a = self.arr(0)?;
                let out = self.out(a.dtype());
                self.elementwise(&[&a], out, |v| unary(short, out, v[0]))
            }
            _ if bin_kind(short).is_some() => {
                let op = bin_kind(short).unwrap_or(Bin::Add);
                let (a, b) = (self.arr(0)?, self.arr(1)?);
                let out = self.out(a.dtype());
                self.elementwise(&[&a, &b], out, |v| arith(op, out, v[0], v[1]))
            }
            _ => Err(err(codes::RUN_UNSUPPORTED, self.e.span, format!("`{}` {NO_IMPLEMENTATION}", self.name))),
        }
    }
}

/// The element of a partial-combine op (`block.partadd` …) where both operands are valid, as
/// pto-isa's CPU simulator computes it (`+`, `*`, `std::max`, `std::min`).
pub(super) fn part_combine(op: OpId, out: DataType, a: Num, b: Num) -> Result<Num, String> {
    let kind = match op {
        id::PARTMUL => Bin::Mul,
        id::PARTMAX => Bin::Max,
        id::PARTMIN => Bin::Min,
        _ => Bin::Add,
    };
    arith(kind, out, a, b)
}

/// Element `v` of dtype `from` read as dtype `to` of the same width (its bits, not its value).
fn reinterpret(v: Num, from: DataType, to: DataType) -> Num {
    if from == to {
        return v;
    }
    let bits: u32 = match from {
        DataType::Fp32 => (v.as_f64() as f32).to_bits(),
        DataType::Fp16 => u32::from(half::f16::from_f64(v.as_f64()).to_bits()),
        DataType::Bf16 => u32::from(half::bf16::from_f64(v.as_f64()).to_bits()),
        _ => v.as_i128() as u32,
    };
    match to {
        DataType::Fp32 => Num::F(f64::from(f32::from_bits(bits))),
        DataType::Fp16 => Num::F(half::f16::from_bits(bits as u16).to_f64()),
        DataType::Bf16 => Num::F(half::bf16::from_bits(bits as u16).to_f64()),
        _ => Num::I(wrap_int(to, i128::from(bits))),
    }
}

/// pto-isa's TSORT32 as its CPU simulator computes it: each run of 32 columns of a row, as
/// (value, index) pairs, sorted by value, greatest first, equal values by index, smallest
/// first; each pair becomes the record (value, the index's bits as an FP32 element).
fn sort32(src: &Array, idx: &Array, rows: usize, cols: usize) -> Vec<Num> {
    let mut out = Vec::with_capacity(rows * cols * 2);
    for r in 0..rows {
        for b in (0..cols).step_by(32) {
            let mut run: Vec<(f64, u32)> = (b..(b + 32).min(cols))
                .map(|j| (src.get(r * cols + j).as_f64(), idx.get(r * cols + j).as_i128() as u32))
                .collect();
            run.sort_by(|x, y| y.0.partial_cmp(&x.0).unwrap_or(std::cmp::Ordering::Equal).then(x.1.cmp(&y.1)));
            for (v, i) in run {
                out.push(Num::F(v));
                out.push(Num::F(f64::from(f32::from_bits(i))));
            }
        }
    }
    out
}

/// pto-isa's TMRGSORT of one list (format 1) as its CPU simulator computes it: each 4
/// consecutive runs of `len` elements (`len / 2` two-element records) merged into one, the
/// record of the greatest value first, of equal values the one of the earliest run.
fn mrgsort(src: &Array, len: usize) -> Vec<Num> {
    let per = len / 2;
    let mut out = Vec::with_capacity(src.len());
    for base in (0..src.len()).step_by(4 * len) {
        let mut next = [0usize; 4];
        for _ in 0..4 * per {
            let mut pick: Option<(usize, f64)> = None;
            for (b, n) in next.iter().enumerate() {
                if *n >= per {
                    continue;
                }
                let v = src.get(base + b * len + 2 * n).as_f64();
                if pick.is_none_or(|(_, best)| v > best) {
                    pick = Some((b, v));
                }
            }
            let Some((b, _)) = pick else { break };
            let at = base + b * len + 2 * next[b];
            out.push(src.get(at));
            out.push(src.get(at + 1));
            next[b] += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Callee, ExprKind};

    /// Every operator of the table is executed or listed in `NOT_EXECUTED`: called without
    /// arguments, none reaches the catch-all arm.
    #[test]
    fn every_table_op_has_semantics() {
        for (id, def) in crate::ops::table::entries() {
            let call = Call { callee: Callee::Op(id), args: Vec::new(), kwargs: Vec::new() };
            let e = Expr::new(ExprKind::Call(Box::new(call.clone())), Type::Unknown, Span::NONE);
            let r = apply(id, &call, &e, Vec::new());
            if let Err(d) = r {
                assert!(!d.message.contains(NO_IMPLEMENTATION), "{}: {}", def.name, d.message);
            }
        }
    }
}
