//! ConvertToSSA (spec `passes-and-codegen.md` §2.1): rename every definition so that each
//! variable is assigned once, and carry values out of loops and ifs through iter_args,
//! return_vars and yields.
//!
//! The pass is *name based*, like the reference: the version maps are keyed by the full
//! original name (no suffix stripping, so `tmp_0` and `tmp` are different bases) and a use is
//! rewritten to whatever variable currently carries its name. Version numbers come from one
//! counter per name per function, so the order in which definitions are created decides every
//! printed name; the submodules allocate them in exactly the reference's order.
//!
//! Two reference bugs are fixed here (spec §6):
//! * Q1 — a `for` with both explicit iter_args and new loop-carried names lists its return vars
//!   in iter_arg order (explicit first), as `while` already does ([`loops`]).
//! * Q2 — a name first defined in *both* branches of an `if` gets a phi return var, so a use
//!   after the `if` sees the branch that ran; and explicit return vars of an `if` that also
//!   gets phis keep their own yield values ([`branches`]).

mod branches;
mod loops;
mod names;

use crate::diag::Diagnostic;
use crate::ir::{Expr, ExprKind, Function, Param, Span, Stmt, Type, VarId, VarKind, VarTable};
use crate::passes::PassEnv;
use names::{Name, Names, Versions};

/// The pass on one function.
pub fn function(mut f: Function, _env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    let mut names = Names::new(f.vars.len());
    // Every definition gets a new version, so the table about doubles: grow it once.
    let mut vars = std::mem::take(&mut f.vars);
    vars.reserve(vars.len());
    let (f, errors) = Converter::new(&mut vars, &mut names).function(f);
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Function { vars, ..f })
}

/// A name bound on one path of an `if` only (and not a tensor written in place, which is its
/// destination on the other path, `analysis::one_path`): a use that still sees this binding is
/// an error.
#[derive(Clone, Copy)]
struct Unbound {
    /// The version the branch bound.
    var: VarId,
    /// The `if`.
    at: Span,
    /// Whether the name is bound in the then branch (so unbound when the condition is false).
    in_then: bool,
}

/// Per-function conversion state.
struct Converter<'p> {
    vars: &'p mut VarTable,
    names: &'p mut Names,
    /// Next version number per name.
    counter: Vec<u32>,
    current: Versions,
    /// Names bound on one path of an `if` only, by name.
    unbound: rustc_hash::FxHashMap<Name, Unbound>,
    /// By name: the end of the last read of a tensor of that name (0: none).
    tensor_read_at: Vec<u32>,
    errors: Vec<Diagnostic>,
}

