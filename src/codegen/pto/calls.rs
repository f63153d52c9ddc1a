//! Block ops (spec `pto-codegen.md` §9–§12), driven by the operator table's `pto` column.

use super::func::broken;
use super::func::{FnGen, Res};
use super::types;
use crate::analysis::param_roots::Root;
use crate::diag::Span;
use crate::ir::{Call, Callee, Expr, ExprKind, Type, VarId, VarKind};
use crate::ops::kwargs;
use crate::ops::modes::{CmpMode, RoundMode};
use crate::ops::pto::PtoEmit;

/// Where an op writes: the target's buffer value and type (§7.1).
pub type Target = Option<(String, String)>;

impl FnGen<'_> {
    /// Emits the op call `c` (at `span`) writing into `target`.
    pub fn call(&mut self, c: &Call, span: Span, target: Target) -> Res<()> {
        let emit = match &c.callee {
            Callee::Op(op) => crate::ops::def(*op).pto.ok_or_else(|| crate::ops::name(*op)),
            Callee::Function(f) => Err(f.as_str()),
        };
        let emit = emit.map_err(|name| broken(span, &format!("an operation without a PTO instruction ({name})")))?;
        match emit {
            PtoEmit::Generic { instr, arity } => self.generic(c, span, instr, arity, None, target),
            PtoEmit::Cmp { instr } => {
                let m = kwargs::cmp_mode(c).map(CmpMode::mlir_name);
                let m = m.ok_or_else(|| broken(span, "a compare mode out of range"))?;
                self.generic(c, span, instr, 2, Some(format!("{{cmpMode = #pto<cmp {m}>}}")), target)
            }
            PtoEmit::Cast => {
                let m = kwargs::round_mode(c).map(RoundMode::isa_name);
                let m = m.ok_or_else(|| broken(span, "a round mode out of range"))?;
                self.generic(c, span, "pto.tcvt", 1, Some(format!("{{rmode = #pto<round_mode {m}>}}")), target)
            }
            PtoEmit::Full => {
                arity(span, "pto.texpands", 2, c.args.len())?;
                let (value, annot) = self.operand(&c.args[1])?;
                let annot = annot.map(|a| format!(" : {a}")).unwrap_or_default();
                let line = format!("pto.texpands ins({value}{annot}) {}", outs(&target));
                self.line(&line);
                Ok(())
            }
            PtoEmit::Load => self.load(c, span, target),
            PtoEmit::Store => self.store(c, span),
            PtoEmit::Nothing => Ok(()),
        }
    }

    /// `INSTR ins(operands{attr} : annotations) outs(target)` (§9.1).
    fn generic(
        &mut self,
        c: &Call,
        span: Span,
        instr: &str,
        n: usize,
        attr: Option<String>,
        target: Target,
    ) -> Res<()> {
        arity(span, instr, n, c.args.len())?;
        let mut values = Vec::new();
        let mut annots = Vec::new();
        for a in &c.args {
            let (v, t) = self.operand(a)?;
            values.push(v);
            annots.extend(t);
        }
        let mut ins = values.join(", ");
        if let Some(attr) = attr {
            ins.push_str(&attr);
        }
        if !annots.is_empty() {
            ins.push_str(" : ");
            ins.push_str(&annots.join(", "));
        }
        let line = format!("{instr} ins({ins}) {}", outs(&target));
        self.line(&line);
        Ok(())
    }

    /// `block.load(tensor, offsets, shapes)`: a partition view, then `pto.tload` (§11).
    fn load(&mut self, c: &Call, span: Span, target: Target) -> Res<()> {
        let tensor = c.args.first().and_then(|e| e.as_var());
        let tensor = tensor.ok_or_else(|| broken(span, "a block.load of a tensor that is not a variable"))?;
        let offsets = tuple(c.args.get(1)).ok_or_else(|| broken(span, "block.load offsets that are not a tuple"))?;
        let shapes = tuple(c.args.get(2)).ok_or_else(|| broken(span, "block.load shapes that are not a tuple"))?;
        // Binding checks that the argument is a tensor.
        if !matches!(self.vars.var_type(tensor), Type::Tensor(_)) {
            return Err(broken(span, "a block.load of a non-tensor"));
        }
        let (buf, ty) = target.ok_or_else(|| broken(span, "a block.load without a target buffer"))?;
        let param = self.tensor_param(c, tensor, span)?;
        let part = self.partition_view(&param, offsets, shapes, span)?;
        self.line(&format!("pto.tload ins({} : {}) outs({buf} : {ty})", part.0, part.1));
        Ok(())
    }

    /// `block.store(tile, offsets, shapes, tensor)` / `block.l0c_store`: a partition view of
    /// the tensor, then `pto.tstore` (§11).
    fn store(&mut self, c: &Call, span: Span) -> Res<()> {
        let tile = self
            .plain_var(c.args.first())
            .ok_or_else(|| broken(span, "a block.store of a tile that is no plain variable"))?;
        let offsets = tuple(c.args.get(1)).ok_or_else(|| broken(span, "block.store offsets that are not a tuple"))?;
        let shapes = tuple(c.args.get(2)).ok_or_else(|| broken(span, "block.store shapes that are not a tuple"))?;
        let tensor = c.args.get(3).and_then(|e| e.as_var());
        let tensor = tensor.ok_or_else(|| broken(span, "a block.store into a tensor that is not a variable"))?;
        // Binding checks that the argument is a tensor.
        if !matches!(self.vars.var_type(tensor), Type::Tensor(_)) {
            return Err(broken(span, "a block.store into a non-tensor"));
        }
        let param = self.tensor_param(c, tensor, span)?;
        let part = self.partition_view(&param, offsets, shapes, span)?;
        let value = self.var_value(tile.0);
        let annot = match self.buffers.of_var(self.vars, tile.0) {
            Some(k) => format!(" : {}", self.buffer_values[k].1),
            None => String::new(),
        };
        self.line(&format!("pto.tstore ins({value}{annot}) outs({} : {})", part.0, part.1));
        Ok(())
    }

    /// `%p = pto.partition_view %view, offsets = [..], sizes = [..] : … -> …`: the value and
    /// its type. Only the first two offsets and sizes are read (the dialect's views are 2-D).
    fn partition_view(&mut self, tensor: &str, offsets: &[Expr], shapes: &[Expr], span: Span) -> Res<(String, String)> {
        // Every tensor parameter has a view, and `tensor_param` names one.
        let Some(view) = self.views.get(tensor) else {
            return Err(broken(span, &format!("an access of {tensor}, which has no tensor view")));
        };
        let (view_value, rank, dtype) = (view.value.clone(), view.rank, view.dtype);
        if offsets.len() < 2 || shapes.len() < 2 {
            return Err(broken(span, "a load or store window that is not 2-D"));
        }
        let (Some(h), Some(w)) = (shapes[0].as_const_int(), shapes[1].as_const_int()) else {
            return Err(broken(span, "a load or store of a size that is not constant"));
        };
        // Offsets may be computed (`[i * 16, 0]` in a loop): their arithmetic comes first. The
        // reference reads constants only and silently uses offset 0 for anything else.
        let mut idx = Vec::new();
        for e in [&offsets[0], &offsets[1], &shapes[0], &shapes[1]] {
            idx.push(match e.as_const_int() {
                Some(v) => self.names.index_const(v, self.indent),
                None => self.scalar(e)?,
            });
        }
        let p = self.names.fresh();
        let part_ty = format!("!pto.partition_tensor_view<{h}x{w}x{dtype}>");
        self.line(&format!(
            "{p} = pto.partition_view {view_value}, offsets = [{}, {}], sizes = [{}, {}] : {} -> {part_ty}",
            idx[0],
            idx[1],
            idx[2],
            idx[3],
            types::tensor_view(rank, dtype)
        ));
        Ok((p, part_ty))
    }

    /// The name of the tensor parameter whose view a load or store through `tensor` takes:
    /// the parameter itself, or the one a store result, loop-carried tensor or branch result
    /// aliases (`analysis::param_roots`; the reference accepts parameters only and fails on the rest,
    /// §11, `block.store output_tensor must be a Var`).
    fn tensor_param(&self, c: &Call, tensor: VarId, span: Span) -> Res<String> {
        let op = match &c.callee {
            Callee::Op(op) => crate::ops::name(*op),
            Callee::Function(f) => f.as_str(),
        };
        let name = self.vars.var_name(tensor);
        match self.tensor_roots.get(&tensor) {
            Some(Root::Param(p)) => Ok(self.vars.var_name(*p).to_string()),
            Some(Root::Ambiguous) => Err(broken(
                span,
                &format!("{op} through tensor `{name}`, which names different tensor parameters on different paths"),
            )),
            None => Err(broken(span, &format!("{op} through tensor `{name}`, which names no tensor parameter"))),
        }
    }

    /// A plain variable (not an iter arg: the reference does not accept those) and its name.
    fn plain_var(&self, e: Option<&Expr>) -> Option<(VarId, String)> {
        let v = e?.as_var()?;
        let var = self.vars.var(v);
        matches!(var.kind, VarKind::Plain).then(|| (v, var.name.clone()))
    }
}

/// `outs(dst : type)`, or `outs()` without a target.
fn outs(target: &Target) -> String {
    match target {
        Some((v, t)) => format!("outs({v} : {t})"),
        None => "outs()".to_string(),
    }
}

fn arity(span: Span, instr: &str, n: usize, got: usize) -> Res<()> {
    if n == got {
        return Ok(());
    }
    Err(broken(span, &format!("{instr} with {got} arguments, not {n}")))
}

fn tuple(e: Option<&Expr>) -> Option<&[Expr]> {
    match &e?.kind {
        ExprKind::MakeTuple(items) => Some(items),
        _ => None,
    }
}
