//! Syntax tree of a `.pto` file, as the parser produces it: no names resolved, no types
//! checked. Types are ordinary expressions here (`pl.Tensor[[64], pl.FP32]` is a subscript of an
//! attribute); lowering ([`crate::lower`]) gives them meaning.

use crate::diag::Span;

/// The text of a name or string literal. Stored inline (no allocation) up to 24 bytes, which
/// covers practically every identifier: the parser makes one per name in the file.
pub type Name = compact_str::CompactString;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: Name,
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
    Assign {
        targets: Vec<Ident>,
        tuple_target: bool,
        annotation: Option<Expr>,
        value: Expr,
    },
    /// `x: T` without a value (rejected by lowering).
    AnnOnly {
        target: Ident,
        annotation: Expr,
    },
    /// An expression statement.
    Expr(Expr),
    Return(Vec<Expr>),
    /// `if` / `elif` / `else`; an `elif` arrives as an `If` alone in `else_body`.
    If {
        cond: Expr,
        then_body: Vec<Stmt>,
        else_body: Option<Vec<Stmt>>,
    },
    /// `for TARGET in ITER:`.
    For {
        target: ForTarget,
        iter: Expr,
        body: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    /// `with ITEM [as NAME]:`.
    With {
        item: Expr,
        as_name: Option<Ident>,
        body: Vec<Stmt>,
    },
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
    Name(Name),
    /// An unsigned integer literal (a leading `-` is a `Unary(Neg)` around it).
    Int(u64),
    /// A float literal, with its source text for exact messages.
    Float(f64),
    /// A single- or double-quoted string (no escapes are interpreted).
    Str(Name),
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

impl BinaryOp {
    /// The IR operator this syntax stands for. Its [`crate::ir::BinOp::precedence`] is the one
    /// precedence table: the parser orders operator chains by it and the printer parenthesizes
    /// by it.
    pub fn ir(self) -> crate::ir::BinOp {
        use crate::ir::BinOp;
        match self {
            BinaryOp::Or => BinOp::Or,
            BinaryOp::Xor => BinOp::Xor,
            BinaryOp::And => BinOp::And,
            BinaryOp::Eq => BinOp::Eq,
            BinaryOp::Ne => BinOp::Ne,
            BinaryOp::Lt => BinOp::Lt,
            BinaryOp::Le => BinOp::Le,
            BinaryOp::Gt => BinOp::Gt,
            BinaryOp::Ge => BinOp::Ge,
            BinaryOp::BitOr => BinOp::BitOr,
            BinaryOp::BitXor => BinOp::BitXor,
            BinaryOp::BitAnd => BinOp::BitAnd,
            BinaryOp::Shl => BinOp::Shl,
            BinaryOp::Shr => BinOp::Shr,
            BinaryOp::Add => BinOp::Add,
            BinaryOp::Sub => BinOp::Sub,
            BinaryOp::Mul => BinOp::Mul,
            BinaryOp::Div => BinOp::FloatDiv,
            BinaryOp::FloorDiv => BinOp::FloorDiv,
            BinaryOp::Mod => BinOp::FloorMod,
            BinaryOp::Pow => BinOp::Pow,
        }
    }
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
    /// Lowering asks this of nearly every call and type, so it is built without allocating.
    pub fn dotted(&self) -> Option<DottedPath<'_>> {
        // Count the parts first (the chain is walked from its last part), then fill them in.
        let mut len = 1;
        let mut e = self;
        while let ExprKind::Attr(base, _) = &e.kind {
            len += 1;
            e = base;
        }
        if !matches!(e.kind, ExprKind::Name(_)) {
            return None;
        }
        let mut path = DottedPath::with_len(len);
        let parts = path.parts_mut();
        let mut e = self;
        for slot in parts.iter_mut().rev() {
            match &e.kind {
                ExprKind::Attr(base, attr) => {
                    *slot = attr.name.as_str();
                    e = base;
                }
                ExprKind::Name(n) => *slot = n.as_str(),
                _ => return None,
            }
        }
        Some(path)
    }
}

/// Parts of a dotted name kept inline (longer paths go to the heap).
const INLINE_PARTS: usize = 6;

/// The parts of a dotted name ([`Expr::dotted`]); derefs to `[&str]`.
#[derive(Clone, Debug, Default)]
pub struct DottedPath<'e> {
    inline: [&'e str; INLINE_PARTS],
    /// All parts when there are more than fit inline, else empty.
    heap: Vec<&'e str>,
    /// `inline[start..end]` (or `heap[start..]`) are the parts.
    start: usize,
    end: usize,
}

impl<'e> DottedPath<'e> {
    fn with_len(len: usize) -> DottedPath<'e> {
        let heap = if len > INLINE_PARTS { vec![""; len] } else { Vec::new() };
        DottedPath { inline: [""; INLINE_PARTS], heap, start: 0, end: len }
    }

    fn parts_mut(&mut self) -> &mut [&'e str] {
        if self.heap.is_empty() {
            &mut self.inline[self.start..self.end]
        } else {
            &mut self.heap[self.start..self.end]
        }
    }

    /// The parts, for matching against slice patterns.
    pub fn as_slice(&self) -> &[&'e str] {
        self
    }

    /// The path without its first `n` parts (`pl.block.add` without 1 → `block.add`).
    pub fn skip(mut self, n: usize) -> DottedPath<'e> {
        self.start = (self.start + n).min(self.end);
        self
    }
}

impl<'e> std::ops::Deref for DottedPath<'e> {
    type Target = [&'e str];
    fn deref(&self) -> &[&'e str] {
        if self.heap.is_empty() {
            &self.inline[self.start..self.end]
        } else {
            &self.heap[self.start..self.end]
        }
    }
}

impl<const N: usize> PartialEq<[&str; N]> for DottedPath<'_> {
    fn eq(&self, other: &[&str; N]) -> bool {
        **self == other[..]
    }
}
