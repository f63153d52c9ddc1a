//! How many cycles a kernel function takes on the a2a3 (910B) AI core: a model of its pipes
//! run on the final IR (after insert-sync and allocate-memory-addr; docs/performance.md, "How
//! fast is a kernel").
//!
//! The function's instruction stream ([`trace`]: loops unrolled, each op's instructions with
//! their cost from [`cost`]) is issued by the hardware's rules:
//! * one in-order queue per pipe (S, MTE2, MTE1, M, V, MTE3, FIX): an instruction starts when
//!   its pipe finished the previous one; pipes overlap;
//! * an instruction waits for the scalar unit's last `TASSIGN` (the address it uses);
//! * `set_flag(P, Q, id)` signals once every instruction issued on P so far has ended;
//!   `wait_flag(P, Q, id)` holds Q's queue until a matching signal (each signal is consumed
//!   once; a wait with no signal outstanding is counted in [`Estimate::unmatched_waits`] and
//!   does not block);
//! * `pipe_barrier(PIPE_X)` orders within X, which its in-order queue already does: free;
//! * `pipe_barrier(PIPE_ALL)` drains: every pipe waits until all have finished
//!   ([`BarrierAll::Drain`]). Perf-Sim, pto-isa's cost model, records it as a no-op;
//!   [`BarrierAll::Free`] does the same, for calibrating against it.
//!
//! The model depends on the IR, the effect model and the operator table only.

pub mod cost;
pub mod trace;

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::analysis::effects::Event;
use crate::backend::Backend;
use crate::ir::{Function, PipeType};
use trace::Item;

/// How `pipe_barrier(PIPE_ALL)` is modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierAll {
    /// Every pipe waits until all pipes have finished what they were given (the hardware).
    Drain,
    /// No effect (Perf-Sim's reading of a kernel-level barrier).
    Free,
}

/// What the model assumes where the IR does not say.
#[derive(Clone, Debug)]
pub struct Options {
    /// Trip count of a loop whose bounds are not known.
    pub default_trips: u64,
    /// Value of an integer / float scalar parameter (Perf-Sim's harness passes 2 and 0.5).
    pub scalar_int: i64,
    pub scalar_float: f64,
    /// A runtime (symbolic) tensor dimension: Perf-Sim's harness gives every tensor argument
    /// the shape 1 in each dimension.
    pub runtime_dim: i64,
    pub barrier_all: BarrierAll,
    /// The stream is cut after this many items (instructions and syncs).
    pub max_items: usize,
    /// A `while` loop stops after this many trips.
    pub max_while_trips: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            default_trips: 2,
            scalar_int: 2,
            scalar_float: 0.5,
            runtime_dim: 1,
            barrier_all: BarrierAll::Drain,
            max_items: 200_000,
            max_while_trips: 10_000,
        }
    }
}

/// The pipes the model schedules, in report order.
pub const PIPES: [PipeType; 7] =
    [PipeType::Mte2, PipeType::Mte1, PipeType::M, PipeType::Fix, PipeType::V, PipeType::Mte3, PipeType::S];

/// One instruction as scheduled.
#[derive(Clone, Debug, PartialEq)]
pub struct Slice {
    pub pipe: PipeType,
    pub name: &'static str,
    pub start: u64,
    pub end: u64,
    pub shape: Option<cost::Shape>,
}

/// A set → wait edge: the signal at `from` on the set pipe releases the wait pipe at `to`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlagFlow {
    pub event: Event,
    pub from: u64,
    pub to: u64,
}

/// The model's result for one function.
#[derive(Clone, Debug, Default)]
pub struct Estimate {
    /// Cycles until every pipe has finished.
    pub cycles: u64,
    /// Busy cycles per pipe (the sum of its instructions' cycles).
    pub busy: BTreeMap<PipeType, u64>,
    pub slices: Vec<Slice>,
    pub flows: Vec<FlagFlow>,
    /// Trip counts and conditions the walk did not know and assumed ([`Options`]).
    pub assumed: usize,
    /// Waits that found no signal outstanding.
    pub unmatched_waits: usize,
    /// The stream was longer than [`Options::max_items`] and was cut.
    pub truncated: bool,
}

impl Estimate {
    /// The critical-pipe bound: the busiest pipe's busy cycles (no schedule is shorter).
    pub fn bound(&self) -> u64 {
        self.busy.values().copied().max().unwrap_or(0)
    }
    /// The busiest pipe.
    pub fn critical_pipe(&self) -> Option<PipeType> {
        PIPES.iter().copied().filter(|p| self.busy.get(p).copied().unwrap_or(0) > 0).max_by_key(|p| self.busy[p])
    }
}

/// The pipe's name in Perf-Sim's report (`MTE2`, `CUBE`, `VEC`, `Scalar`, …).
pub fn pipe_label(p: PipeType) -> &'static str {
    match p {
        PipeType::M => "CUBE",
        PipeType::V => "VEC",
        PipeType::Fix => "FIXP",
        PipeType::S => "Scalar",
        other => other.name(),
    }
}

/// The cycle model's estimate for kernel function `f`.
pub fn estimate(f: &Function, backend: Backend, opts: &Options) -> Estimate {
    let t = trace::trace(f, backend, opts);
    let mut est = schedule(&t.items, opts);
    est.assumed = t.assumed;
    est.truncated = t.truncated;
    est
}

