//! Every program in `examples/` compiles through the default pipeline to C++ with the `ptoc`
//! binary, and the files it writes are the kernels and orchestration its functions call for; the
//! output of examples and corpus inputs is the same on every run.

mod common;

use std::path::PathBuf;
use std::process::Command;

#[test]
fn every_example_compiles_to_cpp() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut examples: Vec<_> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pto"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 4);
    for ex in &examples {
        let out = Command::new(env!("CARGO_BIN_EXE_ptoc")).arg("--emit").arg("cpp").arg(ex).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}: {}", ex.display(), String::from_utf8_lossy(&out.stderr));
        let files: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("// ==== ")).collect();
        assert!(files.iter().any(|f| f.starts_with("kernels/ai")), "{}: no kernel file in {files:?}", ex.display());
        let source = std::fs::read_to_string(ex).unwrap();
        if source.contains("FunctionType.Orchestration") {
            assert!(files.contains(&"kernel_config.py"), "{}: {files:?}", ex.display());
            assert!(files.iter().any(|f| f.starts_with("orchestration/")), "{}: {files:?}", ex.display());
        }
    }
}

/// The conformance corpus's folders (generated data, fixed).
const MIN_CORPUS_FOLDERS: usize = 15;

/// Inputs of the determinism test: every example, and one conformance input of every corpus
/// folder (the first case with an `input.pto`; none when the corpus is absent outside CI).
fn determinism_inputs() -> Vec<PathBuf> {
    let root = common::manifest_dir();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pto"))
        .collect();
    inputs.sort();
    let corpus = common::corpus::corpus_dir();
    if !common::require_corpus(&corpus, "determinism on conformance inputs") {
        return inputs;
    }
    let mut folders_seen: Vec<String> = Vec::new();
    for (_, folder, dir) in common::corpus::cases(&corpus) {
        let input = dir.join("input.pto");
        if input.is_file() && !folders_seen.contains(&folder) {
            folders_seen.push(folder);
            inputs.push(input);
        }
    }
    // Every folder of the corpus has inputs (15 folders).
    common::assert_checked("conformance folders with an input", folders_seen.len(), MIN_CORPUS_FOLDERS);
    inputs
}

/// The same input gives byte-identical results — stdout, stderr (with `--print-after-all`'s
/// dumps after every pass) and exit status — on every run. Each run is a separate process, so
/// each gets a different hash seed: no unordered map may reach the output.
#[test]
fn output_is_deterministic_across_runs() {
    let inputs = determinism_inputs();
    assert!(inputs.len() >= 4);
    let modes: [&[&str]; 2] = [&["--emit", "cpp"], &["--emit", "ir", "--print-after-all"]];
    for path in &inputs {
        for mode in modes {
            let run = || {
                let out = Command::new(env!("CARGO_BIN_EXE_ptoc")).args(mode).arg(path).output().unwrap();
                (out.status.code(), out.stdout, out.stderr)
            };
            let first = run();
            assert!(!first.1.is_empty() || !first.2.is_empty(), "{} {mode:?}: no output", path.display());
            for _ in 0..2 {
                assert!(run() == first, "{} {mode:?} differs between runs", path.display());
            }
        }
    }
    eprintln!("determinism: {} inputs x {} modes, 3 runs each", inputs.len(), modes.len());
}
