//! Bookkeeping of the conformance test: which failing cases are expected to fail.
//!
//! `tests/conformance-pending.txt` lists cases not passing yet (one id per line, `#` comments);
//! `tests/conformance-deviations.md` lists cases where the reference is wrong, as lines
//! ``- `<case id>`: reason``. The test fails on a failing case listed in neither, on a listed
//! case that passes (the lists only shrink), and on a listed id that does not exist.

use std::collections::{BTreeMap, BTreeSet};

/// Result of one conformance case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail(String),
}

/// Case ids of the pending file, in file order (`#` starts a comment, blank lines ignored).
pub fn parse_pending(text: &str) -> Vec<String> {
    text.lines().map(|l| l.split('#').next().unwrap_or("").trim()).filter(|l| !l.is_empty()).map(String::from).collect()
}

/// `(case id, reason)` for every line ``- `<id>`: reason`` of the deviations file. Only
/// unindented list items count, so indented examples (code blocks) are not entries.
pub fn parse_deviations(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("- `")?;
            let (id, after) = rest.split_once('`')?;
            let reason = after.trim_start().strip_prefix(':').unwrap_or(after).trim();
            Some((id.trim().to_string(), reason.to_string()))
        })
        .collect()
}

/// Per-folder counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: usize,
    /// Failing and not listed: each is a problem.
    pub failed: usize,
    pub pending: usize,
    pub deviations: usize,
}

/// The judgement over all cases.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Keyed by folder (the part of the id before `/`).
    pub folders: BTreeMap<String, Counts>,
    /// Everything that makes the test fail, one message each.
    pub problems: Vec<String>,
    /// Ids that fail and are not deviations: the exact content of an updated pending file.
    pub failing: Vec<String>,
}

impl Verdict {
    pub fn total(&self) -> Counts {
        self.folders.values().fold(Counts::default(), |a, c| Counts {
            passed: a.passed + c.passed,
            failed: a.failed + c.failed,
            pending: a.pending + c.pending,
            deviations: a.deviations + c.deviations,
        })
    }
}

pub const PENDING_FILE: &str = "tests/conformance-pending.txt";
pub const DEVIATIONS_FILE: &str = "tests/conformance-deviations.md";

/// Compares the outcomes (`(case id, outcome)`, any order) with the two lists.
pub fn judge(results: &[(String, Outcome)], pending: &[String], deviations: &[(String, String)]) -> Verdict {
    let mut v = Verdict::default();
    let pending_set: BTreeSet<&str> = pending.iter().map(String::as_str).collect();
    let deviation_set: BTreeSet<&str> = deviations.iter().map(|(id, _)| id.as_str()).collect();
    let existing: BTreeSet<&str> = results.iter().map(|(id, _)| id.as_str()).collect();

    let mut seen = BTreeSet::new();
    for id in pending {
        if !seen.insert(id.as_str()) {
            v.problems.push(format!("`{id}` is listed twice in {PENDING_FILE}"));
        }
    }
    for id in &pending_set {
        if deviation_set.contains(id) {
            v.problems.push(format!("`{id}` is listed both in {PENDING_FILE} and in {DEVIATIONS_FILE}"));
        }
    }
    for (id, file) in
        pending_set.iter().map(|id| (id, PENDING_FILE)).chain(deviation_set.iter().map(|id| (id, DEVIATIONS_FILE)))
    {
        if !existing.contains(id) {
            v.problems.push(format!("`{id}` is listed in {file} but there is no such case"));
        }
    }

    let mut sorted: Vec<&(String, Outcome)> = results.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    for (id, outcome) in sorted {
        let folder = id.split('/').next().unwrap_or(id).to_string();
        let counts = v.folders.entry(folder).or_default();
        let is_pending = pending_set.contains(id.as_str());
        let is_deviation = deviation_set.contains(id.as_str());
        match outcome {
            Outcome::Pass => {
                counts.passed += 1;
                if is_pending {
                    v.problems.push(format!("`{id}` passes now: remove it from {PENDING_FILE}"));
                }
                if is_deviation {
                    v.problems.push(format!(
                        "`{id}` matches the reference although it is listed in {DEVIATIONS_FILE}: \
                         remove the entry, or fix the deviation"
                    ));
                }
            }
            Outcome::Fail(why) => {
                if !is_deviation {
                    v.failing.push(id.clone());
                }
                if is_deviation {
                    counts.deviations += 1;
                } else if is_pending {
                    counts.pending += 1;
                } else {
                    counts.failed += 1;
                    v.problems.push(format!("FAIL `{id}`: {why}"));
                }
            }
        }
    }
    v
}

