//! What one leaf statement does, as the hazard checker sees it: a memory access on a pipe
//! (MemRefs read and written), a sync op (set flag, wait flag, barrier), or nothing.
//!
//! The access rules are those of InsertSync (spec `passes-and-codegen.md` §2.10 "Leaf
//! effects"), so that the checker and the pass agree on what a dependency is: the MemRefs of the
//! tile/tensor variables an op's arguments mention are read (an iter arg reads its init value's
//! MemRef), the assigned variable's MemRef is written, and an op's `output_tensor`
//! argument (`block.store`, `block.l0c_store`) is written, not read. Ops without a pipe on the
//! backend (the scalar pipe S: function calls, unknown ops, plain copies) are not memory
//! accesses of any hardware pipe and are left out.

use crate::backend;
use crate::ir::visit::walk_expr;
use crate::ir::{Call, Callee, ExprKind, KwValue, MemorySpace, PipeType, Stmt, VarId, VarKind, VarTable};
use crate::ops::SyncOp;
use crate::passes::Backend;

/// A set/wait flag: `set_pipe` signals `wait_pipe` on hardware event `id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Event {
    pub set_pipe: PipeType,
    pub wait_pipe: PipeType,
    pub id: i64,
}

/// A MemRef as a memory location: its id (the MemRef's identity) and, when known, the byte
/// range it occupies (to see overlaps between different MemRefs after address allocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemLoc {
    pub id: u64,
    pub space: MemorySpace,
    /// Start address, when allocated (a constant ≥ 0).
    pub addr: Option<u64>,
    pub size: u64,
}

impl MemLoc {
    /// Whether two locations may share bytes: the same MemRef, or overlapping allocated ranges
    /// in the same on-chip memory. DDR addresses in the IR do not place tensors (each parameter
    /// is its own buffer), so DDR MemRefs alias only by id.
    pub fn aliases(&self, other: &MemLoc) -> bool {
        if self.id == other.id {
            return true;
        }
        match (self.addr, other.addr) {
            (Some(a), Some(b)) if self.space == other.space && self.space != MemorySpace::Ddr => {
                a < b.saturating_add(other.size.max(1)) && b < a.saturating_add(self.size.max(1))
            }
            _ => false,
        }
    }
    /// The MemRef's derived name (`mem_vec_3`).
    pub fn name(&self) -> String {
        format!("mem_{}_{}", self.space.lower_name(), self.id)
    }
}

/// The effect of one leaf statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// An op executed by `pipe` that reads and writes these MemRefs (sorted, deduplicated).
    Access { pipe: PipeType, reads: Vec<MemLoc>, writes: Vec<MemLoc> },
    /// `pl.system.sync_src`: set_flag on the event's set pipe.
    Set(Event),
    /// `pl.system.sync_dst`: wait_flag on the event's wait pipe.
    Wait(Event),
    /// `pl.system.bar_v` / `bar_m`: a barrier of one pipe.
    PipeBarrier(PipeType),
    /// `pl.system.bar_all`: every pipe drains.
    BarrierAll,
    /// No memory access and no synchronisation (scalar work, yields, allocs, …).
    Nothing,
}

impl Effect {
    /// A set, a wait or a barrier.
    pub fn is_sync(&self) -> bool {
        matches!(self, Effect::Set(_) | Effect::Wait(_) | Effect::PipeBarrier(_) | Effect::BarrierAll)
    }
}

/// The effect of a leaf (`Assign` or `Eval`) statement; other statements have none.
pub fn leaf_effect(vars: &VarTable, s: &Stmt, backend: Backend) -> Effect {
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    let kind = leaf_access(vars, s, backend, &mut |write, v| {
        if let Some(loc) = memloc(vars, v) {
            if write { &mut writes } else { &mut reads }.push(loc);
        }
    });
    match kind {
        Kind::Access(pipe) => {
            for list in [&mut reads, &mut writes] {
                list.sort_unstable();
                list.dedup();
            }
            Effect::Access { pipe, reads, writes }
        }
        Kind::Set(e) => Effect::Set(e),
        Kind::Wait(e) => Effect::Wait(e),
        Kind::PipeBarrier(p) => Effect::PipeBarrier(p),
        Kind::BarrierAll => Effect::BarrierAll,
        Kind::Nothing => Effect::Nothing,
    }
}

/// An [`Effect`] without its MemRefs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Access(PipeType),
    Set(Event),
    Wait(Event),
    PipeBarrier(PipeType),
    BarrierAll,
    Nothing,
}

/// What a leaf does, with each variable whose MemRef an access reads or writes given to `mem`
/// (`true`: a write; an iter arg stands for its init value, as in insert-sync), in operand
/// order, repeats and variables without a MemRef included ([`memloc`] tells): the one reading
/// of a leaf that [`leaf_effect`] and the checker's preparation (which numbers the MemRefs it
/// meets by their variables) share.
pub fn leaf_access(vars: &VarTable, s: &Stmt, backend: Backend, mem: &mut impl FnMut(bool, VarId)) -> Kind {
    let (lhs, value) = match s {
        Stmt::Assign { var, value, .. } => (Some(*var), value),
        Stmt::Eval { expr, .. } => (None, expr),
        _ => return Kind::Nothing,
    };
    let Some(call) = value.as_call() else { return Kind::Nothing };
    let Callee::Op(op) = call.callee else { return Kind::Nothing };
    match crate::ops::def(op).sync {
        Some(SyncOp::Set) => return event(call).map_or(Kind::Nothing, Kind::Set),
        Some(SyncOp::Wait) => return event(call).map_or(Kind::Nothing, Kind::Wait),
        Some(SyncOp::Barrier(pipe)) => return Kind::PipeBarrier(pipe),
        Some(SyncOp::BarrierAll) => return Kind::BarrierAll,
        None => {}
    }
    let pipe = match backend::pipe(op, backend) {
        Some(p) if p != PipeType::S => p,
        _ => return Kind::Nothing,
    };
    // Arguments named `output_tensor` are destinations of the op.
    let def = crate::ops::def(op);
    for (k, arg) in call.args.iter().enumerate() {
        let write = def.writes_arg(k);
        walk_expr(arg, &mut |x| {
            if let ExprKind::Var(v) = x.kind {
                // An iter arg's is its init value's, as in insert-sync.
                mem(write, crate::analysis::buffers::holder(vars, v));
            }
        });
    }
    if let Some(v) = lhs {
        mem(true, v);
    }
    Kind::Access(pipe)
}

/// The event of a sync op from its `set_pipe` / `wait_pipe` / `event_id` kwargs (ints in the
/// IR); `None` if one is missing or out of range.
fn event(call: &Call) -> Option<Event> {
    let int = |name: &str| {
        call.kwargs.iter().find(|(k, _)| *k == name).and_then(|(_, v)| match v {
            KwValue::Int(i) => Some(*i),
            _ => None,
        })
    };
    Some(Event {
        set_pipe: PipeType::from_index(int("set_pipe")?)?,
        wait_pipe: PipeType::from_index(int("wait_pipe")?)?,
        id: int("event_id")?,
    })
}

/// The location of a tile/tensor variable's MemRef, if it has one.
pub fn memloc(vars: &VarTable, v: VarId) -> Option<MemLoc> {
    let m = vars.var_type(v).memref()?;
    let VarKind::MemRef(info) = &vars.get(m)?.kind else { return None };
    let addr = info.addr.as_const_int().and_then(|a| u64::try_from(a).ok());
    Some(MemLoc { id: info.id, space: info.space, addr, size: info.size })
}
