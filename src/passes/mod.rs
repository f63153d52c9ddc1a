//! The pass registry: every IR pass ptoc knows, by name, with the IR properties it needs and
//! produces (spec `passes-and-codegen.md` §1.1–1.2, §1.7), and the named pipelines.

use crate::diag::Diagnostic;
use crate::ir::{Function, Program, Schedule};

pub mod alloc_stmts;
pub mod allocate_memory_addr;
pub mod basic_memory_reuse;
pub mod convert_to_ssa;
pub mod flatten_call_expr;
pub mod init_mem_ref;
pub mod insert_sync;
pub mod legalize_cce;
pub mod manager;
pub mod pipeline_loops;
pub mod remove_dead_tiles;
pub mod remove_redundant_sync;
pub mod run_verifier;
pub mod split_rows;
pub mod stmt_structure;
pub mod weigh;

// Passes take the backend as a value; it is defined with the rest of the backend model
// (`crate::backend`, which the code of `src/` imports), and named here too for users of the
// pass API (tests, benches, tools), which build a `PassEnv` from it.
pub use crate::backend::Backend;

/// What a pass gets besides the program: the settings that are values, not globals (spec §1).
#[derive(Clone, Copy, Debug)]
pub struct PassEnv {
    pub backend: Backend,
    /// Threads a pass may use for the functions it treats one at a time (`--jobs`); the
    /// output does not depend on it.
    pub jobs: usize,
    /// The optimisation level the passes run at. `basic-memory-reuse` reads it (at `-O1` and
    /// `-O2` it plans buffers by lifetime, weighing plans by their syncs, see
    /// `basic_memory_reuse`; at `-O0` as the reference), and `pipeline-loops` (at `-O2` it
    /// double-buffers loops of its own choosing, see `pipeline_loops`).
    /// The driver sets it from `-O` for the named pipelines and to `-O0` for `--passes`, which
    /// runs passes as the reference does whatever `-O` says.
    pub opt: OptLevel,
}

impl PassEnv {
    /// `backend`, on one thread, at `-O0` (the reference's behaviour, which the library's
    /// tests of single passes and conformance expect).
    pub const fn new(backend: Backend) -> PassEnv {
        PassEnv { backend, jobs: 1, opt: OptLevel::O0 }
    }
}

/// A program pass's transform. It consumes its input and returns the transformed program, so
/// that no pass copies the whole program; errors are diagnostics (never panics). A caller that
/// needs the input afterwards clones it first.
pub type PassFn = fn(Program, &PassEnv) -> Result<Program, Vec<Diagnostic>>;

/// A function pass's transform: one function in, the rewritten function out, knowing nothing of
/// the other functions (a function owns its variables).
pub type FunctionFn = fn(Function, &PassEnv) -> Result<Function, Vec<Diagnostic>>;

/// A function pass that may take over work the pass before it did on the same function, or
/// hand work over to the pass after it ([`Carried`]).
pub type CarryingFn = fn(Function, Carried, &PassEnv) -> Result<(Function, Carried), Vec<Diagnostic>>;

/// What a function pass hands to the next pass of a chain of function passes on one function
/// (only to the very next one: the pass manager gives any other pass, and any pass run on its
/// own, [`Carried::Nothing`]). Only ever a by-product of work the pass did anyway, for the
/// function exactly as the pass returns it, so that taking it over gives the same result as
/// doing the work again.
#[derive(Debug, Default)]
pub enum Carried {
    #[default]
    Nothing,
    /// Insert-sync's analysis of the function: basic-memory-reuse at `-O1` computes it when it
    /// weighs its plans by their syncs, and insert-sync applies it.
    SyncAnalysis(Box<insert_sync::Analysed>),
}

/// How a kernel's loops run at `-O1`/`-O2` ([`Function::schedule`]): what the level says,
/// unless basic-memory-reuse chose otherwise by the cycle model.
pub fn schedule_of(f: &Function, opt: OptLevel) -> Schedule {
    let o2 = opt >= OptLevel::O2;
    f.schedule.unwrap_or(Schedule { stages: if o2 { pipeline_loops::AUTO_STAGES } else { 1 }, carried_flags: o2 })
}

