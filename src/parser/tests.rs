//! Parser unit tests: precedence, statement forms, file structure, errors, the conformance
//! corpus, and inputs that must not overflow the stack.

use super::*;
use crate::ast::{Arg, ClassStmt, ExprKind, Item, Stmt, StmtKind};
use crate::diag::codes;

/// An expression as an s-expression, to compare structure compactly.
fn sexp(e: &Expr) -> String {
    fn args(a: &[Arg]) -> String {
        a.iter()
            .map(|a| match a {
                Arg::Positional(e) => sexp(e),
                Arg::Keyword(k, e) => format!("{}={}", k.name, sexp(e)),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
    fn list(items: &[Expr]) -> String {
        items.iter().map(sexp).collect::<Vec<_>>().join(" ")
    }
    match &e.kind {
        ExprKind::Name(n) => n.to_string(),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Float(v) => format!("{v:?}"),
        ExprKind::Str(s) => format!("'{s}'"),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::None => "None".into(),
        ExprKind::Attr(b, a) => format!("{}.{}", sexp(b), a.name),
        ExprKind::Call(f, a) => format!("(call {} [{}])", sexp(f), args(a)),
        ExprKind::Subscript(f, a) => format!("(sub {} [{}])", sexp(f), args(a)),
        ExprKind::List(items) => format!("(list {})", list(items)),
        ExprKind::Tuple(items) => format!("(tuple {})", list(items)),
        ExprKind::Binary(op, a, b) => format!("({op:?} {} {})", sexp(a), sexp(b)),
        ExprKind::Unary(op, a) => format!("({op:?} {})", sexp(a)),
        ExprKind::Unsupported => "<unsupported>".into(),
    }
}

fn expr(src: &str) -> String {
    match parse_expr(src) {
        Ok(e) => sexp(&e),
        Err(d) => panic!("{src:?} failed: {d:?}"),
    }
}

fn module(src: &str) -> Module {
    match parse(src) {
        Ok(m) => m,
        Err(d) => panic!(
            "parse failed:\n{}",
            d.iter().map(|d| crate::diag::short(d, "t", src)).collect::<Vec<_>>().join("\n")
        ),
    }
}

/// Errors as `line:col code message` lines.
fn errors(src: &str) -> Vec<String> {
    match parse(src) {
        Ok(_) => panic!("{src:?} parsed without errors"),
        Err(d) => d
            .iter()
            .map(|d| {
                let (line, col) = crate::diag::line_col(src, d.span.lo as usize);
                format!("{line}:{col} {} {}", d.code, d.message)
            })
            .collect(),
    }
}

/// The body of the single function in a standalone-function file.
fn body(src: &str) -> Vec<Stmt> {
    match module(src).items.into_iter().next() {
        Some(Item::Function(f)) => f.body,
        other => panic!("expected a function, got {other:?}"),
    }
}

fn stmts_of(lines: &str) -> Vec<Stmt> {
    let indented: String = lines.lines().map(|l| format!("    {l}\n")).collect();
    body(&format!("def f():\n{indented}"))
}

// ---------------------------------------------------------------------------------------------
// Expressions

#[test]
fn binary_operators_are_left_associative() {
    assert_eq!(expr("a - b - c"), "(Sub (Sub a b) c)");
    assert_eq!(expr("a / b * c // d % e"), "(Mod (FloorDiv (Mul (Div a b) c) d) e)");
    assert_eq!(expr("a << b >> c"), "(Shr (Shl a b) c)");
    assert_eq!(expr("a - (b - c)"), "(Sub a (Sub b c))");
}

#[test]
fn power_is_right_associative_and_binds_tighter_than_unary_minus() {
    assert_eq!(expr("a ** b ** c"), "(Pow a (Pow b c))");
    assert_eq!(expr("(a ** b) ** c"), "(Pow (Pow a b) c)");
    assert_eq!(expr("-x ** y"), "(Neg (Pow x y))");
    assert_eq!(expr("(-x) ** y"), "(Pow (Neg x) y)");
    assert_eq!(expr("x ** -y"), "(Pow x (Neg y))");
    assert_eq!(expr("~a ** 2 * 3"), "(Mul (Invert (Pow a 2)) 3)");
    assert_eq!(expr("-a * +b"), "(Mul (Neg a) (Pos b))");
    assert_eq!(expr("--a"), "(Neg (Neg a))");
}

#[test]
fn comparisons_chain_left_associatively() {
    assert_eq!(expr("a < b == c"), "(Eq (Lt a b) c)");
    assert_eq!(expr("a <= b != c >= d > e"), "(Gt (Ge (Ne (Le a b) c) d) e)");
    assert_eq!(expr("a + 1 < b * 2"), "(Lt (Add a 1) (Mul b 2))");
}

#[test]
fn word_operators_have_python_precedence_with_xor_between_or_and_and() {
    assert_eq!(expr("not a and b"), "(And (Not a) b)");
    assert_eq!(expr("a xor b or c"), "(Or (Xor a b) c)");
    assert_eq!(expr("a or b xor c and d"), "(Or a (Xor b (And c d)))");
    assert_eq!(expr("not a == b"), "(Not (Eq a b))");
    assert_eq!(expr("not not a"), "(Not (Not a))");
    assert_eq!(expr("a and not b"), "(And a (Not b))");
}

#[test]
fn bitwise_operators_sit_between_comparisons_and_shifts() {
    assert_eq!(expr("a | b ^ c & d << e + f"), "(BitOr a (BitXor b (BitAnd c (Shl d (Add e f)))))");
    assert_eq!(expr("a & b == c | d"), "(Eq (BitAnd a b) (BitOr c d))");
}

#[test]
fn operator_chains_mixing_every_level() {
    // Operators from lowest to highest precedence, then from highest to lowest.
    assert_eq!(
        expr("a or b xor c and d == e | f ^ g & h << i + j * k"),
        "(Or a (Xor b (And c (Eq d (BitOr e (BitXor f (BitAnd g (Shl h (Add i (Mul j k))))))))))"
    );
    assert_eq!(
        expr("a * b + c << d & e ^ f | g == h and i xor j or k"),
        "(Or (Xor (And (Eq (BitOr (BitXor (BitAnd (Shl (Add (Mul a b) c) d) e) f) g) h) i) j) k)"
    );
    assert_eq!(expr("a + b * c - d"), "(Sub (Add a (Mul b c)) d)");
    assert_eq!(expr("not a + b < c and -d ** e % f"), "(And (Not (Lt (Add a b) c)) (Mod (Neg (Pow d e)) f))");
}

#[test]
fn postfix_forms() {
    assert_eq!(expr("pl.block.and(a, b)"), "(call pl.block.and [a b])");
    assert_eq!(expr("pl.block.or(a, b).not"), "(call pl.block.or [a b]).not");
    assert_eq!(expr("pl.MemorySpace.None"), "pl.MemorySpace.None");
    assert_eq!(expr("f(a, k=v,)"), "(call f [a k=v])");
    assert_eq!(expr("f()"), "(call f [])");
    assert_eq!(expr("t[0][1]"), "(sub (sub t [0]) [1])");
    assert_eq!(expr("pl.Tile[[64, 64], pl.FP32, memref=m]"), "(sub pl.Tile [(list 64 64) pl.FP32 memref=m])");
    assert_eq!(expr("-f(x)[0].y ** 2"), "(Neg (Pow (sub (call f [x]) [0]).y 2))");
}

#[test]
fn atoms() {
    assert_eq!(expr("(a,)"), "(tuple a)");
    assert_eq!(expr("(a, b)"), "(tuple a b)");
    assert_eq!(expr("()"), "(tuple )");
    assert_eq!(expr("(a)"), "a");
    assert_eq!(expr("[]"), "(list )");
    assert_eq!(expr("[a, b,]"), "(list a b)");
    assert_eq!(expr("[[1], []]"), "(list (list 1) (list ))");
    assert_eq!(expr("True or False or None"), "(Or (Or true false) None)");
    assert_eq!(expr("'round'"), "'round'");
    assert_eq!(expr("\"x\""), "'x'");
    assert_eq!(expr("1.5 + .5 + 1e-07 + 1."), "(Add (Add (Add 1.5 0.5) 1e-7) 1.0)");
    assert_eq!(expr("inf"), "inf");
    assert_eq!(expr("<unsupported IRNode type>"), "<unsupported>");
    assert_eq!(expr("f(start_offset=<unsupported IRNode type>)"), "(call f [start_offset=<unsupported>])");
}

#[test]
fn expression_spans_cover_their_text() {
    let src = "a + f(b)[1]";
    let e = parse_expr(src).unwrap();
    assert_eq!(e.span.range(), 0..src.len());
    let ExprKind::Binary(_, _, rhs) = &e.kind else { panic!() };
    assert_eq!(&src[rhs.span.range()], "f(b)[1]");
    let e = parse_expr("-(x)").unwrap();
    assert_eq!(e.span.range(), 0..4);
}

// ---------------------------------------------------------------------------------------------
// Statements

#[test]
fn assignment_forms() {
    let s = stmts_of("x: pl.Scalar[pl.INT64] = 1\ny = 2\na, b = t\n(c, d) = t\ne, = t\nz: T");
    let kinds: Vec<_> = s.iter().map(|s| &s.kind).collect();
    let StmtKind::Assign { targets, tuple_target: false, annotation: Some(ann), value } = kinds[0] else {
        panic!("{:?}", kinds[0])
    };
    assert_eq!(targets[0].name, "x");
    assert_eq!(sexp(ann), "(sub pl.Scalar [pl.INT64])");
    assert_eq!(sexp(value), "1");
    assert!(matches!(kinds[1], StmtKind::Assign { tuple_target: false, annotation: None, .. }));
    for (i, names) in [(2, ["a", "b"]), (3, ["c", "d"])] {
        let StmtKind::Assign { targets, tuple_target: true, .. } = kinds[i] else { panic!("{:?}", kinds[i]) };
        assert_eq!(targets.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), names);
    }
    let StmtKind::Assign { targets, tuple_target: true, .. } = kinds[4] else { panic!("{:?}", kinds[4]) };
    assert_eq!(targets.len(), 1);
    let StmtKind::AnnOnly { target, annotation } = kinds[5] else { panic!("{:?}", kinds[5]) };
    assert_eq!((target.name.as_str(), sexp(annotation).as_str()), ("z", "T"));
}

#[test]
fn simple_statements() {
    let s = stmts_of("return\nreturn a\nreturn a, b\npl.yield_(x)\nbreak\ncontinue\npass\nx = 1; y = 2");
    assert_eq!(s.len(), 9);
    assert!(matches!(&s[0].kind, StmtKind::Return(v) if v.is_empty()));
    assert!(matches!(&s[1].kind, StmtKind::Return(v) if v.len() == 1));
    assert!(matches!(&s[2].kind, StmtKind::Return(v) if v.len() == 2));
    assert!(matches!(&s[3].kind, StmtKind::Expr(e) if sexp(e) == "(call pl.yield_ [x])"));
    assert!(matches!(s[4].kind, StmtKind::Break));
    assert!(matches!(s[5].kind, StmtKind::Continue));
    assert!(matches!(s[6].kind, StmtKind::Pass));
    assert!(matches!(s[7].kind, StmtKind::Assign { .. }) && matches!(s[8].kind, StmtKind::Assign { .. }));
}

#[test]
fn elif_becomes_a_nested_if_alone_in_the_else_body() {
    let s = stmts_of("if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3");
    let StmtKind::If { cond, then_body, else_body: Some(else_body) } = &s[0].kind else { panic!() };
    assert_eq!((sexp(cond).as_str(), then_body.len(), else_body.len()), ("a", 1, 1));
    let StmtKind::If { cond, else_body: Some(last), .. } = &else_body[0].kind else { panic!() };
    assert_eq!((sexp(cond).as_str(), last.len()), ("b", 1));
    let s = stmts_of("if a:\n    pass\nz = 1");
    assert!(matches!(&s[0].kind, StmtKind::If { else_body: None, .. }));
    assert_eq!(s.len(), 2);
}

#[test]
fn loop_targets() {
    let cases = [
        ("for i in pl.range(4):\n    pass", Some("i"), None),
        ("for i, (a, b) in pl.range(0, 4, 1, init_values=(x, y)):\n    pass", Some("i"), Some(vec!["a", "b"])),
        ("for i, (a,) in pl.range(4, init_values=(x,)):\n    pass", Some("i"), Some(vec!["a"])),
        ("for (a, b) in pl.while_(init_values=(x, y)):\n    pl.cond(a < b)", None, Some(vec!["a", "b"])),
        ("for (a,) in pl.while_(init_values=(x,)):\n    pass", None, Some(vec!["a"])),
    ];
    for (src, var, tuple) in cases {
        let s = stmts_of(src);
        let StmtKind::For { target, body, .. } = &s[0].kind else { panic!("{src}") };
        assert_eq!(target.var.as_ref().map(|v| v.name.as_str()), var, "{src}");
        let names = target.tuple.as_ref().map(|t| t.iter().map(|n| n.name.as_str()).collect::<Vec<_>>());
        assert_eq!(names, tuple, "{src}");
        assert_eq!(body.len(), 1);
    }
}

#[test]
fn while_and_with() {
    let s = stmts_of("while i < n:\n    i = i + 1\nwith pl.incore():\n    pass\nwith pl.incore() as s:\n    pass");
    assert!(matches!(&s[0].kind, StmtKind::While { body, .. } if body.len() == 1));
    assert!(matches!(&s[1].kind, StmtKind::With { as_name: None, .. }));
    assert!(matches!(&s[2].kind, StmtKind::With { as_name: Some(n), .. } if n.name == "s"));
}

#[test]
fn single_line_bodies() {
    let s = stmts_of("if x: return y\nelse: return z\nwhile a: a = f(a)");
    let StmtKind::If { then_body, else_body: Some(e), .. } = &s[0].kind else { panic!() };
    assert_eq!((then_body.len(), e.len()), (1, 1));
    assert!(matches!(&s[1].kind, StmtKind::While { body, .. } if body.len() == 1));
}

#[test]
fn empty_blocks_parse_as_empty_bodies() {
    // As the printer prints them: the header line, then a dedent or the end of the file.
    let m = module("@pl.program\nclass P:\n    @pl.function\n    def e(self):\n    @pl.function\n    def f(self):\n");
    let Item::Class(c) = &m.items[0] else { panic!() };
    assert_eq!(c.body.len(), 2);
    for s in &c.body {
        assert!(matches!(s, ClassStmt::Function(f) if f.body.is_empty()));
    }
    let s = stmts_of("if a:\n    x = 1\nelse:");
    assert!(matches!(&s[0].kind, StmtKind::If { else_body: Some(e), .. } if e.is_empty()));
    let s = stmts_of("for i in pl.range(2):\nx = 1");
    assert!(matches!(&s[0].kind, StmtKind::For { body, .. } if body.is_empty()));
    assert_eq!(s.len(), 2);
    let m = module("class Empty:");
    assert!(matches!(&m.items[0], Item::Class(c) if c.body.is_empty()));
    assert!(module("").items.is_empty());
}

#[test]
fn statement_spans_end_with_their_blocks() {
    let src = "def f():\n    if a:\n        x = 1\n    else:\n        y = 2\n    z = 3\n";
    let s = body(src);
    assert_eq!(&src[s[0].span.range()], "if a:\n        x = 1\n    else:\n        y = 2");
    assert_eq!(&src[s[1].span.range()], "z = 3");
}

// ---------------------------------------------------------------------------------------------
// File structure

#[test]
fn program_file() {
    let src = "# pypto.program: Example\nimport pypto.language as pl\n\n@pl.program\nclass Example:\n    \"\"\"Doc.\"\"\"\n    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]],) -> tuple[A, B]:\n        return a\n    @pl.function\n    def main(self):\n        pass\n";
    let m = module(src);
    let header = m.header.as_ref().unwrap();
    assert_eq!((header.name.as_str(), &src[header.span.range()]), ("Example", "Example"));
    assert_eq!(m.imports.len(), 1);
    let imp = &m.imports[0];
    assert_eq!(imp.module.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["pypto", "language"]);
    assert_eq!(imp.alias.as_ref().map(|a| a.name.as_str()), Some("pl"));
    let Item::Class(c) = &m.items[0] else { panic!() };
    assert_eq!(c.name.name, "Example");
    assert_eq!(c.decorators.iter().map(sexp).collect::<Vec<_>>(), ["pl.program"]);
    assert!(matches!(&c.body[0], ClassStmt::Other(Stmt { kind: StmtKind::Expr(_), .. })));
    let ClassStmt::Function(k) = &c.body[1] else { panic!() };
    assert_eq!(k.name.name, "kernel");
    assert_eq!(k.decorators.iter().map(sexp).collect::<Vec<_>>(), ["(call pl.function [type=pl.FunctionType.InCore])"]);
    assert_eq!(k.params.iter().map(|p| p.name.name.as_str()).collect::<Vec<_>>(), ["self", "a", "out"]);
    assert!(k.params[0].annotation.is_none());
    assert_eq!(sexp(k.params[2].annotation.as_ref().unwrap()), "(sub pl.Out [(sub pl.Tensor [(list 64) pl.FP32])])");
    assert_eq!(sexp(k.returns.as_ref().unwrap()), "(sub tuple [A B])");
    assert!(src[k.span.range()].starts_with("@pl.function(type="));
    assert!(src[k.span.range()].ends_with("return a"));
    assert_eq!(m.span.range(), 0..src.len());
}

#[test]
fn import_forms_and_standalone_functions() {
    let src = "import a.b as c\nimport a.b\nfrom pypto import language as P\nfrom x import y\n@P.function\ndef f(x: P.Tensor[[4], P.FP32]) -> P.Tensor[[4], P.FP32]:\n    return x\n@P.function()\ndef g():\n    return\n";
    let m = module(src);
    let imports: Vec<_> = m
        .imports
        .iter()
        .map(|i| {
            let path = i.module.iter().map(|n| n.name.as_str()).collect::<Vec<_>>().join(".");
            (path, i.alias.as_ref().map(|a| a.name.to_string()))
        })
        .collect();
    assert_eq!(
        imports,
        [
            ("a.b".to_string(), Some("c".to_string())),
            ("a.b".to_string(), None),
            ("pypto.language".to_string(), Some("P".to_string())),
            ("x.y".to_string(), None)
        ]
    );
    assert_eq!(m.items.len(), 2);
    assert!(m.header.is_none());
    let Item::Function(f) = &m.items[0] else { panic!() };
    assert_eq!((f.name.name.as_str(), f.params.len(), f.body.len()), ("f", 1, 1));
}

#[test]
fn class_with_bases_and_program_options() {
    let m = module("@pl.program(strict_ssa=True)\nclass A(Base, meta=M):\n    pass\n");
    let Item::Class(c) = &m.items[0] else { panic!() };
    assert_eq!(c.bases.len(), 2);
    assert_eq!(sexp(&c.decorators[0]), "(call pl.program [strict_ssa=true])");
    assert!(matches!(&c.body[0], ClassStmt::Other(Stmt { kind: StmtKind::Pass, .. })));
}

#[test]
fn comments_blank_lines_and_continuations_are_ignored() {
    let src = "# a comment\n\ndef f(  # why\n    a,\n\n    b):  # trailing\n    # alone\n\n    x = a + \\\n        b\n        # deeper comment\n    return x\n";
    let s = body(src);
    assert_eq!(s.len(), 2);
}

// ---------------------------------------------------------------------------------------------
// Errors

#[test]
fn missing_colon_after_signature() {
    assert_eq!(
        errors("def f(self)\n    return 1\n    x = = 2\n"),
        [
            "1:12 E0201 expected `:` or `->` after the function signature, found end of line",
            "3:9 E0201 expected an expression, found `=`",
        ]
    );
}

#[test]
fn unexpected_closing_paren_reports_the_token() {
    let src = "def f():\n    x = g(1, )) + 2\n";
    let d = parse(src).unwrap_err();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, codes::UNMATCHED_BRACKET);
    assert_eq!(&src[d[0].span.range()], ")");
    assert_eq!(errors("def f():\n    x = )\n"), ["2:9 E0109 unmatched `)`"]);
    assert_eq!(errors("def f():\n    x = (a +)\n"), ["2:13 E0201 expected an expression, found `)`"]);
}

#[test]
fn independent_errors_are_all_reported() {
    let src = "def f(self):\n    x = = 1\n    if a\n        y = 2\n        y = $\n    z = 3 4\n    w = 5\n        v = 6\n    w = 5\ndef g(x y):\n    pass\n";
    assert_eq!(
        errors(src),
        [
            "2:9 E0201 expected an expression, found `=`",
            "3:9 E0201 expected `:` after the condition, found end of line",
            "5:13 E0101 unexpected character `$`",
            "6:11 E0201 expected `,`, end of line or an operator, found number `4`",
            "8:9 E0104 unexpected indentation",
            "10:9 E0201 expected `:`, `)` or `,`, found name `y`",
        ]
    );
}

#[test]
fn errors_at_end_of_input() {
    assert_eq!(errors("@pl.function\n"), ["2:1 E0202 unexpected end of file; expected `def`, `class` or `@`"]);
    assert_eq!(errors("def f():\n    x = (1,\n"), ["2:9 E0108 `(` was never closed"]);
}

#[test]
fn lexical_errors_are_not_repeated_as_syntax_errors() {
    assert_eq!(
        errors("def f():\n    x = $ + 1\n    y = 'abc\n"),
        ["2:9 E0101 unexpected character `$`", "3:9 E0107 unterminated string literal",]
    );
    assert_eq!(
        errors("def f():\n    x = 99999999999999999999\n"),
        ["2:9 E0105 integer literal `99999999999999999999` is too large (the maximum is 18446744073709551615)",]
    );
}

#[test]
fn invalid_assignment_targets() {
    let src = "def f():\n    g(x) = 1\n    a.b: T = 2\n    a, b: T = 3\n    (a, 1) = t\n";
    assert_eq!(
        errors(src),
        [
            "2:5 E0305 cannot assign to this expression",
            "3:5 E0305 only a single name can be annotated",
            "4:5 E0305 only a single name can be annotated",
            "5:9 E0305 cannot assign to this expression",
        ]
    );
}

#[test]
fn layout_errors_are_reported_with_positions() {
    assert_eq!(errors("def f():\n\tx = 1\n"), ["2:1 E0102 tab used for indentation"]);
    // A tab that makes a line look indented is reported once, as a tab.
    assert_eq!(errors("def f():\n    x = 1\n    \ty = 2\n    z = 3\n"), ["3:5 E0102 tab used for indentation"]);
    assert_eq!(errors("def f():\n    x = 1\n        y = 2\n"), ["3:9 E0104 unexpected indentation"]);
    assert_eq!(
        errors("def f():\n    if a:\n        x = 1\n      y = 2\n"),
        ["4:7 E0103 unindent does not match any outer indentation level"]
    );
}

#[test]
fn top_level_statements_are_syntax_errors() {
    assert_eq!(errors("x = 1\n"), ["1:1 E0201 expected `def`, `class`, `import`, `from` or `@`, found name `x`"]);
}

// ---------------------------------------------------------------------------------------------
// Robustness

/// Runs `f` on a thread with a big stack: dropping (and comparing) a deep AST is recursive.
fn with_big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(1 << 30).spawn(f).unwrap().join().unwrap();
}

