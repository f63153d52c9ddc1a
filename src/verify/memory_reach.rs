//! The memory-space check run before a kernel's C++ is emitted: every tile operand of an op
//! must be in a memory space that the unit executing the op can read (the operator table's
//! [`Reads`] column). A tile produced in one space and consumed where the hardware cannot reach
//! it (an Acc tile given to a vector op, a Vec tile moved to Left, a store from Left) has no
//! C++ form: pto-isa refuses it at compile time (`TMOV: Invalid TileType`, `TMATMUL`'s
//! `Loc == Left` asserts) or, for vector instructions, would read a UB address that is not
//! the tile. Reported at the consuming op, with the producing op as a secondary span.
//!
//! It is not one of the IR properties the passes keep, so that the IR-only passes keep the
//! reference's behaviour (they accept such programs): code generation runs it on a kernel
//! before writing any of its C++. The spaces are the ones InitMemRef gave the tiles' MemRefs.
//! Without MemRefs (`--pipeline none`) the check has nothing to read and passes.

use rustc_hash::FxHashMap;

use crate::diag::{codes, Diagnostic, Span};
use crate::ir::visit::{last_stmt, walk_stmts};
use crate::ir::{
    Callee, Expr, ExprKind, Function, KwValue, MemorySpace, OpId, PipeType, Stmt, Type, VarId, VarKind, VarTable,
};
use crate::ops::table::Reads;

/// Where a variable's value comes from.
#[derive(Clone, Copy)]
enum Def {
    /// Assigned from a call of `op` (the call's span).
    Op(OpId, Span),
    /// The same tile as another variable (an iter_arg and its init, a loop or `if` result and
    /// the value carried or yielded, a plain copy).
    Alias(VarId),
}

/// Checks every op call of kernel `f` in program order; the first offending operand is
/// reported, since the ops after it that use its result (an `l0c_store` of the vector op's
/// Vec result) are usually wrong only because of it.
pub fn check(f: &Function) -> Result<(), Diagnostic> {
    let vars = &f.vars;
    let defs = definitions(vars, &f.body);
    let mut found: Option<Diagnostic> = None;
    walk_stmts(&f.body, &mut |s| {
        if found.is_some() {
            return;
        }
        let value = match s {
            Stmt::Assign { value, .. } => value,
            Stmt::Eval { expr, .. } => expr,
            _ => return,
        };
        let Some(c) = value.as_call() else { return };
        let Callee::Op(op) = c.callee else { return };
        let reads = crate::ops::def(op).reads;
        if reads == Reads::Any {
            return;
        }
        let target = c.kwargs.iter().find(|(k, _)| *k == "target_memory").and_then(|(_, v)| match v {
            KwValue::Space(s) => Some(*s),
            KwValue::Int(i) => MemorySpace::from_index(*i),
            _ => None,
        });
        for (k, arg) in c.args.iter().enumerate() {
            let Some(allowed) = reads.arg(k, target) else { continue };
            let Some(v) = arg.as_var() else { continue };
            if !matches!(vars.var_type(v), Type::Tile(_)) {
                continue;
            }
            let root = root_of(&defs, v);
            let Some(space) = space_of(vars, v).or_else(|| space_of(vars, root)) else { continue };
            if allowed.contains(&space) {
                continue;
            }
            found = Some(report(vars, op, value.span, arg, v, space, allowed, target, defs.get(&root).copied()));
            return;
        }
    });
    match found {
        Some(d) => Err(d),
        None => Ok(()),
    }
}

