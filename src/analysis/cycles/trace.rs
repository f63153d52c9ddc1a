//! The dynamic instruction stream of one kernel function: its body walked as the device runs
//! it, loops unrolled, each leaf turned into the pipe instructions and sync operations it
//! issues ([`Item`]), in program order.
//!
//! Loop bounds, `if` conditions and scalar values are evaluated over integers and floats as far
//! as they are known: loop variables, constants, scalar assignments, scalar iter args. A scalar
//! parameter takes [`super::Options::scalar_int`] / [`super::Options::scalar_float`] (the values
//! Perf-Sim's harness passes by default, so that both run the same iterations); a loop whose
//! trip count is still unknown runs [`super::Options::default_trips`] times and an unknown
//! condition takes the `then` arm — both counted in [`Trace::assumed`].

use std::collections::{HashMap, HashSet};

use super::cost::{self, Instr};
use super::Options;
use crate::analysis::effects::{self, Event, Kind};
use crate::backend::Backend;
use crate::ir::{BinOp, DataType, Expr, ExprKind, Function, Stmt, Type, UnOp, VarId, VarKind};

/// One entry of the stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Instr(Instr),
    /// `set_flag`: signals the event once every instruction issued so far on its set pipe ended.
    Set(Event),
    /// `wait_flag`: its wait pipe issues nothing more until a matching set has signalled.
    Wait(Event),
    /// `pipe_barrier(PIPE_X)` of one pipe.
    Barrier,
    /// `pipe_barrier(PIPE_ALL)`.
    BarrierAll,
}

/// The stream and what the walk had to assume.
#[derive(Debug, Default)]
pub struct Trace {
    pub items: Vec<Item>,
    /// Loops and conditions whose value the walk assumed: from a scalar parameter's assumed
    /// value, or unknown (a loop then runs [`Options::default_trips`] times, a condition is
    /// taken as true).
    pub assumed: usize,
    /// The stream reached [`Options::max_items`] and was cut there.
    pub truncated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Int(i64),
    Float(f64),
}

impl Val {
    fn int(self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(i),
            Val::Float(_) => None,
        }
    }
    fn truthy(self) -> bool {
        match self {
            Val::Int(i) => i != 0,
            Val::Float(x) => x != 0.0,
        }
    }
}

/// How a statement ended.
enum Flow {
    Normal,
    Break,
    Continue,
    Return,
}

struct Walker<'a> {
    f: &'a Function,
    backend: Backend,
    opts: &'a Options,
    env: HashMap<VarId, Val>,
    /// Variables whose value derives from an assumed scalar parameter value.
    assumed_vars: HashSet<VarId>,
    /// The statements (by address) whose bounds or condition were assumed.
    assumed_at: HashSet<usize>,
    /// The values of the last `yield` executed, and the variables it yielded.
    yielded: Vec<Option<Val>>,
    yielded_vars: Vec<Option<VarId>>,
    out: Trace,
}

/// The instruction stream of `f` on `backend`.
pub fn trace(f: &Function, backend: Backend, opts: &Options) -> Trace {
    let mut w = Walker {
        f,
        backend,
        opts,
        env: HashMap::new(),
        assumed_vars: HashSet::new(),
        assumed_at: HashSet::new(),
        yielded: Vec::new(),
        yielded_vars: Vec::new(),
        out: Trace::default(),
    };
    for p in &f.params {
        let v = match f.var_type(p.var) {
            Type::Scalar(d) if is_float(*d) => Some(Val::Float(opts.scalar_float)),
            // A BOOL parameter is the low bit of the integer value (the harness passes the
            // integer's bits, and a C++ `bool` reads its lowest bit).
            Type::Scalar(DataType::Bool) => Some(Val::Int(opts.scalar_int & 1)),
            Type::Scalar(_) => Some(Val::Int(opts.scalar_int)),
            _ => None,
        };
        if let Some(v) = v {
            w.env.insert(p.var, v);
            w.assumed_vars.insert(p.var);
        }
    }
    // The prologue gives every tile variable its buffer (`TASSIGN`, one cycle each).
    let mut tiles = 0;
    crate::ir::visit::walk_stmts(&f.body, &mut |s| {
        if let Stmt::Assign { var, .. } = s {
            tiles += matches!(f.var_type(*var), Type::Tile(_)) as u64;
        }
    });
    if tiles > 0 {
        w.out.items.push(Item::Instr(Instr {
            pipe: crate::ir::PipeType::S,
            name: "TASSIGN",
            cycles: tiles,
            shape: None,
        }));
    }
    w.stmt(&f.body);
    w.out
}

