//! Unit tests of the sync hazard checker, on small kernels written as `.pto` text.

use super::*;
use crate::diag::{codes, Severity};
use crate::driver::frontend;
use crate::ir::PipeType;

/// A kernel with DDR tensors `input`/`output`, a scalar `n`, and `body` (lines at the kernel's
/// indentation, written with the helpers below).
fn kernel(body: &[String]) -> Program {
    let mut text = String::from(
        "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, input: pl.Tensor[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, -1, 16384, 90)], output: pl.Tensor[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, -1, 16384, 91)], n: pl.Scalar[pl.INT64]):\n",
    );
    for l in body {
        text.push_str("        ");
        text.push_str(l);
        text.push('\n');
    }
    text.push_str("        return\n");
    frontend(&text).unwrap_or_else(|d| panic!("{}\n{text}", d[0].message))
}

fn tile(name: &str, mem: u64) -> String {
    format!("{name}: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, 16384, {mem})]")
}
/// `name = load(input)` into Vec MemRef `mem` (MTE2).
fn load(name: &str, mem: u64) -> String {
    format!("{} = pl.block.load(input, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)", tile(name, mem))
}
/// `name = add(a, b)` (V).
fn add(name: &str, mem: u64, a: &str, b: &str) -> String {
    format!("{} = pl.block.add({a}, {b})", tile(name, mem))
}
/// `store(t, output)` (MTE3).
fn store(name: &str, t: &str) -> String {
    format!("{name}: pl.Tensor[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, -1, 16384, 91)] = pl.block.store({t}, [0, 0], [64, 64], output)")
}
fn sync(which: &str, set: &str, wait: &str, id: i64) -> String {
    format!("pl.system.sync_{which}(set_pipe=pl.PipeType.{set}, wait_pipe=pl.PipeType.{wait}, event_id={id})")
}
fn pair(set: &str, wait: &str, id: i64) -> [String; 2] {
    [sync("src", set, wait, id), sync("dst", set, wait, id)]
}
fn s(x: &str) -> String {
    x.to_string()
}
fn lines(parts: &[&[String]]) -> Vec<String> {
    parts.iter().flat_map(|p| p.iter().cloned()).collect()
}
fn indent(body: &[String]) -> Vec<String> {
    body.iter().map(|l| format!("    {l}")).collect()
}

fn check(p: &Program) -> Vec<Hazard> {
    check_sync(p, Backend::Cce)
}

/// (kind, first op, second op, loop carried) of each dependency hazard.
fn deps(h: &[Hazard]) -> Vec<(DepKind, String, String, bool)> {
    h.iter()
        .filter_map(|h| match h {
            Hazard::Dependency { kind, first, second, loop_carried, .. } => {
                Some((*kind, first.op.clone(), second.op.clone(), *loop_carried))
            }
            _ => None,
        })
        .collect()
}

fn unmatched(h: &[Hazard]) -> Vec<(Event, bool)> {
    h.iter()
        .filter_map(|h| match h {
            Hazard::UnmatchedWait { event, on_some_paths, .. } => Some((*event, *on_some_paths)),
            _ => None,
        })
        .collect()
}

fn dep(kind: DepKind, a: &str, b: &str, carried: bool) -> (DepKind, String, String, bool) {
    (kind, a.to_string(), b.to_string(), carried)
}

/// The reference's load → add → store chain.
fn chain(skip: &[usize]) -> Program {
    let all = lines(&[
        &[load("a", 1), load("b", 2)],
        &pair("MTE2", "V", 0),
        &[add("c", 3, "a", "b")],
        &pair("V", "MTE3", 0),
        &[store("r", "c")],
    ]);
    let kept: Vec<String> = all.into_iter().enumerate().filter(|(i, _)| !skip.contains(i)).map(|(_, l)| l).collect();
    kernel(&kept)
}

#[test]
fn a_synchronised_chain_is_clean() {
    assert_eq!(check(&chain(&[])), vec![]);
    assert!(redundant_syncs(&chain(&[]), Backend::Cce).is_empty());
}

