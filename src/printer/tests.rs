//! Exact-text tests of the printer on hand-built IR (spec §3.2–§3.9, §3.13).

use super::*;
use crate::ir::*;
use crate::ops;

const S: Span = Span::NONE;

// ---------------------------------------------------------------------------------------------
// IR construction helpers

fn i64t() -> Type {
    Type::Scalar(DataType::Int64)
}
fn boolt() -> Type {
    Type::Scalar(DataType::Bool)
}
fn tensor(shape: &[i64], dtype: DataType) -> Type {
    Type::tensor(TensorType { dtype, shape: shape.iter().map(|&d| int(d)).collect(), memref: None, view: None })
}
fn t64() -> Type {
    tensor(&[64], DataType::Fp32)
}
fn int(v: i64) -> Expr {
    Expr::int(v, DataType::Int64, S)
}
fn fp(v: f64) -> Expr {
    Expr::float(v, DataType::Fp32, S)
}
fn v(id: VarId) -> Expr {
    Expr::var(id, S)
}
fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
    let dtype = if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) {
        DataType::Bool
    } else {
        DataType::Int64
    };
    Expr::new(ExprKind::Binary(op, Box::new(l), Box::new(r)), Type::Scalar(dtype), S)
}
fn un(op: UnOp, x: Expr) -> Expr {
    let dtype = if op == UnOp::Not { DataType::Bool } else { DataType::Int64 };
    Expr::new(ExprKind::Unary(op, Box::new(x)), Type::Scalar(dtype), S)
}
fn call(op: &str, args: Vec<Expr>, kwargs: Vec<(&'static str, KwValue)>, ty: Type) -> Expr {
    let op = ops::lookup(op).expect("op in table");
    Expr::new(ExprKind::Call(Box::new(Call { callee: Callee::Op(op), args, kwargs })), ty, S)
}
fn fcall(name: &str, args: Vec<Expr>, kwargs: Vec<(&'static str, KwValue)>, ty: Type) -> Expr {
    Expr::new(ExprKind::Call(Box::new(Call { callee: Callee::Function(name.into()), args, kwargs })), ty, S)
}
fn assign(var: VarId, value: Expr) -> Stmt {
    Stmt::Assign { var, value, span: S }
}
fn eval(expr: Expr) -> Stmt {
    Stmt::Eval { expr, span: S }
}
fn yld(values: Vec<Expr>) -> Stmt {
    Stmt::Yield { values, span: S }
}
fn ret(values: Vec<Expr>) -> Stmt {
    Stmt::Return { values, span: S }
}
fn seq(stmts: Vec<Stmt>) -> Stmt {
    Stmt::Seq { stmts, span: S }
}
fn param(var: VarId) -> Param {
    Param { var, direction: ParamDirection::In }
}
fn func(name: &str, kind: FunctionType, params: Vec<Param>, return_types: Vec<Type>, body: Stmt) -> Function {
    Function { name: name.into(), kind, params, return_types, body, span: S, vars: VarTable::new(), schedule: None }
}
/// `f` with the variables of `vars` (the tests make every function's variables in one table).
fn with_vars(f: Function, vars: &VarTable) -> Function {
    Function { vars: vars.clone(), ..f }
}
/// [`print_function`] of `f` with the variables of `vars`.
fn print_fn(vars: &VarTable, f: &Function) -> String {
    print_function(&with_vars(f.clone(), vars))
}
fn plain(p: &mut VarTable, name: &str, ty: Type) -> VarId {
    p.new_var(name, ty, VarKind::Plain, S)
}
fn iter_arg(p: &mut VarTable, name: &str, ty: Type, init: Expr) -> VarId {
    p.new_var(name, ty, VarKind::IterArg { init: Box::new(init) }, S)
}
fn for_loop(loop_var: VarId, stop: Expr, iter_args: Vec<VarId>, body: Stmt, return_vars: Vec<VarId>) -> Stmt {
    Stmt::For {
        loop_var,
        start: Box::new(int(0)),
        stop: Box::new(stop),
        step: Box::new(int(1)),
        iter_args,
        body: Box::new(body),
        return_vars,
        kind: ForKind::Sequential,
        span: S,
    }
}
/// Text of a standalone function whose body is `body` (no params, no returns).
fn body_text(p: &VarTable, body: Stmt) -> String {
    print_fn(p, &func("f", FunctionType::Opaque, vec![], vec![], body))
}

// ---------------------------------------------------------------------------------------------
// Program layout and function order

/// `zeta` ← `kernel` ← `main`: printed callee first, unlike name order (kernel, main, zeta).
fn demo_program() -> Program {
    let mut prog = Program::new("Demo");
    let mut p = VarTable::new();
    let (x, out) = (plain(&mut p, "x", t64()), plain(&mut p, "out", t64()));
    let y = plain(&mut p, "y", t64());
    let zeta_body =
        seq(vec![assign(y, call("tensor.add_scalar", vec![v(x), fp(1.0)], vec![], t64())), ret(vec![v(y)])]);
    let zeta = func(
        "zeta",
        FunctionType::InCore,
        vec![param(x), Param { var: out, direction: ParamDirection::Out }],
        vec![t64()],
        zeta_body,
    );
    let (kx, n, io, r) =
        (plain(&mut p, "x", t64()), plain(&mut p, "n", i64t()), plain(&mut p, "io", t64()), plain(&mut p, "r", t64()));
    let kernel_body = seq(vec![
        assign(r, fcall("zeta", vec![v(kx), v(kx)], vec![("mode", KwValue::Int(1))], t64())),
        ret(vec![v(r), v(n)]),
    ]);
    let kernel = func(
        "kernel",
        FunctionType::Opaque,
        vec![param(kx), param(n), Param { var: io, direction: ParamDirection::InOut }],
        vec![t64(), i64t()],
        kernel_body,
    );
    let tuple_t = Type::Tuple(vec![t64(), i64t()]);
    let (mx, t, u) = (plain(&mut p, "x", t64()), plain(&mut p, "t", tuple_t.clone()), plain(&mut p, "u", t64()));
    let get0 = Expr::new(ExprKind::TupleGetItem(Box::new(v(t)), 0), t64(), S);
    let main_body = seq(vec![
        assign(t, fcall("kernel", vec![v(mx), int(3), v(mx)], vec![], tuple_t)),
        assign(u, fcall("zeta", vec![v(mx), get0], vec![], t64())),
    ]);
    let main = func("main", FunctionType::Orchestration, vec![param(mx)], vec![], main_body);
    for f in [main, kernel, zeta] {
        prog.add_function(with_vars(f, &p)).expect("unique names");
    }
    prog
}

#[test]
fn program_layout_and_call_order() {
    let p = demo_program();
    let want = "\
# pypto.program: Demo
import pypto.language as pl

@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.InCore)
    def zeta(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, 1.0)
        return y
    @pl.function
    def kernel(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INT64], io: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Scalar[pl.INT64]]:
        r: pl.Tensor[[64], pl.FP32] = self.zeta(x, x)
        return r, n
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]):
        t: pl.Tuple([pl.Tensor[[64], pl.FP32], pl.Scalar[pl.INT64]]) = self.kernel(x, 3, x)
        u: pl.Tensor[[64], pl.FP32] = self.zeta(x, t[0])";
    assert_eq!(print_program(&p), want);
}

