//! Helpers shared by the test targets (`lit`, `conformance`, `harness`). Each target uses a
//! different part, hence the `dead_code` allowance.
//!
//! The unit tests of these helpers run in the `harness` target. The `harness = false` targets
//! are built with `cfg(test)` too but drop `#[test]` functions, which leaves the test modules'
//! imports unused there: hence `allow(unused_imports)` on each of them.
#![allow(dead_code)]

pub mod corpus;
pub mod filecheck;
pub mod genforms;
pub mod json;
pub mod pending;
pub mod rng;
pub mod run_line;

use std::path::{Path, PathBuf};

/// The crate root (where Cargo.toml is).
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` whose name ends with `suffix`, recursively, sorted by path.
pub fn files_under(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n.to_string_lossy().ends_with(suffix)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Whether the tests run as CI runs them (`CI=true`, which `.ci/run` sets). CI always has
/// `../shared` beside the checkout, so there a corpus that is missing is a failure, not a skip.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether the corpus (or tool) at `path` exists. When it does not: a message saying that
/// `what` goes unchecked and `Ok(false)`; under CI an `Err`, since there it is always present.
pub fn corpus_found(path: &Path, what: &str) -> Result<bool, String> {
    if path.exists() {
        Ok(true)
    } else if in_ci() {
        Err(format!("{} not found (CI=true, where ../shared is always present): {what} not checked", path.display()))
    } else {
        eprintln!("{} not found: {what} not checked", path.display());
        Ok(false)
    }
}

/// [`corpus_found`] for a `#[test]`: panics where that returns an `Err`.
pub fn require_corpus(path: &Path, what: &str) -> bool {
    corpus_found(path, what).unwrap_or_else(|e| panic!("{e}"))
}

/// Prints how many `what` were checked and fails unless it is at least `floor` (and non-zero):
/// a corpus that yields nothing, or much less than it holds, is a broken test, not a pass.
pub fn assert_checked(what: &str, checked: usize, floor: usize) {
    eprintln!("{checked} {what} checked");
    assert!(checked >= floor.max(1), "only {checked} {what} checked, expected at least {}", floor.max(1));
}

/// `path` relative to `base`, with `/` separators (test and case names).
pub fn relative_name(path: &Path, base: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// The text without one final `\n` (ptoc's printer has none; files and ptoc's stdout have one).
pub fn strip_final_newline(s: &str) -> &str {
    s.strip_suffix('\n').unwrap_or(s)
}

/// Equal modulo one final newline on either side.
pub fn same_text(a: &str, b: &str) -> bool {
    strip_final_newline(a) == strip_final_newline(b)
}

/// The first `max` characters of `s`, with a note when cut.
pub fn excerpt(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => format!("{}… [{} more bytes]", &s[..i], s.len() - i),
    }
}

/// Where two texts first differ: line number and both lines.
pub fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a) = (strip_final_newline(expected), strip_final_newline(actual));
    let mut el = e.lines();
    let mut al = a.lines();
    let mut n = 1;
    loop {
        match (el.next(), al.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            (None, None) => return "texts are equal".into(),
            (x, y) => {
                return format!(
                    "first difference at line {n}:\n  expected: {}\n  actual:   {}",
                    x.map(|s| excerpt(s, 300)).unwrap_or_else(|| "<end of text>".into()),
                    y.map(|s| excerpt(s, 300)).unwrap_or_else(|| "<end of text>".into()),
                )
            }
        }
    }
}

/// Runs `f`, turning a panic into an error message (a panic is a ptoc bug; the case fails).
pub fn guard<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        format!("panicked: {msg}")
    })
}

/// Replaces the panic hook by a one-line report (location and message), so that hundreds of
/// cases failing on the same unfinished stage do not each print a backtrace.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("panic at {at}: {msg}");
    }));
}

/// The code lines of a Rust file that are not test code (a `#[cfg(test)] mod … {` and all after
/// it) and not comments; `tests/layering.rs` and `tests/op_names.rs` scan `src/` with it.
pub fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut after_cfg_test = false;
    let mut in_tests = false;
    text.lines().filter(move |line| {
        let t = line.trim_start();
        if in_tests {
            return false;
        }
        if after_cfg_test && t.starts_with("mod ") && t.ends_with('{') {
            in_tests = true;
            return false;
        }
        after_cfg_test = t == "#[cfg(test)]";
        !t.starts_with("//")
    })
}

/// The user documentation: README.md and every `.md` under docs/ (sorted).
pub fn markdown_documents() -> Vec<PathBuf> {
    let mut out = vec![manifest_dir().join("README.md")];
    out.extend(files_under(&manifest_dir().join("docs"), ".md"));
    out
}

/// The text of genmix program `kind`/`seed` (`python3 <script> --seed N --kind K`), or `None`
/// when python3 or the script cannot run.
pub fn genmix(script: &Path, kind: &str, seed: u64) -> Option<String> {
    let out = std::process::Command::new("python3")
        .arg(script)
        .args(["--seed", &seed.to_string(), "--kind", kind])
        .output()
        .ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
#[allow(unused_imports)] // see mod.rs
mod tests {
    use super::*;

    #[test]
    fn text_helpers() {
        assert!(same_text("a\nb", "a\nb\n"));
        assert!(!same_text("a\nb\n\n", "a\nb"));
        assert!(first_difference("a\nb\nc", "a\nx\nc").contains("line 2"));
        assert!(first_difference("a\nb", "a").contains("<end of text>"));
        assert_eq!(excerpt("héllo", 2), "hé… [3 more bytes]");
        assert_eq!(excerpt("hé", 2), "hé");
        assert_eq!(guard(|| 1), Ok(1));
        assert_eq!(guard(|| -> i32 { panic!("x {}", 1) }), Err("panicked: x 1".into()));
    }

    #[test]
    fn relative_names_use_slashes() {
        let base = Path::new("/a/lit-tests");
        assert_eq!(relative_name(&base.join("print").join("x.pto"), base), "print/x.pto");
    }
}
