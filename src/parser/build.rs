//! Constructors called by the grammar's actions. They live here, as ordinary Rust, so that the
//! grammar file only says which pieces go where; spans and the few shape checks the grammar
//! cannot express (assignment targets) are done here.

use lalrpop_util::ErrorRecovery;

use crate::ast::{
    Arg, BinaryOp, ClassDef, ClassStmt, Expr, ExprKind, FuncDef, Ident, Import, Item, Module, ParamDef, Stmt, StmtKind,
    UnaryOp,
};
use crate::diag::{codes, Diagnostic, Span};
use crate::lexer::{LexFatal, Tok};
use crate::parser::MAX_EXPR_DEPTH;

/// Something the grammar actions report without stopping the parse.
pub enum Problem {
    /// A syntax error the parser recovered from (a skipped line).
    Recovered(ErrorRecovery<u32, Tok, LexFatal>),
    /// A well-formed but invalid construct (e.g. an assignment to a call).
    Diag(Diagnostic),
}

/// A top-level line of the file.
pub enum Entry {
    Import(Import),
    Item(Box<Item>),
    /// A line skipped by error recovery.
    Nothing,
}

/// `a` or `a, b, …`.
pub enum ExprList {
    /// A single expression, no comma.
    One(Expr),
    /// A bare tuple: items with at least one comma (`a,`, `a, b`).
    Tuple(Vec<Expr>),
}

impl ExprList {
    /// The list as one expression: the expression itself, or a tuple.
    fn into_expr(self) -> Expr {
        match self {
            ExprList::One(e) => e,
            ExprList::Tuple(items) => {
                let span = span_of(&items);
                Expr::new(ExprKind::Tuple(items), span)
            }
        }
    }

    /// The expressions (`return a, b` returns two values).
    pub fn into_items(self) -> Vec<Expr> {
        match self {
            ExprList::One(e) => vec![e],
            ExprList::Tuple(items) => items,
        }
    }
}

/// The statements of one line (several with `;`), without a `Vec` for the usual single
/// statement.
pub enum Line {
    One(Box<Stmt>),
    Many(Vec<Stmt>),
    /// A line skipped by error recovery.
    Nothing,
}

impl Line {
    pub fn into_vec(self) -> Vec<Stmt> {
        let mut v = Vec::new();
        self.append_to(&mut v);
        v
    }

    pub fn append_to(self, out: &mut Vec<Stmt>) {
        match self {
            Line::One(s) => out.push(*s),
            Line::Many(v) => out.extend(v),
            Line::Nothing => {}
        }
    }
}

/// `a; b; c`: the statements before the last `;`-separated one, and the last.
#[allow(clippy::vec_box, clippy::boxed_local)] // the boxes come from the parser stack (see below)
pub fn line_of(first: Vec<Box<Stmt>>, last: Box<Stmt>) -> Line {
    let mut v: Vec<Stmt> = Vec::with_capacity(first.len() + 1);
    v.extend(first.into_iter().map(|s| *s));
    v.push(*last);
    Line::Many(v)
}

/// The start of a list of several items.
pub fn list_of<T>(first: T) -> Vec<T> {
    let mut v = Vec::with_capacity(4);
    v.push(first);
    v
}

/// The span covering a list of expressions.
fn span_of(items: &[Expr]) -> Span {
    match (items.first(), items.last()) {
        (Some(a), Some(b)) => a.span.to(b.span),
        _ => Span::NONE,
    }
}

/// The module; its span and header are filled in by [`crate::parser::parse`].
pub fn module(entries: Vec<Entry>) -> Module {
    let mut imports = Vec::new();
    let mut items = Vec::new();
    for entry in entries {
        match entry {
            Entry::Import(i) => imports.push(i),
            Entry::Item(i) => items.push(*i),
            Entry::Nothing => {}
        }
    }
    Module { header: None, imports, items, span: Span::NONE }
}

/// The end of a block: its last statement's span (which covers that statement's own blocks).
fn body_span(body: &[Stmt]) -> Span {
    body.last().map_or(Span::NONE, |s| s.span)
}

// Statements and definitions are boxed while they are on the parser's stack: lalrpop moves
// stack entries as an enum as large as the largest nonterminal type, so keeping the types small
// makes parsing markedly faster.

pub fn stmt(kind: StmtKind, span: Span) -> Box<Stmt> {
    Box::new(Stmt { kind, span })
}

/// A `def` spans from `def` (or its first decorator) to the end of its body.
pub fn func_def(
    name: Ident,
    params: Vec<ParamDef>,
    returns: Option<Expr>,
    body: Vec<Stmt>,
    header: Span,
) -> Box<FuncDef> {
    let span = header.to(body_span(&body));
    Box::new(FuncDef { decorators: Vec::new(), name, params, returns, body, span })
}

/// Decorators with the offsets of their `@`: the item's span then starts at the first `@`.
fn decorators_and_start(decorators: Vec<(u32, Expr)>) -> (Vec<Expr>, Span) {
    let start = decorators.first().map_or(Span::NONE, |&(at, _)| Span::at(at, at));
    (decorators.into_iter().map(|(_, e)| e).collect(), start)
}

