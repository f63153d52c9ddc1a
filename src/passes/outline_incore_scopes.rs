//! OutlineIncoreScopes (spec `passes-and-codegen.md` §2.6, seed 000): every `with pl.incore():`
//! scope of an Opaque function becomes an InCore function `<prefix>_incore_<k>`, and the scope
//! is replaced by a call of it plus the assignments of its outputs.
//!
//! The reference works by *name* on SSA input; ptoc's variables have identity, so inputs and
//! outputs are sets of variables, ordered by name (byte-wise) as the reference orders them, with
//! the variable id as a tie-break so that output never depends on hashing.
//!
//! Deviations from the reference (spec §6 Q11, §6.1 Q25; ptoc does the right thing):
//! - iter-arg init values count as references (Q11): a variable used only as a loop's init
//!   value inside the scope becomes an input, and one defined in the scope and used only as a
//!   later loop's init value becomes an output, instead of an unbound name;
//! - a variable defined in the scope and used anywhere outside it (not only in the scope's
//!   later siblings) is an output, so a use after an enclosing `if`/`for` stays bound (the
//!   reference only looks at later siblings, which in valid SSA input differs only there);
//! - an Opaque function that had at least one scope outlined becomes Orchestration (Q25), so
//!   codegen sees kernels plus an orchestration function;
//! - a tile computed just before a scope and used in it is recomputed at the start of the
//!   outlined function ([`tile_prelude`]): a tile cannot cross the kernel ABI, so the reference's
//!   tile parameter has no C++.

use std::collections::{BTreeMap, BTreeSet};

use super::PassEnv;
use crate::diag::{codes, Diagnostic};
use crate::ir::visit::{defined_vars, map_bodies, walk_all_exprs, walk_expr, walk_stmts};
use crate::ir::{
    Call, Callee, Expr, ExprKind, Function, FunctionType, Param, ParamDirection, Program, ScopeKind, Stmt, Type, VarId,
    VarKind, VarTable,
};

