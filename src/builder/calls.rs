//! Operations: creating calls through the operator table and emitting them into the active op
//! run (seed `CreateBinaryOp` … `Emit`, `CreateOpStmt`).

use super::{BuildError, Builder, Context, Operand, Value, R};
use crate::diag::{codes, Diagnostic};
use crate::ir::{dims_equal, BinOp, Call, Callee, Expr, ExprKind, MemorySpace, Span, Stmt, Type, VarKind};
use crate::ops;

impl Builder {
    /// A call of the operator `name` (`"block.add"`, `ops::name(ops::id::TENSOR_CREATE)`, a unified `"add"`; a
    /// leading `pl.` is allowed), checked against the operator table, which also deduces its
    /// type. Nothing is emitted: pass the result to [`Builder::emit`].
    pub fn op(
        &self,
        name: &str,
        args: impl IntoIterator<Item = Operand>,
        kwargs: impl IntoIterator<Item = (&'static str, Operand)>,
    ) -> R<Expr> {
        let args: Vec<Operand> = args.into_iter().collect();
        let kwargs: Vec<(&str, Operand)> = kwargs.into_iter().collect();
        for o in args.iter().chain(kwargs.iter().map(|(_, o)| o)) {
            self.check_operand(o)?;
        }
        let path: Vec<&str> = name.strip_prefix("pl.").unwrap_or(name).split('.').collect();
        let args = args.iter().map(|a| a.to_arg(&self.vars)).collect();
        let kwargs = kwargs.iter().map(|(n, o)| o.to_kwarg(n, &self.vars)).collect();
        Ok(crate::ops::build_op_call(&self.vars, &path, Span::NONE, args, kwargs, Span::NONE)?)
    }

    /// `block.<name>` on a tile, `tensor.<name>` on a tensor (the spelling the printer uses, so
    /// the call reads back unchanged): `binary("add", a, b)`. A scalar right operand picks the
    /// scalar form (`block.adds`, `tensor.add_scalar`) for add/sub/mul/div.
    pub fn binary(&self, name: &str, lhs: impl Into<Operand>, rhs: impl Into<Operand>) -> R<Expr> {
        let (lhs, rhs) = (lhs.into(), rhs.into());
        let ns = self.namespace_of(&lhs)?;
        let scalar_rhs = matches!(self.operand_type(&rhs), Some(Type::Scalar(_)));
        let name = match (ns, scalar_rhs, name) {
            ("block", true, "add" | "sub" | "mul" | "div") => format!("block.{name}s"),
            _ => format!("{ns}.{name}"),
        };
        self.op(&name, [lhs, rhs], [])
    }

    /// `block.load(tensor, offsets, shapes, target_memory=space)`.
    pub fn load(
        &self,
        tensor: impl Into<Operand>,
        offsets: impl Into<Operand>,
        shapes: impl Into<Operand>,
        space: MemorySpace,
    ) -> R<Expr> {
        self.op(
            ops::name(ops::id::LOAD),
            [tensor.into(), offsets.into(), shapes.into()],
            [("target_memory", space.into())],
        )
    }

    /// `block.store(tile, offsets, shapes, output)`: the updated output tensor.
    pub fn store(
        &self,
        tile: impl Into<Operand>,
        offsets: impl Into<Operand>,
        shapes: impl Into<Operand>,
        output: impl Into<Operand>,
    ) -> R<Expr> {
        self.op(ops::name(ops::id::STORE), [tile.into(), offsets.into(), shapes.into(), output.into()], [])
    }

    /// `tensor.create(shape, dtype=dtype)`.
    pub fn tensor_create(&self, shape: impl Into<Operand>, dtype: crate::ir::DataType) -> R<Expr> {
        self.op(ops::name(ops::id::TENSOR_CREATE), [shape.into()], [("dtype", dtype.into())])
    }

    /// Scalar arithmetic or comparison (`i * 32`, `i < 2`) with the text's promotion rules.
    pub fn scalar_op(&self, op: BinOp, lhs: impl Into<Operand>, rhs: impl Into<Operand>) -> R<Expr> {
        let (l, r) = (self.operand_expr(lhs.into(), "scalar_op")?, self.operand_expr(rhs.into(), "scalar_op")?);
        Ok(crate::ops::scalar_binary(&self.vars, op, l, r, Span::NONE)?)
    }

    /// A call of function `name` of the program (`self.name(args)` in the text); its type is
    /// the callee's return type. A function the builder did not create may be called when its
    /// return types name no variable (they are written in that function's own variables).
    pub fn call(&self, name: &str, args: impl IntoIterator<Item = Operand>) -> R<Expr> {
        let f = self.prog.function(name).ok_or_else(|| BuildError::UnknownFunction(name.to_string()))?;
        if !self.own.contains(name) && f.return_types.iter().any(crate::ir::import::names_vars) {
            return Err(BuildError::NotBuilt(name.to_string()));
        }
        let args = args.into_iter().map(|a| self.operand_expr(a, "call")).collect::<R<Vec<_>>>()?;
        if args.len() != f.params.len() {
            return Err(BuildError::Op(Box::new(Diagnostic::error(
                codes::OP_ARG_COUNT,
                Span::NONE,
                format!("function `{name}` takes {} argument(s), but {} were given", f.params.len(), args.len()),
            ))));
        }
        let ty = match f.return_types.len() {
            0 => Type::Unknown,
            1 => f.return_types[0].clone(),
            _ => Type::Tuple(f.return_types.clone()),
        };
        let call = Call { callee: Callee::Function(name.to_string()), args, kwargs: Vec::new() };
        Ok(Expr::new(ExprKind::Call(Box::new(call)), ty, Span::NONE))
    }

    /// Emits `name = value` into the active op run of the current scope (creating the run if
    /// needed) and binds `name` there. The new variable has the value's type.
    pub fn emit(&mut self, ctx: &mut Context, value: Expr, name: &str) -> R<Value> {
        ctx.top("emit")?;
        let ty = self.vars.type_of(&value).clone();
        let var = self.define(name, ty, VarKind::Plain);
        ctx.push_op("emit", Stmt::Assign { var, value, span: Span::NONE })?;
        ctx.bind(name, var);
        Ok(Value(var))
    }

    /// Emits `target = value` for a value made beforehand with `create_tensor` /
    /// `create_scalar` (the seed's pre-created outputs). The value's type must agree with the
    /// target's: same kind, dtype and dimensions.
    pub fn emit_to(&mut self, ctx: &mut Context, target: Value, value: Expr) -> R<Value> {
        ctx.top("emit_to")?;
        self.check(target)?;
        let name = self.vars.var_name(target.0).to_string();
        if self.defined.contains(&target.0) {
            return Err(BuildError::AlreadyDefined(name));
        }
        let (want, got) = (self.vars.var_type(target.0), self.vars.type_of(&value));
        if !types_agree(want, got) {
            return Err(BuildError::TypeMismatch { name, expected: self.type_text(want), found: self.type_text(got) });
        }
        self.defined.insert(target.0);
        ctx.push_op("emit_to", Stmt::Assign { var: target.0, value, span: Span::NONE })?;
        ctx.bind(&name, target.0);
        Ok(target)
    }

    /// Emits an expression evaluated for its effect (an `EvalStmt`, e.g. a sync op).
    pub fn emit_eval(&mut self, ctx: &mut Context, value: Expr) -> R<()> {
        ctx.push_op("emit_eval", Stmt::Eval { expr: value, span: Span::NONE })
    }

    /// Starts a new op run in the current scope (seed `CreateOpStmt`): later emits go into it.
    pub fn create_op_stmt(&mut self, ctx: &mut Context) -> R<()> {
        ctx.start_op_run("create_op_stmt")
    }

    // -----------------------------------------------------------------------------------------
    // Operand helpers

    fn check_operand(&self, o: &Operand) -> R<()> {
        match o {
            Operand::Value(v) => self.check(*v),
            Operand::List(items) => items.iter().try_for_each(|i| self.check_operand(i)),
            Operand::Expr(_) | Operand::Attr(_) => Ok(()),
        }
    }

    /// The operand as an expression; attributes are not expressions.
    pub(super) fn operand_expr(&self, o: Operand, what: &'static str) -> R<Expr> {
        self.check_operand(&o)?;
        o.to_expr(&self.vars).ok_or_else(|| BuildError::NotAScalar { what, found: format!("{o:?}") })
    }

    fn operand_type(&self, o: &Operand) -> Option<Type> {
        o.to_expr(&self.vars).map(|e| self.vars.type_of(&e).clone())
    }

    /// `block` for a tile operand, `tensor` for a tensor.
    fn namespace_of(&self, o: &Operand) -> R<&'static str> {
        self.check_operand(o)?;
        match self.operand_type(o) {
            Some(Type::Tile(_)) => Ok("block"),
            Some(Type::Tensor(_)) => Ok("tensor"),
            other => Err(BuildError::Op(Box::new(Diagnostic::error(
                codes::OP_ARG_TYPE,
                Span::NONE,
                format!(
                    "the first operand must be a Tensor or a Tile, found {}",
                    other.map_or("an attribute", |t| t.kind_name())
                ),
            )))),
        }
    }
}

/// Whether a value of type `got` may define a variable declared as `want`: same kind and
/// dtype, and equal dims (the type-inference notion of equal dims).
pub(super) fn types_agree(want: &Type, got: &Type) -> bool {
    let dims = |a: &[Expr], b: &[Expr]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| dims_equal(x, y));
    match (want, got) {
        (Type::Scalar(a), Type::Scalar(b)) => a == b,
        (Type::Tensor(a), Type::Tensor(b)) => a.dtype == b.dtype && dims(&a.shape, &b.shape),
        (Type::Tile(a), Type::Tile(b)) => a.dtype == b.dtype && dims(&a.shape, &b.shape),
        (a, b) => a == b,
    }
}
