//! Statements (spec `ir-and-syntax.md` §3.5 read backwards and §3.10 "Statements").
//!
//! Scoping: if-branches, for and while bodies, and `with` bodies are scopes. `with` bodies,
//! natural `while` bodies, simple `for` loops (no iter_args, no yields) and if-statements without
//! yields leak their names to the parent; otherwise only yield targets are visible after the
//! construct. A yield-assignment (`r: T = pl.yield_(x)`) belongs to the innermost enclosing
//! if-branch / for / while; its names become that construct's return variables.

use super::{Lowerer, YieldRecord};
use crate::ast::{self, Arg, ExprKind as A, StmtKind as S};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::*;

type R<T> = Result<T, Diagnostic>;

impl Lowerer {
    /// Lowers a statement list; a failing statement is reported and skipped.
    pub(super) fn lower_stmts(&mut self, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        self.scopes.reserve(stmts.len());
        self.vars.reserve(stmts.len());
        for (i, s) in stmts.iter().enumerate() {
            // A docstring as the first statement is skipped, as by the reference.
            if i == 0 && matches!(&s.kind, S::Expr(e) if matches!(e.kind, A::Str(_))) {
                continue;
            }
            let outer = std::mem::replace(&mut self.read_poison, false);
            if let Err(d) = self.lower_stmt(s, &mut out) {
                if !self.read_poison {
                    self.error(d);
                }
                self.poison_targets(s);
            }
            self.read_poison = outer;
        }
        out
    }

    /// Binds the names a failed statement would have defined, so their uses don't cascade: its
    /// targets, and for a compound statement every name its body assigns (they are visible
    /// after it, loop results included).
    fn poison_targets(&mut self, s: &ast::Stmt) {
        let mut targets: Vec<&ast::Ident> = Vec::new();
        assigned_names(std::slice::from_ref(s), &mut targets);
        for t in targets {
            let v = self.vars.new_var(t.name.as_str(), Type::Unknown, VarKind::Plain, t.span);
            self.poisoned.insert(v);
            self.scopes.bind(&t.name, v);
        }
    }

