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
    // Cases where ptoc deliberately differs from the reference are listed (with the reason) in
    // tests/conformance-deviations.md and covered by their own tests.
    let deviations =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance-deviations.md"))
            .unwrap_or_default();
    for case in &cases {
        let id = format!("- `codegen-cce/{}`", case.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
        if deviations.lines().any(|l| l.starts_with(&id)) {
            continue;
        }
        let source = std::fs::read_to_string(case.join("input.pto")).expect("input.pto");
        let prog = frontend(&source).unwrap_or_else(|d| panic!("{}: {d:?}", case.display()));
        let orch =
            prog.functions.iter().find(|f| f.kind == FunctionType::Orchestration).expect("an orchestration function");
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
fn if_yielding_different_tensors_declares_a_handle() {
    let body = "        if True:\n            c: pl.Tensor[[16], pl.FP32] = pl.yield_(a)\n        else:\n            c: pl.Tensor[[16], pl.FP32] = pl.yield_(b)\n        d: pl.Tensor[[16], pl.FP32] = self.k(c, 0.5, b)\n        return d\n";
    let cpp = emit_source(&orch_program(body)).expect("tensor if result");
    assert!(cpp.contains("    Tensor c;\n    if (1) {\n        PTO2_SCOPE(rt) {\n            c = ext_a;\n"), "{cpp}");
    assert!(cpp.contains("            c = ext_b;\n"), "{cpp}");
    assert!(cpp.contains("        make_input_param(c),\n        make_scalar_param(float_to_u64(0.500000f)),\n        make_output_param(ext_b),\n"), "{cpp}");
}

#[test]
fn if_yielding_one_buffer_is_that_buffer() {
    let body = "        if True:\n            c: pl.Tensor[[16], pl.FP32] = self.k(a, 1.0, b)\n            e: pl.Tensor[[16], pl.FP32] = pl.yield_(c)\n        else:\n            d: pl.Tensor[[16], pl.FP32] = self.k(a, 2.0, b)\n            e: pl.Tensor[[16], pl.FP32] = pl.yield_(d)\n        return e\n";
    let cpp = emit_source(&orch_program(body)).expect("tensor if result");
    // `e` is `b`'s buffer on both paths: no handle, no return slot.
    assert!(!cpp.contains("Tensor e;"), "{cpp}");
    assert!(cpp.contains(".expected_arg_count = 3,"), "{cpp}");
}

#[test]
fn scalar_parameter_has_a_slot_after_the_tensors() {
    let body = "        c: pl.Tensor[[16], pl.FP32] = self.k(a, s, b)\n        return c\n";
    let cpp = emit_source(&orch_program(body)).expect("scalar parameter");
    assert!(cpp.contains("#define ARG_PTR_B 1\n#define ARG_SCALAR_S 2\n"), "{cpp}");
    assert!(cpp.contains("static float u64_to_float(uint64_t u)"), "{cpp}");
    assert!(cpp.contains("    float s = u64_to_float(args[ARG_SCALAR_S]);\n"), "{cpp}");
    assert!(cpp.contains("        make_scalar_param(float_to_u64(s)),\n"), "{cpp}");
    // `c` is the kernel's output `b`, written in place: it needs no slot of its own.
    assert!(cpp.contains(".expected_arg_count = 3,"), "{cpp}");
}

#[test]
fn unused_scalar_parameter_and_float_constant_argument() {
    let body = "        b: pl.Tensor[[16], pl.FP32] = self.k(a, 0.5, b)\n        return b\n";
    let cpp = emit_source(&orch_program(body)).expect("compiles");
    assert!(cpp.contains("        make_scalar_param(float_to_u64(0.500000f)),\n"), "{cpp}");
    assert!(cpp.contains(".expected_arg_count = 3,"), "{cpp}");
}

#[test]
fn scalar_loop_carried_value_and_differently_named_result() {
    let body = "        for i, (x,) in pl.range(0, 4, 1, init_values=(0,)):\n            y: pl.Scalar[pl.INT64] = pl.yield_(x + i)\n        return a\n";
    let cpp = emit_source(&orch_program(body)).expect("scalar loop-carried value");
    assert!(cpp.contains("    int64_t x = 0;\n    for (int64_t i = 0; i < 4; i += 1) {\n"), "{cpp}");
    assert!(cpp.contains("            x = (x + i);\n        }\n    }\n    int64_t y = x;\n"), "{cpp}");
}
