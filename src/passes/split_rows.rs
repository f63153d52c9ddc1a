//! SplitRows (`-O2`): a straight-line InCore kernel whose every op works row by row becomes a
//! loop over blocks of rows.
//!
//! A kernel written as one load → compute → store chain over `[R, C]` tiles runs its pipes one
//! after another: the vector pipe waits for the whole load, the store for the whole compute.
//! Over blocks of `R / n` rows the same work is a loop of n iterations, which `pipeline-loops`
//! double-buffers at `-O2`, so that one block's load overlaps the previous block's compute and
//! store. The pass makes the candidates (n = 2, 4, 8); which one a kernel gets, if any, is
//! chosen by the cycle model (`passes::split_rows_weighed`), since more blocks cost more
//! instructions and a kernel bound by one pipe gains nothing.
//!
//! A function is split only when that computes the same, element for element:
//! - it is InCore and straight-line (no loop, `if` or scope; a loop that runs once and carries
//!   nothing counts as its body), ending in a `return` of the results of its stores;
//! - every tile is 2-D with the same number of rows R and a static shape, with no valid shape;
//! - every op computes each row from the same row of its operands: element-wise ops (with a
//!   scalar too), casts, compares and selects, row reductions (`[R, C]` → `[R, 1]`) and row
//!   broadcasts, tile creation, and loads and stores of 2-D windows `[R, C]` of 2-D tensors;
//! - each store writes a different parameter, which nothing loads, and no other op uses the
//!   stored tensor;
//! - each block's `[R / n, 1]` column tiles keep pto-isa's 32-byte alignment.
//!
//! Block b loads and stores rows `o + b·R/n ..` of each window at row offset `o`; the stored
//! parameters are carried through the loop.

use crate::ir::{
    BinOp, Call, Callee, DataType, Expr, ExprKind, ForKind, Function, FunctionType, Stmt, Type, VarId, VarKind,
    VarTable,
};
use crate::ops::table::Rule;

pub const NAME: &str = "split-rows";

/// The numbers of row blocks tried.
pub const BLOCKS: [i64; 3] = [2, 4, 8];

/// What a function split into blocks needs to know of it.
struct Plan<'f> {
    rows: i64,
    /// The assignments and statement stores in order (the `return` apart).
    stmts: Vec<&'f Stmt>,
    /// Stores whose result is a variable: (result, destination parameter), in order; the
    /// loop carries their destinations.
    stores: Vec<(VarId, VarId)>,
    ret: Option<&'f Stmt>,
}

/// Each block count of [`BLOCKS`] for which `f` can be split, with the split function.
pub fn candidates(f: &Function) -> Vec<(i64, Function)> {
    let inlined = single_trips_inlined(f);
    let f = inlined.as_ref().unwrap_or(f);
    let Some(plan) = plan(f) else { return Vec::new() };
    BLOCKS
        .iter()
        .filter(|&&n| plan.rows % n == 0 && columns_aligned(&f.vars, plan.rows / n))
        .map(|&n| (n, split(f, &plan, n)))
        .collect()
}

