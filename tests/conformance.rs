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
//! - `corpora`: every corpus is present (under `CI=true`, where `../shared` always is) and
//!   yields at least as many cases and round-trip files as it holds.
//!
//! Outside CI a corpus that does not exist is reported and not checked.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::corpus;
use common::json::{self, Json};
use common::pending::{self, Outcome, DEVIATIONS_FILE, PENDING_FILE};
use common::{first_difference, guard, same_text};
use libtest_mimic::{Arguments, Failed, Trial};
use ptoc::driver::{self, Output};
use ptoc::verify::{self, Property};

fn main() {
    let args = Arguments::from_args();
    common::quiet_panics();
    let dir = corpus::corpus_dir();
    let dsl_dir = corpus::dsl_corpus_dir();
    let pto_dir = corpus::pto_corpus_dir();
    let mut trials = Vec::new();
    let mut missing = Vec::new();
    let mut found = |d: &Path, what: &str| {
        common::corpus_found(d, what).unwrap_or_else(|e| {
            missing.push(e);
            false
        })
    };
    let main_found = found(&dir, "the conformance corpus (set PTOC_CONFORMANCE_DIR)");
    let dsl_found = found(&dsl_dir, "the DSL conformance corpus (set PTOC_CONFORMANCE_DSL_DIR)");
    let pto_found = found(&pto_dir, "the PTO conformance corpus (set PTOC_CONFORMANCE_PTO_DIR)");
    let mut round_trips = (0, 0);
    if main_found || dsl_found || pto_found {
        let (d, dd, pd) = (dir.clone(), dsl_dir.clone(), pto_dir.clone());
        trials.push(Trial::test("conformance", move || {
            let corpora = Corpora {
                main: main_found.then_some(d.as_path()),
                dsl: dsl_found.then_some(dd.as_path()),
                pto: pto_found.then_some(pd.as_path()),
            };
            conformance(corpora).map_err(Failed::from)
        }));
    } else {
        trials.push(Trial::test("conformance", || {
            println!("no conformance corpus found: nothing checked");
            Ok(())
        }));
    }
    if main_found {
        // A case ptoc refuses on purpose (a deviation: the reference's own test program is
        // wrong) has nothing to round-trip; its refusal is what the deviation asserts.
        let deviations = pending::parse_deviations(
            &std::fs::read_to_string(common::manifest_dir().join(DEVIATIONS_FILE)).unwrap_or_default(),
        );
        for path in common::files_under(&dir, ".pto") {
            let name = format!("round-trip/{}", common::relative_name(&path, &dir));
            let case = common::relative_name(path.parent().unwrap_or(&path), &dir);
            let refusal_listed = deviations.iter().any(|(id, _)| *id == case);
            round_trips.0 += 1;
            trials.push(Trial::test(name, move || round_trip(&path, refusal_listed).map_err(Failed::from)));
        }
    }
    if dsl_found {
        // The reference's printed stages must read back as printed (not as hand-written DSL).
        for path in common::files_under(&dsl_dir, ".pto") {
            if corpus::file_name(&path).starts_with("after-") {
                let name = format!("round-trip/{DSL_FOLDER}/{}", common::relative_name(&path, &dsl_dir));
                round_trips.1 += 1;
                trials.push(Trial::test(name, move || round_trip(&path, false).map_err(Failed::from)));
            }
        }
    }
    trials.push(Trial::test("corpora", move || {
        let mut problems = missing.clone();
        for (present, what, n, floor) in [
            (main_found, "round-trip files of the conformance corpus", round_trips.0, MIN_ROUND_TRIPS.0),
            (dsl_found, "round-trip stage files of the DSL corpus", round_trips.1, MIN_ROUND_TRIPS.1),
        ] {
            if present && n < floor {
                problems.push(format!("only {n} {what}, expected at least {floor}"));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n").into())
        }
    }));
    libtest_mimic::run(&args, trials).exit();
}

/// What the corpora (generated data, fixed) hold: cases of the main, DSL and PTO corpora
/// (ids judged by the `conformance` trial) and `.pto` files of the round-trip trials (the main
/// corpus's, the DSL corpus's stage files). A walk that finds fewer is broken.
const MIN_CASES: (usize, usize, usize) = (244, 220, 649);
const MIN_ROUND_TRIPS: (usize, usize) = (537, 252);

/// Codes with which ptoc refuses programs of the reference's tests that are wrong (see the
/// deviations file): a function declaring a result that it never returns.
const REFUSED_ON_PURPOSE: &[&str] = &[ptoc::diag::codes::MISSING_RETURN, ptoc::diag::codes::RETURN_MISMATCH];

// ---------------------------------------------------------------------------------------------
// The conformance trial

/// The corpora found (`None`: absent, its ids are not judged).
struct Corpora<'a> {
    main: Option<&'a Path>,
    dsl: Option<&'a Path>,
    pto: Option<&'a Path>,
}

