//! `for` and `while` (spec §2.1 rules 4–5): names assigned in a loop body that already had a
//! version before the loop become new loop-carried values (iter_arg `c_iter_k`, return var
//! `c_k`), next to the loop's explicit iter_args.
//!
//! Deliberate deviation (spec §6 Q1): the reference lists a `for`'s return vars as new ones
//! first, then the explicit ones, while its iter_args and yield values list the explicit ones
//! first. ptoc uses iter_arg order for both loop kinds (explicit, then new).

use super::{trailing_yield, with_trailing_yield, Converter, Name};
use crate::ir::{Expr, Span, Stmt, VarId, VarKind};

/// The iter_args and return vars of one loop being converted.
struct Carried {
    /// Loop-carried names created by the pass, sorted by byte order.
    names: Vec<Name>,
    /// Explicit iter_args (with rewritten inits), then one new iter_arg per name.
    iter_args: Vec<VarId>,
    /// One new return var per name, in `names` order.
    new_return_vars: Vec<VarId>,
}

/// The name an iter_arg is registered under inside its loop: cut at the first `_iter`
/// (`acc_iter_1` → `acc`; an explicit iter_arg `acc` stays `acc`).
fn carried_base(name: &str) -> &str {
    name.find("_iter").map_or(name, |i| &name[..i])
}

