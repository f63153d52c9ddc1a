//! SplitIncoreOrch (spec `passes-and-codegen.md` §1.3), the property OutlineIncoreScopes
//! produces: an Opaque function holds no InCore scope (they have all been outlined).

use super::{Property, VerifyDiagnostic};
use crate::ir::visit::walk_stmts;
use crate::ir::{Function, FunctionType, ScopeKind, Stmt};

/// Code 0 for every InCore `ScopeStmt` of an Opaque function, in statement pre-order. Other
/// function types may keep scopes (the pass leaves them alone).
pub(super) fn check(f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    if f.kind != FunctionType::Opaque {
        return;
    }
    walk_stmts(&f.body, &mut |s| {
        if let Stmt::Scope { kind: ScopeKind::InCore, span, .. } = s {
            out.push(VerifyDiagnostic {
                rule: Property::SplitIncoreOrch,
                error_code: 0,
                message: "InCore ScopeStmt found in Opaque function (should have been outlined)".to_string(),
                span: *span,
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::verify::{verify, Property};

    fn check(src: &str) -> Vec<(u32, String)> {
        let prog = crate::driver::frontend(src).expect("input lowers");
        verify(&prog, &[Property::SplitIncoreOrch]).into_iter().map(|d| (d.error_code, d.message)).collect()
    }

    const MSG: &str = "InCore ScopeStmt found in Opaque function (should have been outlined)";

    fn program(decorator: &str) -> String {
        format!(
            "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    {decorator}\n    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        with pl.incore():\n            y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, x)\n        for i in pl.range(2):\n            with pl.incore():\n                z: pl.Tensor[[64], pl.FP32] = pl.tensor.add(y, y)\n        return y\n"
        )
    }

    #[test]
    fn every_scope_of_an_opaque_function_is_reported() {
        let found = check(&program("@pl.function"));
        assert_eq!(found, vec![(0, MSG.to_string()), (0, MSG.to_string())]);
    }

    #[test]
    fn other_function_types_may_keep_scopes() {
        assert!(check(&program("@pl.function(type=pl.FunctionType.InCore)")).is_empty());
        assert!(check(&program("@pl.function(type=pl.FunctionType.Orchestration)")).is_empty());
    }
}
