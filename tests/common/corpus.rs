//! Finding the golden conformance corpus and its cases (layout: `../shared/conformance/README.md`).

use std::path::{Path, PathBuf};

/// `$PTOC_CONFORMANCE_DIR`, else `../shared/conformance` next to the crate.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("PTOC_CONFORMANCE_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => super::manifest_dir().join("../shared/conformance"),
    }
}

/// `$PTOC_CONFORMANCE_DSL_DIR`, else `../shared/conformance-dsl` next to the crate: the
/// DSL-style programs with the reference's IR after every stage (layout: its README.md).
pub fn dsl_corpus_dir() -> PathBuf {
    match std::env::var_os("PTOC_CONFORMANCE_DSL_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => super::manifest_dir().join("../shared/conformance-dsl"),
    }
}

/// `$PTOC_CONFORMANCE_PTO_DIR`, else `../shared/conformance-pto` next to the crate: the PTO
/// codegen cases (input program, MLIR or files or error, and the `ptoas` pipeline's stages;
/// layout: its README.md).
pub fn pto_corpus_dir() -> PathBuf {
    match std::env::var_os("PTOC_CONFORMANCE_PTO_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => super::manifest_dir().join("../shared/conformance-pto"),
    }
}

/// The case directories of the DSL corpus, sorted.
pub fn dsl_cases(corpus: &Path) -> Vec<PathBuf> {
    subdirs(corpus)
}

/// Every case as (id `<folder>/<case>`, folder, case directory), sorted by id.
pub fn cases(corpus: &Path) -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for folder in subdirs(corpus) {
        let folder_name = file_name(&folder);
        for case in subdirs(&folder) {
            out.push((format!("{folder_name}/{}", file_name(&case)), folder_name.clone(), case));
        }
    }
    out
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The last component of `p`, lossily.
pub fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The pass of a pipeline stage file: `after-03-run-verifier.pto` → `run-verifier`.
pub fn stage_pass(file: &str) -> Option<String> {
    let rest = file.strip_prefix("after-")?.strip_suffix(".pto")?;
    let (nn, pass) = rest.split_once('-')?;
    (!nn.is_empty() && nn.chars().all(|c| c.is_ascii_digit()) && !pass.is_empty()).then(|| pass.to_string())
}

/// The id part of a stage file: `after-03-run-verifier.pto` → `03-run-verifier`.
pub fn stage_pass_id(file: &Path) -> String {
    let name = file_name(file);
    name.strip_prefix("after-").and_then(|r| r.strip_suffix(".pto")).unwrap_or(&name).to_string()
}

#[cfg(test)]
#[allow(unused_imports)] // see mod.rs
mod tests {
    use super::*;

    #[test]
    fn stage_names() {
        assert_eq!(stage_pass("after-03-run-verifier.pto").as_deref(), Some("run-verifier"));
        assert_eq!(stage_pass("after-12-x.pto").as_deref(), Some("x"));
        for no in ["input.pto", "after-x-y.pto", "after--y.pto", "after-01-.pto", "after-01-x.cpp"] {
            assert_eq!(stage_pass(no), None, "{no}");
        }
    }

    #[test]
    fn cases_are_folder_slash_case_sorted() {
        let root = std::env::temp_dir().join(format!("ptoc-corpus-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for d in ["b/0002_y", "b/0001_x", "a/0001_z"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("README.md"), "").unwrap();
        std::fs::write(root.join("a/stray.txt"), "").unwrap();
        let ids: Vec<String> = cases(&root).into_iter().map(|(id, _, _)| id).collect();
        assert_eq!(ids, ["a/0001_z", "b/0001_x", "b/0002_y"]);
        let _ = std::fs::remove_dir_all(&root);
    }
}
