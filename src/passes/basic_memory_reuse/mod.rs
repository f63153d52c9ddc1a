//! BasicMemoryReuse (spec `passes-and-codegen.md` §2.9): tiles whose lifetimes do not overlap
//! share a buffer. Reuse means re-pointing a tile variable's type at another tile's MemRef
//! variable; `block.alloc` statements of MemRefs no tile refers to any more are then removed.
//!
//! The reference's analysis is reproduced with its documented limits (§6 Q14: linear
//! lifetimes, tiles in an `if`/`for` nested in a loop ignored, yields not uses, chains pick the
//! source's pre-pass MemRef), with one fix: uses inside `with pl.incore():` scopes count
//! (§6.1 Q20, see [`lifetime`]). All orders come from statement order and MemRef variables
//! (creation order), never from addresses (§6 Q7, §6.1 Q24).

mod blocks;
mod by_cycles;
mod first_fit;
mod lifetime;

use rustc_hash::FxHashSet;
use std::borrow::Cow;
use std::sync::Arc;

use super::{Carried, OptLevel, PassEnv};
use crate::backend::align_up;
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::visit::{for_each_var, walk_defined_vars};
use crate::ir::{
    Callee, ExprKind, Function, MemorySpace, OpId, Stmt, TileType, TileView, Type, VarId, VarKind, VarTable,
};
use crate::ops;
use first_fit::FirstFit;
use lifetime::Interval;

/// The pass on one function: as the reference does at `-O0`, by the lifetime plan at `-O1`
/// ([`choose_plan`]).
pub fn function(f: Function, env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    carrying(f, Carried::Nothing, env).map(|(f, _)| f)
}

/// The pass as the pass manager runs it (registered as `basic-memory-reuse`): [`function`],
/// handing on insert-sync's analysis of the result when `-O1` computed it to weigh its plans
/// (insert-sync then applies it instead of computing it again, see [`Carried`]).
pub fn carrying(mut f: Function, _: Carried, env: &PassEnv) -> Result<(Function, Carried), Vec<Diagnostic>> {
    // The helpers read the body and rewrite the variables: taken out for the rewrite.
    let mut vars = std::mem::take(&mut f.vars);
    let mut carried = Carried::Nothing;
    match env.opt {
        OptLevel::O0 => reuse_as_reference(&mut vars, &mut f),
        OptLevel::O1 | OptLevel::O2 => {
            // `f` as given, for the reference's plan (a candidate when chosen by cycles).
            let by_cycles = by_cycles::applies(&f, env).then(|| (vars.clone(), f.clone()));
            if f.schedule.is_none() && by_cycles::too_large(&f) {
                // A kernel too large to weigh keeps -O1's schedule at -O2: its loops are
                // pipelined only where the cycle model said it pays, never unweighed.
                f.schedule = Some(by_cycles::unweighed());
            }
            carry_accumulators(&mut vars, &f);
            let chosen = choose_plan(&vars, &f, env, &Sharing::WEIGHED);
            apply_plan(&mut vars, &mut f, &chosen.intervals, &chosen.decisions);
            if let Some((mut ref_vars, mut reference)) = by_cycles {
                f.vars = vars;
                reuse_as_reference(&mut ref_vars, &mut reference);
                reference.vars = ref_vars;
                let mut candidates = vec![f];
                if accumulators_in_place(&reference).is_ok() {
                    candidates.push(reference);
                }
                let f = by_cycles::choose(candidates, env);
                return accumulators_in_place(&f).map(|()| (f, Carried::Nothing));
            }
            if let Some(analysed) = chosen.analysed {
                carried = Carried::SyncAnalysis(Box::new(analysed));
            }
        }
    }
    f.vars = vars;
    accumulators_in_place(&f).map(|()| (f, carried))
}

/// The reference's plan (`-O0`'s) on `f`, whose variables are `vars`.
fn reuse_as_reference(vars: &mut VarTable, f: &mut Function) {
    let carried_acc = carry_accumulators(vars, f);
    let shared = share_accumulators(vars, f);
    reuse_in_function(vars, f, shared || carried_acc);
}

/// At `-O0`, before the reference's plan: the result of every accumulating matmul whose
/// accumulator is not used after it takes the accumulator's buffer (its tiles are re-pointed at
/// the accumulator's MemRef, chains of accumulations all end in the first one's). The reference
/// gives the result a buffer of its own, and its C++ then computes another value on the NPU
/// than the program says (see [`accumulators_in_place`]); this is the one place `-O0` departs
/// from the reference's plan (tests/conformance-deviations.md). The lifetimes are the `-O1`
/// plan's ([`lifetime::plan_intervals`]), which count yields and next-iteration reads as uses.
/// Whether any result was re-pointed.
fn share_accumulators(vars: &mut VarTable, f: &Function) -> bool {
    let (stmts, loops) = blocks::linear_statements_with_loops(&f.body);
    let intervals = lifetime::plan_intervals(vars, &f.body, &stmts, &loops);
    let group: rustc_hash::FxHashMap<VarId, usize> =
        intervals.iter().enumerate().map(|(i, iv)| (iv.memref, i)).collect();
    // (the result's group, the MemRef it moves to), in statement order; `moved` follows chains.
    let mut moves: Vec<(usize, VarId)> = Vec::new();
    let mut moved: rustc_hash::FxHashMap<VarId, VarId> = Default::default();
    for Accumulation { result, acc, .. } in accumulations(vars, &f.body) {
        let (Some(acc_ref), Some(own_ref)) = (vars.var(acc).ty.memref(), vars.var(result).ty.memref()) else {
            continue;
        };
        let (Some(&a), Some(&r)) = (group.get(&acc_ref), group.get(&own_ref)) else { continue };
        let (acc_iv, own_iv) = (&intervals[a], &intervals[r]);
        let dies_here = acc_iv.last == own_iv.def && !acc_iv.extended && acc_iv.carried_from.is_none();
        if a != r && dies_here && acc_iv.space == own_iv.space && acc_iv.size == own_iv.size {
            let to = moved.get(&acc_ref).copied().unwrap_or(acc_ref);
            moved.insert(own_ref, to);
            moves.push((r, to));
        }
    }
    for &(r, to) in &moves {
        for v in intervals[r].members() {
            if let Type::Tile(t) = &mut vars.var_mut(v).ty {
                Arc::make_mut(t).memref = Some(to);
            }
        }
    }
    !moves.is_empty()
}

