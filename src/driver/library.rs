//! The driver as a library: a compilation or a run asked for with the command line's own
//! options, the source handed over as text, and the result handed back as values instead of
//! process output (what the Python bindings call). It takes the path `ptoc` takes: the options
//! are parsed by the same clap definitions and carried out by the same [`super::Job`] (or
//! `ptoc run`'s `interpret`), on the same big-stack thread, so a library call and the command
//! line cannot disagree about an option, a pass list or a diagnostic.

use crate::diag::{self, Color, Diagnostic, Severity};
use crate::interp::Array;

use clap::Parser;

use super::cli::{Cli, ErrorFormat};
use super::input::SourceFile;
use super::report::{self, Style};
use super::run_cmd::{Given, GivenInput, RunCli};
use super::{on_big_stack, Failed};

pub use super::compile::Emitted;

/// One diagnostic of a failed request, with its position resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// `error`, `warning`, or `internal` (a bug of ptoc).
    pub severity: &'static str,
    /// The diagnostic code (`E0201`); `None` for a malformed option and for a crash.
    pub code: Option<&'static str>,
    /// The message, one sentence.
    pub message: String,
    /// 1-based line and column (in characters) of the start of its span, if it has one.
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The text `ptoc` prints for it on stderr (`--error-format human`, no colour).
    pub rendered: String,
}

/// Why a request failed: its diagnostics, and what was written to stderr before them (the
/// passes' findings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub diagnostics: Vec<Report>,
    pub stderr: String,
}

/// A successful compilation: the emitted result and what the CLI would print on stderr with it
/// (the passes' findings, e.g. `run-verifier`'s report; empty for most programs).
#[derive(Debug)]
pub struct Compiled {
    pub emitted: Emitted,
    pub stderr: String,
}

/// A value given for a parameter of [`run`].
pub enum Input {
    /// The bytes of an .npy file (C order): a tensor, or a 0-d array for a scalar.
    Npy(Vec<u8>),
    /// A number, as `ptoc run --input P=<number>` takes it (`2`, `0.5`, `true`).
    Number(String),
}

/// One output of [`run`]: `<param>` (a tensor parameter's final value) or `return_<i>`.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    pub name: String,
    /// The IR dtype (`FP32`, `BF16`, …), which the .npy element type does not always say (BF16
    /// is written as float32).
    pub dtype: &'static str,
    /// The value as an .npy file, as `ptoc run -o DIR` writes it.
    pub npy: Vec<u8>,
}

/// A successful run: its outputs in `ptoc run`'s order and what it printed on stderr.
#[derive(Debug)]
pub struct Ran {
    pub outputs: Vec<RunOutput>,
    pub stderr: String,
}

/// Compiles `text` (called `name` in diagnostics) with `options`: the flags of `ptoc` as its
/// command line spells them (`["--emit", "cpp", "-O0"]`), without the program name and the
/// input. With `--emit pto` the result is the one module (as on stdout).
pub fn compile(options: &[String], name: &str, text: &str) -> Result<Compiled, Failure> {
    let args = command_line("ptoc", options);
    let job = || -> Result<Compiled, Failure> {
        let cli = Cli::try_parse_from(&args).map_err(clap_failure)?;
        let job = super::Job::new(&cli).map_err(|(d, _)| failure(vec![d], None, String::new()))?;
        check_size(text, cli.max_file_size)?;
        match job.compile(&cli, name, text, false) {
            Ok(done) => Ok(Compiled { emitted: done.emitted, stderr: done.stderr }),
            Err(Failed { diagnostics, stderr }) => Err(failure(diagnostics, Some(source_file(name, text)), stderr)),
        }
    };
    on_big_stack(job).unwrap_or_else(|payload| Err(crashed(payload)))
}

/// Runs a function of `text` in the interpreter as `ptoc run` does, with `options` of
/// `ptoc run` (`["--func", "main", "--seed", "3"]`) and the given `inputs` by parameter name
/// (every other parameter is generated from the seed).
pub fn run(options: &[String], name: &str, text: &str, inputs: Vec<(String, Input)>) -> Result<Ran, Failure> {
    let args = command_line("ptoc run", options);
    let inputs: Vec<GivenInput> = inputs
        .into_iter()
        .map(|(param, value)| GivenInput {
            written: format!("input `{param}`"),
            param,
            value: match value {
                Input::Npy(bytes) => Given::Npy(bytes),
                Input::Number(text) => Given::Number(text),
            },
            array_form: "an array",
        })
        .collect();
    let job = || -> Result<Ran, Failure> {
        let cli = RunCli::try_parse_from(&args).map_err(clap_failure)?;
        let plan = cli.plan().map_err(|d| failure(vec![d], None, String::new()))?;
        check_size(text, cli.max_file_size)?;
        let fail = |f: Failed| failure(f.diagnostics, Some(source_file(name, text)), f.stderr);
        let done = super::run_cmd::interpret(&cli, &plan, name, text, &inputs, None).map_err(fail)?;
        let outputs = done
            .outputs
            .iter()
            .map(|(name, a)| output(name, a))
            .collect::<Result<_, _>>()
            .map_err(|d| fail(Failed { diagnostics: vec![d], stderr: done.stderr.clone() }))?;
        Ok(Ran { outputs, stderr: done.stderr })
    };
    on_big_stack(job).unwrap_or_else(|payload| Err(crashed(payload)))
}

