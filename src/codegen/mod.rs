//! CCE C++ code generation (spec `passes-and-codegen.md` §4): one kernel file per kernel
//! function, and for a program with an Orchestration function its orchestration file and
//! `kernel_config.py`. The PTO-ISA MLIR backend is the module [`pto`].

mod calls;
mod ctype;
mod expr;
pub mod kernel;
pub mod kernel_config;
pub mod namer;
pub mod orchestration;
pub mod pto;
mod reserved;
mod window;
mod writer;

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use crate::backend::{self, Backend};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::visit::walk_all_exprs;
use crate::ir::{Callee, ExprKind, Function, FunctionType, OpId, PipeType, Program};

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

/// The core type of a kernel function (§4.8): from the CCE pipes of all its op calls. M and V
/// together is an error naming the first op of each: the cube core has no vector unit and the
/// vector core no cube unit or access to the cube's memories (Left, Right, Acc), so such a
/// function has no kernel; it must be written as two functions that pass the data through a
/// tensor.
pub fn core_type(f: &Function) -> Result<CoreType, Diagnostic> {
    core_type_on(f, Backend::Cce)
}

/// [`core_type`] from the pipes backend `target` assigns (the PTO backend's differ for some ops,
/// `pto-codegen.md` §1.2).
pub fn core_type_on(f: &Function, target: Backend) -> Result<CoreType, Diagnostic> {
    // The first op call on each pipe, with its span.
    type First = Option<(Span, OpId)>;
    let (mut m, mut v): (First, First) = (None, None);
    walk_all_exprs(&f.body, &mut |e| {
        if let ExprKind::Call(c) = &e.kind {
            if let Callee::Op(op) = c.callee {
                match backend::pipe(op, target) {
                    Some(PipeType::M) if m.is_none() => m = Some((e.span, op)),
                    Some(PipeType::V) if v.is_none() => v = Some((e.span, op)),
                    _ => {}
                }
            }
        }
    });
    match (m, v) {
        (Some((ms, mop)), Some((vs, vop))) => {
            let (mn, vn) = (crate::ops::name(mop), crate::ops::name(vop));
            // Reported at the later of the two ops, where the function stops having one core.
            let (first, second) = if ms.range().start <= vs.range().start {
                (
                    (ms, format!("{mn} runs on the cube core (M pipe)")),
                    (vs, format!("{vn} runs on the vector core (V pipe)")),
                )
            } else {
                (
                    (vs, format!("{vn} runs on the vector core (V pipe)")),
                    (ms, format!("{mn} runs on the cube core (M pipe)")),
                )
            };
            let at = if second.0.is_none() { f.span } else { second.0 };
            Err(Diagnostic::error(
                codes::NO_CPP_FORM,
                at,
                format!(
                    "Function {} contains both Matrix (M) and Vector (V) pipe types. A function can only use one core type (CUBE or VECTOR).",
                    f.name
                ),
            )
            .with_label(second.1)
            .with_secondary(first.0, first.1)
            .with_note(format!(
                "{mn} and {vn} cannot share a kernel: the cube core has no vector unit, and the vector core cannot reach the cube's Left, Right and Acc memories"
            ))
            .with_note("help: split the function in two InCore functions, one with the matrix ops and one with the vector ops, passing the data through a tensor (block.l0c_store, then block.load into Vec)"))
        }
        (Some(_), None) => Ok(CoreType::Cube),
        _ => Ok(CoreType::Vector),
    }
}

/// Memoized [`core_type`] of the functions of one program: the kernel files, the orchestration
/// file (one task per call) and `kernel_config.py` all need a kernel's core type, and each
/// computation walks the whole kernel body.
#[derive(Default)]
pub struct CoreTypes<'p> {
    known: RefCell<FxHashMap<&'p str, Result<CoreType, Diagnostic>>>,
    /// What orchestration codegen needs of the kernels whose IR is gone (see [`kernel`]).
    pub(crate) summaries: crate::analysis::buffers::Summaries,
}

impl<'p> CoreTypes<'p> {
    /// [`core_type`] of `f`, computed on the first request for its name.
    pub fn of(&self, f: &'p Function) -> Result<CoreType, Diagnostic> {
        if let Some(known) = self.known.borrow().get(f.name.as_str()) {
            return known.clone();
        }
        let core = core_type(f);
        self.known.borrow_mut().insert(f.name.as_str(), core.clone());
        core
    }

    /// Records `f`'s core type, computed elsewhere (the PTO generator asks for another target's).
    pub fn record(&self, f: &'p Function, core: CoreType) {
        self.known.borrow_mut().insert(f.name.as_str(), Ok(core));
    }
}