/// A loop that carries an accumulator (`for k, (acc,) in pl.range(…, init_values=(acc0,))`,
/// `acc2 = pl.block.matmul_acc(acc, a, b)`, `pl.yield_(acc2)`): the accumulating results of the
/// chain from the iter arg to the yielded value, and the loop's result, take the buffer the
/// loop carries (its init's), at both levels. `TMATMUL_ACC` adds into its destination, so the
/// sum can only be built in place, and no instruction copies a tile into Acc memory: this is
/// the only plan under which the loop computes what it says. Each accumulator of the chain must
/// be read by nothing after its accumulation (else the chain is left as it is, and the code
/// generators refuse the loop). The loop's result is re-typed too, so that the passes after
/// this one see a read of it after the loop as a read of that buffer. Whether anything moved.
fn carry_accumulators(vars: &mut VarTable, f: &Function) -> bool {
    let mut moves: Vec<(VarId, VarId)> = Vec::new();
    crate::ir::visit::walk_stmts(&f.body, &mut |s| {
        let (Stmt::For { iter_args, return_vars, body, .. } | Stmt::While { iter_args, return_vars, body, .. }) = s
        else {
            return;
        };
        let Some(yields) = body.final_yield() else { return };
        let stmts = as_statements(body);
        for (k, &a) in iter_args.iter().enumerate() {
            let home = crate::analysis::effects::holder(vars, a);
            let Some(home_ref) = vars.var_type(home).memref() else { continue };
            let Some(mut y) = yields.get(k).and_then(|e| e.as_var()) else { continue };
            // The chain back from the yielded value to the iter arg, each link an accumulation
            // whose accumulator is read by nothing after it.
            let mut chain = Vec::new();
            let found = loop {
                let Some((i, acc)) = accumulation_of(&stmts, y) else { break false };
                if reads_after(&stmts, i, acc) {
                    break false;
                }
                chain.push(y);
                if acc == a {
                    break true;
                }
                y = acc;
            };
            if found && vars.var_type(chain[0]).memref() != Some(home_ref) {
                moves.extend(chain.into_iter().map(|v| (v, home_ref)));
                if let Some(&r) = return_vars.get(k) {
                    moves.push((r, home_ref));
                }
            }
        }
    });
    for &(v, to) in &moves {
        if let Type::Tile(t) = &mut vars.var_mut(v).ty {
            Arc::make_mut(t).memref = Some(to);
        }
    }
    !moves.is_empty()
}

/// The statements of a loop body (a sequence, its `OpStmts` flattened), in order.
fn as_statements(body: &Stmt) -> Vec<&Stmt> {
    let mut out = Vec::new();
    fn push<'s>(s: &'s Stmt, out: &mut Vec<&'s Stmt>) {
        match s {
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().for_each(|s| push(s, out)),
            other => out.push(other),
        }
    }
    push(body, &mut out);
    out
}

/// `(index, accumulator)` of the statement of `stmts` that defines `v` by an accumulating
/// matmul.
fn accumulation_of(stmts: &[&Stmt], v: VarId) -> Option<(usize, VarId)> {
    stmts.iter().enumerate().find_map(|(i, s)| {
        let Stmt::Assign { var, value, .. } = s else { return None };
        let call = value.as_call().filter(|_| *var == v)?;
        call.callee.op().filter(|&op| ops::accumulates_in_place(op))?;
        Some((i, call.args.first()?.as_var()?))
    })
}

/// Whether a statement of `stmts` after the `i`-th (or one nested in it) reads `v`.
fn reads_after(stmts: &[&Stmt], i: usize, v: VarId) -> bool {
    let mut found = false;
    for s in &stmts[i + 1..] {
        crate::ir::visit::walk_stmts(s, &mut |t| {
            crate::ir::visit::stmt_exprs(t)
                .for_each(|e| crate::ir::visit::walk_expr(e, &mut |x| found |= x.as_var() == Some(v)));
        });
    }
    found
}