/// The pass entry point (registered as `outline-incore-scopes`).
pub fn run(prog: Program, _env: &PassEnv) -> Result<Program, Vec<Diagnostic>> {
    let mut out = prog;
    let mut functions = std::mem::take(&mut out.functions);
    let mut outlined = Vec::new();
    for f in functions.iter_mut().filter(|f| f.kind == FunctionType::Opaque) {
        let mut outliner = Outliner { vars: &mut f.vars, outlined: Vec::new() };
        let mut level = Level::new(f.name.clone(), ref_counts(outliner.vars, &f.body), BTreeSet::new());
        let body = outliner.walk(&f.body, &mut level);
        outlined.append(&mut outliner.outlined);
        if level.counter > 0 {
            f.body = body;
            f.kind = FunctionType::Orchestration;
        }
    }
    let mut errors = Vec::new();
    for f in functions.into_iter().chain(outlined) {
        if let Err(f) = out.add_function(f) {
            errors.push(Diagnostic::error(
                codes::DUPLICATE_FUNCTION,
                f.span,
                format!("Duplicate function name \"{}\"", f.name),
            ));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Where a scope's outputs come from (§2.6 step 2).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outputs {
    /// A scope that is an element of a `SeqStmts`: the variables it defines that are used
    /// outside it, plus the enclosing scope's outputs.
    UsedOutside,
    /// A scope reached outside a `SeqStmts` (a whole branch or loop body): everything it defines.
    AllDefs,
}

/// The function body being walked: the top-level function, or the body of an outlined scope
/// whose nested scopes are being outlined.
struct Level {
    /// Name prefix of outlined functions (`main`, then `main_incore_0` for nested scopes).
    prefix: String,
    /// Scopes outlined under this prefix so far.
    counter: usize,
    /// References per variable in the whole body (see [`ref_counts`]).
    refs: BTreeMap<VarId, usize>,
    /// The enclosing outlined scope's outputs (empty at top level).
    required: BTreeSet<VarId>,
}

impl Level {
    fn new(prefix: String, refs: BTreeMap<VarId, usize>, required: BTreeSet<VarId>) -> Level {
        Level { prefix, counter: 0, refs, required }
    }
}

struct Outliner<'p> {
    /// The variables of the function whose scopes are outlined; the callee's fresh variables
    /// are made here too, then each outlined function gets a table of its own holding the
    /// variables it mentions ([`VarTable::extract`]).
    vars: &'p mut VarTable,
    /// Outlined functions, in creation order.
    outlined: Vec<Function>,
}

impl Outliner<'_> {
    /// Rebuilds `s` with every InCore scope in it outlined.
    fn walk(&mut self, s: &Stmt, level: &mut Level) -> Stmt {
        match s {
            Stmt::Seq { stmts, span } => {
                let mut out = Vec::with_capacity(stmts.len());
                for (i, c) in stmts.iter().enumerate() {
                    match c {
                        Stmt::Scope { kind: ScopeKind::InCore, .. } => {
                            out.extend(self.outline(c, &stmts[..i], Outputs::UsedOutside, level))
                        }
                        _ => out.push(self.walk(c, level)),
                    }
                }
                Stmt::Seq { stmts: out, span: *span }
            }
            Stmt::Scope { kind: ScopeKind::InCore, span, .. } => {
                Stmt::block(self.outline(s, &[], Outputs::AllDefs, level), *span)
            }
            // If/for/while bodies may hold scopes; Ops runs hold only assignments and evals, and
            // leaves have no scopes.
            _ => map_bodies(s.clone(), |body, _| self.walk(&body, level)),
        }
    }

    /// Outlines scope `scope` (§2.6 step 3) and returns the statements replacing it. `before`:
    /// the statements preceding it in its sequence (see [`tile_prelude`]).
    fn outline(&mut self, scope: &Stmt, before: &[Stmt], mode: Outputs, level: &mut Level) -> Vec<Stmt> {
        let Stmt::Scope { body, span, .. } = scope else {
            return vec![self.walk(scope, level)];
        };
        let span = *span;
        let prelude = tile_prelude(self.vars, body, before);
        let with_prelude;
        let body: &Stmt = if prelude.is_empty() {
            body
        } else {
            // One sequence: the prelude, then the body's own statements (a sequence nested in a
            // sequence is not normalised IR, and insert-sync placed no syncs in it).
            let mut stmts = prelude.clone();
            match &**body {
                Stmt::Seq { stmts: own, .. } => stmts.extend(own.iter().cloned()),
                other => stmts.push(other.clone()),
            }
            with_prelude = Stmt::block(stmts, span);
            &with_prelude
        };
        // The recomputed tiles stay defined in the parent: they are neither outputs nor the
        // parent's variables inside the callee (they get fresh ones below).
        let recomputed: BTreeSet<VarId> = prelude.iter().flat_map(defined_vars).collect();
        let inside = ref_counts(self.vars, body);
        let defs = defined_in(body);
        let inputs = self.by_name(inside.keys().filter(|v| !defs.contains(v)).copied());
        let outputs = self.by_name(defs.iter().copied().filter(|v| !recomputed.contains(v)).filter(|v| match mode {
            Outputs::AllDefs => true,
            Outputs::UsedOutside => {
                level.required.contains(v)
                    || level.refs.get(v).copied().unwrap_or(0) > inside.get(v).copied().unwrap_or(0)
            }
        }));
        let name = format!("{}_incore_{}", level.prefix, level.counter);
        level.counter += 1;

        // Nested scopes first, under this function's name.
        let mut inner = Level::new(name.clone(), inside, outputs.iter().copied().collect());
        let processed = self.walk(body, &mut inner);

        // Fresh variables for the callee: params for the inputs, new definitions for the outputs.
        let mut map = BTreeMap::new();
        for &v in inputs.iter().chain(&outputs).chain(&recomputed) {
            let d = self.vars.var(v).clone();
            let kind = if inputs.contains(&v) { VarKind::Plain } else { d.kind };
            map.insert(v, self.vars.new_var(d.name, d.ty, kind, d.span));
        }
        let renamed = rename_stmt(&processed, &map);
        rename_iter_inits(self.vars, &renamed, &map);

        let mut stmts = match renamed {
            Stmt::Seq { stmts, .. } => stmts,
            other => vec![other],
        };
        let output_types: Vec<Type> = outputs.iter().map(|&v| self.vars.var_type(v).clone()).collect();
        if !outputs.is_empty() {
            let values = outputs.iter().map(|v| Expr::var(map[v], span)).collect();
            stmts.push(Stmt::Return { values, span });
        }
        // The new function's own table: the variables it mentions, renumbered.
        let mut params: Vec<Param> =
            inputs.iter().map(|v| Param { var: map[v], direction: ParamDirection::In }).collect();
        let mut body = Stmt::block(stmts, span);
        let mut return_types = output_types.clone();
        let vars = self.vars.extract(&mut params, &mut body, &mut return_types);
        self.outlined.push(Function {
            name: name.clone(),
            kind: FunctionType::InCore,
            params,
            return_types,
            body,
            span,
            vars,
            schedule: None,
        });

        // The call site.
        let call_ty = match output_types.len() {
            0 => Type::Unknown,
            1 => output_types[0].clone(),
            _ => Type::Tuple(output_types.clone()),
        };
        let args = inputs.iter().map(|&v| Expr::var(v, span)).collect();
        let call = Call { callee: Callee::Function(name), args, kwargs: Vec::new() };
        let call = Expr::new(ExprKind::Call(Box::new(call)), call_ty.clone(), span);
        match outputs.as_slice() {
            [] => vec![Stmt::Eval { expr: call, span }],
            [o] => vec![Stmt::Assign { var: *o, value: call, span }],
            _ => {
                // Literally `ret`, once per call site, as the reference does (§6 Q4).
                let ret = self.vars.new_var("ret", call_ty, VarKind::Plain, span);
                let mut out = vec![Stmt::Assign { var: ret, value: call, span }];
                for (i, (&o, ty)) in outputs.iter().zip(output_types).enumerate() {
                    let item = Expr::new(ExprKind::TupleGetItem(Box::new(Expr::var(ret, span)), i), ty, span);
                    out.push(Stmt::Assign { var: o, value: item, span });
                }
                out
            }
        }
    }

    /// The variables sorted by name (byte-wise), then by id.
    fn by_name(&self, vars: impl Iterator<Item = VarId>) -> Vec<VarId> {
        let mut v: Vec<VarId> = vars.collect();
        v.sort_by(|a, b| self.vars.var_name(*a).cmp(self.vars.var_name(*b)).then(a.cmp(b)));
        v.dedup();
        v
    }
}

