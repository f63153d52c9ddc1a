//! Expressions → text (spec `ir-and-syntax.md` §3.6) with the parenthesization of §3.8.

use super::float::push_float;
use super::Ctx;
use crate::ir::{BinOp, Call, Callee, DataType, Expr, ExprKind, KwValue, MemorySpace, PipeType, UnOp};
use crate::ops;
use crate::text::cat;


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

impl Ctx<'_> {
    /// Appends the text of `e` to `out`.
    pub fn expr(&self, e: &Expr, out: &mut String) {
        match &e.kind {
            ExprKind::Var(id) => out.push_str(self.var_name(*id)),
            ExprKind::ConstInt(v, DataType::Int64) => cat!(out; *v),
            ExprKind::ConstInt(v, d) => cat!(out; "pl.const(", *v, ", pl.", d.name(), ")"),
            ExprKind::ConstFloat(v, DataType::Fp32) => push_float(*v, out),
            ExprKind::ConstFloat(v, d) => {
                out.push_str("pl.const(");
                push_float(*v, out);
                cat!(out; ", pl.", d.name(), ")");
            }
            ExprKind::ConstBool(b) => out.push_str(py_bool(*b)),
            ExprKind::Call(c) => self.call(c, out),
            ExprKind::MakeTuple(es) => self.expr_list(es, out),
            ExprKind::TupleGetItem(t, i) => {
                self.expr(t, out);
                cat!(out; "[", *i, "]");
            }
            ExprKind::Binary(op, l, r) => match op.symbol() {
                Some(_) => self.infix_chain(e, out),
                None => {
                    out.push_str(if *op == BinOp::Min { "min(" } else { "max(" });
                    self.expr(l, out);
                    out.push_str(", ");
                    self.expr(r, out);
                    out.push(')');
                }
            },
            ExprKind::Unary(op, x) => match op {
                UnOp::Neg | UnOp::BitNot | UnOp::Not => {
                    out.push_str(match op {
                        UnOp::Neg => "-",
                        UnOp::BitNot => "~",
                        _ => "not ",
                    });
                    self.expr_parens_if(x, precedence(x) < op.precedence(), out);
                }
                UnOp::Abs => {
                    out.push_str("abs(");
                    self.expr(x, out);
                    out.push(')');
                }
                UnOp::Cast => {
                    out.push_str("pl.cast(");
                    self.expr(x, out);
                    out.push_str(", ");
                    // The target dtype is the node's own dtype.
                    match e.ty.dtype() {
                        Some(d) => self.dtype(d, out),
                        None => self.ty(&e.ty, out),
                    }
                    out.push(')');
                }
            },
        }
    }

    fn expr_parens_if(&self, e: &Expr, parens: bool, out: &mut String) {
        if parens {
            out.push('(');
            self.expr(e, out);
            out.push(')');
        } else {
            self.expr(e, out);
        }
    }

    /// Prints an infix node. The chain of left operands (`a + b + c + …`, the shape long
    /// expressions have) is walked iteratively so its length costs no stack; right operands
    /// recurse.
    fn infix_chain(&self, e: &Expr, out: &mut String) {
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
        out.extend(std::iter::repeat_n('(', opens));
        if let Some(&(bottom, ..)) = spine.last() {
            self.expr_parens_if(leaf, left_needs_parens(bottom, leaf), out);
        }
        for k in (0..spine.len()).rev() {
            let (op, sym, _, right) = spine[k];
            out.push(' ');
            out.push_str(sym);
            out.push(' ');
            self.expr_parens_if(right, right_needs_parens(op, right), out);
            if wrapped(k) {
                out.push(')');
            }
        }
    }

    /// `[a, b]`: a MakeTuple, a shape, a stride list.
    pub fn expr_list(&self, es: &[Expr], out: &mut String) {
        out.push('[');
        self.comma_separated(es, out);
        out.push(']');
    }

    pub fn comma_separated(&self, es: &[Expr], out: &mut String) {
        for (i, e) in es.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.expr(e, out);
        }
    }

    fn call(&self, c: &Call, out: &mut String) {
        match &c.callee {
            Callee::Function(name) if self.in_program => {
                // Inside a class: a method call; the reference drops kwargs here.
                cat!(out; "self.", name, "(");
                self.comma_separated(&c.args, out);
                out.push(')');
                return;
            }
            Callee::Function(name) => out.push_str(name),
            Callee::Op(op) => {
                let name = ops::printed_name(*op);
                if name.contains('.') {
                    out.push_str("pl.");
                }
                out.push_str(name);
            }
        }
        out.push('(');
        let is_alloc = matches!(c.callee, Callee::Op(op) if ops::name(op) == "block.alloc");
        let mut first = true;
        for (i, a) in c.args.iter().enumerate() {
            if !std::mem::take(&mut first) {
                out.push_str(", ");
            }
            match a.kind {
                // `block.alloc` keeps its memory space as an int constant; print the member.
                ExprKind::ConstInt(v, _) if is_alloc && i == 0 => {
                    let space = MemorySpace::from_index(v).map_or("Unknown", MemorySpace::name);
                    cat!(out; "pl.MemorySpace.", space);
                }
                _ => self.expr(a, out),
            }
        }
        for (key, value) in &c.kwargs {
            if !std::mem::take(&mut first) {
                out.push_str(", ");
            }
            out.push_str(key);
            out.push('=');
            self.kwarg_value(key, value, out);
        }
        out.push(')');
    }

    fn kwarg_value(&self, key: &str, v: &KwValue, out: &mut String) {
        match v {
            KwValue::Int(i) if key == "set_pipe" || key == "wait_pipe" => match PipeType::from_index(*i) {
                Some(pipe) => cat!(out; "pl.PipeType.", pipe.name()),
                // Not a pipe: keep the number rather than invent a member.
                None => cat!(out; *i),
            },
            KwValue::Int(i) => cat!(out; *i),
            KwValue::Bool(b) => out.push_str(py_bool(*b)),
            // Verbatim, no escaping (the reference's behaviour).
            KwValue::Str(s) => cat!(out; "'", s, "'"),
            KwValue::Float(f) => push_float(*f, out),
            KwValue::DType(d) => self.dtype(*d, out),
            KwValue::Space(s) => cat!(out; "pl.MemorySpace.", s.name()),
        }
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}
