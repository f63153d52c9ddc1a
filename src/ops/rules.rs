//! The result-type rules of [`Rule`] (spec §4 "result" and "checks" columns). Argument kinds
//! were checked by [`super::deduce`] before a rule runs; the accessors still fail gracefully.

use super::deduce::{Cx, DeduceError};
use super::promote::promote_dtypes;
use super::shape::{const_dim, static_numel};
use super::table::{DtypeRule, Rule, Shaped};
use crate::ir::{dims_equal, DataType, Expr, MemorySpace, TensorType, TileLayout, TileType, TileView, Type};

type R<T> = Result<T, DeduceError>;

fn make(shaped: Shaped, shape: Vec<Expr>, dtype: DataType) -> Type {
    match shaped {
        Shaped::Tensor => Type::tensor(TensorType { dtype, shape, memref: None, view: None }),
        Shaped::Tile => tile_type(shape, dtype, None),
    }
}

fn tile_type(shape: Vec<Expr>, dtype: DataType, view: Option<TileView>) -> Type {
    Type::tile(TileType { dtype, shape, memref: None, view })
}

/// `make(shaped, shape, dtype)` where `shape` is argument `i`'s own shape: argument `i`'s type
/// itself (shared, not rebuilt) when it is exactly that, i.e. of that kind and dtype and
/// without a MemRef or view, as most operands of element-wise ops are.
fn like_arg(cx: &Cx, i: usize, shaped: Shaped, shape: &[Expr], dtype: DataType) -> Type {
    let ty = cx.ty(i);
    let same = match (shaped, ty) {
        (Shaped::Tensor, Type::Tensor(t)) => t.dtype == dtype && t.memref.is_none() && t.view.is_none(),
        (Shaped::Tile, Type::Tile(t)) => t.dtype == dtype && t.memref.is_none() && t.view.is_none(),
        _ => false,
    };
    if same {
        ty.clone()
    } else {
        make(shaped, shape.to_vec(), dtype)
    }
}

/// Whether two shapes are equal dim by dim ([`dims_equal`]): then broadcasting them gives the
/// first.
fn same_dims(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| dims_equal(x, y))
}

fn one() -> Expr {
    dim(1)
}

