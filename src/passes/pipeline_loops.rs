//! PipelineLoops: software pipelining of loops by copies of their body.
//!
//! A loop runs serially across iterations when one set of buffers serves every iteration: the
//! next iteration's load must wait until this iteration's compute and store have read the
//! buffer it overwrites. Running the body as F copies, each with buffers of its own, lets copy
//! k+1's loads proceed while copy k computes and stores; insert-sync then places the syncs per
//! copy (each copy's buffers have their own event ids, and the write-after-read wait of a buffer
//! falls at the next use of the same copy, F iterations later).
//!
//! `for i in pl.pipeline(start, stop, step, stage=F)` (and, at `-O2`, every innermost
//! `pl.range` loop of an InCore function whose body's buffers fit twice in their memory spaces,
//! as `stage=2`, or with the copies of the function's schedule, which basic-memory-reuse may
//! choose by the cycle model) becomes
//!
//! - a loop over `start .. start + main·step` with step `F·step` whose body is the F copies:
//!   copy k reads the loop variable as `i + k·step`, the carried values of copy k−1 (copy 0:
//!   the loop's iter args) and its own buffers; its last copy's yield is the loop's yield;
//! - when the trip count is not a multiple of F, a loop over the remaining iterations with the
//!   body as written (in copy 0's buffers, which are free by then), carrying on from the first.
//!
//! A copy's buffers are the MemRefs that only variables defined in the body use (not its iter
//! args or results, whose buffer carries a value from one iteration to the next, nor anything
//! defined outside the loop): copy k ≥ 1 gets a fresh MemRef of the same space and size for each,
//! so allocate-memory-addr places every copy, and checks the capacity of each space. The pass
//! runs after basic-memory-reuse (whose lifetime plan would otherwise share the copies' buffers
//! again) and legalize-cce, before insert-sync.
//!
//! A loop is left as a plain `pl.range` (in the order written, which is what `pl.pipeline`
//! means too) when the transformation does not apply: bounds that are not constants, fewer
//! iterations than copies, a `break`/`continue` in the body, or a function that is not InCore
//! (no buffers to copy), and a loop that carries a tile when F does not divide its trip count
//! (the remainder loop would carry the tile on from the buffer the first loop left it in, which
//! the CCE kernel writer has no form for). `-O2` picks no loop whose copies would not fit.

use rustc_hash::{FxHashMap, FxHashSet};

use super::alloc_stmts::{alloc_stmt, insert_after_allocs};
use super::{Carried, OptLevel, PassEnv};
use crate::backend::{align_up, capacity};
use crate::diag::{Diagnostic, Span};
use crate::ir::visit::walk_defined_vars;
use crate::ir::{
    BinOp, Call, Expr, ExprKind, ForKind, Function, FunctionType, MemRefInfo, MemorySpace, Stmt, TensorType, TileType,
    TileView, Type, VarId, VarKind, VarTable,
};

/// The copies `-O2` makes of a loop body it pipelines on its own, unless the function's
/// schedule says otherwise ([`Function::schedule`]).
pub const AUTO_STAGES: u8 = 2;

/// `pipeline-loops` on one function. What the pass before handed over is handed on when no
/// loop was rewritten.
pub fn carrying(mut f: Function, carried: Carried, env: &PassEnv) -> Result<(Function, Carried), Vec<Diagnostic>> {
    let incore = f.kind == FunctionType::InCore;
    let stages = super::schedule_of(&f, env.opt).stages;
    let auto = incore && env.opt >= OptLevel::O2 && stages >= 2;
    if !auto && !has_pipeline(&f.body) {
        return Ok((f, carried));
    }
    let vars = std::mem::take(&mut f.vars);
    let mut cx = Pipeliner::new(vars, &f, incore, if auto { stages } else { 0 });
    let body = std::mem::replace(&mut f.body, Stmt::empty());
    f.body = cx.stmt(body);
    let allocs = cx.new_memrefs.iter().filter_map(|&m| alloc_stmt(&cx.vars, m)).collect();
    let expanded = cx.expanded;
    f.vars = cx.vars;
    if !expanded {
        return Ok((f, carried));
    }
    insert_after_allocs(&mut f.body, allocs);
    Ok((f, Carried::Nothing))
}

