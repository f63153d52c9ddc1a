//! Hand-computed cases for each operator family and control-flow construct.

use super::*;
use crate::ir::DataType::{self, *};

/// Wraps function definitions (indented by 4) into a program.
fn program(funcs: &str) -> Program {
    let src = format!("# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n{funcs}");
    crate::driver::frontend(&src).unwrap_or_else(|d| panic!("does not lower: {:?}\n{src}", d[0].message))
}

fn run(p: &Program, func: &str, args: Vec<Value>) -> RunResult {
    run_function(p, func, args).unwrap_or_else(|d| panic!("{} {}", d.code, d.message))
}

fn t(d: DataType, shape: &[usize], v: &[f64]) -> Value {
    Value::tensor(Array::from_f64(d, shape.to_vec(), v))
}

fn vals(v: &Value) -> Vec<f64> {
    v.array().expect("an array value").to_f64_vec()
}

/// A kernel `k(a, b, out)` on [1, 4] tiles computing `expr` (over tiles `x`, `y`) into `out`.
fn binary_kernel(d: &str, od: &str, expr: &str) -> Program {
    program(&format!(
        "    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 4], pl.{d}], b: pl.Tensor[[1, 4], pl.{d}], out: pl.Out[pl.Tensor[[1, 4], pl.{od}]]) -> pl.Tensor[[1, 4], pl.{od}]:
        x: pl.Tile[[1, 4], pl.{d}] = pl.load(a, [0, 0], [1, 4])
        y: pl.Tile[[1, 4], pl.{d}] = pl.load(b, [0, 0], [1, 4])
        z = {expr}
        r: pl.Tensor[[1, 4], pl.{od}] = pl.store(z, [0, 0], [1, 4], out)
        return r
"
    ))
}

fn binary(d: DataType, od: DataType, expr: &str, a: &[f64], b: &[f64]) -> Vec<f64> {
    let p = binary_kernel(d.name(), od.name(), expr);
    let r = run(&p, "k", vec![t(d, &[1, 4], a), t(d, &[1, 4], b), t(od, &[1, 4], &[0.0; 4])]);
    assert_eq!(vals(&r.params[2]), vals(&r.returns[0]), "the returned tensor is the Out parameter");
    vals(&r.params[2])
}

#[test]
fn elementwise_tile_tile() {
    let (a, b) = ([1.0, -2.0, 3.5, 8.0], [2.0, 4.0, -0.5, 8.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.add(x, y)", &a, &b), [3.0, 2.0, 3.0, 16.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.sub(x, y)", &a, &b), [-1.0, -6.0, 4.0, 0.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.mul(x, y)", &a, &b), [2.0, -8.0, -1.75, 64.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.div(x, y)", &a, &b), [0.5, -0.5, -7.0, 1.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.maximum(x, y)", &a, &b), [2.0, 4.0, 3.5, 8.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.minimum(x, y)", &a, &b), [1.0, -2.0, -0.5, 8.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.cmp(x, y, cmp_type=2)", &a, &b), [1.0, 1.0, 0.0, 0.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.neg(x)", &a, &b), [-1.0, 2.0, -3.5, -8.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.abs(x)", &a, &b), [1.0, 2.0, 3.5, 8.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.relu(x)", &a, &b), [1.0, 0.0, 3.5, 8.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.recip(y)", &a, &b), [0.5, 0.25, -2.0, 0.125]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.sqrt(y)", &a, &[4.0, 9.0, 0.25, 1.0]), [2.0, 3.0, 0.5, 1.0]);
    let e = binary(Fp32, Fp32, "pl.block.exp(x)", &[0.0, 1.0, 0.0, 0.0], &b);
    assert_eq!(e[..2], [1.0, std::f32::consts::E as f64]);
    // Integer division and remainder truncate toward zero (C++).
    let (p, q) = ([7.0, -7.0, 6.0, 100.0], [2.0, 2.0, -4.0, 7.0]);
    assert_eq!(binary(Int32, Int32, "pl.block.div(x, y)", &p, &q), [3.0, -3.0, -1.0, 14.0]);
    assert_eq!(binary(Int32, Int32, "pl.block.rem(x, y)", &p, &q), [1.0, -1.0, 2.0, 2.0]);
    assert_eq!(
        binary(Int32, Int32, "pl.block.and_(x, y)", &[12.0, 5.0, -1.0, 0.0], &[10.0, 3.0, 6.0, 9.0]),
        [8.0, 1.0, 6.0, 0.0]
    );
    assert_eq!(
        binary(Int32, Int32, "pl.block.shl(x, y)", &[1.0, 3.0, -1.0, 5.0], &[4.0, 1.0, 1.0, 0.0]),
        [16.0, 6.0, -2.0, 5.0]
    );
}

