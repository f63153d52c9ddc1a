//! Front-end benchmark: parse, lower and print a large generated program.
//!
//! `cargo bench --bench frontend` generates the 50,000-line benchmark program with
//! `../shared/tools/genpto.py --funcs 100 --ops 500` (or reads `PTOC_BENCH_INPUT`), then times
//! each stage over several runs and prints the best and median wall-clock times. Run it in
//! release mode (cargo bench does); timing is never asserted in tests.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    // `cargo bench` passes `--bench`; ignore arguments.
    let source = match std::env::var("PTOC_BENCH_INPUT") {
        Ok(path) => std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}")),
        Err(_) => generate(),
    };
    let lines = source.lines().count();
    println!("input: {} lines, {} bytes", lines, source.len());
    // Deeply nested inputs are not part of this benchmark, but run on a big stack like the CLI.
    let handle =
        std::thread::Builder::new().stack_size(1 << 30).spawn(move || run(&source)).expect("spawn benchmark thread");
    handle.join().expect("benchmark thread panicked");
}

fn generate() -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/genpto.py");
    let out =
        Command::new("python3").arg(&script).args(["--funcs", "100", "--ops", "500"]).output().unwrap_or_else(|e| {
            panic!("cannot run {}: {e} (set PTOC_BENCH_INPUT to a .pto file instead)", script.display())
        });
    assert!(out.status.success(), "genpto.py failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("genpto output is UTF-8")
}

fn run(source: &str) {
    const RUNS: usize = 10;
    let mut parse_t = Vec::new();
    let mut lower_t = Vec::new();
    let mut print_t = Vec::new();
    let mut total_t = Vec::new();
    let mut out_len = 0;
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let module = ptoc::parser::parse(source).expect("benchmark input parses");
        let t1 = Instant::now();
        let prog = ptoc::lower::lower(module).expect("benchmark input lowers");
        let t2 = Instant::now();
        let text = ptoc::printer::print_program(&prog);
        let t3 = Instant::now();
        out_len = text.len();
        parse_t.push(t1 - t0);
        lower_t.push(t2 - t1);
        print_t.push(t3 - t2);
        total_t.push(t3 - t0);
        drop((prog, text));
    }
    println!("output: {out_len} bytes; {RUNS} runs");
    report("parse", &mut parse_t);
    report("lower", &mut lower_t);
    report("print", &mut print_t);
    report("parse+lower+print", &mut total_t);
}

fn report(name: &str, times: &mut [Duration]) {
    times.sort();
    let best = times[0];
    let median = times[times.len() / 2];
    println!("{name:>18}: best {:>8.2} ms, median {:>8.2} ms", best.as_secs_f64() * 1e3, median.as_secs_f64() * 1e3);
}
