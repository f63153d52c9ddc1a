//! Function-at-a-time compilation (`src/driver/by_function.rs`) gives exactly the output of
//! compiling the program whole (`--whole-program`), for any number of threads: checked on every
//! `.pto` file of the conformance corpus and the examples, through each named pipeline to C++,
//! and on generated benchmark programs. Inputs the fast path declines (errors, incore scopes,
//! ...) must still give the same output, since `ptoc` then compiles them whole.

mod common;

use std::path::PathBuf;

use ptoc::driver::{self, Output};
use ptoc::passes::Pipeline;

#[path = "../benches/common/gen.rs"]
#[allow(dead_code)]
mod gen;

fn ptoc(extra: &[&str], pipeline: &str, source: &str) -> Output {
    let mut args = vec!["ptoc", "--pipeline", pipeline, "--emit", "cpp", "-o", "out", "--color", "never"];
    args.extend_from_slice(extra);
    args.push("-");
    let args: Vec<String> = args.into_iter().map(String::from).collect();
    driver::run(&args, source.as_bytes())
}

fn same(a: &Output, b: &Output) -> bool {
    a.code == b.code && a.stdout == b.stdout && a.stderr == b.stderr && a.files == b.files
}

fn inputs() -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = common::files_under(&common::corpus::corpus_dir(), ".pto");
    files.extend(common::files_under(&common::manifest_dir().join("examples"), ".pto"));
    files.extend(common::files_under(&common::manifest_dir().join("lit-tests"), ".pto"));
    files.into_iter().filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(&p).ok()?))).collect()
}

const PIPELINES: [(&str, Pipeline); 3] = [("default", Pipeline::Default), ("ptoas", Pipeline::Ptoas), ("none", Pipeline::None)];

#[test]
fn same_output_as_whole_program_compilation() {
    let inputs = inputs();
    assert!(inputs.len() > 50, "too few inputs: {}", inputs.len());
    let (mut compiled, mut by_function) = (0, 0);
    let mut differ = Vec::new();
    for (name, source) in &inputs {
        for (pipeline, which) in PIPELINES {
            let whole = ptoc(&["--whole-program"], pipeline, source);
            for jobs in [&[][..], &["-j", "1"], &["-j", "3"]] {
                if !same(&ptoc(jobs, pipeline, source), &whole) {
                    differ.push(format!("{name} --pipeline {pipeline} {jobs:?}"));
                }
            }
            compiled += usize::from(whole.code == 0);
            if let Some(files) = driver::cpp_by_function(source, which, 2) {
                by_function += 1;
                let files: Vec<(PathBuf, Vec<u8>)> =
                    files.into_iter().map(|(p, t)| (PathBuf::from("out").join(p), t.into_bytes())).collect();
                if whole.code != 0 || files != whole.files {
                    differ.push(format!("{name} --pipeline {pipeline}: cpp_by_function"));
                }
            }
        }
    }
    assert!(differ.is_empty(), "{} runs differ from --whole-program:\n{}", differ.len(), differ.join("\n"));
    // The fast path must actually be taken, or this test proves nothing.
    println!("{by_function} of {compiled} successful compilations went function at a time");
    assert!(by_function * 2 > compiled, "only {by_function} of {compiled} compilations went function at a time");
}

#[test]
fn generated_programs_compile_function_at_a_time() {
    for (kernels, ops) in [(3, 40), (1, 300), (12, 5)] {
        let source = gen::generate(gen::Shape::new(kernels, ops));
        let whole = ptoc(&["--whole-program"], "default", &source);
        assert_eq!(whole.code, 0, "{}", String::from_utf8_lossy(&whole.stderr));
        for jobs in [1, 2, 5] {
            let files = driver::cpp_by_function(&source, Pipeline::Default, jobs).expect("takes the fast path");
            let files: Vec<(PathBuf, Vec<u8>)> =
                files.into_iter().map(|(p, t)| (PathBuf::from("out").join(p), t.into_bytes())).collect();
            assert!(files == whole.files, "{kernels} x {ops}, {jobs} threads");
        }
    }
}

#[test]
fn a_caller_before_its_callees_waits_for_their_signatures() {
    // lit-tests/cli/jobs.pto: the orchestration function comes first and calls two kernels.
    let source = std::fs::read_to_string(common::manifest_dir().join("lit-tests/cli/jobs.pto")).unwrap();
    let whole = ptoc(&["--whole-program"], "default", &source);
    assert_eq!(whole.code, 0);
    for jobs in [1, 2] {
        let files = driver::cpp_by_function(&source, Pipeline::Default, jobs).expect("takes the fast path");
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["kernel_config.py", "kernels/aic/mm.cpp", "kernels/aiv/add.cpp", "orchestration/main.cpp"]);
        let files: Vec<(PathBuf, Vec<u8>)> =
            files.into_iter().map(|(p, t)| (PathBuf::from("out").join(p), t.into_bytes())).collect();
        assert!(files == whole.files);
    }
}

#[test]
fn errors_and_duplicate_names_go_whole() {
    let source = std::fs::read_to_string(common::manifest_dir().join("lit-tests/cli/jobs.pto")).unwrap();
    // A type error in one kernel: the fast path declines, and the CLI reports it as --whole-program does.
    let broken = source.replace("t: pl.Tile[[64, 64], pl.FP32] = pl.block.add(ta, tb)", "t: pl.Tile[[64, 64], pl.FP32] = pl.block.add(ta, a)");
    assert_ne!(broken, source);
    assert!(driver::cpp_by_function(&broken, Pipeline::Default, 2).is_none());
    let (fast, whole) = (ptoc(&[], "default", &broken), ptoc(&["--whole-program"], "default", &broken));
    assert_eq!(fast.code, 1);
    assert!(same(&fast, &whole));
    // Two functions of the same name.
    let twice = source.replace("def mm(", "def add(");
    assert!(driver::cpp_by_function(&twice, Pipeline::Default, 2).is_none());
    assert!(same(&ptoc(&[], "default", &twice), &ptoc(&["--whole-program"], "default", &twice)));
}
