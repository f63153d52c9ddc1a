//! Reading an operator call's kwargs: the value written in the call, or else the default the
//! operator table gives it (calls in the printed spelling are kept as written, so they may
//! lack defaulted kwargs). The interpreter, both backends and the type deduction read kwargs
//! through here, so a default is written once, in the table.

use super::modes::{CmpMode, RoundMode};
use super::table::{KwKind, OpDef};
use crate::ir::{Call, KwValue, MemorySpace, OpId, PipeType};

/// The value of kwarg `name` among `kwargs` of a call of `def`, or its table default.
pub fn value_or_default(def: &OpDef, kwargs: &[(&str, KwValue)], name: &str) -> Option<KwValue> {
    match kwargs.iter().find(|(k, _)| *k == name) {
        Some((_, v)) => Some(v.clone()),
        None => def.kwarg(name).and_then(|s| s.default).map(|d| d.value()),
    }
}

/// The value of kwarg `name` of `call`: as written, or the table default of the operator it
/// calls (a function call has no defaults).
pub fn kwarg(call: &Call, name: &str) -> Option<KwValue> {
    match call.callee.op() {
        Some(op) => value_or_default(super::def(op), &call.kwargs, name),
        None => call.kwargs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone()),
    }
}

pub fn int(call: &Call, name: &str) -> Option<i64> {
    match kwarg(call, name)? {
        KwValue::Int(i) => Some(i),
        _ => None,
    }
}

/// A bool kwarg; an int stands for a bool as in Python (`0` is false).
pub fn bool(call: &Call, name: &str) -> Option<bool> {
    match kwarg(call, name)? {
        KwValue::Bool(b) => Some(b),
        KwValue::Int(i) => Some(i != 0),
        _ => None,
    }
}

/// A memory-space kwarg; an int stands for the space of that index.
pub fn space(call: &Call, name: &str) -> Option<MemorySpace> {
    match kwarg(call, name)? {
        KwValue::Space(s) => Some(s),
        KwValue::Int(i) => MemorySpace::from_index(i),
        _ => None,
    }
}

/// `cast`'s rounding mode (kwarg `mode`).
pub fn round_mode(call: &Call) -> Option<RoundMode> {
    int(call, "mode").and_then(RoundMode::from_code)
}

/// `cmp`/`cmps`'s comparison (kwarg `cmp_type`).
pub fn cmp_mode(call: &Call) -> Option<CmpMode> {
    int(call, "cmp_type").and_then(CmpMode::from_code)
}

/// Whether kwarg `name` of `op` holds a pipe (stored as its code; the printer shows the
/// member).
pub fn is_pipe(op: OpId, name: &str) -> bool {
    super::def(op).kwarg(name).is_some_and(|k| k.kind == KwKind::Pipe)
}

/// The event of a sync op (`system.sync_src` / `sync_dst`): the pipe that sets it, the pipe
/// that waits for it, and its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SyncEvent {
    pub set_pipe: PipeType,
    pub wait_pipe: PipeType,
    pub id: i64,
}

/// The kwargs of a sync op for `e` (the inverse of [`sync_event_of`]).
pub fn sync_kwargs(e: SyncEvent) -> Vec<(&'static str, KwValue)> {
    vec![
        (SET_PIPE, KwValue::Int(e.set_pipe.index() as i64)),
        (WAIT_PIPE, KwValue::Int(e.wait_pipe.index() as i64)),
        (EVENT_ID, KwValue::Int(e.id)),
    ]
}

/// Gives a sync op's kwargs the event id `id`.
pub fn set_event_id(kwargs: &mut [(&'static str, KwValue)], id: i64) {
    for (k, v) in kwargs.iter_mut() {
        if *k == EVENT_ID {
            *v = KwValue::Int(id);
        }
    }
}

const SET_PIPE: &str = "set_pipe";
const WAIT_PIPE: &str = "wait_pipe";
const EVENT_ID: &str = "event_id";

/// The [`SyncEvent`] of a sync op's kwargs; `None` if one is missing or out of range.
pub fn sync_event_of(kwargs: &[(&str, KwValue)]) -> Option<SyncEvent> {
    let int = |name: &str| {
        kwargs.iter().find(|(k, _)| *k == name).and_then(|(_, v)| match v {
            KwValue::Int(i) => Some(*i),
            _ => None,
        })
    };
    Some(SyncEvent {
        set_pipe: PipeType::from_index(int(SET_PIPE)?)?,
        wait_pipe: PipeType::from_index(int(WAIT_PIPE)?)?,
        id: int(EVENT_ID)?,
    })
}
