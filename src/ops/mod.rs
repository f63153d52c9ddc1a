//! The operator table: every registered operator declared once (spec `ir-and-syntax.md` §4).
//!
//! Lowering, type inference and (later) InsertSync and codegen all read the same entry.
//! This module is the only place that knows operator names, spellings, argument and kwarg
//! schemas and result-type rules.

mod bind;
pub mod cce;
#[cfg(test)]
mod cpp_doc;
mod deduce;
mod dispatch;
mod index;
pub mod kwargs;
mod kwvalue;
pub mod modes;
pub(crate) mod names;
mod promote;
pub mod pto;
pub mod refused;
mod rules;
mod shape;
pub use shape::mask_layout;
pub mod table;
#[cfg(test)]
mod tests;
mod today;
mod valid;

pub use valid::ignores_valid_shape;

use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{BinOp, Call, Callee, DataType, Expr, ExprKind, KwValue, MemorySpace, OpId, Type, UnOp, VarTable};
use dispatch::Target;
pub use promote::promote_dtypes;
pub use rules::mask_pattern;
pub(crate) use shape::{const_dim, fmt_type};
pub use table::{Category, OpDef, ResultBuffer, ResultSpace, SyncOp, OPS};
pub use today::SpaceOf;

/// An argument as lowering hands it over: an IR expression, or a plain value when the text was
/// a dtype / enum member / string (`pl.FP16`, `pl.MemorySpace.Vec`, `'round'`) or a literal given
/// as a keyword (`axis=-1`, which the reference converts to a plain Python value).
/// `pl.PipeType.X` may be given as its code (`Int`) or its name (`Str`); both are stored as the code.
#[derive(Clone, Debug)]
pub enum ArgValue {
    Expr(Expr),
    Value(KwValue),
}

/// A positional argument with its span.
#[derive(Clone, Debug)]
pub struct ArgIn {
    pub value: ArgValue,
    pub span: Span,
}

/// A keyword argument with the spans of its name and of the whole `name=value`.
#[derive(Clone, Debug)]
pub struct KwIn {
    pub name: String,
    pub name_span: Span,
    pub value: ArgValue,
    pub span: Span,
}

/// Builds a call of the operator named by `path`, the dotted name after the `pl.` prefix:
/// `["block", "add"]`, `["tensor", "add_scalar"]`, `["system", "sync_src"]`, or a unified
/// DSL name `["add"]` (§4.5). Resolves spellings (§4.6), binds keyword forms of constructor
/// parameters (§4.7), inserts the constructor defaults, checks argument counts, kinds and
/// kwargs, and deduces the result type. Unified `min`/`max` on scalars and `cast` on a scalar
/// give `Binary(Min/Max)` / `Unary(Cast)` nodes instead of calls.
/// `span` is the span of the whole call; errors point at the offending argument when possible.
pub fn build_op_call(
    vars: &VarTable,
    path: &[&str],
    path_span: Span,
    mut args: Vec<ArgIn>,
    kwargs: Vec<KwIn>,
    span: Span,
) -> Result<Expr, Diagnostic> {
    build_op_call_in(
        vars,
        path,
        path_span,
        &mut args,
        kwargs,
        span,
        Caller { hand_written: false, space_of: &|_| None },
    )
}

/// What the caller of [`build_op_call_in`] knows beyond the call itself.
#[derive(Clone, Copy)]
pub struct Caller<'a> {
    /// The call is in hand-written text (it gets its defaulted kwargs, §3.10).
    pub hand_written: bool,
    /// The memory space of a variable's tile, where known (today's `pl.store` of an Acc tile
    /// is `block.l0c_store`).
    pub space_of: SpaceOf<'a>,
}

