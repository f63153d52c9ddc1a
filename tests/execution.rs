//! Execution tests: ptoc's C++ compiled against pto-isa's CPU simulator and run, with ptoc's
//! IR interpreter (`ptoc run`) as the oracle. See docs/execution-tests.md.
//!
//! For every program of the corpus (examples, the lit codegen programs ptoc accepts, the
//! DSL conformance inputs, the cpusim programs, genmix programs generated at test time):
//! 1. `ptoc --emit cpp` in-process; the function signatures come from ptoc's IR after the
//!    default pipeline (`execution::signature`);
//! 2. every kernel and orchestration file and a generated host main (`execution::host`) are
//!    compiled with clang against pto-isa (`-D__CPU_SIM`), cached (`execution::toolchain`),
//!    and linked into one executable per program;
//! 3. each InCore and Orchestration function runs on seeded random inputs
//!    (`execution::inputs`) with guard zones around every tensor;
//! 4. the interpreter runs the same function on the same `.npy` files, after the default
//!    pipeline and on the input as written (`--pipeline none`); the three results must agree
//!    (`execution::compare`).
//!
//! Trials: `exec/<corpus>/<name>` per program, judged against
//! `tests/execution-expected-failures.txt` (`execution::expected`); `exec/selftest/*` check
//! the harness itself (a kernel that writes out of bounds must be caught); one trial checks the
//! expected-failures file; `exec/corpora` checks that every corpus of `../shared` is there and
//! yields as many programs as it holds. After the run, a summary line gives the counts.
//! Without clang++-19 (or `$PTOC_CXX`) or pto-isa, one trial says so and checks nothing, except
//! under `CI=true` (where `.ci/run` installs clang and `../shared` is present), where it fails.

mod common;

mod execution {
    pub mod compare;
    pub mod corpus;
    pub mod expected;
    pub mod host;
    pub mod inputs;
    pub mod interp;
    pub mod invalid;
    pub mod npy;
    pub mod signature;
    pub mod systests;
    pub mod toolchain;
}

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use execution::expected::{self, Class, Entry};
use execution::npy::Array;
use execution::signature::{self, FuncSig, Kind, ParamType};
use execution::toolchain::{self, Pch, Toolchain};
use execution::{compare, corpus, host, inputs, interp, invalid};
use libtest_mimic::{Arguments, Failed, Trial};
use ptoc::driver;

/// How one program ended.
#[derive(Clone, Debug)]
enum Outcome {
    /// Ran, and every result agreed with the interpreter.
    Pass,
    /// Ran without crashing or writing out of bounds; no interpreter to compare with.
    NotCompared,
    /// A lit error test: ptoc refuses it, as intended; not counted.
    Excluded,
    /// A systests case whose interpreter results match the expected outputs and whose C++ ran,
    /// but whose C++ results are not compared: it computes in BF16, which pto-isa's CPU
    /// simulator has only as `_Float16` with this toolchain (no C++23 `std::bfloat16_t`).
    InterpOnly,
    /// A program listed in `tests/execution-invalid-programs.txt`, refused with its code.
    Invalid,
    Fail(Class, String),
}

impl Outcome {
    fn failure(&self) -> Option<(Class, &str)> {
        match self {
            Outcome::Fail(c, why) => Some((*c, why.as_str())),
            _ => None,
        }
    }
}

type Results = Arc<Mutex<Vec<(String, Outcome)>>>;

/// Nanoseconds spent in ptoc's `--emit cpp` and in the interpreter's comparison runs, summed
/// over the trials (the compiler, link and run times are in `toolchain::STATS`).
static PTOC_NS: AtomicU64 = AtomicU64::new(0);
static INTERP_NS: AtomicU64 = AtomicU64::new(0);