/// What a pass rewrites.
#[derive(Clone, Copy, Debug)]
pub enum Transform {
    /// One function at a time: the pass manager runs it on every function on `--jobs`
    /// threads, and may run a chain of such passes on each function in turn.
    Function(FunctionFn),
    /// A function pass that takes and hands over [`Carried`] work in a chain.
    Carrying(CarryingFn),
    /// The whole program (outline-incore-scopes, convert-tensor-to-block-ops, run-verifier).
    Program(PassFn),
}

impl Transform {
    /// Runs the transform on `prog`: a function pass on every function on `env.jobs` threads,
    /// with the diagnostics of every function that failed, in function order.
    pub fn apply(self, prog: Program, env: &PassEnv) -> Result<Program, Vec<Diagnostic>> {
        match self {
            Transform::Program(p) => p(prog, env),
            // A function pass run on its own: nothing handed over, nothing handed on.
            function => try_each_function(prog, env, |func| {
                let ran = function.run_function(func, Carried::Nothing, env);
                ran.expect("a function pass").map(|(f, _)| f)
            }),
        }
    }

    /// Runs a function pass on one function in a chain, with what the pass before handed
    /// over; `None` for a program pass.
    pub fn run_function(
        self,
        f: Function,
        carried: Carried,
        env: &PassEnv,
    ) -> Option<Result<(Function, Carried), Vec<Diagnostic>>> {
        match self {
            Transform::Function(run) => Some(run(f, env).map(|f| (f, Carried::Nothing))),
            Transform::Carrying(run) => Some(run(f, carried, env)),
            Transform::Program(_) => None,
        }
    }
}

/// Rewrites every function of `prog` with `rewrite`, on `env.jobs` threads: a function owns
/// its variables, so function passes need nothing shared to write. The functions keep their
/// order, so the output does not depend on the thread count; on failure, the diagnostics of
/// every function that failed, in function order.
pub(crate) fn try_each_function(
    mut prog: Program,
    env: &PassEnv,
    rewrite: impl Fn(Function) -> Result<Function, Vec<Diagnostic>> + Sync,
) -> Result<Program, Vec<Diagnostic>> {
    let functions = std::mem::take(&mut prog.functions);
    let mut errors = Vec::new();
    for result in crate::par::map_into(functions, env.jobs, rewrite) {
        match result {
            Ok(f) => prog.functions.push(f),
            Err(d) => errors.extend(d),
        }
    }
    if errors.is_empty() {
        Ok(prog)
    } else {
        Err(errors)
    }
}

/// What a pass found, besides the program it returns: findings that are reported but do not
/// fail the run (`run-verifier`'s report). Its arguments are the rules left out
/// (`--disable-rule`) and the number of threads to look with (the pass environment's `jobs`).
pub type FindingsFn = fn(&Program, &[String], usize) -> Vec<crate::verify::VerifyDiagnostic>;

// IR properties and the verifier rules that check them are one type (see its docs).
pub use crate::verify::Property;

/// One registered pass.
#[derive(Debug)]
pub struct PassInfo {
    /// Kebab-case name, used in `--passes`, `--stop-after` and dump headers.
    pub name: &'static str,
    /// Other accepted spellings: the reference's CamelCase name and manager aliases.
    pub aliases: &'static [&'static str],
    /// One line for `--list-passes`.
    pub description: &'static str,
    pub required: &'static [Property],
    pub produced: &'static [Property],
    pub invalidated: &'static [Property],
    /// The transform (whether it is a function or a program pass).
    pub run: Transform,
    /// What the pass reports about the program it returns (see [`FindingsFn`]); the pass
    /// manager asks after each run.
    pub findings: Option<FindingsFn>,
    /// Whether the pass places or removes sync ops: the output of the last such pass of a run
    /// must be free of sync hazards (the pass manager's sync postcondition).
    pub edits_syncs: bool,
}

