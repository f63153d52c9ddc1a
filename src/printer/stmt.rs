//! Statements, functions and programs → text (spec `ir-and-syntax.md` §3.2, §3.5).
//!
//! Every statement is one document (expressions and types come from `expr.rs`/`types.rs`),
//! rendered as one line unless a bracket wraps; lines are separated by newlines and each
//! block's body is indented by 4 more. A block is its header line followed by its body lines;
//! an empty body leaves an empty line, as the reference does (`def e(self):` + `\n`).

use super::doc::{self, Arena, Doc, INDENT};
use super::Ctx;
use crate::ir::{Expr, ForKind, Function, FunctionType, ParamDirection, Program, Stmt, VarId, VarKind};
use pretty::DocAllocator;

/// How the direct children of a body print a `YieldStmt` (§3.5).
#[derive(Clone, Copy)]
enum BodyMode<'p> {
    /// A function body: every direct yield prints as `return …`.
    FunctionTop,
    /// An if branch or loop body of a statement with these return vars: a last direct yield
    /// with values prints as `r: T = pl.yield_(…)` / `r1, r2 = pl.yield_(…)`.
    Owner(&'p [VarId]),
    /// Anything else: yields print bare.
    Plain,
}

/// Writes the lines of one print call into one string.
pub struct Writer<'p> {
    pub ctx: Ctx<'p>,
    out: String,
    /// Spaces at the start of each line.
    indent: usize,
    /// Lines started so far; the first has no line break before it.
    lines: usize,
    /// Whether a line holds a line break of its own (a wrapped statement, or a name or string
    /// literal with one).
    inner_breaks: bool,
    /// Variables whose types the text does not show and reading it back would not give back:
    /// each gets a declaration before its statement (`declare.rs`).
    declare: rustc_hash::FxHashSet<VarId>,
}

/// Spaces for the indentation of a line, borrowed while the nesting is shallow.
const SPACES: &str = "                                                                ";

impl<'p> Writer<'p> {
    pub fn new(ctx: Ctx<'p>) -> Writer<'p> {
        Writer { ctx, out: String::new(), indent: 0, lines: 0, inner_breaks: false, declare: Default::default() }
    }

    /// The text. A line made only of spaces is left empty (an empty block body, or a
    /// statement whose text is blank); if a line brought line breaks of its own, the lines
    /// they delimit get the same treatment.
    pub fn finish(self) -> String {
        if !self.inner_breaks {
            return self.out;
        }
        let mut out = String::with_capacity(self.out.len());
        for (i, line) in self.out.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            if !is_blank_with_spaces(line) {
                out.push_str(line);
            }
        }
        out
    }

    /// Writes one line: the break before it, the indentation and the rendering of `doc`. The
    /// indentation is part of the document, so that the renderer measures the line from its
    /// first column and a wrapped bracket's lines are indented from the statement's. A blank
    /// line keeps no indentation.
    fn line(&mut self, doc: Doc<'_>) {
        if self.lines > 0 {
            self.out.push('\n');
        }
        self.lines += 1;
        let start = self.out.len();
        let a = doc.0;
        let indent = match SPACES.get(..self.indent) {
            Some(spaces) => a.text(spaces),
            None => a.text(" ".repeat(self.indent)),
        };
        doc::render_into(indent.append(doc).nest(self.indent as isize), self.ctx.width, &mut self.out);
        let line = &self.out.as_bytes()[start..];
        if line.iter().all(|&b| b == b' ') {
            self.out.truncate(start);
        } else if line.contains(&b'\n') {
            self.inner_breaks = true;
        }
    }

    /// A line of plain text.
    fn text(&mut self, s: &str) {
        let a = Arena::new();
        self.line(a.text(s));
    }

    /// A block: the header line, then the lines `body` writes one level deeper, or one empty
    /// line if it writes none.
    fn block(&mut self, header: Doc<'_>, body: impl FnOnce(&mut Self)) {
        self.line(header);
        self.indent += INDENT;
        let before = self.lines;
        body(self);
        if self.lines == before {
            self.text("");
        }
        self.indent -= INDENT;
    }

    /// The lines of a program before its functions: header comment, import, decorator and
    /// `class` line; the functions follow one level deeper ([`Writer::class_member`]).
    pub fn program_head(&mut self, p: &'p Program) {
        let name = if p.name.is_empty() { "Program" } else { p.name.as_str() };
        let a = Arena::new();
        self.line(a.text("# pypto.program: ").append(name));
        self.text("import pypto.language as pl");
        self.text("");
        self.text("@pl.program");
        self.line(a.text("class ").append(name).append(":"));
    }

