//! `ptoc run`: interpret one function of a program (after the chosen passes) on inputs read
//! from `.npy` files, given as numbers or generated from a seed, and write every tensor
//! parameter's final value and every returned value as `.npy` (docs/execution.md).

use std::path::{Path, PathBuf};

use clap::Parser;

use super::cli::{BackendArg, ColorArg, ErrorFormat, PipelineArg};
use super::compile::Request;
use super::report::Style;
use super::{exit, input, input_error, plan, report, Host, Output};
use crate::backend::Backend;
use crate::diag::{codes, Diagnostic, Span};
use crate::interp::{self, Array, Num, Scalar, Value};
use crate::ir::{DataType, Function, Program, Type};
use crate::passes::{PassEnv, PassInfo, Pipeline};

/// Files to write: (path, contents).
type Files = Vec<(PathBuf, Vec<u8>)>;

const AFTER_HELP: &str = "\
Inputs: every parameter not given with --input (or found in --input-dir) is generated from
--seed with SplitMix64, in parameter order: floats uniform in [-1, 1), signed integers in
[-8, 8], unsigned in [0, 8], integer scalars in [1, 8] (docs/execution.md).

Outputs: one line per output on stdout, `name [shape] DTYPE min=… max=… mean=…`: first every
tensor parameter (its final value), then every returned value as return_0, return_1, …
With -o DIR the same values are written as DIR/<param>.npy and DIR/return_<i>.npy (all or
none). FP16 is written as numpy float16 (<f2); BF16, which numpy lacks, as float32 (<f4), and
read from <f4 or from its raw bits as <u2.

Exit status: 0 success, 1 error in the input or during the run, 2 usage error.";

/// ptoc run: interpret a function of a .pto program and write its results as .npy files.
#[derive(Debug, Parser)]
#[command(name = "ptoc run", after_help = AFTER_HELP)]
pub struct RunCli {
    /// The .pto file, or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    pub input: String,

    /// The function to run (default: the Orchestration function, else the only function).
    #[arg(long, value_name = "NAME")]
    pub func: Option<String>,

    /// Seed of the generated inputs.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// A parameter's value: `PARAM=FILE.npy` for a tensor (dtype and shape must match), or
    /// `PARAM=<number>` for a scalar. Repeatable.
    #[arg(long = "input", value_name = "PARAM=VALUE")]
    pub inputs: Vec<String>,

    /// Read `DIR/<param>.npy` for every parameter that has such a file (--input wins).
    #[arg(long, value_name = "DIR")]
    pub input_dir: Option<PathBuf>,

    /// Write the outputs as .npy files into this directory (created if missing).
    #[arg(short = 'o', long, value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// Which pass list runs before the interpreter (`none`: the program as written).
    #[arg(long, value_enum, value_name = "NAME", default_value_t = PipelineArg::Default)]
    pub pipeline: PipelineArg,

    /// Optimisation level of the pipeline (`0`: as the reference; `1`, default: also
    /// remove-redundant-sync), as for compiling.
    #[arg(short = 'O', value_name = "LEVEL", default_value = "1", value_parser = super::cli::parse_opt_level)]
    pub opt: crate::passes::OptLevel,

    /// Stop the pipeline after this pass.
    #[arg(long, value_name = "PASS")]
    pub stop_after: Option<String>,

    /// Run exactly these passes instead of the pipeline's (comma-separated).
    #[arg(long, value_name = "P1,P2,…", value_delimiter = ',', num_args = 1)]
    pub passes: Option<Vec<String>>,

    /// The target whose pipe table the passes use.
    #[arg(long, value_enum, value_name = "NAME", default_value_t = BackendArg::Cce)]
    pub backend: BackendArg,

    /// Colour diagnostics (`auto`: only on a terminal without NO_COLOR).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorArg::Auto)]
    pub color: ColorArg,

    /// How to print diagnostics: `human` or `short`.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ErrorFormat::Human)]
    pub error_format: ErrorFormat,

