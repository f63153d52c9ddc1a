//! The command-line driver behind `ptoc` (kept in the library so tests can run it in-process).
//!
//! [`run`] takes the arguments and standard input and returns everything the process would
//! produce ([`Output`]): stdout and stderr bytes, the exit status, and the files to write. It
//! writes nothing itself; `main` hands the result to [`deliver`]. The compilation runs on a
//! thread with a 1 GiB stack, so deeply nested input cannot overflow the stack, and a panic
//! (always a bug) becomes an "internal compiler error" with exit status 101.

mod cli;
mod compile;
mod dumps;
mod input;
pub mod library;
mod list_ops;
mod output;
mod plan;
mod report;
mod run_cmd;
mod stats;
mod timeline;

use std::any::Any;
use std::io::{Read, Write};
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use clap::Parser;

use crate::backend::Backend;
use crate::diag::{codes, Color, Diagnostic, Span};
use crate::passes::{self, OptLevel, PassEnv, Pipeline};

pub use compile::{frontend, frontend_with_jobs};
pub use dumps::dump_header;

use cli::{Cli, ColorArg, Emit, VerifyLevel};
use compile::{Emitted, PtoOutput, Request};
use input::SourceFile;
use report::Style;

/// Exit statuses of `ptoc`.
pub mod exit {
    pub const SUCCESS: i32 = 0;
    /// An error in the input (or a construct the code generator has no form for): diagnostics
    /// on stderr.
    pub const INPUT_ERROR: i32 = 1;
    /// A usage error: bad flags or pass names.
    pub const USAGE: i32 = 2;
    /// A bug in ptoc (a panic was caught).
    pub const INTERNAL_ERROR: i32 = 101;
}

/// Everything one run of `ptoc` produces.
#[derive(Debug, Default)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub code: i32,
    /// Files to write (path, contents); empty unless the run succeeded with `-o`.
    pub files: Vec<(PathBuf, Vec<u8>)>,
}

/// What the driver needs from its environment besides the arguments.
pub struct Host<'a> {
    /// Read only when the input is `-`.
    pub stdin: &'a mut (dyn Read + Send),
    /// Whether stderr is a terminal (for `--color=auto`).
    pub stderr_is_terminal: bool,
    /// Whether `NO_COLOR` is set to a non-empty value.
    pub no_color: bool,
}

impl Host<'_> {
    fn color(&self, arg: ColorArg) -> Color {
        match arg {
            ColorArg::Always => Color::Always,
            ColorArg::Never => Color::Never,
            ColorArg::Auto if self.stderr_is_terminal && !self.no_color => Color::Always,
            ColorArg::Auto => Color::Never,
        }
    }
}

/// Runs `ptoc` in-process: `args[0]` is the program name; `stdin` is read for the input `-`.
/// Stderr counts as not a terminal, so `--color=auto` means no colour.
pub fn run(args: &[String], stdin: &[u8]) -> Output {
    let mut stdin = stdin;
    run_with(args, Host { stdin: &mut stdin, stderr_is_terminal: false, no_color: false })
}

/// [`run`] with an explicit environment (what `main` uses).
pub fn run_with(args: &[String], host: Host<'_>) -> Output {
    // The job may run on the big-stack thread or, if that cannot be created, right here; the
    // mutex only lets both candidates borrow the host (it is never contended).
    let host = Mutex::new(host);
    on_big_stack(|| drive(args, &mut host.lock().unwrap_or_else(PoisonError::into_inner)))
        .unwrap_or_else(internal_error)
}

/// Runs `job` on a thread with a 1 GiB stack (or, if that cannot be created, on this one) and
/// returns its result, or the payload of its panic.
fn on_big_stack<T: Send>(job: impl Fn() -> T + Sync) -> Result<T, Box<dyn Any + Send>> {
    const STACK: usize = 1 << 30;
    let job = || std::panic::catch_unwind(AssertUnwindSafe(&job));
    std::thread::scope(|scope| {
        match std::thread::Builder::new().name("ptoc".into()).stack_size(STACK).spawn_scoped(scope, job) {
            Ok(handle) => handle.join().unwrap_or_else(Err),
            Err(_) => job(),
        }
    })
}

/// Parse → lower → print, without passes: the convenience entry for tests.
pub fn compile_to_ir_text(source: &str) -> Result<String, Vec<Diagnostic>> {
    frontend(source).map(|p| crate::printer::print_program(&p))
}