/// The pending file rewritten to list exactly `failing` (sorted), keeping the leading comment
/// block of `old` (or a default one).
pub fn rewrite_pending(old: &str, failing: &[String]) -> String {
    let header: Vec<&str> =
        old.lines().take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#')).collect();
    let mut out = if header.iter().any(|l| !l.trim().is_empty()) {
        header.join("\n").trim_end().to_string() + "\n"
    } else {
        DEFAULT_PENDING_HEADER.to_string()
    };
    let mut ids: Vec<&String> = failing.iter().collect();
    ids.sort();
    ids.dedup();
    for id in ids {
        out.push_str(id);
        out.push('\n');
    }
    out
}

pub const DEFAULT_PENDING_HEADER: &str = "\
# Conformance cases that do not pass yet (one `<folder>/<case>` per line).
# The conformance test fails when a case listed here passes: remove it then (the list only shrinks).
# PTOC_UPDATE_PENDING=1 cargo test --test conformance rewrites this file with the failing cases.
";

#[cfg(test)]
#[allow(unused_imports)] // see mod.rs
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }
    fn results(v: &[(&str, bool)]) -> Vec<(String, Outcome)> {
        v.iter()
            .map(|(id, ok)| (id.to_string(), if *ok { Outcome::Pass } else { Outcome::Fail("differs".into()) }))
            .collect()
    }

    #[test]
    fn pending_file_syntax() {
        let text = "# header\n\nconvert-to-ssa/0001_x\n  insert-sync/0002_y   # slow\n#x/y\n";
        assert_eq!(parse_pending(text), ids(&["convert-to-ssa/0001_x", "insert-sync/0002_y"]));
    }

    #[test]
    fn deviations_file_syntax() {
        let text = "# Deviations\n\nSome prose with `code`.\n- `codegen-cce/0003_q`: Q6 wrong stride\n    - `example/x`: y\n- `a/b` : why\n- not an entry\n";
        assert_eq!(
            parse_deviations(text),
            vec![("codegen-cce/0003_q".to_string(), "Q6 wrong stride".to_string()), ("a/b".into(), "why".into())]
        );
    }

    #[test]
    fn listed_failures_are_fine_and_counted() {
        let r = results(&[("a/1", true), ("a/2", false), ("b/1", false)]);
        let v = judge(&r, &ids(&["a/2"]), &[("b/1".into(), "ref bug".into())]);
        assert!(v.problems.is_empty(), "{:?}", v.problems);
        assert_eq!(v.folders["a"], Counts { passed: 1, failed: 0, pending: 1, deviations: 0 });
        assert_eq!(v.folders["b"], Counts { passed: 0, failed: 0, pending: 0, deviations: 1 });
        assert_eq!(v.failing, ids(&["a/2"]));
        assert_eq!(v.total().passed, 1);
    }

    #[test]
    fn unlisted_failure_is_a_problem() {
        let v = judge(&results(&[("a/1", false)]), &[], &[]);
        assert_eq!(v.problems.len(), 1);
        assert!(v.problems[0].starts_with("FAIL `a/1`: differs"));
        assert_eq!(v.folders["a"].failed, 1);
    }

    #[test]
    fn passing_listed_cases_are_problems() {
        let v = judge(&results(&[("a/1", true), ("a/2", true)]), &ids(&["a/1"]), &[("a/2".into(), String::new())]);
        assert_eq!(v.problems.len(), 2, "{:?}", v.problems);
        assert!(v.problems[0].contains("remove it from tests/conformance-pending.txt"));
        assert!(v.problems[1].contains("deviations"));
    }

    #[test]
    fn stale_duplicate_and_double_entries_are_problems() {
        let v = judge(&results(&[("a/1", false)]), &ids(&["a/1", "a/1", "zz/9"]), &[("a/1".into(), String::new())]);
        let all = v.problems.join("\n");
        assert!(all.contains("`a/1` is listed twice"), "{all}");
        assert!(all.contains("`a/1` is listed both"), "{all}");
        assert!(all.contains("`zz/9` is listed in tests/conformance-pending.txt but there is no such case"), "{all}");
        assert_eq!(v.problems.len(), 3);
    }

    #[test]
    fn rewrite_keeps_header_and_sorts() {
        let old = "# my header\n# line 2\n\nold/1\n";
        assert_eq!(rewrite_pending(old, &ids(&["b/2", "a/1", "b/2"])), "# my header\n# line 2\na/1\nb/2\n");
        assert!(rewrite_pending("", &ids(&["x/1"])).starts_with(DEFAULT_PENDING_HEADER));
        assert!(rewrite_pending("", &ids(&["x/1"])).ends_with("\nx/1\n"));
    }
}
