//! The PTO form rule: what the PTO-ISA MLIR writer (`codegen::pto`) needs of a kernel's IR.
//! Code generation runs it on each kernel before writing its MLIR, so a construct the dialect
//! has no form for is reported here, at the construct, and the writer refuses nothing this
//! rule accepted (an error of the writer on a kernel that passed is a bug of ptoc, an
//! internal error).
//!
//! Checked here: an Orchestration function (the module form has none), then in program order
//! partial tiles ([`super::partial_tiles`]), the dtypes the dialect spells (parameters, the
//! representative tile of each buffer, [`crate::analysis::pto_buffers`], float scalars and the
//! scalar variables given to block ops), tiles of more than two dimensions, tensor parameters
//! with a runtime extent, `break` and `continue`, natural `while` loops that carry values by
//! name, an `if` with results but no `else`, yields of another number of values than carried,
//! calls as yielded or returned values, scalar expressions without an `arith` form, op calls
//! without a PTO instruction or with another number of arguments than it takes (or a compare or
//! round mode out of range), and the loads and stores: a load assigned to a tile with a buffer,
//! a stored plain tile variable, offsets and sizes as lists, 2-D windows of constant size
//! through a tensor that names one parameter on every path.

use crate::analysis::param_roots::{self, Root};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{
    BinOp, Call, Callee, Expr, ExprKind, Function, FunctionType, Stmt, Type, UnOp, VarId, VarKind, VarTable,
};
use crate::ops::pto::PtoEmit;

type Res = Result<(), Diagnostic>;

/// Checks kernel `f`; the first construct without a PTO form, in program order. An
/// Orchestration function has no MLIR form at all (the `-o DIR` driver writes it as C++ and
/// does not check it here).
pub fn check(f: &Function) -> Res {
    if f.kind == FunctionType::Orchestration {
        return Err(refused(
            f.span,
            format!(
                "PTO backend does not support Orchestration functions. Function '{}' is marked as Orchestration.",
                f.name
            ),
        )
        .with_note("with `-o DIR`, --emit=pto writes the orchestration function as C++ (orchestration/<f>.cpp)"));
    }
    super::partial_tiles::check(f)?;
    param_dtypes(f)?;
    buffer_dtypes(f)?;
    nd_tiles(&f.vars, &f.body)?;
    tensor_params(f)?;
    let cx = Cx { vars: &f.vars, roots: param_roots::roots(f) };
    cx.stmt(&f.body)
}

fn refused(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::NO_PTO_FORM, span, msg.into())
}

/// The element types of the parameters, which the signature spells (`Invalid DataType value`,
/// the reference's error, at the first parameter without a spelling).
fn param_dtypes(f: &Function) -> Res {
    for p in &f.params {
        let var = f.vars.var(p.var);
        let d = match &var.ty {
            Type::Tensor(t) => t.dtype,
            Type::Scalar(d) => *d,
            _ => continue,
        };
        spelled(d, var.span)?;
    }
    Ok(())
}

/// `Invalid DataType value` at `span` unless the dialect spells `d`.
fn spelled(d: crate::ir::DataType, span: Span) -> Res {
    if crate::ops::pto::dtype_spelling(d).is_some() {
        return Ok(());
    }
    Err(Diagnostic::error(codes::BAD_TYPE, span, "Invalid DataType value")
        .with_note("the PTO backend spells FP32, FP16, BF16, INT32, INT64, INT8 and UINT8 only"))
}

/// The element type of each tile buffer's `!pto.tile_buf` (its representative tile's,
/// [`crate::analysis::pto_buffers`]), at the representative's definition.
fn buffer_dtypes(f: &Function) -> Res {
    for b in &crate::analysis::pto_buffers::collect(&f.vars, &f.body).list {
        spelled(b.tile.dtype, f.vars.var(b.var).span)?;
    }
    Ok(())
}

