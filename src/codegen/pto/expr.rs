//! Scalar expressions (spec `pto-codegen.md` §8) and block-op operands (§9.1).

use super::func::{broken, spell, FnGen, Res};
use crate::diag::Diagnostic;
use crate::ir::{BinOp, Expr, ExprKind, Type, UnOp, VarId, VarKind};

impl FnGen<'_> {
    /// The value bound to a variable's name; the empty string when none is (the reference's
    /// behaviour for a name it never bound, §3).
    pub fn var_value(&self, v: VarId) -> String {
        self.names.lookup(self.vars.var_name(v)).unwrap_or_default().to_string()
    }

    /// The value of a scalar expression, emitting the lines it needs first (§8).
    pub fn scalar(&mut self, e: &Expr) -> Res<String> {
        match &e.kind {
            ExprKind::Var(v) => Ok(self.var_value(*v)),
            ExprKind::ConstInt(v, _) => Ok(self.names.index_const(*v, self.indent)),
            ExprKind::ConstFloat(v, d) => {
                let ty = spell(*d, e.span)?;
                Ok(self.names.float_const(*v, ty, self.indent))
            }
            ExprKind::ConstBool(b) => {
                let n = self.names.fresh();
                self.line(&format!("{n} = arith.constant {b} : i1"));
                Ok(n)
            }
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, e),
            // A cast between integer types (all `index` here) keeps the value; other unary
            // operators would need an emitter (the reference passes the operand through, a
            // silent miscompile: ptoc refuses instead).
            ExprKind::Unary(UnOp::Cast, x) if crate::verify::pto_form::same_scalar_kind(self.vars, x, e) => {
                self.scalar(x)
            }
            ExprKind::Unary(op, _) => Err(no_scalar_emitter(e, op.node_name())),
            ExprKind::TupleGetItem(x, _) => self.scalar(x),
            ExprKind::Call(c) => self.last_of(&c.args),
            ExprKind::MakeTuple(items) => self.last_of(items),
        }
    }

    /// The reference's rule for expressions it has no emitter for: generate the operands in
    /// order, the value is the last one's.
    fn last_of(&mut self, items: &[Expr]) -> Res<String> {
        let mut last = String::new();
        for i in items {
            last = self.scalar(i)?;
        }
        Ok(last)
    }

    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, e: &Expr) -> Res<String> {
        let float = matches!(e.ty, Type::Scalar(d) if d.is_float());
        let arith = match (op, float) {
            (BinOp::Add, false) => "addi",
            (BinOp::Sub, false) => "subi",
            (BinOp::Mul, false) => "muli",
            (BinOp::FloorDiv, false) => "divsi",
            (BinOp::FloorMod, false) => "remsi",
            (BinOp::Add, true) => "addf",
            (BinOp::Sub, true) => "subf",
            (BinOp::Mul, true) => "mulf",
            (BinOp::FloorDiv, true) => "divf",
            (BinOp::FloorMod, true) => "remf",
            // `pl.min`/`pl.max` (the DSL's loop-bound clamps) have plain `arith` ops; the
            // reference has no emitter and uses the last operand (§8), so ptoc emits them.
            (BinOp::Min, false) => "minsi",
            (BinOp::Max, false) => "maxsi",
            (BinOp::Min, true) => "minimumf",
            (BinOp::Max, true) => "maximumf",
            _ if op.is_comparison() => return self.compare(op, l, r),
            // True division, powers, logical and bitwise operators have no `arith`
            // line here: the reference uses the last operand's value (a miscompile).
            _ => return Err(no_scalar_emitter(e, op.node_name())),
        };
        let a = self.scalar(l)?;
        let b = self.scalar(r)?;
        let ty = match e.ty {
            Type::Scalar(d) if d.is_float() => spell(d, e.span)?,
            _ => "index",
        };
        let n = self.names.fresh();
        self.line(&format!("{n} = arith.{arith} {a}, {b} : {ty}"));
        Ok(n)
    }

    /// `arith.cmpf` when the left operand is a float, else `arith.cmpi` on `index`.
    fn compare(&mut self, op: BinOp, l: &Expr, r: &Expr) -> Res<String> {
        let a = self.scalar(l)?;
        let b = self.scalar(r)?;
        let left = self.vars.type_of(l).scalar_dtype().filter(|d| d.is_float());
        let i = [BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge]
            .iter()
            .position(|o| *o == op)
            .unwrap_or(0);
        let n = self.names.fresh();
        let text = match left {
            Some(d) => {
                let p = ["oeq", "one", "olt", "ole", "ogt", "oge"][i];
                format!("{n} = arith.cmpf {p}, {a}, {b} : {}", spell(d, l.span)?)
            }
            None => {
                let p = ["eq", "ne", "slt", "sle", "sgt", "sge"][i];
                format!("{n} = arith.cmpi {p}, {a}, {b} : index")
            }
        };
        self.line(&text);
        Ok(n)
    }

    /// A block op's operand: its value and its type annotation, if it has one (§9.1).
    pub fn operand(&mut self, e: &Expr) -> Res<(String, Option<String>)> {
        match &e.kind {
            ExprKind::Var(v) => {
                let value = self.var_value(*v);
                let var = self.vars.var(*v);
                // The reference annotates plain variables only: an iter arg has none.
                let annot = match (&var.kind, &var.ty) {
                    (VarKind::IterArg { .. }, _) => None,
                    (_, Type::Tile(_)) => self.buffers.of_var(self.vars, *v).map(|k| self.buffer_values[k].1.clone()),
                    (_, Type::Scalar(d)) => Some(spell(*d, var.span)?.to_string()),
                    _ => None,
                };
                Ok((value, annot))
            }
            ExprKind::ConstInt(v, _) => Ok((self.names.index_const(*v, self.indent), Some("index".into()))),
            // A float operand of a block op is declared f32 whatever its dtype (§6.2).
            ExprKind::ConstFloat(v, _) => Ok((self.names.float_const(*v, "f32", self.indent), Some("f32".into()))),
            _ => Ok((self.scalar(e)?, None)),
        }
    }
}

/// A scalar expression kind the PTO backend has no `arith` emitter for, which the PTO form rule
/// refuses.
fn no_scalar_emitter(e: &Expr, node: &str) -> Diagnostic {
    broken(e.span, &format!("the scalar expression `{node}`"))
}