/// Every accumulating matmul writes its result over its accumulator's buffer
/// ([`ops::accumulates_in_place`]): the NPU's `TMATMUL_ACC` adds into its destination and never
/// reads the accumulator operand, and no instruction copies a tile into Acc memory. Both plans
/// share that buffer whenever the accumulator is not used after the call (`-O1`'s in place,
/// `-O0`'s [`share_accumulators`]); when it is, the C++ would compute another value on the
/// device than on the simulator, so the call is refused. Accumulators carried through a loop
/// (an iter arg accumulated into, a result yielded) are left to the code generators, which
/// carry Acc tiles their own way or refuse them (E0801).
fn accumulators_in_place(f: &Function) -> Result<(), Vec<Diagnostic>> {
    let mut errors = Vec::new();
    for Accumulation { result, acc, op, span } in accumulations(&f.vars, &f.body) {
        let (result_buffer, acc_buffer) = (f.var_type(result).memref(), f.var_type(acc).memref());
        if result_buffer.is_some() && result_buffer != acc_buffer {
            let acc_name = f.var_name(acc);
            errors.push(
                Diagnostic::error(
                    codes::ACCUMULATOR_STILL_USED,
                    span,
                    format!(
                        "the accumulator `{acc_name}` of `{}` is still used after it, so the result cannot be accumulated in its buffer",
                        ops::name(op)
                    ),
                )
                .with_note("on the NPU the instruction adds into its result's buffer and never reads the accumulator operand, and no instruction copies a tile into Acc memory: a result in a buffer of its own would hold that buffer's old contents plus the product")
                .with_note(format!("use or store `{acc_name}` before this call, or compute the sum into a new accumulator")),
            );
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// An accumulating matmul ([`ops::accumulates_in_place`]) that no loop carries: `result =
/// op(acc, …)` at `span`.
struct Accumulation {
    result: VarId,
    acc: VarId,
    op: OpId,
    span: Span,
}

/// The accumulating matmuls of `body` in statement order, but those whose accumulator is an
/// iter arg or whose result is yielded (loop-carried accumulators are the code generators' to
/// carry or refuse, see [`accumulators_in_place`]).
fn accumulations(vars: &VarTable, body: &Stmt) -> Vec<Accumulation> {
    let mut yielded = FxHashSet::default();
    crate::ir::visit::walk_stmts(body, &mut |s| {
        if let Stmt::Yield { values, .. } = s {
            yielded.extend(values.iter().filter_map(|v| v.as_var()));
        }
    });
    let mut found = Vec::new();
    crate::ir::visit::walk_stmts(body, &mut |s| {
        let Stmt::Assign { var, value, .. } = s else { return };
        let Some(call) = value.as_call() else { return };
        let Some(op) = call.callee.op().filter(|&op| ops::accumulates_in_place(op)) else { return };
        let Some(acc) = call.args.first().and_then(|a| a.as_var()) else { return };
        if !matches!(vars.var(acc).kind, VarKind::IterArg { .. }) && !yielded.contains(var) {
            found.push(Accumulation { result: *var, acc, op, span: value.span });
        }
    });
    found
}

/// Steps 1–5 on one function; its variables `vars` are updated in place, which re-types
/// every use of a re-pointed tile at once. `repointed`: tiles were re-pointed before (their
/// old MemRefs' allocs may be dead).
fn reuse_in_function(vars: &mut VarTable, f: &mut Function, repointed: bool) {
    let intervals = {
        let stmts = blocks::linear_statements(&f.body);
        lifetime::intervals(vars, &f.body, &stmts)
    };
    let decisions = without_live_overlaps(vars, f, &intervals, decide(&intervals));
    if decisions.is_empty() && !repointed {
        return;
    }
    for (c, p) in decisions {
        let target = intervals[p].memref;
        for v in intervals[c].members() {
            if let Type::Tile(t) = &mut vars.var_mut(v).ty {
                Arc::make_mut(t).memref = Some(target);
            }
        }
    }
    let live = referenced_memrefs(vars, f);
    remove_dead_allocs(vars, &mut f.body, &live);
}

/// The reference's decisions `(C reuses P)` over `intervals`, less those whose tiles are live
/// at the same time by the true lifetimes (the `-O1` ones, [`lifetime::plan_intervals`]): the
/// reference's limits (§6 Q14: uses inside an `if` or loop nested in a loop are not seen) let a
/// tile share the buffer of one still to be read — PyPTO's `for … if cond: c = a + b else:
/// c = a * b` gave `a` and `b` one buffer, so the kernel added a tile to itself. Every other
/// decision is the reference's.
fn without_live_overlaps(
    vars: &VarTable,
    f: &Function,
    intervals: &[Interval],
    decisions: Vec<(usize, usize)>,
) -> Vec<(usize, usize)> {
    if decisions.is_empty() {
        return decisions;
    }
    let (stmts, loops) = blocks::linear_statements_with_loops(&f.body);
    let truth = lifetime::plan_intervals(vars, &f.body, &stmts, &loops);
    let mut of_var: rustc_hash::FxHashMap<VarId, usize> = Default::default();
    for (k, t) in truth.iter().enumerate() {
        for v in t.members() {
            of_var.insert(v, k);
        }
    }
    let true_of = |i: usize| -> Vec<usize> {
        let mut ks: Vec<usize> = intervals[i].members().filter_map(|v| of_var.get(&v).copied()).collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    };
    // The intervals sharing each buffer so far: the owner, then each accepted user.
    let mut sharing: rustc_hash::FxHashMap<usize, Vec<usize>> = Default::default();
    let mut kept = Vec::with_capacity(decisions.len());
    for (c, p) in decisions {
        let users = sharing.entry(p).or_insert_with(|| true_of(p));
        let mine = true_of(c);
        let clash = mine.iter().any(|&a| users.iter().any(|&b| a != b && truth[a].overlaps(&truth[b])));
        if !clash {
            users.extend(mine);
            kept.push((c, p));
        }
    }
    kept
}

/// `-O1`: ptoc's own plan (docs/kernel-codegen.md, "Memory plan"). The same rewrite as the
/// reference's (tiles re-pointed at the MemRef of the buffer they join, dead allocs removed),
/// so insert-sync, which runs next, sees every shared buffer and orders its WAR hazards; but
/// the lifetimes are right across loops and nested statements ([`lifetime::plan_intervals`]).
///
/// Three plans are weighed ([`decide_plan`], [`Sharing`]): the compact one shares every buffer
/// it can, the reusing one shares buffers as the reference does (a free buffer, never in
/// place), the roomy one only what must be shared (accumulators). Sharing costs
/// synchronisation: the writer of a shared buffer waits for the readers of its previous tile,
/// though a well-chosen shared buffer can also make one wait cover another. So insert-sync is
/// run on the function under each plan that fits the memory ([`fits`]; the compact one always
/// counts as fitting, its failures are allocate-memory-addr's to report) and the plan with the
/// fewest sync ops is taken, ties going to the more compact. Every tile variable and iter arg
/// holding a re-pointed MemRef follows it, so none is left stale (unlike §6 Q14).
///
/// Each plan's syncs are counted on the body as the plan leaves it (its dead allocs left out,
/// [`planned_top`]), so that the count of the plan taken is insert-sync's analysis of this
/// pass's result: when the body is in insert-sync's form already and the backend is the one
/// counted for, that analysis is handed on ([`Chosen::analysed`]).
fn choose_plan(vars: &VarTable, f: &Function, env: &PassEnv, weighed: &[Sharing]) -> Chosen {
    let (stmts, loops) = blocks::linear_statements_with_loops(&f.body);
    let intervals = lifetime::plan_intervals(vars, &f.body, &stmts, &loops);
    let mut plans: Vec<Vec<(usize, usize)>> = Vec::new();
    for &sharing in weighed {
        let plan = decide_plan(vars, &stmts, &intervals, sharing);
        if !plans.contains(&plan) && (plans.is_empty() || fits(vars, f, &intervals, &plan)) {
            plans.push(plan);
        }
    }
    let mut best = 0;
    let mut analysed = None;
    let prepared = if plans.len() > 1 { super::insert_sync::prepared_body(&f.body) } else { None };
    if let Some(prepared) = prepared {
        // Counted as the CCE backend synchronises (for the PTO backend ptoas places the syncs,
        // but the dependences are the same): the plan, and so the printed IR, does not depend
        // on the backend.
        let count_env = PassEnv { backend: super::Backend::Cce, ..*env };
        let handed_on = matches!(prepared, Cow::Borrowed(_)) && env.backend == super::Backend::Cce;
        let holders = memref_holders(vars, f);
        let mut fewest = usize::MAX;
        for (k, plan) in plans.iter().enumerate() {
            let renamed = moved_memrefs(&intervals, plan);
            let top = planned_top(vars, &prepared, plan, &holders, &renamed);
            let weighed = super::insert_sync::weigh(vars, &renamed, &count_env, &top);
            let n = weighed.as_ref().map_or(usize::MAX, |w| w.0);
            if n < fewest {
                (best, fewest) = (k, n);
                analysed = weighed.filter(|_| handed_on).map(|w| w.1);
            }
        }
    }
    let decisions = plans.swap_remove(best);
    Chosen { intervals, decisions, analysed }
}

/// The plan [`choose_plan`] takes.
struct Chosen {
    intervals: Vec<Interval>,
    decisions: Vec<(usize, usize)>,
    /// Insert-sync's analysis of the function as [`apply_plan`] leaves it, when the weighing
    /// computed exactly that.
    analysed: Option<super::insert_sync::Analysed>,
}

/// The MemRef of every tile variable (parameter or defined anywhere in `f`) and iter arg, with
/// whether [`repoint`] would re-point it (a tile): what keeps allocs alive.
fn memref_holders(vars: &VarTable, f: &Function) -> Vec<(VarId, bool)> {
    let mut held = Vec::new();
    let mut note = |v: VarId| {
        let data = vars.var(v);
        if let (true, Some(m)) = (holds_live_memref(vars, v), data.ty.memref()) {
            held.push((m, matches!(data.ty, Type::Tile(_))));
        }
    };
    f.params.iter().for_each(|p| note(p.var));
    walk_defined_vars(&f.body, &mut note);
    held
}

/// The top-level statements of the prepared body `body` (a sequence) as [`apply_plan`] leaves
/// them under the plan `decisions` (`renamed`: its moved MemRefs): without the allocs
/// [`remove_dead_allocs`] drops and the `OpStmts` it then drops as empty; all of them when the
/// plan decides nothing (`apply_plan` then changes nothing). Unchanged statements are borrowed.
fn planned_top<'b>(
    vars: &VarTable,
    body: &'b Stmt,
    decisions: &[(usize, usize)],
    holders: &[(VarId, bool)],
    renamed: &rustc_hash::FxHashMap<VarId, VarId>,
) -> Vec<Cow<'b, Stmt>> {
    let top = super::insert_sync::top_level(body);
    if decisions.is_empty() {
        return top.iter().map(Cow::Borrowed).collect();
    }
    let live: FxHashSet<VarId> =
        holders.iter().map(|&(m, tile)| if tile { renamed.get(&m).copied().unwrap_or(m) } else { m }).collect();
    let mut out = Vec::with_capacity(top.len());
    for s in top {
        match s {
            _ if is_dead_alloc(vars, s, &live) => {}
            Stmt::Ops { stmts, span } if stmts.iter().any(|c| is_dead_alloc(vars, c, &live)) => {
                let kept: Vec<Stmt> = stmts.iter().filter(|c| !is_dead_alloc(vars, c, &live)).cloned().collect();
                if !kept.is_empty() {
                    out.push(Cow::Owned(Stmt::Ops { stmts: kept, span: *span }));
                }
            }
            Stmt::Ops { stmts, .. } if stmts.is_empty() => {}
            // (A prepared body has no sequence directly in a sequence, which the removal would
            // enter.)
            other => out.push(Cow::Borrowed(other)),
        }
    }
    out
}

/// Applies the plan `decisions` over `intervals` to `f` (see [`repoint`]) and removes the
/// allocs of the MemRefs no tile holds any more.
fn apply_plan(vars: &mut VarTable, f: &mut Function, intervals: &[Interval], decisions: &[(usize, usize)]) {
    if decisions.is_empty() {
        return;
    }
    repoint(vars, f, intervals, decisions);
    let live = referenced_memrefs(vars, f);
    remove_dead_allocs(vars, &mut f.body, &live);
}

/// The MemRef each decided interval moves to: that of the buffer it joins.
fn moved_memrefs(intervals: &[Interval], decisions: &[(usize, usize)]) -> rustc_hash::FxHashMap<VarId, VarId> {
    decisions.iter().map(|&(c, p)| (intervals[c].memref, intervals[p].memref)).collect()
}

/// Re-points every tile variable and iter arg of `f` holding the MemRef of a decided interval at
/// the MemRef of the buffer it joins.
fn repoint(vars: &mut VarTable, f: &Function, intervals: &[Interval], decisions: &[(usize, usize)]) {
    let moved = moved_memrefs(intervals, decisions);
    let mut holders = Vec::new();
    f.params.iter().for_each(|p| holders.push(p.var));
    walk_defined_vars(&f.body, &mut |v| holders.push(v));
    for v in holders {
        let data = vars.var_mut(v);
        if let Type::Tile(t) = &mut data.ty {
            if let Some(to) = t.memref.and_then(|m| moved.get(&m)) {
                Arc::make_mut(t).memref = Some(*to);
            }
        }
    }
}

/// Whether the buffers of a plan fit every memory space, laid out one after another as
/// allocate-memory-addr does, with room left in Vec for what code generation places after them:
/// the tile results of `if`s and, per op, scratch tiles (at most two of the largest Vec tile).
fn fits(vars: &VarTable, f: &Function, intervals: &[Interval], decisions: &[(usize, usize)]) -> bool {
    let joined: FxHashSet<usize> = decisions.iter().map(|&(c, _)| c).collect();
    let mut used: Vec<(MemorySpace, u64)> = Vec::new();
    let mut largest_vec = 0u64;
    for (k, iv) in intervals.iter().enumerate() {
        if iv.space == MemorySpace::Vec {
            largest_vec = largest_vec.max(iv.size);
        }
        if joined.contains(&k) {
            continue;
        }
        let aligned = align_up(iv.size);
        match used.iter_mut().find(|(s, _)| *s == iv.space) {
            Some((_, n)) => *n = n.saturating_add(aligned),
            None => used.push((iv.space, aligned)),
        }
    }
    let mut if_results = 0u64;
    crate::ir::visit::walk_stmts(&f.body, &mut |s| {
        if let Stmt::If { return_vars, .. } = s {
            for &r in return_vars {
                if let (Type::Tile(_), Some(m)) = (vars.var_type(r), vars.var_type(r).memref()) {
                    if let VarKind::MemRef(info) = &vars.var(m).kind {
                        if_results = if_results.saturating_add(align_up(info.size));
                    }
                }
            }
        }
    });
    used.iter().all(|&(space, n)| {
        let extra = if space == MemorySpace::Vec { if_results.saturating_add(2 * largest_vec) } else { 0 };
        n.saturating_add(extra) <= crate::backend::capacity(space)
    })
}

/// How much [`decide_plan`] shares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sharing {
    /// Every buffer it can: in place, else the smallest free buffer.
    Compact,
    /// Accumulators in place, else the oldest free buffer (the reference's choice).
    Reuse,
    /// Only what must be: an accumulator's result in place ([`ops::accumulates_in_place`]).
    Required,
}