fn main() {
    let args = Arguments::from_args();
    common::quiet_panics();
    let root = common::manifest_dir();
    let toolchain = match Toolchain::detect(&root) {
        Ok(t) => Arc::new(t),
        Err(why) => {
            let trial = Trial::test("exec", move || {
                if common::in_ci() {
                    return Err(format!("execution tests under CI=true: {why}").into());
                }
                println!("execution tests: {why}; 0 checks");
                Ok(())
            });
            libtest_mimic::run(&args, vec![trial]).exit();
        }
    };
    let expected_text = std::fs::read_to_string(root.join(expected::FILE)).unwrap_or_default();
    let listed = expected::parse(&expected_text);
    let updating = std::env::var_os("PTOC_UPDATE_EXEC_FAILURES").is_some_and(|v| v == "1");
    let mut programs = corpus::programs(&root);
    let mut trials = Vec::new();
    match corpus::heldout(std::env::var(corpus::HELDOUT_VAR).ok().as_deref()) {
        Ok(extra) => programs.extend(extra),
        Err(why) => trials.push(Trial::test("exec/heldout", move || Err(Failed::from(why)))),
    }
    match corpus::heldout_forms(&root, std::env::var(corpus::HELDOUT_FORMS_VAR).ok().as_deref()) {
        Ok(extra) => programs.extend(extra),
        Err(why) => trials.push(Trial::test("exec/heldout-forms", move || Err(Failed::from(why)))),
    }
    {
        let ids: Vec<String> = programs.iter().map(|p| p.id.clone()).collect();
        let shared = root.join("../shared");
        trials.push(Trial::test("exec/corpora", move || corpora_yield_programs(&shared, &ids).map_err(Failed::from)));
    }
    let results: Results = Arc::default();
    let invalid_listed = invalid::parse(&std::fs::read_to_string(root.join(invalid::FILE)).unwrap_or_default());

    {
        let ids: Vec<String> = programs.iter().map(|p| p.id.clone()).collect();
        let listed = listed.clone();
        trials.push(Trial::test("exec/expected-failures-file", move || {
            let map = listed.map_err(|e| format!("{}: {e}", expected::FILE))?;
            let stale: Vec<&String> = map.keys().filter(|id| !ids.contains(id)).collect();
            if stale.is_empty() {
                Ok(())
            } else {
                Err(format!("{} lists programs that do not exist: {stale:?}", expected::FILE).into())
            }
        }));
    }
    for (name, oob) in [("exec/selftest/in-bounds-write", false), ("exec/selftest/guard-zone", true)] {
        let tc = Arc::clone(&toolchain);
        trials.push(Trial::test(name, move || selftest(&tc, oob).map_err(Failed::from)));
    }
    {
        let ids: Vec<String> = programs.iter().map(|p| p.id.clone()).collect();
        let invalid_listed = invalid_listed.clone();
        trials.push(Trial::test("exec/invalid-programs-file", move || {
            let map = invalid_listed.map_err(|e| format!("{}: {e}", invalid::FILE))?;
            let stale: Vec<&String> = map.keys().filter(|id| !ids.contains(id)).collect();
            if stale.is_empty() {
                Ok(())
            } else {
                Err(format!("{} lists programs that do not exist: {stale:?}", invalid::FILE).into())
            }
        }));
    }
    let invalid_map = Arc::new(invalid_listed.unwrap_or_default());
    let invalid_codes: Arc<BTreeSet<String>> = Arc::new(invalid_map.values().map(|i| i.code.clone()).collect());
    let listed_map = listed.clone().unwrap_or_default();
    for p in programs {
        let (invalid_map, invalid_codes) = (Arc::clone(&invalid_map), Arc::clone(&invalid_codes));
        let (tc, results, root) = (Arc::clone(&toolchain), Arc::clone(&results), root.clone());
        // Held-out programs are judged with no expectation: any failure is reported.
        let heldout = p.id.starts_with(corpus::HELDOUT_PREFIX);
        let entry = listed_map.get(&p.id).cloned().filter(|_| !heldout);
        trials.push(Trial::test(p.id.clone(), move || {
            let start = Instant::now();
            let judge = match invalid_map.get(&p.id) {
                _ if heldout => invalid::Judge::Codes(&invalid_codes),
                Some(inv) => invalid::Judge::Listed(inv),
                None => invalid::Judge::Valid,
            };
            let outcome = common::guard(|| run_program(&tc, &root, &p, judge))
                .unwrap_or_else(|panic| Outcome::Fail(Class::Ice, format!("harness or ptoc {panic}")));
            results.lock().unwrap().push((p.id.clone(), outcome.clone()));
            if let Outcome::Fail(c, why) = &outcome {
                println!(
                    "{}: {} ({:.1}s): {}",
                    p.id,
                    c.name(),
                    start.elapsed().as_secs_f64(),
                    expected::short_reason(why)
                );
            }
            if updating {
                return Ok(());
            }
            expected::judge(&p.id, outcome.failure(), entry.as_ref(), interp::available()).map_err(Failed::from)
        }));
    }

    let conclusion = libtest_mimic::run(&args, trials);
    let results = results.lock().unwrap().clone();
    let (heldout, corpus_results): (Vec<_>, Vec<_>) =
        results.iter().cloned().partition(|(id, _)| id.starts_with(corpus::HELDOUT_PREFIX));
    summary("execution summary", &corpus_results, &toolchain);
    summary("held-out summary", &heldout, &toolchain);
    if !results.is_empty() {
        timings();
    }
    if updating && !results.is_empty() {
        let mut map = listed_map;
        for (id, outcome) in results.iter().filter(|(id, _)| !id.starts_with(corpus::HELDOUT_PREFIX)) {
            match outcome.failure() {
                Some((class, why)) => {
                    map.insert(id.clone(), Entry { class, reason: expected::short_reason(why) });
                }
                None => {
                    // Keep interpreter-only entries when there is no interpreter to judge them.
                    if !map.get(id).is_some_and(|e| e.class.needs_interpreter() && !interp::available()) {
                        map.remove(id);
                    }
                }
            }
        }
        let path = root.join(expected::FILE);
        match std::fs::write(&path, expected::render(&map)) {
            Ok(()) => println!("PTOC_UPDATE_EXEC_FAILURES=1: wrote {} entries to {}", map.len(), expected::FILE),
            Err(e) => println!("cannot write {}: {e}", path.display()),
        }
    }
    conclusion.exit();
}

/// The corpora of `../shared` (generated or recorded data, fixed) and how many programs each
/// gives: (id prefix, folder, at least).
const CORPORA: &[(&str, &str, usize)] = &[
    ("exec/conformance-dsl/", "conformance-dsl", 30),
    ("exec/cpusim/", "cpusim/programs", 7),
    ("exec/systests/", "systests", 71),
    ("exec/genmix/", "tools/genmix.py", corpus::GENMIX_KINDS.len() * corpus::GENMIX_PER_KIND as usize),
];