#[test]
fn tile_scalar_and_three_operand_ops() {
    let a = [1.0, -2.0, 3.0, 10.0];
    assert_eq!(binary(Fp32, Fp32, "pl.block.adds(x, 1.5)", &a, &a), [2.5, -0.5, 4.5, 11.5]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.subs(x, 1.0)", &a, &a), [0.0, -3.0, 2.0, 9.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.muls(x, -2.0)", &a, &a), [-2.0, 4.0, -6.0, -20.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.divs(x, 4.0)", &a, &a), [0.25, -0.5, 0.75, 2.5]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.maxs(x, 2.0)", &a, &a), [2.0, 2.0, 3.0, 10.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.mins(x, 2.0)", &a, &a), [1.0, -2.0, 2.0, 2.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.lrelu(x, 0.5)", &a, &a), [1.0, -1.0, 3.0, 10.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.cmps(x, 3.0, cmp_type=5)", &a, &a), [0.0, 0.0, 1.0, 1.0]);
    // dst = x - y + x (pto-isa TSUBC), dst = x + 1 + y (TADDSC).
    assert_eq!(binary(Fp32, Fp32, "pl.block.subc(x, y, x)", &a, &[1.0; 4]), [1.0, -5.0, 5.0, 19.0]);
    assert_eq!(binary(Fp32, Fp32, "pl.block.addsc(x, 1.0, y)", &a, &[1.0; 4]), [3.0, 0.0, 5.0, 12.0]);
    assert_eq!(
        binary(Fp32, Fp32, "pl.block.sel(y, x, pl.block.neg(x))", &a, &[1.0, 0.0, 1.0, 0.0]),
        [1.0, 2.0, 3.0, -10.0]
    );
}

#[test]
fn fp16_rounds_after_every_op() {
    // 2048 + 1 is not an FP16 value (ties to even: 2048); rounding once at the end would give 2050.
    let r = binary(Fp16, Fp16, "pl.block.add(pl.block.add(x, y), y)", &[2048.0; 4], &[1.0; 4]);
    assert_eq!(r, [2048.0; 4]);
    let r = binary(Fp32, Fp32, "pl.block.add(pl.block.add(x, y), y)", &[2048.0; 4], &[1.0; 4]);
    assert_eq!(r, [2050.0; 4]);
    // Inputs are rounded too: 0.1 in FP16 is 0.0999755859375.
    let r = binary(Fp16, Fp16, "pl.block.add(x, y)", &[0.1, 0.0, 0.0, 0.0], &[0.0; 4]);
    assert_eq!(r[0], 0.0999755859375);
    let r = binary(Bf16, Bf16, "pl.block.add(x, y)", &[256.0; 4], &[1.0; 4]);
    assert_eq!(r, [256.0; 4]);
}

#[test]
fn integers_wrap() {
    let r = binary(Int8, Int8, "pl.block.add(x, y)", &[100.0, -100.0, 127.0, 0.0], &[100.0, -100.0, 1.0, -128.0]);
    assert_eq!(r, [-56.0, 56.0, -128.0, -128.0]);
    let r = binary(UInt8, UInt8, "pl.block.sub(x, y)", &[0.0, 1.0, 2.0, 3.0], &[1.0, 1.0, 1.0, 1.0]);
    assert_eq!(r, [255.0, 0.0, 1.0, 2.0]);
    let r = binary(Int32, Int32, "pl.block.mul(x, y)", &[65536.0, 1.0, 2.0, 3.0], &[65536.0, 1.0, 2.0, 3.0]);
    assert_eq!(r, [0.0, 1.0, 4.0, 9.0]);
}

#[test]
fn cast_rounding_modes() {
    let x = [2.5, -2.5, 1.7, -3.5];
    let want: [(&str, [f64; 4]); 7] = [
        ("none", [2.0, -2.0, 1.0, -3.0]),
        ("rint", [2.0, -2.0, 2.0, -4.0]),
        ("round", [3.0, -3.0, 2.0, -4.0]),
        ("floor", [2.0, -3.0, 1.0, -4.0]),
        ("ceil", [3.0, -2.0, 2.0, -3.0]),
        ("trunc", [2.0, -2.0, 1.0, -3.0]),
        ("odd", [3.0, -3.0, 2.0, -3.0]),
    ];
    for (mode, w) in want {
        let got = binary(Fp32, Int32, &format!("pl.block.cast(x, target_type=pl.INT32, mode='{mode}')"), &x, &x);
        assert_eq!(got, w, "mode {mode}");
    }
    // Float → float rounds to nearest even whatever the mode (pto-isa's CPU simulator).
    let got =
        binary(Fp32, Fp16, "pl.block.cast(x, target_type=pl.FP16, mode='floor')", &[2049.0, 0.1, 1.0, -2049.0], &x);
    assert_eq!(got, [2048.0, 0.0999755859375, 1.0, -2048.0]);
    // Integer → integer wraps.
    let got = binary(Int32, Int8, "pl.block.cast(x, target_type=pl.INT8)", &[300.0, -129.0, 5.0, 128.0], &x);
    assert_eq!(got, [44.0, 127.0, 5.0, -128.0]);
}

#[test]
fn reductions_and_broadcasts() {
    let p = program(
        "    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2, 3], pl.FP32], v: pl.Tensor[[2, 1], pl.FP32], c: pl.Tensor[[1, 3], pl.FP32], o1: pl.Out[pl.Tensor[[2, 1], pl.FP32]], o2: pl.Out[pl.Tensor[[2, 1], pl.FP32]], o3: pl.Out[pl.Tensor[[1, 3], pl.FP32]], o4: pl.Out[pl.Tensor[[2, 3], pl.FP32]], o5: pl.Out[pl.Tensor[[2, 3], pl.FP32]], o6: pl.Out[pl.Tensor[[2, 3], pl.FP32]], o7: pl.Out[pl.Tensor[[2, 3], pl.FP32]]):
        x: pl.Tile[[2, 3], pl.FP32] = pl.load(a, [0, 0], [2, 3])
        vv: pl.Tile[[2, 1], pl.FP32] = pl.load(v, [0, 0], [2, 1])
        cc: pl.Tile[[1, 3], pl.FP32] = pl.load(c, [0, 0], [1, 3])
        tmp: pl.Tile[[2, 3], pl.FP32] = pl.block.create_tile([2, 3], dtype=pl.FP32)
        s = pl.block.row_sum(x, tmp)
        m = pl.block.row_min(x, tmp)
        cs = pl.block.sum(x, axis=0, keepdim=True)
        e = pl.block.row_expand_sub(x, vv)
        f = pl.block.col_expand_mul(x, cc)
        g = pl.block.expands(x, 7.0)
        h = pl.block.col_expand(x, cc)
        r1 = pl.store(s, [0, 0], [2, 1], o1)
        r2 = pl.store(m, [0, 0], [2, 1], o2)
        r3 = pl.store(cs, [0, 0], [1, 3], o3)
        r4 = pl.store(e, [0, 0], [2, 3], o4)
        r5 = pl.store(f, [0, 0], [2, 3], o5)
        r6 = pl.store(g, [0, 0], [2, 3], o6)
        r7 = pl.store(h, [0, 0], [2, 3], o7)
",
    );
    let a = [1.0, 5.0, -2.0, 4.0, 0.5, 3.0];
    let args = vec![
        t(Fp32, &[2, 3], &a),
        t(Fp32, &[2, 1], &[1.0, 10.0]),
        t(Fp32, &[1, 3], &[1.0, 2.0, 3.0]),
        t(Fp32, &[2, 1], &[0.0; 2]),
        t(Fp32, &[2, 1], &[0.0; 2]),
        t(Fp32, &[1, 3], &[0.0; 3]),
        t(Fp32, &[2, 3], &[0.0; 6]),
        t(Fp32, &[2, 3], &[0.0; 6]),
        t(Fp32, &[2, 3], &[0.0; 6]),
        t(Fp32, &[2, 3], &[0.0; 6]),
    ];
    let r = run(&p, "k", args);
    assert!(r.returns.is_empty());
    assert_eq!(vals(&r.params[3]), [4.0, 7.5]);
    assert_eq!(vals(&r.params[4]), [-2.0, 0.5]);
    assert_eq!(vals(&r.params[5]), [5.0, 5.5, 1.0]);
    assert_eq!(vals(&r.params[6]), [0.0, 4.0, -3.0, -6.0, -9.5, -7.0]);
    assert_eq!(vals(&r.params[7]), [1.0, 10.0, -6.0, 4.0, 1.0, 9.0]);
    assert_eq!(vals(&r.params[8]), [7.0; 6]);
    assert_eq!(vals(&r.params[9]), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
}

/// FP32 sums accumulate in f32 element after element, as pto-isa's TROWSUM and TCOLSUM: in
/// `1e8 + 1 - 1e8` the 1 is lost (f32 spacing at 1e8 is 8), where an f64 sum would give 1.
#[test]
fn float_sums_accumulate_in_f32() {
    let p = program(
        "    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[3, 3], pl.FP32], o1: pl.Out[pl.Tensor[[3, 1], pl.FP32]], o2: pl.Out[pl.Tensor[[1, 3], pl.FP32]]):
        x: pl.Tile[[3, 3], pl.FP32] = pl.load(a, [0, 0], [3, 3])
        tmp: pl.Tile[[3, 3], pl.FP32] = pl.block.create_tile([3, 3], dtype=pl.FP32)
        s = pl.block.row_sum(x, tmp)
        cs = pl.block.sum(x, axis=0, keepdim=True)
        r1 = pl.store(s, [0, 0], [3, 1], o1)
        r2 = pl.store(cs, [0, 0], [1, 3], o2)
",
    );
    let a = [1e8, 1.0, -1e8, 1.0, 1.0, 1.0, -1e8, 1.0, 1e8];
    let args = vec![t(Fp32, &[3, 3], &a), t(Fp32, &[3, 1], &[0.0; 3]), t(Fp32, &[1, 3], &[0.0; 3])];
    let r = run(&p, "k", args);
    assert_eq!(vals(&r.params[1]), [0.0, 3.0, 0.0]);
    assert_eq!(vals(&r.params[2]), [0.0, 3.0, 0.0]);
}

#[test]
fn matmul_variants() {
    let p = program(
        "    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2, 3], pl.FP16], b: pl.Tensor[[3, 2], pl.FP16], bias: pl.Tensor[[1, 2], pl.FP32], o1: pl.Out[pl.Tensor[[2, 2], pl.FP32]], o2: pl.Out[pl.Tensor[[2, 2], pl.FP32]], o3: pl.Out[pl.Tensor[[2, 2], pl.FP32]]):
        am = pl.load(a, [0, 0], [2, 3], target_memory=pl.MemorySpace.Mat)
        bm = pl.load(b, [0, 0], [3, 2], target_memory=pl.MemorySpace.Mat)
        al = pl.move(am, target_memory=pl.MemorySpace.Left)
        bl = pl.move(bm, target_memory=pl.MemorySpace.Right)
        c = pl.block.matmul(al, bl)
        c2 = pl.block.matmul_acc(c, al, bl)
        bt = pl.load(bias, [0, 0], [1, 2])
        alf = pl.block.cast(al, target_type=pl.FP32)
        blf = pl.block.cast(bl, target_type=pl.FP32)
        c3 = pl.block.matmul_bias(alf, blf, bt)
        r1 = pl.l0c_store(c, [0, 0], [2, 2], o1)
        r2 = pl.l0c_store(c2, [0, 0], [2, 2], o2)
        r3 = pl.store(c3, [0, 0], [2, 2], o3)
",
    );
    let z = || t(Fp32, &[2, 2], &[0.0; 4]);
    let args = vec![
        t(Fp16, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        t(Fp16, &[3, 2], &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]),
        t(Fp32, &[1, 2], &[10.0, 20.0]),
        z(),
        z(),
        z(),
    ];
    let r = run(&p, "k", args);
    assert_eq!(vals(&r.params[3]), [4.0, 5.0, 10.0, 11.0]);
    assert_eq!(vals(&r.params[4]), [8.0, 10.0, 20.0, 22.0]);
    assert_eq!(vals(&r.params[5]), [14.0, 25.0, 20.0, 31.0]);
}

#[test]
fn load_store_windows_and_bounds() {
    let p = program(
        "    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 4], pl.FP32]], r0: pl.Scalar[pl.INT64]) -> pl.Tensor[[4, 4], pl.FP32]:
        x: pl.Tile[[2, 2], pl.FP32] = pl.load(a, [r0, 2], [2, 2])
        r: pl.Tensor[[4, 4], pl.FP32] = pl.store(x, [0, 1], [2, 2], out)
        return r
",
    );
    let a: Vec<f64> = (0..16).map(f64::from).collect();
    let r = run(&p, "k", vec![t(Fp32, &[4, 4], &a), t(Fp32, &[4, 4], &[0.0; 16]), Value::scalar_i64(Int64, 1)]);
    let mut want = vec![0.0; 16];
    (want[1], want[2], want[5], want[6]) = (6.0, 7.0, 10.0, 11.0);
    assert_eq!(vals(&r.params[1]), want);
    // Row offset 3 puts the 2-row window past the tensor's 4 rows.
    let e =
        run_function(&p, "k", vec![t(Fp32, &[4, 4], &a), t(Fp32, &[4, 4], &[0.0; 16]), Value::scalar_i64(Int64, 3)])
            .unwrap_err();
    assert_eq!(e.code, codes::RUN_OUT_OF_BOUNDS);
    assert!(e.message.contains("[3, 5)") && !e.span.is_none(), "{}", e.message);
    // A tensor argument of the wrong shape is refused before the run.
    let e = run_function(&p, "k", vec![t(Fp32, &[4, 3], &a), t(Fp32, &[4, 4], &a), Value::scalar_i64(Int64, 0)])
        .unwrap_err();
    assert_eq!(e.code, codes::RUN_BAD_INPUT);
}

#[test]
fn loops_with_iter_args_if_yields_and_calls_with_tuples() {
    let p = program(
        "    @pl.function
    def pair(self, a: pl.Scalar[pl.INT64], b: pl.Scalar[pl.INT64]) -> tuple[pl.Scalar[pl.INT64], pl.Scalar[pl.INT64]]:
        return a + b, a * b
    @pl.function
    def f(self, n: pl.Scalar[pl.INT64]) -> tuple[pl.Scalar[pl.INT64], pl.Scalar[pl.INT64], pl.Scalar[pl.INT64]]:
        for i, (s, p) in pl.range(0, n, 1, init_values=(0, 1)):
            if i % 2 == 0:
                s2: pl.Scalar[pl.INT64] = pl.yield_(s + i)
            else:
                s2: pl.Scalar[pl.INT64] = pl.yield_(s - 1)
            s_out, p_out = pl.yield_(s2, p * 2)
        for (k, acc) in pl.while_(init_values=(0, 0)):
            pl.cond(k < 5)
            k_out, acc_out = pl.yield_(k + 1, acc + k)
        u, v = self.pair(s_out, p_out)
        return u, v, acc_out
",
    );
    // n = 5: s = 0 +0 -1 +2 -1 +4 = 4, p = 32; while: 0+1+2+3+4 = 10; pair(4, 32) = (36, 128).
    let r = run(&p, "f", vec![Value::scalar_i64(Int64, 5)]);
    let got: Vec<f64> = r.returns.iter().flat_map(vals).collect();
    assert_eq!(got, [36.0, 128.0, 10.0]);
}

#[test]
fn break_continue_and_natural_loops() {
    let p = program(
        "    @pl.function
    def f(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        x = 1
        for i in pl.range(0, n, 2):
            y = i * 3
            if y > 10:
                break
            else:
                continue
        while x < n:
            x = x * 2
        return x + y
",
    );
    // y: 0, 6, 12 → break (i = 4); x: 1 → 32 (≥ 20); 32 + 12.
    let r = run(&p, "f", vec![Value::scalar_i64(Int64, 20)]);
    assert_eq!(vals(&r.returns[0]), [44.0]);
}

#[test]
fn orchestration_writes_through_out_params() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/vector_dag.pto")).unwrap();
    let p = crate::driver::frontend(&src).unwrap_or_else(|d| panic!("{}", d[0].message));
    let a: Vec<f64> = (0..256).map(|i| f64::from(i) / 8.0).collect();
    let b: Vec<f64> = (0..256).map(|i| 1.0 - f64::from(i) / 16.0).collect();
    let r = run(&p, "orch_vector", vec![t(Fp32, &[16, 16], &a), t(Fp32, &[16, 16], &b)]);
    // c = a + b; d = c + 1; e = c + 2; g = d * e; f = g + c.
    let want: Vec<f64> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| {
            let c = (x + y) as f32;
            ((c + 1.0) * (c + 2.0) + c) as f64
        })
        .collect();
    assert_eq!(vals(&r.returns[0]), want);
    assert_eq!(default_function(&p).unwrap(), "orch_vector");

    // A kernel storing into its Out parameter changes the caller's tensor.
    let p = program(
        "    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, out: pl.Out[pl.Tensor[[2, 2], pl.FP32]]) -> pl.Tensor[[2, 2], pl.FP32]:
        x = pl.block.full([2, 2], dtype=pl.FP32, value=3.0)
        r = pl.store(x, [0, 0], [2, 2], out)
        return r
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, o: pl.Out[pl.Tensor[[2, 2], pl.FP32]]):
        t = pl.tensor.create([2, 2], dtype=pl.FP32)
        t2 = self.fill(t)
        t3 = self.fill(o)
        return
",
    );
    let r = run(&p, "main", vec![t(Fp32, &[2, 2], &[0.0; 4])]);
    assert_eq!(vals(&r.params[0]), [3.0; 4]);
}

