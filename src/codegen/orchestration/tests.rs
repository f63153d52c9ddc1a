//! Byte-for-byte comparison with the golden corpus (`codegen-cce/*/expected/orchestration/*.cpp`
//! and `expected/kernel_config.py`), calling the emitters directly on each case's input.

use std::path::PathBuf;

use crate::driver::frontend;
use crate::ir::FunctionType;

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("PTOC_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance"))
        .join("codegen-cce");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("conformance corpus {} absent: skipping", dir.display());
        None
    }
}

/// Every case with an orchestration file: (case dir, orchestration function name).
fn cases() -> Vec<PathBuf> {
    let Some(dir) = corpus() else { return Vec::new() };
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected/kernel_config.py").is_file())
        .collect();
    cases.sort();
    cases
}

#[test]
fn golden_orchestration_and_kernel_config() {
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let source = std::fs::read_to_string(case.join("input.pto")).expect("input.pto");
        let prog = frontend(&source).unwrap_or_else(|d| panic!("{}: {d:?}", case.display()));
        let orch = prog
            .functions
            .iter()
            .find(|f| f.kind == FunctionType::Orchestration)
            .expect("an orchestration function");
        let expected = std::fs::read_to_string(case.join(format!("expected/orchestration/{}.cpp", orch.name)))
            .expect("expected orchestration file");
        match super::emit(&prog, orch) {
            Ok(got) if got == expected => {}
            Ok(got) => failures.push(format!("{}: orchestration differs:\n{got}", case.display())),
            Err(d) => failures.push(format!("{}: orchestration error {d:?}", case.display())),
        }
        let expected = std::fs::read_to_string(case.join("expected/kernel_config.py")).expect("kernel_config.py");
        match crate::codegen::kernel_config::emit(&prog, orch) {
            Ok(got) if got == expected => {}
            Ok(got) => failures.push(format!("{}: kernel_config differs:\n{got}", case.display())),
            Err(d) => failures.push(format!("{}: kernel_config error {d:?}", case.display())),
        }
    }
    eprintln!("orchestration golden cases: {} checked, {} failures", cases.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn base_names() {
    use super::base_name;
    assert_eq!(base_name("d_iter_1"), "d");
    assert_eq!(base_name("d_2"), "d");
    assert_eq!(base_name("a_acc"), "a_acc");
    assert_eq!(base_name("x_1_2"), "x_1");
    assert_eq!(base_name("x_"), "x_");
    assert_eq!(base_name("_0"), "_0");
    assert_eq!(base_name("n"), "n");
}