fn dim(n: i64) -> Expr {
    Expr::int(n, DataType::Int64, crate::diag::Span::NONE)
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

pub(super) fn apply(rule: Rule, cx: &Cx) -> R<Type> {
    match rule {
        Rule::TensorCreate => {
            let shape = cx.tuple(0)?;
            cx.positive_dims(0, &shape)?;
            Ok(make(Shaped::Tensor, shape, cx.kw_dtype("dtype")?))
        }
        Rule::TensorRead => tensor_read_rule(cx),
        Rule::TensorDim => {
            let t = cx.tensor(0)?;
            cx.axis(cx.const_int(1)?, t.shape.len())?;
            Ok(Type::Scalar(DataType::Int64))
        }
        Rule::View(shaped) => {
            let (_, dtype) = cx.shaped(0)?;
            let shape = cx.tuple(1)?;
            cx.positive_dims(1, &shape)?;
            Ok(make(shaped, shape, dtype))
        }
        Rule::TensorAssemble => {
            let t = cx.tensor(0)?;
            Ok(like_arg(cx, 0, Shaped::Tensor, &t.shape, t.dtype))
        }
        Rule::Reshape(shaped) => reshape_rule(cx, shaped),
        Rule::Transpose(shaped) => transpose_rule(cx, shaped),
        Rule::Broadcast { shaped, int_only, dtype } => broadcast_rule(cx, shaped, int_only, dtype),
        Rule::KeepShape { shaped, int_only, dtype } => keep_shape_rule(cx, shaped, int_only, dtype),
        Rule::TensorExp => {
            let t = cx.tensor(0)?;
            let dtype = if t.dtype.is_float() { t.dtype } else { DataType::Fp32 };
            Ok(like_arg(cx, 0, Shaped::Tensor, &t.shape, dtype))
        }
        Rule::Cast(shaped) => {
            let (shape, _) = cx.shaped(0)?;
            Ok(like_arg(cx, 0, shaped, shape, cx.kw_dtype("target_type")?))
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
        Rule::Load => load_rule(cx),
        Rule::Store => {
            cx.tile(0)?;
            offsets_and_shapes(cx)?;
            window_inside(cx, &cx.tensor(3)?.shape, "writes")?;
            Ok(cx.ty(3).clone())
        }
        Rule::Move => move_rule(cx),
        Rule::Alloc => alloc_rule(cx),
        Rule::SameTile { min_rank } => {
            let t = cx.tile(0)?;
            cx.rank_at_least(0, &t.shape, min_rank)?;
            Ok(like_arg(cx, 0, Shaped::Tile, &t.shape, t.dtype))
        }
        Rule::NotTile => not_tile_rule(cx),
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
        Rule::Select => select_rule(cx),
        Rule::Matmul => matmul_rule(cx),
        Rule::MatmulAcc => matmul_acc_rule(cx),
        Rule::MatmulBias => matmul_bias_rule(cx),
        Rule::BatchMatmul => batch_matmul_rule(cx),
        Rule::Reduce => {
            let t = cx.tile(0)?;
            let axis = cx.kw_int("axis").ok_or_else(|| cx.missing_kw("axis"))?;
            let axis = cx.axis(axis, t.shape.len())?;
            Ok(reduce(Shaped::Tile, &t.shape, axis, cx.kw_bool("keepdim").unwrap_or(false), t.dtype))
        }
        Rule::RowReduce => row_reduce_rule(cx, None),
        Rule::ColReduce => col_reduce_rule(cx, None),
        Rule::Concat => concat_rule(cx),
        Rule::Gather => gather_rule(cx),
        Rule::GatherMask => gather_mask_rule(cx),
        Rule::Scatter => scatter_rule(cx),
        Rule::Sort32 => sort32_rule(cx),
        Rule::MrgSort => mrgsort_rule(cx),
        Rule::PartBinary => part_rule(cx),
        Rule::Fmod { scalar } => fmod_rule(cx, scalar),
        Rule::ExpandExpdif { row } => expand_expdif_rule(cx, row),
        Rule::Ci => ci_rule(cx),
        Rule::Tri => tri_rule(cx),
        Rule::FillPadExpand => fillpad_expand_rule(cx),
        Rule::GatherB => gatherb_rule(cx),
        Rule::ArgReduce { row: true } => row_reduce_rule(cx, Some(DataType::Int32)),
        Rule::ArgReduce { row: false } => col_reduce_rule(cx, Some(DataType::Int32)),
        Rule::RowExpandBinary => row_expand_binary_rule(cx),
        Rule::Sync => Ok(Type::Unknown),
        Rule::CmpBits => cmp_bits_rule(cx),
        Rule::SelectBits => {
            cx.tile(0)?;
            cx.tile(2)?;
            let t = cx.tile(1)?;
            Ok(like_arg(cx, 1, Shaped::Tile, &t.shape, t.dtype))
        }
        Rule::SetValidShape => {
            let t = cx.tile(0)?;
            cx.rank_exactly(0, &t.shape, 2)?;
            for i in [1, 2] {
                let int = match &cx.args[i].kind {
                    crate::ir::ExprKind::ConstInt(n, _) => *n > 0,
                    _ => cx.ty(i).scalar_dtype().is_some_and(DataType::is_int),
                };
                if !int {
                    return Err(cx.check_at(i, "requires positive integer valid rows and columns".to_string()));
                }
            }
            Ok(tile_type(t.shape.clone(), t.dtype, t.view.clone()))
        }
        Rule::TestOp => Ok(cx.ty(0).clone()),
    }
}

/// The result type of a call under [`Rule::TensorRead`].
fn tensor_read_rule(cx: &Cx) -> R<Type> {
    let t = cx.tensor(0)?;
    let n = cx.tuple(1)?.len();
    cx.ensure(n == t.shape.len(), || {
        format!("requires the number of indices ({n}) to match the tensor rank ({})", t.shape.len())
    })?;
    Ok(Type::Scalar(t.dtype))
}

/// The result type of a call under [`Rule::Reshape`].
fn reshape_rule(cx: &Cx, shaped: Shaped) -> R<Type> {
    let (shape, dtype) = cx.shaped(0)?;
    let new_shape = cx.tuple(1)?;
    cx.positive_dims(1, &new_shape)?;
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

/// The result type of a call under [`Rule::Transpose`].
fn transpose_rule(cx: &Cx, shaped: Shaped) -> R<Type> {
    let (shape, dtype) = cx.shaped(0)?;
    cx.rank_at_least(0, shape, 2)?;
    let a1 = cx.axis(cx.const_int(1)?, shape.len())?;
    let a2 = cx.axis(cx.const_int(2)?, shape.len())?;
    cx.ensure(a1 != a2, || format!("requires two different axes, but got {a1} twice"))?;
    let mut dims = shape.to_vec();
    dims.swap(a1, a2);
    Ok(make(shaped, dims, dtype))
}

/// The result type of a call under [`Rule::Broadcast`].
fn broadcast_rule(cx: &Cx, shaped: Shaped, int_only: bool, dtype: DtypeRule) -> R<Type> {
    let (s0, d0) = cx.shaped(0)?;
    let (s1, d1) = cx.shaped(1)?;
    if int_only {
        cx.require_int(&[d0, d1])?;
    }
    let dtype = elementwise_dtype(dtype, d0, d1);
    if same_dims(s0, s1) {
        return Ok(like_arg(cx, 0, shaped, s0, dtype));
    }
    let shape = cx.broadcast(s0, s1)?;
    Ok(make(shaped, shape, dtype))
}

/// The result type of a call under [`Rule::KeepShape`].
fn keep_shape_rule(cx: &Cx, shaped: Shaped, int_only: bool, dtype: DtypeRule) -> R<Type> {
    let (s0, d0) = cx.shaped(0)?;
    let d1 = cx.dtype(1)?;
    if int_only {
        cx.require_int(&[d0, d1])?;
    }
    Ok(like_arg(cx, 0, shaped, s0, elementwise_dtype(dtype, d0, d1)))
}

/// The result type of a call under [`Rule::Load`].
fn load_rule(cx: &Cx) -> R<Type> {
    let t = cx.tensor(0)?;
    let shapes = offsets_and_shapes(cx)?;
    window_inside(cx, &t.shape, "reads")?;
    let mut view = TileView::default();
    if cx.kw_space("target_memory")? == MemorySpace::Mat {
        view.blayout = TileLayout::ColMajor;
        view.slayout = TileLayout::RowMajor;
    }
    Ok(tile_type(shapes, t.dtype, Some(view)))
}

/// The result type of a call under [`Rule::Move`].
fn move_rule(cx: &Cx) -> R<Type> {
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

/// The result type of a call under [`Rule::Alloc`].
fn alloc_rule(cx: &Cx) -> R<Type> {
    let code = cx.const_int(0)?;
    cx.ensure(MemorySpace::from_index(code).is_some(), || format!("requires a memory space code, but got {code}"))?;
    Ok(Type::MemRef)
}

/// The result type of a call under [`Rule::NotTile`].
fn not_tile_rule(cx: &Cx) -> R<Type> {
    let t = cx.tile(0)?;
    cx.ensure(matches!(t.dtype, DataType::Int16 | DataType::UInt16), || {
        format!("requires INT16 or UINT16 dtype, but got {}", t.dtype.name())
    })?;
    Ok(like_arg(cx, 0, Shaped::Tile, &t.shape, t.dtype))
}

/// The result type of a call under [`Rule::Select`].
fn select_rule(cx: &Cx) -> R<Type> {
    cx.tile(0)?;
    let (l, r) = (cx.tile(1)?, cx.tile(2)?);
    let dtype = promote_dtypes(l.dtype, r.dtype);
    if same_dims(&l.shape, &r.shape) {
        return Ok(like_arg(cx, 1, Shaped::Tile, &l.shape, dtype));
    }
    Ok(tile_type(cx.broadcast(&l.shape, &r.shape)?, dtype, None))
}

/// The result type of a call under [`Rule::Matmul`].
fn matmul_rule(cx: &Cx) -> R<Type> {
    let (l, r) = (cx.tile(0)?, cx.tile(1)?);
    cx.rank_exactly(0, &l.shape, 2)?;
    cx.rank_exactly(1, &r.shape, 2)?;
    cx.same_if_const("inner dimensions (K)", &l.shape[1], &r.shape[0])?;
    same_dtype(cx, l.dtype, r.dtype)?;
    let shape = vec![l.shape[0].clone(), r.shape[1].clone()];
    Ok(tile_type(shape, acc_dtype(l.dtype, r.dtype), Some(matmul_view())))
}

/// The result type of a call under [`Rule::MatmulAcc`].
fn matmul_acc_rule(cx: &Cx) -> R<Type> {
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

/// The result type of a call under [`Rule::MatmulBias`].
fn matmul_bias_rule(cx: &Cx) -> R<Type> {
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

/// The result type of a call under [`Rule::BatchMatmul`].
fn batch_matmul_rule(cx: &Cx) -> R<Type> {
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

/// The result type of a call under [`Rule::RowReduce`] (and [`Rule::ArgReduce`] along rows,
/// with the index dtype `dtype`).
fn row_reduce_rule(cx: &Cx, dtype: Option<DataType>) -> R<Type> {
    let t = cx.tile(0)?;
    cx.rank_at_least(0, &t.shape, 2)?;
    let mut shape = t.shape.clone();
    if let Some(last) = shape.last_mut() {
        *last = one();
    }
    Ok(tile_type(shape, dtype.unwrap_or(t.dtype), None))
}

/// The result type of a call under [`Rule::ColReduce`] (and [`Rule::ArgReduce`] down columns,
/// with the index dtype `dtype`): the row `[1, N]` of an `[M, N]` tile.
fn col_reduce_rule(cx: &Cx, dtype: Option<DataType>) -> R<Type> {
    let t = cx.tile(0)?;
    cx.rank_at_least(0, &t.shape, 2)?;
    let mut shape = t.shape.clone();
    let n = shape.len();
    shape[n - 2] = one();
    Ok(tile_type(shape, dtype.unwrap_or(t.dtype), None))
}

/// The result type of a call under [`Rule::Concat`].
fn concat_rule(cx: &Cx) -> R<Type> {
    let (a, b) = (cx.tile(0)?, cx.tile(1)?);
    for (i, t) in [(0, &a), (1, &b)] {
        cx.ensure(t.shape.len() == 2, || format!("requires 2-D tiles, but argument {i} is {}", cx.dims(&t.shape)))?;
    }
    cx.ensure(a.dtype == b.dtype, || {
        format!("requires tiles of one dtype, but got {} and {}", a.dtype.name(), b.dtype.name())
    })?;
    cx.same_if_const("rows", &a.shape[0], &b.shape[0])?;
    let (Some(c0), Some(c1)) = (const_dim(&a.shape[1]), const_dim(&b.shape[1])) else {
        return Err(cx.check_at(1, "requires static column counts".to_string()));
    };
    Ok(tile_type(vec![a.shape[0].clone(), dim(c0 + c1)], a.dtype, None))
}

/// The result type of a call under [`Rule::Gather`].
fn gather_rule(cx: &Cx) -> R<Type> {
    let (src, idx, tmp) = (cx.tile(0)?, cx.tile(1)?, cx.tile(2)?);
    for (i, t) in [(0, src), (1, idx), (2, tmp)] {
        cx.rank_exactly(i, &t.shape, 2)?;
    }
    if !matches!(src.dtype.bits(), 16 | 32) {
        return Err(cx.check_at(0, format!("requires a 16- or 32-bit source, but got {}", src.dtype.name())));
    }
    if const_dim(&src.shape[1]).is_none() {
        return Err(cx.check_at(0, "requires a static source column count".to_string()));
    }
    for (i, t) in [(1, idx), (2, tmp)] {
        if t.dtype != DataType::Int32 {
            return Err(cx.check_at(
                i,
                format!("requires INT32 indices and scratch, but argument {} is {}", i + 1, t.dtype.name()),
            ));
        }
    }
    cx.same_if_const("rows of indices and tmp", &idx.shape[0], &tmp.shape[0])?;
    cx.same_if_const("columns of indices and tmp", &idx.shape[1], &tmp.shape[1])?;
    Ok(tile_type(idx.shape.clone(), src.dtype, None))
}

/// What mask pattern `p` of [`Rule::GatherMask`] keeps (pto-isa's `MaskPattern`, `type.hpp`):
/// of each `k` columns the `first`-th, and its C++ name. 1 `P0101` and 2 `P1010` keep every
/// second column, the first or the second; 3–6 (`P0001` … `P1000`) every fourth; 7 `P1111` all.
pub fn mask_pattern(p: i64) -> Option<(usize, usize, &'static str)> {
    Some(match p {
        1 => (2, 0, "P0101"),
        2 => (2, 1, "P1010"),
        3 => (4, 0, "P0001"),
        4 => (4, 1, "P0010"),
        5 => (4, 2, "P0100"),
        6 => (4, 3, "P1000"),
        7 => (1, 0, "P1111"),
        _ => return None,
    })
}

/// The result type of a call under [`Rule::GatherMask`].
/// The `output_dtype` keyword of a gather (the source's bits read as another dtype of its
/// width), the source's dtype when absent.
fn same_width_output_dtype(cx: &Cx, src: DataType) -> R<DataType> {
    let dtype = match cx.kw("output_dtype") {
        None => src,
        Some(_) => cx.kw_dtype("output_dtype")?,
    };
    if dtype.bits() != src.bits() {
        return Err(cx.check(format!(
            "requires output_dtype of the source's width ({}, {} bits), but got {}",
            src.name(),
            src.bits(),
            dtype.name()
        )));
    }
    Ok(dtype)
}

fn gather_mask_rule(cx: &Cx) -> R<Type> {
    let src = cx.tile(0)?;
    cx.rank_exactly(0, &src.shape, 2)?;
    if !matches!(src.dtype.bits(), 16 | 32) {
        return Err(cx.check_at(0, format!("requires a 16- or 32-bit source, but got {}", src.dtype.name())));
    }
    let pattern = cx.kw_int("mask_pattern").ok_or_else(|| cx.missing_kw("mask_pattern"))?;
    let Some((k, _, _)) = mask_pattern(pattern) else {
        return Err(cx.check(format!("requires mask_pattern in range [1, 7], but got {pattern}")));
    };
    let Some(cols) = const_dim(&src.shape[1]).filter(|c| *c > 0 && c % k as i64 == 0) else {
        return Err(cx.check_at(
            0,
            format!(
                "with mask_pattern={pattern} requires a static column count divisible by {k}, but got {}",
                cx.dims(&src.shape)
            ),
        ));
    };
    let dtype = same_width_output_dtype(cx, src.dtype)?;
    Ok(tile_type(vec![src.shape[0].clone(), dim(cols / k as i64)], dtype, None))
}

/// The result type of a call under [`Rule::Scatter`].
fn scatter_rule(cx: &Cx) -> R<Type> {
    let (dst, src, idx) = (cx.tile(0)?, cx.tile(1)?, cx.tile(2)?);
    for (i, t) in [(0, dst), (1, src), (2, idx)] {
        cx.rank_exactly(i, &t.shape, 2)?;
    }
    if src.dtype != dst.dtype || !matches!(dst.dtype.bits(), 8 | 16 | 32) {
        return Err(cx.check_at(
            1,
            format!(
                "requires a source of the destination's 8-, 16- or 32-bit dtype, but got {} and {}",
                dst.dtype.name(),
                src.dtype.name()
            ),
        ));
    }
    let want = if dst.dtype.bits() == 32 { DataType::Int32 } else { DataType::Int16 };
    if idx.dtype != want || !same_dims(&idx.shape, &src.shape) {
        return Err(cx.check_at(
            2,
            format!(
                "requires {} indexes of the source's shape {}, but got {} {}",
                want.name(),
                cx.dims(&src.shape),
                idx.dtype.name(),
                cx.dims(&idx.shape)
            ),
        ));
    }
    Ok(tile_type(dst.shape.clone(), dst.dtype, None))
}

/// Why an FP16 sort is refused: its 8-byte record is four FP16 elements, two of them the
/// index's bits, which ptoc's FP16 values (numbers, not bit patterns) cannot hold exactly.
const SORT_FP16: &str = "an FP16 record holds the index's bits in two FP16 elements, which ptoc does not keep \
                         bit for bit: sort FP32 values";

/// The result type of a call under [`Rule::Sort32`].
fn sort32_rule(cx: &Cx) -> R<Type> {
    let (src, idx) = (cx.tile(0)?, cx.tile(1)?);
    cx.rank_exactly(0, &src.shape, 2)?;
    if src.dtype != DataType::Fp32 {
        let why = if src.dtype == DataType::Fp16 { SORT_FP16 } else { "pto-isa sorts FP16 or FP32 values" };
        return Err(cx.check_at(0, format!("requires FP32 values, but got {} ({why})", src.dtype.name())));
    }
    let Some(cols) = const_dim(&src.shape[1]).filter(|c| *c > 0 && c % 32 == 0) else {
        return Err(cx.check_at(
            0,
            format!("requires a static column count that is a multiple of 32, but got {}", cx.dims(&src.shape)),
        ));
    };
    if idx.dtype != DataType::UInt32 || !same_dims(&idx.shape, &src.shape) {
        return Err(cx.check_at(
            1,
            format!(
                "requires UINT32 indices of the source's shape {}, but got {} {}",
                cx.dims(&src.shape),
                idx.dtype.name(),
                cx.dims(&idx.shape)
            ),
        ));
    }
    Ok(tile_type(vec![src.shape[0].clone(), dim(2 * cols)], DataType::Fp32, None))
}

/// The result type of a call under [`Rule::MrgSort`].
fn mrgsort_rule(cx: &Cx) -> R<Type> {
    let src = cx.tile(0)?;
    if src.dtype != DataType::Fp32 {
        let why = if src.dtype == DataType::Fp16 { SORT_FP16 } else { "pto-isa merges FP16 or FP32 records" };
        return Err(cx.check_at(0, format!("requires FP32 records, but got {} ({why})", src.dtype.name())));
    }
    let (Some(1), Some(cols)) = (src.shape.first().and_then(const_dim), src.shape.get(1).and_then(const_dim)) else {
        return Err(cx.check_at(0, format!("requires a [1, C] tile of static C, but got {}", cx.dims(&src.shape))));
    };
    if src.shape.len() != 2 {
        return Err(cx.check_at(0, format!("requires a [1, C] tile of static C, but got {}", cx.dims(&src.shape))));
    }
    let len = match &cx.args[1].kind {
        crate::ir::ExprKind::ConstInt(n, _) => *n,
        _ => return Err(cx.check_at(1, "requires a constant block_len".to_string())),
    };
    if len <= 0 || len % 64 != 0 {
        return Err(cx.check_at(1, format!("requires block_len to be a positive multiple of 64, but got {len}")));
    }
    let groups = cols / (4 * len);
    if cols % (4 * len) != 0 || !(1..=255).contains(&groups) {
        return Err(cx.check_at(
            1,
            format!("requires the columns ({cols}) to be 4 · block_len ({}) times a count in [1, 255]", 4 * len),
        ));
    }
    Ok(tile_type(src.shape.clone(), DataType::Fp32, None))
}

/// The valid extents of a tile type, one per axis (its shape's where it has no valid shape).
fn valid_extents(t: &TileType) -> &[Expr] {
    t.view.as_ref().map(|v| v.valid_shape.as_slice()).filter(|v| !v.is_empty()).unwrap_or(&t.shape)
}

/// The result type of a call under [`Rule::PartBinary`].
fn part_rule(cx: &Cx) -> R<Type> {
    let (a, b) = (cx.tile(0)?, cx.tile(1)?);
    cx.rank_exactly(0, &a.shape, 2)?;
    if !matches!(a.dtype, DataType::Int16 | DataType::Int32 | DataType::Fp16 | DataType::Fp32) {
        return Err(cx.check_at(
            0,
            format!(
                "requires an INT16, INT32, FP16 or FP32 tile (pto-isa's a2a3 instruction takes these), but got {}",
                a.dtype.name()
            ),
        ));
    }
    if b.dtype != a.dtype || !same_dims(&b.shape, &a.shape) {
        return Err(cx.check_at(
            1,
            format!(
                "requires src1 of src0's shape and dtype ({} {}), but got {} {}",
                cx.dims(&a.shape),
                a.dtype.name(),
                cx.dims(&b.shape),
                b.dtype.name()
            ),
        ));
    }
    let (va, vb) = (valid_extents(a), valid_extents(b));
    let past = va.iter().zip(vb).any(|(x, y)| matches!((const_dim(x), const_dim(y)), (Some(x), Some(y)) if y > x));
    if past {
        return Err(cx.check_at(
            1,
            format!(
                "requires src1's valid region inside src0's, the result's, but got src0 valid {} and src1 valid {} \
                 (pto-isa's a2a3 instruction combines over the destination's valid region and asserts when a \
                 source's extends past it)",
                cx.dims(va),
                cx.dims(vb)
            ),
        ));
    }
    Ok(tile_type(a.shape.clone(), a.dtype, None))
}

/// The result type of a call under [`Rule::Fmod`].
fn fmod_rule(cx: &Cx, scalar: bool) -> R<Type> {
    let a = cx.tile(0)?;
    cx.rank_exactly(0, &a.shape, 2)?;
    if a.dtype != DataType::Fp32 {
        return Err(cx.check_at(
            0,
            format!(
                "requires an FP32 tile (pto-isa's a2a3 instruction computes in FP32 only), but got {}",
                a.dtype.name()
            ),
        ));
    }
    if scalar {
        let d = cx.dtype(1)?;
        if d != DataType::Fp32 {
            return Err(cx.check_at(1, format!("requires an FP32 scalar of the tile's dtype, but got {}", d.name())));
        }
    } else {
        let b = cx.tile(1)?;
        if b.dtype != a.dtype || !same_dims(&b.shape, &a.shape) {
            return Err(cx.check_at(
                1,
                format!(
                    "requires rhs of lhs's shape and dtype ({} {}), but got {} {}",
                    cx.dims(&a.shape),
                    a.dtype.name(),
                    cx.dims(&b.shape),
                    b.dtype.name()
                ),
            ));
        }
        let (va, vb) = (valid_extents(a), valid_extents(b));
        if !same_dims(va, vb) {
            return Err(cx.check_at(
                1,
                format!(
                    "requires rhs valid over lhs's valid region, but got lhs valid {} and rhs valid {} (pto-isa's \
                     a2a3 TFMOD asserts that both sources' valid shapes are the destination's)",
                    cx.dims(va),
                    cx.dims(vb)
                ),
            ));
        }
    }
    Ok(tile_type(a.shape.clone(), a.dtype, None))
}

/// The result type of a call under [`Rule::ExpandExpdif`].
fn expand_expdif_rule(cx: &Cx, row: bool) -> R<Type> {
    let (t, v) = (cx.tile(0)?, cx.tile(1)?);
    cx.rank_exactly(0, &t.shape, 2)?;
    if !matches!(t.dtype, DataType::Fp16 | DataType::Fp32) {
        return Err(cx.check_at(
            0,
            format!(
                "requires an FP16 or FP32 tile (pto-isa's instruction computes an exponential), but got {}",
                t.dtype.name()
            ),
        ));
    }
    let want = if row { vec![t.shape[0].clone(), one()] } else { vec![one(), t.shape[1].clone()] };
    let fits = v.shape.len() == 2
        && v.shape.iter().zip(&want).all(|(a, b)| match (const_dim(a), const_dim(b)) {
            (Some(x), Some(y)) => x == y,
            _ => dims_equal(a, b),
        });
    if v.dtype != t.dtype || !fits {
        return Err(cx.check_at(
            1,
            format!(
                "requires a {} vector {} of the tile's dtype {}, but got {} {}",
                if row { "column" } else { "row" },
                cx.dims(&want),
                t.dtype.name(),
                cx.dims(&v.shape),
                v.dtype.name()
            ),
        ));
    }
    Ok(like_arg(cx, 0, Shaped::Tile, &t.shape, t.dtype))
}

/// The `dtype` kwarg of a generator (INT32 when the call has none).
fn generated_dtype(cx: &Cx) -> R<DataType> {
    match cx.kw("dtype") {
        None => Ok(DataType::Int32),
        Some(_) => cx.kw_dtype("dtype"),
    }
}

/// The result type of a call under [`Rule::Ci`].
fn ci_rule(cx: &Cx) -> R<Type> {
    let dtype = generated_dtype(cx)?;
    if !matches!(dtype, DataType::Int16 | DataType::Int32) {
        return Err(cx.check(format!("requires dtype INT16 or INT32, but got {}", dtype.name())));
    }
    let start = cx.dtype(0)?;
    if start != dtype {
        return Err(cx.check_at(0, format!("requires a start of the dtype {}, but got {}", dtype.name(), start.name())));
    }
    let shape = cx.static_shape(1)?;
    let (leading, last) = shape.split_at(shape.len() - 1);
    let one_row = leading.iter().all(|d| const_dim(d) == Some(1)) && shape.len() <= 2;
    if !one_row || const_dim(&last[0]) == Some(1) {
        return Err(cx.check_at(
            1,
            format!(
                "requires a one-row shape [1, N] or [N] with N > 1 (pto-isa's TCI writes the first row only), but got {}",
                cx.dims(&shape)
            ),
        ));
    }
    Ok(tile_type(shape, dtype, None))
}

/// The result type of a call under [`Rule::Tri`].
fn tri_rule(cx: &Cx) -> R<Type> {
    let dtype = generated_dtype(cx)?;
    if !matches!(
        dtype,
        DataType::Int16 | DataType::Int32 | DataType::UInt16 | DataType::UInt32 | DataType::Fp16 | DataType::Fp32
    ) {
        return Err(cx.check(format!(
            "requires dtype INT16, INT32, UINT16, UINT32, FP16 or FP32 (pto-isa's a2a3 TTRI takes these), but got {}",
            dtype.name()
        )));
    }
    let diagonal = cx.dtype(0)?;
    if !diagonal.is_int() {
        return Err(cx.check_at(0, format!("requires an integer diagonal, but got {}", diagonal.name())));
    }
    let shape = cx.static_shape(1)?;
    cx.rank_exactly(1, &shape, 2)?;
    if cx.args.len() > 2 {
        let valid = cx.list(2)?;
        if valid.iter().any(|v| const_dim(v).is_none()) {
            return Err(cx.check_at(2, format!("requires a constant valid_shape, but got {}", cx.dims(valid))));
        }
    }
    Ok(tile_type(shape, dtype, None))
}

/// The result type of a call under [`Rule::FillPadExpand`].
fn fillpad_expand_rule(cx: &Cx) -> R<Type> {
    let t = cx.tile(0)?;
    cx.rank_exactly(0, &t.shape, 2)?;
    if !matches!(t.dtype.bits(), 8 | 16 | 32) {
        return Err(cx.check_at(0, format!("requires an 8-, 16- or 32-bit tile, but got {}", t.dtype.name())));
    }
    let shape = cx.static_shape(1)?;
    cx.rank_exactly(1, &shape, 2)?;
    let covers = shape.iter().zip(&t.shape).all(|(d, s)| match (const_dim(d), const_dim(s)) {
        (Some(d), Some(s)) => d >= s,
        _ => false,
    });
    if !covers {
        return Err(cx.check_at(
            1,
            format!(
                "requires a shape at least the tile's {} on each axis, but got {}",
                cx.dims(&t.shape),
                cx.dims(&shape)
            ),
        ));
    }
    Ok(tile_type(shape, t.dtype, None))
}

/// The result type of a call under [`Rule::GatherB`].
fn gatherb_rule(cx: &Cx) -> R<Type> {
    let (src, off) = (cx.tile(0)?, cx.tile(1)?);
    cx.rank_exactly(0, &src.shape, 2)?;
    if !matches!(src.dtype.bits(), 8 | 16 | 32) {
        return Err(cx.check_at(0, format!("requires an 8-, 16- or 32-bit source, but got {}", src.dtype.name())));
    }
    cx.rank_exactly(1, &off.shape, 2)?;
    let Some(k) = const_dim(&off.shape[1]).filter(|_| off.dtype == DataType::UInt32) else {
        return Err(cx.check_at(
            1,
            format!(
                "requires UINT32 offsets of a static column count, but got {} {}",
                off.dtype.name(),
                cx.dims(&off.shape)
            ),
        ));
    };
    let dtype = same_width_output_dtype(cx, src.dtype)?;
    let per_block = 256 / i64::from(dtype.bits());
    Ok(tile_type(vec![off.shape[0].clone(), dim(k * per_block)], dtype, None))
}

/// The result type of a call under [`Rule::RowExpandBinary`].
fn row_expand_binary_rule(cx: &Cx) -> R<Type> {
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
    Ok(like_arg(cx, 0, Shaped::Tile, &t.shape, promote_dtypes(t.dtype, row.dtype)))
}

/// The result type of a call under [`Rule::CmpBits`].
fn cmp_bits_rule(cx: &Cx) -> R<Type> {
    let t = cx.tile(0)?;
    let (rows, cols) = match t.shape.as_slice() {
        [c] => (Some(1), const_dim(c)),
        [r, c] => (const_dim(r), const_dim(c)),
        _ => (None, None),
    };
    let (Some(rows), Some(cols)) = (rows, cols) else {
        return Err(
            cx.check_at(0, format!("requires a 1-D or 2-D tile of static shape, but got {}", cx.dims(&t.shape)))
        );
    };
    let (rows, cols, bytes) = super::shape::mask_layout(rows, cols);
    let shape = vec![dim(rows), dim(bytes)];
    // TCMPS packs the bits of a row into the first ⌈C/8⌉ bytes of the mask's valid row.
    let view = TileView { valid_shape: vec![dim(rows), dim((cols + 7) / 8)], ..TileView::default() };
    Ok(tile_type(shape, DataType::UInt8, Some(view)))
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
    cx.positive_dims(2, shapes)?;
    Ok(shapes.to_vec())
}

/// The window `offsets` (arg 1) + `shapes` (arg 2) lies inside the tensor's `dims`, checked on
/// every dimension where all three are constants. The reference does not check it; a window
/// outside its tensor reads or writes memory the program does not own, so ptoc refuses it where
/// it is written (a dynamic offset is checked on the device by nobody: see docs/language.md).
fn window_inside(cx: &Cx, dims: &[Expr], verb: &str) -> R<()> {
    let (offsets, shapes) = (cx.list(1)?, cx.list(2)?);
    if dims.len() != offsets.len() {
        return Ok(());
    }
    for (k, ((o, s), d)) in offsets.iter().zip(shapes).zip(dims).enumerate() {
        let (o, s, d) = (const_dim(o), const_dim(s), const_dim(d));
        if let Some(o) = o {
            if o < 0 {
                return Err(cx.check_at(1, format!("has a negative offset {o} in dimension {k}")));
            }
        }
        if let (Some(o), Some(s), Some(d)) = (o, s, d) {
            if o.checked_add(s).is_none_or(|end| end > d) {
                return Err(cx.check_at(
                    1,
                    format!(
                        "{verb} outside its tensor: the window [{o}, {}) of dimension {k} exceeds the tensor's extent {d}",
                        o.saturating_add(s)
                    ),
                ));
            }
        }
    }
    Ok(())
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