    /// Stop the run with E0707 after this many steps (a step is one statement executed; every
    /// loop iteration counts at least one): a loop that never ends is reported, not run forever.
    #[arg(long, value_name = "N", default_value_t = interp::DEFAULT_MAX_STEPS)]
    pub max_steps: u64,

    /// Refuse inputs larger than this many bytes (suffixes K/KiB, M/MiB, G/GiB allowed; at most
    /// 4 GiB less 2 bytes, as source offsets are 32-bit).
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = super::cli::parse_input_limit)]
    pub max_file_size: u64,
}

/// `ptoc run …` (`args[1]` is `run`).
pub(super) fn drive(args: &[String], host: &mut Host<'_>) -> Output {
    let cli = match RunCli::try_parse_from(args.iter().skip(1)) {
        Ok(c) => c,
        Err(e) => return super::clap_output(e),
    };
    let style = Style { format: cli.error_format, color: host.color(cli.color) };
    let plan = match cli.plan() {
        Ok(p) => p,
        Err(d) => {
            return Output {
                stderr: report::render(&[d], None, style).into_bytes(),
                code: exit::INPUT_ERROR,
                ..Output::default()
            }
        }
    };
    let file = match input::read(&cli.input, host.stdin, cli.max_file_size) {
        Ok(f) => f,
        Err(e) => return input_error(&[e.diag], &e.file, style, String::new()),
    };
    let outputs = cli_inputs(&cli).and_then(|inputs| {
        interpret(&cli, &plan, &file.name, &file.text, &inputs, cli.input_dir.as_deref())
            .and_then(|done| Ok((files(&done.outputs, cli.output.as_deref()).map_err(|d| done.fail(d))?, done)))
    });
    match outputs {
        Ok((files, done)) => {
            let stdout: String = done.outputs.iter().map(|(name, a)| summary(name, a) + "\n").collect();
            Output { stdout: stdout.into_bytes(), stderr: done.stderr.into_bytes(), files, ..Output::default() }
        }
        Err(failed) => input_error(&failed.diagnostics, &file, style, failed.stderr),
    }
}

impl RunCli {
    /// The passes that run before the interpreter.
    pub(super) fn plan(&self) -> Result<Vec<&'static PassInfo>, Diagnostic> {
        plan::resolve(Pipeline::from(self.pipeline), self.opt, self.passes.as_deref(), self.stop_after.as_deref())
    }
}

/// Where a parameter's value given by the caller comes from.
pub(super) enum Given {
    /// An .npy file (`--input P=FILE.npy`, `--input-dir`).
    File(PathBuf),
    /// The bytes of an .npy file (an array handed over by a library caller).
    Npy(Vec<u8>),
    /// A number, as text (`--input P=<number>`).
    Number(String),
}

/// A value given for the parameter `param`; `written` is how the caller wrote it and
/// `array_form` how the caller gives an array (for messages: ``--input `a=x.npy` ``,
/// `PARAM=FILE.npy`).
pub(super) struct GivenInput {
    pub param: String,
    pub value: Given,
    pub written: String,
    pub array_form: &'static str,
}

/// The `--input` values of the command line.
fn cli_inputs(cli: &RunCli) -> Result<Vec<GivenInput>, super::Failed> {
    let fail = |d| super::Failed { diagnostics: vec![d], stderr: String::new() };
    let mut inputs = Vec::new();
    for spec in &cli.inputs {
        let Some((param, value)) = spec.split_once('=') else {
            return Err(fail(bad_input(
                Span::NONE,
                format!("--input `{spec}`: expected PARAM=FILE.npy or PARAM=<number>"),
            )));
        };
        let value = if value.ends_with(".npy") { Given::File(value.into()) } else { Given::Number(value.into()) };
        inputs.push(GivenInput {
            param: param.to_string(),
            value,
            written: format!("--input `{spec}`"),
            array_form: "PARAM=FILE.npy",
        });
    }
    Ok(inputs)
}