fn has_pipeline(s: &Stmt) -> bool {
    let mut found = false;
    crate::ir::visit::walk_stmts(s, &mut |st| {
        found |= matches!(st, Stmt::For { kind: ForKind::Pipeline(_), .. });
    });
    found
}

fn has_jump_or_loop(s: &Stmt) -> (bool, bool) {
    let (mut jump, mut inner) = (false, false);
    crate::ir::visit::walk_stmts(s, &mut |st| match st {
        Stmt::Break { .. } | Stmt::Continue { .. } => jump = true,
        Stmt::For { .. } | Stmt::While { .. } => inner = true,
        _ => {}
    });
    (jump, inner)
}

struct Pipeliner {
    vars: VarTable,
    /// Whether loops are copied at all (InCore functions only).
    incore: bool,
    /// The copies of the loops written `pl.range` that are pipelined too (`-O2`; 0: none).
    auto: u8,
    /// For each MemRef, the variables of the function whose type names it.
    users: FxHashMap<VarId, Vec<VarId>>,
    /// Bytes placed per memory space (by `MemorySpace::index`), as allocate-memory-addr lays
    /// them out: every buffer of its own, 32-byte aligned.
    used: [u64; 6],
    /// The names taken, so that a new variable's name is unique in the printed IR.
    names: FxHashSet<String>,
    next_id: u64,
    new_memrefs: Vec<VarId>,
    expanded: bool,
}

/// The substitution of one copy of a body: variable uses to expressions, MemRefs to MemRefs.
#[derive(Default)]
struct Subst {
    exprs: FxHashMap<VarId, Expr>,
    memrefs: FxHashMap<VarId, VarId>,
    /// The suffix of the copy's new variable names.
    suffix: String,
}

impl Pipeliner {
    fn new(vars: VarTable, f: &Function, incore: bool, auto: u8) -> Pipeliner {
        let mut users: FxHashMap<VarId, Vec<VarId>> = FxHashMap::default();
        let mut add = |v: VarId| {
            if let Some(m) = vars.var_type(v).memref() {
                users.entry(m).or_default().push(v);
            }
        };
        f.params.iter().for_each(|p| add(p.var));
        walk_defined_vars(&f.body, &mut add);
        let mut used = [0u64; 6];
        for m in super::allocate_memory_addr::body_tile_memrefs(&vars, &f.body) {
            if let VarKind::MemRef(info) = &vars.var(m).kind {
                if info.space != MemorySpace::Ddr {
                    used[info.space.index()] = align_up(used[info.space.index()].saturating_add(info.size));
                }
            }
        }
        let next_id = vars.next_memref_id();
        let names = vars.iter().map(|(_, d)| d.name.clone()).collect();
        Pipeliner { vars, incore, auto, users, used, names, next_id, new_memrefs: Vec::new(), expanded: false }
    }

