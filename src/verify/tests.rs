//! Verifier tests on hand-built IR: one or more per error code, the reference's exact messages,
//! diagnostic order and report text.

use super::*;
use crate::ir::*;

/// A tiny IR builder: one program, variables with default spans (one table, which every
/// function gets a copy of).
struct B {
    p: Program,
    vars: VarTable,
}

impl B {
    fn new() -> B {
        B { p: Program::new("test_program"), vars: VarTable::new() }
    }
    fn var(&mut self, name: &str, ty: Type) -> VarId {
        self.vars.new_var(name, ty, VarKind::Plain, Span::NONE)
    }
    fn iter_arg(&mut self, name: &str, ty: Type, init: Expr) -> VarId {
        self.vars.new_var(name, ty, VarKind::IterArg { init: Box::new(init) }, Span::NONE)
    }
    fn func(&mut self, name: &str, body: Vec<Stmt>) {
        let f = Function {
            name: name.into(),
            kind: FunctionType::Opaque,
            params: Vec::new(),
            return_types: Vec::new(),
            body: Stmt::block(body, Span::NONE),
            span: Span::NONE,
            vars: self.vars.clone(),
            schedule: None,
        };
        self.p.add_function(f).expect("unique function name");
    }
    fn run(&self) -> Vec<VerifyDiagnostic> {
        verify(&self.p, Property::DEFAULT)
    }
}

fn i64t() -> Type {
    Type::Scalar(DataType::Int64)
}
fn f32t() -> Type {
    Type::Scalar(DataType::Fp32)
}
fn tensor(dtype: DataType, dims: &[i64]) -> Type {
    Type::tensor(TensorType { dtype, shape: dims.iter().map(|&d| int(d)).collect(), memref: None, view: None })
}
fn int(v: i64) -> Expr {
    Expr::int(v, DataType::Int64, Span::NONE)
}
fn float(v: f64) -> Expr {
    Expr::float(v, DataType::Fp32, Span::NONE)
}
fn v(id: VarId) -> Expr {
    Expr::var(id, Span::NONE)
}
fn call(args: Vec<Expr>) -> Expr {
    let c = Call { callee: Callee::Function("g".into()), args, kwargs: Vec::new() };
    Expr::new(ExprKind::Call(Box::new(c)), i64t(), Span::NONE)
}
fn assign(var: VarId, value: Expr) -> Stmt {
    Stmt::Assign { var, value, span: Span::NONE }
}
fn yield_(values: Vec<Expr>) -> Stmt {
    Stmt::Yield { values, span: Span::NONE }
}
fn for_(loop_var: VarId, range: [Expr; 3], iter_args: Vec<VarId>, body: Vec<Stmt>, return_vars: Vec<VarId>) -> Stmt {
    let [start, stop, step] = range;
    Stmt::For {
        loop_var,
        start: Box::new(start),
        stop: Box::new(stop),
        step: Box::new(step),
        iter_args,
        body: Box::new(Stmt::block(body, Span::NONE)),
        return_vars,
        kind: ForKind::Sequential,
        span: Span::NONE,
    }
}
fn if_(cond: Expr, then: Vec<Stmt>, else_: Option<Vec<Stmt>>, return_vars: Vec<VarId>) -> Stmt {
    Stmt::If {
        cond: Box::new(cond),
        then_body: Box::new(Stmt::block(then, Span::NONE)),
        else_body: else_.map(|e| Box::new(Stmt::block(e, Span::NONE))),
        return_vars,
        span: Span::NONE,
    }
}
fn while_(cond: Expr, iter_args: Vec<VarId>, body: Vec<Stmt>, return_vars: Vec<VarId>) -> Stmt {
    Stmt::While {
        cond: Box::new(cond),
        iter_args,
        body: Box::new(Stmt::block(body, Span::NONE)),
        return_vars,
        span: Span::NONE,
    }
}
fn range() -> [Expr; 3] {
    [int(0), int(10), int(1)]
}

/// (code, message) pairs, for compact assertions.
fn summary(d: &[VerifyDiagnostic]) -> Vec<(u32, &str)> {
    d.iter().map(|d| (d.error_code, d.message.as_str())).collect()
}

fn unknown_location(_: Span) -> String {
    ":-1:-1".to_string()
}