impl Sharing {
    /// The plans `-O1` weighs, most compact first (ties go to the first).
    const WEIGHED: [Sharing; 3] = [Sharing::Compact, Sharing::Reuse, Sharing::Required];
}

/// The decisions of the `-O1` plan: (interval, the interval owning the buffer it joins).
/// Intervals in definition order; a buffer is a set of intervals that never overlap, its size
/// the owner's. For each interval, in order of preference:
/// 1. in place: the buffer whose interval dies at this very statement, when the statement is an
///    element-wise op ([`ops::writes_in_place`]) that reads that interval only as whole operands
///    of the result's dtype and shape (touching intervals otherwise overlap);
/// 2. the smallest free buffer of the space that is large enough (ties: the oldest), free meaning
///    its last interval ended before this one starts;
/// 3. else a buffer of its own.
///
/// With tiles of one size this is the greedy colouring of an interval graph in start order, which
/// needs no more buffers than tiles are live at once (the liveness lower bound).
/// [`Sharing::Reuse`] takes step 1 for accumulators only and the oldest free buffer in step 2;
/// [`Sharing::Required`] takes step 1 for accumulators only and skips step 2.
fn decide_plan(vars: &VarTable, stmts: &[&Stmt], intervals: &[Interval], sharing: Sharing) -> Vec<(usize, usize)> {
    struct Buffer {
        owner: usize,
        space: MemorySpace,
        size: u64,
        /// The interval that uses the buffer last (the latest joined).
        tail: usize,
        /// `intervals[tail].last`, kept here: the scans below read it for every buffer.
        last: usize,
    }
    let mut buffers: Vec<Buffer> = Vec::new();
    // The buffers by the statement their last interval ends at (entries go stale when a buffer
    // takes a new interval, and are checked against `Buffer::last`): the candidates for step 1
    // without a scan of every buffer, which made a plan quadratic in the tiles of a function.
    let mut ending: rustc_hash::FxHashMap<usize, Vec<usize>> = Default::default();
    let mut decisions = Vec::new();
    for (c, cur) in intervals.iter().enumerate() {
        let fits = |b: &Buffer| b.space == cur.space && b.size >= cur.size;
        // A tile yielded by a loop body keeps its buffer through the whole body (the PTO
        // emitter passes the buffer itself to the next iteration): only a buffer free before
        // the body starts, and never in place.
        let free_from = cur.carried_from.unwrap_or(cur.def);
        let candidates = if cur.carried_from.is_none() { ending.get(&cur.def) } else { None };
        // The first buffer (in creation order) that may be overwritten in place.
        let in_place = candidates.into_iter().flatten().copied().filter(|&k| {
            let b = &buffers[k];
            let tail = &intervals[b.tail];
            b.last == cur.def
                && fits(b)
                && !tail.extended
                && may_overwrite(vars, stmts[cur.def], cur.first, tail.memref, sharing)
        });
        let in_place = in_place.min();
        let free = || {
            if sharing == Sharing::Required {
                return None;
            }
            buffers
                .iter()
                .enumerate()
                .filter(|(_, b)| b.last < free_from && fits(b))
                .min_by_key(|(k, b)| (if sharing == Sharing::Compact { b.size } else { 0 }, *k))
                .map(|(k, _)| k)
        };
        let k = match in_place.or_else(free) {
            Some(k) => {
                decisions.push((c, buffers[k].owner));
                buffers[k].tail = c;
                buffers[k].last = cur.last;
                k
            }
            None => {
                buffers.push(Buffer { owner: c, space: cur.space, size: cur.size, tail: c, last: cur.last });
                buffers.len() - 1
            }
        };
        ending.entry(cur.last).or_default().push(k);
    }
    decisions
}