/// The statements to recompute at the start of a scope's body: the definitions of the tiles the
/// scope uses that are computed just before it.
///
/// A tile lives in a core's local memory, so a tile computed outside `with pl.incore():` cannot
/// be passed to the outlined kernel (only tensors and scalars cross the kernel ABI). When the
/// tile is defined by operations on tiles, tensors and scalars in the scope's own sequence, with
/// only such tile/scalar computations between the definition and the scope, the kernel computes
/// it again from the same inputs: nothing can have written a tensor in between (stores and
/// function calls are not tile/scalar computations), so it gets the same value. The definitions
/// are kept in the parent (which may use them elsewhere); the copies get fresh variables. Any
/// other tile input is left alone, and kernel codegen reports the tile parameter at its
/// definition. Returns the definitions in program order (empty when any needed one is missing).
fn tile_prelude(vars: &VarTable, body: &Stmt, before: &[Stmt]) -> Vec<Stmt> {
    let defs = defined_in(body);
    let mut needed: BTreeSet<VarId> = ref_counts(vars, body)
        .into_keys()
        .filter(|v| !defs.contains(v) && matches!(vars.var_type(*v), Type::Tile(_)))
        .collect();
    if needed.is_empty() {
        return Vec::new();
    }
    let mut chain = Vec::new();
    for st in before.iter().rev() {
        if needed.is_empty() {
            break;
        }
        // Everything from the earliest needed definition to the scope must be a tile or scalar
        // computed by an operation (no store, no call of a function, no control flow).
        let Stmt::Assign { var, value, .. } = st else { return Vec::new() };
        let pure_op = value.as_call().is_none_or(|c| matches!(c.callee, Callee::Op(_)));
        if !pure_op || !matches!(vars.var_type(*var), Type::Tile(_) | Type::Scalar(_)) {
            return Vec::new();
        }
        if needed.remove(var) {
            walk_expr(value, &mut |e| {
                if let ExprKind::Var(u) = e.kind {
                    if matches!(vars.var_type(u), Type::Tile(_)) {
                        needed.insert(u);
                    }
                }
            });
            chain.push(st.clone());
        }
    }
    if !needed.is_empty() {
        return Vec::new();
    }
    chain.reverse();
    chain
}

/// How often each variable is referenced in `s`: every variable use in its expressions, and
/// (§6 Q11 fix) in the init values of the iter args that `s` defines.
fn ref_counts(vars: &VarTable, s: &Stmt) -> BTreeMap<VarId, usize> {
    let mut counts = BTreeMap::new();
    let mut count = |e: &Expr| {
        if let ExprKind::Var(v) = e.kind {
            *counts.entry(v).or_insert(0) += 1;
        }
    };
    walk_all_exprs(s, &mut count);
    for v in defined_in(s) {
        if let Some(VarKind::IterArg { init }) = vars.get(v).map(|d| &d.kind) {
            walk_expr(init, &mut count);
        }
    }
    counts
}

/// Every variable defined in `s` at any depth (assignments, loop vars, iter args, return vars).
fn defined_in(s: &Stmt) -> BTreeSet<VarId> {
    let mut defs = BTreeSet::new();
    walk_stmts(s, &mut |st| defs.extend(defined_vars(st)));
    defs
}

