//! The interpreter checks the passes: every example and every DSL conformance input
//! (`../shared/conformance-dsl/*/input.pto`; when absent only the examples are checked, and
//! under `CI=true` the test fails) gives the same results as written (no passes) and after the
//! whole default pipeline (through allocate-memory-addr), on the same seeded inputs. Also after
//! every prefix of the pipeline, so that a difference names the pass that made it. Every
//! program must compile, run as written and go through the pipeline.

mod common;

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
    let dsl = common::corpus::dsl_corpus_dir();
    if common::require_corpus(&dsl, "the interpreter on the DSL corpus") {
        let inputs: Vec<PathBuf> =
            common::corpus::dsl_cases(&dsl).into_iter().map(|c| c.join("input.pto")).filter(|p| p.is_file()).collect();
        // The DSL corpus (generated data, fixed) has 30 programs.
        common::assert_checked("DSL corpus programs", inputs.len(), 30);
        out.extend(inputs);
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
    let mut checked = 0;
    for path in cases() {
        let name = path.strip_prefix(manifest()).unwrap_or(&path).display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let written = match ptoc::driver::frontend(&text) {
            Ok(p) => p,
            Err(d) => {
                failures.push(format!("{name}: does not compile: {} {}", d[0].code, d[0].message));
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
            failures.push(format!("{name}: {failing} fails: {} {}", d[0].code, d[0].message));
        }
        for func in &funcs {
            let want = match run(&written, func) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{name} {func}: does not run as written: {e}"));
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
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 8 examples and 30 DSL programs have 44 functions to run; outside CI without the corpus,
    // the examples' 9.
    let floor = if common::corpus::dsl_corpus_dir().is_dir() { 44 } else { 8 };
    common::assert_checked("functions (as written and after every pass)", checked, floor);
}