#[test]
fn a_missing_wait_is_a_raw_hazard_at_the_consumer() {
    let h = check(&chain(&[3]));
    assert_eq!(
        deps(&h),
        vec![dep(DepKind::Raw, "block.load", "block.add", false), dep(DepKind::Raw, "block.load", "block.add", false)]
    );
    // The set whose wait was deleted stays outstanding to the end.
    assert_eq!(h.iter().filter(|x| matches!(x, Hazard::UnconsumedSet { .. })).count(), 1);
    let dep = h.iter().find(|x| matches!(x, Hazard::Dependency { .. })).expect("a dependency");
    let Hazard::Dependency { first, second, memref, .. } = dep else { unreachable!() };
    assert_eq!((first.pipe, second.pipe, memref.id), (PipeType::Mte2, PipeType::V, 1));
    let d = dep.to_diagnostic();
    assert_eq!(d.code, codes::SYNC_HAZARD);
    assert!(d.span.same_range(second.span) && !d.span.is_none());
    assert_eq!(d.secondary.len(), 1);
    assert!(d.message.starts_with("unsynchronized RAW dependency on mem_vec_1:"), "{}", d.message);
}

#[test]
fn a_missing_set_leaves_the_wait_unmatched() {
    let h = check(&chain(&[5]));
    let e = Event { set_pipe: PipeType::V, wait_pipe: PipeType::Mte3, id: 0 };
    assert_eq!(unmatched(&h), vec![(e, false)]);
    assert_eq!(deps(&h), vec![dep(DepKind::Raw, "block.add", "block.store", false)]);
    assert_eq!(h[0].to_diagnostic().code, codes::UNMATCHED_WAIT);
}

#[test]
fn pipes_and_event_ids_must_match() {
    for (set, wait, id) in [("MTE2", "V", 1), ("MTE2", "MTE3", 0), ("MTE1", "V", 0)] {
        let p = kernel(&lines(&[
            &[load("a", 1)],
            &[sync("src", "MTE2", "V", 0), sync("dst", set, wait, id)],
            &[add("c", 3, "a", "a")],
        ]));
        let h = check(&p);
        assert_eq!(unmatched(&h).len(), 1, "{set}->{wait} #{id}");
        assert_eq!(deps(&h), vec![dep(DepKind::Raw, "block.load", "block.add", false)]);
    }
}

#[test]
fn write_after_read_and_write_after_write() {
    // add reads a (V); a later load overwrites a (MTE2) without waiting for the add.
    let war = kernel(&lines(&[&[load("a", 1)], &pair("MTE2", "V", 0), &[add("c", 3, "a", "a"), load("a2", 1)]]));
    assert_eq!(deps(&check(&war)), vec![dep(DepKind::War, "block.add", "block.load", false)]);
    let fixed = kernel(&lines(&[
        &[load("a", 1)],
        &pair("MTE2", "V", 0),
        &[add("c", 3, "a", "a")],
        &pair("V", "MTE2", 0),
        &[load("a2", 1)],
    ]));
    assert_eq!(check(&fixed), vec![]);
    // Two writers of one MemRef on different pipes.
    let waw = kernel(&lines(&[&[load("x", 5)], &pair("MTE2", "V", 0), &[load("a", 1), add("c", 1, "x", "x")]]));
    assert_eq!(deps(&check(&waw)), vec![dep(DepKind::Waw, "block.load", "block.add", false)]);
}

#[test]
fn same_pipe_dependencies_need_a_barrier_on_v_and_m_only() {
    let body = |bar: bool| {
        let mut v = lines(&[&[load("a", 1)], &pair("MTE2", "V", 0), &[add("b", 2, "a", "a")]]);
        if bar {
            v.push(s("pl.system.bar_v()"));
        }
        v.push(add("c", 3, "b", "a"));
        kernel(&v)
    };
    assert_eq!(deps(&check(&body(false))), vec![dep(DepKind::Raw, "block.add", "block.add", false)]);
    assert_eq!(check(&body(true)), vec![]);
    // With every pipe in order, the barrier is not needed (and is redundant).
    let in_order = SyncModel { barrier_pipes: vec![] };
    assert_eq!(check_sync_with(&body(false), Backend::Cce, &in_order), vec![]);
    assert_eq!(redundant_syncs_with(&body(true), Backend::Cce, &in_order).len(), 1);
    // MTE2 is in order: two loads into one buffer need nothing.
    assert_eq!(check(&kernel(&[load("a", 1), load("b", 1)])), vec![]);
    // bar_m does not order V.
    let mut v = lines(&[&[load("a", 1)], &pair("MTE2", "V", 0), &[add("b", 2, "a", "a")]]);
    v.push(s("pl.system.bar_m()"));
    v.push(add("c", 3, "b", "a"));
    assert_eq!(check(&kernel(&v)).len(), 1);
}

#[test]
fn bar_all_orders_every_pipe() {
    let p = kernel(&[
        load("a", 1),
        s("pl.system.bar_all()"),
        add("c", 3, "a", "a"),
        s("pl.system.bar_all()"),
        store("r", "c"),
    ]);
    assert_eq!(check(&p), vec![]);
}

