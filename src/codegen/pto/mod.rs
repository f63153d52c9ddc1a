//! PTO-ISA MLIR code generation (spec `pto-codegen.md`): the reference's second backend,
//! whose output the `ptoas` assembler compiles further. [`module`] is the reference's
//! `PTOCodegen().generate(program)` (one `module` with a `func.func` per function, §1.1);
//! [`files`] is its PTO backend driver (one `.pto` kernel file per InCore function plus the
//! orchestration C++, §1.2).
//!
//! Files: `func` (one function's layout), `namer` (SSA names and
//! constants), `types` (type spellings), `expr` (scalar expressions, operands), `ops` (block
//! ops, from the operator table's `pto` column, whose variants are in `ops::pto`), `control`
//! (statements, `scf.for`, `scf.if`). The tile buffers are `analysis::pto_buffers`; which tensor parameter a store result or loop-carried
//! tensor aliases is `analysis::param_roots`; what the writer needs of a kernel's IR is the PTO
//! form rule, `verify::pto_form`.

mod calls;
mod control;
mod expr;
mod func;
mod namer;
mod types;

use crate::backend::Backend;
use crate::diag::Diagnostic;
use crate::ir::{FunctionType, Program};

use super::{core_type_on, orchestration, CoreTypes};

/// The MLIR module of every function of `prog`, in program (name) order (§1.1, §2). An
/// Orchestration function is an error (the module form has no C++).
pub fn module(prog: &Program) -> Result<String, Diagnostic> {
    let mut out = String::from("module {\n");
    for f in &prog.functions {
        crate::verify::pto_form::check(f)?;
        out.push_str(&func::generate(f)?);
    }
    out.push_str("}\n");
    Ok(out)
}

/// The files of the PTO backend (§1.2), sorted by path: `kernels/<aic|aiv>/<f>.pto` for every
/// InCore function (a module holding that function alone), `orchestration/<f>.cpp` for the
/// Orchestration function. Opaque functions produce no file. Any error fails the whole run.
pub fn files(prog: &Program) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let cores = CoreTypes::default();
    for f in prog.functions.iter().filter(|f| f.kind == FunctionType::InCore) {
        let kernel = crate::verify::pto_form::check(f).and_then(|()| core_type_on(f, Backend::Pto)).and_then(|core| {
            cores.record(f, core);
            Ok((core, func::generate(f)?))
        });
        match kernel {
            Ok((core, text)) => {
                files.push((format!("kernels/{}/{}.pto", core.dir(), f.name), format!("module {{\n{text}}}\n")))
            }
            Err(d) => errors.push(d.with_note(format!("while generating the kernel of function {}", f.name))),
        }
    }
    // The reference keeps the last Orchestration function in name order only; ptoc writes
    // each (a program has at most one in practice).
    for orch in prog.functions.iter().filter(|f| f.kind == FunctionType::Orchestration) {
        match orchestration::emit_with(prog, orch, &cores) {
            Ok(text) => files.push((format!("orchestration/{}.cpp", orch.name), text)),
            Err(ds) => errors.extend(ds),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}