/// Writes a finished run to the process: files first (atomically, [`write_files`]), then stdout
/// and stderr. Returns the exit status, which becomes 1 if a file cannot be written.
pub fn deliver(out: Output) -> i32 {
    let out = write_files(out);
    // A closed pipe (`ptoc f.pto | head`) is not worth a second error.
    let _ = std::io::stdout().write_all(&out.stdout).and_then(|_| std::io::stdout().flush());
    let _ = std::io::stderr().write_all(&out.stderr);
    out.code
}

/// Writes the run's `-o` files, all or none (see `output::write_all`), and returns the run
/// without them; when one cannot be written, the run becomes a `FILE_WRITE` error (exit status
/// 1, nothing on stdout). `main` does this through [`deliver`]; the lit tests call it directly.
pub fn write_files(mut out: Output) -> Output {
    if let Err((path, e)) = output::write_all(&out.files) {
        let d = Diagnostic::error(codes::FILE_WRITE, Span::NONE, format!("cannot write `{}`: {e}", path.display()));
        let style = Style { format: cli::ErrorFormat::Human, color: Color::Never };
        out.stderr.extend_from_slice(report::render(&[d], None, style).as_bytes());
        out.stdout.clear();
        out.code = exit::INPUT_ERROR;
    }
    out.files.clear();
    out
}

/// Threads a compilation may use: `--jobs`, else the CPUs (at most 8).
fn jobs(flag: Option<u16>) -> usize {
    flag.map_or_else(crate::parser::default_jobs, usize::from)
}

fn internal_error(payload: Box<dyn Any + Send>) -> Output {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    let msg = format!(
        "error: internal compiler error: {what}\nnote: this is a bug in ptoc; please report it with the input file\n"
    );
    Output { stderr: msg.into_bytes(), code: exit::INTERNAL_ERROR, ..Output::default() }
}

/// The whole run, on the big-stack thread.
fn drive(args: &[String], host: &mut Host<'_>) -> Output {
    // `ptoc run …` interprets a function (run_cmd.rs); every other command line compiles. A
    // file named `run` is compiled with `ptoc ./run`.
    if args.get(1).is_some_and(|a| a == "run") {
        return run_cmd::drive(args, host);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return clap_output(e),
    };
    let style = Style { format: cli.error_format, color: host.color(cli.color) };
    let usage_error = |d: Diagnostic, code: i32| Output {
        stderr: report::render(&[d], None, style).into_bytes(),
        code,
        ..Output::default()
    };

    if let Some(shell) = cli.completions {
        return Output { stdout: cli::completion_script(shell), ..Output::default() };
    }
    if let Some(name) = cli.list_ops.as_deref() {
        let name = Some(name).filter(|n| !n.is_empty());
        return match list_ops::list(name) {
            Some(text) => Output { stdout: text.into_bytes(), ..Output::default() },
            None => {
                let n = name.unwrap_or_default();
                let mut d = Diagnostic::error(codes::UNKNOWN_OP, Span::NONE, format!("--list-ops: no operator `{n}`"));
                if let Some(s) = crate::suggest::suggest_spelling(n, list_ops::all_names()) {
                    d = d.with_note(format!("help: did you mean `{s}`?"));
                }
                usage_error(d, exit::INPUT_ERROR)
            }
        };
    }
    if cli.list_passes {
        return Output { stdout: list_passes().into_bytes(), ..Output::default() };
    }
    let job = match Job::new(&cli) {
        Ok(job) => job,
        Err((d, code)) => return usage_error(d, code),
    };
    let Some(arg) = cli.input.as_deref() else {
        // clap requires FILE unless --list-passes, handled above.
        return usage_error(Diagnostic::error(codes::FILE_READ, Span::NONE, "no input file given"), exit::USAGE);
    };
    let file = match input::read(arg, host.stdin, cli.max_file_size) {
        Ok(f) => f,
        Err(e) => return input_error(&[e.diag], &e.file, style, String::new()),
    };
    let out_dir = cli.output.as_deref().filter(|p| p.as_os_str() != "-");
    match job.compile(&cli, &file.name, &file.text, out_dir.is_some()) {
        Ok(done) => {
            let mut out = success(done.emitted, cli.output, done.stderr);
            if let Some(dir) = &cli.timeline {
                out.files.extend(done.timelines.into_iter().map(|(rel, text)| (dir.join(rel), text.into_bytes())));
            }
            out
        }
        Err(failed) => {
            let code = failed.code();
            Output { code, ..input_error(&failed.diagnostics, &file, style, failed.stderr) }
        }
    }
}

/// A compile command line whose options are checked and resolved (its passes, its dumps), ready
/// to run on a source: what `ptoc` and the library entry [`library::compile`] both run.
struct Job {
    plan: Vec<&'static passes::PassInfo>,
    dump_spec: dumps::DumpSpec,
    backend: Backend,
}

