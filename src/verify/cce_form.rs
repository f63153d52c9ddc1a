//! The CCE C++ form rule: what the kernel writer (`codegen::kernel`) needs of a kernel's IR
//! beyond the IR properties the passes keep. Code generation runs it on each kernel before
//! writing any of its C++, so a construct without a C++ form is reported here, at the
//! construct, and the writer refuses nothing this rule accepted: an error of the writer on a
//! kernel that passed is a bug of ptoc (an internal error), naga's validator contract.
//!
//! Like the memory-space rule ([`super::memory_reach`]) it is not one of the properties the
//! passes keep, so that the IR-only passes accept what the reference accepts.
//!
//! Checked here: kernel parameters (tensors and scalars only), the expressions written as C++
//! values (no nested call, list literal, non-finite float or cast to a non-scalar type),
//! `break`/`continue` (inside a loop that carries no values), loops whose iter
//! args and results differ in number, natural `while` loops that carry values by name, the
//! types of loop-carried values and `if` results, the buffers of loop-carried tiles, and per
//! op call: a C++ form (no call of another function), N-D tiles only where folding their
//! leading dimensions into rows computes the same, a result assigned where the C++ assigns one,
//! tile operands that are variables, offsets and indices written as lists, sync event ids in
//! range, tensors accessed through a kernel parameter, dynamic valid shapes of two extents, no
//! scratch tile for a column reduction, transposing moves of 512-byte fractals; `for` loop
//! variables used inside their loop only; then the types the writer spells ([`super::cce_types`]).
//!
//! The copies and scratch tiles legalize-cce makes ops of the IR are checked too, since
//! `--passes` may leave the pass out: element-wise operands of the result's dtype and shape,
//! comparisons on placed tiles as bit-mask ones, row reductions and transposes with their
//! scratch tile, Vec to Vec moves as `block.vec_move`, loop-carried and `if` tiles yielded in
//! their buffer, `if` tile results on chip.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::param_roots::{self, Root};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{
    Call, Callee, Expr, ExprKind, Function, MemorySpace, Stmt, TileLayout, Type, VarId, VarKind, VarTable,
};
use crate::ops::cce::{CceEmit, Family, Writes};

/// Checks kernel `f`; the first construct without a C++ form, in program order.
pub fn check(f: &Function) -> Result<(), Diagnostic> {
    f.params.iter().try_for_each(|p| param(f, p.var))?;
    let cx = Cx {
        vars: &f.vars,
        params: &f.params,
        roots: param_roots::roots(f),
        carries: tile_carry_checks(&f.vars, &f.body),
        dead: dead_tile_carries(&f.vars, &f.body),
        homes: loop_result_homes(&f.vars, &f.body),
    };
    cx.stmt(&f.body, &mut Vec::new())?;
    let mut loop_vars = FxHashSet::default();
    crate::ir::visit::walk_stmts(&f.body, &mut |s| {
        if let Stmt::For { loop_var, .. } = s {
            loop_vars.insert(*loop_var);
        }
    });
    if !loop_vars.is_empty() {
        loop_var_scopes(&f.vars, &f.body, &loop_vars, &mut Vec::new())?;
    }
    super::cce_types::check(f)
}

/// A `for` loop's variable is declared in the C++ loop's header, so it exists inside the loop
/// only: a use after the loop (where Python keeps the last iteration's value) has no C++ form.
/// `active`: the loop variables of the loops around `s`.
fn loop_var_scopes(
    vars: &VarTable,
    s: &Stmt,
    loop_vars: &FxHashSet<VarId>,
    active: &mut Vec<VarId>,
) -> Result<(), Diagnostic> {
    let mut found = None;
    for e in crate::ir::visit::stmt_exprs(s) {
        crate::ir::visit::walk_expr(e, &mut |x| {
            if let Some(v) = x.as_var().filter(|v| loop_vars.contains(v) && !active.contains(v)) {
                found.get_or_insert((v, x.span));
            }
        });
    }
    if let Some((v, at)) = found {
        let name = vars.var_name(v);
        return Err(refused(at, format!("CCE codegen: the loop variable {name} is used after its loop"))
            .with_note("the C++ loop declares its variable in its header, so it does not exist after the loop")
            .with_note(format!(
                "help: assign the value needed to a variable inside the loop (`last = {name}`) and use that"
            )));
    }
    if let Stmt::For { loop_var, body, .. } = s {
        active.push(*loop_var);
        let checked = loop_var_scopes(vars, body, loop_vars, active);
        active.pop();
        return checked;
    }
    crate::ir::visit::child_stmts(s).try_for_each(|c| loop_var_scopes(vars, c, loop_vars, active))
}

/// A kernel parameter: a tensor (a `GlobalTensor` over the argument) or a scalar.
fn param(f: &Function, v: VarId) -> Result<(), Diagnostic> {
    let data = f.vars.var(v);
    match &data.ty {
        Type::Tensor(_) | Type::Scalar(_) => Ok(()),
        // Only a function made by outlining gets a tile parameter (the tile was computed
        // before the scope and could not be recomputed in it): its span is the tile's
        // definition.
        Type::Tile(_) => Err(refused(
            data.span,
            format!("a tile computed outside `with pl.incore():` cannot be passed to the outlined kernel {}", f.name),
        )
        .with_label(format!("tile {} is defined here", data.name))
        .with_note("a tile lives in a core's local memory; a kernel receives only tensors and scalars")
        .with_note("help: compute the tile inside the `with pl.incore():` scope (ptoc does so itself when only tile and scalar computations separate its definition from the scope)")),
        _ => Err(refused(data.span, format!("Unsupported parameter type in function {}", f.name))
            .with_note(format!("parameter {} is a {}", data.name, data.ty.kind_name()))),
    }
}

