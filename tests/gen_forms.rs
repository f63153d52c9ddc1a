//! Generated programs in the forms real programs are written in (`tests/common/genforms.rs`):
//! each genmix program a form applies to is transformed, and the transformed program must be
//! accepted (with `--verify-sync`) and mean what the form says, by the interpreter:
//! - `onepath`, `convert`: every function computes what the original computes (the guard's
//!   flag, or the converted scalar, given a value that keeps the original's meaning); with the
//!   flag false the guarded store's kernel returns its destination tensor;
//! - `unbound`: refused with E0314 at the read after the `if`;
//! - `dyn`: every function computes what the original computes on the same tensors;
//! - `break`: every function computes what the original computes with its loop cut to the
//!   iterations the `break` or `continue` lets run.
//!
//! The execution tests run a selection of the same programs through C++ on the CPU simulator
//! (`exec/genforms/*`, `genforms::EXEC_CORPUS`); this test checks each of those too.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::genforms::{self, Expect, Form, Transformed, FORMS};
use ptoc::driver;

const KINDS: [&str; 7] = ["vector", "matmul", "loop", "branch", "reduce", "scalar", "mixed"];
/// Seeds per kind (`PTOC_GEN_FORMS=N` to change; `PTOC_GEN_FORMS_DUMP=DIR` writes the
/// transformed programs there, with `what.txt` saying what was done to each).
const SEEDS: u64 = 6;
/// Programs per form and kind at most (`dyn` applies to nearly every program;
/// `PTOC_GEN_FORMS_PER_KIND=N` to change).
const PER_KIND: usize = 3;

fn ptoc(args: &[&str]) -> driver::Output {
    let argv: Vec<String> = ["ptoc", "--error-format", "short"].iter().chain(args).map(|s| s.to_string()).collect();
    driver::run(&argv, b"")
}

fn func_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("def ").and_then(|r| r.split('(').next()).map(String::from))
        .collect()
}

/// One interpreter run's outputs (file name → bytes); `extra` are more arguments.
fn run(file: &Path, func: &str, extra: &[String], out: &Path) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let file_s = file.to_string_lossy();
    let out_s = out.to_string_lossy();
    // `run` must be the first argument (after it, `--error-format` is the subcommand's).
    let mut args: Vec<&str> =
        vec!["ptoc", "run", "--error-format", "short", "--func", func, "--seed", "7", "-o", &out_s];
    args.extend(extra.iter().map(String::as_str));
    args.push(&file_s);
    let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let o = driver::run(&argv, b"");
    if o.code != 0 {
        return Err(format!("{func}: {}", String::from_utf8_lossy(&o.stderr).trim()));
    }
    let mut files = BTreeMap::new();
    for (p, bytes) in o.files {
        // On disk too: a later run may read them (`--input-dir`).
        std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
        let name = p.file_name().unwrap_or_default().to_string_lossy().into_owned();
        std::fs::write(out.join(&name), &bytes).map_err(|e| e.to_string())?;
        files.insert(name, bytes);
    }
    if files.is_empty() {
        // Written by the run itself.
        for e in std::fs::read_dir(out).map_err(|e| e.to_string())?.flatten() {
            files.insert(e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap_or_default());
        }
    }
    Ok(files)
}

/// Whether a failed run met an error of the program at run time (an integer division by zero,
/// an operator the interpreter lacks), not one of its inputs.
fn runtime_error(why: &str) -> bool {
    ["E0701", "E0702", "E0703", "E0704", "E0707"].iter().any(|c| why.contains(c))
}

fn inputs(given: &[genforms::Given], func: &str) -> Vec<String> {
    given.iter().filter(|g| g.func == func).map(|g| format!("--input={}={}", g.param, g.value)).collect()
}