fn is_float(d: DataType) -> bool {
    !d.is_int() && d != DataType::Bool
}

impl Walker<'_> {
    fn full(&self) -> bool {
        self.out.items.len() >= self.opts.max_items
    }

    fn stmt(&mut self, s: &Stmt) -> Flow {
        if self.full() {
            self.out.truncated = true;
            return Flow::Return;
        }
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                for s in stmts {
                    match self.stmt(s) {
                        Flow::Normal => {}
                        other => return other,
                    }
                }
                Flow::Normal
            }
            Stmt::Scope { body, .. } => self.stmt(body),
            Stmt::Assign { var, value, .. } => {
                if let Some(v) = self.eval(value) {
                    self.env.insert(*var, v);
                }
                if self.uses_assumed(value) {
                    self.assumed_vars.insert(*var);
                }
                self.leaf(s);
                Flow::Normal
            }
            Stmt::Eval { .. } => {
                self.leaf(s);
                Flow::Normal
            }
            Stmt::Yield { values, .. } => {
                self.yielded = values.iter().map(|e| self.eval(e)).collect();
                self.yielded_vars = values.iter().map(Expr::as_var).collect();
                Flow::Normal
            }
            Stmt::Return { .. } => Flow::Return,
            Stmt::Break { .. } => Flow::Break,
            Stmt::Continue { .. } => Flow::Continue,
            Stmt::If { cond, then_body, else_body, return_vars, .. } => {
                let taken = match self.eval(cond) {
                    Some(v) => {
                        if self.uses_assumed(cond) {
                            self.assume(s);
                        }
                        v.truthy()
                    }
                    None => {
                        self.assume(s);
                        true
                    }
                };
                self.yielded.clear();
                let flow = match (taken, else_body) {
                    (true, _) => self.stmt(then_body),
                    (false, Some(e)) => self.stmt(e),
                    (false, None) => Flow::Normal,
                };
                self.bind(return_vars);
                flow
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, .. } => {
                self.init_iter_args(iter_args);
                let bounds = (self.eval_int(start), self.eval_int(stop), self.eval_int(step));
                let (first, trips, step) = match bounds {
                    (Some(a), Some(b), Some(c)) if c != 0 => {
                        if [start, stop, step].iter().any(|e| self.uses_assumed(e)) {
                            self.assume(s);
                        }
                        let n = if c > 0 { (b - a + c - 1).div_euclid(c) } else { (a - b - c - 1).div_euclid(-c) };
                        (Some(a), n.max(0) as u64, c)
                    }
                    (a, _, c) => {
                        self.assume(s);
                        (a, self.opts.default_trips, c.unwrap_or(1))
                    }
                };
                let mut flow = Flow::Normal;
                for k in 0..trips {
                    match first {
                        Some(a) => self.env.insert(*loop_var, Val::Int(a + step * k as i64)),
                        None => self.env.remove(loop_var),
                    };
                    self.yielded.clear();
                    match self.stmt(body) {
                        Flow::Break => break,
                        Flow::Return => {
                            flow = Flow::Return;
                            break;
                        }
                        Flow::Normal | Flow::Continue => {}
                    }
                    self.carry_tiles(iter_args);
                    self.bind(iter_args);
                    if self.full() {
                        break;
                    }
                }
                self.copy_iter_args(iter_args, return_vars);
                flow
            }
            Stmt::While { cond, iter_args, body, return_vars, .. } => {
                self.init_iter_args(iter_args);
                let mut trips = 0u64;
                let mut flow = Flow::Normal;
                loop {
                    let go = match self.eval(cond) {
                        Some(v) => v.truthy(),
                        None => {
                            self.assume(s);
                            trips < self.opts.default_trips
                        }
                    };
                    if !go || trips >= self.opts.max_while_trips || self.full() {
                        break;
                    }
                    trips += 1;
                    self.yielded.clear();
                    match self.stmt(body) {
                        Flow::Break => break,
                        Flow::Return => {
                            flow = Flow::Return;
                            break;
                        }
                        Flow::Normal | Flow::Continue => {}
                    }
                    self.bind(iter_args);
                }
                self.copy_iter_args(iter_args, return_vars);
                flow
            }
        }
    }

    /// A yielded tile in another buffer than its iter arg's is copied into it between two full
    /// barriers (the C++ the code generator writes for it; the passes do not see the copy).
    fn carry_tiles(&mut self, iter_args: &[VarId]) {
        let vars = std::mem::take(&mut self.yielded_vars);
        for (&a, y) in iter_args.iter().zip(&vars) {
            let (Type::Tile(_), Some(y)) = (self.f.var_type(a), y) else { continue };
            let (ma, my) = (self.f.var_type(a).memref(), self.f.var_type(*y).memref());
            if my.is_some() && ma != my {
                let shape = cost::shape_of(self.f.var_type(a), &|e: &Expr| self.eval_int(e));
                self.out.items.push(Item::BarrierAll);
                self.out.items.push(Item::Instr(Instr {
                    pipe: crate::ir::PipeType::V,
                    name: "TMOV",
                    cycles: shape.map_or(6, |sh| cost::vector("TMOV", sh)),
                    shape,
                }));
                self.out.items.push(Item::BarrierAll);
            }
        }
    }

    fn init_iter_args(&mut self, iter_args: &[VarId]) {
        for &a in iter_args {
            let init = match &self.f.var(a).kind {
                VarKind::IterArg { init } => self.eval(init),
                _ => None,
            };
            self.set(a, init);
        }
    }

    fn copy_iter_args(&mut self, iter_args: &[VarId], return_vars: &[VarId]) {
        for (a, r) in iter_args.iter().zip(return_vars) {
            let v = self.env.get(a).copied();
            self.set(*r, v);
        }
    }

    /// Binds `vars` to the values of the last yield.
    fn bind(&mut self, vars: &[VarId]) {
        let vals = std::mem::take(&mut self.yielded);
        for (i, &v) in vars.iter().enumerate() {
            self.set(v, vals.get(i).copied().flatten());
        }
    }

    fn set(&mut self, v: VarId, val: Option<Val>) {
        match val {
            Some(x) => self.env.insert(v, x),
            None => self.env.remove(&v),
        };
    }

    fn leaf(&mut self, s: &Stmt) {
        let Some(kind) = effects::kind(s, self.backend) else { return };
        match kind {
            Kind::Set(e) => self.out.items.push(Item::Set(e)),
            Kind::Wait(e) => self.out.items.push(Item::Wait(e)),
            Kind::PipeBarrier(_) => self.out.items.push(Item::Barrier),
            Kind::BarrierAll => self.out.items.push(Item::BarrierAll),
            Kind::Nothing => {}
            Kind::Access(pipe) => {
                let (value, target) = match s {
                    Stmt::Assign { var, value, .. } => (value, Some(*var)),
                    Stmt::Eval { expr, .. } => (expr, None),
                    _ => return,
                };
                if let Some(call) = value.as_call() {
                    let dim = |e: &Expr| self.eval_int(e);
                    for i in cost::instrs(self.f, call, target, pipe, &dim) {
                        self.out.items.push(Item::Instr(i));
                    }
                }
            }
        }
    }

    /// Notes that the walk assumed the value of `s`'s bounds or condition.
    fn assume(&mut self, s: &Stmt) {
        self.assumed_at.insert(s as *const Stmt as usize);
        self.out.assumed = self.assumed_at.len();
    }

    /// Whether `e` reads a variable whose value was assumed.
    fn uses_assumed(&self, e: &Expr) -> bool {
        let mut any = false;
        crate::ir::visit::for_each_var(e, &mut |v| any |= self.assumed_vars.contains(&v));
        any
    }

    fn eval_int(&self, e: &Expr) -> Option<i64> {
        self.eval(e).and_then(Val::int)
    }

    fn eval(&self, e: &Expr) -> Option<Val> {
        Some(match &e.kind {
            ExprKind::Var(v) => return self.env.get(v).copied(),
            ExprKind::ConstInt(i, _) => Val::Int(*i),
            ExprKind::ConstFloat(x, _) => Val::Float(*x),
            ExprKind::ConstBool(b) => Val::Int(*b as i64),
            ExprKind::Unary(op, a) => {
                let a = self.eval(a)?;
                match (op, a) {
                    (UnOp::Neg, Val::Int(i)) => Val::Int(i.checked_neg()?),
                    (UnOp::Neg, Val::Float(x)) => Val::Float(-x),
                    (UnOp::Abs, Val::Int(i)) => Val::Int(i.checked_abs()?),
                    (UnOp::Abs, Val::Float(x)) => Val::Float(x.abs()),
                    (UnOp::Not, v) => Val::Int(!v.truthy() as i64),
                    (UnOp::BitNot, Val::Int(i)) => Val::Int(!i),
                    (UnOp::Cast, v) => cast(v, e.ty.scalar_dtype()?),
                    _ => return None,
                }
            }
            ExprKind::Binary(op, a, b) => binary(*op, self.eval(a)?, self.eval(b)?)?,
            ExprKind::Call(call) => return self.tensor_dim(call),
            _ => return None,
        })
    }
}