/// [`build_op_call`] taking the positional arguments out of `args` (left empty), so that a
/// caller building call after call (lowering) fills one buffer instead of allocating each time.
pub fn build_op_call_in(
    vars: &VarTable,
    path: &[&str],
    path_span: Span,
    args: &mut Vec<ArgIn>,
    kwargs: Vec<KwIn>,
    span: Span,
    caller: Caller,
) -> Result<Expr, Diagnostic> {
    let Caller { hand_written, space_of } = caller;
    let mut kwargs = kwargs;
    let (id, def) = match dispatch::resolve(vars, path, path_span, args, &kwargs, span) {
        Ok(Target::Op(id, def, form)) => {
            match today::adapt(vars, form, (id, def), path, args, &mut kwargs, space_of, span) {
                Ok(entry) => entry,
                Err(d) => {
                    args.clear();
                    return Err(d);
                }
            }
        }
        Ok(Target::MinMax(op)) => return scalar_min_max(vars, op, std::mem::take(args), kwargs, span),
        Ok(Target::ScalarCast) => return unified_scalar_cast(vars, std::mem::take(args), kwargs, span),
        Err(d) => {
            args.clear();
            return Err(d);
        }
    };
    high_precision(def, &mut kwargs)?;
    // A call in hand-written text, or in a DSL spelling (`pl.load`, `pl.block.and_`), gets every
    // keyword parameter it leaves out with its default, in the table's order, as the reference's
    // constructors add them (§3.10). Printed text is kept as written, so IR the reference built
    // without a defaulted kwarg reads back unchanged.
    let insert_defaults = hand_written || !is_dotted(path, def.printed);
    valid::today_kwarg(def, &mut kwargs);
    let bound = bind::bind(vars, def, args, kwargs, insert_defaults, span)?;
    let ty = deduce_call(vars, def, &bound.args, &bound.kwargs).map_err(|e| {
        let scalar_rhs = e.fault == deduce::Fault::Arg(1)
            && matches!(bound.args.get(1).map(|a| vars.type_of(a)), Some(Type::Scalar(_)));
        let d = bound.diagnostic(e);
        // `pl.block.add(t, s)` is not redirected (§4.5); say what is.
        match def.scalar_rhs {
            Some(variant) if scalar_rhs => d.with_note(format!(
                "for a scalar operand use pl.{variant}(...) or the unified pl.{}(...)",
                def.short_name()
            )),
            _ => d,
        }
    })?;
    let mut args = bound.args;
    valid::drop_whole(def, &mut args);
    let call = Call { callee: Callee::Op(id), args, kwargs: bound.kwargs };
    Ok(Expr::new(ExprKind::Call(Box::new(call)), ty, span))
}

/// Whether `path` (the dotted name after `pl.`) is a spelling of `op`: its printed name, its
/// namespace with its short name or an alias, a unified name or a spelling of today's PyPTO.
pub fn spells(path: &[&str], op: OpId) -> bool {
    let d = def(op);
    match path {
        [ns, name] if *ns == d.category.prefix() && (*name == d.short_name() || d.aliases.contains(name)) => true,
        [name] if d.unified.contains(name) => true,
        _ => {
            let dotted = path.join(".");
            dotted == d.printed || today_spellings(op).contains(&dotted.as_str())
        }
    }
}

/// Today's `high_precision=` keyword of an op that has it ([`table::OpDef::high_precision`]):
/// `False` is the op as it is and is dropped; `True` asks for an algorithm ptoc does not
/// emit and is refused at the keyword, with the column's reason.
fn high_precision(def: &OpDef, kwargs: &mut Vec<KwIn>) -> Result<(), Diagnostic> {
    let Some(at) = kwargs.iter().position(|k| k.name == "high_precision") else { return Ok(()) };
    let Some(why) = def.high_precision else {
        return Ok(()); // binding reports the unknown keyword
    };
    let k = &kwargs[at];
    let value = match &k.value {
        ArgValue::Value(KwValue::Bool(b)) => Some(*b),
        ArgValue::Expr(e) => match e.kind {
            ExprKind::ConstBool(b) => Some(b),
            _ => None,
        },
        _ => None,
    };
    match value {
        Some(false) => {
            kwargs.remove(at);
            Ok(())
        }
        Some(true) => Err(Diagnostic::error(
            codes::OP_KWARG,
            k.span,
            format!("{}: high_precision=True is not supported", def.name),
        )
        .with_note(why)
        .with_note("help: write high_precision=False or leave it out (the default algorithm)")),
        None => Err(Diagnostic::error(
            codes::OP_KWARG,
            k.span,
            format!("{}: high_precision must be True or False", def.name),
        )),
    }
}

