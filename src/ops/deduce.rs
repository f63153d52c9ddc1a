//! Result-type deduction of operator calls (spec §4): kwarg validation, arity, argument kinds
//! ([`Expect`]) and the per-rule computations of the result type.
//!
//! Errors are [`DeduceError`]s that say which argument or kwarg is at fault, so that
//! `build_op_call` can point at it and `deduce_type` can report a plain message.

use super::kwvalue;
use super::promote::promote_dtypes;
use super::shape::{
    broadcast, const_dim, fmt_dims, fmt_type, is_index_scalar, is_int_scalar, norm_axis, static_numel,
    tuple_element_types, tuple_elements,
};
use super::table::{DtypeRule, Expect, OpDef, Rule, Shaped, Slot};
use crate::ir::{
    DataType, Expr, ExprKind, KwValue, MemorySpace, Program, TensorType, TileLayout, TileType, TileView, Type,
};

/// What a deduction error is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Wrong number of arguments, or a missing required kwarg.
    Count,
    /// Argument `i` has the wrong kind.
    Arg(usize),
    /// The kwarg of this name is unknown or of the wrong kind.
    Kwarg(String),
    /// A check of the rule failed (optionally about argument `i`).
    Check(Option<usize>),
}

#[derive(Clone, Debug)]
pub(crate) struct DeduceError {
    pub fault: Fault,
    pub message: String,
}

type R<T> = Result<T, DeduceError>;

/// The call being typed.
pub(crate) struct Cx<'a> {
    pub prog: &'a Program,
    pub def: &'static OpDef,
    pub args: &'a [Expr],
    pub kwargs: &'a [(String, KwValue)],
}

/// Deduces the type of a call of `def` (the whole check sequence).
pub(crate) fn deduce(prog: &Program, def: &'static OpDef, args: &[Expr], kwargs: &[(String, KwValue)]) -> R<Type> {
    let cx = Cx { prog, def, args, kwargs };
    cx.check_kwargs()?;
    cx.check_args()?;
    apply(def.rule, &cx)
}

