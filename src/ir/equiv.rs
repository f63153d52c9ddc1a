//! Structural equality with alpha-renaming, and a hash consistent with it.
//!
//! Both are defined by one canonical token stream per function ([`Canon`]): the function is
//! walked in a fixed field order and every field that takes part in equality becomes a token.
//! A variable is written as its *first-sight index* within the function (0 for the first
//! variable met, 1 for the next new one, …), and at its first sight the stream also carries what
//! the variable is (plain / iter arg with its init value / MemRef with space, addr, size, id) and
//! its type. Names and spans never enter the stream; the program name neither.
//!
//! Two functions are equal iff their streams are equal. This is exactly the reference's
//! auto-mapping semantics: Def fields (and free variables, on first use) map a variable of `a`
//! to one of `b` the first time they meet, the mapping must stay a bijection, and later
//! occurrences must follow it. The hash is a hash of the same stream, so equal programs always
//! hash equal, and the hash depends on neither variable ids nor names.
//!
//! Floats compare by bit pattern (so NaN equals NaN and `0.0` differs from `-0.0`). `SeqStmts`
//! and `OpStmts` are different nodes, as in the reference.

use super::{Call, Callee, Expr, ExprKind, ForKind, Function, KwValue, Program, Stmt, Type, VarId, VarKind, VarTable};
use rustc_hash::FxHashMap as HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};

/// True when the two programs are equal up to the naming of variables: same functions (by
/// name), and bodies equal where each definition site in `a` is mapped to the corresponding
/// definition site in `b` (spec §2: Def fields). Spans and variable names are ignored.
pub fn programs_equal(a: &Program, b: &Program) -> bool {
    programs_diff(a, b).is_none()
}

/// `None` when [`programs_equal`], else a description of the first difference, with its path:
/// `function 'main': body.stmts[2].value.args[1]: ConstInt 3 vs ConstInt 4`.
pub fn programs_diff(a: &Program, b: &Program) -> Option<String> {
    first_difference(&record(|c| c.program(a)), &record(|c| c.program(b)))
}

/// Whether function `fa` equals function `fb` (names included), with
/// the same semantics as [`programs_equal`].
pub fn functions_equal(fa: &Function, fb: &Function) -> bool {
    functions_diff(fa, fb).is_none()
}

/// Like [`programs_diff`], for two functions.
pub fn functions_diff(fa: &Function, fb: &Function) -> Option<String> {
    first_difference(&record(|c| c.function(fa)), &record(|c| c.function(fb)))
}

/// Like [`programs_diff`], but blind to what the text cannot show: how statements are grouped
/// into `SeqStmts` and `OpStmts` (both print as plain statement lists, and a one-statement body
/// prints like a one-element sequence), the types stored on expressions (the text has the
/// variables' types; an expression's is deduced again when read), and the types of the return
/// vars of an if/for/while with several (`a, b = pl.yield_(x, y)` has no annotations). Used to check that printing
/// and re-reading a pass's output gives back that output.
pub fn programs_diff_as_text(a: &Program, b: &Program) -> Option<String> {
    let flat_a = record(|c| {
        c.as_text = true;
        c.program(a)
    });
    let flat_b = record(|c| {
        c.as_text = true;
        c.program(b)
    });
    first_difference(&flat_a, &flat_b)
}

/// A structural hash: programs that are [`programs_equal`] have the same hash. Stable across
/// runs and builds (no random state).
pub fn program_hash(p: &Program) -> u64 {
    let mut sink = HashSink(StableHasher::new());
    Canon::new(&mut sink).program(p);
    sink.0.finish()
}

/// The hash of one function, consistent with [`functions_equal`].
pub fn function_hash(f: &Function) -> u64 {
    let mut sink = HashSink(StableHasher::new());
    Canon::new(&mut sink).function(f);
    sink.0.finish()
}

// ---------------------------------------------------------------------------------------------
// The canonical stream