/// Generates every file of `prog`: (relative path, text), sorted by path (§4.1). Kernels are
/// all non-Orchestration functions; a program with Orchestration functions also gets their
/// orchestration files and `kernel_config.py`. Any error in any file fails the whole run, so
/// no partial output is ever written.
pub fn generate(prog: &Program) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    generate_with_jobs(prog, 1)
}

/// [`generate`] with the kernels (each file depends only on its function) generated on `jobs`
/// threads; the files and errors do not depend on the number.
pub fn generate_with_jobs(prog: &Program, jobs: usize) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    let kernels: Vec<&Function> = prog.functions.iter().filter(|f| f.kind != FunctionType::Orchestration).collect();
    let outs = crate::par::map(&kernels, jobs, |f| kernel(f, false).1);
    assemble(prog, outs)
}

/// What kernel codegen made of one kernel function (see [`kernel`]).
pub struct KernelOut {
    name: String,
    core: Result<CoreType, Diagnostic>,
    file: Result<(CoreType, String), Diagnostic>,
    /// What orchestration codegen needs of the kernel, when its IR was dropped.
    summary: Option<crate::analysis::buffers::Summary>,
}

/// The kernel file of `f` (a function that is not an Orchestration function). With `drop_ir`,
/// also a stand-in for `f` with its signature only, when nothing else needs its body
/// (orchestration codegen then reads the kernel's summary instead): how a compilation frees
/// each kernel's IR as soon as its C++ is made (`driver::compile`).
pub fn kernel(f: &Function, drop_ir: bool) -> (Option<Function>, KernelOut) {
    // Operands out of their unit's reach first: a vector op reading a matmul's Acc result is
    // the cause of the function also mixing the M and V pipes, and names the real fault.
    let core = crate::verify::memory_reach::check(f)
        .and_then(|()| crate::verify::cce_form::check(f))
        .and_then(|()| core_type(f));
    let file = core.clone().and_then(|core| Ok((core, kernel::emit(f)?)));
    let summary = if drop_ir { crate::analysis::buffers::summary(f) } else { None };
    let stand_in = summary.as_ref().map(|_| stand_in(f));
    (stand_in, KernelOut { name: f.name.clone(), core, file, summary })
}

/// `f` with an empty body and only the variables its signature names.
fn stand_in(f: &Function) -> Function {
    let mut params = f.params.clone();
    let mut body = crate::ir::Stmt::empty();
    let mut return_types = f.return_types.clone();
    let vars = f.vars.extract(&mut params, &mut body, &mut return_types);
    Function {
        name: f.name.clone(),
        kind: f.kind,
        params,
        return_types,
        body,
        span: f.span,
        vars,
        schedule: f.schedule,
    }
}

/// The files of `prog` from its kernels' files `kernels` (one per function that is not an
/// Orchestration function, in program order, which `prog` may hold as stand-ins; see
/// [`kernel`]), with the orchestration files and `kernel_config.py`, sorted by path; or every
/// error.
pub fn assemble(prog: &Program, mut kernels: Vec<KernelOut>) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut cores = CoreTypes::default();
    for k in &mut kernels {
        if let Some(s) = k.summary.take() {
            cores.summaries.insert(k.name.clone(), s);
        }
    }
    let kernel_functions = prog.functions.iter().filter(|f| f.kind != FunctionType::Orchestration);
    for (f, k) in kernel_functions.zip(kernels) {
        // The orchestration file and `kernel_config.py` ask for the kernels' core types again.
        cores.known.borrow_mut().insert(f.name.as_str(), k.core);
        match k.file {
            Ok((core, text)) => files.push((format!("kernels/{}/{}.cpp", core.dir(), k.name), text)),
            Err(d) => errors.push(d.with_note(format!("while generating the kernel of function {}", k.name))),
        }
    }
    let orchs: Vec<&Function> = prog.functions.iter().filter(|f| f.kind == FunctionType::Orchestration).collect();
    // Several orchestration functions (the reference refuses them) each get their file; see
    // `kernel_config::emit_with` for the shared configuration.
    for orch in &orchs {
        match orchestration::emit_with(prog, orch, &cores) {
            Ok(text) => files.push((format!("orchestration/{}.cpp", orch.name), text)),
            Err(ds) => errors.extend(ds),
        }
    }
    if let Some(first) = orchs.first() {
        match kernel_config::emit_with(prog, first, &cores) {
            Ok(text) => files.push(("kernel_config.py".to_string(), text)),
            Err(ds) => errors.extend(ds),
        }
    }
    if !errors.is_empty() {
        // A kernel's error comes back through the orchestration and `kernel_config.py`, which ask
        // for its core type: report it once.
        let mut seen = Vec::new();
        errors.retain(|d| {
            let key = (d.code, d.span.range(), d.message.clone());
            let new = !seen.contains(&key);
            seen.push(key);
            new
        });
        return Err(errors);
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}
