//! The calls of today's PyPTO whose arguments differ from the be8155433 operator they mean (the
//! operator table's `today` column, [`TodayForm`]): their arguments are rearranged into that
//! operator's parameters before binding, so the IR is the one the be8155433 spelling gives and
//! the printer prints the canonical text.

use super::table::{OpDef, TodayForm};
use super::{ArgIn, ArgValue, KwIn};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{Expr, ExprKind, KwValue, MemorySpace, OpId, Type, VarId, VarTable};

type Entry = (OpId, &'static OpDef);

/// What the caller knows of the memory space a variable's tile is in (the lowering knows it of
/// a variable bound to a block op's result), for `store` of an Acc tile.
pub type SpaceOf<'a> = &'a dyn Fn(VarId) -> Option<MemorySpace>;

/// Rearranges a call written in `form` into `entry`'s parameters; the op it means (which for
/// `store` of an Acc tile is `block.l0c_store`).
#[allow(clippy::too_many_arguments)] // the parts of one call, as `build_op_call_in` has them
pub(crate) fn adapt(
    vars: &VarTable,
    form: TodayForm,
    entry: Entry,
    path: &[&str],
    args: &mut Vec<ArgIn>,
    kwargs: &mut Vec<KwIn>,
    space_of: SpaceOf,
    span: Span,
) -> Result<Entry, Diagnostic> {
    match form {
        TodayForm::Same => Ok(entry),
        TodayForm::ColumnReduce => column_reduce(vars, entry, &path.join("."), args, kwargs, span),
        TodayForm::Store => store(vars, entry, args, kwargs, space_of),
    }
}

/// `pl.tile.col_sum(t[, tmp])` / `col_max(t)` / `col_min(t)` → `block.sum/max/min(t, axis=0,
/// keepdim=True)`.
fn column_reduce(
    vars: &VarTable,
    entry: Entry,
    dotted: &str,
    args: &mut Vec<ArgIn>,
    kwargs: &mut Vec<KwIn>,
    span: Span,
) -> Result<Entry, Diagnostic> {
    // Only the column sum has a scratch-tile parameter today (its tree reduction uses it).
    let takes_tmp = entry.0 == super::id::SUM;
    if let Some(k) = kwargs.iter().find(|k| !(takes_tmp && k.name == "tmp_tile")) {
        return Err(Diagnostic::error(
            codes::OP_KWARG,
            k.name_span,
            format!("pl.{dotted} takes no keyword argument '{}'", k.name),
        ));
    }
    let most = if takes_tmp { 2 } else { 1 };
    let given = args.len() + kwargs.len();
    if args.is_empty() || given > most {
        let what = if takes_tmp { "a tile and an optional scratch tile" } else { "one tile" };
        return Err(Diagnostic::error(
            codes::OP_ARG_COUNT,
            span,
            format!("pl.{dotted} takes {what}, but got {given} arguments"),
        ));
    }
    // The scratch tile must be a tile; the axis-0 reduction does not use it.
    let tmp = args.get(1).map(|a| (&a.value, a.span)).or_else(|| kwargs.first().map(|k| (&k.value, k.span)));
    if let Some((value, tmp_span)) = tmp {
        let is_tile = matches!(value, ArgValue::Expr(e) if matches!(vars.type_of(e), Type::Tile(_)));
        if !is_tile {
            return Err(Diagnostic::error(
                codes::OP_ARG_TYPE,
                tmp_span,
                format!("pl.{dotted}'s scratch tile must be a Tile"),
            ));
        }
    }
    args.truncate(1);
    kwargs.clear();
    let kw = |name: &str, value: KwValue| KwIn {
        name: name.to_string(),
        name_span: span,
        value: ArgValue::Value(value),
        span,
    };
    kwargs.push(kw("axis", KwValue::Int(0)));
    kwargs.push(kw("keepdim", KwValue::Bool(true)));
    Ok(entry)
}

/// `pl.store(tile, offsets, output_tensor[, shapes])` → `block.store(tile, offsets, shapes,
/// output_tensor)` with the tile's shape unless given; `block.l0c_store` for an Acc tile. A
/// call whose third positional argument is not a Tensor is be8155433's `store(tile, offsets,
/// shapes, output_tensor)` and is left as written.
fn store(
    vars: &VarTable,
    entry: Entry,
    args: &mut Vec<ArgIn>,
    kwargs: &mut Vec<KwIn>,
    space_of: SpaceOf,
) -> Result<Entry, Diagnostic> {
    let is_tensor = |v: &ArgValue| matches!(v, ArgValue::Expr(e) if matches!(vars.type_of(e), Type::Tensor(_)));
    let has_kw = |kwargs: &[KwIn], n: &str| kwargs.iter().any(|k| k.name == n);
    let today = match args.get(2) {
        Some(third) => is_tensor(&third.value),
        None => has_kw(kwargs, "output_tensor") && !has_kw(kwargs, "shapes"),
    };
    if !today {
        return Ok(entry);
    }
    if args.len() >= 3 {
        let out = args.remove(2);
        let by_keyword =
            |a: ArgIn, name: &str| KwIn { name: name.to_string(), name_span: a.span, value: a.value, span: a.span };
        if args.len() >= 3 {
            let shapes = args.remove(2);
            kwargs.push(by_keyword(shapes, "shapes"));
        }
        kwargs.push(by_keyword(out, "output_tensor"));
    }
    let tile = args.first().map(|a| &a.value).or_else(|| kwargs.iter().find(|k| k.name == "tile").map(|k| &k.value));
    let tile = match tile {
        Some(ArgValue::Expr(e)) => Some(e.clone()),
        _ => None,
    };
    if !has_kw(kwargs, "shapes") {
        // Without a tile the binding reports the missing argument.
        if let Some(Type::Tile(t)) = tile.as_ref().map(|e| vars.type_of(e)) {
            let dims = t.shape.clone();
            let ty = Type::Tuple(dims.iter().map(|d| vars.type_of(d).clone()).collect());
            let span = tile.as_ref().map_or(Span::NONE, |e| e.span);
            let list = Expr::new(ExprKind::MakeTuple(dims), ty, span);
            kwargs.push(KwIn { name: "shapes".to_string(), name_span: span, value: ArgValue::Expr(list), span });
        }
    }
    let in_acc = match tile.as_ref().map(|e| &e.kind) {
        Some(ExprKind::Var(v)) => space_of(*v) == Some(MemorySpace::Acc),
        _ => false,
    };
    if in_acc {
        return Ok((super::id::L0C_STORE, super::def(super::id::L0C_STORE)));
    }
    Ok(entry)
}
