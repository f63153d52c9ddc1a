//! The IRBuilder (`ptoc::builder`): built programs equal the same programs read from
//! text, pass the verifiers and the whole pipeline to C++, and every misuse is an error value.

#[allow(dead_code)] // the example's `main` (run by `cargo run --example build_kernel`); the test calls the rest
#[path = "../examples/build_kernel.rs"]
mod example;

use ptoc::builder::{BuildError, Builder, Context, Dim, FunctionSig, Value};
use ptoc::ir::equiv::programs_diff_as_text;
use ptoc::ir::{BinOp, DataType, FunctionType, ParamDirection, Program, Stmt};
use ptoc::verify::{verify, Property};

const FP32: DataType = DataType::Fp32;

fn parse(text: &str) -> Program {
    match ptoc::driver::frontend(text) {
        Ok(p) => p,
        Err(d) => panic!("expected text does not parse: {d:?}"),
    }
}

/// Asserts that the built program equals `text` read back, verifies, and round-trips.
fn assert_builds(built: &Program, text: &str) {
    let printed = ptoc::printer::print_program(built);
    if let Some(d) = programs_diff_as_text(built, &parse(text)) {
        panic!("built program differs from the text: {d}\n--- built:\n{printed}");
    }
    let diags = verify(built, Property::DEFAULT);
    assert!(diags.is_empty(), "verifier: {diags:?}\n{printed}");
    assert!(programs_diff_as_text(built, &parse(&printed)).is_none(), "printed text reads back differently");
}

fn header(name: &str) -> String {
    format!("# pypto.program: {name}\nimport pypto.language as pl\n\n@pl.program\nclass {name}:\n")
}

/// `@pl.function` with `params` and `ret`, then `body` lines (each indented by 8).
fn func(kind: &str, name: &str, params: &str, ret: &str, body: &[&str]) -> String {
    let mut s = format!("    @pl.function(type=pl.FunctionType.{kind})\n    def {name}(self, {params}) -> {ret}:\n");
    for l in body {
        s.push_str("        ");
        s.push_str(l);
        s.push('\n');
    }
    s
}

const T128: &str = "pl.Tensor[[128, 32], pl.FP32]";

fn kernel_text() -> String {
    let mut s = header("BuiltKernel");
    s += &func(
        "InCore",
        "scale_rows",
        &format!("a: {T128}, out: pl.Out[{T128}]"),
        T128,
        &[
            "for i, (acc,) in pl.range(0, 4, 1, init_values=(out,)):",
            "    t = pl.block.load(a, [i * 32, 0], [32, 32], target_memory=pl.MemorySpace.Vec)",
            "    s0: pl.Scalar[pl.FP32] = 0.5",
            "    if i < 2:",
            "        s1: pl.Scalar[pl.FP32] = 2.0",
            "        s2 = pl.yield_(s1)",
            "    else:",
            "        s2 = pl.yield_(s0)",
            "    t2 = pl.block.muls(t, s2)",
            "    t3 = pl.block.adds(t2, 1.0)",
            &format!("    o: {T128} = pl.block.store(t3, [i * 32, 0], [32, 32], acc)"),
            "    r = pl.yield_(o)",
            "return r",
        ],
    );
    s += &func(
        "Orchestration",
        "main",
        &format!("a: {T128}"),
        T128,
        &["out = pl.tensor.create([128, 32], dtype=pl.FP32)", "r = self.scale_rows(a, out)", "return r"],
    );
    s
}

#[test]
fn example_kernel_equals_its_text() {
    let built = example::build().unwrap();
    assert_builds(&built, &kernel_text());
}

#[test]
fn example_kernel_has_iter_args_yields_and_a_merging_if() {
    let printed = ptoc::printer::print_program(&example::build().unwrap());
    assert!(printed.contains("in pl.range(0, 4, 1, init_values=(out,)):"), "{printed}");
    assert!(printed.contains("out: pl.Tensor[[128, 32], pl.FP32] = pl.yield_(out)"), "{printed}");
    assert!(printed.contains("if i < 2:") && printed.contains("else:"), "{printed}");
    assert_eq!(printed.matches("scale: pl.Scalar[pl.FP32] = pl.yield_(scale)").count(), 2, "{printed}");
}