#[test]
fn standalone_function_has_no_self_and_bare_calls() {
    let p = demo_program();
    let kernel = p.function("kernel").expect("kernel");
    let want = "\
@pl.function
def kernel(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INT64], io: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Scalar[pl.INT64]]:
    r: pl.Tensor[[64], pl.FP32] = zeta(x, x, mode=1)
    return r, n";
    assert_eq!(print_function(kernel), want);
}

#[test]
fn empty_program_name_and_no_functions() {
    let p = Program::new("");
    assert_eq!(
        print_program(&p),
        "# pypto.program: Program\nimport pypto.language as pl\n\n@pl.program\nclass Program:\n"
    );
}

#[test]
fn empty_bodies_leave_an_empty_line() {
    let mut p = Program::new("E");
    let mut vt = VarTable::new();
    p.add_function(func("e", FunctionType::Opaque, vec![], vec![], Stmt::empty())).unwrap();
    // Last function empty: the text ends with `:\n` (§3.13).
    assert_eq!(print_program(&p), "# pypto.program: E\nimport pypto.language as pl\n\n@pl.program\nclass E:\n    @pl.function\n    def e(self):\n");
    assert_eq!(print_function(&p.functions[0]), "@pl.function\ndef e():\n");

    // An empty function followed by another one, and empty loop / if / with bodies: each empty
    // body is one line with nothing on it (no indentation spaces).
    let i = plain(&mut vt, "i", i64t());
    let c = plain(&mut vt, "c", boolt());
    let body = seq(vec![
        for_loop(i, int(4), vec![], Stmt::empty(), vec![]),
        Stmt::If {
            cond: Box::new(v(c)),
            then_body: Box::new(Stmt::empty()),
            else_body: Some(Box::new(seq(vec![seq(vec![])]))),
            return_vars: vec![],
            span: S,
        },
        Stmt::Scope { kind: ScopeKind::InCore, body: Box::new(Stmt::empty()), span: S },
        ret(vec![]),
    ]);
    p.add_function(with_vars(func("g", FunctionType::Opaque, vec![], vec![], body), &vt)).unwrap();
    let want = "\
# pypto.program: E
import pypto.language as pl

@pl.program
class E:
    @pl.function
    def e(self):

    @pl.function
    def g(self):
        for i in pl.range(0, 4, 1):

        if c:

        else:

        with pl.incore():

        return";
    assert_eq!(print_program(&p), want);
}