fn plan(f: &Function) -> Option<Plan<'_>> {
    if f.kind != FunctionType::InCore {
        return None;
    }
    let mut stmts = Vec::new();
    flatten(&f.body, &mut stmts)?;
    let ret = stmts.pop_if(|s| matches!(s, Stmt::Return { .. }));
    let values: &[Expr] = match ret {
        Some(Stmt::Return { values, .. }) => values,
        _ => &[],
    };
    let rows = common_rows(&f.vars)?;
    let params: Vec<VarId> = f.params.iter().map(|p| p.var).collect();
    let mut stores: Vec<(VarId, VarId)> = Vec::new();
    // Every stored parameter, also by a store written as a statement (no result).
    let mut dests: Vec<VarId> = Vec::new();
    let mut loaded = Vec::new();
    for s in &stmts {
        let (var, value) = match s {
            Stmt::Assign { var, value, .. } => (Some(*var), value),
            Stmt::Eval { expr, .. } => (None, expr),
            _ => return None,
        };
        if var.is_none() && !is_store(value) {
            return None;
        }
        match &value.kind {
            ExprKind::Call(c) => {
                let Callee::Op(op) = c.callee else { return None };
                let def = crate::ops::def(op);
                match def.rule {
                    Rule::Load => {
                        let t = c.args.first()?.as_var()?;
                        window(&f.vars, c, 1, rows)?;
                        loaded.push(t);
                    }
                    Rule::Store => {
                        let dest = c.args.get(3)?.as_var()?;
                        window(&f.vars, c, 1, rows)?;
                        if !params.contains(&dest) || dests.contains(&dest) {
                            return None;
                        }
                        dests.push(dest);
                        stores.extend(var.map(|v| (v, dest)));
                    }
                    Rule::CreateTile => {
                        let shape = list(c.args.first()?)?;
                        (shape.len() == 2 && shape[0].as_const_int() == Some(rows)).then_some(())?;
                    }
                    Rule::Broadcast { .. }
                    | Rule::KeepShape { .. }
                    | Rule::SameTile { .. }
                    | Rule::NotTile
                    | Rule::Cast(_)
                    | Rule::RowReduce
                    | Rule::RowExpandBinary
                    | Rule::Select
                    | Rule::AddC
                    | Rule::AddSC
                    | Rule::CmpBits
                    | Rule::SelectBits => {
                        // Operands are tiles (of R rows, as every tile) or scalars.
                        if !c.args.iter().all(|a| tile_or_scalar(&f.vars, a)) {
                            return None;
                        }
                    }
                    _ => return None,
                }
                if !matches!(def.rule, Rule::Store) && !var.is_some_and(|v| matches!(f.vars.var_type(v), Type::Tile(_)))
                {
                    return None;
                }
            }
            _ => {
                // A scalar computed from scalars: recomputed in each block.
                if !var.is_some_and(|v| matches!(f.vars.var_type(v), Type::Scalar(_))) || has_call(value) {
                    return None;
                }
            }
        }
    }
    if dests.is_empty() || loaded.iter().any(|t| dests.contains(t)) {
        return None;
    }
    // The return gives the stores' results, and nothing else uses them or the stored tensors.
    let stored = |v: VarId| dests.contains(&v) || stores.iter().any(|&(r, _)| r == v);
    for s in &stmts {
        let (Stmt::Assign { value, .. } | Stmt::Eval { expr: value, .. }) = s else { continue };
        let ExprKind::Call(c) = &value.kind else { continue };
        let uses = if is_store(value) { &c.args[..3] } else { &c.args[..] };
        if uses.iter().any(|a| uses_var(a, &stored)) {
            return None;
        }
    }
    let results: Vec<VarId> = values.iter().map(|v| v.as_var()).collect::<Option<_>>()?;
    if results.len() != stores.len() || !stores.iter().all(|(r, _)| results.contains(r)) {
        return None;
    }
    Some(Plan { rows, stmts, stores, ret })
}

/// `f` with each loop of its body that runs exactly once and carries nothing replaced by its
/// body after an assignment of its start to the loop variable, or `None` when it has none: such
/// a loop (`for i in pl.range(1):` around a kernel) is a straight line as written.
fn single_trips_inlined(f: &Function) -> Option<Function> {
    let Stmt::Seq { stmts, span } = &f.body else { return None };
    let mut changed = false;
    let stmts = stmts
        .iter()
        .flat_map(|s| match s {
            Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, span, .. }
                if iter_args.is_empty() && return_vars.is_empty() && runs_once(start, stop, step) =>
            {
                changed = true;
                vec![Stmt::Assign { var: *loop_var, value: (**start).clone(), span: *span }, (**body).clone()]
            }
            _ => vec![s.clone()],
        })
        .collect();
    changed.then(|| Function { body: Stmt::Seq { stmts, span: *span }, ..f.clone() })
}

/// Whether a loop from `start` to `stop` by `step` (constants) runs exactly once.
fn runs_once(start: &Expr, stop: &Expr, step: &Expr) -> bool {
    matches!((start.as_const_int(), stop.as_const_int(), step.as_const_int()), (Some(a), Some(b), Some(c)) if c > 0 && super::pipeline_loops::trip_count(a, b, c) == 1)
}

/// The statements of a straight-line body, or `None` when it is not one.
fn flatten<'f>(s: &'f Stmt, out: &mut Vec<&'f Stmt>) -> Option<()> {
    match s {
        Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => stmts.iter().try_for_each(|c| flatten(c, out)),
        Stmt::Assign { .. } | Stmt::Eval { .. } | Stmt::Return { .. } => {
            out.push(s);
            Some(())
        }
        _ => None,
    }
}