/// What the transformed program `t` (at `file`) must mean; `Ok(false)` when the reference does
/// not run (e.g. a division by zero in its scalars): nothing compared.
fn check(t: &Transformed, file: &Path, dir: &Path) -> Result<bool, String> {
    let text = &t.text;
    match &t.expect {
        Expect::Error { code, line, name } => {
            let o = ptoc(&["--emit", "cpp", &file.to_string_lossy()]);
            let err = String::from_utf8_lossy(&o.stderr);
            let at = format!("{}:{line}:", file.display());
            let hit = err.lines().any(|l| {
                l.starts_with(&at) && l.contains(&format!("error[{code}]")) && l.contains(&format!("`{name}`"))
            });
            return if o.code == 1 && hit {
                Ok(true)
            } else {
                Err(format!("expected {code} at line {line} naming `{name}`, got exit {}: {err}", o.code))
            };
        }
        Expect::Same { reference, given, given_ref } => {
            let rfile = dir.join("reference.pto");
            std::fs::write(&rfile, reference).unwrap();
            for f in func_names(reference) {
                let want = match run(&rfile, &f, &inputs(given_ref, &f), &dir.join("ref").join(&f)) {
                    Ok(w) => w,
                    Err(e) if runtime_error(&e) => return Ok(false),
                    Err(e) => return Err(format!("the reference does not run: {e}")),
                };
                let got = run(file, &f, &inputs(given, &f), &dir.join("new").join(&f))?;
                if got != want {
                    let differ: Vec<&String> = want.keys().filter(|k| got.get(*k) != want.get(*k)).collect();
                    return Err(format!("{f}: the interpreter's results differ from the reference's: {differ:?}"));
                }
            }
        }
        Expect::SameOnInputs { reference } => {
            let rfile = dir.join("reference.pto");
            std::fs::write(&rfile, reference).unwrap();
            for f in func_names(reference) {
                let seeded = dir.join("seeded").join(&f);
                match run(&rfile, &f, &[], &seeded) {
                    Ok(_) => {}
                    Err(e) if runtime_error(&e) => return Ok(false),
                    Err(e) => return Err(format!("the original does not run: {e}")),
                }
                let given = vec![format!("--input-dir={}", seeded.display())];
                let want = run(&rfile, &f, &given, &dir.join("ref").join(&f))?;
                let got = run(file, &f, &given, &dir.join("new").join(&f))?;
                if got != want {
                    let differ: Vec<&String> = want.keys().filter(|k| got.get(*k) != want.get(*k)).collect();
                    return Err(format!("{f}: the interpreter's results differ from the original's: {differ:?}"));
                }
            }
        }
    }
    if let Some((kernel, flag, dst, ret)) = &t.flag_false {
        let got = run(file, kernel, &[format!("--input={flag}=false")], &dir.join("false").join(kernel))?;
        let (r, d) = (got.get(&format!("return_{ret}.npy")), got.get(&format!("{dst}.npy")));
        if r.is_none() || r != d {
            return Err(format!("{kernel} with {flag} false: return_{ret} is not its destination `{dst}`"));
        }
    }
    let _ = text;
    Ok(true)
}