/// One token of the canonical stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Tok<'p> {
    /// A node kind, enum member or marker (`AssignStmt`, `FP32`, `none`, …).
    Tag(&'static str),
    /// A length, written before the elements of a list.
    Len(usize),
    Int(i64),
    U64(u64),
    Bool(bool),
    FloatBits(u64),
    Str(&'p str),
    /// The first sight of a variable: its index; its description follows.
    VarDef(u32),
    /// A later occurrence of the variable with this index.
    VarRef(u32),
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Tag(s) => write!(f, "{s}"),
            Tok::Len(n) => write!(f, "{n} element(s)"),
            Tok::Int(v) => write!(f, "{v}"),
            Tok::U64(v) => write!(f, "{v}"),
            Tok::Bool(v) => write!(f, "{v}"),
            Tok::FloatBits(b) => write!(f, "{}", f64::from_bits(*b)),
            Tok::Str(s) => write!(f, "'{s}'"),
            Tok::VarDef(i) => write!(f, "new variable #{i}"),
            Tok::VarRef(i) => write!(f, "variable #{i}"),
        }
    }
}

/// A step of the path to a token, for difference messages only (never compared or hashed).
#[derive(Clone, Copy, Debug)]
enum Seg<'p> {
    Function(&'p str),
    Field(&'static str),
    Elem(&'static str, usize),
    /// Inside the description of a variable seen for the first time.
    VarInfo(&'p str),
}

/// Where the stream goes: a hasher, or a recorder for comparison.
trait Sink<'p> {
    /// `name` is the variable name for `VarDef`/`VarRef` tokens, for messages only.
    fn tok(&mut self, t: Tok<'p>, name: Option<&'p str>);
    fn push(&mut self, s: Seg<'p>);
    fn pop(&mut self);
}

/// Writes the canonical stream of functions into a sink.
struct Canon<'s, 'p, S: Sink<'p>> {
    sink: &'s mut S,
    /// First-sight index of each variable met so far in the current function.
    index: HashMap<VarId, u32>,
    vars: Option<&'p VarTable>,
    /// Compare only what the text shows (see [`programs_diff_as_text`]): bodies as flat
    /// statement lists, and no derived expression types.
    as_text: bool,
    /// Set while writing return vars whose types the text does not show.
    hide_var_types: bool,
}

impl<'s, 'p, S: Sink<'p>> Canon<'s, 'p, S> {
    fn new(sink: &'s mut S) -> Self {
        Canon { sink, index: HashMap::default(), vars: None, as_text: false, hide_var_types: false }
    }

    fn tag(&mut self, t: &'static str) {
        self.sink.tok(Tok::Tag(t), None);
    }
    fn tok(&mut self, t: Tok<'p>) {
        self.sink.tok(t, None);
    }
    fn within(&mut self, seg: Seg<'p>, body: impl FnOnce(&mut Self)) {
        self.sink.push(seg);
        body(self);
        self.sink.pop();
    }

    fn program(&mut self, p: &'p Program) {
        self.tok(Tok::Len(p.functions.len()));
        for f in &p.functions {
            self.function(f);
        }
    }

    fn function(&mut self, f: &'p Function) {
        self.vars = Some(&f.vars);
        self.index.clear();
        self.within(Seg::Function(&f.name), |c| {
            c.tok(Tok::Str(&f.name));
            c.tag(f.kind.name());
            c.tok(Tok::Len(f.params.len()));
            for (i, param) in f.params.iter().enumerate() {
                c.within(Seg::Elem("params", i), |c| {
                    c.tag(param.direction.name());
                    c.var(param.var);
                });
            }
            c.tok(Tok::Len(f.return_types.len()));
            for (i, t) in f.return_types.iter().enumerate() {
                c.within(Seg::Elem("return_types", i), |c| c.ty(t));
            }
            c.within(Seg::Field("body"), |c| c.block(&f.body));
        });
    }

    /// An occurrence of a variable: its index, and at first sight its kind and type.
    fn var(&mut self, v: VarId) {
        let Some(data) = self.vars.and_then(|t| t.get(v)) else {
            // A dangling id (malformed IR) compares by id, so it equals only itself.
            self.tag("dangling variable");
            self.tok(Tok::U64(u64::from(v.0)));
            return;
        };
        if let Some(&i) = self.index.get(&v) {
            self.sink.tok(Tok::VarRef(i), Some(&data.name));
            return;
        }
        let i = u32::try_from(self.index.len()).unwrap_or(u32::MAX);
        self.index.insert(v, i);
        self.sink.tok(Tok::VarDef(i), Some(&data.name));
        self.within(Seg::VarInfo(&data.name), |c| {
            match &data.kind {
                VarKind::Plain => c.tag("Var"),
                VarKind::IterArg { init } => {
                    c.tag("IterArg");
                    c.within(Seg::Field("initValue"), |c| c.expr(init));
                }
                VarKind::MemRef(m) => {
                    c.tag("MemRef");
                    c.tag(m.space.name());
                    c.within(Seg::Field("addr"), |c| c.expr(&m.addr));
                    c.tok(Tok::U64(m.size));
                    c.tok(Tok::U64(m.id));
                }
            }
            if !c.hide_var_types {
                c.within(Seg::Field("type"), |c| c.ty(&data.ty));
            }
        });
    }

    /// The return vars of an if/for/while. Several of them print as `a, b = pl.yield_(…)`,
    /// without types, so in text mode their types are not compared.
    fn return_vars(&mut self, vs: &[VarId]) {
        self.hide_var_types = self.as_text && vs.len() >= 2;
        self.vars("return_vars", vs);
        self.hide_var_types = false;
    }

    fn vars(&mut self, what: &'static str, vs: &[VarId]) {
        self.tok(Tok::Len(vs.len()));
        for (i, &v) in vs.iter().enumerate() {
            self.within(Seg::Elem(what, i), |c| c.var(v));
        }
    }

    fn exprs(&mut self, what: &'static str, es: &'p [Expr]) {
        self.tok(Tok::Len(es.len()));
        for (i, e) in es.iter().enumerate() {
            self.within(Seg::Elem(what, i), |c| c.expr(e));
        }
    }

    fn opt_expr(&mut self, what: &'static str, e: Option<&'p Expr>) {
        match e {
            None => self.tag("none"),
            Some(e) => self.within(Seg::Field(what), |c| c.expr(e)),
        }
    }

    fn ty(&mut self, t: &'p Type) {
        match t {
            Type::Unknown => self.tag("UnknownType"),
            Type::MemRef => self.tag("MemRefType"),
            Type::Scalar(d) => {
                self.tag("ScalarType");
                self.tag(d.name());
            }
            Type::Tensor(t) => {
                self.shaped("TensorType", t.dtype, &t.shape, t.memref);
                match &t.view {
                    None => self.tag("none"),
                    Some(v) => {
                        self.tag("TensorView");
                        self.exprs("stride", &v.stride);
                        self.tag(v.layout.name());
                    }
                }
            }
            Type::Tile(t) => {
                self.shaped("TileType", t.dtype, &t.shape, t.memref);
                match &t.view {
                    None => self.tag("none"),
                    Some(v) => {
                        self.tag("TileView");
                        self.exprs("valid_shape", &v.valid_shape);
                        self.exprs("stride", &v.stride);
                        self.opt_expr("start_offset", v.start_offset.as_deref());
                        self.tag(v.blayout.name());
                        self.tag(v.slayout.name());
                        self.tok(Tok::U64(v.fractal));
                        self.tag(v.pad.name());
                    }
                }
            }
            Type::Tuple(ts) => {
                self.tag("TupleType");
                self.tok(Tok::Len(ts.len()));
                for (i, t) in ts.iter().enumerate() {
                    self.within(Seg::Elem("types", i), |c| c.ty(t));
                }
            }
        }
    }

    /// What Tensor and Tile types share: kind, dtype, shape and MemRef.
    fn shaped(&mut self, kind: &'static str, dtype: crate::ir::DataType, shape: &'p [Expr], memref: Option<VarId>) {
        self.tag(kind);
        self.tag(dtype.name());
        self.exprs("shape", shape);
        self.memref(memref);
    }

    fn memref(&mut self, m: Option<VarId>) {
        match m {
            None => self.tag("none"),
            Some(v) => self.within(Seg::Field("memref"), |c| c.var(v)),
        }
    }

    fn expr(&mut self, e: &'p Expr) {
        match &e.kind {
            // A variable use's type is the variable's (compared at its first sight); `e.ty`
            // is not meaningful here.
            ExprKind::Var(v) => {
                self.tag("Var");
                self.var(*v);
                return;
            }
            ExprKind::ConstInt(v, d) => {
                self.tag("ConstInt");
                self.tok(Tok::Int(*v));
                self.tag(d.name());
            }
            ExprKind::ConstFloat(v, d) => {
                self.tag("ConstFloat");
                self.tok(Tok::FloatBits(v.to_bits()));
                self.tag(d.name());
            }
            ExprKind::ConstBool(v) => {
                self.tag("ConstBool");
                self.tok(Tok::Bool(*v));
            }
            ExprKind::Call(call) => self.call(call),
            ExprKind::MakeTuple(items) => {
                self.tag("MakeTuple");
                self.exprs("elements", items);
            }
            ExprKind::TupleGetItem(t, i) => {
                self.tag("TupleGetItemExpr");
                self.within(Seg::Field("tuple"), |c| c.expr(t));
                self.tok(Tok::U64(*i as u64));
            }
            ExprKind::Binary(op, l, r) => {
                self.tag(op.node_name());
                self.within(Seg::Field("left"), |c| c.expr(l));
                self.within(Seg::Field("right"), |c| c.expr(r));
            }
            ExprKind::Unary(op, x) => {
                self.tag(op.node_name());
                self.within(Seg::Field("operand"), |c| c.expr(x));
            }
        }
        // The text writes no expression types, only a cast's target (`pl.cast(x, pl.D)`); the
        // others are deduced again when it is read, possibly more precisely than a pass kept
        // them (a store's result type after its output tensor got a MemRef).
        if !self.as_text || matches!(e.kind, ExprKind::Unary(crate::ir::UnOp::Cast, _)) {
            self.within(Seg::Field("type"), |c| c.ty(&e.ty));
        }
    }

    fn call(&mut self, call: &'p Call) {
        self.tag("Call");
        match &call.callee {
            Callee::Op(op) => {
                self.tag("Op");
                self.tok(Tok::U64(u64::from(op.0)));
            }
            Callee::Function(name) => {
                self.tag("GlobalVar");
                self.tok(Tok::Str(name));
            }
        }
        self.exprs("args", &call.args);
        self.tok(Tok::Len(call.kwargs.len()));
        for (i, (key, value)) in call.kwargs.iter().enumerate() {
            self.within(Seg::Elem("kwargs", i), |c| {
                c.tok(Tok::Str(key));
                match value {
                    KwValue::Int(v) => c.tok(Tok::Int(*v)),
                    KwValue::Bool(v) => c.tok(Tok::Bool(*v)),
                    KwValue::Str(s) => {
                        c.tag("str");
                        c.tok(Tok::Str(s));
                    }
                    KwValue::Float(v) => c.tok(Tok::FloatBits(v.to_bits())),
                    KwValue::DType(d) => {
                        c.tag("DataType");
                        c.tag(d.name());
                    }
                    KwValue::Space(s) => {
                        c.tag("MemorySpace");
                        c.tag(s.name());
                    }
                    KwValue::Pad(p) => {
                        c.tag("TilePad");
                        c.tag(p.name());
                    }
                }
            });
        }
    }

    /// A body. With `as_text`, any nesting of sequences is one flat statement list.
    fn block(&mut self, s: &'p Stmt) {
        if !self.as_text {
            return self.stmt(s);
        }
        fn flatten<'p>(s: &'p Stmt, out: &mut Vec<&'p Stmt>) {
            match s {
                Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|t| flatten(t, out)),
                _ => out.push(s),
            }
        }
        let mut stmts = Vec::new();
        flatten(s, &mut stmts);
        self.tag("Block");
        self.tok(Tok::Len(stmts.len()));
        for (i, st) in stmts.into_iter().enumerate() {
            self.within(Seg::Elem("stmts", i), |c| c.stmt(st));
        }
    }

    fn stmt(&mut self, s: &'p Stmt) {
        self.tag(s.node_name());
        match s {
            Stmt::Assign { var, value, .. } => {
                self.within(Seg::Field("var"), |c| c.var(*var));
                self.within(Seg::Field("value"), |c| c.expr(value));
            }
            Stmt::If { cond, then_body, else_body, return_vars, .. } => {
                self.within(Seg::Field("condition"), |c| c.expr(cond));
                self.within(Seg::Field("then"), |c| c.block(then_body));
                match else_body {
                    None => self.tag("none"),
                    Some(e) => self.within(Seg::Field("else"), |c| c.block(e)),
                }
                self.return_vars(return_vars);
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, .. } => {
                self.tag(kind.name());
                if let ForKind::Pipeline(n) = kind {
                    self.tok(Tok::U64(u64::from(*n)));
                }
                self.within(Seg::Field("loop_var"), |c| c.var(*loop_var));
                self.within(Seg::Field("start"), |c| c.expr(start));
                self.within(Seg::Field("stop"), |c| c.expr(stop));
                self.within(Seg::Field("step"), |c| c.expr(step));
                self.vars("iter_args", iter_args);
                self.within(Seg::Field("body"), |c| c.block(body));
                self.return_vars(return_vars);
            }
            Stmt::While { cond, iter_args, body, return_vars, .. } => {
                self.within(Seg::Field("condition"), |c| c.expr(cond));
                self.vars("iter_args", iter_args);
                self.within(Seg::Field("body"), |c| c.block(body));
                self.return_vars(return_vars);
            }
            Stmt::Scope { kind, body, .. } => {
                self.tag(kind.name());
                self.within(Seg::Field("body"), |c| c.block(body));
            }
            Stmt::Yield { values, .. } | Stmt::Return { values, .. } => self.exprs("values", values),
            Stmt::Eval { expr, .. } => self.within(Seg::Field("expr"), |c| c.expr(expr)),
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                self.tok(Tok::Len(stmts.len()));
                for (i, st) in stmts.iter().enumerate() {
                    self.within(Seg::Elem("stmts", i), |c| c.stmt(st));
                }
            }
            Stmt::Break { .. } | Stmt::Continue { .. } => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sinks

/// Feeds tokens to a hasher; paths are ignored.
struct HashSink(StableHasher);

impl<'p> Sink<'p> for HashSink {
    fn tok(&mut self, t: Tok<'p>, _name: Option<&'p str>) {
        t.hash(&mut self.0);
    }
    fn push(&mut self, _: Seg<'p>) {}
    fn pop(&mut self) {}
}

/// FNV-1a with a final avalanche step: deterministic, unlike `std`'s randomly keyed hasher.
struct StableHasher(u64);

impl StableHasher {
    fn new() -> Self {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for StableHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn finish(&self) -> u64 {
        // splitmix64 finaliser, so that nearby streams give unrelated hashes.
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

enum Event<'p> {
    Tok(Tok<'p>, Option<&'p str>),
    Push(Seg<'p>),
    Pop,
}

/// Records the stream with its path events, for [`first_difference`].
#[derive(Default)]
struct Recorder<'p>(Vec<Event<'p>>);

impl<'p> Sink<'p> for Recorder<'p> {
    fn tok(&mut self, t: Tok<'p>, name: Option<&'p str>) {
        self.0.push(Event::Tok(t, name));
    }
    fn push(&mut self, s: Seg<'p>) {
        self.0.push(Event::Push(s));
    }
    fn pop(&mut self) {
        self.0.push(Event::Pop);
    }
}

fn record<'p>(emit: impl FnOnce(&mut Canon<'_, 'p, Recorder<'p>>)) -> Vec<Event<'p>> {
    let mut rec = Recorder::default();
    emit(&mut Canon::new(&mut rec));
    rec.0
}

