//! Function order of a printed program (spec `ir-and-syntax.md` §3.9).
//!
//! Callees come before callers: a depth-first walk over the functions in name order, emitting
//! each function after every function it calls (also visited in name order). When any call
//! cycle exists the reference gives up and prints plain name order, and so do we.

use crate::ir::{Callee, Expr, ExprKind, Function, Program, Stmt, VarKind};
use std::collections::BTreeSet;

/// The functions of `p` in printing order.
pub fn function_order(p: &Program) -> Vec<&Function> {
    let sets: Vec<BTreeSet<&str>> = p.functions.iter().map(called_names).collect();
    let calls: Vec<(&str, &BTreeSet<&str>)> = p.functions.iter().map(|f| f.name.as_str()).zip(&sets).collect();
    order(&calls).into_iter().map(|i| &p.functions[i]).collect()
}

/// The printing order of functions given as (name, names of the functions it calls): their
/// indices in `calls`.
pub fn order<S: AsRef<str>>(calls: &[(&str, &BTreeSet<S>)]) -> Vec<usize> {
    let mut by_name: Vec<usize> = (0..calls.len()).collect();
    by_name.sort_by(|&a, &b| calls[a].0.cmp(calls[b].0));

    // Callees of each function as positions in `by_name`, in name order (a BTreeSet of
    // positions is name-ordered because `by_name` is sorted).
    let callees: Vec<Vec<usize>> = by_name
        .iter()
        .map(|&f| {
            calls[f]
                .1
                .iter()
                .filter_map(|n| by_name.binary_search_by(|&g| calls[g].0.cmp(n.as_ref())).ok())
                .collect::<BTreeSet<usize>>()
                .into_iter()
                .collect()
        })
        .collect();

    match post_order(&callees) {
        Some(order) => order.into_iter().map(|i| by_name[i]).collect(),
        None => by_name,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mark {
    New,
    OnStack,
    Done,
}

/// Post-order DFS from every node in index order; `None` if a cycle is found.
/// Iterative, so a long call chain cannot exhaust the stack.
fn post_order(callees: &[Vec<usize>]) -> Option<Vec<usize>> {
    let mut mark = vec![Mark::New; callees.len()];
    let mut order = Vec::with_capacity(callees.len());
    // (node, index of the next callee to visit)
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..callees.len() {
        if mark[root] != Mark::New {
            continue;
        }
        mark[root] = Mark::OnStack;
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&callee) = callees[node].get(next) {
                top.1 += 1;
                match mark[callee] {
                    Mark::New => {
                        mark[callee] = Mark::OnStack;
                        stack.push((callee, 0));
                    }
                    Mark::OnStack => return None,
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                order.push(node);
                stack.pop();
            }
        }
    }
    Some(order)
}

/// Names of the functions called (GlobalVar calls) anywhere in `f`'s body, including loop
/// bounds, conditions and iter-arg initial values.
pub fn called_names<'p>(f: &'p Function) -> BTreeSet<&'p str> {
    let mut names = BTreeSet::new();
    let mut exprs: Vec<&'p Expr> = Vec::new();
    let mut stmts: Vec<&'p Stmt> = vec![&f.body];
    // Initial values of iter args live in the variable table.
    let push_inits = |vars: &'p [crate::ir::VarId], exprs: &mut Vec<&'p Expr>| {
        for v in vars {
            if let Some(VarKind::IterArg { init }) = f.vars.get(*v).map(|d| &d.kind) {
                exprs.push(init);
            }
        }
    };
    while let Some(s) = stmts.pop() {
        match s {
            Stmt::Assign { value, .. } => exprs.push(value),
            Stmt::Eval { expr, .. } => exprs.push(expr),
            Stmt::Yield { values, .. } | Stmt::Return { values, .. } => exprs.extend(values),
            Stmt::If { cond, then_body, else_body, .. } => {
                exprs.push(cond);
                stmts.push(then_body);
                stmts.extend(else_body.as_deref());
            }
            Stmt::For { start, stop, step, iter_args, body, .. } => {
                exprs.extend([&**start, &**stop, &**step]);
                push_inits(iter_args, &mut exprs);
                stmts.push(body);
            }
            Stmt::While { cond, iter_args, body, .. } => {
                exprs.push(cond);
                push_inits(iter_args, &mut exprs);
                stmts.push(body);
            }
            Stmt::Scope { body, .. } => stmts.push(body),
            Stmt::Seq { stmts: ss, .. } | Stmt::Ops { stmts: ss, .. } => stmts.extend(ss),
            Stmt::Break { .. } | Stmt::Continue { .. } => {}
        }
    }
    // Expressions with an explicit stack: deep operator chains must not recurse.
    while let Some(e) = exprs.pop() {
        match &e.kind {
            ExprKind::Call(c) => {
                if let Callee::Function(name) = &c.callee {
                    names.insert(name.as_str());
                }
                exprs.extend(&c.args);
            }
            ExprKind::MakeTuple(es) => exprs.extend(es),
            ExprKind::TupleGetItem(t, _) => exprs.push(t),
            ExprKind::Binary(_, l, r) => exprs.extend([&**l, &**r]),
            ExprKind::Unary(_, x) => exprs.push(x),
            ExprKind::Var(_) | ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => {}
        }
    }
    names
}