/// The row count R of every tile variable of the function (2-D, static, no valid shape, no
/// buffer yet); `None` if they differ or there are none.
fn common_rows(vars: &VarTable) -> Option<i64> {
    let mut rows = None;
    for (_, data) in vars.iter() {
        let Type::Tile(t) = &data.ty else { continue };
        let dims: Vec<i64> = t.shape.iter().map(Expr::as_const_int).collect::<Option<_>>()?;
        let plain = t.memref.is_none() && t.view.as_ref().is_none_or(|v| v.valid_shape.is_empty());
        if dims.len() != 2 || !plain || *rows.get_or_insert(dims[0]) != dims[0] {
            return None;
        }
    }
    rows.filter(|&r| r > 1)
}

/// Whether each `[r, 1]` column tile of `r` rows is a whole number of 32-byte blocks.
fn columns_aligned(vars: &VarTable, r: i64) -> bool {
    vars.iter().all(|(_, data)| match &data.ty {
        Type::Tile(t) if t.shape.get(1).and_then(Expr::as_const_int) == Some(1) => {
            (r * i64::from(t.dtype.bits())) % 256 == 0
        }
        _ => true,
    })
}

/// The window of a load or store: offsets (arg `at`) and shape (arg `at + 1`) of 2 axes, the
/// shape `[R, C]` static, of a 2-D tensor.
fn window(vars: &VarTable, c: &Call, at: usize, rows: i64) -> Option<()> {
    let offsets = list(c.args.get(at)?)?;
    let shape = list(c.args.get(at + 1)?)?;
    let tensor = c.args.iter().find_map(|a| match a.as_var().map(|v| vars.var_type(v)) {
        Some(Type::Tensor(t)) => Some(t),
        _ => None,
    })?;
    let ok = offsets.len() == 2 && shape.len() == 2 && tensor.shape.len() == 2 && shape[0].as_const_int() == Some(rows);
    ok.then_some(())
}

fn is_store(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call(c) if matches!(c.callee, Callee::Op(op) if matches!(crate::ops::def(op).rule, Rule::Store)))
}

fn list(e: &Expr) -> Option<Vec<&Expr>> {
    match &e.kind {
        ExprKind::MakeTuple(items) => Some(items.iter().collect()),
        _ => None,
    }
}

fn tile_or_scalar(vars: &VarTable, e: &Expr) -> bool {
    match e.as_var() {
        Some(v) => matches!(vars.var_type(v), Type::Tile(_) | Type::Scalar(_)),
        None => !has_call(e) && !matches!(e.kind, ExprKind::MakeTuple(_)),
    }
}

fn has_call(e: &Expr) -> bool {
    let mut found = false;
    crate::ir::visit::walk_expr(e, &mut |x| found |= matches!(x.kind, ExprKind::Call(_)));
    found
}

fn uses_var(e: &Expr, pred: &dyn Fn(VarId) -> bool) -> bool {
    let mut found = false;
    crate::ir::visit::walk_expr(e, &mut |x| found |= x.as_var().is_some_and(pred));
    found
}

/// `f` as a loop over `n` blocks of rows (see the module docs).
fn split(f: &Function, plan: &Plan, n: i64) -> Function {
    let r = plan.rows / n;
    let span = f.span;
    let mut vars = f.vars.clone();
    let tiles: Vec<VarId> = vars.iter().filter(|(_, d)| matches!(d.ty, Type::Tile(_))).map(|(v, _)| v).collect();
    for v in tiles {
        shrink(&mut vars.var_mut(v).ty, r);
    }
    let name = unique_name(&vars, "row_block");
    let block = vars.new_var(name, Type::Scalar(DataType::Int64), VarKind::Plain, span);
    let mut carried = Vec::new();
    let mut results = Vec::new();
    for &(result, dest) in &plan.stores {
        let ty = vars.var_type(dest).clone();
        let name = unique_name(&vars, &format!("{}_rows", vars.var_name(dest)));
        let init = Box::new(Expr::var(dest, span));
        carried.push(vars.new_var(name, ty.clone(), VarKind::IterArg { init }, span));
        let name = unique_name(&vars, &format!("{}_all", vars.var_name(result)));
        results.push(vars.new_var(name, vars.var_type(result).clone(), VarKind::Plain, span));
    }
    let first_row = Expr::new(
        ExprKind::Binary(BinOp::Mul, Box::new(Expr::var(block, span)), Box::new(Expr::int(r, DataType::Int64, span))),
        Type::Scalar(DataType::Int64),
        span,
    );
    let mut body: Vec<Stmt> = plan
        .stmts
        .iter()
        .map(|s| {
            let mut s = (*s).clone();
            if let Stmt::Assign { value, .. } | Stmt::Eval { expr: value, .. } = &mut s {
                block_value(value, r, &first_row, plan, &carried);
            }
            s
        })
        .collect();
    if !plan.stores.is_empty() {
        body.push(Stmt::Yield { values: plan.stores.iter().map(|&(v, _)| Expr::var(v, span)).collect(), span });
    }
    let ret = plan.ret.map(|ret| {
        let Stmt::Return { values, span } = ret else { unreachable!("a plan's return is a return") };
        let values = values
            .iter()
            .map(|v| {
                let k = plan
                    .stores
                    .iter()
                    .position(|&(s, _)| Some(s) == v.as_var())
                    .expect("a planned return gives stores");
                Expr::var(results[k], v.span)
            })
            .collect();
        Stmt::Return { values, span: *span }
    });
    let lp = Stmt::For {
        loop_var: block,
        start: Box::new(Expr::int(0, DataType::Int64, span)),
        stop: Box::new(Expr::int(n, DataType::Int64, span)),
        step: Box::new(Expr::int(1, DataType::Int64, span)),
        iter_args: carried,
        body: Box::new(Stmt::block(body, span)),
        return_vars: results,
        kind: ForKind::Sequential,
        span,
    };
    let stmts = std::iter::once(lp).chain(ret).collect();
    Function { body: Stmt::Seq { stmts, span: f.body.span() }, vars, ..f.clone() }
}