impl Walker<'_> {
    /// `tensor.dim(t, axis)`: a static dimension, or for a runtime one (a symbolic `M`)
    /// [`Options::runtime_dim`], the extent Perf-Sim's harness gives every tensor argument.
    fn tensor_dim(&self, call: &crate::ir::Call) -> Option<Val> {
        let crate::ir::Callee::Op(op) = call.callee else { return None };
        if !matches!(crate::ops::def(op).cce, Some(crate::ops::cce::CceEmit::TensorDim)) {
            return None;
        }
        let Type::Tensor(t) = self.f.type_of(call.args.first()?) else { return None };
        let axis = call.args.get(1)?.as_const_int()?;
        let ax = if axis < 0 { axis + t.shape.len() as i64 } else { axis };
        let dim = t.shape.get(usize::try_from(ax).ok()?)?;
        Some(Val::Int(dim.as_const_int().unwrap_or(self.opts.runtime_dim)))
    }
}

fn cast(v: Val, to: DataType) -> Val {
    match (v, is_float(to)) {
        (Val::Int(i), true) => Val::Float(i as f64),
        (Val::Float(x), false) => Val::Int(x as i64),
        (v, _) => v,
    }
}

/// Python's `//` on integers (rounds towards negative infinity).
fn floor_div(x: i64, y: i64) -> Option<i64> {
    let q = x.checked_div(y)?;
    Some(if x % y != 0 && ((x < 0) != (y < 0)) { q - 1 } else { q })
}

