//! Statements, functions and programs → text (spec `ir-and-syntax.md` §3.2, §3.5).
//!
//! Every statement is one line (expressions and types are appended by `expr.rs`/`types.rs`);
//! lines are separated by newlines and each block's body is indented by 4 more. A block is its
//! header line followed by its body lines; an empty body leaves an empty line, as the reference
//! does (`def e(self):` + `\n`). Nothing ever breaks, so the text is written straight into one
//! string (no document tree).

use super::Ctx;
use crate::ir::{Expr, ForKind, Function, FunctionType, ParamDirection, Program, Stmt, VarId, VarKind};

/// Indentation of one block level.
const INDENT: usize = 4;

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
    /// Whether a name or string literal wrote a line break of its own.
    inner_breaks: bool,
}

impl<'p> Writer<'p> {
    pub fn new(ctx: Ctx<'p>) -> Writer<'p> {
        Writer { ctx, out: String::new(), indent: 0, lines: 0, inner_breaks: false }
    }

    /// The text. A line made only of spaces is left empty (an empty block body, or a
    /// statement whose text is blank); if a name or string literal brought line breaks of its
    /// own, the lines they delimit get the same treatment.
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

    /// Starts a line: the break before it and the indentation. Returns where its text begins.
    fn start_line(&mut self) -> usize {
        if self.lines > 0 {
            self.out.push('\n');
        }
        self.lines += 1;
        for _ in 0..self.indent {
            self.out.push(' ');
        }
        self.out.len()
    }

    /// Ends the line whose text began at `text`: a blank one keeps no indentation.
    fn end_line(&mut self, text: usize) {
        let line = &self.out.as_bytes()[text..];
        if line.iter().all(|&b| b == b' ') {
            self.out.truncate(text - self.indent);
        } else if line.contains(&b'\n') {
            self.inner_breaks = true;
        }
    }

    fn line(&mut self, s: &str) {
        let text = self.start_line();
        self.out.push_str(s);
        self.end_line(text);
    }

    /// A line appended to by `f` (which gets the context and the text).
    fn line_with(&mut self, f: impl FnOnce(Ctx<'p>, &mut String)) {
        let text = self.start_line();
        f(self.ctx, &mut self.out);
        self.end_line(text);
    }

    /// A block: the header line (appended by `header`), then the lines `body` writes one level
    /// deeper, or one empty line if it writes none.
    fn block(&mut self, header: impl FnOnce(&mut Self), body: impl FnOnce(&mut Self)) {
        let text = self.start_line();
        header(self);
        self.end_line(text);
        self.indent += INDENT;
        let before = self.lines;
        body(self);
        if self.lines == before {
            self.line("");
        }
        self.indent -= INDENT;
    }

    /// The whole program: header comment, import, class with its functions in §3.9 order.
    pub fn program(&mut self, p: &Program) {
        let name = if p.name.is_empty() { "Program" } else { p.name.as_str() };
        self.line_with(|_, out| {
            out.push_str("# pypto.program: ");
            out.push_str(name);
        });
        self.line("import pypto.language as pl");
        self.line("");
        self.line("@pl.program");
        self.block(
            |w| {
                w.out.push_str("class ");
                w.out.push_str(name);
                w.out.push(':');
            },
            |w| {
                for f in super::order::function_order(p) {
                    w.function(f);
                }
            },
        );
    }

    /// Decorator line and `def` block (with `self` inside a program).
    pub fn function(&mut self, f: &Function) {
        let ctx = self.ctx;
        self.line_with(|_, out| match f.kind {
            FunctionType::Opaque => out.push_str("@pl.function"),
            kind => {
                out.push_str("@pl.function(type=pl.FunctionType.");
                out.push_str(kind.name());
                out.push(')');
            }
        });
        self.block(
            |w| {
                let def = &mut w.out;
                def.push_str("def ");
                def.push_str(&f.name);
                def.push('(');
                if ctx.in_program {
                    def.push_str("self");
                }
                for (i, p) in f.params.iter().enumerate() {
                    if i > 0 || ctx.in_program {
                        def.push_str(", ");
                    }
                    def.push_str(ctx.var_name(p.var));
                    def.push_str(": ");
                    let (open, close) = match p.direction {
                        ParamDirection::In => ("", ""),
                        ParamDirection::Out => ("pl.Out[", "]"),
                        ParamDirection::InOut => ("pl.InOut[", "]"),
                    };
                    def.push_str(open);
                    ctx.ty(ctx.var_type(p.var), def);
                    def.push_str(close);
                }
                def.push(')');
                match f.return_types.as_slice() {
                    [] => {}
                    [t] => {
                        def.push_str(" -> ");
                        ctx.ty(t, def);
                    }
                    ts => {
                        def.push_str(" -> tuple[");
                        for (i, t) in ts.iter().enumerate() {
                            if i > 0 {
                                def.push_str(", ");
                            }
                            ctx.ty(t, def);
                        }
                        def.push(']');
                    }
                }
                def.push(':');
            },
            |w| w.body(&f.body, BodyMode::FunctionTop),
        );
    }

    /// The lines of a block body; `mode` decides how its direct yields print.
    fn body(&mut self, body: &Stmt, mode: BodyMode<'_>) {
        let children = match body {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.as_slice(),
            s => std::slice::from_ref(s),
        };
        for (i, child) in children.iter().enumerate() {
            let is_last = i + 1 == children.len();
            match (child, mode) {
                (Stmt::Yield { values, .. }, BodyMode::FunctionTop) => {
                    self.line_with(|ctx, out| ctx.values_line("return", values, out))
                }
                (Stmt::Yield { values, .. }, BodyMode::Owner(rvs))
                    if is_last && !values.is_empty() && !rvs.is_empty() =>
                {
                    self.line_with(|ctx, out| ctx.yield_assign(rvs, values, out))
                }
                _ => self.stmt(child),
            }
        }
    }

    /// Writes the lines of `s` (several for `if`/`else` and for sequences).
    pub fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { var, value, .. } => self.line_with(|ctx, out| {
                ctx.annotated(*var, out);
                out.push_str(" = ");
                ctx.expr(value, out);
            }),
            Stmt::Eval { expr, .. } => self.line_with(|ctx, out| ctx.expr(expr, out)),
            Stmt::Return { values, .. } => self.line_with(|ctx, out| ctx.values_line("return", values, out)),
            Stmt::Yield { values, .. } => self.line_with(|ctx, out| ctx.yield_call(values, out)),
            Stmt::Break { .. } => self.line("break"),
            Stmt::Continue { .. } => self.line("continue"),
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                for child in stmts {
                    self.stmt(child);
                }
            }
            Stmt::If { cond, then_body, else_body, return_vars, .. } => {
                self.block(
                    |w| {
                        w.out.push_str("if ");
                        w.ctx.expr(cond, &mut w.out);
                        w.out.push(':');
                    },
                    |w| w.body(then_body, BodyMode::Owner(return_vars)),
                );
                if let Some(else_body) = else_body {
                    self.block(|w| w.out.push_str("else:"), |w| w.body(else_body, BodyMode::Owner(return_vars)));
                }
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, .. } => {
                self.block(
                    |w| {
                        let (ctx, header) = (w.ctx, &mut w.out);
                        header.push_str("for ");
                        header.push_str(ctx.var_name(*loop_var));
                        if !iter_args.is_empty() {
                            header.push_str(", ");
                            ctx.iter_arg_names(iter_args, header);
                        }
                        header.push_str(match kind {
                            ForKind::Sequential => " in pl.range(",
                            ForKind::Parallel => " in pl.parallel(",
                        });
                        ctx.expr(start, header);
                        header.push_str(", ");
                        ctx.expr(stop, header);
                        header.push_str(", ");
                        ctx.expr(step, header);
                        if !iter_args.is_empty() {
                            header.push_str(", ");
                            ctx.init_values(iter_args, header);
                        }
                        header.push_str("):");
                    },
                    |w| w.body(body, BodyMode::Owner(return_vars)),
                );
            }
            Stmt::While { cond, iter_args, body, return_vars, .. } => {
                self.block(
                    |w| {
                        let (ctx, header) = (w.ctx, &mut w.out);
                        if iter_args.is_empty() {
                            header.push_str("while ");
                            ctx.expr(cond, header);
                            header.push(':');
                        } else {
                            header.push_str("for ");
                            ctx.iter_arg_names(iter_args, header);
                            header.push_str(" in pl.while_(");
                            ctx.init_values(iter_args, header);
                            header.push_str("):");
                        }
                    },
                    |w| {
                        if !iter_args.is_empty() {
                            w.line_with(|ctx, out| {
                                out.push_str("pl.cond(");
                                ctx.expr(cond, out);
                                out.push(')');
                            });
                        }
                        w.body(body, BodyMode::Owner(return_vars));
                    },
                );
            }
            Stmt::Scope { kind, body, .. } => {
                self.block(
                    |w| {
                        w.out.push_str("with pl.");
                        w.out.push_str(kind.name());
                        w.out.push_str("():");
                    },
                    |w| w.body(body, BodyMode::Plain),
                );
            }
        }
    }
}

