//! Malformed and extreme inputs through the real `ptoc` binary: every one ends in a diagnostic
//! with a location and exit status 1, or compiles (exit 0) — never a panic (101), a signal
//! (stack overflow) or a hang.

use std::io::Write;
use std::process::{Command, Stdio};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `ptoc --pipeline none --error-format short -` on `input` (given on stdin).
fn ptoc(input: &[u8]) -> Run {
    ptoc_with(&["--pipeline", "none"], input)
}

/// The ways a deep input is run: the front end alone, the default pipeline to IR, and to C++.
const MODES: [&[&str]; 3] = [&["--pipeline", "none"], &[], &["--emit", "cpp"]];

/// Runs `ptoc ARGS --error-format short -` on `input` (given on stdin).
fn ptoc_with(args: &[&str], input: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptoc"))
        .args(args)
        .args(["--error-format", "short", "--color", "never", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ptoc binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    // Write from another thread so a large input can't deadlock against a full stdout pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("ptoc finishes");
    writer.join().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Exit 0, or exit 1 with at least one `<file>:<line>:<col>: error[...]` line.
fn assert_clean_outcome(what: &str, r: &Run) {
    match r.code {
        Some(0) => {}
        Some(1) => {
            let located = r.stderr.lines().any(|l| {
                let mut parts = l.splitn(4, ':');
                let _file = parts.next();
                let line = parts.next().map(|s| s.parse::<u32>().is_ok());
                let col = parts.next().map(|s| s.parse::<u32>().is_ok());
                line == Some(true) && col == Some(true) && l.contains("error[E")
            });
            assert!(located, "{what}: exit 1 without a located diagnostic; stderr:\n{}", r.stderr);
            assert!(r.stdout.is_empty(), "{what}: output written despite the error");
        }
        other => panic!("{what}: exit status {other:?}; stderr:\n{}", r.stderr),
    }
}

const HEAD: &str = "# pypto.program: S\nimport pypto.language as pl\n\n@pl.program\nclass S:\n    @pl.function\n    def f(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n";

/// Exit 1 with exactly one diagnostic, E0110 ("nesting too deep") at `line:col`, nothing on stdout.
fn assert_too_deep(what: &str, r: &Run, line: usize, col: usize) {
    assert_clean_outcome(what, r);
    let errors: Vec<&str> = r.stderr.lines().filter(|l| l.contains("error[")).collect();
    assert_eq!(errors.len(), 1, "{what}: {}", r.stderr);
    assert!(errors[0].starts_with(&format!("<stdin>:{line}:{col}: error[E0110]: ")), "{what}: {}", r.stderr);
}

/// The line of the first statement after `HEAD` (in column 9).
const BODY_LINE: usize = 8;

#[test]
fn twenty_thousand_nested_parentheses() {
    // Parentheses make no node of their own: this is `y = x`, through the whole pipeline.
    let n = 20_000;
    let src = format!("{HEAD}        y = {}x{}\n        return y\n", "(".repeat(n), ")".repeat(n));
    for mode in MODES {
        let r = ptoc_with(mode, src.as_bytes());
        assert_eq!(r.code, Some(0), "{mode:?}: {}", r.stderr);
    }
    // With an operator at every level the tree is 20,001 deep: past the expression depth limit
    // (`ptoc::parser::MAX_EXPR_DEPTH`), reported once, at the innermost too-deep subexpression.
    let src = format!("{HEAD}        y = {}x{}\n        return y\n", "-(".repeat(n), ")".repeat(n));
    let limit = ptoc::parser::MAX_EXPR_DEPTH as usize;
    let col = 13 + 2 * (n - limit);
    for mode in MODES {
        assert_too_deep(&format!("-( nested, {mode:?}"), &ptoc_with(mode, src.as_bytes()), BODY_LINE, col);
    }
}

#[test]
fn long_expressions_up_to_the_depth_limit_compile() {
    // A sum of n terms is a tree n deep (left-associative); the deepest accepted one goes
    // through the whole pipeline to C++.
    let limit = ptoc::parser::MAX_EXPR_DEPTH as usize;
    let terms = vec!["x"; limit].join(" + ");
    let src = format!("{HEAD}        y = {terms}\n        return y\n");
    for mode in MODES {
        let r = ptoc_with(mode, src.as_bytes());
        assert_eq!(r.code, Some(0), "{mode:?}: {}", r.stderr);
    }
}

#[test]
fn two_hundred_thousand_term_expression() {
    // 200,000 terms: one "nesting too deep" error at the start of the sum, never an overflow.
    let terms = vec!["x"; 200_000].join(" + ");
    let src = format!("{HEAD}        y = {terms}\n        return y\n");
    for mode in MODES {
        assert_too_deep(&format!("long sum, {mode:?}"), &ptoc_with(mode, src.as_bytes()), BODY_LINE, 13);
    }
}

/// `HEAD`'s function with `depth` nested blocks, `header(d)` opening the block at depth `d`, each
/// block indented `indent` columns more than the one around it.
fn nested(depth: usize, indent: usize, header: impl Fn(usize) -> String) -> String {
    let mut src = String::from(HEAD);
    for d in 0..depth {
        src.push_str(&format!("{}{}\n", " ".repeat(8 + indent * d), header(d)));
    }
    src.push_str(&format!("{}y = x\n", " ".repeat(8 + indent * depth)));
    src.push_str("        return x\n");
    src
}

/// Nested blocks a function can hold: the top level, the class body and the function body take
/// three of the indentation levels.
const MAX_BLOCKS: usize = ptoc::lexer::MAX_INDENT_LEVELS - 3;

#[test]
fn three_thousand_nested_ifs() {
    let src = nested(3000, 4, |d| format!("if x > {d}:"));
    // The block that would be the 100th indentation level is reported, at its first token.
    let (line, col) = (BODY_LINE + MAX_BLOCKS + 1, 9 + 4 * (MAX_BLOCKS + 1));
    for mode in MODES {
        assert_too_deep(&format!("3,000 ifs, {mode:?}"), &ptoc_with(mode, src.as_bytes()), line, col);
    }
    // The deepest accepted nesting compiles, to C++ too.
    let src = nested(MAX_BLOCKS, 4, |d| format!("if x > {d}:"));
    for mode in MODES {
        let r = ptoc_with(mode, src.as_bytes());
        assert_eq!(r.code, Some(0), "{MAX_BLOCKS} ifs, {mode:?}: {}", r.stderr);
    }
}

#[test]
fn three_thousand_nested_fors() {
    let src = nested(3000, 1, |d| format!("for i{d} in pl.range(0, 4, 1):"));
    let (line, col) = (BODY_LINE + MAX_BLOCKS + 1, 9 + MAX_BLOCKS + 1);
    for mode in MODES {
        assert_too_deep(&format!("3,000 fors, {mode:?}"), &ptoc_with(mode, src.as_bytes()), line, col);
    }
    // The deepest accepted nesting goes through every pass before insert-sync; insert-sync
    // (whose analysis is exponential in loop depth, docs/fuzzing.md F5) stops at once with
    // E0606 at the thirteenth loop.
    let src = nested(MAX_BLOCKS, 1, |d| format!("for i{d} in pl.range(0, 4, 1):"));
    for mode in [&["--pipeline", "none"][..], &["--stop-after", "basic-memory-reuse"]] {
        let r = ptoc_with(mode, src.as_bytes());
        assert_eq!(r.code, Some(0), "{MAX_BLOCKS} fors, {mode:?}: {}", r.stderr);
    }
    let r = ptoc_with(&["--emit", "cpp"], src.as_bytes());
    assert_clean_outcome("deepest loop nest, --emit cpp", &r);
    assert!(r.stderr.contains("error[E0606]"), "{}", r.stderr);
}

#[test]
fn hundred_thousand_statements() {
    let mut src = String::from(HEAD);
    src.push_str("        y0 = x\n");
    for i in 1..100_000 {
        src.push_str(&format!("        y{i} = y{} + 1\n", i - 1));
    }
    src.push_str("        return y99999\n");
    let r = ptoc(src.as_bytes());
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("y99999: pl.Scalar[pl.INT64] = y99998 + 1"));
}

#[test]
fn invalid_utf8_is_reported_with_a_location() {
    let mut src = format!("{HEAD}        y = x\n").into_bytes();
    src.extend_from_slice(b"        z = \xff\xfe\n");
    let r = ptoc(&src);
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("UTF-8"), "{}", r.stderr);
    assert!(r.stderr.contains(":9:13:"), "location of the first bad byte: {}", r.stderr);
}

#[test]
fn binary_garbage_never_crashes() {
    // A fixed pseudo-random sequence (xorshift) so failures reproduce.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for len in [1usize, 7, 64, 1000, 10_000] {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        let r = ptoc(&bytes);
        assert_eq!(r.code, Some(1), "garbage of {len} bytes must be rejected: {}", r.stderr);
        assert_clean_outcome("binary garbage", &r);
    }
}