/// A finished run: every output (see [`execute`]) and what was written to stderr on the way.
pub(super) struct Interpreted {
    pub outputs: Vec<(String, Array)>,
    pub stderr: String,
}

impl Interpreted {
    /// The run failed after all, with `d` (its stderr kept).
    fn fail(&self, d: Diagnostic) -> super::Failed {
        super::Failed { diagnostics: vec![d], stderr: self.stderr.clone() }
    }
}

/// Compiles `text` through `plan` and runs the chosen function on the given inputs (and the
/// seeded ones), as `ptoc run` and the library entry [`super::library::run`] do.
pub(super) fn interpret(
    cli: &RunCli,
    plan: &[&'static PassInfo],
    name: &str,
    text: &str,
    inputs: &[GivenInput],
    input_dir: Option<&Path>,
) -> Result<Interpreted, super::Failed> {
    let request = Request {
        passes: plan,
        env: PassEnv {
            opt: if cli.passes.is_some() { crate::passes::OptLevel::O0 } else { cli.opt },
            ..PassEnv::new(Backend::from(cli.backend))
        },
        dumps: &super::dumps::DumpSpec::default(),
        time_passes: false,
        verify_each: false,
        auto_verify: cli.passes.is_none(),
        emit_cpp: false,
        emit_pto: None,
        disabled_rules: &[],
        source_name: name,
        verify_sync: false,
        report_redundant_sync: false,
        sync_postcondition: super::cli::VerifyLevel::resolve(None, std::env::var("PTOC_VERIFY_LEVEL").ok().as_deref())
            == super::cli::VerifyLevel::Basic,
        stats: None,
        timeline: false,
        cycle_model: Default::default(),
        jobs: crate::parser::default_jobs(),
        print_width: crate::printer::NO_WRAP,
    };
    let mut stderr = String::new();
    let prog = match super::compile::compile_program(text, &request, &mut stderr) {
        Ok(p) => p,
        Err(diagnostics) => return Err(super::Failed { diagnostics, stderr }),
    };
    // Parameters are named as the source writes them (convert-to-ssa renames `a` to `a_0`):
    // --input and the output files use those names.
    let written = super::compile::frontend(text).ok();
    match execute(&prog, written.as_ref(), cli, inputs, input_dir) {
        Ok(outputs) => Ok(Interpreted { outputs, stderr }),
        Err(d) => Err(super::Failed { diagnostics: vec![d], stderr }),
    }
}

/// Runs the chosen function; returns every tensor parameter's final value (in parameter order)
/// and every returned value (`return_<i>`).
fn execute(
    prog: &Program,
    written: Option<&Program>,
    cli: &RunCli,
    inputs: &[GivenInput],
    input_dir: Option<&Path>,
) -> Result<Vec<(String, Array)>, Diagnostic> {
    let name = match &cli.func {
        Some(f) => f.as_str(),
        None => interp::default_function(prog)?,
    };
    let Some(func) = prog.function(name) else {
        let names: Vec<&str> = prog.functions.iter().map(|f| f.name.as_str()).collect();
        return Err(Diagnostic::error(
            codes::RUN_NO_FUNCTION,
            Span::NONE,
            format!("the program has no function `{name}` (it has: {})", names.join(", ")),
        ));
    };
    let names = param_names(written, func);
    let given = given_inputs(func, &names, inputs, input_dir)?;
    let args = interp::inputs::make_args(func, cli.seed, given)?;
    let result = interp::run_function_within(prog, name, args, cli.max_steps)?;

    let mut outputs: Vec<(String, Array)> = Vec::new();
    for (name, v) in names.iter().zip(&result.params) {
        if matches!(v, Value::Tensor(_) | Value::Tile(_)) {
            if let Some(a) = v.array() {
                outputs.push((name.clone(), a));
            }
        }
    }
    for (i, v) in result.returns.iter().enumerate() {
        if let Some(a) = v.array() {
            outputs.push((format!("return_{i}"), a));
        }
    }
    Ok(outputs)
}

/// The `-o DIR` files of the outputs: `DIR/<name>.npy` each (none without a directory).
fn files(outputs: &[(String, Array)], dir: Option<&Path>) -> Result<Files, Diagnostic> {
    let Some(dir) = dir else { return Ok(Vec::new()) };
    outputs.iter().map(|(name, a)| Ok((dir.join(format!("{name}.npy")), npy_of(name, a)?))).collect()
}

/// [`to_npy`] of the output `name`, its failure as a diagnostic.
pub(super) fn npy_of(name: &str, a: &Array) -> Result<Vec<u8>, Diagnostic> {
    to_npy(a)
        .map_err(|e| Diagnostic::error(codes::FILE_WRITE, Span::NONE, format!("cannot encode `{name}` as .npy: {e}")))
}

/// `name [d0, d1] DTYPE min=… max=… mean=…` (BF16 and FP16 values as they are stored).
pub fn summary(name: &str, a: &Array) -> String {
    let v = a.to_f64_vec();
    let dims: Vec<String> = a.shape().iter().map(|d| d.to_string()).collect();
    let stats = if v.is_empty() {
        "min=- max=- mean=-".to_string()
    } else {
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        format!("min={} max={} mean={}", num(min), num(max), num(mean))
    };
    format!("{name} [{}] {} {stats}", dims.join(", "), a.dtype().name())
}

/// Six significant decimals, without a trailing `-0`.
fn num(x: f64) -> String {
    let s = format!("{x:.6}");
    if s.trim_start_matches('-').trim_start_matches(['0', '.']).is_empty() {
        s.trim_start_matches('-').to_string()
    } else {
        s
    }
}

/// The parameter names of `func` as the source writes them: those of the same function in the
/// program as written when it has one with as many parameters (passes keep the order), else
/// the current names (a function made by a pass).
fn param_names(written: Option<&Program>, func: &Function) -> Vec<String> {
    let original = written.and_then(|w| w.function(&func.name).map(|f| (w, f)));
    match original {
        Some((_, f)) if f.params.len() == func.params.len() => {
            f.params.iter().map(|p| f.var_name(p.var).to_string()).collect()
        }
        _ => func.params.iter().map(|p| func.var_name(p.var).to_string()).collect(),
    }
}

/// The values given (`--input`, a library caller's inputs) and found in `--input-dir`, per
/// parameter.
fn given_inputs(
    func: &Function,
    names: &[String],
    inputs: &[GivenInput],
    input_dir: Option<&Path>,
) -> Result<Vec<Option<Value>>, Diagnostic> {
    let mut given: Vec<Option<Value>> = vec![None; func.params.len()];
    for input in inputs {
        let param = &input.param;
        let Some(k) = names.iter().position(|n| n == param) else {
            return Err(bad_input(
                Span::NONE,
                format!("{}: `{}` has no parameter `{param}` (it has: {})", input.written, func.name, names.join(", ")),
            ));
        };
        given[k] = Some(match &input.value {
            Given::File(path) => npy_param(func, k, &names[k], Origin::File(path), read_file(path))?,
            Given::Npy(bytes) => npy_param(func, k, &names[k], Origin::Array, Ok(bytes.as_slice().into()))?,
            Given::Number(text) => number_param(func, k, &names[k], text, input)?,
        });
    }
    if let Some(dir) = input_dir {
        for (k, name) in names.iter().enumerate() {
            let path = dir.join(format!("{name}.npy"));
            if given[k].is_none() && path.is_file() {
                given[k] = Some(npy_param(func, k, name, Origin::File(&path), read_file(&path))?);
            }
        }
    }
    Ok(given)
}

fn read_file(path: &Path) -> std::io::Result<std::borrow::Cow<'static, [u8]>> {
    std::fs::read(path).map(Into::into)
}

