//! TypeCheck (codes 101–107): control-flow type consistency.
//!
//! Loop bounds and conditions must be scalars; the values that flow through a loop (iter-arg
//! init value, yielded value, return var) and the two yields of an `if` must agree in kind,
//! dtype, rank and constant dims. Symbolic dims, memrefs and views are never compared. Checks
//! run on a statement before its children (pre-order), as in the reference.

use super::{codes, Property, VerifyDiagnostic};
use crate::ir::visit::{child_stmts, last_stmt};
use crate::ir::{Expr, Function, Span, Stmt, Type, VarId, VarKind, VarTable};

pub(super) fn check(f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let vars = &f.vars;
    let mut c = TypeChecker { vars, out };
    c.walk(&f.body);
}

/// The reference's `Type::TypeName()`, used in messages.
fn type_name(t: &Type) -> &'static str {
    match t {
        Type::Unknown => "UnknownType",
        Type::Scalar(_) => "ScalarType",
        Type::Tensor(_) => "TensorType",
        Type::Tile(_) => "TileType",
        Type::Tuple(_) => "TupleType",
        Type::MemRef => "MemRefType",
    }
}

struct TypeChecker<'a> {
    vars: &'a VarTable,
    out: &'a mut Vec<VerifyDiagnostic>,
}

