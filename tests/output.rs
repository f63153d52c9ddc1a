//! No partial output: with `-o`, the real `ptoc` binary changes nothing at the output
//! path when the compilation fails — an input error, or a late pass that runs out of memory
//! (E0602) after the front end succeeded — and replaces the output on success. Neither leaves
//! temporary files behind. The same holds for a program whose last function fails after four
//! good ones, for any number of threads.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptoc-output-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every file under `dir` (relative path → bytes), sorted: what must not change.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

fn ptoc(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_ptoc")).args(args).output().expect("ptoc runs");
    Run { code: out.status.code(), stdout: out.stdout, stderr: String::from_utf8_lossy(&out.stderr).into_owned() }
}

const HEADER: &str = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n";

/// An InCore kernel with the given body lines; `x` and `out` are n×n FP32 tensors.
fn kernel(n: usize, body: &[String]) -> String {
    let t = format!("pl.Tensor[[{n}, {n}], pl.FP32]");
    let mut src = format!(
        "{HEADER}    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, x: {t}, out: {t}) -> {t}:\n"
    );
    for line in body {
        src.push_str(&format!("        {line}\n"));
    }
    src
}

/// load → add → store: compiles to IR and to C++.
fn valid() -> String {
    let tile = "pl.Tile[[16, 16], pl.FP32]";
    kernel(
        16,
        &[
            format!("a: {tile} = pl.block.load(x, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)"),
            format!("b: {tile} = pl.block.add(a, a)"),
            "r: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(b, [0, 0], [16, 16], out)".into(),
            "return r".into(),
        ],
    )
}

/// Inputs that fail, each with the code of its error: in the front end, and in late passes.
fn failing() -> Vec<(&'static str, String)> {
    let front = valid().replace("pl.block.add(a, a)", "pl.block.add(a, undefined)");
    // One 256 KiB tile does not fit the 192 KiB Vec buffer: allocate-memory-addr fails.
    let big = "pl.Tile[[256, 256], pl.FP32]";
    let capacity = kernel(
        256,
        &[
            format!("t: {big} = pl.block.load(x, [0, 0], [256, 256], target_memory=pl.MemorySpace.Vec)"),
            "r: pl.Tensor[[256, 256], pl.FP32] = pl.block.store(t, [0, 0], [256, 256], out)".into(),
            "return r".into(),
        ],
    );
    // (Nine MTE2→MTE1 transfers outstanding at once do not fail with E0601: insert-sync frees
    // an event id by moving a wait, lit-tests/insert-sync/event-ids-reused-by-moving-a-wait.pto.)
    vec![("E0301", front), ("E0602", capacity)]
}

/// Runs `ptoc ARGS -o OUT input` for every failing input and checks that `dir` is unchanged.
fn check_failures_leave(dir: &Path, out: &Path, args: &[&str]) {
    let before = snapshot(dir);
    assert!(!before.is_empty());
    for (code, src) in failing() {
        let input = dir.with_extension(format!("{code}.pto"));
        std::fs::write(&input, &src).unwrap();
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--error-format", "short", "-o", out.to_str().unwrap(), input.to_str().unwrap()]);
        let r = ptoc(&all);
        assert_eq!(r.code, Some(1), "{code} {args:?}: {}", r.stderr);
        assert!(r.stderr.contains(&format!("error[{code}]")), "{code} {args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{code} {args:?}");
        let after = snapshot(dir);
        assert_eq!(after.keys().collect::<Vec<_>>(), before.keys().collect::<Vec<_>>(), "{code} {args:?}: files");
        assert!(after == before, "{code} {args:?}: a file changed");
        let _ = std::fs::remove_file(&input);
    }
}