/// A statement whose text is blank (a variable named by spaces) prints as an empty line, and so
/// does a blank line inside a string kwarg: no line of the output is made only of spaces.
#[test]
fn blank_lines_from_names_and_strings_are_emptied() {
    let mut p = VarTable::new();
    let blank = plain(&mut p, "   ", t64());
    let x = plain(&mut p, "x", t64());
    let note = KwValue::Str("a\n   \n b".into());
    let c = call("tensor.add_scalar", vec![v(x), fp(1.0)], vec![("note", note)], t64());
    let call_text = print_expr(&p, &c);
    assert!(call_text.contains("a\n   \n b"), "{call_text}");
    let text = body_text(&p, seq(vec![eval(v(blank)), eval(c)]));
    let want = format!("@pl.function\ndef f():\n\n    {}", call_text.replace("\n   \n", "\n\n"));
    assert_eq!(text, want);
    assert!(!text.split('\n').any(|l| !l.is_empty() && l.bytes().all(|b| b == b' ')), "{text}");
}

#[test]
fn function_order_falls_back_to_names_on_a_cycle() {
    let mut p = Program::new("C");
    let call_of = |name: &str| eval(fcall(name, vec![], vec![], Type::Unknown));
    // m → z would put z first, but a ↔ b is a cycle, so plain name order wins.
    for (name, callee) in [("m", Some("z")), ("z", None), ("a", Some("b")), ("b", Some("a"))] {
        let body = callee.map_or(Stmt::empty(), call_of);
        p.add_function(func(name, FunctionType::Opaque, vec![], vec![], body)).unwrap();
    }
    let names: Vec<&str> = function_order(&p).iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "m", "z"]);

    // Without the cycle the callee comes first.
    p.functions.retain(|f| f.name == "m" || f.name == "z");
    let names: Vec<&str> = function_order(&p).iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["z", "m"]);
}

#[test]
fn function_order_sees_calls_in_nested_positions() {
    let mut p = Program::new("N");
    let mut vt = VarTable::new();
    let i = plain(&mut vt, "i", i64t());
    let acc = iter_arg(&mut vt, "acc", i64t(), fcall("c_init", vec![], vec![], i64t()));
    let r = plain(&mut vt, "r", i64t());
    // Calls in a loop bound, an iter-arg init value and deep inside an expression.
    let deep = bin(BinOp::Add, int(1), un(UnOp::Neg, fcall("b_deep", vec![], vec![], i64t())));
    let body = for_loop(i, fcall("d_bound", vec![], vec![], i64t()), vec![acc], yld(vec![deep]), vec![r]);
    for name in ["b_deep", "c_init", "d_bound"] {
        p.add_function(func(name, FunctionType::Opaque, vec![], vec![], Stmt::empty())).unwrap();
    }
    p.add_function(with_vars(func("a_main", FunctionType::Opaque, vec![], vec![], body), &vt)).unwrap();
    let names: Vec<&str> = function_order(&p).iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["b_deep", "c_init", "d_bound", "a_main"]);
}

// ---------------------------------------------------------------------------------------------
// Statements

/// Example 3.14-C of the spec, built by hand.
#[test]
fn control_flow_example_of_the_spec() {
    let mut p = VarTable::new();
    let n = plain(&mut p, "n", i64t());
    let x = plain(&mut p, "x", t64());
    let i = plain(&mut p, "i", i64t());
    let acc = iter_arg(&mut p, "acc", t64(), v(x));
    let t = plain(&mut p, "t", t64());
    let vv = plain(&mut p, "v", t64());
    let acc_out = plain(&mut p, "acc_out", t64());
    let k = iter_arg(&mut p, "k", i64t(), int(0));
    let s = iter_arg(&mut p, "s", t64(), v(acc_out));
    let k2 = plain(&mut p, "k2", i64t());
    let s2 = plain(&mut p, "s2", t64());
    let k_out = plain(&mut p, "k_out", i64t());
    let s_out = plain(&mut p, "s_out", t64());
    let w = plain(&mut p, "w", t64());

    let if_stmt = Stmt::If {
        cond: Box::new(bin(BinOp::Eq, v(i), int(0))),
        then_body: Box::new(seq(vec![
            assign(t, call("tensor.add_scalar", vec![v(acc), fp(1.0)], vec![], t64())),
            yld(vec![v(t)]),
        ])),
        else_body: Some(Box::new(yld(vec![v(acc)]))),
        return_vars: vec![vv],
        span: S,
    };
    let for_stmt = for_loop(i, v(n), vec![acc], seq(vec![if_stmt, yld(vec![v(vv)])]), vec![acc_out]);
    let while_stmt = Stmt::While {
        cond: Box::new(bin(BinOp::Lt, v(k), v(n))),
        iter_args: vec![k, s],
        body: Box::new(seq(vec![
            assign(k2, bin(BinOp::Add, v(k), int(1))),
            assign(s2, call("tensor.mul_scalar", vec![v(s), fp(2.0)], vec![], t64())),
            yld(vec![v(k2), v(s2)]),
        ])),
        return_vars: vec![k_out, s_out],
        span: S,
    };
    let scope = Stmt::Scope {
        kind: ScopeKind::InCore,
        body: Box::new(assign(w, call("tensor.add_scalar", vec![v(s_out), fp(1.0)], vec![], t64()))),
        span: S,
    };
    let body = seq(vec![for_stmt, while_stmt, scope, ret(vec![v(w)])]);
    let f = func("cf", FunctionType::Opaque, vec![param(n), param(x)], vec![t64()], body);
    let want = "\
@pl.function
def cf(n: pl.Scalar[pl.INT64], x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    for i, (acc,) in pl.range(0, n, 1, init_values=(x,)):
        if i == 0:
            t: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc, 1.0)
            v: pl.Tensor[[64], pl.FP32] = pl.yield_(t)
        else:
            v: pl.Tensor[[64], pl.FP32] = pl.yield_(acc)
        acc_out: pl.Tensor[[64], pl.FP32] = pl.yield_(v)
    for (k, s) in pl.while_(init_values=(0, acc_out)):
        pl.cond(k < n)
        k2: pl.Scalar[pl.INT64] = k + 1
        s2: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(s, 2.0)
        k_out, s_out = pl.yield_(k2, s2)
    with pl.incore():
        w: pl.Tensor[[64], pl.FP32] = pl.tensor.add(s_out, 1.0)
    return w";
    assert_eq!(print_fn(&p, &f), want);
}