#[test]
fn tensor_ops() {
    let p = program(
        "    @pl.function
    def f(self, a: pl.Tensor[[2, 3], pl.FP32], b: pl.Tensor[[3, 2], pl.FP32]) -> tuple[pl.Tensor[[2, 2], pl.FP32], pl.Tensor[[2, 1], pl.FP32], pl.Tensor[[2, 3], pl.INT32]]:
        m = pl.tensor.matmul(a, b)
        s = pl.tensor.row_sum(pl.tensor.add(a, 1.0))
        c = pl.tensor.cast(pl.tensor.mul(a, 2.0), target_type=pl.INT32, mode='floor')
        return m, s, c
",
    );
    let r = run(
        &p,
        "f",
        vec![t(Fp32, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), t(Fp32, &[3, 2], &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0])],
    );
    assert_eq!(vals(&r.returns[0]), [4.0, 5.0, 10.0, 11.0]);
    assert_eq!(vals(&r.returns[1]), [9.0, 18.0]);
    assert_eq!(vals(&r.returns[2]), [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
}

#[test]
fn errors_name_the_problem() {
    let p = program(
        "    @pl.function
    def f(self, a: pl.Tensor[[2, 2], pl.INT32], b: pl.Tensor[[2, 2], pl.INT32]) -> pl.Tensor[[2, 2], pl.INT32]:
        c = pl.tensor.div(a, b)
        return c
",
    );
    let e = run_function(&p, "f", vec![t(Int32, &[2, 2], &[1.0; 4]), t(Int32, &[2, 2], &[0.0; 4])]).unwrap_err();
    assert_eq!(e.code, codes::RUN_ERROR);
    assert!(e.message.contains("division by zero"), "{}", e.message);
    assert!(!e.span.is_none());
    let e = run_function(&p, "g", vec![]).unwrap_err();
    assert_eq!(e.code, codes::RUN_NO_FUNCTION);
}

#[test]
fn layout_and_remaining_tile_ops() {
    let a = [1.0, 2.0, 3.0, 4.0];
    // [1, 4] tiles reshaped to [2, 2] and back, transposed: [[1, 2], [3, 4]]ᵀ = [[1, 3], [2, 4]].
    let r =
        binary(Fp32, Fp32, "pl.block.reshape(pl.block.transpose(pl.block.reshape(x, [2, 2]), 0, 1), [1, 4])", &a, &a);
    assert_eq!(r, [1.0, 3.0, 2.0, 4.0]);
    let r = binary(Fp32, Fp32, "pl.block.reshape(pl.move(pl.block.reshape(x, [2, 2]), target_memory=pl.MemorySpace.Vec, transpose=True), [1, 4])", &a, &a);
    assert_eq!(r, [1.0, 3.0, 2.0, 4.0]);
    // prelu: x > 0 ? x : x * slope.
    let r = binary(Fp32, Fp32, "pl.block.prelu(x, y, x)", &[1.0, -2.0, 0.0, -4.0], &[0.5, 0.5, 0.5, 0.25]);
    assert_eq!(r, [1.0, -1.0, 0.0, -1.0]);
    let r = binary(Int32, Int32, "pl.block.xor(x, y, x)", &[12.0, 5.0, -1.0, 0.0], &[10.0, 3.0, 6.0, 9.0]);
    assert_eq!(r, [6.0, 6.0, -7.0, 9.0]);
    // Shifting right is arithmetic on signed types.
    let r = binary(Int32, Int32, "pl.block.shr(x, y)", &[16.0, -16.0, 7.0, 1.0], &[2.0, 2.0, 1.0, 0.0]);
    assert_eq!(r, [4.0, -4.0, 3.0, 1.0]);
    let r = binary(Int16, Int16, "pl.block.not_(x)", &[0.0, -1.0, 5.0, 1.0], &a);
    assert_eq!(r, [-1.0, 0.0, -6.0, -2.0]);
    let r = binary(Fp32, Fp32, "pl.block.fillpad(pl.block.vec_move(x))", &a, &a);
    assert_eq!(r, a);
    let r = binary(Fp32, Fp32, "pl.block.rsqrt(x)", &[1.0, 4.0, 16.0, 0.25], &a);
    assert_eq!(r, [1.0, 0.5, 0.25, 2.0]);
    let r = binary(Fp32, Fp32, "pl.block.log(x)", &[1.0, 1.0, 1.0, 1.0], &a);
    assert_eq!(r, [0.0; 4]);
}

#[test]
fn views_row_expand_and_batched_matmul() {
    let p = program(
        "    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2, 4], pl.FP32], o1: pl.Out[pl.Tensor[[2, 2], pl.FP32]], o2: pl.Out[pl.Tensor[[2, 4], pl.FP32]], o3: pl.Out[pl.Tensor[[2, 4], pl.FP32]], o4: pl.Out[pl.Tensor[[2, 2], pl.FP32]]):
        x: pl.Tile[[2, 4], pl.FP32] = pl.load(a, [0, 0], [2, 4])
        v = pl.block.view(x, [2, 2], [0, 2])
        e = pl.block.row_expand(x)
        c = pl.block.col_expand_div(x, pl.block.view(x, [1, 4], [0, 0]))
        g = pl.block.gemv(pl.block.view(x, [2, 2], [0, 0]), pl.block.view(x, [2, 2], [0, 2]))
        r1 = pl.store(v, [0, 0], [2, 2], o1)
        r2 = pl.store(e, [0, 0], [2, 4], o2)
        r3 = pl.store(c, [0, 0], [2, 4], o3)
        r4 = pl.store(g, [0, 0], [2, 2], o4)
",
    );
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    let z = |n: usize, s: &[usize]| t(Fp32, s, &vec![0.0; n]);
    let r = run(&p, "k", vec![t(Fp32, &[2, 4], &a), z(4, &[2, 2]), z(8, &[2, 4]), z(8, &[2, 4]), z(4, &[2, 2])]);
    assert_eq!(vals(&r.params[1]), [3.0, 4.0, 7.0, 8.0]);
    assert_eq!(vals(&r.params[2]), [1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 5.0, 5.0]);
    assert_eq!(vals(&r.params[3]), [1.0, 1.0, 1.0, 1.0, 5.0, 3.0, (7.0f64 / 3.0) as f32 as f64, 2.0]);
    // [[1, 2], [5, 6]] @ [[3, 4], [7, 8]] = [[17, 20], [57, 68]].
    assert_eq!(vals(&r.params[4]), [17.0, 20.0, 57.0, 68.0]);
}

#[test]
fn tensor_views_alias_their_buffer() {
    let p = program(
        "    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, out: pl.Out[pl.Tensor[[2, 2], pl.FP32]]) -> pl.Tensor[[2, 2], pl.FP32]:
        x = pl.block.full([2, 2], dtype=pl.FP32, value=9.0)
        r = pl.store(x, [0, 0], [2, 2], out)
        return r
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, big: pl.Out[pl.Tensor[[4, 4], pl.FP32]]) -> tuple[pl.Tensor[[4, 4], pl.FP32], pl.Scalar[pl.FP32], pl.Scalar[pl.INT64]]:
        w = pl.tensor.view(big, [2, 2], [1, 2])
        w2 = self.fill(w)
        src = pl.tensor.create([1, 2], dtype=pl.FP32)
        b2 = pl.tensor.assemble(big, pl.tensor.add(src, 5.0), [3, 0])
        tt = pl.tensor.transpose(big, 0, 1)
        s = pl.tensor.read(tt, [2, 1])
        d = pl.tensor.dim(tt, 0)
        return b2, s, d
",
    );
    let r = run(&p, "main", vec![t(Fp32, &[4, 4], &[0.0; 16])]);
    let mut want = vec![0.0; 16];
    for i in [6, 7, 10, 11] {
        want[i] = 9.0;
    }
    want[12] = 5.0;
    want[13] = 5.0;
    assert_eq!(vals(&r.params[0]), want);
    assert_eq!(vals(&r.returns[0]), want);
    assert_eq!(vals(&r.returns[1]), [9.0]);
    assert_eq!(vals(&r.returns[2]), [4.0]);
}

