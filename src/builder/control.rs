//! Statements: for loops with automatic loop-carried values, if statements with automatic
//! merging, explicit yields and returns (seed `CreateForStmt` / `ExitForStatement`,
//! `CreateIfStmt` / `ExitIfStatement`, `CreateYield`, `CreateReturn`).
//!
//! As in the seed, `enter_*` only push a scope, `Context::pop_scope` only pops it, and
//! `exit_*` only do the merging; the finished statement is appended to the scope that created
//! it when it is exited.

use super::calls::types_agree as agree;
use super::context::{Construct, ConstructId, PendingFor, PendingIf, Scope, ScopeKind, Slot};
use super::rewrite::replace_uses;
use super::{BuildError, Builder, Context, Operand, Value, R};
use crate::ir::{Expr, ForKind, Span, Stmt, Type, VarId, VarKind};

/// A for loop under construction, from [`Builder::create_for`].
#[derive(Debug)]
pub struct ForLoop {
    id: ConstructId,
    /// The loop variable.
    pub loop_var: Value,
}

/// An if statement under construction, from [`Builder::create_if`].
#[derive(Debug)]
pub struct IfStmt {
    id: ConstructId,
}

const FOR: &str = "for";
const IF: &str = "if";

impl Builder {
    /// A sequential for loop `for iv in range(start, stop, step)` (seed `CreateForStmt`); `iv`
    /// is an undefined scalar from [`Builder::create_scalar`] (INT64, as the text's loop
    /// variables). Enter its body with [`Builder::enter_for_body`].
    pub fn create_for(
        &mut self,
        ctx: &mut Context,
        iv: Value,
        start: impl Into<Operand>,
        stop: impl Into<Operand>,
        step: impl Into<Operand>,
    ) -> R<ForLoop> {
        self.create_for_kind(ctx, iv, start, stop, step, ForKind::Sequential)
    }

    /// [`Builder::create_for`] with a loop kind (`ForKind::Parallel` for `pl.parallel`).
    pub fn create_for_kind(
        &mut self,
        ctx: &mut Context,
        iv: Value,
        start: impl Into<Operand>,
        stop: impl Into<Operand>,
        step: impl Into<Operand>,
        kind: ForKind,
    ) -> R<ForLoop> {
        let owner = ctx.top("create_for")?.id;
        self.check(iv)?;
        if !matches!(self.vars.var_type(iv.0), Type::Scalar(_)) {
            return Err(self.not_scalar("the loop variable", &Expr::var(iv.0, Span::NONE)));
        }
        if self.defined.contains(&iv.0) {
            return Err(BuildError::AlreadyDefined(self.vars.var_name(iv.0).to_string()));
        }
        let [start, stop, step] =
            [start.into(), stop.into(), step.into()].map(|o| self.operand_expr(o, "a loop bound"));
        let (start, stop, step) = (start?, stop?, step?);
        for e in [&start, &stop, &step] {
            if !matches!(self.vars.type_of(e), Type::Scalar(_)) {
                return Err(self.not_scalar("a loop bound", e));
            }
        }
        self.defined.insert(iv.0);
        let pending =
            PendingFor { loop_var: iv.0, start, stop, step, kind, explicit: Vec::new(), body: None, entered: false };
        Ok(ForLoop { id: new_slot(ctx, owner, Construct::For(Box::new(pending))), loop_var: iv })
    }

    /// Declares an explicit iter arg `name` with initial value `init`, before the body is
    /// entered; the body must end with [`Builder::create_yield`] of the next values of all
    /// explicit iter args, in order. (Values rebound in the body are carried automatically
    /// without this.)
    pub fn add_iter_arg(&mut self, ctx: &mut Context, lp: &ForLoop, name: &str, init: impl Into<Operand>) -> R<Value> {
        let init = self.operand_expr(init.into(), "an iter arg's initial value")?;
        let ty = self.vars.type_of(&init).clone();
        let f = pending_for(ctx, lp)?;
        if f.entered {
            return Err(order(FOR, "add_iter_arg must come before enter_for_body"));
        }
        let v = self.define(name, ty, VarKind::IterArg { init: Box::new(init) });
        if let Some(Construct::For(f)) = ctx.slot_mut(lp.id) {
            f.explicit.push((name.to_string(), v));
        }
        Ok(Value(v))
    }

    /// Opens the loop body (seed `EnterForBody`). Close it with `pop_scope`, then `exit_for`.
    pub fn enter_for_body(&mut self, ctx: &mut Context, lp: &ForLoop) -> R<()> {
        check_owner(ctx, lp.id, FOR)?;
        let f = pending_for(ctx, lp)?;
        if f.entered {
            return Err(order(FOR, "the body was already entered"));
        }
        f.entered = true;
        let explicit = f.explicit.clone();
        ctx.push_scope(ScopeKind::ForBody(lp.id));
        for (n, v) in explicit {
            ctx.bind(&n, v);
        }
        Ok(())
    }