    fn lower_stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) -> R<()> {
        match &s.kind {
            S::Assign { targets, tuple_target, annotation, value } => {
                if let Some(yargs) = self.yield_args(value) {
                    return self.lower_yield_assign(targets, annotation.as_ref(), yargs, s.span, out);
                }
                if *tuple_target {
                    self.lower_unpack(targets, value, s.span, out)
                } else {
                    self.lower_assign(&targets[0], annotation.as_ref(), value, s.span, out)
                }
            }
            S::AnnOnly { target, annotation } => self.declare(target, annotation, s.span),
            S::Expr(e) => {
                if let Some(yargs) = self.yield_args(e) {
                    // A bare yield (no names bound). Unlike the reference parser we don't append
                    // an EvalStmt of the value: that quirk would break print/parse round trips.
                    let values = self.lower_positional(yargs, "pl.yield_")?;
                    out.push(Stmt::Yield { values, span: s.span });
                    return Ok(());
                }
                if self.is_form(e, "cond") {
                    return Err(Diagnostic::error(
                        codes::BAD_LOOP,
                        e.span,
                        format!(
                            "`{}.cond(...)` must be the first statement of a `{}.while_` loop",
                            self.prefix, self.prefix
                        ),
                    ));
                }
                let expr = self.lower_expr(e)?;
                out.push(Stmt::Eval { expr, span: s.span });
                Ok(())
            }
            S::Return(values) => {
                let values = values.iter().map(|v| self.lower_expr(v)).collect::<R<Vec<_>>>()?;
                out.push(Stmt::Return { values, span: s.span });
                Ok(())
            }
            S::If { cond, then_body, else_body } => self.lower_if(cond, then_body, else_body.as_deref(), s.span, out),
            S::For { target, iter, body } => self.lower_for(target, iter, body, s.span, out),
            S::While { cond, body } => {
                self.check_jumps_keep_carried_values(body, false)?;
                let cond = self.lower_expr(cond)?;
                self.scopes.push();
                self.yield_frames.push(Vec::new());
                let body_stmts = self.lower_stmts(body);
                let yields = self.yield_frames.pop().unwrap_or_default();
                let leaked = self.scopes.pop();
                self.scopes.leak(leaked);
                if let Some(y) = yields.first() {
                    return Err(Diagnostic::error(
                        codes::BAD_YIELD,
                        y.targets[0].span,
                        "a natural `while` loop has no loop-carried values to yield; use `for (...) in pl.while_(init_values=(...))`",
                    ));
                }
                out.push(Stmt::While {
                    cond: Box::new(cond),
                    iter_args: Vec::new(),
                    body: Box::new(Stmt::block(body_stmts, s.span)),
                    return_vars: Vec::new(),
                    span: s.span,
                });
                Ok(())
            }
            S::With { item, body, .. } => {
                if !self.is_incore_scope(item) {
                    return Err(Diagnostic::error(
                        codes::UNSUPPORTED,
                        item.span,
                        format!(
                            "only `with {p}.incore():` scopes (today's PyPTO spells it `with {p}.at(level={p}.Level.CORE_GROUP):`) are supported",
                            p = self.prefix
                        ),
                    ));
                }
                self.scopes.push();
                let body_stmts = self.lower_stmts(body);
                let leaked = self.scopes.pop();
                self.scopes.leak(leaked);
                out.push(Stmt::Scope {
                    kind: ScopeKind::InCore,
                    body: Box::new(Stmt::block(body_stmts, s.span)),
                    span: s.span,
                });
                Ok(())
            }
            S::Break => {
                out.push(Stmt::Break { span: s.span });
                Ok(())
            }
            S::Continue => {
                out.push(Stmt::Continue { span: s.span });
                Ok(())
            }
            S::Pass => Ok(()),
        }
    }

    /// Whether a `with` item opens an InCore scope: `pl.incore()`, or today's PyPTO spelling of
    /// the same scope, `pl.at(level=pl.Level.CORE_GROUP)`.
    fn is_incore_scope(&self, item: &ast::Expr) -> bool {
        let A::Call(f, args) = &item.kind else { return false };
        match self.prefixed_name(f) {
            Some("incore") => args.is_empty(),
            Some("at") => match args.as_slice() {
                [Arg::Keyword(k, level)] => {
                    k.name == "level" && self.prefixed_path(level).as_deref() == Some(&["Level", "CORE_GROUP"][..])
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// True when `e` is a call of the DSL form `pl.<name>(...)`.
    fn is_form(&self, e: &ast::Expr, name: &str) -> bool {
        match &e.kind {
            A::Call(f, _) => self.prefixed_name(f) == Some(name),
            _ => false,
        }
    }

    /// The arguments of a `pl.yield_(...)` call.
    fn yield_args<'e>(&self, e: &'e ast::Expr) -> Option<&'e [Arg]> {
        match &e.kind {
            A::Call(f, args) if self.prefixed_name(f) == Some("yield_") => Some(args),
            _ => None,
        }
    }

    fn lower_positional(&mut self, args: &[Arg], what: &str) -> R<Vec<Expr>> {
        args.iter()
            .map(|a| match a {
                Arg::Positional(e) => self.lower_expr(e),
                Arg::Keyword(k, _) => {
                    Err(Diagnostic::error(codes::OP_KWARG, k.span, format!("`{what}` takes no keyword arguments")))
                }
            })
            .collect()
    }

    fn lower_yield_assign(
        &mut self,
        targets: &[ast::Ident],
        ann: Option<&ast::Expr>,
        args: &[Arg],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let values = self.lower_positional(args, "pl.yield_")?;
        if values.len() != targets.len() {
            return Err(Diagnostic::error(
                codes::BAD_YIELD,
                span,
                format!("{} name(s) assigned from a yield of {} value(s)", targets.len(), values.len()),
            ));
        }
        let annotation = match ann {
            Some(a) if targets.len() == 1 => Some(self.lower_type(a)?),
            _ => None,
        };
        let annotation_span = ann.map_or(span, |a| a.span);
        let value_types = values.iter().map(|v| self.vars.type_of(v).clone()).collect();
        let Some(frame) = self.yield_frames.last_mut() else {
            return Err(Diagnostic::error(
                codes::BAD_YIELD,
                span,
                "a yield outside of an `if`, `for` or `while` has nothing to assign",
            ));
        };
        frame.push(YieldRecord { targets: targets.to_vec(), annotation, annotation_span, value_types });
        out.push(Stmt::Yield { values, span });
        Ok(())
    }

    /// `x: T = e` / `x = e`. The variable's type is the annotation, exactly, when there is one:
    /// the printer printed the variable's own type there, it alone carries MemRefs after memory
    /// passes (§7 Q4), and hand-built IR may declare a type that differs from its value's (which
    /// the verifier then judges). Without an annotation it is the value's type. (The reference's
    /// DSL parser ignores annotations instead; see docs/language.md.)
    fn lower_assign(
        &mut self,
        target: &ast::Ident,
        ann: Option<&ast::Expr>,
        value: &ast::Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        if let Some(tile) = self.transpose_view_arg(value)? {
            // Today's `x = pl.tile.transpose_view(t)`: `x` stands for `t` seen transposed until
            // a move into L0 reads it (`lower_call`); nothing is written for it.
            let src = self.transposed_source(tile)?;
            let mut ty = self.vars.var_type(src).clone();
            if let Type::Tile(t) = &mut ty {
                std::sync::Arc::make_mut(t).shape.swap(0, 1);
            }
            let var = self.vars.new_var(target.name.as_str(), ty, VarKind::Plain, target.span);
            self.scopes.bind(&target.name, var);
            self.transposed_views.insert(var, src);
            return Ok(());
        }
        let value = self.lower_expr(value)?;
        if let Some(info) = alloc_info(&value) {
            // `mem_vec_3: pl.MemRefType = pl.block.alloc(...)` defines the MemRef itself.
            let var = self.intern_memref(info, Some(&target.name), target.span)?;
            self.vars.var_mut(var).name = target.name.to_string();
            self.scopes.bind(&target.name, var);
            out.push(Stmt::Assign { var, value, span });
            return Ok(());
        }
        let ty = match ann {
            Some(a) => {
                let at = self.lower_type(a)?;
                let value_ty = self.vars.type_of(&value).clone();
                self.annotated_type(at, &value_ty, a.span)
            }
            None => self.vars.type_of(&value).clone(),
        };
        let var = self.vars.new_var(target.name.as_str(), ty, VarKind::Plain, target.span);
        self.scopes.bind(&target.name, var);
        if let ExprKind::Call(call) = &value.kind {
            if let Callee::Op(op) = call.callee {
                let def = crate::ops::def(op);
                if def.category == crate::ops::Category::Block {
                    self.tile_spaces.insert(var, crate::ops::result_space_of(def, call));
                }
            }
        }
        out.push(Stmt::Assign { var, value, span });
        Ok(())
    }

    /// `a, b = e` with a tuple-typed `e`: `_tuple_tmp = e; a = _tuple_tmp[0]; b = _tuple_tmp[1]`.
    fn lower_unpack(&mut self, targets: &[ast::Ident], value: &ast::Expr, span: Span, out: &mut Vec<Stmt>) -> R<()> {
        let value = self.lower_expr(value)?;
        let Type::Tuple(elems) = self.vars.type_of(&value).clone() else {
            return Err(Diagnostic::error(
                codes::BAD_TARGET,
                value.span,
                format!(
                    "cannot unpack a {} value into {} names; only tuple values unpack",
                    self.vars.type_of(&value).kind_name(),
                    targets.len()
                ),
            ));
        };
        if elems.len() != targets.len() {
            return Err(Diagnostic::error(
                codes::BAD_TARGET,
                span,
                format!("cannot unpack a tuple of {} values into {} names", elems.len(), targets.len()),
            ));
        }
        let tmp = self.vars.new_var("_tuple_tmp", Type::Tuple(elems.clone()), VarKind::Plain, span);
        out.push(Stmt::Assign { var: tmp, value, span });
        for (i, (t, ty)) in targets.iter().zip(elems).enumerate() {
            let get = Expr::new(ExprKind::TupleGetItem(Box::new(Expr::var(tmp, t.span)), i), ty.clone(), t.span);
            let v = self.vars.new_var(t.name.as_str(), ty, VarKind::Plain, t.span);
            self.scopes.bind(&t.name, v);
            out.push(Stmt::Assign { var: v, value: get, span });
        }
        Ok(())
    }

    fn lower_if(
        &mut self,
        cond: &ast::Expr,
        then_body: &[ast::Stmt],
        else_body: Option<&[ast::Stmt]>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let cond = self.lower_expr(cond)?;
        // The else branch does not run after the then branch: its names must not resolve to the
        // then branch's variables through the closed-scope fallback.
        let closed_before = self.scopes.closed_snapshot();
        let (then_stmts, then_yields, then_scope) = self.lower_branch(then_body);
        let closed_after_then = self.scopes.replace_closed(closed_before);
        let (mut then_stmts, mut then_yields) = (then_stmts, then_yields);
        let (mut else_stmts, mut else_yields, else_scope) = match else_body {
            Some(b) => {
                let (s, y, sc) = self.lower_branch(b);
                (Some(s), y, sc)
            }
            None => (None, Vec::new(), Vec::new()),
        };
        self.scopes.merge_closed(closed_after_then);
        // An `elif` chain yields in its innermost branches; the branch holding the inner `if`
        // then ends with that `if` instead of a yield. Its results carry the names the other
        // branch yields, so the author's meaning is plain: the branch yields them.
        if let Some(else_stmts) = else_stmts.as_mut() {
            if else_yields.is_empty() {
                if let Some(rec) = self.yield_of_inner_if(&then_yields, else_stmts) {
                    else_yields.push(rec);
                }
            } else if then_yields.is_empty() {
                if let Some(rec) = self.yield_of_inner_if(&else_yields, &mut then_stmts) {
                    then_yields.push(rec);
                }
            }
        }
        // Both branches must yield to the same names (the printer writes one list for both).
        if let (Some(t), Some(e)) = (then_yields.first(), else_yields.first()) {
            let names = |r: &YieldRecord| r.targets.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
            if names(t) != names(e) {
                return Err(Diagnostic::error(
                    codes::BAD_YIELD,
                    e.targets[0].span.to(e.targets[e.targets.len() - 1].span),
                    format!(
                        "the else branch yields to ({}) but the then branch to ({})",
                        names(e).join(", "),
                        names(t).join(", ")
                    ),
                )
                .with_secondary(t.targets[0].span, "the then branch's yield"));
            }
        }
        // Without an else branch the yielded names have no value when the condition is false.
        // Printed IR keeps such an if for the verifier to reject (spec: structure code 3);
        // in hand-written text it is the author's mistake, reported where it is made.
        if let (None, Some(t)) = (else_body, then_yields.first()) {
            let names = t.targets.iter().map(|i| format!("`{}`", i.name)).collect::<Vec<_>>().join(", ");
            let d = Diagnostic::error(
                codes::BAD_YIELD,
                t.targets[0].span.to(t.targets[t.targets.len() - 1].span),
                format!(
                    "an `if` without `else` yields {names}, which {} no value when the condition is false",
                    if t.targets.len() == 1 { "has" } else { "have" }
                ),
            )
            .with_secondary(cond.span, "this `if` has no `else` branch")
            .with_note(
                "help: add an `else:` branch that yields a value for each name (e.g. its value before the `if`)",
            );
            self.authorship.mismatches.push(d);
        }
        let mut return_vars = Vec::new();
        if then_yields.is_empty() && else_yields.is_empty() {
            self.scopes.leak(then_scope);
            self.scopes.leak(else_scope);
        } else {
            // Return vars in first-seen order: then-branch names, then else-only names (§3.10).
            let mut names: Vec<&ast::Ident> = Vec::new();
            for rec in then_yields.iter().chain(&else_yields) {
                for t in &rec.targets {
                    if !names.iter().any(|n| n.name == t.name) {
                        names.push(t);
                    }
                }
            }
            for n in names {
                let declared = self.declared.remove(n.name.as_str());
                let annotation = yield_annotation(&n.name, &then_yields, &else_yields).or(declared.clone());
                let shown = annotation.is_some();
                let ty = match annotation {
                    // The reference types an if's return var by the annotation itself (§3.10);
                    // a value that contradicts it is still a mistake in hand-written text.
                    Some((ann, at)) => {
                        let value = value_type(&n.name, &then_yields, &else_yields);
                        self.annotated_type(ann.clone(), &value, at);
                        ann
                    }
                    None => value_type(&n.name, &then_yields, &else_yields),
                };
                let v = self.vars.new_var(n.name.as_str(), ty, VarKind::Plain, n.span);
                if !shown {
                    self.hidden_types.push(v);
                }
                return_vars.push(v);
            }
            for (v, name) in return_vars.iter().map(|&v| (v, self.vars.var_name(v).to_string())).collect::<Vec<_>>() {
                self.scopes.bind(&name, v);
            }
        }
        out.push(Stmt::If {
            cond: Box::new(cond),
            then_body: Box::new(Stmt::block(then_stmts, span)),
            else_body: else_stmts.map(|s| Box::new(Stmt::block(s, span))),
            return_vars,
            span,
        });
        Ok(())
    }

    /// When `branch` yields nothing and ends with an `if` whose results are named exactly as the
    /// first yield of the other branch (`yields`), appends the yield of those results to `branch`
    /// and returns its record.
    fn yield_of_inner_if(&self, yields: &[YieldRecord], branch: &mut Vec<Stmt>) -> Option<YieldRecord> {
        let wanted = &yields.first()?.targets;
        let Some(Stmt::If { return_vars, span, .. }) = branch.last() else { return None };
        let span = *span;
        let values = wanted
            .iter()
            .map(|t| return_vars.iter().copied().find(|&v| self.vars.var_name(v) == t.name.as_str()))
            .collect::<Option<Vec<_>>>()?;
        if values.len() != return_vars.len() {
            return None;
        }
        let record = YieldRecord {
            targets: wanted.clone(),
            annotation: None,
            annotation_span: span,
            value_types: values.iter().map(|&v| self.vars.var_type(v).clone()).collect(),
        };
        branch.push(Stmt::Yield { values: values.iter().map(|&v| Expr::var(v, span)).collect(), span });
        Some(record)
    }

    fn lower_branch(&mut self, body: &[ast::Stmt]) -> (Vec<Stmt>, Vec<YieldRecord>, super::scope::Bindings) {
        self.scopes.push();
        self.yield_frames.push(Vec::new());
        let stmts = self.lower_stmts(body);
        let yields = self.yield_frames.pop().unwrap_or_default();
        let scope = self.scopes.pop();
        (stmts, yields, scope)
    }

    fn lower_for(
        &mut self,
        target: &ast::ForTarget,
        iter: &ast::Expr,
        body: &[ast::Stmt],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let A::Call(f, args) = &iter.kind else {
            return Err(self.bad_iterator(iter));
        };
        let mut form = match self.prefixed_path(f).as_deref() {
            Some(["range"]) => ForKind::Sequential,
            Some(["parallel"]) => ForKind::Parallel,
            Some(["pipeline"]) => ForKind::Pipeline(0), // `stage=` is required: 0 until it is read
            Some(["while_"]) => return self.lower_ssa_while(target, args, iter.span, body, span, out),
            Some(["unroll"]) => return self.lower_unroll(target, args, iter, body, out),
            _ => return Err(self.bad_iterator(iter)),
        };
        let mut bounds = Vec::new();
        let mut init_values = None;
        for a in args {
            match a {
                Arg::Positional(e) => bounds.push(e),
                Arg::Keyword(k, e) if k.name == "init_values" => init_values = Some(e),
                Arg::Keyword(k, e) if k.name == "stage" && matches!(form, ForKind::Pipeline(_)) => {
                    form = ForKind::Pipeline(self.pipeline_stages(e)?);
                }
                Arg::Keyword(k, _) => {
                    let takes = match form {
                        ForKind::Pipeline(_) => "a pipeline takes `stage=` and `init_values=`",
                        _ => "a range takes `init_values=`",
                    };
                    return Err(Diagnostic::error(
                        codes::BAD_LOOP,
                        k.span,
                        format!("unknown keyword `{}`; {takes}", k.name),
                    ));
                }
            }
        }
        if form == ForKind::Pipeline(0) {
            return Err(Diagnostic::error(
                codes::BAD_LOOP,
                iter.span,
                format!("`{}.pipeline` needs `stage=F`, the number of copies of the body", self.prefix),
            ));
        }
        let zero = || Expr::int(0, DataType::Int64, Span::NONE);
        let one = || Expr::int(1, DataType::Int64, Span::NONE);
        let (start, stop, step) = match bounds.as_slice() {
            [stop] => (zero(), self.lower_expr(stop)?, one()),
            [start, stop] => (self.lower_expr(start)?, self.lower_expr(stop)?, one()),
            [start, stop, step] => (self.lower_expr(start)?, self.lower_expr(stop)?, self.lower_expr(step)?),
            _ => {
                return Err(Diagnostic::error(
                    codes::BAD_LOOP,
                    iter.span,
                    format!("`{}.{}` takes 1 to 3 positional arguments (start, stop, step)", self.prefix, form.name()),
                ))
            }
        };
        let Some(loop_name) = &target.var else {
            return Err(Diagnostic::error(
                codes::BAD_LOOP,
                target.span,
                "a range loop needs a loop variable: `for i in ...` or `for i, (a, b) in ...`",
            ));
        };
        self.check_jumps_keep_carried_values(body, init_values.is_some())?;
        let inits = self.lower_init_values(target, init_values, iter.span)?;
        self.scopes.push();
        let loop_var =
            self.vars.new_var(loop_name.name.as_str(), Type::Scalar(DataType::Int64), VarKind::Plain, loop_name.span);
        self.scopes.bind(&loop_name.name, loop_var);
        let iter_args = self.bind_iter_args(target, inits);
        self.yield_frames.push(Vec::new());
        let body_stmts = self.lower_stmts(body);
        let yields = self.yield_frames.pop().unwrap_or_default();
        let scope = self.scopes.pop();
        let return_vars = if iter_args.is_empty() && yields.is_empty() {
            self.scopes.leak(scope);
            Vec::new()
        } else {
            self.loop_return_vars(&iter_args, &yields, span)?
        };
        out.push(Stmt::For {
            loop_var,
            start: Box::new(start),
            stop: Box::new(stop),
            step: Box::new(step),
            iter_args,
            body: Box::new(Stmt::block(body_stmts, span)),
            return_vars,
            kind: form,
            span,
        });
        Ok(())
    }

    /// `for i in pl.unroll(start, stop, step)`: the body once per iteration, in order, as
    /// straight-line code of the enclosing block (today's PyPTO expands it when the program is
    /// read, so each copy has tiles of its own). The bounds are constants; in each copy the loop
    /// variable is a scalar assigned its value. Names the body assigns are seen by the next copy
    /// and after the loop, as in Python; there is no iteration to `break` out of or `continue`.
    fn lower_unroll(
        &mut self,
        target: &ast::ForTarget,
        args: &[Arg],
        iter: &ast::Expr,
        body: &[ast::Stmt],
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let p = self.prefix.clone();
        let mut bounds = Vec::new();
        for a in args {
            match a {
                Arg::Positional(e) => bounds.push(e),
                Arg::Keyword(k, _) => {
                    return Err(Diagnostic::error(
                        codes::BAD_LOOP,
                        k.span,
                        format!("unknown keyword `{}`; `{p}.unroll` takes only its bounds", k.name),
                    )
                    .with_note("a value the copies update is reassigned by name: the copies are straight-line code"))
                }
            }
        }
        let mut constant = |e: &ast::Expr| -> R<i64> {
            let v = self.lower_expr(e)?;
            v.as_const_int().ok_or_else(|| {
                Diagnostic::error(
                    codes::BAD_LOOP,
                    e.span,
                    format!("the bounds of `{p}.unroll` must be integer constants: its copies are made when the program is read"),
                )
                .with_note(format!("help: a loop with bounds known only at run time is `{p}.range(...)`"))
            })
        };
        let (start, stop, step) = match bounds.as_slice() {
            [stop] => (0, constant(stop)?, 1),
            [start, stop] => (constant(start)?, constant(stop)?, 1),
            [start, stop, step] => (constant(start)?, constant(stop)?, constant(step)?),
            _ => {
                return Err(Diagnostic::error(
                    codes::BAD_LOOP,
                    iter.span,
                    format!("`{p}.unroll` takes 1 to 3 positional arguments (start, stop, step)"),
                ))
            }
        };
        if step == 0 {
            return Err(Diagnostic::error(
                codes::BAD_LOOP,
                iter.span,
                format!("`{p}.unroll` needs a step other than 0"),
            ));
        }
        let values: Vec<i64> = if step > 0 {
            (start..stop).step_by(step as usize).collect()
        } else {
            (stop + 1..=start).rev().step_by(step.unsigned_abs() as usize).collect()
        };
        // Each copy is code of its own: a bound on how much text one loop may become.
        const MAX_COPIES: usize = 1024;
        if values.len() > MAX_COPIES {
            return Err(Diagnostic::error(
                codes::BAD_LOOP,
                iter.span,
                format!("`{p}.unroll` of {} iterations: at most {MAX_COPIES} copies of a body are made", values.len()),
            )
            .with_note(format!("help: `{p}.range(...)` runs the body without copying it")));
        }
        let (Some(loop_name), None) = (&target.var, &target.tuple) else {
            return Err(Diagnostic::error(
                codes::BAD_LOOP,
                target.span,
                format!(
                    "`{p}.unroll` takes a loop variable only (`for i in {p}.unroll(n):`); it carries no `init_values`"
                ),
            ));
        };
        if let Some(jump) = first_jump(body) {
            let word = if matches!(jump.kind, S::Break) { "break" } else { "continue" };
            return Err(Diagnostic::error(
                codes::BAD_LOOP,
                jump.span,
                format!("`{word}` in `{p}.unroll`: its copies are straight-line code, with no iteration to leave"),
            )
            .with_note(format!(
                "help: write the loop as `{p}.range(...)`, or the condition as an `if` around the rest of the body"
            )));
        }
        for k in values {
            let at = loop_name.span;
            let i = self.vars.new_var(loop_name.name.as_str(), Type::Scalar(DataType::Int64), VarKind::Plain, at);
            out.push(Stmt::Assign { var: i, value: Expr::int(k, DataType::Int64, at), span: at });
            self.scopes.bind(&loop_name.name, i);
            out.extend(self.lower_stmts(body));
        }
        Ok(())
    }

    /// The `stage=F` of a `pl.pipeline`: an integer literal from 1 to 16 (each copy of the body
    /// has buffers of its own, so more copies than that cannot fit the on-chip memories).
    fn pipeline_stages(&mut self, e: &ast::Expr) -> R<u8> {
        let value = self.lower_expr(e)?.as_const_int();
        match value {
            Some(n @ 1..=16) => Ok(n as u8),
            _ => Err(Diagnostic::error(
                codes::BAD_LOOP,
                e.span,
                format!("`{}.pipeline(..., stage=F)` needs an integer literal F from 1 to 16", self.prefix),
            )),
        }
    }

    /// `for (a, b) in pl.while_(init_values=(x, y)):` whose body starts with `pl.cond(c)`.
    fn lower_ssa_while(
        &mut self,
        target: &ast::ForTarget,
        args: &[Arg],
        iter_span: Span,
        body: &[ast::Stmt],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let mut init_values = None;
        for a in args {
            match a {
                Arg::Keyword(k, e) if k.name == "init_values" => init_values = Some(e),
                other => {
                    return Err(Diagnostic::error(
                        codes::BAD_LOOP,
                        other.span(),
                        format!("`{}.while_` takes only `init_values=(...)`", self.prefix),
                    ))
                }
            }
        }
        if init_values.is_none() {
            return Err(Diagnostic::error(
                codes::BAD_LOOP,
                iter_span,
                format!("`{}.while_` needs `init_values=(...)`", self.prefix),
            ));
        }
        if let Some(v) = &target.var {
            return Err(Diagnostic::error(
                codes::BAD_LOOP,
                v.span,
                "a `while_` loop has no loop variable: write `for (a, b) in pl.while_(...)`",
            ));
        }
        let cond_ast = match body.first() {
            Some(ast::Stmt { kind: S::Expr(e), .. }) if self.is_form(e, "cond") => e,
            _ => {
                let at = body.first().map_or(span, |s| s.span);
                return Err(Diagnostic::error(
                    codes::BAD_LOOP,
                    at,
                    format!(
                        "the body of a `{}.while_` loop must start with `{}.cond(<condition>)`",
                        self.prefix, self.prefix
                    ),
                ));
            }
        };
        let inits = self.lower_init_values(target, init_values, iter_span)?;
        self.scopes.push();
        let iter_args = self.bind_iter_args(target, inits);
        let A::Call(_, cond_args) = &cond_ast.kind else { unreachable!("checked by is_form") };
        let cond = match cond_args.as_slice() {
            [Arg::Positional(c)] => self.lower_expr(c),
            _ => Err(Diagnostic::error(
                codes::BAD_LOOP,
                cond_ast.span,
                format!("`{}.cond` takes exactly one condition", self.prefix),
            )),
        };
        self.yield_frames.push(Vec::new());
        let body_stmts = self.lower_stmts(&body[1..]);
        let yields = self.yield_frames.pop().unwrap_or_default();
        self.scopes.pop();
        let cond = cond?;
        let return_vars = self.loop_return_vars(&iter_args, &yields, span)?;
        out.push(Stmt::While {
            cond: Box::new(cond),
            iter_args,
            body: Box::new(Stmt::block(body_stmts, span)),
            return_vars,
            span,
        });
        Ok(())
    }

    fn bad_iterator(&self, iter: &ast::Expr) -> Diagnostic {
        let p = &self.prefix;
        let d = Diagnostic::error(
            codes::BAD_LOOP,
            iter.span,
            format!("a for loop iterates over `{p}.range(...)`, `{p}.parallel(...)`, `{p}.pipeline(...)`, `{p}.unroll(...)` or `{p}.while_(...)`"),
        );
        // Python's own `range(...)` is the likely slip.
        match &iter.kind {
            A::Call(f, _) => match &f.kind {
                A::Name(n) if ["range", "parallel", "pipeline", "unroll", "while_"].contains(&n.as_str()) => {
                    d.with_note(format!("help: write `{p}.{n}(...)`"))
                }
                _ => d,
            },
            _ => d,
        }
    }

    /// Lowers `init_values=(...)` and checks it against the loop's tuple of iter-arg names.
    fn lower_init_values(
        &mut self,
        target: &ast::ForTarget,
        init: Option<&ast::Expr>,
        iter_span: Span,
    ) -> R<Vec<Expr>> {
        let names = target.tuple.as_deref().unwrap_or(&[]);
        let values = match init {
            None => Vec::new(),
            Some(e) => match &e.kind {
                A::Tuple(vals) | A::List(vals) => vals.iter().map(|v| self.lower_expr(v)).collect::<R<Vec<_>>>()?,
                _ => {
                    return Err(Diagnostic::error(
                        codes::BAD_LOOP,
                        e.span,
                        "`init_values` must be a tuple or list literal",
                    ))
                }
            },
        };
        if values.len() != names.len() {
            return Err(Diagnostic::error(
                codes::BAD_LOOP,
                init.map_or(iter_span, |e| e.span),
                format!(
                    "the loop names {} iteration argument(s) but gives {} initial value(s)",
                    names.len(),
                    values.len()
                ),
            )
            .with_secondary(target.span, "iteration arguments"));
        }
        Ok(values)
    }

    /// Creates the iter args (typed by their initial values, §7 Q19) and binds them.
    fn bind_iter_args(&mut self, target: &ast::ForTarget, inits: Vec<Expr>) -> Vec<VarId> {
        let names = target.tuple.as_deref().unwrap_or(&[]);
        names
            .iter()
            .zip(inits)
            .map(|(n, init)| {
                let init_ty = self.vars.type_of(&init).clone();
                // A declaration before the loop types the iter arg where its init value's type
                // and the MemRef plan would not (the printer writes one only then).
                let declared = self.declared.remove(n.name.as_str());
                let shown = declared.is_some();
                let ty = match declared {
                    Some((t, at)) => self.annotated_type(t, &init_ty, at),
                    None => init_ty,
                };
                let v = self.vars.new_var(n.name.as_str(), ty, VarKind::IterArg { init: Box::new(init) }, n.span);
                self.scopes.bind(&n.name, v);
                if !shown {
                    self.hidden_types.push(v);
                }
                v
            })
            .collect()
    }

    /// The return variables of a loop: named by its loop-level yield-assignment (or
    /// `<iter>_out` when it has none), typed by the yield's annotation or the iter arg.
    /// The names are bound after the loop.
    fn loop_return_vars(&mut self, iter_args: &[VarId], yields: &[YieldRecord], span: Span) -> R<Vec<VarId>> {
        let rec = yields.first();
        if let Some(rec) = rec {
            if rec.targets.len() != iter_args.len() {
                return Err(Diagnostic::error(
                    codes::BAD_YIELD,
                    rec.targets[0].span,
                    format!(
                        "the loop has {} iteration argument(s) but its yield assigns {} name(s)",
                        iter_args.len(),
                        rec.targets.len()
                    ),
                ));
            }
        }
        let mut out = Vec::new();
        for (i, &it) in iter_args.iter().enumerate() {
            let (name, name_span) = match rec {
                Some(r) => (r.targets[i].name.to_string(), r.targets[i].span),
                None => (format!("{}_out", self.vars.var_name(it)), span),
            };
            let declared = self.declared.remove(name.as_str());
            let annotation = rec.and_then(|r| r.annotation.clone().map(|t| (t, r.annotation_span))).or(declared);
            let shown = annotation.is_some();
            let iter_ty = self.vars.var_type(it).clone();
            if let Some(value) = rec.and_then(|r| r.value_types.get(i)) {
                self.check_carried_type(it, &iter_ty, value, name_span);
            }
            let ty = match annotation {
                Some((t, at)) => self.annotated_type(t, &iter_ty, at),
                None => iter_ty,
            };
            let v = self.vars.new_var(&name, ty, VarKind::Plain, name_span);
            if !shown {
                self.hidden_types.push(v);
            }
            if rec.is_some() {
                let reference_name = format!("{}_out", self.vars.var_name(it));
                self.authorship.loop_outs.push((v, reference_name));
            }
            out.push(v);
        }
        for &v in &out {
            let name = self.vars.var_name(v).to_string();
            self.scopes.bind(&name, v);
        }
        Ok(out)
    }
}

impl Lowerer {
    /// A loop-carried value keeps its type from one iteration to the next: the yielded value
    /// must have the iter arg's type (its initial value's). Printed IR keeps a disagreement for
    /// the verifier to report (TypeCheck, as the reference); in hand-written text it is the
    /// author's mistake (typically `cnt + 3` promoting an INT32 counter to INT64), reported at
    /// the yield.
    fn check_carried_type(&mut self, iter_arg: VarId, iter_ty: &Type, value: &Type, at: Span) {
        let Err(d) = super::annotation::merge(&self.vars, &self.vars, iter_ty, value) else { return };
        let shown = |t: &Type| crate::ops::fmt_type(&self.vars, t);
        let name = self.vars.var_name(iter_arg).to_string();
        let diag = Diagnostic::error(
            codes::BAD_YIELD,
            at,
            format!(
                "the yielded value's {} differs from the loop-carried `{name}`: `{name}` is {} (its initial value's type), but the yield gives {}",
                d.what(),
                shown(iter_ty),
                shown(value)
            ),
        )
        .with_note("help: make the yielded value the same type (e.g. `pl.cast(x, <dtype>)`), or start the loop from a value of the yielded type");
        self.authorship.mismatches.push(diag);
    }
}

impl Lowerer {
    /// A `break` or `continue` in a loop that carries values to its next iteration (explicit
    /// `init_values`, or a name defined before the loop and assigned in it) would skip the
    /// yield that carries them: after convert-to-ssa the next iteration would see the old values
    /// (a loop that never ends, or wrong results). Neither the IR nor the reference can express
    /// the jump with the values, so it is refused where it is written.
    fn check_jumps_keep_carried_values(&self, body: &[ast::Stmt], explicit: bool) -> R<()> {
        let Some(jump) = first_jump(body) else { return Ok(()) };
        let mut assigned = Vec::new();
        assigned_names(body, &mut assigned);
        let carried: Vec<&str> = assigned
            .iter()
            .map(|i| i.name.as_str())
            .filter(|n| self.scopes.lookup(n).is_some())
            .fold(Vec::new(), |mut v, n| {
                if !v.contains(&n) {
                    v.push(n);
                }
                v
            });
        if !explicit && carried.is_empty() {
            return Ok(());
        }
        let word = if matches!(jump.kind, S::Break) { "break" } else { "continue" };
        let what = if carried.is_empty() {
            "its iteration values".to_string()
        } else {
            carried.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        };
        Err(Diagnostic::error(
            codes::BAD_LOOP,
            jump.span,
            format!("`{word}` in a loop that carries {what} to the next iteration is not supported: the values it carries would not be updated"),
        )
        .with_note("help: restructure the body with `if`/`else` so that every iteration reaches its end"))
    }
}

/// The first `break` or `continue` of a loop body (not of a loop nested in it).
fn first_jump(stmts: &[ast::Stmt]) -> Option<&ast::Stmt> {
    stmts.iter().find_map(|s| match &s.kind {
        S::Break | S::Continue => Some(s),
        S::If { then_body, else_body, .. } => {
            first_jump(then_body).or_else(|| else_body.as_deref().and_then(first_jump))
        }
        S::With { body, .. } => first_jump(body),
        _ => None,
    })
}

/// Every name the statements assign, nested blocks included (not loop variables or iter args,
/// which are not visible after their loop).
fn assigned_names<'a>(stmts: &'a [ast::Stmt], out: &mut Vec<&'a ast::Ident>) {
    for s in stmts {
        match &s.kind {
            S::Assign { targets, .. } => out.extend(targets),
            S::AnnOnly { target, .. } => out.push(target),
            S::If { then_body, else_body, .. } => {
                assigned_names(then_body, out);
                assigned_names(else_body.as_deref().unwrap_or_default(), out);
            }
            S::For { body, .. } | S::While { body, .. } => assigned_names(body, out),
            S::With { as_name, body, .. } => {
                out.extend(as_name);
                assigned_names(body, out);
            }
            S::Expr(_) | S::Return(_) | S::Break | S::Continue | S::Pass => {}
        }
    }
}

