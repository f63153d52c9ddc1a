//! insta snapshots: the canonical IR of every example, and rendered diagnostics (colour off)
//! of a selection of error cases. Review changes with `cargo insta review`.

use std::path::Path;

fn render_errors(source: &str, name: &str) -> String {
    let diags = match ptoc::parser::parse(source) {
        Err(d) => d,
        Ok(m) => match ptoc::lower::lower(m) {
            Err(d) => d,
            Ok(_) => return "no diagnostics".to_string(),
        },
    };
    ptoc::diag::render(&diags, name, source, ptoc::diag::Color::Never)
}

#[test]
fn examples_print_canonically() {
    insta::glob!("../examples", "*.pto", |path| {
        let source = std::fs::read_to_string(path).unwrap();
        let module = ptoc::parser::parse(&source).expect("example parses");
        let prog = ptoc::lower::lower(module).expect("example lowers");
        insta::assert_snapshot!(ptoc::printer::print_program(&prog));
    });
}

#[test]
fn rendered_diagnostics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("lit-tests/errors");
    for case in [
        "undefined-variable-suggestion",
        "unknown-op",
        "tab-indent",
        "missing-colon",
        "shape-mismatch",
        "memref-conflict",
        "init-values-count",
    ] {
        let path = dir.join(format!("{case}.pto"));
        let source = std::fs::read_to_string(&path).unwrap();
        let rendered = render_errors(&source, &format!("{case}.pto"));
        insta::assert_snapshot!(case, rendered);
    }
}

#[test]
fn examples_compile_to_cpp() {
    insta::glob!("../examples", "*.pto", |path| {
        let source = std::fs::read(path).unwrap();
        let args: Vec<String> = ["ptoc", "--emit", "cpp", "-"].iter().map(|s| s.to_string()).collect();
        let out = ptoc::driver::run(&args, &source);
        assert_eq!(out.code, 0, "{}", String::from_utf8_lossy(&out.stderr));
        insta::assert_snapshot!(String::from_utf8(out.stdout).unwrap());
    });
}
