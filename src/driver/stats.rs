//! `--stats`: what each kernel function of the final program costs — ops per pipe, sync pairs
//! per pipe pair, barriers, event ids, peak bytes per memory space against its capacity, and
//! the sync ops remove-redundant-sync deleted — and the same for the whole program. Text or
//! JSON, on stderr (docs/cli.md lists the fields).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::cli::StatsFormat;
use crate::analysis::cycles::{self, Estimate, PIPES};
use crate::backend::Backend;
use crate::ir::visit::{walk_all_exprs, walk_stmts};
use crate::ir::{ExprKind, Function, FunctionType, MemorySpace, PipeType, Program, Stmt, Type, VarId, VarKind};
use crate::verify::sync_hazard::{leaf_effect, Effect};

/// Sync ops deleted per function (by name), summed over the runs of remove-redundant-sync.
pub type Removed = BTreeMap<String, usize>;

/// The number of sync ops (sets, waits, barriers) of each function.
pub fn sync_counts(prog: &Program) -> Vec<(String, usize)> {
    prog.functions.iter().map(|f| (f.name.clone(), count_syncs(f))).collect()
}

fn count_syncs(f: &Function) -> usize {
    let mut n = 0;
    walk_stmts(&f.body, &mut |s| {
        if leaf_effect(&f.vars, s, Backend::Cce).is_sync() {
            n += 1;
        }
    });
    n
}

/// Adds to `removed` how many sync ops each function lost since `before` was counted.
pub fn add_removed(removed: &mut Removed, before: &[(String, usize)], after: &Program) {
    for f in &after.functions {
        if let Some((_, b)) = before.iter().find(|(n, _)| *n == f.name) {
            *removed.entry(f.name.clone()).or_default() += b.saturating_sub(count_syncs(f));
        }
    }
}

/// The numbers of one function, or of the program (sums; peaks are maxima).
#[derive(Default)]
struct Stats {
    ops_per_pipe: BTreeMap<&'static str, usize>,
    /// `SET->WAIT` → (sync_src ops, sync_dst ops).
    sync_pairs: BTreeMap<String, (usize, usize)>,
    barriers: BTreeMap<&'static str, usize>,
    /// `SET->WAIT` → distinct event ids.
    event_ids: BTreeMap<String, BTreeSet<i64>>,
    /// Memory space → peak bytes (the highest end address once addresses are allocated, else
    /// the sum of the MemRefs' sizes).
    peak_bytes: BTreeMap<MemorySpace, u64>,
    syncs_removed: usize,
    /// The cycle model's estimate (for the program: the kernels one after another, so cycles
    /// and busy cycles are sums).
    cycles: u64,
    busy: BTreeMap<PipeType, u64>,
    /// Trip counts and conditions the model assumed.
    assumed: usize,
}

impl Stats {
    fn of(f: &Function, backend: Backend, removed: &Removed, model: &cycles::Options) -> Stats {
        let est: Estimate = cycles::estimate(f, backend, model);
        let mut st = Stats {
            syncs_removed: removed.get(&f.name).copied().unwrap_or(0),
            cycles: est.cycles,
            busy: est.busy,
            assumed: est.assumed,
            ..Stats::default()
        };
        walk_stmts(&f.body, &mut |s| match leaf_effect(&f.vars, s, backend) {
            Effect::Access { pipe, .. } => *st.ops_per_pipe.entry(pipe.name()).or_default() += 1,
            Effect::Set(e) | Effect::Wait(e) => {
                let key = format!("{}->{}", e.set_pipe.name(), e.wait_pipe.name());
                let entry = st.sync_pairs.entry(key.clone()).or_default();
                if matches!(leaf_effect(&f.vars, s, backend), Effect::Set(_)) {
                    entry.0 += 1;
                } else {
                    entry.1 += 1;
                }
                st.event_ids.entry(key).or_default().insert(e.id);
            }
            Effect::PipeBarrier(p) => {
                *st.barriers.entry(if p == crate::ir::PipeType::M { "bar_m" } else { "bar_v" }).or_default() += 1
            }
            Effect::BarrierAll => *st.barriers.entry("bar_all").or_default() += 1,
            Effect::Nothing => {}
        });
        st.peak_bytes = peak_bytes(f);
        st
    }