#[test]
fn yields_print_by_position() {
    let mut p = VarTable::new();
    let a = plain(&mut p, "a", i64t());
    let b = plain(&mut p, "b", i64t());
    let i = plain(&mut p, "i", i64t());
    let r = plain(&mut p, "r", i64t());
    let (x, y) = (iter_arg(&mut p, "x", i64t(), v(a)), iter_arg(&mut p, "y", i64t(), v(b)));
    let (rx, ry) = (plain(&mut p, "rx", i64t()), plain(&mut p, "ry", i64t()));

    // Function top level: any direct child yield, or the body itself, is a `return`.
    assert_eq!(body_text(&p, yld(vec![v(a)])), "@pl.function\ndef f():\n    return a");
    assert_eq!(
        body_text(&p, seq(vec![yld(vec![]), yld(vec![v(a), v(b)]), seq(vec![yld(vec![v(a)])])])),
        "@pl.function\ndef f():\n    return\n    return a, b\n    pl.yield_(a)"
    );

    let loop_with = |body: Stmt, rvs: Vec<VarId>| {
        let args = if rvs.len() == 2 { vec![x, y] } else { vec![] };
        let header = for_loop(i, int(4), args, body, rvs);
        print_stmt(&p, &header)
    };
    // Last direct statement of a loop with 2 return vars; not-last and nested yields are bare.
    assert_eq!(
        loop_with(seq(vec![yld(vec![v(a)]), yld(vec![v(x), v(y)])]), vec![rx, ry]),
        "for i, (x, y) in pl.range(0, 4, 1, init_values=(a, b)):\n    pl.yield_(a)\n    rx, ry = pl.yield_(x, y)"
    );
    assert_eq!(
        loop_with(seq(vec![eval(v(a)), seq(vec![yld(vec![v(x), v(y)])])]), vec![rx, ry]),
        "for i, (x, y) in pl.range(0, 4, 1, init_values=(a, b)):\n    a\n    pl.yield_(x, y)"
    );
    // Owner without return vars, and a yield without values: bare.
    assert_eq!(loop_with(yld(vec![v(a)]), vec![]), "for i in pl.range(0, 4, 1):\n    pl.yield_(a)");
    assert_eq!(
        loop_with(seq(vec![yld(vec![])]), vec![rx, ry]),
        "for i, (x, y) in pl.range(0, 4, 1, init_values=(a, b)):\n    pl.yield_()"
    );
    // Inside `with`: bare, even as the last statement of a loop body... of the scope.
    let scoped = Stmt::Scope { kind: ScopeKind::InCore, body: Box::new(yld(vec![v(a)])), span: S };
    assert_eq!(
        loop_with(scoped, vec![rx, ry]),
        "for i, (x, y) in pl.range(0, 4, 1, init_values=(a, b)):\n    with pl.incore():\n        pl.yield_(a)"
    );
    // One return var: annotated with the return var's type.
    let rb = plain(&mut p, "rb", boolt());
    let if_one = Stmt::If {
        cond: Box::new(v(a)),
        then_body: Box::new(yld(vec![v(a)])),
        else_body: Some(Box::new(seq(vec![eval(v(b)), yld(vec![v(b)])]))),
        return_vars: vec![rb],
        span: S,
    };
    assert_eq!(
        print_stmt(&p, &if_one),
        "if a:\n    rb: pl.Scalar[pl.BOOL] = pl.yield_(a)\nelse:\n    b\n    rb: pl.Scalar[pl.BOOL] = pl.yield_(b)"
    );
    // A standalone yield statement prints bare.
    assert_eq!(print_stmt(&p, &yld(vec![v(a), v(r)])), "pl.yield_(a, r)");
}

