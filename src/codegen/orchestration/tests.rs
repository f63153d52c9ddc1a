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

/// A vector kernel plus the orchestration function `body` (parameters `a`, `b`, `s`).
fn orch_program(body: &str) -> String {
    format!(
        r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16], pl.FP32], s: pl.Scalar[pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        t: pl.Tile[[16], pl.FP32] = pl.block.load(a, [0], [16], target_memory=pl.MemorySpace.Vec)
        u: pl.Tile[[16], pl.FP32] = pl.block.adds(t, s)
        r: pl.Tensor[[16], pl.FP32] = pl.block.store(u, [0], [16], o)
        return r
    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[16], pl.FP32], b: pl.Tensor[[16], pl.FP32], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
{body}"#
    )
}

fn emit_source(source: &str) -> Result<String, Vec<crate::diag::Diagnostic>> {
    let prog = frontend(source).unwrap_or_else(|d| panic!("program lowers: {d:?}"));
    let orch = prog.function("orch").expect("orch");
    super::emit(&prog, orch)
}

#[test]
fn if_yielding_a_tensor_is_reported_with_its_span() {
    let body = "        if True:\n            c: pl.Tensor[[16], pl.FP32] = pl.yield_(a)\n        else:\n            c: pl.Tensor[[16], pl.FP32] = pl.yield_(b)\n        return c\n";
    let source = orch_program(body);
    let errs = emit_source(&source).expect_err("tensor if result");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].message.contains("an `if` yielding a Tensor ('c')"), "{}", errs[0].message);
    assert!(source[errs[0].span.range()].starts_with("if True:"));
}

#[test]
fn scalar_parameter_passed_to_a_kernel_is_reported() {
    let body = "        c: pl.Tensor[[16], pl.FP32] = self.k(a, s, b)\n        return c\n";
    let errs = emit_source(&orch_program(body)).expect_err("scalar parameter");
    assert!(errs[0].message.contains("scalar parameter 's'"), "{}", errs[0].message);
}

#[test]
fn unused_scalar_parameter_and_float_constant_argument() {
    let body = "        b: pl.Tensor[[16], pl.FP32] = self.k(a, 0.5, b)\n        return b\n";
    let cpp = emit_source(&orch_program(body)).expect("compiles");
    assert!(cpp.contains("        make_scalar_param(float_to_u64(0.500000f)),\n"), "{cpp}");
    assert!(cpp.contains(".expected_arg_count = 2,"), "{cpp}");
}

#[test]
fn scalar_loop_carried_value_and_differently_named_result() {
    let body = "        for i, (x,) in pl.range(0, 4, 1, init_values=(0,)):\n            y: pl.Scalar[pl.INT64] = pl.yield_(x + i)\n        return a\n";
    let cpp = emit_source(&orch_program(body)).expect("scalar loop-carried value");
    assert!(cpp.contains("    int64_t x = 0;\n    for (int64_t i = 0; i < 4; i += 1) {\n"), "{cpp}");
    assert!(cpp.contains("            x = (x + i);\n        }\n    }\n    int64_t y = x;\n"), "{cpp}");
}