#[test]
fn example_kernel_compiles_to_cpp() {
    let text = ptoc::printer::print_program(&example::build().unwrap());
    let args: Vec<String> = ["ptoc", "-O1", "--emit", "cpp", "-"].iter().map(|s| s.to_string()).collect();
    let out = ptoc::driver::run(&args, text.as_bytes());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.code, 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("// ==== kernels/aiv/scale_rows.cpp"), "{stdout}");
    assert!(stdout.contains("// ==== orchestration/main.cpp"), "{stdout}");
    assert!(stdout.contains("for (uint64_t i_0 = 0; i_0 < 4; i_0 += 1)"), "{stdout}");
}

/// The seed's first example, in Rust (also in docs/builder.md); 3.14 is the seed's literal.
#[allow(clippy::approx_constant)]
fn seed_example() -> Result<Program, BuildError> {
    let mut b = Builder::new("main");
    let mut ctx = Context::new();
    // tensor<[b, 128], fp32>
    let batch = b.new_scalar(DataType::Int64, "b");
    let shape = [Dim::Sym(batch), Dim::Const(128)];
    let input = b.new_tensor(&shape, FP32, "input");
    let scale1 = b.new_scalar(FP32, "scale1");
    let output = b.new_tensor(&shape, FP32, "output");
    let sig = FunctionSig {
        params: vec![(input, ParamDirection::In), (scale1, ParamDirection::In), (output, ParamDirection::Out)],
        return_types: vec![],
    };
    b.create_function("test_value", FunctionType::Opaque, sig, true)?;
    b.enter_function_body(&mut ctx, "test_value")?;
    // mul1_res = mul(input, scale1)
    let mul1 = b.binary("mul", input, scale1)?;
    let mul1_res = b.emit(&mut ctx, mul1, "mul1_res")?;
    let pi = b.create_const(&mut ctx, 3.14, "const_pi")?;
    // output = mul(mul1_res, pi)
    let mul2 = b.binary("mul", mul1_res, pi)?;
    b.emit(&mut ctx, mul2, "output")?;
    b.create_return(&mut ctx, [])?;
    ctx.pop_scope()?;
    assert_eq!(b.entry(), Some("test_value"));
    b.finish(&mut ctx)
}

#[test]
fn seed_example_equals_its_text() {
    let t = "pl.Tensor[[b, 128], pl.FP32]";
    let mut text = header("main");
    text += "    @pl.function\n";
    text += &format!("    def test_value(self, input: {t}, scale1: pl.Scalar[pl.FP32], output: pl.Out[{t}]):\n");
    text += "        mul1_res = pl.tensor.mul(input, scale1)\n";
    text += "        const_pi: pl.Scalar[pl.FP32] = 3.14\n";
    text += "        output = pl.tensor.mul(mul1_res, const_pi)\n";
    text += "        return\n";
    assert_builds(&seed_example().unwrap(), &text);
}