    fn add(&mut self, o: &Stats) {
        for (k, v) in &o.ops_per_pipe {
            *self.ops_per_pipe.entry(k).or_default() += v;
        }
        for (k, (a, b)) in &o.sync_pairs {
            let e = self.sync_pairs.entry(k.clone()).or_default();
            e.0 += a;
            e.1 += b;
        }
        for (k, v) in &o.barriers {
            *self.barriers.entry(k).or_default() += v;
        }
        for (k, v) in &o.event_ids {
            self.event_ids.entry(k.clone()).or_default().extend(v.iter().copied());
        }
        for (k, v) in &o.peak_bytes {
            let e = self.peak_bytes.entry(*k).or_default();
            *e = (*e).max(*v);
        }
        self.syncs_removed += o.syncs_removed;
        self.cycles += o.cycles;
        for (k, v) in &o.busy {
            *self.busy.entry(*k).or_default() += v;
        }
        self.assumed += o.assumed;
    }

    /// The critical-pipe bound: the busiest pipe's busy cycles.
    fn bound(&self) -> u64 {
        self.busy.values().copied().max().unwrap_or(0)
    }

    /// cycles / bound, two decimals ("-" without a bound).
    fn ratio(&self) -> String {
        match self.bound() {
            0 => "null".into(),
            b => format!("{:.2}", self.cycles as f64 / b as f64),
        }
    }

    /// Busy cycles per pipe, every pipe of the model in report order.
    fn busy_list(&self) -> Vec<(&'static str, u64)> {
        PIPES.iter().map(|p| (cycles::pipe_label(*p), self.busy.get(p).copied().unwrap_or(0))).collect()
    }
}

/// Peak bytes per on-chip memory space of the MemRefs `f` mentions.
fn peak_bytes(f: &Function) -> BTreeMap<MemorySpace, u64> {
    let mut memrefs: BTreeMap<u64, (MemorySpace, Option<u64>, u64)> = BTreeMap::new();
    // The buffers of tiles: a MemRef only tensors hold (an `l0c_store`'s result, typed as a
    // tensor in Vec) takes no room in its space.
    let mut note = |v: VarId| {
        let m = match f.var_type(v) {
            Type::Tile(t) => t.memref,
            _ => None,
        };
        if let Some(VarKind::MemRef(info)) = m.and_then(|m| f.vars.get(m)).map(|d| &d.kind) {
            if info.space != MemorySpace::Ddr {
                let addr = info.addr.as_const_int().and_then(|a| u64::try_from(a).ok());
                memrefs.insert(info.id, (info.space, addr, info.size));
            }
        }
    };
    walk_stmts(&f.body, &mut |s| {
        if let Stmt::Assign { var, .. } = s {
            note(*var);
        }
    });
    walk_all_exprs(&f.body, &mut |e| {
        if let ExprKind::Var(v) = e.kind {
            note(v);
        }
    });
    let mut out: BTreeMap<MemorySpace, (u64, u64, bool)> = BTreeMap::new();
    for (space, addr, size) in memrefs.into_values() {
        let e = out.entry(space).or_insert((0, 0, true));
        match addr {
            Some(a) => e.0 = e.0.max(a.saturating_add(size)),
            None => e.2 = false,
        }
        e.1 = e.1.saturating_add(size);
    }
    out.into_iter().map(|(space, (end, sum, allocated))| (space, if allocated { end } else { sum })).collect()
}

/// The statistics of `prog` in `format`: one block per kernel function (every function but
/// orchestration ones), then the program.
pub fn render(
    prog: &Program,
    backend: Backend,
    removed: &Removed,
    format: StatsFormat,
    model: &cycles::Options,
) -> String {
    let kernels: Vec<(&Function, Stats)> = prog
        .functions
        .iter()
        .filter(|f| f.kind != FunctionType::Orchestration)
        .map(|f| (f, Stats::of(f, backend, removed, model)))
        .collect();
    let mut total = Stats::default();
    for (_, s) in &kernels {
        total.add(s);
    }
    match format {
        StatsFormat::Text => {
            let mut out = String::new();
            for (f, s) in &kernels {
                text(&mut out, &format!("function {}", f.name), s, model.default_trips);
            }
            text(
                &mut out,
                &format!("program {} ({} kernel functions)", prog.name, kernels.len()),
                &total,
                model.default_trips,
            );
            out
        }
        StatsFormat::Json => {
            let fs: Vec<String> =
                kernels.iter().map(|(f, s)| format!("{{\"name\":{},{}}}", json_str(&f.name), json(s))).collect();
            format!(
                "{{\"functions\":[{}],\"program\":{{\"name\":{},{}}}}}\n",
                fs.join(","),
                json_str(&prog.name),
                json(&total)
            )
        }
    }
}