fn conformance(corpora: Corpora) -> Result<(), String> {
    let (corpus, dsl_corpus, pto_corpus) = (corpora.main, corpora.dsl, corpora.pto);
    let outcome = |r: Result<(), String>| match r {
        Ok(()) => Outcome::Pass,
        Err(why) => Outcome::Fail(common::excerpt(&why, 2000)),
    };
    let mut results: Vec<(String, Outcome)> = Vec::new();
    let mut too_few = Vec::new();
    let mut at_least = |what: &str, n: usize, floor: usize| {
        if n < floor {
            too_few.push(format!("only {n} {what} checked, expected at least {floor}"));
        }
    };
    if let Some(corpus) = corpus {
        let before = results.len();
        for (id, folder, dir) in corpus::cases(corpus) {
            results.push((id, outcome(run_case(&folder, &dir))));
        }
        at_least("cases of the conformance corpus", results.len() - before, MIN_CASES.0);
    }
    if let Some(dsl) = dsl_corpus {
        let before = results.len();
        for dir in corpus::dsl_cases(dsl) {
            for (id, check) in dsl_checks(&dir) {
                results.push((id, outcome(check())));
            }
        }
        at_least("checks of the DSL corpus", results.len() - before, MIN_CASES.1);
    }
    if let Some(pto) = pto_corpus {
        let before = results.len();
        for dir in corpus::dsl_cases(pto) {
            for (id, check) in pto_checks(&dir) {
                results.push((id, outcome(check())));
            }
        }
        at_least("checks of the PTO corpus", results.len() - before, MIN_CASES.2);
    }
    if !too_few.is_empty() {
        return Err(too_few.join("\n"));
    }
    // Ids of a corpus that is absent are not judged (the lists name cases of all three);
    // `systests/…` entries are real programs ptoc refuses, judged by the execution tests.
    let present = |id: &String| {
        if id.starts_with("systests/") {
            false
        } else if id.starts_with(DSL_FOLDER) {
            dsl_corpus.is_some()
        } else if id.starts_with(PTO_FOLDER) {
            pto_corpus.is_some()
        } else {
            corpus.is_some()
        }
    };

    let root = common::manifest_dir();
    let pending_path = root.join(PENDING_FILE);
    let pending_text = std::fs::read_to_string(&pending_path).unwrap_or_default();
    let deviations =
        pending::parse_deviations(&std::fs::read_to_string(root.join(DEVIATIONS_FILE)).unwrap_or_default());
    let deviations: Vec<(String, String)> = deviations.into_iter().filter(|(id, _)| present(id)).collect();
    let mut listed: Vec<String> = pending::parse_pending(&pending_text).into_iter().filter(present).collect();
    let mut verdict = pending::judge(&results, &listed, &deviations);

    if std::env::var_os("PTOC_UPDATE_PENDING").is_some_and(|v| v == "1") {
        let new_text = pending::rewrite_pending(&pending_text, &verdict.failing);
        std::fs::write(&pending_path, &new_text).map_err(|e| format!("cannot write {PENDING_FILE}: {e}"))?;
        println!("PTOC_UPDATE_PENDING=1: wrote {} ids to {PENDING_FILE}", verdict.failing.len());
        listed = pending::parse_pending(&new_text).into_iter().filter(present).collect();
        verdict = pending::judge(&results, &listed, &deviations);
    }

    for c in corpus.iter().chain(dsl_corpus.iter()).chain(pto_corpus.iter()) {
        println!("conformance corpus: {}", c.display());
    }
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
    // -O0: the pipelines as the reference runs them (its one departure, matmul_acc, is in
    // tests/conformance-deviations.md).
    let mut argv: Vec<String> =
        ["ptoc", "-O0", "--error-format", "short"].into_iter().chain(args.iter().copied()).map(String::from).collect();
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

/// A case with `expected.err`: ptoc must fail with an error in the input, not crash.
fn expect_failure(out: &Output, err_file: &Path) -> Result<(), String> {
    if (1..=100).contains(&out.code) {
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
        if let Some(unknown) = disabled.iter().find(|n| Property::from_rule_name(n).is_none()) {
            return Err(format!("meta.json disables unknown rule `{unknown}`"));
        }
        let rules: Vec<Property> =
            Property::DEFAULT.iter().copied().filter(|r| !disabled.contains(&r.rule_name())).collect();
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
        let rule = Property::from_rule_name(name).ok_or_else(|| format!("meta.json names unknown rule `{name}`"))?;
        if value.as_bool() == Some(true) {
            on.push(rule);
        }
    }
    let rules: Vec<Property> = Property::DEFAULT.iter().copied().filter(|r| on.contains(r)).collect();
    compare_diagnostics(dir, &rules)
}

/// ptoc's verifier findings on input.pto, as (rule name, code), must equal the reference's
/// (expected.diagnostics.json), in order. Messages and spans are not compared (spans refer to
/// the reference's test sources).
fn compare_diagnostics(dir: &Path, rules: &[Property]) -> Result<(), String> {
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
        found.iter().map(|d| (d.rule.rule_name().to_string(), i64::from(d.error_code))).collect();
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
// The DSL corpus

/// The folder name the DSL corpus's checks are counted under (ids `conformance-dsl/<case>/<stage>`).
const DSL_FOLDER: &str = "conformance-dsl";

type Check = Box<dyn FnOnce() -> Result<(), String>>;

/// The checks of one DSL case, each with its id: one per stage (`…/<case>/<pass>`, the IR after
/// that pass of the default pipeline from input.pto) and `…/<case>/codegen` when the reference's
/// C++ is recorded. For a program with `with pl.incore():` ptoc's default pipeline outlines the
/// scope, so the expected stages are those of `outline/` where it has them, with the parent
/// function promoted to Orchestration (spec §6.1 Q25, `conformance-deviations.md`).
fn dsl_checks(dir: &Path) -> Vec<(String, Check)> {
    let case = corpus::file_name(dir);
    let input = dir.join("input.pto");
    let outline = dir.join("outline");
    let mut stages: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| corpus::stage_pass(&corpus::file_name(&p)).map(|pass| (pass, p)))
        .collect();
    stages.sort_by(|a, b| a.1.cmp(&b.1));
    let mut checks: Vec<(String, Check)> = Vec::new();
    if stages.is_empty() {
        checks.push((
            format!("{DSL_FOLDER}/{case}/stages"),
            Box::new(|| Err("no after-NN-<pass>.pto files".to_string())),
        ));
    }
    for (pass, recorded) in stages {
        let outlined = common::files_under(&outline, &format!("-{pass}.pto")).into_iter().next();
        let input = input.clone();
        let id = format!("{DSL_FOLDER}/{case}/{}", corpus::stage_pass_id(&recorded));
        let check: Check = Box::new(move || {
            let mut want = read(&recorded)?;
            if let Some(o) = &outlined {
                want = promote_outlined_parents(&read(o)?, &read(&input)?);
            }
            let out = ptoc(&["--stop-after", pass.as_str()], &input);
            if out.code != 0 {
                return Err(failed_run(&out));
            }
            let got = String::from_utf8_lossy(&out.stdout);
            if same_text(&want, &got) {
                Ok(())
            } else {
                Err(format!("after {pass}: {}", first_difference(&want, &got)))
            }
        });
        checks.push((id, check));
    }
    let codegen = dir.join("codegen");
    if codegen.is_dir() {
        checks.push((
            format!("{DSL_FOLDER}/{case}/codegen"),
            Box::new(move || expect_files(&ptoc(&["--emit", "cpp", "-o", OUT_DIR], &input), &codegen)),
        ));
    }
    checks
}

// ---------------------------------------------------------------------------------------------
// The PTO codegen corpus

/// The folder name the PTO corpus's checks are counted under (ids `conformance-pto/<case>/<check>`).
const PTO_FOLDER: &str = "conformance-pto";

/// The checks of one PTO case (layout: `../shared/conformance-pto/README.md`): `…/<case>/codegen`
/// gives input.pto (a post-pipeline program) to `--emit pto --pipeline none` and compares the
/// MLIR module (`expected.mlir`), the files of `-o DIR` (`expected/`) or expects an error
/// (`expected.err`); `…/<case>/NN-<pass>` runs the `ptoas` pipeline on source.pto with the
/// PTO backend up to that pass and compares `after-NN-<pass>.pto`.
fn pto_checks(dir: &Path) -> Vec<(String, Check)> {
    let case = corpus::file_name(dir);
    let mut checks: Vec<(String, Check)> = Vec::new();
    let input = dir.join("input.pto");
    let (mlir, files, err) = (dir.join("expected.mlir"), dir.join("expected"), dir.join("expected.err"));
    let codegen: Check = Box::new(move || {
        let emit = ["--pipeline", "none", "--emit", "pto"];
        if err.exists() {
            expect_failure(&ptoc(&emit, &input), &err)
        } else if mlir.exists() {
            expect_ir(&ptoc(&emit, &input), &mlir)
        } else if files.is_dir() {
            expect_files(&ptoc(&[&emit[..], &["-o", OUT_DIR]].concat(), &input), &files)
        } else {
            Err("no expected.mlir, expected/ or expected.err".into())
        }
    });
    checks.push((format!("{PTO_FOLDER}/{case}/codegen"), codegen));
    let source = dir.join("source.pto");
    let mut stages: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| corpus::stage_pass(&corpus::file_name(&p)).map(|pass| (pass, p)))
        .collect();
    stages.sort_by(|a, b| a.1.cmp(&b.1));
    for (pass, recorded) in stages {
        let source = source.clone();
        let id = format!("{PTO_FOLDER}/{case}/{}", corpus::stage_pass_id(&recorded));
        let check: Check = Box::new(move || {
            let args = ["--backend", "pto", "--pipeline", "ptoas", "--stop-after", pass.as_str()];
            expect_ir(&ptoc(&args, &source), &recorded).map_err(|e| format!("after {pass}: {e}"))
        });
        checks.push((id, check));
    }
    checks
}