#[test]
fn valid_program_has_no_diagnostics_and_empty_report() {
    let mut b = B::new();
    let a = b.var("a", i64t());
    let i = b.var("i", i64t());
    let acc = b.iter_arg("acc", i64t(), v(a));
    let r = b.var("r", i64t());
    b.func("main", vec![for_(i, range(), vec![acc], vec![yield_(vec![v(acc)])], vec![r])]);
    let d = b.run();
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(report(&d, &unknown_location), "");
    assert_eq!(
        full_report(&d, &unknown_location),
        "IR Verification Report\n======================\nTotal diagnostics: 0 (0 errors, 0 warnings)\n\nStatus: PASSED\n"
    );
}

// ---- SSAVerify ------------------------------------------------------------------------------

#[test]
fn code_1_same_var_assigned_twice_and_thrice() {
    let mut b = B::new();
    let x = b.var("x", i64t());
    b.func("f", vec![assign(x, int(1)), assign(x, int(2)), assign(x, int(3))]);
    let d = b.run();
    assert_eq!(
        summary(&d),
        vec![
            (1, "Variable 'x' is assigned more than once (2 times), violating SSA form"),
            (1, "Variable 'x' is assigned more than once (3 times), violating SSA form"),
        ]
    );
    assert!(d.iter().all(|d| d.rule == Property::SsaForm));
}

#[test]
fn code_1_counts_return_vars_but_not_names_or_loop_vars() {
    let mut b = B::new();
    // Two different variables named `x`: not a violation.
    let x1 = b.var("x", i64t());
    let x2 = b.var("x", i64t());
    // `i` is assigned and also the loop var: loop vars are not counted.
    let i = b.var("i", i64t());
    let acc = b.iter_arg("acc", i64t(), v(x1));
    // `r` is a for return var and assigned again afterwards.
    let r = b.var("r", i64t());
    b.func(
        "f",
        vec![
            assign(x1, int(1)),
            assign(x2, int(2)),
            assign(i, int(0)),
            for_(i, range(), vec![acc], vec![yield_(vec![v(acc)])], vec![r]),
            assign(r, int(5)),
        ],
    );
    assert_eq!(summary(&b.run()), vec![(1, "Variable 'r' is assigned more than once (2 times), violating SSA form")]);
}

#[test]
fn code_1_span_is_the_variables() {
    let mut b = B::new();
    let x = b.vars.new_var("x", i64t(), VarKind::Plain, Span::new(10, 11));
    b.func("f", vec![assign(x, int(1)), assign(x, int(2))]);
    let d = b.run();
    assert!(d[0].span.same_range(Span::new(10, 11)));
}

#[test]
fn code_3_for_and_while_without_trailing_yield() {
    let mut b = B::new();
    let a = b.var("a", i64t());
    let i = b.var("i", i64t());
    let acc = b.iter_arg("acc", i64t(), v(a));
    let r = b.var("r", i64t());
    let acc2 = b.iter_arg("acc2", i64t(), v(a));
    let r2 = b.var("r2", i64t());
    let t = b.var("t", i64t());
    b.func(
        "f",
        vec![
            // The yield is not last.
            for_(i, range(), vec![acc], vec![yield_(vec![v(acc)]), assign(t, int(0))], vec![r]),
            while_(Expr::bool(true, Span::NONE), vec![acc2], vec![], vec![r2]),
        ],
    );
    assert_eq!(
        summary(&b.run()),
        vec![
            (3, "ForStmt with iter_args must have YieldStmt as last statement in body"),
            (3, "WhileStmt with iter_args must have YieldStmt as last statement in body"),
        ]
    );
}

#[test]
fn code_3_yield_at_end_of_nested_trailing_seqs_is_accepted() {
    let mut b = B::new();
    let a = b.var("a", i64t());
    let i = b.var("i", i64t());
    let acc = b.iter_arg("acc", i64t(), v(a));
    let r = b.var("r", i64t());
    let t = b.var("t", i64t());
    let inner = Stmt::Seq { stmts: vec![assign(t, int(0)), yield_(vec![v(acc)])], span: Span::NONE };
    b.func("f", vec![for_(i, range(), vec![acc], vec![assign(t, int(1)), inner], vec![r])]);
    // `t` is assigned twice, but no missing-yield error.
    assert_eq!(summary(&b.run()), vec![(1, "Variable 't' is assigned more than once (2 times), violating SSA form")]);
}

