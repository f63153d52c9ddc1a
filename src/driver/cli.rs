//! The command line of `ptoc` (clap derive). Only the syntax of the arguments lives here; what
//! they mean is decided in [`super::plan`] and [`super::compile`].

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use crate::backend::Backend;
use crate::passes::{OptLevel, Pipeline};

/// `ptoc --version`: the crate's version and the commit it was built from.
pub(super) const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("PTOC_COMMIT"), ")");

/// Text shown after the flags in `--help`.
const AFTER_HELP: &str = "\
Exit status:
  0    success
  1    error in the input, an unknown pass name (or --stop-after a pass not in the
       run), or a pass / output kind that is not implemented yet (diagnostics on
       stderr; nothing is written to the -o path)
  2    usage error: bad or malformed flags
  101  internal compiler error (a bug in ptoc)

Environment:
  NO_COLOR           when set and not empty, --color=auto does not colour diagnostics
  PTOC_VERIFY_LEVEL  `none` turns off the pipelines' automatic verification (see --verify-level)

Commands:
  run  interpret a function of the program on inputs from .npy files or a seed and write
       its results as .npy (`ptoc run --help`, docs/execution.md)

Passes run in the order of --passes if given, else of --pipeline at the -O level:
  -O0  the pipelines as the reference runs them (but the result of a matmul_acc
       takes its accumulator's buffer, as the device needs)
  -O1  also remove-dead-tiles deletes tiles nothing uses, insert-sync lets a
       loop's iterations overlap on disjoint windows of one tensor,
       remove-redundant-sync runs right after insert-sync, and
       basic-memory-reuse plans buffers by lifetime, taking per function the plan
       that needs the fewest syncs (ptoc's own plan), or in a small kernel with a
       loop the plan (its own or the reference's) the cycle model estimates fastest
  -O2  (default) also pipeline-loops double-buffers innermost loops whose buffers fit twice
       (as `pl.pipeline(..., stage=2)`: copies of the body with buffers of their own)
       and insert-sync carries flags across iterations; in a small kernel with a
       loop the copies and flags are chosen by the cycle model too; split-rows runs a
       straight-line kernel (or one loop that runs once) as a loop over row blocks
       where the cycle model estimates it faster; a kernel over 256 statements
       keeps -O1's schedule
Use --list-passes for the names and what each level runs; the reference's CamelCase names
(ConvertToSSA, MemoryReuse, ...) are accepted too.

Output kinds and backends:
  --emit ir           the program after the passes (any backend, any pipeline)
  --emit cpp          CCE C++ (--backend cce; natural pipeline: default, which inserts syncs)
  --emit pto          PTO-ISA MLIR for the ptoas assembler (--backend pto, implied; natural
                      pipeline: ptoas, implied, which leaves synchronisation to ptoas). Without -o:
                      one MLIR module holding every function (an Orchestration function is an
                      error). With -o DIR: kernels/<aic|aiv>/<f>.pto per InCore function and
                      orchestration/<f>.cpp (docs/pto-backend.md).";

/// ptoc: compile PyPTO tile-IR programs (.pto) through IR passes to IR text or C++.
#[derive(Debug, Parser)]
#[command(name = "ptoc", version = VERSION, after_help = AFTER_HELP)]
pub struct Cli {
    /// The .pto file to compile, or `-` to read standard input.
    #[arg(value_name = "FILE|-", required_unless_present_any = ["list_passes", "list_ops", "completions"])]
    pub input: Option<String>,

    /// What to write: `ir` (canonical .pto text of the final program), `cpp` (CCE C++ files) or
    /// `pto` (PTO-ISA MLIR; see the table below).
    #[arg(long, value_enum, value_name = "KIND", default_value_t = Emit::Ir, help_heading = "Output")]
    pub emit: Emit,

    /// Stop after this pass (the first time it runs) and emit the program as it is then.
    #[arg(long, value_name = "PASS", help_heading = "Passes")]
    pub stop_after: Option<String>,

    /// Stop just before this pass (the first time it would run) and emit the program as it is
    /// then.
    #[arg(long, value_name = "PASS", help_heading = "Passes", conflicts_with = "stop_after")]
    pub stop_before: Option<String>,

    /// Run exactly these passes, in this order, instead of the --pipeline's (comma-separated;
    /// an empty list runs none).
    #[arg(long, value_name = "P1,P2,…", value_delimiter = ',', num_args = 1, help_heading = "Passes")]
    pub passes: Option<Vec<String>>,

    /// Which pass list to run: `default` (convert-to-ssa, outline-incore-scopes,
    /// convert-tensor-to-block-ops, flatten-call-expr, run-verifier, init-mem-ref, basic-memory-reuse, insert-sync,
    /// allocate-memory-addr), `ptoas` (the same without insert-sync) or `none` (parse and print).
    /// Default: `ptoas` with --emit pto, else `default`.
    #[arg(long, value_enum, value_name = "NAME", help_heading = "Passes")]
    pub pipeline: Option<PipelineArg>,

    /// Optimisation level of the named pipelines: `0` runs them as the reference does (but the
    /// result of a matmul_acc takes its accumulator's buffer, as the device needs);
    /// `1` also runs remove-dead-tiles and remove-redundant-sync, and basic-memory-reuse plans
    /// buffers by lifetime (chosen by estimated cycles); `2` also splits straight-line kernels into
    /// blocks of rows and pipelines loops where the cycle model says it pays (docs/cli.md).
    /// `--passes` ignores it.
    #[arg(short = 'O', value_name = "LEVEL", default_value_t = OptLevel::default(), value_parser = parse_opt_level, help_heading = "Passes")]
    pub opt: OptLevel,

    /// After compiling, print per kernel function and for the whole program: ops per pipe, sync
    /// pairs per pipe pair, barriers, event ids, peak bytes per memory space against its
    /// capacity, syncs removed. `--stats` (or `--stats=text`) writes text to stderr,
    /// `--stats=json` one JSON object.
    #[arg(long, value_enum, value_name = "FORMAT", num_args = 0..=1, require_equals = true, default_missing_value = "text", help_heading = "Output")]
    pub stats: Option<StatsFormat>,

    /// Write, per kernel function, the cycle model's schedule into DIR: `<f>.trace.json` (Chrome
    /// trace: one track per pipe, one slice per instruction, set→wait flows; opens in Perfetto)
    /// and `<f>.svg` (the same as a swimlane picture).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub timeline: Option<PathBuf>,

    /// How the cycle model (`--stats`, `--timeline`) counts `pipe_barrier(PIPE_ALL)`: `drain`
    /// (default) every pipe waits until all have finished, as the hardware does; `free` costs
    /// nothing, as in Perf-Sim (for comparing with it).
    #[arg(long, value_enum, value_name = "MODE", default_value = "drain", help_heading = "Output")]
    pub pipe_all: PipeAllMode,

    /// Wrap the printed IR (`--emit ir`) at N columns: a statement longer than N breaks inside
    /// its brackets (call arguments, lists, type parameters), which the language joins back, so
    /// the text reads back as the same program. Default: never wrap (one line per statement).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..), help_heading = "Output")]
    pub print_width: Option<u16>,

    /// Print the IR after every pass to stderr, each after a header line
    /// `# ==== after-NN-<pass> ====` (NN = 1-based position in the run).
    #[arg(long, help_heading = "IR dumps (to stderr)")]
    pub print_after_all: bool,

    /// Print the IR after this pass (repeatable; comma-separated lists too).
    #[arg(long, value_name = "PASS", value_delimiter = ',', help_heading = "IR dumps (to stderr)")]
    pub print_after: Vec<String>,

    /// Print the IR before every pass, each after `# ==== before-NN-<pass> ====`.
    #[arg(long, help_heading = "IR dumps (to stderr)")]
    pub print_before_all: bool,

    /// Print the IR before this pass (repeatable; comma-separated lists too).
    #[arg(long, value_name = "PASS", value_delimiter = ',', help_heading = "IR dumps (to stderr)")]
    pub print_before: Vec<String>,

    /// Print the IR after a pass only when it changed it (alone: after every pass that changed
    /// it; with --print-after/--print-after-all: of those passes).
    #[arg(long, help_heading = "IR dumps (to stderr)")]
    pub print_changed: bool,

    /// Restrict the IR dumps to these functions (repeatable; comma-separated lists too).
    #[arg(long, value_name = "FUNC", value_delimiter = ',', help_heading = "IR dumps (to stderr)")]
    pub filter_print_funcs: Vec<String>,

    /// Print a table of the time spent in parse+lower, each pass and codegen (stderr).
    #[arg(long, help_heading = "IR dumps (to stderr)")]
    pub time_passes: bool,

    /// Before every pass verify the IR properties it requires, after it those it produces
    /// (every property that has a verifier rule: SSAForm, TypeChecked, NoNestedCalls,
    /// NormalizedStmtStructure, FlattenedSingleStmt, SplitIncoreOrch, IncoreBlockOps, …);
    /// a violation is an error (exit 1).
    #[arg(long, help_heading = "Verification")]
    pub verify_each: bool,

    /// Verification level (spec §1.5–1.6): `basic` verifies SSAForm and TypeChecked after
    /// convert-to-ssa (and AllocatedMemoryAddr after allocate-memory-addr) in the named
    /// pipelines, and checks the output of insert-sync and remove-redundant-sync for sync
    /// hazards in every run (a hazard is an internal compiler error); `none` verifies nothing
    /// automatically. Default: the PTOC_VERIFY_LEVEL environment
    /// variable (`none` or `basic`), else `basic`. `--passes` runs never verify automatically.
    #[arg(long, value_enum, value_name = "LEVEL", help_heading = "Verification")]
    pub verify_level: Option<VerifyLevel>,

    /// Leave this verifier rule out of `run-verifier` (SSAVerify, TypeCheck, NoNestedCall);
    /// repeatable. Unknown names are ignored, as in the reference.
    #[arg(long, value_name = "RULE", help_heading = "Verification")]
    pub disable_rule: Vec<String>,

    /// After the passes, check the sync ops of the final program: every
    /// cross-pipe RAW/WAR/WAW dependency on a MemRef not ordered by a set/wait pair or a
    /// barrier, and every wait without a matching set, is an error (exit 1).
    #[arg(long, help_heading = "Verification")]
    pub verify_sync: bool,

    /// After the passes, list on stderr the sync ops whose deletion would create no hazard
    /// (warnings; not an error).
    #[arg(long, help_heading = "Verification")]
    pub report_redundant_sync: bool,

    /// Print a completion script for this shell on stdout and exit (e.g.
    /// `ptoc --completions bash > ~/.local/share/bash-completion/completions/ptoc`).
    #[arg(long, value_enum, value_name = "SHELL", help_heading = "Input and resources")]
    pub completions: Option<clap_complete::Shell>,

    /// List the operators (or the one named, by IR name or any spelling: `block.load`,
    /// `pl.load`) with spellings, arguments, keyword arguments and defaults, result rule, pipes
    /// and the C++ / PTO-ISA instructions, and exit.
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "", help_heading = "Passes")]
    pub list_ops: Option<String>,

    /// List the registered passes with their descriptions and exit.
    #[arg(long, help_heading = "Passes")]
    pub list_passes: bool,

    /// The target whose pipe table the passes use. Default: `pto` with --emit pto, else `cce`.
    #[arg(long, value_enum, value_name = "NAME", help_heading = "Passes")]
    pub backend: Option<BackendArg>,

    /// Write the output here instead of stdout (a file for --emit=ir, a directory for
    /// --emit=cpp; missing directories are created). All or none: on any error the path is left
    /// as it was (new files are removed again, existing ones replaced only at the end; files
    /// already holding their new contents are kept). `-` means stdout.
    #[arg(short = 'o', long, value_name = "PATH", help_heading = "Output")]
    pub output: Option<PathBuf>,

    /// Colour diagnostics: `auto` = only when stderr is a terminal and NO_COLOR is unset.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorArg::Auto, help_heading = "Diagnostics")]
    pub color: ColorArg,

    /// How to print diagnostics: `human` (source excerpt with labels and notes) or `short`
    /// (one line `file:line:col: error[CODE]: message` each).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ErrorFormat::Human, help_heading = "Diagnostics")]
    pub error_format: ErrorFormat,

    /// Threads the compilation may use (default: the number of CPUs, at most 8). The output
    /// does not depend on it.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..), help_heading = "Input and resources")]
    pub jobs: Option<u16>,

    /// Refuse inputs larger than this many bytes (suffixes K/KiB, M/MiB, G/GiB allowed; at most
    /// 4 GiB less 2 bytes, as source offsets are 32-bit).
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_input_limit, help_heading = "Input and resources")]
    pub max_file_size: u64,
}