/// A finished compilation: the emitted result, what goes to stderr (IR dumps, findings,
/// statistics) and the `--timeline` files (relative path, text).
struct Compiled {
    emitted: Emitted,
    stderr: String,
    timelines: Vec<(String, String)>,
}

/// A failed compilation: its diagnostics and what was written to stderr before them.
struct Failed {
    diagnostics: Vec<Diagnostic>,
    stderr: String,
}

impl Failed {
    /// The exit status: a failed postcondition of a pass is a bug of ptoc, not of the input.
    fn code(&self) -> i32 {
        if self.diagnostics.iter().any(|d| d.severity == crate::diag::Severity::Internal) {
            exit::INTERNAL_ERROR
        } else {
            exit::INPUT_ERROR
        }
    }
}

impl Job {
    /// Checks the options that do not need the input; the error comes with its exit status.
    fn new(cli: &Cli) -> Result<Job, (Diagnostic, i32)> {
        let backend = cli.backend();
        if cli.emit == Emit::Cpp && backend != Backend::Cce {
            return Err((
                Diagnostic::error(codes::OPTION_CONFLICT, Span::NONE, "--emit cpp supports only --backend cce"),
                exit::USAGE,
            ));
        }
        if cli.emit == Emit::Pto && backend != Backend::Pto {
            return Err((
                Diagnostic::error(codes::OPTION_CONFLICT, Span::NONE, "--emit pto supports only --backend pto")
                    .with_note("PTO-ISA MLIR is generated for the PTO backend's pipe table; leave --backend out"),
                exit::USAGE,
            ));
        }
        // A pass name that names no pass (or none of this run) is an error of the request, exit
        // status 1 (like an error in the input: the request cannot be carried out), reported
        // before the input is read.
        let plan = plan::resolve(cli.pipeline(), cli.opt, cli.passes.as_deref(), cli.stop_after.as_deref())
            .and_then(|p| plan::stop_before(p, cli.stop_before.as_deref()))
            .map_err(|d| (d, exit::INPUT_ERROR))?;
        let dump_spec = plan::dump_spec(cli).map_err(|d| (d, exit::INPUT_ERROR))?;
        Ok(Job { plan, dump_spec, backend })
    }

    /// Compiles `text` (named `name` in diagnostics). `to_files`: the output goes to `-o DIR`,
    /// which decides the form of `--emit pto` (one file per kernel instead of one module).
    fn compile(&self, cli: &Cli, name: &str, text: &str, to_files: bool) -> Result<Compiled, Failed> {
        let verify_level = VerifyLevel::resolve(cli.verify_level, std::env::var("PTOC_VERIFY_LEVEL").ok().as_deref());
        let request = Request {
            passes: &self.plan,
            // `--passes` runs passes as the reference does (it ignores -O, docs/cli.md).
            env: PassEnv {
                backend: self.backend,
                jobs: jobs(cli.jobs),
                opt: if cli.passes.is_some() { OptLevel::O0 } else { cli.opt },
            },
            dumps: &self.dump_spec,
            time_passes: cli.time_passes,
            verify_each: cli.verify_each,
            auto_verify: cli.passes.is_none() && verify_level == VerifyLevel::Basic,
            emit_cpp: cli.emit == Emit::Cpp,
            // Without -o, the one module of every function; with -o DIR, one file per kernel.
            emit_pto: (cli.emit == Emit::Pto).then_some(if to_files { PtoOutput::Files } else { PtoOutput::Module }),
            disabled_rules: &cli.disable_rule,
            source_name: name,
            verify_sync: cli.verify_sync,
            report_redundant_sync: cli.report_redundant_sync,
            sync_postcondition: verify_level == VerifyLevel::Basic,
            stats: cli.stats,
            timeline: cli.timeline.is_some(),
            cycle_model: crate::analysis::cycles::Options {
                barrier_all: match cli.pipe_all {
                    cli::PipeAllMode::Drain => crate::analysis::cycles::BarrierAll::Drain,
                    cli::PipeAllMode::Free => crate::analysis::cycles::BarrierAll::Free,
                },
                ..Default::default()
            },
            jobs: jobs(cli.jobs),
            print_width: cli.print_width.map_or(crate::printer::NO_WRAP, usize::from),
        };
        let mut stderr = String::new();
        let mut timelines = Vec::new();
        match compile::compile(text, &request, &mut stderr, &mut timelines) {
            Ok(emitted) => Ok(Compiled { emitted, stderr, timelines }),
            Err(diagnostics) => Err(Failed { diagnostics, stderr }),
        }
    }
}

