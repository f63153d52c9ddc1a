//! MemRefs the text does not show (docs/fuzzing.md, finding F1).
//!
//! After init-mem-ref every tensor and tile variable has a MemRef, but the text shows a MemRef
//! only in a variable's own annotation, and two kinds of variables have none: iter args
//! (`for i, (a, b) in pl.range(…, init_values=(x, y))`) and the return vars of a yield without
//! an annotation (`r, s = pl.yield_(u, v)`). Typed from their values alone (spec §7 Q19), they
//! would read back with the wrong MemRefs: init-mem-ref gives every if/for/while return var a
//! fresh DDR MemRef (§6 Q6), and an iter arg keeps its init value's MemRef as it was then, even
//! after basic-memory-reuse re-points the init value (§2.9 step 4).
//!
//! So once a function has MemRefs, each such variable gets the MemRef init-mem-ref gives it,
//! as the pass's own plan ([`plan_memrefs`]) computes it from the statements alone. The MemRef
//! with that id is the one the text describes, if it describes one (in an annotation or a
//! `block.alloc`, which after allocate-memory-addr carries the address), else a new one as
//! init-mem-ref made it (`addr` −1, as DDR MemRefs keep). This gives back the original MemRefs
//! for the output of init-mem-ref and of every pass after it in the pipelines, which neither
//! add nor remove tensor or tile variables, so that the plan's ids are the original ones. Text
//! that is not such an output (hand-written MemRefs, or passes that create variables run after
//! init-mem-ref) may get other MemRefs than the program it was printed from had; when the text
//! describes the planned id with another memory space or size, the variable keeps the type of
//! its value.
//!
//! Passes after init-mem-ref that create variables or re-point buffers (legalize-cce gives tile
//! return vars on-chip buffers and shifts the plan's ids; pipeline-loops copies loops) leave
//! iter args and return vars whose MemRefs no plan gives back. The printer runs this same plan
//! on what it prints and writes the type of exactly those variables as a declaration before
//! their statement (`r: pl.Tile[…]` alone on a line; `r: pl.Tile[…] = …` is not Python for a
//! tuple target, and an iter arg has no place for one), which [`Lowerer::declare`] reads (see
//! `printer::declare`); the stage-invariance and fuzz tests read every printed stage back.

use super::Lowerer;
use crate::analysis::memref_plan::{plan_memrefs, set_memref};
use crate::ast;
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{Function, VarKind};

impl Lowerer {
    /// `name: T` without a value: the type of the return var `name` that an `if` or loop after
    /// it binds through a multi-value yield (`a, b = pl.yield_(x, y)`, whose targets cannot be
    /// annotated). The printer writes one where the plan below would not give the type back:
    /// for a tile return var on chip, which init-mem-ref never makes (legalize-cce does).
    pub(super) fn declare(
        &mut self,
        target: &ast::Ident,
        annotation: &ast::Expr,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let ty = self.lower_type(annotation)?;
        if let Some((_, first)) = self.declared.insert(target.name.to_string(), (ty, span)) {
            return Err(Diagnostic::error(codes::BAD_TARGET, span, format!("`{}` is declared twice", target.name))
                .with_secondary(first, "first declared here"));
        }
        Ok(())
    }

    /// Declarations that no return var took: an error at each (a declaration without a value
    /// only types an `if`'s or loop's return var).
    pub(super) fn report_unbound_declarations(&mut self) {
        let mut left: Vec<_> = self.declared.drain().collect();
        left.sort_by_key(|(_, (_, span))| span.lo);
        for (name, (_, span)) in left {
            self.error(
                Diagnostic::error(
                    codes::UNSUPPORTED,
                    span,
                    format!("`{name}` is annotated but not assigned, and no `if` or loop after it yields to `{name}`"),
                )
                .with_note("an annotation without a value declares the type of a loop's iter arg or of a name a multi-value `pl.yield_` binds; anything else needs a value"),
            );
        }
    }

