//! Phase 4 of InsertSync (spec §2.10): turn the pairs into `sync_src` / `sync_dst` /
//! `bar_v` / `bar_m` evals and splice them into the body, merged into the neighbouring
//! `OpStmts` so that sync ops never form blocks of their own when a run of ops is adjacent.

use rustc_hash::{FxHashMap, FxHashSet};

use super::collect::Analysis;
use super::position::{split_parent, Elem, Kind, PosId, Positions, SeqKey};
use crate::diag::Span;
use crate::ir::{Call, Callee, Expr, ExprKind, KwValue, OpId, PipeType, Stmt, Type, VarTable};
use crate::ops;

/// Where an insertion goes in a `SeqStmts`, in the order [`Plan::apply`] walks it: before
/// child `child`, then (if it is an `OpStmts`) before and after each of its statements, then
/// after the child.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Slot {
    child: usize,
    phase: Phase,
    op: usize,
    after: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    BeforeChild,
    InOps,
    AfterChild,
}

impl Slot {
    fn new((child, op): SeqKey, after: bool) -> Slot {
        match (op, after) {
            (None, false) => Slot { child, phase: Phase::BeforeChild, op: 0, after: false },
            (None, true) => Slot { child, phase: Phase::AfterChild, op: 0, after: false },
            (Some(op), after) => Slot { child, phase: Phase::InOps, op, after },
        }
    }
}

/// The insertions into one `SeqStmts`, sorted by slot (stably: those at one slot keep the
/// order of their pairs), taken from `next` on as [`Plan::apply`] walks the sequence. An
/// insertion is the index of its statement in [`Plan::made`]: only the statements that reach
/// the output are cloned, as late as possible, and sorting moves small entries.
#[derive(Default)]
struct SeqPlan {
    items: Vec<(Slot, usize)>,
    next: usize,
}

/// All insertions, by the position of the `SeqStmts` they go into (only looked up), the
/// sync statements they insert, and the positions of the function, to find a sequence's id
/// as [`Plan::apply`] walks down.
pub struct Plan<'a> {
    seqs: FxHashMap<PosId, SeqPlan>,
    /// Each distinct sync statement, made once (making one looks its op up) and cloned for
    /// each insertion.
    made: Vec<Stmt>,
    positions: &'a Positions,
}

/// Which sync statement an insertion is, for de-duplication per place.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Tag {
    Src(PipeType, PipeType, u8),
    Dst(PipeType, PipeType, u8),
    /// A barrier before (`false`) or after (`true`) its statement: the two are different
    /// barriers (fuzz finding F2: a loop-carried pair's barrier after the last op of a body
    /// must not be dropped because a forward pair put one before that op).
    Bar(PipeType, bool),
    /// The full barrier before a `break` or `continue`.
    BarAll,
}

