//! ConvertTensorToBlockOps (spec `passes-and-codegen.md` §2.7): inside InCore functions,
//! tensor ops become block ops on tiles loaded from the tensor parameters, and tile results are
//! stored into new `Out` parameters that the callers allocate with `tensor.create`.
//!
//! The tensor→block table is the operator table's [`OpDef::block_form`] column, shared with the
//! IncoreBlockOps verifier ([`ops::block_form`]).
//!
//! ptoc extends the reference in four ways, none of which changes a program the reference's
//! tests convert: an InCore function with no tensor op to convert is left as it is (the
//! reference prepends loads of every tensor parameter to it), which lets the default pipeline
//! run the pass after outline-incore-scopes; so is an InCore function that calls a function or
//! is called by an InCore function (nested `with pl.incore():` scopes), since the reference
//! does not update such calls (spec §6 Q4: the call would be left with a tile argument and
//! without the callee's new `Out` parameters, a program that does not type-check); `tensor.assemble(target, source, offsets)` of a
//! converted source becomes `block.store(source, offsets, [source shape], target)`, the store
//! the outlined body of `with pl.incore():` means by it; and a tensor parameter only written so
//! (directly or through a loop's iter arg) is not loaded.
//!
//! Reproduced reference behaviour (spec §6 Q4): the `out_<i>` names restart at 0 for every call
//! site.
//!
//! [`OpDef::block_form`]: crate::ops::OpDef::block_form

use std::collections::BTreeMap;

use super::outline_incore_scopes::rename_expr;
use super::PassEnv;
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::visit::last_stmt;
use crate::ir::{
    Call, Callee, DataType, Expr, ExprKind, Function, FunctionType, KwValue, MemorySpace, OpId, Param, ParamDirection,
    Program, Stmt, Type, VarId, VarKind, VarTable,
};
use crate::ops::{self, block_form};

/// The pass entry point (registered as `convert-tensor-to-block-ops`).
pub fn run(prog: Program, _env: &PassEnv) -> Result<Program, Vec<Diagnostic>> {
    let mut out = prog;
    let mut functions = std::mem::take(&mut out.functions);
    let mut gained = BTreeMap::new();
    let nested = nested_incore(&functions);
    let convertible =
        |f: &Function| f.kind == FunctionType::InCore && !nested.contains(&f.name) && has_convertible_op(&f.body);
    for f in functions.iter_mut().filter(|f| convertible(f)) {
        if let Some(sig) = convert_incore(f).map_err(|d| vec![d])? {
            gained.insert(f.name.clone(), sig);
        }
    }
    // With no function gaining `Out` parameters, phase 2 would rewrite no call.
    for f in functions.iter_mut().filter(|f| f.kind != FunctionType::InCore && !gained.is_empty()) {
        let mut rw = Rewriter::new(&mut f.vars, Mode::Caller(&gained));
        f.body = Stmt::block(rw.stmt_list(&f.body).map_err(|d| vec![d])?, f.body.span());
    }
    out.functions = functions;
    Ok(out)
}

/// Whether `body` has a tensor op this pass converts (one with a block form, or `tensor.assemble`).
fn has_convertible_op(body: &Stmt) -> bool {
    let mut found = false;
    crate::ir::visit::walk_all_exprs(body, &mut |e| {
        if let Some(Call { callee: Callee::Op(op), .. }) = e.as_call() {
            found |= *op == ops::id::TENSOR_ASSEMBLE || block_form(*op).is_some();
        }
    });
    found
}

/// The InCore functions that call a function or are called by an InCore function.
fn nested_incore(functions: &[Function]) -> std::collections::BTreeSet<String> {
    let mut nested = std::collections::BTreeSet::new();
    for f in functions.iter().filter(|f| f.kind == FunctionType::InCore) {
        crate::ir::visit::walk_all_exprs(&f.body, &mut |e| {
            if let Some(Call { callee: Callee::Function(g), .. }) = e.as_call() {
                nested.insert(f.name.clone());
                nested.insert(g.clone());
            }
        });
    }
    nested
}

