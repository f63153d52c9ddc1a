//! The one place that talks to the FileCheck implementation (litcheck-filecheck, pinned =0.5.0).
//! If it ever has to be replaced, only this file changes: the directive syntax is LLVM's.

use std::sync::Arc;

use litcheck_filecheck::litcheck::diagnostics::{
    miette::{GraphicalReportHandler, GraphicalTheme},
    FileName, Report, SourceLanguage, SourceManager,
};
use litcheck_filecheck::litcheck::Symbol;
use litcheck_filecheck::{Config, Test};

/// Checks `output` against the `<prefix>:` directives (CHECK, -NEXT, -SAME, -NOT, -DAG, -LABEL,
/// `[[V:re]]`, `{{re}}`) found anywhere in `check_source`; `prefix` may list several, separated
/// by commas. `RUN:` and `COM:` lines are comments. On failure returns the annotated report
/// (plain text, no colour).
///
/// Like LLVM FileCheck without `--strict-whitespace`, runs of spaces and tabs count as one
/// space, in the output and in the checks (litcheck 0.5 does not do this itself), so a check
/// cannot pin down indentation.
pub fn filecheck(output: &str, check_source: &str, prefix: &str) -> Result<(), String> {
    let output = canonicalize_whitespace(output);
    let check_source = escape_literal_brackets(&canonicalize_whitespace(check_source));
    let mut config = Config::default();
    config.options.check_prefixes =
        prefix.split(',').map(str::trim).filter(|p| !p.is_empty()).map(Symbol::intern).collect();
    let sources = Arc::clone(&config.source_manager);
    let checks = sources.load(SourceLanguage::Unknown, FileName::from("check file".to_string()), check_source);
    let input = sources.load(SourceLanguage::Unknown, FileName::from("output".to_string()), output);
    Test::new(checks, &config).verify(input).map(|_| ()).map_err(|report| render(&report))
}

/// `[[` starts a FileCheck variable (`[[V:re]]`, `[[V]]`), but `.pto` text is full of literal
/// `[[` (every shape: `pl.Tensor[[64], pl.FP32]`). A `[[` that does not open a variable is
/// matched literally, so checks can quote printed types as they are.
fn escape_literal_brackets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("[[") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let name_len = after
            .char_indices()
            .take_while(|&(k, c)| c == '_' || c.is_ascii_alphabetic() || (k > 0 && c.is_ascii_digit()))
            .count();
        let opens_variable =
            name_len > 0 && (after[name_len..].starts_with(':') || after[name_len..].starts_with("]]"));
        if opens_variable {
            out.push_str("[[");
        } else {
            out.push_str("{{\\[\\[}}");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Replaces every run of spaces and tabs by one space.
fn canonicalize_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_run = false;
    for c in text.chars() {
        if c == ' ' || c == '\t' {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

fn render(report: &Report) -> String {
    let mut text = String::new();
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor()).with_width(120);
    if handler.render_report(&mut text, report.as_ref()).is_err() {
        text = format!("{report:?}");
    }
    text
}

#[cfg(test)]
#[allow(unused_imports)] // see mod.rs
mod tests {
    use super::{canonicalize_whitespace, filecheck};

    const OUT: &str = "\
# pypto.program: P
def kernel(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    t__ssa_v0: pl.Tile[[64], pl.FP32] = pl.block.load(a, [0], [64])
    r: pl.Tensor[[64], pl.FP32] = pl.block.store(t__ssa_v0, [0], [64], a)
    return r
def main(self):
    return
";

    #[test]
    fn hash_comment_checks_are_found_and_run_lines_ignored() {
        let checks =
            "# RUN: ptoc --pipeline none %s | FileCheck %s\n# CHECK: def kernel\n# CHECK-NEXT: pl.block.load\n";
        assert_eq!(filecheck(OUT, checks, "CHECK"), Ok(()));
        let wrong = "# RUN: ptoc %s\n# CHECK: def kernel\n# CHECK-NEXT: pl.block.store\n";
        let err = filecheck(OUT, wrong, "CHECK").unwrap_err();
        assert!(err.contains("block.store"), "{err}");
    }

    #[test]
    fn captures_and_regexes() {
        let checks = "\
# CHECK-LABEL: def kernel
# CHECK: [[T:t__ssa_v[0-9]+]]: pl.Tile
# CHECK-SAME: pl.block.load({{[a-z]+}}, [0]
# CHECK-NEXT: pl.block.store([[T]], [0]
# CHECK-NOT: pl.block.add
# CHECK-LABEL: def main
";
        assert_eq!(filecheck(OUT, checks, "CHECK"), Ok(()));
        let bad_capture = "# CHECK: [[T:t__ssa_v[0-9]+]]: pl.Tile\n# CHECK: pl.block.store(a, [[T]]\n";
        assert!(filecheck(OUT, bad_capture, "CHECK").is_err());
    }

    #[test]
    fn literal_double_brackets_need_a_regex() {
        let checks = "# CHECK: a: pl.Tensor{{\\[\\[}}64], pl.FP32]\n";
        assert_eq!(filecheck(OUT, checks, "CHECK"), Ok(()));
    }

    #[test]
    fn not_and_dag() {
        assert!(filecheck(OUT, "# CHECK: def kernel\n# CHECK-NOT: block.load\n# CHECK: def main\n", "CHECK").is_err());
        let dag = "# CHECK-DAG: return r\n# CHECK-DAG: def kernel\n# CHECK: def main\n";
        assert_eq!(filecheck(OUT, dag, "CHECK"), Ok(()));
    }

    #[test]
    fn custom_prefix_ignores_other_prefixes() {
        let checks = "# SSA: t__ssa_v0\n# CHECK: this line is not in the output\n";
        assert_eq!(filecheck(OUT, checks, "SSA"), Ok(()));
        assert!(filecheck(OUT, checks, "CHECK").is_err());
        assert!(filecheck(OUT, checks, "SSA,CHECK").is_err());
    }

    #[test]
    fn horizontal_whitespace_runs_are_one_space() {
        assert_eq!(filecheck("x\n  0    success\n", "# CHECK: x\n# CHECK-NEXT: 0 success\n", "CHECK"), Ok(()));
        assert_eq!(filecheck("a\t b\n", "#  CHECK:   a  b\n", "CHECK"), Ok(()));
        assert!(filecheck("ab\n", "# CHECK: a b\n", "CHECK").is_err());
        assert_eq!(canonicalize_whitespace("  a \t\tb\n  c"), " a b\n c");
    }

    #[test]
    fn empty_lines() {
        assert_eq!(filecheck("x\n\ny\n", "# CHECK: x\n# CHECK-EMPTY:\n# CHECK-NEXT: y\n", "CHECK"), Ok(()));
        assert!(filecheck("x\ny\n", "# CHECK: x\n# CHECK-EMPTY:\n", "CHECK").is_err());
    }

    #[test]
    fn no_directive_is_an_error() {
        assert!(filecheck(OUT, "# nothing here\n", "CHECK").is_err());
    }
}