impl<'a> Cx<'a> {
    fn name(&self) -> &'static str {
        self.def.name
    }
    fn check(&self, message: String) -> DeduceError {
        DeduceError { fault: Fault::Check(None), message: format!("The operator {} {message}", self.name()) }
    }
    fn check_at(&self, i: usize, message: String) -> DeduceError {
        DeduceError { fault: Fault::Check(Some(i)), message: format!("The operator {} {message}", self.name()) }
    }
    fn ensure(&self, cond: bool, message: impl FnOnce() -> String) -> R<()> {
        if cond {
            Ok(())
        } else {
            Err(self.check(message()))
        }
    }
    fn dims(&self, dims: &[Expr]) -> String {
        fmt_dims(self.prog, dims)
    }

    // ---- validation shared by every rule

    /// Kwargs: known names (only when the op declares kwargs, as in the reference), right kinds,
    /// required ones present.
    fn check_kwargs(&self) -> R<()> {
        let def = self.def;
        if def.kwargs.is_empty() {
            return Ok(());
        }
        for (k, v) in self.kwargs {
            let Some(spec) = def.kwarg(k) else {
                return Err(DeduceError {
                    fault: Fault::Kwarg(k.clone()),
                    message: format!("Unknown kwarg '{k}' for operator '{}'", def.name),
                });
            };
            if !kwvalue::accepts(spec.kind, v) {
                return Err(DeduceError {
                    fault: Fault::Kwarg(k.clone()),
                    message: format!(
                        "{} expects {} for '{k}', found {}",
                        def.name,
                        kwvalue::expected(spec.kind),
                        kwvalue::describe(v)
                    ),
                });
            }
        }
        for spec in def.kwargs.iter().filter(|s| s.required) {
            if self.kw(spec.name).is_none() {
                return Err(DeduceError {
                    fault: Fault::Count,
                    message: format!("The operator {} requires the kwarg '{}'", def.name, spec.name),
                });
            }
        }
        Ok(())
    }

    /// Arity (the number of argument parameters) and each argument's [`Expect`].
    fn check_args(&self) -> R<()> {
        let n = self.def.arity();
        if self.args.len() != n {
            let names: Vec<&str> = self.def.arg_params().map(|p| p.name).collect();
            return Err(DeduceError {
                fault: Fault::Count,
                message: format!(
                    "The operator {} requires {} ({}), but got {}",
                    self.name(),
                    plural(n, "argument"),
                    names.join(", "),
                    self.args.len()
                ),
            });
        }
        for (i, p) in self.def.arg_params().enumerate() {
            if let Slot::Arg { expect, .. } = p.slot {
                self.check_expect(i, p.name, expect)?;
            }
        }
        Ok(())
    }

    fn check_expect(&self, i: usize, pname: &str, expect: Expect) -> R<()> {
        let e = &self.args[i];
        let ty = self.prog.type_of(e);
        let ok = match expect {
            Expect::Any => true,
            Expect::Tensor => matches!(ty, Type::Tensor(_)),
            Expect::Tile => matches!(ty, Type::Tile(_)),
            Expect::Scalar => matches!(ty, Type::Scalar(_)),
            Expect::List => matches!(e.kind, ExprKind::MakeTuple(_)),
            Expect::IntTuple | Expect::IndexTuple => {
                let elem_ok = if expect == Expect::IntTuple { is_int_scalar } else { is_index_scalar };
                match tuple_element_types(self.prog, e) {
                    Some(ts) => {
                        if let Some(bad) = ts.iter().find(|t| !elem_ok(t)) {
                            return Err(DeduceError {
                                fault: Fault::Arg(i),
                                message: format!(
                                    "{} expects {} elements in argument {} ({pname}), found {}",
                                    self.name(),
                                    if expect == Expect::IntTuple {
                                        "integer scalar"
                                    } else {
                                        "INT64 or UINT64 scalar"
                                    },
                                    i + 1,
                                    fmt_type(self.prog, bad)
                                ),
                            });
                        }
                        true
                    }
                    None => false,
                }
            }
            Expect::ConstInt => const_dim(e).is_some(),
            Expect::Const => matches!(kwvalue::literal_value(e), Some(KwValue::Int(_) | KwValue::Float(_))),
        };
        if ok {
            return Ok(());
        }
        Err(DeduceError {
            fault: Fault::Arg(i),
            message: format!(
                "{} expects {} for argument {} ({pname}), found {}",
                self.name(),
                expect_name(expect),
                i + 1,
                describe_arg(self.prog, e)
            ),
        })
    }

    // ---- accessors (kinds were checked by `check_args`; they still fail gracefully)

    fn ty(&self, i: usize) -> &'a Type {
        self.args.get(i).map_or(&Type::Unknown, |e| self.prog.type_of(e))
    }
    fn wrong(&self, i: usize, what: &str) -> DeduceError {
        DeduceError {
            fault: Fault::Arg(i),
            message: format!("{} expects {what} for argument {}, found {}", self.name(), i + 1, self.ty(i).kind_name()),
        }
    }
    /// Shape and dtype of a Tensor or Tile argument.
    fn shaped(&self, i: usize) -> R<(&'a [Expr], DataType)> {
        match self.ty(i) {
            Type::Tensor(t) => Ok((&t.shape, t.dtype)),
            Type::Tile(t) => Ok((&t.shape, t.dtype)),
            _ => Err(self.wrong(i, "a Tensor or Tile")),
        }
    }
    fn tile(&self, i: usize) -> R<&'a TileType> {
        match self.ty(i) {
            Type::Tile(t) => Ok(t),
            _ => Err(self.wrong(i, "a Tile")),
        }
    }
    fn tensor(&self, i: usize) -> R<&'a TensorType> {
        match self.ty(i) {
            Type::Tensor(t) => Ok(t),
            _ => Err(self.wrong(i, "a Tensor")),
        }
    }
    /// dtype of a Scalar, Tensor or Tile argument.
    fn dtype(&self, i: usize) -> R<DataType> {
        self.ty(i).dtype().ok_or_else(|| self.wrong(i, "a Scalar, Tensor or Tile"))
    }
    fn const_int(&self, i: usize) -> R<i64> {
        self.args.get(i).and_then(const_dim).ok_or_else(|| self.wrong(i, "an integer constant"))
    }
    fn tuple(&self, i: usize) -> R<Vec<Expr>> {
        self.args.get(i).and_then(|e| tuple_elements(self.prog, e)).ok_or_else(|| self.wrong(i, "a tuple"))
    }
    fn list(&self, i: usize) -> R<&'a [Expr]> {
        match self.args.get(i).map(|e| &e.kind) {
            Some(ExprKind::MakeTuple(items)) => Ok(items),
            _ => Err(self.wrong(i, "a list literal")),
        }
    }
    fn kw(&self, name: &str) -> Option<&'a KwValue> {
        self.kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
    fn kw_int(&self, name: &str) -> Option<i64> {
        match self.kw(name) {
            Some(KwValue::Int(v)) => Some(*v),
            _ => None,
        }
    }
    fn kw_bool(&self, name: &str) -> Option<bool> {
        match self.kw(name) {
            Some(KwValue::Bool(v)) => Some(*v),
            _ => None,
        }
    }
    fn missing_kw(&self, name: &str) -> DeduceError {
        DeduceError {
            fault: Fault::Count,
            message: format!("The operator {} requires the kwarg '{name}'", self.name()),
        }
    }
    fn kw_dtype(&self, name: &str) -> R<DataType> {
        match self.kw(name) {
            Some(KwValue::DType(d)) => Ok(*d),
            Some(KwValue::Int(code)) => kwvalue::dtype_from_code(*code).ok_or_else(|| self.missing_kw(name)),
            _ => Err(self.missing_kw(name)),
        }
    }
    fn kw_space(&self, name: &str) -> R<MemorySpace> {
        match self.kw(name) {
            Some(KwValue::Space(s)) => Ok(*s),
            _ => Err(self.missing_kw(name)),
        }
    }
    /// A static shape: a non-empty list of positive constants (`create_tile`, `full`).
    fn static_shape(&self, i: usize) -> R<Vec<Expr>> {
        let items = self.list(i)?;
        self.ensure(!items.is_empty(), || "requires non-empty shape".into())?;
        for (k, d) in items.iter().enumerate() {
            match const_dim(d) {
                Some(v) if v > 0 => {}
                Some(v) => return Err(self.check_at(i, format!("shape element {k} must be positive, got {v}"))),
                None => {
                    return Err(
                        self.check_at(i, format!("shape element {k} must be a compile-time constant (ConstInt)"))
                    )
                }
            }
        }
        Ok(items.to_vec())
    }
    fn broadcast(&self, a: &[Expr], b: &[Expr]) -> R<Vec<Expr>> {
        broadcast(a, b).ok_or_else(|| {
            self.check(format!("requires compatible shapes, but got {} and {}", self.dims(a), self.dims(b)))
        })
    }
    fn require_int(&self, dtypes: &[DataType]) -> R<()> {
        match dtypes.iter().find(|d| !d.is_int()) {
            Some(d) => Err(self.check(format!("requires integer dtype, but got {}", d.name()))),
            None => Ok(()),
        }
    }
    fn rank_at_least(&self, i: usize, shape: &[Expr], min: usize) -> R<()> {
        if shape.len() >= min {
            Ok(())
        } else {
            Err(self.check_at(
                i,
                format!("requires argument {} to have at least {min} dimensions, but got {}", i + 1, shape.len()),
            ))
        }
    }
    fn rank_exactly(&self, i: usize, shape: &[Expr], n: usize) -> R<()> {
        if shape.len() == n {
            Ok(())
        } else {
            Err(self.check_at(i, format!("requires argument {} to be {n}D, but got {}D", i + 1, shape.len())))
        }
    }
    /// Two dims must be equal when both are constants.
    fn same_if_const(&self, what: &str, a: &Expr, b: &Expr) -> R<()> {
        match (const_dim(a), const_dim(b)) {
            (Some(x), Some(y)) if x != y => Err(self.check(format!("requires matching {what}, but got {x} and {y}"))),
            _ => Ok(()),
        }
    }
    fn axis(&self, axis: i64, rank: usize) -> R<usize> {
        norm_axis(axis, rank).ok_or_else(|| self.check(format!("requires axis in [-{rank}, {rank}), but got {axis}")))
    }
}