#[test]
fn deep_nesting_parses_without_overflow() {
    with_big_stack(|| {
        let n = 20_000;
        // Parentheses add no node: any bracket depth the lexer accepts is fine.
        let src = format!("def f():\n    x = {}a{}\n", "(".repeat(n), ")".repeat(n));
        assert_eq!(body(&src).len(), 1);
        // `[` and `-` each add a level: the deepest accepted tree, then one level more.
        let m = MAX_EXPR_DEPTH as usize - 1;
        let src = format!("def f():\n    x = {}a{}\n", "[".repeat(m), "]".repeat(m));
        assert_eq!(body(&src).len(), 1);
        let src = format!("def f():\n    x = {}a\n", "-".repeat(m));
        assert_eq!(body(&src).len(), 1);
        for src in [
            format!("def f():\n    x = {}a{}\n", "[".repeat(m + 1), "]".repeat(m + 1)),
            format!("def f():\n    x = {}a\n", "-".repeat(m + 1)),
            format!("def f():\n    x = {}a\n", "-".repeat(n * 50)),
        ] {
            let d = parse(&src).unwrap_err();
            assert_eq!(d.len(), 1, "one error per expression: {:?}", &d[..d.len().min(3)]);
            assert_eq!(d[0].code, codes::NESTING_TOO_DEEP);
            assert_eq!(d[0].message, format!("expression nested more than {MAX_EXPR_DEPTH} deep"));
        }
    });
}

