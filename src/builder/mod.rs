//! IRBuilder: building IR from Rust with automatic SSA (docs/builder.md).
//!
//! A [`Builder`] is bound to one [`Program`] and holds nothing else; all building state lives in
//! an explicit [`Context`] passed to every call (current function, scope stack with the
//! statements and environment table of each scope, active op run, statements under
//! construction). Values are handles ([`Value`]) to variables of the program; every value made
//! in a scope is bound by name in that scope's environment table.
//!
//! SSA comes from the environment tables: rebinding a name inside a loop body makes it
//! loop-carried (`exit_for` creates the iter arg, rewrites the body's uses of the old value,
//! adds the yield and the return variable, and rebinds the name after the loop); rebinding a
//! name in an if branch makes the if merge it (`exit_if` yields it from both branches, the
//! incoming value where a branch left it alone). Iter args and return variables are named after
//! the environment name, so the printed program reads like the source a person would write.
//!
//! Operations go through the operator table ([`crate::ops::build_op_call`]), which checks
//! arguments and deduces result types exactly as for the text. Misuse is a [`BuildError`],
//! never a panic. See `docs/builder.md` for a walk-through.

mod calls;
mod context;
mod control;
mod error;
mod operand;
mod rewrite;

pub use context::Context;
pub use control::{ForLoop, IfStmt};
pub use error::BuildError;
pub use operand::{Dim, Operand};

use crate::ir::{
    DataType, Expr, Function, FunctionType, Param, ParamDirection, Program, Span, Stmt, TensorType, Type, VarId,
    VarKind, VarTable,
};
use context::ScopeKind;
use std::collections::BTreeSet;

/// A value made by the builder: a handle to a variable of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Value(pub VarId);

impl Value {
    pub fn var(self) -> VarId {
        self.0
    }
}

/// A function signature: parameters (values made with [`Builder::new_tensor`] /
/// [`Builder::new_scalar`]) with their directions, and return types.
#[derive(Clone, Debug, Default)]
pub struct FunctionSig {
    pub params: Vec<(Value, ParamDirection)>,
    pub return_types: Vec<Type>,
}

/// Builds IR into one program. See the module documentation.
#[derive(Debug)]
pub struct Builder {
    prog: Program,
    /// The variables of everything this builder makes, so values may be made before their
    /// function exists. At [`Builder::finish`] each function it created gets a table of its own
    /// with the variables it mentions (a function owns its variables).
    vars: VarTable,
    /// The functions this builder created: the only ones whose bodies it can build.
    own: BTreeSet<String>,
    /// Variables that have a definition (param, assignment, loop var, iter arg, return var).
    defined: BTreeSet<VarId>,
    entry: Option<String>,
}

type R<T> = Result<T, BuildError>;

impl Builder {
    /// A builder for a new, empty program.
    pub fn new(program_name: impl Into<String>) -> Builder {
        Builder::with_program(Program::new(program_name))
    }

    /// A builder that adds to an existing program (e.g. one parsed from text).
    pub fn with_program(prog: Program) -> Builder {
        Builder { prog, vars: VarTable::new(), own: BTreeSet::new(), defined: BTreeSet::new(), entry: None }
    }

    /// The program as built so far (function bodies and their variables appear after
    /// [`Builder::finish`]).
    pub fn program(&self) -> &Program {
        &self.prog
    }

    /// The function marked as the program's entry with `create_function(.., true)`. Our IR has
    /// no entry field (codegen starts from the Orchestration function); this records the choice.
    pub fn entry(&self) -> Option<&str> {
        self.entry.as_deref()
    }

    /// The type of a value.
    pub fn type_of(&self, v: Value) -> R<Type> {
        self.check(v)?;
        Ok(self.vars.var_type(v.0).clone())
    }

    /// Installs the bodies of the functions whose scopes were popped and returns the program.
    /// Fails if a scope is still open or a for/if statement was not exited.
    pub fn finish(mut self, ctx: &mut Context) -> R<Program> {
        if let Some(s) = ctx.scopes.last() {
            return Err(BuildError::Unfinished(format!(
                "{} scope(s) still open (innermost: {:?})",
                ctx.depth(),
                s.kind
            )));
        }
        if ctx.constructs.iter().any(|s| s.construct.is_some()) {
            return Err(BuildError::Unfinished("a for/if statement was created but not exited".into()));
        }
        for (name, stmts) in ctx.finished.drain(..) {
            if let Some(f) = self.prog.functions.iter_mut().find(|f| f.name == name) {
                f.body = context::into_body(stmts);
            }
        }
        // Each function gets a table of its own: the builder's variables it mentions.
        for f in &mut self.prog.functions {
            if self.own.contains(&f.name) {
                f.vars = self.vars.extract(&mut f.params, &mut f.body, &mut f.return_types);
            }
        }
        Ok(self.prog)
    }

    // -----------------------------------------------------------------------------------------
    // Functions

