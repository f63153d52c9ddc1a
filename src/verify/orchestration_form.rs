//! The orchestration form rule: what the orchestration writer (`codegen::orchestration`) needs
//! of an Orchestration function's IR. Code generation runs it on each Orchestration function
//! before writing any file, so a construct the host-side C++ has no form for is reported here,
//! at the construct, and the writer refuses nothing this rule accepted (an error of the writer
//! on a function that passed is a bug of ptoc, an internal error).
//!
//! Checked here: the parameters (tensors, and scalars of a dtype the host can hold), the
//! returned values that get an argument slot (tensors), every expression the C++ computes
//! (scalar arithmetic the host has, no call or list, no FP16/BF16 parameter in it), tensor
//! extents the function has a value for, the statements (no `break` or `continue`; yields of
//! as many values as their loop or `if` carries; no call as a returned or yielded value), the
//! types of loop-carried values and `if` results, the op calls (only tensor creation, scalar
//! reads, views, transposes, reshapes and `tensor.dim`, with the argument forms each needs;
//! any other op whose result is read or that writes memory has no host form), and each task:
//! a kernel (not another Orchestration function) given variables or constants, scalars in a
//! dtype the call can convert to on the host, no more tensors than it has parameters.
//!
//! Two constructs the runtime cannot run as written are refused with the reason: a scalar read
//! of a tensor a task writes (tasks run asynchronously, and the host read is not ordered after
//! them), and a returned `if` result whose branches yield different buffers (the caller's
//! argument buffer would never receive the data).

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::buffers::{self, Summaries};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::visit::{for_each_var, walk_defined_vars, walk_expr, walk_stmts};
use crate::ir::{
    base_name, BinOp, Call, Callee, DataType, Expr, ExprKind, Function, FunctionType, ParamDirection, Program, Stmt,
    Type, UnOp, VarId, VarKind,
};
use crate::ops::{self, id};

/// How the host holds a scalar parameter of dtype `d`: in a C++ value, as raw argument bits
/// it can only pass on to kernels (FP16, BF16: no host arithmetic), or not at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostScalar {
    Value,
    RawBits,
    None,
}

/// [`HostScalar`] of dtype `d`.
pub fn host_scalar(d: DataType) -> HostScalar {
    use DataType::*;
    match d {
        Bool | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 | Fp32 => HostScalar::Value,
        Fp16 | Bf16 => HostScalar::RawBits,
        _ => HostScalar::None,
    }
}

/// The C++ names (base names) that have a value in orchestration function `f`: its parameters,
/// the symbolic dimensions of its tensor parameters (the host passes their extents) and the
/// variables the body defines.
pub fn known_names(f: &Function) -> BTreeSet<String> {
    let name = |v: VarId| base_name(f.vars.var_name(v)).to_string();
    let mut known: BTreeSet<String> = f.params.iter().map(|p| name(p.var)).collect();
    for p in &f.params {
        if let Type::Tensor(t) = f.vars.var_type(p.var) {
            known.extend(t.shape.iter().filter_map(Expr::as_var).map(name));
        }
    }
    walk_defined_vars(&f.body, &mut |v| {
        known.insert(name(v));
    });
    known
}

/// The returned values of `f` that get an argument slot after the tensor parameters, in slot
/// order, as (index among the return values, variable, span). A returned tensor that is
/// (written in place into) a parameter's buffer needs none: the caller reads the parameter.
/// One slot per buffer (the first value returned with it names it), and names are base names
/// as in the reference, which skips a name that is a parameter's or taken.
pub fn return_slots(f: &Function, roots: &BTreeMap<VarId, VarId>) -> Vec<(usize, VarId, Span)> {
    let mut names: BTreeSet<String> = f.params.iter().map(|p| base_name(f.vars.var_name(p.var)).to_string()).collect();
    let mut taken = BTreeSet::new();
    let mut out = Vec::new();
    walk_stmts(&f.body, &mut |s| {
        if let Stmt::Return { values, .. } = s {
            for (i, v) in values.iter().enumerate() {
                let Some(id) = v.as_var() else { continue };
                let root = roots.get(&id).copied().unwrap_or(id);
                if f.params.iter().any(|p| p.var == root) || taken.contains(&root) {
                    continue;
                }
                if !names.insert(base_name(f.vars.var_name(id)).to_string()) {
                    continue;
                }
                taken.insert(root);
                out.push((i, id, v.span));
            }
        }
    });
    out
}

