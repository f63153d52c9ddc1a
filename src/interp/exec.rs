//! Statements, control flow, scalar expressions and calls between functions.

use rustc_hash::FxHashMap;

use super::numeric::check_dtype;
use super::partial;
use super::scalar;
use super::semantics;
use super::value::{Array, Num, Scalar, Value};
use super::{err, RunResult};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{Callee, DataType, Expr, ExprKind, Function, Program, Stmt, Type, VarId, VarKind, VarTable};

/// Nested calls allowed before the run stops (a recursive program would otherwise exhaust the
/// stack).
const MAX_CALL_DEPTH: usize = 200;

/// How a statement ended.
enum Flow {
    Normal,
    Break,
    Continue,
    /// A `yield` (to the enclosing loop or if, or the function result at top level); `None`
    /// for a yielded variable without a value (see [`Interp::eval_yielded`]).
    Yield(Vec<Option<Value>>),
    Return(Vec<Value>),
}

/// The interpreter of one program.
pub struct Interp<'p> {
    pub(super) prog: &'p Program,
    depth: usize,
    /// Statements executed so far ([`Interp::exec`] counts one per statement, compound ones
    /// included, so every loop iteration counts at least once).
    steps: u64,
    /// The step budget of the run: a loop that never ends is an error, not a hang.
    max_steps: u64,
    /// The span of the innermost loop running, which the budget's error points at.
    running_loop: Option<Span>,
}

/// The variables of one function activation.
///
/// Programs as written (before convert-to-ssa) follow Python's naming: every assignment makes a
/// new variable, but a read means the name's latest assignment at run time (`x = x + i` in a
/// simple loop, `while x < n: x = x * 2`, a name assigned in both branches of an if without
/// yields). So a read of a plain variable takes the value of the variable most recently bound
/// under the same name. Iter args are not assignments to their name (they are bound by their
/// loop header and visible only inside it), so they neither shadow nor are shadowed. In SSA
/// programs names are unique (or, like `_tuple_tmp`, reused only sequentially), so the rule
/// changes nothing there.
pub(super) struct Frame<'p> {
    /// The variables of the function this frame runs.
    vars: &'p VarTable,
    vals: FxHashMap<VarId, Value>,
    latest: FxHashMap<&'p str, VarId>,
}

