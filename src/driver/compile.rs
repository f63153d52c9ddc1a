//! One compilation: text → IR → the planned passes (through the pass manager) → emitted IR
//! text or C++ files.

use crate::diag::Diagnostic;
use crate::ir::{Function, FunctionType, Program, Stmt, VarTable};
use crate::passes::manager::instrument::Hooked;
use crate::passes::manager::{findings_report, Finish, Instrument, Manager, Step};
use crate::passes::{remove_redundant_sync, PassEnv, PassInfo};
use crate::verify::sync_hazard;
use crate::{lower, parser, printer};

/// What a successful compilation produced.
#[derive(Debug)]
pub enum Emitted {
    /// Canonical `.pto` text of the final program (no trailing newline, like the printer).
    Ir(String),
    /// C++ files: relative path (e.g. `kernels/aiv/k.cpp`) and text, sorted by path.
    Files(Vec<(String, String)>),
}

/// What to do with the program once it is lowered.
pub struct Request<'a> {
    pub passes: &'a [&'static PassInfo],
    pub env: PassEnv,
    /// Which IR dumps to write between the passes (`--print-after-all`, …).
    pub dumps: &'a super::dumps::DumpSpec,
    /// `--time-passes`: a table of the time of parse+lower, each pass and codegen on stderr.
    pub time_passes: bool,
    pub verify_each: bool,
    pub emit_cpp: bool,
    /// Emit PTO-ISA MLIR instead of IR text (`pto-codegen.md`), in this form.
    pub emit_pto: Option<PtoOutput>,
    /// Verify the pipeline's automatically checked properties after the passes that produce
    /// them (spec `passes-and-codegen.md` §1.6): on for named pipelines at verification level
    /// `basic`, off for `--passes` runs (direct pass calls in the reference).
    pub auto_verify: bool,
    /// Rules `run-verifier` leaves out (`--disable-rule`).
    pub disabled_rules: &'a [String],
    /// The input's name, for the locations in `run-verifier`'s report.
    pub source_name: &'a str,
    /// `--verify-sync`: sync hazards of the final program are errors.
    pub verify_sync: bool,
    /// `--report-redundant-sync`: list removable sync ops on stderr.
    pub report_redundant_sync: bool,
    /// Check the output of the sync passes for hazards (verification level `basic`).
    pub sync_postcondition: bool,
    /// `--stats`: statistics of the final program on stderr.
    pub stats: Option<super::cli::StatsFormat>,
    /// `--timeline`: the cycle model's schedule of each kernel as files.
    pub timeline: bool,
    /// What the cycle model of `--stats` and `--timeline` assumes.
    pub cycle_model: crate::analysis::cycles::Options,
    /// Threads the compilation may use (`--jobs`); the output does not depend on it.
    pub jobs: usize,
    /// `--print-width`: the line width of the printed IR (`printer::NO_WRAP` by default).
    pub print_width: usize,
}

/// The two forms of PTO-ISA MLIR output (`pto-codegen.md` §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtoOutput {
    /// One MLIR module with every function (§1.1), as IR-like text.
    Module,
    /// `kernels/<core>/<f>.pto` per InCore function and the orchestration C++ (§1.2).
    Files,
}

/// The front end: parse (on as many threads as there are CPUs) and lower.
pub fn frontend(source: &str) -> Result<Program, Vec<Diagnostic>> {
    frontend_with_jobs(source, parser::default_jobs())
}

/// [`frontend`] with the parser and lowering on `jobs` threads (each method lowered as soon as
/// it is parsed, see [`lower::lower_source`]).
pub fn frontend_with_jobs(source: &str, jobs: usize) -> Result<Program, Vec<Diagnostic>> {
    lower::lower_source(source, jobs)
}

