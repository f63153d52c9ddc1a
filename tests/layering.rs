//! The layers of `src/` (docs/architecture.md), checked like rust-analyzer's tidy tests: every
//! `crate::…` path in the code of a module names a module of its own layer or of a layer below.
//!
//! Layers, lowest first:
//! `diag`, `text` → `ir` → the syntax (`ast`, `lexer`, `parser`) → `ops` → `backend` →
//! `analysis` → `lower`, `verify` → `passes`, `printer`, `codegen`, `interp`, `builder` (the
//! program-building API for tests and tools, which prints types in its errors) → `driver` →
//! `python` (the Python bindings, only built with the feature `python`). Test
//! code (`tests.rs`, `*_tests.rs` and `#[cfg(test)] mod tests` blocks) may use
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
    ("verify", 6),
    ("passes", 7),
    ("printer", 7),
    ("codegen", 7),
    ("interp", 7),
    ("builder", 7),
    ("driver", 8),
    ("python", 9),
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
    let mut found: Vec<String> =
        named_paths(line, &[]).into_iter().filter(|p| p[0] == "crate" && p.len() > 1).map(|p| p[1].clone()).collect();
    found.dedup();
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

/// The module path of a source file under `src/`: `codegen/kernel.rs` → `codegen::kernel`,
/// `passes/insert_sync/mod.rs` → `passes::insert_sync`, `lib.rs` → the crate root.
fn module_path(rel: &str) -> Vec<String> {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib" || p == "main") {
        parts.pop();
    }
    parts
}

/// The paths a line names, as written: `crate::a::b`, `super::a`, `self::a`, and `child::a`
/// for each `child` in `children`; a `{…}` group adds one path per item (groups may nest).
fn named_paths(line: &str, children: &[String]) -> Vec<Vec<String>> {
    let bytes: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_' || bytes[i - 1] == ':');
        if !starts_word || !(bytes[i].is_alphabetic() || bytes[i] == '_') {
            i += 1;
            continue;
        }
        let word_end =
            (i..bytes.len()).find(|&j| !(bytes[j].is_alphanumeric() || bytes[j] == '_')).unwrap_or(bytes.len());
        let word: String = bytes[i..word_end].iter().collect();
        let is_root = matches!(word.as_str(), "crate" | "super" | "self") || children.contains(&word);
        if !is_root || bytes.get(word_end) != Some(&':') || bytes.get(word_end + 1) != Some(&':') {
            i = word_end;
            continue;
        }
        let (paths, end) = path_from(&bytes, i);
        out.extend(paths);
        i = end.max(word_end);
    }
    out
}

/// Reads `a::b::{c, d::e}` from `chars[start..]`: the paths it names and where it ends.
fn path_from(chars: &[char], start: usize) -> (Vec<Vec<String>>, usize) {
    let mut segs = Vec::new();
    let mut i = start;
    loop {
        let end = (i..chars.len()).find(|&j| !(chars[j].is_alphanumeric() || chars[j] == '_')).unwrap_or(chars.len());
        if end > i {
            segs.push(chars[i..end].iter().collect::<String>());
        }
        i = end;
        if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
            i += 2;
            if chars.get(i) == Some(&'{') {
                let mut depth = 0;
                let mut item_start = i + 1;
                let mut out = Vec::new();
                let mut j = i;
                while j < chars.len() {
                    match chars[j] {
                        '{' => depth += 1,
                        '}' | ',' if depth == 1 => {
                            let (inner, _) = path_from(chars, skip_space(chars, item_start));
                            for p in inner {
                                out.push(segs.iter().cloned().chain(p).collect());
                            }
                            item_start = j + 1;
                            if chars[j] == '}' {
                                return (out, j + 1);
                            }
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                return (out, j);
            }
            continue;
        }
        return (vec![segs], i);
    }
}

fn skip_space(chars: &[char], mut i: usize) -> usize {
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    i
}

/// The file import graph of `src/`: file → the files its code names (not itself, not its
/// module's root files or the files below it, not tests).
fn file_imports(src: &Path) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let files = common::files_under(src, ".rs");
    let rels: Vec<String> =
        files.iter().map(|p| p.strip_prefix(src).unwrap_or(p).to_string_lossy().replace('\\', "/")).collect();
    let by_module: std::collections::BTreeMap<Vec<String>, String> =
        rels.iter().filter(|r| !r.ends_with("main.rs")).map(|r| (module_path(r), r.clone())).collect();
    let mut graph = std::collections::BTreeMap::new();
    for (path, rel) in files.iter().zip(&rels) {
        let name = rel.rsplit('/').next().unwrap_or_default();
        if name == "tests.rs" || name.ends_with("_tests.rs") || rel == "main.rs" {
            continue;
        }
        let own = module_path(rel);
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<&str> = common::code_lines(&text).collect();
        let children: Vec<String> = lines
            .iter()
            .filter_map(|l| {
                let t = l.trim_start().trim_start_matches("pub ").trim_start_matches("pub(crate) ");
                t.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')).map(str::to_string)
            })
            .collect();
        // `super` of `a/b.rs` (module a::b) is `a`; of `a/mod.rs` (module a) it is the root.
        let parent: Vec<String> = own[..own.len().saturating_sub(1)].to_vec();
        let mut edges = std::collections::BTreeSet::new();
        for line in &lines {
            for p in named_paths(line, &children) {
                let mut abs: Vec<String> = match p.first().map(String::as_str) {
                    Some("crate") => Vec::new(),
                    Some("super") => parent.clone(),
                    _ => own.clone(),
                };
                let mut rest = &p[..];
                if matches!(p.first().map(String::as_str), Some("crate" | "super" | "self")) {
                    rest = &p[1..];
                }
                while rest.first().is_some_and(|s| s == "super") {
                    abs.pop();
                    rest = &rest[1..];
                }
                abs.extend(rest.iter().cloned());
                let target = (0..=abs.len()).rev().find_map(|n| by_module.get(&abs[..n]));
                // A module root and the files below it (its children's `super::` uses of the
                // root's items, the root's re-exports) are one unit, not a cycle.
                let related = |t: &String| {
                    let m = module_path(t);
                    m.starts_with(&own) || own.starts_with(&m)
                };
                if let Some(t) = target.filter(|t| !related(t) && !t.ends_with("tests.rs")) {
                    edges.insert(t.clone());
                }
            }
        }
        graph.insert(rel.clone(), edges);
    }
    graph
}

/// The strongly connected components of more than one file, each sorted, in sorted order.
fn cycles(graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for m in graph.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    stack.push(m.clone());
                }
            }
        }
        seen
    };
    let reaches: std::collections::BTreeMap<&String, _> = graph.keys().map(|k| (k, reach(k))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for (k, r) in &reaches {
        if !r.contains(*k) || out.iter().any(|c| c.contains(k)) {
            continue;
        }
        let mut comp: Vec<String> =
            r.iter().filter(|m| reaches.get(m).is_some_and(|rm| rm.contains(*k))).cloned().collect();
        comp.sort();
        out.push(comp);
    }
    out.sort();
    out
}