    /// Gives the variables of `f` whose types the text does not show (recorded in
    /// `hidden_types` while lowering it) the MemRefs init-mem-ref gives them, when `f` has
    /// MemRefs at all.
    pub(super) fn restore_hidden_memrefs(&mut self, f: &Function) {
        let hidden = std::mem::take(&mut self.hidden_types);
        if self.memrefs.is_empty() || hidden.is_empty() {
            return;
        }
        let plan = plan_memrefs(&self.vars, f);
        for v in hidden {
            let Some((info, span)) = plan.memref_of.get(&v).and_then(|&id| plan.buffers.get(id)) else { continue };
            let m = match self.memrefs.get(&info.id) {
                Some(&m) => match &self.vars.var(m).kind {
                    VarKind::MemRef(known) if known.space == info.space && known.size == info.size => m,
                    _ => continue,
                },
                // A new id cannot conflict with an earlier description.
                None => match self.intern_memref(info.clone(), None, *span) {
                    Ok(m) => m,
                    Err(_) => continue,
                },
            };
            set_memref(&mut self.vars.var_mut(v).ty, m);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::backend::Backend;
    use crate::ir::visit::walk_stmts;
    use crate::ir::{Program, Stmt, VarId};
    use crate::passes::manager::Manager;
    use crate::passes::{PassEnv, Pipeline};

    fn read(text: &str) -> Program {
        let module = crate::parser::parse(text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
        crate::lower::lower(module).unwrap_or_else(|d| panic!("{d:?}\n{text}"))
    }

    /// `name: type` of every iter arg and if/for/while return var, in statement order: the
    /// variables whose types the text does not show (for multi-value yields).
    fn hidden(p: &Program) -> Vec<String> {
        let mut out = Vec::new();
        for f in &p.functions {
            let mut note = |vs: &[VarId]| {
                for &v in vs {
                    out.push(format!("{}: {}", f.var_name(v), crate::printer::print_type(&f.vars, f.var_type(v))));
                }
            };
            walk_stmts(&f.body, &mut |s| match s {
                Stmt::For { iter_args, return_vars, .. } | Stmt::While { iter_args, return_vars, .. } => {
                    note(iter_args);
                    note(return_vars);
                }
                Stmt::If { return_vars, .. } => note(return_vars),
                _ => {}
            });
        }
        out
    }

    /// Runs the default pipeline up to legalize-cce on `source`; after every pass, the printed
    /// program must read back to the same program, hidden types included. Returns the hidden
    /// types after the last pass.
    fn check_every_stage(source: &str) -> Vec<String> {
        let env = PassEnv::new(Backend::Cce);
        let passes: Vec<_> = Pipeline::Default.passes().into_iter().take_while(|p| p.name != "legalize-cce").collect();
        let p = Manager::new(&passes, env).run_observed(read(source), None, &mut |step| {
            let (p, name) = (step.program, step.pass.name);
            let text = crate::printer::print_program(p);
            let again = read(&text);
            if let Some(d) = crate::ir::equiv::programs_diff_as_text(p, &again) {
                panic!("after {name}: {d}\n{text}");
            }
            assert_eq!(hidden(&again), hidden(p), "after {name}:\n{text}");
        });
        hidden(&p.unwrap_or_else(|d| panic!("{d:?}")))
    }

    const HEAD: &str = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n";
    const TILE: &str = "pl.Tile[[64, 64], pl.FP32]";
    const TENSOR: &str = "pl.Tensor[[64, 64], pl.FP32]";

    fn program(params: &str, body: &[&str]) -> String {
        let mut s = format!("{HEAD}    def kernel(self, {params}) -> {TENSOR}:\n");
        for line in body {
            s.push_str("        ");
            s.push_str(line);
            s.push('\n');
        }
        s.replace("TILE", TILE).replace("TENSOR", TENSOR)
    }

    /// docs/fuzzing.md F1: a loop's iter arg initialised with an earlier loop's return var
    /// bound by a multi-value yield (a fresh DDR MemRef that no text shows).
    #[test]
    fn iter_arg_initialised_with_a_multi_yield_return_var() {
        let src = program(
            "x: TENSOR, out: TENSOR",
            &[
                "t0: TILE = pl.block.load(x, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)",
                "for i1, (a2, o3) in pl.range(0, 2, 1, init_values=(t0, out)):",
                "    t4: TILE = pl.block.adds(a2, 1.0)",
                "    r5, r6 = pl.yield_(t4, o3)",
                "for i7, (a8,) in pl.range(0, 3, 1, init_values=(r5,)):",
                "    t9: TILE = pl.block.muls(a8, 2.0)",
                "    r10: TILE = pl.yield_(t9)",
                "result: TENSOR = pl.block.store(r10, [0, 0], [64, 64], r6)",
                "return result",
            ],
        );
        let last = check_every_stage(&src);
        let a8 = last.iter().find(|s| s.starts_with("a8:")).expect("a8");
        assert!(a8.contains("pl.MemorySpace.DDR, -1, 16384, 4)"), "{a8}");
    }

    /// An iter arg keeps its init value's MemRef from init-mem-ref when basic-memory-reuse
    /// moves the init value into another buffer.
    #[test]
    fn iter_arg_keeps_its_memref_when_reuse_moves_the_init_value() {
        let src = program(
            "x: TENSOR, out: TENSOR",
            &[
                "t0: TILE = pl.block.load(x, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)",
                "t1: TILE = pl.block.adds(t0, 1.0)",
                "t2: TILE = pl.block.muls(t1, 3.0)",
                "for i3, (acc4,) in pl.range(0, 2, 1, init_values=(t2,)):",
                "    t5: TILE = pl.block.muls(acc4, 2.0)",
                "    r6: TILE = pl.yield_(t5)",
                "result: TENSOR = pl.block.store(r6, [0, 0], [64, 64], out)",
                "return result",
            ],
        );
        let last = check_every_stage(&src);
        // t2 moved to t0's buffer (id 2); acc4 stays in t2's first one (id 4).
        assert!(last[0].starts_with("acc4:") && last[0].contains("pl.MemorySpace.Vec, -1, 16384, 4)"), "{last:?}");
    }

    /// Return vars of an if with a multi-value yield, and of a `while_` loop.
    #[test]
    fn if_and_while_return_vars() {
        let src = program(
            "x: TENSOR, n: pl.Scalar[pl.INT64], out: TENSOR",
            &[
                "t0: TILE = pl.block.load(x, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)",
                "if n > 0:",
                "    t1: TILE = pl.block.adds(t0, 1.0)",
                "    y2, y3 = pl.yield_(t1, n)",
                "else:",
                "    y2, y3 = pl.yield_(t0, n)",
                "for (k4, a5) in pl.while_(init_values=(y3, y2)):",
                "    pl.cond(k4 < 8)",
                "    t6: TILE = pl.block.muls(a5, 2.0)",
                "    k7: pl.Scalar[pl.INT64] = k4 + 1",
                "    k8, a9 = pl.yield_(k7, t6)",
                "result: TENSOR = pl.block.store(a9, [0, 0], [64, 64], out)",
                "return result",
            ],
        );
        let last = check_every_stage(&src);
        assert!(last.iter().any(|s| s.starts_with("y2_0:") && s.contains("pl.MemorySpace.DDR")), "{last:?}");
    }

    /// Before init-mem-ref nothing has a MemRef, and reading adds none.
    #[test]
    fn no_memrefs_without_memrefs_in_the_text() {
        let src = program(
            "x: TENSOR, out: TENSOR",
            &[
                "t0: TILE = pl.block.load(x, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)",
                "for i1, (a2, o3) in pl.range(0, 2, 1, init_values=(t0, out)):",
                "    r4, r5 = pl.yield_(a2, o3)",
                "result: TENSOR = pl.block.store(r4, [0, 0], [64, 64], r5)",
                "return result",
            ],
        );
        let p = read(&src);
        assert!(hidden(&p).iter().all(|s| !s.contains("MemRef")), "{:?}", hidden(&p));
    }

    /// Text whose MemRef ids do not follow init-mem-ref's numbering: where the id planned for a
    /// hidden variable is described with another memory space, the variable keeps its value's
    /// type (and reading does not fail).
    #[test]
    fn a_conflicting_description_leaves_the_value_type() {
        let ddr = |id: u32| format!("pl.MemRef(pl.MemorySpace.DDR, -1, 16384, {id})");
        let vec = |id: u32| format!("pl.MemRef(pl.MemorySpace.Vec, -1, 16384, {id})");
        let tile = |m: String| format!("pl.Tile[[64, 64], pl.FP32, {m}]");
        let tensor = |m: String| format!("pl.Tensor[[64, 64], pl.FP32, {m}]");
        // init-mem-ref would give t0 id 2 and the return var r3 id 3; here id 3 is a Vec tile.
        let src = program(
            &format!("x: {}, out: {}", tensor(ddr(0)), tensor(ddr(1))),
            &[
                &format!("t0: {} = pl.block.load(x, [0, 0], [64, 64], target_memory=pl.MemorySpace.Vec)", tile(vec(2))),
                "for i1, (a2, o5) in pl.range(0, 2, 1, init_values=(t0, out)):",
                "    r3, r6 = pl.yield_(a2, o5)",
                &format!("t4: {} = pl.block.adds(r3, 1.0)", tile(vec(3))),
                &format!("result: {} = pl.block.store(t4, [0, 0], [64, 64], r6)", tensor(ddr(1))),
                "return result",
            ],
        );
        let h = hidden(&read(&src));
        assert!(h.iter().any(|s| s.starts_with("r3:") && s.contains(&vec(2))), "{h:?}");
    }
}