/// An accumulator carried through two nested loops; the inner loop's initial value is the
/// outer iter arg (the rewrite reaches iter-arg inits in the variable table).
#[test]
fn nested_loops_carry_through_both() {
    let mut b = Builder::new("Nested");
    let mut ctx = Context::new();
    let x = b.new_tensor(&[64.into()], FP32, "x");
    let ty = b.type_of(x).unwrap();
    b.create_function(
        "main",
        FunctionType::Opaque,
        FunctionSig { params: vec![(x, ParamDirection::In)], return_types: vec![ty] },
        false,
    )
    .unwrap();
    b.enter_function_body(&mut ctx, "main").unwrap();
    let create = b.tensor_create([64], FP32).unwrap();
    let acc = b.emit(&mut ctx, create, "acc").unwrap();
    let i = b.create_scalar(&mut ctx, DataType::Int64, "i").unwrap();
    let outer = b.create_for(&mut ctx, i, 0, 4, 1).unwrap();
    b.enter_for_body(&mut ctx, &outer).unwrap();
    let j = b.create_scalar(&mut ctx, DataType::Int64, "j").unwrap();
    let inner = b.create_for(&mut ctx, j, 0, 2, 1).unwrap();
    b.enter_for_body(&mut ctx, &inner).unwrap();
    let add = b.binary("add", acc, x).unwrap();
    b.emit(&mut ctx, add, "acc").unwrap();
    ctx.pop_scope().unwrap();
    let inner_out = b.exit_for(&mut ctx, &inner).unwrap();
    assert_eq!(inner_out.len(), 1);
    ctx.pop_scope().unwrap();
    let outer_out = b.exit_for(&mut ctx, &outer).unwrap();
    assert_eq!(outer_out[0].0, "acc");
    let mul = b.binary("mul", outer_out[0].1, 2.0).unwrap();
    let r = b.emit(&mut ctx, mul, "r").unwrap();
    b.create_return(&mut ctx, [r.into()]).unwrap();
    ctx.pop_scope().unwrap();
    let built = b.finish(&mut ctx).unwrap();

    let mut text = header("Nested");
    text += &func(
        "Opaque",
        "main",
        "x: pl.Tensor[[64], pl.FP32]",
        "pl.Tensor[[64], pl.FP32]",
        &[
            "acc0 = pl.tensor.create([64], dtype=pl.FP32)",
            "for i, (a1,) in pl.range(0, 4, 1, init_values=(acc0,)):",
            "    for j, (a2,) in pl.range(0, 2, 1, init_values=(a1,)):",
            "        a3 = pl.tensor.add(a2, x)",
            "        a4 = pl.yield_(a3)",
            "    a5 = pl.yield_(a4)",
            "r = pl.tensor.mul(a5, 2.0)",
            "return r",
        ],
    );
    assert_builds(&built, &text);
}

/// Opens an Opaque function `main(x: Tensor[[64], FP32], n: Scalar[INT64]) -> Tensor[[64], FP32]`.
fn open_main(b: &mut Builder, ctx: &mut Context) -> (Value, Value) {
    let x = b.new_tensor(&[64.into()], FP32, "x");
    let n = b.new_scalar(DataType::Int64, "n");
    let ty = b.type_of(x).unwrap();
    let sig = FunctionSig { params: vec![(x, ParamDirection::In), (n, ParamDirection::In)], return_types: vec![ty] };
    b.create_function("main", FunctionType::Opaque, sig, false).unwrap();
    b.enter_function_body(ctx, "main").unwrap();
    (x, n)
}

const MAIN_SIG: &str = "x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INT64]";
const T64: &str = "pl.Tensor[[64], pl.FP32]";

/// An if without an else branch that rebinds a value: the builder adds the else branch,
/// yielding the incoming value.
#[test]
fn if_without_else_gets_one_that_yields_the_incoming_value() {
    let mut b = Builder::new("P");
    let mut ctx = Context::new();
    let (x, n) = open_main(&mut b, &mut ctx);
    let cond = b.scalar_op(BinOp::Gt, n, 0).unwrap();
    let h = b.create_if(&mut ctx, cond).unwrap();
    b.enter_then(&mut ctx, &h).unwrap();
    let e = b.binary("add", x, x).unwrap();
    b.emit(&mut ctx, e, "x").unwrap();
    ctx.pop_scope().unwrap();
    let merged = b.exit_if(&mut ctx, &h).unwrap();
    assert_eq!(merged.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["x"]);
    assert_eq!(ctx.lookup("x"), Some(merged[0].1));
    b.create_return(&mut ctx, [merged[0].1.into()]).unwrap();
    ctx.pop_scope().unwrap();
    let built = b.finish(&mut ctx).unwrap();
    let mut text = header("P");
    text += &func(
        "Opaque",
        "main",
        MAIN_SIG,
        T64,
        &[
            "if n > 0:",
            "    x1 = pl.tensor.add(x, x)",
            "    x2 = pl.yield_(x1)",
            "else:",
            "    x2 = pl.yield_(x)",
            "return x2",
        ],
    );
    assert_builds(&built, &text);
}