#[test]
fn long_expressions_parse_up_to_the_depth_limit() {
    with_big_stack(|| {
        let terms = vec!["a"; MAX_EXPR_DEPTH as usize].join(" + ");
        let src = format!("def f():\n    x = {terms}\n");
        let s = body(&src);
        let StmtKind::Assign { value, .. } = &s[0].kind else { panic!() };
        assert!(matches!(value.kind, ExprKind::Binary(crate::ast::BinaryOp::Add, _, _)));
        assert_eq!(value.depth(), MAX_EXPR_DEPTH);
        let power = vec!["a"; MAX_EXPR_DEPTH as usize].join(" ** ");
        assert_eq!(body(&format!("def f():\n    x = {power}\n")).len(), 1);

        // A sum of 200,000 terms: one error, at the first too-deep prefix `a + … + a`, and the
        // next statement is still parsed (its error is reported too).
        let terms = vec!["a"; 200_000].join(" + ");
        let src = format!("def f():\n    x = {terms}\n    y = (\n");
        let d = parse(&src).unwrap_err();
        let codes_found: Vec<&str> = d.iter().map(|d| d.code).collect();
        assert_eq!(codes_found, [codes::NESTING_TOO_DEEP, codes::UNCLOSED_BRACKET], "{d:?}");
        let x = src.find("a +").unwrap();
        assert_eq!(d[0].span.range(), x..x + 4 * MAX_EXPR_DEPTH as usize + 1);
    });
}

