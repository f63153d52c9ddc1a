//! How an operator becomes pto-isa C++ (spec `passes-and-codegen.md` §4.7): the value of the
//! operator table's `cce` column ([`crate::ops::table::OpDef::cce`]). Adding an op to the
//! CCE backend is one table entry; the shapes of emitted code are the variants below, and
//! `codegen::calls` interprets them. The forms live with the table (not in `codegen`) so that
//! the operator table depends on nothing above it (docs/architecture.md, "Layers").

/// The emitted form of one op. `d` is the C++ name of the assigned variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CceEmit {
    /// `INSTR(d, a0, …, a{n-1});` with every argument, in order. `arity` is checked; the
    /// error names `family` (`Binary elementwise op requires 2 arguments`).
    Dst { instr: &'static str, arity: usize, family: Family },
    /// An element-wise `INSTR(d, a0, …);` (`family` [`Family::Binary`], [`Family::BinaryScalar`]
    /// with the scalar second, or [`Family::Unary`]). pto-isa wants every tile operand of the result's dtype and
    /// shape, row-major: an operand of another dtype is first converted (`TCVT` into a scratch
    /// tile), one that broadcasts is first expanded (`TROWEXPAND`/`TCOLEXPAND` into a scratch
    /// tile), and column-major tiles (`[N, 1]`) are seen as the rows they are in memory.
    Elementwise { instr: &'static str, arity: usize, family: Family },
    /// `INSTR(d, a_arg);`: the other arguments only describe the result's shape.
    DstArg { instr: &'static str, arg: usize },
    /// `TASSIGN(G, p + (offset)); TLOAD(d, G);`.
    Load,
    /// `TASSIGN(G, p + (offset)); TSTORE(G, tile);` and the result aliases the destination.
    Store,
    /// `TMOV(d, src);` between memories; a transposing move reads the source through its
    /// transposed view; a Vec to Vec move is fenced by full barriers (it runs on the vector
    /// pipe, the operator table says MTE1).
    Move,
    /// `TMOV(d, src);` within Vec.
    VecMove,
    /// `TCVT(d, x, RoundMode::CAST_<mode>);` from kwarg `mode`.
    Cast,
    /// `INSTR(mask, a, b, CmpMode::<cmp_type>);` into a `uint8_t` bit mask, then
    /// `TEXPANDS(d, 1); TSELS(d, mask, d, tmp, 0);`: the result holds 1 / 0 elements.
    Cmp { instr: &'static str },
    /// `INSTR(d, a, b, CmpMode::<cmp_type>);`: pto-isa's comparison into a packed `uint8_t`
    /// bit mask `d` (`block.cmp_bits`/`cmps_bits`).
    CmpBits { instr: &'static str },
    /// `TSELS(d, mask, src, tmp, scalar);`: `src` where the mask bit is set, else `scalar`.
    SelectBits,
    /// kwarg `axis` 0 → `COL(d, x);`, else `ROW(d, x, tmp);` with a scratch `tmp` (of the
    /// source's shape) unless the call gives one.
    Reduce { col: &'static str, row: &'static str },
    /// `INSTR(d, x, tmp);`: a row reduction into the column `[N, 1]`.
    RowReduce { instr: &'static str },
    /// `INSTR(d, x);` (with `tmp`: `INSTR(d, x, tmp)`, the call's second argument): a
    /// reduction down the columns into the row `[1, N]`.
    ColReduce { instr: &'static str, tmp: bool },
    /// `INSTR(d, a, …, v);`: the last operand `v` is a column `[N, 1]` broadcast along rows.
    RowExpand { instr: &'static str, arity: usize },
    /// `INSTR(d, a, …, v);`: the last operand `v` is a row `[1, N]` broadcast along columns.
    ColExpand { instr: &'static str, arity: usize },
    /// `TTRANS(d, x, tmp);` with the scratch tile `tmp` the call's last argument (legalize-cce
    /// adds it when the program does not write it).
    Transpose,
    /// `TEXTRACT(d, x, row, col);`: the window of `block.view` at its offset.
    Extract,
    /// `INSTR(d, x);` (`TFILLPAD`, `TFILLPAD_INPLACE`) with `d` seen with a pad value (pto-isa
    /// refuses `PadValue::Null`).
    FillPad { instr: &'static str },
    /// `TGATHER<Dst, Src, MaskPattern::P…>(d, x);`: the mask form of TGATHER, the pattern from
    /// kwarg `mask_pattern`.
    GatherMask,
    /// `TCI<Dst, T, descending>(d, start);`: the index sequence, `descending` from the kwarg.
    Ci,
    /// `TTRI<Dst, upper>(d, diagonal);`: the triangular mask, `upper` from the kwarg.
    Tri,
    /// No code (allocation is done by the prologue's `TASSIGN`).
    Nothing,
    /// `uint64_t d = get_block_idx();`: the index of the core running the kernel.
    BlockIdx,
    /// `INSTR(PIPE_<set>, PIPE_<wait>, EVENT_ID<id>);` (`set_flag` / `wait_flag`).
    Flag { instr: &'static str },
    /// `INSTR(<pipe>);` (`pipe_barrier(PIPE_V);`).
    Barrier { instr: &'static str, pipe: &'static str },
    /// `int64_t d = <dim>;` — the tensor's static dim (its GlobalTensor only has the window).
    TensorDim,
    /// `T d = p[start_offset + Σ i_k * strides[k]];`: one element of a tensor the kernel only
    /// reads (an `In` parameter), read by the scalar unit.
    TensorRead,
    /// The op has an IR form but no correct pto-isa lowering yet; the reason is reported.
    Unsupported { why: &'static str },
}

/// What the C++ of an op assigns, which its call must then be assigned to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writes {
    /// A tile: the call must be assigned to a tile variable.
    Tile,
    /// A scalar declared from the call: the call must be assigned.
    Scalar,
    /// Nothing, or a result the call may drop (a store's tensor).
    Optional,
}

impl CceEmit {
    /// What the form assigns ([`Writes`]).
    pub fn writes(self) -> Writes {
        match self {
            CceEmit::Store
            | CceEmit::Flag { .. }
            | CceEmit::Barrier { .. }
            | CceEmit::Nothing
            | CceEmit::Unsupported { .. } => Writes::Optional,
            CceEmit::BlockIdx | CceEmit::TensorDim | CceEmit::TensorRead => Writes::Scalar,
            _ => Writes::Tile,
        }
    }

    /// Whether the form runs an instruction on a device pipe (so the op needs a pipe in the
    /// operator table). The allocation forms, `tensor.dim`, `tensor.read` and the unsupported
    /// form do not.
    pub fn runs_on_device(self) -> bool {
        !matches!(self, CceEmit::Nothing | CceEmit::TensorDim | CceEmit::TensorRead | CceEmit::Unsupported { .. })
    }

    /// Whether the form is one instruction that computes element (i, j) of the result from
    /// element (i, j) of each operand of the result's shape (element-wise, and the row/column
    /// expanding binary ops, whose broadcast vector is the other operand), so that its
    /// destination may be such an operand (see [`crate::ops::writes_in_place`]).
    pub fn allows_dst_as_src(self) -> bool {
        // The NPU's TMATMUL_ACC accumulates into its destination and does not read its cIn
        // operand (pto-isa npu/a2a3/TMatmul.hpp; the CPU simulator reads cIn), so its result
        // must be the accumulator's own buffer for the kernel to compute the same on both.
        matches!(self, CceEmit::Elementwise { .. } | CceEmit::RowExpand { .. } | CceEmit::ColExpand { .. })
            || self.dst_must_be_src()
    }

    /// Whether the instruction's destination must be the buffer of an operand (see
    /// [`crate::ops::accumulates_in_place`]): TMATMUL_ACC, which on the NPU adds into its
    /// destination and never reads its cIn.
    pub fn dst_must_be_src(self) -> bool {
        matches!(self, CceEmit::Dst { instr: "TMATMUL_ACC", .. })
    }

    /// The pto-isa instructions the form emits, in order (for `docs/ops-cpp.md`).
    pub fn instructions(self) -> String {
        match self {
            CceEmit::Dst { instr, .. } | CceEmit::DstArg { instr, .. } | CceEmit::RowReduce { instr } => {
                instr.to_string()
            }
            CceEmit::RowExpand { instr, .. } | CceEmit::ColExpand { instr, .. } | CceEmit::ColReduce { instr, .. } => {
                instr.to_string()
            }
            CceEmit::Elementwise { instr, .. } => {
                format!("{instr} (legalize-cce adds `block.cast` and expansions for mixed dtypes and broadcasts)")
            }
            CceEmit::Load => "TASSIGN + TLOAD".into(),
            CceEmit::Store => "TASSIGN + TSTORE".into(),
            CceEmit::Move => "TMOV".into(),
            CceEmit::VecMove => "TMOV".into(),
            CceEmit::Cast => "TCVT".into(),
            CceEmit::Cmp { instr } => format!("{instr} + TEXPANDS + TSELS (legalize-cce writes them as ops)"),
            CceEmit::CmpBits { instr } => instr.to_string(),
            CceEmit::SelectBits => "TSELS".into(),
            CceEmit::Reduce { col: "TCOLSUM", row } => {
                format!("TCOLSUM (axis 0; FP16/BF16: legalize-cce sums in FP32, then casts), {row} (axis 1)")
            }
            CceEmit::Reduce { col, row } => format!("{col} (axis 0), {row} (axis 1)"),
            CceEmit::Extract => "TEXTRACT".into(),
            CceEmit::Transpose => "TTRANS".into(),
            CceEmit::FillPad { instr } => instr.into(),
            CceEmit::GatherMask => "TGATHER<Dst, Src, MaskPattern::P…> (the mask form)".into(),
            CceEmit::Ci => "TCI<Dst, T, descending>".into(),
            CceEmit::Tri => "TTRI<Dst, upper>".into(),
            CceEmit::Nothing => "— (TASSIGN in the prologue)".into(),
            CceEmit::BlockIdx => "get_block_idx()".into(),
            CceEmit::Flag { instr } => instr.to_string(),
            CceEmit::Barrier { instr, pipe } => format!("{instr}({pipe})"),
            CceEmit::TensorDim => "— (a constant)".into(),
            CceEmit::TensorRead => "— (a scalar read of the tensor's memory)".into(),
            CceEmit::Unsupported { why } => format!("— (refused at the call: {why})"),
        }
    }

    /// The tile layouts the emitted C++ needs (for `docs/ops-cpp.md`); the code generator
    /// provides them (declarations, views of the same memory, scratch tiles).
    pub fn layouts(self) -> &'static str {
        match self {
            CceEmit::Elementwise { .. } | CceEmit::Cast => {
                "all tiles Vec, row-major `NoneBox`, one shape (`[N, 1]` column tiles are used as `[1, N]` rows)"
            }
            CceEmit::Dst { instr: "TMATMUL" | "TMATMUL_ACC", .. } => {
                "Left `Zz` (RowMajor, SLayout RowMajor, 512), Right `Zn` (RowMajor, SLayout ColMajor, 512), Acc `Nz` (ColMajor, SLayout RowMajor, 1024)"
            }
            CceEmit::Dst { .. } | CceEmit::DstArg { .. } => "Vec, row-major `NoneBox`",
            CceEmit::Load => "ND window: row-major tile; DN window (last dim 1): column-major `[N, 1]` tile; a vector tile is seen in the window's orientation",
            CceEmit::Store => "as `block.load`; Acc tiles (`block.l0c_store`) `Nz`",
            CceEmit::Move => "Mat `Nz` → Left `Zz` / Right `Zn`; a transposing move reads the source as its transpose (`Nz` seen as `Zn`)",
            CceEmit::VecMove => "Vec → Vec, equal shapes",
            CceEmit::Cmp { .. } | CceEmit::CmpBits { .. } => "as element-wise; the mask is a `uint8_t` `[R, ⌈C/8⌉]` row-major tile (C a multiple of 8), rows padded to 32 bytes",
            CceEmit::SelectBits => "Vec, row-major; the mask as `block.cmp_bits` writes it; `tmp` one 32-byte block",
            CceEmit::Reduce { .. } => "source row-major; axis 0: destination row `[1, N]`; axis 1: destination column `[N, 1]` (column-major)",
            CceEmit::RowReduce { .. } => "source row-major; destination column `[N, 1]` (column-major)",
            CceEmit::ColReduce { .. } => "source row-major; destination row `[1, N]` (row-major)",
            CceEmit::RowExpand { .. } => "destination row-major; the vector a column `[N, 1]`",
            CceEmit::ColExpand { .. } => "destination row-major; the vector a row `[1, N]`",
            CceEmit::Extract => "Vec, row-major, the window inside the source",
            CceEmit::GatherMask => "Vec, row-major `NoneBox`; the destination's rows packed (its shape its valid shape)",
            CceEmit::Ci => "Vec, row-major, one row",
            CceEmit::Tri => "Vec, row-major",
            CceEmit::FillPad { .. } => "Vec, equal shapes; destination with a pad value (`PadValue::Zero` unless the view says otherwise)",
            _ => "—",
        }
    }
}

/// The operand shape of an element-wise emit, which also names the op in arity messages
/// (§4.7 "Arity checks").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Unary,
    /// Two tiles.
    Binary,
    /// A tile and a scalar, second.
    BinaryScalar,
    Ternary,
}

impl Family {
    /// How an arity message names the op (`Binary elementwise op requires 2 arguments`).
    pub fn message_name(self) -> &'static str {
        match self {
            Family::Unary => "Unary op",
            Family::Binary => "Binary elementwise op",
            Family::BinaryScalar => "Binary scalar op",
            Family::Ternary => "Ternary op",
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::table::entries;

    /// Every operator whose C++ runs an instruction on the device has a pipe for both
    /// backends: insert-sync and `--verify-sync` would otherwise take it for the scalar unit
    /// and leave its hazards unsynchronized.
    #[test]
    fn every_device_op_has_a_pipe_for_every_backend() {
        for (_, def) in entries() {
            if def.cce.is_some_and(|e| e.runs_on_device()) {
                assert!(def.pipe_cce.is_some(), "{}: no CCE pipe", def.name);
                assert!(def.pipe_pto.is_some(), "{}: no PTO pipe", def.name);
            }
        }
    }

    /// Every op the CCE backend executes on a pipe has an emitter, and vice versa (the sync
    /// and allocation ops included), so the two columns of the table cannot drift apart.
    #[test]
    fn every_cce_op_has_an_emitter() {
        for (_, def) in entries() {
            assert_eq!(def.pipe_cce.is_some(), def.cce.is_some(), "{}: pipe and emitter columns disagree", def.name);
        }
    }
}