fn plural(n: usize, word: &str) -> String {
    match n {
        0 => format!("no {word}s"),
        1 => format!("exactly 1 {word}"),
        _ => format!("exactly {n} {word}s"),
    }
}

fn expect_name(e: Expect) -> &'static str {
    match e {
        Expect::Any => "a value",
        Expect::Tensor => "a Tensor",
        Expect::Tile => "a Tile",
        Expect::Scalar => "a Scalar",
        Expect::List => "a list literal",
        Expect::IntTuple => "a tuple of integer scalars",
        Expect::IndexTuple => "a tuple of INT64 scalars",
        Expect::ConstInt => "an integer constant",
        Expect::Const => "a numeric constant",
    }
}

/// What an argument is, for "found …": its type kind, or the kind of expression for lists and
/// constants.
fn describe_arg(prog: &Program, e: &Expr) -> String {
    match (&e.kind, prog.type_of(e)) {
        (ExprKind::MakeTuple(_), _) => "a list".into(),
        (ExprKind::Var(_), Type::Tuple(_)) => "a Tuple variable".into(),
        (_, t) => t.kind_name().into(),
    }
}

// ---------------------------------------------------------------------------------------------
// Result types

fn make(shaped: Shaped, shape: Vec<Expr>, dtype: DataType) -> Type {
    match shaped {
        Shaped::Tensor => Type::Tensor(TensorType { dtype, shape, memref: None, view: None }),
        Shaped::Tile => tile_type(shape, dtype, None),
    }
}