/// Checks Orchestration function `f` of `prog` (`summaries`: the kernels whose IR is gone);
/// every construct without a host C++ form, in program order.
pub fn check(prog: &Program, summaries: &Summaries, f: &Function) -> Result<(), Vec<Diagnostic>> {
    let roots = buffers::roots(prog, summaries, f);
    let mut cx = Cx {
        prog,
        f,
        known: known_names(f),
        raw: BTreeSet::new(),
        written: written_roots(prog, summaries, f, &roots),
        returned: BTreeSet::new(),
        read: BTreeSet::new(),
        roots,
        errors: Vec::new(),
    };
    walk_all_reads(f, &mut cx.read);
    cx.params();
    cx.returns();
    cx.stmt(&f.body, 0);
    if cx.errors.is_empty() {
        Ok(())
    } else {
        Err(cx.errors)
    }
}

fn walk_all_reads(f: &Function, read: &mut BTreeSet<VarId>) {
    crate::ir::visit::walk_all_exprs(&f.body, &mut |e| {
        if let ExprKind::Var(v) = &e.kind {
            read.insert(*v);
        }
    });
}

/// The buffers (roots) some task of `f` writes: the tensors passed for a kernel's `Out` or
/// `InOut` parameter or for one it stores into.
fn written_roots(
    prog: &Program,
    summaries: &Summaries,
    f: &Function,
    roots: &BTreeMap<VarId, VarId>,
) -> BTreeSet<VarId> {
    let mut written = BTreeSet::new();
    let mut stores: BTreeMap<&str, Vec<bool>> = BTreeMap::new();
    crate::ir::visit::walk_all_exprs(&f.body, &mut |e| {
        let Some(Call { callee: Callee::Function(name), args, .. }) = e.as_call() else { return };
        let Some(k) = prog.function(name) else { return };
        let stored = stores.entry(name.as_str()).or_insert_with(|| buffers::written_params(prog, summaries, k));
        for (i, a) in args.iter().enumerate() {
            let out = k.params.get(i).is_some_and(|p| p.direction != ParamDirection::In);
            if out || stored.get(i).copied().unwrap_or(false) {
                if let Some(v) = a.as_var() {
                    written.insert(roots.get(&v).copied().unwrap_or(v));
                }
            }
        }
    });
    written
}

struct Cx<'a> {
    prog: &'a Program,
    f: &'a Function,
    known: BTreeSet<String>,
    /// Scalar parameters held as raw bits ([`HostScalar::RawBits`]).
    raw: BTreeSet<VarId>,
    roots: BTreeMap<VarId, VarId>,
    /// Buffers a task writes ([`written_roots`]).
    written: BTreeSet<VarId>,
    /// Variables returned with an argument slot of their own.
    returned: BTreeSet<VarId>,
    /// Variables some expression reads.
    read: BTreeSet<VarId>,
    errors: Vec<Diagnostic>,
}

fn refused(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::NO_CPP_FORM, span, msg.into())
}

