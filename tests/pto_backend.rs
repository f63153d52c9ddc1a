//! The PTO-ISA MLIR backend (`--emit pto`, docs/pto-backend.md) end to end:
//! - every example compiles through its natural pipeline (`ptoas`) to kernel files and the
//!   orchestration C++ with `-o DIR` (insta snapshots of the whole files; a program of Opaque
//!   functions only, which gets no file, to its module), or fails with a located diagnostic
//!   naming the operation it cannot emit;
//! - the single-module form (no `-o`) of whole programs (insta snapshots);
//! - a sanity check that every SSA value of ptoc's MLIR is defined exactly once before it is
//!   used (`%arg`s, `%c…`/`%cst…` constants, counter values), over the examples, the lit tests
//!   of `lit-tests/pto/` and every case of the PTO corpus ptoc compiles.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ptoc::driver::{self, Output};

fn ptoc(args: &[&str], input: &Path) -> Output {
    let mut argv: Vec<String> = ["ptoc", "--error-format", "short"].iter().chain(args).map(|s| s.to_string()).collect();
    argv.push(input.to_string_lossy().into_owned());
    driver::run(&argv, b"")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn examples() -> Vec<PathBuf> {
    let mut v = common::files_under(&common::manifest_dir().join("examples"), ".pto");
    v.sort();
    v
}

/// The problems of an MLIR text: a value used before (or without) its definition, a value
/// defined twice, and (unless `allow_empty`) an empty operand.
fn ssa_problems(mlir: &str, allow_empty: bool) -> Vec<String> {
    let mut defined: HashSet<String> = HashSet::new();
    let mut problems = Vec::new();
    // Constants are hoisted to the top of the function; loop values are defined on their
    // `scf.for` line; everything else on the left of `=`.
    for (n, line) in mlir.lines().enumerate() {
        let n = n + 1;
        let t = line.trim();
        if t.starts_with("func.func") {
            defined.clear();
            for p in t.split("%arg").skip(1) {
                let num: String = p.chars().take_while(|c| c.is_ascii_digit()).collect();
                define(&mut defined, &format!("%arg{num}"), n, &mut problems);
            }
            continue;
        }
        let (lhs, rhs) = match t.split_once(" = ") {
            Some((l, r)) if l.starts_with('%') => (l, r),
            _ => ("", t),
        };
        // Values defined on this line: the results, a loop's induction variable and iter args.
        let mut defs: Vec<String> = lhs.split(", ").filter(|s| !s.is_empty()).map(String::from).collect();
        let mut uses_text = rhs.to_string();
        if let Some(rest) = rhs.strip_prefix("scf.for ") {
            let (iv, rest) = rest.split_once(" = ").unwrap_or(("", rest));
            defs.push(iv.to_string());
            uses_text = rest.to_string();
            if let Some((head, carried)) = rest.split_once("iter_args(") {
                let carried = carried.split(") ->").next().unwrap_or("");
                let mut uses = head.to_string();
                for pair in carried.split(", ") {
                    if let Some((a, init)) = pair.split_once(" = ") {
                        defs.push(a.to_string());
                        uses.push(' ');
                        uses.push_str(init);
                    }
                }
                uses_text = uses;
            }
        }
        for u in values(&uses_text) {
            if !defined.contains(&u) {
                problems.push(format!("line {n}: {u} used before its definition"));
            }
        }
        for d in defs {
            define(&mut defined, &d, n, &mut problems);
        }
        if !allow_empty
            && (t.contains("(, ")
                || t.contains(", ,")
                || t.contains(", )")
                || t.contains("yield  :")
                || t.contains("yield ,"))
        {
            problems.push(format!("line {n}: empty operand"));
        }
    }
    problems
}

fn define(defined: &mut HashSet<String>, v: &str, line: usize, problems: &mut Vec<String>) {
    if !defined.insert(v.to_string()) {
        problems.push(format!("line {line}: {v} defined twice"));
    }
}

/// The `%name` tokens of a text.
fn values(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i] == '%' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == '_' || b[j] == '-') {
                j += 1;
            }
            out.push(b[i..j].iter().collect());
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn the_sanity_check_finds_problems() {
    let good = "module {\n  func.func @f(%arg0: i64) {\n  %c0 = arith.constant 0 : index\n  %1 = scf.for %0 = %c0 to %arg0 step %c0 iter_args(%2 = %c0) -> (index) {\n    scf.yield %2 : index\n  }\n  return\n  }\n}\n";
    assert_eq!(ssa_problems(good, false), Vec::<String>::new());
    assert_eq!(ssa_problems(&good.replace("%arg0 step", "%9 step"), false), ["line 4: %9 used before its definition"]);
    assert_eq!(ssa_problems(&good.replace("%1 = scf", "%c0 = scf"), false), ["line 4: %c0 defined twice"]);
    assert_eq!(ssa_problems(&good.replace("yield %2", "yield "), false), ["line 5: empty operand"]);
}