/// Whether a call of `path` (the dotted name after `pl.`, two parts) with `positional`
/// positional arguments and these keyword names is written the way the printer writes it: the
/// op's printed spelling, its IR arguments positionally and every defaulted keyword argument
/// by name. `None` when `path` names no operator (the call is judged elsewhere).
pub fn is_printed_form(path: &[&str], positional: usize, keywords: &[&str]) -> Option<bool> {
    let [ns, name] = path else { return None };
    let category = [table::Category::Tensor, table::Category::Block, table::Category::Sync, table::Category::Test]
        .into_iter()
        .find(|c| c.prefix() == *ns)?;
    let d = def(index::by_spelling(category, name)?);
    let complete = d.kwargs.iter().all(|k| k.default.is_none() || keywords.contains(&k.name));
    Some(is_dotted(path, d.printed) && positional <= d.arity() && complete)
}

/// Whether the segments of `path` joined with dots spell `dotted` (without building the string).
fn is_dotted(path: &[&str], dotted: &str) -> bool {
    let mut rest = dotted;
    for (k, seg) in path.iter().enumerate() {
        if k > 0 {
            let Some(r) = rest.strip_prefix('.') else {
                return false;
            };
            rest = r;
        }
        let Some(r) = rest.strip_prefix(seg) else {
            return false;
        };
        rest = r;
    }
    rest.is_empty()
}

/// `pl.min(a, b)` / `pl.max(a, b)` on scalars: exactly two expressions, no kwargs.
fn scalar_min_max(
    vars: &VarTable,
    op: BinOp,
    args: Vec<ArgIn>,
    kwargs: Vec<KwIn>,
    span: Span,
) -> Result<Expr, Diagnostic> {
    let fname = if op == BinOp::Min { "min" } else { "max" };
    if let Some(k) = kwargs.first() {
        return Err(Diagnostic::error(
            codes::OP_KWARG,
            k.name_span,
            format!("pl.{fname} on scalars takes no keyword arguments"),
        ));
    }
    let n = args.len();
    let mut exprs = Vec::with_capacity(2);
    for a in args {
        match a.value {
            ArgValue::Expr(e) => exprs.push(e),
            ArgValue::Value(v) => {
                return Err(Diagnostic::error(
                    codes::OP_ARG_TYPE,
                    a.span,
                    format!("pl.{fname} on scalars expects scalar expressions, found {}", kwvalue::describe(&v)),
                ))
            }
        }
    }
    match <[Expr; 2]>::try_from(exprs) {
        Ok([a, b]) => scalar_binary(vars, op, a, b, span),
        Err(_) => Err(Diagnostic::error(
            codes::OP_ARG_COUNT,
            span,
            format!("pl.{fname} on scalars requires exactly 2 arguments, but got {n}"),
        )),
    }
}

/// `pl.cast(x, pl.D)` / `pl.cast(x, target_type=pl.D)` on a scalar.
fn unified_scalar_cast(vars: &VarTable, args: Vec<ArgIn>, kwargs: Vec<KwIn>, span: Span) -> Result<Expr, Diagnostic> {
    let mut target: Option<(ArgValue, Span)> = None;
    for k in kwargs {
        if k.name != "target_type" || target.is_some() {
            return Err(Diagnostic::error(
                codes::OP_KWARG,
                k.name_span,
                format!("pl.cast on a scalar takes only a target dtype, not '{}'", k.name),
            ));
        }
        target = Some((k.value, k.span));
    }
    let n = args.len();
    let mut it = args.into_iter();
    let operand = it.next();
    if let Some(a) = it.next() {
        if target.is_some() {
            return Err(Diagnostic::error(codes::OP_KWARG, a.span, "pl.cast got multiple values for 'target_type'"));
        }
        target = Some((a.value, a.span));
    }
    let (Some(ArgIn { value: ArgValue::Expr(x), .. }), Some((t, t_span)), None) = (operand, target, it.next()) else {
        return Err(Diagnostic::error(
            codes::OP_ARG_COUNT,
            span,
            format!("pl.cast on a scalar requires a value and a dtype (pl.cast(x, pl.FP32)), but got {n} arguments"),
        ));
    };
    match t {
        ArgValue::Value(KwValue::DType(d)) => scalar_cast(vars, x, d, span),
        ArgValue::Value(v) => Err(Diagnostic::error(
            codes::OP_ARG_TYPE,
            t_span,
            format!("pl.cast expects a dtype, found {}", kwvalue::describe(&v)),
        )),
        ArgValue::Expr(_) => {
            Err(Diagnostic::error(codes::OP_ARG_TYPE, t_span, "pl.cast expects a dtype (e.g. pl.FP32)"))
        }
    }
}