fn bad_input(span: Span, msg: String) -> Diagnostic {
    Diagnostic::error(codes::RUN_BAD_INPUT, span, msg)
}

/// A scalar parameter's value from its text.
fn number_param(func: &Function, k: usize, name: &str, text: &str, input: &GivenInput) -> Result<Value, Diagnostic> {
    let var = func.var(func.params[k].var);
    let Type::Scalar(d) = var.ty else {
        return Err(bad_input(
            var.span,
            format!("parameter `{}` is a {}: give it as {}, not a number", name, var.ty.kind_name(), input.array_form),
        ));
    };
    let t = text.trim();
    let num = if d.is_float() {
        t.parse::<f64>().ok().map(Num::F)
    } else if d == DataType::Bool {
        match t {
            "true" | "True" | "1" => Some(Num::I(1)),
            "false" | "False" | "0" => Some(Num::I(0)),
            _ => None,
        }
    } else {
        t.parse::<i128>().ok().map(Num::I)
    };
    match num {
        Some(n) => Ok(Value::Scalar(Scalar::new(d, n))),
        None => {
            Err(bad_input(var.span, format!("parameter `{}` is {}: `{text}` is not such a number", name, d.name())))
        }
    }
}

/// Where an .npy value comes from, as its messages say.
#[derive(Clone, Copy)]
enum Origin<'p> {
    File(&'p Path),
    /// An array of a library caller.
    Array,
}

