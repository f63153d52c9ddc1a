//! Where the memory of a compilation goes: a counting allocator (around mimalloc, the binary's
//! allocator) reports the bytes live after each stage and the peak during it, for the stages
//! the driver runs with `--emit=cpp` (parse and lower as the driver does them, each method
//! lowered as soon as it is parsed; then parse and lower apart, each pass of the default
//! pipeline through the pass manager, codegen), and for the in-process driver end to end.
//!
//! `cargo bench --bench memory` runs the 50k-line program (`genpto.py --funcs 100 --ops 500`);
//! arguments after `--` choose sizes (`1k 10k 50k 100k long`). Heap bytes only: the peak RSS of
//! the process adds the binary, the stacks and the allocator's own slack (see
//! docs/performance.md for `/usr/bin/time -v` figures).

mod common {
    pub mod gen;
}

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::gen::{generate, Shape};
use ptoc::passes::manager::Manager;
use ptoc::passes::{Backend, OptLevel, PassEnv, Pipeline};

/// mimalloc with a count of live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { mimalloc::MiMalloc.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const SIZES: &[(&str, Shape)] = &[
    ("1k", Shape::new(2, 500)),
    ("10k", Shape::new(20, 500)),
    ("50k", Shape::new(100, 500)),
    ("100k", Shape::new(200, 500)),
    ("long", Shape::new(2, 5000)),
];

fn mb(n: usize) -> f64 {
    n as f64 / 1e6
}

/// Runs `f`, then prints the bytes live after it and the peak during it.
fn stage<T>(name: &str, f: impl FnOnce() -> T) -> T {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    let r = f();
    let (live, peak) = (LIVE.load(Ordering::Relaxed), PEAK.load(Ordering::Relaxed));
    println!("{name:>24} | {:>9.1} | {:>9.1}", mb(live), mb(peak));
    r
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let chosen: Vec<&(&str, Shape)> =
        SIZES.iter().filter(|(n, _)| if args.is_empty() { *n == "50k" } else { args.iter().any(|a| a == n) }).collect();
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || chosen.iter().for_each(|(n, s)| measure(n, *s)))
        .expect("spawn the benchmark thread")
        .join()
        .expect("benchmark thread panicked");
}

fn measure(name: &str, shape: Shape) {
    let source = generate(shape);
    println!("{name}: {} lines, {:.2} MB of text", source.lines().count(), mb(source.len()));
    println!("{:>24} | {:>9} | {:>9}", "stage", "live MB", "peak MB");
    let env = PassEnv { jobs: ptoc::parser::default_jobs(), ..PassEnv::new(Backend::Cce) };
    let passes = Pipeline::Default.passes_at(OptLevel::default());
    let base = LIVE.load(Ordering::Relaxed);
    println!("{:>24} | {:>9.1} | {:>9}", "input text", mb(base), "");
    // What the driver does: each method lowered as soon as it is parsed (no whole syntax tree).
    let streamed = stage("parse+lower, streamed", || ptoc::lower::lower_source(&source, env.jobs).expect("lowers"));
    drop(streamed);
    // The two steps apart, the whole syntax tree in between (what streaming the methods saves).
    let module = stage("parse", || ptoc::parser::parse(&source).expect("parses"));
    let mut prog = stage("lower", || ptoc::lower::lower(module).expect("lowers"));
    for pass in &passes {
        let one = [*pass];
        prog = stage(pass.name, || Manager::new(&one, env).run(prog).expect("pass succeeds"));
    }
    let files = stage("codegen", || ptoc::codegen::generate(&prog).expect("codegen"));
    stage("drop IR", || drop(prog));
    stage("drop C++", || drop(files));
    let args: Vec<String> = ["ptoc", "--emit=cpp", "-o", "/tmp/ptoc-memory-bench", "-"].map(String::from).to_vec();
    let out = stage("driver --emit cpp", || ptoc::driver::run(&args, source.as_bytes()));
    assert_eq!(out.code, 0, "ptoc failed: {}", String::from_utf8_lossy(&out.stderr));
    drop(out);
    let args: Vec<String> = ["ptoc", "--emit=ir", "-"].map(String::from).to_vec();
    let out = stage("driver --emit ir", || ptoc::driver::run(&args, source.as_bytes()));
    assert_eq!(out.code, 0, "ptoc failed: {}", String::from_utf8_lossy(&out.stderr));
    println!();
}
