//! Which tensor parameter each tensor variable of a function names (the fix of spec
//! `pto-codegen.md` §7.3/§11 "Bug: a `block.load`/`block.store` on a tensor iter_arg").
//!
//! In PTO-ISA MLIR a tensor is a parameter's `pto.make_tensor_view`, written in place by
//! `pto.tstore`: a store's result, a loop-carried tensor (iter arg and loop result) and an
//! `scf.if` tensor result are all the same memory as the parameter they start from. So a
//! load or store through any of them takes its partition view of that parameter's view, and
//! the tensors themselves are not carried through `scf.for`/`scf.if` (`codegen/pto/control.rs`).
//! This is the same following of aliases as the CCE backend's window shapes (`codegen/window.rs`)
//! and the orchestration's buffers ([`super::buffers`]).
//!
//! A variable that may name *different* parameters (a loop that yields another tensor than its
//! init, branches that yield different tensors) is [`Root::Ambiguous`]: in-place memory cannot
//! express it, and a load or store through it is refused naming the op (the PTO form rule,
//! `verify::pto_form`).

use rustc_hash::FxHashMap;

use crate::ir::{Callee, Expr, ExprKind, Function, Stmt, Type, VarId, VarKind, VarTable};
use crate::ops::pto::PtoEmit;

/// What a tensor variable names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// The tensor parameter with this variable.
    Param(VarId),
    /// More than one parameter, depending on the path taken.
    Ambiguous,
}

/// Tensor variable → the parameter it names. Variables that name no parameter (not derived
/// from one) are absent.
pub fn roots(f: &Function) -> FxHashMap<VarId, Root> {
    let vars = &f.vars;
    let mut w = Walk { vars, roots: FxHashMap::default(), changed: false };
    for p in &f.params {
        if matches!(vars.var_type(p.var), Type::Tensor(_)) {
            w.roots.insert(p.var, Root::Param(p.var));
        }
    }
    // A loop's iter arg depends on what its body yields, which depends on the iter arg: walk
    // until nothing changes. Each variable only moves absent → Param → Ambiguous, so this
    // ends after at most two changes per variable.
    loop {
        w.changed = false;
        w.stmt(&f.body);
        if !w.changed {
            return w.roots;
        }
    }
}

struct Walk<'p> {
    vars: &'p VarTable,
    roots: FxHashMap<VarId, Root>,
    changed: bool,
}