/// Names bound in both branches merge even when they name nothing before the if; names bound
/// in one branch only stay local to it.
#[test]
fn names_bound_in_both_branches_merge_and_branch_locals_do_not() {
    let mut b = Builder::new("P");
    let mut ctx = Context::new();
    let (x, n) = open_main(&mut b, &mut ctx);
    let cond = b.scalar_op(BinOp::Lt, n, 4).unwrap();
    let h = b.create_if(&mut ctx, cond).unwrap();
    b.enter_then(&mut ctx, &h).unwrap();
    let e = b.binary("mul", x, 2.0).unwrap();
    let tmp = b.emit(&mut ctx, e, "tmp").unwrap();
    let e = b.binary("add", tmp, 1.0).unwrap();
    b.emit(&mut ctx, e, "y").unwrap();
    ctx.pop_scope().unwrap();
    b.enter_else(&mut ctx, &h).unwrap();
    let e = b.binary("sub", x, 1.0).unwrap();
    b.emit(&mut ctx, e, "y").unwrap();
    ctx.pop_scope().unwrap();
    let merged = b.exit_if(&mut ctx, &h).unwrap();
    assert_eq!(merged.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["y"]);
    assert_eq!(ctx.lookup("tmp"), None);
    b.create_return(&mut ctx, [merged[0].1.into()]).unwrap();
    ctx.pop_scope().unwrap();
    let built = b.finish(&mut ctx).unwrap();
    let mut text = header("P");
    text += &func(
        "Opaque",
        "main",
        MAIN_SIG,
        T64,
        &[
            "if n < 4:",
            "    tmp = pl.tensor.mul(x, 2.0)",
            "    y1 = pl.tensor.add(tmp, 1.0)",
            "    y = pl.yield_(y1)",
            "else:",
            "    y2 = pl.tensor.sub(x, 1.0)",
            "    y = pl.yield_(y2)",
            "return y",
        ],
    );
    assert_builds(&built, &text);
}

/// Explicit iter args and yields, with an automatically carried value after them.
#[test]
fn explicit_iter_args_and_yields_come_before_carried_values() {
    let mut b = Builder::new("P");
    let mut ctx = Context::new();
    let (x, n) = open_main(&mut b, &mut ctx);
    let i = b.create_scalar(&mut ctx, DataType::Int64, "i").unwrap();
    let lp = b.create_for(&mut ctx, i, 0, n, 1).unwrap();
    let s = b.add_iter_arg(&mut ctx, &lp, "s", 0).unwrap();
    b.enter_for_body(&mut ctx, &lp).unwrap();
    let next = b.scalar_op(BinOp::Add, s, i).unwrap();
    let e = b.binary("add", x, x).unwrap();
    b.emit(&mut ctx, e, "x").unwrap();
    b.create_yield(&mut ctx, [next.into()]).unwrap();
    ctx.pop_scope().unwrap();
    let out = b.exit_for(&mut ctx, &lp).unwrap();
    assert_eq!(out.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["s", "x"]);
    b.create_return(&mut ctx, [out[1].1.into()]).unwrap();
    ctx.pop_scope().unwrap();
    let built = b.finish(&mut ctx).unwrap();
    let mut text = header("P");
    text += &func(
        "Opaque",
        "main",
        MAIN_SIG,
        T64,
        &[
            "for i, (s, x1) in pl.range(0, n, 1, init_values=(0, x)):",
            "    x2 = pl.tensor.add(x1, x1)",
            "    s_out, x_out = pl.yield_(s + i, x2)",
            "return x_out",
        ],
    );
    assert_builds(&built, &text);
}

