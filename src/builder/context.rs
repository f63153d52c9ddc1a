//! All building state (seed: "IRBuilder is stateless; all state lives in IRBuilderContext"):
//! the stack of open scopes, each with its statements, its active op run and its environment
//! table; the for/if statements between `create_*` and `exit_*`; and finished function bodies
//! waiting to be installed by [`Builder::finish`](super::Builder::finish).
//!
//! Our IR owns its statement trees, so a scope collects its statements here and the builder
//! assembles the `for`/`if` statement (or the function body) when the scope is done.

use super::error::BuildError;
use super::Value;
use crate::ir::{Expr, Stmt, VarId};

/// Identifies a for/if statement under construction (an index into [`Context::constructs`]).
pub(super) type ConstructId = usize;

/// What a scope is the body of.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum ScopeKind {
    Function(String),
    ForBody(ConstructId),
    Then(ConstructId),
    Else(ConstructId),
}

/// One open (or closed, awaiting its `exit_*`) scope: the seed's compound statement with its
/// environment table and active op statement.
#[derive(Debug)]
pub(super) struct Scope {
    /// Unique per context, so a construct can check it is exited where it was created.
    pub id: u64,
    pub kind: ScopeKind,
    pub stmts: Vec<Stmt>,
    /// The last statement is an `Ops` run that `emit` appends to.
    pub op_run_active: bool,
    /// Environment table: name → value, in binding order; a later binding of a name wins.
    pub env: Vec<(String, VarId)>,
    /// Values of an explicit `create_yield` in this scope.
    pub yielded: Option<Vec<Expr>>,
}

impl Scope {
    /// The final binding of each name bound here, in order of first binding.
    pub fn final_bindings(&self) -> Vec<(String, VarId)> {
        let mut out: Vec<(String, VarId)> = Vec::new();
        for (n, v) in &self.env {
            match out.iter_mut().find(|(m, _)| m == n) {
                Some(slot) => slot.1 = *v,
                None => out.push((n.clone(), *v)),
            }
        }
        out
    }
    pub fn lookup(&self, name: &str) -> Option<VarId> {
        self.env.iter().rev().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}

/// A for loop between `create_for` and `exit_for`.
#[derive(Debug)]
pub(super) struct PendingFor {
    pub loop_var: VarId,
    pub start: Expr,
    pub stop: Expr,
    pub step: Expr,
    pub kind: crate::ir::ForKind,
    /// Declared with `add_iter_arg`: (name, iter arg var).
    pub explicit: Vec<(String, VarId)>,
    pub body: Option<Scope>,
    pub entered: bool,
}

/// An if statement between `create_if` and `exit_if`.
#[derive(Debug)]
pub(super) struct PendingIf {
    pub cond: Expr,
    pub then_scope: Option<Scope>,
    pub else_scope: Option<Scope>,
    pub then_entered: bool,
    pub else_entered: bool,
}

#[derive(Debug)]
pub(super) enum Construct {
    For(Box<PendingFor>),
    If(Box<PendingIf>),
}

/// A construct with the scope that created it (and must exit it); `None` once exited.
#[derive(Debug)]
pub(super) struct Slot {
    pub owner_scope: u64,
    pub construct: Option<Construct>,
}

/// The explicit building context. Create one with [`Context::new`] and pass it to every
/// builder call; scopes are entered by `enter_*` calls and left with [`Context::pop_scope`].
#[derive(Debug, Default)]
pub struct Context {
    pub(super) scopes: Vec<Scope>,
    pub(super) constructs: Vec<Slot>,
    /// Bodies of functions whose scope was popped: (function name, statements).
    pub(super) finished: Vec<(String, Vec<Stmt>)>,
    next_scope_id: u64,
}

impl Context {
    pub fn new() -> Context {
        Context::default()
    }