/// Rewrites the init values of the iter args defined in `s` through `map`.
fn rename_iter_inits(vars: &mut VarTable, s: &Stmt, map: &BTreeMap<VarId, VarId>) {
    for v in defined_in(s) {
        if let Some(VarKind::IterArg { init }) = vars.get(v).map(|d| &d.kind) {
            let init = rename_expr(init, map);
            vars.var_mut(v).kind = VarKind::IterArg { init: Box::new(init) };
        }
    }
}

/// `e` with every variable use in `map` replaced by its image.
pub(crate) fn rename_expr(e: &Expr, map: &BTreeMap<VarId, VarId>) -> Expr {
    let kind = match &e.kind {
        ExprKind::Var(v) => ExprKind::Var(*map.get(v).unwrap_or(v)),
        ExprKind::Call(c) => ExprKind::Call(Box::new(Call {
            callee: c.callee.clone(),
            args: c.args.iter().map(|a| rename_expr(a, map)).collect(),
            kwargs: c.kwargs.clone(),
        })),
        ExprKind::MakeTuple(items) => ExprKind::MakeTuple(items.iter().map(|a| rename_expr(a, map)).collect()),
        ExprKind::TupleGetItem(t, i) => ExprKind::TupleGetItem(Box::new(rename_expr(t, map)), *i),
        ExprKind::Binary(op, l, r) => {
            ExprKind::Binary(*op, Box::new(rename_expr(l, map)), Box::new(rename_expr(r, map)))
        }
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, Box::new(rename_expr(x, map))),
        ExprKind::ConstInt(..) | ExprKind::ConstFloat(..) | ExprKind::ConstBool(_) => e.kind.clone(),
    };
    Expr { kind, ty: e.ty.clone(), span: e.span }
}