#[test]
fn examples_compile_to_pto_files_or_name_what_they_cannot() {
    for ex in examples() {
        let name = common::relative_name(&ex, &common::manifest_dir().join("examples"));
        let out = ptoc(&["--emit", "pto", "--pipeline", "ptoas", "-o", "out"], &ex);
        if out.code != 0 {
            // A located diagnostic (file:line:col) naming the operation.
            let err = text(&out.stderr);
            let first = err.lines().next().unwrap_or_default();
            assert!(out.code == 1 && out.files.is_empty(), "{name}: {err}");
            assert!(first.contains(".pto:") && first.contains(": error[") && first.contains("block."), "{name}: {err}");
            insta::assert_snapshot!(
                format!("pto_refused@{name}"),
                first.rsplit_once(".pto:").map_or(first, |(_, r)| r)
            );
            continue;
        }
        let mut files: Vec<(String, String)> =
            out.files.iter().map(|(p, b)| (common::relative_name(p, Path::new("out")), text(b))).collect();
        files.sort();
        if files.is_empty() {
            // Opaque functions only: the driver form writes no file (pto-codegen.md §1.2); the
            // module form holds them.
            let module = ptoc(&["--emit", "pto", "--pipeline", "ptoas"], &ex);
            assert_eq!(module.code, 0, "{name}: {}", text(&module.stderr));
            let mlir = text(&module.stdout);
            assert_eq!(ssa_problems(&mlir, false), Vec::<String>::new(), "{name}");
            insta::assert_snapshot!(format!("pto_module@{name}"), mlir);
            continue;
        }
        assert!(files.iter().any(|(p, _)| p.starts_with("kernels/") && p.ends_with(".pto")), "{name}: {files:?}");
        let mut all = String::new();
        for (path, body) in &files {
            if path.ends_with(".pto") {
                assert_eq!(ssa_problems(body, false), Vec::<String>::new(), "{name}: {path}");
            }
            all.push_str(&format!("// ==== {path}\n{body}"));
        }
        insta::assert_snapshot!(format!("pto_files@{name}"), all);
    }
}

/// The single module of a program with several kernels of both core types (functions in name
/// order), without `-o`.
#[test]
fn module_of_a_whole_program() {
    let ex = common::manifest_dir().join("examples/vector_dag.pto");
    // The module form refuses Orchestration functions: compile the kernels alone.
    let src = std::fs::read_to_string(&ex).unwrap();
    let cut = src.find("    @pl.function(type=pl.FunctionType.Orchestration)").unwrap_or(src.len());
    let out = driver::run(&["ptoc".into(), "--emit".into(), "pto".into(), "-".into()], src[..cut].as_bytes());
    assert_eq!(out.code, 0, "{}", text(&out.stderr));
    let mlir = text(&out.stdout);
    assert!(mlir.ends_with("}\n") && !mlir.ends_with("}\n\n"));
    assert_eq!(ssa_problems(&mlir, false), Vec::<String>::new());
    insta::assert_snapshot!("pto_module_vector_dag_kernels", mlir);
}

/// Every `lit-tests/pto/` input that compiles gives MLIR whose values are defined once, with
/// no empty operand.
#[test]
fn lit_inputs_are_well_formed_ssa() {
    for f in common::files_under(&common::manifest_dir().join("lit-tests/pto"), ".pto") {
        let out = ptoc(&["--emit", "pto"], &f);
        if out.code == 0 {
            assert_eq!(ssa_problems(&text(&out.stdout), false), Vec::<String>::new(), "{}", f.display());
        }
    }
}

/// Every PTO corpus case ptoc compiles (its own output, conformant or deviating) defines each
/// value once before use. Empty operands are allowed here: ptoc reproduces the reference's
/// empty yield of a tensor stored by `block.store` (docs/pto-backend.md, known issues).
#[test]
fn corpus_outputs_are_well_formed_ssa() {
    let dir = match std::env::var_os("PTOC_CONFORMANCE_PTO_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => common::manifest_dir().join("../shared/conformance-pto"),
    };
    if !dir.is_dir() {
        println!("PTO corpus not found at {}; 0 checks", dir.display());
        return;
    }
    let mut checked = 0;
    for input in common::files_under(&dir, "input.pto") {
        for args in
            [&["--pipeline", "none", "--emit", "pto"][..], &["--pipeline", "none", "--emit", "pto", "-o", "out"]]
        {
            let out = ptoc(args, &input);
            let mut texts = vec![text(&out.stdout)];
            texts.extend(
                out.files.iter().filter(|(p, _)| p.extension().is_some_and(|e| e == "pto")).map(|(_, b)| text(b)),
            );
            for t in texts.iter().filter(|t| !t.is_empty()) {
                assert_eq!(ssa_problems(t, true), Vec::<String>::new(), "{}", input.display());
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} outputs checked");
}