/// The variables only written through `tensor.assemble` in `body`: each use is as the target
/// (first argument) of an assemble, or as the init of a loop's iter arg that is itself only
/// written so (`out = pl.assemble(out, t, [i * 8, 0])` in a loop).
fn written_only(body: &Stmt, vars: &VarTable) -> std::collections::BTreeSet<VarId> {
    use std::collections::BTreeSet;
    let mut candidates = BTreeSet::new();
    let mut other = BTreeSet::new();
    let mut inits: Vec<(VarId, VarId)> = Vec::new();
    crate::ir::visit::walk_stmts(body, &mut |s| {
        for e in crate::ir::visit::stmt_exprs(s) {
            let mut rest: Vec<&Expr> = vec![e];
            if let Some(c) = e.as_call().filter(|c| c.callee == Callee::Op(ops::id::TENSOR_ASSEMBLE)) {
                if let Some(t) = c.args.first().and_then(Expr::as_var) {
                    candidates.insert(t);
                    rest = c.args[1..].iter().collect();
                }
            }
            for r in rest {
                crate::ir::visit::for_each_var(r, &mut |v| {
                    other.insert(v);
                });
            }
        }
        if let Stmt::For { iter_args, .. } | Stmt::While { iter_args, .. } = s {
            for &a in iter_args {
                if let VarKind::IterArg { init } = &vars.var(a).kind {
                    match init.as_var() {
                        Some(v) => {
                            candidates.insert(v);
                            inits.push((v, a));
                        }
                        None => crate::ir::visit::for_each_var(init, &mut |v| {
                            other.insert(v);
                        }),
                    }
                }
            }
        }
    });
    candidates.retain(|v| !other.contains(v));
    // An init stays only while the iter arg it starts does.
    loop {
        let dropped: Vec<VarId> =
            inits.iter().filter(|(v, a)| candidates.contains(v) && !candidates.contains(a)).map(|(v, _)| *v).collect();
        if dropped.is_empty() {
            break;
        }
        for v in dropped {
            candidates.remove(&v);
        }
    }
    candidates
}

/// What callers of a converted InCore function must now pass and expect.
struct Gained {
    /// Types of the added `Out` parameters, in order.
    out_types: Vec<Type>,
    /// The function's new return types.
    return_types: Vec<Type>,
    /// The function's variables, which these types are written in: a copy when they name any
    /// (symbolic dims), else empty.
    vars: VarTable,
}