/// Emits go into one op run until a non-op statement or `create_op_stmt` starts a new one.
#[test]
fn emits_share_an_op_run_until_a_new_one_is_started() {
    let mut b = Builder::new("P");
    let mut ctx = Context::new();
    let (x, _) = open_main(&mut b, &mut ctx);
    assert!(!ctx.has_active_op_run());
    let e = b.binary("add", x, x).unwrap();
    let y = b.emit(&mut ctx, e, "y").unwrap();
    let e = b.binary("mul", y, y).unwrap();
    let z = b.emit(&mut ctx, e, "z").unwrap();
    assert!(ctx.has_active_op_run());
    b.create_op_stmt(&mut ctx).unwrap();
    let e = b.binary("sub", z, y).unwrap();
    let w = b.emit(&mut ctx, e, "w").unwrap();
    b.create_return(&mut ctx, [w.into()]).unwrap();
    assert!(!ctx.has_active_op_run());
    ctx.pop_scope().unwrap();
    let built = b.finish(&mut ctx).unwrap();
    let Stmt::Seq { stmts, .. } = &built.functions[0].body else { panic!("body is not a sequence") };
    let runs: Vec<usize> =
        stmts.iter().filter_map(|s| if let Stmt::Ops { stmts, .. } = s { Some(stmts.len()) } else { None }).collect();
    assert_eq!(runs, [2, 1]);
    assert!(matches!(stmts.last(), Some(Stmt::Return { .. })));
}

// ---------------------------------------------------------------------------------------------
// Misuse

#[test]
fn popping_an_empty_scope_stack_is_an_error() {
    assert!(matches!(Context::new().pop_scope(), Err(BuildError::EmptyScopeStack)));
}

#[test]
fn emitting_outside_a_function_is_an_error() {
    let mut b = Builder::new("P");
    let mut ctx = Context::new();
    let x = b.new_tensor(&[64.into()], FP32, "x");
    let e = b.binary("add", x, x).unwrap();
    assert!(matches!(b.emit(&mut ctx, e, "y"), Err(BuildError::NotInFunction { what: "emit" })));
    assert!(matches!(b.create_const(&mut ctx, 1, "c"), Err(BuildError::NotInFunction { .. })));
    assert!(matches!(b.create_return(&mut ctx, []), Err(BuildError::NotInFunction { .. })));
}

#[test]
fn exiting_a_loop_whose_body_is_open_is_an_error() {
    let mut b = Builder::new("P");
    let mut ctx = Context::new();
    open_main(&mut b, &mut ctx);
    let i = b.create_scalar(&mut ctx, DataType::Int64, "i").unwrap();
    let lp = b.create_for(&mut ctx, i, 0, 4, 1).unwrap();
    assert!(matches!(b.exit_for(&mut ctx, &lp), Err(BuildError::BadOrder { .. })));
    b.enter_for_body(&mut ctx, &lp).unwrap();
    assert!(matches!(b.exit_for(&mut ctx, &lp), Err(BuildError::ScopeStillOpen { construct: "exit_for" })));
    assert!(matches!(b.enter_for_body(&mut ctx, &lp), Err(BuildError::WrongScope { .. })));
    ctx.pop_scope().unwrap();
    b.exit_for(&mut ctx, &lp).unwrap();
    assert!(matches!(b.exit_for(&mut ctx, &lp), Err(BuildError::StaleHandle { .. })));
}

#[test]
fn operand_types_that_do_not_match_the_op_are_an_error() {
    let mut b = Builder::new("P");
    let x = b.new_tensor(&[64.into()], FP32, "x");
    let t = b.new_tensor(&[16.into(), 16.into()], FP32, "t");
    // block.add wants tiles.
    let Err(BuildError::Op(d)) = b.op("block.add", [x.into(), t.into()], []) else {
        panic!("block.add on tensors accepted")
    };
    assert_eq!(d.code, ptoc::diag::codes::OP_ARG_TYPE, "{d:?}");
    let Err(BuildError::Op(d)) = b.op("block.nosuchop", [x.into()], []) else { panic!("unknown op accepted") };
    assert_eq!(d.code, ptoc::diag::codes::UNKNOWN_OP);
    let Err(BuildError::Op(d)) = b.op("tensor.add", [x.into()], []) else {
        panic!("tensor.add with one argument accepted")
    };
    assert_eq!(d.code, ptoc::diag::codes::OP_ARG_COUNT);
}

