//! Statements, functions and programs → pretty documents (spec `ir-and-syntax.md` §3.2, §3.5).
//!
//! Every statement is one line of pre-formatted text (expressions and types are plain strings,
//! see `expr.rs`/`types.rs`); the layout — lines separated by `hardline`, each block's body
//! nested by 4 — is built with `pretty`. A block is its header line followed by a newline and
//! its body lines; an empty body therefore leaves a line with nothing on it, as the reference
//! does (`def e(self):` + `\n`).

use super::Ctx;
use crate::ir::{Expr, ForKind, Function, FunctionType, ParamDirection, Program, Stmt, VarId, VarKind};
use pretty::{Arena, DocAllocator, DocBuilder};

pub type Doc<'a> = DocBuilder<'a, Arena<'a>>;

/// Indentation of one block level.
const INDENT: isize = 4;

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

/// Builds documents in one arena; one per print call.
pub struct DocPrinter<'p, 'a> {
    pub ctx: Ctx<'p>,
    pub arena: &'a Arena<'a>,
}

impl<'p, 'a> DocPrinter<'p, 'a> {
    fn text(&self, s: String) -> Doc<'a> {
        self.arena.text(s)
    }

    /// Lines separated by newlines.
    pub fn lines(&self, lines: Vec<Doc<'a>>) -> Doc<'a> {
        self.arena.intersperse(lines, self.arena.hardline())
    }

    /// `header` then the body lines one level deeper.
    fn block(&self, header: String, body: Vec<Doc<'a>>) -> Doc<'a> {
        let a = self.arena;
        a.text(header).append(a.hardline().append(self.lines(body)).nest(INDENT))
    }

    /// The whole program: header comment, import, class with its functions in §3.9 order.
    pub fn program(&self, p: &Program) -> Doc<'a> {
        let a = self.arena;
        let name = if p.name.is_empty() { "Program" } else { p.name.as_str() };
        let functions = super::order::function_order(p).into_iter().map(|f| self.function(f)).collect();
        a.text(format!("# pypto.program: {name}"))
            .append(a.hardline())
            .append(a.text("import pypto.language as pl"))
            .append(a.hardline())
            .append(a.hardline())
            .append(a.text("@pl.program"))
            .append(a.hardline())
            .append(self.block(format!("class {name}:"), functions))
    }

    /// Decorator line and `def` block (with `self` inside a program).
    pub fn function(&self, f: &Function) -> Doc<'a> {
        let ctx = &self.ctx;
        let decorator = match f.kind {
            FunctionType::Opaque => "@pl.function".to_string(),
            kind => format!("@pl.function(type=pl.FunctionType.{})", kind.name()),
        };
        let mut def = format!("def {}(", f.name);
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
            ctx.ty(ctx.var_type(p.var), &mut def);
            def.push_str(close);
        }
        def.push(')');
        match f.return_types.as_slice() {
            [] => {}
            [t] => {
                def.push_str(" -> ");
                ctx.ty(t, &mut def);
            }
            ts => {
                def.push_str(" -> tuple[");
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        def.push_str(", ");
                    }
                    ctx.ty(t, &mut def);
                }
                def.push(']');
            }
        }
        def.push(':');
        let body = self.body(&f.body, BodyMode::FunctionTop);
        self.text(decorator).append(self.arena.hardline()).append(self.block(def, body))
    }

    /// The lines of a block body; `mode` decides how its direct yields print.
    fn body(&self, body: &Stmt, mode: BodyMode<'_>) -> Vec<Doc<'a>> {
        let children = match body {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.as_slice(),
            s => std::slice::from_ref(s),
        };
        let mut out = Vec::new();
        for (i, child) in children.iter().enumerate() {
            let is_last = i + 1 == children.len();
            match (child, mode) {
                (Stmt::Yield { values, .. }, BodyMode::FunctionTop) => {
                    out.push(self.text(self.values_line("return", values)))
                }
                (Stmt::Yield { values, .. }, BodyMode::Owner(rvs))
                    if is_last && !values.is_empty() && !rvs.is_empty() =>
                {
                    out.push(self.text(self.yield_assign(rvs, values)))
                }
                _ => self.stmt(child, &mut out),
            }
        }
        out
    }

    /// Appends the lines of `s` (several for `if`/`else` and for sequences).
    pub fn stmt(&self, s: &Stmt, out: &mut Vec<Doc<'a>>) {
        let ctx = &self.ctx;
        match s {
            Stmt::Assign { var, value, .. } => {
                let mut line = String::new();
                ctx.annotated(*var, &mut line);
                line.push_str(" = ");
                ctx.expr(value, &mut line);
                out.push(self.text(line));
            }
            Stmt::Eval { expr, .. } => {
                let mut line = String::new();
                ctx.expr(expr, &mut line);
                out.push(self.text(line));
            }
            Stmt::Return { values, .. } => out.push(self.text(self.values_line("return", values))),
            Stmt::Yield { values, .. } => out.push(self.text(self.yield_call(values))),
            Stmt::Break { .. } => out.push(self.text("break".into())),
            Stmt::Continue { .. } => out.push(self.text("continue".into())),
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => {
                for child in stmts {
                    self.stmt(child, out);
                }
            }
            Stmt::If { cond, then_body, else_body, return_vars, .. } => {
                let mut header = "if ".to_string();
                ctx.expr(cond, &mut header);
                header.push(':');
                out.push(self.block(header, self.body(then_body, BodyMode::Owner(return_vars))));
                if let Some(else_body) = else_body {
                    out.push(self.block("else:".into(), self.body(else_body, BodyMode::Owner(return_vars))));
                }
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, .. } => {
                let mut header = format!("for {}", ctx.var_name(*loop_var));
                if !iter_args.is_empty() {
                    header.push_str(", ");
                    self.iter_arg_names(iter_args, &mut header);
                }
                header.push_str(match kind {
                    ForKind::Sequential => " in pl.range(",
                    ForKind::Parallel => " in pl.parallel(",
                });
                ctx.expr(start, &mut header);
                header.push_str(", ");
                ctx.expr(stop, &mut header);
                header.push_str(", ");
                ctx.expr(step, &mut header);
                if !iter_args.is_empty() {
                    header.push_str(", ");
                    self.init_values(iter_args, &mut header);
                }
                header.push_str("):");
                out.push(self.block(header, self.body(body, BodyMode::Owner(return_vars))));
            }
            Stmt::While { cond, iter_args, body, return_vars, .. } => {
                let mut lines = Vec::new();
                let header = if iter_args.is_empty() {
                    let mut header = "while ".to_string();
                    ctx.expr(cond, &mut header);
                    header.push(':');
                    header
                } else {
                    let mut header = "for ".to_string();
                    self.iter_arg_names(iter_args, &mut header);
                    header.push_str(" in pl.while_(");
                    self.init_values(iter_args, &mut header);
                    header.push_str("):");
                    let mut cond_line = "pl.cond(".to_string();
                    ctx.expr(cond, &mut cond_line);
                    cond_line.push(')');
                    lines.push(self.text(cond_line));
                    header
                };
                lines.extend(self.body(body, BodyMode::Owner(return_vars)));
                out.push(self.block(header, lines));
            }
            Stmt::Scope { kind, body, .. } => {
                out.push(self.block(format!("with pl.{}():", kind.name()), self.body(body, BodyMode::Plain)));
            }
        }
    }

    /// `return` / `return a, b`.
    fn values_line(&self, keyword: &str, values: &[Expr]) -> String {
        let mut line = keyword.to_string();
        if !values.is_empty() {
            line.push(' ');
            self.ctx.comma_separated(values, &mut line);
        }
        line
    }

    /// `pl.yield_(a, b)`.
    fn yield_call(&self, values: &[Expr]) -> String {
        let mut s = "pl.yield_(".to_string();
        self.ctx.comma_separated(values, &mut s);
        s.push(')');
        s
    }

    /// `r: T = pl.yield_(x)` for one return var, `r1, r2 = pl.yield_(x, y)` for several.
    fn yield_assign(&self, return_vars: &[VarId], values: &[Expr]) -> String {
        let mut line = String::new();
        match return_vars {
            [r] => self.ctx.annotated(*r, &mut line),
            rs => {
                for (i, r) in rs.iter().enumerate() {
                    if i > 0 {
                        line.push_str(", ");
                    }
                    line.push_str(self.ctx.var_name(*r));
                }
            }
        }
        line.push_str(" = ");
        line.push_str(&self.yield_call(values));
        line
    }

    /// `(a, b)` / `(a,)`.
    fn iter_arg_names(&self, iter_args: &[VarId], out: &mut String) {
        out.push('(');
        for (i, v) in iter_args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(self.ctx.var_name(*v));
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
            match self.ctx.prog.vars.get(v.index()).map(|d| &d.kind) {
                Some(VarKind::IterArg { init }) => self.ctx.expr(init, out),
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