#[test]
fn nesting_beyond_the_limit_is_rejected() {
    with_big_stack(|| {
        let n = crate::lexer::MAX_NESTING + 1;
        let src = format!("x = {}", "(".repeat(n));
        let d = parse(&src).unwrap_err();
        assert_eq!(d.len(), 1, "{:?}", &d[..d.len().min(3)]);
        assert_eq!(d[0].code, codes::NESTING_TOO_DEEP);
        assert_eq!(d[0].span.lo as usize, 4 + crate::lexer::MAX_NESTING);
    });
}

/// A small deterministic generator (xorshift) for the mutation test.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn mangled_input_never_panics() {
    let seed = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, a: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:\n        for i, (acc,) in pl.range(0, n, 1, init_values=(a,)):\n            if i < 2 and not n == 3:\n                t: pl.Tile[[64], pl.FP32] = pl.block.load(acc, [0], [64], start_offset=<unsupported IRNode type>)\n                r: pl.Tensor[[64], pl.FP32] = pl.yield_(acc)\n            else:\n                r: pl.Tensor[[64], pl.FP32] = pl.yield_(-acc ** 2)\n        return r\n";
    let alphabet: &[u8] = b" \n\t()[]{}:,.=@#'\"-+*<>!$ax1_\\";
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3000 {
        let mut bytes = seed.as_bytes().to_vec();
        for _ in 0..(rng.next() % 4 + 1) {
            let at = (rng.next() as usize) % bytes.len();
            match rng.next() % 3 {
                0 => bytes[at] = alphabet[(rng.next() as usize) % alphabet.len()],
                1 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, alphabet[(rng.next() as usize) % alphabet.len()]),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Err(diags) = parse(&text) {
            assert!(!diags.is_empty());
            for d in &diags {
                assert!(d.span.lo <= d.span.hi && d.span.hi as usize <= text.len(), "{d:?} in {text:?}");
            }
        }
    }
    for cut in 0..seed.len() {
        let _ = parse(&seed[..cut]);
    }
}