#[test]
fn loops_and_branches() {
    let mut p = VarTable::new();
    let n = plain(&mut p, "n", i64t());
    let i = plain(&mut p, "i", i64t());
    let c = plain(&mut p, "c", boolt());
    let a = plain(&mut p, "a", i64t());
    let ai = iter_arg(&mut p, "a_iter", i64t(), v(a));
    let a_out = plain(&mut p, "a_out", i64t());

    // Parallel loop with one iter arg (trailing commas) and non-trivial bounds.
    let par = Stmt::For {
        loop_var: i,
        start: Box::new(int(1)),
        stop: Box::new(bin(BinOp::Mul, v(n), int(2))),
        step: Box::new(int(2)),
        iter_args: vec![ai],
        body: Box::new(yld(vec![v(ai)])),
        return_vars: vec![a_out],
        kind: ForKind::Parallel,
        span: S,
    };
    assert_eq!(
        print_stmt(&p, &par),
        "for i, (a_iter,) in pl.parallel(1, n * 2, 2, init_values=(a,)):\n    a_out: pl.Scalar[pl.INT64] = pl.yield_(a_iter)"
    );

    // Natural while, break / continue, if without else, else holding an if (no elif).
    let inner_if = Stmt::If {
        cond: Box::new(v(c)),
        then_body: Box::new(Stmt::Break { span: S }),
        else_body: None,
        return_vars: vec![],
        span: S,
    };
    let outer_if = Stmt::If {
        cond: Box::new(bin(BinOp::Gt, v(n), int(0))),
        then_body: Box::new(Stmt::Continue { span: S }),
        else_body: Some(Box::new(inner_if)),
        return_vars: vec![],
        span: S,
    };
    let w = Stmt::While {
        cond: Box::new(bin(BinOp::Lt, v(a), v(n))),
        iter_args: vec![],
        body: Box::new(Stmt::Ops { stmts: vec![assign(a, bin(BinOp::Add, v(a), int(1)))], span: S }),
        return_vars: vec![],
        span: S,
    };
    let body = seq(vec![w, outer_if]);
    let want = "\
@pl.function
def f():
    while a < n:
        a: pl.Scalar[pl.INT64] = a + 1
    if n > 0:
        continue
    else:
        if c:
            break";
    assert_eq!(body_text(&p, body), want);

    // A one-iter-arg while loop: `(a,)` / `(x,)`.
    let k = iter_arg(&mut p, "k", i64t(), int(0));
    let k_out = plain(&mut p, "k_out", i64t());
    let ws = Stmt::While {
        cond: Box::new(bin(BinOp::Lt, v(k), v(n))),
        iter_args: vec![k],
        body: Box::new(yld(vec![bin(BinOp::Add, v(k), int(1))])),
        return_vars: vec![k_out],
        span: S,
    };
    assert_eq!(
        print_stmt(&p, &ws),
        "for (k,) in pl.while_(init_values=(0,)):\n    pl.cond(k < n)\n    k_out: pl.Scalar[pl.INT64] = pl.yield_(k + 1)"
    );
}

#[test]
fn sequences_are_transparent_and_ops_print_like_seq() {
    let mut p = VarTable::new();
    let a = plain(&mut p, "a", i64t());
    let b = plain(&mut p, "b", i64t());
    let body = seq(vec![
        Stmt::Ops { stmts: vec![assign(a, int(1)), eval(v(a))], span: S },
        seq(vec![seq(vec![]), assign(b, v(a))]),
        ret(vec![v(b)]),
    ]);
    assert_eq!(
        body_text(&p, body),
        "@pl.function\ndef f():\n    a: pl.Scalar[pl.INT64] = 1\n    a\n    b: pl.Scalar[pl.INT64] = a\n    return b"
    );
}

// ---------------------------------------------------------------------------------------------
// Expressions

struct Scalars {
    p: VarTable,
    x: VarId,
    y: VarId,
    z: VarId,
    pb: VarId,
    qb: VarId,
}

fn scalars() -> Scalars {
    let mut p = VarTable::new();
    let x = plain(&mut p, "x", i64t());
    let y = plain(&mut p, "y", i64t());
    let z = plain(&mut p, "z", i64t());
    let pb = plain(&mut p, "p", boolt());
    let qb = plain(&mut p, "q", boolt());
    Scalars { p, x, y, z, pb, qb }
}

