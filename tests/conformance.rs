//! The conformance test: walks the golden corpus recorded from the reference (default
//! `../shared/conformance`, or `$PTOC_CONFORMANCE_DIR`) and checks ptoc against every case.
//!
//! Trials:
//! - `conformance`: runs every case (ids `<folder>/<case>`), prints per-folder counts, and
//!   judges the results against `tests/conformance-pending.txt` and
//!   `tests/conformance-deviations.md` (see `common::pending`). `PTOC_UPDATE_PENDING=1`
//!   rewrites the pending file with exactly the failing cases.
//! - `round-trip/<path>`: for every `.pto` file of the corpus, print(parse(text)) == text
//!   (modulo a final newline) and parse(print(P)) is structurally equal to P. No pending list.
//!
//! When the corpus folder does not exist, both say so and check nothing.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::corpus;
use common::json::{self, Json};
use common::pending::{self, Outcome, DEVIATIONS_FILE, PENDING_FILE};
use common::{first_difference, guard, same_text};
use libtest_mimic::{Arguments, Failed, Trial};
use ptoc::driver::{self, Output};
use ptoc::verify::{self, Rule};

fn main() {
    let args = Arguments::from_args();
    common::quiet_panics();
    let dir = corpus::corpus_dir();
    let mut trials = Vec::new();
    if dir.is_dir() {
        let d = dir.clone();
        trials.push(Trial::test("conformance", move || conformance(&d).map_err(Failed::from)));
        for path in common::files_under(&dir, ".pto") {
            let name = format!("round-trip/{}", common::relative_name(&path, &dir));
            trials.push(Trial::test(name, move || round_trip(&path).map_err(Failed::from)));
        }
    } else {
        trials.push(Trial::test("conformance", move || {
            println!("conformance corpus not found at {} (set PTOC_CONFORMANCE_DIR); 0 checks", dir.display());
            Ok(())
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}

// ---------------------------------------------------------------------------------------------
// The conformance trial

fn conformance(corpus: &Path) -> Result<(), String> {
    let results: Vec<(String, Outcome)> = corpus::cases(corpus)
        .into_iter()
        .map(|(id, folder, dir)| {
            let outcome = match run_case(&folder, &dir) {
                Ok(()) => Outcome::Pass,
                Err(why) => Outcome::Fail(common::excerpt(&why, 2000)),
            };
            (id, outcome)
        })
        .collect();

    let root = common::manifest_dir();
    let pending_path = root.join(PENDING_FILE);
    let pending_text = std::fs::read_to_string(&pending_path).unwrap_or_default();
    let deviations =
        pending::parse_deviations(&std::fs::read_to_string(root.join(DEVIATIONS_FILE)).unwrap_or_default());
    let mut listed = pending::parse_pending(&pending_text);
    let mut verdict = pending::judge(&results, &listed, &deviations);

    if std::env::var_os("PTOC_UPDATE_PENDING").is_some_and(|v| v == "1") {
        let new_text = pending::rewrite_pending(&pending_text, &verdict.failing);
        std::fs::write(&pending_path, &new_text).map_err(|e| format!("cannot write {PENDING_FILE}: {e}"))?;
        println!("PTOC_UPDATE_PENDING=1: wrote {} ids to {PENDING_FILE}", verdict.failing.len());
        listed = pending::parse_pending(&new_text);
        verdict = pending::judge(&results, &listed, &deviations);
    }

    println!("conformance corpus: {}", corpus.display());
    println!("{:<32} {:>6} {:>6} {:>7} {:>10}", "folder", "passed", "failed", "pending", "deviations");
    for (folder, c) in &verdict.folders {
        println!("{folder:<32} {:>6} {:>6} {:>7} {:>10}", c.passed, c.failed, c.pending, c.deviations);
    }
    let t = verdict.total();
    println!("({} pending, {} deviations)", t.pending, t.deviations);
    println!("{} passed, {} failed", t.passed, verdict.problems.len());
    if verdict.problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} problem(s) (update the lists by hand, or with PTOC_UPDATE_PENDING=1 for {PENDING_FILE}):\n{}",
            verdict.problems.len(),
            verdict.problems.join("\n")
        ))
    }
}

/// Runs one case; `Err` says why it fails.
fn run_case(folder: &str, dir: &Path) -> Result<(), String> {
    match folder {
        "codegen-cce" => codegen_case(dir),
        "ir-verifier" => ir_verifier_case(dir),
        "pipeline-default" => pipeline_case(dir, "default"),
        "pipeline-ptoas" => pipeline_case(dir, "ptoas"),
        pass if ptoc::passes::lookup(pass).is_some() => pass_case(dir, pass),
        other => Err(format!("unknown kind of case folder `{other}`")),
    }
}

/// The directory name `-o` points at for `--emit cpp`; `driver::run` writes nothing, it
/// returns the files under this name.
const OUT_DIR: &str = "ptoc-conformance-out";

