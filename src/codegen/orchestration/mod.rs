//! The orchestration file `orchestration/<name>.cpp` of a program's Orchestration function
//! (spec `passes-and-codegen.md` §4.9, example §4.13).
//!
//! The file is host-side C++ for the PTO2 runtime: it wraps the function's tensor parameters
//! (and the tensors it returns that are not parameters) as external tensors, creates the
//! intermediate tensors, and submits one task per call of a kernel function. C++ names are the
//! *base names* of IR variables ([`base_name`]): SSA versions `x_0`, `x_1`, `x_iter_2` all
//! become `x`, so a kernel writing its `Out` argument in place and the SSA result of the call
//! name the same C++ tensor.
//!
//! Where the reference emits C++ that uses an undeclared name (§6 Q13: scalar parameters get no
//! argument slot; `auto r;` for a tensor returned by an `if`), ptoc fixes the ABI instead: every
//! scalar parameter gets an argument slot after the tensor slots (its raw 64-bit value, as a
//! kernel receives it; `docs/orchestration-abi.md`). Constructs with no correct C++ get a
//! diagnostic naming them. Every error is collected and nothing is returned on failure, so a
//! caller never sees a partial file.

mod expr;
mod header;

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::buffers;
use crate::codegen::{CoreType, CoreTypes};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::visit::{walk_all_exprs, walk_stmts};
use crate::ir::{
    Callee, DataType, Expr, ExprKind, Function, FunctionType, ParamDirection, Program, Stmt, Type, VarId, VarTable,
};
use crate::ops;

pub use crate::ir::base_name;

pub use expr::c_type;

/// The text of `orchestration/<f.name>.cpp`.
pub fn emit(prog: &Program, f: &Function) -> Result<String, Vec<Diagnostic>> {
    emit_with(prog, f, &CoreTypes::default())
}

/// [`emit`] with the core types known so far.
pub fn emit_with<'p>(prog: &'p Program, f: &Function, cores: &CoreTypes<'p>) -> Result<String, Vec<Diagnostic>> {
    check_callees(prog, f)?;
    crate::verify::orchestration_form::check(prog, &cores.summaries, f)?;
    let sig = Signature::of(prog, &cores.summaries, f)?;
    let funcs = func_ids(prog);
    let mut e = Emitter {
        prog,
        vars: &f.vars,
        sig: &sig,
        params: f.params.iter().map(|p| p.var).collect(),
        written: BTreeMap::new(),
        func_ids: &funcs,
        cores,
        declared: BTreeSet::new(),
        carried: Vec::new(),
        renamed: BTreeMap::new(),
        read: read_vars(f),
        task: 0,
        out: String::new(),
        errors: Vec::new(),
    };
    e.stmt(&f.body, 4, &[]);
    if !e.errors.is_empty() {
        return Err(e.errors);
    }
    Ok(header::file(f, &sig, &e.out))
}