impl PassInfo {
    /// True for the kebab-case name or any alias (exact spelling).
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }

    /// The name the reference's messages use: its CamelCase name when it has one.
    pub fn reference_name(&self) -> &'static str {
        self.aliases.first().copied().unwrap_or(self.name)
    }
}

use Property::*;

/// Every pass, in the order `--list-passes` shows them (pipeline order first).
pub static PASSES: &[PassInfo] = &[
    PassInfo {
        name: "convert-to-ssa",
        aliases: &["ConvertToSSA"],
        description: "rename variables so each is assigned once; loops and ifs carry values through iter_args/return_vars and yields",
        required: &[TypeChecked],
        produced: &[TypeChecked, SsaForm],
        invalidated: &[NormalizedStmtStructure, FlattenedSingleStmt],
        run: Transform::Function(convert_to_ssa::function),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "outline-incore-scopes",
        aliases: &["OutlineIncoreScopes"],
        description: "move each `with pl.incore():` scope into its own InCore function and call it",
        required: &[TypeChecked, SsaForm],
        produced: &[SplitIncoreOrch],
        invalidated: &[],
        run: Transform::Program(outline_incore_scopes::run),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "flatten-call-expr",
        aliases: &["FlattenCallExpr"],
        description: "hoist calls nested in arguments, conditions and operators into temporaries",
        required: &[TypeChecked],
        produced: &[TypeChecked, NoNestedCalls],
        invalidated: &[NormalizedStmtStructure, FlattenedSingleStmt],
        run: Transform::Function(flatten_call_expr::function),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "normalize-stmt-structure",
        aliases: &["NormalizeStmtStructure"],
        description: "make every body a SeqStmts and wrap runs of assignments/evals in OpStmts",
        required: &[TypeChecked],
        produced: &[TypeChecked, NormalizedStmtStructure],
        invalidated: &[FlattenedSingleStmt],
        run: Transform::Function(stmt_structure::normalize_function),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "flatten-single-stmt",
        aliases: &["FlattenSingleStmt"],
        description: "replace one-element SeqStmts/OpStmts by their element",
        required: &[TypeChecked],
        produced: &[TypeChecked, FlattenedSingleStmt],
        invalidated: &[NormalizedStmtStructure],
        run: Transform::Function(stmt_structure::flatten_single_function),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "run-verifier",
        aliases: &["RunVerifier", "IRVerifier"],
        description: "run the default IR verifier (SSAVerify, TypeCheck, NoNestedCall) and report; the program is unchanged",
        required: &[],
        produced: &[],
        invalidated: &[],
        run: Transform::Program(run_verifier::run),
        findings: Some(run_verifier::findings),
        edits_syncs: false,
    },
    PassInfo {
        name: remove_dead_tiles::NAME,
        aliases: &["RemoveDeadTiles"],
        description: "delete each tile an op computes that nothing uses (-O1 and -O2 in the named pipelines)",
        required: &[TypeChecked, SsaForm, SplitIncoreOrch, IncoreBlockOps],
        produced: &[],
        invalidated: &[],
        run: Transform::Function(remove_dead_tiles::function),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: split_rows::NAME,
        aliases: &["SplitRows"],
        description: "run a straight-line InCore kernel whose ops work row by row as a loop over blocks of rows, when the cycle model says the loop (double-buffered at -O2) is faster (-O2 in the named pipelines)",
        required: &[TypeChecked, SsaForm, SplitIncoreOrch, IncoreBlockOps],
        produced: &[],
        invalidated: &[NormalizedStmtStructure, FlattenedSingleStmt],
        run: Transform::Function(split_rows_weighed),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "init-mem-ref",
        aliases: &["InitMemRef"],
        description: "give every tile variable a MemRef in its memory space",
        required: &[TypeChecked, SsaForm, SplitIncoreOrch, IncoreBlockOps],
        produced: &[HasMemRefs, NormalizedStmtStructure],
        invalidated: &[SsaForm],
        run: Transform::Function(init_mem_ref::function),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "basic-memory-reuse",
        aliases: &["BasicMemoryReuse", "MemoryReuse"],
        description: "let tiles whose lifetimes do not overlap share a MemRef (-O1 in the named pipelines: ptoc's lifetime plan, with in-place element-wise results)",
        required: &[TypeChecked, SplitIncoreOrch, IncoreBlockOps, HasMemRefs],
        produced: &[],
        invalidated: &[],
        run: Transform::Carrying(basic_memory_reuse::carrying),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "legalize-cce",
        aliases: &["LegalizeCce"],
        description: "make the copies the CCE kernel needs IR ops: Vec-to-Vec moves become block.vec_move, loop-carried tiles and tile if results are copied into their buffers before the yield (CCE backend only)",
        required: &[TypeChecked, SplitIncoreOrch, IncoreBlockOps, HasMemRefs],
        produced: &[],
        invalidated: &[],
        run: Transform::Carrying(legalize_cce::carrying),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "pipeline-loops",
        aliases: &["PipelineLoops"],
        description: "run the body of each pl.pipeline(..., stage=F) loop as F copies with buffers of their own, then the remainder iterations (-O2 in the named pipelines: also innermost loops whose buffers fit twice, as stage=2)",
        required: &[TypeChecked, SplitIncoreOrch, IncoreBlockOps, HasMemRefs],
        produced: &[],
        invalidated: &[],
        run: Transform::Carrying(pipeline_loops::carrying),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "insert-sync",
        aliases: &["InsertSync"],
        description: "insert set_flag/wait_flag and pipe barriers between dependent pipes",
        required: &[TypeChecked, SplitIncoreOrch, IncoreBlockOps, HasMemRefs],
        produced: &[],
        invalidated: &[],
        run: Transform::Carrying(insert_sync::carrying),
        findings: None,
        edits_syncs: true,
    },
    PassInfo {
        name: remove_redundant_sync::NAME,
        aliases: &["RemoveRedundantSync"],
        description: "delete every sync op whose deletion the sync hazard checker finds harmless (ptoc's own, -O1), then renumber event ids",
        required: &[TypeChecked, SplitIncoreOrch, IncoreBlockOps, HasMemRefs],
        produced: &[],
        invalidated: &[],
        run: Transform::Function(remove_redundant_sync::function),
        findings: None,
        edits_syncs: true,
    },
    PassInfo {
        name: "allocate-memory-addr",
        aliases: &["AllocateMemoryAddr"],
        description: "assign on-chip addresses to MemRefs, per memory space",
        required: &[TypeChecked, SplitIncoreOrch, IncoreBlockOps, HasMemRefs],
        produced: &[AllocatedMemoryAddr],
        invalidated: &[],
        run: Transform::Function(allocate_memory_addr::function),
        findings: None,
        edits_syncs: false,
    },
    PassInfo {
        name: "convert-tensor-to-block-ops",
        aliases: &["ConvertTensorToBlockOps"],
        description: "rewrite tensor ops in InCore functions into block loads, block ops and stores",
        required: &[SplitIncoreOrch],
        produced: &[IncoreBlockOps],
        invalidated: &[],
        run: Transform::Program(convert_tensor_to_block_ops::run),
        findings: None,
        edits_syncs: false,
    },
];