#[test]
fn code_3_if_without_else() {
    let mut b = B::new();
    let a = b.var("a", i64t());
    let r = b.var("result", i64t());
    b.func("f", vec![if_(v(a), vec![yield_(vec![v(a)])], None, vec![r])]);
    assert_eq!(summary(&b.run()), vec![(3, "IfStmt with return_vars must have else branch")]);
}

#[test]
fn code_3_if_branches_without_yield() {
    let mut b = B::new();
    let a = b.var("a", i64t());
    let r = b.var("result", i64t());
    let t = b.var("t", i64t());
    let u = b.var("u", i64t());
    b.func(
        "f",
        vec![
            if_(v(a), vec![assign(t, int(1))], Some(vec![yield_(vec![v(a)])]), vec![r]),
            if_(v(a), vec![], Some(vec![assign(u, int(1))]), vec![r]),
        ],
    );
    assert_eq!(
        summary(&b.run()),
        vec![
            (3, "IfStmt then branch must end with YieldStmt when return_vars exist"),
            (1, "Variable 'result' is assigned more than once (2 times), violating SSA form"),
            (3, "IfStmt then branch must end with YieldStmt when return_vars exist"),
            (3, "IfStmt else branch must end with YieldStmt when return_vars exist"),
        ]
    );
}

#[test]
fn ssa_multiple_assignment_is_reported_before_errors_of_the_body() {
    // Return vars are counted before the body is visited; yield checks come after it.
    let mut b = B::new();
    let a = b.var("a", i64t());
    let x = b.var("x", i64t());
    let i = b.var("i", i64t());
    let acc = b.iter_arg("acc", i64t(), v(a));
    b.func("f", vec![assign(x, int(0)), for_(i, range(), vec![acc], vec![assign(x, int(1))], vec![x])]);
    assert_eq!(
        summary(&b.run()),
        vec![
            (1, "Variable 'x' is assigned more than once (2 times), violating SSA form"),
            (1, "Variable 'x' is assigned more than once (3 times), violating SSA form"),
            (3, "ForStmt with iter_args must have YieldStmt as last statement in body"),
        ]
    );
}

// ---- TypeCheck ------------------------------------------------------------------------------

#[test]
fn code_101_type_kind_mismatch_stops_that_pair() {
    let mut b = B::new();
    let a = b.var("a", i64t());
    let t = b.var("t", tensor(DataType::Fp32, &[4]));
    let i = b.var("i", i64t());
    let acc = b.iter_arg("acc", i64t(), v(a));
    let r = b.var("r", i64t());
    b.func("f", vec![for_(i, range(), vec![acc], vec![yield_(vec![v(t)])], vec![r])]);
    assert_eq!(
        summary(&b.run()),
        vec![
            (101, "Type kind mismatch in ForStmt: iter_arg[0] initValue type 'ScalarType' != yield value[0] type 'TensorType'"),
            (101, "Type kind mismatch in ForStmt: yield value[0] type 'TensorType' != return_var[0] type 'ScalarType'"),
        ]
    );
}

#[test]
fn code_102_corpus_for_dtype_mismatch_and_its_report() {
    // run-verifier/0025: init INT64, yield 1.0 (FP32), return var INT64.
    let mut b = B::new();
    let a = b.var("a", i64t());
    let i = b.var("i", i64t());
    let sum = b.iter_arg("sum", i64t(), v(a));
    let result = b.var("result", i64t());
    b.func("test_type_mismatch", vec![for_(i, range(), vec![sum], vec![yield_(vec![float(1.0)])], vec![result])]);
    let d = b.run();
    assert_eq!(
        summary(&d),
        vec![
            (102, "Dtype mismatch in ForStmt: iter_arg[0] initValue dtype != yield value[0] dtype"),
            (102, "Dtype mismatch in ForStmt: yield value[0] dtype != return_var[0] dtype"),
        ]
    );
    assert_eq!(
        report(&d, &unknown_location),
        "IR Verification Report\n======================\nTotal diagnostics: 2 (2 errors, 0 warnings)\n\n\
         [1] ERROR - TypeCheck\n  Message: Dtype mismatch in ForStmt: iter_arg[0] initValue dtype != yield value[0] dtype\n  \
         Location: :-1:-1\n  Error Code: 102\n\n\
         [2] ERROR - TypeCheck\n  Message: Dtype mismatch in ForStmt: yield value[0] dtype != return_var[0] dtype\n  \
         Location: :-1:-1\n  Error Code: 102\n\nStatus: FAILED (2 error(s) found)\n"
    );
}

