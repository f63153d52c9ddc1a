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
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptoc"))
        .args(["--pipeline", "none", "--error-format", "short", "--color", "never", "-"])
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

#[test]
fn twenty_thousand_nested_parentheses() {
    let n = 20_000;
    let src = format!("{HEAD}        y = {}x{}\n        return y\n", "(".repeat(n), ")".repeat(n));
    let r = ptoc(src.as_bytes());
    assert_clean_outcome("nested parentheses", &r);
}

#[test]
fn two_hundred_thousand_term_expression() {
    let terms = vec!["x"; 200_000].join(" + ");
    let src = format!("{HEAD}        y = {terms}\n        return y\n");
    let r = ptoc(src.as_bytes());
    assert_clean_outcome("long expression", &r);
    assert_eq!(r.code, Some(0), "a long sum is valid: {}", r.stderr);
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
fn deeply_nested_blocks() {
    let mut src = String::from(HEAD);
    let depth = 500;
    for d in 0..depth {
        src.push_str(&format!("{}if x > {d}:\n", " ".repeat(8 + 4 * d)));
    }
    src.push_str(&format!("{}y = x\n", " ".repeat(8 + 4 * depth)));
    src.push_str("        return x\n");
    let r = ptoc(src.as_bytes());
    assert_clean_outcome("nested ifs", &r);
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
    let src = format!("{HEAD}        a = undefined_one\n        b = a + 1\n        c = undefined_two\n        return x\n");
    let r = ptoc(src.as_bytes());
    assert_eq!(r.code, Some(1));
    let errors: Vec<&str> = r.stderr.lines().filter(|l| l.contains("error[")).collect();
    // `b = a + 1` uses the failed `a` and must not add a cascading error.
    assert_eq!(errors.len(), 2, "{}", r.stderr);
    assert!(errors[0].contains("undefined_one") && errors[1].contains("undefined_two"), "{}", r.stderr);
}
