//! HasMemRefs (spec `passes-and-codegen.md` §1.3), the property InitMemRef produces: every
//! assigned tile variable knows its buffer, which the memory passes after it (reuse, sync,
//! address allocation) and codegen all rely on.

use super::{Property, VerifyDiagnostic};
use crate::ir::visit::walk_stmts;
use crate::ir::{Function, Stmt, Type};

/// Code 0 for every `AssignStmt` whose variable has a tile type without a MemRef, in statement
/// pre-order, at the assignment. Tensors, iter args and return vars are not checked (as in the
/// reference).
pub(super) fn check(f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let vars = &f.vars;
    walk_stmts(&f.body, &mut |s| {
        if let Stmt::Assign { var, span, .. } = s {
            if let Type::Tile(t) = vars.var_type(*var) {
                if t.memref.is_none() {
                    out.push(VerifyDiagnostic {
                        rule: Property::HasMemRefs,
                        error_code: 0,
                        message: format!("TileType variable '{}' has no MemRef initialized", vars.var_name(*var)),
                        span: *span,
                    });
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::verify::{verify, Property};

    fn check(src: &str) -> Vec<(u32, String)> {
        let prog = crate::driver::frontend(src).expect("input lowers");
        verify(&prog, &[Property::HasMemRefs]).into_iter().map(|d| (d.error_code, d.message)).collect()
    }

    fn program(body: &str) -> String {
        format!(
            "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, a: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:\n{body}        return out\n"
        )
    }

    #[test]
    fn every_tile_without_memref_is_reported_in_order() {
        let src = program(
            "        t: pl.Tile[[16], pl.FP32] = pl.block.load(a, [0], [16], target_memory=pl.MemorySpace.Vec)\n        for i in pl.range(2):\n            u: pl.Tile[[16], pl.FP32] = pl.block.add(t, t)\n",
        );
        assert_eq!(
            check(&src),
            vec![
                (0, "TileType variable 't' has no MemRef initialized".to_string()),
                (0, "TileType variable 'u' has no MemRef initialized".to_string()),
            ]
        );
    }

    #[test]
    fn tiles_with_memrefs_and_tensors_without_pass() {
        let src = program(
            "        t: pl.Tile[[16], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, 64, 2)] = pl.block.load(a, [0], [16], target_memory=pl.MemorySpace.Vec)\n        r: pl.Tensor[[16], pl.FP32] = pl.block.store(t, [0], [16], out)\n",
        );
        assert!(check(&src).is_empty());
    }

    #[test]
    fn init_mem_ref_output_has_memrefs() {
        let src = program(
            "        t: pl.Tile[[16], pl.FP32] = pl.block.load(a, [0], [16], target_memory=pl.MemorySpace.Vec)\n        r: pl.Tensor[[16], pl.FP32] = pl.block.store(t, [0], [16], out)\n",
        );
        let prog = crate::driver::frontend(&src).expect("input lowers");
        let env = crate::passes::PassEnv::new(crate::backend::Backend::Cce);
        let after = crate::passes::Transform::Function(crate::passes::init_mem_ref::function)
            .apply(prog.clone(), &env)
            .expect("pass runs");
        assert_eq!(verify(&prog, &[Property::HasMemRefs]).len(), 1);
        assert!(verify(&after, &[Property::HasMemRefs]).is_empty());
    }
}
