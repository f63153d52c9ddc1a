//! SplitIncoreOrch (spec `passes-and-codegen.md` §1.3), the property OutlineIncoreScopes
//! produces: an Opaque function holds no InCore scope (they have all been outlined).

use super::{Rule, VerifyDiagnostic};
use crate::ir::visit::walk_stmts;
use crate::ir::{Function, FunctionType, Program, ScopeKind, Stmt};

/// Code 0 for every InCore `ScopeStmt` of an Opaque function, in statement pre-order. Other
/// function types may keep scopes (the pass leaves them alone).
pub(super) fn check(_prog: &Program, f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    if f.kind != FunctionType::Opaque {
        return;
    }
    walk_stmts(&f.body, &mut |s| {
        if let Stmt::Scope { kind: ScopeKind::InCore, span, .. } = s {
            out.push(VerifyDiagnostic {
                rule: Rule::SplitIncoreOrch,
                error_code: 0,
                message: "InCore ScopeStmt found in Opaque function (should have been outlined)".to_string(),
                span: *span,
            });
        }
    });
}
