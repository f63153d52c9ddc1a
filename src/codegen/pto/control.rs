//! Statements and control flow (spec `pto-codegen.md` §7): assignments and expression
//! statements run an op's emitter; `for` becomes `scf.for`, `while` `scf.while`, `if`
//! `scf.if`, each with its loop-carried values or results and a final `scf.yield`.

use super::func::{FnGen, Res};
use super::types::value_type;
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{Expr, ExprKind, Stmt, Type, VarId, VarKind, VarTable};

/// Extra indentation of a nested region.
const STEP: usize = 2;

impl FnGen<'_> {
    pub fn stmt(&mut self, s: &Stmt) -> Res<()> {
        match s {
            Stmt::Assign { var, value, span } => self.assign(*var, value, *span),
            Stmt::Eval { expr, span } => match &expr.kind {
                ExprKind::Call(c) => self.call(c, *span, None),
                _ => self.scalar(expr).map(drop),
            },
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, span, .. } => {
                self.for_stmt(*loop_var, [start, stop, step], iter_args, body, return_vars, *span)
            }
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                self.if_stmt(cond, then_body, else_body.as_deref(), return_vars, *span)
            }
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                self.while_stmt(cond, iter_args, body, return_vars, *span)
            }
            Stmt::Scope { body, .. } => self.stmt(body),
            Stmt::Yield { values, .. } => {
                crate::verify::nested_call::call_as_result(values, codes::NO_PTO_FORM).map_err(call_result)?;
                let mut vals = Vec::new();
                // Tensors are not carried (the loop or branch writes the parameter's memory in
                // place, `analysis::param_roots`), as their iter args and results are left out.
                for v in values.iter().filter(|v| !is_tensor(self.vars.type_of(v))) {
                    vals.push(self.scalar(v)?);
                }
                self.yielded = Some(vals);
                Ok(())
            }
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().try_for_each(|s| self.stmt(s)),
            // `return` prints nothing: the function's one `return` line closes it (§7.6).
            Stmt::Return { values, .. } => {
                crate::verify::nested_call::call_as_result(values, codes::NO_PTO_FORM).map_err(call_result)
            }
            // `scf.for` and `scf.while` have no early exit; the reference drops the statement
            // silently.
            Stmt::Break { span } | Stmt::Continue { span } => {
                let word = if matches!(s, Stmt::Break { .. }) { "break" } else { "continue" };
                Err(super::func::broken(*span, &format!("`{word}`")))
            }
        }
    }

    /// `x = value` (§7.1): an op call writes into `x`'s buffer, if `x` is a tile with one.
    fn assign(&mut self, var: VarId, value: &Expr, span: Span) -> Res<()> {
        match &value.kind {
            ExprKind::Call(c) => {
                let target = self.buffers.of_var(self.vars, var).map(|k| self.buffer_values[k].clone());
                self.call(c, span, target)
            }
            // A scalar value is bound to the variable, so later uses name it (the reference
            // leaves it unbound: every use becomes an empty operand).
            _ => {
                let v = self.scalar(value)?;
                if !v.is_empty() {
                    self.names.bind(self.vars.var_name(var), v);
                }
                Ok(())
            }
        }
    }

    fn for_stmt(
        &mut self,
        loop_var: VarId,
        bounds: [&Expr; 3],
        iter_args: &[VarId],
        body: &Stmt,
        return_vars: &[VarId],
        span: Span,
    ) -> Res<()> {
        let mut b = Vec::new();
        for e in bounds {
            b.push(self.scalar(e)?);
        }
        let iv = self.names.fresh();
        self.names.bind(self.vars.var_name(loop_var), iv.clone());
        if iter_args.len() != return_vars.len() {
            return Err(super::func::broken(span, "a for loop with other numbers of iter_args and return_vars"));
        }
        // A tensor iter arg and its loop result are the memory of the parameter they alias
        // (`analysis::param_roots`): a `pto.tstore` writes it in place, so it is not carried. The
        // reference carries it typed `index` and yields an empty operand (§7.3, §11).
        let (iter_args, return_vars) = without_tensors(self.vars, iter_args, return_vars);
        let (iter_args, return_vars) = (&iter_args[..], &return_vars[..]);
        let mut carried = Vec::new();
        for a in iter_args {
            let init = match &self.vars.var(*a).kind {
                VarKind::IterArg { init } => self.scalar(init)?,
                _ => String::new(),
            };
            let value = self.names.fresh();
            self.names.bind(self.vars.var_name(*a), value.clone());
            carried.push(format!("{value} = {init}"));
        }
        let results = self.bind_results(return_vars);
        let types: Vec<&str> = iter_args.iter().map(|a| value_type(self.vars.var_type(*a))).collect();
        let head = format!("scf.for {iv} = {} to {} step {}", b[0], b[1], b[2]);
        if iter_args.is_empty() {
            self.line(&format!("{head} {{"));
        } else {
            self.line(&format!(
                "{} = {head} iter_args({}) -> ({}) {{",
                results.join(", "),
                carried.join(", "),
                types.join(", ")
            ));
        }
        self.region(body, &types, |n, m| format!("ForStmt yield count ({n}) must match iter_args ({m})"), span)?;
        self.line("}");
        Ok(())
    }

    /// `scf.while` (the form of upstream PyPTO's generator; the reference of the spec has none,
    /// §7.7): the before region evaluates the condition on its block arguments and passes them
    /// on with `scf.condition`, the after region (`^bb0`) runs the body and yields the next
    /// values. Each carried value takes two counter values (before, after argument), then the
    /// results theirs; tensors are not carried (as in `scf.for`). Without carried values the
    /// regions have no arguments and the body ends with a bare `scf.yield`.
    fn while_stmt(
        &mut self,
        cond: &Expr,
        iter_args: &[VarId],
        body: &Stmt,
        return_vars: &[VarId],
        span: Span,
    ) -> Res<()> {
        if iter_args.len() != return_vars.len() {
            return Err(super::func::broken(span, "a while loop with other numbers of iter_args and return_vars"));
        }
        // Before convert-to-ssa a `while` carries values by name: the MLIR condition would read
        // the value from before the loop in every iteration.
        if iter_args.is_empty() {
            if let Some((x, at)) = crate::verify::cce_form::carried_by_name(self.vars, cond, body) {
                return Err(super::func::broken(
                    at,
                    &format!("a while loop carrying `{}` by name", self.vars.var_name(x)),
                ));
            }
        }
        let (iter_args, return_vars) = without_tensors(self.vars, iter_args, return_vars);
        let (iter_args, return_vars) = (&iter_args[..], &return_vars[..]);
        let mut inits = Vec::new();
        for a in iter_args {
            inits.push(match &self.vars.var(*a).kind {
                VarKind::IterArg { init } => self.scalar(init)?,
                _ => String::new(),
            });
        }
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for _ in iter_args {
            before.push(self.names.fresh());
            after.push(self.names.fresh());
        }
        let results = self.bind_results(return_vars);
        let types: Vec<&str> = iter_args.iter().map(|a| value_type(self.vars.var_type(*a))).collect();
        let bind = |g: &mut Self, values: &[String]| {
            for (a, v) in iter_args.iter().zip(values) {
                g.names.bind(g.vars.var_name(*a), v.clone());
            }
        };
        let joined = |sep: &str, l: &[String], r: &[String]| {
            l.iter().zip(r).map(|(a, b)| format!("{a}{sep}{b}")).collect::<Vec<_>>().join(", ")
        };
        let tys = types.join(", ");
        if iter_args.is_empty() {
            self.line("scf.while : () -> () {");
        } else {
            self.line(&format!(
                "{} = scf.while ({}) : ({tys}) -> ({tys}) {{",
                results.join(", "),
                joined(" = ", &before, &inits)
            ));
        }
        self.indent += STEP;
        bind(self, &before);
        let c = self.scalar(cond)?;
        if iter_args.is_empty() {
            self.line(&format!("scf.condition({c})"));
        } else {
            self.line(&format!("scf.condition({c}) {} : {tys}", before.join(", ")));
        }
        self.indent -= STEP;
        self.line("} do {");
        if !iter_args.is_empty() {
            let typed: Vec<String> = types.iter().map(|t| t.to_string()).collect();
            self.line(&format!("^bb0({}):", joined(" : ", &after, &typed)));
        }
        bind(self, &after);
        self.region(body, &types, |n, m| format!("WhileStmt yield count ({n}) must match iter_args ({m})"), span)?;
        if iter_args.is_empty() {
            self.indent += STEP;
            self.line("scf.yield");
            self.indent -= STEP;
        }
        self.line("}");
        Ok(())
    }

    fn if_stmt(
        &mut self,
        cond: &Expr,
        then_body: &Stmt,
        else_body: Option<&Stmt>,
        return_vars: &[VarId],
        span: Span,
    ) -> Res<()> {
        let c = self.scalar(cond)?;
        if !return_vars.is_empty() && else_body.is_none() {
            return Err(super::func::broken(span, "an if with results but no else"));
        }
        // Tensor results are the parameter's memory written in place (as for `scf.for`): the
        // reference yields them as empty operands, `scf.yield  : index` (§7.4).
        let return_vars: Vec<VarId> =
            return_vars.iter().copied().filter(|r| !is_tensor(self.vars.var_type(*r))).collect();
        let return_vars = &return_vars[..];
        let results = self.bind_results(return_vars);
        let types: Vec<&str> = return_vars.iter().map(|r| value_type(self.vars.var_type(*r))).collect();
        if return_vars.is_empty() {
            self.line(&format!("scf.if {c} {{"));
        } else {
            self.line(&format!("{} = scf.if {c} -> ({}) {{", results.join(", "), types.join(", ")));
        }
        let msg = |branch: &'static str| {
            move |n: usize, m: usize| format!("IfStmt {branch}-branch yield count ({n}) must match return_vars ({m})")
        };
        self.region(then_body, &types, msg("then"), span)?;
        if let Some(e) = else_body {
            self.line("} else {");
            self.region(e, &types, msg("else"), span)?;
        }
        self.line("}");
        Ok(())
    }

    /// Fresh values for loop or branch results, bound to their names.
    fn bind_results(&mut self, vars: &[VarId]) -> Vec<String> {
        vars.iter()
            .map(|r| {
                let v = self.names.fresh();
                self.names.bind(self.vars.var_name(*r), v.clone());
                v
            })
            .collect()
    }

    /// A nested region: `body` one step deeper, closed by `scf.yield` when it ended with a
    /// yield of values.
    fn region(
        &mut self,
        body: &Stmt,
        types: &[&str],
        mismatch: impl Fn(usize, usize) -> String,
        span: Span,
    ) -> Res<()> {
        self.indent += STEP;
        self.yielded = None;
        self.stmt(body)?;
        if let Some(vals) = self.yielded.take().filter(|v| !v.is_empty()) {
            if vals.len() != types.len() {
                return Err(super::func::broken(span, &mismatch(vals.len(), types.len())));
            }
            self.line(&format!("scf.yield {} : {}", vals.join(", "), types.join(", ")));
        }
        self.indent -= STEP;
        Ok(())
    }
}

fn is_tensor(t: &Type) -> bool {
    matches!(t, Type::Tensor(_))
}

/// The (iter arg, return var) pairs of a loop whose iter arg is not a tensor.
fn without_tensors(vars: &VarTable, iter_args: &[VarId], return_vars: &[VarId]) -> (Vec<VarId>, Vec<VarId>) {
    iter_args.iter().zip(return_vars).filter(|(a, _)| !is_tensor(vars.var_type(**a))).map(|(a, r)| (*a, *r)).unzip()
}

/// A call as a yielded or returned value, which the PTO form rule refuses.
fn call_result(d: Diagnostic) -> Diagnostic {
    super::func::broken(d.span, "a call as a yielded or returned value")
}