/// Every corpus is present (outside CI a missing one is reported and not counted) and gives at
/// least the programs it holds; the examples give some.
fn corpora_yield_programs(shared: &Path, ids: &[String]) -> Result<(), String> {
    let count = |prefix: &str| ids.iter().filter(|id| id.starts_with(prefix)).count();
    let mut problems = Vec::new();
    for &(prefix, folder, floor) in CORPORA {
        match common::corpus_found(&shared.join(folder), &format!("the execution tests' {prefix}* programs")) {
            Ok(true) if count(prefix) < floor => {
                problems.push(format!("only {} {prefix}* programs, expected at least {floor}", count(prefix)))
            }
            Ok(_) => println!("{} {prefix}* programs", count(prefix)),
            Err(e) => problems.push(e),
        }
    }
    if count("exec/examples/") == 0 {
        problems.push("no exec/examples/* programs".into());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn summary(label: &str, results: &[(String, Outcome)], tc: &Toolchain) {
    if results.is_empty() {
        return;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, o) in results {
        let k = match o {
            Outcome::Pass => "pass",
            Outcome::NotCompared => "not-compared",
            Outcome::Excluded => "excluded",
            Outcome::InterpOnly => "interp-only",
            Outcome::Invalid => "invalid",
            Outcome::Fail(c, _) => c.name(),
        };
        *counts.entry(k).or_default() += 1;
    }
    let order = [
        "pass",
        "interp-only",
        "invalid",
        "not-compared",
        "refused",
        "ice",
        "compile-fail",
        "run-fail",
        "interp-fail",
        "mismatch",
        "excluded",
    ];
    let line: Vec<String> = order.iter().map(|k| format!("{} {k}", counts.get(k).copied().unwrap_or(0))).collect();
    println!("{label} ({} programs, {}): {}", results.len(), tc.version, line.join(", "));
    if !interp::available() {
        println!("(not compared: this ptoc has no `ptoc run` interpreter)");
    }
    if counts.contains_key("interp-only") {
        println!(
            "(interp-only: BF16 programs, checked against their expected outputs in the interpreter; their C++ is compiled and run, not compared: pto-isa's CPU simulator takes bfloat16_t for _Float16 without C++23 std::bfloat16_t)"
        );
    }
}

/// Where the time went (one line).
fn timings() {
    let st = &toolchain::STATS;
    let secs = |a: &AtomicU64| a.load(Ordering::Relaxed) as f64 / 1e9;
    let n = |a: &std::sync::atomic::AtomicUsize| a.load(Ordering::Relaxed);
    println!(
        "execution time, summed over trials: ptoc --emit cpp {:.1}s, clang {:.1}s ({} compilations, {} objects cached), link {:.1}s ({}), runs {:.1}s ({}), interpreter {:.1}s",
        secs(&PTOC_NS),
        secs(&st.compile_ns),
        n(&st.compiles),
        n(&st.cached_objects),
        secs(&st.link_ns),
        n(&st.links),
        secs(&st.run_ns),
        n(&st.runs),
        secs(&INTERP_NS),
    );
}

/// Runs ptoc in-process.
fn ptoc(args: &[&str]) -> driver::Output {
    let argv: Vec<String> = std::iter::once("ptoc").chain(args.iter().copied()).map(String::from).collect();
    driver::run(&argv, b"")
}

/// The first line of a compiler log that says `error`, else its first line.
fn first_error(log: &str) -> String {
    log.lines().find(|l| l.contains("error")).or_else(|| log.lines().next()).unwrap_or("").trim().to_string()
}

/// The informative part of a failed run's stderr: an assertion as `file:line: Assertion `…'
/// failed.` (without the function signature, which is long), else the first lines.
fn run_failure_detail(stderr: &str) -> String {
    if let Some(line) = stderr.lines().find(|l| l.contains(": Assertion")) {
        let at = line.split(": ").next().unwrap_or("");
        let what = &line[line.find("Assertion").unwrap_or(0)..];
        return format!("{at}: {what}");
    }
    stderr.lines().filter(|l| !l.trim().is_empty()).take(4).collect::<Vec<_>>().join(" | ")
}

/// The program's scratch directory (kept after the run, for inspection).
fn work_dir(tc: &Toolchain, id: &str) -> Result<PathBuf, String> {
    let dir = tc.cache.join("work").join(id.replace('/', "__"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn read_npy(path: &Path) -> Result<Array, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Array::from_npy(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn run_program(tc: &Toolchain, root: &Path, p: &corpus::Program, judge: invalid::Judge) -> Outcome {
    if let corpus::Source::Systest(dir) = &p.source {
        return match try_systest(tc, root, p, dir) {
            Ok(o) => o,
            Err((c, why)) => Outcome::Fail(c, why),
        };
    }
    let started = Instant::now();
    let agreed = self_agreement(tc, root, p);
    INTERP_NS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    match agreed.and_then(|()| try_program(tc, root, p, judge)) {
        Ok(o) => o,
        Err((c, why)) => Outcome::Fail(c, why),
    }
}

/// The element type an .npy descr stands for (`<u2` is taken as UINT16: compared exactly).
fn elem_of(descr: &str) -> Option<execution::npy::Elem> {
    use execution::npy::Elem::*;
    [F32, F16, U16, I8, I16, I32, I64, U8, U32, U64, Bool].into_iter().find(|e| e.descr() == descr)
}

/// The interpreter agrees with itself: every function of the program as written gives the same
/// results on the same seeded inputs before the passes (`--pipeline none`) and after them, on
/// every program — also those whose C++ fails (this checks the passes, not the C++). A function
/// the pipeline rejects (ptoc refuses the program) is not compared here.
fn self_agreement(tc: &Toolchain, root: &Path, p: &corpus::Program) -> Step<()> {
    // Lit error tests (optional programs) are invalid on purpose.
    if !interp::available() || p.optional {
        return Ok(());
    }
    let file = corpus::materialize(root, &tc.cache, &p.source).map_err(harness)?;
    let Ok(source) = std::fs::read_to_string(&file) else { return Ok(()) };
    let Ok(written) = ptoc::driver::frontend(&source) else { return Ok(()) };
    // Messages go into the expected-failures file: no machine-specific paths in them.
    let (file_s, file_name) =
        (file.to_string_lossy().into_owned(), file.file_name().unwrap_or_default().to_string_lossy());
    let first_error = |why: &str| first_error(why).replace(&file_s, &file_name);
    let work = work_dir(tc, &p.id).map_err(harness)?.join("self");
    let _ = std::fs::remove_dir_all(&work);
    for f in &written.functions {
        // `ptoc run --seed` cannot choose a symbolic dimension's extent: such a function is
        // compared on the harness's inputs instead (`try_program`, step 4).
        if signature::has_symbolic_dims(f) {
            continue;
        }
        let (none_dir, after_dir) = (work.join(&f.name).join("none"), work.join(&f.name).join("default"));
        let seed = 7;
        // After the passes first: a program the pipeline's verification rejects (an `if` without
        // `else` that yields, in text read as printed IR) is invalid, and running it as written
        // would only meet the missing value.
        match interp::run_seeded(&file, "default", &f.name, seed, &after_dir) {
            interp::Seeded::Ran => {}
            interp::Seeded::Rejected => continue,
            interp::Seeded::Failed(why) => {
                return Err((Class::InterpFail, format!("{} after the passes: {}", f.name, first_error(&why))))
            }
        }
        match interp::run_seeded(&file, "none", &f.name, seed, &none_dir) {
            interp::Seeded::Ran => {}
            interp::Seeded::Rejected => continue,
            interp::Seeded::Failed(why) => {
                return Err((Class::InterpFail, format!("{} as written: {}", f.name, first_error(&why))))
            }
        }
        let mut names: Vec<String> = std::fs::read_dir(&none_dir)
            .map_err(|e| harness(e.to_string()))?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            let before = read_npy(&none_dir.join(&name)).map_err(harness)?;
            let after = read_npy(&after_dir.join(&name))
                .map_err(|e| (Class::Mismatch, format!("{}: {name} after the passes: {e}", f.name)))?;
            let elem = elem_of(&before.descr).ok_or_else(|| harness(format!("{name}: dtype `{}`", before.descr)))?;
            compare::compare(&after, &before, elem).map_err(|e| {
                (Class::Mismatch, format!("{}: {name}: interpreter after the passes vs as written: {e}", f.name))
            })?;
        }
    }
    Ok(())
}

/// Input sets per function (each a run of the executable and of the interpreter).
const INPUT_SETS: usize = 2;

/// Input sets for `p`: generated programs without scalar control flow (every kind but `branch`
/// and `scalar`) take one, to keep the suite inside its CI time budget: their second set only
/// repeats the same path through the kernel with other numbers.
/// Transformed programs (`exec/genforms/`) take one, but `onepath` two: its guard's flag is
/// an input, and both paths should run (`dyn` programs list their larger shapes first).
fn input_sets(p: &corpus::Program) -> usize {
    if let corpus::Source::GenForm { form, .. } = &p.source {
        return if *form == common::genforms::Form::OnePath { INPUT_SETS } else { 1 };
    }
    let generated = p.id.starts_with("exec/genmix/") || p.id.starts_with("exec/heldout/");
    let scalar_paths = p.id.contains("/branch_s") || p.id.contains("/scalar_s");
    if generated && !scalar_paths {
        1
    } else {
        INPUT_SETS
    }
}

type Step<T> = Result<T, (Class, String)>;

/// A failure of the harness itself (not of ptoc's C++): reported as an internal error so
/// that it is never silently expected.
fn harness(e: String) -> (Class, String) {
    (Class::Ice, format!("harness: {e}"))
}

/// ptoc's optimisation levels: the C++ is built and run at each, `-O1` (the default) first;
/// its results must match the interpreter's at every level. `-O2` pipelines loops (copies of
/// the body with buffers of their own), so its kernels differ from `-O1`'s wherever a loop is.
const OPT_LEVELS: [&str; 3] = ["-O1", "-O0", "-O2"];

/// ptoc's C++ files of a program, by path relative to the output directory.
fn cpp_files(out: &driver::Output) -> BTreeMap<String, String> {
    out.files
        .iter()
        .map(|(path, bytes)| {
            let rel = path.strip_prefix("cpp").unwrap_or(path);
            (common::relative_name(rel, Path::new("")), String::from_utf8_lossy(bytes).into_owned())
        })
        .collect()
}

/// Writes `files` under `dir`, compiles every kernel and orchestration file and the host main
/// of `funcs` (at most JOBS at a time, cached by content), links them. `Err` is compile-fail.
fn build(
    tc: &Toolchain,
    files: &BTreeMap<String, String>,
    funcs: &[FuncSig],
    dir: &Path,
    tidy: &dyn Fn(&str) -> String,
) -> Step<PathBuf> {
    for (rel, text) in files {
        write(&dir.join("cpp").join(rel), text.as_bytes()).map_err(harness)?;
    }
    let table = host::kernel_table(files.get("kernel_config.py").map_or("", String::as_str));
    let mut units: Vec<(String, String, Vec<String>, Option<Pch>)> = Vec::new();
    for (rel, text) in files {
        let stem = rel.rsplit('/').next().unwrap_or(rel).trim_end_matches(".cpp").to_string();
        if rel.starts_with("kernels/") && rel.ends_with(".cpp") {
            units.push((rel.clone(), text.clone(), host::rename_flags(Kind::Kernel, &stem), Some(Pch::Kernel)));
        } else if rel.starts_with("orchestration/") && rel.ends_with(".cpp") {
            units.push((rel.clone(), text.clone(), host::rename_flags(Kind::Orchestration, &stem), Some(Pch::Host)));
        }
    }
    let main = host::main_cpp(funcs, &table);
    write(&dir.join("host_main.cpp"), main.as_bytes()).map_err(harness)?;
    units.push(("host_main.cpp".into(), main, Vec::new(), Some(Pch::Host)));
    let compiled: Vec<(String, Result<PathBuf, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = units
            .iter()
            .map(|(rel, text, flags, pch)| (rel, s.spawn(move || tc.object(rel, text, flags, *pch))))
            .collect();
        handles.into_iter().map(|(rel, h)| (rel.clone(), h.join().unwrap_or_else(|_| Err("panicked".into())))).collect()
    });
    let mut objs = Vec::new();
    let mut errors = Vec::new();
    for (rel, r) in compiled {
        match r {
            Ok(o) => objs.push(o),
            Err(log) => {
                // An error in a header is reported with the TU it came from.
                let e = tidy(&first_error(&log));
                errors.push(if e.starts_with(&rel) { e } else { format!("{rel}: {e}") });
            }
        }
    }
    if !errors.is_empty() {
        return Err((Class::CompileFail, errors.join("\n")));
    }
    tc.link(&objs).map_err(|log| (Class::CompileFail, format!("link: {}", tidy(&first_error(&log)))))
}

/// Runs `exe <f> <in_dir> <out_dir>`; `Err` is run-fail, with `run` (`<f>/<input set>`) and
/// what went wrong.
fn run_function(
    exe: &Path,
    f: &str,
    run: &str,
    in_dir: &Path,
    out_dir: &Path,
    tidy: &dyn Fn(&str) -> String,
) -> Step<()> {
    std::fs::create_dir_all(out_dir).map_err(|e| harness(e.to_string()))?;
    let r = toolchain::run(exe, &[f, &in_dir.to_string_lossy(), &out_dir.to_string_lossy()]).map_err(harness)?;
    let why = match (r.timed_out, r.code) {
        (true, _) => Some(format!("timed out after {}s", toolchain::RUN_TIMEOUT.as_secs())),
        (_, Some(0)) => None,
        (_, Some(3)) => Some("wrote outside a tensor".into()),
        (_, Some(c)) => Some(format!("exit status {c}")),
        (_, None) => Some("crashed".into()),
    };
    let _ = std::fs::write(out_dir.join("stderr.txt"), &r.stderr);
    match why {
        None => Ok(()),
        Some(why) => {
            // An assertion message starts with the executable's name (a hash).
            let exe_prefix = format!("{}: ", exe.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
            let detail = tidy(&run_failure_detail(&r.stderr.replace(&exe_prefix, "")));
            Err((Class::RunFail, format!("{run}: {why}: {detail}")))
        }
    }
}

/// Prefixes a failure at `-O0` with the level (a failure at the default `-O1` has no prefix).
fn at_level(level: &str, (c, why): (Class, String)) -> (Class, String) {
    if level == OPT_LEVELS[0] {
        (c, why)
    } else {
        (c, format!("{level}: {why}"))
    }
}

fn try_program(tc: &Toolchain, root: &Path, p: &corpus::Program, judge: invalid::Judge) -> Step<Outcome> {
    let file = corpus::materialize(root, &tc.cache, &p.source).map_err(harness)?;
    let file_s = file.to_string_lossy().into_owned();
    let work = work_dir(tc, &p.id).map_err(harness)?;
    // Messages go into the expected-failures file: no machine-specific paths in them.
    let file_name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let isa_include = format!("{}/", tc.pto_isa.join("include").display());
    let tidy = |s: &str| s.replace(&file_s, &file_name).replace(&isa_include, "");

    // 1. C++ from ptoc at the default level, and the signatures from its IR.
    let started = Instant::now();
    let out = ptoc(&["--error-format", "short", "--emit", "cpp", OPT_LEVELS[0], "-o", "cpp", &file_s]);
    PTOC_NS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    match judge {
        invalid::Judge::Listed(inv) => {
            return if out.code == 1 && invalid::diagnosed(&stderr, &inv.code) {
                Ok(Outcome::Invalid)
            } else {
                let got = if out.code == 0 { "accepts it".to_string() } else { tidy(&stderr) };
                Err((Class::Refused, format!("listed as invalid ({} {}), but ptoc {got}", inv.code, inv.reason)))
            };
        }
        invalid::Judge::Codes(codes) if out.code == 1 && invalid::heldout_invalid(&stderr, codes) => {
            return Ok(Outcome::Invalid);
        }
        _ => {}
    }
    match out.code {
        0 => {}
        1 if p.optional => return Ok(Outcome::Excluded),
        1 => return Err((Class::Refused, tidy(&stderr))),
        code => return Err((Class::Ice, format!("ptoc exited with {code}: {}", tidy(&stderr)))),
    }
    let files = cpp_files(&out);
    let source = std::fs::read_to_string(&file).map_err(|e| harness(e.to_string()))?;
    let lowered = signature::lowered(&source).map_err(harness)?;
    let mut funcs: Vec<FuncSig> = Vec::new();
    let mut notes = Vec::new();
    for (name, sig) in signature::signatures(&lowered) {
        match sig {
            Ok(s) => funcs.push(s),
            Err(why) => notes.push(format!("{name} not run: {why}")),
        }
    }
    let file_of = |f: &FuncSig| match f.kind {
        Kind::Kernel => {
            ["aiv", "aic"].iter().map(|c| format!("kernels/{c}/{}.cpp", f.name)).find(|k| files.contains_key(k))
        }
        Kind::Orchestration => Some(format!("orchestration/{}.cpp", f.name)).filter(|k| files.contains_key(k)),
    };
    funcs.retain(|f| {
        let has = file_of(f).is_some();
        if !has {
            notes.push(format!("{} not run: ptoc emitted no file for it", f.name));
        }
        has
    });
    // Symbolic dimensions take their values from the program's `# exec-dims:` line.
    let sets = input_sets(p);
    let dims: Vec<BTreeMap<String, usize>> =
        (0..sets).map(|k| signature::exec_dims(&source, k)).collect::<Result<_, _>>().map_err(harness)?;
    funcs.retain(|f| {
        let specs = f.params.iter().filter_map(|p| match &p.ty {
            ParamType::Tensor(t) => Some(t),
            ParamType::Scalar(..) => None,
        });
        match specs.chain(f.extra_returns.iter().map(|(_, t)| t)).try_for_each(|t| t.resolve(&dims[0]).map(drop)) {
            Ok(()) => true,
            Err(why) => {
                notes.push(format!("{} not run: {why}", f.name));
                false
            }
        }
    });

    for n in &notes {
        println!("{}: note: {n}", p.id);
    }

    // 2. Compile every generated TU and the host main, two at a time; link.
    let exe = build(tc, &files, &funcs, &work, &tidy)?;

    // 3. Run every function on its sets of inputs (scalar arguments differ between them, so
    // both sides of a scalar `if` have a chance).
    let runs: Vec<(&FuncSig, usize, String)> =
        funcs.iter().flat_map(|f| (0..sets).map(move |k| (f, k, format!("{}/{k}", f.name)))).collect();
    for (f, set, run) in &runs {
        let in_dir = work.join("in").join(run);
        let mut rng = inputs::Rng::new(&format!("{}/{run}", p.id));
        for prm in &f.params {
            let a = match &prm.ty {
                ParamType::Tensor(t) => inputs::tensor(&mut rng, &t.resolve(&dims[*set]).map_err(harness)?),
                ParamType::Scalar(_, e) => inputs::scalar(&mut rng, *e),
            };
            write(&in_dir.join(format!("{}.npy", prm.name)), &a.to_npy()).map_err(harness)?;
        }
        for (i, t) in &f.extra_returns {
            let t = t.resolve(&dims[*set]).map_err(harness)?;
            write(&in_dir.join(format!("return_{i}.npy")), &inputs::tensor(&mut rng, &t).to_npy()).map_err(harness)?;
        }
        run_function(&exe, &f.name, run, &in_dir, &work.join("cpp-out").join(run), &tidy)?;
    }

    // 4. Compare with the interpreter, after the default pipeline and before any pass.
    // `references[i]`: for run i, every output file of the C++ with its dtype and the file it
    // must match (the interpreter's; without an interpreter, the `-O1` C++'s, for `-O0`).
    let mut references: Vec<Vec<(String, execution::npy::Elem, PathBuf)>> = Vec::new();
    let compared = interp::available();
    if !compared {
        for (f, _, run) in &runs {
            let mut outs = Vec::new();
            for prm in &f.params {
                if let ParamType::Tensor(t) = &prm.ty {
                    outs.push((
                        prm.name.clone(),
                        t.elem,
                        work.join("cpp-out").join(run).join(format!("{}.npy", prm.name)),
                    ));
                }
            }
            for (i, t) in &f.extra_returns {
                outs.push((
                    format!("return_{i}"),
                    t.elem,
                    work.join("cpp-out").join(run).join(format!("return_{i}.npy")),
                ));
            }
            references.push(outs);
        }
    }
    let before = if compared { ptoc::driver::frontend(&source).ok() } else { None };
    let before_sigs: Vec<(String, Result<FuncSig, String>)> =
        before.as_ref().map(signature::signatures).unwrap_or_default();
    for (f, _, run) in runs.iter().filter(|_| compared) {
        let in_dir = work.join("in").join(run);
        let cpp_dir = work.join("cpp-out").join(run);
        // `ptoc run` names parameters as the source writes them (`a`, where the IR after
        // convert-to-ssa has `a_0`); functions the passes created keep their IR names.
        let before_sig = match before_sigs.iter().find(|(n, _)| *n == f.name) {
            Some((_, Ok(b))) => Some(b),
            _ => None,
        };
        if before_sig.is_some_and(|b| b.params.len() != f.params.len()) {
            return Err((Class::Mismatch, format!("{}: the passes changed the parameter count", f.name)));
        }
        // An Opaque function with a scope (promoted to Orchestration by outlining) has no
        // signature before the passes, but `ptoc run` still names its parameters as written.
        let written = before.as_ref().and_then(|b| b.function(&f.name).map(|w| (b, w)));
        let run_names: Vec<String> = match (before_sig, written) {
            (Some(b), _) => b.params.iter().map(|p| p.name.clone()).collect(),
            (None, Some((_, w))) if w.params.len() == f.params.len() => {
                w.params.iter().map(|p| w.var_name(p.var).to_string()).collect()
            }
            _ => f.params.iter().map(|p| p.name.clone()).collect(),
        };
        let inputs: Vec<(String, PathBuf)> = run_names
            .iter()
            .zip(&f.params)
            .map(|(n, prm)| (n.clone(), in_dir.join(format!("{}.npy", prm.name))))
            .collect();
        let ref_dir = work.join("interp").join(run);
        let started = Instant::now();
        let ran = interp::run(&file, "default", &f.name, &inputs, &ref_dir).map_err(|e| (Class::InterpFail, e));
        INTERP_NS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        ran?;
        // Every file the C++ wrote has its counterpart from the interpreter.
        let mut outputs: Vec<(String, execution::npy::Elem, PathBuf)> = Vec::new();
        for (prm, n) in f.params.iter().zip(&run_names) {
            if let ParamType::Tensor(t) = &prm.ty {
                outputs.push((prm.name.clone(), t.elem, ref_dir.join(format!("{n}.npy"))));
            }
        }
        for (i, t) in &f.extra_returns {
            outputs.push((format!("return_{i}"), t.elem, ref_dir.join(format!("return_{i}.npy"))));
        }
        for (name, elem, want) in &outputs {
            let got = read_npy(&cpp_dir.join(format!("{name}.npy"))).map_err(harness)?;
            let want = read_npy(want).map_err(|e| (Class::InterpFail, e))?;
            compare::compare(&got, &want, *elem)
                .map_err(|e| (Class::Mismatch, format!("{run}: {name}: C++ vs interpreter: {e}")))?;
        }
        references.push(outputs);
        // The same function before the passes (outlined kernels do not exist there). With one
        // input set this only repeats what `self_agreement` checked on its seeded inputs (the
        // same single path through the kernel), at the cost of an interpreter run.
        let Some(b) = before_sig.filter(|_| sets > 1) else {
            continue;
        };
        let none_dir = work.join("interp-none").join(run);
        let started = Instant::now();
        let ran = interp::run(&file, "none", &f.name, &inputs, &none_dir).map_err(|e| (Class::InterpFail, e));
        INTERP_NS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        ran?;
        for (bp, fp) in b.params.iter().zip(&f.params) {
            if let ParamType::Tensor(t) = &fp.ty {
                let after = read_npy(&ref_dir.join(format!("{}.npy", bp.name))).map_err(|e| (Class::InterpFail, e))?;
                let before =
                    read_npy(&none_dir.join(format!("{}.npy", bp.name))).map_err(|e| (Class::InterpFail, e))?;
                compare::compare(&after, &before, t.elem).map_err(|e| {
                    (Class::Mismatch, format!("{run}: {}: interpreter after the passes vs before: {e}", fp.name))
                })?;
            }
        }
    }

    // 5. The other optimisation levels: the same functions on the same inputs must give the
    // same results. A level whose C++ is the same text, or links the same objects, gives the
    // same executable: it is not run again (the executable is deterministic).
    // Generated programs (and their transformed forms) run at the default level only: building
    // every one twice would take the suite past its CI time budget; the hand-written corpora
    // (examples, lit, DSL
    // conformance, cpusim programs) cover both levels, and tests/sync_levels.rs checks every
    // generated program's -O1 sync ops against -O0 and the hazard checker.
    let generated = ["exec/genmix/", "exec/heldout/", corpus::GENFORMS_PREFIX].iter().any(|g| p.id.starts_with(g));
    let levels: &[&str] = if generated { &[] } else { &OPT_LEVELS[1..] };
    for level in levels {
        let started = Instant::now();
        // The hazard checker on every program at the other levels, as on the default one.
        let out = ptoc(&["--error-format", "short", "--emit", "cpp", "--verify-sync", level, "-o", "cpp", &file_s]);
        PTOC_NS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        match out.code {
            0 => {}
            1 => return Err(at_level(level, (Class::Refused, tidy(&stderr)))),
            code => return Err(at_level(level, (Class::Ice, format!("ptoc exited with {code}: {}", tidy(&stderr))))),
        }
        let level_files = cpp_files(&out);
        if level_files == files {
            continue;
        }
        let dir = work.join(level.trim_start_matches('-'));
        let level_exe = build(tc, &level_files, &funcs, &dir, &tidy).map_err(|e| at_level(level, e))?;
        if level_exe == exe {
            continue;
        }
        for ((f, _, run), outputs) in runs.iter().zip(&references) {
            let out_dir = dir.join("cpp-out").join(run);
            run_function(&level_exe, &f.name, run, &work.join("in").join(run), &out_dir, &tidy)
                .map_err(|e| at_level(level, e))?;
            for (name, elem, want) in outputs {
                let got = read_npy(&out_dir.join(format!("{name}.npy"))).map_err(harness)?;
                let want = read_npy(want).map_err(harness)?;
                let against = if compared { "interpreter" } else { "C++ at -O1" };
                compare::compare(&got, &want, *elem)
                    .map_err(|e| at_level(level, (Class::Mismatch, format!("{run}: {name}: C++ vs {against}: {e}"))))?;
            }
        }
    }
    Ok(if compared { Outcome::Pass } else { Outcome::NotCompared })
}

/// The harness checks itself: a hand-written kernel writes one element, in bounds or just past
/// the end of its tensor; the in-bounds run must succeed and write that element, the other
/// must be reported as a guard-zone violation.
fn selftest(tc: &Toolchain, out_of_bounds: bool) -> Result<(), String> {
    use execution::npy::Elem;
    use execution::signature::{ParamSig, TensorSpec};
    let index = if out_of_bounds { "4 * 4" } else { "5" };
    let kernel = format!(
        "#include <cstdint>\n#include \"tensor.h\"\n\
         extern \"C\" void kernel_entry(int64_t* args) {{\n\
         Tensor* t = reinterpret_cast<Tensor*>(args[0]);\n\
         reinterpret_cast<float*>(t->buffer.addr)[t->start_offset + {index}] = 42.0f;\n}}\n"
    );
    let spec = TensorSpec { dtype: ptoc::ir::DataType::Fp32, elem: Elem::F32, shape: vec![4, 4], symbols: Vec::new() };
    let sig = FuncSig {
        name: "poke".into(),
        kind: Kind::Kernel,
        params: vec![ParamSig {
            name: "t".into(),
            ty: ParamType::Tensor(spec.clone()),
            direction: ptoc::ir::ParamDirection::Out,
        }],
        extra_returns: vec![],
        dim_slots: vec![],
    };
    let k = tc.object("poke.cpp", &kernel, &host::rename_flags(Kind::Kernel, "poke"), None)?;
    let m = tc.object("host_main.cpp", &host::main_cpp(std::slice::from_ref(&sig), &[]), &[], Some(Pch::Host))?;
    let exe = tc.link(&[k, m])?;
    let work = work_dir(tc, if out_of_bounds { "selftest/oob" } else { "selftest/ok" })?;
    let input = inputs::tensor(&mut inputs::Rng::new("selftest"), &spec);
    write(&work.join("in/t.npy"), &input.to_npy())?;
    std::fs::create_dir_all(work.join("out")).map_err(|e| e.to_string())?;
    let r = toolchain::run(&exe, &["poke", &work.join("in").to_string_lossy(), &work.join("out").to_string_lossy()])?;
    if out_of_bounds {
        if r.code != Some(3) || !r.stderr.contains("GUARD VIOLATION: tensor t: byte offset 64 (after") {
            return Err(format!("the out-of-bounds write was not reported: exit {:?}, stderr {}", r.code, r.stderr));
        }
        return Ok(());
    }
    if r.code != Some(0) {
        return Err(format!("exit {:?}: {}", r.code, r.stderr));
    }
    let got = read_npy(&work.join("out/t.npy"))?;
    let mut want = input.clone();
    want.data[20..24].copy_from_slice(&42.0f32.to_le_bytes());
    compare::compare(&got, &want, Elem::F32)?;
    // And the comparison notices a wrong element.
    if compare::compare(&got, &input, Elem::F32).is_ok() {
        return Err("the comparison missed a changed element".into());
    }
    Ok(())
}

/// Whether `tests/conformance-deviations.md` gives the reason ptoc refuses systests case `id`
/// (`exec/systests/<case>`): an `*_asis` case keeps an upstream program that ptoc rejects,
/// and must either pass or be refused for a documented reason.
fn refusal_documented(root: &Path, id: &str) -> bool {
    let case = id.trim_start_matches("exec/");
    std::fs::read_to_string(root.join("tests/conformance-deviations.md"))
        .is_ok_and(|t| t.lines().any(|l| l.starts_with(&format!("- `{case}`"))))
}

/// A systests case (`execution::systests`): the case's function, on the case's inputs, by the
/// interpreter and by the C++ at each level, each compared with the expected outputs.
fn try_systest(tc: &Toolchain, root: &Path, p: &corpus::Program, dir: &Path) -> Step<Outcome> {
    use execution::systests;
    let case = systests::load(dir).map_err(harness)?;
    let file = dir.join("program.pto");
    let file_s = file.to_string_lossy().into_owned();
    let work = work_dir(tc, &p.id).map_err(harness)?;
    let isa_include = format!("{}/", tc.pto_isa.join("include").display());
    let tidy = |s: &str| s.replace(&file_s, "program.pto").replace(&isa_include, "");
    let source = std::fs::read_to_string(&file).map_err(|e| harness(e.to_string()))?;

    // The function's parameters as written (the inputs' names) and after the pipeline.
    let lowered = signature::lowered(&source);
    let sig = match &lowered {
        Ok(prog) => signature::signatures(prog).into_iter().find(|(n, _)| *n == case.func).map(|(_, s)| s),
        Err(_) => None,
    };
    let refused = |why: String| -> Step<Outcome> {
        if p.id.ends_with("_asis") && refusal_documented(root, &p.id) {
            Ok(Outcome::Invalid)
        } else {
            Err((Class::Refused, why))
        }
    };
    let sig = match sig {
        Some(Ok(s)) => s,
        Some(Err(why)) => return Err(harness(format!("{}: {why}", case.func))),
        None => {
            let out = ptoc(&["--error-format", "short", "--emit", "cpp", &file_s]);
            return refused(tidy(String::from_utf8_lossy(&out.stderr).trim()));
        }
    };
    let written = ptoc::driver::frontend(&source).ok();
    let run_names: Vec<String> = match written.as_ref().and_then(|w| w.function(&case.func)) {
        Some(w) if w.params.len() == sig.params.len() => {
            w.params.iter().map(|p| w.var_name(p.var).to_string()).collect()
        }
        _ => sig.params.iter().map(|p| p.name.clone()).collect(),
    };
    // The values of the symbolic dimensions, from the shapes of the case's inputs.
    let mut dims: BTreeMap<String, usize> = BTreeMap::new();
    for (prm, name) in sig.params.iter().zip(&run_names) {
        let ParamType::Tensor(t) = &prm.ty else { continue };
        if !t.symbolic() {
            continue;
        }
        let given = read_npy(&dir.join("inputs").join(format!("{name}.npy"))).map_err(harness)?;
        for (sym, extent) in t.symbols.iter().zip(&given.shape) {
            if let Some(sym) = sym {
                dims.entry(sym.clone()).or_insert(*extent);
            }
        }
    }
    // The inputs in the parameters' dtypes and shapes, under the names the C++ host reads.
    let in_dir = work.join("in");
    let mut interp_inputs = Vec::new();
    let mut rng = inputs::Rng::new(&p.id);
    for (prm, name) in sig.params.iter().zip(&run_names) {
        let given = read_npy(&dir.join("inputs").join(format!("{name}.npy")));
        let (elem, shape) = match &prm.ty {
            ParamType::Tensor(t) => (t.elem, t.resolve(&dims).map_err(harness)?.shape),
            ParamType::Scalar(_, e) => (*e, vec![]),
        };
        let a = match given {
            // A tensor of symbolic shape takes its input's shape (each use may bind the
            // symbols differently, as a transposed view does); its static axes must agree.
            Ok(a) => {
                let shape = match &prm.ty {
                    ParamType::Tensor(t) if t.symbolic() && a.shape.len() == shape.len() => a
                        .shape
                        .iter()
                        .zip(&t.symbols)
                        .zip(&shape)
                        .map(|((g, sym), s)| if sym.is_some() { *g } else { *s })
                        .collect(),
                    _ => shape,
                };
                systests::convert(&a, elem, &shape).map_err(|e| harness(format!("input {name}: {e}")))?
            }
            // An output the case gives no input for starts as random numbers.
            Err(_) if prm.direction == ptoc::ir::ParamDirection::Out => match &prm.ty {
                ParamType::Tensor(t) => inputs::tensor(&mut rng, &t.resolve(&dims).map_err(harness)?),
                ParamType::Scalar(..) => return Err(harness(format!("no input for scalar {name}"))),
            },
            Err(e) => return Err(harness(e)),
        };
        let path = in_dir.join(format!("{}.npy", prm.name));
        write(&path, &a.to_npy()).map_err(harness)?;
        interp_inputs.push((name.clone(), path));
    }
    // A returned tensor the function creates starts as zeros, as the interpreter's
    // `tensor.create` and the cases' own tests (`torch.zeros`) have it.
    for (i, t) in &sig.extra_returns {
        let t = t.resolve(&dims).map_err(harness)?;
        let zeros = execution::npy::Array {
            descr: t.elem.descr().into(),
            shape: t.shape.clone(),
            data: vec![0; t.elements() * t.elem.size()],
        };
        write(&in_dir.join(format!("return_{i}.npy")), &zeros.to_npy()).map_err(harness)?;
    }
    let elem_of_output = |name: &str| -> Option<execution::npy::Elem> {
        if let Some(i) = name.strip_prefix("return_").and_then(|i| i.parse::<usize>().ok()) {
            if let Some((_, t)) = sig.extra_returns.iter().find(|(k, _)| *k == i) {
                return Some(t.elem);
            }
        }
        let k = run_names.iter().position(|n| n == name)?;
        match &sig.params[k].ty {
            ParamType::Tensor(t) => Some(t.elem),
            ParamType::Scalar(_, e) => Some(*e),
        }
    };
    let expected = |name: &str| read_npy(&dir.join("expected").join(format!("{name}.npy"))).map_err(harness);

    // 1. The interpreter, as `ptoc run` with the case's flags.
    let ref_dir = work.join("interp");
    let started = Instant::now();
    let ran = interp::run_with(&file, &case.run_args, &case.func, &interp_inputs, &ref_dir);
    INTERP_NS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    ran.map_err(|e| (Class::InterpFail, tidy(&e)))?;
    for name in &case.outputs {
        let got = read_npy(&ref_dir.join(format!("{name}.npy"))).map_err(|e| (Class::InterpFail, e))?;
        // `ptoc run` writes BF16 as float32 values (docs/execution.md).
        let elem = match elem_of_output(name) {
            Some(execution::npy::Elem::Bf16) if got.descr == "<f4" => Some(execution::npy::Elem::F32),
            e => e.or_else(|| systests::elem_of_descr(&got.descr)),
        }
        .ok_or_else(|| harness(format!("{name}: dtype `{}`", got.descr)))?;
        systests::allclose(&got, elem, &expected(name)?, case.rtol, case.atol)
            .map_err(|e| (Class::Mismatch, format!("{name}: interpreter vs expected: {e}")))?;
    }
    // Each output's file from the C++: a parameter's under its IR name, a returned tensor of its
    // own under `return_<i>`; a returned parameter is found as the parameter the interpreter
    // gives the same value.
    let mut cpp_outputs = Vec::new();
    for name in &case.outputs {
        let elem = elem_of_output(name);
        let file = if let Some(k) = run_names.iter().position(|n| n == name) {
            sig.params[k].name.clone()
        } else if sig.extra_returns.iter().any(|(i, _)| format!("return_{i}") == *name) {
            name.clone()
        } else {
            let value = read_npy(&ref_dir.join(format!("{name}.npy"))).map_err(harness)?;
            let k = sig
                .params
                .iter()
                .zip(&run_names)
                .position(|(prm, n)| {
                    matches!(prm.ty, ParamType::Tensor(_))
                        && read_npy(&ref_dir.join(format!("{n}.npy"))).is_ok_and(|a| a.data == value.data)
                })
                .ok_or_else(|| harness(format!("{name}: no parameter holds the returned value")))?;
            sig.params[k].name.clone()
        };
        let elem =
            elem.or_else(|| elem_of_output(&run_names[sig.params.iter().position(|q| q.name == file).unwrap_or(0)]));
        cpp_outputs.push((name.clone(), file, elem.ok_or_else(|| harness(format!("{name}: no dtype")))?));
    }
    let bf16 = sig.params.iter().any(|prm| match &prm.ty {
        ParamType::Tensor(t) => t.elem == execution::npy::Elem::Bf16,
        ParamType::Scalar(_, e) => *e == execution::npy::Elem::Bf16,
    }) || sig.extra_returns.iter().any(|(_, t)| t.elem == execution::npy::Elem::Bf16);

    // 2. The C++ at each level, with the case's flags, run on the same inputs.
    let mut last: Option<(BTreeMap<String, String>, PathBuf)> = None;
    for level in OPT_LEVELS {
        let mut args = vec!["--error-format", "short", "--emit", "cpp", level, "-o", "cpp"];
        args.extend(case.cpp_args.iter().map(String::as_str));
        args.push(&file_s);
        let started = Instant::now();
        let out = ptoc(&args);
        PTOC_NS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        match out.code {
            0 => {}
            1 => return refused(tidy(&stderr)).map_err(|e| at_level(level, e)),
            code => return Err(at_level(level, (Class::Ice, format!("ptoc exited with {code}: {}", tidy(&stderr))))),
        }
        let files = cpp_files(&out);
        if last.as_ref().is_some_and(|(f, _)| *f == files) {
            continue;
        }
        let dir_l = work.join(level.trim_start_matches('-'));
        let exe = build(tc, &files, std::slice::from_ref(&sig), &dir_l, &tidy).map_err(|e| at_level(level, e))?;
        if last.as_ref().is_some_and(|(_, e)| *e == exe) {
            continue;
        }
        let out_dir = dir_l.join("cpp-out");
        run_function(&exe, &sig.name, &sig.name, &in_dir, &out_dir, &tidy).map_err(|e| at_level(level, e))?;
        if !bf16 {
            for (name, file, elem) in &cpp_outputs {
                let got = read_npy(&out_dir.join(format!("{file}.npy"))).map_err(harness)?;
                systests::allclose(&got, *elem, &expected(name)?, case.rtol, case.atol)
                    .map_err(|e| at_level(level, (Class::Mismatch, format!("{name}: C++ vs expected: {e}"))))?;
            }
        }
        last = Some((files, exe));
    }
    Ok(if bf16 { Outcome::InterpOnly } else { Outcome::Pass })
}