fn binary(op: BinOp, a: Val, b: Val) -> Option<Val> {
    use BinOp::*;
    if let (Val::Int(x), Val::Int(y)) = (a, b) {
        let r = match op {
            Add => x.checked_add(y)?,
            Sub => x.checked_sub(y)?,
            Mul => x.checked_mul(y)?,
            FloorDiv => floor_div(x, y)?,
            FloorMod => x.checked_sub(floor_div(x, y)?.checked_mul(y)?)?,
            FloatDiv => return (y != 0).then(|| Val::Float(x as f64 / y as f64)),
            Min => x.min(y),
            Max => x.max(y),
            Pow => x.checked_pow(u32::try_from(y).ok()?)?,
            Eq => (x == y) as i64,
            Ne => (x != y) as i64,
            Lt => (x < y) as i64,
            Le => (x <= y) as i64,
            Gt => (x > y) as i64,
            Ge => (x >= y) as i64,
            And => (x != 0 && y != 0) as i64,
            Or => (x != 0 || y != 0) as i64,
            Xor => ((x != 0) ^ (y != 0)) as i64,
            BitAnd => x & y,
            BitOr => x | y,
            BitXor => x ^ y,
            Shl => x.checked_shl(u32::try_from(y).ok()?)?,
            Shr => x.checked_shr(u32::try_from(y).ok()?)?,
        };
        return Some(Val::Int(r));
    }
    let f = |v: Val| match v {
        Val::Int(i) => i as f64,
        Val::Float(x) => x,
    };
    let (x, y) = (f(a), f(b));
    let bool_ = |c: bool| Some(Val::Int(c as i64));
    match op {
        Add => Some(Val::Float(x + y)),
        Sub => Some(Val::Float(x - y)),
        Mul => Some(Val::Float(x * y)),
        FloatDiv => Some(Val::Float(x / y)),
        FloorDiv => Some(Val::Float((x / y).floor())),
        Min => Some(Val::Float(x.min(y))),
        Max => Some(Val::Float(x.max(y))),
        Eq => bool_(x == y),
        Ne => bool_(x != y),
        Lt => bool_(x < y),
        Le => bool_(x <= y),
        Gt => bool_(x > y),
        Ge => bool_(x >= y),
        _ => None,
    }
}
