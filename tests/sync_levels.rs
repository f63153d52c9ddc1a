//! `-O1` against `-O0` on real programs: for every input of the corpora (the DSL
//! conformance inputs, the default-pipeline and insert-sync inputs of the golden corpus, the
//! cpusim programs, `examples/`) and for genmix programs of every kind, the default pipeline at
//! `-O1` must
//! - pass `--verify-sync` (no hazard) and leave nothing for `--report-redundant-sync`, and so
//!   must `-O2` pass `--verify-sync` (pipelined loops, carried flags);
//! - have no more sync ops than at `-O0` (nor more set/wait pairs), unless the cycle model
//!   (`--stats`) estimates the `-O1` kernels no slower: in a kernel with a loop, `-O1` takes the
//!   memory plan the model estimates fastest, which can need more syncs (a buffer of its own
//!   for a tile lets the next iteration's load wait only for the tile's readers);
//! - accept every program `-O0` accepts (and may accept more: its memory plan by lifetime fits
//!   programs the reference's plan does not).
//!
//! The two levels differ in more than sync ops: `-O1` also plans on-chip memory by lifetime
//! (docs/kernel-codegen.md), so tile addresses differ.
//!
//! The totals (sync pairs and barriers at both levels) are printed: they are the table in
//! docs/performance.md. `PTOC_SYNC_GENMIX=N` sets the genmix programs per kind (default 43,
//! i.e. 301 programs); without python3 or genmix.py only the corpora are checked. A corpus that
//! is missing is reported and left out, except under `CI=true`, where the test fails; each test
//! checks at least as many programs as its corpora hold.

mod common;

use std::path::PathBuf;

use ptoc::driver;

/// genmix kinds (`genmix.py --kind`).
const KINDS: [&str; 7] = ["vector", "matmul", "loop", "branch", "reduce", "scalar", "mixed"];

fn ptoc(args: &[&str], input: &str) -> driver::Output {
    let argv: Vec<String> = ["ptoc", "--error-format", "short"].iter().chain(args).map(|s| s.to_string()).collect();
    driver::run(&argv, input.as_bytes())
}

/// Sync pairs (sync_src ops) and barriers of IR text.
fn syncs(ir: &str) -> (usize, usize) {
    let lines = ir.lines().map(str::trim_start);
    let (mut pairs, mut bars) = (0, 0);
    for l in lines {
        if l.starts_with("pl.system.sync_src(") {
            pairs += 1;
        } else if l.starts_with("pl.system.bar_") {
            bars += 1;
        }
    }
    (pairs, bars)
}

#[derive(Default)]
struct Totals {
    programs: usize,
    refused: usize,
    /// Accepted only at `-O1` (they fit only with its memory plan).
    only_o1: usize,
    /// With more syncs at `-O1` than at `-O0`, and no more cycles by the model.
    more_but_faster: usize,
    o0: (usize, usize),
    o1: (usize, usize),
}

impl Totals {
    fn add(&mut self, t: &Totals) {
        self.programs += t.programs;
        self.refused += t.refused;
        self.only_o1 += t.only_o1;
        self.more_but_faster += t.more_but_faster;
        self.o0 = (self.o0.0 + t.o0.0, self.o0.1 + t.o0.1);
        self.o1 = (self.o1.0 + t.o1.0, self.o1.1 + t.o1.1);
    }
}