/// Runs ptoc in-process on `input` with `args` before the file name (one-line diagnostics).
fn ptoc(args: &[&str], input: &Path) -> Output {
    let mut argv: Vec<String> =
        ["ptoc", "--error-format", "short"].into_iter().chain(args.iter().copied()).map(String::from).collect();
    argv.push(input.to_string_lossy().into_owned());
    driver::run(&argv, b"")
}

/// Describes a run that should have succeeded.
fn failed_run(out: &Output) -> String {
    format!("ptoc exited with {}: {}", out.code, common::excerpt(String::from_utf8_lossy(&out.stderr).trim(), 1500))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn read_json(path: &Path) -> Result<Json, String> {
    json::parse(&read(path)?).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether the reference ran this case under a VerificationInstrument (meta.json `context`).
fn verified_context(dir: &Path) -> Result<bool, String> {
    let meta = read_json(&dir.join("meta.json"))?;
    let instruments = meta.get("context").and_then(|c| c.get("instruments")).and_then(Json::as_array);
    Ok(instruments.is_some_and(|i| i.iter().any(|x| x.as_str() == Some("VerificationInstrument"))))
}

/// The printed program of a successful run must equal `expected` (modulo a final newline).
fn expect_ir(out: &Output, expected: &Path) -> Result<(), String> {
    if out.code != 0 {
        return Err(failed_run(out));
    }
    let want = read(expected)?;
    let got = String::from_utf8_lossy(&out.stdout);
    if same_text(&want, &got) {
        Ok(())
    } else {
        Err(format!("output differs from {}: {}", corpus::file_name(expected), first_difference(&want, &got)))
    }
}

/// A case with `expected.err`: ptoc must fail with an error in the input — not crash, and not
/// merely because something is not implemented yet.
fn expect_failure(out: &Output, err_file: &Path) -> Result<(), String> {
    let not_implemented = format!("error[{}]", ptoc::diag::codes::PASS_NOT_IMPLEMENTED);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if (1..=100).contains(&out.code) && !stderr.contains(&not_implemented) {
        return Ok(());
    }
    let reference = read(err_file)?;
    let first = reference.lines().next().unwrap_or("");
    Err(format!("the reference failed (`{first}`); ptoc: {}", failed_run(out)))
}

/// `<pass>/<case>`: exactly that pass on input.pto.
fn pass_case(dir: &Path, pass: &str) -> Result<(), String> {
    let mut args = vec!["--pipeline", "none", "--passes", pass];
    if verified_context(dir)? {
        args.push("--verify-each");
    }
    let out = ptoc(&args, &dir.join("input.pto"));
    let err_file = dir.join("expected.err");
    if err_file.exists() {
        return expect_failure(&out, &err_file);
    }
    expect_ir(&out, &dir.join("expected.pto"))?;
    if ptoc::passes::lookup(pass).map(|p| p.name) == Some("run-verifier") {
        // TODO(run-verifier pass): when the pass reports its findings through the driver,
        // compare what the driver prints instead of calling the verifier here.
        let meta = read_json(&dir.join("meta.json"))?;
        let disabled: Vec<&str> = meta
            .get("disabled_rules")
            .and_then(Json::as_array)
            .map(|a| a.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        if let Some(unknown) = disabled.iter().find(|n| Rule::from_name(n).is_none()) {
            return Err(format!("meta.json disables unknown rule `{unknown}`"));
        }
        let rules: Vec<Rule> = Rule::DEFAULT.iter().copied().filter(|r| !disabled.contains(&r.name())).collect();
        compare_diagnostics(dir, &rules)?;
    }
    Ok(())
}

/// `ir-verifier/<case>`: the verifier with meta.json's `rules_enabled`.
fn ir_verifier_case(dir: &Path) -> Result<(), String> {
    let meta = read_json(&dir.join("meta.json"))?;
    let enabled = meta.get("rules_enabled").and_then(Json::as_object).ok_or("meta.json has no rules_enabled")?;
    let mut on = Vec::new();
    for (name, value) in enabled {
        let rule = Rule::from_name(name).ok_or_else(|| format!("meta.json names unknown rule `{name}`"))?;
        if value.as_bool() == Some(true) {
            on.push(rule);
        }
    }
    let rules: Vec<Rule> = Rule::DEFAULT.iter().copied().filter(|r| on.contains(r)).collect();
    compare_diagnostics(dir, &rules)
}

/// ptoc's verifier findings on input.pto, as (rule name, code), must equal the reference's
/// (expected.diagnostics.json), in order. Messages and spans are not compared (spans refer to
/// the reference's test sources).
fn compare_diagnostics(dir: &Path, rules: &[Rule]) -> Result<(), String> {
    let expected_json = read_json(&dir.join("expected.diagnostics.json"))?;
    let items = expected_json.get("diagnostics").and_then(Json::as_array).ok_or("no `diagnostics` array")?;
    let mut expected = Vec::new();
    for d in items {
        let rule = d.get("rule_name").and_then(Json::as_str).ok_or("diagnostic without rule_name")?;
        let code = d.get("error_code").and_then(Json::as_i64).ok_or("diagnostic without error_code")?;
        expected.push((rule.to_string(), code));
    }
    let input = dir.join("input.pto");
    let text = read(&input)?;
    let prog = guard(|| driver::frontend(&text))?.map_err(|d| does_not_compile(&d, &input, &text))?;
    let found = guard(|| verify::verify(&prog, rules))?;
    let actual: Vec<(String, i64)> =
        found.iter().map(|d| (d.rule.name().to_string(), i64::from(d.error_code))).collect();
    if actual == expected {
        Ok(())
    } else {
        Err(format!("verifier diagnostics (rule, code) differ: expected {expected:?}, got {actual:?}"))
    }
}

fn does_not_compile(diags: &[ptoc::diag::Diagnostic], path: &Path, text: &str) -> String {
    let name = path.to_string_lossy();
    let lines: Vec<String> = diags.iter().take(5).map(|d| ptoc::diag::short(d, &name, text)).collect();
    format!("input does not compile:\n{}", lines.join("\n"))
}

/// `codegen-cce/<case>`: `--emit cpp` with no passes must produce exactly `expected/`.
fn codegen_case(dir: &Path) -> Result<(), String> {
    let out = ptoc(&["--pipeline", "none", "--emit", "cpp", "-o", OUT_DIR], &dir.join("input.pto"));
    let err_file = dir.join("expected.err");
    if err_file.exists() {
        return expect_failure(&out, &err_file);
    }
    expect_files(&out, &dir.join("expected"))
}

/// `pipeline-<name>/<case>`: every `after-NN-<pass>.pto` is the IR after that pass
/// (`--stop-after <pass>`), and `codegen/` the C++ of the whole pipeline.
fn pipeline_case(dir: &Path, pipeline: &str) -> Result<(), String> {
    let input = dir.join("input.pto");
    let verify_each = verified_context(dir)?;
    let mut stages: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter_map(|p| corpus::stage_pass(&corpus::file_name(&p)).map(|pass| (pass, p)))
        .collect();
    stages.sort_by(|a, b| a.1.cmp(&b.1));
    if stages.is_empty() {
        return Err("no after-NN-<pass>.pto files".into());
    }
    for (pass, expected) in &stages {
        let mut args = vec!["--pipeline", pipeline, "--stop-after", pass.as_str()];
        if verify_each {
            args.push("--verify-each");
        }
        expect_ir(&ptoc(&args, &input), expected).map_err(|e| format!("after {pass}: {e}"))?;
    }
    let codegen = dir.join("codegen");
    if codegen.is_dir() {
        let out = ptoc(&["--pipeline", pipeline, "--emit", "cpp", "-o", OUT_DIR], &input);
        expect_files(&out, &codegen).map_err(|e| format!("codegen: {e}"))?;
    }
    Ok(())
}

/// The files of a successful `--emit cpp -o OUT_DIR` run must be exactly those under `expected`.
fn expect_files(out: &Output, expected: &Path) -> Result<(), String> {
    if out.code != 0 {
        return Err(failed_run(out));
    }
    let mut want = BTreeMap::new();
    for f in common::files_under(expected, "") {
        want.insert(common::relative_name(&f, expected), read(&f)?);
    }
    let mut got = BTreeMap::new();
    for (path, bytes) in &out.files {
        got.insert(common::relative_name(path, Path::new(OUT_DIR)), String::from_utf8_lossy(bytes).into_owned());
    }
    let missing: Vec<&String> = want.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<&String> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    if !missing.is_empty() || !extra.is_empty() {
        return Err(format!("file sets differ: missing {missing:?}, unexpected {extra:?}"));
    }
    for (rel, text) in &want {
        if !same_text(text, &got[rel]) {
            return Err(format!("{rel} differs: {}", first_difference(text, &got[rel])));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Round trip

fn round_trip(path: &Path) -> Result<(), String> {
    let text = read(path)?;
    let first = guard(|| driver::frontend(&text))?.map_err(|d| does_not_compile(&d, path, &text))?;
    let printed = guard(|| ptoc::printer::print_program(&first))?;
    if !same_text(&text, &printed) {
        return Err(format!("print(parse(text)) != text: {}", first_difference(&text, &printed)));
    }
    let second = guard(|| driver::frontend(&printed))?
        .map_err(|d| format!("the printed text does not compile: {}", does_not_compile(&d, path, &printed)))?;
    if guard(|| ptoc::ir::equiv::programs_equal(&first, &second))? {
        Ok(())
    } else {
        Err("parse(print(P)) is not structurally equal to P".into())
    }
}