/// The IR names of every operator, in the operator table's order (`ptoc --list-ops`).
pub fn op_names() -> Vec<&'static str> {
    super::list_ops::names()
}

/// `ptoc --list-ops NAME`: the operator's description (by IR name or any spelling), or `None`.
pub fn describe_op(name: &str) -> Option<String> {
    super::list_ops::list(Some(name))
}

/// `ptoc --version`'s text: the crate's version and the commit it was built from.
pub fn version() -> &'static str {
    super::cli::VERSION
}

fn command_line(program: &str, options: &[String]) -> Vec<String> {
    // `--` so that the input placeholder `-` is the input whatever the last option was; it is
    // never read, the text comes from the caller.
    let mut args = vec![program.to_string()];
    args.extend(options.iter().cloned());
    args.extend(["--".to_string(), "-".to_string()]);
    args
}

/// Checks that `text` is within the input limits of the command line (`--max-file-size`, and
/// the 32-bit source offsets).
fn check_size(text: &str, limit: u64) -> Result<(), Failure> {
    let limit = limit.min(super::input::MAX_INPUT_BYTES);
    if text.len() as u64 > limit {
        let d = Diagnostic::error(
            diag::codes::FILE_TOO_LARGE,
            diag::Span::NONE,
            format!("input is too large ({} bytes)", text.len()),
        )
        .with_note(format!("the limit is {limit} bytes; raise it with --max-file-size"));
        return Err(failure(vec![d], None, String::new()));
    }
    Ok(())
}

/// The input as diagnostics are rendered against it (made only when something failed).
fn source_file(name: &str, text: &str) -> SourceFile {
    SourceFile { name: name.to_string(), text: text.to_string() }
}

fn output(name: &str, a: &Array) -> Result<RunOutput, Diagnostic> {
    Ok(RunOutput { name: name.to_string(), dtype: a.dtype().name(), npy: super::run_cmd::npy_of(name, a)? })
}

/// Each diagnostic with its position and its rendering as the CLI prints it.
fn failure(diagnostics: Vec<Diagnostic>, file: Option<SourceFile>, stderr: String) -> Failure {
    let style = Style { format: ErrorFormat::Human, color: Color::Never };
    let diagnostics = diagnostics
        .iter()
        .map(|d| {
            let at = file.as_ref().filter(|_| !d.span.is_none()).map(|f| diag::line_col(&f.text, d.span.lo as usize));
            Report {
                severity: match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Internal => "internal",
                },
                code: Some(d.code),
                message: d.headline().into_owned(),
                line: at.map(|(l, _)| l),
                column: at.map(|(_, c)| c),
                rendered: report::render(std::slice::from_ref(d), file.as_ref(), style),
            }
        })
        .collect();
    Failure { diagnostics, stderr }
}

/// A malformed option: clap's message (the one `ptoc` prints, which names the flag).
fn clap_failure(e: clap::Error) -> Failure {
    let rendered = e.render().to_string();
    let message = rendered.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
    let report = Report { severity: "error", code: None, message, line: None, column: None, rendered };
    Failure { diagnostics: vec![report], stderr: String::new() }
}