    fn stmt(&mut self, s: Stmt) -> Stmt {
        match s {
            Stmt::Seq { stmts, span } => Stmt::Seq { stmts: self.stmts(stmts), span },
            Stmt::Ops { stmts, span } => Stmt::Ops { stmts: self.stmts(stmts), span },
            Stmt::If { cond, then_body, else_body, return_vars, span } => Stmt::If {
                cond,
                then_body: Box::new(self.stmt(*then_body)),
                else_body: else_body.map(|e| Box::new(self.stmt(*e))),
                return_vars,
                span,
            },
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                Stmt::While { cond, iter_args, body: Box::new(self.stmt(*body)), return_vars, span }
            }
            Stmt::Scope { kind, body, span } => Stmt::Scope { kind, body: Box::new(self.stmt(*body)), span },
            s @ Stmt::For { .. } => {
                let mut out = self.for_loop(s);
                if out.len() == 1 {
                    out.pop().unwrap_or_else(Stmt::empty)
                } else {
                    let span = out[0].span();
                    Stmt::Seq { stmts: out, span }
                }
            }
            other => other,
        }
    }

    fn stmts(&mut self, list: Vec<Stmt>) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(list.len());
        for s in list {
            if matches!(s, Stmt::For { .. }) {
                out.extend(self.for_loop(s));
            } else {
                out.push(self.stmt(s));
            }
        }
        out
    }

    /// A loop, its body rewritten first; pipelined into one or two loops when it applies.
    fn for_loop(&mut self, s: Stmt) -> Vec<Stmt> {
        let Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, span } = s else {
            return vec![s];
        };
        let body = self.stmt(*body);
        let (jump, inner) = has_jump_or_loop(&body);
        let stages = match kind {
            ForKind::Pipeline(n) => n,
            ForKind::Sequential if self.auto >= 2 && !inner => self.auto,
            _ => 1,
        };
        let explicit = matches!(kind, ForKind::Pipeline(_));
        let kind = if explicit { ForKind::Sequential } else { kind };
        let bounds = (start.as_const_int(), stop.as_const_int(), step.as_const_int());
        // `plain` keeps the loop as written (a `pl.pipeline` becomes the `pl.range` it means).
        let plain = |body: Stmt| {
            vec![Stmt::For {
                loop_var,
                start: start.clone(),
                stop: stop.clone(),
                step: step.clone(),
                iter_args: iter_args.clone(),
                body: Box::new(body),
                return_vars: return_vars.clone(),
                kind,
                span,
            }]
        };
        let (Some(lo), Some(hi), Some(st)) = bounds else {
            return plain(body);
        };
        if !self.incore || stages < 2 || jump || st == 0 {
            return plain(body);
        }
        let trip = trip_count(lo, hi, st);
        // The remainder loop would carry a tile on in the buffer the first loop left it in,
        // which the CCE kernel writer has no form for: such a loop is pipelined only when the
        // copies divide its trip count.
        let carries_tile = iter_args.iter().any(|a| matches!(self.vars.var_type(*a), Type::Tile(_)));
        if trip < u64::from(stages) || (carries_tile && !trip.is_multiple_of(u64::from(stages))) {
            return plain(body);
        }
        // With no buffer of its own, a copy would overlap with nothing.
        let own = self.own_memrefs(&body, &iter_args, &return_vars);
        if own.is_empty() {
            return plain(body);
        }
        let mut extra = [0u64; 6];
        // Only a tile's buffer takes room in its space: a MemRef that only tensors hold (the
        // result of an `l0c_store`, typed as a tensor in Vec) has no address and no bytes there.
        for &m in own.iter().filter(|&&m| self.holds_tile(m)) {
            let (space, size) = self.memref_info(m);
            extra[space.index()] =
                extra[space.index()].saturating_add(align_up(size).saturating_mul(u64::from(stages - 1)));
        }
        let fits = (0..6).all(|i| {
            let space = MemorySpace::from_index(i as i64).unwrap_or(MemorySpace::Ddr);
            space == MemorySpace::Ddr || self.used[i].saturating_add(extra[i]) <= capacity(space)
        });
        // At -O2 a loop written `pl.range` is pipelined only when its copies fit; a loop written
        // `pl.pipeline` always is (allocate-memory-addr reports a space that overflows).
        if !explicit && !fits {
            return plain(body);
        }
        for (used, extra) in self.used.iter_mut().zip(extra) {
            *used = used.saturating_add(extra);
        }
        self.expanded = true;
        self.expand(Loop { loop_var, lo, st, trip, stages, iter_args, body, return_vars, span }, &own)
    }

    /// The on-chip MemRefs of tiles defined in `body` that no value live across the loop holds:
    /// the buffers each copy gets its own of. A MemRef the lifetime plan shares with a tile
    /// before or after the loop counts, unless that tile is read in the body (live through every
    /// iteration) or is one of the loop's iter args and results: a fresh buffer for a copy
    /// aliases nothing, and copy 0 keeps the shared one.
    fn own_memrefs(&self, body: &Stmt, iter_args: &[VarId], return_vars: &[VarId]) -> Vec<VarId> {
        let mut inside = FxHashSet::default();
        walk_defined_vars(body, &mut |v| {
            inside.insert(v);
        });
        for v in iter_args.iter().chain(return_vars) {
            inside.remove(v);
        }
        let mut read = FxHashSet::default();
        crate::ir::visit::walk_all_exprs(body, &mut |e| {
            if let crate::ir::ExprKind::Var(v) = e.kind {
                read.insert(v);
            }
        });
        let carried = |u: &VarId| iter_args.contains(u) || return_vars.contains(u);
        let dead_outside = |u: &VarId| inside.contains(u) || !(read.contains(u) || carried(u));
        let mut own = Vec::new();
        let mut seen = FxHashSet::default();
        walk_defined_vars(body, &mut |v| {
            let Some(m) = self.vars.var_type(v).memref() else { return };
            if !seen.insert(m) {
                return;
            }
            let on_chip = matches!(&self.vars.var(m).kind, VarKind::MemRef(i) if i.space != MemorySpace::Ddr);
            let local = self.users.get(&m).is_some_and(|us| us.iter().all(dead_outside));
            if on_chip && local {
                own.push(m);
            }
        });
        own
    }

    /// Whether a tile variable has MemRef `m`.
    fn holds_tile(&self, m: VarId) -> bool {
        self.users.get(&m).is_some_and(|us| us.iter().any(|&u| matches!(self.vars.var_type(u), Type::Tile(_))))
    }

    fn memref_info(&self, m: VarId) -> (MemorySpace, u64) {
        match &self.vars.var(m).kind {
            VarKind::MemRef(info) => (info.space, info.size),
            _ => (MemorySpace::Ddr, 0),
        }
    }

    fn expand(&mut self, l: Loop, own: &[VarId]) -> Vec<Stmt> {
        let dtype = self.vars.var_type(l.loop_var).scalar_dtype().unwrap_or(crate::ir::DataType::Int64);
        let int = |v: i64| Expr::int(v, dtype, l.span);
        let f = i64::from(l.stages);
        let main = (l.trip / u64::from(l.stages)) as i64;
        let rem = l.trip % u64::from(l.stages);
        let main_stop = l.lo + main * f * l.st;
        let (body_stmts, final_yield) = split_yield(l.body.clone());
        // The copies; copy 0 is the body as written.
        let mut stmts = Vec::new();
        let mut carried: Vec<Expr> = l.iter_args.iter().map(|&a| Expr::var(a, l.span)).collect();
        for k in 0..l.stages {
            let mut sub = Subst { suffix: format!("_c{k}"), ..Subst::default() };
            if k > 0 {
                let iv = Expr::var(l.loop_var, l.span);
                let offset = int(i64::from(k) * l.st);
                let ty = Type::Scalar(dtype);
                sub.exprs.insert(
                    l.loop_var,
                    Expr::new(ExprKind::Binary(BinOp::Add, Box::new(iv), Box::new(offset)), ty, l.span),
                );
                for (&a, v) in l.iter_args.iter().zip(&carried) {
                    sub.exprs.insert(a, v.clone());
                }
                for &m in own {
                    let copy = self.new_memref_like(m);
                    sub.memrefs.insert(m, copy);
                    sub.exprs.insert(m, Expr::var(copy, l.span));
                }
                for s in &body_stmts {
                    stmts.push(self.clone_stmt(s, &mut sub));
                }
                carried = final_yield.iter().map(|e| self.clone_expr(e, &sub)).collect();
            } else {
                stmts.extend(body_stmts.iter().cloned());
                carried = final_yield.clone();
            }
        }
        if !l.iter_args.is_empty() {
            stmts.push(Stmt::Yield { values: carried, span: l.span });
        }
        let main_returns: Vec<VarId> = if rem == 0 {
            l.return_vars.clone()
        } else {
            l.return_vars.iter().map(|&r| self.fresh_like(r, "_main", &Subst::default())).collect()
        };
        let mut out = vec![Stmt::For {
            loop_var: l.loop_var,
            start: Box::new(int(l.lo)),
            stop: Box::new(int(main_stop)),
            step: Box::new(int(f * l.st)),
            iter_args: l.iter_args.clone(),
            body: Box::new(Stmt::block(stmts, l.span)),
            return_vars: main_returns.clone(),
            kind: ForKind::Sequential,
            span: l.span,
        }];
        if rem > 0 {
            // The remaining iterations: the body as written, in copy 0's buffers.
            let mut sub = Subst { suffix: "_rem".to_string(), ..Subst::default() };
            let loop_var = self.fresh_like(l.loop_var, "_rem", &sub);
            sub.exprs.insert(l.loop_var, Expr::var(loop_var, l.span));
            let mut iter_args = Vec::new();
            for (&a, &r) in l.iter_args.iter().zip(&main_returns) {
                let name = self.unique_name(&self.vars.var(a).name.clone(), "_rem");
                let ty = self.vars.var_type(a).clone();
                let init = Box::new(Expr::var(r, l.span));
                let v = self.vars.new_var(name, ty, VarKind::IterArg { init }, l.span);
                self.note_user(v);
                sub.exprs.insert(a, Expr::var(v, l.span));
                iter_args.push(v);
            }
            let body = self.clone_stmt(&l.body, &mut sub);
            out.push(Stmt::For {
                loop_var,
                start: Box::new(int(main_stop)),
                stop: Box::new(int(l.lo + l.trip as i64 * l.st)),
                step: Box::new(int(l.st)),
                iter_args,
                body: Box::new(body),
                return_vars: l.return_vars.clone(),
                kind: ForKind::Sequential,
                span: l.span,
            });
        }
        out
    }

    fn new_memref_like(&mut self, m: VarId) -> VarId {
        let (space, size) = self.memref_info(m);
        let span = self.vars.var(m).span;
        let info = MemRefInfo { space, addr: Expr::int(-1, crate::ir::DataType::Int64, span), size, id: self.next_id };
        self.next_id += 1;
        let name = info.derived_name();
        self.names.insert(name.clone());
        let copy = self.vars.new_var(name, Type::MemRef, VarKind::MemRef(Box::new(info)), span);
        self.new_memrefs.push(copy);
        copy
    }

    fn unique_name(&mut self, base: &str, suffix: &str) -> String {
        let mut name = format!("{base}{suffix}");
        let mut n = 1;
        while self.names.contains(&name) {
            name = format!("{base}{suffix}_{n}");
            n += 1;
        }
        self.names.insert(name.clone());
        name
    }

    fn note_user(&mut self, v: VarId) {
        if let Some(m) = self.vars.var_type(v).memref() {
            self.users.entry(m).or_default().push(v);
        }
    }

    /// A new variable like `v` (its type in the copy's buffers; an iter arg's init substituted).
    fn fresh_like(&mut self, v: VarId, suffix: &str, sub: &Subst) -> VarId {
        let data = self.vars.var(v).clone();
        let name = self.unique_name(&data.name, suffix);
        let ty = self.clone_type(&data.ty, sub);
        let kind = match &data.kind {
            VarKind::IterArg { init } => VarKind::IterArg { init: Box::new(self.clone_expr(init, sub)) },
            other => other.clone(),
        };
        let new = self.vars.new_var(name, ty, kind, data.span);
        self.note_user(new);
        new
    }

    /// Defines `v` anew in the copy: later uses read the new variable.
    fn define(&mut self, v: VarId, sub: &mut Subst) -> VarId {
        let suffix = sub.suffix.clone();
        let new = self.fresh_like(v, &suffix, sub);
        sub.exprs.insert(v, Expr::var(new, self.vars.var(v).span));
        new
    }

    fn define_all(&mut self, vs: &[VarId], sub: &mut Subst) -> Vec<VarId> {
        vs.iter().map(|&v| self.define(v, sub)).collect()
    }

    fn clone_stmt(&mut self, s: &Stmt, sub: &mut Subst) -> Stmt {
        match s {
            Stmt::Assign { var, value, span } => {
                let value = self.clone_expr(value, sub);
                let var = self.define(*var, sub);
                Stmt::Assign { var, value, span: *span }
            }
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                let cond = Box::new(self.clone_expr(cond, sub));
                let then_body = Box::new(self.clone_stmt(then_body, sub));
                let else_body = else_body.as_ref().map(|e| Box::new(self.clone_stmt(e, sub)));
                let return_vars = self.define_all(return_vars, sub);
                Stmt::If { cond, then_body, else_body, return_vars, span: *span }
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, span } => {
                let start = Box::new(self.clone_expr(start, sub));
                let stop = Box::new(self.clone_expr(stop, sub));
                let step = Box::new(self.clone_expr(step, sub));
                let loop_var = self.define(*loop_var, sub);
                let iter_args = self.define_all(iter_args, sub);
                let body = Box::new(self.clone_stmt(body, sub));
                let return_vars = self.define_all(return_vars, sub);
                Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind: *kind, span: *span }
            }
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                let iter_args = self.define_all(iter_args, sub);
                let cond = Box::new(self.clone_expr(cond, sub));
                let body = Box::new(self.clone_stmt(body, sub));
                let return_vars = self.define_all(return_vars, sub);
                Stmt::While { cond, iter_args, body, return_vars, span: *span }
            }
            Stmt::Scope { kind, body, span } => {
                Stmt::Scope { kind: *kind, body: Box::new(self.clone_stmt(body, sub)), span: *span }
            }
            Stmt::Yield { values, span } => {
                Stmt::Yield { values: values.iter().map(|e| self.clone_expr(e, sub)).collect(), span: *span }
            }
            Stmt::Return { values, span } => {
                Stmt::Return { values: values.iter().map(|e| self.clone_expr(e, sub)).collect(), span: *span }
            }
            Stmt::Eval { expr, span } => Stmt::Eval { expr: self.clone_expr(expr, sub), span: *span },
            Stmt::Seq { stmts, span } => {
                Stmt::Seq { stmts: stmts.iter().map(|c| self.clone_stmt(c, sub)).collect(), span: *span }
            }
            Stmt::Ops { stmts, span } => {
                Stmt::Ops { stmts: stmts.iter().map(|c| self.clone_stmt(c, sub)).collect(), span: *span }
            }
            Stmt::Break { span } => Stmt::Break { span: *span },
            Stmt::Continue { span } => Stmt::Continue { span: *span },
        }
    }

    fn clone_expr(&self, e: &Expr, sub: &Subst) -> Expr {
        let kind = match &e.kind {
            ExprKind::Var(v) => match sub.exprs.get(v) {
                Some(x) => return Expr { span: e.span, ..x.clone() },
                None => ExprKind::Var(*v),
            },
            ExprKind::Call(c) => ExprKind::Call(Box::new(Call {
                callee: c.callee.clone(),
                args: c.args.iter().map(|a| self.clone_expr(a, sub)).collect(),
                kwargs: c.kwargs.clone(),
            })),
            ExprKind::MakeTuple(xs) => ExprKind::MakeTuple(xs.iter().map(|a| self.clone_expr(a, sub)).collect()),
            ExprKind::TupleGetItem(x, i) => ExprKind::TupleGetItem(Box::new(self.clone_expr(x, sub)), *i),
            ExprKind::Binary(op, a, b) => {
                ExprKind::Binary(*op, Box::new(self.clone_expr(a, sub)), Box::new(self.clone_expr(b, sub)))
            }
            ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(self.clone_expr(a, sub))),
            other => other.clone(),
        };
        Expr { kind, ty: self.clone_type(&e.ty, sub), span: e.span }
    }

    fn clone_exprs(&self, xs: &[Expr], sub: &Subst) -> Vec<Expr> {
        xs.iter().map(|x| self.clone_expr(x, sub)).collect()
    }

    /// `ty` in the copy: its MemRef replaced, the expressions of its shape and view substituted.
    fn clone_type(&self, ty: &Type, sub: &Subst) -> Type {
        let memref = |m: Option<VarId>| m.map(|m| sub.memrefs.get(&m).copied().unwrap_or(m));
        match ty {
            Type::Tile(t) => Type::tile(TileType {
                dtype: t.dtype,
                shape: self.clone_exprs(&t.shape, sub),
                memref: memref(t.memref),
                view: t.view.as_ref().map(|v| TileView {
                    valid_shape: self.clone_exprs(&v.valid_shape, sub),
                    stride: self.clone_exprs(&v.stride, sub),
                    start_offset: v.start_offset.as_ref().map(|o| Box::new(self.clone_expr(o, sub))),
                    ..v.clone()
                }),
            }),
            Type::Tensor(t) => Type::tensor(TensorType {
                dtype: t.dtype,
                shape: self.clone_exprs(&t.shape, sub),
                memref: memref(t.memref),
                view: t.view.clone(),
            }),
            Type::Tuple(ts) => Type::Tuple(ts.iter().map(|t| self.clone_type(t, sub)).collect()),
            other => other.clone(),
        }
    }
}

