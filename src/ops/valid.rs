//! Valid shapes (partial tiles): the part of a tile that ops compute on and stores write, as
//! pto-isa's tiles carry it (valid rows and columns, static or given at run time). A tile
//! type's valid shape is its view's `valid_shape`; empty means the whole tile.
//!
//! The rule of each op's result, applied after its result-type rule ([`super::rules`]):
//! `block.load` and `block.create_tile` take it from their `valid_shape` argument,
//! `block.set_validshape` from its row and column arguments, `block.fillpad` makes the whole
//! tile valid (it writes the pad value over the rest) with the pad value of its `pad_value`
//! kwarg; element-wise ops keep the valid shape of their first partial operand of the result's
//! shape (pto-isa computes over the destination's valid region), and reductions reduce the
//! valid part only (the reduced axis becomes one valid element, or goes). A valid shape equal
//! to the shape is no valid shape: the type is that of the whole tile.

use super::deduce::{Cx, DeduceError};
use super::id;
use super::shape::const_dim;
use super::table::{OpDef, Rule, Shaped};
use crate::ir::{dims_equal, DataType, Expr, ExprKind, KwValue, TileType, TileView, Type};
use std::sync::Arc;

type R<T> = Result<T, DeduceError>;

/// The IR argument that holds the `valid_shape` of `block.load` / `block.create_tile`.
fn valid_arg(cx: &Cx) -> Option<usize> {
    match cx.def.rule {
        Rule::Load => Some(3),
        Rule::CreateTile => Some(1),
        Rule::Tri => Some(2),
        _ => None,
    }
}

/// `ty`, the result of the call `cx` by its result-type rule, with the valid shape (and the
/// pad value of `block.fillpad`) of the result.
pub(super) fn apply(cx: &Cx, ty: Type) -> R<Type> {
    let Type::Tile(t) = &ty else { return Ok(ty) };
    let op = super::table::id_of(cx.def.name);
    let mut pad = None;
    let valid: Vec<Expr> = if let Some(i) = valid_arg(cx) {
        match cx.args.get(i) {
            Some(_) => given(cx, i, &t.shape)?,
            None => return Ok(ty),
        }
    } else if op == id::SET_VALIDSHAPE {
        vec![cx.args[1].clone(), cx.args[2].clone()]
    } else if matches!(op, id::FILLPAD | id::FILLPAD_INPLACE | id::FILLPAD_EXPAND) {
        pad = match cx.kw("pad_value") {
            Some(KwValue::Pad(p)) => Some(p),
            _ => None,
        };
        Vec::new()
    } else {
        match inherited(cx, &t.shape) {
            Some(v) => v,
            None => return Ok(ty),
        }
    };
    let valid = if valid.len() == t.shape.len() && valid.iter().zip(&t.shape).all(|(v, s)| dims_equal(v, s)) {
        Vec::new()
    } else {
        valid
    };
    let has_valid = t.view.as_ref().is_some_and(|v| !v.valid_shape.is_empty());
    if valid.is_empty() && pad.is_none() && !has_valid {
        return Ok(ty);
    }
    let had_view = t.view.is_some();
    let mut t: TileType = (**t).clone();
    let view = t.view.get_or_insert_with(TileView::default);
    view.valid_shape = valid;
    if let Some(p) = pad {
        view.pad = p;
    }
    if !had_view && *view == TileView::default() {
        t.view = None;
    }
    Ok(Type::Tile(Arc::new(t)))
}

/// Whether `op` computes on whole tiles whatever their valid shapes (a move, a matmul, a view,
/// a reshape, a transpose, a packed compare, a gather, whose positions are into the whole
/// source, a sort, whose runs are the whole rows' and whose valid extents pto-isa's a2a3 and
/// CPU simulator read from different operands): a partial operand of it has no meaning the valid
/// shape rules give, so the C++ form rule refuses one.
pub fn ignores_valid_shape(op: crate::ir::OpId) -> bool {
    matches!(
        super::def(op).rule,
        Rule::Move
            | Rule::Matmul
            | Rule::MatmulAcc
            | Rule::MatmulBias
            | Rule::BatchMatmul
            | Rule::View(Shaped::Tile)
            | Rule::Reshape(Shaped::Tile)
            | Rule::Transpose(Shaped::Tile)
            | Rule::CmpBits
            | Rule::Gather
            | Rule::GatherMask
            | Rule::GatherB
            | Rule::Sort32
            | Rule::MrgSort
    )
}

/// Today's PyPTO also spells a load's `valid_shape` argument `valid_shapes=` (its IR
/// constructor's name): renamed for the ops that take one.
pub(super) fn today_kwarg(def: &OpDef, kwargs: &mut [super::KwIn]) {
    if !def.params.iter().any(|p| p.name == "valid_shape") {
        return;
    }
    for k in kwargs.iter_mut().filter(|k| k.name == "valid_shapes") {
        k.name = "valid_shape".to_string();
    }
}