/// Phase 1 on one InCore function; returns its new signature when it gained `Out` params.
fn convert_incore(f: &mut Function) -> Result<Option<Gained>, Diagnostic> {
    let span = f.span;
    let mut stmts = match &f.body {
        Stmt::Seq { stmts, .. } => stmts.clone(),
        other => vec![other.clone()],
    };
    // A function without results (an outlined scope whose values nobody reads) may end
    // without a return; the reference requires one.
    let (values, ret_span, returns) = match stmts.last() {
        Some(Stmt::Return { values, span }) => (values.clone(), *span, true),
        _ if f.return_types.is_empty() => (Vec::new(), span, false),
        _ => {
            return Err(Diagnostic::error(
                codes::MISSING_RETURN,
                span,
                format!("InCore function '{}' does not end with a return statement", f.name),
            ))
        }
    };
    if returns {
        stmts.pop();
    }

    let written_only = written_only(&f.body, &f.vars);
    let mut rw = Rewriter::new(&mut f.vars, Mode::InCore);
    let mut body = Vec::new();
    for p in &f.params {
        let Type::Tensor(t) = rw.vars.var_type(p.var).clone() else { continue };
        if written_only.contains(&p.var) {
            continue;
        }
        let args = vec![Expr::var(p.var, span), zeros(t.shape.len(), span), rw.dims(&t.shape, span)];
        let kwargs = vec![("target_memory", KwValue::Space(MemorySpace::Vec))];
        let load = rw.typed_call(ops::id::LOAD, args, kwargs, span)?;
        let name = format!("{}_tile", rw.vars.var_name(p.var));
        let tile = rw.define(p.var, name, load, span, &mut body);
        rw.map.insert(p.var, tile);
        rw.loaded.insert(p.var);
    }
    for s in &stmts {
        rw.stmt(s, &mut body)?;
    }

    let mut return_values = Vec::new();
    let mut return_types = Vec::new();
    let mut out_types = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let value = rw.subst(v);
        let Type::Tile(tile) = rw.vars.type_of(&value).clone() else {
            return_types.push(f.return_types.get(i).cloned().unwrap_or_else(|| rw.vars.type_of(&value).clone()));
            return_values.push(value);
            continue;
        };
        let Some(out_ty) = f.return_types.get(i).cloned() else {
            return Err(Diagnostic::error(
                codes::RETURN_MISMATCH,
                ret_span,
                format!("InCore function '{}' returns more values than its return types", f.name),
            ));
        };
        let name = format!("out_{}", out_types.len());
        let param = rw.vars.new_var(name.clone(), out_ty.clone(), VarKind::Plain, ret_span);
        f.params.push(Param { var: param, direction: ParamDirection::Out });
        out_types.push(out_ty);
        let args =
            vec![value, zeros(tile.shape.len(), ret_span), rw.dims(&tile.shape, ret_span), Expr::var(param, ret_span)];
        let store = rw.typed_call(ops::id::STORE, args, Vec::new(), ret_span)?;
        let ty = store.ty.clone();
        let stored = rw.vars.new_var(name, ty.clone(), VarKind::Plain, ret_span);
        body.push(Stmt::Assign { var: stored, value: store, span: ret_span });
        return_values.push(Expr::var(stored, ret_span));
        return_types.push(ty);
    }
    if returns {
        body.push(Stmt::Return { values: return_values, span: ret_span });
    }
    f.body = Stmt::block(body, f.body.span());
    f.return_types = return_types.clone();
    if out_types.is_empty() {
        return Ok(None);
    }
    let vars = if out_types.iter().chain(&return_types).any(crate::ir::import::names_vars) {
        f.vars.clone()
    } else {
        VarTable::new()
    };
    Ok(Some(Gained { out_types, return_types, vars }))
}

/// `n` integer zeros as a list (offsets of a whole-tensor load or store).
fn zeros(n: usize, span: Span) -> Expr {
    let items: Vec<Expr> = (0..n).map(|_| Expr::int(0, DataType::Int64, span)).collect();
    let ty = Type::Tuple(vec![Type::Scalar(DataType::Int64); n]);
    Expr::new(ExprKind::MakeTuple(items), ty, span)
}

/// Which functions are being rewritten.
#[derive(Clone, Copy)]
enum Mode<'g> {
    /// Phase 1: convertible tensor ops become block ops.
    InCore,
    /// Phase 2: calls of InCore functions that gained `Out` params get them allocated.
    Caller(&'g BTreeMap<String, Gained>),
}

/// Rewrites statements, substituting variables that were converted or re-typed.
struct Rewriter<'p, 'g> {
    /// The variables of the function being rewritten.
    vars: &'p mut VarTable,
    mode: Mode<'g>,
    /// Old variable → the variable that now holds its value.
    map: BTreeMap<VarId, VarId>,
    /// Stand-ins for the variables named by the types of each converted callee.
    imported: BTreeMap<String, crate::ir::import::Imported>,
    /// The tensor parameters loaded into tiles (phase 1): still the tensors a store writes.
    loaded: std::collections::BTreeSet<VarId>,
    /// Nested calls converted so far ([`Rewriter::hoist_nested`]), for their names.
    hoisted: usize,
}

impl<'p, 'g> Rewriter<'p, 'g> {
    fn new(vars: &'p mut VarTable, mode: Mode<'g>) -> Self {
        Rewriter { vars, mode, map: BTreeMap::new(), imported: BTreeMap::new(), loaded: Default::default(), hoisted: 0 }
    }

    fn subst(&self, e: &Expr) -> Expr {
        rename_expr(e, &self.map)
    }

