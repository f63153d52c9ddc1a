//! Binding a call's positional and keyword arguments to an operator's constructor parameters
//! (§4.7), converting plain values the way the Python constructors do and inserting their
//! kwarg defaults, in stored order.
//!
//! Positional binding has to accept both the constructor's signature and the printed form of
//! the IR (which lists all IR arguments first): an expression binds to the next unbound IR
//! argument parameter and, once those are used up, to the next kwarg parameter (`cast(t, pl.FP16,
//! 2)`); a dtype, enum member or string binds to the next parameter that takes a plain value (a
//! kwarg, or `block.alloc`'s memory space). So `pl.block.full([64, 64], pl.FP32, 0.0)` and the
//! printed `pl.block.full([64, 64], 0.0, dtype=pl.FP32)` bind alike.

use super::deduce::{DeduceError, Fault};
use super::kwvalue::{self, coerce, literal_value};
use super::shape::fmt_type;
use super::table::{ArgConv, OpDef, Param, Slot};
use super::{dispatch, ArgIn, ArgValue, KwIn};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{DataType, Expr, ExprKind, KwValue, VarTable};

/// The most constructor parameters an operator has (checked by a test over the table): the
/// binding works in fixed arrays of this size instead of allocating per call.
pub(crate) const MAX_PARAMS: usize = 8;

