//! Which buffer a tensor variable of an orchestration function denotes (orchestration codegen
//! and its form rule, `verify::orchestration_form`, read it).
//!
//! A kernel writes its output arguments in place and returns them, so the result of a call
//! `r = self.k(a, out)` is the buffer of `out`, whatever `r` is named. The reference relies on
//! SSA versions of one name (`out_0`, `out_1` share the base name `out`, hence the C++ name);
//! a program that names the result differently got C++ in which `r` is another buffer (an
//! undeclared name, or a returned tensor with its own argument slot that nothing writes).
//! ptoc follows values instead: every tensor variable maps to its *root*, the parameter or
//! created tensor whose buffer it is, where that is known statically.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::ir::visit::walk_stmts;
use crate::ir::{Callee, Expr, ExprKind, Function, Program, Stmt, Type, VarId, VarKind, VarTable};
use crate::ops;

/// What orchestration codegen needs of a kernel whose IR was dropped once its C++ was written
/// (`codegen::kernel`): the [`written_params`] and, for each returned value, the
/// [`returned_param`]. Only kernels that call no function are summarised, so the summary does
/// not depend on the depth a call is followed at.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub written: Vec<bool>,
    pub returned: Vec<Option<usize>>,
}

/// Summaries of kernels by name.
pub type Summaries = FxHashMap<String, Summary>;

/// The [`Summary`] of kernel `f`, `None` when its body calls a function (then the analysis
/// follows the call into the callee's body, which must stay).
pub fn summary(f: &Function) -> Option<Summary> {
    let mut calls = false;
    crate::ir::visit::walk_all_exprs(&f.body, &mut |e| {
        calls |= matches!(e.as_call(), Some(c) if matches!(c.callee, Callee::Function(_)));
    });
    if calls {
        return None;
    }
    let (prog, known) = (Program::new(""), Summaries::default());
    Some(Summary {
        written: written_params(&prog, &known, f),
        returned: (0..f.return_types.len()).map(|k| returned_param(&prog, &known, f, k, 0)).collect(),
    })
}

/// Root variable of every tensor variable of `f` whose buffer is known: parameters and created
/// tensors are their own roots; call results, copies, tuple items, loop-carried tensors and `if`
/// results take the root of the value they stand for, when it is one buffer on every path.
pub fn roots(prog: &Program, known: &Summaries, f: &Function) -> BTreeMap<VarId, VarId> {
    let mut roots = BTreeMap::new();
    for p in &f.params {
        if matches!(f.var_type(p.var), Type::Tensor(_)) {
            roots.insert(p.var, p.var);
        }
    }
    let mut tuples: BTreeMap<VarId, Vec<Option<VarId>>> = BTreeMap::new();
    collect(prog, known, &f.vars, &f.body, &mut roots, &mut tuples, 0);
    roots
}

/// The index of the parameter that `f` returns as its `k`-th value, when it returns a
/// parameter's buffer (written in place).
pub fn returned_param(prog: &Program, known: &Summaries, f: &Function, k: usize, depth: usize) -> Option<usize> {
    if depth > 8 {
        return None;
    }
    if let Some(s) = known.get(&f.name) {
        return s.returned.get(k).copied().flatten();
    }
    let mut roots = BTreeMap::new();
    for p in &f.params {
        roots.insert(p.var, p.var);
    }
    let mut tuples = BTreeMap::new();
    collect(prog, known, &f.vars, &f.body, &mut roots, &mut tuples, depth + 1);
    let mut found: Option<Option<usize>> = None;
    walk_stmts(&f.body, &mut |s| {
        if let Stmt::Return { values, .. } = s {
            let idx = values
                .get(k)
                .and_then(Expr::as_var)
                .and_then(|v| roots.get(&v))
                .and_then(|r| f.params.iter().position(|p| p.var == *r));
            found = Some(match found {
                None => idx,
                Some(prev) if prev == idx => idx,
                Some(_) => None,
            });
        }
    });
    found.flatten()
}

/// Whether kernel `f` writes the buffer of each of its parameters (a `block.store` or
/// `block.l0c_store` into it, directly or through the values that stand for it). An outlined
/// function's parameters are all `In` (§2.6), yet it may store into one: the task must still
/// declare the write, or the runtime orders it like a read.
pub fn written_params(prog: &Program, known: &Summaries, f: &Function) -> Vec<bool> {
    if let Some(s) = known.get(&f.name) {
        return s.written.clone();
    }
    let mut roots = BTreeMap::new();
    for p in &f.params {
        roots.insert(p.var, p.var);
    }
    let mut tuples = BTreeMap::new();
    collect(prog, known, &f.vars, &f.body, &mut roots, &mut tuples, 1);
    let mut written = vec![false; f.params.len()];
    crate::ir::visit::walk_all_exprs(&f.body, &mut |e| {
        let Some(c) = e.as_call() else { return };
        let Some(dest) = c.callee.op().and_then(|op| ops::def(op).written_arg()) else { return };
        let root = c.args.get(dest).and_then(|a| root_of(&roots, a));
        if let Some(i) = root.and_then(|r| f.params.iter().position(|p| p.var == r)) {
            written[i] = true;
        }
    });
    written
}

