//! The interpreter checks the passes: every example and every DSL conformance input
//! (`../shared/conformance-dsl/*/input.pto`, skipped with a message when absent) gives the same
//! results as written (no passes) and after the whole default pipeline (through
//! allocate-memory-addr), on the same seeded inputs. Also after every prefix of the pipeline,
//! so that a difference names the pass that made it.

use std::path::{Path, PathBuf};

use ptoc::interp::{self, inputs, Array, Value};
use ptoc::ir::Program;
use ptoc::passes::manager::Manager;
use ptoc::passes::{Backend, PassEnv, Pipeline};

const ENV: PassEnv = PassEnv::new(Backend::Cce);
const SEED: u64 = 1;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(manifest().join("examples"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pto"))
        .collect();
    let dsl = manifest().join("../shared/conformance-dsl");
    match std::fs::read_dir(&dsl) {
        Ok(dir) => out.extend(dir.filter_map(|e| e.ok().map(|e| e.path().join("input.pto"))).filter(|p| p.is_file())),
        Err(_) => eprintln!("{} not found: only the examples are checked", dsl.display()),
    }
    out.sort();
    out
}

/// Runs `func` on the seeded inputs: (every parameter's final elements, every returned value's).
fn run(prog: &Program, func: &str) -> Result<Vec<Option<Array>>, String> {
    let f = prog.function(func).ok_or_else(|| format!("no function {func}"))?;
    let args = inputs::make_args(f, SEED, Vec::new()).map_err(|d| format!("{} {}", d.code, d.message))?;
    let r = interp::run_function(prog, func, args).map_err(|d| format!("{} {}", d.code, d.message))?;
    Ok(r.params.iter().chain(&r.returns).map(Value::array).collect())
}

/// Bitwise equality (NaN equals NaN).
fn same(a: &[Option<Array>], b: &[Option<Array>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => {
                x.dtype() == y.dtype()
                    && x.shape() == y.shape()
                    && x.to_f64_vec()
                        .iter()
                        .zip(y.to_f64_vec())
                        .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
            }
            (None, None) => true,
            _ => false,
        })
}

#[test]
fn results_are_the_same_before_and_after_the_passes() {
    let mut failures = Vec::new();
    let (mut checked, mut skipped) = (0, 0);
    for path in cases() {
        let name = path.strip_prefix(manifest()).unwrap_or(&path).display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let written = match ptoc::driver::frontend(&text) {
            Ok(p) => p,
            Err(d) => {
                eprintln!("skip {name}: does not lower today ({} {})", d[0].code, d[0].message);
                skipped += 1;
                continue;
            }
        };
        let funcs: Vec<String> = match interp::default_function(&written) {
            Ok(f) => vec![f.to_string()],
            Err(_) => written.functions.iter().map(|f| f.name.clone()).collect(),
        };
        // The program after each pass of the default pipeline.
        let mut stages = Vec::new();
        let passes = Pipeline::Default.passes();
        let result = Manager::new(&passes, ENV)
            .run_observed(written.clone(), None, &mut |step| stages.push((step.pass.name, step.program.clone())));
        if let Err(d) = result {
            let failing = passes.get(stages.len()).map_or("a pass", |p| p.name);
            eprintln!("note {name}: {failing} fails ({}); later stages not checked", d[0].message);
        }
        for func in &funcs {
            let want = match run(&written, func) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("skip {name} {func}: does not run as written: {e}");
                    skipped += 1;
                    continue;
                }
            };
            for (pass, prog) in &stages {
                if prog.function(func).is_none() {
                    continue;
                }
                match run(prog, func) {
                    Ok(got) if same(&want, &got) => {}
                    Ok(_) => failures.push(format!("{name} {func}: results differ after {pass}")),
                    Err(e) => failures.push(format!("{name} {func}: fails after {pass}: {e}")),
                }
            }
            checked += 1;
        }
    }
    eprintln!("interpreter pipeline check: {checked} functions checked, {skipped} skipped");
    assert!(checked > 0, "nothing was checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