/// An expression the kernel writes as a C++ value: no call in it (flatten-call-expr binds
/// each to a name), no list literal, finite float constants, casts to scalar types.
fn value(e: &Expr) -> Result<(), Diagnostic> {
    match &e.kind {
        ExprKind::ConstFloat(f, _) if !f.is_finite() => {
            Err(refused(e.span, format!("CCE codegen: float constant {f} has no C++ literal")))
        }
        ExprKind::Call(_) => Err(refused(e.span, "CCE codegen: a call nested in an expression".to_string())
            .with_note("run flatten-call-expr before --emit cpp")),
        ExprKind::MakeTuple(_) => Err(refused(e.span, "CCE codegen: a list literal used as a value".to_string())),
        ExprKind::Unary(crate::ir::UnOp::Cast, x) => {
            value(x)?;
            match e.ty.scalar_dtype() {
                Some(_) => Ok(()),
                None => Err(refused(e.span, "CCE codegen: cast to a non-scalar type".to_string())),
            }
        }
        ExprKind::Unary(_, x) | ExprKind::TupleGetItem(x, _) => value(x),
        ExprKind::Binary(_, a, b) => value(a).and_then(|()| value(b)),
        _ => Ok(()),
    }
}

/// The arguments of an op call: values, or lists of values; a tile is a variable (the C++
/// object of a tile is declared for a variable).
fn call_args(c: &Call) -> Result<(), Diagnostic> {
    c.args.iter().try_for_each(|a| match &a.kind {
        ExprKind::MakeTuple(xs) => xs.iter().try_for_each(value),
        _ if matches!(a.ty, Type::Tile(_)) && a.as_var().is_none() => {
            value(a)?;
            Err(refused(a.span, "CCE codegen: a tile operand must be a variable".to_string()))
        }
        _ => value(a),
    })
}

/// An error of this rule at `span`.
fn refused(span: Span, msg: String) -> Diagnostic {
    Diagnostic::error(codes::NO_CPP_FORM, span, msg)
}

struct Cx<'f> {
    vars: &'f VarTable,
    params: &'f [crate::ir::Param],
    /// The tensor parameter each tensor variable names: a kernel's tensors are GlobalTensors
    /// over its parameters.
    roots: FxHashMap<VarId, Root>,
    /// Tile iter args → whether their carried buffer has a C++ form ([`tile_carry_checks`]).
    carries: FxHashMap<VarId, Result<(), Diagnostic>>,
    /// The tile iter args whose carried value nothing reads ([`dead_tile_carries`]).
    dead: FxHashSet<VarId>,
    /// The DDR MemRefs of loops' tile results → the memory of the carried buffer the writer
    /// places them in ([`loop_result_homes`]).
    homes: FxHashMap<VarId, MemorySpace>,
}

