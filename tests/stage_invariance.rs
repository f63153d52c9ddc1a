//! Stage invariance: every stage of the pipeline re-parses. For each corpus input and each pass
//! of the default pipeline, in order:
//! - printing the stage's output and reading it back gives a program equal to the output (up to
//!   what the text can show: statement grouping, see `ir::equiv::programs_diff_as_text`), and
//!   printing that again gives the same text;
//! - running the rest of the pipeline on the re-read text gives the same final text as one
//!   uninterrupted run.
//!
//! Each pass is also applied alone to the inputs of its own corpus folder and checked the same
//! way. (Inputs that already carry MemRefs only get their own folder's pass: the pipeline starts
//! before memory planning, and e.g. ConvertToSSA renames `block.alloc` targets into plain
//! variables, which re-read as the MemRefs themselves.)
//!
//! Every input must go through: an input that does not compile, or a pipeline that stops on
//! it, is a failure, unless [`REJECTED`] lists the case with the pass and code ptoc stops with
//! and why; a listed case is checked to still stop there. A pass applied alone may fail only
//! where the reference failed too (`expected.err`).
//!
//! The corpus is `../shared/conformance` (or `PTOC_CONFORMANCE_DIR`). Without it the test
//! says so and checks nothing, except under `CI=true`, where it fails.

mod common;

use ptoc::diag::codes;
use ptoc::ir::{Program, VarKind};
use ptoc::passes::manager::Manager;
use ptoc::passes::{Backend, PassEnv, PassInfo, Pipeline};
use std::path::Path;

/// Where the check stops on an input: reading it, or the pipeline's pass of this name.
const INPUT: &str = "input";

/// The corpus inputs ptoc refuses, each as (case, where it stops: [`INPUT`] or a pass of the
/// default pipeline, the diagnostic code, why). The stages before the pass are still checked.
const REJECTED: &[(&str, &str, &str, &str)] = &[
    (
        "codegen-cce/0004_test_if_statement_simple",
        INPUT,
        codes::RETURN_MISMATCH,
        "the reference's test program declares a result and ends with a bare `return` (a deviation, tests/conformance-deviations.md)",
    ),
    ("codegen-cce/0005_test_if_else_statement", INPUT, codes::RETURN_MISMATCH, "as codegen-cce/0004"),
    (
        "flatten-single-stmt/0018_test_no_flatten_multi_stmt_opstmts",
        INPUT,
        codes::MISSING_RETURN,
        "the reference's test program declares a result and has no `return` (a deviation, tests/conformance-deviations.md)",
    ),
    (
        "normalize-stmt-structure/0017_test_normalize_simple_function",
        INPUT,
        codes::MISSING_RETURN,
        "as flatten-single-stmt/0018",
    ),
    (
        "normalize-stmt-structure/0018_test_normalize_seqstmts_with_bare_assigns",
        INPUT,
        codes::MISSING_RETURN,
        "as flatten-single-stmt/0018",
    ),
    (
        "convert-to-ssa/0017_test_block_ops_codegen",
        "basic-memory-reuse",
        codes::ACCUMULATOR_STILL_USED,
        "the program reads a `block.matmul_acc` accumulator after it, which the NPU's in-place accumulation cannot give (lit-tests/errors/accumulator-still-used.pto)",
    ),
    ("flatten-call-expr/0017_test_block_ops_codegen", "basic-memory-reuse", codes::ACCUMULATOR_STILL_USED, "as convert-to-ssa/0017"),
    ("init-mem-ref/0017_test_block_ops_codegen", "basic-memory-reuse", codes::ACCUMULATOR_STILL_USED, "as convert-to-ssa/0017"),
    ("run-verifier/0017_test_block_ops_codegen", "basic-memory-reuse", codes::ACCUMULATOR_STILL_USED, "as convert-to-ssa/0017"),
    (
        "outline-incore-scopes/0009_test_outline_scope_in_control_flow",
        "convert-to-ssa",
        codes::UNBOUND_ON_PATH,
        "the reference's test program returns `y_0`, which only the then branch assigns",
    ),
];

/// The corpus (generated data, fixed) holds 244 inputs, which give 1,727 pipeline stage outputs
/// and 208 outputs of a folder's pass alone; a walk that finds fewer is broken.
const MIN_INPUTS: usize = 244;
const MIN_STAGES: usize = 1727;
const MIN_ALONE: usize = 208;

fn compile(source: &str) -> Result<Program, Vec<ptoc::diag::Diagnostic>> {
    ptoc::lower::lower(ptoc::parser::parse(source)?)
}

const ENV: PassEnv = PassEnv::new(Backend::Cce);

