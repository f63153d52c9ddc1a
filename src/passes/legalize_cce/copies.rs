//! The copies of loop-carried tiles into their iter args' buffers and of an `if`'s tile
//! results into their own Vec buffers (see the pass documentation).

use super::{retyped, Legalize};
use crate::diag::Span;
use crate::ir::{Call, Callee, Expr, ExprKind, MemorySpace, Stmt, Type, VarId, VarKind, VarTable};
use crate::ops::id;

impl Legalize<'_> {
    /// The copies of a loop's yielded tiles into the carried buffers.
    pub(super) fn carry(&mut self, iter_args: &[VarId], body: &mut Stmt, return_vars: &[VarId]) {
        let Some(yielded) = body.final_yield().map(<[Expr]>::to_vec) else { return };
        // Per copy: index among the yields, source variable, destination MemRef.
        let mut copies: Vec<(usize, VarId, VarId)> = Vec::new();
        for (k, &a) in iter_args.iter().enumerate() {
            let Type::Tile(t) = self.vars.var_type(a) else { continue };
            let Some(m) = t.memref else { continue };
            let Some(y) = yielded.get(k).and_then(Expr::as_var) else { continue };
            let read_after = return_vars.get(k).is_none_or(|r| self.used.contains(r));
            if !self.used.contains(&a) && !read_after {
                continue;
            }
            if let Some(&r) = return_vars.get(k) {
                if matches!(self.vars.var_type(r), Type::Tile(_)) && self.vars.var_type(r).memref() != Some(m) {
                    self.changed = true;
                    crate::analysis::memref_plan::set_memref(&mut self.vars.var_mut(r).ty, m);
                }
            }
            if self.vars.var_type(y).memref() == Some(m) || self.memref_space(m) != Some(MemorySpace::Vec) {
                continue;
            }
            if self.space(&yielded[k]) != Some(MemorySpace::Vec) {
                continue;
            }
            copies.push((k, y, m));
        }
        if copies.is_empty() {
            return;
        }
        self.changed = true;
        let span = body.span();
        let mut stmts = Vec::new();
        // A source in a buffer another copy writes is read before any copy writes.
        let dests: Vec<VarId> = copies.iter().map(|c| c.2).collect();
        for (_, src, m) in copies.iter_mut() {
            let sm = self.vars.var_type(*src).memref();
            if dests.iter().any(|d| Some(*d) == sm && d != m) {
                let fresh = self.new_memref_like(*src, span);
                let ty = retyped(self.vars.var_type(*src), fresh);
                let staged = self.new_tile(&format!("{}_staged", self.vars.var_name(*src)), ty, span);
                stmts.push(copy_stmt(self.vars, staged, *src, span));
                *src = staged;
            }
        }
        let mut new_values = yielded.clone();
        for &(k, src, m) in &copies {
            let ty = retyped(self.vars.var_type(iter_args[k]), m);
            let home = self.new_tile(&format!("{}_next", self.vars.var_name(iter_args[k])), ty, span);
            stmts.push(copy_stmt(self.vars, home, src, span));
            new_values[k] = Expr::var(home, yielded[k].span);
        }
        replace_final_yield(body, stmts, new_values);
    }

    /// The copies of an `if`'s yielded tiles into its results' own Vec buffers.
    pub(super) fn if_results(&mut self, then_body: &mut Stmt, else_body: Option<&mut Stmt>, return_vars: &[VarId]) {
        let then_yield = then_body.final_yield().map(<[Expr]>::to_vec);
        let else_yield = else_body.as_deref().and_then(Stmt::final_yield).map(<[Expr]>::to_vec);
        let mut then_copies = Vec::new();
        let mut else_copies = Vec::new();
        for (j, &r) in return_vars.iter().enumerate() {
            let Type::Tile(t) = self.vars.var_type(r) else { continue };
            let Some(m) = t.memref else { continue };
            if self.memref_space(m) != Some(MemorySpace::Ddr) {
                continue;
            }
            // Every branch's value must be a Vec tile: the copy is a vector instruction (code
            // generation reports any other).
            let yields: Vec<&Expr> =
                [&then_yield, &else_yield].into_iter().flatten().filter_map(|ys| ys.get(j)).collect();
            if yields.is_empty()
                || yields.iter().any(|y| y.as_var().is_none() || self.space(y) != Some(MemorySpace::Vec))
            {
                continue;
            }
            let Some(first) = yields[0].as_var() else { continue };
            // The DDR MemRef becomes a Vec buffer: every type naming it (an iter arg started
            // from the result shares its MemRef) is then on chip.
            let size = self.vars.var_type(first).memref().map_or(0, |fm| self.size(fm));
            let var = self.vars.var_mut(m);
            if let VarKind::MemRef(info) = &mut var.kind {
                info.space = MemorySpace::Vec;
                info.size = size;
                var.name = info.derived_name();
            }
            self.new_memrefs.push(m);
            self.changed = true;
            if then_yield.as_ref().is_some_and(|ys| ys.len() > j) {
                then_copies.push((j, r));
            }
            if else_yield.as_ref().is_some_and(|ys| ys.len() > j) {
                else_copies.push((j, r));
            }
        }
        if let Some(ys) = then_yield {
            self.branch_copies(then_body, ys, &then_copies);
        }
        if let (Some(ys), Some(e)) = (else_yield, else_body) {
            self.branch_copies(e, ys, &else_copies);
        }
    }

    /// Copies yield `j` of `body` into a tile of result `r`'s type, for each `(j, r)`.
    fn branch_copies(&mut self, body: &mut Stmt, yielded: Vec<Expr>, copies: &[(usize, VarId)]) {
        if copies.is_empty() {
            return;
        }
        self.changed = true;
        let span = body.span();
        let mut stmts = Vec::new();
        let mut values = yielded.clone();
        for &(j, r) in copies {
            let Some(src) = yielded[j].as_var() else { continue };
            let ty = self.vars.var_type(r).clone();
            let home = self.new_tile(&format!("{}_home", self.vars.var_name(r)), ty, span);
            stmts.push(copy_stmt(self.vars, home, src, span));
            values[j] = Expr::var(home, yielded[j].span);
        }
        replace_final_yield(body, stmts, values);
    }
}

