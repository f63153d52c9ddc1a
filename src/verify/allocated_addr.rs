//! AllocatedMemoryAddr (spec `passes-and-codegen.md` §1.3), the property AllocateMemoryAddr
//! produces: every on-chip MemRef of a tile has a real address, and each memory space's
//! buffers end within the 910B capacity ([`crate::backend::capacity`]; both backends share
//! the SoC, so the check needs no backend choice).

use super::{Rule, VerifyDiagnostic};
use crate::backend::capacity;
use crate::ir::{Function, MemorySpace, Program, VarKind};
use crate::passes::allocate_memory_addr::tile_vars_in_visit_order;

/// Per function: code 0 for each distinct non-DDR MemRef (first met through a tile variable of
/// the body, in visitor order) whose address is not an integer constant ≥ 0, at that variable;
/// then code 1 for each space whose high-water mark `max(addr + size)` exceeds the capacity, at
/// the function. Spaces are reported in `MemorySpace` order (the reference's order is a hash
/// map's).
pub(super) fn check(prog: &Program, f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let mut seen = Vec::new();
    let mut high_water = [0u64; MemorySpace::ALL.len()];
    for v in tile_vars_in_visit_order(prog, &f.body) {
        let Some(m) = prog.var_type(v).memref() else { continue };
        let VarKind::MemRef(info) = &prog.var(m).kind else { continue };
        if info.space == MemorySpace::Ddr || seen.contains(&m) {
            continue;
        }
        seen.push(m);
        match info.addr.as_const_int().and_then(|a| u64::try_from(a).ok()) {
            Some(addr) => {
                let hw = &mut high_water[info.space.index()];
                *hw = (*hw).max(addr.saturating_add(info.size));
            }
            None => out.push(VerifyDiagnostic {
                rule: Rule::AllocatedMemoryAddr,
                error_code: 0,
                message: format!(
                    "MemRef for variable '{}' in {} has no valid address allocated (addr=-1)",
                    prog.var_name(v),
                    info.space.name()
                ),
                span: prog.var(v).span,
            }),
        }
    }
    for &space in MemorySpace::ALL {
        let (used, limit) = (high_water[space.index()], capacity(space));
        if limit > 0 && used > limit {
            out.push(VerifyDiagnostic {
                rule: Rule::AllocatedMemoryAddr,
                error_code: 1,
                message: format!(
                    "Function '{}': {} buffer usage ({} bytes) exceeds platform limit ({} bytes)",
                    f.name,
                    space.name(),
                    used,
                    limit
                ),
                span: f.span,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::verify::{verify, Rule};

    fn check(src: &str) -> Vec<(u32, String)> {
        let prog = crate::driver::frontend(src).expect("input lowers");
        verify(&prog, &[Rule::AllocatedMemoryAddr]).into_iter().map(|d| (d.error_code, d.message)).collect()
    }

    /// One function `k` whose body defines a tile per `(space, addr, size, id)`.
    fn program(tiles: &[(&str, i64, u64, u64)]) -> String {
        let mut s = String::from(
            "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def k(self, x: pl.Tensor[[64], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, -1, 256, 0)]) -> pl.Tensor[[64], pl.FP32]:\n",
        );
        for (i, (space, addr, size, id)) in tiles.iter().enumerate() {
            s += &format!(
                "        t{i}: pl.Tile[[64], pl.FP32, pl.MemRef(pl.MemorySpace.{space}, {addr}, {size}, {id})] = pl.block.load(x, [0], [64], target_memory=pl.MemorySpace.Vec)\n"
            );
        }
        s + "        return x\n"
    }

    #[test]
    fn addressed_buffers_within_capacity_pass() {
        assert!(check(&program(&[("Vec", 0, 256, 1), ("Vec", 256, 256, 2), ("Mat", 0, 524288, 3)])).is_empty());
        assert!(check(&program(&[])).is_empty());
    }

    #[test]
    fn a_missing_address_is_reported_once_per_memref() {
        let found = check(&program(&[("Vec", -1, 256, 1), ("Vec", -1, 256, 1), ("Left", -1, 256, 2)]));
        assert_eq!(
            found,
            vec![
                (0, "MemRef for variable 't0' in Vec has no valid address allocated (addr=-1)".to_string()),
                (0, "MemRef for variable 't2' in Left has no valid address allocated (addr=-1)".to_string()),
            ]
        );
    }

    #[test]
    fn ddr_memrefs_need_no_address() {
        assert!(check(&program(&[("DDR", -1, 256, 1)])).is_empty());
    }

    #[test]
    fn usage_beyond_the_capacity_is_reported_per_space() {
        let found = check(&program(&[("Vec", 0, 131072, 1), ("Vec", 131072, 131072, 2), ("Acc", 0, 131072, 3)]));
        assert_eq!(
            found,
            vec![(1, "Function 'k': Vec buffer usage (262144 bytes) exceeds platform limit (196608 bytes)".to_string())]
        );
    }
}