/// A panic (a bug of ptoc), as the CLI reports it.
fn crashed(payload: Box<dyn std::any::Any + Send>) -> Failure {
    let rendered = String::from_utf8_lossy(&super::internal_error(payload).stderr).into_owned();
    let message = rendered.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
    let report = Report { severity: "internal", code: None, message, line: None, column: None, rendered };
    Failure { diagnostics: vec![report], stderr: String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADD: &str = "\
# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def f(self, a: pl.Tensor[[2, 4], pl.FP32], b: pl.Scalar[pl.FP32]) -> pl.Tensor[[2, 4], pl.FP32]:
        t: pl.Tile[[2, 4], pl.FP32] = pl.load(a, [0, 0], [2, 4])
        u: pl.Tile[[2, 4], pl.FP32] = pl.adds(t, b)
        r: pl.Tensor[[2, 4], pl.FP32] = pl.store(u, [0, 0], [2, 4], a)
        return r
";

    fn opts(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// The in-process CLI on `text` as standard input.
    fn cli(args: &[&str], text: &str) -> super::super::Output {
        let args: Vec<String> = std::iter::once("ptoc").chain(args.iter().copied()).map(String::from).collect();
        super::super::run(&args, text.as_bytes())
    }

    #[test]
    fn compile_emits_what_the_cli_prints() {
        for flags in
            [&["--emit", "ir"][..], &["--emit", "ir", "-O0", "--stop-after", "convert-to-ssa"], &["--emit", "pto"]]
        {
            let Compiled { emitted: Emitted::Ir(text), .. } = compile(&opts(flags), "<t>", ADD).unwrap() else {
                panic!("{flags:?}: not text")
            };
            let out = cli(&[flags, &["-"]].concat(), ADD);
            assert_eq!(out.code, 0, "{flags:?}");
            assert_eq!(format!("{text}\n").as_bytes(), out.stdout, "{flags:?}");
        }
        let Compiled { emitted: Emitted::Files(files), .. } = compile(&opts(&["--emit", "cpp"]), "<t>", ADD).unwrap()
        else {
            panic!("cpp: not files")
        };
        let mut printed = String::new();
        for (path, text) in &files {
            printed.push_str(&format!("// ==== {path}\n{text}\n"));
        }
        assert_eq!(files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), ["kernels/aiv/f.cpp"]);
        assert_eq!(printed.as_bytes(), cli(&["--emit", "cpp", "-"], ADD).stdout);
    }

    #[test]
    fn errors_have_positions_and_the_cli_rendering() {
        let bad = ADD.replace("pl.adds(t, b)", "pl.adds(t, nope)");
        let f = compile(&opts(&["--emit", "cpp"]), "k.pto", &bad).unwrap_err();
        assert_eq!(f.diagnostics.len(), 1, "{f:?}");
        let d = &f.diagnostics[0];
        // `nope` is on line 9, after `        u: pl.Tile[[2, 4], pl.FP32] = pl.adds(t, `.
        assert_eq!((d.code, d.severity, d.line, d.column), (Some("E0301"), "error", Some(9), Some(50)), "{d:?}");
        assert!(d.message.contains("nope"), "{d:?}");
        let out = cli(&["--emit", "cpp", "--color", "never", "-"], &bad);
        assert_eq!(d.rendered.replace("k.pto", "<stdin>").as_bytes(), out.stderr);
    }

    #[test]
    fn option_errors_are_failures_too() {
        let f = compile(&opts(&["--emit", "asm"]), "<t>", ADD).unwrap_err();
        assert_eq!(f.diagnostics[0].code, None);
        assert!(f.diagnostics[0].rendered.contains("--emit"), "{f:?}");
        let f = compile(&opts(&["--emit", "cpp", "--backend", "pto"]), "<t>", ADD).unwrap_err();
        assert_eq!(f.diagnostics[0].code, Some("E0904"));
        let f = compile(&opts(&["--stop-after", "nope"]), "<t>", ADD).unwrap_err();
        assert_eq!((f.diagnostics[0].code, f.diagnostics[0].line), (Some("E0902"), None));
        let f = compile(&opts(&["--max-file-size", "10"]), "<t>", ADD).unwrap_err();
        assert_eq!(f.diagnostics[0].code, Some("E0003"));
    }

    #[test]
    fn run_takes_arrays_and_numbers_and_returns_npy() {
        let a = Array::from_f64(crate::ir::DataType::Fp32, vec![2, 4], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let inputs = vec![
            ("a".to_string(), Input::Npy(super::super::run_cmd::to_npy(&a).unwrap())),
            ("b".to_string(), Input::Number("0.5".into())),
        ];
        let ran = run(&[], "<t>", ADD, inputs).unwrap();
        let names: Vec<(&str, &str)> = ran.outputs.iter().map(|o| (o.name.as_str(), o.dtype)).collect();
        assert_eq!(names, [("a", "FP32"), ("return_0", "FP32")]);
        let expected =
            Array::from_f64(crate::ir::DataType::Fp32, vec![2, 4], &[1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5]);
        assert_eq!(ran.outputs[1].npy, super::super::run_cmd::to_npy(&expected).unwrap());
        // A wrong dtype is the CLI's E0705, with the array called an array.
        let i32s = Array::from_f64(crate::ir::DataType::Int32, vec![2, 4], &[1.0; 8]);
        let inputs = vec![("a".to_string(), Input::Npy(super::super::run_cmd::to_npy(&i32s).unwrap()))];
        let f = run(&[], "<t>", ADD, inputs).unwrap_err();
        let d = &f.diagnostics[0];
        assert_eq!((d.code, d.line), (Some("E0705"), Some(7)), "{d:?}");
        assert!(d.message.contains("the array holds i4 elements"), "{d:?}");
        let f = run(&[], "<t>", ADD, vec![("zz".to_string(), Input::Number("1".into()))]).unwrap_err();
        assert!(f.diagnostics[0].message.starts_with("input `zz`: `f` has no parameter `zz`"), "{f:?}");
        let f = run(&opts(&["--func", "g"]), "<t>", ADD, Vec::new()).unwrap_err();
        assert_eq!(f.diagnostics[0].code, Some("E0706"));
    }

    #[test]
    fn operators_and_version() {
        let names = op_names();
        assert!(names.contains(&"block.load") && names.contains(&"block.matmul"), "{names:?}");
        assert!(describe_op("pl.load").is_some_and(|d| d.starts_with("block.load")));
        assert!(describe_op("no.such").is_none());
        assert!(version().starts_with(env!("CARGO_PKG_VERSION")));
    }
}
