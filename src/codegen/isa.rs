//! How an operator becomes pto-isa C++ (spec `passes-and-codegen.md` §4.7): the value of the
//! operator table's `cce` column ([`crate::ops::table::OpDef::cce`]). Adding an op to the
//! CCE backend is one table entry; the shapes of emitted code are the variants below, and
//! `codegen::ops` interprets them.

/// The emitted form of one op. `d` is the C++ name of the assigned variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CceEmit {
    /// `INSTR(d, a0, …, a{n-1});` with every argument, in order. `arity` is checked; the
    /// error names `family` (`Binary elementwise op requires 2 arguments`).
    Dst { instr: &'static str, arity: usize, family: &'static str },
    /// `INSTR(d, a_arg);`: the other arguments only describe the result's shape.
    DstArg { instr: &'static str, arg: usize },
    /// `TASSIGN(G, p + (offset)); TLOAD(d, G);`.
    Load,
    /// `TASSIGN(G, p + (offset)); TSTORE(G, tile);` and the result aliases the destination.
    Store,
    /// `TMOV(d, src);` between memories (not Vec to Vec).
    Move,
    /// `TMOV(d, src);` within Vec.
    VecMove,
    /// `TCVT(d, x, RoundMode::CAST_<mode>);` from kwarg `mode`.
    Cast,
    /// `INSTR(d, a, b, CmpMode::<cmp_type>);`.
    Cmp { instr: &'static str },
    /// kwarg `axis` 0 → `COL(d, x);` (1 argument), else `ROW(d, x, tmp);` (2 arguments).
    Reduce { col: &'static str, row: &'static str },
    /// No code (allocation is done by the prologue's `TASSIGN`).
    Nothing,
    /// `T d = GET_BLOCK_IDX(<axis>);`.
    BlockIdx,
    /// `INSTR(PIPE_<set>, PIPE_<wait>, EVENT_ID<id>);` (`set_flag` / `wait_flag`).
    Flag { instr: &'static str },
    /// `pipe_barrier(PIPE_<pipe>);`.
    Barrier { pipe: &'static str },
    /// `int64_t d = <dim>;` — the tensor's static dim (its GlobalTensor only has the window).
    TensorDim,
    /// The op has an IR form but no correct pto-isa lowering yet; the reason is reported.
    Unsupported { why: &'static str },
}

/// The arity-message families (§4.7 "Arity checks").
pub const BINARY: &str = "Binary elementwise op";
pub const BINARY_SCALAR: &str = "Binary scalar op";
pub const UNARY: &str = "Unary op";
pub const TERNARY: &str = "Ternary op";

#[cfg(test)]
mod tests {
    use crate::ops::table::entries;

    /// Every op the CCE backend executes on a pipe has an emitter, and vice versa (the sync
    /// and allocation ops included), so the two columns of the table cannot drift apart.
    #[test]
    fn every_cce_op_has_an_emitter() {
        // Ops that got their CCE pipe (so insert-sync and the hazard checker order them, issue
        // 16) before their emitter; codegen still refuses them with a diagnostic.
        const PIPE_BEFORE_EMITTER: &[&str] = &["block.row_expand"];
        for (_, def) in entries() {
            if PIPE_BEFORE_EMITTER.contains(&def.name) {
                assert!(def.pipe_cce.is_some() && def.cce.is_none(), "{}: remove it from PIPE_BEFORE_EMITTER", def.name);
                continue;
            }
            assert_eq!(def.pipe_cce.is_some(), def.cce.is_some(), "{}: pipe and emitter columns disagree", def.name);
        }
    }
}