/// Places the emitted result on stdout or into `-o` files.
fn success(emitted: Emitted, output: Option<PathBuf>, dumps: String) -> Output {
    let output = output.filter(|p| p.as_os_str() != "-");
    let mut out = Output { stderr: dumps.into_bytes(), ..Output::default() };
    match (emitted, output) {
        (Emitted::Ir(text), None) => out.stdout = with_newline(text),
        (Emitted::Ir(text), Some(path)) => out.files.push((path, with_newline(text))),
        (Emitted::Files(files), None) => {
            for (rel, text) in files {
                out.stdout.extend_from_slice(format!("// ==== {rel}\n").as_bytes());
                out.stdout.extend_from_slice(&with_newline(text));
            }
        }
        (Emitted::Files(files), Some(dir)) => {
            out.files = files.into_iter().map(|(rel, text)| (dir.join(rel), text.into_bytes())).collect();
        }
    }
    out
}

/// Printer output has no trailing newline; files and stdout end with exactly one added `\n`.
fn with_newline(text: String) -> Vec<u8> {
    let mut bytes = text.into_bytes();
    bytes.push(b'\n');
    bytes
}

fn input_error(diags: &[Diagnostic], file: &SourceFile, style: Style, dumps: String) -> Output {
    let mut stderr = dumps;
    stderr.push_str(&report::render(diags, Some(file), style));
    Output { stderr: stderr.into_bytes(), code: exit::INPUT_ERROR, ..Output::default() }
}

/// clap's own messages: help and version on stdout (exit 0), errors on stderr (exit 2).
fn clap_output(e: clap::Error) -> Output {
    let text = e.render().to_string().into_bytes();
    if e.use_stderr() {
        Output { stderr: text, code: exit::USAGE, ..Output::default() }
    } else {
        Output { stdout: text, code: exit::SUCCESS, ..Output::default() }
    }
}

