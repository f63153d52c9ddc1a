//! Syntax tree of a `.pto` file, as the parser produces it: no names resolved, no types
//! checked. Types are ordinary expressions here (`pl.Tensor[[64], pl.FP32]` is a subscript of an
//! attribute); lowering ([`crate::lower`]) gives them meaning.

use crate::diag::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole file.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// `# pypto.program: NAME` header comment, if present.
    pub header: Option<Ident>,
    /// The import lines (`import pypto.language as pl`, `from pypto import language as P`).
    pub imports: Vec<Import>,
    /// The top-level items in order.
    pub items: Vec<Item>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// Dotted module path (`pypto.language`), or for `from A import B`, `A.B`.
    pub module: Vec<Ident>,
    /// Name the module is bound to (`pl`); `None` for a bare `import pypto`.
    pub alias: Option<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `@pl.program` (decorators) `class NAME:` with methods.
    Class(ClassDef),
    /// A standalone `@pl.function` `def` (standalone-function form).
    Function(FuncDef),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    pub decorators: Vec<Expr>,
    pub name: Ident,
    /// Base classes in `class X(Base):` (accepted, ignored).
    pub bases: Vec<Arg>,
    pub body: Vec<ClassStmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ClassStmt {
    Function(FuncDef),
    /// Any other statement in a class body (docstring, `pass`, …).
    Other(Stmt),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDef {
    /// Decorator expressions, e.g. `pl.function` or `pl.function(type=pl.FunctionType.InCore)`.
    pub decorators: Vec<Expr>,
    pub name: Ident,
    pub params: Vec<ParamDef>,
    /// The `-> T` annotation.
    pub returns: Option<Expr>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamDef {
    pub name: Ident,
    pub annotation: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `x: T = e`, `x = e`, `a, b = e`, `(a, b) = e`. `targets` has one element for a plain
    /// target; `tuple_target` is true for the unpacking forms (even with one name: `a, = e`).
    Assign { targets: Vec<Ident>, tuple_target: bool, annotation: Option<Expr>, value: Expr },
    /// `x: T` without a value (rejected by lowering).
    AnnOnly { target: Ident, annotation: Expr },
    /// An expression statement.
    Expr(Expr),
    Return(Vec<Expr>),
    /// `if` / `elif` / `else`; an `elif` arrives as an `If` alone in `else_body`.
    If { cond: Expr, then_body: Vec<Stmt>, else_body: Option<Vec<Stmt>> },
    /// `for TARGET in ITER:`.
    For { target: ForTarget, iter: Expr, body: Vec<Stmt> },
    While { cond: Expr, body: Vec<Stmt> },
    /// `with ITEM [as NAME]:`.
    With { item: Expr, as_name: Option<Ident>, body: Vec<Stmt> },
    Break,
    Continue,
    Pass,
}

/// Loop targets: `i`, `i, (a, b)`, `(a, b)` (the last for `pl.while_`).
#[derive(Clone, Debug, PartialEq)]
pub struct ForTarget {
    pub var: Option<Ident>,
    pub tuple: Option<Vec<Ident>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// Height of the tree: 1 for a leaf. Set by [`Expr::new`] from the children, so the parser
    /// can bound it ([`crate::parser::MAX_EXPR_DEPTH`]) without walking the tree.
    depth: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(String),
    /// An unsigned integer literal (a leading `-` is a `Unary(Neg)` around it).
    Int(u64),
    /// A float literal, with its source text for exact messages.
    Float(f64),
    /// A single- or double-quoted string (no escapes are interpreted).
    Str(String),
    /// `True` / `False`.
    Bool(bool),
    None,
    /// `a.b`.
    Attr(Box<Expr>, Ident),
    Call(Box<Expr>, Vec<Arg>),
    /// `a[items]`; subscripts of types may contain keyword items (`memref=…`).
    Subscript(Box<Expr>, Vec<Arg>),
    List(Vec<Expr>),
    /// A parenthesized tuple `(a, b)` / `(a,)` / `()`.
    Tuple(Vec<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    /// `<unsupported IRNode type>`, the old printer's text for a null expression.
    Unsupported,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Positional(Expr),
    Keyword(Ident, Expr),
}

impl Arg {
    pub fn span(&self) -> Span {
        match self {
            Arg::Positional(e) => e.span,
            Arg::Keyword(k, e) => k.span.to(e.span),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Or,
    Xor,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitOr,
    BitXor,
    BitAnd,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Pos,
    Invert,
    Not,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        let arg = |a: &Arg| match a {
            Arg::Positional(e) | Arg::Keyword(_, e) => e.depth,
        };
        let below = match &kind {
            ExprKind::Attr(e, _) | ExprKind::Unary(_, e) => e.depth,
            ExprKind::Call(f, args) | ExprKind::Subscript(f, args) => args.iter().map(arg).fold(f.depth, u32::max),
            ExprKind::List(items) | ExprKind::Tuple(items) => items.iter().map(|e| e.depth).max().unwrap_or(0),
            ExprKind::Binary(_, a, b) => a.depth.max(b.depth),
            ExprKind::Name(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::None
            | ExprKind::Unsupported => 0,
        };
        Expr { kind, span, depth: below.saturating_add(1) }
    }
    /// Height of the expression tree (1 for a name or literal).
    pub fn depth(&self) -> u32 {
        self.depth
    }
    /// The dotted path of a name/attribute chain (`pl.block.add` → `["pl", "block", "add"]`).
    pub fn dotted(&self) -> Option<Vec<&str>> {
        match &self.kind {
            ExprKind::Name(n) => Some(vec![n.as_str()]),
            ExprKind::Attr(base, attr) => {
                let mut v = base.dotted()?;
                v.push(attr.name.as_str());
                Some(v)
            }
            _ => None,
        }
    }
}