/// Drops the `valid_shape` argument of a call of `block.load` / `block.create_tile` (bound, its
/// type deduced) when it is the shape: such a call means the whole tile, and is the call
/// without it.
pub(super) fn drop_whole(def: &OpDef, args: &mut Vec<Expr>) {
    let (valid, shape) = match def.rule {
        Rule::Load => (3, 2),
        Rule::CreateTile => (1, 0),
        _ => return,
    };
    let whole = match (args.get(valid).map(|e| &e.kind), args.get(shape).map(|e| &e.kind)) {
        (Some(ExprKind::MakeTuple(v)), Some(ExprKind::MakeTuple(s))) => {
            v.len() == s.len() && v.iter().zip(s).all(|(a, b)| dims_equal(a, b))
        }
        _ => false,
    };
    if whole {
        args.truncate(valid);
    }
}

/// The valid shape given as argument `i` of a call whose result has shape `shape`: one extent
/// per axis, each a positive integer at most the axis's size or an integer scalar.
fn given(cx: &Cx, i: usize, shape: &[Expr]) -> R<Vec<Expr>> {
    let valid = cx.list(i)?.to_vec();
    if valid.len() != shape.len() {
        return Err(cx.check_at(
            i,
            format!("requires a valid_shape of one extent per axis ({}), but got {}", shape.len(), cx.dims(&valid)),
        ));
    }
    for (v, s) in valid.iter().zip(shape) {
        let int = match &v.kind {
            ExprKind::ConstInt(..) => true,
            _ => cx.vars.type_of(v).scalar_dtype().is_some_and(DataType::is_int),
        };
        if !int {
            return Err(cx.check_at(i, format!("requires integer valid_shape extents, but got {}", cx.dims(&valid))));
        }
        if let Some(n) = const_dim(v) {
            let fits = n > 0 && const_dim(s).is_none_or(|s| n <= s);
            if !fits {
                return Err(cx.check_at(
                    i,
                    format!(
                        "requires each valid_shape extent to be positive and at most the shape ({}), but got {}",
                        cx.dims(shape),
                        cx.dims(&valid)
                    ),
                ));
            }
        }
    }
    Ok(valid)
}

/// The valid shape an element-wise op or a reduction gives its result of shape `shape` (empty:
/// the whole tile); `None` for the other ops, whose rule gives the result's view.
fn inherited(cx: &Cx, shape: &[Expr]) -> Option<Vec<Expr>> {
    let valid_of = |i: usize| -> Option<(&[Expr], &[Expr])> {
        match cx.args.get(i).map(|a| cx.vars.type_of(a)) {
            Some(Type::Tile(t)) => {
                t.view.as_ref().filter(|v| !v.valid_shape.is_empty()).map(|v| (v.valid_shape.as_slice(), &*t.shape))
            }
            _ => None,
        }
    };
    let same_shape = |s: &[Expr]| s.len() == shape.len() && s.iter().zip(shape).all(|(a, b)| dims_equal(a, b));
    let first_of =
        |args: &[usize]| args.iter().filter_map(|&i| valid_of(i)).find(|(_, s)| same_shape(s)).map(|(v, _)| v.to_vec());
    let elementwise = match cx.def.rule {
        Rule::Broadcast { shaped: Shaped::Tile, .. }
        | Rule::KeepShape { shaped: Shaped::Tile, .. }
        | Rule::Cast(Shaped::Tile)
        | Rule::SameTile { .. }
        | Rule::NotTile
        | Rule::RowExpandBinary
        | Rule::ExpandExpdif { .. }
        | Rule::AddC
        | Rule::AddSC
        | Rule::Fmod { .. } => Some(&[0usize, 1, 2][..]),
        Rule::Select => Some(&[1usize, 2][..]),
        // The destination's valid region is src0's (today's PyPTO types it so).
        Rule::PartBinary => Some(&[0usize][..]),
        Rule::SelectBits => Some(&[1usize][..]),
        _ => None,
    };
    if let Some(args) = elementwise {
        return Some(first_of(args).unwrap_or_default());
    }
    if !matches!(cx.def.rule, Rule::RowReduce | Rule::Reduce) {
        return None;
    }
    let Some((valid, _)) = valid_of(0) else { return Some(Vec::new()) };
    Some(match cx.def.rule {
        Rule::RowReduce => {
            let mut v = valid.to_vec();
            if let Some(last) = v.last_mut() {
                *last = one();
            }
            v
        }
        Rule::Reduce => {
            let rank = valid.len();
            let Some(axis) = cx.kw_int("axis").and_then(|a| cx.axis(a, rank).ok()) else { return Some(Vec::new()) };
            let mut v = valid.to_vec();
            if cx.kw_bool("keepdim").unwrap_or(false) {
                v[axis] = one();
            } else {
                v.remove(axis);
            }
            v
        }
        _ => Vec::new(),
    })
}

fn one() -> Expr {
    Expr::int(1, DataType::Int64, crate::diag::Span::NONE)
}
