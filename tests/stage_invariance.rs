//! Stage invariance: every stage of the pipeline re-parses. For each corpus input and each
//! implemented pass of the default pipeline (in order, stopping at the first pass that is not
//! implemented yet or that rejects the program):
//! - printing the stage's output and reading it back gives a program equal to the output (up to
//!   what the text can show: statement grouping, see `ir::equiv::programs_diff_as_text`), and
//!   printing that again gives the same text;
//! - running the rest of the pipeline on the re-read text gives the same final text as one
//!   uninterrupted run.
//!
//! Each pass is also applied alone to the inputs of its own corpus folder and checked the same
//! way. (Inputs that already carry MemRefs only get their own folder's pass: the pipeline starts
//! before memory planning, and e.g. ConvertToSSA renames `block.alloc` targets into plain
//! variables, which re-read as the MemRefs themselves.) The corpus is `../shared/conformance`
//! (or `PTOC_CONFORMANCE_DIR`); without it the test says so and checks nothing.

use ptoc::ir::{Program, VarKind};
use ptoc::passes::manager::Manager;
use ptoc::passes::{Backend, PassEnv, PassInfo, Pipeline};
use std::path::{Path, PathBuf};

fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("PTOC_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance"));
    dir.is_dir().then_some(dir)
}

fn compile(source: &str) -> Result<Program, String> {
    let module = ptoc::parser::parse(source).map_err(|d| format!("{d:?}"))?;
    ptoc::lower::lower(module).map_err(|d| format!("{d:?}"))
}

const ENV: PassEnv = PassEnv::new(Backend::Cce);

/// Runs the passes in order; `None` when one is not implemented or fails.
fn run_all(p: Program, passes: &[&'static PassInfo]) -> Option<Program> {
    Manager::new(passes, ENV).run(p).ok()
}

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
        Err(e) => return failures.push(format!("{what}: the printed output does not re-parse: {e}\n{text}")),
    };
    if let Some(d) = ptoc::ir::equiv::programs_diff_as_text(out, &reread) {
        failures.push(format!("{what}: the re-read output differs: {d}"));
    }
    let again = ptoc::printer::print_program(&reread);
    if again != text {
        failures.push(format!("{what}: printing the re-read output changes it"));
    }
    if let Some(expected) = expected_final {
        match run_all(reread, rest) {
            Some(fin) if ptoc::printer::print_program(&fin) == expected => {}
            Some(_) => failures.push(format!("{what}: the rest of the pipeline on the re-read text ends differently")),
            None => failures.push(format!("{what}: the rest of the pipeline fails on the re-read text")),
        }
    }
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path().join("input.pto")))
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

#[test]
fn every_stage_reparses_and_the_rest_of_the_pipeline_agrees() {
    let Some(root) = corpus_dir() else {
        eprintln!("conformance corpus not found: stage invariance not checked");
        return;
    };
    let pipeline = Pipeline::Default.passes();
    let implemented: Vec<&PassInfo> = pipeline.iter().copied().take_while(|p| p.is_implemented()).collect();
    let mut failures = Vec::new();
    let mut stages_checked = 0;
    let mut folders: Vec<PathBuf> =
        std::fs::read_dir(&root).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
    folders.sort();
    for folder in folders.iter().filter(|f| f.is_dir()) {
        for input in inputs(folder) {
            let case = input.parent().unwrap().strip_prefix(&root).unwrap().display().to_string();
            let Ok(prog) = compile(&std::fs::read_to_string(&input).unwrap()) else { continue };
            // The pipeline starts from programs without memory planning: inputs that already
            // have MemRefs (the recorded inputs of the memory passes) only get their own pass.
            let planned =
                prog.functions.iter().any(|f| f.vars.iter().any(|(_, v)| matches!(v.kind, VarKind::MemRef(_))));
            let pipeline_passes = if planned { &[][..] } else { &implemented[..] };
            // The pipeline prefix that runs on this input.
            let mut stages = Vec::new();
            // A failing pass ends the list of stages (its error is not what is checked here).
            let _ = Manager::new(pipeline_passes, ENV)
                .run_observed(prog.clone(), None, &mut |step| stages.push(step.program.clone()));
            let final_text = stages.last().map(ptoc::printer::print_program);
            for (k, out) in stages.iter().enumerate() {
                let what = format!("{case}: after {}", implemented[k].name);
                check_stage(&what, out, &implemented[k + 1..stages.len()], final_text.as_deref(), &mut failures);
                stages_checked += 1;
            }
            // The folder's own pass, alone.
            let folder_name = folder.file_name().unwrap().to_string_lossy().to_string();
            if let Some(pass) = ptoc::passes::lookup(&folder_name).filter(|p| p.is_implemented()) {
                if let Ok(out) = Manager::new(&[pass], ENV).run(prog.clone()) {
                    check_stage(&format!("{case}: {} alone", pass.name), &out, &[], None, &mut failures);
                    stages_checked += 1;
                }
            }
        }
    }
    eprintln!("stage invariance: {stages_checked} stage outputs checked");
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}