#[test]
fn precedence_cases_of_the_spec() {
    let Scalars { p, x, y, z, pb, qb } = scalars();
    use BinOp::*;
    let cases: Vec<(Expr, &str)> = vec![
        (bin(Sub, v(x), bin(Sub, v(y), v(z))), "x - (y - z)"),
        (bin(Sub, bin(Sub, v(x), v(y)), v(z)), "x - y - z"),
        (bin(Pow, bin(Pow, v(x), v(y)), v(z)), "(x ** y) ** z"),
        (bin(Pow, v(x), bin(Pow, v(y), v(z))), "x ** y ** z"),
        (un(UnOp::Neg, bin(Add, v(x), v(y))), "-(x + y)"),
        (un(UnOp::Not, bin(And, v(pb), v(qb))), "not (p and q)"),
        (un(UnOp::Neg, bin(Pow, v(x), v(y))), "-x ** y"),
        (bin(Pow, un(UnOp::Neg, v(x)), v(y)), "(-x) ** y"),
        (bin(Eq, bin(Lt, v(x), v(y)), v(pb)), "x < y == p"),
        (bin(Eq, v(pb), bin(Lt, v(x), v(y))), "p == (x < y)"),
        (bin(And, v(pb), v(qb)), "p and q"),
        (bin(Or, v(pb), v(qb)), "p or q"),
        (bin(Xor, v(pb), v(qb)), "p xor q"),
        (bin(Or, bin(Xor, v(pb), bin(And, v(pb), v(qb))), v(qb)), "p xor p and q or q"),
        (bin(And, bin(Or, v(pb), v(qb)), v(qb)), "(p or q) and q"),
        (un(UnOp::Not, v(pb)), "not p"),
        (un(UnOp::Not, un(UnOp::Not, v(pb))), "not not p"),
        (bin(And, un(UnOp::Not, v(pb)), v(qb)), "not p and q"),
        (bin(BitAnd, v(x), v(y)), "x & y"),
        (bin(BitOr, bin(BitXor, v(x), v(y)), bin(BitAnd, v(y), v(z))), "x ^ y | y & z"),
        (bin(BitAnd, bin(BitOr, v(x), v(y)), v(z)), "(x | y) & z"),
        (bin(Shl, v(x), bin(Add, v(y), int(1))), "x << y + 1"),
        (bin(Add, bin(Shr, v(x), v(y)), v(z)), "(x >> y) + z"),
        (un(UnOp::BitNot, v(x)), "~x"),
        (un(UnOp::BitNot, bin(Mul, v(x), v(y))), "~(x * y)"),
        (un(UnOp::Neg, un(UnOp::Neg, v(x))), "--x"),
        (un(UnOp::Neg, int(1)), "-1"),
        (un(UnOp::Abs, bin(Sub, v(x), v(y))), "abs(x - y)"),
        (bin(Min, v(x), bin(Add, v(y), v(z))), "min(x, y + z)"),
        (bin(Mul, bin(Max, v(x), v(y)), v(z)), "max(x, y) * z"),
        (un(UnOp::Neg, bin(Min, v(x), v(y))), "-min(x, y)"),
        (bin(Mul, v(x), bin(Add, v(y), v(z))), "x * (y + z)"),
        (bin(Mul, bin(Add, v(x), v(y)), v(z)), "(x + y) * z"),
        (bin(Add, v(x), bin(Mul, v(y), v(z))), "x + y * z"),
        (bin(FloorDiv, v(x), bin(FloorMod, v(y), v(z))), "x // (y % z)"),
        (bin(FloatDiv, bin(Mul, v(x), v(y)), v(z)), "x * y / z"),
        (bin(Ne, v(x), v(y)), "x != y"),
        (bin(Le, v(x), v(y)), "x <= y"),
        (bin(Ge, v(x), v(y)), "x >= y"),
        // Left chains with parenthesized links (printed without recursion).
        (bin(Mul, bin(Sub, bin(Add, v(x), v(y)), v(z)), v(x)), "(x + y - z) * x"),
        (bin(Pow, bin(Pow, bin(Pow, v(x), v(y)), v(z)), v(x)), "((x ** y) ** z) ** x"),
        (bin(Mul, bin(Add, bin(Mul, v(x), v(y)), v(z)), v(x)), "(x * y + z) * x"),
        (bin(Sub, bin(Pow, un(UnOp::Neg, v(x)), v(y)), v(z)), "(-x) ** y - z"),
        (bin(Sub, bin(Add, un(UnOp::Not, v(pb)), v(y)), v(z)), "(not p) + y - z"),
    ];
    for (e, want) in cases {
        assert_eq!(print_expr(&p, &e), want);
    }
}

#[test]
fn cast_uses_the_node_dtype() {
    let Scalars { p, x, y, .. } = scalars();
    let cast = Expr::new(ExprKind::Unary(UnOp::Cast, Box::new(v(x))), Type::Scalar(DataType::Int32), S);
    assert_eq!(print_expr(&p, &bin(BinOp::Mul, cast, v(y))), "pl.cast(x, pl.INT32) * y");
    let cast_sum =
        Expr::new(ExprKind::Unary(UnOp::Cast, Box::new(bin(BinOp::Add, v(x), v(y)))), Type::Scalar(DataType::Fp16), S);
    assert_eq!(print_expr(&p, &un(UnOp::Neg, cast_sum)), "-pl.cast(x + y, pl.FP16)");
}