/// `split-rows` on one function: of the function as written and each split of it
/// ([`split_rows::candidates`]), the one whose kernel the cycle model estimates fastest after
/// the passes that follow `split-rows` in the default pipeline at `env.opt` (the function as
/// written on a tie). It lives beside the pipelines because it runs them.
fn split_rows_weighed(f: Function, env: &PassEnv) -> Result<Function, Vec<Diagnostic>> {
    let candidates = split_rows::candidates(&f);
    if candidates.is_empty() {
        return Ok(f);
    }
    let rest = weigh::passes_after(split_rows::NAME, env.opt);
    let Some(mut best) = weigh::cycles_after(f.clone(), &rest, env) else { return Ok(f) };
    let mut chosen = None;
    for (_, g) in candidates {
        match weigh::cycles_after(g.clone(), &rest, env) {
            Some(c) if c < best => (best, chosen) = (c, Some(g)),
            _ => {}
        }
    }
    Ok(chosen.unwrap_or(f))
}

/// Finds a pass by its kebab-case name or any alias.
pub fn lookup(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.answers_to(name))
}

/// Optimisation levels (`-O0`, `-O1`, `-O2`), in the LLVM convention: `-O0` runs the named
/// pipelines as the reference does (except that a `matmul_acc` result takes its accumulator's
/// buffer, see `basic_memory_reuse`); `-O1` adds ptoc's own optimisations; `-O2` (the
/// default) also splits straight-line kernels into blocks of rows and pipelines loops
/// (`split_rows`, `pipeline_loops`) where the cycle model says it pays, so that it is never
/// estimated slower than `-O1`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum OptLevel {
    O0,
    O1,
    #[default]
    O2,
}

