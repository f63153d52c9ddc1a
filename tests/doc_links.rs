//! The README and `docs/` are self-contained: every Markdown link in them resolves
//! inside this repository — to a file or directory that exists, and for a `#fragment` into a
//! Markdown file, to one of its headings — and none leaves the repository (`../shared/…` is
//! not there for a user who cloned only this project). Web links are not followed.

mod common;

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The targets of inline links `[text](target)` outside code blocks and code spans, with
/// their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans: a `](` inside backticks is code, not a link.
        let mut plain = String::new();
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                plain.push(c);
            }
        }
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("").to_string();
            out.push((n + 1, target));
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, punctuation other than `-` and
/// `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            let heading = line.trim_start_matches('#');
            let mut s = slug(heading);
            // Repeated headings get -1, -2, … as on GitHub.
            let base = s.clone();
            let mut k = 1;
            while out.contains(&s) {
                s = format!("{base}-{k}");
                k += 1;
            }
            out.insert(s);
        }
    }
    out
}

/// `path` with `.` and `..` resolved lexically; `None` when it climbs above the filesystem root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    Some(out)
}

#[test]
fn every_link_resolves_inside_the_repository() {
    let root = common::manifest_dir();
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in common::markdown_documents() {
        let text = std::fs::read_to_string(&doc).expect("readable document");
        let shown = doc.strip_prefix(&root).unwrap_or(&doc).display().to_string();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, fragment) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let resolved =
                if file.is_empty() { Some(doc.clone()) } else { normalize(&doc.parent().unwrap().join(file)) };
            let Some(resolved) = resolved else {
                problems.push(format!("{shown}:{line}: `{target}` climbs out of the filesystem"));
                continue;
            };
            if !resolved.starts_with(&root) {
                problems.push(format!("{shown}:{line}: `{target}` points outside the repository"));
                continue;
            }
            if !resolved.exists() {
                problems.push(format!("{shown}:{line}: `{target}` does not exist"));
                continue;
            }
            if let Some(fragment) = fragment {
                if resolved.extension().is_some_and(|x| x == "md") {
                    let there = std::fs::read_to_string(&resolved).unwrap_or_default();
                    if !anchors(&there).contains(fragment) {
                        problems.push(format!("{shown}:{line}: `{target}`: no heading with that anchor"));
                    }
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} links found: is the link scanner broken?");
    assert!(problems.is_empty(), "{} broken link(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn the_scanner_sees_links_and_skips_code() {
    let text = "see [a](docs/a.md#x) and `[b](c)`\n```\n[d](e)\n```\n[f](g.md)";
    let got: Vec<String> = links(text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(got, ["docs/a.md#x", "g.md"]);
    assert_eq!(slug("`if`, `elif`, `else`"), "if-elif-else");
    assert_eq!(slug("3.10 What it means"), "310-what-it-means");
}