/// Builds a scalar binary node with the promotion rule 1.1(a) (inserting `Cast` nodes), for
/// the infix operators and `min`/`max` in the text. `And`/`Or`/`Xor` have no helper in the
/// reference: their dtype is BOOL and operands are taken as they are.
pub fn scalar_binary(vars: &VarTable, op: BinOp, lhs: Expr, rhs: Expr, span: Span) -> Result<Expr, Diagnostic> {
    promote::scalar_binary(vars, op, lhs, rhs, span)
}

/// Builds a scalar unary node: `Neg` (keeps dtype), `BitNot` (int only), `Not` (BOOL), `Abs`
/// (keeps dtype). `Cast` goes through [`scalar_cast`].
pub fn scalar_unary(vars: &VarTable, op: UnOp, operand: Expr, span: Span) -> Result<Expr, Diagnostic> {
    promote::scalar_unary(vars, op, operand, span)
}

/// `pl.cast(x, pl.D)` on a scalar: a `Cast` node of dtype `D`.
pub fn scalar_cast(vars: &VarTable, operand: Expr, dtype: DataType, span: Span) -> Result<Expr, Diagnostic> {
    promote::scalar_cast(vars, operand, dtype, span)
}

/// Looks an operator up by its IR name (`block.add`, `tensor.add_scalar`).
pub fn lookup(name: &str) -> Option<OpId> {
    index::by_name(name)
}

/// The block op that tensor op `op` becomes in an InCore function, if it has one (spec §2.7
/// table; the [`OpDef::block_form`] column): what convert-tensor-to-block-ops rewrites and the
/// IncoreBlockOps verifier looks for.
pub fn block_form(op: OpId) -> Option<OpId> {
    let d = OPS.get(op.0 as usize)?;
    if d.category != Category::Tensor {
        return None;
    }
    d.block_form.and_then(lookup)
}

/// The table entry of an operator.
///
/// # Panics
/// If `op` was not made by this module (ids are indices into [`OPS`]).
/// How the call of today's spelling `pl.<dotted>` binds, if it is one.
pub fn today_form(dotted: &str) -> Option<table::TodayForm> {
    index::today(dotted).map(|(_, form)| form)
}

/// The spellings of today's PyPTO that reach `op` (dotted, after `pl.`), sorted.
pub fn today_spellings(op: OpId) -> Vec<&'static str> {
    index::today_spellings().into_iter().filter(|(_, id)| *id == op).map(|(s, _)| s).collect()
}

/// The memory space the result of `call`, a call of block op `def`, is in (the table's
/// `result_space` column; `passes-and-codegen.md` §2.8 step 2).
pub fn result_space_of(def: &OpDef, call: &Call) -> MemorySpace {
    match def.result_space {
        ResultSpace::TargetMemory => target_memory(call).unwrap_or(MemorySpace::Vec),
        ResultSpace::Ddr => MemorySpace::Ddr,
        ResultSpace::Acc => MemorySpace::Acc,
        ResultSpace::Vec => MemorySpace::Vec,
    }
}

/// The `target_memory` kwarg of a call (stored as a space; hand-built IR may hold its code).
pub fn target_memory(call: &Call) -> Option<MemorySpace> {
    call.kwargs.iter().find(|(k, _)| *k == "target_memory").and_then(|(_, v)| match v {
        KwValue::Space(s) => Some(*s),
        KwValue::Int(i) => MemorySpace::from_index(*i),
        _ => None,
    })
}

pub fn def(op: OpId) -> &'static OpDef {
    &OPS[op.0 as usize]
}