/// The definition of every variable of `body` that is a tile produced by an op or an alias.
fn definitions(vars: &VarTable, body: &Stmt) -> FxHashMap<VarId, Def> {
    let mut defs = FxHashMap::default();
    let alias_iter_args = |defs: &mut FxHashMap<VarId, Def>, iter_args: &[VarId], return_vars: &[VarId]| {
        for (i, a) in iter_args.iter().enumerate() {
            if let VarKind::IterArg { init } = &vars.var(*a).kind {
                if let Some(v) = init.as_var() {
                    defs.insert(*a, Def::Alias(v));
                }
            }
            if let Some(r) = return_vars.get(i) {
                defs.insert(*r, Def::Alias(*a));
            }
        }
    };
    walk_stmts(body, &mut |s| match s {
        Stmt::Assign { var, value, .. } => match &value.kind {
            ExprKind::Call(c) => {
                if let Callee::Op(op) = c.callee {
                    defs.insert(*var, Def::Op(op, value.span));
                }
            }
            ExprKind::Var(v) => {
                defs.insert(*var, Def::Alias(*v));
            }
            _ => {}
        },
        Stmt::For { iter_args, return_vars, .. } | Stmt::While { iter_args, return_vars, .. } => {
            alias_iter_args(&mut defs, iter_args, return_vars)
        }
        Stmt::If { then_body, return_vars, .. } => {
            if let Stmt::Yield { values, .. } = last_stmt(then_body) {
                for (r, e) in return_vars.iter().zip(values) {
                    if let Some(v) = e.as_var() {
                        defs.insert(*r, Def::Alias(v));
                    }
                }
            }
        }
        _ => {}
    });
    defs
}

/// Follows aliases to the variable an op assigned (bounded: a malformed cycle stops).
fn root_of(defs: &FxHashMap<VarId, Def>, mut v: VarId) -> VarId {
    for _ in 0..defs.len() + 1 {
        match defs.get(&v) {
            Some(Def::Alias(w)) if *w != v => v = *w,
            _ => break,
        }
    }
    v
}

/// The on-chip space of `v`'s MemRef; `None` without one or for DDR (InitMemRef gives loop
/// and `if` results a DDR MemRef: their space is their source's).
fn space_of(vars: &VarTable, v: VarId) -> Option<MemorySpace> {
    let m = vars.var_type(v).memref()?;
    match &vars.var(m).kind {
        VarKind::MemRef(info) if info.space != MemorySpace::Ddr => Some(info.space),
        _ => None,
    }
}

/// The space with its hardware name: `Acc (L0C)`.
fn hw(space: MemorySpace) -> String {
    let hw = match space {
        MemorySpace::Ddr => "global memory",
        MemorySpace::Vec => "UB",
        MemorySpace::Mat => "L1",
        MemorySpace::Left => "L0A",
        MemorySpace::Right => "L0B",
        MemorySpace::Acc => "L0C",
    };
    format!("{} ({hw})", space.name())
}