#[test]
fn constants_and_lists() {
    let Scalars { p, x, .. } = scalars();
    let cases: Vec<(Expr, &str)> = vec![
        (int(7), "7"),
        (int(-1), "-1"),
        (Expr::int(7, DataType::Int32, S), "pl.const(7, pl.INT32)"),
        (Expr::int(-3, DataType::UInt8, S), "pl.const(-3, pl.UINT8)"),
        (Expr::int(7, DataType::Fp32, S), "pl.const(7, pl.FP32)"),
        (fp(2.0), "2.0"),
        (fp(-0.5), "-0.5"),
        (fp(123456.7), "123457"),
        (Expr::float(1.5, DataType::Bf16, S), "pl.const(1.5, pl.BF16)"),
        (Expr::float(0.1, DataType::Fp16, S), "pl.const(0.1, pl.FP16)"),
        (Expr::float(3.0, DataType::Int32, S), "pl.const(3.0, pl.INT32)"),
        (Expr::bool(true, S), "True"),
        (Expr::bool(false, S), "False"),
        (Expr::new(ExprKind::MakeTuple(vec![]), Type::Tuple(vec![]), S), "[]"),
        (Expr::new(ExprKind::MakeTuple(vec![v(x)]), Type::Unknown, S), "[x]"),
        (Expr::new(ExprKind::MakeTuple(vec![v(x), int(1), fp(0.25)]), Type::Unknown, S), "[x, 1, 0.25]"),
    ];
    for (e, want) in cases {
        assert_eq!(print_expr(&p, &e), want);
    }
    let nested = Expr::new(ExprKind::TupleGetItem(Box::new(v(x)), 1), Type::Unknown, S);
    let nested = Expr::new(ExprKind::TupleGetItem(Box::new(nested), 0), Type::Unknown, S);
    assert_eq!(print_expr(&p, &nested), "x[1][0]");
    // Constants bind like atoms.
    assert_eq!(print_expr(&p, &bin(BinOp::Pow, v(x), int(-1))), "x ** -1");
}

#[test]
fn calls_and_kwargs() {
    let Scalars { p, x, .. } = scalars();
    let unknown = Type::Unknown;
    let alloc = |space: i64| call("block.alloc", vec![int(space), int(0), int(16384), int(3)], vec![], Type::MemRef);
    assert_eq!(print_expr(&p, &alloc(1)), "pl.block.alloc(pl.MemorySpace.Vec, 0, 16384, 3)");
    assert_eq!(print_expr(&p, &alloc(0)), "pl.block.alloc(pl.MemorySpace.DDR, 0, 16384, 3)");
    assert_eq!(print_expr(&p, &alloc(9)), "pl.block.alloc(pl.MemorySpace.Unknown, 0, 16384, 3)");
    assert_eq!(print_expr(&p, &alloc(-1)), "pl.block.alloc(pl.MemorySpace.Unknown, 0, 16384, 3)");

    let sync = call(
        "system.sync_src",
        vec![],
        vec![("set_pipe", KwValue::Int(1)), ("wait_pipe", KwValue::Int(4)), ("event_id", KwValue::Int(0))],
        unknown.clone(),
    );
    assert_eq!(
        print_expr(&p, &sync),
        "pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)"
    );
    let bad_pipe = call(
        "system.sync_dst",
        vec![],
        vec![("set_pipe", KwValue::Int(8)), ("wait_pipe", KwValue::Int(7))],
        unknown.clone(),
    );
    assert_eq!(print_expr(&p, &bad_pipe), "pl.system.sync_dst(set_pipe=8, wait_pipe=pl.PipeType.ALL)");
    assert_eq!(print_expr(&p, &call("system.bar_v", vec![], vec![], unknown.clone())), "pl.system.bar_v()");

    let every_kind = call(
        "block.load",
        vec![v(x), Expr::new(ExprKind::MakeTuple(vec![int(0), int(0)]), Type::Unknown, S)],
        vec![
            ("target_memory", KwValue::Space(MemorySpace::Mat)),
            ("transpose", KwValue::Bool(false)),
            ("keep", KwValue::Bool(true)),
            ("mode", KwValue::Str("round".into())),
            ("alpha", KwValue::Float(0.1)),
            ("beta", KwValue::Float(2.0)),
            ("dtype", KwValue::DType(DataType::Bf16)),
            ("axis", KwValue::Int(-1)),
        ],
        unknown.clone(),
    );
    assert_eq!(
        print_expr(&p, &every_kind),
        "pl.block.load(x, [0, 0], target_memory=pl.MemorySpace.Mat, transpose=False, keep=True, mode='round', alpha=0.1, beta=2.0, dtype=pl.BF16, axis=-1)"
    );
    // `_scalar` is dropped from the printed name; calls are never parenthesized as arguments.
    let add = call("tensor.add_scalar", vec![v(x), bin(BinOp::Add, v(x), int(1))], vec![], unknown.clone());
    assert_eq!(print_expr(&p, &add), "pl.tensor.add(x, x + 1)");
    // A function call outside a program keeps its kwargs.
    assert_eq!(print_expr(&p, &fcall("g", vec![v(x)], vec![("k", KwValue::Int(2))], unknown)), "g(x, k=2)");
}

#[test]
fn deep_left_chain_prints_without_recursion() {
    // 200,000 terms; building and dropping the tree recurses, so use a large stack for that.
    let handle = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(|| {
            let Scalars { p, x, .. } = scalars();
            let mut e = v(x);
            for k in 1..200_000 {
                let op = if k % 2 == 0 { BinOp::Add } else { BinOp::Sub };
                e = bin(op, e, v(x));
            }
            let e = bin(BinOp::Mul, e, int(2));
            let text = print_expr(&p, &e);
            assert!(text.starts_with("(x - x + x - x"));
            assert!(text.ends_with(" - x) * 2"));
            assert_eq!(text.len(), 1 + 1 + 199_999 * 4 + 1 + 4);
        })
        .expect("spawn");
    handle.join().expect("printing thread");
}