    /// Leaves the innermost scope. A function body is kept for [`Builder::finish`]; a loop
    /// body or branch waits for its `exit_for` / `exit_if`.
    ///
    /// [`Builder::finish`]: super::Builder::finish
    pub fn pop_scope(&mut self) -> Result<(), BuildError> {
        let scope = self.scopes.pop().ok_or(BuildError::EmptyScopeStack)?;
        match scope.kind.clone() {
            ScopeKind::Function(name) => self.finished.push((name, scope.stmts)),
            ScopeKind::ForBody(c) => {
                if let Some(Construct::For(f)) = self.slot_mut(c) {
                    f.body = Some(scope);
                }
            }
            ScopeKind::Then(c) => {
                if let Some(Construct::If(i)) = self.slot_mut(c) {
                    i.then_scope = Some(scope);
                }
            }
            ScopeKind::Else(c) => {
                if let Some(Construct::If(i)) = self.slot_mut(c) {
                    i.else_scope = Some(scope);
                }
            }
        }
        Ok(())
    }

    /// Number of open scopes.
    pub fn depth(&self) -> usize {
        self.scopes.len()
    }

    /// The function whose body is open, if any.
    pub fn current_function(&self) -> Option<&str> {
        self.scopes.iter().find_map(|s| match &s.kind {
            ScopeKind::Function(n) => Some(n.as_str()),
            _ => None,
        })
    }

    /// Whether `emit` would append to an existing op run (the seed's active OpStatement).
    pub fn has_active_op_run(&self) -> bool {
        self.scopes.last().is_some_and(|s| s.op_run_active)
    }

    /// The value a name is bound to in the innermost scope that binds it (lexical lookup through
    /// the ancestors, the seed's `GetEnvVar` / `GetAncestorValues`).
    pub fn lookup(&self, name: &str) -> Option<Value> {
        self.scopes.iter().rev().find_map(|s| s.lookup(name)).map(Value)
    }

    pub(super) fn push_scope(&mut self, kind: ScopeKind) {
        self.next_scope_id += 1;
        self.scopes.push(Scope {
            id: self.next_scope_id,
            kind,
            stmts: Vec::new(),
            op_run_active: false,
            env: Vec::new(),
            yielded: None,
        });
    }

    /// The innermost scope, which must belong to a function body.
    pub(super) fn top(&mut self, what: &'static str) -> Result<&mut Scope, BuildError> {
        self.scopes.last_mut().ok_or(BuildError::NotInFunction { what })
    }

    pub(super) fn slot_mut(&mut self, c: ConstructId) -> Option<&mut Construct> {
        self.constructs.get_mut(c).and_then(|s| s.construct.as_mut())
    }

    /// Binds `name` in the innermost scope.
    pub(super) fn bind(&mut self, name: &str, var: VarId) {
        if let Some(s) = self.scopes.last_mut() {
            s.env.push((name.to_string(), var));
        }
    }

    /// Appends a non-op statement to the innermost scope, closing its op run.
    pub(super) fn push_stmt(&mut self, what: &'static str, stmt: Stmt) -> Result<(), BuildError> {
        let s = self.top(what)?;
        s.op_run_active = false;
        s.stmts.push(stmt);
        Ok(())
    }

    /// Appends an assignment (or eval) to the active op run, starting one if needed.
    pub(super) fn push_op(&mut self, what: &'static str, stmt: Stmt) -> Result<(), BuildError> {
        let s = self.top(what)?;
        if s.op_run_active {
            if let Some(Stmt::Ops { stmts, .. }) = s.stmts.last_mut() {
                stmts.push(stmt);
                return Ok(());
            }
        }
        s.stmts.push(Stmt::Ops { stmts: vec![stmt], span: crate::ir::Span::NONE });
        s.op_run_active = true;
        Ok(())
    }

    /// Starts a new, empty op run in the innermost scope (the seed's `CreateOpStmt`).
    pub(super) fn start_op_run(&mut self, what: &'static str) -> Result<(), BuildError> {
        let s = self.top(what)?;
        s.stmts.push(Stmt::Ops { stmts: Vec::new(), span: crate::ir::Span::NONE });
        s.op_run_active = true;
        Ok(())
    }
}

/// A scope's statements as one body: empty op runs dropped, one statement stands alone.
pub(super) fn into_body(stmts: Vec<Stmt>) -> Stmt {
    let stmts: Vec<Stmt> =
        stmts.into_iter().filter(|s| !matches!(s, Stmt::Ops { stmts, .. } if stmts.is_empty())).collect();
    Stmt::block(stmts, crate::ir::Span::NONE)
}