#[test]
fn reductions_to_a_scalar_and_batched_matmul() {
    let p = program(
        "    @pl.function
    def f(self, a: pl.Tensor[[2, 2, 3], pl.FP32], b: pl.Tensor[[3, 1], pl.FP32]) -> tuple[pl.Tensor[[2, 2, 1], pl.FP32], pl.Tensor[[2, 1], pl.FP32]]:
        m = pl.tensor.matmul(a, b)
        r = pl.tensor.row_max(pl.tensor.reshape(a, [2, 6]))
        return m, r
",
    );
    let a: Vec<f64> = (1..=12).map(f64::from).collect();
    let r = run(&p, "f", vec![t(Fp32, &[2, 2, 3], &a), t(Fp32, &[3, 1], &[1.0, 1.0, 1.0])]);
    assert_eq!(vals(&r.returns[0]), [6.0, 15.0, 24.0, 33.0]);
    assert_eq!(r.returns[0].array().unwrap().shape(), [2, 2, 1]);
    assert_eq!(vals(&r.returns[1]), [6.0, 12.0]);
}

#[test]
fn huge_arrays_are_errors_not_aborts() {
    let p = program(
        "    @pl.function
    def f(self, n: pl.Scalar[pl.INT64]) -> pl.Tensor[[n, n], pl.FP32]:
        t = pl.tensor.create([n, n], dtype=pl.FP32)
        return t
",
    );
    let e = run_function(&p, "f", vec![Value::scalar_i64(Int64, 1 << 40)]).unwrap_err();
    assert_eq!(e.code, codes::RUN_ERROR);
    assert!(e.message.contains("more than"), "{}", e.message);
    let e = run_function(&p, "f", vec![Value::scalar_i64(Int64, -1)]).unwrap_err();
    assert_eq!(e.code, codes::RUN_SHAPE);
    let r = run(&p, "f", vec![Value::scalar_i64(Int64, 3)]);
    assert_eq!(r.returns[0].array().unwrap().shape(), [3, 3]);
}

