//! Expressions → text (spec `ir-and-syntax.md` §3.6) with the parenthesization of §3.8.

use super::doc::{self, Arena, Doc};
use super::float::{format_float, small_integral};
use super::Ctx;
use crate::ir::{BinOp, Call, Callee, DataType, Expr, ExprKind, KwValue, MemorySpace, PipeType, UnOp};
use crate::ops;
use pretty::DocAllocator;

/// Precedence of call-like forms (`min`, `max`, `abs`, `pl.cast`, every call), §3.8.
const CALL_PREC: u8 = 14;
/// Precedence of atoms (variables, constants, lists, subscripts), §3.8.
const ATOM_PREC: u8 = 15;

/// Printing precedence of an expression (§3.8); higher binds tighter.
fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, ..) => op.precedence(),
        ExprKind::Unary(op, _) => op.precedence(),
        ExprKind::Call(_) => CALL_PREC,
        _ => ATOM_PREC,
    }
}

/// §3.8: all binary operators are left-associative except `**`.
fn left_needs_parens(parent: BinOp, child: &Expr) -> bool {
    let (p, c) = (parent.precedence(), precedence(child));
    c < p || (c == p && parent == BinOp::Pow)
}

fn right_needs_parens(parent: BinOp, child: &Expr) -> bool {
    let (p, c) = (parent.precedence(), precedence(child));
    c < p || (c == p && parent != BinOp::Pow)
}

/// A binary node printed infix (everything but `min`/`max`): its operator and operands.
fn infix(e: &Expr) -> Option<(BinOp, &'static str, &Expr, &Expr)> {
    match &e.kind {
        ExprKind::Binary(op, l, r) => op.symbol().map(|sym| (*op, sym, &**l, &**r)),
        _ => None,
    }
}

