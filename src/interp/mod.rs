//! An interpreter for the IR: runs a [`Program`] at any pipeline stage (`ptoc run`; the
//! oracle of the execution tests).
//!
//! Tiles are values and tensors are shared buffers ([`value`]); memory planning (MemRefs,
//! addresses, `block.alloc`) and sync ops take no part in the results, so a program gives the
//! same results before and after every pass. Element arithmetic follows the device: FP16 and
//! BF16 rounded after every operation, integers wrapped at their width ([`numeric`]); where
//! pto-isa leaves the semantics to the implementation the interpreter follows its CPU
//! simulator (docs/execution.md lists the choices).
//!
//! Errors are [`Diagnostic`]s with the span of the offending expression; the interpreter
//! never panics on a program, whatever it holds.

mod exec;
pub mod inputs;
pub mod numeric;
mod padding;
mod partial;
mod scalar;
mod semantics;
#[cfg(test)]
mod tests;
pub mod value;

pub use semantics::NOT_EXECUTED;
pub use value::{Array, Num, Scalar, Tensor, Value};

use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{FunctionType, Program};

/// What a run produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Every parameter's final value, in order: tensors show what the run wrote into them
    /// (a tensor is shared memory, so stores through `Out`/`InOut` parameters are seen here).
    pub params: Vec<Value>,
    /// The function's return values, in order (a tuple return gives several).
    pub returns: Vec<Value>,
}

/// The step budget of a run unless one is given (`ptoc run --max-steps`): a step is one
/// statement executed (blocks and ifs count too, so every loop iteration counts at least
/// once). The system tests and examples take at most 843 steps (a dynamic-shape loop after
/// the default pipeline), so ten million leaves a margin of ten thousand times while a scalar
/// loop that never ends stops within a second.
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

/// Runs function `func` of `program` on `args` (one per parameter, in order; scalars are
/// converted to the parameter's dtype, tensors must match the parameter's dtype and constant
/// dims), within the default step budget.
pub fn run_function(program: &Program, func: &str, args: Vec<Value>) -> Result<RunResult, Diagnostic> {
    run_function_within(program, func, args, DEFAULT_MAX_STEPS)
}

/// [`run_function`] with a step budget of `max_steps`: a run that takes more ends with
/// `E0707` at the innermost loop running.
pub fn run_function_within(
    program: &Program,
    func: &str,
    args: Vec<Value>,
    max_steps: u64,
) -> Result<RunResult, Diagnostic> {
    let Some(f) = program.function(func) else {
        return Err(Diagnostic::error(
            codes::RUN_NO_FUNCTION,
            Span::NONE,
            format!("the program has no function `{func}` (it has: {})", function_names(program)),
        ));
    };
    let args = exec::check_args(f, args)?;
    exec::Interp::new(program, max_steps).run(f, args, f.span)
}

/// The function `ptoc run` runs when none is named: the Orchestration function if there is
/// exactly one, else the only function.
pub fn default_function(program: &Program) -> Result<&str, Diagnostic> {
    let orch: Vec<&str> =
        program.functions.iter().filter(|f| f.kind == FunctionType::Orchestration).map(|f| f.name.as_str()).collect();
    match (orch.as_slice(), program.functions.as_slice()) {
        ([one], _) => Ok(one),
        ([], [only]) => Ok(&only.name),
        ([], []) => Err(Diagnostic::error(codes::RUN_NO_FUNCTION, Span::NONE, "the program has no function to run")),
        (many, _) => {
            let list = if many.is_empty() { function_names(program) } else { many.join(", ") };
            Err(Diagnostic::error(
                codes::RUN_NO_FUNCTION,
                Span::NONE,
                format!("several functions could be run ({list}): choose one with --func"),
            ))
        }
    }
}

fn function_names(program: &Program) -> String {
    let names: Vec<&str> = program.functions.iter().map(|f| f.name.as_str()).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

pub(crate) fn err(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, span, message)
}