/// Checks one program; `Err` says what is wrong.
fn check(name: &str, text: &str, totals: &mut Totals) -> Result<(), String> {
    let o0 = ptoc(&["-O0", "-"], text);
    let o1 = ptoc(&["-O1", "--verify-sync", "--report-redundant-sync", "-"], text);
    if o0.code != 0 {
        if o1.code != 0 {
            totals.refused += 1;
            return Ok(());
        }
        // Fits only with the -O1 memory plan: still hazard-free, nothing to compare with.
        let err = String::from_utf8_lossy(&o1.stderr);
        if err.contains("E0605") {
            return Err(format!("{name}: -O1 leaves redundant syncs:\n{}", common::excerpt(&err, 1500)));
        }
        totals.only_o1 += 1;
        return Ok(());
    }
    let err = String::from_utf8_lossy(&o1.stderr);
    if o1.code != 0 {
        return Err(format!("{name}: -O1 fails (exit {}): {}", o1.code, common::excerpt(&err, 1500)));
    }
    if err.contains("E0605") {
        return Err(format!("{name}: -O1 leaves redundant syncs:\n{}", common::excerpt(&err, 1500)));
    }
    // -O2 (pipelined loops, carried flags) must be hazard-free wherever -O1 compiles.
    let o2 = ptoc(&["-O2", "--verify-sync", "-"], text);
    if o2.code != 0 {
        let err = String::from_utf8_lossy(&o2.stderr);
        return Err(format!("{name}: -O2 fails (exit {}): {}", o2.code, common::excerpt(&err, 1500)));
    }
    let (t0, t1) = (String::from_utf8_lossy(&o0.stdout), String::from_utf8_lossy(&o1.stdout));
    let (s0, s1) = (syncs(&t0), syncs(&t1));
    let more = s1.0 + s1.1 > s0.0 + s0.1 || s1.0 > s0.0;
    if more {
        let (c0, c1) = (cycles("-O0", text), cycles("-O1", text));
        if c1 > c0 {
            return Err(format!("{name}: -O1 has more syncs than -O0: {s1:?} > {s0:?}, and {c1} cycles > {c0}"));
        }
        totals.more_but_faster += 1;
    }
    totals.programs += 1;
    totals.o0 = (totals.o0.0 + s0.0, totals.o0.1 + s0.1);
    totals.o1 = (totals.o1.0 + s1.0, totals.o1.1 + s1.1);
    Ok(())
}

/// The cycle model's estimate of a program's kernels at a level (`--stats=json`), summed.
fn cycles(level: &str, text: &str) -> u64 {
    let out = ptoc(&[level, "--stats=json", "-"], text);
    let err = String::from_utf8_lossy(&out.stderr);
    let json = err.lines().last().unwrap_or_default();
    // `"cycles":N` once per kernel function, then once for the program (their sum, the largest).
    let all: Vec<u64> = json
        .split("\"cycles\":")
        .skip(1)
        .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap_or(u64::MAX))
        .collect();
    assert!(!all.is_empty(), "no cycles in --stats=json: {}", common::excerpt(&err, 400));
    all.into_iter().max().unwrap_or(u64::MAX)
}

/// The corpus inputs, and how many the corpora hold (generated data, fixed: 30 DSL programs, 14
/// default-pipeline and insert-sync inputs, the cpusim programs and the examples: 53), counting
/// only the corpora found.
fn corpus_inputs() -> (Vec<PathBuf>, usize) {
    let root = common::manifest_dir();
    let mut files = Vec::new();
    let mut expected = 0;
    let dsl = common::corpus::dsl_corpus_dir();
    if common::require_corpus(&dsl, "sync levels on the DSL corpus") {
        files.extend(common::corpus::dsl_cases(&dsl).into_iter().map(|c| c.join("input.pto")));
        expected += 30;
    }
    let dir = common::corpus::corpus_dir();
    if common::require_corpus(&dir, "sync levels on the conformance corpus") {
        for (_, folder, case) in common::corpus::cases(&dir) {
            if folder == "pipeline-default" || folder == "insert-sync" {
                files.push(case.join("input.pto"));
            }
        }
        expected += 14;
    }
    let cpusim = root.join("../shared/cpusim/programs");
    if common::require_corpus(&cpusim, "sync levels on the cpusim programs") {
        files.extend(common::files_under(&cpusim, ".pto"));
        expected += 1;
    }
    files.extend(common::files_under(&root.join("examples"), ".pto"));
    expected += 8;
    files.retain(|p| p.is_file());
    (files, expected)
}

fn report(what: &str, t: &Totals) {
    let pct = |a: usize, b: usize| if b == 0 { 0.0 } else { 100.0 * (b as f64 - a as f64) / b as f64 };
    eprintln!(
        "sync_levels {what}: {} programs ({} refused by both levels, {} accepted only at -O1, {} with more syncs at -O1 and no more cycles): sync pairs -O0 {} -> -O1 {} ({:.1}% fewer), barriers -O0 {} -> -O1 {} ({:.1}% fewer)",
        t.programs,
        t.refused,
        t.only_o1,
        t.more_but_faster,
        t.o0.0,
        t.o1.0,
        pct(t.o1.0, t.o0.0),
        t.o0.1,
        t.o1.1,
        pct(t.o1.1, t.o0.1)
    );
}

