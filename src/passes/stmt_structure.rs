//! The statement-shape passes `normalize-stmt-structure` (spec `passes-and-codegen.md` §2.3)
//! and `flatten-single-stmt` (§2.4), and their helpers for other passes.
//!
//! Normalised form gives passes one shape to work on: every function body, if branch and loop
//! body is a `SeqStmts`, and each maximal run of assignments/evals in a sequence is one
//! `OpStmts` (the unit InitMemRef, InsertSync and FlattenCallExpr insert into). Flattening
//! undoes the one-element wrappers afterwards. Neither is visible in printed text, but the
//! property verifiers (`verify::structure`) and later passes see the structure.

use super::PassEnv;
use crate::diag::Diagnostic;
use crate::ir::visit::{map_bodies, BodyKind};
use crate::ir::{Function, Stmt};

/// `normalize-stmt-structure` on one function: [`normalize_body`] on its body.
pub fn normalize_function(f: Function, _env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    Ok(map_body(f, normalize_body))
}

/// `flatten-single-stmt` on one function: [`flatten_single`] on its body.
pub fn flatten_single_function(f: Function, _env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    Ok(map_body(f, flatten_single))
}

/// `func` with `f` applied to its body.
fn map_body(mut func: Function, f: fn(Stmt) -> Stmt) -> Function {
    let body = std::mem::replace(&mut func.body, Stmt::empty());
    func.body = f(body);
    func
}

/// Normalises a body (§2.3): normalises inside it, then makes it a `SeqStmts` — an
/// assign/eval `s` becomes `SeqStmts[OpStmts[s]]`, any other non-sequence `s` `SeqStmts[s]`.
pub fn normalize_body(body: Stmt) -> Stmt {
    match normalize_stmt(body) {
        seq @ Stmt::Seq { .. } => seq,
        s => {
            let span = s.span();
            let inner = if is_op(&s) { Stmt::Ops { stmts: vec![s], span } } else { s };
            Stmt::Seq { stmts: vec![inner], span }
        }
    }
}

/// Normalises inside `s` without changing what `s` itself is (except that a sequence gets
/// its assign/eval runs wrapped): if/for/while bodies become sequences ([`normalize_body`]);
/// scope bodies are only recursed into, not wrapped (§2.3 rule 3).
pub fn normalize_stmt(s: Stmt) -> Stmt {
    match s {
        Stmt::Seq { stmts, span } => Stmt::Seq { stmts: wrap_op_runs(stmts.into_iter().map(normalize_stmt)), span },
        other => map_bodies(other, |body, kind| match kind {
            BodyKind::Scope => normalize_stmt(body),
            BodyKind::Branch | BodyKind::Loop => normalize_body(body),
        }),
    }
}

/// Wraps each maximal run of consecutive assign/eval statements into one `OpStmts`; existing
/// `OpStmts` stay separate children (they are not merged with neighbours).
fn wrap_op_runs(stmts: impl Iterator<Item = Stmt>) -> Vec<Stmt> {
    let mut out = Vec::new();
    let mut run: Vec<Stmt> = Vec::new();
    for s in stmts {
        if is_op(&s) {
            run.push(s);
        } else {
            flush_run(&mut run, &mut out);
            out.push(s);
        }
    }
    flush_run(&mut run, &mut out);
    out
}

fn flush_run(run: &mut Vec<Stmt>, out: &mut Vec<Stmt>) {
    if let Some(first) = run.first() {
        let span = first.span();
        out.push(Stmt::Ops { stmts: std::mem::take(run), span });
    }
}

/// An assignment or an eval: what an `OpStmts` holds.
pub fn is_op(s: &Stmt) -> bool {
    matches!(s, Stmt::Assign { .. } | Stmt::Eval { .. })
}

/// Replaces, bottom-up, every `SeqStmts`/`OpStmts` with exactly one child by that child (so
/// `SeqStmts[OpStmts[a]]` becomes `a`), in every body including the top one (§2.4).
pub fn flatten_single(s: Stmt) -> Stmt {
    match s {
        Stmt::Seq { stmts, span } => single_or(stmts, |stmts| Stmt::Seq { stmts, span }),
        Stmt::Ops { stmts, span } => single_or(stmts, |stmts| Stmt::Ops { stmts, span }),
        other => map_bodies(other, |body, _| flatten_single(body)),
    }
}

