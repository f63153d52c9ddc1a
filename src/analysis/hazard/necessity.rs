//! Sync ops that are needed, shown without an analysis per op: a wait or barrier that is the
//! only op between two conflicting accesses that could order them.
//!
//! The argument, for accesses `a` (earlier) and `b` on pipe Q that conflict on a MemRef `m`
//! (`a` writes `m` and `b` reads or writes it, or `a` reads it and `b` writes it): take a path
//! from `a` to `b` in straight-line code, or from `a` to the end of a loop body and over the back
//! edge to `b` at the start of the body, on which nothing else writes `m` (so `a` stays among
//! its last writers or readers) and exactly one op could take `a` off Q's pending set: a wait on
//! pipe Q, a `bar_all`, or a barrier of Q when `a` is on Q too. The analysis joins paths by
//! union, so with that op deleted `a` is pending at `b` whatever else is deleted, and reports
//! `Dependency { a, b }` — in the last round of every loop too, as the loop head holds the state
//! of its own back edge. If the original program's analysis did not report that finding, every
//! deletion that includes the op creates a finding: the op is needed, and remove-redundant-sync
//! need not try it. On a generated 50k-line program this settles all but 2–3 of the ~500 sync
//! ops of each function.
//!
//! Paths through `if`s or nested loops are not followed (only sequences): what this does not
//! show is left to the analysis.

use std::collections::BTreeSet;

use super::dataflow::{Finding, Fx, LeafSet, Prepared, SyncModel};
use super::DepKind;
use crate::ir::Stmt;

/// The waits and barriers of `body` shown needed. `allowed`: the findings of the analysis of
/// the unchanged body; `reached`: the leaves it reached.
pub fn needed(
    prep: &Prepared,
    body: &Stmt,
    model: &SyncModel,
    allowed: &BTreeSet<Finding>,
    reached: &LeafSet,
) -> LeafSet {
    let mut runs = Runs::default();
    runs.stmt(body);
    runs.close();
    let mut scan = Scan::new(prep, model, allowed, reached);
    let mut seq: Vec<u32> = Vec::new();
    // A loop body's last run, then over the back edge its first run (the same one when the
    // body is one run). That scan also sees every pair within either run, so those runs need
    // no scan of their own.
    let mut wrapped = vec![false; runs.runs.len()];
    for &(last, first) in &runs.wraps {
        wrapped[last] = true;
        wrapped[first] = true;
    }
    for (r, _) in runs.runs.iter().zip(&wrapped).filter(|(_, w)| !**w) {
        seq.clear();
        seq.extend_from_slice(&runs.leaves[r.0..r.1]);
        scan.sequence(&seq);
    }
    for &(last, first) in &runs.wraps {
        let (l, f) = (runs.runs[last], runs.runs[first]);
        seq.clear();
        seq.extend_from_slice(&runs.leaves[l.0..l.1]);
        seq.extend_from_slice(&runs.leaves[f.0..f.1]);
        scan.sequence(&seq);
    }
    scan.needed
}

/// The straight-line runs of a body: maximal lists of consecutive leaves with no control flow
/// between them (sequences are flattened; `yield` does nothing to the state).
#[derive(Default)]
struct Runs {
    /// Leaf ids of all runs, one run after the other.
    leaves: Vec<u32>,
    /// (start, end) in `leaves`, and the number of control-flow events before the run began.
    runs: Vec<(usize, usize)>,
    starts: Vec<u32>,
    /// The run being built begins at `leaves[open..]`.
    open: usize,
    open_events: u32,
    /// Control-flow statements met so far (each `if`, loop, scope, return, break, continue
    /// counts on entry and on exit).
    events: u32,
    /// (last run of a loop body, first run of it), for bodies that begin and end with a run.
    wraps: Vec<(usize, usize)>,
    next: u32,
}

impl Runs {
    fn close(&mut self) {
        if self.leaves.len() > self.open {
            self.runs.push((self.open, self.leaves.len()));
            self.starts.push(self.open_events);
        }
        self.open = self.leaves.len();
    }

    /// Ends the current run at a control-flow boundary.
    fn boundary(&mut self) {
        self.close();
        self.events += 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|c| self.stmt(c)),
            Stmt::Assign { .. } | Stmt::Eval { .. } => {
                if self.leaves.len() == self.open {
                    self.open_events = self.events;
                }
                self.leaves.push(self.next);
                self.next += 1;
            }
            Stmt::Yield { .. } => {}
            Stmt::If { then_body, else_body, .. } => {
                self.boundary();
                self.stmt(then_body);
                self.boundary();
                if let Some(e) = else_body {
                    self.stmt(e);
                }
                self.boundary();
            }
            Stmt::For { body, .. } | Stmt::While { body, .. } => {
                self.boundary();
                let (entry_events, first) = (self.events, self.runs.len());
                self.stmt(body);
                let ends_with_run = self.leaves.len() > self.open;
                self.boundary();
                // The body's first run begins the body if no control flow came before it.
                if ends_with_run && self.runs.len() > first && self.starts[first] == entry_events {
                    self.wraps.push((self.runs.len() - 1, first));
                }
            }
            Stmt::Scope { body, .. } => {
                self.boundary();
                self.stmt(body);
                self.boundary();
            }
            Stmt::Return { .. } | Stmt::Break { .. } | Stmt::Continue { .. } => self.boundary(),
        }
    }
}

