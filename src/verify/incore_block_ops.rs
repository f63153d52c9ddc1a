//! IncoreBlockOps (spec `passes-and-codegen.md` §1.3), the property ConvertTensorToBlockOps
//! produces: an InCore function calls no tensor op that has a block form. "Has a block form" is
//! the operator table's column ([`block_form`]), so the verifier and the pass cannot disagree.

use super::{Property, VerifyDiagnostic};
use crate::ir::visit::walk_stmts;
use crate::ir::{Callee, Function, FunctionType, Stmt};
use crate::ops::block_form;

/// Code 0 for every assignment or evaluation in an InCore function whose value is a call of a
/// convertible tensor op (calls nested inside other expressions are not looked at, as in the
/// reference).
pub(super) fn check(f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    if f.kind != FunctionType::InCore {
        return;
    }
    walk_stmts(&f.body, &mut |s| {
        let (Stmt::Assign { value: e, .. } | Stmt::Eval { expr: e, .. }) = s else { return };
        let Some(Callee::Op(op)) = e.as_call().map(|c| &c.callee) else { return };
        if block_form(*op).is_some() {
            out.push(VerifyDiagnostic {
                rule: Property::IncoreBlockOps,
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

#[cfg(test)]
mod tests {
    use crate::verify::{verify, Property};

    fn check(decorator: &str, body: &str) -> Vec<(u32, String)> {
        let src = format!(
            "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    {decorator}\n    def k(self, x: pl.Tensor[[64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n{body}        return x\n"
        );
        let prog = crate::driver::frontend(&src).expect("input lowers");
        verify(&prog, &[Property::IncoreBlockOps]).into_iter().map(|d| (d.error_code, d.message)).collect()
    }

    fn msg(op: &str) -> (u32, String) {
        (0, format!("Tensor op '{op}' found in InCore function (should have been converted)"))
    }

    const INCORE: &str = "@pl.function(type=pl.FunctionType.InCore)";

    #[test]
    fn convertible_tensor_ops_are_reported_by_ir_name() {
        let body = "        a: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, 1.0)\n        pl.tensor.exp(a)\n        if True:\n            b: pl.Tensor[[64], pl.FP32] = pl.tensor.sub(a, x)\n";
        assert_eq!(check(INCORE, body), vec![msg("tensor.add_scalar"), msg("tensor.exp"), msg("tensor.sub")]);
    }

    #[test]
    fn ops_without_block_form_and_block_ops_pass() {
        let body = "        m: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.matmul(w, w)\n        t: pl.Tile[[64], pl.FP32] = pl.block.load(x, [0], [64])\n        u: pl.Tile[[64], pl.FP32] = pl.block.add(t, t)\n";
        assert!(check(INCORE, body).is_empty());
    }

    #[test]
    fn only_incore_functions_are_checked() {
        let body = "        a: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, x)\n";
        assert!(check("@pl.function", body).is_empty());
        assert!(check("@pl.function(type=pl.FunctionType.Orchestration)", body).is_empty());
        assert_eq!(check(INCORE, body), vec![msg("tensor.add")]);
    }
}