/// Whether `s`, the definition of tile `result`, may write it over the buffer `dying`, which it
/// reads for the last time: `s` assigns `result` an element-wise op, and every variable of `s`
/// in MemRef `dying` is a whole operand of the result's dtype, shape and view.
fn may_overwrite(vars: &VarTable, s: &Stmt, result_var: VarId, dying: VarId, sharing: Sharing) -> bool {
    let Stmt::Assign { var, value, .. } = s else { return false };
    let ExprKind::Call(call) = &value.kind else { return false };
    let Callee::Op(op) = call.callee else { return false };
    let allowed = match sharing {
        Sharing::Compact => ops::writes_in_place(op),
        Sharing::Reuse | Sharing::Required => ops::accumulates_in_place(op),
    };
    if *var != result_var || !allowed {
        return false;
    }
    let Type::Tile(result) = vars.var_type(*var) else { return false };
    // A tile without a view has the default one (row-major, as `block.load` writes it out).
    // (Compared by reference: a view holds vectors, and this runs for every in-place candidate.)
    let default_view = TileView::default();
    fn view<'t>(t: &'t TileType, default: &'t TileView) -> &'t TileView {
        t.view.as_ref().unwrap_or(default)
    }
    let result_view = view(result, &default_view);
    let same_as_result = |v: VarId| match vars.var_type(v) {
        Type::Tile(t) => t.dtype == result.dtype && t.shape == result.shape && view(t, &default_view) == result_view,
        _ => false,
    };
    let mut ok = true;
    let mut operands = 0;
    for_each_var(value, &mut |v| {
        if vars.var_type(v).memref() == Some(dying) {
            operands += 1;
        }
    });
    let direct = call
        .args
        .iter()
        .filter_map(|a| match a.kind {
            ExprKind::Var(v) if vars.var_type(v).memref() == Some(dying) => {
                ok &= same_as_result(v);
                Some(v)
            }
            _ => None,
        })
        .count();
    ok && direct > 0 && direct == operands
}

