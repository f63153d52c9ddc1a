//! Function-at-a-time compilation to C++: the file is split into its methods
//! (`parser::methods`), and each method is parsed, lowered into a program of its own, run
//! through the passes and turned into its kernel file, on as many threads as `--jobs` allows;
//! the orchestration file and `kernel_config.py` come last, from the orchestration function and
//! what the kernels left behind (name, parameter directions, core type).
//!
//! Only a function's IR is ever in memory, never the whole program's, and the two cores share
//! the work. The output is the same as compiling the program whole, for any number of threads:
//! every function is compiled by the same code either way (the passes that run here see one
//! function at a time anyway), and files are sorted by path at the end. This is a fast path,
//! not a second compiler: whenever anything is not plain — a syntax or lowering error, a pass
//! that fails or reports, a verification finding, a program-wide pass, a codegen error, a shape
//! of file the split does not handle — [`compile`] gives up and the caller compiles the
//! program whole, which produces the diagnostics (`tests/by_function.rs` checks both ways give
//! the same output on the corpus).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use super::compile::{verify_after, Request};
use crate::ast;
use crate::codegen::{self, kernel, kernel_config, orchestration, CoreType, CoreTypes};
use crate::ir::{Function, FunctionType, Param, ParamDirection, Program, Span, Stmt, Type, VarKind};
use crate::lower::{self, Head, Lowered, Signatures};
use crate::parser::{self, methods};
use crate::passes::{run_verifier, PassKind};

/// Stack of each worker thread: as deep as the compilation thread's (see `driver::run_with`).
const STACK: usize = 1 << 30;

/// Whether the request is one this path can serve: C++ output with per-function passes and
/// nothing that needs the whole program at once (dumps, checks between passes, sync reports).
pub fn applies(req: &Request) -> bool {
    req.emit_cpp
        && !req.print_after_all
        && !req.verify_each
        && !req.verify_sync
        && !req.report_redundant_sync
        && req.passes.iter().all(|p| {
            p.is_implemented()
                && (p.kind == PassKind::Function || p.name == run_verifier::NAME || p.name == "outline-incore-scopes")
        })
}

/// The C++ files of `source` (sorted by path; without the kernel files written through
/// `req.early`), or `None` if the program has to be compiled whole (see the module comment).
/// `jobs` is the number of threads to use.
pub fn compile(source: &str, req: &Request, jobs: usize) -> Option<Vec<(String, String)>> {
    let split = methods::split(source)?;
    let head = lower::lower_head(parser::parse(&split.head(source)).ok()?)?;
    let work = Work {
        source,
        req,
        head,
        split,
        sigs: Arc::new(Signatures::default()),
        next: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
    };
    let mut done = run_workers(&work, jobs.max(1));
    if work.failed.load(Ordering::Relaxed) || !work.sigs.readings_agree() {
        return None;
    }
    done.sort_by_key(|(i, _)| *i);
    let mut units = Vec::with_capacity(done.len());
    for (_, unit) in done {
        units.push(match unit {
            // Every signature is known now.
            Unit::Waiting(f) => work.finish(lower::lower_method(&work.head, f, &work.sigs, false))?,
            unit => unit,
        });
    }
    assemble(units)
}

/// What one function became.
enum Unit {
    /// A kernel: its file (`None` once written through [`Request::early`]), and what the
    /// orchestration file needs to know about it.
    Kernel { path: String, text: Option<String>, stub: Stub },
    /// An orchestration function, compiled through the passes; emitted last.
    Orchestration(Program),
    /// A function calling one whose signature was not known yet when it was lowered.
    Waiting(ast::FuncDef),
}

/// What orchestration codegen reads about a kernel it calls (see [`with_stubs`]).
struct Stub {
    name: String,
    kind: FunctionType,
    directions: Vec<ParamDirection>,
    core: CoreType,
    /// Per return value, the parameter whose buffer it is (written in place), if any: the
    /// orchestration file follows call results to their buffers.
    returns: Vec<Option<usize>>,
}

/// The shared state of one compilation.
struct Work<'a> {
    source: &'a str,
    req: &'a Request<'a>,
    head: Head,
    split: methods::Split,
    sigs: Arc<Signatures>,
    /// The next function to take (an index in `split.methods`).
    next: AtomicUsize,
    /// Set by the first function that cannot be compiled on this path; the others stop.
    failed: AtomicBool,
}

