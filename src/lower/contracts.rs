//! What a function promises and its callers rely on: a function that declares results returns
//! them (of the declared kinds and dtypes), and a call passes arguments of its callee's parameter
//! types. The reference checks neither (its unit tests even contain functions that declare a
//! result and never return it); a program that breaks either compiles there to C++ that computes
//! something other than it says, so ptoc refuses it where it is written.

use super::annotation::{merge, Disagreement};
use super::{Lowerer, Signature};
use crate::ast;
use crate::diag::{codes, Diagnostic};
use crate::ir::{DataType, Expr, ExprKind, Stmt, Type};

impl Lowerer {
    /// A function declaring results must end with a `return` of that many values, each
    /// agreeing with its declared type (kind, dtype, static shape).
    pub(super) fn check_returns(&mut self, f: &ast::FuncDef, return_types: &[Type], body: &Stmt) {
        // Whether the text ends with a `return` is read from the syntax: a `return` whose
        // value failed to lower (already reported) is still there.
        let ends_with_return = matches!(f.body.last(), Some(ast::Stmt { kind: ast::StmtKind::Return(_), .. }));
        if !ends_with_return {
            if !return_types.is_empty() {
                let declared = return_types.iter().map(|t| self.shown(t)).collect::<Vec<_>>().join(", ");
                self.error(
                    Diagnostic::error(
                        codes::MISSING_RETURN,
                        f.name.span,
                        format!(
                            "function `{}` declares a result ({declared}) but does not end with a `return`",
                            f.name.name
                        ),
                    )
                    .with_note("help: end the body with `return <value>`, or remove the `-> …` annotation"),
                );
            }
            return;
        }
        let last = match body {
            Stmt::Seq { stmts, .. } => stmts.last(),
            s => Some(s),
        };
        let Some(Stmt::Return { values, span }) = last else { return };
        if values.len() != return_types.len() {
            self.error(Diagnostic::error(
                codes::RETURN_MISMATCH,
                *span,
                format!(
                    "function `{}` declares {} result(s), but this `return` gives {}",
                    f.name.name,
                    return_types.len(),
                    values.len()
                ),
            ));
            return;
        }
        for (v, t) in values.iter().zip(return_types) {
            let vt = self.vars.type_of(v);
            if let Err(d) = merge(&self.vars, &self.vars, t, vt) {
                let msg = format!(
                    "the returned value's {} disagrees with the declared result: declared {}, but the value is {}",
                    d.what(),
                    self.shown(t),
                    self.shown(vt)
                );
                self.error(Diagnostic::error(codes::RETURN_MISMATCH, v.span, msg));
            }
        }
    }

    /// The arguments of a call of `name` agree with the parameter types of its signature `sig`
    /// (kind, dtype, static shape; symbolic dims are not compared).
    pub(super) fn check_call_args(&self, name: &str, sig: &Signature, args: &[Expr]) -> Result<(), Diagnostic> {
        // The parameters' types are written in the callee's variables.
        let callee_shown = |t: &Type| crate::ops::fmt_type(&sig.vars, t);
        for (i, (param, a)) in sig.params.iter().zip(args).enumerate() {
            let p = sig.vars.var_type(param.var);
            // A scalar argument converts to the parameter's dtype within its family (an integer
            // literal is INT64, a float literal FP32).
            let at = self.vars.type_of(a);
            if let (Type::Scalar(pd), Type::Scalar(ad)) = (p, at) {
                if pd.is_int() == ad.is_int() && pd.is_float() == ad.is_float() {
                    continue;
                }
                // An integer passed for a BOOL is its truth value (not zero), a BOOL passed
                // for an integer is 0 or 1: the conversions C++ makes, and how PyPTO's own
                // programs pass flags (`is_first: pl.Scalar[pl.BOOL]` given an INT64).
                let is_bool = |d: &DataType| *d == DataType::Bool;
                if (is_bool(pd) && ad.is_int()) || (pd.is_int() && is_bool(ad)) {
                    continue;
                }
                // An integer literal is also a float argument when the float holds its value
                // (`self.k(x, 3)` for `beta: pl.Scalar[pl.FP16]` passes 3.0, as in Python).
                if let (ExprKind::ConstInt(v, _), true) = (&a.kind, pd.is_float()) {
                    if pd.holds_int_exactly(*v) {
                        continue;
                    }
                    return Err(Diagnostic::error(
                        codes::CALL_ARG_MISMATCH,
                        a.span,
                        format!(
                            "argument {} of `{name}` is the integer {v}, which {} cannot hold exactly (the parameter is {})",
                            i + 1,
                            pd.name(),
                            callee_shown(p)
                        ),
                    ));
                }
            }
            // A parameter's MemRef is the callee's own (each function plans its memory), so
            // memory spaces are not compared here.
            match merge(&sig.vars, &self.vars, p, at) {
                Ok(_) | Err(Disagreement::MemorySpace) => {}
                Err(d) => {
                    return Err(Diagnostic::error(
                        codes::CALL_ARG_MISMATCH,
                        a.span,
                        format!(
                            "argument {} of `{name}` has the wrong {}: the parameter is {}, but the argument is {}",
                            i + 1,
                            d.what(),
                            callee_shown(p),
                            self.shown(at)
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    fn shown(&self, t: &Type) -> String {
        crate::ops::fmt_type(&self.vars, t)
    }
}
