//! CCE C++ code generation (spec `passes-and-codegen.md` §4): one kernel file per kernel
//! function, and for a program with an Orchestration function its orchestration file and
//! `kernel_config.py`.

pub mod kernel;
pub mod kernel_config;
pub mod orchestration;

use crate::backend::{self, Backend};
use crate::diag::{codes, Diagnostic};
use crate::ir::visit::walk_all_exprs;
use crate::ir::{Callee, ExprKind, Function, PipeType, Program};

/// Which core a kernel runs on (§4.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreType {
    /// The cube core (AIC): the function uses the M pipe.
    Cube,
    /// The vector core (AIV): everything else.
    Vector,
}

impl CoreType {
    /// The kernel folder: `aic` or `aiv`.
    pub fn dir(self) -> &'static str {
        match self {
            CoreType::Cube => "aic",
            CoreType::Vector => "aiv",
        }
    }
}

/// The core type of a kernel function (§4.8): from the CCE pipes of all its op calls; M and V
/// together is an error.
pub fn core_type(f: &Function) -> Result<CoreType, Diagnostic> {
    let (mut m, mut v) = (false, false);
    walk_all_exprs(&f.body, &mut |e| {
        if let ExprKind::Call(c) = &e.kind {
            if let Callee::Op(op) = c.callee {
                match backend::pipe(op, Backend::Cce) {
                    Some(PipeType::M) => m = true,
                    Some(PipeType::V) => v = true,
                    _ => {}
                }
            }
        }
    });
    match (m, v) {
        (true, true) => Err(Diagnostic::error(
            codes::UNSUPPORTED,
            f.span,
            format!(
                "Function {} contains both Matrix (M) and Vector (V) pipe types. A function can only use one core type (CUBE or VECTOR).",
                f.name
            ),
        )),
        (true, false) => Ok(CoreType::Cube),
        _ => Ok(CoreType::Vector),
    }
}

/// Generates every file of `prog`: (relative path, text), sorted by path (§4.1).
pub fn generate(prog: &Program) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    let _ = prog;
    Err(vec![Diagnostic::error(
        crate::diag::codes::PASS_NOT_IMPLEMENTED,
        crate::diag::Span::NONE,
        "C++ emission is not implemented yet",
    )
    .with_note("use --emit ir")])
}
