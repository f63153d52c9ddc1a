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
    // `scf.for` line, a `scf.while`'s before-region arguments on its line and its after-region
    // arguments on the `^bb0(…):` line; everything else on the left of `=`.
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
        if let Some(rest) = rhs.strip_prefix("scf.while (") {
            let carried = rest.split(") :").next().unwrap_or("");
            let mut uses = String::new();
            for pair in carried.split(", ") {
                if let Some((a, init)) = pair.split_once(" = ") {
                    defs.push(a.to_string());
                    uses.push(' ');
                    uses.push_str(init);
                }
            }
            uses_text = uses;
        }
        if let Some(args) = t.strip_prefix("^bb0(") {
            for arg in args.trim_end_matches("):").split(", ") {
                if let Some((a, _)) = arg.split_once(" : ") {
                    defs.push(a.to_string());
                }
            }
            uses_text.clear();
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
    let good_while = "module {\n  func.func @f(%arg0: i64) {\n  %c0 = arith.constant 0 : index\n  %3 = scf.while (%1 = %c0) : (index) -> (index) {\n    %4 = arith.cmpi slt, %1, %arg0 : index\n    scf.condition(%4) %1 : index\n  } do {\n  ^bb0(%2 : index):\n    scf.yield %2 : index\n  }\n  return\n  }\n}\n";
    assert_eq!(ssa_problems(good_while, false), Vec::<String>::new());
    assert_eq!(
        ssa_problems(&good_while.replace("(%1 = %c0)", "(%1 = %9)"), false),
        ["line 4: %9 used before its definition"]
    );
    assert_eq!(
        ssa_problems(&good_while.replace("^bb0(%2", "^bb0(%5"), false),
        ["line 9: %2 used before its definition"]
    );
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
            assert!(located(first) && names_an_op(first), "{name}: {err}");
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

/// `file:line:col: error[…]` (the short error format): a diagnostic with a source location.
fn located(first: &str) -> bool {
    let Some((_, rest)) = first.split_once(".pto:").or_else(|| first.split_once("<stdin>:")) else { return false };
    let mut parts = rest.splitn(3, ':');
    let (line, col) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    !line.is_empty()
        && line.chars().all(|c| c.is_ascii_digit())
        && !col.is_empty()
        && col.chars().all(|c| c.is_ascii_digit())
        && rest.contains(": error[")
}

/// The message names an operation (`block.…`, `tensor.…`, `pto.…`), not just a construct.
fn names_an_op(first: &str) -> bool {
    let msg = first.split_once(": error[").map_or("", |(_, m)| m);
    ["block.", "tensor.", "pto.", "system."].iter().any(|p| msg.contains(p))
}

/// `ptoc --emit pto --pipeline ptoas EXAMPLE` without `-o`: the single module, or a
/// located diagnostic naming the op. The one other refusal is the module form's refusal of an
/// Orchestration function (spec pto-codegen.md §1.1, §13: the module has no C++; with `-o DIR`
/// the same examples compile, `examples_compile_to_pto_files_or_name_what_they_cannot`).
#[test]
fn examples_compile_to_a_module_or_name_what_they_cannot() {
    let mut compiled = 0;
    for ex in examples() {
        let name = common::relative_name(&ex, &common::manifest_dir().join("examples"));
        let out = ptoc(&["--emit", "pto", "--pipeline", "ptoas"], &ex);
        let err = text(&out.stderr);
        let first = err.lines().next().unwrap_or_default();
        if out.code == 0 {
            assert_eq!(ssa_problems(&text(&out.stdout), false), Vec::<String>::new(), "{name}");
            compiled += 1;
            continue;
        }
        assert_eq!(out.code, 1, "{name}: {err}");
        assert!(located(first), "{name}: not located: {err}");
        let orchestration = first.contains("does not support Orchestration functions");
        assert!(orchestration || names_an_op(first), "{name}: names no op: {err}");
    }
    assert!(compiled >= 2, "only {compiled} examples compile to a module");
}

/// The single module of a program with several kernels of both core types (functions in name
/// order), without `-o`.
#[test]
fn module_of_a_whole_program() {
    let ex = common::manifest_dir().join("examples/vector_dag.pto");
    // The module form refuses Orchestration functions: compile the kernels alone.
    let src = std::fs::read_to_string(&ex).unwrap();
    let cut = src.find("    @pl.function(type=pl.FunctionType.Orchestration)").unwrap_or(src.len());
    let out = driver::run(&["ptoc".into(), "--emit".into(), "pto".into(), "-".into()], &src.as_bytes()[..cut]);
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

/// The PTO corpus (generated data) has 115 inputs, which give 190 MLIR texts.
const MIN_PTO_INPUTS: usize = 115;
const MIN_PTO_OUTPUTS: usize = 190;

/// Every PTO corpus case ptoc compiles (its own output, conformant or deviating) defines each
/// value once before use. Empty operands are allowed here, as `--pipeline none` reads corpus
/// inputs whose conformant output may reproduce an empty operand of the reference.
#[test]
fn corpus_outputs_are_well_formed_ssa() {
    let dir = common::corpus::pto_corpus_dir();
    if !common::require_corpus(&dir, "the SSA form of ptoc's MLIR for the PTO corpus") {
        return;
    }
    let (mut inputs, mut checked) = (0, 0);
    for input in common::files_under(&dir, "input.pto") {
        inputs += 1;
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
    common::assert_checked("PTO corpus inputs", inputs, MIN_PTO_INPUTS);
    common::assert_checked("MLIR outputs of PTO corpus inputs", checked, MIN_PTO_OUTPUTS);
}

// ---------------------------------------------------------------------------------------------
// Held-out programs, of the same kinds as the corpus's cases and checked the same way. The
// corpus `conformance-pto` holds the reference's output for genmix seeds 1–60 of each kind;
// there is no reference output for any other program. So this test generates
// programs of the same kinds from seeds the corpus does not use — **genmix seeds 101..=100+N
// for each of the 7 kinds, N = 12 by default, `PTOC_PTO_HELDOUT=N` for more** — and checks
// the properties that hold without a reference (docs/pto-backend.md, "Held-out check"):
// 1. `--emit pto --pipeline ptoas -o DIR` succeeds, or fails with exit 1 and a located
//    diagnostic (no crash, no internal error, no unlocated message); the module form (no
//    `-o`) likewise;
// 2. the output is deterministic (two runs, identical files);
// 3. every `pto.*` instruction in a kernel is one the spec's PTO-ISA op table lists
//    (`../shared/spec/pto-codegen.md`; skipped without the spec);
// 4. every SSA value used is defined, once, before use, and no operand is empty;
// 5. stage invariance: printing the post-pipeline program (`--emit ir`) and giving that text
//    to `--emit pto --pipeline none` gives the same files (the corpus's `input.pto` route).

const KINDS: [&str; 7] = ["vector", "matmul", "loop", "branch", "reduce", "scalar", "mixed"];
/// The first held-out seed: the corpus was recorded from seeds 1–60.
const FIRST_HELDOUT_SEED: u64 = 101;

fn ptoc_text(args: &[&str], input: &str) -> Output {
    let argv: Vec<String> = ["ptoc", "--error-format", "short"].iter().chain(args).map(|s| s.to_string()).collect();
    driver::run(&argv, input.as_bytes())
}

/// The instructions the spec lists: every `pto.<name>` token of pto-codegen.md.
fn spec_instructions() -> Option<HashSet<String>> {
    let spec = std::fs::read_to_string(common::manifest_dir().join("../shared/spec/pto-codegen.md")).ok()?;
    let mut set = HashSet::new();
    for (i, _) in spec.match_indices("pto.") {
        let name: String =
            spec[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_').collect();
        set.insert(name.trim_end_matches('.').to_string());
    }
    Some(set)
}

/// The sorted `.pto`/`.cpp` files of a run.
fn sorted_files(out: &Output) -> Vec<(String, String)> {
    let mut f: Vec<(String, String)> =
        out.files.iter().map(|(p, b)| (common::relative_name(p, Path::new("out")), text(b))).collect();
    f.sort();
    f
}

#[derive(Default)]
struct HeldOut {
    programs: usize,
    compiled: usize,
    refused: std::collections::BTreeMap<String, usize>,
}

/// Checks one held-out program; `Err` says what is wrong.
fn check_held_out(src: &str, isa: Option<&HashSet<String>>, t: &mut HeldOut) -> Result<(), String> {
    t.programs += 1;
    let args = ["--emit", "pto", "--pipeline", "ptoas", "-o", "out", "-"];
    let first = ptoc_text(&args, src);
    let second = ptoc_text(&args, src);
    if (first.code, &first.stdout, &first.stderr, sorted_files(&first))
        != (second.code, &second.stdout, &second.stderr, sorted_files(&second))
    {
        return Err("two runs differ".into());
    }
    let module = ptoc_text(&["--emit", "pto", "--pipeline", "ptoas", "-"], src);
    for (what, out) in [("-o DIR", &first), ("module", &module)] {
        if out.code != 0 {
            let err = text(&out.stderr);
            let line = err.lines().next().unwrap_or_default();
            if out.code != 1 || !located(line) || err.contains("internal error") || err.contains("panicked") {
                return Err(format!(
                    "{what}: not a located diagnostic (exit {}): {}",
                    out.code,
                    common::excerpt(&err, 800)
                ));
            }
        } else if what == "module" {
            let problems = ssa_problems(&text(&out.stdout), false);
            if !problems.is_empty() {
                return Err(format!("module: {problems:?}"));
            }
        }
    }
    if first.code != 0 {
        let err = text(&first.stderr);
        let line = err.lines().next().unwrap_or_default();
        let msg = line.split_once(": error[").map_or(line, |(_, m)| m);
        // Group refusals by message up to the first `:` or `'` (the op or construct).
        let key: String = msg.chars().take_while(|c| *c != '\'' && *c != '`').take(70).collect();
        *t.refused.entry(key).or_default() += 1;
        return Ok(());
    }
    let files = sorted_files(&first);
    for (path, body) in files.iter().filter(|(p, _)| p.ends_with(".pto")) {
        let problems = ssa_problems(body, false);
        if !problems.is_empty() {
            return Err(format!("{path}: {problems:?}"));
        }
        if let Some(isa) = isa {
            for word in body.split(|c: char| c.is_whitespace() || c == '(' || c == ',') {
                let w = word.trim_start_matches('%');
                if w.starts_with("pto.") && !isa.contains(w) {
                    return Err(format!("{path}: `{w}` is not an instruction of the spec"));
                }
            }
        }
    }
    // Stage invariance through the printed post-pipeline program.
    let ir = ptoc_text(&["--emit", "ir", "--pipeline", "ptoas", "-"], src);
    if ir.code != 0 {
        return Err(format!("--emit ir fails where --emit pto succeeds: {}", text(&ir.stderr)));
    }
    let again = ptoc_text(&["--emit", "pto", "--pipeline", "none", "-o", "out", "-"], &text(&ir.stdout));
    if again.code != 0 {
        return Err(format!("the printed post-pipeline program fails: {}", common::excerpt(&text(&again.stderr), 800)));
    }
    if sorted_files(&again) != files {
        return Err("the printed post-pipeline program gives other files".into());
    }
    t.compiled += 1;
    Ok(())
}

#[test]
fn held_out_genmix_programs() {
    let script = common::manifest_dir().join("../shared/tools/genmix.py");
    if !common::require_corpus(&script, "PTO held-out programs") {
        return;
    }
    let per_kind: u64 = std::env::var("PTOC_PTO_HELDOUT").ok().and_then(|v| v.parse().ok()).unwrap_or(12);
    let spec = common::manifest_dir().join("../shared/spec/pto-codegen.md");
    let isa = if common::require_corpus(&spec, "the held-out programs' instructions against the spec") {
        spec_instructions()
    } else {
        None
    };
    let mut t = HeldOut::default();
    let mut failures = Vec::new();
    for kind in KINDS {
        for seed in FIRST_HELDOUT_SEED..FIRST_HELDOUT_SEED + per_kind {
            let Some(src) = common::genmix(&script, kind, seed) else { continue };
            if let Err(e) = check_held_out(&src, isa.as_ref(), &mut t) {
                failures.push(format!("genmix --kind {kind} --seed {seed}: {e}"));
            }
        }
    }
    if t.programs == 0 && !common::in_ci() {
        eprintln!("pto held-out: genmix.py produced nothing (no python3?); nothing checked");
        return;
    }
    eprintln!("pto held-out: {} programs, {} compiled and checked, refused: {:?}", t.programs, t.compiled, t.refused);
    assert!(failures.is_empty(), "{} of {} held-out programs:\n{}", failures.len(), t.programs, failures.join("\n"));
    common::assert_checked("held-out programs", t.programs, KINDS.len() * per_kind as usize);
    assert!(t.compiled * 3 >= t.programs, "only {} of {} held-out programs compile", t.compiled, t.programs);
}
