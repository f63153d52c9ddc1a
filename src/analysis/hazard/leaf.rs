//! A leaf as the hazard analysis reads it: [`crate::analysis::effects`]'s reading, with the
//! scalar unit's work (pipe S) no access, as no pipe's sync orders it.

use crate::analysis::effects::{self, memloc, Event, Kind, MemLoc};
use crate::backend::Backend;
use crate::ir::{PipeType, Stmt, VarTable};

/// The effect of one leaf statement as the hazard analysis sees it: the leaf's
/// [`effects::kind`] with its MemRefs as locations, scalar work (pipe S) and malformed syncs as
/// [`Effect::Nothing`].
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

/// What a leaf is to the hazard analysis: [`effects::kind`], with the scalar unit's work (which
/// no pipe's sync orders) no access; [`Kind::Nothing`] for statements that are no leaf.
pub fn hazard_kind(s: &Stmt, backend: Backend) -> Kind {
    match effects::kind(s, backend) {
        Some(Kind::Access(PipeType::S)) | None => Kind::Nothing,
        Some(k) => k,
    }
}

/// The effect of a leaf (`Assign` or `Eval`) statement; other statements have none.
pub fn leaf_effect(vars: &VarTable, s: &Stmt, backend: Backend) -> Effect {
    match hazard_kind(s, backend) {
        Kind::Access(pipe) => {
            let (mut reads, mut writes) = (Vec::new(), Vec::new());
            effects::accesses(vars, s, &mut |mode, v| {
                if let Some(loc) = memloc(vars, v) {
                    if mode == effects::Mode::Write { &mut writes } else { &mut reads }.push(loc);
                }
            });
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