/// What one kind's programs gave.
#[derive(Default)]
struct Tally {
    /// Per form: programs transformed, programs checked.
    counts: BTreeMap<Form, (usize, usize)>,
    what: Vec<String>,
    failures: Vec<String>,
    corpus_checked: Vec<(Form, &'static str, u64)>,
}

#[test]
fn generated_programs_in_real_forms() {
    let root = common::manifest_dir();
    let script = root.join("../shared/tools/genmix.py");
    if !script.is_file() || common::genmix(&script, "vector", 1).is_none() {
        println!("gen_forms: no genmix.py or python3; 0 checks");
        return;
    }
    let seeds = std::env::var("PTOC_GEN_FORMS").ok().and_then(|v| v.parse().ok()).unwrap_or(SEEDS);
    let per_kind_max = std::env::var("PTOC_GEN_FORMS_PER_KIND").ok().and_then(|v| v.parse().ok()).unwrap_or(PER_KIND);
    let dump = std::env::var_os("PTOC_GEN_FORMS_DUMP").map(std::path::PathBuf::from);
    let dir = std::env::temp_dir().join(format!("ptoc-gen-forms-{}", std::process::id()));
    // Seeds 1..=seeds of every kind (at most PER_KIND programs per form and kind), and every
    // program of the execution tests' corpus; the kinds in parallel.
    let corpus: Vec<(Form, &'static str, u64)> = genforms::EXEC_CORPUS.to_vec();
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = KINDS
            .iter()
            .map(|&kind| {
                let (script, dir, dump, corpus) = (&script, &dir, &dump, &corpus);
                scope.spawn(move || {
                    let mut tally = Tally::default();
                    {
                        let Tally { counts, what, failures, corpus_checked } = &mut tally;
                        let mut per_kind: BTreeMap<Form, usize> = BTreeMap::new();
                        let mut kind_seeds: Vec<u64> = (1..=seeds).collect();
                        kind_seeds.extend(corpus.iter().filter(|c| c.1 == kind && c.2 > seeds).map(|c| c.2));
                        kind_seeds.sort();
                        kind_seeds.dedup();
                        for seed in kind_seeds {
                            let Some(text) = common::genmix(script, kind, seed) else { continue };
                            let id = format!("{kind}-s{seed}");
                            std::fs::create_dir_all(dir.join(&id)).unwrap();
                            let orig = dir.join(&id).join("original.pto");
                            std::fs::write(&orig, &text).unwrap();
                            let accepted = ptoc(&["--emit", "cpp", &orig.to_string_lossy()]).code == 0;
                            for form in FORMS {
                                let in_corpus = corpus.contains(&(form, kind, seed));
                                let wanted = seed <= seeds && per_kind.get(&form).is_none_or(|&n| n < per_kind_max);
                                if !(in_corpus || wanted) {
                                    continue;
                                }
                                if !accepted {
                                    // The generated program itself is refused: nothing to transform.
                                    if in_corpus {
                                        failures.push(format!(
                                            "{form}-{id}: in the execution corpus, but ptoc refuses the original"
                                        ));
                                    }
                                    continue;
                                }
                                let Some(t) = genforms::transform(form, kind, seed, &text) else {
                                    if in_corpus {
                                        failures.push(format!(
                                            "{form}-{id}: in the execution corpus, but the form does not apply"
                                        ));
                                    }
                                    continue;
                                };
                                *per_kind.entry(form).or_default() += 1;
                                counts.entry(form).or_default().0 += 1;
                                let name = format!("{form}-{id}");
                                let fdir = dir.join(&name);
                                std::fs::create_dir_all(&fdir).unwrap();
                                let file = fdir.join(format!("{name}.pto"));
                                std::fs::write(&file, &t.text).unwrap();
                                if let Some(d) = &dump {
                                    std::fs::create_dir_all(d).unwrap();
                                    std::fs::write(d.join(format!("{name}.pto")), &t.text).unwrap();
                                    what.push(format!("{name}: {}", t.what));
                                }
                                if !matches!(t.expect, Expect::Error { .. }) {
                                    let o = ptoc(&["--emit", "cpp", "--verify-sync", &file.to_string_lossy()]);
                                    if o.code != 0 {
                                        let err = String::from_utf8_lossy(&o.stderr);
                                        failures.push(format!(
                                            "{name} ({}): refused (exit {}): {}",
                                            t.what,
                                            o.code,
                                            err.trim()
                                        ));
                                        continue;
                                    }
                                }
                                match common::guard(|| check(&t, &file, &fdir)) {
                                    Ok(Ok(true)) => {
                                        counts.entry(form).or_default().1 += 1;
                                        if in_corpus {
                                            corpus_checked.push((form, kind, seed));
                                        }
                                    }
                                    Ok(Ok(false)) if in_corpus => failures.push(format!(
                                        "{name}: in the execution corpus, but its reference does not run"
                                    )),
                                    Ok(Ok(false)) => {}
                                    Ok(Err(e)) => failures.push(format!("{name} ({}): {e}", t.what)),
                                    Err(panic) => failures.push(format!("{name} ({}): {panic}", t.what)),
                                }
                            }
                        }
                    }
                    tally
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a kind's thread panicked")).collect()
    });
    let mut counts: BTreeMap<Form, (usize, usize)> = BTreeMap::new();
    let (mut what, mut failures, mut corpus_checked) = (Vec::new(), Vec::new(), Vec::new());
    for t in tallies {
        for (f, (n, c)) in t.counts {
            let e = counts.entry(f).or_default();
            e.0 += n;
            e.1 += c;
        }
        what.extend(t.what);
        failures.extend(t.failures);
        corpus_checked.extend(t.corpus_checked);
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(d) = &dump {
        std::fs::write(d.join("what.txt"), what.join("\n") + "\n").unwrap();
    }
    let line: Vec<String> = FORMS
        .iter()
        .map(|f| {
            let (n, c) = counts.get(f).copied().unwrap_or_default();
            format!("{f} {n} ({c} checked)")
        })
        .collect();
    println!("gen_forms: {}", line.join(", "));
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    for f in FORMS {
        let (_, c) = counts.get(&f).copied().unwrap_or_default();
        assert!(c >= 5, "form {f}: only {c} programs checked");
    }
    assert_eq!(corpus_checked.len(), corpus.len(), "every program of genforms::EXEC_CORPUS is checked");
}