/// Checks one stage output: re-read equality and the rest of the pipeline from the text.
fn check_stage(
    what: &str,
    out: &Program,
    rest: &[&'static PassInfo],
    expected_final: Option<&str>,
    failures: &mut Vec<String>,
) {
    let text = ptoc::printer::print_program(out);
    let reread = match compile(&text) {
        Ok(p) => p,
        Err(e) => return failures.push(format!("{what}: the printed output does not re-parse: {e:?}\n{text}")),
    };
    if let Some(d) = ptoc::ir::equiv::programs_diff_as_text(out, &reread) {
        failures.push(format!("{what}: the re-read output differs: {d}"));
    }
    let again = ptoc::printer::print_program(&reread);
    if again != text {
        failures.push(format!("{what}: printing the re-read output changes it"));
    }
    if let Some(expected) = expected_final {
        match Manager::new(rest, ENV).run(reread) {
            Ok(fin) if ptoc::printer::print_program(&fin) == expected => {}
            Ok(_) => failures.push(format!("{what}: the rest of the pipeline on the re-read text ends differently")),
            Err(e) => failures.push(format!("{what}: the rest of the pipeline fails on the re-read text: {e:?}")),
        }
    }
}

/// Judges where the check stopped on `case` (`None`: it went through) against [`REJECTED`].
fn judge_stop(case: &str, stop: Option<(&str, &str)>, failures: &mut Vec<String>) {
    let listed = REJECTED.iter().find(|(c, ..)| *c == case).map(|&(_, at, code, _)| (at, code));
    match (listed, stop) {
        (None, None) => {}
        (None, Some((at, code))) => {
            failures.push(format!("{case}: stops at {at} with {code} (not listed in REJECTED)"))
        }
        (Some((at, code)), None) => {
            failures.push(format!("{case}: listed as stopping at {at} with {code}, but goes through: delete its entry"))
        }
        (Some(want), Some(got)) if want != got => failures.push(format!(
            "{case}: listed as stopping at {} with {}, but stops at {} with {}",
            want.0, want.1, got.0, got.1
        )),
        (Some(_), Some(_)) => {}
    }
}

fn input_dirs(folder: &Path) -> Vec<std::path::PathBuf> {
    common::corpus::dsl_cases(folder).into_iter().filter(|d| d.join("input.pto").is_file()).collect()
}

#[test]
fn every_stage_reparses_and_the_rest_of_the_pipeline_agrees() {
    let root = common::corpus::corpus_dir();
    if !common::require_corpus(&root, "stage invariance") {
        return;
    }
    let pipeline = Pipeline::Default.passes();
    let mut failures = Vec::new();
    let (mut inputs, mut stages_checked, mut alone_checked, mut alone_rejected) = (0, 0, 0, 0);
    let mut seen = Vec::new();
    for folder in common::corpus::dsl_cases(&root) {
        let folder_name = common::corpus::file_name(&folder);
        let own_pass = ptoc::passes::lookup(&folder_name);
        for dir in input_dirs(&folder) {
            inputs += 1;
            let case = format!("{folder_name}/{}", common::corpus::file_name(&dir));
            seen.push(case.clone());
            let prog = match compile(&std::fs::read_to_string(dir.join("input.pto")).unwrap()) {
                Ok(p) => p,
                Err(e) => {
                    judge_stop(&case, Some((INPUT, e[0].code)), &mut failures);
                    continue;
                }
            };
            // The pipeline starts from programs without memory planning: inputs that already
            // have MemRefs (the recorded inputs of the memory passes) only get their own pass.
            let planned =
                prog.functions.iter().any(|f| f.vars.iter().any(|(_, v)| matches!(v.kind, VarKind::MemRef(_))));
            let pipeline_passes = if planned { &[][..] } else { &pipeline[..] };
            let mut stages = Vec::new();
            let run = common::guard(|| {
                Manager::new(pipeline_passes, ENV)
                    .run_observed(prog.clone(), None, &mut |step| stages.push(step.program.clone()))
            });
            match run {
                Ok(Ok(_)) => judge_stop(&case, None, &mut failures),
                Ok(Err(e)) => judge_stop(&case, Some((pipeline_passes[stages.len()].name, e[0].code)), &mut failures),
                Err(panic) => failures.push(format!("{case}: the pipeline {panic}")),
            }
            let final_text = stages.last().map(ptoc::printer::print_program);
            for (k, out) in stages.iter().enumerate() {
                let what = format!("{case}: after {}", pipeline[k].name);
                check_stage(&what, out, &pipeline[k + 1..stages.len()], final_text.as_deref(), &mut failures);
                stages_checked += 1;
            }
            // The folder's own pass, alone: it fails exactly where the reference failed.
            let Some(pass) = own_pass else { continue };
            let reference_failed = dir.join("expected.err").is_file();
            match common::guard(|| Manager::new(&[pass], ENV).run(prog.clone())) {
                Ok(Ok(out)) => {
                    check_stage(&format!("{case}: {} alone", pass.name), &out, &[], None, &mut failures);
                    alone_checked += 1;
                }
                Ok(Err(_)) if reference_failed => alone_rejected += 1,
                Ok(Err(e)) => {
                    failures.push(format!("{case}: {} alone fails where the reference does not: {e:?}", pass.name))
                }
                Err(panic) => failures.push(format!("{case}: {} alone {panic}", pass.name)),
            }
        }
    }
    for (case, ..) in REJECTED.iter().filter(|(c, ..)| !seen.iter().any(|s| s == c)) {
        failures.push(format!("{case}: listed in REJECTED but not in the corpus"));
    }
    eprintln!(
        "stage invariance: {inputs} inputs, {stages_checked} pipeline stages and {alone_checked} passes alone checked, \
         {alone_rejected} rejected alone as by the reference, {} listed rejections",
        REJECTED.len()
    );
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    common::assert_checked("corpus inputs", inputs, MIN_INPUTS);
    common::assert_checked("pipeline stage outputs", stages_checked, MIN_STAGES);
    common::assert_checked("outputs of a pass alone", alone_checked, MIN_ALONE);
}
