//! The statement-shape property verifiers of `passes-and-codegen.md` §1.3, checking what
//! `normalize-stmt-structure` and `flatten-single-stmt` produce (both code 0).
//!
//! `OpStmts`/`SeqStmts` boundaries are invisible in the printed text, so these rules are the
//! only check that the passes build the structure the later passes rely on.

use super::{Property, VerifyDiagnostic};
use crate::ir::visit::walk_stmts;
use crate::ir::{Function, Span, Stmt};

/// NormalizedStmtStructure (§1.3): the function body, each if branch and each for body (not
/// while bodies, as in the reference) is a `SeqStmts` without a bare `AssignStmt`/`EvalStmt`
/// child. Findings come in pre-order: the function body first, then each if/for as reached,
/// then branch before else.
pub(super) fn check_normalized(f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    check_body(&f.body, &format!("Function '{}'", f.name), f.span, out);
    walk_stmts(&f.body, &mut |s| match s {
        Stmt::If { then_body, else_body, span, .. } => {
            check_body(then_body, "IfStmt then", *span, out);
            if let Some(e) = else_body {
                check_body(e, "IfStmt else", *span, out);
            }
        }
        Stmt::For { body, span, .. } => check_body(body, "ForStmt", *span, out),
        _ => {}
    });
}

/// One body of context `ctx` (`owner` = span of the function/if/for holding it).
fn check_body(body: &Stmt, ctx: &str, owner: Span, out: &mut Vec<VerifyDiagnostic>) {
    let Stmt::Seq { stmts, .. } = body else {
        out.push(error(Property::NormalizedStmtStructure, format!("{ctx} body is not a SeqStmts"), owner));
        return;
    };
    for s in stmts {
        if matches!(s, Stmt::Assign { .. } | Stmt::Eval { .. }) {
            let msg = format!("{ctx} SeqStmts contains unwrapped AssignStmt/EvalStmt");
            out.push(error(Property::NormalizedStmtStructure, msg, s.span()));
        }
    }
}

/// FlattenedSingleStmt (§1.3): no `SeqStmts`/`OpStmts` of exactly one element, anywhere
/// (pre-order, outer containers first).
pub(super) fn check_flattened(f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    walk_stmts(&f.body, &mut |s| {
        let what = match s {
            Stmt::Seq { stmts, .. } if stmts.len() == 1 => "SeqStmts",
            Stmt::Ops { stmts, .. } if stmts.len() == 1 => "OpStmts",
            _ => return,
        };
        let msg = format!("{what} with single element should be flattened");
        out.push(error(Property::FlattenedSingleStmt, msg, s.span()));
    });
}

fn error(rule: Property, message: String, span: Span) -> VerifyDiagnostic {
    VerifyDiagnostic { rule, error_code: 0, message, span }
}

#[cfg(test)]
mod tests {
    use super::super::verify;
    use super::*;
    use crate::ir::{DataType, Expr, ForKind, FunctionType, Program, Type, VarId, VarKind, VarTable};

    const S: Span = Span::NONE;

    fn vars(body: Stmt) -> (Program, VarId) {
        let mut p = Program::new("p");
        let mut vt = VarTable::new();
        let x = vt.new_var("x", Type::Scalar(DataType::Int64), VarKind::Plain, S);
        let f = Function {
            name: "f".into(),
            kind: FunctionType::Opaque,
            params: vec![],
            return_types: vec![],
            body,
            span: S,
            vars: VarTable::new(),
            schedule: None,
        };
        let mut f = f;
        f.vars = std::mem::take(&mut vt);
        p.add_function(f).expect("one function");
        (p, x)
    }
    fn assign() -> Stmt {
        Stmt::Assign { var: VarId(0), value: Expr::int(1, DataType::Int64, S), span: S }
    }
    fn eval() -> Stmt {
        Stmt::Eval { expr: Expr::int(2, DataType::Int64, S), span: S }
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
    fn for_(body: Stmt) -> Stmt {
        let i = Expr::int(0, DataType::Int64, S);
        Stmt::For {
            loop_var: VarId(0),
            start: Box::new(i.clone()),
            stop: Box::new(i.clone()),
            step: Box::new(i),
            iter_args: vec![],
            body: Box::new(body),
            return_vars: vec![],
            kind: ForKind::Sequential,
            span: S,
        }
    }
    fn messages(body: Stmt, rule: Property) -> Vec<String> {
        let (p, _) = vars(body);
        verify(&p, &[rule])
            .into_iter()
            .map(|d| {
                assert_eq!((d.rule, d.error_code), (rule, 0));
                d.message
            })
            .collect()
    }

    #[test]
    fn normalized_accepts_wrapped_runs_and_empty_bodies() {
        let body = seq(vec![ops(vec![assign(), eval()]), for_(seq(vec![ops(vec![assign()])])), ret()]);
        assert!(messages(body, Property::NormalizedStmtStructure).is_empty());
        assert!(messages(seq(vec![]), Property::NormalizedStmtStructure).is_empty());
    }

    #[test]
    fn normalized_reports_bodies_that_are_not_seqs() {
        let body = seq(vec![if_(ops(vec![assign()]), Some(ret())), for_(assign())]);
        assert_eq!(
            messages(body, Property::NormalizedStmtStructure),
            [
                "IfStmt then body is not a SeqStmts",
                "IfStmt else body is not a SeqStmts",
                "ForStmt body is not a SeqStmts"
            ]
        );
        assert_eq!(messages(ret(), Property::NormalizedStmtStructure), ["Function 'f' body is not a SeqStmts"]);
    }

    #[test]
    fn normalized_reports_each_unwrapped_op_statement() {
        let body = seq(vec![assign(), eval(), if_(seq(vec![ret(), assign()]), None)]);
        assert_eq!(
            messages(body, Property::NormalizedStmtStructure),
            [
                "Function 'f' SeqStmts contains unwrapped AssignStmt/EvalStmt",
                "Function 'f' SeqStmts contains unwrapped AssignStmt/EvalStmt",
                "IfStmt then SeqStmts contains unwrapped AssignStmt/EvalStmt"
            ]
        );
    }

    #[test]
    fn normalized_ignores_while_bodies_and_nested_seqs() {
        let w = Stmt::While {
            cond: Box::new(Expr::bool(true, S)),
            iter_args: vec![],
            body: Box::new(assign()),
            return_vars: vec![],
            span: S,
        };
        let body = seq(vec![w, seq(vec![assign(), ret()])]);
        assert!(messages(body, Property::NormalizedStmtStructure).is_empty());
    }

    #[test]
    fn flattened_reports_single_element_containers_outer_first() {
        let body = seq(vec![seq(vec![ops(vec![assign()])]), ops(vec![assign(), eval()]), for_(ops(vec![eval()]))]);
        assert_eq!(
            messages(body, Property::FlattenedSingleStmt),
            [
                "SeqStmts with single element should be flattened",
                "OpStmts with single element should be flattened",
                "OpStmts with single element should be flattened"
            ]
        );
    }

    #[test]
    fn flattened_accepts_empty_and_multi_element_containers() {
        let body = seq(vec![seq(vec![]), ops(vec![assign(), eval()]), ret()]);
        assert!(messages(body, Property::FlattenedSingleStmt).is_empty());
    }
}