impl Origin<'_> {
    /// What its messages call it: "the file", "the array".
    fn noun(self) -> &'static str {
        match self {
            Origin::File(_) => "the file",
            Origin::Array => "the array",
        }
    }
}

/// A parameter's value from the bytes of an .npy file (or the error reading them), checked
/// against the parameter's dtype and constant dims.
fn npy_param(
    func: &Function,
    k: usize,
    name: &str,
    origin: Origin<'_>,
    bytes: std::io::Result<std::borrow::Cow<'_, [u8]>>,
) -> Result<Value, Diagnostic> {
    let var = func.var(func.params[k].var);
    let fail = |m: String| match origin {
        Origin::File(path) => bad_input(var.span, format!("parameter `{}`: `{}`: {m}", name, path.display())),
        Origin::Array => bad_input(var.span, format!("parameter `{name}`: {m}")),
    };
    let noun = origin.noun();
    if let Type::Scalar(d) = var.ty {
        // A scalar may come as a 0-d array (what numpy writes for `np.save(f, np.float32(2))`).
        let bytes = bytes.map_err(|e| fail(format!("cannot read: {e}")))?;
        let (descr, shape, nums) = bf16_bits(d, read_npy(&bytes).map_err(fail)?);
        let expected = npy_descr(d).ok_or_else(|| fail(format!("{} has no .npy form", d.name())))?;
        if descr != expected {
            return Err(fail(format!(
                "{noun} holds {descr} elements, but the parameter is {} (expected {expected})",
                d.name()
            )));
        }
        return match (shape.is_empty(), nums.as_slice()) {
            (true, [n]) => Ok(Value::Scalar(Scalar::new(d, *n))),
            _ => Err(fail(format!("the parameter is a Scalar: {noun} must hold a 0-d array, not shape {shape:?}"))),
        };
    }
    let (Type::Tensor(_) | Type::Tile(_)) = var.ty else {
        let how = match origin {
            Origin::File(_) => "PARAM=FILE.npy holding its value",
            Origin::Array => "an array holding its value",
        };
        return Err(fail(format!("the parameter is a {}; give it as {how}", var.ty.kind_name())));
    };
    let bytes = bytes.map_err(|e| fail(format!("cannot read: {e}")))?;
    let want = var.ty.dtype().unwrap_or(DataType::Fp32);
    let (descr, shape, nums) = bf16_bits(want, read_npy(&bytes).map_err(fail)?);
    let Some(expected) = npy_descr(want) else {
        return Err(fail(format!("{} has no .npy form", want.name())));
    };
    if descr != expected {
        return Err(fail(format!(
            "{noun} holds {descr} elements, but the parameter is {} (expected {expected})",
            want.name()
        )));
    }
    let want_shape = var.ty.shape().unwrap_or(&[]);
    let shape_ok = want_shape.len() == shape.len()
        && want_shape.iter().zip(&shape).all(|(d, n)| d.as_const_int().is_none_or(|c| c == *n as i64));
    if !shape_ok {
        let noun = match origin {
            Origin::File(_) => "the file's",
            Origin::Array => "the array's",
        };
        return Err(fail(format!(
            "{noun} shape is {shape:?}, but the parameter is {}",
            crate::printer::print_type(&func.vars, &var.ty)
        )));
    }
    let a = Array::from_nums(want, shape, nums);
    Ok(if matches!(var.ty, Type::Tile(_)) { Value::tile(a) } else { Value::tensor(a) })
}