impl<'a> Plan<'a> {
    /// Builds the insertions of all pairs, in order; an identical sync at the same place is
    /// added once (a position is one place: its `SeqStmts` and key are a function of it).
    pub fn build(vars: &VarTable, a: &'a Analysis) -> Plan<'a> {
        let mut plan = Plan { seqs: FxHashMap::default(), made: Vec::new(), positions: &a.positions };
        // At most two insertions per pair: sized once instead of grown.
        let mut seen: FxHashSet<(PosId, Tag)> =
            FxHashSet::with_capacity_and_hasher(2 * a.pairs.len(), Default::default());
        // The index in `plan.made` of each tag's statement (`None`: the tag has none).
        let mut made: FxHashMap<Tag, Option<usize>> = FxHashMap::default();
        for p in &a.pairs {
            let (first, second) = match p.event_id {
                Some(id) if !p.same_pipe() => (
                    (p.set, !p.set_before, Tag::Src(p.src, p.dst, id)),
                    Some((p.wait, p.wait_after, Tag::Dst(p.src, p.dst, id))),
                ),
                // The reference adds one barrier per place and pipe, whether before or after it.
                _ if p.same_pipe() => {
                    ((p.wait, p.wait_after, Tag::Bar(p.src, p.wait_after && a.rules.guarded())), None)
                }
                _ => continue,
            };
            for (at, after, tag) in std::iter::once(first).chain(second) {
                let Some((_, key)) = split_parent(a.positions.path(at)) else { continue };
                if !seen.insert((at, tag)) {
                    continue;
                }
                let stmts = &mut plan.made;
                let made = made.entry(tag).or_insert_with(|| {
                    let stmt = sync_stmt(vars, tag)?;
                    stmts.push(stmt);
                    Some(stmts.len() - 1)
                });
                let Some(stmt) = *made else { continue };
                // The sequence is the parent of `Seq(i)` (the parent of `at`, or its grandparent
                // for `…, Seq(i), Op(j)`).
                let seq_child = if key.1.is_some() { a.positions.parent(at) } else { at };
                let parent = a.positions.parent(seq_child);
                plan.seqs.entry(parent).or_default().items.push((Slot::new(key, after), stmt));
            }
        }
        // A jump goes where program order does not: to the next iteration or out of the loop,
        // past syncs the pairs placed for the paths that reach the end of the body. A full
        // barrier before it orders everything before the jump before everything after its
        // target (remove-redundant-sync drops it where nothing needs it).
        for &j in &a.jumps {
            let Some((_, key)) = split_parent(a.positions.path(j)) else { continue };
            if !seen.insert((j, Tag::BarAll)) {
                continue;
            }
            let stmts = &mut plan.made;
            let made = made.entry(Tag::BarAll).or_insert_with(|| {
                stmts.push(bar_call(vars, ops::id::BAR_ALL));
                Some(stmts.len() - 1)
            });
            let Some(stmt) = *made else { continue };
            let parent = a.positions.parent(j);
            plan.seqs.entry(parent).or_default().items.push((Slot::new(key, false), stmt));
        }
        for sp in plan.seqs.values_mut() {
            sp.items.sort_by_key(|&(slot, _)| slot);
        }
        plan
    }

    /// How many sync statements [`Plan::apply`] would insert.
    pub fn len(&self) -> usize {
        self.seqs.values().map(|s| s.items.len()).sum()
    }

    /// The body with the insertions applied; takes the body by value so that untouched
    /// statements are moved, not cloned.
    pub fn apply(mut self, body: Stmt) -> Stmt {
        self.stmt(body, Some(Positions::ROOT))
    }

    /// `s` at position `at` (`None`: a position no leaf lies under, with nothing to insert).
    fn stmt(&mut self, s: Stmt, at: Option<PosId>) -> Stmt {
        match s {
            Stmt::Seq { stmts, span } => Stmt::Seq { stmts: self.seq(stmts, at), span },
            Stmt::If { cond, then_body, else_body, return_vars, span } => {
                let then_at = self.child(at, Elem::marker(Kind::IfThen));
                let then_body = Box::new(self.stmt(*then_body, then_at));
                let else_at = self.child(at, Elem::marker(Kind::IfElse));
                let else_body = else_body.map(|e| Box::new(self.stmt(*e, else_at)));
                Stmt::If { cond, then_body, else_body, return_vars, span }
            }
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, span } => Stmt::For {
                loop_var,
                start,
                stop,
                step,
                iter_args,
                body: Box::new(self.body(*body, Kind::ForBody, at)),
                return_vars,
                kind,
                span,
            },
            // Phase 1 walks a while body as a `ForBody` too.
            Stmt::While { cond, iter_args, body, return_vars, span } => {
                Stmt::While { cond, iter_args, body: Box::new(self.body(*body, Kind::ForBody, at)), return_vars, span }
            }
            Stmt::Scope { kind, body, span } => {
                Stmt::Scope { kind, body: Box::new(self.body(*body, Kind::ScopeBody, at)), span }
            }
            other => other,
        }
    }

    /// A loop or scope body, as a `SeqStmts` (as phase 1 saw it).
    fn body(&mut self, body: Stmt, marker: Kind, at: Option<PosId>) -> Stmt {
        let span = body.span();
        let stmts = self.seq(into_seq(body), self.child(at, Elem::marker(marker)));
        Stmt::Seq { stmts, span }
    }

    /// The position of `at` followed by `e`, if some leaf lies under it.
    fn child(&self, at: Option<PosId>, e: Elem) -> Option<PosId> {
        at.and_then(|p| self.positions.get_child(p, e))
    }