impl Cx<'_> {
    /// `loops`: the loops around `s`, innermost last, each with whether it carries values.
    fn stmt(&self, s: &Stmt, loops: &mut Vec<bool>) -> Result<(), Diagnostic> {
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().try_for_each(|c| self.stmt(c, loops)),
            Stmt::Scope { body, .. } => self.stmt(body, loops),
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                value(cond)?;
                return_vars.iter().try_for_each(|&r| self.if_result(r))?;
                self.stmt(then_body, loops)?;
                else_body.as_deref().map_or(Ok(()), |e| self.stmt(e, loops))?;
                let branches = [Some(&**then_body), else_body.as_deref()];
                self.if_tiles(return_vars, branches, *span)?;
                self.if_tensors(return_vars, branches, *span)
            }
            Stmt::For { start, stop, step, iter_args, body, return_vars, span, .. } => {
                [start, stop, step].into_iter().try_for_each(|e| value(e))?;
                check_carried_sizes("ForStmt", iter_args, return_vars, *span)?;
                self.loop_body(iter_args, body, loops)?;
                self.loop_yield(iter_args, body, *span)
            }
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                value(cond)?;
                check_carried_sizes("WhileStmt", iter_args, return_vars, *span)?;
                if iter_args.is_empty() {
                    natural_loop_check(self.vars, cond, body)?;
                }
                self.loop_body(iter_args, body, loops)?;
                self.loop_yield(iter_args, body, *span)
            }
            Stmt::Break { span } | Stmt::Continue { span } => {
                let word = if matches!(s, Stmt::Break { .. }) { "break" } else { "continue" };
                match loops.last() {
                    None => Err(refused(*span, format!("CCE codegen: `{word}` outside a loop"))),
                    // The front end refuses a jump in a loop that carries values; IR built
                    // otherwise would skip the assignments of the carried variables at the end
                    // of the body.
                    Some(true) => Err(refused(
                        *span,
                        format!(
                            "CCE codegen: `{word}` in a loop with iter_args would skip the update of its loop-carried values"
                        ),
                    )),
                    Some(false) => Ok(()),
                }
            }
            Stmt::Assign { var, value: e, span } => match &e.kind {
                ExprKind::Call(c) => call_args(c).and_then(|()| self.call(Some(*var), c, *span)),
                _ => value(e),
            },
            Stmt::Eval { expr, span } => match &expr.kind {
                ExprKind::Call(c) => call_args(c).and_then(|()| self.call(None, c, *span)),
                _ => value(expr),
            },
            Stmt::Return { values, .. } | Stmt::Yield { values, .. } => {
                super::nested_call::call_as_result(values, codes::NO_CPP_FORM)?;
                values.iter().try_for_each(value)
            }
        }
    }

    fn loop_body(&self, iter_args: &[VarId], body: &Stmt, loops: &mut Vec<bool>) -> Result<(), Diagnostic> {
        iter_args.iter().try_for_each(|&a| self.iter_arg(a))?;
        loops.push(!iter_args.is_empty());
        let checked = self.stmt(body, loops);
        loops.pop();
        checked
    }

    /// A loop-carried value: a GlobalTensor or a scalar, declared before the loop from its
    /// init, or a tile whose buffer carries it.
    fn iter_arg(&self, a: VarId) -> Result<(), Diagnostic> {
        let data = self.vars.var(a);
        let VarKind::IterArg { init } = &data.kind else {
            return Err(refused(data.span, "CCE codegen: iter_arg without an init value".to_string()));
        };
        value(init)?;
        match &data.ty {
            Type::Tensor(_) if self.root(init).is_none() => Err(refused(
                init.span,
                format!("CCE codegen: the loop-carried tensor {} does not start from a kernel parameter", data.name),
            )
            .with_note("a kernel's tensors are GlobalTensors over its parameters: a tensor iter_arg must start from a tensor parameter (or a store into one)")),
            Type::Tensor(_) | Type::Scalar(_) => Ok(()),
            Type::Tile(_) => match self.carries.get(&a) {
                Some(Err(d)) => Err(d.clone()),
                _ => Ok(()),
            },
            other => Err(refused(
                data.span,
                format!("CCE codegen: {}-typed iter_arg {} is not supported", other.kind_name(), data.name),
            )
            .with_note("only GlobalTensor and scalar loop-carried values have a C++ form (spec §6 Q9)")),
        }
    }

    /// A partial tile loaded from or stored to a tensor: its C++ is a GlobalTensor of the tile's
    /// valid rows and columns at the window, which exists for a 2-D tensor and tile only.
    fn partial_window(
        &self,
        form: CceEmit,
        target: Option<VarId>,
        args: &[Expr],
        span: Span,
    ) -> Result<(), Diagnostic> {
        let (tile, tensor, at) = match form {
            CceEmit::Load => (target.map(|v| self.vars.var_type(v)), args.first(), span),
            _ => (args.first().map(|a| self.vars.type_of(a)), args.get(3), args.first().map_or(span, |a| a.span)),
        };
        let Some(Type::Tile(t)) = tile else { return Ok(()) };
        let Some(valid) = t.view.as_ref().map(|v| v.valid_shape.as_slice()).filter(|v| !v.is_empty()) else {
            return Ok(());
        };
        let rank = tensor.map_or(0, |e| self.vars.type_of(e).shape().map_or(0, <[Expr]>::len));
        if rank == 2 && valid.len() == 2 {
            return Ok(());
        }
        Err(refused(at, format!("CCE codegen: a partial tile of a {rank}-D tensor"))
            .with_note("a partial tile is loaded and stored through a GlobalTensor of its valid rows and columns, which ptoc writes for 2-D tensors and tiles only"))
    }

    /// An op call assigned to `target` (an `EvalStmt` has none): an op with a C++ form, on
    /// tiles whose folded C++ form computes what the op does, assigned where its C++ assigns
    /// a value, with its offsets and indices written out as lists.
    fn call(&self, target: Option<VarId>, c: &Call, span: Span) -> Result<(), Diagnostic> {
        let op = match &c.callee {
            Callee::Op(op) => *op,
            Callee::Function(f) => return Err(no_codegen(f, span).with_note("a kernel cannot call another function")),
        };
        let def = crate::ops::def(op);
        let name = def.name;
        let Some(form) = def.cce else { return Err(no_codegen(name, span)) };
        if let CceEmit::Unsupported { why } = form {
            return Err(refused(span, format!("CCE codegen: {name} is not supported")).with_note(why));
        }
        let args = &c.args;
        check_folded(self.vars, form, name, target, args, span)?;
        if crate::ops::ignores_valid_shape(op) {
            let partial = args.iter().find(|a| match self.vars.type_of(a) {
                Type::Tile(t) => t.view.as_ref().is_some_and(|v| !v.valid_shape.is_empty()),
                _ => false,
            });
            if let Some(a) = partial {
                return Err(refused(
                    a.span,
                    format!("CCE codegen: {name} of a partial tile (a tile with a valid shape)"),
                )
                .with_note(format!("{name} works on whole tiles; make the tile whole first (block.fillpad)")));
            }
        }
        match (form.writes(), target) {
            (Writes::Tile, None) => {
                return Err(refused(span, format!("the result of {name} must be assigned to a tile")))
            }
            (Writes::Tile, Some(v)) if !matches!(self.vars.var_type(v), Type::Tile(_)) => {
                let got = self.vars.var_type(v).kind_name();
                return Err(refused(span, format!("the result of {name} must be a tile, got {got}")));
            }
            (Writes::Scalar, None) => return Err(refused(span, format!("the result of {name} must be assigned"))),
            (Writes::Scalar, Some(v)) if !matches!(self.vars.var_type(v), Type::Scalar(_)) => {
                let got = self.vars.var_type(v).kind_name();
                return Err(refused(span, format!("the result of {name} must be a scalar, got {got}")));
            }
            _ => {}
        }
        self.dynamic_valid_shape(target, span)?;
        self.placed_operands(form, name, target, c, span)?;
        let list = |i: usize| match args.get(i).map(|a| &a.kind) {
            Some(ExprKind::MakeTuple(xs)) => Some(xs.len()),
            _ => None,
        };
        let tensor_var = |what: &str| match args.first() {
            Some(t) if t.as_var().is_none() => Err(refused(t.span, format!("CCE codegen: {what} must be a variable"))),
            _ => Ok(()),
        };
        match form {
            CceEmit::Load | CceEmit::Store => {
                tensor_var("the accessed tensor")?;
                let t = args.get(if form == CceEmit::Load { 0 } else { 3 });
                if let Some((t, v)) = t.and_then(|t| Some((t, t.as_var()?))).filter(|(t, _)| self.root(t).is_none()) {
                    return Err(refused(
                        t.span,
                        format!("CCE codegen: Pointer for tensor {} not found", self.vars.var_name(v)),
                    )
                    .with_note("a kernel can only access tensors passed as parameters"));
                }
                self.partial_window(form, target, args, span)?;
                let at = args.get(1).map_or(span, |a| a.span);
                match list(1) {
                    None => return Err(refused(at, "CCE codegen: offsets must be a list literal".to_string())),
                    Some(0) => return Err(refused(span, "CCE codegen: offsets must not be empty".to_string())),
                    Some(_) => {}
                }
            }
            CceEmit::Extract => {
                let at = args.get(2).map_or(span, |a| a.span);
                match list(2) {
                    None => {
                        return Err(refused(
                            at,
                            "CCE codegen: the offset of block.view must be a list literal".to_string(),
                        ))
                    }
                    Some(1 | 2) => {}
                    Some(_) => {
                        return Err(refused(at, "CCE codegen: block.view needs a 1-D or 2-D offset".to_string()))
                    }
                }
            }
            CceEmit::TensorRead => {
                tensor_var("tensor.read: the tensor")?;
                self.read_input(args, span)?;
                if list(1).is_none() {
                    let at = args.get(1).map_or(span, |a| a.span);
                    return Err(refused(at, "tensor.read: indices must be a list literal".to_string()));
                }
            }
            CceEmit::TensorDim => {
                let Some(Type::Tensor(t)) = args.first().map(|a| self.vars.type_of(a)) else {
                    return Err(refused(span, "tensor.dim: first argument must be a tensor".to_string()));
                };
                let rank = t.shape.len() as i64;
                let Some(axis) = args.get(1).and_then(Expr::as_const_int) else {
                    return Err(refused(span, "tensor.dim: axis must be a constant".to_string()));
                };
                if !(-rank..rank).contains(&axis) {
                    return Err(refused(span, format!("tensor.dim: axis {axis} out of range for rank {rank}")));
                }
                // A runtime extent is the one the parameter's `Tensor` argument carries.
                let dim = &t.shape[if axis < 0 { axis + rank } else { axis } as usize];
                if dim.as_const_int().is_none() && self.root(&args[0]).is_none() {
                    return Err(refused(span, "tensor.dim: the runtime extent of a tensor is known only for a kernel parameter".to_string())
                        .with_note("a kernel's tensors are GlobalTensors over its parameters, and only a parameter's `Tensor` argument carries its extents")
                        .with_note("help: take the extent of the parameter the tensor was stored into"));
                }
            }
            CceEmit::Flag { .. } => {
                // `set_flag`/`wait_flag` name one of the eight event ids of a pipe pair.
                let Some(e) = crate::ops::kwargs::sync_event_of(&c.kwargs) else {
                    return Err(refused(span, format!("{name}: missing or invalid set_pipe, wait_pipe or event_id")));
                };
                if !(0..8).contains(&e.id) {
                    return Err(refused(span, format!("{name}: event_id must be in range [0, 7]")));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The final yield of a loop body that carries values: one value per iter arg, and each
    /// tile in its carried buffer (legalize-cce copies one that is elsewhere there), unless
    /// nothing reads the carried value.
    fn loop_yield(&self, iter_args: &[VarId], body: &Stmt, span: Span) -> Result<(), Diagnostic> {
        let Some(ys) = body.final_yield().filter(|_| !iter_args.is_empty()) else { return Ok(()) };
        yield_count(ys, iter_args.len(), span)?;
        for (&a, y) in iter_args.iter().zip(ys) {
            if !matches!(self.vars.var_type(a), Type::Tile(_)) || self.dead.contains(&a) {
                continue;
            }
            if !self.same_buffer(y, a) {
                return Err(not_legalized(
                    y.span,
                    format!("the tile yielded as {} is not in the carried tile's buffer", self.vars.var_name(a)),
                )
                .with_note("legalize-cce copies it there with block.vec_move before the yield"));
            }
        }
        Ok(())
    }

    /// Whether `e` is a tile variable in the buffer of tile variable `v`.
    fn same_buffer(&self, e: &Expr, v: VarId) -> bool {
        let m = self.vars.var_type(v).memref();
        e.as_var().is_some_and(|x| m.is_some() && self.vars.var_type(x).memref() == m)
    }

    /// The tile results of an `if`: each has an on-chip buffer (init-mem-ref puts it in DDR,
    /// legalize-cce gives it a Vec one), and every branch yields it in that buffer (legalize-cce
    /// copies it there). Also: every branch yields one value per result.
    fn if_tiles(&self, return_vars: &[VarId], branches: [Option<&Stmt>; 2], span: Span) -> Result<(), Diagnostic> {
        if return_vars.is_empty() {
            return Ok(());
        }
        for body in branches.into_iter().flatten() {
            if let Some(ys) = body.final_yield() {
                yield_count(ys, return_vars.len(), span)?;
            }
        }
        for (j, &r) in return_vars.iter().enumerate() {
            let data = self.vars.var(r);
            let Type::Tile(t) = &data.ty else { continue };
            if self.memref_space(t.memref) == Some(MemorySpace::Ddr) {
                return Err(not_legalized(
                    data.span,
                    format!("the tile result {} of this if has no on-chip buffer", data.name),
                )
                .with_note("legalize-cce gives an if's tile result a Vec buffer when every branch yields a Vec tile; yield Vec tiles (block.move them there) or store the value into a tensor in each branch"));
            }
            for body in branches.into_iter().flatten() {
                let Some(y) = body.final_yield().and_then(|ys| ys.get(j)) else { continue };
                if !self.same_buffer(y, r) {
                    return Err(not_legalized(
                        y.span,
                        format!("the tile yielded as {} is not in the if result's buffer", data.name),
                    )
                    .with_note("legalize-cce copies it there with block.vec_move before the yield"));
                }
            }
        }
        Ok(())
    }

    /// The memory of MemRef `m`.
    fn memref_space(&self, m: Option<VarId>) -> Option<MemorySpace> {
        match &self.vars.var(m?).kind {
            VarKind::MemRef(info) => Some(info.space),
            _ => None,
        }
    }

    /// The tile `e` as the writer declares it: dtype, folded rows and columns, and for a tile
    /// with a buffer its layout. `None` for a tile without a C++ type (the types part of the
    /// rule reports it at its definition) and for anything else.
    fn c_tile(&self, e: &Expr) -> Option<CTile> {
        let Type::Tile(t) = self.vars.type_of(e) else { return None };
        let (rows, cols) = super::cce_types::tile_rows_cols(&t.shape, e.span).ok()?;
        let layout = t.memref.map(|m| {
            // A loop's tile result that init-mem-ref left in DDR lives in the carried buffer.
            let space = match self.memref_space(Some(m)) {
                Some(MemorySpace::Ddr) | None => self.homes.get(&m).copied().unwrap_or(MemorySpace::Vec),
                Some(s) => s,
            };
            super::cce_types::tile_layout(space, t, cols)
        });
        Some(CTile { dtype: t.dtype, rows, cols, layout })
    }

    /// What the writer needs of the operands of a call on tiles with buffers, which
    /// legalize-cce makes so (`--passes` may leave it out): element-wise operands of the
    /// result's dtype and shape, comparisons as bit-mask ones, row reductions and transposes
    /// with their scratch tile, Vec to Vec moves as `block.vec_move`.
    fn placed_operands(
        &self,
        form: CceEmit,
        name: &str,
        target: Option<VarId>,
        c: &Call,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let args = &c.args;
        let result = target.and_then(|v| self.c_tile(&Expr::var(v, span)));
        let placed = result.as_ref().is_some_and(|d| d.layout.is_some());
        match form {
            CceEmit::Elementwise { family, .. } if placed => {
                let scalar = (family == Family::BinaryScalar).then_some(1);
                self.elementwise(result, args, scalar, true, span)
            }
            CceEmit::Cast if placed => self.elementwise(result, args, None, false, span),
            CceEmit::Cmp { .. } if placed => {
                let cols = result.map_or(0, |d| d.cols);
                if cols % 8 != 0 {
                    return Err(refused(
                        span,
                        format!("CCE codegen: {name} needs a tile whose row length is a multiple of 8, got {cols}"),
                    )
                    .with_note("pto-isa compares into a packed bit mask, a byte for each 8 elements of a row"));
                }
                Err(not_legalized(span, format!("{name} on placed tiles"))
                    .with_note("legalize-cce writes it as block.cmp_bits and block.select_bits"))
            }
            CceEmit::Reduce { col, row } => {
                let rank = match args.first().map(|a| self.vars.type_of(a)) {
                    Some(Type::Tile(t)) => t.shape.len() as i64,
                    _ => 2,
                };
                // The op's type rule requires `axis` and checks its range.
                let axis = crate::ops::kwargs::int(c, "axis").unwrap_or(-1);
                let along_rows = !(rank == 2 && (axis == 0 || axis == -2));
                match (along_rows, args.get(1)) {
                    (false, Some(tmp)) => Err(refused(
                        tmp.span,
                        format!("CCE codegen: {name} along axis 0 is {col}, which takes no scratch tile"),
                    )
                    .with_note(format!("only a reduction along rows ({row}) works in a tmp_tile"))
                    .with_note("help: leave out tmp_tile")),
                    (true, None) if placed => Err(not_legalized(span, format!("{row} without its scratch tile"))
                        .with_note("legalize-cce adds one as tmp_tile")),
                    _ => Ok(()),
                }
            }
            CceEmit::Transpose if args.get(3).is_none() => {
                Err(refused(span, format!("CCE codegen: {name} needs its scratch tile")).with_note(
                    "legalize-cce gives one to a 2-D transpose of a Vec tile; write `tmp_tile=` for any other",
                ))
            }
            CceEmit::Move => {
                let Some(src) = args.first() else { return Ok(()) };
                let src_space = self.vars.type_of(src).memref().and_then(|m| self.memref_space(Some(m)));
                let transpose = crate::ops::kwargs::bool(c, "transpose") == Some(true);
                let boxed =
                    self.c_tile(src).and_then(|t| t.layout).filter(|(_, s, f)| *f != 512 && *s != TileLayout::NoneBox);
                if let (true, Some((_, _, fractal))) = (transpose, boxed) {
                    return Err(refused(
                        src.span,
                        format!("CCE codegen: a transposing move needs a source with 512-byte fractals, got {fractal}-byte ones"),
                    )
                    .with_note("the source is read through its transposed view, which exchanges the two levels of 512-byte fractal boxes"));
                }
                let to = crate::ops::kwargs::space(c, "target_memory");
                if src_space == Some(MemorySpace::Vec) && to == Some(MemorySpace::Vec) {
                    return Err(not_legalized(
                        span,
                        "a Vec to Vec block.move is a copy on the vector pipe".to_string(),
                    )
                    .with_note("legalize-cce makes it block.vec_move"));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The tile operands of an element-wise op whose result has a buffer: of the result's
    /// dtype (`same_dtype`) and shape, as pto-isa's instructions take them. A column-major
    /// result with operands that are not all column-major tiles of its shape is written as
    /// the reference writes it; with such operands, it is computed on their row-major views.
    fn elementwise(
        &self,
        result: Option<CTile>,
        args: &[Expr],
        scalar: Option<usize>,
        same_dtype: bool,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let Some(d) = result else { return Ok(()) };
        let mut tiles = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if Some(i) == scalar {
                continue;
            }
            if a.as_var().is_none() || !matches!(self.vars.type_of(a), Type::Tile(_)) {
                return Err(refused(a.span, "CCE codegen: a tile operand must be a tile variable".to_string()));
            }
            // A tile without a C++ type is reported at its definition.
            let Some(t) = self.c_tile(a) else { return Ok(()) };
            tiles.push(t);
        }
        let col_major =
            |t: &CTile| t.layout.is_some_and(|(b, s, _)| b == TileLayout::ColMajor && s == TileLayout::NoneBox);
        let all = tiles.iter().all(|t| col_major(t) && (t.rows, t.cols) == (d.rows, d.cols));
        if col_major(&d) && !all {
            return Ok(());
        }
        for t in &tiles {
            if same_dtype && t.dtype != d.dtype {
                return Err(not_legalized(
                    span,
                    "an element-wise operand of another dtype than the result".to_string(),
                )
                .with_note("legalize-cce converts it with block.cast"));
            }
            if (t.rows, t.cols) != (d.rows, d.cols) {
                return Err(not_legalized(
                    span,
                    format!(
                        "cannot broadcast a [{}, {}] tile to the result's shape [{}, {}]",
                        t.rows, t.cols, d.rows, d.cols
                    ),
                )
                .with_note("legalize-cce expands a row or column operand into a tile of the result's shape, or fuses it into a row or column expansion"));
            }
        }
        Ok(())
    }

    /// A tile defined with a valid shape given at run time: the writer sets its valid rows and
    /// columns (`SetValidShape`), which a 2-D valid shape has.
    fn dynamic_valid_shape(&self, target: Option<VarId>, span: Span) -> Result<(), Diagnostic> {
        let Some(Type::Tile(t)) = target.map(|v| self.vars.var_type(v)) else { return Ok(()) };
        let Some(valid) = t.view.as_ref().map(|v| v.valid_shape.as_slice()) else { return Ok(()) };
        if valid.len() == 2 || valid.iter().all(|e| e.as_const_int().is_some()) {
            return Ok(());
        }
        Err(refused(span, format!("CCE codegen: a tile with a {}-D valid shape given at run time", valid.len()))
            .with_note("pto-isa sets a tile's valid rows and columns at run time (`SetValidShape`); give a 2-D tile a valid shape of two extents"))
    }

    /// The tensor parameter tensor expression `e` names, if one.
    fn root(&self, e: &Expr) -> Option<Root> {
        e.as_var().and_then(|v| self.roots.get(&v).copied())
    }

    /// `tensor.read(t, …)`: `t` names an input (`In`) parameter. The scalar unit reads memory
    /// the vector and cube pipes may still be writing, and the passes place no sync for it:
    /// only a tensor the kernel never writes is safe.
    fn read_input(&self, args: &[Expr], span: Span) -> Result<(), Diagnostic> {
        let Some(t) = args.first() else { return Ok(()) };
        match self.root(t) {
            None => Err(refused(t.span, "tensor.read: the tensor must be a kernel parameter".to_string())
                .with_note("a kernel can only access tensors passed as parameters")),
            Some(Root::Param(p))
                if self.params.iter().any(|q| q.var == p && q.direction != crate::ir::ParamDirection::In) =>
            {
                Err(refused(span, "tensor.read: a kernel reads only its input (`In`) tensors".to_string())
                    .with_note("a scalar read of a tensor the kernel writes would need a sync the passes do not place"))
            }
            Some(_) => Ok(()),
        }
    }

    /// The tensor results of an `if`: each branch yields a tensor over one parameter, the same
    /// in every branch (the result is a GlobalTensor over it, whichever branch ran).
    fn if_tensors(&self, return_vars: &[VarId], branches: [Option<&Stmt>; 2], span: Span) -> Result<(), Diagnostic> {
        for (j, &r) in return_vars.iter().enumerate() {
            if !matches!(self.vars.var_type(r), Type::Tensor(_)) {
                continue;
            }
            let mut first: Option<(VarId, VarId)> = None;
            for body in branches.into_iter().flatten() {
                let Some(y) = body.final_yield().and_then(|ys| ys.get(j)) else { continue };
                let (Some(v), Some(Root::Param(p))) = (y.as_var(), self.root(y)) else {
                    return Err(refused(
                        y.span,
                        format!(
                            "CCE codegen: the tensor yielded for {} is not a kernel parameter's tensor",
                            self.vars.var_name(r)
                        ),
                    )
                    .with_note("yield the result of a pl.block.store into a tensor parameter"));
                };
                match first {
                    Some((fp, fv)) if fp != p => {
                        return Err(refused(
                            y.span,
                            format!(
                                "CCE codegen: the branches of this if yield tensors over different parameters as {} ('{}' and '{}')",
                                self.vars.var_name(r),
                                self.vars.var_name(fv),
                                self.vars.var_name(v)
                            ),
                        )
                        .with_note("a kernel's tensors are its parameters' buffers: store into the same output tensor in both branches"));
                    }
                    Some(_) => {}
                    None => first = Some((p, v)),
                }
            }
            if first.is_none() {
                return Err(refused(
                    span,
                    format!("CCE codegen: no branch of this if yields a value for {}", self.vars.var_name(r)),
                ));
            }
        }
        Ok(())
    }

    fn if_result(&self, r: VarId) -> Result<(), Diagnostic> {
        let data = self.vars.var(r);
        match &data.ty {
            Type::Tile(_) | Type::Tensor(_) | Type::Scalar(_) => Ok(()),
            other => Err(refused(
                data.span,
                format!("CCE codegen: {}-typed if return value {} is not supported", other.kind_name(), data.name),
            )
            .with_note("the reference declares it as `T x();`, a function declaration (spec §6.1 Q23)")),
        }
    }
}

/// A tile as the kernel writer declares it ([`Cx::c_tile`]).
#[derive(Clone, Copy)]
struct CTile {
    dtype: crate::ir::DataType,
    rows: i64,
    cols: i64,
    /// `(BLayout, SLayout, fractal bytes)` of a tile with a buffer.
    layout: Option<(TileLayout, TileLayout, u64)>,
}

/// A construct whose C++ needs a copy or a scratch tile that legalize-cce makes an op of the
/// IR, in IR that did not go through it (`--passes` without it).
fn not_legalized(span: Span, what: String) -> Diagnostic {
    refused(span, format!("CCE codegen: {what}"))
        .with_note("the copy it needs is made an IR op by legalize-cce, so that insert-sync orders it and allocate-memory-addr places its buffer")
        .with_note("help: run legalize-cce (the default pipeline does) before insert-sync and allocate-memory-addr")
}

/// A yield of `n` values (a loop's iter args, an `if`'s results).
fn yield_count(ys: &[Expr], n: usize, span: Span) -> Result<(), Diagnostic> {
    if ys.len() == n {
        return Ok(());
    }
    Err(refused(span, format!("Yielded {} values but expected {n}", ys.len())))
}

/// The DDR MemRefs that init-mem-ref gives loops' tile results (spec §6 Q6) → the memory of
/// the iter arg's buffer, where the writer places the result (the carried tile).
fn loop_result_homes(vars: &VarTable, body: &Stmt) -> FxHashMap<VarId, MemorySpace> {
    let mut homes = FxHashMap::default();
    crate::ir::visit::walk_stmts(body, &mut |s| {
        let (Stmt::For { iter_args, return_vars, .. } | Stmt::While { iter_args, return_vars, .. }) = s else {
            return;
        };
        for (&a, &r) in iter_args.iter().zip(return_vars) {
            let (Some(m), Some(am)) = (vars.var_type(r).memref(), vars.var_type(a).memref()) else { continue };
            if let (VarKind::MemRef(info), VarKind::MemRef(at)) = (&vars.var(m).kind, &vars.var(am).kind) {
                if info.space == MemorySpace::Ddr {
                    homes.insert(m, at.space);
                }
            }
        }
    });
    homes
}

/// The Tile-typed iter args of the loops in `body` whose value is never read: not in the loop
/// body, and not after the loop through its return var. convert-to-ssa carries every name a
/// loop body reassigns (`a_l1 = pl.load(...)` each iteration over an `a_l1` loaded before the
/// loop); when nothing reads the carried value, the C++ needs no carry (no move into the
/// initial tile's buffer), whatever memory the tile is in.
pub fn dead_tile_carries(vars: &VarTable, body: &Stmt) -> FxHashSet<VarId> {
    let mut used = FxHashSet::default();
    crate::ir::visit::walk_all_exprs(body, &mut |e| {
        if let Some(v) = e.as_var() {
            used.insert(v);
        }
    });
    let mut dead = FxHashSet::default();
    crate::ir::visit::walk_stmts(body, &mut |s| {
        let (Stmt::For { iter_args, return_vars, .. } | Stmt::While { iter_args, return_vars, .. }) = s else {
            return;
        };
        for (k, &a) in iter_args.iter().enumerate() {
            let read_after = return_vars.get(k).is_none_or(|r| used.contains(r));
            if matches!(vars.var_type(a), Type::Tile(_)) && !used.contains(&a) && !read_after {
                dead.insert(a);
            }
        }
    });
    dead
}

/// For every Tile-typed iter arg of a `for` or `while` in `body`: whether its C++ form is correct. The
/// carried tile is its init tile's buffer (InitMemRef gives an iter arg its init's MemRef), so:
/// the init must be a Vec tile variable sharing that MemRef; the init must not be read once the
/// loop has started (its buffer then holds the carried value); and no tile defined after the loop
/// may share the buffer (the loop's result lives there, and memory reuse does not see uses of
/// the result, whose MemRef is its own: §6 Q6).
fn tile_carry_checks(vars: &VarTable, body: &Stmt) -> FxHashMap<VarId, Result<(), Diagnostic>> {
    let mut order: Vec<&Stmt> = Vec::new();
    crate::ir::visit::walk_stmts(body, &mut |s| order.push(s));
    let mut out = FxHashMap::default();
    let dead = dead_tile_carries(vars, body);
    for (i, s) in order.iter().enumerate() {
        let (Stmt::For { iter_args, body: loop_body, .. } | Stmt::While { iter_args, body: loop_body, .. }) = s else {
            continue;
        };
        let mut size = 0usize;
        crate::ir::visit::walk_stmts(s, &mut |_| size += 1);
        for &a in iter_args {
            let data = vars.var(a);
            let Type::Tile(t) = &data.ty else { continue };
            if dead.contains(&a) {
                out.insert(a, Ok(()));
                continue;
            }
            let check = (|| {
                let fail = |msg: String| {
                    Err(refused(data.span, msg).with_note(
                        "carry the value through a tensor instead: store it at the end of each iteration and load it at the start of the next",
                    ))
                };
                let init = match &data.kind {
                    VarKind::IterArg { init } => init.as_var(),
                    _ => None,
                };
                let m = t.memref;
                let Some(init) = init.filter(|u| m.is_some() && vars.var_type(*u).memref() == m) else {
                    return fail(format!(
                        "CCE codegen: the loop-carried tile {} must start from a tile variable",
                        data.name
                    ));
                };
                let vec = m.is_some_and(
                    |m| matches!(&vars.var(m).kind, VarKind::MemRef(info) if info.space == crate::ir::MemorySpace::Vec),
                );
                // A tile yielded in the carried buffer needs no copy (an accumulator built in
                // place, basic-memory-reuse's `carry_accumulators`); any other needs a `TMOV`
                // into the carried buffer, which pto-isa has only within Vec memory.
                let k = iter_args.iter().position(|x| *x == a).unwrap_or(0);
                let yielded = loop_body.final_yield().and_then(|ys| ys.get(k)).and_then(Expr::as_var);
                let in_place = yielded.is_some_and(|y| vars.var_type(y).memref() == m);
                if !vec && !in_place {
                    let hint = if m.is_some_and(|m| matches!(&vars.var(m).kind, VarKind::MemRef(info) if info.space == crate::ir::MemorySpace::Acc)) {
                        " unless it is accumulated in place (`acc2 = pl.block.matmul_acc(acc, a, b)` yielded, `acc` read by nothing after it)"
                    } else {
                        ""
                    };
                    return fail(format!(
                        "CCE codegen: the loop-carried tile {} must be in Vec memory{hint}",
                        data.name
                    ));
                }
                for later in &order[i + 1..] {
                    let uses_init = crate::ir::visit::stmt_exprs(later).any(|e| {
                        let mut found = false;
                        crate::ir::visit::walk_expr(e, &mut |x| found |= x.as_var() == Some(init));
                        found
                    });
                    if uses_init {
                        return fail(format!(
                            "CCE codegen: {} is read after the loop carrying {} starts, but its buffer then holds the carried value",
                            vars.var_name(init),
                            data.name
                        ));
                    }
                }
                // BasicMemoryReuse does not count a yield as a use (§6 Q14): a tile defined
                // after the yielded one in the body may have been given its buffer.
                if let Some(y) = loop_body.final_yield().and_then(|ys| ys.get(k)).and_then(Expr::as_var) {
                    let ym = vars.var_type(y).memref();
                    let mut after_def = false;
                    for st in &order[i + 1..i + size] {
                        let Stmt::Assign { var, .. } = st else { continue };
                        if *var == y {
                            after_def = true;
                        } else if after_def && ym.is_some() && vars.var_type(*var).memref() == ym {
                            return fail(format!(
                                "CCE codegen: tile {} shares the buffer of {}, the value carried to the next iteration as {}",
                                vars.var_name(*var),
                                vars.var_name(y),
                                data.name
                            ));
                        }
                    }
                }
                for later in order.iter().skip(i + size) {
                    if let Stmt::Assign { var, .. } = later {
                        if matches!(vars.var_type(*var), Type::Tile(_)) && vars.var_type(*var).memref() == m {
                            return fail(format!(
                                "CCE codegen: tile {} defined after the loop shares the buffer of the loop-carried tile {}",
                                vars.var_name(*var),
                                data.name
                            ));
                        }
                    }
                }
                Ok(())
            })();
            out.insert(a, check);
        }
    }
    out
}

/// A natural `while` (pre-SSA: no iter args) carries values from one iteration to the next by
/// name: `i = i + 1` in the body makes a new variable named `i`, and the next evaluation of
/// the condition reads it (Python scoping; the interpreter follows it). The C++ declares each
/// IR variable on its own, so such a loop would not see its own updates (and would not end):
/// it is reported at the assignment, and convert-to-ssa (in the default pipeline) turns it into
/// iter args, which the C++ carries.
fn natural_loop_check(vars: &VarTable, cond: &Expr, body: &Stmt) -> Result<(), Diagnostic> {
    let Some((x, at)) = carried_by_name(vars, cond, body) else { return Ok(()) };
    Err(refused(
        at,
        format!(
            "CCE codegen: this while loop carries {} from one iteration to the next by name, which has no C++ form before convert-to-ssa",
            vars.var_name(x)
        ),
    )
    .with_note("help: run convert-to-ssa before codegen (the default pipeline does), or write the loop as `for (...) in pl.while_(init_values=(...)):` with `pl.cond` and `pl.yield_`"))
}

/// The variable a natural `while` (no iter args) assigns in its body under the name of one
/// read by its condition or body before, with the assignment's span: a value the loop carries
/// by name, which a generated loop would not see updated ([`natural_loop_check`]).
pub fn carried_by_name(vars: &VarTable, cond: &Expr, body: &Stmt) -> Option<(VarId, Span)> {
    let mut inner: Vec<(VarId, Span)> = Vec::new();
    crate::ir::visit::walk_stmts(body, &mut |s| match s {
        Stmt::Assign { var, span, .. } => inner.push((*var, *span)),
        Stmt::For { return_vars, span, .. }
        | Stmt::While { return_vars, span, .. }
        | Stmt::If { return_vars, span, .. } => inner.extend(return_vars.iter().map(|&r| (r, *span))),
        _ => {}
    });
    let mut found = None;
    let mut read = |e: &Expr| {
        crate::ir::visit::for_each_var(e, &mut |v| {
            if found.is_some() || inner.iter().any(|(x, _)| *x == v) || matches!(vars.var_type(v), Type::MemRef) {
                return;
            }
            let name = vars.var_name(v);
            if let Some(&(x, at)) = inner.iter().find(|(x, _)| vars.var_name(*x) == name) {
                found = Some((v, x, at));
            }
        })
    };
    read(cond);
    crate::ir::visit::walk_stmts(body, &mut |s| crate::ir::visit::stmt_exprs(s).for_each(&mut read));
    found.map(|(_, x, at)| (x, at))
}

/// A loop whose iter args and return variables differ in number (the type checker reports it
/// too, code 105, but code generation may run on IR no verifier has seen).
fn check_carried_sizes(what: &str, iter_args: &[VarId], return_vars: &[VarId], span: Span) -> Result<(), Diagnostic> {
    if iter_args.len() == return_vars.len() {
        return Ok(());
    }
    Err(refused(
        span,
        format!("{what} iter_args size ({}) must equal return_vars size ({})", iter_args.len(), return_vars.len()),
    ))
}

/// Refuses an op on a tile of more than two dimensions whose result folding the leading
/// dimensions into rows would change (see [`super::cce_types::tile_rows_cols`]): only loads,
/// stores, moves, allocations and element-wise ops whose tile operands all have the result's
/// shape compute element for element on the folded tiles what they compute on the N-D ones.
fn check_folded(
    vars: &VarTable,
    form: CceEmit,
    name: &str,
    target: Option<VarId>,
    args: &[Expr],
    span: Span,
) -> Result<(), Diagnostic> {
    let result = target.map(|v| vars.type_of(&Expr::var(v, span)).clone());
    let tile_shape = |t: &Type| match t {
        Type::Tile(t) => Some(t.shape.clone()),
        _ => None,
    };
    let mut shapes: Vec<Vec<Expr>> = args.iter().filter_map(|a| tile_shape(vars.type_of(a))).collect();
    let result_shape = result.as_ref().and_then(tile_shape);
    shapes.extend(result_shape.clone());
    let Some(rank) = shapes.iter().map(Vec::len).max().filter(|r| *r > 2) else { return Ok(()) };
    let same_shapes = shapes.iter().all(|s| Some(s) == result_shape.as_ref());
    let folds = match form {
        CceEmit::Load | CceEmit::Store | CceEmit::Nothing => true,
        CceEmit::Move | CceEmit::VecMove | CceEmit::Cast | CceEmit::Elementwise { .. } => same_shapes,
        _ => false,
    };
    if folds {
        return Ok(());
    }
    let why = if matches!(form, CceEmit::Elementwise { .. } | CceEmit::Cast) {
        "its operands have different shapes: a broadcast over a leading dimension does not fold"
    } else {
        "it works along rows or columns, or across the tile, where the folded rows are not the tile's"
    };
    Err(refused(
        span,
        format!("CCE codegen: {name} on a {rank}-D tile: its C++ tile folds the leading dimensions into rows, which changes what {name} computes"),
    )
    .with_note(why)
    .with_note("compute on 2-D tiles: load the data as a 2-D tile (a 2-D window of the tensor) for this op"))
}

fn no_codegen(name: &str, span: Span) -> Diagnostic {
    refused(span, format!("No codegen registered for operation: {name}"))
}
