//! Every program in `examples/` compiles through the default pipeline to C++ with the `ptoc`
//! binary, and the files it writes are the kernels and orchestration its functions call for.

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

/// The same input gives byte-identical IR and C++ on every run (each run of the binary gets a
/// different hash seed, so no unordered map may reach the output).
#[test]
fn output_is_deterministic_across_runs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for ex in ["vector_dag.pto", "tiled_loop.pto", "matmul.pto"] {
        let path = root.join("examples").join(ex);
        for emit in ["ir", "cpp"] {
            let run = || Command::new(env!("CARGO_BIN_EXE_ptoc")).args(["--emit", emit]).arg(&path).output().unwrap().stdout;
            let first = run();
            assert!(!first.is_empty());
            for _ in 0..3 {
                assert!(run() == first, "{ex} --emit {emit} differs between runs");
            }
        }
    }
}
