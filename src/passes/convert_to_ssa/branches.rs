//! `if` (spec §2.1 rule 6): names whose version differs after either branch get a phi — a new
//! return var yielded by both branches.
//!
//! Deliberate deviations (spec §6 Q2):
//! * a name first defined in *both* branches (no version before the `if`) also gets a phi, so a
//!   use after the `if` sees the branch that ran (the reference binds it to the then version);
//! * when an `if` has explicit return vars *and* phis, each branch yields the phi values
//!   followed by its own values for the explicit return vars that are kept (the reference drops
//!   the explicit values, leaving more return vars than yielded values).
//!
//! Everything else is the reference's behaviour, including which branch-local names stay
//! visible after the `if`: without phis or return vars the then branch's versions; otherwise
//! the else branch's versions, then the phis.

use rustc_hash::FxHashMap;

use super::{trailing_yield, with_trailing_yield, Converter, Name, Names, Unbound, Versions};
use crate::analysis::one_path::written_outside;
use crate::ir::{Expr, Span, Stmt, VarId, VarKind};

/// The phi names, sorted by byte order: names defined before the `if` whose version changed in
/// either branch, and names new in both branches (Q2 fix; impossible without an else, since
/// `else_v` is then `before`).
fn phi_names(names: &Names, before: &Versions, then_v: &Versions, else_v: &Versions) -> Vec<Name> {
    let bound = then_v.bound().max(else_v.bound()) as Name;
    let mut phis: Vec<Name> = (0..bound)
        .filter(|&n| match (before.get(n), then_v.get(n), else_v.get(n)) {
            (Some(b), Some(t), e) => t != b || e.is_some_and(|e| e != b),
            (None, Some(_), e) => e.is_some(),
            (b, None, Some(e)) => b.is_some_and(|b| b != e),
            (_, None, None) => false,
        })
        .collect();
    names.sort(&mut phis);
    phis
}

impl Converter<'_> {
    pub(super) fn if_stmt(&mut self, s: Stmt) -> Stmt {
        let Stmt::If { mut cond, then_body, else_body, return_vars, span } = s else {
            return s;
        };
        self.rename_in(&mut cond);
        let before = self.current.clone();
        let then_body = self.stmt(*then_body);
        let then_v = std::mem::replace(&mut self.current, before.clone());
        let else_body = else_body.map(|e| self.stmt(*e));
        let else_v = self.current.clone();
        let mut phis = phi_names(self.names, &before, &then_v, &else_v);
        let fill = self.one_path_names(&before, &then_v, &else_v, &then_body, else_body.as_ref(), span);
        if !fill.is_empty() {
            phis.extend(fill.iter().map(|(n, _)| *n));
            self.names.sort(&mut phis);
        }
        let fill_of = |p: Name| fill.iter().find(|(n, _)| *n == p).map(|(_, v)| *v);

        if phis.is_empty() && return_vars.is_empty() {
            self.current = then_v;
            return Stmt::If {
                cond,
                then_body: Box::new(then_body),
                else_body: else_body.map(Box::new),
                return_vars,
                span,
            };
        }

        let mut rvs = Vec::with_capacity(phis.len() + return_vars.len());
        let (mut then_vals, mut else_vals) = (Vec::new(), Vec::new());
        for &p in &phis {
            let (Some(tv), Some(ev)) =
                (then_v.get(p).or(before.get(p)).or(fill_of(p)), else_v.get(p).or(before.get(p)).or(fill_of(p)))
            else {
                continue;
            };
            let ty = self.vars.var_type(tv).clone();
            let rv = self.fresh(p, "_", ty, VarKind::Plain, span);
            rvs.push(rv);
            then_vals.push(Expr::var(tv, span));
            else_vals.push(Expr::var(ev, span));
            self.current.insert(p, rv);
        }
        // Explicit return vars not replaced by a phi are versioned; `kept[j]` tells whether the
        // j-th explicit return var (and so the j-th value of each branch's yield) survives.
        let mut kept = Vec::with_capacity(return_vars.len());
        for &r in &return_vars {
            let name = self.name(r);
            let keep = !phis.contains(&name);
            if keep {
                let v = self.version_of(r, name);
                rvs.push(v);
                self.current.insert(name, v);
            }
            kept.push(keep);
        }

        let (then_body, else_body) = if phis.is_empty() {
            (then_body, else_body.unwrap_or(Stmt::Yield { values: Vec::new(), span }))
        } else {
            let fix = !return_vars.is_empty();
            then_vals.extend(kept_values(&then_body, &kept));
            let then_body = with_trailing_yield(then_body, then_vals, span, fix);
            let else_body = match else_body {
                Some(e) => {
                    else_vals.extend(kept_values(&e, &kept));
                    with_trailing_yield(e, else_vals, span, fix)
                }
                None => Stmt::Yield { values: else_vals, span },
            };
            (then_body, else_body)
        };
        Stmt::If { cond, then_body: Box::new(then_body), else_body: Some(Box::new(else_body)), return_vars: rvs, span }
    }
}

impl Converter<'_> {
    /// The names new in one branch of the `if` at `span` only. Those whose value is a tensor
    /// defined before the `if`, written in place (`analysis::one_path`), are returned with that
    /// tensor, their value on the other path (they get a phi); the others are recorded as
    /// unbound on the other path, an error where they are used.
    fn one_path_names(
        &mut self,
        before: &Versions,
        then_v: &Versions,
        else_v: &Versions,
        then_body: &Stmt,
        else_body: Option<&Stmt>,
        span: Span,
    ) -> Vec<(Name, VarId)> {
        let bound = then_v.bound().max(else_v.bound()) as Name;
        let mut fill = Vec::new();
        let mut roots: [Option<FxHashMap<VarId, VarId>>; 2] = [None, None];
        for n in 0..bound {
            let (var, in_then) = match (before.get(n), then_v.get(n), else_v.get(n)) {
                (None, Some(t), None) => (t, true),
                (None, None, Some(e)) => (e, false),
                _ => continue,
            };
            // A tensor not read after the `if` (by the text's order; IR without source spans
            // counts as read) needs no phi, and the reference has none.
            let read_at = self.tensor_read_at.get(n as usize).copied().unwrap_or(0);
            if read_at <= span.hi && span.hi != 0 {
                self.unbound.insert(n, Unbound { var, at: span, in_then });
                continue;
            }
            let branch = if in_then { Some(then_body) } else { else_body };
            let slot = &mut roots[usize::from(!in_then)];
            let roots = slot.get_or_insert_with(|| branch.map(|b| written_outside(b, self.vars)).unwrap_or_default());
            let root = roots.get(&var).copied();
            match root {
                // `r` is a version visible before the `if` (a version's own name is not its
                // base name, so the map is searched by value).
                Some(r) if (0..before.bound() as Name).any(|b| before.get(b) == Some(r)) => fill.push((n, r)),
                _ => {
                    self.unbound.insert(n, Unbound { var, at: span, in_then });
                }
            }
        }
        fill
    }
}

/// A branch's own yield values for the explicit return vars that are kept (Q2 fix).
fn kept_values(branch: &Stmt, kept: &[bool]) -> Vec<Expr> {
    let values = trailing_yield(branch).unwrap_or_default();
    values.iter().zip(kept).filter(|(_, k)| **k).map(|(v, _)| v.clone()).collect()
}