/// BF16 values may also be given as their raw 16 bits (`<u2`, how tools without a bfloat16
/// dtype store them): read as the `f4` values they stand for.
fn bf16_bits(d: DataType, (descr, shape, nums): (String, Vec<usize>, Vec<Num>)) -> (String, Vec<usize>, Vec<Num>) {
    if d != DataType::Bf16 || descr != "u2" {
        return (descr, shape, nums);
    }
    let floats = nums
        .into_iter()
        .map(|n| Num::F(half::bf16::from_bits(u16::try_from(n.as_i128()).unwrap_or(0)).to_f64()))
        .collect();
    ("f4".to_string(), shape, floats)
}

/// The .npy element type a dtype is read from and written as (kind and byte size, no byte
/// order). BF16, which numpy lacks, is float32; INT4/UINT4 take a byte each.
fn npy_descr(d: DataType) -> Option<&'static str> {
    use DataType::*;
    Some(match d {
        Bool => "b1",
        Int4 | Int8 => "i1",
        Int16 => "i2",
        Int32 => "i4",
        Int64 => "i8",
        UInt4 | UInt8 => "u1",
        UInt16 => "u2",
        UInt32 => "u4",
        UInt64 => "u8",
        Fp16 => "f2",
        Fp32 | Bf16 => "f4",
        _ => return None,
    })
}

/// Element kind + size (`f4`), shape and elements of an .npy file.
fn read_npy(bytes: &[u8]) -> Result<(String, Vec<usize>, Vec<Num>), String> {
    use npyz::{DType, NpyFile, Order};
    let npy = NpyFile::new(bytes).map_err(|e| format!("not a readable .npy file: {e}"))?;
    if npy.order() == Order::Fortran {
        return Err("Fortran-ordered arrays are not supported (save with C order)".into());
    }
    let ts = match npy.dtype() {
        DType::Plain(ts) => ts,
        other => return Err(format!("unsupported element type {}", other.descr())),
    };
    let full = ts.to_string();
    let descr = full.trim_start_matches(['<', '>', '|', '=']).to_string();
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let e = |err: std::io::Error| format!("cannot read the elements: {err}");
    let nums: Vec<Num> = match descr.as_str() {
        "f2" => npy.into_vec::<half::f16>().map_err(e)?.into_iter().map(|v| Num::F(v.to_f64())).collect(),
        "f4" => npy.into_vec::<f32>().map_err(e)?.into_iter().map(|v| Num::F(v.into())).collect(),
        "f8" => npy.into_vec::<f64>().map_err(e)?.into_iter().map(Num::F).collect(),
        "i1" => npy.into_vec::<i8>().map_err(e)?.into_iter().map(|v| Num::I(v.into())).collect(),
        "i2" => npy.into_vec::<i16>().map_err(e)?.into_iter().map(|v| Num::I(v.into())).collect(),
        "i4" => npy.into_vec::<i32>().map_err(e)?.into_iter().map(|v| Num::I(v.into())).collect(),
        "i8" => npy.into_vec::<i64>().map_err(e)?.into_iter().map(|v| Num::I(v.into())).collect(),
        "u1" => npy.into_vec::<u8>().map_err(e)?.into_iter().map(|v| Num::I(v.into())).collect(),
        "u2" => npy.into_vec::<u16>().map_err(e)?.into_iter().map(|v| Num::I(v.into())).collect(),
        "u4" => npy.into_vec::<u32>().map_err(e)?.into_iter().map(|v| Num::I(v.into())).collect(),
        "u8" => npy.into_vec::<u64>().map_err(e)?.into_iter().map(|v| Num::I(v.into())).collect(),
        "b1" => npy.into_vec::<bool>().map_err(e)?.into_iter().map(|v| Num::I(v.into())).collect(),
        _ => return Err(format!("unsupported element type {full}")),
    };
    Ok((descr, shape, nums))
}