impl Cx<'_> {
    fn name(&self, v: VarId) -> &str {
        self.f.vars.var_name(v)
    }

    fn params(&mut self) {
        let f = self.f;
        for p in &f.params {
            let data = f.vars.var(p.var);
            match &data.ty {
                Type::Tensor(t) => {
                    for d in &t.shape {
                        // A symbolic axis takes its extent from its own argument slot.
                        if d.as_var().is_none() {
                            self.dim(d, data.span);
                        }
                    }
                }
                Type::Scalar(d) => match host_scalar(*d) {
                    HostScalar::Value => {}
                    HostScalar::RawBits => {
                        self.raw.insert(p.var);
                    }
                    HostScalar::None => self.errors.push(
                        refused(
                            data.span,
                            format!(
                                "orchestration function '{}': scalar parameter '{}' of dtype {} cannot be passed to the orchestration entry",
                                f.name,
                                data.name,
                                d.name()
                            ),
                        )
                        .with_note("the host-side C++ has no such type; pass an FP32 or integer scalar and convert it in the kernel"),
                    ),
                },
                other => self.errors.push(refused(
                    data.span,
                    format!(
                        "orchestration function '{}': parameter '{}' of type {} is not supported (only tensors and scalars)",
                        f.name,
                        data.name,
                        other.kind_name()
                    ),
                )),
            }
        }
    }

    /// The returned values with an argument slot: tensors of a shape the function knows.
    fn returns(&mut self) {
        let f = self.f;
        for (_, v, span) in return_slots(f, &self.roots) {
            self.returned.insert(v);
            let root = self.roots.get(&v).copied().filter(|r| matches!(f.vars.var_type(*r), Type::Tensor(_)));
            match f.vars.var_type(root.unwrap_or(v)) {
                Type::Tensor(t) => {
                    for d in &t.shape {
                        self.dim(d, span);
                    }
                }
                _ => self.errors.push(refused(
                    span,
                    format!("Cannot resolve TensorType for return variable: {}", base_name(f.vars.var_name(v))),
                )),
            }
        }
    }

    /// A tensor extent the C++ writes at `at`: every variable of it has a value here.
    fn dim(&mut self, d: &Expr, at: Span) {
        let vars = &self.f.vars;
        let mut unknown = None;
        for_each_var(d, &mut |v| {
            if unknown.is_none() && !self.known.contains(base_name(vars.var_name(v))) {
                unknown = Some(v);
            }
        });
        if let Some(v) = unknown {
            let n = vars.var_name(v);
            self.errors.push(
                refused(at, format!("the extent `{n}` of this tensor has no value in the orchestration function"))
                    .with_secondary(d.span, format!("`{n}` is written here"))
                    .with_note("a symbolic dimension is known here only when it is a dimension of a tensor parameter (the host passes its value) or a variable of the function")
                    .with_note("help: annotate the tensor with the parameter's dimension or a computed extent"),
            );
            return;
        }
        self.form(d);
    }

    /// The node kinds of an expression the host computes.
    fn form(&mut self, e: &Expr) {
        let bad = |e: &Expr, kind: &str| {
            refused(e.span, format!("GenerateExprString not implemented for expression type: {kind}"))
        };
        match &e.kind {
            ExprKind::Var(_) | ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => {}
            ExprKind::Binary(op, a, b) => {
                self.form(a);
                self.form(b);
                use BinOp::*;
                if !matches!(
                    op,
                    Add | Sub | Mul | FloorDiv | FloatDiv | FloorMod | Eq | Ne | Lt | Le | Gt | Ge | Min | Max
                ) {
                    self.errors.push(bad(e, op.node_name()));
                }
            }
            ExprKind::Unary(UnOp::Neg | UnOp::Cast, x) | ExprKind::TupleGetItem(x, _) => self.form(x),
            ExprKind::Unary(op, _) => self.errors.push(bad(e, op.node_name())),
            ExprKind::Call(_) => self.errors.push(bad(e, "Call")),
            ExprKind::MakeTuple(_) => self.errors.push(bad(e, "MakeTuple")),
        }
    }

    /// An expression the host computes: no raw-bits parameter in it, and a host form.
    fn scalar(&mut self, e: &Expr) {
        let mut raw = None;
        walk_expr(e, &mut |x| {
            if let Some(v) = x.as_var().filter(|v| self.raw.contains(v)) {
                raw.get_or_insert((v, x.span));
            }
        });
        if let Some((v, span)) = raw {
            let d = self.f.vars.var_type(v).scalar_dtype().map_or("?", |d| d.name());
            self.errors.push(
                refused(
                    span,
                    format!(
                        "orchestration codegen: the {d} scalar parameter '{}' can only be passed to kernels: host-side C++ has no {d} arithmetic",
                        self.name(v)
                    ),
                )
                .with_note("compute with it inside a kernel, or make the parameter FP32"),
            );
        }
        self.form(e);
    }

    /// A value: a tensor variable is a `Tensor` handle, anything else a host expression.
    fn value(&mut self, e: &Expr) {
        match e.as_var() {
            Some(v) if matches!(self.f.vars.var_type(v), Type::Tensor(_)) => {}
            _ => self.scalar(e),
        }
    }

    fn rooted(&self, v: VarId) -> bool {
        self.roots.get(&v).is_some_and(|r| *r != v)
    }

    /// A loop-carried value or loop result: a scalar, a tensor, or a tuple of them (the
    /// results of a task carried whole, whose fields are the task's output tensors).
    fn carried(&mut self, v: VarId, span: Span) {
        fn host(ty: &Type) -> bool {
            match ty {
                Type::Scalar(_) | Type::Tensor(_) => true,
                Type::Tuple(fields) => fields.iter().all(|t| matches!(t, Type::Scalar(_) | Type::Tensor(_))),
                _ => false,
            }
        }
        let ty = self.f.vars.var_type(v);
        if !host(ty) {
            let kind = ty.kind_name();
            self.errors.push(refused(
                span,
                format!("orchestration codegen: loop-carried {kind} '{}' is not supported", self.name(v)),
            ));
        }
    }

    /// `targets`: how many values a `yield` in this body assigns (the enclosing loop's iter
    /// args or the enclosing `if`'s results).
    fn stmt(&mut self, s: &Stmt, targets: usize) {
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|c| self.stmt(c, targets)),
            Stmt::Scope { body, .. } => self.stmt(body, targets),
            Stmt::Assign { var, value, span } => self.assign(*var, value, *span),
            Stmt::Eval { expr, span } => match expr.as_call() {
                Some(c @ Call { callee: Callee::Function(name), .. }) => self.task(name, c, *span),
                // An op evaluated for its effect: only a store has one, and the host has none.
                Some(c @ Call { callee: Callee::Op(op), .. }) if writes_memory(c) => {
                    self.errors.push(no_host_op(*op, *span));
                }
                _ => {}
            },
            Stmt::Return { values, .. } => {
                if let Err(d) = super::nested_call::call_as_result(values, codes::NO_CPP_FORM) {
                    self.errors.push(d);
                }
            }
            Stmt::Yield { values, span } => {
                if let Err(d) = super::nested_call::call_as_result(values, codes::NO_CPP_FORM) {
                    self.errors.push(d);
                    return;
                }
                if values.len() != targets {
                    self.errors.push(refused(*span, format!("Yielded {} values but expected {targets}", values.len())));
                    return;
                }
                values.iter().for_each(|v| self.value(v));
            }
            Stmt::For { start, stop, step, iter_args, body, return_vars, span, .. } => {
                self.carry_in(iter_args, *span);
                for e in [start, stop, step] {
                    self.scalar(e);
                }
                self.stmt(body, iter_args.len());
                return_vars.iter().for_each(|&r| self.carried(r, *span));
            }
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                self.carry_in(iter_args, *span);
                self.scalar(cond);
                self.stmt(body, iter_args.len());
                return_vars.iter().for_each(|&r| self.carried(r, *span));
            }
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                for &r in return_vars {
                    match self.f.vars.var_type(r) {
                        Type::Scalar(_) => {}
                        Type::Tensor(_) if self.rooted(r) => {}
                        Type::Tensor(_) if self.returned.contains(&r) => self.errors.push(
                            refused(
                                *span,
                                format!(
                                    "orchestration codegen: the branches of this if yield different tensors as '{}', which the function returns",
                                    self.name(r)
                                ),
                            )
                            .with_note("the caller passes the buffer of a returned tensor; a result that is one of several buffers chosen at run time never reaches it")
                            .with_note("help: call the kernel that writes the result in each branch, with the returned tensor as its output"),
                        ),
                        Type::Tensor(_) => {}
                        other => {
                            let kind = other.kind_name();
                            self.errors.push(refused(
                                *span,
                                format!(
                                    "orchestration codegen: an `if` yielding a {kind} ('{}') is not supported; only scalar values can be yielded by an `if` in an orchestration function",
                                    self.name(r)
                                ),
                            ));
                        }
                    }
                }
                self.scalar(cond);
                self.stmt(then_body, return_vars.len());
                if let Some(e) = else_body {
                    self.stmt(e, return_vars.len());
                }
            }
            Stmt::Break { span } | Stmt::Continue { span } => {
                self.errors.push(refused(*span, format!("orchestration codegen: `{}` is not supported", s.node_name())))
            }
        }
    }

    fn carry_in(&mut self, iter_args: &[VarId], span: Span) {
        for &a in iter_args {
            if self.rooted(a) {
                continue;
            }
            self.carried(a, span);
            if let VarKind::IterArg { init } = &self.f.vars.var(a).kind {
                self.value(init);
            }
        }
    }

    fn assign(&mut self, var: VarId, value: &Expr, span: Span) {
        match &value.kind {
            ExprKind::Call(call) => match &call.callee {
                Callee::Function(callee) => self.task(callee, call, span),
                Callee::Op(op) => self.op(var, *op, call, value, span),
            },
            ExprKind::TupleGetItem(..) => {}
            _ if self.rooted(var) => {}
            _ => self.value(value),
        }
    }

    fn op(&mut self, var: VarId, op: crate::ir::OpId, call: &Call, value: &Expr, span: Span) {
        let vars = &self.f.vars;
        let arg_var = |i: usize| call.args.get(i).and_then(Expr::as_var);
        let rank = |t: VarId| vars.var_type(t).shape().map_or(0, <[Expr]>::len) as i64;
        let axis_in = |a: i64, rank: i64| Some(if a < 0 { a + rank } else { a }).filter(|a| (0..rank).contains(a));
        match op {
            id::TENSOR_CREATE => {
                if let Type::Tensor(t) = vars.type_of(value) {
                    for d in &t.shape {
                        self.dim(d, span);
                    }
                }
            }
            id::TENSOR_READ => {
                let (Some(t), Some(idx)) = (arg_var(0), call.args.get(1)) else {
                    return self.errors.push(refused(span, "tensor.read requires a tensor variable and indices"));
                };
                let Type::Tensor(tt) = vars.var_type(t) else {
                    return self.errors.push(refused(span, "tensor.read requires a tensor variable"));
                };
                let ExprKind::MakeTuple(indices) = &idx.kind else {
                    return self.errors.push(refused(span, "tensor.read requires a literal index list"));
                };
                let root = self.roots.get(&t).copied().unwrap_or(t);
                if self.written.contains(&root) {
                    self.errors.push(
                        refused(span, format!("tensor.read of '{}', which a task of this function writes", self.name(t)))
                            .with_note("the host submits tasks and goes on: its read is not ordered after the kernels that write the tensor, so it would read the data before or while they write it")
                            .with_note("help: read the value inside a kernel, or pass it to the orchestration function as a scalar parameter"),
                    );
                }
                for d in &tt.shape {
                    self.dim(d, span);
                }
                indices.iter().for_each(|i| self.scalar(i));
            }
            id::TENSOR_VIEW => {
                if arg_var(0).is_none() {
                    return self.errors.push(refused(span, "tensor.view requires a tensor variable"));
                }
                for a in call.args.iter().skip(1).take(2) {
                    match &a.kind {
                        ExprKind::MakeTuple(items) => items.iter().for_each(|i| self.scalar(i)),
                        _ => self.scalar(a),
                    }
                }
            }
            id::TENSOR_TRANSPOSE => {
                let axes =
                    (call.args.get(1).and_then(Expr::as_const_int), call.args.get(2).and_then(Expr::as_const_int));
                let (Some(t), (Some(a1), Some(a2))) = (arg_var(0), axes) else {
                    return self
                        .errors
                        .push(refused(span, "tensor.transpose requires a tensor variable and constant axes"));
                };
                let r = rank(t);
                if axis_in(a1, r).is_none() || axis_in(a2, r).is_none() {
                    self.errors.push(refused(span, format!("tensor.transpose: axes out of range for rank {r}")));
                }
            }
            id::TENSOR_RESHAPE => {
                if arg_var(0).is_none() {
                    return self.errors.push(refused(span, "tensor.reshape requires a tensor variable"));
                }
                if let Type::Tensor(rt) = vars.type_of(value) {
                    for d in &rt.shape {
                        self.dim(d, span);
                    }
                }
            }
            id::TENSOR_DIM => {
                let (Some(t), Some(axis)) = (arg_var(0), call.args.get(1).and_then(Expr::as_const_int)) else {
                    return self
                        .errors
                        .push(refused(span, "tensor.dim requires a tensor variable and a constant axis"));
                };
                let r = rank(t);
                if axis_in(axis, r).is_none() {
                    self.errors.push(refused(span, format!("tensor.dim: axis {axis} out of range for rank {r}")));
                }
            }
            // A value nothing reads needs no code: a MemRef planned for a tile (init-mem-ref), a
            // tile loaded before a `with pl.incore():` scope and recomputed inside the outlined
            // kernel (docs/orchestration-abi.md).
            _ if !self.read.contains(&var) && !writes_memory(call) => {}
            _ => self.errors.push(no_host_op(op, span)),
        }
    }

    /// One task: a call of kernel `callee` at `span`.
    fn task(&mut self, callee: &str, call: &Call, span: Span) {
        let Some(func) = self.prog.function(callee) else { return };
        if func.kind == FunctionType::Orchestration {
            // The runtime runs kernels as tasks; an orchestration function has no kernel file.
            self.errors.push(
                refused(
                    span,
                    format!("`{callee}` is an Orchestration function: an orchestration function can only submit kernels (InCore functions) as tasks"),
                )
                .with_note("an Opaque function with a `with pl.incore():` scope becomes an Orchestration function when the scope is outlined"),
            );
            return;
        }
        for (i, a) in call.args.iter().enumerate() {
            self.arg(func, i, a);
        }
    }

    /// Argument `i` of a task calling `func`.
    fn arg(&mut self, func: &Function, i: usize, a: &Expr) {
        let vars = &self.f.vars;
        let param_dtype = match func.params.get(i).map(|p| func.var_type(p.var)) {
            Some(Type::Scalar(d)) => Some(*d),
            _ => None,
        };
        match &a.kind {
            ExprKind::Var(v) if self.raw.contains(v) => {}
            ExprKind::Var(v) => match vars.var_type(*v) {
                Type::Scalar(d) => {
                    let pd = param_dtype.unwrap_or(*d);
                    let converts = pd == *d
                        || (pd == DataType::Bool && d.is_int())
                        || (pd.is_int() && (d.is_int() || *d == DataType::Bool));
                    if !converts {
                        // Float ↔ float needs the half-precision formats on the AICPU, which
                        // the orchestration file does not have.
                        self.errors.push(refused(
                            a.span,
                            format!(
                                "orchestration codegen: passing the {} scalar '{}' for the {} parameter {} of '{}' needs a conversion the orchestration code cannot make; declare the kernel's parameter {}, or pass an orchestration parameter of dtype {}",
                                d.name(),
                                self.name(*v),
                                pd.name(),
                                i + 1,
                                func.name,
                                d.name(),
                                pd.name()
                            ),
                        ));
                    }
                }
                Type::Tensor(_) => {
                    if func.params.get(i).is_none() {
                        self.errors.push(refused(
                            a.span,
                            format!("call of '{}' passes more arguments than it has parameters", func.name),
                        ));
                    }
                }
                // A kernel parameter of that type is refused by the kernel's own form rule.
                _ if func
                    .params
                    .get(i)
                    .is_some_and(|p| !matches!(func.var_type(p.var), Type::Tensor(_) | Type::Scalar(_))) => {}
                other => {
                    let kind = other.kind_name();
                    self.errors.push(refused(
                        a.span,
                        format!(
                            "orchestration codegen: cannot pass {kind} '{}' to kernel '{}'",
                            self.name(*v),
                            func.name
                        ),
                    ));
                }
            },
            ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => {}
            _ => self.errors.push(refused(
                a.span,
                format!(
                    "orchestration codegen: argument {i} of the call of '{}' must be a variable or a constant",
                    func.name
                ),
            )),
        }
    }
}

/// Whether the call writes a tensor it is given (a store): its effect matters even when its
/// result is not read.
pub fn writes_memory(call: &Call) -> bool {
    match call.callee {
        Callee::Op(op) => ops::def(op).rule == ops::table::Rule::Store,
        _ => false,
    }
}

fn no_host_op(op: crate::ir::OpId, span: Span) -> Diagnostic {
    refused(
        span,
        format!(
            "`{}` cannot run in an Orchestration function: orchestration code only creates tensors, reads scalars and calls kernels",
            ops::name(op)
        ),
    )
}
