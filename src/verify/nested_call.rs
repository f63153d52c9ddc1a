//! NoNestedCall (codes 201–206): a call may not appear directly as a call argument, an if or
//! while condition, a for bound, or an operand of a binary or unary node.
//!
//! The walk reproduces the reference visitor's order and reach, since both decide which
//! findings appear and in what order: statements visit their defined variables and
//! expressions in field order, and every occurrence of a variable (definition or use) visits
//! the dims of its type when it is a tensor and, for an iter arg, its init value. So a nested
//! call inside an iter arg's init value is reported at the iter-arg list and again at each use
//! of the iter arg, exactly as the reference does.

use super::{codes, Property, VerifyDiagnostic};
use crate::ir::visit::child_exprs;
use crate::ir::{Expr, ExprKind, Function, Span, Stmt, Type, VarId, VarKind, VarTable};

pub(super) fn check(f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let vars = &f.vars;
    let mut v = NestedCallVerifier { vars, expanding: Vec::new(), out };
    v.stmt(&f.body);
}

fn is_call(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Call(_))
}

struct NestedCallVerifier<'a> {
    vars: &'a VarTable,
    /// Variables whose type dims / init value are being visited, to stop on self-reference.
    expanding: Vec<VarId>,
    out: &'a mut Vec<VerifyDiagnostic>,
}

impl NestedCallVerifier<'_> {
    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { var, value, .. } => {
                self.var(*var);
                self.expr(value);
            }
            Stmt::If { cond, then_body, else_body, return_vars, .. } => {
                if is_call(cond) {
                    self.error(codes::CALL_IN_IF_CONDITION, "If condition cannot be a call expression", cond.span);
                }
                self.expr(cond);
                self.stmt(then_body);
                if let Some(e) = else_body {
                    self.stmt(e);
                }
                self.var_list(return_vars);
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, .. } => {
                for (e, what) in [(start, "start"), (stop, "stop"), (step, "step")] {
                    if is_call(e) {
                        let msg = format!("For loop {what} expression cannot be a call expression");
                        self.error(codes::CALL_IN_FOR_RANGE, &msg, e.span);
                    }
                }
                self.var(*loop_var);
                self.expr(start);
                self.expr(stop);
                self.expr(step);
                self.var_list(iter_args);
                self.stmt(body);
                self.var_list(return_vars);
            }
            Stmt::While { cond, iter_args, body, return_vars, .. } => {
                if is_call(cond) {
                    self.error(
                        codes::CALL_IN_WHILE_CONDITION,
                        "While loop condition cannot be a call expression",
                        cond.span,
                    );
                }
                self.expr(cond);
                self.var_list(iter_args);
                self.stmt(body);
                self.var_list(return_vars);
            }
            Stmt::Scope { body, .. } => self.stmt(body),
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                for s in stmts {
                    self.stmt(s);
                }
            }
            Stmt::Yield { values, .. } | Stmt::Return { values, .. } => {
                for e in values {
                    self.expr(e);
                }
            }
            Stmt::Eval { expr, .. } => self.expr(expr),
            Stmt::Break { .. } | Stmt::Continue { .. } => {}
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(v) => self.var(*v),
            ExprKind::Call(c) => {
                for arg in &c.args {
                    if is_call(arg) {
                        self.error(codes::CALL_IN_CALL_ARGS, "Call expression has nested call in arguments", arg.span);
                    }
                    self.expr(arg);
                }
            }
            ExprKind::Binary(_, l, r) => {
                if is_call(l) {
                    self.error(
                        codes::CALL_IN_BINARY_EXPR,
                        "Binary expression left operand cannot be a call expression",
                        l.span,
                    );
                }
                if is_call(r) {
                    self.error(
                        codes::CALL_IN_BINARY_EXPR,
                        "Binary expression right operand cannot be a call expression",
                        r.span,
                    );
                }
                self.expr(l);
                self.expr(r);
            }
            ExprKind::Unary(_, x) => {
                if is_call(x) {
                    self.error(
                        codes::CALL_IN_UNARY_EXPR,
                        "Unary expression operand cannot be a call expression",
                        x.span,
                    );
                }
                self.expr(x);
            }
            ExprKind::MakeTuple(_) | ExprKind::TupleGetItem(..) => {
                for c in child_exprs(e) {
                    self.expr(c);
                }
            }
            ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => {}
        }
    }

    fn var_list(&mut self, list: &[VarId]) {
        for &v in list {
            self.var(v);
        }
    }

    /// An occurrence of a variable: the dims of a tensor type, then an iter arg's init value.
    fn var(&mut self, v: VarId) {
        let vars = self.vars;
        let Some(data) = vars.get(v) else { return };
        // Most occurrences are of tiles and scalars, which have nothing to visit.
        let has_parts = matches!(data.ty, Type::Tensor(_)) || matches!(data.kind, VarKind::IterArg { .. });
        if !has_parts || self.expanding.contains(&v) {
            return;
        }
        self.expanding.push(v);
        if let Type::Tensor(t) = &data.ty {
            for d in &t.shape {
                self.expr(d);
            }
        }
        if let VarKind::IterArg { init } = &data.kind {
            self.expr(init);
        }
        self.expanding.pop();
    }

    fn error(&mut self, error_code: u32, message: &str, span: Span) {
        self.out.push(VerifyDiagnostic {
            rule: Property::NoNestedCalls,
            error_code,
            message: message.to_string(),
            span,
        });
    }
}

/// The first call among the values of a `return` or `yield_`, as an error with code `code`.
/// flatten-call-expr binds such a call to a temporary; a pipeline without it leaves the call
/// there, where no backend evaluates it, so its effect (a store, a kernel call) would be lost.
pub fn call_as_result(values: &[Expr], code: &'static str) -> Result<(), crate::diag::Diagnostic> {
    let call = values.iter().find(|v| match &v.kind {
        ExprKind::Call(_) => true,
        ExprKind::TupleGetItem(t, _) => matches!(t.kind, ExprKind::Call(_)),
        _ => false,
    });
    match call {
        None => Ok(()),
        Some(c) => Err(crate::diag::Diagnostic::error(code, c.span, "a call as the value of a `return` or `yield_` is evaluated only once flatten-call-expr has bound it to a name".to_string())
            .with_note("help: run the pipeline with flatten-call-expr, or write `r = <call>` and return or yield `r`")),
    }
}