#[test]
fn bare_yields_in_an_if_belong_to_the_if() {
    // As written (before convert-to-ssa), `pl.yield_(tb)` in both branches of an if without
    // return variables ends the branch, not the function: the store after the if still runs.
    let p = program(
        "    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 2], pl.FP32], n: pl.Scalar[pl.INT64], out: pl.Out[pl.Tensor[[1, 2], pl.FP32]]) -> pl.Tensor[[1, 2], pl.FP32]:
        ta = pl.load(a, [0, 0], [1, 2])
        if n > 4:
            tb = pl.adds(ta, 1.0)
            pl.yield_(tb)
        else:
            tb = pl.muls(ta, 2.0)
            pl.yield_(tb)
        r = pl.store(tb, [0, 0], [1, 2], out)
        return r
",
    );
    for (n, want) in [(9, [2.0, 3.0]), (1, [2.0, 4.0])] {
        let args = vec![
            t(Fp32, &[1, 2], &[1.0, 2.0]),
            Value::Scalar(Scalar::new(Int64, Num::I(n))),
            t(Fp32, &[1, 2], &[0.0; 2]),
        ];
        let r = run(&p, "k", args);
        assert_eq!(vals(&r.params[2]), want, "n = {n}");
    }
}

#[test]
fn max_min_and_relu_treat_nan_as_pto_isa_does() {
    // pto-isa's CPU simulator computes TMAX/TMIN/TRELU with std::max/std::min, whose result with a
    // NaN depends on the operand order; the interpreter matches it.
    assert!(super::semantics::cpp_max(f64::NAN, 1.0).is_nan());
    assert_eq!(super::semantics::cpp_max(1.0, f64::NAN), 1.0);
    assert_eq!(super::semantics::cpp_min(1.0, f64::NAN), 1.0);
    assert!(super::semantics::cpp_min(f64::NAN, 1.0).is_nan());
}

