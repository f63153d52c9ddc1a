//! insta snapshots of whole generated C++ files for the spec's complete examples
//! (`passes-and-codegen.md` §4.11–4.13): each program runs through the Default pipeline and
//! then the CCE code generator. §4.12 differs from the spec's text on purpose: the
//! GlobalTensor shapes are the access windows (§6.1 Q22). §4.13 snapshots its kernel file
//! (the orchestration file and `kernel_config.py` are another module's).
//! Review changes with `cargo insta review`.

use ptoc::ir::Program;
use ptoc::passes::manager::Manager;
use ptoc::passes::{Backend, PassEnv, Pipeline};

fn pipeline(src: &str) -> Program {
    let env = PassEnv::new(Backend::Cce);
    let prog = ptoc::driver::frontend(src).expect("program lowers");
    Manager::new(&Pipeline::Default.passes(), env).run(prog).unwrap_or_else(|d| panic!("pipeline failed: {d:?}"))
}

fn kernel(prog: &Program, name: &str) -> String {
    let f = prog.function(name).expect("function exists");
    ptoc::codegen::kernel::emit(f).unwrap_or_else(|d| panic!("codegen failed: {d:?}"))
}

/// §4.11: straight-line vector kernel.
#[test]
fn example_straight_line_vector_kernel() {
    let prog = pipeline(
        r#"# pypto.program: Example
import pypto.language as pl

@pl.program
class Example:
    @pl.function(type=pl.FunctionType.InCore)
    def add_kernel(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        ta: pl.Tile[[32, 32], pl.FP32] = pl.block.load(a, [0, 0], [32, 32], target_memory=pl.MemorySpace.Vec)
        tb: pl.Tile[[32, 32], pl.FP32] = pl.block.load(b, [0, 0], [32, 32], target_memory=pl.MemorySpace.Vec)
        tc: pl.Tile[[32, 32], pl.FP32] = pl.block.add(ta, tb)
        td: pl.Tile[[32, 32], pl.FP32] = pl.block.mul(tc, tc)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.block.store(td, [0, 0], [32, 32], out)
        return r
"#,
    );
    let files = ptoc::codegen::generate(&prog).expect("generates");
    assert_eq!(files.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["kernels/aiv/add_kernel.cpp"]);
    insta::assert_snapshot!(files[0].1);
}

/// §4.12: loop with a loop-carried output tensor.
#[test]
fn example_loop_carried_output_tensor() {
    let prog = pipeline(
        r#"# pypto.program: LoopEx
import pypto.language as pl

@pl.program
class LoopEx:
    @pl.function(type=pl.FunctionType.InCore)
    def loop_kernel(self, a: pl.Tensor[[128, 32], pl.FP32], s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[128, 32], pl.FP32]]) -> pl.Tensor[[128, 32], pl.FP32]:
        for i in pl.range(0, 4, 1):
            t: pl.Tile[[32, 32], pl.FP32] = pl.block.load(a, [i * 32, 0], [32, 32], target_memory=pl.MemorySpace.Vec)
            t2: pl.Tile[[32, 32], pl.FP32] = pl.block.adds(t, s)
            out: pl.Tensor[[128, 32], pl.FP32] = pl.block.store(t2, [i * 32, 0], [32, 32], out)
        return out
"#,
    );
    insta::assert_snapshot!(kernel(&prog, "loop_kernel"));
}

/// §4.13: the kernel of the orchestration example.
#[test]
fn example_orchestration_kernel() {
    let prog = pipeline(
        r#"# pypto.program: BasicProgram
import pypto.language as pl

@pl.program
class BasicProgram:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel_add(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], output: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)
        b_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.load(b, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)
        result: pl.Tile[[16, 16], pl.FP32] = pl.block.add(a_tile, b_tile)
        out: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(result, [0, 0], [16, 16], output)
        return out
    @pl.function(type=pl.FunctionType.Orchestration)
    def orch_basic(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INT64]) -> pl.Tensor[[16, 16], pl.FP32]:
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        c: pl.Tensor[[16, 16], pl.FP32] = self.kernel_add(a, b, c)
        d: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        for i in pl.range(0, n, 1):
            d: pl.Tensor[[16, 16], pl.FP32] = self.kernel_add(c, b, d)
        return d
"#,
    );
    insta::assert_snapshot!(kernel(&prog, "kernel_add"));
}
