//! A recursive-descent parser for the common case: text without any error.
//!
//! The lalrpop parser (`grammar/pto.lalrpop`) is the definition of the language, and the only
//! source of syntax diagnostics; it costs ~650 instructions per token (its driver moves a
//! 112-byte stack entry per shift and reduce, and most tokens take several reductions). This
//! parser reads the same token stream in one pass with one token of lookahead (two for a
//! keyword argument) and builds the same tree with the same constructors
//! ([`crate::parser::build`]), at a fraction of the cost. It accepts only text the grammar accepts
//! without error recovery, and gives up ([`Bail`]) at the first token it does not expect, at
//! any problem a constructor reports, at any lexical diagnostic, and when its recursion gets
//! deep; the caller then parses the text again with lalrpop, which reports (or accepts) it
//! exactly as before. So a result from here is always the result lalrpop would give; the
//! differential tests in `parser::tests` hold the two to that on the test corpora.

use crate::ast::{Arg, BinaryOp, ClassDef, ClassStmt, Expr, ExprKind, ForTarget, FuncDef, Ident, Import, Item, Module};
use crate::ast::{ParamDef, Stmt, StmtKind, UnaryOp};
use crate::diag::Span;
use crate::lexer::{Layout, Spanned, Tok};
use crate::parser::build::{self, ExprList, Problem};

/// The fast parser gave up: the text has an error, or a shape it leaves to the lalrpop parser.
#[derive(Debug)]
pub struct Bail;

type Parsed<T> = Result<T, Bail>;

/// Deepest recursion (nested expressions, `elif` chains) before giving up; lalrpop, which needs
/// no recursion, takes over deeper text.
const MAX_DEPTH: u32 = 200;

/// Parses a whole module from `layout`. The caller still has to check the lexer's diagnostics
/// (`Layout::finish`): a lexical error does not always show in the token stream.
pub fn module(layout: &mut Layout<'_>) -> Parsed<Module> {
    let mut p = Parser::new(layout);
    let module = p.module()?;
    if p.problems.is_empty() {
        Ok(module)
    } else {
        Err(Bail)
    }
}

struct Parser<'s, 'l> {
    layout: &'l mut Layout<'s>,
    /// The layout's text.
    source: &'s [u8],
    /// The current token (`Tok::Error` at the end of the input, see `eof`).
    tok: Tok<'s>,
    lo: usize,
    hi: usize,
    eof: bool,
    /// The token after the current one, when it was looked at.
    ahead: Option<Spanned<'s>>,
    /// End of the last token consumed (lalrpop's `@R`).
    last_hi: usize,
    depth: u32,
    /// A bound on the statements of the method being read ([`Layout::method_lines`]), until the
    /// block that holds them sizes its list with it; 0 afterwards and for a whole file.
    body_lines: usize,
    /// What the constructors report; anything here makes the parse give up.
    problems: Vec<Problem<'s>>,
}

/// Whether `tok` can start an expression.
fn starts_expr(tok: Tok<'_>) -> bool {
    is_leaf(tok) || matches!(tok, Tok::LParen | Tok::LBracket | Tok::Minus | Tok::Plus | Tok::Tilde | Tok::Not)
}

