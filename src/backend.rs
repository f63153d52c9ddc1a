//! The 910B backend model as data (spec `passes-and-codegen.md` §3): memory capacities and
//! alignments, the memory path graph, and which pipe executes an op. The backend is a value
//! ([`Backend`]) passed to passes and codegen, never process-wide state. The pipe of each op is
//! a column of the operator table ([`crate::ops::OpDef::pipe_cce`] / `pipe_pto`).

use crate::ir::{MemorySpace, OpId, PipeType};

/// The backend a pass or codegen targets (spec README §2.7). Passes differ only by the pipe
/// table they read; C++ emission is CCE only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Cce,
    Pto,
}

/// On-core capacity of a memory space in bytes; 0 for DDR ("no limit").
pub fn capacity(space: MemorySpace) -> u64 {
    match space {
        MemorySpace::Ddr => 0,
        MemorySpace::Vec => 196_608,
        MemorySpace::Mat => 524_288,
        MemorySpace::Left => 65_536,
        MemorySpace::Right => 65_536,
        MemorySpace::Acc => 131_072,
    }
}

/// Address alignment of a memory space in bytes (informational in the reference; 0 for DDR).
pub fn alignment(space: MemorySpace) -> u64 {
    match space {
        MemorySpace::Ddr => 0,
        MemorySpace::Vec | MemorySpace::Mat | MemorySpace::Acc => 128,
        MemorySpace::Left | MemorySpace::Right => 64,
    }
}

/// The direct data paths between memories, each with its successors in the reference's order.
fn successors(space: MemorySpace) -> &'static [MemorySpace] {
    use MemorySpace::*;
    match space {
        Ddr => &[Vec, Mat],
        Vec => &[Ddr],
        Mat => &[Left, Right],
        Acc => &[Mat, Ddr],
        Left | Right => &[],
    }
}

/// The shortest path of memories from `from` to `to` (breadth-first, successors in the
/// reference's order), both ends included: DDR → Left is `[DDR, Mat, Left]`.
pub fn memory_path(from: MemorySpace, to: MemorySpace) -> Option<Vec<MemorySpace>> {
    let mut prev: [Option<MemorySpace>; 6] = [None; 6];
    let mut seen = [false; 6];
    let mut queue = std::collections::VecDeque::from([from]);
    seen[from.index()] = true;
    while let Some(m) = queue.pop_front() {
        if m == to {
            let mut path = vec![to];
            let mut cur = to;
            while let Some(p) = prev[cur.index()] {
                path.push(p);
                cur = p;
            }
            path.reverse();
            return Some(path);
        }
        for &n in successors(m) {
            if !seen[n.index()] {
                seen[n.index()] = true;
                prev[n.index()] = Some(m);
                queue.push_back(n);
            }
        }
    }
    None
}

/// Start addresses are rounded up to this many bytes (not the SoC's 64/128, as observed).
pub const ALIGN: u64 = 32;

/// `(x + 31) & !31`, saturating instead of wrapping on absurd sizes: where the next MemRef
/// starts after one of `x` bytes (also what the `-O1` memory plan counts a buffer as).
pub fn align_up(x: u64) -> u64 {
    x.saturating_add(ALIGN - 1) & !(ALIGN - 1)
}

/// The pipe that executes `op` on `backend`; `None` when the backend has no entry for it.
pub fn pipe(op: OpId, backend: Backend) -> Option<PipeType> {
    let def = crate::ops::def(op);
    match backend {
        Backend::Cce => def.pipe_cce,
        Backend::Pto => def.pipe_pto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MemorySpace::*;

    #[test]
    fn memory_paths_follow_the_graph() {
        assert_eq!(memory_path(Ddr, Left), Some(vec![Ddr, Mat, Left]));
        assert_eq!(memory_path(Acc, Ddr), Some(vec![Acc, Ddr]));
        assert_eq!(memory_path(Vec, Vec), Some(vec![Vec]));
        assert_eq!(memory_path(Left, Ddr), None);
    }

    #[test]
    fn capacities_of_the_910b() {
        assert_eq!(capacity(Vec), 192 * 1024);
        assert_eq!(capacity(Ddr), 0);
        assert_eq!(alignment(Left), 64);
    }

    #[test]
    fn pipes_come_from_the_operator_table_per_backend() {
        let op = |n| crate::ops::lookup(n).unwrap();
        assert_eq!(pipe(op("block.store"), Backend::Cce), Some(PipeType::Mte3));
        assert_eq!(pipe(op("block.store"), Backend::Pto), Some(PipeType::Mte2));
        assert_eq!(pipe(op("block.l0c_store"), Backend::Cce), Some(PipeType::Fix));
        assert_eq!(pipe(op("block.adds"), Backend::Cce), Some(PipeType::V));
        assert_eq!(pipe(op("block.create_tile"), Backend::Pto), None);
        assert_eq!(pipe(op("block.rem"), Backend::Cce), None);
        assert_eq!(pipe(op("block.rem"), Backend::Pto), Some(PipeType::V));
        assert_eq!(pipe(op("system.bar_v"), Backend::Cce), Some(PipeType::S));
        assert_eq!(pipe(op("tensor.add"), Backend::Cce), None);
    }
}
