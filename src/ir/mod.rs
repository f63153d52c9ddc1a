//! The PyPTO tile IR (spec `ir-and-syntax.md` §2).
//!
//! Expressions and statements are owned trees; variables live in one table per [`Function`]
//! ([`Function::vars`]) and are referred to by [`VarId`]. A variable's identity is its id, never
//! its name: two definitions of `x` are two variables. Spans are stored on nodes but take no part
//! in equality or hashing (see [`Span`]).

pub mod dtype;
pub mod equiv;
pub mod import;
pub mod visit;

pub use crate::diag::Span;
pub use dtype::*;

use std::sync::Arc;

/// Index of a variable in its function's [`VarTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

impl VarId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of an operator in the operator table ([`crate::ops`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u16);

// ---------------------------------------------------------------------------------------------
// Types

/// A value's type (§2.2). `PartialEq` is plain structural equality (dims compared as
/// expressions, spans ignored); type *inference* compares dims with [`dims_equal`] instead.
///
/// Tensor and tile types are shared (`Arc`): every expression and variable carries its type,
/// and most of them are copies of a few distinct types, so a copy is a reference-count increment
/// instead of a deep copy of shape expressions. Change one with [`Arc::make_mut`].
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Unknown,
    Scalar(DataType),
    Tensor(Arc<TensorType>),
    Tile(Arc<TileType>),
    Tuple(Vec<Type>),
    MemRef,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TensorType {
    pub dtype: DataType,
    pub shape: Vec<Expr>,
    /// The MemRef variable (a [`VarKind::MemRef`] var) holding this tensor, if assigned.
    pub memref: Option<VarId>,
    pub view: Option<TensorView>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TileType {
    pub dtype: DataType,
    pub shape: Vec<Expr>,
    pub memref: Option<VarId>,
    pub view: Option<TileView>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TensorView {
    pub stride: Vec<Expr>,
    pub layout: TensorLayout,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TileView {
    pub valid_shape: Vec<Expr>,
    pub stride: Vec<Expr>,
    /// `None` is the reference's null start offset (printed by old printers as
    /// `<unsupported IRNode type>`, omitted by ours).
    pub start_offset: Option<Box<Expr>>,
    pub blayout: TileLayout,
    pub slayout: TileLayout,
    pub fractal: u64,
    pub pad: TilePad,
}

impl Default for TileView {
    fn default() -> Self {
        TileView {
            valid_shape: Vec::new(),
            stride: Vec::new(),
            start_offset: None,
            blayout: TileLayout::RowMajor,
            slayout: TileLayout::NoneBox,
            fractal: 512,
            pad: TilePad::Null,
        }
    }
}

impl Type {
    pub fn tensor(t: TensorType) -> Type {
        Type::Tensor(Arc::new(t))
    }
    pub fn tile(t: TileType) -> Type {
        Type::Tile(Arc::new(t))
    }
    pub fn scalar_dtype(&self) -> Option<DataType> {
        match self {
            Type::Scalar(d) => Some(*d),
            _ => None,
        }
    }
    /// dtype of a scalar, tensor or tile.
    pub fn dtype(&self) -> Option<DataType> {
        match self {
            Type::Scalar(d) => Some(*d),
            Type::Tensor(t) => Some(t.dtype),
            Type::Tile(t) => Some(t.dtype),
            _ => None,
        }
    }
    /// Shape of a tensor or tile.
    pub fn shape(&self) -> Option<&[Expr]> {
        match self {
            Type::Tensor(t) => Some(&t.shape),
            Type::Tile(t) => Some(&t.shape),
            _ => None,
        }
    }
    pub fn memref(&self) -> Option<VarId> {
        match self {
            Type::Tensor(t) => t.memref,
            Type::Tile(t) => t.memref,
            _ => None,
        }
    }
    /// Short kind name used in messages: `Scalar`, `Tensor`, `Tile`, `Tuple`, `MemRef`, `Unknown`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Type::Unknown => "Unknown",
            Type::Scalar(_) => "Scalar",
            Type::Tensor(_) => "Tensor",
            Type::Tile(_) => "Tile",
            Type::Tuple(_) => "Tuple",
            Type::MemRef => "MemRef",
        }
    }
}

/// Dimension equality used by type inference (§2.2): the same variable, or constants with the
/// same value. Other symbolic expressions are never equal.
pub fn dims_equal(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
        (ExprKind::ConstInt(x, _), ExprKind::ConstInt(y, _)) => x == y,
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Expressions

/// An expression with its type (§2.1).
///
/// For a variable use (`ExprKind::Var`) the type lives in the variable table, so that a pass
/// that changes a variable's type (e.g. adds a MemRef) changes every use at once; `ty` is then
/// `Type::Unknown` and must not be read: use [`VarTable::type_of`].
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A use of a variable (plain, iter arg or MemRef).
    Var(VarId),
    ConstInt(i64, DataType),
    ConstFloat(f64, DataType),
    ConstBool(bool),
    Call(Box<Call>),
    /// A literal list `[a, b]` (shapes, offsets, …).
    MakeTuple(Vec<Expr>),
    TupleGetItem(Box<Expr>, usize),
    /// Binary node; its dtype is the one in `Expr::ty` (always a scalar type).
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Unary node; for `Cast` the target dtype is the one in `Expr::ty`.
    Unary(UnOp, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub callee: Callee,
    pub args: Vec<Expr>,
    /// Keyword attributes in stored (printed) order. The names are the operator table's
    /// (`ops::table`): binding refuses any other, so no call carries a name of its own.
    pub kwargs: Vec<(&'static str, KwValue)>,
}

/// What a call calls: a registered operator or a function of the program (a GlobalVar).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Callee {
    Op(OpId),
    Function(String),
}

impl Callee {
    /// The operator called, `None` for a function call.
    pub fn op(&self) -> Option<OpId> {
        match self {
            Callee::Op(op) => Some(*op),
            Callee::Function(_) => None,
        }
    }

    /// Whether this calls operator `op` (a typed id of `ops::id`).
    pub fn is_op(&self, op: OpId) -> bool {
        matches!(self, Callee::Op(o) if *o == op)
    }
}

/// A keyword attribute value (the reference's `std::any` kinds, §2.1). Pipe and core-type enum
/// values are stored as `Int`, as in the reference.
#[derive(Clone, Debug, PartialEq)]
pub enum KwValue {
    Int(i64),
    Bool(bool),
    Str(String),
    Float(f64),
    DType(DataType),
    Space(MemorySpace),
    /// A tile pad value (`pl.PadValue.zero`, printed `pl.TilePad.zero`).
    Pad(TilePad),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    FloorDiv,
    FloorMod,
    FloatDiv,
    Min,
    Max,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinOp {
    /// Printing precedence (§3.8); higher binds tighter.
    pub fn precedence(self) -> u8 {
        use BinOp::*;
        match self {
            Or => 1,
            Xor => 2,
            And => 3,
            Eq | Ne | Lt | Le | Gt | Ge => 5,
            BitOr => 6,
            BitXor => 7,
            BitAnd => 8,
            Shl | Shr => 9,
            Add | Sub => 10,
            Mul | FloatDiv | FloorDiv | FloorMod => 11,
            Pow => 13,
            Min | Max => 14,
        }
    }
    /// The infix spelling, or `None` for `min`/`max` (printed as calls).
    pub fn symbol(self) -> Option<&'static str> {
        use BinOp::*;
        Some(match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            FloorDiv => "//",
            FloorMod => "%",
            FloatDiv => "/",
            Pow => "**",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "and",
            Or => "or",
            Xor => "xor",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
            Min | Max => return None,
        })
    }
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
    }
    /// Reference node name (`Add`, `FloorDiv`, …), used in messages.
    pub fn node_name(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "Add",
            Sub => "Sub",
            Mul => "Mul",
            FloorDiv => "FloorDiv",
            FloorMod => "FloorMod",
            FloatDiv => "FloatDiv",
            Min => "Min",
            Max => "Max",
            Pow => "Pow",
            Eq => "Eq",
            Ne => "Ne",
            Lt => "Lt",
            Le => "Le",
            Gt => "Gt",
            Ge => "Ge",
            And => "And",
            Or => "Or",
            Xor => "Xor",
            BitAnd => "BitAnd",
            BitOr => "BitOr",
            BitXor => "BitXor",
            Shl => "BitShiftLeft",
            Shr => "BitShiftRight",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    BitNot,
    Not,
    Abs,
    Cast,
}

impl UnOp {
    pub fn precedence(self) -> u8 {
        match self {
            UnOp::Neg | UnOp::BitNot => 12,
            UnOp::Not => 4,
            UnOp::Abs | UnOp::Cast => 14,
        }
    }
    pub fn node_name(self) -> &'static str {
        match self {
            UnOp::Neg => "Neg",
            UnOp::BitNot => "BitNot",
            UnOp::Not => "Not",
            UnOp::Abs => "Abs",
            UnOp::Cast => "Cast",
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, ty: Type, span: Span) -> Expr {
        Expr { kind, ty, span }
    }
    /// A use of variable `id` (its type is the variable's, see [`Program::type_of`]).
    pub fn var(id: VarId, span: Span) -> Expr {
        Expr::new(ExprKind::Var(id), Type::Unknown, span)
    }
    /// An integer constant; INT64 is the default dtype of integer literals.
    pub fn int(v: i64, dtype: DataType, span: Span) -> Expr {
        Expr::new(ExprKind::ConstInt(v, dtype), Type::Scalar(dtype), span)
    }
    pub fn float(v: f64, dtype: DataType, span: Span) -> Expr {
        Expr::new(ExprKind::ConstFloat(v, dtype), Type::Scalar(dtype), span)
    }
    pub fn bool(v: bool, span: Span) -> Expr {
        Expr::new(ExprKind::ConstBool(v), Type::Scalar(DataType::Bool), span)
    }
    pub fn as_const_int(&self) -> Option<i64> {
        match self.kind {
            ExprKind::ConstInt(v, _) => Some(v),
            _ => None,
        }
    }
    pub fn as_var(&self) -> Option<VarId> {
        match self.kind {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }
    pub fn as_call(&self) -> Option<&Call> {
        match &self.kind {
            ExprKind::Call(c) => Some(c),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Variables

/// What the variable table knows about one variable.
#[derive(Clone, Debug)]
pub struct VarData {
    /// Printed name; not part of identity.
    pub name: String,
    pub ty: Type,
    pub kind: VarKind,
    /// Where it was defined (or first mentioned).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
///
/// The payloads are boxed: the variable table holds every variable a compilation ever made (passes
/// add versions and temporaries), most of them plain, so each entry stays small.
pub enum VarKind {
    Plain,
    /// A loop-carried value; `init` is its value on loop entry.
    IterArg {
        init: Box<Expr>,
    },
    /// A memory buffer (type [`Type::MemRef`]).
    MemRef(Box<MemRefInfo>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct MemRefInfo {
    pub space: MemorySpace,
    pub addr: Expr,
    pub size: u64,
    pub id: u64,
}

impl MemRefInfo {
    /// The derived variable name `mem_<space>_<id>`.
    pub fn derived_name(&self) -> String {
        // Built by hand: init-mem-ref names one MemRef per buffer, and `format!` with the
        // allocated `lower_name` cost more than the rest of the naming.
        let space = self.space.name();
        let mut name = String::with_capacity(4 + space.len() + 1 + 20);
        name.push_str("mem_");
        name.push_str(space);
        name[4..].make_ascii_lowercase();
        name.push('_');
        crate::text::push_u64(&mut name, self.id);
        name
    }
}

// ---------------------------------------------------------------------------------------------
// Statements

/// A statement (§2.4). A block with one statement is that statement; with 0 or ≥ 2 a `Seq`.
#[derive(Clone, Debug, PartialEq)]
///
/// The expressions of the control-flow statements are boxed so that every statement is as small
/// as an assignment (statements live in `Vec`s, one slot per statement whatever its variant).
pub enum Stmt {
    Assign {
        var: VarId,
        value: Expr,
        span: Span,
    },
    If {
        cond: Box<Expr>,
        then_body: Box<Stmt>,
        else_body: Option<Box<Stmt>>,
        return_vars: Vec<VarId>,
        span: Span,
    },
    For {
        loop_var: VarId,
        start: Box<Expr>,
        stop: Box<Expr>,
        step: Box<Expr>,
        iter_args: Vec<VarId>,
        body: Box<Stmt>,
        return_vars: Vec<VarId>,
        kind: ForKind,
        span: Span,
    },
    While {
        cond: Box<Expr>,
        iter_args: Vec<VarId>,
        body: Box<Stmt>,
        return_vars: Vec<VarId>,
        span: Span,
    },
    Scope {
        kind: ScopeKind,
        body: Box<Stmt>,
        span: Span,
    },
    Yield {
        values: Vec<Expr>,
        span: Span,
    },
    Return {
        values: Vec<Expr>,
        span: Span,
    },
    Eval {
        expr: Expr,
        span: Span,
    },
    Seq {
        stmts: Vec<Stmt>,
        span: Span,
    },
    /// A run of `Assign`/`Eval` statements; printed like `Seq`.
    Ops {
        stmts: Vec<Stmt>,
        span: Span,
    },
    Break {
        span: Span,
    },
    Continue {
        span: Span,
    },
}

impl Stmt {
    pub fn span(&self) -> Span {
        match self {
            Stmt::Assign { span, .. }
            | Stmt::If { span, .. }
            | Stmt::For { span, .. }
            | Stmt::While { span, .. }
            | Stmt::Scope { span, .. }
            | Stmt::Yield { span, .. }
            | Stmt::Return { span, .. }
            | Stmt::Eval { span, .. }
            | Stmt::Seq { span, .. }
            | Stmt::Ops { span, .. }
            | Stmt::Break { span }
            | Stmt::Continue { span } => *span,
        }
    }
    /// Builds a body from a list of statements with the builder's shape rule (§2.4).
    pub fn block(mut stmts: Vec<Stmt>, span: Span) -> Stmt {
        if stmts.len() == 1 {
            stmts.pop().unwrap()
        } else {
            Stmt::Seq { stmts, span }
        }
    }
    pub fn empty() -> Stmt {
        Stmt::Seq { stmts: Vec::new(), span: Span::NONE }
    }
    /// The values of the yield that ends this body (a loop body or a branch): the body itself,
    /// or the last statement of a `SeqStmts`/`OpStmts`/scope, recursively.
    pub fn final_yield(&self) -> Option<&[Expr]> {
        match self {
            Stmt::Yield { values, .. } => Some(values),
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.last().and_then(Stmt::final_yield),
            Stmt::Scope { body, .. } => body.final_yield(),
            _ => None,
        }
    }
    /// Reference node name (`AssignStmt`, `SeqStmts`, …).
    pub fn node_name(&self) -> &'static str {
        match self {
            Stmt::Assign { .. } => "AssignStmt",
            Stmt::If { .. } => "IfStmt",
            Stmt::For { .. } => "ForStmt",
            Stmt::While { .. } => "WhileStmt",
            Stmt::Scope { .. } => "ScopeStmt",
            Stmt::Yield { .. } => "YieldStmt",
            Stmt::Return { .. } => "ReturnStmt",
            Stmt::Eval { .. } => "EvalStmt",
            Stmt::Seq { .. } => "SeqStmts",
            Stmt::Ops { .. } => "OpStmts",
            Stmt::Break { .. } => "BreakStmt",
            Stmt::Continue { .. } => "ContinueStmt",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Functions and programs

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub var: VarId,
    pub direction: ParamDirection,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub kind: FunctionType,
    pub params: Vec<Param>,
    pub return_types: Vec<Type>,
    pub body: Stmt,
    pub span: Span,
    /// The function's own variables: every [`VarId`] in its parameters, body and types indexes
    /// this table, never another function's, so passes can rewrite functions on their own
    /// threads and a function's IR can be dropped once its C++ is written.
    pub vars: VarTable,
    /// How the kernel's loops run, when basic-memory-reuse chose it with the memory plan by
    /// the cycle model (`-O1`/`-O2`); `None`: as the level says. Not part of the text form.
    pub schedule: Option<Schedule>,
}

/// How a kernel's loops run at `-O1`/`-O2` (`passes::basic_memory_reuse::by_cycles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The copies pipeline-loops makes of the loops it picks on its own (`-O2`; 1: it picks
    /// none).
    pub stages: u8,
    /// insert-sync synchronises dependences across iterations by carried flags (`-O2`).
    pub carried_flags: bool,
}

impl Function {
    pub fn var(&self, id: VarId) -> &VarData {
        self.vars.var(id)
    }
    pub fn var_name(&self, id: VarId) -> &str {
        self.vars.var_name(id)
    }
    pub fn var_type(&self, id: VarId) -> &Type {
        self.vars.var_type(id)
    }
    /// The type of an expression of this function (see [`VarTable::type_of`]).
    pub fn type_of<'a>(&'a self, e: &'a Expr) -> &'a Type {
        self.vars.type_of(e)
    }
}

/// The variables of one function, indexed by [`VarId`].
#[derive(Clone, Debug, Default)]
pub struct VarTable {
    vars: Vec<VarData>,
}

impl VarTable {
    pub fn new() -> VarTable {
        VarTable::default()
    }
    pub fn var(&self, id: VarId) -> &VarData {
        &self.vars[id.index()]
    }
    /// The variable, or `None` for an id this table never gave out.
    pub fn get(&self, id: VarId) -> Option<&VarData> {
        self.vars.get(id.index())
    }
    pub fn var_mut(&mut self, id: VarId) -> &mut VarData {
        &mut self.vars[id.index()]
    }
    pub fn var_name(&self, id: VarId) -> &str {
        &self.vars[id.index()].name
    }
    pub fn var_type(&self, id: VarId) -> &Type {
        &self.vars[id.index()].ty
    }
    /// Adds a new variable and returns its id.
    pub fn new_var(&mut self, name: impl Into<String>, ty: Type, kind: VarKind, span: Span) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(VarData { name: name.into(), ty, kind, span });
        id
    }
    pub fn len(&self) -> usize {
        self.vars.len()
    }
    /// Makes room for `n` more variables.
    pub fn reserve(&mut self, n: usize) {
        self.vars.reserve(n);
    }
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }
    /// Every variable with its id, in creation order.
    pub fn iter(&self) -> impl Iterator<Item = (VarId, &VarData)> {
        self.vars.iter().enumerate().map(|(i, v)| (VarId(i as u32), v))
    }
    /// An id no MemRef of the table has yet (one past the largest), for a pass that makes
    /// buffers (ids are per function, spec §7 Q20).
    pub fn next_memref_id(&self) -> u64 {
        self.vars
            .iter()
            .filter_map(|d| match &d.kind {
                VarKind::MemRef(info) => Some(info.id + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }
    /// The type of an expression: the variable's type for a variable use, else `e.ty`.
    pub fn type_of<'a>(&'a self, e: &'a Expr) -> &'a Type {
        match e.kind {
            ExprKind::Var(v) => self.var_type(v),
            _ => &e.ty,
        }
    }
}

/// A program: functions (kept sorted by name, like the reference's map), each with its own
/// variables.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub name: String,
    pub functions: Vec<Function>,
}

impl Program {
    pub fn new(name: impl Into<String>) -> Program {
        Program { name: name.into(), functions: Vec::new() }
    }
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
    /// Adds a function, keeping the list sorted by name. Fails on a duplicate name.
    pub fn add_function(&mut self, f: Function) -> Result<(), Function> {
        match self.functions.binary_search_by(|g| g.name.as_str().cmp(&f.name)) {
            Ok(_) => Err(f),
            Err(pos) => {
                self.functions.insert(pos, f);
                Ok(())
            }
        }
    }
}

/// The name a variable had before SSA renaming (spec §4.9): a trailing `_iter_<digits>`, else
/// one trailing `_<digits>`, stripped (never down to an empty name).
pub fn base_name(name: &str) -> &str {
    fn strip_digits_suffix<'a>(s: &'a str, sep: &str) -> Option<&'a str> {
        let pos = s.rfind(sep)?;
        let digits = &s[pos + sep.len()..];
        let ok = pos > 0 && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        ok.then_some(&s[..pos])
    }
    strip_digits_suffix(name, "_iter_").or_else(|| strip_digits_suffix(name, "_")).unwrap_or(name)
}

#[cfg(test)]
mod size_tests {
    use std::mem::size_of;

    /// Statements and expressions are stored by value in `Vec`s and the variable table holds every
    /// variable ever made, so their sizes are the IR's memory footprint (docs/performance.md).
    #[test]
    fn ir_nodes_stay_small() {
        assert_eq!(size_of::<super::Stmt>(), 96, "Stmt");
        assert_eq!(size_of::<super::Expr>(), 64, "Expr");
        assert_eq!(size_of::<super::Type>(), 24, "Type");
        assert_eq!(size_of::<super::VarData>(), 72, "VarData");
    }
}