fn list<K: std::fmt::Display, V>(m: &BTreeMap<K, V>, f: impl Fn(&V) -> String) -> String {
    if m.is_empty() {
        return "none".into();
    }
    m.iter().map(|(k, v)| format!("{k} {}", f(v))).collect::<Vec<_>>().join(", ")
}

fn text(out: &mut String, title: &str, s: &Stats, trips: u64) {
    let _ = writeln!(out, "stats: {title}");
    let _ = writeln!(out, "  ops per pipe: {}", list(&s.ops_per_pipe, |n| n.to_string()));
    let _ = writeln!(out, "  sync pairs (src/dst): {}", list(&s.sync_pairs, |(a, b)| format!("{a}/{b}")));
    let _ = writeln!(out, "  barriers: {}", list(&s.barriers, |n| n.to_string()));
    let _ = writeln!(out, "  event ids: {}", list(&s.event_ids, |ids| ids.len().to_string()));
    let mem: BTreeMap<&str, u64> = s.peak_bytes.iter().map(|(k, v)| (k.name(), *v)).collect();
    let _ = writeln!(
        out,
        "  peak bytes: {}",
        list(&mem, |v| format!("{v}")).split(", ").map(with_capacity).collect::<Vec<_>>().join(", ")
    );
    let _ = writeln!(out, "  syncs removed: {}", s.syncs_removed);
    let ratio = if s.bound() == 0 { "-".to_string() } else { s.ratio() };
    let assumed = if s.assumed > 0 {
        format!(" (assumed: {} loops or conditions with unknown values; such a loop runs {trips} times)", s.assumed)
    } else {
        String::new()
    };
    let _ = writeln!(out, "  estimated cycles: {}{assumed}", s.cycles);
    let busy: Vec<String> = s.busy_list().iter().map(|(p, n)| format!("{p} {n}")).collect();
    let _ = writeln!(out, "  busy cycles: {}", busy.join(", "));
    let _ = writeln!(out, "  critical-pipe bound: {} (cycles/bound {ratio})", s.bound());
}

/// `Vec 1024` → `Vec 1024/196608`.
fn with_capacity(item: &str) -> String {
    let cap = item.split(' ').next().and_then(MemorySpace::from_name).map(crate::backend::capacity);
    match cap {
        Some(c) => format!("{item}/{c}"),
        None => item.to_string(),
    }
}

/// `s` as a JSON string literal.
pub(super) fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_map<K: AsRef<str>, V>(m: impl Iterator<Item = (K, V)>, f: impl Fn(V) -> String) -> String {
    let items: Vec<String> = m.map(|(k, v)| format!("{}:{}", json_str(k.as_ref()), f(v))).collect();
    format!("{{{}}}", items.join(","))
}

fn json(s: &Stats) -> String {
    format!(
        "\"ops_per_pipe\":{},\"sync_pairs\":{},\"barriers\":{},\"event_ids\":{},\"memory\":{},\"syncs_removed\":{},\
         \"cycles\":{},\"busy\":{},\"bound\":{},\"cycles_per_bound\":{},\"assumed\":{}",
        json_map(s.ops_per_pipe.iter(), |n| n.to_string()),
        json_map(s.sync_pairs.iter(), |(a, b)| format!("{{\"src\":{a},\"dst\":{b}}}")),
        json_map(s.barriers.iter(), |n| n.to_string()),
        json_map(s.event_ids.iter(), |ids| ids.len().to_string()),
        json_map(s.peak_bytes.iter().map(|(k, v)| (k.name(), (*v, crate::backend::capacity(*k)))), |(v, c)| format!(
            "{{\"peak_bytes\":{v},\"capacity\":{c}}}"
        )),
        s.syncs_removed,
        s.cycles,
        json_map(s.busy_list().into_iter(), |n| n.to_string()),
        s.bound(),
        s.ratio(),
        s.assumed
    )
}
