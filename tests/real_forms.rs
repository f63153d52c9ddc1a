//! The forms real programs are written in, on generated programs. PyPTO's own programs write
//! a call as the value of a `return` or `yield_` and as an argument (`return pl.store(…)`,
//! `pl.store(pl.exp(t), …)`), which the random generator (`../shared/tools/genmix.py`) never
//! does: it binds every call to a name. This test rewrites genmix programs into those forms —
//! `x = <call>` directly followed by `return x`, by a `yield_` of `x`, or by the one statement
//! that reads `x` becomes that statement with the call in place of `x` — and checks that each
//! rewritten program means the same: the same C++ instructions (by name and count, in every
//! kernel and orchestration file), and the same interpreter results on the same seeded inputs
//! for every function. A call the backends drop (a miscompile once: a returned store was not
//! emitted) changes the counts.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use ptoc::driver;

const KINDS: [&str; 7] = ["vector", "matmul", "loop", "branch", "reduce", "scalar", "mixed"];
/// Seeds per kind (`PTOC_REAL_FORMS=N` to change).
const SEEDS: u64 = 10;

fn ptoc(args: &[&str]) -> driver::Output {
    let argv: Vec<String> = ["ptoc", "--error-format", "short"].iter().chain(args).map(|s| s.to_string()).collect();
    driver::run(&argv, b"")
}

/// `(indent, name, value)` of `name = value` / `name: T = value` with a call as value.
fn binding(line: &str) -> Option<(usize, &str, &str)> {
    let indent = line.len() - line.trim_start().len();
    let t = line.trim_start();
    let eq = t.find(" = ")?;
    let lhs = &t[..eq];
    let name = lhs.split(':').next()?.trim();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let value = &t[eq + 3..];
    let is_call = (value.starts_with("pl.") || value.starts_with("self.")) && value.ends_with(')');
    let control = value.starts_with("pl.yield_(") || value.starts_with("pl.range(") || value.starts_with("pl.const(");
    (is_call && !control).then_some((indent, name, value))
}

/// Where `name` occurs as a whole word in `text`.
fn occurrences(text: &str, name: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    text.match_indices(name)
        .map(|(i, _)| i)
        .filter(|&i| (i == 0 || !word(b[i - 1])) && b.get(i + name.len()).is_none_or(|&c| !word(c)))
        .collect()
}

/// The program with every binding that the next line of the same indentation reads once
/// (and nothing else in the function reads) folded into that line; the number of folds.
fn fold(text: &str) -> (String, usize) {
    let lines: Vec<&str> = text.lines().collect();
    // Each function's lines, to count a name's uses in it.
    let mut func_of = vec![0usize; lines.len()];
    let mut starts = vec![0usize];
    for (i, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("def ") {
            starts.push(i);
        }
        func_of[i] = starts.len() - 1;
    }
    let func_text = |f: usize| -> String {
        lines.iter().enumerate().filter(|(i, _)| func_of[*i] == f).map(|(_, l)| *l).collect::<Vec<_>>().join("\n")
    };
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut folds = 0;
    let mut i = 0;
    while i < lines.len() {
        let (line, next) = (lines[i], lines.get(i + 1).copied());
        if let (Some((indent, name, value)), Some(next)) = (binding(line), next) {
            let next_indent = next.len() - next.trim_start().len();
            let uses = occurrences(&func_text(func_of[i]), name).len();
            let at = occurrences(next, name);
            // The next statement reads `name` once, nothing else defines or reads it, and
            // the next line is a statement of the same block (not a loop or `if` header,
            // where the value would be evaluated at another time).
            let header = next.trim_end().ends_with(':');
            if next_indent == indent
                && uses == 2
                && at.len() == 1
                && !header
                && at[0] > next.find(['=', 'r']).unwrap_or(0)
            {
                let k = at[0];
                out.push(format!("{}{}{}", &next[..k], value, &next[k + name.len()..]));
                folds += 1;
                i += 2;
                continue;
            }
        }
        out.push(line.to_string());
        i += 1;
    }
    (out.join("\n") + "\n", folds)
}

/// Instruction names and counts of ptoc's C++ (`T…(` calls, task submissions), by file.
fn instructions(files: &[(std::path::PathBuf, Vec<u8>)]) -> BTreeMap<String, BTreeMap<String, usize>> {
    let mut all = BTreeMap::new();
    for (path, bytes) in files {
        let text = String::from_utf8_lossy(bytes);
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for line in text.lines() {
            let t = line.trim_start();
            let name: String = t.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let is_instr = name.len() > 1
                && name.starts_with('T')
                && name[1..].chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            if (is_instr || name == "pto2_rt_submit_task") && t[name.len()..].starts_with('(') && name != "TASSIGN" {
                *counts.entry(name).or_default() += 1;
            }
        }
        all.insert(path.to_string_lossy().into_owned(), counts);
    }
    all
}

