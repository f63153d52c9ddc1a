//! Telling hand-written text from printed text (see [`super::Authorship`]): a scan of a
//! function's syntax tree for anything the reference's printer never writes.

use super::Lowerer;
use crate::ast::{self, Arg, ExprKind as A, StmtKind as S};

/// The `pl.NAME(...)` forms the printer writes itself (statement forms, constants, scalar casts).
const PRINTED_FORMS: &[&str] =
    &["const", "yield_", "range", "parallel", "pipeline", "while_", "cond", "incore", "cast"];

impl Lowerer {
    /// Whether `f`'s text has a form the printer never writes: an assignment without an
    /// annotation (a single-target yield included), tuple unpacking, an operator in a DSL
    /// spelling, or an operator call that does not write all its defaulted keyword arguments.
    pub(super) fn is_hand_written(&self, f: &ast::FuncDef) -> bool {
        self.stmts_hand_written(&f.body)
    }

    /// Whether `f`'s parameters name a MemRef: text after the memory passes, which only the
    /// printer writes (the reference's tests build such IR without every defaulted kwarg).
    pub(super) fn has_memrefs(&self, f: &ast::FuncDef) -> bool {
        f.params.iter().filter_map(|p| p.annotation.as_ref()).any(|a| self.names_memref(a))
    }

    fn names_memref(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            A::Call(f, args) => {
                self.prefixed_name(f) == Some("MemRef") || args.iter().any(|a| self.arg_names_memref(a))
            }
            A::Subscript(base, items) => self.names_memref(base) || items.iter().any(|a| self.arg_names_memref(a)),
            A::List(es) | A::Tuple(es) => es.iter().any(|e| self.names_memref(e)),
            _ => false,
        }
    }

    fn arg_names_memref(&self, a: &Arg) -> bool {
        match a {
            Arg::Keyword(k, _) if k.name == "memref" => true,
            Arg::Positional(e) | Arg::Keyword(_, e) => self.names_memref(e),
        }
    }

    fn stmts_hand_written(&self, stmts: &[ast::Stmt]) -> bool {
        stmts.iter().any(|s| self.stmt_hand_written(s))
    }

    fn stmt_hand_written(&self, s: &ast::Stmt) -> bool {
        match &s.kind {
            S::Assign { targets, tuple_target, annotation, value } => {
                let is_yield = matches!(&value.kind, A::Call(f, _) if self.prefixed_name(f) == Some("yield_"));
                let printed_shape = if is_yield {
                    targets.len() > 1 || annotation.is_some()
                } else {
                    !tuple_target && annotation.is_some()
                };
                !printed_shape || self.expr_hand_written(value)
            }
            S::AnnOnly { .. } | S::Break | S::Continue | S::Pass => false,
            S::Expr(e) => self.expr_hand_written(e),
            S::Return(es) => es.iter().any(|e| self.expr_hand_written(e)),
            S::If { cond, then_body, else_body } => {
                self.expr_hand_written(cond)
                    || self.stmts_hand_written(then_body)
                    || else_body.as_deref().is_some_and(|b| self.stmts_hand_written(b))
            }
            S::For { iter, body, .. } => self.expr_hand_written(iter) || self.stmts_hand_written(body),
            S::While { cond, body } => self.expr_hand_written(cond) || self.stmts_hand_written(body),
            S::With { item, body, .. } => self.expr_hand_written(item) || self.stmts_hand_written(body),
        }
    }

    fn expr_hand_written(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            A::Call(f, args) => {
                let own = match self.op_path(f) {
                    Some((parts, 1)) => !PRINTED_FORMS.contains(&parts[0]),
                    Some((parts, 2)) => {
                        let positional = args.iter().filter(|a| matches!(a, Arg::Positional(_))).count();
                        let keywords: Vec<&str> = args
                            .iter()
                            .filter_map(|a| match a {
                                Arg::Keyword(k, _) => Some(k.name.as_str()),
                                Arg::Positional(_) => None,
                            })
                            .collect();
                        crate::ops::is_printed_form(&parts[..2], positional, &keywords) == Some(false)
                    }
                    _ => false,
                };
                own || self.expr_hand_written(f) || args.iter().any(|a| self.arg_hand_written(a))
            }
            A::Attr(base, _) => self.expr_hand_written(base),
            A::Subscript(base, items) => self.expr_hand_written(base) || items.iter().any(|a| self.arg_hand_written(a)),
            A::List(es) | A::Tuple(es) => es.iter().any(|e| self.expr_hand_written(e)),
            A::Binary(_, a, b) => self.expr_hand_written(a) || self.expr_hand_written(b),
            A::Unary(_, a) => self.expr_hand_written(a),
            A::Name(_) | A::Int(_) | A::Float(_) | A::Str(_) | A::Bool(_) | A::None | A::Unsupported => false,
        }
    }

    fn arg_hand_written(&self, a: &Arg) -> bool {
        match a {
            Arg::Positional(e) | Arg::Keyword(_, e) => self.expr_hand_written(e),
        }
    }
}