#[test]
fn ordering_is_transitive_through_chains_of_pairs() {
    // The store (MTE3) reads what the load (MTE2) wrote: ordered via MTE2→V→MTE3.
    let p = kernel(&lines(&[
        &[load("a", 1)],
        &pair("MTE2", "V", 0),
        &[add("c", 3, "a", "a")],
        &pair("V", "MTE3", 0),
        &[store("r", "a")],
    ]));
    assert_eq!(check(&p), vec![]);
    // A wait that comes before the V op does not order ops issued on MTE2 after the set.
    let p = kernel(&lines(&[&[
        sync("src", "MTE2", "V", 0),
        load("a", 1),
        sync("dst", "MTE2", "V", 0),
        add("c", 3, "a", "a"),
    ]]));
    assert_eq!(deps(&check(&p)), vec![dep(DepKind::Raw, "block.load", "block.add", false)]);
}

#[test]
fn the_loop_back_edge_is_followed() {
    // Each iteration reloads `a` while the previous iteration's add may still read it.
    let body = |sync_back: bool| {
        let mut b = lines(&[&[load("a", 1)], &pair("MTE2", "V", 0), &[add("c", 3, "a", "a")]]);
        if sync_back {
            b.extend(pair("V", "MTE2", 0));
        }
        b.push(s("pl.yield_()"));
        kernel(&lines(&[&[s("for i in pl.range(4):")], &indent(&b)]))
    };
    let h = check(&body(false));
    // The next load may overwrite `a` under the add; the next add may write `c` under it (V
    // needs a barrier or a chain of pairs).
    assert_eq!(
        deps(&h),
        vec![dep(DepKind::War, "block.add", "block.load", true), dep(DepKind::Waw, "block.add", "block.add", true)]
    );
    assert!(h[0].to_diagnostic().secondary[0].1.contains("earlier loop iteration"));
    assert_eq!(check(&body(true)), vec![]);
}

#[test]
fn a_set_in_one_iteration_can_serve_the_next() {
    // Double-buffer style: set before the loop and at the end of the body, wait at its top.
    let b = lines(&[
        &[sync("dst", "V", "MTE2", 0), load("a", 1)],
        &pair("MTE2", "V", 1),
        &[add("c", 3, "a", "a"), sync("src", "V", "MTE2", 0), s("pl.yield_()")],
    ]);
    let p = kernel(&lines(&[
        &[sync("src", "V", "MTE2", 0), s("for i in pl.range(n):")],
        &indent(&b),
        &[sync("dst", "V", "MTE2", 0)],
    ]));
    assert_eq!(check(&p), vec![]);
}

#[test]
fn a_loop_that_may_not_run_leaves_its_sets_optional() {
    let b = lines(&[&[load("a", 1), sync("src", "MTE2", "V", 0), s("pl.yield_()")]]);
    let wait_after = |range: &str| {
        kernel(&lines(&[
            &[format!("for i in pl.range({range}):")],
            &indent(&b),
            &[sync("dst", "MTE2", "V", 0), add("c", 3, "a", "a")],
        ]))
    };
    let e = Event { set_pipe: PipeType::Mte2, wait_pipe: PipeType::V, id: 0 };
    assert_eq!(unmatched(&check(&wait_after("n"))), vec![(e, true)]);
    // Running at least once, a set is outstanding; but the second iteration sets the flag again
    // before any wait, so the wait may pass on the first set, before the last load finished.
    let h = check(&wait_after("4"));
    assert_eq!(unmatched(&h), vec![]);
    assert_eq!(deps(&h), vec![dep(DepKind::Raw, "block.load", "block.add", false)]);
}

#[test]
fn both_arms_of_an_if_are_followed() {
    let with_arms = |then_sync: bool, else_sync: bool| {
        let arm = |sync: bool| {
            let mut v = vec![load("a", 1)];
            if sync {
                v.extend(pair("MTE2", "V", 0));
            }
            indent(&v)
        };
        kernel(&lines(&[&[s("if n > 0:")], &arm(then_sync), &[s("else:")], &arm(else_sync), &[add("c", 3, "a", "a")]]))
    };
    assert_eq!(check(&with_arms(true, true)), vec![]);
    assert_eq!(deps(&check(&with_arms(true, false))), vec![dep(DepKind::Raw, "block.load", "block.add", false)]);
    // A set on one arm only: the wait after the if may find none.
    let p = kernel(&lines(&[
        &[load("a", 1), s("if n > 0:")],
        &indent(&[sync("src", "MTE2", "V", 0)]),
        &[sync("dst", "MTE2", "V", 0), add("c", 3, "a", "a")],
    ]));
    let h = check(&p);
    assert_eq!(unmatched(&h).len(), 1);
    assert!(matches!(h[0], Hazard::UnmatchedWait { on_some_paths: true, .. }));
}