/// The reference's outlined IR with each function that held a `with pl.incore():` scope in the
/// input decorated as Orchestration, as ptoc makes it (§6.1 Q25).
fn promote_outlined_parents(outlined: &str, input: &str) -> String {
    let mut parents = Vec::new();
    let mut current: Option<&str> = None;
    for line in input.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("def ") {
            current = rest.split('(').next();
        } else if t.starts_with("with ") && t.contains(".incore()") {
            if let Some(f) = current {
                if !parents.contains(&f) {
                    parents.push(f);
                }
            }
        }
    }
    let mut out = outlined.to_string();
    for f in parents {
        let plain = format!("@pl.function\n    def {f}(");
        let promoted = format!("@pl.function(type=pl.FunctionType.Orchestration)\n    def {f}(");
        out = out.replace(&plain, &promoted);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Round trip

/// `refusal_listed`: the file's case is a listed deviation, and a refusal with one of
/// [`REFUSED_ON_PURPOSE`] is its expected outcome.
fn round_trip(path: &Path, refusal_listed: bool) -> Result<(), String> {
    let text = read(path)?;
    let first = match guard(|| driver::frontend(&text))? {
        Ok(p) => p,
        Err(d) if refusal_listed && d.iter().all(|d| REFUSED_ON_PURPOSE.contains(&d.code)) => return Ok(()),
        Err(d) => return Err(does_not_compile(&d, path, &text)),
    };
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
