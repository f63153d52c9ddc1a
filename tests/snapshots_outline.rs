//! insta snapshots of whole multi-function outputs of outline-incore-scopes, alone and followed by
//! convert-tensor-to-block-ops (the reference's test order, spec `passes-and-codegen.md` §1.8). The
//! second shows how ptoc avoids §6 Q4 (the reference converts a nested InCore call's caller
//! and callee without updating the call, passing a tile to a tensor parameter): the nested
//! pair `main_incore_0` / `main_incore_0_incore_0` is left unconverted, the other outlined
//! functions are converted.
//! Review changes with `cargo insta review`.

use ptoc::passes::{self, Backend, PassEnv};

/// Scopes at top level, nested, inside a loop (with a loop-carried init) and as a whole branch.
const PROGRAM: &str = r#"# pypto.program: Outlined
import pypto.language as pl

@pl.program
class Outlined:
    @pl.function
    def main(self, x_0: pl.Tensor[[64], pl.FP32], n_0: pl.Scalar[pl.INT64], c_0: pl.Scalar[pl.BOOL]) -> pl.Tensor[[64], pl.FP32]:
        a_0: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x_0, 1.0)
        with pl.incore():
            b_0: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(a_0, x_0)
            with pl.incore():
                d_0: pl.Tensor[[64], pl.FP32] = pl.tensor.exp(b_0)
        for i_0, (acc_0,) in pl.range(0, n_0, 1, init_values=(d_0,)):
            with pl.incore():
                e_0: pl.Tensor[[64], pl.FP32] = pl.tensor.maximum(acc_0, b_0)
            r_0: pl.Tensor[[64], pl.FP32] = pl.yield_(e_0)
        if c_0:
            with pl.incore():
                f_0: pl.Tensor[[64], pl.FP32] = pl.tensor.sub(r_0, a_0)
            g_0: pl.Tensor[[64], pl.FP32] = pl.yield_(f_0)
        else:
            g_0: pl.Tensor[[64], pl.FP32] = pl.yield_(r_0)
        return g_0
"#;

fn run(names: &[&str]) -> String {
    let env = PassEnv::new(Backend::Cce);
    let prog = ptoc::driver::frontend(PROGRAM).expect("program lowers");
    let list: Vec<_> = names.iter().map(|name| passes::lookup(name).expect("registered pass")).collect();
    let prog =
        passes::manager::Manager::new(&list, env).run(prog).unwrap_or_else(|d| panic!("{names:?} failed: {d:?}"));
    ptoc::printer::print_program(&prog)
}

#[test]
fn outlined_program() {
    insta::assert_snapshot!(run(&["outline-incore-scopes"]));
}

#[test]
fn outlined_then_converted_program() {
    insta::assert_snapshot!(run(&["outline-incore-scopes", "convert-tensor-to-block-ops"]));
}