// ---------------------------------------------------------------------------------------------
// Types

#[test]
fn types_with_memrefs_and_views() {
    let mut p = VarTable::new();
    let n = plain(&mut p, "n", i64t());
    let mem = |space, addr, size, id| VarKind::MemRef(Box::new(MemRefInfo { space, addr: int(addr), size, id }));
    let ddr = p.new_var("mem_ddr_0", Type::MemRef, mem(MemorySpace::Ddr, -1, 256, 0), S);
    let vec3 = p.new_var("mem_vec_3", Type::MemRef, mem(MemorySpace::Vec, 16384, 16384, 3), S);
    let not_a_memref = plain(&mut p, "m", Type::MemRef);

    let tensor_t = Type::tensor(TensorType {
        dtype: DataType::Fp32,
        shape: vec![int(64)],
        memref: Some(ddr),
        view: Some(TensorView { stride: vec![], layout: TensorLayout::Nd }),
    });
    assert_eq!(
        print_type(&p, &tensor_t),
        "pl.Tensor[[64], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, -1, 256, 0), pl.TensorView(stride=[], layout=pl.TensorLayout.ND)]"
    );
    let nz = Type::tensor(TensorType {
        dtype: DataType::Bf16,
        shape: vec![Expr::int(64, DataType::Int32, S), int(-1)],
        memref: None,
        view: Some(TensorView { stride: vec![int(1), v(n)], layout: TensorLayout::Nz }),
    });
    assert_eq!(
        print_type(&p, &nz),
        "pl.Tensor[[64, -1], pl.BF16, pl.TensorView(stride=[1, n], layout=pl.TensorLayout.NZ)]"
    );

    let tile =
        |memref, view| Type::tile(TileType { dtype: DataType::Fp16, shape: vec![int(64), int(64)], memref, view });
    assert_eq!(
        print_type(&p, &tile(Some(vec3), Some(TileView::default()))),
        "pl.Tile[[64, 64], pl.FP16, pl.MemRef(pl.MemorySpace.Vec, 16384, 16384, 3), pl.TileView(valid_shape=[], stride=[], blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box, fractal=512, pad=pl.TilePad.null)]"
    );
    let view = TileView {
        valid_shape: vec![v(n), int(64)],
        stride: vec![int(64), int(1)],
        start_offset: Some(Box::new(bin(BinOp::Mul, v(n), int(64)))),
        blayout: TileLayout::ColMajor,
        slayout: TileLayout::RowMajor,
        fractal: 1024,
        pad: TilePad::Zero,
    };
    assert_eq!(
        print_type(&p, &tile(None, Some(view))),
        "pl.Tile[[64, 64], pl.FP16, pl.TileView(valid_shape=[n, 64], stride=[64, 1], start_offset=n * 64, blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major, fractal=1024, pad=pl.TilePad.zero)]"
    );
    assert_eq!(
        print_type(&p, &tile(Some(vec3), None)),
        "pl.Tile[[64, 64], pl.FP16, pl.MemRef(pl.MemorySpace.Vec, 16384, 16384, 3)]"
    );
    assert_eq!(print_type(&p, &tile(Some(not_a_memref), None)), "pl.Tile[[64, 64], pl.FP16, m]");

    let symbolic = Type::tensor(TensorType {
        dtype: DataType::Int8,
        shape: vec![v(n), bin(BinOp::Mul, v(n), int(2)), Expr::int(4, DataType::Fp32, S)],
        memref: None,
        view: None,
    });
    assert_eq!(print_type(&p, &symbolic), "pl.Tensor[[n, n * 2, 4], pl.INT8]");
    assert_eq!(print_type(&p, &tensor(&[], DataType::Fp32)), "pl.Tensor[[], pl.FP32]");
    assert_eq!(print_type(&p, &Type::Scalar(DataType::UInt64)), "pl.Scalar[pl.UINT64]");
    assert_eq!(print_type(&p, &Type::Tuple(vec![])), "pl.Tuple([])");
    assert_eq!(
        print_type(&p, &Type::Tuple(vec![Type::MemRef, Type::Unknown, boolt()])),
        "pl.Tuple([pl.MemRefType, pl.UnknownType, pl.Scalar[pl.BOOL]])"
    );

    // In a statement the annotation is the variable's type, memref included.
    let t = plain(&mut p, "t", tile(Some(vec3), None));
    let load = call("block.load", vec![v(n)], vec![], Type::Unknown);
    assert_eq!(
        print_stmt(&p, &assign(t, load)),
        "t: pl.Tile[[64, 64], pl.FP16, pl.MemRef(pl.MemorySpace.Vec, 16384, 16384, 3)] = pl.block.load(n)"
    );
}
