//! Lit-style file tests: every `.pto` file under `lit-tests/` is one test, named by its path
//! relative to `lit-tests/`. The file's `# RUN:` lines say how to run ptoc on it (see
//! `common::run_line`), and its `# CHECK…:` lines are matched against the output by FileCheck
//! (`common::filecheck`). ptoc runs in-process through `ptoc::driver::run`.

mod common;

use std::path::Path;

use common::run_line::{self, RunLine, Target};
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    common::quiet_panics();
    let root = common::manifest_dir().join("lit-tests");
    let trials = common::files_under(&root, ".pto")
        .into_iter()
        .map(|path| {
            let name = common::relative_name(&path, &root);
            Trial::test(name, move || run_file(&path).map_err(Failed::from))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

/// Runs every RUN line of one test file.
fn run_file(path: &Path) -> Result<(), String> {
    // Bytes, not a string: a test may hold invalid UTF-8 on purpose (ptoc reads the file itself).
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let file = path.to_string_lossy();
    let commands = run_line::extract(&text);
    let roundtrip = run_line::roundtrip_text(&text);
    if commands.is_empty() && roundtrip.is_none() {
        return Err("no `# RUN:` or `# ROUNDTRIP` line in this file".into());
    }
    for (line, command) in commands {
        let run = run_line::parse(line, &command, &file).map_err(|e| format!("RUN line {line}: {e}"))?;
        execute(&run, &text).map_err(|e| format!("RUN line {line}: {command}\n{e}"))?;
    }
    match roundtrip {
        Some(expected) => check_roundtrip(&expected),
        None => Ok(()),
    }
}

/// `# ROUNDTRIP`: print(parse(text)) == text, for the file without its comments.
fn check_roundtrip(expected: &str) -> Result<(), String> {
    let printed = common::guard(|| ptoc::driver::compile_to_ir_text(expected))
        .map_err(|e| format!("ROUNDTRIP: {e}"))?
        .map_err(|diags| {
            let lines: Vec<String> =
                diags.iter().map(|d| ptoc::diag::short(d, "<file without comments>", expected)).collect();
            format!("ROUNDTRIP: the file does not compile:\n{}", lines.join("\n"))
        })?;
    if common::same_text(expected, &printed) {
        Ok(())
    } else {
        Err(format!(
            "ROUNDTRIP: print(parse(file)) differs from the file: {}",
            common::first_difference(expected, &printed)
        ))
    }
}

/// Runs ptoc for one RUN line and checks its exit status and output.
fn execute(run: &RunLine, check_source: &str) -> Result<(), String> {
    let stdin = match &run.stdin {
        Some(f) => std::fs::read(f).map_err(|e| format!("cannot read stdin file {f}: {e}"))?,
        None => Vec::new(),
    };
    let args: Vec<String> = std::iter::once("ptoc".to_string()).chain(run.args.iter().cloned()).collect();
    // Like `main`: `-o` files are written (and a failure to write them is an error).
    let out = ptoc::driver::write_files(ptoc::driver::run(&args, &stdin));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = || {
        format!(
            "exit status {}\n--- stdout:\n{}\n--- stderr:\n{}",
            out.code,
            common::excerpt(&stdout, 4000),
            common::excerpt(&stderr, 4000)
        )
    };

    let status_ok = if run.expect_failure { (1..=100).contains(&out.code) } else { out.code == 0 };
    if !status_ok {
        let wanted = if run.expect_failure { "a failure (exit status 1..=100)" } else { "success (exit status 0)" };
        return Err(format!("expected {wanted}\n{}", context()));
    }
    let Some(prefix) = &run.check_prefix else { return Ok(()) };
    // In-process there is no interleaving: stderr (diagnostics, --print-after-all dumps) is
    // written before the final output, so this is the order a shell would see too.
    let mut piped = String::new();
    if run.stderr == Target::Pipe {
        piped.push_str(&stderr);
    }
    if run.stdout == Target::Pipe {
        piped.push_str(&stdout);
    }
    common::filecheck::filecheck(&piped, check_source, prefix)
        .map_err(|report| format!("FileCheck ({prefix}) failed:\n{report}\n{}", context()))
}