    /// Finishes the loop (seed `ExitForStatement`; the body scope must already be popped).
    /// Every name the body rebound that names a value outside the loop becomes loop-carried: an
    /// iter arg (initialised with the outer value, and replacing the body's uses of it), a yield
    /// of the body's last value and a return variable, to which the name is rebound after the
    /// loop. Returns the return variables (explicit iter args first) with their names.
    pub fn exit_for(&mut self, ctx: &mut Context, lp: &ForLoop) -> R<Vec<(String, Value)>> {
        let entered = pending_for(ctx, lp)?.entered;
        if ctx.scopes.iter().any(|s| s.kind == ScopeKind::ForBody(lp.id)) {
            return Err(BuildError::ScopeStillOpen { construct: "exit_for" });
        }
        if !entered {
            return Err(order(FOR, "exit_for before enter_for_body"));
        }
        check_owner(ctx, lp.id, FOR)?;
        let Some(Construct::For(f)) = ctx.constructs[lp.id].construct.take() else {
            return Err(BuildError::StaleHandle { construct: FOR });
        };
        let Some(mut body) = f.body else { return Err(BuildError::ScopeStillOpen { construct: "exit_for" }) };
        // Loop-carried values: (name, value before the loop, value at the end of the body).
        let mut carried: Vec<(String, VarId, VarId)> = Vec::new();
        for (name, new) in body.final_bindings() {
            if f.explicit.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if let Some(Value(old)) = ctx.lookup(&name) {
                if old != new {
                    self.check_merge(&name, old, new)?;
                    carried.push((name, old, new));
                }
            }
        }
        let explicit_yield = body.yielded.take().unwrap_or_default();
        if explicit_yield.len() != f.explicit.len() {
            return Err(BuildError::BadYield(format!(
                "the loop declares {} iter arg(s) with add_iter_arg but its body yields {} value(s)",
                f.explicit.len(),
                explicit_yield.len()
            )));
        }
        let mut yields = explicit_yield;
        let mut iter_args: Vec<VarId> = f.explicit.iter().map(|(_, v)| *v).collect();
        let mut returns: Vec<(String, VarId)> = Vec::new();
        for (name, ia) in &f.explicit {
            let ty = self.vars.var_type(*ia).clone();
            returns.push((name.clone(), self.define(name, ty, VarKind::Plain)));
        }
        for (name, old, new) in carried {
            let ty = self.vars.var_type(old).clone();
            let ia = self.define(&name, ty.clone(), VarKind::IterArg { init: Box::new(Expr::var(old, Span::NONE)) });
            replace_uses(&mut self.vars, &mut body.stmts, old, ia);
            for y in &mut yields {
                super::rewrite::expr(y, old, ia);
            }
            iter_args.push(ia);
            yields.push(Expr::var(new, Span::NONE));
            returns.push((name.clone(), self.define(&name, ty, VarKind::Plain)));
        }
        if !yields.is_empty() {
            body.stmts.push(Stmt::Yield { values: yields, span: Span::NONE });
        }
        let stmt = Stmt::For {
            loop_var: f.loop_var,
            start: Box::new(f.start),
            stop: Box::new(f.stop),
            step: Box::new(f.step),
            iter_args,
            body: Box::new(super::context::into_body(body.stmts)),
            return_vars: returns.iter().map(|(_, v)| *v).collect(),
            kind: f.kind,
            span: Span::NONE,
        };
        ctx.push_stmt("exit_for", stmt)?;
        for (n, v) in &returns {
            ctx.bind(n, *v);
        }
        Ok(returns.into_iter().map(|(n, v)| (n, Value(v))).collect())
    }

    /// An if statement on a scalar condition (seed `CreateIfStmt`).
    pub fn create_if(&mut self, ctx: &mut Context, cond: impl Into<Operand>) -> R<IfStmt> {
        let owner = ctx.top("create_if")?.id;
        let cond = self.operand_expr(cond.into(), "the condition")?;
        if !matches!(self.vars.type_of(&cond), Type::Scalar(_)) {
            return Err(self.not_scalar("the condition", &cond));
        }
        let pending = PendingIf { cond, then_scope: None, else_scope: None, then_entered: false, else_entered: false };
        Ok(IfStmt { id: new_slot(ctx, owner, Construct::If(Box::new(pending))) })
    }