fn is_blank_with_spaces(line: &str) -> bool {
    !line.is_empty() && line.bytes().all(|b| b == b' ')
}

impl Ctx<'_> {
    /// `return` / `return a, b`.
    fn values_line(&self, keyword: &str, values: &[Expr], out: &mut String) {
        out.push_str(keyword);
        if !values.is_empty() {
            out.push(' ');
            self.comma_separated(values, out);
        }
    }

    /// `pl.yield_(a, b)`.
    fn yield_call(&self, values: &[Expr], out: &mut String) {
        out.push_str("pl.yield_(");
        self.comma_separated(values, out);
        out.push(')');
    }

    /// `r: T = pl.yield_(x)` for one return var, `r1, r2 = pl.yield_(x, y)` for several.
    fn yield_assign(&self, return_vars: &[VarId], values: &[Expr], out: &mut String) {
        match return_vars {
            [r] => self.annotated(*r, out),
            rs => {
                for (i, r) in rs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(self.var_name(*r));
                }
            }
        }
        out.push_str(" = ");
        self.yield_call(values, out);
    }

    /// `(a, b)` / `(a,)`.
    fn iter_arg_names(&self, iter_args: &[VarId], out: &mut String) {
        out.push('(');
        for (i, v) in iter_args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(self.var_name(*v));
        }
        if iter_args.len() == 1 {
            out.push(',');
        }
        out.push(')');
    }

    /// `init_values=(x, y)` / `init_values=(x,)` from the iter args' initial values.
    fn init_values(&self, iter_args: &[VarId], out: &mut String) {
        out.push_str("init_values=(");
        for (i, v) in iter_args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match self.prog.vars.get(v.index()).map(|d| &d.kind) {
                Some(VarKind::IterArg { init }) => self.expr(init, out),
                // Not an iter arg (malformed IR): the reference's text for a missing expression.
                _ => out.push_str("<unsupported IRNode type>"),
            }
        }
        if iter_args.len() == 1 {
            out.push(',');
        }
        out.push(')');
    }
}

impl Ctx<'_> {
    /// `name: TYPE` with the variable's own type.
    fn annotated(&self, v: VarId, out: &mut String) {
        out.push_str(self.var_name(v));
        out.push_str(": ");
        self.ty(self.var_type(v), out);
    }
}