    /// The rewritten statements of `s` (a sequence is flattened one level).
    fn stmt_list(&mut self, s: &Stmt) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::new();
        match s {
            Stmt::Seq { stmts, .. } => {
                for c in stmts {
                    self.stmt(c, &mut out)?;
                }
            }
            _ => self.stmt(s, &mut out)?,
        }
        Ok(out)
    }

    /// A rewritten body: one statement, or a sequence.
    fn body(&mut self, s: &Stmt) -> Result<Box<Stmt>, Diagnostic> {
        Ok(Box::new(Stmt::block(self.stmt_list(s)?, s.span())))
    }

    fn stmt(&mut self, s: &Stmt, out: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        match s {
            Stmt::Assign { var, value, span } => self.assign(*var, value, *span, out)?,
            Stmt::Eval { expr, span } => out.push(Stmt::Eval { expr: self.subst(expr), span: *span }),
            Stmt::Yield { values, span } => {
                out.push(Stmt::Yield { values: values.iter().map(|v| self.subst(v)).collect(), span: *span })
            }
            Stmt::Return { values, span } => {
                out.push(Stmt::Return { values: values.iter().map(|v| self.subst(v)).collect(), span: *span })
            }
            Stmt::Seq { stmts, span } => {
                let mut inner = Vec::new();
                for c in stmts {
                    self.stmt(c, &mut inner)?;
                }
                out.push(Stmt::Seq { stmts: inner, span: *span });
            }
            Stmt::Ops { stmts, span } => {
                let mut inner = Vec::new();
                for c in stmts {
                    self.stmt(c, &mut inner)?;
                }
                out.push(Stmt::Ops { stmts: inner, span: *span });
            }
            Stmt::Scope { kind, body, span } => {
                out.push(Stmt::Scope { kind: *kind, body: self.body(body)?, span: *span })
            }
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                let cond = self.subst(cond);
                let saved = self.map.clone();
                let then_body = self.body(then_body)?;
                self.map = saved.clone();
                let else_body = match else_body {
                    Some(e) => Some(self.body(e)?),
                    None => None,
                };
                self.map = saved;
                // Return vars take the then-branch yield types (else-branch if then has none).
                let yielded = |b: &Stmt| match last_stmt(b) {
                    Stmt::Yield { values, .. } => Some(values.clone()),
                    _ => None,
                };
                let types: Vec<Type> = yielded(&then_body)
                    .or_else(|| else_body.as_deref().and_then(yielded))
                    .map(|vs| vs.iter().map(|v| self.vars.type_of(v).clone()).collect())
                    .unwrap_or_default();
                let return_vars = self.retype_all(return_vars, &types);
                out.push(Stmt::If { cond: Box::new(cond), then_body, else_body, return_vars, span: *span });
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, span } => {
                let (start, stop, step) = (self.subst(start), self.subst(stop), self.subst(step));
                let saved = self.map.clone();
                let iter_args = self.iter_args(iter_args, &saved);
                let body = self.body(body)?;
                self.map = saved;
                let types: Vec<Type> = iter_args.iter().map(|v| self.vars.var_type(*v).clone()).collect();
                let return_vars = self.retype_all(return_vars, &types);
                out.push(Stmt::For {
                    loop_var: *loop_var,
                    start: Box::new(start),
                    stop: Box::new(stop),
                    step: Box::new(step),
                    iter_args,
                    body,
                    return_vars,
                    kind: *kind,
                    span: *span,
                });
            }
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                let saved = self.map.clone();
                let iter_args = self.iter_args(iter_args, &saved);
                let cond = self.subst(cond);
                let body = self.body(body)?;
                self.map = saved;
                let types: Vec<Type> = iter_args.iter().map(|v| self.vars.var_type(*v).clone()).collect();
                let return_vars = self.retype_all(return_vars, &types);
                out.push(Stmt::While { cond: Box::new(cond), iter_args, body, return_vars, span: *span });
            }
            Stmt::Break { .. } | Stmt::Continue { .. } => out.push(s.clone()),
        }
        Ok(())
    }

    /// The loop's iter args with their inits substituted (evaluated in the `outer` map); one
    /// whose init changed is re-created with the init's type and mapped inside the loop.
    fn iter_args(&mut self, iter_args: &[VarId], outer: &BTreeMap<VarId, VarId>) -> Vec<VarId> {
        let mut result = Vec::with_capacity(iter_args.len());
        for &ia in iter_args {
            let d = self.vars.var(ia).clone();
            let VarKind::IterArg { init } = &d.kind else {
                result.push(ia);
                continue;
            };
            let new_init = rename_expr(init, outer);
            if new_init == **init {
                // An unchanged iter arg shadows any outer mapping.
                self.map.remove(&ia);
                result.push(ia);
                continue;
            }
            let ty = self.vars.type_of(&new_init).clone();
            let v = self.vars.new_var(d.name, ty, VarKind::IterArg { init: Box::new(new_init) }, d.span);
            self.map.insert(ia, v);
            result.push(v);
        }
        result
    }

    /// Return vars re-typed to `types` (index-wise); changed ones are re-created and mapped.
    fn retype_all(&mut self, vars: &[VarId], types: &[Type]) -> Vec<VarId> {
        vars.iter()
            .enumerate()
            .map(|(i, &v)| match types.get(i) {
                Some(t) if t != self.vars.var_type(v) => {
                    let d = self.vars.var(v).clone();
                    let nv = self.vars.new_var(d.name, t.clone(), d.kind, d.span);
                    self.map.insert(v, nv);
                    nv
                }
                _ => v,
            })
            .collect()
    }

    fn assign(&mut self, var: VarId, value: &Expr, span: Span, out: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        let hoisted;
        let value = match self.mode {
            Mode::InCore => {
                hoisted = self.hoist_nested(value, var, span, out)?;
                &hoisted
            }
            Mode::Caller(_) => value,
        };
        let call = value.as_call();
        match (self.mode, call.map(|c| &c.callee)) {
            (Mode::InCore, Some(Callee::Op(op))) if *op == ops::id::TENSOR_ASSEMBLE => {
                let c = call.expect("matched a call");
                if let Some(store) = self.assemble_as_store(c, value.span)? {
                    self.assign_retyped(var, store, span, out);
                    return Ok(());
                }
            }
            (Mode::InCore, Some(Callee::Op(op))) => {
                if let Some(block_op) = block_form(*op) {
                    let c = call.expect("matched a call");
                    let args: Vec<Expr> = c.args.iter().map(|a| self.subst(a)).collect();
                    let converted = self.typed_call(block_op, args, c.kwargs.clone(), value.span)?;
                    let name = format!("{}_tile", self.vars.var_name(var));
                    let tile = self.define(var, name, converted, span, out);
                    self.map.insert(var, tile);
                    return Ok(());
                }
            }
            (Mode::Caller(gained), Some(Callee::Function(g))) => {
                if let Some(sig) = gained.get(g) {
                    let c = call.expect("matched a call");
                    let mut args: Vec<Expr> = c.args.iter().map(|a| self.subst(a)).collect();
                    let memo = self.imported.entry(g.clone()).or_default();
                    let out_types: Vec<Type> =
                        sig.out_types.iter().map(|t| self.vars.import_type(&sig.vars, t, memo)).collect();
                    let return_types: Vec<Type> =
                        sig.return_types.iter().map(|t| self.vars.import_type(&sig.vars, t, memo)).collect();
                    for (i, ty) in out_types.iter().enumerate() {
                        let created = self.create_like(ty, value.span)?;
                        let v = self.define(var, format!("out_{i}"), created, span, out);
                        args.push(Expr::var(v, span));
                    }
                    let ty = match return_types.as_slice() {
                        [] => Type::Unknown,
                        [t] => t.clone(),
                        ts => Type::Tuple(ts.to_vec()),
                    };
                    let call = Call { callee: c.callee.clone(), args, kwargs: Vec::new() };
                    let new_value = Expr::new(ExprKind::Call(Box::new(call)), ty, value.span);
                    self.assign_retyped(var, new_value, span, out);
                    return Ok(());
                }
            }
            _ => {}
        }
        let new_value = self.subst(value);
        if new_value == *value {
            out.push(Stmt::Assign { var, value: new_value, span });
        } else {
            self.assign_retyped(var, new_value, span, out);
        }
        Ok(())
    }

    /// `value` with every convertible tensor op among its call's arguments (at any depth)
    /// converted into a tile of its own, defined before the statement (`pl.assemble(out,
    /// pl.add(a, 3.0), [0, 0])` as PyPTO writes it): flatten-call-expr, which would bind such a
    /// call to a name, runs after this pass, so a nested tensor op would otherwise stay a
    /// tensor op in the kernel, which has no C++ form. Arguments that are no convertible call
    /// are left as they are.
    fn hoist_nested(&mut self, value: &Expr, var: VarId, span: Span, out: &mut Vec<Stmt>) -> Result<Expr, Diagnostic> {
        let Some(c) = value.as_call() else { return Ok(value.clone()) };
        let mut args = Vec::with_capacity(c.args.len());
        let mut changed = false;
        for a in &c.args {
            let Some(block_op) = a.as_call().and_then(|ac| ac.callee.op()).and_then(block_form) else {
                args.push(a.clone());
                continue;
            };
            let inner = self.hoist_nested(a, var, span, out)?;
            let ic = inner.as_call().expect("a convertible call stays a call");
            let inner_args: Vec<Expr> = ic.args.iter().map(|x| self.subst(x)).collect();
            let converted = self.typed_call(block_op, inner_args, ic.kwargs.clone(), a.span)?;
            self.hoisted += 1;
            let name = format!("{}_arg{}_tile", self.vars.var_name(var), self.hoisted);
            let t = self.define(var, name, converted, span, out);
            args.push(Expr::var(t, a.span));
            changed = true;
        }
        if !changed {
            return Ok(value.clone());
        }
        let ty = self.vars.type_of(value).clone();
        let call = Call { callee: c.callee.clone(), args, kwargs: c.kwargs.clone() };
        Ok(Expr::new(ExprKind::Call(Box::new(call)), ty, value.span))
    }

    /// `tensor.assemble(target, source, offsets)` as `block.store(source, offsets, [source
    /// shape], target)` when the source is now a tile; `None` (left as it is) when it is not.
    fn assemble_as_store(&self, c: &Call, span: Span) -> Result<Option<Expr>, Diagnostic> {
        let [target, source, offsets] = c.args.as_slice() else { return Ok(None) };
        let source = self.subst(source);
        let Type::Tile(tile) = self.vars.type_of(&source).clone() else { return Ok(None) };
        // The tensor written: the target as it is now, or, when that became a tile (a loaded
        // parameter), the parameter itself.
        let now = self.subst(target);
        let is_loaded = target.as_var().is_some_and(|v| self.loaded.contains(&v));
        let target = if matches!(self.vars.type_of(&now), Type::Tensor(_)) {
            now
        } else if is_loaded {
            target.clone()
        } else {
            return Err(Diagnostic::error(
                codes::OP_CHECK,
                span,
                "cannot convert 'tensor.assemble' in an InCore function: its target is not a tensor here; store the tile with pl.store(tile, offsets, shape, tensor)",
            ));
        };
        let args = vec![source, self.subst(offsets), self.dims(&tile.shape, span), target];
        self.typed_call(ops::id::STORE, args, Vec::new(), span).map(Some)
    }

    /// `var = value`, with `var` re-created under the same name when the value's type differs.
    fn assign_retyped(&mut self, var: VarId, value: Expr, span: Span, out: &mut Vec<Stmt>) {
        if self.vars.type_of(&value) == self.vars.var_type(var) {
            out.push(Stmt::Assign { var, value, span });
        } else {
            let name = self.vars.var_name(var).to_string();
            let v = self.define(var, name, value, span, out);
            self.map.insert(var, v);
        }
    }

    /// Emits `name = value` with a new variable of the value's type (span and kind from `like`).
    fn define(&mut self, like: VarId, name: String, value: Expr, span: Span, out: &mut Vec<Stmt>) -> VarId {
        let ty = self.vars.type_of(&value).clone();
        let vspan = self.vars.var(like).span;
        let v = self.vars.new_var(name, ty, VarKind::Plain, vspan);
        out.push(Stmt::Assign { var: v, value, span });
        v
    }

    /// `tensor.create([dims], dtype=D)` for a tensor type.
    fn create_like(&mut self, ty: &Type, span: Span) -> Result<Expr, Diagnostic> {
        let Type::Tensor(t) = ty else {
            return Err(Diagnostic::error(codes::BAD_PARAM, span, "an Out parameter is not a tensor"));
        };
        let args = vec![self.dims(&t.shape, span)];
        let kwargs = vec![("dtype", KwValue::DType(t.dtype))];
        self.typed_call(ops::id::TENSOR_CREATE, args, kwargs, span)
    }

    /// A shape as a list expression.
    fn dims(&self, shape: &[Expr], span: Span) -> Expr {
        let ty = Type::Tuple(shape.iter().map(|d| self.vars.type_of(d).clone()).collect());
        Expr::new(ExprKind::MakeTuple(shape.to_vec()), ty, span)
    }

    /// A call of `op` with its deduced result type.
    fn typed_call(
        &self,
        op: OpId,
        args: Vec<Expr>,
        kwargs: Vec<(&'static str, KwValue)>,
        span: Span,
    ) -> Result<Expr, Diagnostic> {
        let ty = ops::deduce_type(self.vars, op, &args, &kwargs).map_err(|m| {
            Diagnostic::error(codes::OP_CHECK, span, format!("cannot convert to '{}': {m}", ops::name(op)))
        })?;
        let call = Call { callee: Callee::Op(op), args, kwargs };
        Ok(Expr::new(ExprKind::Call(Box::new(call)), ty, span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Category;

    #[test]
    fn conversion_table_names_block_ops() {
        let mut n = 0;
        for (id, def) in ops::table::entries() {
            if let Some(b) = def.block_form {
                assert_eq!(def.category, Category::Tensor, "{}", def.name);
                let target = ops::lookup(b).unwrap_or_else(|| panic!("{b} is not registered"));
                assert_eq!(ops::def(target).category, Category::Block, "{b}");
                assert_eq!(block_form(id), Some(target));
                n += 1;
            }
        }
        assert_eq!(n, 13, "the §2.7 table has 13 rows");
        let add_scalar = ops::lookup("tensor.add_scalar").unwrap();
        assert_eq!(block_form(add_scalar).map(ops::name), Some("block.adds"));
        assert_eq!(block_form(ops::lookup("tensor.matmul").unwrap()), None);
        assert_eq!(block_form(ops::lookup("block.add").unwrap()), None);
    }

    #[test]
    fn output_reads_back_as_the_same_program() {
        let src = "# pypto.program: C\nimport pypto.language as pl\n\n@pl.program\nclass C:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, x: pl.Tensor[[16, 32], pl.FP16], n: pl.Scalar[pl.INT64]) -> pl.Tensor[[16, 32], pl.FP32]:\n        c: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.cast(x, target_type=pl.FP32)\n        for i, (acc,) in pl.range(0, n, 1, init_values=(c,)):\n            d: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.mul(acc, 2.0)\n            r: pl.Tensor[[16, 32], pl.FP32] = pl.yield_(d)\n        return r\n    @pl.function\n    def main(self, x: pl.Tensor[[16, 32], pl.FP16], n: pl.Scalar[pl.INT64]) -> pl.Tensor[[16, 32], pl.FP32]:\n        y: pl.Tensor[[16, 32], pl.FP32] = self.k(x, n)\n        return y\n";
        let prog = crate::driver::frontend(src).expect("input lowers");
        let out = run(prog.clone(), &PassEnv::new(crate::backend::Backend::Cce)).expect("pass succeeds");
        let text = crate::printer::print_program(&out);
        let back = crate::driver::frontend(&text).expect("output reads back");
        if let Some(diff) = crate::ir::equiv::programs_diff(&out, &back) {
            panic!("{diff}\n{text}");
        }
        let rules = [
            crate::verify::Property::IncoreBlockOps,
            crate::verify::Property::SsaForm,
            crate::verify::Property::TypeChecked,
        ];
        assert_eq!(crate::verify::verify(&out, &rules), vec![], "{text}");
    }
}
