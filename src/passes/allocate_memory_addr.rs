//! AllocateMemoryAddr (`passes-and-codegen.md` §2.11): addresses of on-chip MemRefs.
//!
//! Per function, the distinct MemRefs of the tile-typed variables and iter args of the body
//! are laid out per memory space, one after the other from address 0, each start rounded up
//! to 32 bytes. The order is the MemRef **id** (creation order), never an object address: the
//! reference sometimes orders by heap address and so is not deterministic (§6 Q7, Q24).
//!
//! A MemRef is a variable of its function's table (`VarKind::MemRef`) shared by every type
//! that mentions it, so giving it an address is rewriting its `addr` there once, plus the
//! address argument of its `block.alloc` statement. DDR MemRefs, and MemRefs no tile of the
//! body uses, keep their address.
//!
//! Unlike the reference (which leaves overflow to the AllocatedMemoryAddr verifier), the pass
//! itself reports a space whose buffers do not fit the 910B capacity ([`codes::MEMORY_CAPACITY`]):
//! an unaddressable program is an error of the input, whatever verification level is chosen.
//! The error says whether the tiles live at one point already exceed the capacity (the program
//! cannot fit: it points there and at each live tile) or only the layout does (it points at the
//! buffer that crosses the limit).

use std::collections::BTreeMap;

use super::{basic_memory_reuse, OptLevel, PassEnv};
use crate::backend::{align_up, capacity};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::visit::walk_stmts;
use crate::ir::{DataType, Expr, ExprKind, Function, MemorySpace, Stmt, VarId, VarKind, VarTable};

/// `allocate-memory-addr` on one function: lays out its on-chip MemRefs.
pub fn function(mut f: Function, env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    let placed = layout(&f);
    let errors = capacity_errors(&f, &placed, env);
    if !errors.is_empty() {
        return Err(errors);
    }
    for p in &placed {
        if let VarKind::MemRef(info) = &mut f.vars.var_mut(p.memref).kind {
            info.addr = address(p.addr);
        }
    }
    let addrs: BTreeMap<VarId, u64> = placed.iter().map(|p| (p.memref, p.addr)).collect();
    rewrite_allocs(&mut f.body, &addrs);
    Ok(f)
}

/// One MemRef with the address it gets.
#[derive(Clone, Debug, PartialEq)]
struct Placed {
    memref: VarId,
    space: MemorySpace,
    id: u64,
    size: u64,
    addr: u64,
}

/// The address layout of `f` (§2.11 steps 1–2): each non-DDR space from 0, MemRefs by
/// ascending id, `next = align32(addr + size)`. Returned in (space, id) order.
fn layout(f: &Function) -> Vec<Placed> {
    let vars = &f.vars;
    let mut placed: Vec<Placed> = body_tile_memrefs(vars, &f.body)
        .into_iter()
        .filter_map(|m| match &vars.var(m).kind {
            VarKind::MemRef(info) if info.space != MemorySpace::Ddr => {
                Some(Placed { memref: m, space: info.space, id: info.id, size: info.size, addr: 0 })
            }
            _ => None,
        })
        .collect();
    // Stable: two MemRef variables with one id (malformed input) keep first-seen order.
    placed.sort_by_key(|p| (p.space, p.id));
    let mut next = 0u64;
    let mut space = None;
    for p in &mut placed {
        if space != Some(p.space) {
            space = Some(p.space);
            next = 0;
        }
        p.addr = next;
        next = align_up(next.saturating_add(p.size));
    }
    placed
}

/// The address constant stored in a MemRef and in its `block.alloc` call (INT64, like the
/// `-1` it replaces).
fn address(addr: u64) -> Expr {
    Expr::int(i64::try_from(addr).unwrap_or(i64::MAX), DataType::Int64, Span::NONE)
}

/// The distinct MemRef variables carried by tile-typed variables of `body` (§2.11 step 1).
pub(crate) fn body_tile_memrefs(vars: &VarTable, body: &Stmt) -> Vec<VarId> {
    let mut seen = Vec::new();
    for v in crate::analysis::visit_order::tile_vars_in_visit_order(vars, body) {
        if let Some(m) = vars.var_type(v).memref() {
            if !seen.contains(&m) {
                seen.push(m);
            }
        }
    }
    seen
}