/// `s` with every variable in `map`, used or defined, replaced by its image.
fn rename_stmt(s: &Stmt, map: &BTreeMap<VarId, VarId>) -> Stmt {
    let v = |x: &VarId| *map.get(x).unwrap_or(x);
    let vs = |xs: &[VarId]| xs.iter().map(v).collect::<Vec<_>>();
    let e = |x: &Expr| rename_expr(x, map);
    let es = |xs: &[Expr]| xs.iter().map(e).collect::<Vec<_>>();
    let b = |x: &Stmt| Box::new(rename_stmt(x, map));
    match s {
        Stmt::Assign { var, value, span } => Stmt::Assign { var: v(var), value: e(value), span: *span },
        Stmt::If { cond, then_body, else_body, return_vars, span } => Stmt::If {
            cond: Box::new(e(cond)),
            then_body: b(then_body),
            else_body: else_body.as_deref().map(b),
            return_vars: vs(return_vars),
            span: *span,
        },
        Stmt::For { loop_var, start, stop, step, iter_args, body, return_vars, kind, span } => Stmt::For {
            loop_var: v(loop_var),
            start: Box::new(e(start)),
            stop: Box::new(e(stop)),
            step: Box::new(e(step)),
            iter_args: vs(iter_args),
            body: b(body),
            return_vars: vs(return_vars),
            kind: *kind,
            span: *span,
        },
        Stmt::While { cond, iter_args, body, return_vars, span } => Stmt::While {
            cond: Box::new(e(cond)),
            iter_args: vs(iter_args),
            body: b(body),
            return_vars: vs(return_vars),
            span: *span,
        },
        Stmt::Scope { kind, body, span } => Stmt::Scope { kind: *kind, body: b(body), span: *span },
        Stmt::Yield { values, span } => Stmt::Yield { values: es(values), span: *span },
        Stmt::Return { values, span } => Stmt::Return { values: es(values), span: *span },
        Stmt::Eval { expr, span } => Stmt::Eval { expr: e(expr), span: *span },
        Stmt::Seq { stmts, span } => {
            Stmt::Seq { stmts: stmts.iter().map(|c| rename_stmt(c, map)).collect(), span: *span }
        }
        Stmt::Ops { stmts, span } => {
            Stmt::Ops { stmts: stmts.iter().map(|c| rename_stmt(c, map)).collect(), span: *span }
        }
        Stmt::Break { .. } | Stmt::Continue { .. } => s.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;

    fn outline(src: &str) -> Program {
        let prog = crate::driver::frontend(src).expect("input lowers");
        run(prog.clone(), &PassEnv::new(Backend::Cce)).expect("pass succeeds")
    }

    fn header(body: &str) -> String {
        format!("# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n{body}")
    }

    #[test]
    fn outlined_function_and_parent_kinds() {
        let src = header(
            "    @pl.function\n    def main(self, x_0: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        with pl.incore():\n            y_0: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x_0, x_0)\n        return y_0\n",
        );
        let p = outline(&src);
        let names: Vec<_> = p.functions.iter().map(|f| (f.name.as_str(), f.kind)).collect();
        assert_eq!(names, vec![("main", FunctionType::Orchestration), ("main_incore_0", FunctionType::InCore)]);
        let callee = p.function("main_incore_0").unwrap();
        assert_eq!(callee.params.len(), 1);
        assert_eq!(callee.params[0].direction, ParamDirection::In);
        // The callee's variables are a table of its own, holding only what it mentions: the
        // input as its parameter and the output defined in its body.
        let names: Vec<&str> = callee.vars.iter().map(|(_, d)| d.name.as_str()).collect();
        assert_eq!(names, ["x_0", "y_0"]);
        assert_eq!(callee.var_name(callee.params[0].var), "x_0");
    }

    #[test]
    fn functions_without_scopes_are_unchanged() {
        let src = header(
            "    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        with pl.incore():\n            y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, x)\n        return y\n    @pl.function\n    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        y: pl.Tensor[[64], pl.FP32] = self.k(x)\n        return y\n",
        );
        let prog = crate::driver::frontend(&src).unwrap();
        let out = run(prog.clone(), &PassEnv::new(Backend::Cce)).unwrap();
        assert!(crate::ir::equiv::programs_equal(&prog, &out));
    }

    #[test]
    fn duplicate_outlined_name_is_an_error() {
        let src = header(
            "    @pl.function\n    def main_incore_0(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        return x\n    @pl.function\n    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        with pl.incore():\n            y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, x)\n        return y\n",
        );
        let prog = crate::driver::frontend(&src).unwrap();
        let e = run(prog.clone(), &PassEnv::new(Backend::Cce)).unwrap_err();
        assert_eq!(e[0].message, "Duplicate function name \"main_incore_0\"");
    }

    #[test]
    fn init_values_are_references() {
        let src = header(
            "    @pl.function\n    def main(self, x_0: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        a_0: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x_0, x_0)\n        with pl.incore():\n            for i_0, (acc_0,) in pl.range(0, 4, 1, init_values=(a_0,)):\n                b_0: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc_0, acc_0)\n                r_0: pl.Tensor[[64], pl.FP32] = pl.yield_(b_0)\n        return r_0\n",
        );
        let p = outline(&src);
        let callee = p.function("main_incore_0").unwrap();
        let params: Vec<_> = callee.params.iter().map(|q| callee.var_name(q.var)).collect();
        assert_eq!(params, vec!["a_0"]);
        // The loop's init is the callee's parameter, not the caller's variable.
        let mut init = None;
        walk_stmts(&callee.body, &mut |s| {
            if let Stmt::For { iter_args, .. } = s {
                if let VarKind::IterArg { init: e } = &callee.var(iter_args[0]).kind {
                    init = e.as_var();
                }
            }
        });
        assert_eq!(init, Some(callee.params[0].var));
    }

    #[test]
    fn output_reads_back_as_the_same_program() {
        let src = header(
            "    @pl.function\n    def main(self, x_0: pl.Tensor[[64], pl.FP32], n_0: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:\n        a_0: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x_0, x_0)\n        with pl.incore():\n            for i_0, (acc_0,) in pl.range(0, n_0, 1, init_values=(a_0,)):\n                b_0: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc_0, x_0)\n                r_0: pl.Tensor[[64], pl.FP32] = pl.yield_(b_0)\n            with pl.incore():\n                c_0: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(r_0, a_0)\n                d_0: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(c_0, c_0)\n        for j_0, (acc2_0,) in pl.range(0, 2, 1, init_values=(d_0,)):\n            with pl.incore():\n                e_0: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(acc2_0, r_0)\n            s_0: pl.Tensor[[64], pl.FP32] = pl.yield_(e_0)\n        return s_0\n",
        );
        let out = outline(&src);
        let text = crate::printer::print_program(&out);
        let back = crate::driver::frontend(&text).expect("output reads back");
        if let Some(diff) = crate::ir::equiv::programs_diff(&out, &back) {
            panic!("{diff}\n{text}");
        }
        let rules = [
            crate::verify::Property::SsaForm,
            crate::verify::Property::TypeChecked,
            crate::verify::Property::SplitIncoreOrch,
        ];
        assert_eq!(crate::verify::verify(&out, &rules), vec![], "{text}");
    }
}
