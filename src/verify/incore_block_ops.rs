//! IncoreBlockOps (spec `passes-and-codegen.md` §1.3), the property ConvertTensorToBlockOps
//! produces: an InCore function calls no tensor op that has a block form. "Has a block form" is
//! the pass's own table ([`block_form`]), so the verifier and the pass cannot disagree.

use super::{Rule, VerifyDiagnostic};
use crate::ir::visit::walk_stmts;
use crate::ir::{Callee, Function, FunctionType, Program, Stmt};
use crate::passes::convert_tensor_to_block_ops::block_form;

/// Code 0 for every assignment or evaluation in an InCore function whose value is a call of a
/// convertible tensor op (calls nested inside other expressions are not looked at, as in the
/// reference).
pub(super) fn check(_prog: &Program, f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    if f.kind != FunctionType::InCore {
        return;
    }
    walk_stmts(&f.body, &mut |s| {
        let (Stmt::Assign { value: e, .. } | Stmt::Eval { expr: e, .. }) = s else { return };
        let Some(Callee::Op(op)) = e.as_call().map(|c| &c.callee) else { return };
        if block_form(*op).is_some() {
            out.push(VerifyDiagnostic {
                rule: Rule::IncoreBlockOps,
                error_code: 0,
                message: format!(
                    "Tensor op '{}' found in InCore function (should have been converted)",
                    crate::ops::name(*op)
                ),
                span: e.span,
            });
        }
    });
}
