//! Per-stage benchmark of the whole compiler: lex, parse, lower, each pass of the
//! default pipeline (each through the pass manager), the automatic verification, print and C++
//! codegen (each stage on its own; parsing on every CPU and on one thread), plus the in-process
//! driver end to end (`ptoc --emit=cpp -o DIR -`, everything but writing the files) as the CLI
//! runs it, with `-j1`, and to IR (`--emit ir`); and the release `ptoc` binary as a process
//! (`ptoc --emit=cpp -o DIR FILE`: start-up, reading the file and writing the C++ files included),
//! into a new directory and into one that already holds the same files, and `--emit ir`.
//!
//! `cargo bench --bench stages` runs the sizes 1k, 10k, 50k, 100k lines (`genpto.py` shape,
//! 500 ops per kernel) and the long-kernel shape (2 kernels × 5,000 ops), each several times,
//! and prints the best and median time per stage, then a summary table and the scaling ratios.
//! Arguments (after `--`): size names to run a subset (`cargo bench --bench stages -- 10k long`);
//! `--write DIR` writes the generated inputs as `DIR/<size>.pto` (for `/usr/bin/time -v` and
//! `perf`) and exits. `PTOC_BENCH_RUNS=N` fixes the number of runs per size. Times are
//! reported, never asserted.

mod common {
    pub mod gen;
}

/// The allocator of the `ptoc` binary (src/main.rs), so that in-process times are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use common::gen::{generate, Shape};
use ptoc::passes::manager::Manager;
use ptoc::passes::{Backend, OptLevel, PassEnv, Pipeline};
use std::time::{Duration, Instant};

/// The benchmark inputs: name and shape.
const SIZES: &[(&str, Shape)] = &[
    ("1k", Shape::new(2, 500)),
    ("10k", Shape::new(20, 500)),
    ("50k", Shape::new(100, 500)),
    ("100k", Shape::new(200, 500)),
    ("long", Shape::new(2, 5000)),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if let Some(i) = args.iter().position(|a| a == "--write") {
        let dir = args.get(i + 1).expect("--write DIR");
        std::fs::create_dir_all(dir).expect("create the output directory");
        for (name, shape) in SIZES {
            let path = format!("{dir}/{name}.pto");
            std::fs::write(&path, generate(*shape)).expect("write an input");
            println!("wrote {path}");
        }
        return;
    }
    let chosen: Vec<&(&str, Shape)> =
        SIZES.iter().filter(|(n, _)| args.is_empty() || args.iter().any(|a| a == n)).collect();
    // Run on a big stack like the CLI (deep inputs are not part of the benchmark, but passes
    // may recurse per statement).
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || {
            let results: Vec<(&str, Table)> = chosen.iter().map(|(n, s)| (*n, bench_size(n, *s))).collect();
            summary(&results);
        })
        .expect("spawn the benchmark thread")
        .join()
        .expect("benchmark thread panicked");
}

/// Stage name → the times of each run, in stage order.
type Table = Vec<(String, Vec<Duration>)>;

fn record(table: &mut Table, stage: &str, d: Duration) {
    match table.iter_mut().find(|(s, _)| s == stage) {
        Some((_, v)) => v.push(d),
        None => table.push((stage.to_string(), vec![d])),
    }
}

/// Times `f` and records it under `stage`.
fn timed<T>(table: &mut Table, stage: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    record(table, stage, t.elapsed());
    r
}