fn root_of(roots: &BTreeMap<VarId, VarId>, e: &Expr) -> Option<VarId> {
    e.as_var().and_then(|v| roots.get(&v).copied())
}

fn collect(
    prog: &Program,
    known: &Summaries,
    vars: &VarTable,
    s: &Stmt,
    roots: &mut BTreeMap<VarId, VarId>,
    tuples: &mut BTreeMap<VarId, Vec<Option<VarId>>>,
    depth: usize,
) {
    match s {
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
            for c in stmts {
                collect(prog, known, vars, c, roots, tuples, depth);
            }
        }
        Stmt::Scope { body, .. } => collect(prog, known, vars, body, roots, tuples, depth),
        Stmt::Assign { var, value, .. } => match &value.kind {
            ExprKind::Var(_) => {
                if let Some(r) = root_of(roots, value) {
                    roots.insert(*var, r);
                }
            }
            ExprKind::TupleGetItem(t, i) => {
                if let Some(Some(r)) = t.as_var().and_then(|t| tuples.get(&t)).and_then(|rs| rs.get(*i)) {
                    roots.insert(*var, *r);
                }
            }
            ExprKind::Call(c) => match &c.callee {
                Callee::Function(name) => {
                    let Some(callee) = prog.function(name) else { return };
                    let result = |k: usize| {
                        returned_param(prog, known, callee, k, depth)
                            .and_then(|i| c.args.get(i))
                            .and_then(|a| root_of(roots, a))
                    };
                    match vars.var_type(*var) {
                        Type::Tuple(items) => {
                            let rs = (0..items.len()).map(result).collect();
                            tuples.insert(*var, rs);
                        }
                        _ => {
                            if let Some(r) = result(0) {
                                roots.insert(*var, r);
                            }
                        }
                    }
                }
                Callee::Op(op) => match ops::def(*op).written_arg() {
                    // A store writes the destination tensor in place (kernels).
                    Some(dest) => {
                        if let Some(r) = c.args.get(dest).and_then(|a| root_of(roots, a)) {
                            roots.insert(*var, r);
                        }
                    }
                    None => {
                        if matches!(vars.var_type(*var), Type::Tensor(_)) {
                            roots.insert(*var, *var);
                        }
                    }
                },
            },
            _ => {}
        },
        Stmt::For { iter_args, body, return_vars, .. } | Stmt::While { iter_args, body, return_vars, .. } => {
            // A loop-carried tensor is one buffer when it starts from one and every iteration
            // yields that same buffer.
            // Assume every iter arg keeps its initial buffer, check the yields, and walk the
            // body again without the ones that do not (their uses must not take the initial
            // buffer's root), until the assumption holds.
            let mut inits: Vec<Option<VarId>> = iter_args
                .iter()
                .map(|a| match &vars.var(*a).kind {
                    VarKind::IterArg { init } => root_of(roots, init),
                    _ => None,
                })
                .collect();
            let before = (roots.clone(), tuples.clone());
            loop {
                for (a, r) in iter_args.iter().zip(&inits) {
                    if let Some(r) = r {
                        roots.insert(*a, *r);
                    }
                }
                collect(prog, known, vars, body, roots, tuples, depth);
                let yields = body.final_yield();
                let mut changed = false;
                for (k, r) in inits.iter_mut().enumerate() {
                    let y = yields.and_then(|ys| ys.get(k)).and_then(|y| root_of(roots, y));
                    if r.is_some() && *r != y {
                        *r = None;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
                (*roots, *tuples) = before.clone();
            }
            for (rv, r) in return_vars.iter().zip(&inits) {
                if let Some(r) = r {
                    roots.insert(*rv, *r);
                }
            }
        }
        Stmt::If { then_body, else_body, return_vars, .. } => {
            collect(prog, known, vars, then_body, roots, tuples, depth);
            if let Some(e) = else_body {
                collect(prog, known, vars, e, roots, tuples, depth);
            }
            let branches: Vec<&Stmt> = std::iter::once(&**then_body).chain(else_body.as_deref()).collect();
            for (k, rv) in return_vars.iter().enumerate() {
                let ys: Vec<Option<VarId>> = branches
                    .iter()
                    .map(|b| b.final_yield().and_then(|ys| ys.get(k)).and_then(|y| root_of(roots, y)))
                    .collect();
                if branches.len() == 2 && ys[0].is_some() && ys.iter().all(|y| *y == ys[0]) {
                    if let Some(r) = ys[0] {
                        roots.insert(*rv, r);
                    }
                }
            }
        }
        _ => {}
    }
}