// ---------------------------------------------------------------------------------------------
// Conformance corpus

/// Every `.pto` file under the shared conformance corpus must parse (the main acceptance check).
#[test]
fn every_conformance_file_parses() {
    let root = std::path::Path::new("/work/shared/conformance");
    if !root.is_dir() {
        eprintln!("skipping: {} not found", root.display());
        return;
    }
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "pto") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        if let Err(diags) = parse(&text) {
            let name = path.display().to_string();
            failures.extend(diags.iter().map(|d| crate::diag::short(d, &name, &text)));
        }
    }
    assert!(failures.is_empty(), "{} errors:\n{}", failures.len(), failures[..failures.len().min(20)].join("\n"));
    assert!(files.len() >= 537, "only {} files found", files.len());
}

#[test]
fn dotted_paths_of_names_and_attribute_chains() {
    let parts = |src: &str| parse_expr(src).unwrap().dotted().map(|p| p.to_vec().join("."));
    assert_eq!(parts("x").as_deref(), Some("x"));
    assert_eq!(parts("pl.block.add").as_deref(), Some("pl.block.add"));
    // Longer than the inline capacity.
    let long = "a.b.c.d.e.f.g.h.i";
    assert_eq!(parts(long).as_deref(), Some(long));
    assert_eq!(parts("f(x).y"), None);
    assert_eq!(parts("pl.x[0]"), None);
    let e = parse_expr("pl.block.add").unwrap();
    let path = e.dotted().unwrap();
    assert!(path == ["pl", "block", "add"]);
    assert_eq!(path.skip(1).as_slice(), ["block", "add"]);
    let e = parse_expr(long).unwrap();
    assert_eq!(e.dotted().unwrap().skip(7).as_slice(), ["h", "i"]);
    assert_eq!(e.dotted().unwrap().skip(20).len(), 0);
}