    /// The text of function `f` in the body of its program's class.
    pub fn class_member(ctx: Ctx<'p>, f: &'p Function) -> String {
        let mut w = Writer::new(ctx);
        w.indent = INDENT;
        w.function(f);
        w.finish()
    }

    /// Decorator line and `def` block (with `self` inside a program).
    pub fn function(&mut self, f: &'p Function) {
        self.declare = super::declare::to_declare(f);
        let ctx = self.ctx;
        let a = Arena::new();
        self.line(match f.kind {
            FunctionType::Opaque => a.text("@pl.function"),
            kind => a.text("@pl.function(type=pl.FunctionType.").append(kind.name()).append(")"),
        });
        let this = ctx.in_program.then(|| a.text("self"));
        let params = f.params.iter().map(|p| {
            let ty = ctx.ty(&a, ctx.var_type(p.var));
            let ty = match p.direction {
                ParamDirection::In => ty,
                ParamDirection::Out => a.text("pl.Out[").append(ty).append("]"),
                ParamDirection::InOut => a.text("pl.InOut[").append(ty).append("]"),
            };
            a.text(ctx.var_name(p.var)).append(": ").append(ty)
        });
        let def = a.text("def ").append(f.name.as_str());
        let mut header = def.append(doc::bracketed(&a, ctx.width, "(", this.into_iter().chain(params), "", ")"));
        match f.return_types.as_slice() {
            [] => {}
            [t] => header = header.append(" -> ").append(ctx.ty(&a, t)),
            ts => {
                let ts = doc::bracketed(&a, ctx.width, "tuple[", ts.iter().map(|t| ctx.ty(&a, t)), "", "]");
                header = header.append(" -> ").append(ts);
            }
        }
        self.block(header.append(":"), |w| w.body(&f.body, BodyMode::FunctionTop));
    }

    /// The lines of a block body; `mode` decides how its direct yields print.
    fn body(&mut self, body: &'p Stmt, mode: BodyMode<'p>) {
        let children = match body {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.as_slice(),
            s => std::slice::from_ref(s),
        };
        let ctx = self.ctx;
        for (i, child) in children.iter().enumerate() {
            let is_last = i + 1 == children.len();
            match (child, mode) {
                (Stmt::Yield { values, .. }, BodyMode::FunctionTop) => {
                    let a = Arena::new();
                    self.line(ctx.values_line(&a, "return", values));
                }
                (Stmt::Yield { values, .. }, BodyMode::Owner(rvs))
                    if is_last && !values.is_empty() && !rvs.is_empty() =>
                {
                    let a = Arena::new();
                    self.line(ctx.yield_assign(&a, rvs, values));
                }
                _ => self.stmt(child),
            }
        }
    }

    /// `v: T` before an `if` or loop for each of its iter args and return vars whose type
    /// neither the text shows (iter args and a multi-value yield's targets carry no annotation)
    /// nor reading it back gives back (`declare.rs`).
    fn declarations(&mut self, iter_args: &'p [VarId], return_vars: &'p [VarId]) {
        if self.declare.is_empty() {
            return;
        }
        let ctx = self.ctx;
        for &v in iter_args.iter().chain(return_vars) {
            if self.declare.contains(&v) {
                let a = Arena::new();
                self.line(ctx.annotated(&a, v));
            }
        }
    }