/// Runs the request on `source`. IR dumps of `--print-after-all` and the passes' findings are
/// appended to `dumps` as they happen, so they survive a later error.
/// `--timeline` files (relative paths and text) are appended to `timelines`.
pub fn compile(
    source: &str,
    req: &Request,
    dumps: &mut String,
    timelines: &mut Vec<(String, String)>,
) -> Result<Emitted, Vec<Diagnostic>> {
    // The passes' threads start while the front end runs (see `par::prepare`).
    crate::par::prepare(req.jobs);
    let mut timings = super::dumps::Timings::default();
    let last_step_drops_ir = chains(req) && !req.report_redundant_sync && !req.verify_sync;
    if last_step_drops_ir && !req.emit_cpp && req.emit_pto.is_none() {
        // As below for C++: each function is printed as soon as its passes are done, and only
        // its name stays (the printed order depends on the calls, which its text says).
        let width = req.print_width;
        let finish = |f: Function| {
            let member = printer::member(&f, width);
            let emptied = Function {
                params: Vec::new(),
                return_types: Vec::new(),
                body: Stmt::empty(),
                vars: VarTable::new(),
                ..f
            };
            (emptied, member)
        };
        let (prog, members) = compile_timed(source, req, dumps, &mut timings, Some(&finish))?;
        return Ok(Emitted::Ir(printer::print_members(&prog, members)));
    }
    if last_step_drops_ir && req.emit_cpp {
        // Nothing looks at the final program but codegen: each kernel's C++ is made as soon as
        // its passes are done, and its IR is dropped then (only a stand-in with its signature
        // stays for the orchestration file), which keeps the memory of a compilation low.
        let finish = |f: Function| {
            if f.kind == FunctionType::Orchestration {
                return (f, None);
            }
            let (stand_in, out) = crate::codegen::kernel(&f, true);
            (stand_in.unwrap_or(f), Some(out))
        };
        let (prog, kernels) = compile_timed(source, req, dumps, &mut timings, Some(&finish))?;
        return crate::codegen::assemble(&prog, kernels.into_iter().flatten().collect()).map(Emitted::Files);
    }
    let (prog, _) = compile_timed::<()>(source, req, dumps, &mut timings, None)?;
    if req.timeline {
        timelines.extend(super::timeline::files(&prog, req.env.backend, &req.cycle_model));
    }
    timings.start();
    let emitted = if req.emit_cpp {
        crate::codegen::generate_with_jobs(&prog, req.jobs).map(Emitted::Files)
    } else if let Some(form) = req.emit_pto {
        emit_pto(&prog, form)
    } else {
        Ok(Emitted::Ir(printer::print_program_with_jobs(&prog, req.print_width, req.jobs)))
    };
    if req.time_passes {
        timings.stop(if req.emit_cpp || req.emit_pto.is_some() { "codegen" } else { "print" });
        dumps.push_str(&timings.render());
    }
    emitted
}

/// PTO-ISA MLIR emission (`pto-codegen.md`).
fn emit_pto(prog: &Program, form: PtoOutput) -> Result<Emitted, Vec<Diagnostic>> {
    use crate::codegen::pto;
    match form {
        // The module ends with a newline; `Emitted::Ir` text gets one added on output.
        PtoOutput::Module => {
            pto::module(prog).map(|m| Emitted::Ir(m.trim_end_matches('\n').to_string())).map_err(|d| vec![d])
        }
        PtoOutput::Files => pto::files(prog).map(Emitted::Files),
    }
}

/// Runs the request's passes and returns the final program instead of emitting it (also what
/// `ptoc run` interprets).
pub(super) fn compile_program(source: &str, req: &Request, dumps: &mut String) -> Result<Program, Vec<Diagnostic>> {
    let mut timings = super::dumps::Timings::default();
    let (prog, _) = compile_timed::<()>(source, req, dumps, &mut timings, None)?;
    if req.time_passes {
        dumps.push_str(&timings.render());
    }
    Ok(prog)
}

/// Whether the function passes may run as chains (see [`Manager::fuse`]): nothing observes the
/// program between them.
fn chains(req: &Request) -> bool {
    req.dumps.is_empty() && req.stats.is_none() && !req.time_passes && !req.timeline
}

/// [`compile_program`], timing parse+lower and each pass into `timings`, with `finish` (when
/// given) as the last step for each function (see [`Manager::run_finishing`]).
fn compile_timed<T: Send>(
    source: &str,
    req: &Request,
    dumps: &mut String,
    timings: &mut super::dumps::Timings,
    finish: Option<&Finish<'_, T>>,
) -> Result<(Program, Vec<T>), Vec<Diagnostic>> {
    let start = || frontend_with_jobs(source, req.jobs);
    let manager = Manager {
        passes: req.passes,
        env: req.env,
        disabled_rules: req.disabled_rules,
        auto_verify: req.auto_verify,
        verify_each: req.verify_each,
        sync_postcondition: req.sync_postcondition,
        // The observer below reads only findings unless dumps, statistics or timings are asked
        // for: then the function passes may run as chains, one function at a time.
        fuse: chains(req),
    };
    timings.start();
    let first = start()?;
    timings.stop("parse+lower");
    // The caller's instruments run their before-hooks in this order and their after-hooks in
    // the reverse: a pass's time is taken closest to it, the dumps and statistics outside it.
    let mut report = Report { req, source, out: dumps, dumper: super::dumps::Dumper::new(req.dumps) };
    let mut stats = req.stats.map(|_| SyncStats::new(&first));
    let mut time = req.time_passes.then_some(TimePasses(timings));
    let mut instruments: Vec<&mut dyn Instrument> = vec![&mut report];
    if let Some(s) = stats.as_mut() {
        instruments.push(s);
    }
    if let Some(t) = time.as_mut() {
        instruments.push(t);
    }
    let (prog, finished) = manager.run_finishing(first, Some(&start), &mut instruments, finish)?;
    let dumps = report.out;
    check_sync(&prog, source, req, dumps)?;
    if let (Some(format), Some(stats)) = (req.stats, stats) {
        dumps.push_str(&super::stats::render(&prog, req.env.backend, &stats.removed, format, &req.cycle_model));
    }
    Ok((prog, finished))
}