/// The completion script of `ptoc` for `shell`.
pub fn completion_script(shell: clap_complete::Shell) -> Vec<u8> {
    use clap::CommandFactory;
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "ptoc", &mut out);
    out
}

impl Cli {
    /// `--backend`, else the natural one of `--emit` (PTO for PTO-ISA MLIR).
    pub fn backend(&self) -> Backend {
        match (self.backend, self.emit) {
            (Some(b), _) => b.into(),
            (None, Emit::Pto) => Backend::Pto,
            (None, _) => Backend::Cce,
        }
    }

    /// `--pipeline`, else the natural one of `--emit` (`ptoas` for PTO-ISA MLIR: the
    /// assembler places synchronisation itself).
    pub fn pipeline(&self) -> Pipeline {
        match (self.pipeline, self.emit) {
            (Some(p), _) => p.into(),
            (None, Emit::Pto) => Pipeline::Ptoas,
            (None, _) => Pipeline::Default,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    Ir,
    Cpp,
    /// PTO-ISA MLIR (`pto-codegen.md`).
    Pto,
}

/// `--pipe-all`: how the cycle model counts `pipe_barrier(PIPE_ALL)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PipeAllMode {
    Drain,
    Free,
}

/// The format of `--stats`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    Text,
    Json,
}

/// `-O0` / `-O1` / `-O2` (also `-O 0`).
pub fn parse_opt_level(s: &str) -> Result<OptLevel, String> {
    match s {
        "0" => Ok(OptLevel::O0),
        "1" => Ok(OptLevel::O1),
        "2" => Ok(OptLevel::O2),
        _ => Err(format!("unknown optimisation level `{s}` (use 0, 1 or 2)")),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyLevel {
    None,
    Basic,
}

impl VerifyLevel {
    /// The flag's value, else PTOC_VERIFY_LEVEL (`none` → None, anything else → Basic, like
    /// the reference's PYPTO_VERIFY_LEVEL), else Basic.
    pub fn resolve(flag: Option<VerifyLevel>, env: Option<&str>) -> VerifyLevel {
        match (flag, env) {
            (Some(l), _) => l,
            (None, Some(v)) if v.eq_ignore_ascii_case("none") => VerifyLevel::None,
            _ => VerifyLevel::Basic,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PipelineArg {
    Default,
    Ptoas,
    None,
}

impl From<PipelineArg> for Pipeline {
    fn from(p: PipelineArg) -> Pipeline {
        match p {
            PipelineArg::Default => Pipeline::Default,
            PipelineArg::Ptoas => Pipeline::Ptoas,
            PipelineArg::None => Pipeline::None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    Cce,
    Pto,
}

impl From<BackendArg> for Backend {
    fn from(b: BackendArg) -> Backend {
        match b {
            BackendArg::Cce => Backend::Cce,
            BackendArg::Pto => Backend::Pto,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ErrorFormat {
    Human,
    Short,
}

/// Parses a byte count: digits, optionally followed by K/KiB, M/MiB or G/GiB (powers of 1024).
/// [`parse_size`] of an input limit: at most [`super::input::MAX_INPUT_BYTES`].
pub fn parse_input_limit(s: &str) -> Result<u64, String> {
    let n = parse_size(s)?;
    let max = super::input::MAX_INPUT_BYTES;
    if n > max {
        return Err(format!("ptoc reads inputs of at most {max} bytes (source offsets are 32-bit)"));
    }
    Ok(n)
}

pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: u64 = digits.parse().map_err(|_| format!("`{s}` is not a size (e.g. 1048576, 512K, 256MiB)"))?;
    let shift = match unit {
        "" => 0,
        "K" | "k" | "KiB" => 10,
        "M" | "m" | "MiB" => 20,
        "G" | "g" | "GiB" => 30,
        _ => return Err(format!("unknown size unit `{unit}` (use K, M or G)")),
    };
    n.checked_mul(1u64 << shift).ok_or_else(|| format!("size `{s}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("2K"), Ok(2048));
        assert_eq!(parse_size("256MiB"), Ok(256 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert!(parse_size("").is_err());
        assert!(parse_size("12X").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
        assert_eq!(parse_input_limit("3G"), Ok(3 << 30));
        assert!(parse_input_limit("4G").is_err(), "4 GiB has offsets a token cannot hold");
        assert!(parse_size("9999999999999G").is_err());
    }

    #[test]
    fn defaults() {
        let cli = Cli::try_parse_from(["ptoc", "x.pto"]).unwrap();
        assert_eq!(cli.emit, Emit::Ir);
        assert_eq!(cli.pipeline(), Pipeline::Default);
        assert_eq!(cli.backend(), Backend::Cce);
        assert_eq!(cli.max_file_size, 256 << 20);
        assert!(cli.passes.is_none());
        assert_eq!(cli.opt, OptLevel::O2);
        assert_eq!(cli.stats, None);
    }

    #[test]
    fn opt_levels_and_stats() {
        assert_eq!(Cli::try_parse_from(["ptoc", "-O0", "x.pto"]).unwrap().opt, OptLevel::O0);
        assert_eq!(Cli::try_parse_from(["ptoc", "-O", "1", "x.pto"]).unwrap().opt, OptLevel::O1);
        assert_eq!(Cli::try_parse_from(["ptoc", "-O2", "x.pto"]).unwrap().opt, OptLevel::O2);
        assert!(Cli::try_parse_from(["ptoc", "-O3", "x.pto"]).is_err());
        assert_eq!(Cli::try_parse_from(["ptoc", "--stats", "x.pto"]).unwrap().stats, Some(StatsFormat::Text));
        assert_eq!(Cli::try_parse_from(["ptoc", "--stats=json", "x.pto"]).unwrap().stats, Some(StatsFormat::Json));
    }

    #[test]
    fn emit_pto_implies_its_backend_and_pipeline() {
        let cli = Cli::try_parse_from(["ptoc", "--emit", "pto", "x.pto"]).unwrap();
        assert_eq!((cli.backend(), cli.pipeline()), (Backend::Pto, Pipeline::Ptoas));
        let cli = Cli::try_parse_from(["ptoc", "--emit", "pto", "--pipeline", "none", "x.pto"]).unwrap();
        assert_eq!((cli.backend(), cli.pipeline()), (Backend::Pto, Pipeline::None));
        let cli = Cli::try_parse_from(["ptoc", "--backend", "pto", "x.pto"]).unwrap();
        assert_eq!((cli.backend(), cli.pipeline()), (Backend::Pto, Pipeline::Default));
    }

    #[test]
    fn passes_split_on_commas() {
        let cli = Cli::try_parse_from(["ptoc", "--passes", "a,b", "x.pto"]).unwrap();
        assert_eq!(cli.passes, Some(vec!["a".to_string(), "b".to_string()]));
    }

    #[test]
    fn input_is_required_unless_listing() {
        assert!(Cli::try_parse_from(["ptoc"]).is_err());
        assert!(Cli::try_parse_from(["ptoc", "--list-passes"]).is_ok());
    }
}