fn tile_type(shape: Vec<Expr>, dtype: DataType, view: Option<TileView>) -> Type {
    Type::Tile(TileType { dtype, shape, memref: None, view })
}

fn one() -> Expr {
    Expr::int(1, DataType::Int64, crate::diag::Span::NONE)
}

/// `FP32` when both operands are float, else `INT32` (the matmul accumulator dtype).
fn acc_dtype(a: DataType, b: DataType) -> DataType {
    if a.is_float() && b.is_float() {
        DataType::Fp32
    } else {
        DataType::Int32
    }
}

/// The view of matmul results: col_major / row_major with a 1024-byte fractal.
fn matmul_view() -> TileView {
    TileView { blayout: TileLayout::ColMajor, slayout: TileLayout::RowMajor, fractal: 1024, ..TileView::default() }
}

fn flip(l: TileLayout) -> TileLayout {
    match l {
        TileLayout::RowMajor => TileLayout::ColMajor,
        TileLayout::ColMajor => TileLayout::RowMajor,
        TileLayout::NoneBox => TileLayout::NoneBox,
    }
}

/// Removes axis `axis` (or sets it to 1 with `keep`); rank 0 → `Scalar`.
fn reduce(shaped: Shaped, shape: &[Expr], axis: usize, keep: bool, dtype: DataType) -> Type {
    let mut dims = shape.to_vec();
    if keep {
        dims[axis] = one();
    } else {
        dims.remove(axis);
    }
    if dims.is_empty() {
        Type::Scalar(dtype)
    } else {
        make(shaped, dims, dtype)
    }
}