/// Dumps (`--print-after-all`, …) and findings (run-verifier's, in the reference's report
/// format), in run order into the text for stderr; findings do not fail the run.
struct Report<'r> {
    req: &'r Request<'r>,
    source: &'r str,
    out: &'r mut String,
    dumper: super::dumps::Dumper<'r>,
}

impl Instrument for Report<'_> {
    fn before_pass(&mut self, position: usize, pass: &'static PassInfo, prog: &Program) -> Hooked {
        self.dumper.before(position, pass, prog, self.out);
        Ok(())
    }
    fn after_pass(&mut self, step: Step<'_>) -> Hooked {
        if !step.findings.is_empty() {
            self.out.push_str(&findings_report(step.findings, self.req.source_name, self.source));
        }
        self.dumper.after(step.position, step.pass, step.program, self.out);
        Ok(())
    }
}

/// `--stats`: the sync ops of each function after each pass, to count what
/// remove-redundant-sync removed.
struct SyncStats {
    removed: super::stats::Removed,
    last_counts: Vec<(String, usize)>,
}

impl SyncStats {
    fn new(start: &Program) -> SyncStats {
        SyncStats { removed: super::stats::Removed::new(), last_counts: super::stats::sync_counts(start) }
    }
}

impl Instrument for SyncStats {
    fn after_pass(&mut self, step: Step<'_>) -> Hooked {
        if step.pass.name == remove_redundant_sync::NAME {
            super::stats::add_removed(&mut self.removed, &self.last_counts, step.program);
        }
        self.last_counts = super::stats::sync_counts(step.program);
        Ok(())
    }
}

/// `--time-passes`: each pass's own time (dumps and statistics are not counted).
struct TimePasses<'t>(&'t mut super::dumps::Timings);

impl Instrument for TimePasses<'_> {
    fn before_pass(&mut self, _position: usize, _pass: &'static PassInfo, _prog: &Program) -> Hooked {
        self.0.start();
        Ok(())
    }
    fn after_pass(&mut self, step: Step<'_>) -> Hooked {
        self.0.stop(step.pass.name);
        Ok(())
    }
}

/// `--report-redundant-sync` (one short line per finding, appended to stderr) and
/// `--verify-sync` (hazards are errors) on the final program.
fn check_sync(prog: &Program, source: &str, req: &Request, stderr: &mut String) -> Result<(), Vec<Diagnostic>> {
    let backend = req.env.backend;
    if req.report_redundant_sync {
        for d in sync_hazard::redundant_diagnostics(prog, backend) {
            stderr.push_str(&crate::diag::short(&d, req.source_name, source));
            stderr.push('\n');
        }
    }
    if req.verify_sync {
        let hazards = sync_hazard::hazard_diagnostics(prog, backend);
        if !hazards.is_empty() {
            return Err(hazards);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_are_reported_with_locations() {
        let source = "# pypto.program: T\nimport pypto.language as pl\n\n@pl.program\nclass T:\n    @pl.function\n    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        if a > 0:\n            r: pl.Scalar[pl.INT64] = pl.yield_(a)\n        return r\n";
        let prog = frontend(source).expect("lowers");
        let found = crate::passes::run_verifier::findings(&prog, &[], 2);
        let text = findings_report(&found, "f.pto", source);
        assert_eq!(text, crate::passes::run_verifier::report(&prog, &[] as &[&str], "f.pto", source));
        assert!(text.contains("  Location: f.pto:8:9\n"), "{text}");
    }

    #[test]
    fn verify_level_comes_from_the_flag_then_the_environment() {
        use crate::driver::cli::VerifyLevel;
        assert_eq!(VerifyLevel::resolve(None, None), VerifyLevel::Basic);
        assert_eq!(VerifyLevel::resolve(None, Some("NONE")), VerifyLevel::None);
        assert_eq!(VerifyLevel::resolve(None, Some("basic")), VerifyLevel::Basic);
        assert_eq!(VerifyLevel::resolve(Some(VerifyLevel::Basic), Some("none")), VerifyLevel::Basic);
    }
}