/// A loop being pipelined, with constant bounds.
struct Loop {
    loop_var: VarId,
    lo: i64,
    st: i64,
    trip: u64,
    stages: u8,
    iter_args: Vec<VarId>,
    body: Stmt,
    return_vars: Vec<VarId>,
    span: Span,
}

/// The iterations of `range(lo, hi, st)` (`st` ≠ 0).
pub(crate) fn trip_count(lo: i64, hi: i64, st: i64) -> u64 {
    let (lo, hi, st) = (i128::from(lo), i128::from(hi), i128::from(st));
    let n = if st > 0 { (hi - lo + st - 1) / st } else { (lo - hi - st - 1) / -st };
    u64::try_from(n.max(0)).unwrap_or(u64::MAX)
}

/// The statements of a loop body without its final yield, and the yielded values.
fn split_yield(body: Stmt) -> (Vec<Stmt>, Vec<Expr>) {
    match body {
        Stmt::Yield { values, .. } => (Vec::new(), values),
        Stmt::Seq { mut stmts, .. } => {
            let last = stmts.pop();
            match last {
                Some(Stmt::Yield { values, .. }) => (stmts, values),
                Some(Stmt::Ops { stmts: mut ops, span }) if matches!(ops.last(), Some(Stmt::Yield { .. })) => {
                    let Some(Stmt::Yield { values, .. }) = ops.pop() else { unreachable!("checked") };
                    stmts.push(Stmt::Ops { stmts: ops, span });
                    (stmts, values)
                }
                Some(other) => {
                    stmts.push(other);
                    (stmts, Vec::new())
                }
                None => (stmts, Vec::new()),
            }
        }
        Stmt::Ops { mut stmts, span } => match stmts.last() {
            Some(Stmt::Yield { .. }) => {
                let Some(Stmt::Yield { values, .. }) = stmts.pop() else { unreachable!("checked") };
                (vec![Stmt::Ops { stmts, span }], values)
            }
            _ => (vec![Stmt::Ops { stmts, span }], Vec::new()),
        },
        other => (vec![other], Vec::new()),
    }
}