/// Whether `tok` is an operand by itself (a name or literal, [`Parser::atom`]'s leaves).
fn is_leaf(tok: Tok<'_>) -> bool {
    matches!(
        tok,
        Tok::Name(_)
            | Tok::Int(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::True
            | Tok::False
            | Tok::None
            | Tok::Unsupported
    )
}

/// Common tokens after an operand that end its expression: none of them is a postfix (`(`,
/// `[`, `.`), `**`, or a binary or boolean operator.
fn ends_leaf(tok: Option<Tok<'_>>) -> bool {
    matches!(
        tok,
        Some(Tok::Comma | Tok::RParen | Tok::RBracket | Tok::Colon | Tok::Assign | Tok::Newline)
    )
}

fn bool_op(tok: Tok<'_>) -> Option<BinaryOp> {
    Some(match tok {
        Tok::Or => BinaryOp::Or,
        Tok::Xor => BinaryOp::Xor,
        Tok::And => BinaryOp::And,
        _ => return None,
    })
}

fn bin_op(tok: Tok<'_>) -> Option<BinaryOp> {
    Some(match tok {
        Tok::EqEq => BinaryOp::Eq,
        Tok::NotEq => BinaryOp::Ne,
        Tok::Lt => BinaryOp::Lt,
        Tok::Le => BinaryOp::Le,
        Tok::Gt => BinaryOp::Gt,
        Tok::Ge => BinaryOp::Ge,
        Tok::Pipe => BinaryOp::BitOr,
        Tok::Caret => BinaryOp::BitXor,
        Tok::Amp => BinaryOp::BitAnd,
        Tok::Shl => BinaryOp::Shl,
        Tok::Shr => BinaryOp::Shr,
        Tok::Plus => BinaryOp::Add,
        Tok::Minus => BinaryOp::Sub,
        Tok::Star => BinaryOp::Mul,
        Tok::Slash => BinaryOp::Div,
        Tok::DoubleSlash => BinaryOp::FloorDiv,
        Tok::Percent => BinaryOp::Mod,
        _ => return None,
    })
}

/// The text of a keyword allowed as an attribute name (the grammar's `Keyword`).
fn keyword(tok: Tok<'_>) -> Option<&'static str> {
    Some(match tok {
        Tok::And => "and",
        Tok::Or => "or",
        Tok::Not => "not",
        Tok::Xor => "xor",
        Tok::If => "if",
        Tok::Elif => "elif",
        Tok::Else => "else",
        Tok::For => "for",
        Tok::In => "in",
        Tok::While => "while",
        Tok::With => "with",
        Tok::As => "as",
        Tok::Def => "def",
        Tok::Class => "class",
        Tok::Return => "return",
        Tok::Pass => "pass",
        Tok::Break => "break",
        Tok::Continue => "continue",
        Tok::Import => "import",
        Tok::From => "from",
        Tok::True => "True",
        Tok::False => "False",
        Tok::None => "None",
        _ => return None,
    })
}

impl<'s, 'l> Parser<'s, 'l> {
    fn new(layout: &'l mut Layout<'s>) -> Parser<'s, 'l> {
        let mut p = Parser {
            source: layout.source().as_bytes(),
            layout,
            tok: Tok::Error,
            lo: 0,
            hi: 0,
            eof: false,
            ahead: None,
            last_hi: 0,
            depth: 0,
            body_lines: 0,
            problems: Vec::new(),
        };
        p.bump();
        p
    }

    /// Moves to the next token. A fatal lexical error shows as `Tok::Error` (which no rule
    /// accepts).
    // Forced only when optimising: unoptimised code gives every inlined local its own slot
    // in each caller's frame, and the parser's recursion then overflows a 2 MiB test thread
    // (`fast_tests::deep_text_falls_back_to_lalrpop`) before reaching its depth limit.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn bump(&mut self) {
        self.last_hi = self.hi;
        let next = match self.ahead.take() {
            Some(t) => Some(Ok(t)),
            None => self.layout.next(),
        };
        match next {
            Some(Ok((lo, tok, hi))) => {
                self.tok = tok;
                self.lo = lo;
                self.hi = hi;
            }
            Some(Err(_)) => self.tok = Tok::Error,
            None => {
                self.tok = Tok::Error;
                self.eof = true;
            }
        }
    }

    /// The token after the current one (`None` at the end of the input or a fatal lexical
    /// error, which makes the caller discard the parse anyway).
    fn peek(&mut self) -> Option<Tok<'s>> {
        if self.ahead.is_none() {
            self.ahead = self.layout.next().and_then(Result::ok);
        }
        self.ahead.map(|(_, tok, _)| tok)
    }

    /// Whether `.`, `(` or `[` comes right after the current token, which is then no lone
    /// operand: the usual case (`pl.…`, `f(…)`) is known without looking ahead.
    fn postfix_adjacent(&self) -> bool {
        matches!(self.source.get(self.hi), Some(b'.' | b'(' | b'['))
    }

    /// Whether the current token is of `tok`'s kind (a unit kind: payloads are not compared).
    #[inline]
    fn at(&self, tok: Tok<'static>) -> bool {
        std::mem::discriminant(&self.tok) == std::mem::discriminant(&tok)
    }

    fn expect(&mut self, tok: Tok<'static>) -> Parsed<()> {
        if self.at(tok) {
            self.bump();
            Ok(())
        } else {
            Err(Bail)
        }
    }

    fn enter(&mut self) -> Parsed<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Bail);
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn name(&mut self) -> Parsed<Ident> {
        let Tok::Name(n) = self.tok else { return Err(Bail) };
        let id = Ident {
            name: n.into(),
            span: Span::new(self.lo, self.hi),
        };
        self.bump();
        Ok(id)
    }

    /// A name after `.`: keywords are allowed there.
    fn attr_name(&mut self) -> Parsed<Ident> {
        let text = match self.tok {
            Tok::Name(n) => n,
            tok => keyword(tok).ok_or(Bail)?,
        };
        let id = Ident {
            name: text.into(),
            span: Span::new(self.lo, self.hi),
        };
        self.bump();
        Ok(id)
    }

    // -----------------------------------------------------------------------------------------
    // File structure

    fn module(&mut self) -> Parsed<Module> {
        let mut imports = Vec::new();
        let mut items = Vec::new();
        while !self.eof {
            match self.tok {
                Tok::Import | Tok::From => imports.push(self.import()?),
                _ => {
                    let decorators = self.decorators()?;
                    match self.tok {
                        Tok::Def => {
                            let f = self.func_def()?;
                            items.push(Item::Function(build::decorate_fn(decorators, f)));
                        }
                        Tok::Class => {
                            let c = self.class_def()?;
                            items.push(Item::Class(build::decorate_class(decorators, c)));
                        }
                        _ => return Err(Bail),
                    }
                }
            }
        }
        Ok(Module {
            header: None,
            imports,
            items,
            span: Span::NONE,
        })
    }

    fn import(&mut self) -> Parsed<Import> {
        let l = self.lo;
        let from = self.at(Tok::From);
        self.bump();
        let mut module = vec![self.name()?];
        while self.at(Tok::Dot) {
            self.bump();
            module.push(self.attr_name()?);
        }
        if from {
            self.expect(Tok::Import)?;
            module.push(self.name()?);
        }
        // lalrpop ends the span at an absent alias, which it places at the next token.
        let (alias, hi) = if self.at(Tok::As) {
            self.bump();
            (Some(self.name()?), self.last_hi)
        } else {
            (None, self.lo)
        };
        let span = Span::new(l, hi);
        self.expect(Tok::Newline)?;
        Ok(Import { module, alias, span })
    }

    fn decorators(&mut self) -> Parsed<Vec<(usize, Expr)>> {
        let mut decorators = Vec::new();
        while self.at(Tok::At) {
            let l = self.lo;
            self.bump();
            decorators.push((l, self.expr()?));
            self.expect(Tok::Newline)?;
        }
        Ok(decorators)
    }

    fn class_def(&mut self) -> Parsed<Box<ClassDef>> {
        let l = self.lo;
        self.bump();
        let name = self.name()?;
        let bases = if self.at(Tok::LParen) {
            self.bump();
            let bases = self.comma(Tok::RParen, Self::arg)?;
            self.expect(Tok::RParen)?;
            bases
        } else {
            Vec::new()
        };
        self.expect(Tok::Colon)?;
        let header = Span::new(l, self.last_hi);
        let mut body = Vec::new();
        if self.at(Tok::Newline) {
            self.bump();
            if self.at(Tok::Indent) {
                self.bump();
                while !self.at(Tok::Dedent) {
                    if matches!(self.tok, Tok::At | Tok::Def) {
                        let decorators = self.decorators()?;
                        if !self.at(Tok::Def) {
                            return Err(Bail);
                        }
                        let f = self.func_def()?;
                        body.push(ClassStmt::Function(build::decorate_fn(decorators, f)));
                    } else {
                        let mut stmts = Vec::new();
                        self.stmt_line(&mut stmts)?;
                        body.extend(stmts.into_iter().map(ClassStmt::Other));
                    }
                }
                self.bump();
            }
        } else {
            let mut stmts = Vec::new();
            self.simple_line(&mut stmts)?;
            body.extend(stmts.into_iter().map(ClassStmt::Other));
        }
        Ok(build::class_def(name, bases, body, header))
    }

    fn func_def(&mut self) -> Parsed<Box<FuncDef>> {
        let l = self.lo;
        self.bump();
        let name = self.name()?;
        self.expect(Tok::LParen)?;
        let params = self.comma(Tok::RParen, Self::param)?;
        self.expect(Tok::RParen)?;
        let returns = if self.at(Tok::Arrow) {
            self.bump();
            Some(self.expr()?)
        } else {
            None
        };
        self.expect(Tok::Colon)?;
        let header = Span::new(l, self.last_hi);
        if self.depth == 0 {
            self.body_lines = self.layout.method_lines();
        }
        let body = self.block()?;
        Ok(build::func_def(name, params, returns, body, header))
    }

    fn param(&mut self) -> Parsed<ParamDef> {
        let l = self.lo;
        let name = self.name()?;
        let annotation = if self.at(Tok::Colon) {
            self.bump();
            Some(self.expr()?)
        } else {
            None
        };
        Ok(ParamDef {
            name,
            annotation,
            span: Span::new(l, self.last_hi),
        })
    }

    // -----------------------------------------------------------------------------------------
    // Statements

    /// The body after a `:` header.
    fn block(&mut self) -> Parsed<Vec<Stmt>> {
        let mut body = Vec::new();
        if self.at(Tok::Newline) {
            self.bump();
            if self.at(Tok::Indent) {
                self.bump();
                // The first block that starts with a simple statement is taken to be the one that
                // holds the method's statements (a kernel's body is often one loop around them).
                if !matches!(self.tok, Tok::If | Tok::For | Tok::While | Tok::With) {
                    body.reserve(std::mem::take(&mut self.body_lines));
                }
                self.enter()?;
                loop {
                    self.stmt_line(&mut body)?;
                    if self.at(Tok::Dedent) {
                        break;
                    }
                }
                self.leave();
                self.bump();
            }
        } else {
            self.simple_line(&mut body)?;
        }
        Ok(body)
    }

    fn stmt_line(&mut self, out: &mut Vec<Stmt>) -> Parsed<()> {
        match self.tok {
            Tok::If | Tok::For | Tok::While | Tok::With => {
                let s = self.compound()?;
                out.push(s);
                Ok(())
            }
            _ => self.simple_line(out),
        }
    }

    /// Simple statements separated by `;` (optional at the end), up to the NEWLINE.
    fn simple_line(&mut self, out: &mut Vec<Stmt>) -> Parsed<()> {
        loop {
            let s = self.small_stmt()?;
            out.push(s);
            if !self.at(Tok::Semi) {
                return self.expect(Tok::Newline);
            }
            self.bump();
            if self.at(Tok::Newline) {
                self.bump();
                return Ok(());
            }
        }
    }

    fn small_stmt(&mut self) -> Parsed<Stmt> {
        let l = self.lo;
        let kind = match self.tok {
            Tok::Return => {
                self.bump();
                let values = if starts_expr(self.tok) {
                    self.expr_list()?.into_items()
                } else {
                    Vec::new()
                };
                StmtKind::Return(values)
            }
            Tok::Pass | Tok::Break | Tok::Continue => {
                let kind = match self.tok {
                    Tok::Pass => StmtKind::Pass,
                    Tok::Break => StmtKind::Break,
                    _ => StmtKind::Continue,
                };
                self.bump();
                kind
            }
            _ => {
                let target = self.expr_list()?;
                return Ok(match self.tok {
                    Tok::Assign => {
                        self.bump();
                        let value = self.expr_list()?;
                        let span = Span::new(l, self.last_hi);
                        build::assign_unboxed(&mut self.problems, target, None, value, span)
                    }
                    Tok::Colon => {
                        self.bump();
                        let annotation = self.expr()?;
                        let value = if self.at(Tok::Assign) {
                            self.bump();
                            Some(self.expr_list()?)
                        } else {
                            None
                        };
                        let span = Span::new(l, self.last_hi);
                        build::annotated_unboxed(&mut self.problems, target, annotation, value, span)
                    }
                    _ => build::expr_stmt_unboxed(target, Span::new(l, self.last_hi)),
                });
            }
        };
        Ok(Stmt {
            kind,
            span: Span::new(l, self.last_hi),
        })
    }

    fn compound(&mut self) -> Parsed<Stmt> {
        let l = self.lo;
        let keyword = self.tok;
        self.bump();
        let kind = match keyword {
            Tok::If => return self.if_rest(l),
            Tok::For => {
                let target = self.for_target()?;
                self.expect(Tok::In)?;
                let iter = self.expr()?;
                self.expect(Tok::Colon)?;
                let header = Span::new(l, self.last_hi);
                let body = self.block()?;
                return Ok(build::compound_stmt(StmtKind::For { target, iter, body }, header));
            }
            Tok::While => {
                let cond = self.expr()?;
                self.expect(Tok::Colon)?;
                (Span::new(l, self.last_hi), StmtKind::While { cond, body: self.block()? })
            }
            _ => {
                let item = self.expr()?;
                let as_name = if self.at(Tok::As) {
                    self.bump();
                    Some(self.name()?)
                } else {
                    None
                };
                self.expect(Tok::Colon)?;
                (Span::new(l, self.last_hi), StmtKind::With { item, as_name, body: self.block()? })
            }
        };
        Ok(build::compound_stmt(kind.1, kind.0))
    }

    /// An `if` or `elif` after its keyword, which started at `l`.
    fn if_rest(&mut self, l: usize) -> Parsed<Stmt> {
        self.enter()?;
        let cond = self.expr()?;
        self.expect(Tok::Colon)?;
        let header = Span::new(l, self.last_hi);
        let then_body = self.block()?;
        let else_body = match self.tok {
            Tok::Else => {
                self.bump();
                self.expect(Tok::Colon)?;
                Some(self.block()?)
            }
            Tok::Elif => {
                let l = self.lo;
                self.bump();
                Some(vec![self.if_rest(l)?])
            }
            _ => None,
        };
        self.leave();
        Ok(build::compound_stmt(
            StmtKind::If {
                cond,
                then_body,
                else_body,
            },
            header,
        ))
    }

    /// Loop targets: `i`, `i, (a, b)`, `i, (a,)`, `(i)`, `(a, b)`, `(a,)`.
    fn for_target(&mut self) -> Parsed<ForTarget> {
        let l = self.lo;
        let (var, tuple) = if self.at(Tok::LParen) {
            self.bump();
            let first = self.name()?;
            if self.at(Tok::RParen) {
                (Some(first), None)
            } else {
                (None, Some(self.name_tuple(first)?))
            }
        } else {
            let var = self.name()?;
            if !self.at(Tok::Comma) {
                return Ok(ForTarget {
                    var: Some(var),
                    tuple: None,
                    span: Span::new(l, self.last_hi),
                });
            }
            self.bump();
            self.expect(Tok::LParen)?;
            let first = self.name()?;
            (Some(var), Some(self.name_tuple(first)?))
        };
        self.expect(Tok::RParen)?;
        Ok(ForTarget {
            var,
            tuple,
            span: Span::new(l, self.last_hi),
        })
    }

    /// Names with at least one comma, after the first name.
    fn name_tuple(&mut self, first: Ident) -> Parsed<Vec<Ident>> {
        self.expect(Tok::Comma)?;
        let mut names = vec![first];
        while matches!(self.tok, Tok::Name(_)) {
            names.push(self.name()?);
            if !self.at(Tok::Comma) {
                break;
            }
            self.bump();
        }
        Ok(names)
    }

    // -----------------------------------------------------------------------------------------
    // Expressions (see the grammar for the shape of operator chains)

    /// `T, T, …` up to `close` (not consumed), with an optional trailing comma.
    fn comma<T>(&mut self, close: Tok<'static>, item: fn(&mut Self) -> Parsed<T>) -> Parsed<Vec<T>> {
        if self.at(close) {
            return Ok(Vec::new());
        }
        let first = item(self)?;
        if !self.at(Tok::Comma) {
            return Ok(vec![first]);
        }
        self.bump();
        let mut items = build::list_of(first);
        while !self.at(close) {
            items.push(item(self)?);
            if !self.at(Tok::Comma) {
                break;
            }
            self.bump();
        }
        Ok(items)
    }

    /// `a` or `a, b, …` (a bare tuple when there is a comma).
    fn expr_list(&mut self) -> Parsed<ExprList> {
        let first = self.expr()?;
        if !self.at(Tok::Comma) {
            return Ok(ExprList::One(first));
        }
        let mut items = vec![first];
        while self.at(Tok::Comma) {
            self.bump();
            if !starts_expr(self.tok) {
                break;
            }
            items.push(self.expr()?);
        }
        Ok(ExprList::Tuple(items))
    }

    pub fn expr(&mut self) -> Parsed<Expr> {
        self.enter()?;
        if is_leaf(self.tok) && !self.postfix_adjacent() && ends_leaf(self.peek()) {
            // A lone name or literal (most arguments, list items and assignment targets): the
            // operator and postfix layers below would each find nothing to do.
            let e = self.atom()?;
            self.leave();
            return Ok(e);
        }
        let first = self.not_term()?;
        let e = if bool_op(self.tok).is_some() {
            let mut rest = Vec::new();
            while let Some(op) = bool_op(self.tok) {
                self.bump();
                rest.push((op, self.not_term()?));
            }
            build::operators(&mut self.problems, first, rest)
        } else {
            first
        };
        self.leave();
        Ok(e)
    }

    /// `not` operands, comparisons and the arithmetic and bitwise operators. (The usual path,
    /// an operand without operators, is inlined into `expr`; the rest are separate functions.)
    #[inline]
    fn not_term(&mut self) -> Parsed<Expr> {
        if self.at(Tok::Not) {
            return self.not_prefixed();
        }
        let first = self.factor()?;
        if bin_op(self.tok).is_none() {
            return Ok(first);
        }
        self.arith_chain(first)
    }

    fn not_prefixed(&mut self) -> Parsed<Expr> {
        let l = self.lo;
        self.bump();
        self.enter()?;
        let e = self.not_term()?;
        self.leave();
        Ok(build::unary(&mut self.problems, UnaryOp::Not, l, e))
    }

    /// `first op e op e …` for the operators between comparisons and `*`.
    fn arith_chain(&mut self, first: Expr) -> Parsed<Expr> {
        let mut rest = Vec::new();
        while let Some(op) = bin_op(self.tok) {
            self.bump();
            rest.push((op, self.factor()?));
        }
        Ok(build::operators(&mut self.problems, first, rest))
    }

    /// Prefix `-`, `+`, `~`, or a power.
    #[inline]
    fn factor(&mut self) -> Parsed<Expr> {
        match self.tok {
            Tok::Minus | Tok::Plus | Tok::Tilde => self.prefixed(),
            _ => {
                let base = self.postfix()?;
                if !self.at(Tok::DoubleStar) {
                    return Ok(base);
                }
                self.power(base)
            }
        }
    }

    fn prefixed(&mut self) -> Parsed<Expr> {
        let op = match self.tok {
            Tok::Minus => UnaryOp::Neg,
            Tok::Plus => UnaryOp::Pos,
            _ => UnaryOp::Invert,
        };
        let l = self.lo;
        self.bump();
        self.enter()?;
        let e = self.factor()?;
        self.leave();
        Ok(build::unary(&mut self.problems, op, l, e))
    }

    /// `base ** exponent`, at the `**`.
    fn power(&mut self, base: Expr) -> Parsed<Expr> {
        self.bump();
        self.enter()?;
        let exponent = self.factor()?;
        self.leave();
        Ok(build::binary(&mut self.problems, BinaryOp::Pow, base, exponent))
    }

    fn postfix(&mut self) -> Parsed<Expr> {
        let mut e = self.atom()?;
        loop {
            e = match self.tok {
                Tok::LParen => {
                    self.bump();
                    let args = self.comma(Tok::RParen, Self::arg)?;
                    let r = self.hi;
                    self.expect(Tok::RParen)?;
                    build::postfix(&mut self.problems, e, r, |f| ExprKind::Call(f, args))
                }
                Tok::LBracket => {
                    self.bump();
                    let args = self.comma(Tok::RBracket, Self::arg)?;
                    let r = self.hi;
                    self.expect(Tok::RBracket)?;
                    build::postfix(&mut self.problems, e, r, |f| ExprKind::Subscript(f, args))
                }
                Tok::Dot => {
                    self.bump();
                    let a = self.attr_name()?;
                    let r = self.last_hi;
                    build::postfix(&mut self.problems, e, r, |f| ExprKind::Attr(f, a))
                }
                _ => return Ok(e),
            };
        }
    }

    fn arg(&mut self) -> Parsed<Arg> {
        if matches!(self.tok, Tok::Name(_)) && matches!(self.peek(), Some(Tok::Assign)) {
            let k = self.name()?;
            self.bump();
            return Ok(Arg::Keyword(k, self.expr()?));
        }
        Ok(Arg::Positional(self.expr()?))
    }

    #[inline]
    fn atom(&mut self) -> Parsed<Expr> {
        let span = Span::new(self.lo, self.hi);
        let kind = match self.tok {
            Tok::Name(n) => ExprKind::Name(n.into()),
            Tok::Int(v) => ExprKind::Int(v),
            Tok::Float(v) => ExprKind::Float(v),
            Tok::Str(s) => ExprKind::Str(s.into()),
            Tok::True => ExprKind::Bool(true),
            Tok::False => ExprKind::Bool(false),
            Tok::None => ExprKind::None,
            Tok::Unsupported => ExprKind::Unsupported,
            Tok::LParen => {
                let l = self.lo;
                self.bump();
                if self.at(Tok::RParen) {
                    let r = self.hi;
                    self.bump();
                    return Ok(Expr::new(ExprKind::Tuple(Vec::new()), Span::new(l, r)));
                }
                let inner = self.expr_list()?;
                let r = self.hi;
                self.expect(Tok::RParen)?;
                let e = build::parenthesized(inner, Span::new(l, r));
                return Ok(build::bounded(&mut self.problems, e));
            }
            Tok::LBracket => {
                let l = self.lo;
                self.bump();
                let items = self.comma(Tok::RBracket, Self::expr)?;
                let r = self.hi;
                self.expect(Tok::RBracket)?;
                let e = Expr::new(ExprKind::List(items), Span::new(l, r));
                return Ok(build::bounded(&mut self.problems, e));
            }
            _ => return Err(Bail),
        };
        self.bump();
        Ok(Expr::new(kind, span))
    }
}
