//! The operator table: every registered operator declared once (spec `ir-and-syntax.md` §4).
//!
//! Lowering, type inference and (later) InsertSync and codegen all read the same entry.
//! This module is the only place that knows operator names, spellings, argument and kwarg
//! schemas and result-type rules.

use crate::diag::{Diagnostic, Span};
use crate::ir::{BinOp, DataType, Expr, KwValue, OpId, Program, Type, UnOp};

/// An argument as lowering hands it over: an IR expression, or a plain value when the text was
/// a dtype / enum member / string (`pl.FP16`, `pl.MemorySpace.Vec`, `'round'`) or a literal given
/// as a keyword (`axis=-1`, which the reference converts to a plain Python value).
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
    prog: &Program,
    path: &[&str],
    path_span: Span,
    args: Vec<ArgIn>,
    kwargs: Vec<KwIn>,
    span: Span,
) -> Result<Expr, Diagnostic> {
    let _ = (prog, path, path_span, args, kwargs, span);
    todo!("ops::build_op_call")
}

/// Builds a scalar binary node with the promotion rule 1.1(a) (inserting `Cast` nodes), for
/// the infix operators and `min`/`max` in the text. `And`/`Or`/`Xor` have no helper in the
/// reference: their dtype is BOOL and operands are taken as they are.
pub fn scalar_binary(prog: &Program, op: BinOp, lhs: Expr, rhs: Expr, span: Span) -> Result<Expr, Diagnostic> {
    let _ = (prog, op, lhs, rhs, span);
    todo!("ops::scalar_binary")
}

/// Builds a scalar unary node: `Neg` (keeps dtype), `BitNot` (int only), `Not` (BOOL), `Abs`
/// (keeps dtype). `Cast` goes through [`scalar_cast`].
pub fn scalar_unary(prog: &Program, op: UnOp, operand: Expr, span: Span) -> Result<Expr, Diagnostic> {
    let _ = (prog, op, operand, span);
    todo!("ops::scalar_unary")
}

/// `pl.cast(x, pl.D)` on a scalar: a `Cast` node of dtype `D`.
pub fn scalar_cast(prog: &Program, operand: Expr, dtype: DataType, span: Span) -> Result<Expr, Diagnostic> {
    let _ = (prog, operand, dtype, span);
    todo!("ops::scalar_cast")
}

/// The operator-type-inference promotion rule 1.1(b).
pub fn promote_dtypes(a: DataType, b: DataType) -> DataType {
    let _ = (a, b);
    todo!("ops::promote_dtypes")
}

/// Provisional list of the 107 registered operator names (to be replaced by the full table).
const NAMES: &[&str] = &[
    "tensor.create",
    "tensor.read",
    "tensor.dim",
    "tensor.view",
    "tensor.assemble",
    "tensor.reshape",
    "tensor.transpose",
    "tensor.add",
    "tensor.sub",
    "tensor.mul",
    "tensor.div",
    "tensor.maximum",
    "tensor.add_scalar",
    "tensor.sub_scalar",
    "tensor.mul_scalar",
    "tensor.div_scalar",
    "tensor.exp",
    "tensor.cast",
    "tensor.matmul",
    "tensor.row_max",
    "tensor.row_sum",
    "block.get_block_idx",
    "block.create_tile",
    "block.full",
    "block.load",
    "block.store",
    "block.l0c_store",
    "block.move",
    "block.vec_move",
    "block.alloc",
    "block.fillpad",
    "block.add",
    "block.sub",
    "block.mul",
    "block.div",
    "block.maximum",
    "block.minimum",
    "block.rem",
    "block.and",
    "block.or",
    "block.shl",
    "block.shr",
    "block.adds",
    "block.subs",
    "block.muls",
    "block.divs",
    "block.rems",
    "block.maxs",
    "block.mins",
    "block.lrelu",
    "block.shls",
    "block.shrs",
    "block.ands",
    "block.ors",
    "block.xor",
    "block.xors",
    "block.prelu",
    "block.addc",
    "block.subc",
    "block.addsc",
    "block.subsc",
    "block.sel",
    "block.sels",
    "block.cmp",
    "block.cmps",
    "block.neg",
    "block.exp",
    "block.recip",
    "block.sqrt",
    "block.rsqrt",
    "block.log",
    "block.abs",
    "block.relu",
    "block.not",
    "block.cast",
    "block.matmul",
    "block.gemv",
    "block.matmul_acc",
    "block.gemv_acc",
    "block.matmul_bias",
    "block.gemv_bias",
    "block.batch_matmul",
    "block.sum",
    "block.max",
    "block.min",
    "block.row_sum",
    "block.row_max",
    "block.row_min",
    "block.row_expand",
    "block.row_expand_add",
    "block.row_expand_sub",
    "block.row_expand_mul",
    "block.row_expand_div",
    "block.col_expand",
    "block.col_expand_mul",
    "block.col_expand_div",
    "block.col_expand_sub",
    "block.expands",
    "block.view",
    "block.reshape",
    "block.transpose",
    "system.sync_src",
    "system.sync_dst",
    "system.bar_v",
    "system.bar_m",
    "system.bar_all",
    "test.op",
];

/// Looks an operator up by its IR name (`block.add`, `tensor.add_scalar`).
pub fn lookup(name: &str) -> Option<OpId> {
    NAMES.iter().position(|n| *n == name).map(|i| OpId(i as u16))
}

/// The IR name of an operator (`tensor.add_scalar`).
pub fn name(op: OpId) -> &'static str {
    NAMES[op.0 as usize]
}

/// The printed spelling after `pl.` (`tensor.add` for `tensor.add_scalar`, §3.3 OPNAME:
/// everything from the first `_scalar` removed).
pub fn printed_name(op: OpId) -> &'static str {
    let n = name(op);
    match n.find("_scalar") {
        Some(i) => &n[..i],
        None => n,
    }
}

/// Re-deduces the result type of a call of `op` with these (already lowered) arguments and
/// kwargs; passes use it when they rebuild calls. Errors are plain messages.
pub fn deduce_type(prog: &Program, op: OpId, args: &[Expr], kwargs: &[(String, KwValue)]) -> Result<Type, String> {
    let _ = (prog, op, args, kwargs);
    todo!("ops::deduce_type")
}