/// A tile of more than two dimensions, at its first definition: a `!pto.tile_buf` has rows and
/// columns, and the reference's spelling of one (its first two dimensions) loads and computes
/// on another tile. (The C++ backend folds the leading dimensions into rows.)
fn nd_tiles(vars: &VarTable, body: &Stmt) -> Res {
    let mut found = None;
    crate::ir::visit::walk_stmts(body, &mut |s| {
        if let Stmt::Assign { var, span, .. } = s {
            if let Type::Tile(t) = vars.var_type(*var) {
                if t.shape.len() > 2 && found.is_none() {
                    found = Some((*span, t.shape.len()));
                }
            }
        }
    });
    match found {
        None => Ok(()),
        Some((span, rank)) => Err(refused(
            span,
            format!("the PTO backend has no form for a {rank}-D tile: a !pto.tile_buf has two dimensions"),
        )
        .with_note("load a 2-D window of the tensor, or use --emit cpp, which folds the leading dimensions into rows")),
    }
}

/// `pto.make_tensor_view` is given constant extents and strides; a runtime extent would need
/// an index argument of the function, which the kernel ABI does not pass.
fn tensor_params(f: &Function) -> Res {
    for p in &f.params {
        let var = f.vars.var(p.var);
        let Type::Tensor(t) = &var.ty else { continue };
        if let Some(d) = t.shape.iter().find(|d| d.as_const_int().is_none()) {
            let extent = extent_text(&f.vars, d).map_or_else(String::new, |t| format!(" (`{t}`)"));
            return Err(refused(
                var.span,
                format!("PTO backend: tensor parameter `{}` has a runtime extent{extent}", var.name),
            )
            .with_note("the PTO backend's tensor views have static shapes")
            .with_note("help: give the parameter a static shape, or use --emit cpp, whose kernels read the extent from their Tensor argument"));
        }
    }
    Ok(())
}

/// The source text of a tensor extent made of variables, integers and infix arithmetic (`M`,
/// `M * 2`; a nested operation in parentheses); `None` for anything else.
fn extent_text(vars: &VarTable, e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Var(v) => Some(vars.var_name(*v).to_string()),
        ExprKind::ConstInt(v, _) => Some(v.to_string()),
        ExprKind::Binary(op, a, b) => {
            let side = |x: &Expr| {
                let t = extent_text(vars, x)?;
                Some(if matches!(x.kind, ExprKind::Binary(..)) { format!("({t})") } else { t })
            };
            Some(format!("{} {} {}", side(a)?, op.symbol()?, side(b)?))
        }
        _ => None,
    }
}

struct Cx<'a> {
    vars: &'a VarTable,
    roots: rustc_hash::FxHashMap<VarId, Root>,
}