    fn seq(&mut self, stmts: Vec<Stmt>, at: Option<PosId>) -> Vec<Stmt> {
        let Some(at) = at else { return stmts };
        let mut plan = self.seqs.remove(&at).unwrap_or_default();
        if plan.items.is_empty()
            && !stmts
                .iter()
                .any(|s| matches!(s, Stmt::If { .. } | Stmt::For { .. } | Stmt::While { .. } | Stmt::Scope { .. }))
        {
            // Nothing to insert here or below: the sequence is unchanged.
            return stmts;
        }
        let n = stmts.len();
        let mut out: Vec<Stmt> = Vec::with_capacity(n);
        let mut pending: Vec<Stmt> = Vec::new();
        for (i, child) in stmts.into_iter().enumerate() {
            plan.take(Slot::new((i, None), false), &self.made, &mut pending);
            match child {
                Stmt::Ops { stmts: ops, span } => {
                    let mut run = std::mem::take(&mut pending);
                    run.reserve(
                        ops.len() + plan.items[plan.next..].iter().take_while(|(slot, _)| slot.child == i).count(),
                    );
                    for (j, op) in ops.into_iter().enumerate() {
                        plan.take(Slot::new((i, Some(j)), false), &self.made, &mut run);
                        run.push(op);
                        plan.take(Slot::new((i, Some(j)), true), &self.made, &mut run);
                    }
                    out.push(Stmt::Ops { stmts: run, span });
                }
                child @ (Stmt::If { .. } | Stmt::For { .. } | Stmt::While { .. } | Stmt::Scope { .. }) => {
                    flush(&mut pending, &mut out);
                    let child_at = self.child(Some(at), Elem::seq(i));
                    out.push(self.stmt(child, child_at));
                }
                other => {
                    flush(&mut pending, &mut out);
                    out.push(other);
                }
            }
            plan.take(Slot::new((i, None), true), &self.made, &mut pending);
        }
        plan.take(Slot::new((n, None), false), &self.made, &mut pending);
        flush(&mut pending, &mut out);
        out
    }
}

impl SeqPlan {
    /// Appends the statements (of `made`) inserted at `slot` to `out`, skipping any at earlier
    /// slots that the walk has passed (slots that name no statement of the sequence).
    fn take(&mut self, slot: Slot, made: &[Stmt], out: &mut Vec<Stmt>) {
        while self.items.get(self.next).is_some_and(|&(s, _)| s < slot) {
            self.next += 1;
        }
        while let Some(&(_, k)) = self.items.get(self.next).filter(|&&(s, _)| s == slot) {
            out.push(made[k].clone());
            self.next += 1;
        }
    }
}

/// The children of a body by value: a sequence's, or the body itself as a one-child sequence.
fn into_seq(body: Stmt) -> Vec<Stmt> {
    match body {
        Stmt::Seq { stmts, .. } => stmts,
        other => vec![other],
    }
}

/// Appends pending sync ops to the previous `OpStmts` if the last emitted child is one, else
/// emits them as a new `OpStmts`.
fn flush(pending: &mut Vec<Stmt>, out: &mut Vec<Stmt>) {
    if pending.is_empty() {
        return;
    }
    if let Some(Stmt::Ops { stmts, .. }) = out.last_mut() {
        stmts.append(pending);
    } else {
        let span = pending[0].span();
        out.push(Stmt::Ops { stmts: std::mem::take(pending), span });
    }
}

/// The statement of a tag; `None` for a barrier on a pipe that has none.
fn sync_stmt(vars: &VarTable, tag: Tag) -> Option<Stmt> {
    match tag {
        Tag::Src(src, dst, id) => Some(sync_call(vars, ops::id::SYNC_SRC, src, dst, id)),
        Tag::Dst(src, dst, id) => Some(sync_call(vars, ops::id::SYNC_DST, src, dst, id)),
        Tag::Bar(PipeType::V, _) => Some(bar_call(vars, ops::id::BAR_V)),
        Tag::Bar(PipeType::M, _) => Some(bar_call(vars, ops::id::BAR_M)),
        Tag::Bar(..) => None,
        Tag::BarAll => Some(bar_call(vars, ops::id::BAR_ALL)),
    }
}

/// `pl.system.sync_src(set_pipe=…, wait_pipe=…, event_id=…)` (or `sync_dst`) as an eval.
fn sync_call(vars: &VarTable, op: OpId, src: PipeType, dst: PipeType, id: u8) -> Stmt {
    let kwargs = ops::kwargs::sync_kwargs(ops::kwargs::SyncEvent { set_pipe: src, wait_pipe: dst, id: i64::from(id) });
    eval_op(vars, op, kwargs)
}

fn bar_call(vars: &VarTable, op: OpId) -> Stmt {
    eval_op(vars, op, Vec::new())
}

fn eval_op(vars: &VarTable, op: OpId, kwargs: Vec<(&'static str, KwValue)>) -> Stmt {
    let ty = crate::ops::deduce_type(vars, op, &[], &kwargs).unwrap_or(Type::Unknown);
    let call = Call { callee: Callee::Op(op), args: Vec::new(), kwargs };
    Stmt::Eval { expr: Expr::new(ExprKind::Call(Box::new(call)), ty, Span::NONE), span: Span::NONE }
}