#[test]
fn code_102_if_yield_dtypes_differ_but_return_var_is_not_compared() {
    // run-verifier/0026: then yields 1 (INT64), else 2.0 (FP32), return var INT64.
    let mut b = B::new();
    let a = b.var("a", i64t());
    let result = b.var("result", f32t());
    b.func("f", vec![if_(v(a), vec![yield_(vec![int(1)])], Some(vec![yield_(vec![float(2.0)])]), vec![result])]);
    assert_eq!(
        summary(&b.run()),
        vec![(102, "Dtype mismatch in IfStmt: then yield value[0] dtype != else yield value[0] dtype")]
    );
}

#[test]
fn code_103_rank_mismatch_and_code_104_constant_dims() {
    let mut b = B::new();
    let c = b.var("c", i64t());
    let t1 = b.var("t1", tensor(DataType::Fp32, &[64, 64]));
    let t2 = b.var("t2", tensor(DataType::Fp16, &[64, 32]));
    let t3 = b.var("t3", tensor(DataType::Fp32, &[64]));
    let r = b.var("r", tensor(DataType::Fp32, &[64, 64]));
    let r2 = b.var("r2", tensor(DataType::Fp32, &[64, 64]));
    b.func(
        "f",
        vec![
            if_(v(c), vec![yield_(vec![v(t1)])], Some(vec![yield_(vec![v(t2)])]), vec![r]),
            if_(v(c), vec![yield_(vec![v(t1)])], Some(vec![yield_(vec![v(t3)])]), vec![r2]),
        ],
    );
    assert_eq!(
        summary(&b.run()),
        vec![
            (102, "Dtype mismatch in IfStmt: then yield value[0] dtype != else yield value[0] dtype"),
            (
                104,
                "Shape dimension mismatch in IfStmt: then yield value[0] dimension[1] = 64, but else yield value[0] dimension[1] = 32"
            ),
            (
                103,
                "Shape dimension count mismatch in IfStmt: then yield value[0] has 2 dimensions, but else yield value[0] has 1 dimensions"
            ),
        ]
    );
}

#[test]
fn code_104_symbolic_dims_are_not_compared() {
    let mut b = B::new();
    let c = b.var("c", i64t());
    let n = b.var("n", i64t());
    let sym = Type::tensor(TensorType { dtype: DataType::Fp32, shape: vec![v(n)], memref: None, view: None });
    let t1 = b.var("t1", sym);
    let t2 = b.var("t2", tensor(DataType::Fp32, &[8]));
    let r = b.var("r", tensor(DataType::Fp32, &[8]));
    b.func("f", vec![if_(v(c), vec![yield_(vec![v(t1)])], Some(vec![yield_(vec![v(t2)])]), vec![r])]);
    assert!(b.run().is_empty());
}

#[test]
fn code_105_size_mismatches() {
    let mut b = B::new();
    let a = b.var("a", i64t());
    let i = b.var("i", i64t());
    let acc = b.iter_arg("acc", i64t(), v(a));
    let r = b.var("r", i64t());
    let acc2 = b.iter_arg("acc2", i64t(), v(a));
    let ri = b.var("ri", i64t());
    b.func(
        "f",
        vec![
            for_(i, range(), vec![acc], vec![yield_(vec![v(acc), v(a)])], vec![r]),
            while_(v(a), vec![acc2], vec![yield_(vec![v(acc2)])], vec![]),
            if_(v(a), vec![yield_(vec![v(a)])], Some(vec![yield_(vec![])]), vec![ri]),
        ],
    );
    assert_eq!(
        summary(&b.run()),
        vec![
            (105, "ForStmt size mismatch: iter_args=1, yield values=2, return_vars=1"),
            (105, "WhileStmt size mismatch: iter_args=1, yield values=1, return_vars=0"),
            (105, "IfStmt size mismatch: then yield=1, else yield=0, return_vars=1"),
        ]
    );
}

#[test]
fn code_106_conditions_must_be_scalar() {
    let mut b = B::new();
    let t = b.var("t", tensor(DataType::Fp32, &[4]));
    b.func(
        "f",
        vec![
            if_(v(t), vec![], None, vec![]),
            while_(v(t), vec![], vec![], vec![]),
            // Any scalar dtype is accepted.
            if_(float(1.0), vec![], None, vec![]),
        ],
    );
    assert_eq!(
        summary(&b.run()),
        vec![
            (106, "IfStmt condition must be ScalarType, but got TensorType"),
            (106, "WhileStmt condition must be ScalarType, but got TensorType"),
        ]
    );
}