/// Every function's interpreter outputs (file name → bytes) on seeded inputs.
fn run_all(file: &Path, funcs: &[String], dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut all = BTreeMap::new();
    for f in funcs {
        let out_dir = dir.join(f);
        // `run` must be the first argument (`ptoc --error-format short run` is no run).
        let argv: Vec<String> = [
            "ptoc",
            "run",
            "--error-format",
            "short",
            "--func",
            f,
            "--seed",
            "7",
            "-o",
            &out_dir.to_string_lossy(),
            &file.to_string_lossy(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let o = driver::run(&argv, b"");
        if o.code != 0 {
            return Err(format!("{f}: {}", String::from_utf8_lossy(&o.stderr)));
        }
        for (p, bytes) in o.files {
            all.insert(format!("{f}/{}", p.file_name().unwrap_or_default().to_string_lossy()), bytes);
        }
    }
    Ok(all)
}

#[test]
fn calls_in_the_positions_real_programs_use() {
    let root = common::manifest_dir();
    let script = root.join("../shared/tools/genmix.py");
    if !common::require_corpus(&script, "real forms") {
        return;
    }
    if common::genmix(&script, "vector", 1).is_none() {
        assert!(!common::in_ci(), "real_forms: genmix.py does not run (no python3?)");
        println!("real_forms: genmix.py does not run (no python3?); 0 checks");
        return;
    }
    let seeds = std::env::var("PTOC_REAL_FORMS").ok().and_then(|v| v.parse().ok()).unwrap_or(SEEDS);
    let dir = std::env::temp_dir().join(format!("ptoc-real-forms-{}", std::process::id()));
    // The kinds in parallel: (programs checked, folds, failures) each.
    let per_kind: Vec<(usize, usize, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = KINDS
            .iter()
            .map(|&kind| {
                let (script, dir) = (&script, &dir);
                scope.spawn(move || {
                    let (mut checked, mut folds, mut failures) = (0, 0, Vec::new());
                    for seed in 1..=seeds {
                        let Some(text) = common::genmix(script, kind, seed) else { continue };
                        let (folded, n) = fold(&text);
                        if n == 0 {
                            continue;
                        }
                        let id = format!("{kind}_s{seed}");
                        let (a, b) = (dir.join(format!("{id}.pto")), dir.join(format!("{id}.folded.pto")));
                        std::fs::create_dir_all(dir).unwrap();
                        std::fs::write(&a, &text).unwrap();
                        std::fs::write(&b, &folded).unwrap();
                        let (ca, cb) = (
                            ptoc(&["--emit", "cpp", &a.to_string_lossy()]),
                            ptoc(&["--emit", "cpp", &b.to_string_lossy()]),
                        );
                        if ca.code != 0 {
                            continue; // the generated program itself is refused: nothing to compare
                        }
                        checked += 1;
                        folds += n;
                        if cb.code != 0 {
                            failures.push(format!(
                                "{id}: the folded program is refused: {}",
                                String::from_utf8_lossy(&cb.stderr)
                            ));
                            continue;
                        }
                        let (ia, ib) = (instructions(&split_files(&ca)), instructions(&split_files(&cb)));
                        if ia != ib {
                            failures.push(format!(
                                "{id}: C++ instructions differ:\n  as generated {ia:?}\n  folded       {ib:?}"
                            ));
                            continue;
                        }
                        let funcs: Vec<String> = text
                            .lines()
                            .filter_map(|l| {
                                l.trim_start().strip_prefix("def ").and_then(|r| r.split('(').next()).map(String::from)
                            })
                            .collect();
                        match (
                            run_all(&a, &funcs, &dir.join(&id).join("a")),
                            run_all(&b, &funcs, &dir.join(&id).join("b")),
                        ) {
                            (Ok(ra), Ok(rb)) if ra == rb => {}
                            (Ok(_), Ok(_)) => failures.push(format!("{id}: the interpreter's results differ")),
                            (Ok(_), Err(e)) => failures.push(format!("{id}: the folded program does not run: {e}")),
                            (Err(_), _) => {} // not runnable as generated (e.g. a division by zero): skipped
                        }
                    }

                    (checked, folds, failures)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a kind's thread panicked")).collect()
    });
    let (mut checked, mut folds, mut failures) = (0, 0, Vec::new());
    for (c, f, fs) in per_kind {
        checked += c;
        folds += f;
        failures.extend(fs);
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("real_forms: {checked} programs with {folds} calls folded into returns, yields and arguments");
    assert!(failures.is_empty(), "{} of {checked} programs:\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= 20 && folds >= 40, "only {checked} programs ({folds} folds) were checked");
}

/// The files of `--emit cpp` to stdout (each after `// ==== <path>`).
fn split_files(out: &driver::Output) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let text = String::from_utf8_lossy(&out.stdout);
    let mut files = Vec::new();
    let mut cur: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("// ==== ") {
            files.extend(cur.take().map(|(p, t)| (p.into(), t.into_bytes())));
            cur = Some((p.to_string(), String::new()));
        } else if let Some((_, t)) = cur.as_mut() {
            t.push_str(line);
            t.push('\n');
        }
    }
    files.extend(cur.map(|(p, t)| (p.into(), t.into_bytes())));
    files
}