impl<'a> Ctx<'a> {
    /// The document of `e`.
    pub fn expr(&self, a: &'a Arena<'a>, e: &'a Expr) -> Doc<'a> {
        match &e.kind {
            ExprKind::Var(id) => a.text(self.var_name(*id)),
            ExprKind::ConstInt(v, DataType::Int64) => doc::int(a, *v),
            ExprKind::ConstInt(v, d) => {
                a.text("pl.const(").append(doc::int(a, *v)).append(", pl.").append(d.name()).append(")")
            }
            ExprKind::ConstFloat(v, DataType::Fp32) => float(a, *v),
            ExprKind::ConstFloat(v, d) => {
                a.text("pl.const(").append(float(a, *v)).append(", pl.").append(d.name()).append(")")
            }
            ExprKind::ConstBool(b) => a.text(py_bool(*b)),
            ExprKind::Call(c) => self.call(a, c),
            ExprKind::MakeTuple(es) => self.expr_list(a, es),
            ExprKind::TupleGetItem(t, i) => self.expr(a, t).append("[").append(doc::uint(a, *i as u64)).append("]"),
            ExprKind::Binary(op, l, r) => match op.symbol() {
                Some(_) => self.infix_chain(a, e),
                None => {
                    let open = if *op == BinOp::Min { "min(" } else { "max(" };
                    doc::bracketed(a, self.width, open, [self.expr(a, l), self.expr(a, r)], "", ")")
                }
            },
            ExprKind::Unary(op, x) => match op {
                UnOp::Neg | UnOp::BitNot | UnOp::Not => {
                    let sign = match op {
                        UnOp::Neg => "-",
                        UnOp::BitNot => "~",
                        _ => "not ",
                    };
                    a.text(sign).append(self.expr_parens_if(a, x, precedence(x) < op.precedence()))
                }
                UnOp::Abs => doc::bracketed(a, self.width, "abs(", [self.expr(a, x)], "", ")"),
                UnOp::Cast => {
                    // The target dtype is the node's own dtype.
                    let target = match e.ty.dtype() {
                        Some(d) => self.dtype(a, d),
                        None => self.ty(a, &e.ty),
                    };
                    doc::bracketed(a, self.width, "pl.cast(", [self.expr(a, x), target], "", ")")
                }
            },
        }
    }

    fn expr_parens_if(&self, a: &'a Arena<'a>, e: &'a Expr, parens: bool) -> Doc<'a> {
        if parens {
            a.text("(").append(self.expr(a, e)).append(")")
        } else {
            self.expr(a, e)
        }
    }

    /// Prints an infix node. The chain of left operands (`a + b + c + …`, the shape long
    /// expressions have) is walked iteratively so its length costs no stack; right operands
    /// recurse. (The renderer walks left-nested appends iteratively too.)
    fn infix_chain(&self, a: &'a Arena<'a>, e: &'a Expr) -> Doc<'a> {
        // spine[0] is `e`; spine[k + 1] is the left operand of spine[k].
        let mut spine = Vec::new();
        let mut leaf = e;
        while let Some(node) = infix(leaf) {
            spine.push(node);
            leaf = node.2;
        }
        // Does spine[k] need parentheses as the left operand of spine[k - 1]?
        let wrapped = |k: usize| k > 0 && left_needs_parens(spine[k - 1].0, spine[k - 1].2);
        let opens = (1..spine.len()).filter(|&k| wrapped(k)).count();
        let mut out = a.nil();
        for _ in 0..opens {
            out = out.append("(");
        }
        if let Some(&(bottom, ..)) = spine.last() {
            out = out.append(self.expr_parens_if(a, leaf, left_needs_parens(bottom, leaf)));
        }
        for k in (0..spine.len()).rev() {
            let (op, sym, _, right) = spine[k];
            out = out.append(" ").append(sym).append(" ");
            out = out.append(self.expr_parens_if(a, right, right_needs_parens(op, right)));
            if wrapped(k) {
                out = out.append(")");
            }
        }
        out
    }

    /// `[a, b]`: a MakeTuple, a shape, a stride list.
    pub fn expr_list(&self, a: &'a Arena<'a>, es: &'a [Expr]) -> Doc<'a> {
        doc::bracketed(a, self.width, "[", es.iter().map(|e| self.expr(a, e)), "", "]")
    }

    fn call(&self, a: &'a Arena<'a>, c: &'a Call) -> Doc<'a> {
        let open = match &c.callee {
            Callee::Function(name) if self.in_program => {
                // Inside a class: a method call; the reference drops kwargs here.
                let args = c.args.iter().map(|e| self.expr(a, e));
                return a.text("self.").append(name.as_str()).append(doc::bracketed(a, self.width, "(", args, "", ")"));
            }
            Callee::Function(name) => a.text(name.as_str()),
            Callee::Op(op) => {
                let name = ops::printed_name(*op);
                if name.contains('.') {
                    a.text("pl.").append(name)
                } else {
                    a.text(name)
                }
            }
        };
        let is_alloc = c.callee.is_op(ops::id::ALLOC);
        let keyword = |i: usize| c.callee.op().and_then(|op| ops::def(op).keyword_arg(i));
        let args = c.args.iter().enumerate().map(|(i, arg)| match arg.kind {
            _ if keyword(i).is_some() => a.text(keyword(i).unwrap_or_default()).append("=").append(self.expr(a, arg)),
            // `block.alloc` keeps its memory space as an int constant; print the member.
            ExprKind::ConstInt(v, _) if is_alloc && i == 0 => {
                let space = MemorySpace::from_index(v).map_or("Unknown", MemorySpace::name);
                a.text("pl.MemorySpace.").append(space)
            }
            _ => self.expr(a, arg),
        });
        let pipe = |key: &str| c.callee.op().is_some_and(|op| ops::kwargs::is_pipe(op, key));
        let kwargs =
            c.kwargs.iter().map(|(key, value)| a.text(*key).append("=").append(self.kwarg_value(a, pipe(key), value)));
        open.append(doc::bracketed(a, self.width, "(", args.chain(kwargs), "", ")"))
    }

    /// A kwarg's value; `pipe`: the table says it holds a pipe, stored as its code.
    fn kwarg_value(&self, a: &'a Arena<'a>, pipe: bool, v: &'a KwValue) -> Doc<'a> {
        match v {
            KwValue::Int(i) if pipe => match PipeType::from_index(*i) {
                Some(pipe) => a.text("pl.PipeType.").append(pipe.name()),
                // Not a pipe: keep the number rather than invent a member.
                None => doc::int(a, *i),
            },
            KwValue::Int(i) => doc::int(a, *i),
            KwValue::Bool(b) => a.text(py_bool(*b)),
            // Verbatim, no escaping (the reference's behaviour).
            KwValue::Str(s) => a.text("'").append(s.as_str()).append("'"),
            KwValue::Float(f) => float(a, *f),
            KwValue::DType(d) => self.dtype(a, *d),
            KwValue::Space(s) => a.text("pl.MemorySpace.").append(s.name()),
            KwValue::Pad(p) => a.text("pl.TilePad.").append(p.name()),
        }
    }
}

/// A float literal (§3.7); integral values, the common case, without a heap string.
fn float<'a>(a: &'a Arena<'a>, v: f64) -> Doc<'a> {
    match small_integral(v) {
        Some(i) => doc::int(a, i).append(".0"),
        None => a.text(format_float(v)),
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}