impl<'p> Converter<'p> {
    fn new(vars: &'p mut VarTable, names: &'p mut Names) -> Self {
        Converter {
            vars,
            names,
            counter: Vec::new(),
            current: Versions::default(),
            unbound: Default::default(),
            tensor_read_at: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn function(mut self, f: Function) -> (Function, Vec<Diagnostic>) {
        // Where each tensor name is last read (the end of the read's span): a tensor stored
        // into on one path of an `if` gets a phi only if it is read after the `if` (one read
        // only inside its branch stays as the reference leaves it).
        let mut read = Vec::new();
        crate::ir::visit::walk_all_exprs(&f.body, &mut |e| {
            if let ExprKind::Var(v) = e.kind {
                if matches!(self.vars.var_type(v), Type::Tensor(_)) {
                    let n = self.names.of_var(self.vars, v) as usize;
                    if n >= read.len() {
                        read.resize(n + 1, 0);
                    }
                    read[n] = read[n].max(e.span.hi);
                }
            }
        });
        self.tensor_read_at = read;
        let params = f
            .params
            .iter()
            .map(|p| {
                let name = self.name(p.var);
                let var = self.version_of(p.var, name);
                self.current.insert(name, var);
                Param { var, direction: p.direction }
            })
            .collect();
        let body = self.stmt(f.body);
        (Function { params, body, ..f }, self.errors)
    }

    /// The interned name of `v`.
    fn name(&mut self, v: VarId) -> Name {
        self.names.of_var(self.vars, v)
    }

    /// The next version number of `base` (0 first).
    fn next(&mut self, base: Name) -> u32 {
        let i = base as usize;
        if i >= self.counter.len() {
            self.counter.resize(i + 1, 0);
        }
        self.counter[i] += 1;
        self.counter[i] - 1
    }

    /// A new variable named `<base><infix><next(base)>` (infix `_` or `_iter_`).
    fn fresh(&mut self, base: Name, infix: &str, ty: Type, kind: VarKind, span: Span) -> VarId {
        let k = self.next(base);
        let base = self.names.str(base);
        let mut name = String::with_capacity(base.len() + infix.len() + 10);
        name.push_str(base);
        name.push_str(infix);
        crate::text::push_u64(&mut name, u64::from(k));
        self.vars.new_var(name, ty, kind, span)
    }

    /// The next plain version of `base`, with the type and span of `original`.
    fn version_of(&mut self, original: VarId, base: Name) -> VarId {
        let data = self.vars.var(original);
        let (ty, span) = (data.ty.clone(), data.span);
        self.fresh(base, "_", ty, VarKind::Plain, span)
    }

    /// Rewrites every variable use in `e` to the current version of its name (names without a
    /// current version are left alone: globals of other scopes, explicit return vars, …).
    fn expr(&mut self, mut e: Expr) -> Expr {
        self.rename_in(&mut e);
        e
    }

    fn rename_in(&mut self, e: &mut Expr) {
        let span = e.span;
        match &mut e.kind {
            ExprKind::Var(v) => {
                let name = self.name(*v);
                let cur = self.current.get(name);
                if let Some(u) = self.unbound.get(&name).copied() {
                    if cur.is_none_or(|c| c == u.var) {
                        self.unbound_use(name, u, span);
                    }
                }
                if let Some(cur) = cur {
                    *v = cur;
                }
            }
            ExprKind::Call(c) => c.args.iter_mut().for_each(|a| self.rename_in(a)),
            ExprKind::MakeTuple(items) => items.iter_mut().for_each(|a| self.rename_in(a)),
            ExprKind::TupleGetItem(t, _) => self.rename_in(t),
            ExprKind::Binary(_, l, r) => {
                self.rename_in(l);
                self.rename_in(r);
            }
            ExprKind::Unary(_, x) => self.rename_in(x),
            ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => {}
        }
    }

    /// Rewrites the variables of a tile type's dynamic valid shape (a scalar extent) to their
    /// current versions, as in an expression; whether the type has such a valid shape.
    fn rename_in_type(&mut self, ty: &mut Type) -> bool {
        let Type::Tile(t) = ty else { return false };
        let dynamic = t.view.as_ref().is_some_and(|v| v.valid_shape.iter().any(|e| e.as_const_int().is_none()));
        if !dynamic {
            return false;
        }
        let t = std::sync::Arc::make_mut(t);
        if let Some(v) = t.view.as_mut() {
            for e in &mut v.valid_shape {
                self.rename_in(e);
            }
        }
        true
    }

    /// Rewrites one statement. Scopes, sequences and leaves are structural; a scope is
    /// transparent (definitions inside it stay visible after it).
    fn stmt(&mut self, s: Stmt) -> Stmt {
        match s {
            Stmt::Assign { var, mut value, span } => {
                self.rename_in(&mut value);
                self.rename_in_type(&mut value.ty);
                let name = self.name(var);
                let var = self.version_of(var, name);
                let mut ty = self.vars.var_type(var).clone();
                if self.rename_in_type(&mut ty) {
                    self.vars.var_mut(var).ty = ty;
                }
                self.current.insert(name, var);
                Stmt::Assign { var, value, span }
            }
            Stmt::Eval { mut expr, span } => {
                self.rename_in(&mut expr);
                Stmt::Eval { expr, span }
            }
            Stmt::Yield { mut values, span } => {
                values.iter_mut().for_each(|e| self.rename_in(e));
                Stmt::Yield { values, span }
            }
            Stmt::Return { mut values, span } => {
                values.iter_mut().for_each(|e| self.rename_in(e));
                Stmt::Return { values, span }
            }
            Stmt::Seq { stmts, span } => Stmt::Seq { stmts: self.stmts(stmts), span },
            Stmt::Ops { stmts, span } => Stmt::Ops { stmts: self.stmts(stmts), span },
            Stmt::Scope { kind, mut body, span } => {
                *body = self.stmt(std::mem::replace(&mut *body, Stmt::Break { span }));
                Stmt::Scope { kind, body, span }
            }
            Stmt::Break { .. } | Stmt::Continue { .. } => s,
            Stmt::For { .. } => self.for_stmt(s),
            Stmt::While { .. } => self.while_stmt(s),
            Stmt::If { .. } => self.if_stmt(s),
        }
    }

    /// The error for a use at `span` of `name`, which the `if` of `u` binds on one path only
    /// (reported once per name).
    fn unbound_use(&mut self, name: Name, u: Unbound, span: Span) {
        self.unbound.remove(&name);
        let n = self.names.str(name).to_string();
        let (bound, unbound) = if u.in_then { ("then", "false") } else { ("else", "true") };
        self.errors.push(
            Diagnostic::error(
                crate::diag::codes::UNBOUND_ON_PATH,
                span,
                format!("`{n}` has no value here when the condition of the `if` is {unbound}: only its {bound} branch assigns it"),
            )
            .with_secondary(u.at, "the `if`")
            .with_note(format!(
                "help: assign `{n}` before the `if` or in {}",
                if u.in_then { "an `else:` branch" } else { "the then branch" }
            )),
        );
    }

    fn stmts(&mut self, stmts: Vec<Stmt>) -> Vec<Stmt> {
        stmts.into_iter().map(|s| self.stmt(s)).collect()
    }
}

/// The values of the yield that ends `body`: `body` itself or the last element of a `SeqStmts`
/// (one level only, like the reference — a yield nested deeper is not a trailing yield here).
fn trailing_yield(body: &Stmt) -> Option<&[Expr]> {
    match body {
        Stmt::Yield { values, .. } => Some(values),
        Stmt::Seq { stmts, .. } => match stmts.last() {
            Some(Stmt::Yield { values, .. }) => Some(values),
            _ => None,
        },
        _ => None,
    }
}

/// Puts `yield values` at the end of `body`: replaces the last element of a `SeqStmts` when it
/// is a yield, else appends; a bare yield is replaced when `replace_bare`, otherwise (the
/// reference's `if` behaviour) it is kept and followed by the new one; any other single
/// statement becomes `SeqStmts[stmt, yield]`.
fn with_trailing_yield(body: Stmt, values: Vec<Expr>, span: Span, replace_bare: bool) -> Stmt {
    let y = Stmt::Yield { values, span };
    match body {
        Stmt::Seq { mut stmts, span: seq_span } => {
            if matches!(stmts.last(), Some(Stmt::Yield { .. })) {
                stmts.pop();
            }
            stmts.push(y);
            Stmt::Seq { stmts, span: seq_span }
        }
        Stmt::Yield { .. } if replace_bare => y,
        other => Stmt::Seq { stmts: vec![other, y], span },
    }
}

#[cfg(test)]
mod tests;
