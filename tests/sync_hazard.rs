//! The sync hazard checker (`ptoc::verify::sync_hazard`) on the golden corpus: every program of
//! the corpus that holds sync ops — the reference's InsertSync outputs (`insert-sync/*/
//! expected.pto`, `pipeline-default/*/after-06-insert-sync.pto`) and the later stages and
//! inputs that keep them — must be hazard-free; and deleting any one sync op by hand must give a
//! finding, unless the checker lists that op as redundant.
//!
//! The corpus is `$PTOC_CONFORMANCE_DIR`, else `../shared/conformance` (and the DSL corpus,
//! `$PTOC_CONFORMANCE_DSL_DIR`, else `../shared/conformance-dsl`). When one is absent the tests
//! say so and check nothing, except under `CI=true`, where they fail. Every program must
//! compile, every ptoc run must succeed without a diagnostic, and each test checks at least as
//! many programs as the corpus holds.

mod common;

use std::path::{Path, PathBuf};

use ptoc::driver::frontend;
use ptoc::passes::Backend;
use ptoc::verify::sync_hazard::{check_sync, redundant_syncs, Hazard};

/// The corpus's `.pto` files with sync ops (26), the sync ops among them whose deletion must be
/// caught (166), and ptoc's insert-sync runs (44: 9 insert-sync cases, 5 default-pipeline cases
/// and 30 DSL programs). The corpora are generated data; fewer means a broken walk.
const MIN_FILES: usize = 26;
const MIN_DELETIONS: usize = 166;
const MIN_RUNS: usize = 44;

/// The corpus files with sync ops, or `None` (with a message) when the corpus is absent.
fn files_with_syncs() -> Option<Vec<PathBuf>> {
    let dir = common::corpus::corpus_dir();
    if !common::require_corpus(&dir, "sync hazards") {
        return None;
    }
    let files: Vec<PathBuf> = common::files_under(&dir, ".pto")
        .into_iter()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("pl.system.")))
        .collect();
    Some(files)
}

fn check_file(path: &Path, text: &str) -> Result<Vec<Hazard>, String> {
    let prog = frontend(text).map_err(|d| format!("{}: does not compile: {}", path.display(), d[0].message))?;
    Ok(check_sync(&prog, Backend::Cce))
}

/// The named reference outputs must be among the files checked.
#[test]
fn insert_sync_outputs_are_present() {
    let Some(files) = files_with_syncs() else { return };
    let names: Vec<String> = files.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    assert!(names.iter().any(|n| n.contains("insert-sync/") && n.ends_with("expected.pto")), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with("after-06-insert-sync.pto")), "{names:?}");
    common::assert_checked("corpus files with sync ops", files.len(), MIN_FILES);
}

#[test]
fn reference_outputs_are_hazard_free() {
    let Some(files) = files_with_syncs() else { return };
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        match common::guard(|| check_file(path, &text)) {
            Ok(Ok(h)) if h.is_empty() => {}
            Ok(Ok(h)) => failures.push(format!(
                "{}:\n  {}",
                path.display(),
                h.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("\n  ")
            )),
            Ok(Err(e)) => failures.push(e),
            Err(panic) => failures.push(format!("{}: the checker {panic}", path.display())),
        }
    }
    assert!(failures.is_empty(), "reference outputs that fail the check:\n{}", failures.join("\n"));
    common::assert_checked("reference outputs with sync ops", files.len(), MIN_FILES);
}

/// Deletes each sync-op line in turn: the checker must report something unless it called that
/// op redundant.
#[test]
fn deleting_a_needed_sync_op_is_caught() {
    let Some(files) = files_with_syncs() else { return };
    let mut missed = Vec::new();
    let mut tried = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let prog = match frontend(&text) {
            Ok(p) => p,
            Err(d) => {
                missed.push(format!("{}: does not compile: {}", path.display(), d[0].message));
                continue;
            }
        };
        let redundant_lines: Vec<usize> = redundant_syncs(&prog, Backend::Cce)
            .iter()
            .flat_map(|r| r.ops.iter().map(|o| line_of(&text, o.span.lo as usize)))
            .collect();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.trim_start().starts_with("pl.system.") || redundant_lines.contains(&(i + 1)) {
                continue;
            }
            let mutated: String =
                lines.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, l)| format!("{l}\n")).collect();
            tried += 1;
            let at = format!("{}:{}: {}", path.display(), i + 1, line.trim());
            match common::guard(|| check_file(path, &mutated)) {
                Ok(Ok(h)) if h.is_empty() => missed.push(at),
                Ok(Ok(_)) => {}
                Ok(Err(e)) => missed.push(format!("{at}: without it, {e}")),
                Err(panic) => missed.push(format!("{at}: without it, the checker {panic}")),
            }
        }
    }
    assert!(missed.is_empty(), "deleted sync ops not caught:\n{}", missed.join("\n"));
    common::assert_checked("sync-op deletions (each caught)", tried, MIN_DELETIONS);
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// ptoc's own InsertSync output must be hazard-free: runs `--verify-sync` after insert-sync on
/// the inputs of the insert-sync cases (with an `expected.pto`), of the default-pipeline cases
/// and of the DSL corpus. Each run must succeed with nothing on stderr: a hazard (E0603/E0604),
/// any other diagnostic and a crash all fail.
#[test]
fn ptoc_insert_sync_output_is_hazard_free() {
    let dir = common::corpus::corpus_dir();
    let dsl = common::corpus::dsl_corpus_dir();
    if !common::require_corpus(&dir, "ptoc's insert-sync output")
        || !common::require_corpus(&dsl, "ptoc's insert-sync output")
    {
        return;
    }
    let runs: Vec<(PathBuf, &[&str])> = common::corpus::cases(&dir)
        .into_iter()
        .filter_map(|(_, folder, case)| match folder.as_str() {
            "insert-sync" if case.join("expected.pto").is_file() => {
                Some((case.join("input.pto"), &["--pipeline", "none", "--passes", "insert-sync"][..]))
            }
            "pipeline-default" => {
                Some((case.join("input.pto"), &["--pipeline", "default", "--stop-after", "insert-sync"][..]))
            }
            _ => None,
        })
        .collect();
    // The DSL corpus's programs (where the reference's own insert-sync output has hazards, see
    // conformance-deviations.md): ptoc's must have none.
    let dsl_runs = common::corpus::dsl_cases(&dsl)
        .into_iter()
        .map(|case| (case.join("input.pto"), &["--pipeline", "default", "--stop-after", "insert-sync"][..]));
    let runs: Vec<(PathBuf, &[&str])> = runs.into_iter().chain(dsl_runs).collect();
    let mut failures = Vec::new();
    for (input, flags) in &runs {
        let mut args = vec!["ptoc".to_string(), "--verify-sync".into(), "--error-format".into(), "short".into()];
        args.extend(flags.iter().map(|s| s.to_string()));
        args.push(input.to_string_lossy().into_owned());
        let out = ptoc::driver::run(&args, b"");
        if out.code != 0 || !out.stderr.is_empty() {
            failures.push(format!(
                "{} (exit {}):\n{}",
                input.display(),
                out.code,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "ptoc's insert-sync fails or leaves hazards:\n{}", failures.join("\n"));
    common::assert_checked("runs of ptoc's insert-sync", runs.len(), MIN_RUNS);
}