fn list(spaces: &[MemorySpace]) -> String {
    let names: Vec<String> = spaces.iter().map(|s| hw(*s)).collect();
    match names.as_slice() {
        [] => "no memory".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The unit that executes `op` on the CCE backend, for the label.
fn unit(op: OpId) -> &'static str {
    match crate::ops::def(op).pipe_cce {
        Some(PipeType::V) => "the vector unit (V pipe)",
        Some(PipeType::M) => "the cube unit (M pipe)",
        Some(PipeType::Fix) => "the fixpipe (FIX)",
        Some(PipeType::Mte1) => "MTE1",
        Some(PipeType::Mte2) => "MTE2",
        Some(PipeType::Mte3) => "MTE3",
        _ => "its unit",
    }
}

#[allow(clippy::too_many_arguments)]
fn report(
    vars: &VarTable,
    op: OpId,
    at: Span,
    arg: &Expr,
    v: VarId,
    space: MemorySpace,
    allowed: &'static [MemorySpace],
    target: Option<MemorySpace>,
    producer: Option<Def>,
) -> Diagnostic {
    let name = crate::ops::name(op);
    // The name as written: convert-to-ssa added the version suffix.
    let var = crate::ir::base_name(vars.var_name(v));
    let reads = crate::ops::def(op).reads;
    let label = match (reads, target) {
        (Reads::MoveSource, Some(t)) => format!("a move to {} copies only from {}", hw(t), list(allowed)),
        _ => format!("{name} runs on {}, which reads this operand only from {}", unit(op), list(allowed)),
    };
    let at = if at.is_none() { arg.span } else { at };
    let mut d = Diagnostic::error(
        codes::OP_MEMORY_SPACE,
        at,
        format!("{name} cannot read `{var}`: it is in {}, and {name} reads it only from {}", hw(space), list(allowed)),
    )
    .with_label(label);
    if let Some(Def::Op(p, span)) = producer {
        if !span.is_none() {
            d = d.with_secondary(span, format!("`{var}` is in {}: written by {}", space.name(), crate::ops::name(p)));
        }
    }
    d.with_note(why(space)).with_note(format!("help: {}", instead(space, allowed, target)))
}

/// Why a tile in `space` is out of reach (pto-isa A2/A3, `backend::memory_path`).
fn why(space: MemorySpace) -> String {
    match space {
        MemorySpace::Acc => "Acc (L0C) is the cube unit's accumulator: only the fixpipe reads it (block.l0c_store to global memory, block.move to Mat); the vector unit reads only Vec (UB), and the fixpipe cannot scale an FP32 result into FP32 on the way out (its pre-quant converts only to FP16, BF16 or INT8)".to_string(),
        MemorySpace::Left | MemorySpace::Right => format!("{} is read only by the cube unit's matmul; nothing copies out of it", hw(space)),
        MemorySpace::Mat => "Mat (L1) feeds the cube unit: block.move copies it to Left or Right; the vector unit and the stores cannot read it".to_string(),
        MemorySpace::Vec => "Vec (UB) belongs to the vector core: the cube core (Mat, Left, Right, Acc) cannot read it, only a store to global memory leaves it".to_string(),
        MemorySpace::Ddr => "global memory is read only by block.load".to_string(),
    }
}

/// What to write instead of reading a tile in `space` where `allowed` is needed.
fn instead(space: MemorySpace, allowed: &[MemorySpace], target: Option<MemorySpace>) -> String {
    let wants = |s: MemorySpace| allowed.contains(&s);
    match space {
        MemorySpace::Acc if wants(MemorySpace::Vec) => "store the Acc tile with block.l0c_store to a tensor and load it into Vec (block.load(..., target_memory=pl.MemorySpace.Vec)) in a vector function".to_string(),
        MemorySpace::Acc if wants(MemorySpace::Left) || wants(MemorySpace::Right) => "move the Acc tile to Mat (block.move(t, target_memory=pl.MemorySpace.Mat)), then to Left or Right".to_string(),
        MemorySpace::Acc => "store the Acc tile with block.l0c_store, or move it to Mat (block.move(t, target_memory=pl.MemorySpace.Mat))".to_string(),
        MemorySpace::Vec if wants(MemorySpace::Acc) => "store a Vec tile with block.store".to_string(),
        MemorySpace::Vec => format!(
            "store the Vec tile with block.store to a tensor and load it into Mat (block.load(..., target_memory=pl.MemorySpace.Mat)) in a cube function{}",
            match target {
                Some(t @ (MemorySpace::Left | MemorySpace::Right)) => format!(", then move it to {}", t.name()),
                _ => String::new(),
            }
        ),
        MemorySpace::Mat if wants(MemorySpace::Left) || wants(MemorySpace::Right) => "move the Mat tiles to Left and Right first (block.move(t, target_memory=pl.MemorySpace.Left))".to_string(),
        MemorySpace::Mat => "load the tensor into Vec (block.load(..., target_memory=pl.MemorySpace.Vec)) for vector ops and block.store".to_string(),
        MemorySpace::Left | MemorySpace::Right => "store the matmul's result (Acc) with block.l0c_store, or store the tile before it is moved to Left or Right".to_string(),
        MemorySpace::Ddr => format!("load the tensor into {} first", list(allowed)),
    }
}