/// The value of an assignment in one block: tile types of `r` rows, windows from the block's
/// first row on, stores into the carried tensors.
fn block_value(value: &mut Expr, r: i64, first_row: &Expr, plan: &Plan, carried: &[VarId]) {
    shrink_all(value, r);
    let ExprKind::Call(c) = &mut value.kind else { return };
    let Callee::Op(op) = c.callee else { return };
    match crate::ops::def(op).rule {
        Rule::Load | Rule::Store => {
            if let ExprKind::MakeTuple(offsets) = &mut c.args[1].kind {
                let o = &mut offsets[0];
                *o = match o.as_const_int() {
                    Some(0) => first_row.clone(),
                    _ => {
                        let ty = o.ty.clone();
                        let at = o.span;
                        Expr::new(
                            ExprKind::Binary(BinOp::Add, Box::new(o.clone()), Box::new(first_row.clone())),
                            ty,
                            at,
                        )
                    }
                };
            }
            set_rows(&mut c.args[2], r);
            if let Some(dest) = c.args.get_mut(3).filter(|_| matches!(crate::ops::def(op).rule, Rule::Store)) {
                // A store with a result writes the carried tensor; one without, the parameter.
                if let Some(k) = plan.stores.iter().position(|&(_, p)| Some(p) == dest.as_var()) {
                    *dest = Expr::var(carried[k], dest.span);
                }
            }
        }
        Rule::CreateTile => set_rows(&mut c.args[0], r),
        _ => {}
    }
}

fn set_rows(shape: &mut Expr, r: i64) {
    if let ExprKind::MakeTuple(dims) = &mut shape.kind {
        if let ExprKind::ConstInt(v, _) = &mut dims[0].kind {
            *v = r;
        }
    }
}

/// Every tile type in `e` with `r` rows.
fn shrink_all(e: &mut Expr, r: i64) {
    shrink(&mut e.ty, r);
    match &mut e.kind {
        ExprKind::Call(c) => c.args.iter_mut().for_each(|a| shrink_all(a, r)),
        ExprKind::MakeTuple(items) => items.iter_mut().for_each(|a| shrink_all(a, r)),
        ExprKind::TupleGetItem(x, _) | ExprKind::Unary(_, x) => shrink_all(x, r),
        ExprKind::Binary(_, a, b) => {
            shrink_all(a, r);
            shrink_all(b, r);
        }
        _ => {}
    }
}

fn shrink(ty: &mut Type, r: i64) {
    if let Type::Tile(t) = ty {
        if let Some(ExprKind::ConstInt(v, _)) = std::sync::Arc::make_mut(t).shape.first_mut().map(|d| &mut d.kind) {
            *v = r;
        }
    }
}

/// `base`, or `base_1`, `base_2`, … : a name no variable of `vars` has.
fn unique_name(vars: &VarTable, base: &str) -> String {
    let taken = |n: &str| vars.iter().any(|(_, d)| d.name == n);
    if !taken(base) {
        return base.to_string();
    }
    (1..).map(|k| format!("{base}_{k}")).find(|n| !taken(n)).expect("a free name")
}