#[test]
fn an_existing_output_file_survives_every_failure_and_is_replaced_on_success() {
    let dir = scratch("file");
    let out = dir.join("out.pto");
    std::fs::write(&out, "previous output\n").unwrap();
    std::fs::write(dir.join("neighbour.txt"), "not ptoc's").unwrap();
    check_failures_leave(&dir, &out, &["--emit", "ir"]);

    let input = dir.with_extension("valid.pto");
    std::fs::write(&input, valid()).unwrap();
    let expected = ptoc(&["--emit", "ir", input.to_str().unwrap()]);
    assert_eq!(expected.code, Some(0), "{}", expected.stderr);
    let r = ptoc(&["--emit", "ir", "-o", out.to_str().unwrap(), input.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    let after = snapshot(&dir);
    assert_eq!(after.keys().collect::<Vec<_>>(), ["neighbour.txt", "out.pto"], "no temporary file is left");
    assert_eq!(after["out.pto"], expected.stdout, "the file holds what stdout would");
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_existing_output_directory_survives_every_failure_and_is_updated_on_success() {
    let dir = scratch("dir");
    let input = dir.with_extension("valid.pto");
    std::fs::write(&input, valid()).unwrap();
    // The files a successful run writes, as `// ==== path` sections on stdout (each followed by
    // one newline that the file does not have).
    let expected = ptoc(&["--emit", "cpp", input.to_str().unwrap()]);
    assert_eq!(expected.code, Some(0), "{}", expected.stderr);
    let text = String::from_utf8(expected.stdout).unwrap();
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for section in text.split("// ==== ").filter(|s| !s.is_empty()) {
        let (path, body) = section.split_once('\n').unwrap();
        let body = body.strip_suffix('\n').unwrap_or(body);
        files.insert(path.to_string(), body.as_bytes().to_vec());
    }
    assert!(files.keys().any(|p| p.starts_with("kernels/")), "{:?}", files.keys());

    // The directory holds an older version of every file, and one file of its own.
    for path in files.keys() {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!("stale {path}\n")).unwrap();
    }
    std::fs::write(dir.join("notes.txt"), "kept").unwrap();
    check_failures_leave(&dir, &dir, &["--emit", "cpp"]);

    let r = ptoc(&["--emit", "cpp", "-o", dir.to_str().unwrap(), input.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    let mut wanted = files;
    wanted.insert("notes.txt".into(), b"kept".to_vec());
    let after = snapshot(&dir);
    assert_eq!(after.keys().collect::<Vec<_>>(), wanted.keys().collect::<Vec<_>>(), "no temporary file is left");
    assert!(after == wanted, "every file is replaced, the other file kept");
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unwritable_output_path_is_an_error_and_leaves_nothing() {
    let dir = scratch("unwritable");
    std::fs::write(dir.join("blocker"), "a file where a directory is needed").unwrap();
    let input = dir.with_extension("valid.pto");
    std::fs::write(&input, valid()).unwrap();
    let before = snapshot(&dir);
    let out = dir.join("blocker/out");
    for emit in ["ir", "cpp"] {
        let r = ptoc(&["--emit", emit, "-o", out.to_str().unwrap(), input.to_str().unwrap()]);
        assert_eq!(r.code, Some(1), "{emit}: {}", r.stderr);
        assert!(r.stderr.contains("[E0004]") && r.stderr.contains("cannot write"), "{emit}: {}", r.stderr);
        assert_eq!(snapshot(&dir), before, "{emit}");
    }
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Four kernels, then `last`.
fn kernels_then(last: &str) -> String {
    let tile = "pl.Tile[[16, 16], pl.FP32]";
    let t = "pl.Tensor[[16, 16], pl.FP32]";
    let mut src = HEADER.to_string();
    for i in 0..4 {
        src.push_str(&format!(
            "    @pl.function(type=pl.FunctionType.InCore)\n    def k{i}(self, x: {t}, out: {t}) -> {t}:\n        a: {tile} = pl.block.load(x, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)\n        b: {tile} = pl.block.add(a, a)\n        r: {t} = pl.block.store(b, [0, 0], [16, 16], out)\n        return r\n"
        ));
    }
    src + last
}

#[test]
fn nothing_is_written_when_a_later_function_fails() {
    let dir = scratch("early-error");
    let bad = "    @pl.function(type=pl.FunctionType.InCore)\n    def k4(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n        return undefined\n";
    let input = dir.with_extension("early-error.pto");
    std::fs::write(&input, kernels_then(bad)).unwrap();
    let fresh = dir.join("fresh");
    let old = dir.join("old");
    std::fs::create_dir_all(old.join("kernels/aiv")).unwrap();
    std::fs::write(old.join("kernels/aiv/k0.cpp"), "stale").unwrap();
    let before = snapshot(&dir);
    for jobs in ["-j1", "-j2", "-j3"] {
        for out in [&fresh, &old] {
            let r = ptoc(&[jobs, "--emit", "cpp", "-o", out.to_str().unwrap(), input.to_str().unwrap()]);
            assert_eq!(r.code, Some(1), "{jobs}: {}", r.stderr);
            assert!(r.stderr.contains("E0301"), "{jobs}: {}", r.stderr);
            assert!(!fresh.exists(), "{jobs}: no directory is made");
            assert!(snapshot(&dir) == before, "{jobs}: a file was left or changed in {}", out.display());
        }
    }
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_files_do_not_depend_on_the_number_of_threads() {
    // An incore scope makes outline-incore-scopes (a program pass) create a function.
    let dir = scratch("jobs");
    let scope = "    @pl.function\n    def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Tensor[[16, 16], pl.FP32]):\n        with pl.incore():\n            a: pl.Tile[[16, 16], pl.FP32] = pl.block.load(x, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)\n            r: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(a, [0, 0], [16, 16], out)\n        return\n";
    let input = dir.with_extension("jobs.pto");
    std::fs::write(&input, kernels_then(scope)).unwrap();
    let one = dir.join("one");
    let r = ptoc(&["-j1", "--emit", "cpp", "-o", one.to_str().unwrap(), input.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let expected = snapshot(&one);
    assert!(expected.contains_key("kernels/aiv/main_incore_0.cpp") && expected.contains_key("kernels/aiv/k3.cpp"));
    for jobs in ["-j2", "-j3"] {
        let out = dir.join(jobs);
        // Into a new directory, then again into the same one (every file up to date).
        for _ in 0..2 {
            let r = ptoc(&[jobs, "--emit", "cpp", "-o", out.to_str().unwrap(), input.to_str().unwrap()]);
            assert_eq!(r.code, Some(0), "{jobs}: {}", r.stderr);
            assert!(snapshot(&out) == expected, "{jobs}: files differ from -j1's (or a temporary is left)");
        }
    }
    // The printed IR too (functions are printed on the threads), wrapped or not.
    for width in ["0", "60"] {
        let ir = |jobs: &str| {
            let width_args: &[&str] = if width == "0" { &[] } else { &["--print-width", width] };
            let r = ptoc(&[&[jobs, "--emit", "ir"], width_args, &[input.to_str().unwrap()]].concat());
            assert_eq!(r.code, Some(0), "{jobs}: {}", r.stderr);
            r.stdout
        };
        let one = ir("-j1");
        assert!(String::from_utf8_lossy(&one).contains("def main_incore_0("));
        for jobs in ["-j2", "-j3"] {
            assert!(ir(jobs) == one, "{jobs} --print-width {width}: the IR differs from -j1's");
        }
    }
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--emit cpp` drops each kernel's IR once its C++ is made (orchestration codegen then reads
/// a summary of it), `--emit ir` each function's once it is printed; `--time-passes`, which
/// observes every pass, keeps the whole program to the end. Both give the same output, on the
/// examples and the lit tests' programs (those that compile), with orchestration functions
/// among them.
#[test]
fn the_files_do_not_depend_on_whether_the_ir_is_kept() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = common::files_under(&root.join("examples"), ".pto");
    inputs.extend(common::files_under(&root.join("lit-tests"), ".pto"));
    let dir = scratch("kept");
    let (mut compared, mut orchestrated) = (0, 0);
    for (i, input) in inputs.iter().enumerate() {
        let input = input.to_str().unwrap();
        let dropped = dir.join(format!("{i}-dropped"));
        let r = ptoc(&["--emit", "cpp", "-o", dropped.to_str().unwrap(), input]);
        let kept = dir.join(format!("{i}-kept"));
        let k = ptoc(&["--emit", "cpp", "--time-passes", "-o", kept.to_str().unwrap(), input]);
        assert_eq!(r.code, k.code, "{input}: {}\n{}", r.stderr, k.stderr);
        if r.code != Some(0) {
            continue;
        }
        let files = snapshot(&dropped);
        assert!(files == snapshot(&kept), "{input}: the files differ when the IR is kept");
        // The printed IR too: each function is printed as soon as its passes are done.
        for width in [&[][..], &["--print-width", "60"][..]] {
            let ir = |extra: &[&str]| ptoc(&[&["--emit", "ir"], width, extra, &[input]].concat()).stdout;
            assert!(ir(&[]) == ir(&["--time-passes"]), "{input} {width:?}: the IR differs when it is kept");
        }
        compared += 1;
        orchestrated += usize::from(files.keys().any(|f| f.starts_with("orchestration/")));
    }
    assert!(compared > 100 && orchestrated > 10, "compared {compared}, {orchestrated} with orchestration");
    let _ = std::fs::remove_dir_all(&dir);
}