/// The .npy bytes of an array (little-endian, C order; see [`npy_descr`] for the types).
pub fn to_npy(a: &Array) -> std::io::Result<Vec<u8>> {
    use DataType::*;
    let v = a.to_f64_vec();
    let ints = || (0..a.len()).map(|i| a.get(i).as_i128());
    let shape: Vec<u64> = a.shape().iter().map(|&d| d as u64).collect();
    let mut buf = Vec::new();
    match a.dtype() {
        Fp16 => write_npy(&mut buf, &shape, v.iter().map(|&x| half::f16::from_f64(x)))?,
        Fp32 | Bf16 => write_npy(&mut buf, &shape, v.iter().map(|&x| x as f32))?,
        Bool => write_npy(&mut buf, &shape, ints().map(|x| x != 0))?,
        Int4 | Int8 => write_npy(&mut buf, &shape, ints().map(|x| x as i8))?,
        Int16 => write_npy(&mut buf, &shape, ints().map(|x| x as i16))?,
        Int32 => write_npy(&mut buf, &shape, ints().map(|x| x as i32))?,
        Int64 => write_npy(&mut buf, &shape, ints().map(|x| x as i64))?,
        UInt4 | UInt8 => write_npy(&mut buf, &shape, ints().map(|x| x as u8))?,
        UInt16 => write_npy(&mut buf, &shape, ints().map(|x| x as u16))?,
        UInt32 => write_npy(&mut buf, &shape, ints().map(|x| x as u32))?,
        UInt64 => write_npy(&mut buf, &shape, ints().map(|x| x as u64))?,
        d => {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{} has no .npy form", d.name())))
        }
    }
    Ok(buf)
}

fn write_npy<T: npyz::AutoSerialize>(
    buf: &mut Vec<u8>,
    shape: &[u64],
    items: impl Iterator<Item = T>,
) -> std::io::Result<()> {
    use npyz::WriterBuilder;
    let mut w = npyz::WriteOptions::new().default_dtype().shape(shape).writer(buf).begin_nd()?;
    w.extend(items)?;
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_round_trip_for_every_dtype() {
        use DataType::*;
        for d in [Fp16, Fp32, Bf16, Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64] {
            let a = Array::from_f64(d, vec![2, 3], &[0.0, 1.0, -1.5, 3.0, 100.25, 7.0]);
            let bytes = to_npy(&a).unwrap();
            let (descr, shape, nums) = read_npy(&bytes).unwrap();
            assert_eq!(Some(descr.as_str()), npy_descr(d), "{d:?}");
            assert_eq!(shape, vec![2, 3]);
            assert_eq!(Array::from_nums(d, shape, nums), a, "{d:?}");
        }
        let s = summary("x", &Array::from_f64(DataType::Fp32, vec![2], &[-1.0, 2.0]));
        assert_eq!(s, "x [2] FP32 min=-1.000000 max=2.000000 mean=0.500000");
    }
}
