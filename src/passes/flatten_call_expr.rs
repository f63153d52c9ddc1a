//! `flatten-call-expr` (spec `passes-and-codegen.md` §2.2): hoists calls nested in call
//! arguments, operator operands, conditions and loop bounds into temporaries `_t0, _t1, …`, so
//! codegen sees three-address code (property NoNestedCalls).
//!
//! Per function: normalise (§2.3), flatten, then remove one-element wrappers (§2.4). The
//! flattening keeps one list of pending temporaries, as the reference does, and its placement
//! rules decide where temporaries land, so they are reproduced exactly:
//! * inside an `OpStmts`, a statement's temporaries go right before it;
//! * temporaries of a sequence child that is not an `OpStmts` (if/for/while headers, yield and
//!   return values, a bare statement in a scope) are appended to the last `OpStmts` already
//!   emitted in that sequence — even one before an intervening loop (§6 Q3, reproduced) — or
//!   else put into a new `OpStmts` right before the child;
//! * bodies handle their own temporaries; a header's temporaries survive its bodies.

use super::stmt_structure::{flatten_single, normalize_body};
use super::PassEnv;
use crate::diag::Diagnostic;
use crate::ir::{Expr, ExprKind, Function, Stmt, VarId, VarKind, VarTable};

/// The pass on one function, with its own temporary counter.
pub fn function(mut f: Function, _env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    let body = std::mem::replace(&mut f.body, Stmt::empty());
    let mut flattener = Flattener { vars: &mut f.vars, next_temp: 0, pending: Vec::new(), adjacent: false };
    let flat = flattener.stmt(normalize_body(body));
    f.body = flatten_single(flat);
    Ok(f)
}

struct Flattener<'a> {
    /// The function's variables; temporaries are added to them.
    vars: &'a mut VarTable,
    /// Number of the next `_t<k>` of the current function.
    next_temp: u32,
    /// Temporaries extracted and not yet placed, in creation order.
    pending: Vec<Stmt>,
    /// The pending temporaries must be placed right before the statement that needs them
    /// (those of a `yield_` or `return` value), not in the last earlier `OpStmts`.
    adjacent: bool,
}