#[test]
fn code_107_for_range_must_be_scalar() {
    // ir-verifier/0007.
    let mut b = B::new();
    let t = b.var("t", tensor(DataType::Int64, &[1]));
    let i = b.var("i", i64t());
    b.func("f", vec![for_(i, [v(t), v(t), v(t)], vec![], vec![], vec![])]);
    assert_eq!(
        summary(&b.run()),
        vec![
            (107, "ForStmt start must be ScalarType, but got TensorType"),
            (107, "ForStmt stop must be ScalarType, but got TensorType"),
            (107, "ForStmt step must be ScalarType, but got TensorType"),
        ]
    );
}

#[test]
fn type_check_runs_on_outer_statements_before_nested_ones() {
    let mut b = B::new();
    let t = b.var("t", tensor(DataType::Fp32, &[4]));
    let u = b.var("u", Type::tile(TileType { dtype: DataType::Fp32, shape: vec![], memref: None, view: None }));
    b.func("f", vec![if_(v(t), vec![if_(v(u), vec![], None, vec![])], None, vec![])]);
    assert_eq!(
        summary(&b.run()),
        vec![
            (106, "IfStmt condition must be ScalarType, but got TensorType"),
            (106, "IfStmt condition must be ScalarType, but got TileType"),
        ]
    );
}

// ---- NoNestedCall ---------------------------------------------------------------------------

#[test]
fn codes_201_to_206() {
    let mut b = B::new();
    let x = b.var("x", i64t());
    let y = b.var("y", i64t());
    let i = b.var("i", i64t());
    let bin = |l, r| Expr::new(ExprKind::Binary(BinOp::Add, Box::new(l), Box::new(r)), i64t(), Span::NONE);
    let neg = |e| Expr::new(ExprKind::Unary(UnOp::Cast, Box::new(e)), f32t(), Span::NONE);
    b.func(
        "f",
        vec![
            assign(x, call(vec![call(vec![]), int(1)])),
            if_(call(vec![]), vec![], None, vec![]),
            for_(i, [int(0), call(vec![]), int(1)], vec![], vec![], vec![]),
            assign(y, bin(call(vec![]), call(vec![]))),
            Stmt::Eval { expr: neg(call(vec![])), span: Span::NONE },
            while_(call(vec![]), vec![], vec![], vec![]),
        ],
    );
    let d = b.run();
    assert_eq!(
        summary(&d),
        vec![
            (201, "Call expression has nested call in arguments"),
            (202, "If condition cannot be a call expression"),
            (203, "For loop stop expression cannot be a call expression"),
            (204, "Binary expression left operand cannot be a call expression"),
            (204, "Binary expression right operand cannot be a call expression"),
            (205, "Unary expression operand cannot be a call expression"),
            (206, "While loop condition cannot be a call expression"),
        ]
    );
    assert!(d.iter().all(|d| d.rule == Property::NoNestedCalls));
}

#[test]
fn nested_calls_in_allowed_positions_are_not_reported_but_their_args_are_checked() {
    let mut b = B::new();
    let x = b.var("x", i64t());
    let tuple = Expr::new(ExprKind::MakeTuple(vec![call(vec![]), int(0)]), Type::Unknown, Span::NONE);
    b.func(
        "f",
        vec![
            // A call inside a tuple literal argument: allowed.
            assign(x, call(vec![tuple])),
            // A call as a return value is allowed, but its own argument is checked.
            Stmt::Return { values: vec![call(vec![call(vec![])])], span: Span::NONE },
        ],
    );
    assert_eq!(summary(&b.run()), vec![(201, "Call expression has nested call in arguments")]);
}

#[test]
fn iter_arg_init_is_visited_at_each_occurrence_like_the_reference() {
    let mut b = B::new();
    let i = b.var("i", i64t());
    let acc = b.iter_arg("acc", i64t(), call(vec![call(vec![])]));
    let r = b.var("r", i64t());
    let t = b.var("t", i64t());
    b.func("f", vec![for_(i, range(), vec![acc], vec![assign(t, v(acc)), yield_(vec![v(acc)])], vec![r])]);
    // Once in the iter-arg list, once per use (2 uses).
    assert_eq!(summary(&b.run()), vec![(201, "Call expression has nested call in arguments"); 3]);
}