/// A call's arguments after binding, with the spans errors point at.
pub(crate) struct Bound {
    pub args: Vec<Expr>,
    /// The spans of `args` (the rest are unused).
    pub arg_spans: [Span; MAX_PARAMS],
    pub kwargs: Vec<(&'static str, KwValue)>,
    /// Spans of the kwargs the author wrote (by parameter name).
    pub kw_spans: Vec<(&'static str, Span)>,
    /// The span of the whole call.
    pub span: Span,
}

impl Bound {
    /// Turns a deduction error into a diagnostic pointing at the offending argument.
    pub fn diagnostic(&self, e: DeduceError) -> Diagnostic {
        let arg_span =
            |i: usize| self.arg_spans[..self.args.len().min(MAX_PARAMS)].get(i).copied().unwrap_or(self.span);
        let (code, span) = match &e.fault {
            Fault::Count => (codes::OP_ARG_COUNT, self.span),
            Fault::Arg(i) => (codes::OP_ARG_TYPE, arg_span(*i)),
            Fault::Kwarg(k) => {
                (codes::OP_KWARG, self.kw_spans.iter().find(|(n, _)| n == k).map_or(self.span, |(_, s)| *s))
            }
            Fault::Check(Some(i)) => (codes::OP_CHECK, arg_span(*i)),
            Fault::Check(None) => (codes::OP_CHECK, self.span),
        };
        Diagnostic::error(code, span, e.message)
    }
}

/// A value given for a parameter.
struct Given {
    value: ArgValue,
    span: Span,
    /// Given by keyword (errors about it are kwarg errors).
    by_keyword: bool,
}

/// Whether a positional value can only be a plain constructor value (not an IR expression).
fn is_plain(v: &ArgValue) -> bool {
    matches!(v, ArgValue::Value(KwValue::DType(_) | KwValue::Space(_) | KwValue::Str(_)))
}

fn takes_plain(p: &Param) -> bool {
    matches!(p.slot, Slot::Kw | Slot::Arg { conv: ArgConv::Space, .. })
}

fn is_arg(p: &Param) -> bool {
    matches!(p.slot, Slot::Arg { .. })
}

/// Binds `args`/`kwargs` to `def`'s parameters; see the module doc.
/// The positional arguments are taken out of `args` (left empty).
pub(crate) fn bind(
    vars: &VarTable,
    def: &'static OpDef,
    args: &mut Vec<ArgIn>,
    kwargs: Vec<KwIn>,
    insert_defaults: bool,
    span: Span,
) -> Result<Bound, Diagnostic> {
    if kwargs.is_empty() && binds_in_order(def, args) {
        bind_in_order(def, args, insert_defaults, span)
    } else {
        bind_slots(vars, def, args, kwargs, insert_defaults, span)
    }
}

/// [`bind`] in general: each given value goes into the slot of the parameter it binds to.
fn bind_slots(
    vars: &VarTable,
    def: &'static OpDef,
    args: &mut Vec<ArgIn>,
    kwargs: Vec<KwIn>,
    insert_defaults: bool,
    span: Span,
) -> Result<Bound, Diagnostic> {
    let params = &def.params[..def.params.len().min(MAX_PARAMS)];
    let mut slots: [Option<Given>; MAX_PARAMS] = [const { None }; MAX_PARAMS];
    let free = |slots: &[Option<Given>], pred: &dyn Fn(&Param) -> bool| {
        params.iter().enumerate().position(|(i, p)| slots[i].is_none() && pred(p))
    };

    let first_kw = params.iter().position(|p| !is_arg(p)).unwrap_or(params.len());
    for (pos, a) in args.drain(..).enumerate() {
        let target = if is_plain(&a.value) {
            free(&slots, &takes_plain)
        } else {
            // Required arguments, optional ones that come before every kwarg parameter (as
            // `tri`'s valid shape does in the constructor), then kwargs, then the other
            // optional arguments: those (a scratch tile) are written by keyword in the printed
            // form, so `sum(t, 1)` keeps meaning `axis=1`.
            free(&slots, &|p| is_arg(p) && !p.optional)
                .or_else(|| free(&slots, &is_arg).filter(|&i| i < first_kw))
                .or_else(|| free(&slots, &|p| !is_arg(p)))
                .or_else(|| free(&slots, &is_arg))
        };
        let Some(i) = target else {
            return Err(too_many(def, pos, &a, free(&slots, &is_arg).is_some()));
        };
        slots[i] = Some(Given { value: a.value, span: a.span, by_keyword: false });
    }

    for k in kwargs {
        let Some(i) = params.iter().position(|p| p.name == k.name) else {
            let names: Vec<&str> = params.iter().map(|p| p.name).collect();
            let mut d = Diagnostic::error(
                codes::OP_KWARG,
                k.name_span,
                format!("{} has no parameter named '{}'", def.name, k.name),
            );
            d = match dispatch::closest(&k.name, names.iter().copied()) {
                Some(best) => d.with_note(format!("did you mean '{best}'?")),
                None if names.is_empty() => d.with_note(format!("{} takes no arguments", def.name)),
                None => d.with_note(format!("its parameters are: {}", names.join(", "))),
            };
            return Err(d);
        };
        if slots[i].is_some() {
            return Err(Diagnostic::error(
                codes::OP_KWARG,
                k.name_span,
                format!("{} got multiple values for argument '{}'", def.name, k.name),
            ));
        }
        slots[i] = Some(Given { value: k.value, span: k.span, by_keyword: true });
    }

    // Kwargs first (in stored order): `block.full`'s value conversion needs the dtype.
    let mut out_kwargs = Vec::new();
    let mut kw_spans = Vec::new();
    for spec in def.kwargs {
        let given = params.iter().position(|p| p.name == spec.name).and_then(|i| slots[i].take());
        let value = match given {
            Some(g) => {
                kw_spans.push((spec.name, g.span));
                to_kwarg(vars, def, spec.name, spec.kind, g)?
            }
            None => match unwritten_kwarg(def, spec, insert_defaults, span)? {
                Some(v) => v,
                None => continue,
            },
        };
        out_kwargs.push((spec.name, value));
    }
    let fill_dtype = fill_dtype(&out_kwargs);

    let mut out_args = Vec::with_capacity(def.arity());
    let mut arg_spans = [Span::NONE; MAX_PARAMS];
    for (i, p) in params.iter().enumerate() {
        let Slot::Arg { conv, .. } = p.slot else { continue };
        let pos = out_args.len();
        let Some(g) = slots[i].take() else {
            if p.optional {
                continue;
            }
            return Err(Diagnostic::error(
                codes::OP_ARG_COUNT,
                span,
                format!("{} is missing argument {} ({})", def.name, pos + 1, p.name),
            ));
        };
        arg_spans[pos] = g.span;
        out_args.push(to_arg(def, pos, p.name, conv, fill_dtype, g)?);
    }
    Ok(Bound { args: out_args, arg_spans, kwargs: out_kwargs, kw_spans, span })
}

/// Whether a call binds each positional argument to the next IR argument parameter, as most
/// calls do (`pl.block.add(a, b)`): no kwargs written (checked by the caller), every argument
/// an expression, exactly as many as the operator has argument parameters. Then the general
/// binding would put argument k in argument parameter k and leave every kwarg unwritten, which
/// [`bind_in_order`] does directly, without the slot array.
fn binds_in_order(def: &OpDef, args: &[ArgIn]) -> bool {
    args.len() <= MAX_PARAMS
        && args.iter().all(|a| matches!(a.value, ArgValue::Expr(_)))
        && def.params.len() <= MAX_PARAMS
        && (def.min_arity()..=def.arity()).contains(&args.len())
        // An optional argument given positionally binds in order only where no kwarg parameter
        // comes before it (see `bind_slots`).
        && (args.len() == def.min_arity() || def.params[..args.len()].iter().all(is_arg))
}

/// [`bind`] for a call where [`binds_in_order`] holds: same result, same errors.
fn bind_in_order(
    def: &'static OpDef,
    args: &mut Vec<ArgIn>,
    insert_defaults: bool,
    span: Span,
) -> Result<Bound, Diagnostic> {
    // Taken out first, so that `args` is left empty on every return.
    let given = args.drain(..);
    let mut out_kwargs = Vec::new();
    for spec in def.kwargs {
        if let Some(v) = unwritten_kwarg(def, spec, insert_defaults, span)? {
            out_kwargs.push((spec.name, v));
        }
    }
    let fill_dtype = fill_dtype(&out_kwargs);
    let mut out_args = Vec::with_capacity(given.len());
    let mut arg_spans = [Span::NONE; MAX_PARAMS];
    for ((pos, a), p) in given.enumerate().zip(def.arg_params()) {
        let Slot::Arg { conv, .. } = p.slot else { continue };
        arg_spans[pos] = a.span;
        out_args.push(match a.value {
            // What `to_arg` does with an expression for any other parameter, without moving
            // it through a `Result` twice.
            ArgValue::Expr(e) if conv != ArgConv::Fill => e,
            value => to_arg(def, pos, p.name, conv, fill_dtype, Given { value, span: a.span, by_keyword: false })?,
        });
    }
    Ok(Bound { args: out_args, arg_spans, kwargs: out_kwargs, kw_spans: Vec::new(), span })
}

/// The stored value of kwarg `spec` when the call does not write it: its default when defaults
/// are inserted, nothing when it may be left out, an error when it is required.
fn unwritten_kwarg(
    def: &OpDef,
    spec: &super::table::KwSpec,
    insert_defaults: bool,
    span: Span,
) -> Result<Option<KwValue>, Diagnostic> {
    match spec.default {
        Some(d) if insert_defaults => Ok(Some(d.value())),
        Some(_) => Ok(None),
        None if spec.required => Err(Diagnostic::error(
            codes::OP_ARG_COUNT,
            span,
            format!("{} is missing the argument '{}'", def.name, spec.name),
        )),
        None => Ok(None),
    }
}

/// The `dtype` kwarg, which `full`'s fill value takes ([`ArgConv::Fill`]).
fn fill_dtype(kwargs: &[(&'static str, KwValue)]) -> Option<DataType> {
    kwargs.iter().find_map(|(k, v)| match v {
        KwValue::DType(d) if *k == "dtype" => Some(*d),
        _ => None,
    })
}

/// No parameter takes positional argument `pos`. When an IR argument is still unbound, the
/// value is a plain value where an expression belongs (`pl.block.add(t, pl.FP16)`).
fn too_many(def: &OpDef, pos: usize, a: &ArgIn, arg_unbound: bool) -> Diagnostic {
    let names: Vec<&str> = def.params.iter().map(|p| p.name).collect();
    if let ArgValue::Value(v) = &a.value {
        if arg_unbound {
            return Diagnostic::error(
                codes::OP_ARG_TYPE,
                a.span,
                format!("{} expects an expression for argument {}, found {}", def.name, pos + 1, kwvalue::describe(v)),
            );
        }
    }
    Diagnostic::error(
        codes::OP_ARG_COUNT,
        a.span,
        format!(
            "{} takes at most {} positional argument{} ({}), but {} or more were given",
            def.name,
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            names.join(", "),
            pos + 1
        ),
    )
}

/// A value given for a kwarg parameter, converted to the stored kind.
fn to_kwarg(
    vars: &VarTable,
    def: &OpDef,
    name: &str,
    kind: super::table::KwKind,
    g: Given,
) -> Result<KwValue, Diagnostic> {
    let (value, found) = match g.value {
        ArgValue::Value(v) => {
            let found = kwvalue::describe(&v);
            (Some(v), found)
        }
        ArgValue::Expr(e) => match literal_value(&e) {
            Some(v) => {
                let found = kwvalue::describe(&v);
                (Some(v), found)
            }
            None => (None, format!("a non-constant {}", fmt_type(vars, vars.type_of(&e)))),
        },
    };
    value.and_then(|v| coerce(kind, v)).ok_or_else(|| {
        let code = if g.by_keyword { codes::OP_KWARG } else { codes::OP_ARG_TYPE };
        Diagnostic::error(
            code,
            g.span,
            format!("{} expects {} for '{name}', found {found}", def.name, kwvalue::expected(kind)),
        )
    })
}

/// A value given for an IR argument parameter, converted per [`ArgConv`].
fn to_arg(
    def: &OpDef,
    pos: usize,
    pname: &str,
    conv: ArgConv,
    fill_dtype: Option<DataType>,
    g: Given,
) -> Result<Expr, Diagnostic> {
    let (int_dtype, float_dtype) = match conv {
        ArgConv::Expr | ArgConv::Space => (DataType::Int64, DataType::Fp32),
        ArgConv::Scalar { int, float } => (int, float),
        ArgConv::Fill => {
            let d = fill_dtype.unwrap_or(DataType::Fp32);
            (d, d)
        }
    };
    let literal = |v: KwValue| match v {
        KwValue::Int(i) => Some(ExprKind::ConstInt(i, int_dtype)),
        KwValue::Float(f) => Some(ExprKind::ConstFloat(f, float_dtype)),
        KwValue::Bool(b) => Some(ExprKind::ConstBool(b)),
        _ => None,
    };
    let constant = |kind: ExprKind| {
        let dtype = match kind {
            ExprKind::ConstInt(_, d) | ExprKind::ConstFloat(_, d) => d,
            _ => DataType::Bool,
        };
        Expr::new(kind, crate::ir::Type::Scalar(dtype), g.span)
    };
    match g.value {
        // `full`'s value written as a bare literal takes the tile dtype (§4.7); an explicit
        // `pl.const(v, D)` is kept as written.
        ArgValue::Expr(e) if conv == ArgConv::Fill && is_bare_literal(&e) => {
            match literal_value(&e).and_then(literal) {
                Some(kind) => Ok(Expr { span: e.span, ..constant(kind) }),
                None => Ok(e),
            }
        }
        ArgValue::Expr(e) => Ok(e),
        ArgValue::Value(KwValue::Space(s)) if conv == ArgConv::Space => {
            Ok(constant(ExprKind::ConstInt(s.index() as i64, DataType::Int64)))
        }
        ArgValue::Value(v) => {
            let found = kwvalue::describe(&v);
            literal(v).map(constant).ok_or_else(|| {
                Diagnostic::error(
                    codes::OP_ARG_TYPE,
                    g.span,
                    format!("{} expects an expression for argument {} ({pname}), found {found}", def.name, pos + 1),
                )
            })
        }
    }
}

/// A number as written without `pl.const`: ConstInt(INT64) / ConstFloat(FP32), possibly negated.
fn is_bare_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::ConstInt(_, d) => *d == DataType::Int64,
        ExprKind::ConstFloat(_, d) => *d == DataType::Fp32,
        ExprKind::Unary(crate::ir::UnOp::Neg, inner) => is_bare_literal(inner),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::OPS;

    fn spans(s: &[Span]) -> Vec<(u32, u32)> {
        s.iter().map(|s| (s.lo, s.hi)).collect()
    }

    /// The in-order binding gives what the general one gives (arguments, their conversion and
    /// spans, kwargs with inserted defaults, errors) for every operator, with and without defaults.
    #[test]
    fn in_order_binding_agrees_with_the_slots() {
        let vars = VarTable::new();
        let span = Span::new(500, 600);
        let mut checked = 0;
        for def in OPS.iter() {
            let given: Vec<ArgIn> = (0..def.arity())
                .map(|k| {
                    let s = Span::new(10 * k, 10 * k + 5);
                    let e = if k % 2 == 0 {
                        Expr::int(k as i64, DataType::Int64, s)
                    } else {
                        Expr::float(k as f64, DataType::Fp32, s)
                    };
                    ArgIn { value: ArgValue::Expr(e), span: s }
                })
                .collect();
            if !binds_in_order(def, &given) {
                continue;
            }
            for insert_defaults in [true, false] {
                let (mut a, mut b) = (given.clone(), given.clone());
                let fast = bind_in_order(def, &mut a, insert_defaults, span);
                let slow = bind_slots(&vars, def, &mut b, Vec::new(), insert_defaults, span);
                assert!(a.is_empty() && b.is_empty(), "{}", def.name);
                match (fast, slow) {
                    (Ok(f), Ok(s)) => {
                        assert_eq!(format!("{:?}", f.args), format!("{:?}", s.args), "{}", def.name);
                        assert_eq!(spans(&f.arg_spans), spans(&s.arg_spans), "{}", def.name);
                        assert_eq!(format!("{:?}", f.kwargs), format!("{:?}", s.kwargs), "{}", def.name);
                        assert!(f.kw_spans.is_empty() && s.kw_spans.is_empty(), "{}", def.name);
                    }
                    (Err(f), Err(s)) => {
                        assert_eq!(
                            (f.code, &f.message, (f.span.lo, f.span.hi)),
                            (s.code, &s.message, (s.span.lo, s.span.hi))
                        );
                    }
                    (f, s) => panic!("{}: in order {:?}, slots {:?}", def.name, f.is_ok(), s.is_ok()),
                }
                checked += 1;
            }
        }
        assert!(checked > 100, "only {checked} bindings compared");
    }
}