/// Sets the address argument (index 1) of each `m = block.alloc(space, addr, size, id)` whose
/// MemRef `m` got an address.
fn rewrite_allocs(s: &mut Stmt, addrs: &BTreeMap<VarId, u64>) {
    match s {
        Stmt::Assign { var, value, .. } => {
            if let (Some(&a), ExprKind::Call(call)) = (addrs.get(var), &mut value.kind) {
                let is_alloc = call.callee.is_op(crate::ops::id::ALLOC);
                if is_alloc && call.args.len() == 4 {
                    let span = call.args[1].span;
                    call.args[1] = Expr { span, ..address(a) };
                }
            }
        }
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter_mut().for_each(|c| rewrite_allocs(c, addrs)),
        Stmt::If { then_body, else_body, .. } => {
            rewrite_allocs(then_body, addrs);
            if let Some(e) = else_body {
                rewrite_allocs(e, addrs);
            }
        }
        Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Scope { body, .. } => rewrite_allocs(body, addrs),
        Stmt::Yield { .. } | Stmt::Return { .. } | Stmt::Eval { .. } | Stmt::Break { .. } | Stmt::Continue { .. } => {}
    }
}

/// One error per memory space whose layout ends beyond the 910B capacity (§3.2). When the
/// buffers live at one program point already take more than the capacity, no placement can fit
/// them: the error points at that statement and labels each live tile at its definition. Else
/// only the layout is too long (buffers never live together were not shared): the error points
/// at the first buffer that does not fit and says how many bytes are live at most.
fn capacity_errors(f: &Function, placed: &[Placed], env: &PassEnv) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for space in MemorySpace::ALL.iter().copied() {
        let limit = capacity(space);
        let in_space: Vec<&Placed> = placed.iter().filter(|p| p.space == space).collect();
        let needed = in_space.iter().map(|p| p.addr.saturating_add(p.size)).max().unwrap_or(0);
        if limit == 0 || needed <= limit {
            continue;
        }
        let peak = basic_memory_reuse::live_peak(f, space);
        match peak {
            Some(peak) if peak.bytes > limit => diags.push(peak_error(f, space, limit, &peak)),
            _ => {
                let Some(first) = in_space.iter().find(|p| p.addr.saturating_add(p.size) > limit) else { continue };
                diags.push(layout_error(f, space, (needed, limit), first, peak.map(|p| p.bytes), env));
            }
        }
    }
    diags
}

/// E0602 when the tiles live at one point need more than the capacity: the program does not
/// fit, whatever the placement.
fn peak_error(f: &Function, space: MemorySpace, limit: u64, peak: &basic_memory_reuse::Peak) -> Diagnostic {
    let vars = &f.vars;
    let span = if peak.stmt.is_none() { f.span } else { peak.stmt };
    let names: Vec<String> = peak.live.iter().map(|(v, _)| format!("`{}`", vars.var_name(*v))).collect();
    let mut d = Diagnostic::error(
        codes::MEMORY_CAPACITY,
        span,
        format!(
            "function '{}' needs {} bytes of {} memory at once, but the platform has {} bytes",
            f.name,
            peak.bytes,
            space.name(),
            limit
        ),
    )
    .with_label(format!("{} {} buffers are live here: {}", peak.live.len(), space.name(), names.join(", ")));
    for (v, size) in &peak.live {
        let Some(def) = defining_span(&f.body, *v) else { continue };
        if !def.same_range(span) {
            d = d.with_secondary(def, format!("`{}` ({size} bytes) is defined here and still live", vars.var_name(*v)));
        }
    }
    d.with_note(format!(
        "these tiles are all needed at this statement, so no placement of the {} buffers fits {} bytes",
        space.name(),
        limit
    ))
    .with_note(format!(
        "help: use smaller tiles (e.g. split each tile into halves), or split '{}' into functions that each keep fewer tiles live",
        f.name
    ))
}

/// E0602 when the layout is longer than the capacity but the tiles live at once would fit:
/// buffers never live together were not shared.
fn layout_error(
    f: &Function,
    space: MemorySpace,
    (needed, limit): (u64, u64),
    first: &Placed,
    peak: Option<u64>,
    env: &PassEnv,
) -> Diagnostic {
    let name = f.var_name(first.memref);
    let span = defining_stmt_span(&f.vars, &f.body, first.memref).unwrap_or(f.span);
    let mut d = Diagnostic::error(
        codes::MEMORY_CAPACITY,
        span,
        format!(
            "function '{}' needs {} bytes of {} memory, but the platform has {} bytes",
            f.name,
            needed,
            space.name(),
            limit
        ),
    )
    .with_label(format!(
        "buffer `{name}` ({} bytes at address {}) ends beyond the {} bytes of {}",
        first.size,
        first.addr,
        limit,
        space.name()
    ));
    if let Some(peak) = peak {
        d = d.with_note(format!(
            "the {} buffers of '{}' are laid out one after another, but at most {peak} bytes of them are live at once",
            space.name(),
            f.name
        ));
    }
    let help = match env.opt {
        OptLevel::O0 => {
            "help: -O1 and -O2 (the default) share buffers by lifetime, which may fit; or use smaller tiles"
        }
        OptLevel::O1 | OptLevel::O2 => {
            "help: use smaller tiles, or tiles of one size, which the lifetime plan packs without gaps"
        }
    };
    d.with_note(help)
}

