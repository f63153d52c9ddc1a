//! Generator of large benchmark programs, a Rust port of `../shared/tools/genpto.py`.
//!
//! The shape matches the script byte for byte (so numbers compare with the reference's): `funcs`
//! InCore kernels, each a tiled `pl.range` loop with one loop-carried tensor over a chain of
//! `ops` vector ops (`add, sub, mul, adds, muls, exp, maximum` in rotation), then an
//! Orchestration function calling every kernel in a chain. A program has about
//! `funcs * (ops + 8) + 8` lines, so `--funcs 100 --ops 500` is the 50k-line benchmark and
//! `2 × 5000` is the "few very long kernels" shape.

/// The vector ops of the chain, in the script's order.
const OPS: [&str; 7] = ["add", "sub", "mul", "adds", "muls", "exp", "maximum"];

/// The shape of a generated program.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub funcs: usize,
    pub ops: usize,
    /// Loop trip count (the script's `--iters`, default 4); tensors have `iters * 64` rows.
    pub iters: usize,
}

impl Shape {
    pub const fn new(funcs: usize, ops: usize) -> Shape {
        Shape { funcs, ops, iters: 4 }
    }
}

/// The program text of `shape`, as `genpto.py --funcs F --ops N --iters K` prints it
/// (lines joined by `\n`, plus the final newline of `print`).
pub fn generate(shape: Shape) -> String {
    use std::fmt::Write;
    let rows = shape.iters * 64;
    let t = format!("pl.Tensor[[{rows}, 64], pl.FP32]");
    let tile = "pl.Tile[[64, 64], pl.FP32]";
    let mut s = String::with_capacity(shape.funcs * (shape.ops + 8) * 72 + 256);
    s.push_str("# pypto.program: Big\nimport pypto.language as pl\n\n@pl.program\nclass Big:\n");
    for f in 0..shape.funcs {
        let iters = shape.iters;
        let _ = writeln!(s, "    @pl.function(type=pl.FunctionType.InCore)");
        let _ = writeln!(s, "    def k{f}(self, a: {t}, b: {t}, out: pl.Out[{t}]) -> {t}:");
        let _ = writeln!(s, "        for i, (acc,) in pl.range(0, {iters}, 1, init_values=(out,)):");
        let _ = writeln!(s, "            ta: {tile} = pl.block.load(a, [i * 64, 0], [64, 64])");
        let _ = writeln!(s, "            tb: {tile} = pl.block.load(b, [i * 64, 0], [64, 64])");
        let (mut prev, mut other) = ("ta".to_string(), "tb".to_string());
        for j in 0..shape.ops {
            let op = OPS[(j + f) % OPS.len()];
            let cur = format!("t{j}");
            let _ = match op {
                // Python prints float(j % 7 + 1) as `1.0` … `7.0`.
                "adds" | "muls" => writeln!(s, "            {cur}: {tile} = pl.block.{op}({prev}, {}.0)", j % 7 + 1),
                "exp" => writeln!(s, "            {cur}: {tile} = pl.block.exp({prev})"),
                _ => writeln!(s, "            {cur}: {tile} = pl.block.{op}({prev}, {other})"),
            };
            other = std::mem::replace(&mut prev, cur);
        }
        let _ = writeln!(s, "            r: {t} = pl.block.store({prev}, [i * 64, 0], [64, 64], acc)");
        let _ = writeln!(s, "            acc_next: {t} = pl.yield_(r)");
        let _ = writeln!(s, "        return acc_next");
    }
    let _ = writeln!(s, "    @pl.function(type=pl.FunctionType.Orchestration)");
    let _ = writeln!(s, "    def main(self, a: {t}, b: {t}, out: {t}) -> {t}:");
    let mut prev = "out".to_string();
    for f in 0..shape.funcs {
        let _ = writeln!(s, "        r{f}: {t} = self.k{f}(a, b, {prev})");
        prev = format!("r{f}");
    }
    let _ = writeln!(s, "        return {prev}");
    s
}