/// Issues `items` by the rules of the module doc.
pub fn schedule(items: &[Item], opts: &Options) -> Estimate {
    let mut est = Estimate::default();
    let mut free: HashMap<PipeType, u64> = HashMap::new();
    let mut last_scalar = 0u64;
    let mut signals: HashMap<Event, VecDeque<u64>> = HashMap::new();
    // Whether the vector stream is open: its next instruction overlaps its startup away.
    let mut stream_open = false;
    for item in items {
        match item {
            Item::Instr(i) => {
                let at = free.get(&i.pipe).copied().unwrap_or(0);
                let start = if i.pipe == PipeType::S { at } else { at.max(last_scalar) };
                let mut cycles = i.cycles;
                if i.pipe == PipeType::V {
                    if !stream_open {
                        cycles += cost::vector_startup(i.name);
                    }
                    stream_open = !cost::ends_vector_stream(i.name);
                }
                let end = start + cycles;
                free.insert(i.pipe, end);
                if i.pipe == PipeType::S {
                    last_scalar = end;
                }
                *est.busy.entry(i.pipe).or_default() += cycles;
                est.slices.push(Slice { pipe: i.pipe, name: i.name, start, end, shape: i.shape });
            }
            Item::Set(e) => {
                let at = free.get(&e.set_pipe).copied().unwrap_or(0);
                signals.entry(*e).or_default().push_back(at);
            }
            Item::Wait(e) => match signals.get_mut(e).and_then(VecDeque::pop_front) {
                Some(at) => {
                    let q = free.entry(e.wait_pipe).or_default();
                    let from = at;
                    *q = (*q).max(at);
                    est.flows.push(FlagFlow { event: *e, from, to: *q });
                }
                None => est.unmatched_waits += 1,
            },
            Item::Barrier => {}
            Item::BarrierAll => {
                if opts.barrier_all == BarrierAll::Drain {
                    let all = free.values().copied().max().unwrap_or(0);
                    for p in PIPES {
                        free.insert(p, all);
                    }
                    last_scalar = last_scalar.max(all);
                }
            }
        }
    }
    est.cycles = free.values().copied().max().unwrap_or(0);
    est
}

#[cfg(test)]
mod tests {
    use super::*;
    use cost::Instr;

    fn op(pipe: PipeType, cycles: u64) -> Item {
        Item::Instr(Instr { pipe, name: "T", cycles, shape: None })
    }

    fn ev(set_pipe: PipeType, wait_pipe: PipeType) -> Event {
        Event { set_pipe, wait_pipe, id: 0 }
    }

    fn run(items: &[Item], barrier_all: BarrierAll) -> Estimate {
        schedule(items, &Options { barrier_all, ..Options::default() })
    }

    /// Pipes overlap; one pipe's instructions run one after another.
    #[test]
    fn pipes_overlap_and_queues_are_in_order() {
        let e = run(&[op(PipeType::Mte2, 100), op(PipeType::Mte3, 50), op(PipeType::Mte2, 100)], BarrierAll::Drain);
        assert_eq!(e.cycles, 200);
        assert_eq!(e.busy[&PipeType::Mte2], 200);
        assert_eq!(e.bound(), 200);
        assert_eq!(e.critical_pipe(), Some(PipeType::Mte2));
    }

    /// A wait holds its pipe until the matching set's producer has finished; the flow runs from
    /// the signal to the release.
    #[test]
    fn a_wait_blocks_its_pipe_until_the_set() {
        let e = ev(PipeType::Mte2, PipeType::Mte3);
        let got =
            run(&[op(PipeType::Mte2, 100), Item::Set(e), Item::Wait(e), op(PipeType::Mte3, 50)], BarrierAll::Drain);
        assert_eq!(got.cycles, 150);
        assert_eq!(got.flows, vec![FlagFlow { event: e, from: 100, to: 100 }]);
        assert_eq!(got.slices[1].start, 100);
        // A wait with no signal outstanding does not block, and is counted.
        let lone = run(&[op(PipeType::Mte2, 100), Item::Wait(e), op(PipeType::Mte3, 50)], BarrierAll::Drain);
        assert_eq!((lone.cycles, lone.unmatched_waits), (100, 1));
    }

    /// `pipe_barrier(PIPE_ALL)` drains every pipe, unless modelled as Perf-Sim does.
    #[test]
    fn barrier_all_drains_or_is_free() {
        let items = [op(PipeType::Mte2, 100), Item::BarrierAll, op(PipeType::Mte3, 50)];
        assert_eq!(run(&items, BarrierAll::Drain).cycles, 150);
        assert_eq!(run(&items, BarrierAll::Free).cycles, 100);
    }

    /// The first vector instruction pays the pipe's startup latency, the next ones do not; a
    /// device instruction waits for the scalar unit's last TASSIGN.
    #[test]
    fn vector_startup_and_scalar_addresses() {
        let e = run(&[op(PipeType::S, 3), op(PipeType::V, 10), op(PipeType::V, 10)], BarrierAll::Drain);
        assert_eq!(e.slices[1].start, 3);
        assert_eq!(e.cycles, 3 + 10 + cost::vector_startup("T") + 10);
    }
}
