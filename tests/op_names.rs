//! Operator names live in `src/ops/` only (one source of truth per fact): no code outside it compares or builds an
//! operator by its name, quoted (`"block.alloc"`) or as a name constant (`ops::names` is private
//! to `ops`), and no code compares `ops::name(op)`; it asks the operator table (a column of the
//! entry such as `result_space`, `result_buffer` or `sync`) or compares typed ids
//! (`op == ops::id::ALLOC`). Test code (`tests.rs`, `*_tests.rs`, `#[cfg(test)] mod` blocks) and
//! comments may name operators freely.

mod common;

use std::path::Path;

/// Files that still name operators in quotes, each a known debt: fix the file and delete its
/// line here; the test fails when an entry is no longer needed, so the list only shrinks.
const KNOWN_EXCEPTIONS: &[&str] = &[];

/// The string literals of a line (plain `"…"`, enough for names, which have no escapes); the
/// part after a `//` comment is left out.
fn literals(line: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = line;
    loop {
        let quote = rest.find('"');
        let comment = rest.find("//");
        match (quote, comment) {
            (Some(q), c) if c.is_none_or(|c| q < c) => {
                let after = &rest[q + 1..];
                let Some(end) = after.find('"') else { break };
                found.push(&after[..end]);
                rest = &after[end + 1..];
            }
            _ => break,
        }
    }
    found
}

#[test]
fn no_operator_name_is_quoted_outside_src_ops() {
    let names: Vec<&str> = ptoc::ops::OPS.iter().map(|d| d.name).collect();
    assert!(names.len() > 100, "the table has {} entries", names.len());
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = common::files_under(&src, ".rs");
    let mut found: Vec<(String, String)> = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(&src).unwrap_or(path).to_string_lossy().replace('\\', "/");
        let file_name = path.file_name().unwrap_or_default().to_string_lossy();
        if rel.starts_with("ops/") || file_name == "tests.rs" || file_name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for line in common::code_lines(&text) {
            for lit in literals(line) {
                if names.contains(&lit) {
                    found.push((rel.clone(), lit.to_string()));
                }
            }
        }
    }
    let new: Vec<_> = found.iter().filter(|(f, _)| !KNOWN_EXCEPTIONS.contains(&f.as_str())).collect();
    let fixed: Vec<_> = KNOWN_EXCEPTIONS.iter().filter(|f| !found.iter().any(|(g, _)| g == *f)).collect();
    assert!(new.is_empty(), "operator names quoted outside src/ops (use a predicate or ops::names): {new:?}");
    assert!(fixed.is_empty(), "no quoted operator name left in {fixed:?}: remove them from KNOWN_EXCEPTIONS");
}

/// The code lines of the files under `src/` outside `src/ops/` (test code left out), with their
/// paths relative to `src/`.
fn code_outside_ops() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut lines = Vec::new();
    for path in common::files_under(&src, ".rs") {
        let rel = path.strip_prefix(&src).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        let file_name = path.file_name().unwrap_or_default().to_string_lossy().to_string();
        if rel.starts_with("ops/") || file_name == "tests.rs" || file_name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for line in common::code_lines(&text) {
            let code = line.split("//").next().unwrap_or_default();
            lines.push((rel.clone(), code.to_string()));
        }
    }
    lines
}

#[test]
fn no_operator_name_is_compared_outside_src_ops() {
    let lines = code_outside_ops();
    assert!(lines.len() > 10_000, "too few lines of code: {}", lines.len());
    let compares = |code: &str| {
        code.contains("ops::name(") && (code.contains("==") || code.contains("!=") || code.contains("match "))
    };
    let found: Vec<&(String, String)> = lines
        .iter()
        .filter(|(_, code)| code.contains("names::") && !code.contains("use names::") || compares(code))
        .collect();
    assert!(found.is_empty(), "operator names used outside src/ops (compare typed ids or ask the table): {found:?}");
}
