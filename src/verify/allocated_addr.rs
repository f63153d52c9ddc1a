//! AllocatedMemoryAddr (spec `passes-and-codegen.md` §1.3), the property AllocateMemoryAddr
//! produces: every on-chip MemRef of a tile has a real address, and each memory space's
//! buffers end within the 910B capacity ([`crate::backend::capacity`]; both backends share
//! the SoC, so the check needs no backend choice).

use super::{Property, VerifyDiagnostic};
use crate::analysis::visit_order::tile_vars_in_visit_order;
use crate::backend::capacity;
use crate::ir::visit::{child_stmts, defined_vars, for_each_var, stmt_exprs};
use crate::ir::{Function, MemRefInfo, MemorySpace, Stmt, Type, VarId, VarKind, VarTable};

/// Per function: code 0 for each distinct non-DDR MemRef (first met through a tile variable of
/// the body, in visitor order) whose address is not an integer constant ≥ 0, at that variable;
/// then code 1 for each space whose high-water mark `max(addr + size)` exceeds the capacity, at
/// the function. Spaces are reported in `MemorySpace` order (the reference's order is a hash
/// map's).
///
/// The high-water marks do not depend on the order the MemRefs are met in (nor on meeting one
/// twice), so a program whose addresses are all valid — what allocate-memory-addr produces —
/// is checked in one plain walk; only a missing address needs the visitor order (and its
/// de-duplication) for its messages.
pub(super) fn check(f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let vars = &f.vars;
    let mut high_water = [0u64; MemorySpace::ALL.len()];
    let mut missing = false;
    for_each_mentioned_var(vars, &f.body, &mut |v| {
        let Some((_, info)) = on_chip_memref(vars, v) else { return };
        match valid_addr(info) {
            Some(addr) => {
                let hw = &mut high_water[info.space.index()];
                *hw = (*hw).max(addr.saturating_add(info.size));
            }
            None => missing = true,
        }
    });
    if missing {
        report_missing_addrs(f, out);
    }
    for &space in MemorySpace::ALL {
        let (used, limit) = (high_water[space.index()], capacity(space));
        if limit > 0 && used > limit {
            out.push(VerifyDiagnostic {
                rule: Property::AllocatedMemoryAddr,
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

/// Code 0 for each distinct MemRef without an address, at the first tile variable (in visitor
/// order) that has it.
fn report_missing_addrs(f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let vars = &f.vars;
    let mut seen = Vec::new();
    for v in tile_vars_in_visit_order(vars, &f.body) {
        let Some((m, info)) = on_chip_memref(vars, v) else { continue };
        if seen.contains(&m) {
            continue;
        }
        seen.push(m);
        if valid_addr(info).is_none() {
            out.push(VerifyDiagnostic {
                rule: Property::AllocatedMemoryAddr,
                error_code: 0,
                message: format!(
                    "MemRef for variable '{}' in {} has no valid address allocated (addr=-1)",
                    vars.var_name(v),
                    info.space.name()
                ),
                span: vars.var(v).span,
            });
        }
    }
}

/// The MemRef of tile variable `v` (its variable and what it describes), when it has one
/// outside DDR.
fn on_chip_memref(vars: &VarTable, v: VarId) -> Option<(VarId, &MemRefInfo)> {
    let Type::Tile(t) = vars.var_type(v) else { return None };
    let m = t.memref?;
    match &vars.var(m).kind {
        VarKind::MemRef(info) if info.space != MemorySpace::Ddr => Some((m, info)),
        _ => None,
    }
}

/// A MemRef's address, when it is an integer constant ≥ 0.
fn valid_addr(info: &MemRefInfo) -> Option<u64> {
    info.addr.as_const_int().and_then(|a| u64::try_from(a).ok())
}

/// Calls `f` on every variable `s` mentions (the set [`tile_vars_in_visit_order`] draws
/// from, in another order and with repeats): each statement's defined variables, the variables
/// of its expressions, and those of its iter args' init values. Assignments, evaluations and
/// sequences, nearly all of a body, are matched directly rather than through the generic
/// traversal helpers.
fn for_each_mentioned_var(vars: &VarTable, s: &Stmt, f: &mut impl FnMut(VarId)) {
    match s {
        Stmt::Assign { var, value, .. } => {
            f(*var);
            for_each_var(value, f);
        }
        Stmt::Eval { expr, .. } => for_each_var(expr, f),
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
            stmts.iter().for_each(|c| for_each_mentioned_var(vars, c, f))
        }
        _ => {
            for v in defined_vars(s) {
                f(v);
                if let VarKind::IterArg { init } = &vars.var(v).kind {
                    for_each_var(init, f);
                }
            }
            stmt_exprs(s).for_each(|e| for_each_var(e, f));
            child_stmts(s).for_each(|c| for_each_mentioned_var(vars, c, f));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::verify::{verify, Property};

    fn check(src: &str) -> Vec<(u32, String)> {
        let prog = crate::driver::frontend(src).expect("input lowers");
        verify(&prog, &[Property::AllocatedMemoryAddr]).into_iter().map(|d| (d.error_code, d.message)).collect()
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

    /// A missing address and an overfull space in one function: both are reported, the
    /// missing address first (the high-water mark counts only the addressed buffers).
    #[test]
    fn a_missing_address_and_an_overfull_space_are_both_reported() {
        let found = check(&program(&[("Vec", 0, 131072, 1), ("Vec", -1, 256, 2), ("Vec", 131072, 131072, 3)]));
        assert_eq!(
            found,
            vec![
                (0, "MemRef for variable 't1' in Vec has no valid address allocated (addr=-1)".to_string()),
                (1, "Function 'k': Vec buffer usage (262144 bytes) exceeds platform limit (196608 bytes)".to_string()),
            ]
        );
    }

    #[test]
    fn usage_beyond_the_capacity_is_reported_per_space() {
        let found = check(&program(&[("Vec", 0, 131072, 1), ("Vec", 131072, 131072, 2), ("Acc", 0, 131072, 3)]));
        assert_eq!(
            found,
            vec![(
                1,
                "Function 'k': Vec buffer usage (262144 bytes) exceeds platform limit (196608 bytes)".to_string()
            )]
        );
    }
}