#[test]
fn other_misuses_are_errors() {
    let mut b = Builder::new("P");
    let mut ctx = Context::new();
    let (x, n) = open_main(&mut b, &mut ctx);
    // A second function body while one is open; a duplicate function.
    assert!(matches!(b.enter_function_body(&mut ctx, "main"), Err(BuildError::NestedFunction { .. })));
    assert!(matches!(
        b.create_function("main", FunctionType::Opaque, FunctionSig::default(), false),
        Err(BuildError::DuplicateFunction(_))
    ));
    assert!(matches!(b.enter_function_body(&mut ctx, "nope"), Err(BuildError::UnknownFunction(_))));
    // A tensor condition; a yield in a function body; a value of another program.
    assert!(matches!(b.create_if(&mut ctx, x), Err(BuildError::NotAScalar { .. })));
    assert!(matches!(b.create_yield(&mut ctx, [x.into()]), Err(BuildError::BadYield(_))));
    assert!(matches!(b.binary("add", Value(ptoc::ir::VarId(999)), x), Err(BuildError::UnknownValue(999))));
    // emit_to: wrong type, then an already defined target.
    let target = b.create_tensor(&mut ctx, &[32.into()], FP32, "t").unwrap();
    let e = b.binary("add", x, x).unwrap();
    assert!(matches!(b.emit_to(&mut ctx, target, e.clone()), Err(BuildError::TypeMismatch { .. })));
    assert!(matches!(b.emit_to(&mut ctx, x, e), Err(BuildError::AlreadyDefined(_))));
    // Branches that merge values of different types.
    let h = b.create_if(&mut ctx, n).unwrap();
    assert!(matches!(b.enter_else(&mut ctx, &h), Err(BuildError::BadOrder { .. })));
    b.enter_then(&mut ctx, &h).unwrap();
    assert!(matches!(b.create_return(&mut ctx, []), Err(BuildError::BadOrder { .. })));
    let e = b.tensor_create([32], FP32).unwrap();
    b.emit(&mut ctx, e, "x").unwrap();
    assert!(matches!(b.exit_if(&mut ctx, &h), Err(BuildError::ScopeStillOpen { .. })));
    ctx.pop_scope().unwrap();
    assert!(matches!(b.exit_if(&mut ctx, &h), Err(BuildError::TypeMismatch { .. })));
    // Unfinished work.
    assert!(matches!(b.finish(&mut ctx), Err(BuildError::Unfinished(_))));
}

#[test]
fn errors_print_a_sentence() {
    let e = Context::new().pop_scope().unwrap_err();
    assert_eq!(e.to_string(), "pop_scope: the scope stack is empty");
}

/// A builder adding to a parsed program: the parsed functions own their variables, so their
/// bodies cannot be entered and a call of one whose result type names its variables (`n`) is
/// refused; a call of one with a static result type is built, and the program verifies.
#[test]
fn adding_to_a_parsed_program_respects_its_functions_variables() {
    let mut text = header("Mixed");
    text += &func("Opaque", "fixed", "x: pl.Tensor[[64], pl.FP32]", "pl.Tensor[[64], pl.FP32]", &["return x"]);
    text += &func(
        "Opaque",
        "sized",
        "x: pl.Tensor[[n], pl.FP32], n: pl.Scalar[pl.INT64]",
        "pl.Tensor[[n], pl.FP32]",
        &["return x"],
    );
    let mut b = Builder::with_program(parse(&text));
    let mut ctx = Context::new();
    assert!(matches!(b.enter_function_body(&mut ctx, "fixed"), Err(BuildError::NotBuilt(n)) if n == "fixed"));
    let (x, n) = open_main(&mut b, &mut ctx);
    assert!(matches!(b.call("sized", [x.into(), n.into()]), Err(BuildError::NotBuilt(f)) if f == "sized"));
    let call = b.call("fixed", [x.into()]).unwrap();
    let y = b.emit(&mut ctx, call, "y").unwrap();
    b.create_return(&mut ctx, [y.into()]).unwrap();
    ctx.pop_scope().unwrap();
    let built = b.finish(&mut ctx).unwrap();
    assert!(verify(&built, Property::DEFAULT).is_empty());
    let printed = ptoc::printer::print_program(&built);
    assert!(printed.contains("y: pl.Tensor[[64], pl.FP32] = self.fixed(x)"), "{printed}");
    assert!(printed.contains("def sized(self, x: pl.Tensor[[n], pl.FP32], n: pl.Scalar[pl.INT64])"), "{printed}");
}