impl Flattener<'_> {
    fn stmt(&mut self, s: Stmt) -> Stmt {
        match s {
            Stmt::Seq { stmts, span } => Stmt::Seq { stmts: self.seq(stmts), span },
            Stmt::Ops { stmts, span } => {
                let mut out = Vec::with_capacity(stmts.len());
                for s in stmts {
                    self.pending.clear();
                    let s = self.stmt(s);
                    out.append(&mut self.pending);
                    out.push(s);
                }
                Stmt::Ops { stmts: out, span }
            }
            Stmt::Assign { var, value, span } => Stmt::Assign { var, value: self.top(value), span },
            Stmt::Eval { expr, span } => Stmt::Eval { expr: self.top(expr), span },
            Stmt::Yield { values, span } => Stmt::Yield { values: self.results(values), span },
            Stmt::Return { values, span } => Stmt::Return { values: self.results(values), span },
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                let cond = self.operand(*cond);
                let header = std::mem::take(&mut self.pending);
                let then_body = Box::new(self.stmt(*then_body));
                self.pending.clear();
                let else_body = else_body.map(|e| Box::new(self.stmt(*e)));
                self.pending = header;
                Stmt::If { cond: Box::new(cond), then_body, else_body, return_vars, span }
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, span } => {
                let start = self.operand(*start);
                let stop = self.operand(*stop);
                let step = self.operand(*step);
                self.inits(&iter_args);
                let header = std::mem::take(&mut self.pending);
                let body = Box::new(self.stmt(*body));
                self.pending = header;
                Stmt::For {
                    loop_var,
                    start: Box::new(start),
                    stop: Box::new(stop),
                    step: Box::new(step),
                    iter_args,
                    body,
                    return_vars,
                    kind,
                    span,
                }
            }
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                self.inits(&iter_args);
                let cond = self.operand(*cond);
                let header = std::mem::take(&mut self.pending);
                let body = Box::new(self.stmt(*body));
                self.pending = header;
                Stmt::While { cond: Box::new(cond), iter_args, body, return_vars, span }
            }
            Stmt::Scope { kind, body, span } => Stmt::Scope { kind, body: Box::new(self.stmt(*body)), span },
            leaf @ (Stmt::Break { .. } | Stmt::Continue { .. }) => leaf,
        }
    }

    /// A sequence's children, with each child's leftover temporaries placed before it.
    fn seq(&mut self, stmts: Vec<Stmt>) -> Vec<Stmt> {
        let mut out: Vec<Stmt> = Vec::with_capacity(stmts.len());
        for s in stmts {
            self.pending.clear();
            self.adjacent = false;
            let s = self.stmt(s);
            if !self.pending.is_empty() {
                let temps = std::mem::take(&mut self.pending);
                // The reference's placement (any earlier `OpStmts`) for headers; the values of
                // a `yield_` or `return` only into an `OpStmts` right before them.
                let earlier = if std::mem::take(&mut self.adjacent) { 1 } else { out.len() };
                match out.iter_mut().rev().take(earlier).find_map(|c| match c {
                    Stmt::Ops { stmts, .. } => Some(stmts),
                    _ => None,
                }) {
                    Some(ops) => ops.extend(temps),
                    None => out.push(Stmt::Ops { stmts: temps, span: s.span() }),
                }
            }
            out.push(s);
        }
        // Everything was placed here. (The reference leaves the last child's temporaries
        // pending, so a sequence nested directly in a sequence or scope would place them a
        // second time, defining the temporaries twice; ptoc places them once.)
        self.pending.clear();
        out
    }

    /// An expression of a statement: most hold no nested call and are kept as they are,
    /// without being taken apart and rebuilt.
    fn top(&mut self, e: Expr) -> Expr {
        if has_nested_call(&e) {
            self.expr(e)
        } else {
            e
        }
    }

    /// The values of a `yield_` or `return`: a call among them is extracted too (the reference
    /// keeps it, and nothing after this pass evaluates a call in those positions: its effect, a
    /// store say, would be lost). The temporaries go right before the statement, never across
    /// an earlier loop or `if` (see [`Flattener::seq`]).
    fn results(&mut self, values: Vec<Expr>) -> Vec<Expr> {
        if !values.iter().any(|v| matches!(v.kind, ExprKind::Call(_)) || has_nested_call(v) || is_item_of_call(v)) {
            return values;
        }
        self.adjacent = true;
        values
            .into_iter()
            .map(|e| match e.kind {
                ExprKind::TupleGetItem(t, i) if matches!(t.kind, ExprKind::Call(_)) => {
                    let t = self.operand(*t);
                    Expr { kind: ExprKind::TupleGetItem(Box::new(t), i), ty: e.ty, span: e.span }
                }
                kind => self.operand(Expr { kind, ty: e.ty, span: e.span }),
            })
            .collect()
    }

    /// The initial values of a loop's iter args: a call there is extracted as a `return`
    /// value's is (no backend evaluates a call in that position), placed right before the loop.
    fn inits(&mut self, iter_args: &[VarId]) {
        for &a in iter_args {
            let VarKind::IterArg { init } = &self.vars.var(a).kind else { continue };
            if !matches!(init.kind, ExprKind::Call(_)) && !has_nested_call(init) {
                continue;
            }
            let init = (**init).clone();
            let init = self.operand(init);
            self.adjacent = true;
            if let VarKind::IterArg { init: slot } = &mut self.vars.var_mut(a).kind {
                **slot = init;
            }
        }
    }

    fn exprs(&mut self, values: Vec<Expr>) -> Vec<Expr> {
        values.into_iter().map(|e| self.expr(e)).collect()
    }

    /// Rewrites `e` bottom-up, extracting calls found as call arguments and operator operands.
    /// A call that is `e` itself, a tuple element or the tuple of an item access stays.
    fn expr(&mut self, e: Expr) -> Expr {
        let Expr { kind, ty, span } = e;
        let kind = match kind {
            ExprKind::Call(mut call) => {
                call.args = std::mem::take(&mut call.args).into_iter().map(|a| self.operand(a)).collect();
                ExprKind::Call(call)
            }
            ExprKind::Binary(op, l, r) => {
                let l = self.operand(*l);
                let r = self.operand(*r);
                ExprKind::Binary(op, Box::new(l), Box::new(r))
            }
            ExprKind::Unary(op, x) => ExprKind::Unary(op, Box::new(self.operand(*x))),
            ExprKind::MakeTuple(items) => ExprKind::MakeTuple(self.exprs(items)),
            ExprKind::TupleGetItem(t, i) => ExprKind::TupleGetItem(Box::new(self.expr(*t)), i),
            leaf @ (ExprKind::Var(_) | ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_)) => {
                leaf
            }
        };
        Expr { kind, ty, span }
    }

    /// An expression in a position where a call is not allowed: rewritten, then replaced by a
    /// temporary if it is a call.
    fn operand(&mut self, e: Expr) -> Expr {
        let e = self.expr(e);
        if matches!(e.kind, ExprKind::Call(_)) {
            self.extract(e)
        } else {
            e
        }
    }

    /// Defines `_t<k> = call` (pending) and returns a use of `_t<k>`; its type is the call's.
    fn extract(&mut self, call: Expr) -> Expr {
        let name = format!("_t{}", self.next_temp);
        self.next_temp += 1;
        let span = call.span;
        let var = self.vars.new_var(name, self.vars.type_of(&call).clone(), VarKind::Plain, span);
        self.pending.push(Stmt::Assign { var, value: call, span });
        Expr::var(var, span)
    }
}

/// Whether `e` is an item of a call's tuple result (`f(x)[0]`).
fn is_item_of_call(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::TupleGetItem(t, _) if matches!(t.kind, ExprKind::Call(_)))
}

/// Whether [`Flattener::expr`] would change `e`: a call sits, at any depth, in an operand
/// position (a call argument, a binary or unary operand).
fn has_nested_call(e: &Expr) -> bool {
    let is_call = |x: &Expr| matches!(x.kind, ExprKind::Call(_));
    match &e.kind {
        ExprKind::Call(c) => c.args.iter().any(|a| is_call(a) || has_nested_call(a)),
        ExprKind::Binary(_, l, r) => is_call(l) || is_call(r) || has_nested_call(l) || has_nested_call(r),
        ExprKind::Unary(_, x) => is_call(x) || has_nested_call(x),
        ExprKind::MakeTuple(items) => items.iter().any(has_nested_call),
        ExprKind::TupleGetItem(t, _) => has_nested_call(t),
        ExprKind::Var(_) | ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => false,
    }
}