    /// Writes the lines of `s` (several for `if`/`else` and for sequences).
    pub fn stmt(&mut self, s: &'p Stmt) {
        let ctx = self.ctx;
        let a = Arena::new();
        let w = ctx.width;
        match s {
            Stmt::Assign { var, value, .. } => {
                self.line(ctx.annotated(&a, *var).append(" = ").append(ctx.expr(&a, value)))
            }
            Stmt::Eval { expr, .. } => self.line(ctx.expr(&a, expr)),
            Stmt::Return { values, .. } => self.line(ctx.values_line(&a, "return", values)),
            Stmt::Yield { values, .. } => self.line(ctx.yield_call(&a, values)),
            Stmt::Break { .. } => self.text("break"),
            Stmt::Continue { .. } => self.text("continue"),
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                for child in stmts {
                    self.stmt(child);
                }
            }
            Stmt::If { cond, then_body, else_body, return_vars, .. } => {
                self.declarations(&[], return_vars);
                let header = a.text("if ").append(ctx.expr(&a, cond)).append(":");
                self.block(header, |w| w.body(then_body, BodyMode::Owner(return_vars)));
                if let Some(else_body) = else_body {
                    self.block(a.text("else:"), |w| w.body(else_body, BodyMode::Owner(return_vars)));
                }
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, .. } => {
                self.declarations(iter_args, return_vars);
                let mut header = a.text("for ").append(ctx.var_name(*loop_var));
                if !iter_args.is_empty() {
                    header = header.append(", ").append(ctx.iter_arg_names(&a, iter_args));
                }
                let range = match kind {
                    ForKind::Sequential => "pl.range(",
                    ForKind::Parallel => "pl.parallel(",
                    ForKind::Pipeline(_) => "pl.pipeline(",
                };
                let bounds = [ctx.expr(&a, start), ctx.expr(&a, stop), ctx.expr(&a, step)];
                let stage = match kind {
                    ForKind::Pipeline(n) => Some(a.text(format!("stage={n}"))),
                    _ => None,
                };
                let inits = (!iter_args.is_empty()).then(|| ctx.init_values(&a, iter_args));
                let range = doc::bracketed(&a, w, range, bounds.into_iter().chain(stage).chain(inits), "", ")");
                let header = header.append(" in ").append(range).append(":");
                self.block(header, |w| w.body(body, BodyMode::Owner(return_vars)));
            }
            Stmt::While { cond, iter_args, body, return_vars, .. } => {
                self.declarations(iter_args, return_vars);
                let header = if iter_args.is_empty() {
                    a.text("while ").append(ctx.expr(&a, cond)).append(":")
                } else {
                    let inits = doc::bracketed(&a, w, "pl.while_(", [ctx.init_values(&a, iter_args)], "", ")");
                    a.text("for ").append(ctx.iter_arg_names(&a, iter_args)).append(" in ").append(inits).append(":")
                };
                self.block(header, |w| {
                    if !iter_args.is_empty() {
                        let a = Arena::new();
                        w.line(doc::bracketed(&a, ctx.width, "pl.cond(", [ctx.expr(&a, cond)], "", ")"));
                    }
                    w.body(body, BodyMode::Owner(return_vars));
                });
            }
            Stmt::Scope { kind, body, .. } => {
                let header = a.text("with pl.").append(kind.name()).append("():");
                self.block(header, |w| w.body(body, BodyMode::Plain));
            }
        }
    }
}

fn is_blank_with_spaces(line: &str) -> bool {
    !line.is_empty() && line.bytes().all(|b| b == b' ')
}

impl<'a> Ctx<'a> {
    /// `return` / `return a, b` (no brackets, so only the values' own brackets may break).
    fn values_line(&self, a: &'a Arena<'a>, keyword: &'a str, values: &'a [Expr]) -> Doc<'a> {
        let mut line = a.text(keyword);
        for (i, v) in values.iter().enumerate() {
            line = line.append(if i == 0 { " " } else { ", " }).append(self.expr(a, v));
        }
        line
    }

    /// `pl.yield_(a, b)`.
    fn yield_call(&self, a: &'a Arena<'a>, values: &'a [Expr]) -> Doc<'a> {
        doc::bracketed(a, self.width, "pl.yield_(", values.iter().map(|v| self.expr(a, v)), "", ")")
    }

    /// `r: T = pl.yield_(x)` for one return var, `r1, r2 = pl.yield_(x, y)` for several.
    fn yield_assign(&self, a: &'a Arena<'a>, return_vars: &'a [VarId], values: &'a [Expr]) -> Doc<'a> {
        let targets = match return_vars {
            [r] => self.annotated(a, *r),
            rs => {
                let mut names = a.nil();
                for (i, r) in rs.iter().enumerate() {
                    if i > 0 {
                        names = names.append(", ");
                    }
                    names = names.append(self.var_name(*r));
                }
                names
            }
        };
        targets.append(" = ").append(self.yield_call(a, values))
    }

    /// `(a, b)` / `(a,)`.
    fn iter_arg_names(&self, a: &'a Arena<'a>, iter_args: &'a [VarId]) -> Doc<'a> {
        let tail = if iter_args.len() == 1 { "," } else { "" };
        doc::bracketed(a, self.width, "(", iter_args.iter().map(|v| a.text(self.var_name(*v))), tail, ")")
    }

    /// `init_values=(x, y)` / `init_values=(x,)` from the iter args' initial values.
    fn init_values(&self, a: &'a Arena<'a>, iter_args: &'a [VarId]) -> Doc<'a> {
        let tail = if iter_args.len() == 1 { "," } else { "" };
        let inits = iter_args.iter().map(|v| match self.vars.get(*v).map(|d| &d.kind) {
            Some(VarKind::IterArg { init }) => self.expr(a, init),
            // Not an iter arg (malformed IR): the reference's text for a missing expression.
            _ => a.text("<unsupported IRNode type>"),
        });
        a.text("init_values=").append(doc::bracketed(a, self.width, "(", inits, tail, ")"))
    }

    /// `name: TYPE` with the variable's own type.
    fn annotated(&self, a: &'a Arena<'a>, v: VarId) -> Doc<'a> {
        a.text(self.var_name(v)).append(": ").append(self.ty(a, self.var_type(v)))
    }
}
