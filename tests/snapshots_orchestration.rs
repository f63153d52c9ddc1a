//! insta snapshots of whole orchestration files and `kernel_config.py` (spec
//! `passes-and-codegen.md` §4.9): the §4.13 example (with a constant trip count, and with the
//! scalar-parameter trip count the reference compiles to an undeclared name — §6 Q13 — which
//! ptoc reports), and a program covering the other statement forms. Review changes with
//! `cargo insta review`.

use ptoc::codegen::{kernel_config, orchestration};
use ptoc::diag::{render, Color};
use ptoc::ir::FunctionType;

/// The `kernel_add` InCore function of §4.13 (vector pipe) and a cube kernel.
const KERNELS: &str = r#"# pypto.program: Example
import pypto.language as pl

@pl.program
class Example:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_add(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], output: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)
        b_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.load(b, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)
        result: pl.Tile[[16, 16], pl.FP32] = pl.block.add(a_tile, b_tile)
        out: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(result, [0, 0], [16, 16], output)
        return out
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_mm(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], k: pl.Scalar[pl.INT32], flag: pl.Scalar[pl.BOOL], c: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        ta: pl.Tile[[16, 16], pl.FP16] = pl.block.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        tb: pl.Tile[[16, 16], pl.FP16] = pl.block.load(b, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        la: pl.Tile[[16, 16], pl.FP16] = pl.block.move(ta, target_memory=pl.MemorySpace.Left, transpose=False)
        rb: pl.Tile[[16, 16], pl.FP16] = pl.block.move(tb, target_memory=pl.MemorySpace.Right, transpose=False)
        acc: pl.Tile[[16, 16], pl.FP32] = pl.block.matmul(la, rb)
        out: pl.Tensor[[16, 16], pl.FP32] = pl.block.l0c_store(acc, [0, 0], [16, 16], c)
        return out
"#;

/// §4.13's orchestration function, with trip count `BOUND`.
const EXAMPLE: &str = r#"    @pl.function(type=pl.FunctionType.Orchestration)
    def orch_basic(self, a_0: pl.Tensor[[16, 16], pl.FP32], b_0: pl.Tensor[[16, 16], pl.FP32], n_0: pl.Scalar[pl.INT64]) -> pl.Tensor[[16, 16], pl.FP32]:
        c_0: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        c_1: pl.Tensor[[16, 16], pl.FP32] = self.kernel_add(a_0, b_0, c_0)
        d_0: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        for i_0, (d_iter_1,) in pl.range(0, BOUND, 1, init_values=(d_0,)):
            d_3: pl.Tensor[[16, 16], pl.FP32] = self.kernel_add(c_1, b_0, d_iter_1)
            d_2: pl.Tensor[[16, 16], pl.FP32] = pl.yield_(d_3)
        return d_2
"#;

/// Scalars read from a tensor, `tensor.dim`, `tensor.view`, an `if` yielding a scalar, a cube
/// task with constant scalar arguments, `min`/`max` and casts.
const FORMS: &str = r#"    @pl.function(type=pl.FunctionType.Orchestration)
    def orch_forms(self, x: pl.Tensor[[64, 16], pl.FP16], y: pl.Tensor[[16, 16], pl.FP16], cfg: pl.Tensor[[2, 4], pl.INT64]) -> pl.Tensor[[16, 16], pl.FP32]:
        n: pl.Scalar[pl.INT64] = pl.tensor.read(cfg, [1, 2])
        rows: pl.Scalar[pl.INT64] = pl.tensor.dim(x, 0)
        lim: pl.Scalar[pl.INT64] = pl.min(n, rows // 16)
        acc: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        for i in pl.range(0, lim, 1):
            if i < 2:
                k: pl.Scalar[pl.INT32] = pl.yield_(pl.cast(i, pl.INT32))
            else:
                k: pl.Scalar[pl.INT32] = pl.yield_(2)
            chunk: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.view(x, [16, 16], [i * 16, 0])
            acc: pl.Tensor[[16, 16], pl.FP32] = self.kernel_mm(chunk, y, 3, True, acc)
        return acc
"#;

fn program(orch: &str) -> String {
    format!("{KERNELS}{orch}")
}

/// `orchestration/<name>.cpp` and `kernel_config.py`, or the rendered diagnostics.
fn generate(source: &str) -> String {
    let prog = ptoc::driver::frontend(source).unwrap_or_else(|d| panic!("program lowers: {d:?}"));
    let orch =
        prog.functions.iter().find(|f| f.kind == FunctionType::Orchestration).expect("an orchestration function");
    let files = orchestration::emit(&prog, orch).and_then(|cpp| kernel_config::emit(&prog, orch).map(|py| (cpp, py)));
    match files {
        Ok((cpp, py)) => format!("// ==== orchestration/{}.cpp\n{cpp}// ==== kernel_config.py\n{py}", orch.name),
        Err(d) => render(&d, "input.pto", source, Color::Never),
    }
}

#[test]
fn example_with_constant_trip_count() {
    insta::assert_snapshot!(generate(&program(&EXAMPLE.replace("BOUND", "4"))));
}

/// The scalar parameter has an argument slot after the tensors (docs/orchestration-abi.md).
#[test]
fn example_with_scalar_parameter_trip_count() {
    insta::assert_snapshot!(generate(&program(&EXAMPLE.replace("BOUND", "n_0"))));
}

#[test]
fn statement_forms() {
    insta::assert_snapshot!(generate(&program(FORMS)));
}