#[test]
fn max_min_reductions_treat_nan_as_pto_isa_does() {
    // pto-isa's TCOLMIN/TROWMAX start from the first element and replace it only by a strictly
    // smaller (greater) one: a NaN first stays, a NaN later is passed over.
    let p = program(
        "    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[3, 2], pl.FP32], out: pl.Out[pl.Tensor[[1, 2], pl.FP32]]) -> pl.Tensor[[1, 2], pl.FP32]:
        ta = pl.load(a, [0, 0], [3, 2])
        cv = pl.block.min(ta, axis=0, keepdim=True)
        r = pl.store(cv, [0, 0], [1, 2], out)
        return r
",
    );
    let nan = f64::NAN;
    let args = vec![t(Fp32, &[3, 2], &[nan, 5.0, 1.0, nan, 0.5, 2.0]), t(Fp32, &[1, 2], &[0.0; 2])];
    let r = run(&p, "k", args);
    let got = vals(&r.params[1]);
    assert!(got[0].is_nan(), "a NaN in the first row stays: {got:?}");
    assert_eq!(got[1], 2.0, "a NaN after the first row is passed over: {got:?}");
}

#[test]
fn the_step_budget_stops_at_the_innermost_loop_running() {
    // `g` returns from inside its loop; the loop that never ends is `f`'s second one, after the
    // call, so the error is at it and not at `g`'s loop or `f`'s first.
    let src = "    @pl.function
    def g(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        for i in pl.range(0, 10):
            if i == n:
                return i
        return n
    @pl.function
    def f(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        for j in pl.range(0, 3):
            m = self.g(n)
        t = m
        while t < 100:
            t = t * 1
        return t
";
    let p = program(src);
    let e = run_function_within(&p, "f", vec![Value::scalar_i64(Int64, 2)], 500).unwrap_err();
    assert_eq!(e.code, codes::RUN_STEP_LIMIT);
    assert!(e.message.contains("more than 500 steps"), "{}", e.message);
    let full = format!("# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n{src}");
    assert_eq!(&full[e.span.range()], "while t < 100", "{:?}", e.span);
    // A budget counts statements: the loop that ends takes at least one per iteration.
    let p = program(&src.replace("t * 1", "t + 1").replace("t < 100", "t < 1000"));
    assert!(run_function_within(&p, "f", vec![Value::scalar_i64(Int64, 2)], 900).is_err());
    assert!(run_function_within(&p, "f", vec![Value::scalar_i64(Int64, 2)], 5000).is_ok());
}