impl TypeChecker<'_> {
    /// Checks `s` and the statements nested in it, parents first. Only if/for/while are
    /// checked: sequences are walked and leaves skipped without the generic traversal.
    fn walk(&mut self, s: &Stmt) {
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|c| self.walk(c)),
            Stmt::Assign { .. } | Stmt::Eval { .. } | Stmt::Yield { .. } | Stmt::Return { .. } => {}
            _ => {
                self.stmt(s);
                child_stmts(s).for_each(|c| self.walk(c));
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::For { start, stop, step, iter_args, body, return_vars, span, .. } => {
                self.require_scalar(start, "ForStmt start", *span);
                self.require_scalar(stop, "ForStmt stop", *span);
                self.require_scalar(step, "ForStmt step", *span);
                self.check_loop("ForStmt", iter_args, body, return_vars, *span);
            }
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                self.require_scalar(cond, "WhileStmt condition", *span);
                self.check_loop("WhileStmt", iter_args, body, return_vars, *span);
            }
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                self.require_scalar(cond, "IfStmt condition", *span);
                if let (false, Some(else_body)) = (return_vars.is_empty(), else_body) {
                    self.check_if(then_body, else_body, return_vars.len(), *span);
                }
            }
            _ => {}
        }
    }

    /// Codes 106/107: `context` is e.g. `ForStmt start` or `IfStmt condition`; the reference
    /// picks the code by whether the context mentions "condition".
    fn require_scalar(&mut self, e: &Expr, context: &str, span: Span) {
        let t = self.vars.type_of(e);
        if !matches!(t, Type::Scalar(_)) {
            let code = if context.contains("condition") {
                codes::IF_CONDITION_MUST_BE_SCALAR
            } else {
                codes::FOR_RANGE_MUST_BE_SCALAR
            };
            self.error(code, format!("{context} must be ScalarType, but got {}", type_name(t)), span);
        }
    }

    /// For/While with iter args whose body ends in a yield: counts (code 105), then for each
    /// index the three pairs (init, yield), (yield, return var), (init, return var).
    fn check_loop(&mut self, ctx: &str, iter_args: &[VarId], body: &Stmt, return_vars: &[VarId], span: Span) {
        if iter_args.is_empty() {
            return;
        }
        let Stmt::Yield { values, .. } = last_stmt(body) else { return };
        let (n_iter, n_yield, n_ret) = (iter_args.len(), values.len(), return_vars.len());
        if n_iter != n_yield || n_iter != n_ret {
            let msg = format!("{ctx} size mismatch: iter_args={n_iter}, yield values={n_yield}, return_vars={n_ret}");
            self.error(codes::SIZE_MISMATCH, msg, span);
            return;
        }
        let vars = self.vars;
        for (i, ((&iter_arg, value), &ret)) in iter_args.iter().zip(values).zip(return_vars).enumerate() {
            // An iter arg without an init value (malformed IR) is skipped, like a null one.
            let Some(VarKind::IterArg { init }) = vars.get(iter_arg).map(|d| &d.kind) else {
                continue;
            };
            let (init_t, yield_t, ret_t) = (vars.type_of(init), vars.type_of(value), vars.var_type(ret));
            let (init_d, yield_d, ret_d) =
                (format!("iter_arg[{i}] initValue"), format!("yield value[{i}]"), format!("return_var[{i}]"));
            self.compare(init_t, yield_t, ctx, &init_d, &yield_d, span);
            self.compare(yield_t, ret_t, ctx, &yield_d, &ret_d, span);
            self.compare(init_t, ret_t, ctx, &init_d, &ret_d, span);
        }
    }

    /// If with return vars and an else, both branches ending in yields: counts (code 105), then
    /// the then/else yield values pairwise (return var types are not compared).
    fn check_if(&mut self, then_body: &Stmt, else_body: &Stmt, n_ret: usize, span: Span) {
        let (Stmt::Yield { values: then_vals, .. }, Stmt::Yield { values: else_vals, .. }) =
            (last_stmt(then_body), last_stmt(else_body))
        else {
            return;
        };
        let (n_then, n_else) = (then_vals.len(), else_vals.len());
        if n_then != n_else || n_then != n_ret {
            let msg = format!("IfStmt size mismatch: then yield={n_then}, else yield={n_else}, return_vars={n_ret}");
            self.error(codes::SIZE_MISMATCH, msg, span);
            return;
        }
        for (i, (a, b)) in then_vals.iter().zip(else_vals).enumerate() {
            let (ta, tb) = (self.vars.type_of(a), self.vars.type_of(b));
            self.compare(ta, tb, "IfStmt", &format!("then yield value[{i}]"), &format!("else yield value[{i}]"), span);
        }
    }

    /// The reference's `CheckTypeEquality`: kind (101, stops), then for scalars the dtype (102);
    /// for tensors/tiles the dtype (102), the rank (103, stops) and each pair of constant dims
    /// (104).
    fn compare(&mut self, t1: &Type, t2: &Type, ctx: &str, d1: &str, d2: &str, span: Span) {
        if std::mem::discriminant(t1) != std::mem::discriminant(t2) {
            let msg =
                format!("Type kind mismatch in {ctx}: {d1} type '{}' != {d2} type '{}'", type_name(t1), type_name(t2));
            self.error(codes::TYPE_KIND_MISMATCH, msg, span);
            return;
        }
        if t1.dtype() != t2.dtype() {
            self.error(codes::DTYPE_MISMATCH, format!("Dtype mismatch in {ctx}: {d1} dtype != {d2} dtype"), span);
        }
        let (Some(s1), Some(s2)) = (t1.shape(), t2.shape()) else { return };
        if s1.len() != s2.len() {
            let msg = format!(
                "Shape dimension count mismatch in {ctx}: {d1} has {} dimensions, but {d2} has {} dimensions",
                s1.len(),
                s2.len()
            );
            self.error(codes::SHAPE_DIMENSION_MISMATCH, msg, span);
            return;
        }
        for (i, (a, b)) in s1.iter().zip(s2).enumerate() {
            if let (Some(v1), Some(v2)) = (a.as_const_int(), b.as_const_int()) {
                if v1 != v2 {
                    let msg = format!(
                        "Shape dimension mismatch in {ctx}: {d1} dimension[{i}] = {v1}, but {d2} dimension[{i}] = {v2}"
                    );
                    self.error(codes::SHAPE_VALUE_MISMATCH, msg, span);
                }
            }
        }
    }

    fn error(&mut self, error_code: u32, message: String, span: Span) {
        self.out.push(VerifyDiagnostic { rule: Property::TypeChecked, error_code, message, span });
    }
}