impl Cx<'_> {
    fn stmt(&self, s: &Stmt) -> Res {
        match s {
            Stmt::Assign { var, value, span } => match &value.kind {
                ExprKind::Call(c) => self.call(c, Some(*var), *span),
                _ => self.scalar(value),
            },
            Stmt::Eval { expr: value, span } => match &value.kind {
                ExprKind::Call(c) => self.call(c, None, *span),
                _ => self.scalar(value),
            },
            Stmt::For { start, stop, step, iter_args, body, return_vars, span, .. } => {
                [start, stop, step].into_iter().try_for_each(|e| self.scalar(e))?;
                carried_sizes("ForStmt", iter_args, return_vars, *span)?;
                self.inits(iter_args)?;
                self.stmt(body)?;
                let n = self.carried(iter_args);
                self.region_yield(body, n, *span, |y| format!("ForStmt yield count ({y}) must match iter_args ({n})"))
            }
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                carried_sizes("WhileStmt", iter_args, return_vars, *span)?;
                // Before convert-to-ssa a `while` carries values by name: the MLIR condition
                // would read the value from before the loop in every iteration.
                if iter_args.is_empty() {
                    if let Some((x, at)) = super::cce_form::carried_by_name(self.vars, cond, body) {
                        return Err(refused(
                            at,
                            format!(
                                "the PTO backend cannot emit a while loop that carries `{}` from one iteration to the next by name",
                                self.vars.var_name(x)
                            ),
                        )
                        .with_note("help: run convert-to-ssa first (`--pipeline ptoas` does), or write the loop as `for (...) in pl.while_(init_values=(...)):` with `pl.cond` and `pl.yield_`"));
                    }
                }
                self.inits(iter_args)?;
                self.scalar(cond)?;
                self.stmt(body)?;
                let n = self.carried(iter_args);
                self.region_yield(body, n, *span, |y| format!("WhileStmt yield count ({y}) must match iter_args ({n})"))
            }
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                self.scalar(cond)?;
                if !return_vars.is_empty() && else_body.is_none() {
                    return Err(Diagnostic::error(
                        codes::OP_CHECK,
                        *span,
                        "IfStmt with return_vars requires else_body",
                    ));
                }
                self.stmt(then_body)?;
                else_body.as_deref().map_or(Ok(()), |e| self.stmt(e))?;
                let n = self.carried(return_vars);
                let msg = |branch: &'static str| {
                    move |y: usize| format!("IfStmt {branch}-branch yield count ({y}) must match return_vars ({n})")
                };
                self.region_yield(then_body, n, *span, msg("then"))?;
                else_body.as_deref().map_or(Ok(()), |e| self.region_yield(e, n, *span, msg("else")))
            }
            Stmt::Yield { values, .. } => {
                super::nested_call::call_as_result(values, codes::NO_PTO_FORM)?;
                values
                    .iter()
                    .filter(|v| !matches!(self.vars.type_of(v), Type::Tensor(_)))
                    .try_for_each(|v| self.scalar(v))
            }
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().try_for_each(|s| self.stmt(s)),
            Stmt::Scope { body, .. } => self.stmt(body),
            Stmt::Return { values, .. } => super::nested_call::call_as_result(values, codes::NO_PTO_FORM),
            // `scf.for` and `scf.while` have no early exit; the reference drops the statement
            // silently.
            Stmt::Break { span } | Stmt::Continue { span } => {
                let word = if matches!(s, Stmt::Break { .. }) { "break" } else { "continue" };
                Err(refused(*span, format!("the PTO backend cannot emit `{word}`"))
                    .with_note("PTO-ISA MLIR loops (`scf.for`, `scf.while`) have no early exit; the CCE backend (`--emit cpp`) emits it")
                    .with_note("help: put the rest of the iteration under `if`/`else`, or for a `break` make the exit the condition of a `pl.while_` loop"))
            }
        }
    }

    /// How many of `vars` (iter args, `if` results) a region yields: tensors are not carried.
    fn carried(&self, vars: &[VarId]) -> usize {
        vars.iter().filter(|&&v| !matches!(self.vars.var_type(v), Type::Tensor(_))).count()
    }

    /// The final yield of a region (a loop body, an `if` branch) that yields values: one per
    /// carried value (`mismatch` is the message otherwise).
    fn region_yield(&self, body: &Stmt, n: usize, span: Span, mismatch: impl Fn(usize) -> String) -> Res {
        let Some(ys) = body.final_yield() else { return Ok(()) };
        let y = ys.iter().filter(|v| !matches!(self.vars.type_of(v), Type::Tensor(_))).count();
        if y == 0 || y == n {
            return Ok(());
        }
        Err(Diagnostic::error(codes::OP_CHECK, span, mismatch(y)))
    }

    /// The initial values of the carried scalars (tensors are not carried).
    fn inits(&self, iter_args: &[VarId]) -> Res {
        for &a in iter_args {
            if matches!(self.vars.var_type(a), Type::Tensor(_)) {
                continue;
            }
            if let VarKind::IterArg { init } = &self.vars.var(a).kind {
                self.scalar(init)?;
            }
        }
        Ok(())
    }

    /// A scalar expression: every node has an `arith` form (a call or list nested in it is
    /// the reference's rule, its operands in order).
    fn scalar(&self, e: &Expr) -> Res {
        match &e.kind {
            ExprKind::ConstFloat(_, d) => spelled(*d, e.span),
            ExprKind::Var(_) | ExprKind::ConstInt(..) | ExprKind::ConstBool(_) => Ok(()),
            ExprKind::Binary(op, l, r) => {
                if !has_arith(*op) {
                    return Err(no_scalar_emitter(e, op.node_name()));
                }
                self.scalar(l)?;
                self.scalar(r)?;
                // The `arith` line spells a float result's type, a float comparison its left
                // operand's.
                let float = |t: &Type| t.scalar_dtype().filter(|d| d.is_float());
                if op.is_comparison() {
                    float(self.vars.type_of(l)).map_or(Ok(()), |d| spelled(d, l.span))
                } else {
                    float(&e.ty).map_or(Ok(()), |d| spelled(d, e.span))
                }
            }
            ExprKind::Unary(UnOp::Cast, x) if same_scalar_kind(self.vars, x, e) => self.scalar(x),
            ExprKind::Unary(op, _) => Err(no_scalar_emitter(e, op.node_name())),
            ExprKind::TupleGetItem(x, _) => self.scalar(x),
            ExprKind::Call(c) => c.args.iter().try_for_each(|a| self.scalar(a)),
            ExprKind::MakeTuple(items) => items.iter().try_for_each(|a| self.scalar(a)),
        }
    }

    /// An op call: a PTO instruction for it, scalar operands with an `arith` form, and for a
    /// load or store a window the dialect can view.
    fn call(&self, c: &Call, target: Option<VarId>, span: Span) -> Res {
        let emit = match &c.callee {
            Callee::Op(op) => crate::ops::def(*op).pto.ok_or_else(|| crate::ops::name(*op)),
            Callee::Function(f) => Err(f.as_str()),
        };
        let emit = emit.map_err(|name| {
            refused(span, format!("No codegen registered for operation: {name}"))
                .with_note("the PTO backend has no instruction for this operation (see `ptoc --list-ops`)")
        })?;
        let op = match &c.callee {
            Callee::Op(op) => crate::ops::name(*op),
            Callee::Function(f) => f.as_str(),
        };
        let window = |tensor: Option<&Expr>, what: &str| -> Res {
            let Some(tensor) = tensor.and_then(Expr::as_var) else {
                return Err(Diagnostic::error(codes::OP_CHECK, span, format!("{op} {what} must be a Var")));
            };
            let (Some(offsets), Some(shapes)) = (tuple(c.args.get(1)), tuple(c.args.get(2))) else {
                let (i, which) =
                    if tuple(c.args.get(1)).is_none() { ("second", "offsets") } else { ("third", "shapes") };
                return Err(Diagnostic::error(
                    codes::OP_CHECK,
                    span,
                    format!("{op} {i} argument must be a tuple ({which})"),
                ));
            };
            // Binding checks that the argument is a tensor.
            if !matches!(self.vars.var_type(tensor), Type::Tensor(_)) {
                return Ok(());
            }
            match self.roots.get(&tensor) {
                Some(Root::Param(_)) => {}
                None => {
                    return Err(Diagnostic::error(
                        codes::OP_CHECK,
                        span,
                        format!("{op}: Tensor view not found for parameter: {}", self.vars.var_name(tensor)),
                    )
                    .with_note(format!("{op} needs a tensor parameter of the function, or a value that aliases one")))
                }
                Some(Root::Ambiguous) => return Err(refused(
                    span,
                    format!(
                        "{op}: tensor `{}` names different tensor parameters on different paths",
                        self.vars.var_name(tensor)
                    ),
                )
                .with_note(
                    "the PTO backend writes tensors in place: a loop or branch must carry the tensor it started from",
                )),
            }
            if offsets.len() < 2 || shapes.len() < 2 {
                return Err(refused(
                    span,
                    "the PTO backend loads and stores 2-D windows only (two offsets, two sizes)",
                ));
            }
            if shapes[0].as_const_int().is_none() || shapes[1].as_const_int().is_none() {
                return Err(refused(
                    span,
                    "the PTO backend needs constant load/store sizes (the partition view's type holds them)",
                ));
            }
            [&offsets[0], &offsets[1], &shapes[0], &shapes[1]].into_iter().try_for_each(|e| self.scalar(e))
        };
        let arity = |instr: &str, n: usize| -> Res {
            let got = c.args.len();
            if n == got {
                return Ok(());
            }
            let s = if n == 1 { "" } else { "s" };
            Err(Diagnostic::error(
                codes::OP_ARG_COUNT,
                span,
                format!("Operation:[{instr}] requires {n} argument{s}, but got {got}"),
            ))
        };
        match emit {
            PtoEmit::Generic { instr, arity: n } => arity(instr, n)?,
            PtoEmit::Cmp { instr } => {
                if crate::ops::kwargs::cmp_mode(c).is_none() {
                    return Err(Diagnostic::error(codes::OP_CHECK, span, "Tile cmp mode out of range"));
                }
                arity(instr, 2)?;
            }
            PtoEmit::Cast => {
                if crate::ops::kwargs::round_mode(c).is_none() {
                    return Err(Diagnostic::error(codes::OP_CHECK, span, "Round mode out of range"));
                }
                arity("pto.tcvt", 1)?;
            }
            PtoEmit::Full => arity("pto.texpands", 2)?,
            PtoEmit::Load | PtoEmit::Store | PtoEmit::Nothing => {}
        }
        match emit {
            PtoEmit::Load => {
                window(c.args.first(), "first argument")?;
                // The load writes the target's buffer, a tile with a MemRef.
                let into_buffer = target.is_some_and(|v| self.vars.var_type(v).memref().is_some());
                if !into_buffer {
                    return Err(Diagnostic::error(
                        codes::OP_CHECK,
                        span,
                        format!("{op} requires assignment target (tile_buf)"),
                    ));
                }
                Ok(())
            }
            PtoEmit::Store => {
                // The reference takes the stored tile's buffer from a plain variable only (not
                // a loop's iter arg).
                let plain = c
                    .args
                    .first()
                    .and_then(Expr::as_var)
                    .is_some_and(|v| matches!(self.vars.var(v).kind, VarKind::Plain));
                if !plain {
                    return Err(Diagnostic::error(codes::OP_CHECK, span, format!("{op} first argument must be a Var")));
                }
                window(c.args.get(3), "output_tensor")
            }
            PtoEmit::Nothing => Ok(()),
            PtoEmit::Full => c.args.get(1).map_or(Ok(()), |a| self.operand(a)),
            PtoEmit::Generic { .. } | PtoEmit::Cmp { .. } | PtoEmit::Cast => {
                c.args.iter().try_for_each(|a| self.operand(a))
            }
        }
    }
}