#[allow(clippy::boxed_local)] // the box comes from the parser stack (see above)
pub fn decorate_fn(decorators: Vec<(u32, Expr)>, f: Box<FuncDef>) -> FuncDef {
    let mut f = *f;
    let (decorators, start) = decorators_and_start(decorators);
    f.span = start.to(f.span);
    f.decorators = decorators;
    f
}

pub fn class_def(name: Ident, bases: Vec<Arg>, body: Vec<ClassStmt>, header: Span) -> Box<ClassDef> {
    let end = match body.last() {
        Some(ClassStmt::Function(f)) => f.span,
        Some(ClassStmt::Other(s)) => s.span,
        None => Span::NONE,
    };
    Box::new(ClassDef { decorators: Vec::new(), name, bases, body, span: header.to(end) })
}

#[allow(clippy::boxed_local)] // the box comes from the parser stack (see above)
pub fn decorate_class(decorators: Vec<(u32, Expr)>, c: Box<ClassDef>) -> ClassDef {
    let mut c = *c;
    let (decorators, start) = decorators_and_start(decorators);
    c.span = start.to(c.span);
    c.decorators = decorators;
    c
}

/// A compound statement spans from its keyword to the end of its last block.
pub fn compound(kind: StmtKind, header: Span) -> Box<Stmt> {
    Box::new(compound_stmt(kind, header))
}

pub fn compound_stmt(kind: StmtKind, header: Span) -> Stmt {
    let end = match &kind {
        StmtKind::If { then_body, else_body, .. } => {
            body_span(then_body).to(else_body.as_deref().map_or(Span::NONE, body_span))
        }
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::With { body, .. } => body_span(body),
        _ => Span::NONE,
    };
    Stmt { kind, span: header.to(end) }
}

pub fn expr_stmt(e: ExprList, span: Span) -> Box<Stmt> {
    stmt(StmtKind::Expr(e.into_expr()), span)
}

/// Assignment targets: a name (`x = …`), or names in a bare or parenthesized tuple
/// (`a, b = …`, `(a, b) = …`, `a, = …`). Reports anything else.
fn targets(problems: &mut Vec<Problem>, t: ExprList) -> Option<(Vec<Ident>, bool)> {
    let items = match t {
        ExprList::One(Expr { kind: ExprKind::Tuple(items), .. }) => items,
        ExprList::One(Expr { kind: ExprKind::Name(name), span, .. }) => {
            return Some((vec![Ident { name, span }], false))
        }
        ExprList::One(other) => {
            problems.push(Problem::Diag(bad_target(&other)));
            return None;
        }
        ExprList::Tuple(items) => items,
    };
    let mut names = Vec::with_capacity(items.len());
    let mut ok = true;
    for item in items {
        match item.kind {
            ExprKind::Name(name) => names.push(Ident { name, span: item.span }),
            _ => {
                problems.push(Problem::Diag(bad_target(&item)));
                ok = false;
            }
        }
    }
    ok.then_some((names, true))
}

fn bad_target(e: &Expr) -> Diagnostic {
    Diagnostic::error(codes::BAD_TARGET, e.span, "cannot assign to this expression")
        .with_label("expected a name or a tuple of names")
}

/// Stands in for a statement that was reported as invalid (the parse result is discarded).
fn placeholder(span: Span) -> Stmt {
    Stmt { kind: StmtKind::Pass, span }
}

pub fn assign(
    problems: &mut Vec<Problem>,
    target: ExprList,
    annotation: Option<Expr>,
    value: ExprList,
    span: Span,
) -> Box<Stmt> {
    Box::new(assign_unboxed(problems, target, annotation, value, span))
}

pub fn assign_unboxed(
    problems: &mut Vec<Problem>,
    target: ExprList,
    annotation: Option<Expr>,
    value: ExprList,
    span: Span,
) -> Stmt {
    match targets(problems, target) {
        Some((targets, tuple_target)) => {
            Stmt { kind: StmtKind::Assign { targets, tuple_target, annotation, value: value.into_expr() }, span }
        }
        None => placeholder(span),
    }
}

/// `x: T = e` and `x: T`: only a single name may be annotated.
pub fn annotated(
    problems: &mut Vec<Problem>,
    target: ExprList,
    annotation: Expr,
    value: Option<ExprList>,
    span: Span,
) -> Box<Stmt> {
    Box::new(annotated_unboxed(problems, target, annotation, value, span))
}

pub fn annotated_unboxed(
    problems: &mut Vec<Problem>,
    target: ExprList,
    annotation: Expr,
    value: Option<ExprList>,
    span: Span,
) -> Stmt {
    let name = match target {
        ExprList::One(Expr { kind: ExprKind::Name(name), span, .. }) => Ident { name, span },
        other => {
            let at = other.into_items().first().map_or(span, |e| e.span);
            problems.push(Problem::Diag(
                Diagnostic::error(codes::BAD_TARGET, at, "only a single name can be annotated")
                    .with_label("expected a name before `:`"),
            ));
            return placeholder(span);
        }
    };
    let kind = match value {
        Some(value) => StmtKind::Assign {
            targets: vec![name],
            tuple_target: false,
            annotation: Some(annotation),
            value: value.into_expr(),
        },
        None => StmtKind::AnnOnly { target: name, annotation },
    };
    Stmt { kind, span }
}