/// Flattens the children; one child left → that child, else `rebuild` the container.
fn single_or(stmts: Vec<Stmt>, rebuild: impl FnOnce(Vec<Stmt>) -> Stmt) -> Stmt {
    let mut stmts: Vec<Stmt> = stmts.into_iter().map(flatten_single).collect();
    match stmts.pop() {
        Some(only) if stmts.is_empty() => only,
        Some(last) => {
            stmts.push(last);
            rebuild(stmts)
        }
        None => rebuild(stmts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DataType, Expr, ScopeKind, Span, VarId};

    const S: Span = Span::NONE;

    fn assign(k: u32) -> Stmt {
        Stmt::Assign { var: VarId(k), value: Expr::int(k as i64, DataType::Int64, S), span: S }
    }
    fn eval() -> Stmt {
        Stmt::Eval { expr: Expr::int(0, DataType::Int64, S), span: S }
    }
    fn ret() -> Stmt {
        Stmt::Return { values: vec![], span: S }
    }
    fn seq(stmts: Vec<Stmt>) -> Stmt {
        Stmt::Seq { stmts, span: S }
    }
    fn ops(stmts: Vec<Stmt>) -> Stmt {
        Stmt::Ops { stmts, span: S }
    }
    fn if_(then_body: Stmt, else_body: Option<Stmt>) -> Stmt {
        Stmt::If {
            cond: Box::new(Expr::bool(true, S)),
            then_body: Box::new(then_body),
            else_body: else_body.map(Box::new),
            return_vars: vec![],
            span: S,
        }
    }
    fn while_(body: Stmt) -> Stmt {
        Stmt::While {
            cond: Box::new(Expr::bool(true, S)),
            iter_args: vec![],
            body: Box::new(body),
            return_vars: vec![],
            span: S,
        }
    }
    fn scope(body: Stmt) -> Stmt {
        Stmt::Scope { kind: ScopeKind::InCore, body: Box::new(body), span: S }
    }

    #[test]
    fn runs_of_ops_are_wrapped_and_other_statements_split_them() {
        let body = seq(vec![assign(1), eval(), if_(ret(), None), assign(2), ops(vec![assign(3)]), assign(4), ret()]);
        let want = seq(vec![
            ops(vec![assign(1), eval()]),
            if_(seq(vec![ret()]), None),
            ops(vec![assign(2)]),
            ops(vec![assign(3)]),
            ops(vec![assign(4)]),
            ret(),
        ]);
        assert_eq!(normalize_body(body), want);
    }

    #[test]
    fn bare_bodies_become_sequences() {
        assert_eq!(normalize_body(assign(1)), seq(vec![ops(vec![assign(1)])]));
        assert_eq!(normalize_body(ret()), seq(vec![ret()]));
        let w = normalize_body(while_(eval()));
        assert_eq!(w, seq(vec![while_(seq(vec![ops(vec![eval()])]))]));
        let i = normalize_body(if_(assign(1), Some(eval())));
        assert_eq!(i, seq(vec![if_(seq(vec![ops(vec![assign(1)])]), Some(seq(vec![ops(vec![eval()])])))]));
    }

    #[test]
    fn scope_bodies_are_recursed_not_wrapped() {
        assert_eq!(normalize_body(scope(assign(1))), seq(vec![scope(assign(1))]));
        let s = normalize_body(scope(seq(vec![assign(1), ret()])));
        assert_eq!(s, seq(vec![scope(seq(vec![ops(vec![assign(1)]), ret()]))]));
    }

    #[test]
    fn normalize_is_idempotent() {
        let body = seq(vec![assign(1), while_(seq(vec![eval(), ret()])), if_(assign(2), None)]);
        let once = normalize_body(body);
        assert_eq!(normalize_body(once.clone()), once);
    }

    #[test]
    fn single_element_containers_disappear_bottom_up() {
        assert_eq!(flatten_single(seq(vec![ops(vec![assign(1)])])), assign(1));
        let body = seq(vec![ops(vec![assign(1), eval()]), if_(seq(vec![ops(vec![assign(2)])]), None), ret()]);
        let want = seq(vec![ops(vec![assign(1), eval()]), if_(assign(2), None), ret()]);
        assert_eq!(flatten_single(body.clone()), want);
        assert_eq!(flatten_single(want.clone()), want);
        assert_eq!(flatten_single(seq(vec![])), seq(vec![]));
        assert_eq!(flatten_single(scope(seq(vec![seq(vec![eval()])]))), scope(eval()));
    }
}