    /// Opens the then branch (seed `EnterIfThen`).
    pub fn enter_then(&mut self, ctx: &mut Context, h: &IfStmt) -> R<()> {
        check_owner(ctx, h.id, IF)?;
        let i = pending_if(ctx, h)?;
        if i.then_entered {
            return Err(order(IF, "the then branch was already entered"));
        }
        i.then_entered = true;
        ctx.push_scope(ScopeKind::Then(h.id));
        Ok(())
    }

    /// Opens the else branch (seed `EnterIfElse`), after the then branch was popped.
    pub fn enter_else(&mut self, ctx: &mut Context, h: &IfStmt) -> R<()> {
        if ctx.scopes.iter().any(|s| s.kind == ScopeKind::Then(h.id)) {
            return Err(BuildError::ScopeStillOpen { construct: "enter_else" });
        }
        check_owner(ctx, h.id, IF)?;
        let i = pending_if(ctx, h)?;
        if !i.then_entered {
            return Err(order(IF, "enter_else before enter_then"));
        }
        if i.else_entered {
            return Err(order(IF, "the else branch was already entered"));
        }
        i.else_entered = true;
        ctx.push_scope(ScopeKind::Else(h.id));
        Ok(())
    }

    /// Finishes the if statement (seed `ExitIfStatement`; the branch scopes must already be
    /// popped). Merged are the names either branch rebound that name a value outside the if,
    /// and the names both branches bound: each branch yields its value, or the incoming one if
    /// it left the name alone (an else branch is added when needed), and the name is rebound to
    /// a return variable after the if. Explicit yields (both branches, same length) come first.
    /// Returns the return variables with their names.
    pub fn exit_if(&mut self, ctx: &mut Context, h: &IfStmt) -> R<Vec<(String, Value)>> {
        let then_entered = pending_if(ctx, h)?.then_entered;
        if ctx.scopes.iter().any(|s| matches!(s.kind, ScopeKind::Then(c) | ScopeKind::Else(c) if c == h.id)) {
            return Err(BuildError::ScopeStillOpen { construct: "exit_if" });
        }
        if !then_entered {
            return Err(order(IF, "exit_if before enter_then"));
        }
        check_owner(ctx, h.id, IF)?;
        let Some(Construct::If(i)) = ctx.constructs[h.id].construct.take() else {
            return Err(BuildError::StaleHandle { construct: IF });
        };
        let Some(mut then_s) = i.then_scope else { return Err(BuildError::ScopeStillOpen { construct: "exit_if" }) };
        let mut else_s = i.else_scope;
        // Merged names: (name, then value, else value), then-branch names first.
        let mut merged: Vec<(String, VarId, VarId)> = Vec::new();
        let names = then_s.final_bindings().into_iter().chain(else_s.iter().flat_map(Scope::final_bindings));
        for (name, _) in names {
            if merged.iter().any(|(n, _, _)| *n == name) {
                continue;
            }
            let outer = ctx.lookup(&name).map(|v| v.0);
            let (tb, eb) = (then_s.lookup(&name), else_s.as_ref().and_then(|s| s.lookup(&name)));
            let (Some(tv), Some(ev)) = (tb.or(outer), eb.or(outer)) else { continue };
            if tv != ev {
                self.check_merge(&name, tv, ev)?;
                merged.push((name, tv, ev));
            }
        }
        let then_y = then_s.yielded.take();
        let else_y = else_s.as_mut().and_then(|s| s.yielded.take());
        let (mut then_vals, mut else_vals) = match (then_y, else_y) {
            (None, None) => (Vec::new(), Vec::new()),
            (Some(a), Some(b)) if a.len() == b.len() => (a, b),
            (a, b) => {
                return Err(BuildError::BadYield(format!(
                    "the then branch yields {} value(s) but the else branch {}",
                    a.map_or(0, |v| v.len()),
                    b.map_or("none".to_string(), |v| v.len().to_string())
                )))
            }
        };
        let mut returns: Vec<(String, VarId)> = Vec::new();
        for (k, (tv, ev)) in then_vals.iter().zip(&else_vals).enumerate() {
            let name = tv.as_var().map_or(format!("ret{k}"), |v| self.vars.var_name(v).to_string());
            let (tt, et) = (self.vars.type_of(tv).clone(), self.vars.type_of(ev).clone());
            if !agree(&tt, &et) {
                return Err(BuildError::TypeMismatch {
                    name,
                    expected: self.type_text(&tt),
                    found: self.type_text(&et),
                });
            }
            returns.push((name.clone(), self.define(&name, tt, VarKind::Plain)));
        }
        for (name, tv, ev) in merged {
            let ty = self.vars.var_type(tv).clone();
            then_vals.push(Expr::var(tv, Span::NONE));
            else_vals.push(Expr::var(ev, Span::NONE));
            returns.push((name.clone(), self.define(&name, ty, VarKind::Plain)));
        }
        let mut else_stmts = else_s.map(|s| s.stmts);
        if !then_vals.is_empty() {
            then_s.stmts.push(Stmt::Yield { values: then_vals, span: Span::NONE });
            else_stmts.get_or_insert_with(Vec::new).push(Stmt::Yield { values: else_vals, span: Span::NONE });
        }
        let stmt = Stmt::If {
            cond: Box::new(i.cond),
            then_body: Box::new(super::context::into_body(then_s.stmts)),
            else_body: else_stmts.map(|s| Box::new(super::context::into_body(s))),
            return_vars: returns.iter().map(|(_, v)| *v).collect(),
            span: Span::NONE,
        };
        ctx.push_stmt("exit_if", stmt)?;
        for (n, v) in &returns {
            ctx.bind(n, *v);
        }
        Ok(returns.into_iter().map(|(n, v)| (n, Value(v))).collect())
    }