/// The type an if's return var is annotated with: the annotation of a single-target yield
/// naming it.
fn yield_annotation(name: &str, then_y: &[YieldRecord], else_y: &[YieldRecord]) -> Option<(Type, Span)> {
    then_y.iter().chain(else_y).find_map(|r| {
        (r.targets.len() == 1 && r.targets[0].name == name)
            .then(|| r.annotation.clone().map(|t| (t, r.annotation_span)))
            .flatten()
    })
}

/// The type of an if's return var without an annotation: the then-branch value's type, else
/// the else-branch value's, else the reference's fallback `Tensor([1], INT32)`.
fn value_type(name: &str, then_y: &[YieldRecord], else_y: &[YieldRecord]) -> Type {
    for r in then_y.iter().chain(else_y) {
        if let Some(i) = r.targets.iter().position(|t| t.name == name) {
            if let Some(t) = r.value_types.get(i) {
                return t.clone();
            }
        }
    }
    Type::tensor(TensorType {
        dtype: DataType::Int32,
        shape: vec![Expr::int(1, DataType::Int64, Span::NONE)],
        memref: None,
        view: None,
    })
}

/// The MemRef described by a `block.alloc(space, addr, size, id)` call.
fn alloc_info(value: &Expr) -> Option<MemRefInfo> {
    let call = value.as_call()?;
    if !call.callee.is_op(crate::ops::id::ALLOC) || call.args.len() != 4 {
        return None;
    }
    let space = MemorySpace::from_index(call.args[0].as_const_int()?)?;
    let size = u64::try_from(call.args[2].as_const_int()?).ok()?;
    let id = u64::try_from(call.args[3].as_const_int()?).ok()?;
    Some(MemRefInfo { space, addr: call.args[1].clone(), size, id })
}