impl Walk<'_> {
    fn root_of(&self, e: Option<&Expr>) -> Option<Root> {
        e.and_then(|e| e.as_var()).and_then(|v| self.roots.get(&v).copied())
    }

    /// Joins `r` into `var`'s root: a second, different parameter makes it ambiguous.
    fn join(&mut self, var: VarId, r: Option<Root>) {
        let Some(r) = r else { return };
        let new = match self.roots.get(&var) {
            None => r,
            Some(&old) if old == r => return,
            Some(_) => Root::Ambiguous,
        };
        if self.roots.get(&var) != Some(&new) {
            self.roots.insert(var, new);
            self.changed = true;
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { var, value, .. } => match &value.kind {
                ExprKind::Var(v) => self.join(*var, self.roots.get(v).copied()),
                // A store's result is the tensor it stored into.
                ExprKind::Call(c) => {
                    let Callee::Op(op) = c.callee else { return };
                    if crate::ops::def(op).pto == Some(PtoEmit::Store) {
                        self.join(*var, self.root_of(c.args.get(3)));
                    }
                }
                _ => {}
            },
            Stmt::For { iter_args, body, return_vars, .. } | Stmt::While { iter_args, body, return_vars, .. } => {
                for &a in iter_args {
                    if let VarKind::IterArg { init } = &self.vars.var(a).kind {
                        self.join(a, self.root_of(Some(init)));
                    }
                }
                self.stmt(body);
                // The next iteration's iter arg is what the body yields.
                if let Stmt::Yield { values, .. } = crate::ir::visit::last_stmt(body) {
                    for (&a, v) in iter_args.iter().zip(values) {
                        self.join(a, self.root_of(Some(v)));
                    }
                }
                for (&rv, &a) in return_vars.iter().zip(iter_args) {
                    self.join(rv, self.roots.get(&a).copied());
                }
            }
            Stmt::If { then_body, else_body, return_vars, .. } => {
                self.stmt(then_body);
                let mut branches = vec![&**then_body];
                if let Some(e) = else_body {
                    self.stmt(e);
                    branches.push(e);
                }
                for b in branches {
                    if let Stmt::Yield { values, .. } = crate::ir::visit::last_stmt(b) {
                        for (&rv, v) in return_vars.iter().zip(values) {
                            self.join(rv, self.root_of(Some(v)));
                        }
                    }
                }
            }
            _ => {
                for c in crate::ir::visit::child_stmts(s) {
                    self.stmt(c);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Variable name → the parameter it names (`?` when ambiguous), for the function `k`.
    fn named_roots(src: &str) -> BTreeMap<String, String> {
        let module = crate::parser::parse(src).unwrap_or_else(|d| panic!("{d:?}"));
        let prog = crate::lower::lower(module).unwrap_or_else(|d| panic!("{d:?}"));
        let f = prog.functions.iter().find(|f| f.name == "k").expect("function k");
        roots(f)
            .into_iter()
            .map(|(v, r)| {
                let to = match r {
                    Root::Param(p) => f.var_name(p).to_string(),
                    Root::Ambiguous => "?".to_string(),
                };
                (f.var_name(v).to_string(), to)
            })
            .collect()
    }

    const HEAD: &str = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, a: pl.Tensor[[16, 16], pl.FP32], p: pl.Out[pl.Tensor[[16, 16], pl.FP32]], q: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n        t: pl.Tile[[16, 16], pl.FP32] = pl.block.load(a, [0, 0], [16, 16])\n";

    #[test]
    fn a_carried_store_result_names_its_parameter() {
        let src = format!(
            "{HEAD}        for i, (x,) in pl.range(0, 2, 1, init_values=(p,)):\n            r: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(t, [0, 0], [16, 16], x)\n            o = pl.yield_(r)\n        return o\n"
        );
        let r = named_roots(&src);
        // The loop result is named after its iter arg (`x_out`) by lowering.
        for v in ["x", "r", "x_out", "p"] {
            assert_eq!(r.get(v).map(String::as_str), Some("p"), "{v}: {r:?}");
        }
        assert_eq!(r.get("q").map(String::as_str), Some("q"));
    }

    #[test]
    fn swapped_tensors_are_ambiguous() {
        let src = format!(
            "{HEAD}        for i, (x, y) in pl.range(0, 2, 1, init_values=(p, q)):\n            r: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(t, [0, 0], [16, 16], x)\n            x2, y2 = pl.yield_(y, r)\n        return x2\n"
        );
        let r = named_roots(&src);
        for v in ["x", "y", "r", "x_out", "y_out"] {
            assert_eq!(r.get(v).map(String::as_str), Some("?"), "{v}: {r:?}");
        }
        assert_eq!(r.get("p").map(String::as_str), Some("p"));
    }

    #[test]
    fn branches_yielding_different_parameters_are_ambiguous() {
        let src = format!(
            "{HEAD}        if 1 > 0:\n            r1: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(t, [0, 0], [16, 16], p)\n            o = pl.yield_(r1)\n        else:\n            r2: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(t, [0, 0], [16, 16], q)\n            o = pl.yield_(r2)\n        return o\n"
        );
        let r = named_roots(&src);
        assert_eq!(r.get("r1").map(String::as_str), Some("p"));
        assert_eq!(r.get("r2").map(String::as_str), Some("q"));
        assert_eq!(r.get("o").map(String::as_str), Some("?"), "{r:?}");
    }
}