    /// An explicit yield in the current loop body or branch (seed `CreateYield`); it is placed
    /// at the end of the scope when the statement is exited, before the automatic values. In a
    /// loop it gives the next values of the `add_iter_arg` iter args; in an if, both branches
    /// must yield the same number of values, which become return variables.
    pub fn create_yield(&mut self, ctx: &mut Context, values: impl IntoIterator<Item = Operand>) -> R<()> {
        let values = values.into_iter().map(|o| self.operand_expr(o, "a yielded value")).collect::<R<Vec<_>>>()?;
        let s = ctx.top("create_yield")?;
        if matches!(s.kind, ScopeKind::Function(_)) {
            return Err(BuildError::BadYield(
                "a yield belongs in a loop body or an if branch, not a function body".into(),
            ));
        }
        if s.yielded.is_some() {
            return Err(BuildError::BadYield("this scope already yields".into()));
        }
        s.yielded = Some(values);
        Ok(())
    }

    /// `return values` at the end of the function body (seed `CreateReturn`).
    pub fn create_return(&mut self, ctx: &mut Context, values: impl IntoIterator<Item = Operand>) -> R<()> {
        let values = values.into_iter().map(|o| self.operand_expr(o, "a returned value")).collect::<R<Vec<_>>>()?;
        if !matches!(ctx.top("create_return")?.kind, ScopeKind::Function(_)) {
            return Err(order(
                "create_return",
                "a return belongs at the end of the function body, not in a nested scope",
            ));
        }
        ctx.push_stmt("create_return", Stmt::Return { values, span: Span::NONE })
    }

    /// Checks that the two values of a loop-carried or merged name have agreeing types.
    fn check_merge(&self, name: &str, a: VarId, b: VarId) -> R<()> {
        let (ta, tb) = (self.vars.var_type(a), self.vars.var_type(b));
        if agree(ta, tb) {
            Ok(())
        } else {
            Err(BuildError::TypeMismatch {
                name: name.to_string(),
                expected: self.type_text(ta),
                found: self.type_text(tb),
            })
        }
    }

    fn not_scalar(&self, what: &'static str, e: &Expr) -> BuildError {
        BuildError::NotAScalar { what, found: self.type_text(self.vars.type_of(e)) }
    }
}

fn new_slot(ctx: &mut Context, owner: u64, c: Construct) -> ConstructId {
    ctx.constructs.push(Slot { owner_scope: owner, construct: Some(c) });
    ctx.constructs.len() - 1
}

fn order(construct: &'static str, message: &str) -> BuildError {
    BuildError::BadOrder { construct, message: message.to_string() }
}

/// Fails unless the innermost scope is the one that created construct `id`.
fn check_owner(ctx: &Context, id: ConstructId, construct: &'static str) -> R<()> {
    let slot = ctx.constructs.get(id).ok_or(BuildError::StaleHandle { construct })?;
    match ctx.scopes.last() {
        Some(s) if s.id == slot.owner_scope => Ok(()),
        _ => Err(BuildError::WrongScope { construct }),
    }
}

fn pending_for<'c>(ctx: &'c mut Context, lp: &ForLoop) -> R<&'c mut PendingFor> {
    match ctx.slot_mut(lp.id) {
        Some(Construct::For(f)) => Ok(f),
        _ => Err(BuildError::StaleHandle { construct: FOR }),
    }
}

fn pending_if<'c>(ctx: &'c mut Context, h: &IfStmt) -> R<&'c mut PendingIf> {
    match ctx.slot_mut(h.id) {
        Some(Construct::If(i)) => Ok(i),
        _ => Err(BuildError::StaleHandle { construct: IF }),
    }
}