#[test]
fn self_referencing_iter_arg_does_not_loop() {
    let mut b = B::new();
    let i = b.var("i", i64t());
    let acc = b.iter_arg("acc", i64t(), int(0));
    b.vars.var_mut(acc).kind = VarKind::IterArg { init: Box::new(v(acc)) };
    let r = b.var("r", i64t());
    b.func("f", vec![for_(i, range(), vec![acc], vec![yield_(vec![v(acc)])], vec![r])]);
    assert!(b.run().is_empty());
}

// ---- Rules, order, report -------------------------------------------------------------------

#[test]
fn rules_run_in_order_each_over_all_functions() {
    let mut b = B::new();
    let x = b.var("x", i64t());
    let t = b.var("t", tensor(DataType::Fp32, &[4]));
    let y = b.var("y", i64t());
    b.func("b_second", vec![assign(x, int(1)), assign(x, int(2))]);
    b.func("a_first", vec![if_(v(t), vec![], None, vec![]), assign(y, call(vec![call(vec![])]))]);
    let d = b.run();
    assert_eq!(
        d.iter().map(|d| d.error_code).collect::<Vec<_>>(),
        vec![1, 106, 201],
        "SSAVerify over all functions first, then TypeCheck, then NoNestedCall"
    );
    let only = verify(&b.p, &Property::default_without(&["SSAVerify"]));
    assert_eq!(only.iter().map(|d| d.error_code).collect::<Vec<_>>(), vec![106, 201]);
    // Functions in program (name) order within one rule.
    let mut c = B::new();
    let p = c.var("p", i64t());
    let q = c.var("q", i64t());
    c.func("zeta", vec![assign(p, int(1)), assign(p, int(2))]);
    c.func("alpha", vec![assign(q, int(1)), assign(q, int(2))]);
    let names: Vec<_> = c.run().iter().map(|d| d.message.clone()).collect();
    assert!(names[0].contains("'q'") && names[1].contains("'p'"), "{names:?}");
}

#[test]
fn report_uses_the_location_renderer() {
    let d = vec![VerifyDiagnostic {
        rule: Property::NoNestedCalls,
        error_code: 202,
        message: "If condition cannot be a call expression".into(),
        span: Span::new(3, 9),
    }];
    let text = report(&d, &|s: Span| format!("a.pto:{}:{}", s.lo, s.hi));
    assert_eq!(
        text,
        "IR Verification Report\n======================\nTotal diagnostics: 1 (1 errors, 0 warnings)\n\n\
         [1] ERROR - NoNestedCall\n  Message: If condition cannot be a call expression\n  Location: a.pto:3:9\n  \
         Error Code: 202\n\nStatus: FAILED (1 error(s) found)\n"
    );
}

#[test]
fn rule_names_round_trip() {
    for &r in Property::DEFAULT {
        assert_eq!(Property::from_rule_name(r.rule_name()), Some(r));
    }
    assert_eq!(Property::from_rule_name("ssaverify"), None);
}

#[test]
fn findings_do_not_depend_on_the_number_of_threads() {
    // Three functions, each breaking two rules: rule by rule, functions in program order.
    let mut b = B::new();
    for name in ["f", "g", "h"] {
        let x = b.var(&format!("x_{name}"), i64t());
        let y = b.var("y", i64t());
        b.func(name, vec![assign(x, int(1)), assign(x, int(2)), assign(y, call(vec![call(vec![])]))]);
    }
    let rules = [Property::SsaForm, Property::NoNestedCalls];
    let one = verify_with_jobs(&b.p, &rules, 1);
    let rules_in_order: Vec<Property> = one.iter().map(|d| d.rule).collect();
    assert_eq!(rules_in_order.len(), 6, "{one:?}");
    assert!(rules_in_order.windows(2).all(|w| w[0] == w[1] || w == [Property::SsaForm, Property::NoNestedCalls]));
    let ssa: Vec<&str> = one.iter().filter(|d| d.rule == Property::SsaForm).map(|d| d.message.as_str()).collect();
    assert!(ssa[0].contains("'x_f'") && ssa[1].contains("'x_g'") && ssa[2].contains("'x_h'"), "{ssa:?}");
    for jobs in [2, 3, 8] {
        assert_eq!(verify_with_jobs(&b.p, &rules, jobs), one, "{jobs} threads");
    }
}