/// Kernel functions called by the program's orchestration functions with their func ids (see
/// [`func_ids`]), as `(name, id, core type)` sorted by name: the `KERNELS` table of
/// `kernel_config.py`.
pub fn kernels<'p>(
    prog: &'p Program,
    cores: &CoreTypes<'p>,
) -> Result<Vec<(String, usize, CoreType)>, Vec<Diagnostic>> {
    for orch in prog.functions.iter().filter(|f| f.kind == FunctionType::Orchestration) {
        check_callees(prog, orch)?;
    }
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut by_name: Vec<(String, usize)> = func_ids(prog).into_iter().collect();
    by_name.sort();
    for (name, id) in by_name {
        // `check_callees` guarantees the function exists.
        if let Some(callee) = prog.function(&name) {
            match cores.of(callee) {
                Ok(c) => out.push((name, id, c)),
                Err(d) => errors.push(d),
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Every function called by the body must exist in the program (reference: ValueError listing
/// the missing names, sorted).
fn check_callees(prog: &Program, f: &Function) -> Result<(), Vec<Diagnostic>> {
    let mut missing: BTreeMap<&str, Span> = BTreeMap::new();
    walk_all_exprs(&f.body, &mut |e| {
        if let ExprKind::Call(c) = &e.kind {
            if let Callee::Function(name) = &c.callee {
                if prog.function(name).is_none() {
                    missing.entry(name.as_str()).or_insert(e.span);
                }
            }
        }
    });
    let Some((_, &span)) = missing.iter().next() else { return Ok(()) };
    let list: Vec<String> = missing.keys().map(|n| format!("'{n}'")).collect();
    Err(vec![Diagnostic::error(
        codes::UNKNOWN_FUNCTION,
        span,
        format!(
            "Orchestration function '{}' references undefined functions. The Program must contain all functions referenced in orchestration calls.\nMissing functions: [{}]",
            f.name,
            list.join(", ")
        ),
    )
    .with_label("not defined in the program")])
}

/// The function called by a task statement (an assignment or evaluation whose value is a call
/// of a program function), with the call.
fn task_call(s: &Stmt) -> Option<(&str, &crate::ir::Call, Span)> {
    let (value, span) = match s {
        Stmt::Assign { value, span, .. } => (value, *span),
        Stmt::Eval { expr, span } => (expr, *span),
        _ => return None,
    };
    match value.as_call() {
        Some(c) => match &c.callee {
            Callee::Function(name) => Some((name.as_str(), c, span)),
            Callee::Op(_) => None,
        },
        None => None,
    }
}

/// Func ids: called functions numbered in first-call order (statement order, then-branch
/// before else-branch), the order in which the tasks are emitted. The numbering is program-wide:
/// a program with several orchestration functions (an Opaque function promoted by outlining next
/// to a declared one, §6.1 Q25) numbers them in program order, so every orchestration file and
/// the one `KERNELS` table of `kernel_config.py` agree. With one orchestration function this is
/// the reference's per-function numbering.
fn func_ids(prog: &Program) -> BTreeMap<String, usize> {
    let mut ids = BTreeMap::new();
    for f in prog.functions.iter().filter(|f| f.kind == FunctionType::Orchestration) {
        walk_stmts(&f.body, &mut |s| {
            if let Some((name, _, _)) = task_call(s) {
                let next = ids.len();
                ids.entry(name.to_string()).or_insert(next);
            }
        });
    }
    ids
}

/// One external tensor: a tensor parameter or a returned tensor that is not a parameter.
pub(crate) struct External {
    /// Base name.
    pub name: String,
    pub shape: Vec<String>,
    pub dtype: DataType,
}

/// What the header needs and the body consults: the external tensors in ARG order and the
/// names that are parameters or returned (`P ∪ returns`, emitted as `ext_<x>`).
pub(crate) struct Signature {
    pub externals: Vec<External>,
    pub ext_names: BTreeSet<String>,
    /// The buffer of every tensor variable whose buffer is known (see [`buffers`]).
    pub roots: BTreeMap<VarId, VarId>,
    /// Root → the base name of the returned value whose argument slot holds its buffer.
    pub slot_of_root: BTreeMap<VarId, String>,
    /// Scalar parameters in parameter order, as (base name, dtype): their argument slots follow
    /// the tensor slots. The reference gives them none, so every use was an undeclared name
    /// (§6 Q13).
    pub scalars: Vec<(String, DataType)>,
    /// Scalar parameters of a dtype the host has no type for (FP16, BF16): held as their raw
    /// argument bits, which can be passed on to kernels but not computed with.
    pub raw_scalars: BTreeSet<VarId>,
    /// The symbolic axes of the tensor parameters ([`dim_slots`]), in slot order: their
    /// argument slots follow the scalar slots.
    pub dims: Vec<DimArg>,
    /// Whether a scalar parameter is a dimension of a tensor parameter (`a: pl.Tensor[[n, 16],
    /// …]`): the scalars are then decoded before the external tensors.
    pub scalars_size_tensors: bool,
    /// The C++ names (base names) that have a value in the function: parameters, their symbolic
    /// dimensions and the variables the body defines ([`expr::dim_string`]).
    pub known: BTreeSet<String>,
}

impl Signature {
    fn of(prog: &Program, summaries: &buffers::Summaries, f: &Function) -> Result<Signature, Vec<Diagnostic>> {
        let mut errors = Vec::new();
        let mut externals = Vec::new();
        let mut ext_names = BTreeSet::new();
        let mut scalars = Vec::new();
        let mut raw_scalars = BTreeSet::new();
        let slots = dim_slots(f);
        let known = crate::verify::orchestration_form::known_names(f);
        let dims = dim_args(f, &slots, &known);
        // `v` names the slot; `of` is the variable whose type gives its shape.
        let external = |v: VarId, of: VarId, span: Span, errors: &mut Vec<Diagnostic>| -> Option<External> {
            let name = base_name(f.vars.var_name(v)).to_string();
            match f.vars.var_type(of) {
                Type::Tensor(t) => {
                    let shape = t
                        .shape
                        .iter()
                        .map(|d| expr::shape_item(expr::dim_string(&f.vars, d, span, &known, errors)))
                        .collect();
                    Some(External { name, shape, dtype: t.dtype })
                }
                _ => {
                    errors.push(broken(span, "a returned value without a tensor type"));
                    None
                }
            }
        };
        for (i, p) in f.params.iter().enumerate() {
            ext_names.insert(base_name(f.vars.var_name(p.var)).to_string());
            match f.vars.var_type(p.var) {
                Type::Tensor(_) => {
                    externals.extend(external(p.var, p.var, f.vars.var(p.var).span, &mut errors).map(|mut e| {
                        // Each symbolic axis is the tensor's own extent, passed in its own slot.
                        for d in dims.iter().filter(|d| d.param == i) {
                            e.shape[d.axis] = expr::shape_item(d.local.clone());
                        }
                        e
                    }))
                }
                Type::Scalar(d) => match header::scalar_decode(*d, "0") {
                    Some(_) => scalars.push((base_name(f.vars.var_name(p.var)).to_string(), *d)),
                    // No host type: the bits pass through to kernels untouched.
                    None if matches!(d, DataType::Fp16 | DataType::Bf16) => {
                        scalars.push((base_name(f.vars.var_name(p.var)).to_string(), *d));
                        raw_scalars.insert(p.var);
                    }
                    None => errors
                        .push(broken(f.vars.var(p.var).span, "a scalar parameter of a dtype the host has no type for")),
                },
                _ => errors.push(broken(f.vars.var(p.var).span, "a parameter that is neither a tensor nor a scalar")),
            }
        }
        let roots = buffers::roots(prog, summaries, f);
        let mut slot_of_root = BTreeMap::new();
        for (_, v, span) in crate::verify::orchestration_form::return_slots(f, &roots) {
            let name = base_name(f.vars.var_name(v)).to_string();
            ext_names.insert(name.clone());
            slot_of_root.insert(roots.get(&v).copied().unwrap_or(v), name);
            // The buffer's own shape: a kernel's result type may name the kernel's symbolic
            // dimensions, which have no value here.
            let root = roots.get(&v).copied().filter(|r| matches!(f.vars.var_type(*r), Type::Tensor(_)));
            externals.extend(external(v, root.unwrap_or(v), span, &mut errors));
        }
        if errors.is_empty() {
            let scalars_size_tensors = f.params.iter().any(|p| {
                f.vars.var_type(p.var).shape().is_some_and(|dims| {
                    let mut sized = false;
                    dims.iter().for_each(|d| {
                        crate::ir::visit::for_each_var(d, &mut |v| {
                            sized |= scalars.iter().any(|(n, _)| n == base_name(f.vars.var_name(v)));
                        })
                    });
                    sized
                })
            });
            Ok(Signature {
                externals,
                ext_names,
                roots,
                slot_of_root,
                scalars,
                raw_scalars,
                dims,
                scalars_size_tensors,
                known,
            })
        } else {
            Err(errors)
        }
    }
}

/// One symbolic axis of a tensor parameter (`a: pl.Tensor[[M, 16], …]`, axis 0): an axis whose
/// extent is a variable that is no parameter (by C++ name: a type may still name the parameter
/// as written, `n`, where the parameter is `n_0` after convert-to-ssa).
#[derive(Clone, Copy, Debug)]
pub struct DimSlot {
    /// Index of the parameter in `f.params`.
    pub param: usize,
    pub axis: usize,
    /// The symbolic dimension the axis names.
    pub var: VarId,
}

/// The symbolic axes of orchestration function `f`'s tensor parameters, in parameter then axis
/// order. The host passes each one's extent in an argument slot after the scalar slots
/// (docs/orchestration-abi.md): every tensor carries its own extents, as upstream PyPTO's dynamic
/// dimensions do (`a: [M, N]` and `c: [M, N]` may be `[16, 32]` and `[32, 16]`), and a symbolic
/// dimension used elsewhere in the function takes the extent of its first axis.
pub fn dim_slots(f: &Function) -> Vec<DimSlot> {
    let name = |v: VarId| base_name(f.vars.var_name(v));
    let mut out = Vec::new();
    for (param, p) in f.params.iter().enumerate() {
        let Type::Tensor(t) = f.vars.var_type(p.var) else { continue };
        for (axis, d) in t.shape.iter().enumerate() {
            if let ExprKind::Var(v) = &d.kind {
                if !f.params.iter().any(|q| name(q.var) == name(*v)) {
                    out.push(DimSlot { param, axis, var: *v });
                }
            }
        }
    }
    out
}

/// A symbolic axis's argument slot as the entry function reads it.
pub(crate) struct DimArg {
    pub param: usize,
    /// The parameter's variable.
    pub tensor: VarId,
    pub axis: usize,
    /// `ARG_DIM_<slot>`: the parameter's base name and the axis (`A_0`).
    pub slot: String,
    /// The C++ local holding the extent: the symbolic dimension's name at its first axis, so
    /// that other uses of the name see it; `<param>_dim<axis>` at every later one.
    pub local: String,
}

fn dim_args(f: &Function, slots: &[DimSlot], known: &BTreeSet<String>) -> Vec<DimArg> {
    let mut seen = BTreeSet::new();
    let mut taken = known.clone();
    slots
        .iter()
        .map(|d| {
            let param = base_name(f.vars.var_name(f.params[d.param].var));
            let symbol = base_name(f.vars.var_name(d.var)).to_string();
            let local = if seen.insert(symbol.clone()) {
                symbol
            } else {
                let mut local = format!("{param}_dim{}", d.axis);
                while taken.contains(&local) {
                    local.push('_');
                }
                local
            };
            taken.insert(local.clone());
            DimArg {
                param: d.param,
                tensor: f.params[d.param].var,
                axis: d.axis,
                slot: format!("{}_{}", param.to_ascii_uppercase(), d.axis),
                local,
            }
        })
        .collect()
}

/// The returned values of orchestration function `f` that get an argument slot after the tensor
/// parameters, in slot order, as (index among the return values, variable). A returned tensor
/// that is (written in place into) a parameter's buffer needs none: the caller reads the
/// parameter. One slot per buffer (the first value returned with it names it), and names are
/// base names as in the reference, which skips a name that is a parameter's or taken.
pub fn return_slots(prog: &Program, f: &Function) -> Vec<(usize, VarId)> {
    let roots = buffers::roots(prog, &buffers::Summaries::default(), f);
    crate::verify::orchestration_form::return_slots(f, &roots).into_iter().map(|(i, v, _)| (i, v)).collect()
}

/// An error of the writer on a construct the orchestration form rule
/// ([`crate::verify::orchestration_form`]) refuses: a bug of ptoc, an internal error.
pub(super) fn broken(span: Span, what: &str) -> Diagnostic {
    Diagnostic::internal(
        codes::NO_CPP_FORM,
        span,
        format!("orchestration codegen: {what}, which the orchestration form rule refuses"),
    )
}

/// Every variable an expression of `f` reads.
fn read_vars(f: &Function) -> BTreeSet<VarId> {
    let mut read = BTreeSet::new();
    crate::ir::visit::walk_all_exprs(&f.body, &mut |e| {
        if let ExprKind::Var(v) = &e.kind {
            read.insert(*v);
        }
    });
    read
}

/// Emits the body statements into `out`, collecting every error.
struct Emitter<'a, 'p> {
    prog: &'p Program,
    /// The variables of the orchestration function.
    vars: &'a VarTable,
    cores: &'a CoreTypes<'p>,
    sig: &'a Signature,
    /// The function's parameters.
    params: BTreeSet<VarId>,
    /// Per called kernel, which parameters it stores into ([`buffers::written_params`]).
    written: BTreeMap<String, Vec<bool>>,
    func_ids: &'a BTreeMap<String, usize>,
    /// C++ names declared so far (created tensors, assigned values, iter args, if results).
    declared: BTreeSet<String>,
    /// The C++ names of the loop-carried values of the loops around the statement being
    /// emitted (their yields' targets).
    carried: Vec<String>,
    /// Variables named otherwise than by their base name: a value assigned in a loop body
    /// under the base name of a loop-carried variable (`i = i + 1` in SSA form `i_3 = i_iter_1
    /// + 1`), which would otherwise declare a second `i` hiding the carried one.
    renamed: BTreeMap<VarId, String>,
    /// Variables some expression of the function reads.
    read: BTreeSet<VarId>,
    /// Next task number.
    task: usize,
    out: String,
    errors: Vec<Diagnostic>,
}

impl Emitter<'_, '_> {
    fn line(&mut self, indent: usize, text: &str) {
        if text.is_empty() {
            self.out.push('\n');
        } else {
            self.out.push_str(&" ".repeat(indent));
            self.out.push_str(text);
            self.out.push('\n');
        }
    }

    fn name(&self, v: VarId) -> String {
        if let Some(n) = self.renamed.get(&v) {
            return n.clone();
        }
        base_name(self.vars.var_name(v)).to_string()
    }

    /// `E(x)`: the C++ tensor value of a variable: the tensor of its buffer (its root, see
    /// [`buffers`]) when that is known, `ext_<p>` for a parameter's or a returned value's buffer.
    fn tensor_ref(&self, v: VarId) -> String {
        let r = self.sig.roots.get(&v).copied().unwrap_or(v);
        if let Some(slot) = self.sig.slot_of_root.get(&r) {
            return format!("ext_{slot}");
        }
        let n = self.name(r);
        // A local declared under a parameter's base name (a loop-carried tensor that is not one
        // buffer, starting from the parameter) is that local.
        if r == v && !self.params.contains(&r) && self.declared.contains(&n) {
            return n;
        }
        if self.params.contains(&r) || (r == v && self.sig.ext_names.contains(&n)) {
            format!("ext_{n}")
        } else {
            n
        }
    }

    /// Whether `v` is a tensor whose buffer is known statically (no C++ variable of its own).
    fn rooted(&self, v: VarId) -> bool {
        self.sig.roots.get(&v).is_some_and(|r| *r != v)
    }

    /// A value: tensors by [`Self::tensor_ref`], anything else by [`expr::render`].
    fn value(&mut self, e: &Expr) -> String {
        match e.as_var() {
            Some(v) if matches!(self.vars.var_type(v), Type::Tensor(_)) => self.tensor_ref(v),
            _ => self.expr(e),
        }
    }

    fn expr(&mut self, e: &Expr) -> String {
        let mut raw = None;
        crate::ir::visit::walk_expr(e, &mut |x| {
            if let Some(v) = x.as_var().filter(|v| self.sig.raw_scalars.contains(v)) {
                raw.get_or_insert((v, x.span));
            }
        });
        if let Some((_, span)) = raw {
            self.errors.push(broken(span, "arithmetic with an FP16 or BF16 scalar parameter"));
        }
        expr::render_renamed(self.vars, e, &self.renamed, &mut self.errors)
    }

    fn broken(&mut self, span: Span, what: &str) {
        self.errors.push(broken(span, what));
    }

    /// `targets`: base names assigned by a `yield` in this body (the enclosing loop's iter args
    /// or the enclosing if's return vars).
    fn stmt(&mut self, s: &Stmt, indent: usize, targets: &[String]) {
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                for c in stmts {
                    self.stmt(c, indent, targets);
                }
            }
            Stmt::Scope { body, .. } => self.stmt(body, indent, targets),
            Stmt::Assign { var, value, span } => self.assign(*var, value, *span, indent),
            Stmt::Eval { span, .. } => {
                if let Some((callee, call, _)) = task_call(s) {
                    self.task(callee, call, *span, indent);
                }
            }
            Stmt::Return { values, .. } => {
                if let Err(d) = crate::verify::nested_call::call_as_result(values, codes::NO_CPP_FORM) {
                    self.errors.push(d);
                }
            }
            Stmt::Yield { values, span } => {
                if let Err(d) = crate::verify::nested_call::call_as_result(values, codes::NO_CPP_FORM) {
                    self.errors.push(d);
                    return;
                }
                if values.len() != targets.len() {
                    self.broken(*span, "a yield of another number of values than its loop or if carries");
                    return;
                }
                let vals: Vec<String> = values.iter().map(|v| self.value(v)).collect();
                // The yield assigns all its targets at once: a value that reads a target
                // assigned before it (`yield(hi, lo + hi)` into `lo, hi`) is first copied to
                // `<target>_yield`.
                let mut staged = vec![false; vals.len()];
                for (k, e) in values.iter().enumerate() {
                    let mut reads = BTreeSet::new();
                    crate::ir::visit::for_each_var(e, &mut |v| {
                        reads.insert(self.name(v));
                        if matches!(self.vars.var_type(v), Type::Tensor(_)) {
                            reads.insert(self.tensor_ref(v));
                        }
                    });
                    staged[k] = (0..k).any(|j| targets[j] != vals[j] && reads.contains(&targets[j]));
                }
                for (k, (t, v)) in targets.iter().zip(&vals).enumerate() {
                    if staged[k] {
                        let ty = match self.vars.type_of(&values[k]) {
                            Type::Scalar(d) => c_type(*d).to_string(),
                            Type::Tensor(_) => "Tensor".to_string(),
                            _ => "auto".to_string(),
                        };
                        self.line(indent, &format!("{ty} {t}_yield = {v};"));
                    }
                }
                for (k, (t, v)) in targets.iter().zip(&vals).enumerate() {
                    if staged[k] {
                        self.line(indent, &format!("{t} = {t}_yield;"));
                    } else if t != v {
                        self.line(indent, &format!("{t} = {v};"));
                    }
                }
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, span, .. } => {
                let names = self.carry_in(iter_args, indent, *span);
                let i = self.name(*loop_var);
                let (start, stop, step) = (self.expr(start), self.expr(stop), self.expr(step));
                let header = format!("for (int64_t {i} = {start}; {i} < {stop}; {i} += {step}) {{");
                self.loop_block(&header, names, body, return_vars, indent, *span);
            }
            // Like a `for`: the condition reads the loop-carried variables, declared before the
            // loop and assigned by the yield at the end of the body.
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                let names = self.carry_in(iter_args, indent, *span);
                let header = format!("while ({}) {{", self.expr(cond));
                self.loop_block(&header, names, body, return_vars, indent, *span);
            }
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                let mut names = Vec::new();
                for &r in return_vars {
                    let n = self.name(r);
                    match self.vars.var_type(r) {
                        Type::Scalar(d) => {
                            if !self.declared.contains(&n) {
                                self.line(indent, &format!("{} {n};", c_type(*d)));
                                self.declared.insert(n.clone());
                            }
                        }
                        // Both branches yield one buffer: the result is that buffer.
                        Type::Tensor(_) if self.rooted(r) => {
                            names.push(self.tensor_ref(r));
                            continue;
                        }
                        // §6 Q13: the reference emits `auto r;`, which does not compile. A
                        // `Tensor` is a handle: each branch assigns the one it yields.
                        Type::Tensor(_) => {
                            if !self.declared.contains(&n) {
                                self.line(indent, &format!("Tensor {n};"));
                                self.declared.insert(n.clone());
                            }
                        }
                        _ => {
                            self.broken(*span, "an `if` result that is neither a scalar nor a tensor");
                        }
                    }
                    names.push(n);
                }
                let cond = self.expr(cond);
                self.line(indent, &format!("if ({cond}) {{"));
                self.line(indent + 4, "PTO2_SCOPE(rt) {");
                self.stmt(then_body, indent + 8, &names);
                self.line(indent + 4, "}");
                if let Some(e) = else_body {
                    self.line(indent, "} else {");
                    self.line(indent + 4, "PTO2_SCOPE(rt) {");
                    self.stmt(e, indent + 8, &names);
                    self.line(indent + 4, "}");
                }
                self.line(indent, "}");
            }
            Stmt::Break { span } | Stmt::Continue { span } => self.broken(*span, "a `break` or `continue`"),
        }
    }

    /// Declares the loop-carried variables of a loop before it, from their inits; returns their
    /// names (the targets of the body's yield).
    fn carry_in(&mut self, iter_args: &[VarId], indent: usize, span: Span) -> Vec<String> {
        let mut names = Vec::new();
        for &a in iter_args {
            if self.rooted(a) {
                // One buffer throughout the loop: the yields assign it to itself.
                names.push(self.tensor_ref(a));
                continue;
            }
            let r = self.name(a);
            let init = match &self.vars.var(a).kind {
                crate::ir::VarKind::IterArg { init } => self.value(init),
                _ => String::new(),
            };
            if !self.declared.contains(&r) && r != init {
                let ty = self.decl_type(a, span);
                self.line(indent, &format!("{ty} {r} = {init};"));
                self.declared.insert(r.clone());
            }
            names.push(r);
        }
        names
    }

    /// After a loop: a result named differently from its iter arg (no SSA versions) gets the
    /// final value; the reference leaves it undeclared.
    /// A loop after its header line: the body in a task scope with the carried `names`, then
    /// the loop's results from them.
    fn loop_block(
        &mut self,
        header: &str,
        names: Vec<String>,
        body: &Stmt,
        return_vars: &[VarId],
        indent: usize,
        span: Span,
    ) {
        self.line(indent, header);
        self.line(indent + 4, "PTO2_SCOPE(rt) {");
        let depth = self.carried.len();
        self.carried.extend(names.iter().cloned());
        self.stmt(body, indent + 8, &names);
        self.carried.truncate(depth);
        self.line(indent + 4, "}");
        self.line(indent, "}");
        self.carry_out(return_vars, &names, indent, span);
    }

    fn carry_out(&mut self, return_vars: &[VarId], names: &[String], indent: usize, span: Span) {
        for (&r, a) in return_vars.iter().zip(names) {
            if self.rooted(r) {
                continue;
            }
            let n = self.name(r);
            if n != *a {
                if self.declared.contains(&n) {
                    self.line(indent, &format!("{n} = {a};"));
                } else {
                    let ty = self.decl_type(r, span);
                    self.line(indent, &format!("{ty} {n} = {a};"));
                    self.declared.insert(n);
                }
            }
        }
    }

    /// C type of a declared value: the scalar's C type, `Tensor` for tensors.
    fn decl_type(&mut self, v: VarId, span: Span) -> String {
        match self.vars.var_type(v) {
            Type::Scalar(d) => c_type(*d).to_string(),
            Type::Tensor(_) => "Tensor".to_string(),
            _ => {
                self.broken(span, "a loop-carried value that is neither a scalar nor a tensor");
                String::new()
            }
        }
    }

    fn assign(&mut self, var: VarId, value: &Expr, span: Span, indent: usize) {
        let x = self.name(var);
        match &value.kind {
            ExprKind::Call(call) => match &call.callee {
                Callee::Function(callee) => self.task(callee, call, span, indent),
                Callee::Op(op) => self.op_assign(var, &x, *op, call, value, span, indent),
            },
            ExprKind::TupleGetItem(..) => {}
            _ if self.rooted(var) => {}
            _ => {
                let mut x = x;
                if self.carried.contains(&x) {
                    let mut k = 0;
                    let fresh = loop {
                        let n = if k == 0 { format!("{x}_next") } else { format!("{x}_next{k}") };
                        if !self.declared.contains(&n) {
                            break n;
                        }
                        k += 1;
                    };
                    self.renamed.insert(var, fresh.clone());
                    x = fresh;
                }
                let ty = match self.vars.var_type(var) {
                    Type::Scalar(d) => c_type(*d).to_string(),
                    Type::Tensor(_) => "Tensor".to_string(),
                    _ => "auto".to_string(),
                };
                let v = self.value(value);
                self.line(indent, &format!("{ty} {x} = {v};"));
                self.declared.insert(x);
            }
        }
    }

    #[allow(clippy::too_many_arguments)] // the parts of one `x = op(…)` statement
    fn op_assign(
        &mut self,
        var: VarId,
        x: &str,
        op: crate::ir::OpId,
        call: &crate::ir::Call,
        value: &Expr,
        span: Span,
        indent: usize,
    ) {
        let arg_var = |i: usize| call.args.get(i).and_then(Expr::as_var);
        match op {
            ops::id::TENSOR_CREATE => {
                // The buffer of a returned value comes from its argument slot.
                if self.declared.contains(x)
                    || self.sig.ext_names.contains(x)
                    || self.sig.slot_of_root.contains_key(&var)
                {
                    return;
                }
                let Type::Tensor(t) = self.vars.type_of(value) else { return };
                let dims: Vec<String> = t
                    .shape
                    .iter()
                    .map(|d| expr::shape_item(expr::dim_string(self.vars, d, span, &self.sig.known, &mut self.errors)))
                    .collect();
                let r = dims.len();
                self.line(indent, &format!("uint64_t {x}_shapes[{r}] = {{{}}};", dims.join(", ")));
                self.line(
                    indent,
                    &format!(
                        "Tensor {x} = make_tensor({x}_shapes, {r}, DataType::{});",
                        header::runtime_dtype(t.dtype)
                    ),
                );
                self.declared.insert(x.to_string());
            }
            ops::id::TENSOR_READ => {
                let (Some(t), Some(idx)) = (arg_var(0), call.args.get(1)) else {
                    return self.broken(span, "a tensor.read without a tensor variable and indices");
                };
                let Type::Tensor(tt) = self.vars.var_type(t) else {
                    return self.broken(span, "a tensor.read of a value that is not a tensor");
                };
                let ExprKind::MakeTuple(indices) = &idx.kind else {
                    return self.broken(span, "a tensor.read without a literal index list");
                };
                let dims: Vec<String> = tt
                    .shape
                    .iter()
                    .map(|d| expr::dim_string(self.vars, d, span, &self.sig.known, &mut self.errors))
                    .collect();
                let mut terms = Vec::new();
                for (k, i) in indices.iter().enumerate() {
                    let mut term = self.expr(i);
                    for d in dims.iter().skip(k + 1) {
                        term.push_str(" * ");
                        term.push_str(d);
                    }
                    terms.push(term);
                }
                let index = terms.join(" + ");
                let ty = match self.vars.type_of(value) {
                    Type::Scalar(d) => c_type(*d),
                    _ => c_type(tt.dtype),
                };
                let tr = self.tensor_ref(t);
                let ptr = match tr.strip_prefix("ext_") {
                    Some(n) => format!("arg_{n}_ptr"),
                    None => format!("{tr}.data"),
                };
                if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) {
                    self.line(indent, &format!("{ty} {x} = static_cast<{ty}*>({ptr})[{index}];"));
                } else {
                    self.line(indent, &format!("size_t idx_{x} = {index};"));
                    self.line(indent, &format!("{ty} {x} = static_cast<{ty}*>({ptr})[idx_{x}];"));
                }
                self.declared.insert(x.to_string());
            }
            ops::id::TENSOR_VIEW => {
                let Some(t) = arg_var(0) else {
                    return self.broken(span, "a tensor.view of a value that is not a variable");
                };
                let mut lists = Vec::new();
                for a in call.args.iter().skip(1).take(2) {
                    let items = match &a.kind {
                        // `view` takes `uint64_t` lists: a computed extent or offset (an
                        // `int64_t`, `valid_len`) is converted, as in a shape array.
                        ExprKind::MakeTuple(items) => {
                            items.iter().map(|i| expr::shape_item(self.expr(i))).collect::<Vec<_>>()
                        }
                        _ => vec![expr::shape_item(self.expr(a))],
                    };
                    lists.push(format!("{{{}}}", items.join(", ")));
                }
                let src = self.tensor_ref(t);
                self.line(indent, &format!("Tensor {x} = {src}.view({});", lists.join(", ")));
                self.declared.insert(x.to_string());
            }
            // A transpose or reshape only changes how a buffer is seen (strides, shape): the
            // runtime's Tensor does it, and a kernel reads the strides from the Tensor it is
            // passed (docs/orchestration-abi.md).
            ops::id::TENSOR_TRANSPOSE => {
                let axes =
                    (call.args.get(1).and_then(Expr::as_const_int), call.args.get(2).and_then(Expr::as_const_int));
                let (Some(t), (Some(a1), Some(a2))) = (arg_var(0), axes) else {
                    return self.broken(span, "a tensor.transpose without a tensor variable and constant axes");
                };
                let rank = self.vars.var_type(t).shape().map_or(0, <[Expr]>::len) as i64;
                let axis = |a: i64| Some(if a < 0 { a + rank } else { a }).filter(|a| (0..rank).contains(a));
                let (Some(a1), Some(a2)) = (axis(a1), axis(a2)) else {
                    return self.broken(span, "a tensor.transpose with an axis out of range");
                };
                let src = self.tensor_ref(t);
                self.line(indent, &format!("Tensor {x} = {src}.transpose({a1}, {a2});"));
                self.declared.insert(x.to_string());
            }
            ops::id::TENSOR_RESHAPE => {
                let Some(t) = arg_var(0) else {
                    return self.broken(span, "a tensor.reshape of a value that is not a variable");
                };
                let Type::Tensor(rt) = self.vars.type_of(value) else { return };
                let dims: Vec<String> = rt
                    .shape
                    .iter()
                    .map(|d| expr::shape_item(expr::dim_string(self.vars, d, span, &self.sig.known, &mut self.errors)))
                    .collect();
                let r = dims.len();
                let src = self.tensor_ref(t);
                self.line(indent, &format!("uint64_t {x}_shapes[{r}] = {{{}}};", dims.join(", ")));
                self.line(indent, &format!("Tensor {x} = {src}.reshape({x}_shapes, {r});"));
                self.declared.insert(x.to_string());
            }
            ops::id::TENSOR_DIM => {
                let (Some(t), Some(axis)) = (arg_var(0), call.args.get(1).and_then(Expr::as_const_int)) else {
                    return self.broken(span, "a tensor.dim without a tensor variable and a constant axis");
                };
                let shape = self.vars.var_type(t).shape().map(<[Expr]>::to_vec).unwrap_or_default();
                let rank = shape.len() as i64;
                let a = if axis < 0 { axis + rank } else { axis };
                let Some(d) = usize::try_from(a).ok().and_then(|a| shape.get(a)) else {
                    return self.broken(span, "a tensor.dim with an axis out of range");
                };
                // A symbolic axis of a parameter is that tensor's own extent, from its slot; a
                // dimension named by a callee's type only (a kernel's result `[M, 16]`) is the
                // runtime extent the tensor carries.
                let slot = self.sig.dims.iter().find(|s| s.tensor == t && s.axis as i64 == a);
                let d = if let Some(s) = slot {
                    s.local.clone()
                } else if expr::unknown_var(self.vars, d, &self.sig.known).is_some() {
                    format!("static_cast<int64_t>({}.repeats[{a}])", self.tensor_ref(t))
                } else {
                    expr::dim_string(self.vars, d, span, &self.sig.known, &mut self.errors)
                };
                self.line(indent, &format!("int64_t {x} = {d};"));
                self.declared.insert(x.to_string());
            }
            // A value nothing reads needs no code: a MemRef planned for a tile (init-mem-ref), a
            // tile loaded before a `with pl.incore():` scope and recomputed inside the outlined
            // kernel (docs/orchestration-abi.md).
            _ if !self.read.contains(&var) && !crate::verify::orchestration_form::writes_memory(call) => {}
            // A value that is read has no code here: the orchestration runtime has no tensor
            // arithmetic, only tasks on the cores (dropping it would leave its name undeclared
            // in the C++).
            _ => self.broken(span, "an op with no host form"),
        }
    }

    /// One task: a call of kernel `callee` at `span`.
    fn task(&mut self, callee: &str, call: &crate::ir::Call, span: Span, indent: usize) {
        let Some(func) = self.prog.function(callee) else { return };
        if func.kind == FunctionType::Orchestration {
            // The runtime runs kernels as tasks; an orchestration function has no kernel file.
            self.broken(span, "a task calling an Orchestration function");
            return;
        }
        let worker = match self.cores.of(func) {
            Ok(CoreType::Cube) => "PTO2_WORKER_CUBE",
            Ok(CoreType::Vector) => "PTO2_WORKER_VECTOR",
            Err(d) => {
                self.errors.push(d);
                return;
            }
        };
        let k = self.task;
        self.task += 1;
        let mut params = Vec::new();
        for (i, a) in call.args.iter().enumerate() {
            if let Some(p) = self.param(func, i, a) {
                params.push(p);
            }
        }
        let id = self.func_ids.get(callee).copied().unwrap_or_default();
        self.line(indent, "");
        self.line(indent, &format!("// Task {k}: {callee}"));
        self.line(indent, &format!("PTOParam params_t{k}[] = {{"));
        for p in &params {
            self.line(indent + 4, &format!("{p},"));
        }
        self.line(indent, "};");
        self.line(indent, &format!("pto2_rt_submit_task(rt, {id}, {worker}, params_t{k}, {});", params.len()));
    }

    /// The dtype of scalar parameter `i` of `func`.
    fn param_dtype(&self, func: &Function, i: usize) -> Option<DataType> {
        match func.params.get(i).map(|p| func.var_type(p.var)) {
            Some(Type::Scalar(d)) => Some(*d),
            _ => None,
        }
    }

    /// The `PTOParam` of the float constant `v` as argument `i` of `func`, in the parameter's
    /// format: FP32 as its bits, FP16/BF16 as their bits in the low 16 (as scalar parameters
    /// of those dtypes are, docs/orchestration-abi.md).
    fn float_param(&self, func: &Function, i: usize, v: f64) -> String {
        match self.param_dtype(func, i) {
            Some(DataType::Fp16) => {
                format!("make_scalar_param((uint64_t)0x{:04x}) /* FP16 {v} */", half::f16::from_f64(v).to_bits())
            }
            Some(DataType::Bf16) => {
                format!("make_scalar_param((uint64_t)0x{:04x}) /* BF16 {v} */", half::bf16::from_f64(v).to_bits())
            }
            _ => format!("make_scalar_param(float_to_u64({v:.6}f))"),
        }
    }

    /// The `PTOParam` of argument `i` of a call of `func`.
    fn param(&mut self, func: &Function, i: usize, a: &Expr) -> Option<String> {
        match &a.kind {
            ExprKind::Var(v) if self.sig.raw_scalars.contains(v) => {
                Some(format!("make_scalar_param({})", self.name(*v)))
            }
            ExprKind::Var(v) => match self.vars.var_type(*v) {
                Type::Scalar(d) => {
                    let x = self.expr(a);
                    let pd = self.param_dtype(func, i).unwrap_or(*d);
                    // A scalar converts to its parameter's dtype at the call (lowering allows
                    // integer ↔ integer and BOOL, and float ↔ float).
                    Some(match (pd, *d) {
                        (pd, d) if pd == d && d == DataType::Fp32 => format!("make_scalar_param(float_to_u64({x}))"),
                        (pd, d) if pd == d => format!("make_scalar_param({x})"),
                        (DataType::Bool, d) if d.is_int() => format!("make_scalar_param((uint64_t)({x} != 0))"),
                        (pd, d) if pd.is_int() && (d.is_int() || d == DataType::Bool) => {
                            format!("make_scalar_param((uint64_t)static_cast<{}>({x}))", c_type(pd))
                        }
                        _ => {
                            // Float ↔ float needs the half-precision formats on the AICPU,
                            // which the orchestration file does not have.
                            self.broken(a.span, "a scalar argument the host cannot convert");
                            return None;
                        }
                    })
                }
                Type::Tensor(_) => {
                    let Some(p) = func.params.get(i) else {
                        self.broken(a.span, "a call passing more arguments than the kernel has parameters");
                        return None;
                    };
                    // An `In` parameter the kernel stores into (outlined functions have only `In`
                    // parameters) is declared as the write it is.
                    let written = self
                        .written
                        .entry(func.name.clone())
                        .or_insert_with(|| buffers::written_params(self.prog, &self.cores.summaries, func))
                        .get(i)
                        .copied()
                        .unwrap_or(false);
                    let kind = match p.direction {
                        ParamDirection::Out => "make_output_param",
                        ParamDirection::InOut => "make_inout_param",
                        ParamDirection::In if written => "make_inout_param",
                        ParamDirection::In => "make_input_param",
                    };
                    Some(format!("{kind}({})", self.tensor_ref(*v)))
                }
                _ => {
                    self.broken(a.span, "an argument that is neither a tensor nor a scalar");
                    None
                }
            },
            // An integer literal passed for a float parameter is that float (lowering checked
            // that it holds the value exactly).
            ExprKind::ConstInt(v, _) if self.param_dtype(func, i).is_some_and(DataType::is_float) => {
                Some(self.float_param(func, i, *v as f64))
            }
            // An integer literal passed for a BOOL parameter is its truth value, 0 or 1 (the
            // ABI's BOOL); for an integer parameter, a value of the parameter's type.
            ExprKind::ConstInt(v, d) => Some(match self.param_dtype(func, i).unwrap_or(*d) {
                DataType::Bool => format!("make_scalar_param((uint64_t){})", u8::from(*v != 0)),
                DataType::Int64 => format!("make_scalar_param((uint64_t){v})"),
                d => format!("make_scalar_param((uint64_t)static_cast<{}>({v}))", c_type(d)),
            }),
            ExprKind::ConstFloat(v, _) => Some(self.float_param(func, i, *v)),
            ExprKind::ConstBool(b) => Some(format!("make_scalar_param((uint64_t){})", u8::from(*b))),
            _ => {
                self.broken(a.span, "an argument that is not a variable or a constant");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests;