fn apply(rule: Rule, cx: &Cx) -> R<Type> {
    match rule {
        Rule::TensorCreate => Ok(make(Shaped::Tensor, cx.tuple(0)?, cx.kw_dtype("dtype")?)),
        Rule::TensorRead => {
            let t = cx.tensor(0)?;
            let n = cx.tuple(1)?.len();
            cx.ensure(n == t.shape.len(), || {
                format!("requires the number of indices ({n}) to match the tensor rank ({})", t.shape.len())
            })?;
            Ok(Type::Scalar(t.dtype))
        }
        Rule::TensorDim => {
            let t = cx.tensor(0)?;
            cx.axis(cx.const_int(1)?, t.shape.len())?;
            Ok(Type::Scalar(DataType::Int64))
        }
        Rule::View(shaped) => {
            let (_, dtype) = cx.shaped(0)?;
            Ok(make(shaped, cx.tuple(1)?, dtype))
        }
        Rule::TensorAssemble => {
            let t = cx.tensor(0)?;
            Ok(make(Shaped::Tensor, t.shape.clone(), t.dtype))
        }
        Rule::Reshape(shaped) => {
            let (shape, dtype) = cx.shaped(0)?;
            let new_shape = cx.tuple(1)?;
            if let (Some(a), Some(b)) = (static_numel(shape), static_numel(&new_shape)) {
                cx.ensure(a == b, || {
                    format!(
                        "requires the number of elements to be preserved, but got {} ({a}) and {} ({b})",
                        cx.dims(shape),
                        cx.dims(&new_shape)
                    )
                })?;
            }
            Ok(make(shaped, new_shape, dtype))
        }
        Rule::Transpose(shaped) => {
            let (shape, dtype) = cx.shaped(0)?;
            cx.rank_at_least(0, shape, 2)?;
            let a1 = cx.axis(cx.const_int(1)?, shape.len())?;
            let a2 = cx.axis(cx.const_int(2)?, shape.len())?;
            cx.ensure(a1 != a2, || format!("requires two different axes, but got {a1} twice"))?;
            let mut dims = shape.to_vec();
            dims.swap(a1, a2);
            Ok(make(shaped, dims, dtype))
        }
        Rule::Broadcast { shaped, int_only, dtype } => {
            let (s0, d0) = cx.shaped(0)?;
            let (s1, d1) = cx.shaped(1)?;
            if int_only {
                cx.require_int(&[d0, d1])?;
            }
            let shape = cx.broadcast(s0, s1)?;
            Ok(make(shaped, shape, elementwise_dtype(dtype, d0, d1)))
        }
        Rule::KeepShape { shaped, int_only, dtype } => {
            let (s0, d0) = cx.shaped(0)?;
            let d1 = cx.dtype(1)?;
            if int_only {
                cx.require_int(&[d0, d1])?;
            }
            Ok(make(shaped, s0.to_vec(), elementwise_dtype(dtype, d0, d1)))
        }
        Rule::TensorExp => {
            let t = cx.tensor(0)?;
            let dtype = if t.dtype.is_float() { t.dtype } else { DataType::Fp32 };
            Ok(make(Shaped::Tensor, t.shape.clone(), dtype))
        }
        Rule::Cast(shaped) => {
            let (shape, _) = cx.shaped(0)?;
            Ok(make(shaped, shape.to_vec(), cx.kw_dtype("target_type")?))
        }
        Rule::TensorMatmul => tensor_matmul(cx),
        Rule::TensorRowReduce => {
            let t = cx.tensor(0)?;
            let axis = cx.axis(cx.kw_int("axis").unwrap_or(-1), t.shape.len())?;
            Ok(reduce(Shaped::Tensor, &t.shape, axis, cx.kw_bool("keep_dim").unwrap_or(true), t.dtype))
        }
        Rule::GetBlockIdx => Ok(Type::Scalar(DataType::UInt64)),
        Rule::CreateTile => Ok(tile_type(cx.static_shape(0)?, cx.kw_dtype("dtype")?, None)),
        Rule::Full => Ok(tile_type(cx.static_shape(0)?, cx.kw_dtype("dtype")?, None)),
        Rule::Load => {
            let t = cx.tensor(0)?;
            let shapes = offsets_and_shapes(cx)?;
            let mut view = TileView::default();
            if cx.kw_space("target_memory")? == MemorySpace::Mat {
                view.blayout = TileLayout::ColMajor;
                view.slayout = TileLayout::RowMajor;
            }
            Ok(tile_type(shapes, t.dtype, Some(view)))
        }
        Rule::Store => {
            cx.tile(0)?;
            offsets_and_shapes(cx)?;
            cx.tensor(3)?;
            Ok(cx.ty(3).clone())
        }
        Rule::Move => {
            let t = cx.tile(0)?;
            let mut view = TileView::default();
            match cx.kw_space("target_memory")? {
                MemorySpace::Left => view.slayout = TileLayout::RowMajor,
                MemorySpace::Right => view.slayout = TileLayout::ColMajor,
                _ => {}
            }
            let mut shape = t.shape.clone();
            if cx.kw_bool("transpose").unwrap_or(false) && shape.len() == 2 {
                shape.swap(0, 1);
                if view.slayout == TileLayout::NoneBox {
                    view.blayout = flip(view.blayout);
                } else {
                    std::mem::swap(&mut view.blayout, &mut view.slayout);
                }
            }
            Ok(tile_type(shape, t.dtype, Some(view)))
        }
        Rule::Alloc => {
            let code = cx.const_int(0)?;
            cx.ensure(MemorySpace::from_index(code).is_some(), || {
                format!("requires a memory space code, but got {code}")
            })?;
            Ok(Type::MemRef)
        }
        Rule::SameTile { min_rank } => {
            let t = cx.tile(0)?;
            cx.rank_at_least(0, &t.shape, min_rank)?;
            Ok(tile_type(t.shape.clone(), t.dtype, None))
        }
        Rule::NotTile => {
            let t = cx.tile(0)?;
            cx.ensure(matches!(t.dtype, DataType::Int16 | DataType::UInt16), || {
                format!("requires INT16 or UINT16 dtype, but got {}", t.dtype.name())
            })?;
            Ok(tile_type(t.shape.clone(), t.dtype, None))
        }
        Rule::AddC => {
            let (a, b, c) = (cx.tile(0)?, cx.tile(1)?, cx.tile(2)?);
            let ab = cx.broadcast(&a.shape, &b.shape)?;
            let shape = cx.broadcast(&ab, &c.shape)?;
            Ok(tile_type(shape, promote_dtypes(promote_dtypes(a.dtype, b.dtype), c.dtype), None))
        }
        Rule::AddSC => {
            let (a, s, c) = (cx.tile(0)?, cx.dtype(1)?, cx.tile(2)?);
            let shape = cx.broadcast(&a.shape, &c.shape)?;
            Ok(tile_type(shape, promote_dtypes(promote_dtypes(a.dtype, s), c.dtype), None))
        }
        Rule::Select => {
            cx.tile(0)?;
            let (l, r) = (cx.tile(1)?, cx.tile(2)?);
            Ok(tile_type(cx.broadcast(&l.shape, &r.shape)?, promote_dtypes(l.dtype, r.dtype), None))
        }
        Rule::Matmul => {
            let (l, r) = (cx.tile(0)?, cx.tile(1)?);
            cx.rank_exactly(0, &l.shape, 2)?;
            cx.rank_exactly(1, &r.shape, 2)?;
            cx.same_if_const("inner dimensions (K)", &l.shape[1], &r.shape[0])?;
            same_dtype(cx, l.dtype, r.dtype)?;
            let shape = vec![l.shape[0].clone(), r.shape[1].clone()];
            Ok(tile_type(shape, acc_dtype(l.dtype, r.dtype), Some(matmul_view())))
        }
        Rule::MatmulAcc => {
            let (acc, l, r) = (cx.tile(0)?, cx.tile(1)?, cx.tile(2)?);
            cx.rank_exactly(0, &acc.shape, 2)?;
            cx.rank_exactly(1, &l.shape, 2)?;
            cx.rank_exactly(2, &r.shape, 2)?;
            cx.same_if_const("inner dimensions (K)", &l.shape[1], &r.shape[0])?;
            cx.same_if_const("rows (M) of acc and lhs", &acc.shape[0], &l.shape[0])?;
            cx.same_if_const("columns (N) of acc and rhs", &acc.shape[1], &r.shape[1])?;
            same_dtype(cx, l.dtype, r.dtype)?;
            Ok(tile_type(acc.shape.clone(), acc_dtype(l.dtype, r.dtype), Some(matmul_view())))
        }
        Rule::MatmulBias => {
            let (l, r, bias) = (cx.tile(0)?, cx.tile(1)?, cx.tile(2)?);
            cx.rank_exactly(0, &l.shape, 2)?;
            cx.rank_exactly(1, &r.shape, 2)?;
            cx.rank_exactly(2, &bias.shape, 2)?;
            cx.same_if_const("inner dimensions (K)", &l.shape[1], &r.shape[0])?;
            if const_dim(&bias.shape[0]) != Some(1) {
                return Err(cx.check_at(2, format!("requires bias shape [1, N], but got {}", cx.dims(&bias.shape))));
            }
            cx.same_if_const("columns (N) of bias and rhs", &bias.shape[1], &r.shape[1])?;
            let shape = vec![l.shape[0].clone(), r.shape[1].clone()];
            Ok(tile_type(shape, promote_dtypes(promote_dtypes(l.dtype, r.dtype), bias.dtype), None))
        }
        Rule::BatchMatmul => {
            let (l, r) = (cx.tile(0)?, cx.tile(1)?);
            cx.rank_at_least(0, &l.shape, 2)?;
            cx.rank_at_least(1, &r.shape, 2)?;
            let (ln, rn) = (l.shape.len(), r.shape.len());
            cx.same_if_const("inner dimensions (K)", &l.shape[ln - 1], &r.shape[rn - 2])?;
            let mut shape = cx.broadcast(&l.shape[..ln - 2], &r.shape[..rn - 2])?;
            shape.push(l.shape[ln - 2].clone());
            shape.push(r.shape[rn - 1].clone());
            Ok(tile_type(shape, promote_dtypes(l.dtype, r.dtype), None))
        }
        Rule::Reduce => {
            let t = cx.tile(0)?;
            let axis = cx.kw_int("axis").ok_or_else(|| cx.missing_kw("axis"))?;
            let axis = cx.axis(axis, t.shape.len())?;
            Ok(reduce(Shaped::Tile, &t.shape, axis, cx.kw_bool("keepdim").unwrap_or(false), t.dtype))
        }
        Rule::RowReduce => {
            let t = cx.tile(0)?;
            cx.rank_at_least(0, &t.shape, 2)?;
            let mut shape = t.shape.clone();
            if let Some(last) = shape.last_mut() {
                *last = one();
            }
            Ok(tile_type(shape, t.dtype, None))
        }
        Rule::RowExpandBinary => {
            let (t, row) = (cx.tile(0)?, cx.tile(1)?);
            cx.rank_at_least(0, &t.shape, 2)?;
            cx.rank_at_least(1, &row.shape, 2)?;
            let (tn, rn) = (t.shape.len(), row.shape.len());
            if const_dim(&row.shape[rn - 1]) != Some(1) {
                return Err(cx.check_at(
                    1,
                    format!("requires the row vector's last dimension to be 1, but got {}", cx.dims(&row.shape)),
                ));
            }
            cx.same_if_const("rows (M)", &t.shape[tn - 2], &row.shape[rn - 2])?;
            Ok(tile_type(t.shape.clone(), promote_dtypes(t.dtype, row.dtype), None))
        }
        Rule::Sync => Ok(Type::Unknown),
        Rule::TestOp => Ok(cx.ty(0).clone()),
    }
}