/// Compares the tokens of two recorded streams (path events are not compared: they carry
/// names) and describes the first mismatch at `a`'s path.
fn first_difference(a: &[Event<'_>], b: &[Event<'_>]) -> Option<String> {
    let mut path: Vec<Seg<'_>> = Vec::new();
    let mut b_toks = b.iter().filter_map(|e| match e {
        Event::Tok(t, n) => Some((*t, *n)),
        _ => None,
    });
    for ev in a {
        let (ta, na) = match ev {
            Event::Push(s) => {
                path.push(*s);
                continue;
            }
            Event::Pop => {
                path.pop();
                continue;
            }
            Event::Tok(t, n) => (*t, *n),
        };
        match b_toks.next() {
            Some((tb, _)) if tb == ta => {}
            Some((tb, nb)) => {
                return Some(format!("{}: {} vs {}", render_path(&path), describe(ta, na), describe(tb, nb)))
            }
            None => return Some(format!("{}: {} vs end of program", render_path(&path), describe(ta, na))),
        }
    }
    b_toks.next().map(|(tb, nb)| format!("{}: end of program vs {}", render_path(&path), describe(tb, nb)))
}

fn describe(t: Tok<'_>, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("{t} ('{n}')"),
        None => t.to_string(),
    }
}

fn render_path(path: &[Seg<'_>]) -> String {
    let mut out = String::new();
    for seg in path {
        if let Seg::Function(name) = seg {
            out.push_str(&format!("function '{name}':"));
            continue;
        }
        out.push(if out.is_empty() || out.ends_with(':') { ' ' } else { '.' });
        match seg {
            Seg::Field(f) => out.push_str(f),
            Seg::Elem(f, i) => out.push_str(&format!("{f}[{i}]")),
            Seg::VarInfo(n) => out.push_str(&format!("<var '{n}'>")),
            Seg::Function(_) => {}
        }
    }
    let out = out.trim().trim_end_matches(':');
    if out.is_empty() {
        "program".to_string()
    } else {
        out.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::*;

    fn i64t() -> Type {
        Type::Scalar(DataType::Int64)
    }
    fn int(v: i64) -> Expr {
        Expr::int(v, DataType::Int64, Span::NONE)
    }
    fn v(id: VarId) -> Expr {
        Expr::var(id, Span::NONE)
    }
    fn add(l: Expr, r: Expr) -> Expr {
        Expr::new(ExprKind::Binary(BinOp::Add, Box::new(l), Box::new(r)), i64t(), Span::NONE)
    }
    fn op_call(args: Vec<Expr>) -> Expr {
        let c = Call { callee: Callee::Op(OpId(0)), args, kwargs: Vec::new() };
        Expr::new(ExprKind::Call(Box::new(c)), i64t(), Span::NONE)
    }
    fn assign(var: VarId, value: Expr) -> Stmt {
        Stmt::Assign { var, value, span: Span::NONE }
    }
    fn ret(values: Vec<Expr>) -> Stmt {
        Stmt::Return { values, span: Span::NONE }
    }
    fn plain(p: &mut VarTable, name: &str, ty: Type) -> VarId {
        p.new_var(name, ty, VarKind::Plain, Span::NONE)
    }
    fn func(name: &str, params: Vec<VarId>, body: Vec<Stmt>) -> Function {
        Function {
            name: name.into(),
            kind: FunctionType::Opaque,
            params: params.into_iter().map(|var| Param { var, direction: ParamDirection::In }).collect(),
            return_types: vec![i64t()],
            body: Stmt::block(body, Span::NONE),
            span: Span::NONE,
            vars: VarTable::new(),
            schedule: None,
        }
    }
    fn program(f: Function, vars: VarTable) -> Program {
        let mut p = Program::new("p");
        p.add_function(Function { vars, ..f }).expect("unique");
        p
    }
    fn assert_equal(a: &Program, b: &Program) {
        assert_eq!(programs_diff(a, b), None);
        assert_eq!(programs_diff(b, a), None);
        assert_eq!(program_hash(a), program_hash(b));
    }
    fn assert_different(a: &Program, b: &Program) -> String {
        assert!(!programs_equal(a, b));
        assert!(!programs_equal(b, a));
        assert_ne!(program_hash(a), program_hash(b));
        programs_diff(a, b).expect("a difference")
    }

    /// `f(p, q): x = p + 1; y = op(x, q); return y`, with variables created in the given
    /// order of names (so ids differ between builds).
    fn sample(names: [&str; 4], reverse_ids: bool, name: &str) -> Program {
        let mut p = VarTable::new();
        // Unrelated variables shift the ids.
        if reverse_ids {
            plain(&mut p, "junk", Type::Unknown);
        }
        let order: Vec<usize> = if reverse_ids { vec![3, 2, 1, 0] } else { vec![0, 1, 2, 3] };
        let mut slots = [VarId(0); 4];
        for &i in &order {
            slots[i] = plain(&mut p, names[i], i64t());
        }
        let [pp, q, x, y] = slots;
        let f = func(
            "f",
            vec![pp, q],
            vec![assign(x, add(v(pp), int(1))), assign(y, op_call(vec![v(x), v(q)])), ret(vec![v(y)])],
        );
        let mut prog = program(f, p);
        prog.name = name.into();
        prog
    }

    #[test]
    fn renamed_and_renumbered_programs_are_equal() {
        let a = sample(["p", "q", "x", "y"], false, "prog_a");
        let b = sample(["a", "b", "c", "d"], true, "prog_b");
        assert_equal(&a, &b);
        let f = &a.functions[0];
        assert!(functions_equal(f, &b.functions[0]));
        assert_eq!(function_hash(f), function_hash(&b.functions[0]));
    }

    #[test]
    fn swapping_two_uses_is_a_difference() {
        let a = sample(["p", "q", "x", "y"], false, "prog");
        let mut b = a.clone();
        let Stmt::Seq { stmts, .. } = &mut b.functions[0].body else { panic!("seq body") };
        let Stmt::Assign { value, .. } = &mut stmts[1] else { panic!("assign") };
        let ExprKind::Call(c) = &mut value.kind else { panic!("call") };
        c.args.swap(0, 1);
        let diff = assert_different(&a, &b);
        assert_eq!(diff, "function 'f': body.stmts[1].value.args[0]: variable #2 ('x') vs variable #1 ('q')");
    }

    #[test]
    fn two_variables_of_a_cannot_map_to_one_of_b() {
        // a: x1 = 1; x2 = 2; return x1 + x2      b: x = 1; x = 2; return x + x
        let mut a = VarTable::new();
        let x1 = plain(&mut a, "x1", i64t());
        let x2 = plain(&mut a, "x2", i64t());
        let a =
            program(func("f", vec![], vec![assign(x1, int(1)), assign(x2, int(2)), ret(vec![add(v(x1), v(x2))])]), a);
        let mut b = VarTable::new();
        let x = plain(&mut b, "x", i64t());
        let b = program(func("f", vec![], vec![assign(x, int(1)), assign(x, int(2)), ret(vec![add(v(x), v(x))])]), b);
        let diff = assert_different(&a, &b);
        assert!(
            diff.starts_with("function 'f': body.stmts[1].var: new variable #1 ('x2') vs variable #0 ('x')"),
            "{diff}"
        );
    }

    #[test]
    fn variable_types_and_constants_are_compared() {
        let a = sample(["p", "q", "x", "y"], false, "prog");
        let mut b = a.clone();
        b.functions[0].vars.var_mut(VarId(2)).ty = Type::Scalar(DataType::Int32);
        let diff = assert_different(&a, &b);
        assert!(diff.contains("<var 'x'>.type: INT64 vs INT32"), "{diff}");
        let mut c = a.clone();
        let Stmt::Seq { stmts, .. } = &mut c.functions[0].body else { panic!("seq body") };
        stmts[0] = assign(VarId(2), add(v(VarId(0)), int(2)));
        let diff = assert_different(&a, &c);
        assert_eq!(diff, "function 'f': body.stmts[0].value.right: 1 vs 2");
    }

    #[test]
    fn names_spans_and_program_name_are_ignored_but_function_names_are_not() {
        let a = sample(["p", "q", "x", "y"], false, "one");
        let mut b = sample(["p", "q", "x", "y"], false, "two");
        b.functions[0].vars.var_mut(VarId(0)).span = Span::new(5, 6);
        assert_equal(&a, &b);
        let mut c = a.clone();
        c.functions[0].name = "g".into();
        assert!(assert_different(&a, &c).contains("'f' vs 'g'"));
    }

    #[test]
    fn dims_of_types_follow_the_mapping() {
        // a: f(n, t: Tensor[[n]], u: Tensor[[n]])   b: f(n, t: Tensor[[n]], u: Tensor[[m]]) with m free
        let build = |shared: bool| {
            let mut p = VarTable::new();
            let n = plain(&mut p, "n", i64t());
            let m = if shared { n } else { plain(&mut p, "n", i64t()) };
            let ty = |d: VarId| {
                Type::tensor(TensorType { dtype: DataType::Fp32, shape: vec![v(d)], memref: None, view: None })
            };
            let t = plain(&mut p, "t", ty(n));
            let u = plain(&mut p, "u", ty(m));
            program(func("f", vec![n, t, u], vec![ret(vec![])]), p)
        };
        let diff = assert_different(&build(true), &build(false));
        assert!(diff.contains("params[2]"), "{diff}");
        assert_equal(&build(false), &build(false));
    }

    #[test]
    fn memrefs_are_mapped_bijectively_and_their_infos_compared() {
        let build = |shared: bool, size: u64| {
            let mut p = VarTable::new();
            let mem = |p: &mut VarTable, id| {
                let info = MemRefInfo { space: MemorySpace::Vec, addr: int(0), size, id };
                p.new_var(info.derived_name(), Type::MemRef, VarKind::MemRef(Box::new(info)), Span::NONE)
            };
            let m0 = mem(&mut p, 0);
            let m1 = if shared { m0 } else { mem(&mut p, 1) };
            let tile =
                |m| Type::tile(TileType { dtype: DataType::Fp32, shape: vec![int(16)], memref: Some(m), view: None });
            let t = plain(&mut p, "t", tile(m0));
            let u = plain(&mut p, "u", tile(m1));
            program(func("f", vec![t, u], vec![ret(vec![])]), p)
        };
        assert_equal(&build(false, 64), &build(false, 64));
        assert_different(&build(true, 64), &build(false, 64));
        let diff = assert_different(&build(false, 64), &build(false, 128));
        assert!(diff.contains("memref") && diff.contains("64 vs 128"), "{diff}");
    }

    #[test]
    fn iter_arg_init_values_are_compared() {
        let build = |init: i64| {
            let mut p = VarTable::new();
            let i = plain(&mut p, "i", i64t());
            let acc = p.new_var("acc", i64t(), VarKind::IterArg { init: Box::new(int(init)) }, Span::NONE);
            let r = plain(&mut p, "r", i64t());
            let body = Stmt::For {
                loop_var: i,
                start: Box::new(int(0)),
                stop: Box::new(int(4)),
                step: Box::new(int(1)),
                iter_args: vec![acc],
                body: Box::new(Stmt::Yield { values: vec![v(acc)], span: Span::NONE }),
                return_vars: vec![r],
                kind: ForKind::Sequential,
                span: Span::NONE,
            };
            program(func("f", vec![], vec![body, ret(vec![v(r)])]), p)
        };
        assert_equal(&build(0), &build(0));
        let diff = assert_different(&build(0), &build(7));
        assert!(diff.contains("iter_args[0].<var 'acc'>.initValue: 0 vs 7"), "{diff}");
    }

    #[test]
    fn floats_compare_by_bits() {
        let build = |x: f64| {
            let mut p = VarTable::new();
            let r = plain(&mut p, "r", Type::Scalar(DataType::Fp32));
            program(func("f", vec![], vec![assign(r, Expr::float(x, DataType::Fp32, Span::NONE))]), p)
        };
        assert_equal(&build(f64::NAN), &build(f64::NAN));
        assert_different(&build(0.0), &build(-0.0));
    }

    #[test]
    fn seq_and_ops_are_different_nodes() {
        let mut vars = VarTable::new();
        let x = plain(&mut vars, "x", i64t());
        let mut f = func("f", vec![], vec![]);
        f.body = Stmt::Seq { stmts: vec![assign(x, int(1))], span: Span::NONE };
        let mut g = f.clone();
        g.body = Stmt::Ops { stmts: vec![assign(x, int(1))], span: Span::NONE };
        let a = program(f, vars.clone());
        let b = program(g, vars);
        assert_eq!(assert_different(&a, &b), "function 'f': body: SeqStmts vs OpStmts");
    }

    #[test]
    fn different_function_sets_differ() {
        let a = sample(["p", "q", "x", "y"], false, "prog");
        let mut b = a.clone();
        b.add_function(func("g", vec![], vec![])).unwrap();
        assert_eq!(assert_different(&a, &b), "program: 1 element(s) vs 2 element(s)");
    }

    #[test]
    fn text_level_equality_ignores_sequence_grouping_only() {
        let a = sample(["p", "q", "x", "y"], false, "f");
        let mut b = a.clone();
        let Stmt::Seq { stmts, .. } = &mut b.functions[0].body else { panic!("seq body") };
        // Group the first two statements into an OpStmts, as NormalizeStmtStructure would.
        let first: Vec<Stmt> = stmts.drain(..2).collect();
        stmts.insert(0, Stmt::Ops { stmts: first, span: Span::NONE });
        assert!(programs_diff(&a, &b).is_some(), "the IR differs");
        assert_eq!(programs_diff_as_text(&a, &b), None, "the text does not");
        let mut c = a.clone();
        let Stmt::Seq { stmts, .. } = &mut c.functions[0].body else { panic!("seq body") };
        stmts.swap(0, 1);
        assert!(programs_diff_as_text(&a, &c).is_some(), "order still matters");
    }
}