/// Whether the result of `op` may be written over a tile operand of the result's shape and
/// dtype (destination == source): true for the ops emitted as one pto-isa element-wise
/// instruction (TADD, TMAX, TADDS, TEXP, TRELU, …) or row/column expanding binary instruction
/// (TROWEXPANDSUB, TCOLEXPANDSUB, …). Element (i, j) of the result depends only on element
/// (i, j) of each full-shape operand, and the vector unit allows a destination that overlaps a
/// source exactly (same address and strides; only partial overlap is forbidden); the CPU
/// simulator computes `dst[i] = f(src0[i], …)` element by element too (pto/cpu/TAdd.hpp,
/// TColExpandOp.hpp, which reads the broadcast vector before writing). Broadcast operands and
/// operands of another dtype are excluded by the caller (they differ from the result's type).
/// Read by the lifetime memory plan of basic-memory-reuse at -O1.
pub fn writes_in_place(op: OpId) -> bool {
    def(op).cce.is_some_and(|e| e.allows_dst_as_src())
}

/// Whether `op` must write its result over an operand's buffer (a subset of
/// [`writes_in_place`]): the accumulating matmul, whose NPU instruction adds into its
/// destination and never reads the accumulator operand. The memory plan of -O1 always writes
/// it in place, even where it otherwise gives results buffers of their own.
pub fn accumulates_in_place(op: OpId) -> bool {
    def(op).cce.is_some_and(|e| e.dst_must_be_src())
}

/// The IR name of an operator (`tensor.add_scalar`).
pub fn name(op: OpId) -> &'static str {
    def(op).name
}

/// The printed spelling after `pl.` (`tensor.add` for `tensor.add_scalar`, §3.3 OPNAME).
pub fn printed_name(op: OpId) -> &'static str {
    def(op).printed
}

/// Re-deduces the result type of a call of `op` with these (already lowered) arguments and
/// kwargs; passes use it when they rebuild calls. Errors are plain messages.
pub fn deduce_type(
    vars: &VarTable,
    op: OpId,
    args: &[Expr],
    kwargs: &[(&'static str, KwValue)],
) -> Result<Type, String> {
    let def = OPS.get(op.0 as usize).ok_or_else(|| format!("unknown operator id {}", op.0))?;
    deduce_call(vars, def, args, kwargs).map_err(|e| e.message)
}

/// Checks that `docs/<doc>` is `want`, the text the operator table generates, or rewrites it
/// when `PTOC_UPDATE_DOCS=1`; `test` is the test's name, for the message.
#[cfg(test)]
pub(crate) fn check_generated_doc(doc: &str, want: &str, test: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs").join(doc);
    if std::env::var_os("PTOC_UPDATE_DOCS").is_some_and(|v| v == "1") {
        std::fs::write(&path, want).unwrap_or_else(|e| panic!("cannot write docs/{doc}: {e}"));
        return;
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "docs/{doc} is stale (the operator table changed): regenerate it with PTOC_UPDATE_DOCS=1 cargo test --lib {test}"
    );
}

/// Deduces the type of a call of `def`: kwargs and arguments against the table's signature,
/// then the op's result-type rule.
fn deduce_call(
    vars: &VarTable,
    def: &'static OpDef,
    args: &[Expr],
    kwargs: &[(&'static str, KwValue)],
) -> Result<Type, deduce::DeduceError> {
    let cx = deduce::Cx { vars, def, args, kwargs };
    cx.check_kwargs()?;
    cx.check_args()?;
    let ty = rules::apply(def.rule, &cx)?;
    valid::apply(&cx, ty)
}

/// Makes `ops::id`: the table id of each operator of [`names`] (found when the crate is
/// compiled: a name without an entry does not compile).
macro_rules! id_consts {
    ($($id:ident = $name:literal,)*) => {
        /// The id of each operator named in `ops::names`, for comparing and building operator
        /// calls without their names.
        pub mod id {
            use crate::ir::OpId;
            $(pub const $id: OpId = super::table::id_of(super::names::$id);)*

            /// Every id with its name (evaluating each id when the tests are compiled).
            #[cfg(test)]
            pub const ALL: &[(OpId, &str)] = &[$(($id, super::names::$id)),*];
        }
    };
}
names::operator_list!(id_consts);