fn elementwise_dtype(rule: DtypeRule, d0: DataType, d1: DataType) -> DataType {
    match rule {
        DtypeRule::Promote => promote_dtypes(d0, d1),
        DtypeRule::Lhs => d0,
    }
}

fn same_dtype(cx: &Cx, a: DataType, b: DataType) -> R<()> {
    cx.ensure(a == b, || format!("requires lhs and rhs to have the same dtype, but got {} and {}", a.name(), b.name()))
}

/// `load`/`store` offsets (arg 1) and shapes (arg 2): literal lists of equal, non-zero length.
/// Returns the shapes.
fn offsets_and_shapes(cx: &Cx) -> R<Vec<Expr>> {
    let offsets = cx.list(1)?;
    let shapes = cx.list(2)?;
    cx.ensure(offsets.len() == shapes.len(), || {
        format!(
            "requires offsets and shapes to have same number of dimensions, but got {} offsets and {} shapes",
            offsets.len(),
            shapes.len()
        )
    })?;
    cx.ensure(!shapes.is_empty(), || "requires at least one dimension, but got empty shapes tuple".into())?;
    Ok(shapes.to_vec())
}

/// `tensor.matmul` (§4.1): trans-aware, batch dims broadcast, no K check; `out_dtype` or P.
fn tensor_matmul(cx: &Cx) -> R<Type> {
    let (l, r) = (cx.tensor(0)?, cx.tensor(1)?);
    let (ls, rs) = (&l.shape, &r.shape);
    cx.rank_at_least(0, ls, 1)?;
    cx.rank_at_least(1, rs, 1)?;
    let dtype = match cx.kw("out_dtype") {
        Some(_) => cx.kw_dtype("out_dtype")?,
        None => promote_dtypes(l.dtype, r.dtype),
    };
    let a_trans = cx.kw_bool("a_trans").unwrap_or(false);
    let b_trans = cx.kw_bool("b_trans").unwrap_or(false);
    let (ln, rn) = (ls.len(), rs.len());
    let shape = match (ln, rn) {
        (1, 1) => Vec::new(),
        (2, 1) => vec![ls[0].clone()],
        (1, 2) => vec![rs[1].clone()],
        _ => {
            cx.ensure(ln >= 2 && rn >= 2, || {
                format!(
                    "requires both operands to have at least 2 dimensions for batched matmul, but got {ln} and {rn}"
                )
            })?;
            let mut shape = cx.broadcast(&ls[..ln - 2], &rs[..rn - 2])?;
            shape.push(if a_trans { ls[ln - 1].clone() } else { ls[ln - 2].clone() });
            shape.push(if b_trans { rs[rn - 2].clone() } else { rs[rn - 1].clone() });
            shape
        }
    };
    Ok(make(Shaped::Tensor, shape, dtype))
}