impl Work<'_> {
    /// Takes functions until none is left (or one failed); returns (index, unit) pairs.
    fn take_all(&self) -> Vec<(usize, Unit)> {
        let mut out = Vec::new();
        while !self.failed.load(Ordering::Relaxed) {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.split.methods.len() {
                break;
            }
            match self.compile_function(i) {
                Some(unit) => out.push((i, unit)),
                None => self.failed.store(true, Ordering::Relaxed),
            }
        }
        out
    }

    fn compile_function(&self, i: usize) -> Option<Unit> {
        let (start, end) = self.split.methods[i];
        let f = parser::parse_method(self.source, start, end, self.split.base).ok()?;
        match lower::lower_method(&self.head, f, &self.sigs, true) {
            Lowered::Waiting(f) => Some(Unit::Waiting(f)),
            lowered => self.finish(lowered),
        }
    }

    /// Passes and kernel codegen for a lowered function.
    fn finish(&self, lowered: Lowered) -> Option<Unit> {
        let Lowered::Done(prog) = lowered else {
            return None;
        };
        let prog = self.passes(prog)?;
        let f = &prog.functions[0];
        if f.kind == FunctionType::Orchestration {
            return Some(Unit::Orchestration(prog));
        }
        let core = codegen::core_type(f).ok()?;
        let text = kernel::emit(&prog, f).ok()?;
        let stub = Stub {
            name: f.name.clone(),
            kind: f.kind,
            // The stand-in has no body to find the stores in: an `In` parameter the kernel
            // writes is recorded as `InOut`, which the orchestration file declares the same way.
            directions: f
                .params
                .iter()
                .zip(orchestration::alias::written_params(&prog, f))
                .map(|(p, w)| if w && p.direction == ParamDirection::In { ParamDirection::InOut } else { p.direction })
                .collect(),
            core,
            returns: (0..f.return_types.len()).map(|k| orchestration::alias::returned_param(&prog, f, k, 0)).collect(),
        };
        let path = format!("kernels/{}/{}.cpp", core.dir(), f.name);
        // Written now, while other functions compile, the text need not be kept. A failure to
        // write ends this path; compiling whole then meets and reports it.
        let text = match self.req.early {
            Some(early) => {
                early.batch.place(&early.dir.join(&path), text.as_bytes()).ok()?;
                None
            }
            None => Some(text),
        };
        Some(Unit::Kernel { path, text, stub })
    }

    /// The planned passes, as `compile::run_passes` runs them, on a one-function program. Any
    /// error, verifier finding or new function ends this path.
    fn passes(&self, mut prog: Program) -> Option<Program> {
        let req = self.req;
        let mut verified = Vec::new();
        for pass in req.passes {
            prog = (pass.run?)(prog, &req.env).ok()?;
            if prog.functions.len() != 1 {
                return None;
            }
            if pass.name == run_verifier::NAME
                && !run_verifier::report(&prog, req.disabled_rules, req.source_name, self.source).is_empty()
            {
                return None;
            }
            verify_after(&prog, pass, req, &mut verified).ok()?;
        }
        Some(prog)
    }
}

/// Runs [`Work::take_all`] on this thread and `jobs - 1` others.
fn run_workers(work: &Work, jobs: usize) -> Vec<(usize, Unit)> {
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..jobs)
            .filter_map(|k| {
                let builder = std::thread::Builder::new().name(format!("ptoc-{k}")).stack_size(STACK);
                builder.spawn_scoped(scope, || work.take_all()).ok()
            })
            .collect();
        let mut done = work.take_all();
        for h in helpers {
            match h.join() {
                Ok(more) => done.extend(more),
                // A panic is a bug; compiling whole reproduces it where it is reported.
                Err(_) => work.failed.store(true, Ordering::Relaxed),
            }
        }
        done
    })
}

/// The kernel files plus, for a program with one orchestration function, its file and
/// `kernel_config.py`; sorted by path as `codegen::generate` sorts them.
fn assemble(units: Vec<Unit>) -> Option<Vec<(String, String)>> {
    let mut files = Vec::new();
    let mut stubs = Vec::new();
    let mut orchs = Vec::new();
    for unit in units {
        match unit {
            Unit::Kernel { path, text, stub } => {
                files.extend(text.map(|text| (path, text)));
                stubs.push(stub);
            }
            Unit::Orchestration(p) => orchs.push(p),
            Unit::Waiting(_) => return None,
        }
    }
    match orchs.len() {
        0 => {}
        1 => {
            let prog = with_stubs(orchs.pop()?, &stubs)?;
            let cores = CoreTypes::default();
            for s in &stubs {
                cores.record(prog.function(&s.name)?, s.core);
            }
            let orch = prog.functions.iter().find(|f| f.kind == FunctionType::Orchestration)?;
            files.push((
                format!("orchestration/{}.cpp", orch.name),
                orchestration::emit_with(&prog, orch, &cores).ok()?,
            ));
            files.push(("kernel_config.py".to_string(), kernel_config::emit_with(&prog, orch, &cores).ok()?));
        }
        // Several orchestration functions share one func-id numbering over all of them:
        // whole-program codegen emits them.
        _ => return None,
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Some(files)
}

/// The orchestration function's program with a stand-in for every kernel: its name, kind and
/// parameter directions, with an empty body. Orchestration codegen reads nothing else of a
/// callee, and its core type is recorded separately (an empty body would say "vector").
fn with_stubs(mut prog: Program, stubs: &[Stub]) -> Option<Program> {
    for s in stubs {
        let params: Vec<Param> = s
            .directions
            .iter()
            .map(|&direction| Param { var: prog.new_var("_", Type::Unknown, VarKind::Plain, Span::NONE), direction })
            .collect();
        // `return <the parameter>` for a value that is a parameter's buffer, a placeholder
        // otherwise: all that the orchestration file reads of the callee's body.
        let values = s
            .returns
            .iter()
            .map(|r| {
                let var = match r.and_then(|k| params.get(k)) {
                    Some(p) => p.var,
                    None => prog.new_var("_", Type::Unknown, VarKind::Plain, Span::NONE),
                };
                crate::ir::Expr::var(var, Span::NONE)
            })
            .collect();
        let body = if s.returns.is_empty() { Stmt::empty() } else { Stmt::Return { values, span: Span::NONE } };
        let f = Function {
            name: s.name.clone(),
            kind: s.kind,
            params,
            return_types: vec![Type::Unknown; s.returns.len()],
            body,
            span: Span::NONE,
        };
        prog.add_function(f).ok()?;
    }
    Some(prog)
}