/// The program point where the buffers of one memory space live at once take the most bytes
/// (for E0602, see `allocate_memory_addr`).
#[derive(Clone, Debug)]
pub(crate) struct Peak {
    /// The bytes of the distinct buffers live at that point.
    pub bytes: u64,
    /// The statement at that point (of the `-O1` linear statements).
    pub stmt: Span,
    /// One tile per live buffer, in definition order: the tile variable holding it there, and
    /// the buffer's bytes.
    pub live: Vec<(VarId, u64)>,
}

/// The peak of `space` in `f` as its MemRefs are now, measured with the `-O1` lifetimes
/// ([`lifetime::plan_intervals`]'s rules): at each statement, the distinct MemRefs with a tile
/// variable live there. Touching lifetimes count at their shared statement, except a result that
/// may be written over an operand dying there ([`may_overwrite`]; one buffer, counted once).
/// `None` when no tile of `space` is defined in the analysed statements.
pub(crate) fn live_peak(f: &Function, space: MemorySpace) -> Option<Peak> {
    let vars = &f.vars;
    let (stmts, loops) = blocks::linear_statements_with_loops(&f.body);
    let size_of = |m: VarId| match &vars.var(m).kind {
        VarKind::MemRef(info) if info.space == space => Some(info.size),
        _ => None,
    };
    let spans: Vec<lifetime::VarSpan> = lifetime::var_spans(vars, &f.body, &stmts, Some(&loops))
        .into_iter()
        .filter(|s| size_of(s.memref).is_some())
        .collect();
    if spans.is_empty() {
        return None;
    }
    // A sweep over the statements: spans start at `def` and end after `last`. A span counts
    // as holding its MemRef, or, when its definition may be written over an operand that dies
    // there (as the -O1 plan does), as holding that operand's MemRef: then the bytes are the
    // least any plan needs, and a program over the capacity here fits under no plan.
    let mut starting: Vec<Vec<usize>> = vec![Vec::new(); stmts.len()];
    let mut ending: Vec<Vec<usize>> = vec![Vec::new(); stmts.len()];
    for (k, s) in spans.iter().enumerate() {
        starting[s.def].push(k);
        ending[s.last.min(stmts.len() - 1)].push(k);
    }
    let mut counted_as: Vec<VarId> = spans.iter().map(|s| s.memref).collect();
    let mut holders: rustc_hash::FxHashMap<VarId, usize> = rustc_hash::FxHashMap::default();
    let (mut bytes, mut best) = (0u64, (0u64, 0usize));
    for i in 0..stmts.len() {
        for &k in &starting[i] {
            let own = spans[k].memref;
            if holders.get(&own).copied().unwrap_or(0) == 0 {
                let over = ending[i].iter().map(|&d| &spans[d]).find(|d| {
                    !d.extended
                        && d.def < i
                        && d.memref != own
                        && size_of(d.memref) >= size_of(own)
                        && holders.get(&d.memref).copied().unwrap_or(0) > 0
                        && may_overwrite(vars, stmts[i], spans[k].var, d.memref, Sharing::Compact)
                });
                if let Some(d) = over {
                    counted_as[k] = d.memref;
                }
            }
            let count = holders.entry(counted_as[k]).or_insert(0);
            if *count == 0 {
                bytes = bytes.saturating_add(size_of(counted_as[k]).unwrap_or(0));
            }
            *count += 1;
        }
        if bytes > best.0 {
            best = (bytes, i);
        }
        for &k in &ending[i] {
            if let Some(count) = holders.get_mut(&counted_as[k]) {
                *count -= 1;
                if *count == 0 {
                    bytes = bytes.saturating_sub(size_of(counted_as[k]).unwrap_or(0));
                }
            }
        }
    }
    let (bytes, at) = best;
    // One tile per held MemRef: the latest defined one live at `at` (spans are in definition
    // order, so a later one replaces an earlier one of the same MemRef).
    let mut live: Vec<(VarId, VarId, u64)> = Vec::new();
    for (k, s) in spans.iter().enumerate().filter(|(_, s)| s.def <= at && at <= s.last) {
        let m = counted_as[k];
        match live.iter_mut().find(|(_, held, _)| *held == m) {
            Some(entry) => entry.0 = s.var,
            None => live.push((s.var, m, size_of(m).unwrap_or(0))),
        }
    }
    Some(Peak { bytes, stmt: stmts[at].span(), live: live.into_iter().map(|(v, _, size)| (v, size)).collect() })
}