impl<'p> Interp<'p> {
    pub fn new(prog: &'p Program, max_steps: u64) -> Interp<'p> {
        Interp { prog, depth: 0, steps: 0, max_steps, running_loop: None }
    }

    /// Runs `func` on `args` (already checked against the parameters).
    pub fn run(&mut self, func: &'p Function, args: Vec<Value>, span: Span) -> Result<RunResult, Diagnostic> {
        let returns = self.call(func, args.clone(), span)?;
        Ok(RunResult { params: args, returns })
    }

    fn call(&mut self, func: &'p Function, args: Vec<Value>, span: Span) -> Result<Vec<Value>, Diagnostic> {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(err(
                codes::RUN_ERROR,
                span,
                format!("calls nested more than {MAX_CALL_DEPTH} deep (calling `{}`)", func.name),
            ));
        }
        if args.len() != func.params.len() {
            return Err(err(
                codes::RUN_SHAPE,
                span,
                format!("`{}` takes {} arguments, but {} were given", func.name, func.params.len(), args.len()),
            ));
        }
        let mut frame = Frame { vars: &func.vars, vals: FxHashMap::default(), latest: FxHashMap::default() };
        for (p, v) in func.params.iter().zip(args) {
            self.bind(&mut frame, p.var, v);
        }
        self.depth += 1;
        let flow = self.exec(&mut frame, &func.body);
        self.depth -= 1;
        match flow? {
            Flow::Return(v) => Ok(v),
            Flow::Yield(v) => v
                .into_iter()
                .map(|x| {
                    x.ok_or_else(|| err(codes::RUN_ERROR, func.span, "the function yields a value it never computed"))
                })
                .collect(),
            Flow::Normal => Ok(Vec::new()),
            Flow::Break | Flow::Continue => {
                Err(err(codes::RUN_UNSUPPORTED, func.span, "`break` or `continue` outside a loop"))
            }
        }
    }

    fn exec(&mut self, fr: &mut Frame<'p>, s: &Stmt) -> Result<Flow, Diagnostic> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(self.out_of_steps(s.span()));
        }
        match s {
            Stmt::Assign { var, value, .. } => {
                let v = self.eval(fr, value)?;
                self.bind(fr, *var, v);
                Ok(Flow::Normal)
            }
            Stmt::Eval { expr, .. } => {
                self.eval(fr, expr)?;
                Ok(Flow::Normal)
            }
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                for s in stmts {
                    match self.exec(fr, s)? {
                        Flow::Normal => {}
                        other => return Ok(other),
                    }
                }
                Ok(Flow::Normal)
            }
            Stmt::Scope { body, .. } => self.exec(fr, body),
            Stmt::Yield { values, .. } => {
                Ok(Flow::Yield(values.iter().map(|e| self.eval_yielded(fr, e)).collect::<Result<_, _>>()?))
            }
            Stmt::Return { values, .. } => Ok(Flow::Return(self.eval_list(fr, values)?)),
            Stmt::Break { .. } => Ok(Flow::Break),
            Stmt::Continue { .. } => Ok(Flow::Continue),
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                let c = self.eval_scalar(fr, cond)?;
                // Text as written, before convert-to-ssa: a tensor the skipped branch stores
                // into and names is, on this path, the tensor stored into (as convert-to-ssa's
                // phi makes it, `analysis::one_path`). Bound before the branch taken runs, so
                // that its own bindings of the same names win.
                if return_vars.is_empty() {
                    let skipped = if c.num.is_true() { else_body.as_deref() } else { Some(&**then_body) };
                    if let Some(skipped) = skipped {
                        for (v, r) in crate::analysis::one_path::written_outside(skipped, fr.vars) {
                            if let Ok(val) = self.lookup(fr, r, *span) {
                                self.bind(fr, v, val);
                            }
                        }
                    }
                }
                let flow = if c.num.is_true() {
                    self.exec(fr, then_body)?
                } else if let Some(e) = else_body {
                    self.exec(fr, e)?
                } else {
                    Flow::Normal
                };
                match flow {
                    // The branch's yield defines the if's return variables. A bare
                    // `pl.yield_(x)` in an if without return variables (text as written, before
                    // convert-to-ssa) yields to the if too — convert-to-ssa makes `x` its return
                    // variable — and the names the branch assigned are read by name afterwards
                    // (see `Frame`), so its values are not needed here.
                    Flow::Yield(vals) if !return_vars.is_empty() => {
                        self.bind_yielded(fr, return_vars, vals, *span, "if")?;
                        Ok(Flow::Normal)
                    }
                    Flow::Yield(_) => Ok(Flow::Normal),
                    Flow::Normal if !return_vars.is_empty() => Err(err(
                        codes::RUN_UNSUPPORTED,
                        *span,
                        "the branch taken ends without a yield, so the if's results have no value",
                    )),
                    other => Ok(other),
                }
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, span, .. } => {
                let lo = self.eval_int(fr, start)?;
                let hi = self.eval_int(fr, stop)?;
                let st = self.eval_int(fr, step)?;
                if st == 0 {
                    return Err(err(codes::RUN_ERROR, step.span, "the loop step is 0"));
                }
                let loop_dtype = fr.vars.var_type(*loop_var).scalar_dtype().unwrap_or(DataType::Int64);
                self.init_iter_args(fr, iter_args)?;
                let outer = self.running_loop.replace(header(*span, [start, stop, step]));
                let mut i = lo;
                while (st > 0 && i < hi) || (st < 0 && i > hi) {
                    self.bind(fr, *loop_var, Value::Scalar(Scalar::new(loop_dtype, Num::I(i))));
                    match self.exec(fr, body)? {
                        Flow::Yield(vals) => self.bind_yielded(fr, iter_args, vals, *span, "loop")?,
                        Flow::Break => break,
                        Flow::Return(v) => {
                            self.running_loop = outer;
                            return Ok(Flow::Return(v));
                        }
                        Flow::Normal | Flow::Continue => {}
                    }
                    i += st;
                }
                self.running_loop = outer;
                self.finish_loop(fr, iter_args, return_vars, *span)?;
                Ok(Flow::Normal)
            }
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                self.init_iter_args(fr, iter_args)?;
                let outer = self.running_loop.replace(header(*span, [cond]));
                while self.eval_scalar(fr, cond)?.num.is_true() {
                    match self.exec(fr, body)? {
                        Flow::Yield(vals) => self.bind_yielded(fr, iter_args, vals, *span, "loop")?,
                        Flow::Break => break,
                        Flow::Return(v) => {
                            self.running_loop = outer;
                            return Ok(Flow::Return(v));
                        }
                        Flow::Normal | Flow::Continue => {}
                    }
                }
                self.running_loop = outer;
                self.finish_loop(fr, iter_args, return_vars, *span)?;
                Ok(Flow::Normal)
            }
        }
    }

    /// The error that ends a run out of steps: at the innermost loop running (else at the
    /// statement reached, e.g. in calls that recurse without a loop).
    #[cold]
    fn out_of_steps(&self, stmt: Span) -> Diagnostic {
        let max = self.max_steps;
        match self.running_loop {
            Some(lp) => err(
                codes::RUN_STEP_LIMIT,
                lp,
                format!("the run took more than {max} steps: stopped in this loop (a loop that does not end?)"),
            )
            .with_label("still running after the last step")
            .with_note(format!("help: if the loop does end, raise the budget with `--max-steps` (now {max})")),
            None => err(codes::RUN_STEP_LIMIT, stmt, format!("the run took more than {max} steps: stopped here"))
                .with_label("the statement reached")
                .with_note(format!("help: raise the budget with `--max-steps` (now {max})")),
        }
    }

    /// Gives each iter arg its init value (the `init` of its variable-table entry). An init
    /// variable without a value (assigned on a path not taken, e.g. in the `else` of an earlier
    /// loop that ran once) leaves the iter arg without one: convert-to-ssa carries every name a
    /// loop body reassigns, also one the body writes before reading it, and Python runs such a
    /// program; reading the iter arg is the error.
    fn init_iter_args(&mut self, fr: &mut Frame<'p>, iter_args: &[VarId]) -> Result<(), Diagnostic> {
        for &ia in iter_args {
            match &fr.vars.var(ia).kind {
                VarKind::IterArg { init } => match self.eval_yielded(fr, init)? {
                    Some(x) => self.bind(fr, ia, x),
                    None => {
                        fr.vals.remove(&ia);
                    }
                },
                _ => {
                    return Err(err(
                        codes::RUN_UNSUPPORTED,
                        fr.vars.var(ia).span,
                        format!("`{}` is a loop iter arg without an init value", fr.vars.var_name(ia)),
                    ))
                }
            }
        }
        Ok(())
    }

    /// The loop's return variables take the iter args' final values.
    fn finish_loop(
        &mut self,
        fr: &mut Frame<'p>,
        iter_args: &[VarId],
        rets: &[VarId],
        span: Span,
    ) -> Result<(), Diagnostic> {
        if rets.is_empty() {
            return Ok(());
        }
        if rets.len() != iter_args.len() {
            return Err(err(
                codes::RUN_SHAPE,
                span,
                format!("the loop yields {} values for {} variables", iter_args.len(), rets.len()),
            ));
        }
        // An iter arg still without a value (see `init_iter_args`) leaves its return var without
        // one: reading that is the error.
        for (ia, rv) in iter_args.iter().zip(rets) {
            match fr.vals.get(ia).cloned() {
                Some(x) => self.bind(fr, *rv, x),
                None => {
                    fr.vals.remove(rv);
                }
            }
        }
        Ok(())
    }

    /// Binds the values of a yield; a variable yielded without a value (`None`) leaves its
    /// target without one.
    fn bind_yielded(
        &mut self,
        fr: &mut Frame<'p>,
        vars: &[VarId],
        vals: Vec<Option<Value>>,
        span: Span,
        what: &str,
    ) -> Result<(), Diagnostic> {
        if vars.len() != vals.len() {
            return Err(err(
                codes::RUN_SHAPE,
                span,
                format!("the {what} yields {} values for {} variables", vals.len(), vars.len()),
            ));
        }
        for (v, x) in vars.iter().zip(vals) {
            match x {
                Some(x) => self.bind(fr, *v, x),
                None => {
                    fr.vals.remove(v);
                }
            }
        }
        Ok(())
    }

    /// The value of a yielded expression: `None` for a variable without a value. convert-to-ssa
    /// makes an `if` yield every name either branch assigns and a loop carry every name its
    /// body reassigns (the reference's rules), also names assigned on some paths only, which
    /// Python leaves unbound there; reading the result is the error, not the yield.
    fn eval_yielded(&mut self, fr: &mut Frame<'p>, e: &Expr) -> Result<Option<Value>, Diagnostic> {
        if let Some(v) = e.as_var().filter(|v| !matches!(fr.vars.var(*v).kind, VarKind::MemRef(_))) {
            return Ok(self.lookup(fr, v, e.span).ok());
        }
        self.eval(fr, e).map(Some)
    }

    /// Binds `v` (and, for a plain variable, makes it its name's latest binding).
    fn bind(&self, fr: &mut Frame<'p>, v: VarId, val: Value) {
        let data = fr.vars.var(v);
        if data.kind == VarKind::Plain {
            fr.latest.insert(data.name.as_str(), v);
        }
        fr.vals.insert(v, val);
    }

    fn lookup(&self, fr: &Frame<'p>, v: VarId, span: Span) -> Result<Value, Diagnostic> {
        let data = fr.vars.var(v);
        let v = match fr.latest.get(data.name.as_str()) {
            Some(&w) if data.kind == VarKind::Plain => w,
            _ => v,
        };
        fr.vals.get(&v).cloned().ok_or_else(|| {
            err(codes::RUN_ERROR, span, format!("`{}` is used before it has a value", fr.vars.var_name(v)))
        })
    }

    fn eval_list(&mut self, fr: &mut Frame<'p>, es: &[Expr]) -> Result<Vec<Value>, Diagnostic> {
        es.iter().map(|e| self.eval(fr, e)).collect()
    }

    pub(super) fn eval_scalar(&mut self, fr: &mut Frame<'p>, e: &Expr) -> Result<Scalar, Diagnostic> {
        match self.eval(fr, e)? {
            Value::Scalar(s) => Ok(s),
            v => Err(err(codes::RUN_SHAPE, e.span, format!("expected a scalar, found a {}", v.kind_name()))),
        }
    }

    fn eval_int(&mut self, fr: &mut Frame<'p>, e: &Expr) -> Result<i128, Diagnostic> {
        Ok(self.eval_scalar(fr, e)?.num.as_i128())
    }

    /// The valid extents of a tile of type `ty` with a valid shape (its dynamic extents
    /// evaluated); `None` for a whole tile and for other types.
    fn valid_extents(&mut self, fr: &mut Frame<'p>, ty: &Type) -> Result<partial::Valid, Diagnostic> {
        let Type::Tile(t) = ty else { return Ok(None) };
        let Some(v) = t.view.as_ref().filter(|v| !v.valid_shape.is_empty()) else { return Ok(None) };
        let mut out = Vec::with_capacity(v.valid_shape.len());
        for d in &v.valid_shape {
            match self.eval(fr, d)? {
                Value::Scalar(s) => out.push(usize::try_from(s.num.as_i128().max(0)).unwrap_or(0)),
                _ => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    /// Evaluates an expression.
    pub(super) fn eval(&mut self, fr: &mut Frame<'p>, e: &Expr) -> Result<Value, Diagnostic> {
        match &e.kind {
            ExprKind::Var(v) => {
                if let VarKind::MemRef(_) = fr.vars.var(*v).kind {
                    // Buffers are not values: tiles and tensors carry their own elements.
                    return Ok(fr.vals.get(v).cloned().unwrap_or(Value::Unit));
                }
                self.lookup(fr, *v, e.span)
            }
            ExprKind::ConstInt(v, d) => {
                check_dtype(*d, e.span)?;
                Ok(Value::Scalar(Scalar::new(*d, Num::I(i128::from(*v)))))
            }
            ExprKind::ConstFloat(v, d) => {
                check_dtype(*d, e.span)?;
                Ok(Value::Scalar(Scalar::new(*d, Num::F(*v))))
            }
            ExprKind::ConstBool(b) => Ok(Value::Scalar(Scalar::new(DataType::Bool, Num::I(i128::from(*b))))),
            ExprKind::MakeTuple(es) => Ok(Value::Tuple(self.eval_list(fr, es)?)),
            ExprKind::TupleGetItem(t, i) => match self.eval(fr, t)? {
                Value::Tuple(mut vs) if *i < vs.len() => Ok(vs.swap_remove(*i)),
                v => Err(err(codes::RUN_SHAPE, e.span, format!("cannot take element {i} of a {}", describe_value(&v)))),
            },
            ExprKind::Binary(op, a, b) => {
                let x = self.eval_scalar(fr, a)?;
                let y = self.eval_scalar(fr, b)?;
                let d = e.ty.scalar_dtype().unwrap_or(x.dtype);
                check_dtype(d, e.span)?;
                scalar::binary(*op, d, x, y).map(Value::Scalar).map_err(|m| err(codes::RUN_ERROR, e.span, m))
            }
            ExprKind::Unary(op, a) => {
                let x = self.eval_scalar(fr, a)?;
                let d = e.ty.scalar_dtype().unwrap_or(x.dtype);
                check_dtype(d, e.span)?;
                scalar::unary(*op, d, x).map(Value::Scalar).map_err(|m| err(codes::RUN_ERROR, e.span, m))
            }
            ExprKind::Call(call) => {
                let args = self.eval_list(fr, &call.args)?;
                match &call.callee {
                    Callee::Op(op) => {
                        let arg_valid = call
                            .args
                            .iter()
                            .map(|a| {
                                let ty = fr.vars.type_of(a).clone();
                                self.valid_extents(fr, &ty)
                            })
                            .collect::<Result<Vec<_>, _>>()?;
                        let res_valid = self.valid_extents(fr, &e.ty)?;
                        if res_valid.is_none() && arg_valid.iter().all(Option::is_none) {
                            semantics::apply(*op, call, e, args)
                        } else {
                            partial::apply(*op, call, e, args, &arg_valid, res_valid)
                        }
                    }
                    Callee::Function(name) => {
                        let prog = self.prog;
                        let Some(f) = prog.function(name) else {
                            return Err(err(
                                codes::RUN_UNSUPPORTED,
                                e.span,
                                format!("the program has no function `{name}`"),
                            ));
                        };
                        let mut rets = self.call(f, args, e.span)?;
                        Ok(match rets.len() {
                            0 => Value::Unit,
                            1 => rets.pop().unwrap_or(Value::Unit),
                            _ => Value::Tuple(rets),
                        })
                    }
                }
            }
        }
    }
}

/// The header of a loop spanning `whole`: from its start to the end of the last of `parts` (its
/// range's bounds, its condition) that lies inside it, or the whole loop if none does.
fn header<const N: usize>(whole: Span, parts: [&Expr; N]) -> Span {
    let hi = parts
        .iter()
        .map(|e| e.span)
        .filter(|p| !p.is_none() && p.lo >= whole.lo && p.hi <= whole.hi)
        .map(|p| p.hi)
        .max();
    match hi {
        Some(hi) if !whole.is_none() => Span { lo: whole.lo, hi },
        _ => whole,
    }
}

fn describe_value(v: &Value) -> String {
    match v {
        Value::Tuple(vs) => format!("tuple of {} elements", vs.len()),
        v => v.kind_name().to_string(),
    }
}

/// Checks `args` against the parameters of `func` (count, kind, dtype, constant dims) and
/// converts scalars to the parameter's dtype.
pub(super) fn check_args(func: &Function, args: Vec<Value>) -> Result<Vec<Value>, Diagnostic> {
    if args.len() != func.params.len() {
        return Err(err(
            codes::RUN_BAD_INPUT,
            func.span,
            format!("`{}` has {} parameters, but {} arguments were given", func.name, func.params.len(), args.len()),
        ));
    }
    let mut out = Vec::with_capacity(args.len());
    for (p, a) in func.params.iter().zip(args) {
        let var = func.var(p.var);
        let name = &var.name;
        let bad = |what: String| err(codes::RUN_BAD_INPUT, var.span, format!("parameter `{name}`: {what}"));
        match (&var.ty, a) {
            (Type::Scalar(d), Value::Scalar(s)) => {
                check_dtype(*d, var.span)?;
                out.push(Value::Scalar(Scalar::new(*d, s.num)));
            }
            (Type::Tensor(_) | Type::Tile(_), v @ (Value::Tensor(_) | Value::Tile(_))) => {
                let (dtype, shape) = match &v {
                    Value::Tensor(t) => (t.dtype(), t.shape().to_vec()),
                    Value::Tile(a) => (a.dtype(), a.shape().to_vec()),
                    _ => unreachable_kind(),
                };
                let want_dtype = var.ty.dtype().unwrap_or(dtype);
                let want_shape = var.ty.shape().unwrap_or(&[]);
                let shape_ok = want_shape.len() == shape.len()
                    && want_shape.iter().zip(&shape).all(|(d, n)| d.as_const_int().is_none_or(|c| c == *n as i64));
                if want_dtype != dtype || !shape_ok {
                    return Err(bad(format!(
                        "expects {}, but the argument is {} {:?}",
                        crate::printer::print_type(&func.vars, &var.ty),
                        dtype.name(),
                        shape
                    )));
                }
                check_dtype(dtype, var.span)?;
                // A tile parameter gets its own copy; a tensor parameter shares the caller's buffer.
                out.push(match (&var.ty, v) {
                    (Type::Tile(_), v) => Value::tile(v.array().unwrap_or_else(|| Array::zeros(dtype, shape))),
                    (_, Value::Tile(a)) => Value::tensor((*a).clone()),
                    (_, v) => v,
                });
            }
            (ty, v) => {
                return Err(bad(format!("expects a {}, but the argument is a {}", ty.kind_name(), v.kind_name())))
            }
        }
    }
    Ok(out)
}

/// The arms that call this are excluded by the enclosing match; kept panic-free.
fn unreachable_kind() -> (DataType, Vec<usize>) {
    (DataType::Fp32, Vec::new())
}