#[test]
fn every_truncation_of_a_program_is_handled() {
    let src = format!(
        "{HEAD}        for i, (acc,) in pl.range(0, x, 1, init_values=(x,)):\n            if i == 0:\n                t = acc + pl.const(1, pl.INT64)\n                v: pl.Scalar[pl.INT64] = pl.yield_(t)\n            else:\n                v: pl.Scalar[pl.INT64] = pl.yield_(acc)\n            r: pl.Scalar[pl.INT64] = pl.yield_(v)\n        return r\n"
    );
    for cut in (0..src.len()).step_by(7) {
        let r = ptoc(&src.as_bytes()[..cut]);
        assert_clean_outcome(&format!("truncated at {cut}"), &r);
    }
}

#[test]
fn several_independent_syntax_errors_are_all_reported() {
    let src = format!("{HEAD}        a = x\n        b = x +\n        c = x * * 2\n        return x\n");
    let r = ptoc(src.as_bytes());
    assert_eq!(r.code, Some(1));
    let errors: Vec<&str> = r.stderr.lines().filter(|l| l.contains("error[")).collect();
    assert!(errors.len() >= 2, "expected both syntax errors, got:\n{}", r.stderr);
    assert!(errors[0].contains(":9:"), "{}", r.stderr);
    assert!(errors[1].contains(":10:"), "{}", r.stderr);
}

#[test]
fn several_independent_name_errors_are_all_reported() {
    let src =
        format!("{HEAD}        a = undefined_one\n        b = a + 1\n        c = undefined_two\n        return x\n");
    let r = ptoc(src.as_bytes());
    assert_eq!(r.code, Some(1));
    let errors: Vec<&str> = r.stderr.lines().filter(|l| l.contains("error[")).collect();
    // `b = a + 1` uses the failed `a` and must not add a cascading error.
    assert_eq!(errors.len(), 2, "{}", r.stderr);
    assert!(errors[0].contains("undefined_one") && errors[1].contains("undefined_two"), "{}", r.stderr);
}