impl Cx<'_> {
    /// An operand of a block op: a scalar expression, and a scalar variable's dtype (the op's
    /// operand list annotates a plain variable with it).
    fn operand(&self, a: &Expr) -> Res {
        if let Some(v) = a.as_var() {
            let var = self.vars.var(v);
            if let (false, Type::Scalar(d)) = (matches!(var.kind, VarKind::IterArg { .. }), &var.ty) {
                spelled(*d, var.span)?;
            }
        }
        self.scalar(a)
    }
}

/// A loop whose iter args and return variables differ in number.
fn carried_sizes(what: &str, iter_args: &[VarId], return_vars: &[VarId], span: Span) -> Res {
    if iter_args.len() == return_vars.len() {
        return Ok(());
    }
    Err(Diagnostic::error(
        codes::OP_CHECK,
        span,
        format!("{what} iter_args size ({}) must equal return_vars size ({})", iter_args.len(), return_vars.len()),
    ))
}

/// Whether the binary operator has an `arith` line in the PTO backend: `+ - * // %`, `min`,
/// `max` and the comparisons. True division, powers, logical and bitwise operators have none
/// (the reference uses the last operand's value, a miscompile).
pub fn has_arith(op: BinOp) -> bool {
    use BinOp::*;
    matches!(op, Add | Sub | Mul | FloorDiv | FloorMod | Min | Max) || op.is_comparison()
}

/// Whether a cast from `x` to `e`'s type keeps the value as the PTO dialect sees it: both
/// integers (every integer scalar is an `index`), or the same dtype.
pub fn same_scalar_kind(vars: &VarTable, x: &Expr, e: &Expr) -> bool {
    match (vars.type_of(x).scalar_dtype(), e.ty.scalar_dtype()) {
        (Some(a), Some(b)) => a == b || (a.is_int() && b.is_int()),
        _ => false,
    }
}

/// A scalar expression kind the PTO backend has no `arith` emitter for.
fn no_scalar_emitter(e: &Expr, node: &str) -> Diagnostic {
    refused(e.span, format!("the PTO backend cannot emit the scalar expression `{node}`"))
        .with_note("supported: + - * // % min max on integers and floats, comparisons, casts between integer types")
}

fn tuple(e: Option<&Expr>) -> Option<&[Expr]> {
    match &e?.kind {
        ExprKind::MakeTuple(items) => Some(items),
        _ => None,
    }
}
