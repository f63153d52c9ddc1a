//! Builds a tiled kernel with the IRBuilder (`ptoc::builder`) and prints it as `.pto` text.
//!
//! The kernel scales 32-row tiles of `a` into `out`: a loop over the tiles rebinds `out`
//! (so the builder makes it loop-carried), and an if/else rebinds `scale` in one branch (so the
//! builder merges it, yielding the incoming value from the other). An Orchestration function
//! creates the output tensor and calls the kernel.
//!
//! ```text
//! cargo run --release --example build_kernel | ptoc --emit=cpp -
//! ```

use ptoc::builder::{BuildError, Builder, Context, Dim, FunctionSig, Operand};
use ptoc::ir::{BinOp, DataType, FunctionType, MemorySpace, ParamDirection, Program};

/// Builds the program (also used by `tests/builder.rs`).
pub fn build() -> Result<Program, BuildError> {
    let mut b = Builder::new("BuiltKernel");
    let mut ctx = Context::new();
    let shape: [Dim; 2] = [128.into(), 32.into()];
    let fp32 = DataType::Fp32;

    // ===== InCore kernel: scale_rows(a, out) -> out =====
    let a = b.new_tensor(&shape, fp32, "a");
    let out = b.new_tensor(&shape, fp32, "out");
    let out_ty = b.type_of(out)?;
    let sig = FunctionSig {
        params: vec![(a, ParamDirection::In), (out, ParamDirection::Out)],
        return_types: vec![out_ty.clone()],
    };
    b.create_function("scale_rows", FunctionType::InCore, sig, false)?;
    b.enter_function_body(&mut ctx, "scale_rows")?;

    let i = b.create_scalar(&mut ctx, DataType::Int64, "i")?;
    let tiles = b.create_for(&mut ctx, i, 0, 4, 1)?;
    b.enter_for_body(&mut ctx, &tiles)?;
    {
        let row = b.scalar_op(BinOp::Mul, i, 32)?;
        let offsets = Operand::list([row.into(), 0.into()]);
        let load = b.load(a, offsets.clone(), [32, 32], MemorySpace::Vec)?;
        let t = b.emit(&mut ctx, load, "t")?;

        let scale = b.create_const(&mut ctx, 0.5, "scale")?;
        // if i < 2: scale = 2.0   (else: scale keeps its incoming value)
        let first_half = b.scalar_op(BinOp::Lt, i, 2)?;
        let branch = b.create_if(&mut ctx, first_half)?;
        b.enter_then(&mut ctx, &branch)?;
        b.create_const(&mut ctx, 2.0, "scale")?;
        ctx.pop_scope()?;
        b.enter_else(&mut ctx, &branch)?;
        ctx.pop_scope()?;
        b.exit_if(&mut ctx, &branch)?;

        let scale_now = ctx.lookup("scale").unwrap_or(scale);
        let scaled = b.binary("mul", t, scale_now)?;
        let t2 = b.emit(&mut ctx, scaled, "t2")?;
        let shifted = b.binary("add", t2, 1.0)?;
        let t3 = b.emit(&mut ctx, shifted, "t3")?;
        // `out` is rebound in the body: the builder makes it loop-carried.
        let store = b.store(t3, offsets, [32, 32], out)?;
        b.emit(&mut ctx, store, "out")?;
    }
    ctx.pop_scope()?;
    b.exit_for(&mut ctx, &tiles)?;
    let result = ctx.lookup("out").unwrap_or(out);
    b.create_return(&mut ctx, [result.into()])?;
    ctx.pop_scope()?;

    // ===== Orchestration: main(a) -> scale_rows(a, create()) =====
    let a2 = b.new_tensor(&shape, fp32, "a");
    let sig = FunctionSig { params: vec![(a2, ParamDirection::In)], return_types: vec![out_ty] };
    b.create_function("main", FunctionType::Orchestration, sig, true)?;
    b.enter_function_body(&mut ctx, "main")?;
    let create = b.tensor_create([128, 32], fp32)?;
    let buf = b.emit(&mut ctx, create, "out")?;
    let call = b.call("scale_rows", [a2.into(), buf.into()])?;
    let r = b.emit(&mut ctx, call, "r")?;
    b.create_return(&mut ctx, [r.into()])?;
    ctx.pop_scope()?;

    b.finish(&mut ctx)
}

fn main() {
    match build() {
        Ok(prog) => print!("{}", ptoc::printer::print_program(&prog)),
        Err(e) => {
            eprintln!("build_kernel: {e}");
            std::process::exit(1);
        }
    }
}