const NONE: u32 = u32::MAX;

/// The scan of one straight-line sequence of leaves (positions index the sequence).
struct Scan<'a> {
    prep: &'a Prepared,
    in_order: [bool; 8],
    allowed: &'a BTreeSet<Finding>,
    reached: &'a LeafSet,
    needed: LeafSet,
    /// Per MemRef location: the position of its last writer, and of its readers since.
    writer: Vec<u32>,
    readers: Vec<Vec<u32>>,
    touched: Vec<u32>,
    /// Per pipe Q, the positions of the ops that may take an access of another pipe off Q's
    /// pending set (waits on Q, `bar_all`) …
    removers: [Vec<u32>; 8],
    /// … and those that may take one of Q's own accesses off it (also Q's barriers).
    own_removers: [Vec<u32>; 8],
}

impl<'a> Scan<'a> {
    fn new(prep: &'a Prepared, model: &SyncModel, allowed: &'a BTreeSet<Finding>, reached: &'a LeafSet) -> Self {
        let mut in_order = [true; 8];
        for p in &model.barrier_pipes {
            in_order[p.index()] = false;
        }
        Scan {
            prep,
            in_order,
            allowed,
            reached,
            needed: prep.leaf_set(),
            writer: vec![NONE; prep.locs.len()],
            readers: vec![Vec::new(); prep.locs.len()],
            touched: Vec::new(),
            removers: Default::default(),
            own_removers: Default::default(),
        }
    }

    fn sequence(&mut self, seq: &[u32]) {
        for &m in &self.touched {
            self.writer[m as usize] = NONE;
            self.readers[m as usize].clear();
        }
        self.touched.clear();
        self.removers.iter_mut().chain(&mut self.own_removers).for_each(Vec::clear);
        let prep = self.prep;
        for (k, &leaf) in seq.iter().enumerate() {
            let k = k as u32;
            match prep.fx[leaf as usize] {
                Fx::Access { r, w, .. } => {
                    let reads = &prep.mems[r.0 as usize..r.1 as usize];
                    let writes = &prep.mems[w.0 as usize..w.1 as usize];
                    for &m in reads {
                        self.try_pair(seq, self.writer[m as usize], k, DepKind::Raw, m);
                    }
                    for &m in writes {
                        self.try_pair(seq, self.writer[m as usize], k, DepKind::Waw, m);
                        for i in 0..self.readers[m as usize].len() {
                            self.try_pair(seq, self.readers[m as usize][i], k, DepKind::War, m);
                        }
                    }
                    for &m in writes {
                        self.writer[m as usize] = k;
                        self.readers[m as usize].clear();
                        self.touched.push(m);
                    }
                    for &m in reads {
                        let rs = &mut self.readers[m as usize];
                        if rs.last() != Some(&k) {
                            rs.push(k);
                        }
                        self.touched.push(m);
                    }
                }
                Fx::Wait(e) => {
                    let q = e.wait_pipe.index();
                    self.removers[q].push(k);
                    self.own_removers[q].push(k);
                }
                Fx::Barrier(p) => self.own_removers[p as usize].push(k),
                Fx::All => {
                    for q in 0..8 {
                        self.removers[q].push(k);
                        self.own_removers[q].push(k);
                    }
                }
                Fx::Set(_) | Fx::Nothing => {}
            }
        }
    }

    /// Access at position `a` (if any) then access at `b`, conflicting on location `m`: if
    /// exactly one op between them could order them, and the analysis did not already report
    /// the pair, that op is needed.
    fn try_pair(&mut self, seq: &[u32], a: u32, b: u32, kind: DepKind, m: u32) {
        if a == NONE {
            return;
        }
        let (la, lb) = (seq[a as usize] as usize, seq[b as usize] as usize);
        let (Fx::Access { pipe: pa, .. }, Fx::Access { pipe: q, .. }) = (self.prep.fx[la], self.prep.fx[lb]) else {
            return;
        };
        let q = q as usize;
        if (pa as usize == q && self.in_order[q]) || !self.reached.contains(la) {
            return;
        }
        let list = if pa as usize == q { &self.own_removers[q] } else { &self.removers[q] };
        let n = list.len();
        // The removers before `b` are all in the list (it is built in order): exactly one
        // after `a`.
        if n == 0 || list[n - 1] < a || (n >= 2 && list[n - 2] > a) {
            return;
        }
        let finding = Finding::Dependency { first: la, second: lb, kind, mem: self.prep.locs[m as usize] };
        if !self.allowed.contains(&finding) {
            self.needed.insert(seq[list[n - 1] as usize] as usize);
        }
    }
}