pub fn binary(problems: &mut Vec<Problem>, op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let span = a.span.to(b.span);
    bounded(problems, Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), span))
}

/// A prefix operator at offset `lo` applied to `e`.
pub fn unary(problems: &mut Vec<Problem>, op: UnaryOp, lo: u32, e: Expr) -> Expr {
    let span = Span::at(lo, lo).to(e.span);
    bounded(problems, Expr::new(ExprKind::Unary(op, Box::new(e)), span))
}

/// The text of the token at `lo..hi` of `source` (a name or a string literal: the tokens carry
/// no text, see [`crate::lexer::Spanned`]).
pub fn text(source: &str, lo: u32, hi: u32) -> &str {
    source.get(lo as usize..hi as usize).unwrap_or("")
}

/// A call, subscript or attribute of `f`, ending at offset `hi`.
pub fn postfix(problems: &mut Vec<Problem>, f: Expr, hi: u32, make: impl FnOnce(Box<Expr>) -> ExprKind) -> Expr {
    let span = f.span.to(Span::at(hi, hi));
    bounded(problems, Expr::new(make(Box::new(f)), span))
}

/// `e`, or — when it is deeper than [`MAX_EXPR_DEPTH`] — a leaf in its place and a
/// `NESTING_TOO_DEEP` error. Every constructor that can make a tree deeper calls this, so no
/// tree deeper than the limit is ever built, and the recursive stages after the parser (and
/// dropping the tree) stay within the stack. One error per too-deep expression: a later,
/// enclosing replacement of the same chain is not reported again.
#[inline]
pub fn bounded(problems: &mut Vec<Problem>, e: Expr) -> Expr {
    if e.depth() <= MAX_EXPR_DEPTH {
        return e;
    }
    too_deep(problems, e)
}

/// [`bounded`]'s replacement of a too deep `e` (kept out of line: every node passes through
/// `bounded`, hardly any gets here).
#[cold]
#[inline(never)]
fn too_deep(problems: &mut Vec<Problem>, e: Expr) -> Expr {
    let span = e.span;
    let reported = problems.iter().rev().any(|p| {
        matches!(p, Problem::Diag(d) if d.code == codes::NESTING_TOO_DEEP && span.lo <= d.span.lo && d.span.hi <= span.hi)
    });
    if !reported {
        let msg = format!("expression nested more than {MAX_EXPR_DEPTH} deep");
        problems.push(Problem::Diag(
            Diagnostic::error(codes::NESTING_TOO_DEEP, span, msg).with_note("split it into several assignments"),
        ));
    }
    Expr::new(ExprKind::Unsupported, span)
}

/// `(e)` is `e` (its span widened to the parentheses); `(a, b)` and `(a,)` are tuples.
pub fn parenthesized(e: ExprList, span: Span) -> Expr {
    let mut e = match e {
        ExprList::Tuple(items) => Expr::new(ExprKind::Tuple(items), span),
        ExprList::One(e) => e,
    };
    e.span = span;
    e
}

/// Binding strength of a binary operator in a flat chain (higher binds tighter): the printer's
/// table ([`crate::ir::BinOp::precedence`]), so that what one prints the other reads back. All
/// chained operators are left-associative; `**` never appears in a chain (the grammar handles it).
fn precedence(op: BinaryOp) -> u8 {
    op.ir().precedence()
}

/// `first op1 e1 op2 e2 …` as a tree by precedence (operator-precedence parsing with explicit
/// stacks, so that long chains need no recursion). Gives the tree one grammar level per
/// precedence would give, with the same spans.
pub fn operators(problems: &mut Vec<Problem>, first: Expr, rest: Vec<(BinaryOp, Expr)>) -> Expr {
    let mut operands = Vec::with_capacity(rest.len() + 1);
    let mut ops: Vec<BinaryOp> = Vec::with_capacity(rest.len());
    operands.push(first);
    for (op, rhs) in rest {
        while ops.last().is_some_and(|&top| precedence(top) >= precedence(op)) {
            reduce_top(problems, &mut operands, &mut ops);
        }
        ops.push(op);
        operands.push(rhs);
    }
    while !ops.is_empty() {
        reduce_top(problems, &mut operands, &mut ops);
    }
    operands.pop().unwrap_or_else(|| Expr::new(ExprKind::Tuple(Vec::new()), Span::NONE))
}

/// Replaces the top two operands by the top operator applied to them.
fn reduce_top(problems: &mut Vec<Problem>, operands: &mut Vec<Expr>, ops: &mut Vec<BinaryOp>) {
    let (Some(op), Some(b), Some(a)) = (ops.pop(), operands.pop(), operands.pop()) else {
        return;
    };
    operands.push(binary(problems, op, a, b));
}