#[test]
fn files_do_not_import_each_other_in_cycles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = file_imports(&src);
    let edges: usize = graph.values().map(|e| e.len()).sum();
    assert!(graph.len() > 50 && edges > 100, "too small an import graph: {} files, {edges} imports", graph.len());
    // Rust allows files of one module to import each other; we do not (no exceptions).
    let found = cycles(&graph);
    let show = |c: &Vec<String>| {
        let ties: Vec<String> = c
            .iter()
            .flat_map(|f| graph[f].iter().filter(|t| c.contains(t)).map(move |t| format!("{f} -> {t}")))
            .collect();
        ties.join(", ")
    };
    let text: Vec<String> = found.iter().map(show).collect();
    assert!(found.is_empty(), "files that import each other in a cycle (break each):\n{}", text.join("\n"));
}

/// The same for the top-level modules (`passes`, `verify`, …): one layer's modules may use each
/// other, but not both ways.
#[test]
fn modules_do_not_import_each_other_in_cycles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let top = |f: &str| module_path(f).first().cloned().unwrap_or_default();
    let mut graph: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
    for (f, targets) in file_imports(&src) {
        let from = top(&f);
        let entry = graph.entry(from.clone()).or_default();
        entry.extend(targets.iter().map(|t| top(t)).filter(|t| *t != from && !t.is_empty()));
    }
    assert!(graph.len() > 15, "too few modules: {:?}", graph.keys());
    let found = cycles(&graph);
    let ties: Vec<String> = found
        .iter()
        .flat_map(|c| {
            let g = &graph;
            c.iter().flat_map(move |m| g[m].iter().filter(|t| c.contains(t)).map(move |t| format!("{m} -> {t}")))
        })
        .collect();
    assert!(ties.is_empty(), "modules that import each other: {ties:?}");
}

#[test]
fn paths_are_resolved_from_groups_and_relative_roots() {
    let kids = vec!["kernel".to_string()];
    assert_eq!(
        named_paths("use super::{kernel::Kernel, ops::emit};", &kids),
        [vec!["super", "kernel", "Kernel"], vec!["super", "ops", "emit"]]
    );
    assert_eq!(
        named_paths("let k = kernel::emit(x); crate::ir::f()", &kids),
        [vec!["kernel", "emit"], vec!["crate", "ir", "f"]]
    );
    assert_eq!(named_paths("use crate::ops::{table::{A, B}, cce};", &[]).len(), 3);
    assert_eq!(module_path("passes/insert_sync/mod.rs"), ["passes", "insert_sync"]);
    assert_eq!(module_path("codegen/kernel.rs"), ["codegen", "kernel"]);
}

/// One style of module root: a module with files of its own is a directory with a `mod.rs`,
/// never a `name.rs` beside a `name/` directory.
#[test]
fn module_roots_are_mod_rs() {
    fn walk(dir: &Path, found: &mut Vec<String>, dirs: &mut usize) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                *dirs += 1;
                if p.with_extension("rs").exists() {
                    found.push(p.with_extension("rs").display().to_string());
                }
                walk(&p, found, dirs);
            }
        }
    }
    let (mut found, mut dirs) = (Vec::new(), 0);
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut found, &mut dirs);
    assert!(dirs > 10, "only {dirs} module directories under src/");
    assert!(found.is_empty(), "module roots beside their directory (move each to <dir>/mod.rs): {found:?}");
}
