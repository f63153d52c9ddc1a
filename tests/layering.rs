//! The layers of `src/` (docs/architecture.md), checked like rust-analyzer's tidy tests: every
//! `crate::…` path in the code of a module names a module of its own layer or of a layer below.
//!
//! Layers, lowest first:
//! `diag`, `text` → `ir` → the syntax (`ast`, `lexer`, `parser`) → `ops` → `backend` →
//! `analysis` → `lower`, `passes`, `verify` → `printer`, `codegen`, `interp`, `builder` (the
//! program-building API for tests and tools, which prints types in its errors) → `driver`. Test code (`tests.rs`, `*_tests.rs` and `#[cfg(test)] mod tests` blocks) may use
//! anything.

mod common;

use std::path::Path;

/// Module name → layer (higher may use lower).
const LAYERS: &[(&str, u8)] = &[
    ("diag", 0),
    ("text", 0),
    ("par", 0),
    ("suggest", 0),
    ("ir", 1),
    ("ast", 2),
    ("lexer", 2),
    ("parser", 2),
    ("ops", 3),
    ("backend", 4),
    ("analysis", 5),
    ("lower", 6),
    ("passes", 6),
    ("verify", 6),
    ("printer", 7),
    ("codegen", 7),
    ("interp", 7),
    ("builder", 7),
    ("driver", 8),
];

/// Imports against the layers, as `(file, imported module)`. Each is a known debt: fix the
/// import and delete its line here; the test fails when an entry is no longer needed, so the
/// list only shrinks.
const KNOWN_EXCEPTIONS: &[(&str, &str)] = &[];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// The modules a line names as `crate::NAME` (in a `use` or an inline path), including those
/// of a group: `use crate::{ir, ops::X}`.
fn crate_modules(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    found.push(name);
                }
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            found.push(name);
        }
    }
    found
}

#[test]
fn imports_follow_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = common::files_under(&src, ".rs");
    assert!(files.len() > 50, "too few files under {}", src.display());
    let mut violations = Vec::new();
    let mut unknown = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(&src).unwrap_or(path).to_string_lossy().replace('\\', "/");
        let file_name = path.file_name().unwrap_or_default().to_string_lossy();
        if file_name == "tests.rs" || file_name.ends_with("_tests.rs") {
            continue;
        }
        let module = rel.split(['/', '.']).next().unwrap_or_default().to_string();
        let Some(own) = layer(&module) else {
            if !matches!(module.as_str(), "lib" | "main") {
                unknown.push(rel.clone());
            }
            continue;
        };
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for line in common::code_lines(&text) {
            for used in crate_modules(line) {
                match layer(&used) {
                    Some(l) if l > own => violations.push((rel.clone(), used)),
                    Some(_) => {}
                    None => unknown.push(format!("{rel}: crate::{used}")),
                }
            }
        }
    }
    assert!(unknown.is_empty(), "modules missing from LAYERS: {unknown:?}");
    violations.sort();
    violations.dedup();
    let new: Vec<_> =
        violations.iter().filter(|(f, m)| !KNOWN_EXCEPTIONS.contains(&(f.as_str(), m.as_str()))).collect();
    let fixed: Vec<_> =
        KNOWN_EXCEPTIONS.iter().filter(|(f, m)| !violations.iter().any(|(vf, vm)| vf == f && vm == m)).collect();
    assert!(new.is_empty(), "imports against the layers (file, module): {new:#?}");
    assert!(fixed.is_empty(), "these known exceptions are fixed; delete them from KNOWN_EXCEPTIONS: {fixed:?}");
}

#[test]
fn crate_paths_are_found_in_groups_and_inline() {
    assert_eq!(crate_modules("use crate::ir::{A, B};"), ["ir"]);
    assert_eq!(crate_modules("use crate::{diag::X, ops};"), ["diag", "ops"]);
    assert_eq!(crate_modules("    let x = crate::driver::frontend(s); crate::ir::f()"), ["driver", "ir"]);
    let lines: Vec<_> =
        common::code_lines("a\n// crate::x\n#[cfg(test)]\nmod tests {\n use crate::driver;\n}\n").collect();
    assert_eq!(lines, ["a", "#[cfg(test)]"]);
}