#[test]
fn o1_is_hazard_free_and_has_no_more_syncs_unless_faster_on_the_corpora() {
    let mut totals = Totals::default();
    let mut failures = Vec::new();
    let (inputs, expected) = corpus_inputs();
    for path in &inputs {
        let text = std::fs::read_to_string(path).unwrap();
        if let Err(e) = check(&path.display().to_string(), &text, &mut totals) {
            failures.push(e);
        }
    }
    report("corpora", &totals);
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    common::assert_checked("corpus programs at both levels", totals.programs, expected);
}

#[test]
fn o1_is_hazard_free_and_has_no_more_syncs_unless_faster_on_genmix_programs() {
    let script = common::manifest_dir().join("../shared/tools/genmix.py");
    if !common::require_corpus(&script, "sync levels on genmix programs") {
        return;
    }
    let per_kind: u64 = std::env::var("PTOC_SYNC_GENMIX").ok().and_then(|v| v.parse().ok()).unwrap_or(43);
    let programs: Vec<(&str, u64)> = KINDS.iter().flat_map(|&k| (1..=per_kind).map(move |s| (k, s))).collect();
    // On every core, with ptoc's own scoped-thread map (results in program order).
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let checked = ptoc::par::map(&programs, workers, |&(kind, seed)| {
        let text = common::genmix(&script, kind, seed)?;
        let mut totals = Totals::default();
        let verdict = check(&format!("genmix --kind {kind} --seed {seed}"), &text, &mut totals);
        Some((totals, verdict))
    });
    let mut totals = Totals::default();
    let mut failures = Vec::new();
    let mut generated = 0;
    for (t, verdict) in checked.into_iter().flatten() {
        generated += 1;
        totals.add(&t);
        failures.extend(verdict.err());
    }
    if generated == 0 && !common::in_ci() {
        eprintln!("sync_levels: genmix.py produced nothing (no python3?); no genmix programs checked");
        return;
    }
    report(&format!("genmix ({per_kind} per kind)"), &totals);
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    common::assert_checked("genmix programs generated", generated, programs.len());
    // Of the 301 programs of the default 43 per kind, 289 compile at both levels.
    common::assert_checked("genmix programs at both levels", totals.programs, generated * 9 / 10);
}

/// The reference's sync ops against ptoc's at `-O1`: for every DSL conformance case,
/// the reference's IR after its last pass (`after-07-allocate-memory-addr.pto`) against
/// ptoc's default pipeline on the same `input.pto`, which must pass `--verify-sync`. These
/// programs are generated ones that ptoc's sync passes were not tuned on case by case; the
/// totals are in docs/performance.md.
#[test]
fn o1_has_fewer_syncs_than_the_reference_on_the_dsl_corpus() {
    let dsl = common::corpus::dsl_corpus_dir();
    if !common::require_corpus(&dsl, "ptoc's syncs against the reference's") {
        return;
    }
    let cases = common::corpus::dsl_cases(&dsl);
    let (mut reference, mut ours, mut compared) = ((0, 0), (0, 0), 0);
    let mut failures = Vec::new();
    for case in cases {
        let (Ok(input), Ok(theirs)) = (
            std::fs::read_to_string(case.join("input.pto")),
            std::fs::read_to_string(case.join("after-07-allocate-memory-addr.pto")),
        ) else {
            failures.push(format!("{}: no input.pto or after-07-allocate-memory-addr.pto", case.display()));
            continue;
        };
        let o1 = ptoc(&["-O1", "--verify-sync", "-"], &input);
        if o1.code != 0 {
            failures.push(format!(
                "{}: -O1 fails: {}",
                case.display(),
                common::excerpt(&String::from_utf8_lossy(&o1.stderr), 800)
            ));
            continue;
        }
        let (r, o) = (syncs(&theirs), syncs(&String::from_utf8_lossy(&o1.stdout)));
        reference = (reference.0 + r.0, reference.1 + r.1);
        ours = (ours.0 + o.0, ours.1 + o.1);
        compared += 1;
    }
    eprintln!(
        "sync_levels reference: {compared} programs: sync pairs reference {} -> ptoc -O1 {}, barriers reference {} -> ptoc -O1 {}",
        reference.0, ours.0, reference.1, ours.1
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    common::assert_checked("DSL programs compared with the reference", compared, 30);
    assert!(
        ours.0 + ours.1 < reference.0 + reference.1,
        "ptoc -O1 has {ours:?} sync pairs and barriers, the reference {reference:?}: not fewer"
    );
}