/// Step 3: which interval reuses which (pairs of indices into `intervals`, current first).
/// Per memory space, in definition order, each interval takes the first earlier one of the
/// same space that does not overlap it, is at least as large, and whose other users it does
/// not overlap either.
///
/// Intervals come in definition order (see [`lifetime::intervals`]), so an earlier interval
/// and its users overlap the current one exactly when one of them ends at or after the current
/// start: an earlier interval is free while `busy` (its last index and its users') is before
/// the current start. Free intervals wait in a [`FirstFit`] per space; a taken one comes back
/// once the walk passes its new `busy`. The result is the same as the definition's scan over
/// all earlier intervals (tested against it), in O(n log n).
///
/// Every interval ends at or after its start (`last >= def`), as `lifetime::intervals` makes
/// them: what waits to come back is always due at or after the current start.
fn decide(intervals: &[Interval]) -> Vec<(usize, usize)> {
    let n = intervals.len();
    let mut free: Vec<(MemorySpace, FirstFit)> = Vec::new();
    let mut busy: Vec<usize> = intervals.iter().map(|iv| iv.last).collect();
    // The intervals waiting to come back, by their `busy` index: a list per index
    // (`waking[i]` is its first interval, `next[p]` the one after `p`). The walk passes the
    // indices in increasing order, so this is a priority queue without the heap.
    const NONE: usize = usize::MAX;
    let horizon = intervals.iter().map(|iv| iv.last + 1).max().unwrap_or(0);
    let mut waking = vec![NONE; horizon];
    let mut next = vec![NONE; n];
    fn wait(waking: &mut [usize], next: &mut [usize], p: usize, until: usize) {
        next[p] = waking[until];
        waking[until] = p;
    }
    let mut passed = 0;
    let mut decisions = Vec::new();
    for (c, cur) in intervals.iter().enumerate() {
        let due = passed..cur.def.min(horizon).max(passed);
        for slot in &mut waking[due] {
            let mut p = std::mem::replace(slot, NONE);
            while p != NONE {
                let prev = &intervals[p];
                space_slot(&mut free, prev.space, n).set(p, Some(prev.size));
                p = next[p];
            }
        }
        passed = passed.max(cur.def);
        let candidates = space_slot(&mut free, cur.space, n);
        if let Some(p) = candidates.first_at_least(cur.size) {
            candidates.set(p, None);
            busy[p] = busy[p].max(cur.last);
            wait(&mut waking, &mut next, p, busy[p]);
            decisions.push((c, p));
        }
        wait(&mut waking, &mut next, c, busy[c]);
    }
    decisions
}

/// The free intervals of `space` (created on first use).
fn space_slot(free: &mut Vec<(MemorySpace, FirstFit)>, space: MemorySpace, n: usize) -> &mut FirstFit {
    let k = match free.iter().position(|(s, _)| *s == space) {
        Some(k) => k,
        None => {
            free.push((space, FirstFit::new(n)));
            free.len() - 1
        }
    };
    &mut free[k].1
}

/// The MemRef variables still held by a tile variable (parameter or defined anywhere in `f`)
/// or an iter-arg after re-pointing.
fn referenced_memrefs(vars: &VarTable, f: &Function) -> FxHashSet<VarId> {
    memref_holders(vars, f).into_iter().map(|(m, _)| m).collect()
}

/// Whether the MemRef in `v`'s type keeps its alloc alive (a tile's or an iter arg's).
fn holds_live_memref(vars: &VarTable, v: VarId) -> bool {
    let data = vars.var(v);
    matches!(data.ty, Type::Tile(_)) || matches!(data.kind, VarKind::IterArg { .. })
}

/// Whether `st` is `m = block.alloc(...)` of a MemRef not in `live`.
fn is_dead_alloc(vars: &VarTable, st: &Stmt, live: &FxHashSet<VarId>) -> bool {
    match st {
        Stmt::Assign { var, value, .. } => {
            matches!(vars.var(*var).kind, VarKind::MemRef(_))
                && matches!(&value.kind, ExprKind::Call(c) if c.callee.is_op(ops::id::ALLOC))
                && !live.contains(var)
        }
        _ => false,
    }
}