/// `dst = block.vec_move(src)`.
fn copy_stmt(vars: &VarTable, dst: VarId, src: VarId, span: Span) -> Stmt {
    let call = Call { callee: Callee::Op(id::VEC_MOVE), args: vec![Expr::var(src, span)], kwargs: Vec::new() };
    let value = Expr::new(ExprKind::Call(Box::new(call)), vars.var_type(dst).clone(), span);
    Stmt::Assign { var: dst, value, span }
}

/// Puts `stmts` before the yield that ends `body` and makes it yield `values`.
fn replace_final_yield(body: &mut Stmt, stmts: Vec<Stmt>, values: Vec<Expr>) {
    // The copies go into an `OpStmts` (normalised structure: a sequence holds no bare
    // assignment), the one before the yield when there is one.
    match body {
        Stmt::Yield { values: vs, .. } => {
            *vs = values;
            if !stmts.is_empty() {
                let y = std::mem::replace(body, Stmt::empty());
                let span = y.span();
                *body = Stmt::Seq { stmts: vec![Stmt::Ops { stmts, span }, y], span };
            }
        }
        Stmt::Ops { stmts: list, .. } if matches!(list.last(), Some(Stmt::Yield { .. })) => {
            if let Some(Stmt::Yield { values: vs, .. }) = list.last_mut() {
                *vs = values;
            }
            let at = list.len() - 1;
            list.splice(at..at, stmts);
        }
        Stmt::Seq { stmts: list, span } if matches!(list.last(), Some(Stmt::Yield { .. })) => {
            if let Some(Stmt::Yield { values: vs, .. }) = list.last_mut() {
                *vs = values;
            }
            if stmts.is_empty() {
                return;
            }
            let at = list.len() - 1;
            match at.checked_sub(1).map(|i| &mut list[i]) {
                Some(Stmt::Ops { stmts: ops, .. }) => ops.extend(stmts),
                _ => list.insert(at, Stmt::Ops { stmts, span: *span }),
            }
        }
        Stmt::Seq { stmts: list, .. } | Stmt::Ops { stmts: list, .. } => {
            if let Some(last) = list.last_mut() {
                replace_final_yield(last, stmts, values);
            }
        }
        Stmt::Scope { body, .. } => replace_final_yield(body, stmts, values),
        _ => {}
    }
}