fn bench_size(name: &str, shape: Shape) -> Table {
    let source = generate(shape);
    let lines = source.lines().count();
    println!(
        "== {name}: {} kernels x {} ops, {lines} lines, {:.2} MB",
        shape.funcs,
        shape.ops,
        source.len() as f64 / 1e6
    );
    let fixed: Option<usize> = std::env::var("PTOC_BENCH_RUNS").ok().and_then(|v| v.parse().ok());
    let (min_runs, max_runs) = fixed.map_or((3, 10), |n| (n, n));
    let env = PassEnv { jobs: ptoc::parser::default_jobs(), ..PassEnv::new(Backend::Cce) };
    // The default level's pipeline, as the CLI runs it (remove-redundant-sync gets its own row).
    let passes = Pipeline::Default.passes_at(OptLevel::default());
    let out_dir = std::env::temp_dir().join(format!("ptoc-bench-{}", std::process::id()));
    let out = out_dir.to_str().expect("UTF-8 temp dir");
    // The driver as the CLI runs it (on every CPU), on one thread, and to IR on stdout.
    let drivers: [(&str, Vec<String>); 3] = [
        ("driver end to end", vec!["--emit=cpp", "-o", out]),
        ("driver, 1 thread", vec!["--emit=cpp", "-o", out, "-j1"]),
        ("driver --emit ir", vec!["--emit=ir"]),
    ]
    .map(|(stage, args)| {
        let args = std::iter::once("ptoc").chain(args).chain(["-"]).map(String::from).collect();
        (stage, args)
    });
    let mut table = Table::new();
    let started = Instant::now();
    let mut runs = 0;
    while runs < min_runs || (runs < max_runs && started.elapsed() < Duration::from_secs(10)) {
        runs += 1;
        let t_all = Instant::now();
        timed(&mut table, "lex", || ptoc::lexer::tokens(&source).expect("lexes").len());
        timed(&mut table, "parse, 1 thread", || ptoc::parser::parse_with_jobs(&source, 1).expect("parses"));
        let module = timed(&mut table, "parse (incl. lex)", || ptoc::parser::parse(&source).expect("parses"));
        // Lowering consumes the syntax tree (and drops it function by function).
        let mut prog = timed(&mut table, "lower", || ptoc::lower::lower(module).expect("lowers"));
        for pass in &passes {
            // One pass at a time through the pass manager (its findings included).
            let one = [*pass];
            prog = timed(&mut table, pass.name, || Manager::new(&one, env).run(prog).expect("pass succeeds"));
        }
        // The whole pipeline with the driver's checks (the automatic verification and the sync
        // postcondition of verification level `basic`), pass by pass and as chains.
        for (stage, fuse) in [("pipeline with checks, pass by pass", false), ("pipeline with checks, chains", true)] {
            let lowered = ptoc::driver::frontend(&source).expect("lowers");
            let m = Manager { auto_verify: true, sync_postcondition: true, fuse, ..Manager::new(&passes, env) };
            timed(&mut table, stage, || m.run(lowered).expect("pipeline succeeds"));
        }
        timed(&mut table, "print (final IR)", || ptoc::printer::print_program(&prog).len());
        timed(&mut table, "codegen (C++)", || ptoc::codegen::generate(&prog).expect("codegen").len());
        drop(prog);
        record(&mut table, "sum of stages", t_all.elapsed());
        for (stage, args) in &drivers {
            let out = timed(&mut table, stage, || ptoc::driver::run(args, source.as_bytes()));
            assert_eq!(out.code, 0, "ptoc failed: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    // The CLI as a user runs it: a fresh process reading the file and writing the C++ files,
    // into a new directory, and again into the directory it just wrote (all files up to date:
    // they are kept and touched, see `driver::output`).
    let input = out_dir.with_extension("pto");
    std::fs::write(&input, &source).expect("write the input file");
    let ir_out = out_dir.with_extension("ir.pto");
    let ir_out = ir_out.to_str().expect("UTF-8 temp dir");
    for _ in 0..runs {
        for (stage, fresh) in
            [("CLI (ptoc process)", true), ("CLI, -o DIR up to date", false), ("CLI --emit ir -o FILE", true)]
        {
            if fresh {
                let _ = std::fs::remove_dir_all(&out_dir);
                let _ = std::fs::remove_file(ir_out);
            }
            let args =
                if stage.contains("--emit ir") { ["--emit=ir", "-o", ir_out] } else { ["--emit=cpp", "-o", out] };
            let t = Instant::now();
            let status = std::process::Command::new(env!("CARGO_BIN_EXE_ptoc"))
                .args(args)
                .arg(&input)
                .status()
                .expect("run the ptoc binary");
            record(&mut table, stage, t.elapsed());
            assert!(status.success(), "ptoc failed on {}", input.display());
        }
    }
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(ir_out);
    let _ = std::fs::remove_dir_all(&out_dir);
    println!("{runs} runs; best / median in ms");
    for (stage, times) in &mut table {
        times.sort();
        println!("  {stage:>22}: {:>10.2} {:>10.2}", ms(times[0]), ms(times[times.len() / 2]));
    }
    for stage in ["driver end to end", "CLI (ptoc process)"] {
        let best = table.iter().find(|(s, _)| s == stage).map(|(_, t)| t[0]).unwrap_or_default();
        println!("  throughput ({stage}, best): {:.2} MB/s", source.len() as f64 / 1e6 / best.as_secs_f64());
    }
    table
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The summary: one row per stage, one column per size (best ms), then the scaling ratios.
fn summary(results: &[(&str, Table)]) {
    println!("\n== summary: best (median) ms per stage");
    print!("{:>22}", "stage");
    for (name, _) in results {
        print!(" | {name:>19}");
    }
    println!();
    let Some((_, first)) = results.first() else { return };
    for (stage, _) in first {
        print!("{stage:>22}");
        for (_, table) in results {
            let t = &table.iter().find(|(s, _)| s == stage).expect("same stages for every size").1;
            print!(" | {:>9.2} ({:>7.2})", ms(t[0]), ms(t[t.len() / 2]));
        }
        println!();
    }
    for stage in ["driver end to end", "CLI (ptoc process)"] {
        let best = |size: &str| {
            let table = &results.iter().find(|(n, _)| *n == size)?.1;
            Some(table.iter().find(|(s, _)| s == stage)?.1[0])
        };
        if let (Some(a), Some(b)) = (best("10k"), best("100k")) {
            println!(
                "scaling 10k -> 100k lines ({stage}, best): {:.2}x time (target <= 11x)",
                b.as_secs_f64() / a.as_secs_f64()
            );
        }
        if let (Some(a), Some(b)) = (best("10k"), best("long")) {
            println!(
                "2 x 5000 ops vs 20 x 500 ops ({stage}, best): {:.2}x time (target <= 2x)",
                b.as_secs_f64() / a.as_secs_f64()
            );
        }
    }
}