/// Step 5: drops `m = block.alloc(...)` statements of MemRefs not in `live`, looking only at
/// the function's top level (through `SeqStmts`/`OpStmts`, not into control flow or scopes),
/// and `OpStmts` left empty.
fn remove_dead_allocs(vars: &VarTable, s: &mut Stmt, live: &FxHashSet<VarId>) {
    let is_dead_alloc = |st: &Stmt| is_dead_alloc(vars, st, live);
    if let Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } = s {
        stmts.retain(|c| !is_dead_alloc(c));
        for c in stmts.iter_mut() {
            if matches!(c, Stmt::Seq { .. } | Stmt::Ops { .. }) {
                remove_dead_allocs(vars, c, live);
            }
        }
        stmts.retain(|c| !matches!(c, Stmt::Ops { stmts, .. } if stmts.is_empty()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The analysis `-O1` hands on to insert-sync is the one insert-sync computes itself: on
    /// every corpus program, insert-sync after the pass gives the same IR with it as without.
    #[test]
    fn the_analysis_handed_on_is_insert_syncs_own() {
        use crate::backend::Backend;
        use crate::passes::{insert_sync, Pipeline};
        let env = PassEnv { opt: OptLevel::O1, ..PassEnv::new(Backend::Cce) };
        let before: Vec<_> =
            Pipeline::Default.passes().into_iter().take_while(|p| p.name != "basic-memory-reuse").collect();
        let (mut handed_on, mut functions) = (0, 0);
        for (name, text) in crate::parser::split_tests::corpus() {
            let Ok(prog) = crate::driver::frontend_with_jobs(&text, 1) else { continue };
            let Ok(prog) = crate::passes::manager::Manager::new(&before, env).run(prog) else { continue };
            for f in prog.functions {
                functions += 1;
                let Ok((planned, carried)) = carrying(f, Carried::Nothing, &env) else { continue };
                let handed = matches!(carried, Carried::SyncAnalysis(_));
                let fresh = insert_sync::function(planned.clone(), &env);
                let taken = insert_sync::carrying(planned, carried, &env).map(|(f, _)| f);
                match (fresh, taken) {
                    (Ok(a), Ok(b)) => {
                        let print = crate::printer::print_function;
                        assert_eq!(print(&a), print(&b), "{name}: {}", a.name);
                    }
                    (Err(_), Err(_)) => assert!(!handed, "{name}: an analysis was handed on for a failing function"),
                    (a, b) => panic!("{name}: insert-sync {} alone, {} with the analysis", a.is_ok(), b.is_ok()),
                }
                handed_on += usize::from(handed);
            }
        }
        assert!(handed_on > 50 && handed_on < functions, "{handed_on} of {functions} functions handed on");
    }

    fn iv(space: MemorySpace, size: u64, def: usize, last: usize) -> Interval {
        Interval {
            first: VarId(0),
            rest: Vec::new(),
            memref: VarId(0),
            space,
            size,
            def,
            last,
            extended: false,
            carried_from: None,
        }
    }

    #[test]
    fn touching_intervals_overlap() {
        let a = iv(MemorySpace::Vec, 64, 0, 3);
        assert!(a.overlaps(&iv(MemorySpace::Vec, 64, 3, 5)));
        assert!(!a.overlaps(&iv(MemorySpace::Vec, 64, 4, 5)));
    }

    #[test]
    fn decisions_respect_space_size_and_other_users() {
        use MemorySpace::{Mat, Vec as V};
        let ivs = [
            iv(V, 64, 0, 1),   // 0
            iv(Mat, 64, 2, 2), // 1: other space, takes nothing
            iv(V, 128, 2, 2),  // 2: larger than 0's buffer
            iv(V, 64, 2, 4),   // 3: reuses 0
            iv(V, 32, 4, 6),   // 4: 0's user 3 overlaps; 2 is free and large enough
        ];
        assert_eq!(decide(&ivs), vec![(3, 0), (4, 2)]);
    }

    /// The definition of step 3, literally: for each interval, scan every earlier one.
    fn decide_by_definition(intervals: &[Interval]) -> Vec<(usize, usize)> {
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); intervals.len()];
        let mut decisions = Vec::new();
        for (c, cur) in intervals.iter().enumerate() {
            let candidate = (0..c).find(|&p| {
                let prev = &intervals[p];
                prev.space == cur.space
                    && !prev.overlaps(cur)
                    && prev.size >= cur.size
                    && users[p].iter().all(|&u| !intervals[u].overlaps(cur))
            });
            if let Some(p) = candidate {
                users[p].push(c);
                decisions.push((c, p));
            }
        }
        decisions
    }

    #[test]
    fn decisions_equal_the_definition_on_random_lifetimes() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for case in 0..2_000 {
            let n = 1 + next(40) as usize;
            let mut def = 0;
            let ivs: Vec<Interval> = (0..n)
                .map(|_| {
                    def += next(2) as usize; // equal starts too
                    let space = if next(3) == 0 { MemorySpace::Mat } else { MemorySpace::Vec };
                    iv(space, 16 * (1 + next(4)), def, def + next(12) as usize)
                })
                .collect();
            assert_eq!(decide(&ivs), decide_by_definition(&ivs), "case {case}: {ivs:?}");
        }
    }

    /// `-O1`'s compact plan on printed IR: `lines` are the body's tile statements, each tile `[64, 64]` FP32 in
    /// Vec with the MemRef id of its name's digit.
    fn plan(lines: &[&str]) -> String {
        let mut src = String::from(
            "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def f(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, -1, 16384, 0)], v: pl.Tensor[[1, 64], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, -1, 256, 9)]) -> pl.Tensor[[64, 64], pl.FP32]:\n",
        );
        for id in 1..=6 {
            src +=
                &format!("        mem_vec_{id}: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, -1, 16384, {id})\n");
        }
        src += "        mem_vec_8: pl.MemRefType = pl.block.alloc(pl.MemorySpace.Vec, -1, 256, 8)\n";
        for l in lines {
            src += &format!("        {l}\n");
        }
        src += "        return x\n";
        let mut prog = crate::driver::frontend(&src).expect("input lowers");
        let env = PassEnv { opt: OptLevel::O1, ..PassEnv::new(crate::backend::Backend::Cce) };
        // The compact plan alone (-O1 would take a roomier one with fewer syncs here).
        for f in &mut prog.functions {
            let mut vars = std::mem::take(&mut f.vars);
            let chosen = choose_plan(&vars, f, &env, &[Sharing::Compact]);
            apply_plan(&mut vars, f, &chosen.intervals, &chosen.decisions);
            f.vars = vars;
        }
        crate::printer::print_program(&prog)
    }

    fn tile(name: &str, id: u32, value: &str) -> String {
        format!("{name}: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, 16384, {id})] = {value}")
    }

    #[test]
    fn o1_writes_an_element_wise_result_over_its_dying_operand() {
        let out = plan(&[
            &tile("a", 1, "pl.block.load(x, [0, 0], [64, 64])"),
            &tile("b", 2, "pl.block.exp(a)"),
            &tile("c", 3, "pl.block.add(b, b)"),
            "r: pl.Tensor[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, -1, 16384, 0)] = pl.block.store(c, [0, 0], [64, 64], x)",
        ]);
        assert!(out.contains("b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, 16384, 1)]"), "{out}");
        assert!(out.contains("c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, 16384, 1)]"), "{out}");
        assert!(!out.contains("mem_vec_2: pl.MemRefType"), "{out}");
    }

    #[test]
    fn o1_keeps_an_operand_read_later_or_of_another_shape() {
        let out = plan(&[
            &tile("a", 1, "pl.block.load(x, [0, 0], [64, 64])"),
            "w: pl.Tile[[1, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, 256, 8)] = pl.block.load(v, [0, 0], [1, 64])",
            // `a` is read again by `c`: `b` needs a buffer of its own.
            &tile("b", 2, "pl.block.exp(a)"),
            &tile("c", 3, "pl.block.add(a, b)"),
            // `w` dies here but is the broadcast row: `d` goes over `c` (same shape), not `w`.
            &tile("d", 4, "pl.block.col_expand_sub(c, w)"),
            // a load is no element-wise op: `e` takes a free buffer (`b`'s), not `d`'s.
            &tile("e", 5, "pl.block.load(x, [0, 0], [64, 64])"),
            &tile("f", 6, "pl.block.add(d, e)"),
        ]);
        assert!(out.contains("b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, 16384, 2)]"), "{out}");
        assert!(out.contains("c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, 16384, 1)]"), "{out}");
        assert!(out.contains("d: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, 16384, 1)]"), "{out}");
        assert!(out.contains("e: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, -1, 16384, 2)]"), "{out}");
    }
}