/// The span of the assignment that defines tile variable `v`.
fn defining_span(body: &Stmt, v: VarId) -> Option<Span> {
    let mut found = None;
    walk_stmts(body, &mut |s| {
        if let Stmt::Assign { var, span, .. } = s {
            if *var == v && found.is_none() && !span.is_none() {
                found = Some(*span);
            }
        }
    });
    found
}

/// The statement that introduces MemRef `m`: its `block.alloc` assignment, else the first
/// assignment of a tile variable carrying it.
fn defining_stmt_span(vars: &VarTable, body: &Stmt, m: VarId) -> Option<Span> {
    let mut alloc = None;
    let mut tile_def = None;
    walk_stmts(body, &mut |s| {
        if let Stmt::Assign { var, span, .. } = s {
            if span.is_none() {
                return;
            }
            if *var == m && alloc.is_none() {
                alloc = Some(*span);
            } else if tile_def.is_none() && vars.var_type(*var).memref() == Some(m) {
                tile_def = Some(*span);
            }
        }
    });
    alloc.or(tile_def)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;

    fn run_src(src: &str) -> Result<String, Vec<Diagnostic>> {
        let prog = crate::driver::frontend(src).expect("input lowers");
        crate::passes::Transform::Function(function)
            .apply(prog.clone(), &PassEnv::new(Backend::Cce))
            .map(|p| crate::printer::print_program(&p))
    }

    /// A function with one Vec tile per entry of `sizes` (as `[n]` FP32 → 4n bytes), allocated
    /// in reverse id order so that statement order and id order differ.
    fn program(tiles: &[(u64, u64)]) -> String {
        let mut s = String::from(
            "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def f(self, x: pl.Tensor[[16384], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, -1, 65536, 0)]) -> pl.Tensor[[16384], pl.FP32]:\n",
        );
        for (id, n) in tiles {
            s += &format!(
                "        mem_vec_{id}: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, -1, {}, {id})\n",
                n * 4
            );
        }
        for (id, n) in tiles {
            s += &format!(
                "        t{id}: pl.Tile[[{n}], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, {}, {id})] = pl.block.load(x, [0], [{n}], target_memory=pl.MemorySpace.Vec)\n",
                n * 4
            );
        }
        s + "        return x\n"
    }

    #[test]
    fn addresses_follow_ids_and_align_to_32() {
        // ids 3 (100 B... as 25 floats), 1 (4096 B), 2 (100 B): id order 1, 2, 3.
        let out = run_src(&program(&[(3, 25), (1, 1024), (2, 25)])).unwrap();
        assert!(out.contains("mem_vec_1: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 0, 4096, 1)"), "{out}");
        assert!(out.contains("mem_vec_2: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 4096, 100, 2)"), "{out}");
        assert!(out.contains("mem_vec_3: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 4224, 100, 3)"), "{out}");
        assert!(out.contains("t3: pl.Tile[[25], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, 4224, 100, 3)]"), "{out}");
        assert!(out.contains("pl.MemRef(pl.MemorySpace.DDR, -1, 65536, 0)"), "{out}");
    }

    #[test]
    fn overflow_is_an_error_at_the_buffer_that_does_not_fit() {
        // 3 × 64 KiB fits exactly (196608); a fourth buffer does not.
        let fits = program(&[(1, 16384), (2, 16384), (3, 16384)]);
        assert!(run_src(&fits).is_ok());
        let src = program(&[(1, 16384), (2, 16384), (3, 16384), (4, 8)]);
        let diags = run_src(&src).unwrap_err();
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, codes::MEMORY_CAPACITY);
        assert_eq!(
            diags[0].message,
            "function 'f' needs 196640 bytes of Vec memory, but the platform has 196608 bytes"
        );
        let at = &src[diags[0].span.range()];
        assert!(at.starts_with("mem_vec_4: pl.MemRefType"), "{at}");
    }

    #[test]
    fn empty_functions_and_ddr_only_functions_are_unchanged() {
        let src = program(&[]);
        let prog = crate::driver::frontend(&src).unwrap();
        let out =
            crate::passes::Transform::Function(function).apply(prog.clone(), &PassEnv::new(Backend::Cce)).unwrap();
        assert_eq!(crate::printer::print_program(&out), crate::printer::print_program(&prog));
    }
}