impl std::fmt::Display for OptLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OptLevel::O0 => "0",
            OptLevel::O1 => "1",
            OptLevel::O2 => "2",
        })
    }
}

impl OptLevel {
    /// The passes this level adds to the named pipelines, each after the pass it follows.
    pub fn additions(self) -> &'static [(&'static str, &'static str)] {
        match self {
            OptLevel::O0 => &[],
            OptLevel::O1 => &[("run-verifier", remove_dead_tiles::NAME), ("insert-sync", remove_redundant_sync::NAME)],
            OptLevel::O2 => &[
                ("run-verifier", remove_dead_tiles::NAME),
                ("run-verifier", split_rows::NAME),
                ("insert-sync", remove_redundant_sync::NAME),
            ],
        }
    }
}

/// The named pass lists of `--pipeline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipeline {
    /// The reference's Default strategy, with outline-incore-scopes and
    /// convert-tensor-to-block-ops after convert-to-ssa (the second changes only InCore functions
    /// that hold tensor ops, which the reference's C++ emitter cannot compile).
    Default,
    /// The reference's PTOAS strategy: Default without insert-sync (and without legalize-cce,
    /// which only the CCE kernel writer needs).
    Ptoas,
    /// No passes: parse, lower, print.
    None,
}

impl Pipeline {
    /// The passes of this pipeline, in order, by kebab-case name.
    pub fn pass_names(self) -> &'static [&'static str] {
        match self {
            Pipeline::Default => &[
                "convert-to-ssa",
                "outline-incore-scopes",
                "convert-tensor-to-block-ops",
                "flatten-call-expr",
                "run-verifier",
                "init-mem-ref",
                "basic-memory-reuse",
                "legalize-cce",
                "pipeline-loops",
                "insert-sync",
                "allocate-memory-addr",
            ],
            Pipeline::Ptoas => &[
                "convert-to-ssa",
                "outline-incore-scopes",
                "convert-tensor-to-block-ops",
                "flatten-call-expr",
                "run-verifier",
                "init-mem-ref",
                "basic-memory-reuse",
                "pipeline-loops",
                "allocate-memory-addr",
            ],
            Pipeline::None => &[],
        }
    }

    /// The passes of this pipeline, in order (as the reference runs it: `-O0`).
    pub fn passes(self) -> Vec<&'static PassInfo> {
        self.pass_names().iter().filter_map(|n| lookup(n)).collect()
    }

    /// The pass names of this pipeline at an optimisation level: [`Self::pass_names`] with the
    /// level's additions after the passes they follow.
    pub fn pass_names_at(self, opt: OptLevel) -> Vec<&'static str> {
        let mut out = Vec::new();
        for &name in self.pass_names() {
            out.push(name);
            out.extend(opt.additions().iter().filter(|(after, _)| *after == name).map(|(_, added)| *added));
        }
        out
    }

    /// The passes of this pipeline at an optimisation level, in order.
    pub fn passes_at(self, opt: OptLevel) -> Vec<&'static PassInfo> {
        self.pass_names_at(opt).iter().filter_map(|n| lookup(n)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for p in PASSES {
            for n in std::iter::once(&p.name).chain(p.aliases) {
                assert!(seen.insert(*n), "name {n} registered twice");
            }
        }
    }

    #[test]
    fn lookup_accepts_kebab_camel_and_manager_aliases() {
        assert_eq!(lookup("convert-to-ssa").map(|p| p.name), Some("convert-to-ssa"));
        assert_eq!(lookup("ConvertToSSA").map(|p| p.name), Some("convert-to-ssa"));
        assert_eq!(lookup("MemoryReuse").map(|p| p.name), Some("basic-memory-reuse"));
        assert_eq!(lookup("RunVerifier").map(|p| p.name), Some("run-verifier"));
        assert_eq!(lookup("InitMemRef").map(|p| p.name), Some("init-mem-ref"));
        assert!(lookup("convert_to_ssa").is_none());
        assert!(lookup("").is_none());
    }

    #[test]
    fn pipelines_name_only_registered_passes() {
        for pl in [Pipeline::Default, Pipeline::Ptoas, Pipeline::None] {
            assert_eq!(pl.passes().len(), pl.pass_names().len(), "{pl:?}");
        }
        let default = Pipeline::Default.pass_names();
        let ptoas = Pipeline::Ptoas.pass_names();
        // PTOAS emits MLIR, whose `scf.yield` carries buffers itself: no CCE legalization.
        let without_sync: Vec<_> =
            default.iter().filter(|n| !matches!(**n, "insert-sync" | "legalize-cce")).copied().collect();
        assert_eq!(ptoas, without_sync.as_slice());
        assert_eq!(default[1], "outline-incore-scopes");
        assert_eq!(default[2], "convert-tensor-to-block-ops");
    }

    #[test]
    fn every_spec_pass_is_registered() {
        for n in [
            "convert-to-ssa",
            "outline-incore-scopes",
            "flatten-call-expr",
            "normalize-stmt-structure",
            "flatten-single-stmt",
            "run-verifier",
            "init-mem-ref",
            "basic-memory-reuse",
            "insert-sync",
            "allocate-memory-addr",
            "convert-tensor-to-block-ops",
        ] {
            assert!(lookup(n).is_some(), "{n}");
        }
        assert_eq!(PASSES.len(), 16);
    }

    #[test]
    fn o1_adds_dead_tile_and_redundant_sync_removal_only() {
        assert_eq!(Pipeline::Default.pass_names_at(OptLevel::O0), Pipeline::Default.pass_names());
        let o1 = Pipeline::Default.pass_names_at(OptLevel::O1);
        let at = o1.iter().position(|n| *n == "insert-sync").unwrap();
        assert_eq!(o1[at + 1], "remove-redundant-sync");
        let at = o1.iter().position(|n| *n == "run-verifier").unwrap();
        assert_eq!(o1[at + 1], remove_dead_tiles::NAME);
        assert_eq!(o1.len(), Pipeline::Default.pass_names().len() + 2);
        // Without insert-sync there is no sync to remove; dead tiles are removed all the same.
        let ptoas: Vec<&str> = Pipeline::Ptoas.pass_names_at(OptLevel::O1);
        assert_eq!(ptoas.iter().filter(|n| **n != remove_dead_tiles::NAME).count(), Pipeline::Ptoas.pass_names().len());
        assert!(!ptoas.contains(&remove_redundant_sync::NAME));
        assert!(Pipeline::None.pass_names_at(OptLevel::O1).is_empty());
        // -O2 also splits straight-line kernels into row blocks, before their buffers exist.
        let o2 = Pipeline::Default.pass_names_at(OptLevel::O2);
        let at = o2.iter().position(|n| *n == "run-verifier").unwrap();
        assert_eq!(o2[at + 1..at + 3], [remove_dead_tiles::NAME, split_rows::NAME]);
        assert_eq!(o2.len(), o1.len() + 1);
        assert_eq!(OptLevel::default(), OptLevel::O2);
        for (_, added) in OptLevel::O1.additions() {
            assert!(lookup(added).is_some(), "{added}");
        }
    }
}

pub mod convert_tensor_to_block_ops;
pub mod outline_incore_scopes;