    /// Adds a function with an empty body (seed `CreateFunction`). Parameter names are the
    /// values' names.
    pub fn create_function(&mut self, name: &str, kind: FunctionType, sig: FunctionSig, set_as_entry: bool) -> R<()> {
        for (p, _) in &sig.params {
            self.check(*p)?;
            if !self.defined.insert(p.0) {
                return Err(BuildError::AlreadyDefined(self.vars.var_name(p.0).to_string()));
            }
        }
        let f = Function {
            name: name.to_string(),
            kind,
            params: sig.params.iter().map(|&(v, direction)| Param { var: v.0, direction }).collect(),
            return_types: sig.return_types,
            body: Stmt::empty(),
            span: Span::NONE,
            // Given at `finish`, when the body is known.
            vars: VarTable::new(),
            schedule: None,
        };
        self.prog.add_function(f).map_err(|f| BuildError::DuplicateFunction(f.name))?;
        self.own.insert(name.to_string());
        if set_as_entry {
            self.entry = Some(name.to_string());
        }
        Ok(())
    }

    /// Opens the body of function `name` (seed `EnterFunctionBody`): pushes its scope, with the
    /// parameters bound by name. Close it with [`Context::pop_scope`]. Only a function this
    /// builder created can be entered (another function's variables are its own).
    pub fn enter_function_body(&mut self, ctx: &mut Context, name: &str) -> R<()> {
        let f = self.prog.function(name).ok_or_else(|| BuildError::UnknownFunction(name.to_string()))?;
        if !self.own.contains(name) {
            return Err(BuildError::NotBuilt(name.to_string()));
        }
        if let Some(open) = ctx.current_function() {
            return Err(BuildError::NestedFunction { open: open.to_string(), entered: name.to_string() });
        }
        let params: Vec<VarId> = f.params.iter().map(|p| p.var).collect();
        ctx.push_scope(ScopeKind::Function(name.to_string()));
        for p in params {
            let n = self.vars.var_name(p).to_string();
            ctx.bind(&n, p);
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Values

    /// A tensor value for a signature (no scope needed): `name: Tensor[shape, dtype]`.
    pub fn new_tensor(&mut self, shape: &[Dim], dtype: DataType, name: &str) -> Value {
        let ty = tensor_type(shape, dtype);
        Value(self.vars.new_var(name, ty, VarKind::Plain, Span::NONE))
    }

    /// A symbolic scalar for a signature or a symbolic dimension (no scope needed).
    pub fn new_scalar(&mut self, dtype: DataType, name: &str) -> Value {
        Value(self.vars.new_var(name, Type::Scalar(dtype), VarKind::Plain, Span::NONE))
    }

    /// A tensor value registered in the current scope (seed `CreateTensor`); it is defined
    /// later by [`Builder::emit_to`].
    pub fn create_tensor(&mut self, ctx: &mut Context, shape: &[Dim], dtype: DataType, name: &str) -> R<Value> {
        ctx.top("create_tensor")?;
        let v = self.new_tensor(shape, dtype, name);
        ctx.bind(name, v.0);
        Ok(v)
    }

    /// A symbolic scalar registered in the current scope (seed `CreateScalar`): a loop variable
    /// for [`Builder::create_for`], or a value defined later by [`Builder::emit_to`].
    pub fn create_scalar(&mut self, ctx: &mut Context, dtype: DataType, name: &str) -> R<Value> {
        ctx.top("create_scalar")?;
        let v = self.new_scalar(dtype, name);
        ctx.bind(name, v.0);
        Ok(v)
    }

    /// A named constant (seed `CreateConst`): emits `name = literal` and registers `name`.
    /// An integer is INT64, a float FP32 (our IR's literal defaults). Being a variable, a named
    /// constant can be rebound in a loop or a branch and then merges like any value; for a
    /// plain literal operand pass the number itself (`2.0.into()`).
    pub fn create_const(&mut self, ctx: &mut Context, literal: impl Into<Operand>, name: &str) -> R<Value> {
        let e = match literal.into() {
            Operand::Expr(e)
                if matches!(
                    e.kind,
                    crate::ir::ExprKind::ConstInt(..)
                        | crate::ir::ExprKind::ConstFloat(..)
                        | crate::ir::ExprKind::ConstBool(_)
                ) =>
            {
                e
            }
            other => {
                return Err(BuildError::NotAScalar { what: "create_const's literal", found: format!("{other:?}") })
            }
        };
        self.emit(ctx, e, name)
    }

    /// Fails unless `v` is a variable of this program.
    fn check(&self, v: Value) -> R<()> {
        if v.0.index() < self.vars.len() {
            Ok(())
        } else {
            Err(BuildError::UnknownValue(v.0 .0))
        }
    }

    /// Makes a new variable and records it as defined.
    fn define(&mut self, name: &str, ty: Type, kind: VarKind) -> VarId {
        let v = self.vars.new_var(name, ty, kind, Span::NONE);
        self.defined.insert(v);
        v
    }

    /// A printable type, for messages.
    fn type_text(&self, t: &Type) -> String {
        crate::printer::print_type(&self.vars, t)
    }
}

/// `Tensor[shape, dtype]`.
pub fn tensor_type(shape: &[Dim], dtype: DataType) -> Type {
    Type::tensor(TensorType { dtype, shape: shape.iter().map(|d| d.to_expr()).collect(), memref: None, view: None })
}

/// A literal expression for use where an [`Expr`] is wanted: INT64 like the text's integers.
pub fn int(v: i64) -> Expr {
    Expr::int(v, DataType::Int64, Span::NONE)
}