impl Converter<'_> {
    /// Names assigned anywhere in `body` (assignment targets and nested `for` loop vars, through
    /// every nested statement), each once, in no particular order.
    fn assigned_names(&mut self, body: &Stmt) -> Vec<Name> {
        let mut names = Vec::new();
        let mut seen = Vec::new();
        self.collect_assigned(body, &mut names, &mut seen);
        names
    }

    fn collect_assigned(&mut self, s: &Stmt, names: &mut Vec<Name>, seen: &mut Vec<bool>) {
        let var = match s {
            Stmt::Assign { var, .. } => *var,
            Stmt::For { loop_var, body, .. } => {
                self.collect_assigned(body, names, seen);
                *loop_var
            }
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                stmts.iter().for_each(|c| self.collect_assigned(c, names, seen));
                return;
            }
            Stmt::If { then_body, else_body, .. } => {
                self.collect_assigned(then_body, names, seen);
                if let Some(e) = else_body {
                    self.collect_assigned(e, names, seen);
                }
                return;
            }
            Stmt::While { body, .. } | Stmt::Scope { body, .. } => {
                self.collect_assigned(body, names, seen);
                return;
            }
            Stmt::Yield { .. }
            | Stmt::Return { .. }
            | Stmt::Eval { .. }
            | Stmt::Break { .. }
            | Stmt::Continue { .. } => return,
        };
        let n = self.name(var);
        let i = n as usize;
        if i >= seen.len() {
            seen.resize(i + 1, false);
        }
        if !seen[i] {
            seen[i] = true;
            names.push(n);
        }
    }

    /// Rewrites the explicit iter_args' inits (outer scope) and creates the new loop-carried
    /// iter_args and return vars; the current versions are those on loop entry and `skip` a name
    /// (the loop var) never carried.
    fn plan_carried(&mut self, iter_args: &[VarId], body: &Stmt, skip: Option<Name>, span: Span) -> Carried {
        let mut new_iter_args = Vec::with_capacity(iter_args.len());
        let mut explicit = Vec::with_capacity(iter_args.len());
        for &ia in iter_args {
            let data = self.vars.var(ia).clone();
            let init = match data.kind {
                VarKind::IterArg { init } => VarKind::IterArg { init: Box::new(self.expr(*init)) },
                other => other,
            };
            new_iter_args.push(self.vars.new_var(data.name, data.ty, init, data.span));
            explicit.push(self.name(ia));
        }
        let mut names = self.assigned_names(body);
        names.retain(|n| Some(*n) != skip && !explicit.contains(n) && self.current.contains(*n));
        self.names.sort(&mut names);
        let mut new_return_vars = Vec::with_capacity(names.len());
        for &n in &names {
            let Some(init) = self.current.get(n) else { continue };
            let ty = self.vars.var_type(init).clone();
            let ia =
                self.fresh(n, "_iter_", ty.clone(), VarKind::IterArg { init: Box::new(Expr::var(init, span)) }, span);
            // A name bound on one path of an earlier `if` and reassigned in the loop: on loop
            // entry the iter_arg is that binding, so a read of it in the body before the body
            // reassigns it is the same error as a read of the binding.
            if let Some(u) = self.unbound.get(&n).copied().filter(|u| u.var == init) {
                self.unbound.insert(n, super::Unbound { var: ia, ..u });
            }
            new_iter_args.push(ia);
            new_return_vars.push(self.fresh(n, "_", ty, VarKind::Plain, span));
        }
        Carried { names, iter_args: new_iter_args, new_return_vars }
    }

    /// Makes every iter_arg the current version of its base name inside the loop. An explicit
    /// iter_arg is rebuilt with a new id (its init is rewritten), so the body's uses of it, which
    /// name it in full, must reach the new one too: `(out_iter,)` registers under `out` (the
    /// reference's rule) and under `out_iter`, else a use of `out_iter` would keep the old id,
    /// bound nowhere.
    fn register_iter_args(&mut self, carried: &Carried) {
        let explicit = carried.iter_args.len() - carried.names.len();
        for (k, &ia) in carried.iter_args.iter().enumerate() {
            let full = self.vars.var_name(ia).to_owned();
            let base = carried_base(&full);
            let n = self.names.intern(base);
            self.current.insert(n, ia);
            if k < explicit && base.len() != full.len() {
                let n = self.names.intern(&full);
                self.current.insert(n, ia);
            }
        }
    }

    /// After the body: the loop-carried names now mean the loop's return vars, and the body's
    /// trailing yield gets the carried values appended (or a yield is added).
    fn finish_carried(&mut self, carried: &Carried, body: Stmt, span: Span) -> Stmt {
        let mut values: Vec<Expr> = trailing_yield(&body).map(<[Expr]>::to_vec).unwrap_or_default();
        values.extend(carried.names.iter().filter_map(|n| self.current.get(*n)).map(|v| Expr::var(v, span)));
        for (n, rv) in carried.names.iter().zip(&carried.new_return_vars) {
            self.current.insert(*n, *rv);
        }
        if values.is_empty() {
            body
        } else {
            with_trailing_yield(body, values, span, true)
        }
    }

    pub(super) fn for_stmt(&mut self, s: Stmt) -> Stmt {
        let Stmt::For { loop_var, mut start, mut stop, mut step, iter_args, body, return_vars, kind, span } = s else {
            return s;
        };
        self.rename_in(&mut start);
        self.rename_in(&mut stop);
        self.rename_in(&mut step);
        let loop_name = self.name(loop_var);
        let carried = self.plan_carried(&iter_args, &body, Some(loop_name), span);
        let new_loop_var = self.version_of(loop_var, loop_name);
        self.current.insert(loop_name, new_loop_var);
        self.register_iter_args(&carried);
        let body = self.stmt(*body);
        let body = self.finish_carried(&carried, body, span);
        // Q1 fix: explicit return vars first, like the iter_args and yield values.
        let mut rvs = return_vars;
        rvs.extend(&carried.new_return_vars);
        Stmt::For {
            loop_var: new_loop_var,
            start,
            stop,
            step,
            iter_args: carried.iter_args,
            body: Box::new(body),
            return_vars: rvs,
            kind,
            span,
        }
    }

    pub(super) fn while_stmt(&mut self, s: Stmt) -> Stmt {
        let Stmt::While { mut cond, iter_args, body, return_vars, span } = s else {
            return s;
        };
        let carried = self.plan_carried(&iter_args, &body, None, span);
        self.register_iter_args(&carried);
        self.rename_in(&mut cond);
        let body = self.stmt(*body);
        let body = self.finish_carried(&carried, body, span);
        let mut rvs = return_vars;
        rvs.extend(&carried.new_return_vars);
        Stmt::While { cond, iter_args: carried.iter_args, body: Box::new(body), return_vars: rvs, span }
    }
}
