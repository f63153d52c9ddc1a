//! Name resolution of operator calls (§4.5 unified dispatch, §4.6 spellings): from the dotted
//! name after `pl.` and the arguments to a registered operator, or to a scalar `min`/`max`/`cast`
//! node.

use super::table::{Category, OpDef, TodayForm, OPS};
use super::{ArgIn, ArgValue, KwIn};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{BinOp, KwValue, OpId, Type, VarTable};

/// What a call resolves to.
#[derive(Debug)]
pub(crate) enum Target {
    /// An operator, and how the call's arguments bind to it (a spelling of today's PyPTO may
    /// arrange them otherwise).
    Op(OpId, &'static OpDef, TodayForm),
    /// `pl.min(a, b)` / `pl.max(a, b)` on scalars.
    MinMax(BinOp),
    /// `pl.cast(x, pl.D)` on a scalar (ptoc extension, §3.12).
    ScalarCast,
}

/// Scalar names of unified dispatch.
const SCALAR_NAMES: &[&str] = &["min", "max", "cast"];

fn category_of(prefix: &str) -> Option<Category> {
    [Category::Tensor, Category::Block, Category::Sync, Category::Test].into_iter().find(|c| c.prefix() == prefix)
}

type Entry = (OpId, &'static OpDef);

/// The op of `category` spelled `name` (its IR short name or an alias).
fn find_in(category: Category, name: &str) -> Option<Entry> {
    super::index::by_spelling(category, name).map(|id| (id, super::def(id)))
}

/// Resolves `path` (the dotted name after `pl.`) for these arguments.
pub(crate) fn resolve(
    vars: &VarTable,
    path: &[&str],
    path_span: Span,
    args: &[ArgIn],
    kwargs: &[KwIn],
    span: Span,
) -> Result<Target, Diagnostic> {
    match path {
        [ns, name] => {
            let Some(entry) = category_of(ns).and_then(|c| find_in(c, name)) else {
                let dotted = path.join(".");
                if let Some(why) = super::refused::refused(&dotted) {
                    return Err(refused_op(&dotted, why, path_span));
                }
                return today(vars, &dotted, args, kwargs)
                    .ok_or_else(|| unknown_op(&dotted, path_span, namespaced_suggestion(ns, name)));
            };
            // The tensor constructors pick `*_scalar` themselves (§4.5 item 4).
            let entry =
                if entry.1.category == Category::Tensor { scalar_variant(vars, entry, args, kwargs) } else { entry };
            Ok(Target::Op(entry.0, entry.1, TodayForm::Same))
        }
        [name] => match today(vars, name, args, kwargs) {
            Some(target) => Ok(target),
            None => unified(vars, name, path_span, args, kwargs, span),
        },
        _ => Err(unknown_op(&path.join("."), path_span, None)),
    }
}

/// `pl.NAME(...)` (§4.5).
fn unified(
    vars: &VarTable,
    name: &str,
    path_span: Span,
    args: &[ArgIn],
    kwargs: &[KwIn],
    span: Span,
) -> Result<Target, Diagnostic> {
    if let Some(id) = super::index::unified(name) {
        return Ok(Target::Op(id, super::def(id), TodayForm::Same));
    }
    let in_tensor = find_in(Category::Tensor, name);
    let in_block = find_in(Category::Block, name);
    if in_tensor.is_none() && in_block.is_none() && !SCALAR_NAMES.contains(&name) {
        return Err(unknown_op(name, path_span, closest(name, unified_names())));
    }
    let Some(first) = args.first() else {
        return Err(Diagnostic::error(
            codes::OP_ARG_COUNT,
            span,
            format!("pl.{name} needs a first positional argument (a Tensor or a Tile) to choose its operator"),
        ));
    };
    let ty = match &first.value {
        ArgValue::Expr(e) => vars.type_of(e),
        ArgValue::Value(_) => &Type::Unknown,
    };
    let wrong_first = |why: String| Diagnostic::error(codes::OP_ARG_TYPE, first.span, why);
    let missing = |ns: &str| {
        wrong_first(format!("pl.{name} has no {ns} form: there is no operator {ns}.{name}"))
            .with_label(format!("this is a {}", if ns == "tensor" { "Tensor" } else { "Tile" }))
    };
    match ty {
        Type::Tensor(_) | Type::Tile(_) => {
            let (found, ns) = if matches!(ty, Type::Tensor(_)) { (in_tensor, "tensor") } else { (in_block, "block") };
            let (id, def) = scalar_variant(vars, found.ok_or_else(|| missing(ns))?, args, kwargs);
            Ok(Target::Op(id, def, TodayForm::Same))
        }
        Type::Scalar(_) => match name {
            "min" => Ok(Target::MinMax(BinOp::Min)),
            "max" => Ok(Target::MinMax(BinOp::Max)),
            "cast" => Ok(Target::ScalarCast),
            _ => Err(wrong_first(format!(
                "pl.{name} does not take a Scalar; on scalars only pl.min, pl.max and pl.cast are operators"
            ))),
        },
        other => Err(wrong_first(format!(
            "pl.{name} dispatches on its first argument, which must be a Tensor or a Tile, but found {}",
            match &first.value {
                ArgValue::Value(v) => super::kwvalue::describe(v),
                ArgValue::Expr(_) => other.kind_name().to_string(),
            }
        ))),
    }
}

/// `pl.<dotted>` in today's PyPTO spelling (`tile.add`, `tile.create`, `store`). Its `pl.tile.*`
/// element-wise ops take a tile or a scalar second operand, as its tensor ops do: a scalar picks
/// the scalar variant.
fn today(vars: &VarTable, dotted: &str, args: &[ArgIn], kwargs: &[KwIn]) -> Option<Target> {
    let (id, form) = super::index::today(dotted)?;
    let (id, def) = scalar_variant(vars, (id, super::def(id)), args, kwargs);
    Some(Target::Op(id, def, form))
}

/// The op, or its scalar-operand variant when the second argument (or `rhs=`) is a scalar.
fn scalar_variant(vars: &VarTable, entry: Entry, args: &[ArgIn], kwargs: &[KwIn]) -> Entry {
    let Some(variant) = entry.1.scalar_rhs else { return entry };
    let second = args.get(1).map(|a| &a.value).or_else(|| kwargs.iter().find(|k| k.name == "rhs").map(|k| &k.value));
    let is_scalar = match second {
        Some(ArgValue::Expr(e)) => matches!(vars.type_of(e), Type::Scalar(_)),
        Some(ArgValue::Value(v)) => matches!(v, KwValue::Int(_) | KwValue::Float(_) | KwValue::Bool(_)),
        None => false,
    };
    if is_scalar {
        super::index::by_name(variant).map_or(entry, |id| (id, super::def(id)))
    } else {
        entry
    }
}

/// A call of an operator of today's PyPTO that ptoc does not read ([`super::refused`]).
fn refused_op(dotted: &str, why: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        codes::UNKNOWN_OP,
        span,
        format!("'pl.{dotted}' is an operator of today's PyPTO that ptoc does not read"),
    )
    .with_note(why.to_string())
}

fn unknown_op(dotted: &str, span: Span, suggestion: Option<String>) -> Diagnostic {
    let d = Diagnostic::error(codes::UNKNOWN_OP, span, format!("unknown operator 'pl.{dotted}'"));
    match suggestion {
        Some(s) => d.with_note(format!("did you mean 'pl.{s}'?")),
        None => d,
    }
}

/// For `pl.NS.NAME`: the same name in another namespace, else the closest dotted spelling.
fn namespaced_suggestion(ns: &str, name: &str) -> Option<String> {
    let elsewhere =
        OPS.iter().find(|d| d.category.prefix() != ns && (d.short_name() == name || d.aliases.contains(&name)));
    if let Some(d) = elsewhere {
        return Some(format!("{}.{name}", d.category.prefix()));
    }
    let wanted = format!("{ns}.{name}");
    let spellings = OPS.iter().flat_map(|d| {
        std::iter::once(d.name.to_string()).chain(d.aliases.iter().map(move |a| format!("{}.{a}", d.category.prefix())))
    });
    closest(&wanted, spellings)
}

/// Every name `pl.NAME` accepts.
fn unified_names() -> impl Iterator<Item = &'static str> {
    OPS.iter()
        .filter(|d| matches!(d.category, Category::Tensor | Category::Block))
        .flat_map(|d| d.unified.iter().chain(d.aliases).copied().chain(std::iter::once(d.short_name())))
        .chain(SCALAR_NAMES.iter().copied())
}

/// The candidate nearest to `wanted`, if it is a likely typo ([`crate::suggest::suggest`], the
/// one "did you mean" rule of ptoc).
pub(crate) fn closest<S: AsRef<str>>(wanted: &str, candidates: impl IntoIterator<Item = S>) -> Option<String> {
    let candidates: Vec<S> = candidates.into_iter().collect();
    crate::suggest::suggest(wanted, candidates.iter().map(|c| c.as_ref())).map(str::to_string)
}