/// The `--list-passes` text: every pass with aliases and description, then the pipelines.
fn list_passes() -> String {
    let mut s = String::from("Passes (other accepted names in parentheses):\n");
    for p in passes::PASSES {
        s.push_str("  ");
        s.push_str(p.name);
        if !p.aliases.is_empty() {
            s.push_str(&format!(" ({})", p.aliases.join(", ")));
        }
        s.push_str(&format!("\n      {}\n", p.description));
    }
    s.push_str("Pipelines (--pipeline), at -O0 (as the reference), -O1 and -O2 (the default):\n");
    for (name, pl) in [("default", Pipeline::Default), ("ptoas", Pipeline::Ptoas), ("none", Pipeline::None)] {
        for (level, opt) in [("-O0", OptLevel::O0), ("-O1", OptLevel::O1), ("-O2", OptLevel::O2)] {
            let list = pl.pass_names_at(opt).join(", ");
            s.push_str(&format!("  {name} {level}: {}\n", if list.is_empty() { "(no passes)" } else { &list }));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        std::iter::once("ptoc").chain(v.iter().copied()).map(String::from).collect()
    }
    fn text(b: &[u8]) -> String {
        String::from_utf8_lossy(b).into_owned()
    }

    #[test]
    fn help_documents_exit_codes_and_flags() {
        let out = run(&args(&["--help"]), b"");
        assert_eq!(out.code, 0);
        let help = text(&out.stdout);
        for needle in [
            "--emit",
            "--stop-after",
            "--passes",
            "--pipeline",
            "--print-after-all",
            "--verify-each",
            "--list-passes",
            "--backend",
            "--output",
            "--color",
            "--error-format",
            "--max-file-size",
            "Exit status",
            "101",
            "NO_COLOR",
        ] {
            assert!(help.contains(needle), "--help lacks {needle}:\n{help}");
        }
    }

    #[test]
    fn bad_flag_is_usage_error() {
        let out = run(&args(&["--bogus", "f.pto"]), b"");
        assert_eq!(out.code, exit::USAGE);
        assert!(text(&out.stderr).contains("--bogus"));
        assert!(out.stdout.is_empty());
        assert_eq!(run(&args(&[]), b"").code, exit::USAGE);
        assert_eq!(run(&args(&["--emit", "asm", "f.pto"]), b"").code, exit::USAGE);
    }

    #[test]
    fn list_passes_names_and_describes_every_pass() {
        let out = run(&args(&["--list-passes"]), b"");
        assert_eq!(out.code, 0);
        let s = text(&out.stdout);
        for p in passes::PASSES {
            assert!(s.contains(p.name) && s.contains(p.description), "{}", p.name);
        }
        assert!(s.contains("basic-memory-reuse (BasicMemoryReuse, MemoryReuse)"), "{s}");
        assert!(s.contains("none -O0: (no passes)"));
        assert!(s.contains("insert-sync, remove-redundant-sync, allocate-memory-addr"), "{s}");
    }

    #[test]
    fn unknown_pass_is_an_error_before_reading_input() {
        let out = run(&args(&["--passes", "convert-to-ssa,nope", "/does/not/exist.pto"]), b"");
        assert_eq!(out.code, exit::INPUT_ERROR);
        let err = text(&out.stderr);
        assert!(err.contains("E0902") && err.contains("`nope`") && err.contains("insert-sync"), "{err}");
        let out = run(&args(&["--pipeline", "ptoas", "--stop-after", "insert-sync", "-"]), b"");
        assert_eq!(out.code, exit::INPUT_ERROR);
    }

    #[test]
    fn cpp_needs_cce() {
        let out = run(&args(&["--emit", "cpp", "--backend", "pto", "-"]), b"");
        assert_eq!(out.code, exit::USAGE);
    }

    #[test]
    fn unreadable_input_is_input_error() {
        let out = run(&args(&["--error-format", "short", "/does/not/exist.pto"]), b"");
        assert_eq!(out.code, exit::INPUT_ERROR);
        assert!(
            text(&out.stderr).starts_with("error[E0001]: cannot read `/does/not/exist.pto`"),
            "{}",
            text(&out.stderr)
        );
    }

    #[test]
    fn invalid_utf8_on_stdin() {
        let out = run(&args(&["--error-format", "short", "-"]), b"# x\nab\xC0");
        assert_eq!(out.code, exit::INPUT_ERROR);
        assert_eq!(text(&out.stderr), "<stdin>:2:3: error[E0002]: input is not valid UTF-8: byte 0xC0 at offset 6\n");
        let out = run(&args(&["-"]), b"# x\nab\xC0");
        assert!(text(&out.stderr).contains("ab"), "{}", text(&out.stderr));
    }

    #[test]
    fn size_limit() {
        let out = run(&args(&["--max-file-size", "4", "--error-format", "short", "-"]), b"12345");
        assert_eq!(out.code, exit::INPUT_ERROR);
        assert!(text(&out.stderr).contains("E0003"));
    }

    #[test]
    fn panics_become_internal_errors() {
        let out = internal_error(Box::new("boom"));
        assert_eq!(out.code, exit::INTERNAL_ERROR);
        assert!(text(&out.stderr).starts_with("error: internal compiler error: boom\n"));
        let out = internal_error(Box::new(String::from("bang")));
        assert!(text(&out.stderr).contains("bang"));
    }

    #[test]
    fn ir_output_gets_one_newline_and_goes_to_file_with_o() {
        let out = success(Emitted::Ir("abc".into()), None, String::new());
        assert_eq!(out.stdout, b"abc\n");
        let out = success(Emitted::Ir("abc".into()), Some("-".into()), String::new());
        assert_eq!(out.stdout, b"abc\n");
        let out = success(Emitted::Ir("abc".into()), Some("o.pto".into()), "dump\n".into());
        assert!(out.stdout.is_empty());
        assert_eq!(out.stderr, b"dump\n");
        assert_eq!(out.files, vec![(PathBuf::from("o.pto"), b"abc\n".to_vec())]);
    }

    #[test]
    fn cpp_files_on_stdout_or_under_the_directory() {
        let files = || Emitted::Files(vec![("a/k.cpp".into(), "int x;".into()), ("b.py".into(), "y".into())]);
        let out = success(files(), None, String::new());
        assert_eq!(text(&out.stdout), "// ==== a/k.cpp\nint x;\n// ==== b.py\ny\n");
        let out = success(files(), Some("out".into()), String::new());
        assert_eq!(out.files[0], (PathBuf::from("out/a/k.cpp"), b"int x;".to_vec()));
    }

    #[test]
    fn colour_resolution() {
        let mut none: &[u8] = b"";
        let h = Host { stdin: &mut none, stderr_is_terminal: true, no_color: false };
        assert_eq!(h.color(ColorArg::Auto), Color::Always);
        assert_eq!(h.color(ColorArg::Never), Color::Never);
        let mut none: &[u8] = b"";
        let h = Host { stdin: &mut none, stderr_is_terminal: true, no_color: true };
        assert_eq!(h.color(ColorArg::Auto), Color::Never);
        assert_eq!(h.color(ColorArg::Always), Color::Always);
    }
}