#[test]
fn overlapping_addresses_alias() {
    let at = |name: &str, mem: u64, addr: i64, op: &str| {
        format!("{name}: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, {addr}, 16384, {mem})] = {op}")
    };
    let body = |addr: i64| {
        let load = "pl.block.load(input, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)";
        kernel(&lines(&[
            &[at("x", 5, 65536, load)],
            &pair("MTE2", "V", 0),
            &[at("a", 1, 0, load), at("c", 2, addr, "pl.block.add(x, x)")],
        ]))
    };
    assert_eq!(deps(&check(&body(8192))), vec![dep(DepKind::Waw, "block.load", "block.add", false)]);
    assert_eq!(check(&body(16384)), vec![]);
}

#[test]
fn redundant_syncs_are_listed_and_needed_ones_are_not() {
    // A second pair after the first orders nothing new; so does a barrier between independent ops.
    let p = kernel(&lines(&[
        &[load("a", 1)],
        &pair("MTE2", "V", 0),
        &pair("MTE2", "V", 1),
        &[add("c", 3, "a", "a"), s("pl.system.bar_v()"), add("d", 4, "a", "a")],
    ]));
    assert_eq!(check(&p), vec![]);
    let r = redundant_syncs(&p, Backend::Cce);
    let groups: Vec<Vec<&str>> = r.iter().map(|g| g.ops.iter().map(|o| o.op.as_str()).collect()).collect();
    assert_eq!(
        groups,
        vec![
            vec!["system.sync_src", "system.sync_dst"],
            vec!["system.sync_src", "system.sync_dst"],
            vec!["system.bar_v"]
        ]
    );
    let d = r[2].to_diagnostic();
    assert_eq!((d.code, d.severity), (codes::REDUNDANT_SYNC, Severity::Warning));
    // A set that no wait consumes is redundant alone.
    let dangling = kernel(&[load("a", 1), sync("src", "MTE2", "V", 0)]);
    assert_eq!(redundant_syncs(&dangling, Backend::Cce).len(), 1);
}

#[test]
fn scalar_work_and_calls_are_not_accesses() {
    // block.rem has no CCE pipe (scalar pipe S): not checked on CCE, checked on PTO (V).
    let p = kernel(&[load("a", 1), format!("{} = pl.block.rem(a, a)", tile("c", 3))]);
    assert_eq!(check(&p), vec![]);
    assert_eq!(check_sync(&p, Backend::Pto).len(), 1);
}

#[test]
fn a_set_no_wait_consumes_before_the_end_is_reported() {
    let e = Event { set_pipe: PipeType::Mte2, wait_pipe: PipeType::V, id: 0 };
    let unconsumed = |h: &[Hazard]| -> Vec<Event> {
        h.iter()
            .filter_map(|x| match x {
                Hazard::UnconsumedSet { event, .. } => Some(*event),
                _ => None,
            })
            .collect()
    };
    // A `break` between the set and its wait: the loop's exit has the set outstanding.
    let body = lines(&[
        &[load("a", 1), sync("src", "MTE2", "V", 0), s("if i > 1:")],
        &indent(&[s("break")]),
        &[sync("dst", "MTE2", "V", 0), add("c", 3, "a", "a"), s("pl.yield_()")],
    ]);
    let p = kernel(&lines(&[&[s("for i in pl.range(4):")], &indent(&body)]));
    assert_eq!(unconsumed(&check(&p)), vec![e]);
    let h = check(&p);
    let set = h.iter().find(|x| matches!(x, Hazard::UnconsumedSet { .. })).expect("an unconsumed set");
    assert_eq!(set.to_diagnostic().code, codes::UNCONSUMED_SET);
    // The same loop with the wait before the `if`: balanced on every path (the back edge's
    // add -> load WAR is not synchronised here, which is another finding).
    let body = lines(&[
        &[load("a", 1)],
        &pair("MTE2", "V", 0),
        &[s("if i > 1:")],
        &indent(&[s("break")]),
        &[add("c", 3, "a", "a"), s("pl.yield_()")],
    ]);
    let p = kernel(&lines(&[&[s("for i in pl.range(4):")], &indent(&body)]));
    assert_eq!(unconsumed(&check(&p)), vec![]);
}
