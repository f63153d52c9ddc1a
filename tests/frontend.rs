//! Front-end behaviour checked through the library API: name resolution and variable
//! identity, interning of MemRefs, and the verifiers on parsed programs.

use ptoc::ir::{ExprKind, Stmt, Type, VarKind};
use ptoc::verify::{verify, Property};

fn compile(source: &str) -> ptoc::ir::Program {
    let module = ptoc::parser::parse(source).expect("parses");
    ptoc::lower::lower(module).expect("lowers")
}

const HEAD: &str = "# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n";

fn body_stmts(p: &ptoc::ir::Program, func: &str) -> Vec<Stmt> {
    match &p.function(func).expect("function exists").body {
        Stmt::Seq { stmts, .. } => stmts.clone(),
        s => vec![s.clone()],
    }
}

/// Every definition is a new variable (spec §3.10), so a name assigned twice is two variables
/// and the program is in SSA form. (The reference's hand-built IR of conformance case
/// ir-verifier/0002 reuses one object; see tests/conformance-deviations.md.)
#[test]
fn reassignment_defines_distinct_variables() {
    let src = format!(
        "{HEAD}    @pl.function\n    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        x: pl.Scalar[pl.INT64] = a\n        x: pl.Scalar[pl.INT64] = a\n        return x\n"
    );
    let p = compile(&src);
    let stmts = body_stmts(&p, "f");
    let (Stmt::Assign { var: v1, .. }, Stmt::Assign { var: v2, .. }, Stmt::Return { values, .. }) =
        (&stmts[0], &stmts[1], &stmts[2])
    else {
        panic!("unexpected body {stmts:?}")
    };
    assert_ne!(v1, v2);
    let f = p.function("f").expect("f");
    assert_eq!(f.var_name(*v1), f.var_name(*v2));
    assert_eq!(values[0].kind, ExprKind::Var(*v2), "a use sees the most recent definition");
    assert!(verify(&p, Property::DEFAULT).is_empty());
}

/// One MemRef id within a function is one MemRef variable, shared by every type naming it and
/// defined by its `block.alloc`; the same id in another function is another MemRef.
#[test]
fn memrefs_are_interned_per_function_by_id() {
    let mem = "pl.MemRef(pl.MemorySpace.Vec, 0, 1024, 3)";
    let f = |name: &str| {
        format!(
            "    @pl.function(type=pl.FunctionType.InCore)\n    def {name}(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n        mem_vec_3: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, 0, 1024, 3)\n        t: pl.Tile[[16, 16], pl.FP32, {mem}] = pl.block.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)\n        u: pl.Tile[[16, 16], pl.FP32, {mem}] = pl.block.exp(t)\n        return a\n"
        )
    };
    let p = compile(&format!("{HEAD}{}{}", f("f"), f("g")));
    let memref_of = |func: &str, i: usize| match &body_stmts(&p, func)[i] {
        Stmt::Assign { var, .. } => p.function(func).expect("exists").var_type(*var).memref().unwrap_or(*var),
        s => panic!("{s:?}"),
    };
    let (alloc_f, t_f, u_f) = (memref_of("f", 0), memref_of("f", 1), memref_of("f", 2));
    assert_eq!(alloc_f, t_f);
    assert_eq!(t_f, u_f);
    let f = p.function("f").expect("f");
    assert!(matches!(&f.var(alloc_f).kind, VarKind::MemRef(info) if info.id == 3 && info.size == 1024));
    assert_eq!(f.var_type(alloc_f), &Type::MemRef);
    // The same id in `g` is a MemRef variable of `g`'s own table (a function owns its variables).
    let g = p.function("g").expect("g");
    assert!(matches!(&g.var(memref_of("g", 1)).kind, VarKind::MemRef(info) if info.id == 3));
    assert_eq!(memref_of("g", 1), memref_of("g", 2));
}

/// A parsed program with an if whose condition is not a scalar (an annotation may declare any
/// type) is judged by TypeCheck with the reference's code and message.
#[test]
fn verifier_runs_on_parsed_programs() {
    let src = format!(
        "{HEAD}    @pl.function\n    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        c: pl.Tensor[[4], pl.INT64] = a\n        if c:\n            r: pl.Scalar[pl.INT64] = pl.yield_(a)\n        else:\n            r: pl.Scalar[pl.INT64] = pl.yield_(a)\n        return r\n"
    );
    let d = verify(&compile(&src), Property::DEFAULT);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].rule, d[0].error_code), (Property::TypeChecked, 106));
    assert_eq!(d[0].message, "IfStmt condition must be ScalarType, but got TensorType");
}

/// Loop outputs take the names of the loop-level yield; without one they are `<iter>_out`.
#[test]
fn loop_outputs_are_named_by_their_yield() {
    let src = format!(
        "{HEAD}    @pl.function\n    def f(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        for i, (acc,) in pl.range(0, n, 1, init_values=(n,)):\n            total: pl.Scalar[pl.INT64] = pl.yield_(acc + i)\n        for j, (b,) in pl.range(0, n, 1, init_values=(total,)):\n            with pl.incore():\n                pl.yield_(b)\n        return b_out\n"
    );
    let p = compile(&src);
    let stmts = body_stmts(&p, "f");
    let names: Vec<Vec<&str>> = stmts[..2]
        .iter()
        .map(|s| match s {
            Stmt::For { return_vars, .. } => {
                return_vars.iter().map(|v| p.function("f").expect("f").var_name(*v)).collect()
            }
            s => panic!("{s:?}"),
        })
        .collect();
    assert_eq!(names, vec![vec!["total"], vec!["b_out"]]);
}
