//! The declarative operator table (spec `ir-and-syntax.md` §4): one [`OpDef`] per registered
//! operator, in the order of the spec's tables. An [`OpId`](crate::ir::OpId) is an index into
//! [`OPS`].
//!
//! Each entry says how the operator is spelled (IR name, printed spelling, DSL aliases, unified
//! names), how a call binds (the Python constructor's parameters, in its positional order, each
//! either an IR argument or a kwarg), which kwargs the IR stores (in stored = printed order, with
//! the constructor default that the reference inserts) and which result-type rule applies.
//! Later stages add their own columns (pipe per backend, C++ emitter) to [`OpDef`].

use super::cce::{CceEmit, Family};
use super::names;
use super::pto::PtoEmit;
use crate::ir::{DataType, MemorySpace, OpId, PipeType};
use Expect::*;

/// The reference's op category (§4.1–4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    Tensor,
    Block,
    Sync,
    Test,
}

impl Category {
    /// The first segment of the IR name (`tensor`, `block`, `system`, `test`).
    pub fn prefix(self) -> &'static str {
        match self {
            Category::Tensor => "tensor",
            Category::Block => "block",
            Category::Sync => "system",
            Category::Test => "test",
        }
    }
}

/// One registered operator.
#[derive(Clone, Copy, Debug)]
pub struct OpDef {
    /// IR name (`tensor.add_scalar`).
    pub name: &'static str,
    /// Spelling after `pl.` in printed text (`tensor.add` for `tensor.add_scalar`, §3.3 OPNAME).
    pub printed: &'static str,
    pub category: Category,
    /// Other accepted spellings of the last name segment after `pl.tensor.` / `pl.block.` and in
    /// first-argument dispatch (`and_` for `block.and`, `create_tensor` for `tensor.create`).
    pub aliases: &'static [&'static str],
    /// Names under which `pl.NAME(...)` reaches this op without looking at the first argument
    /// (§4.5 rules 1 and 2).
    pub unified: &'static [&'static str],
    /// The op a call is redirected to when its second argument is a Scalar (§4.5):
    /// `tensor.add` → `tensor.add_scalar` (the constructor does it), `block.add` → `block.adds`
    /// (only unified dispatch does it).
    pub scalar_rhs: Option<&'static str>,
    /// The constructor's parameters in positional order; IR arguments keep their relative order.
    pub params: &'static [Param],
    /// Kwarg schema in stored (printed) order. Every entry has a [`Slot::Kw`] parameter of the
    /// same name.
    pub kwargs: &'static [KwSpec],
    /// Result-type rule (§4 "result" and "checks" columns).
    pub rule: Rule,
    /// The block op a tensor op becomes inside InCore functions (`passes-and-codegen.md` §2.7
    /// table), args and kwargs passed through unchanged. Read by ConvertTensorToBlockOps and
    /// by the IncoreBlockOps verifier, so the conversion table exists once.
    pub block_form: Option<&'static str>,
    /// The hardware pipe that executes the op on the 910B CCE backend (`passes-and-codegen.md`
    /// §3.3); `None`: no backend entry (InsertSync treats it as the scalar pipe S).
    pub pipe_cce: Option<PipeType>,
    /// The same on the PTO backend.
    pub pipe_pto: Option<PipeType>,
    /// How the CCE code generator emits the op (`passes-and-codegen.md` §4.7); `None`: no
    /// emitter (`No codegen registered for operation`).
    pub cce: Option<CceEmit>,
    /// How the PTO-ISA MLIR generator emits the op (`pto-codegen.md` §10); `None`: no
    /// emitter (`No codegen registered for operation`).
    pub pto: Option<PtoEmit>,
    /// The memory spaces the unit that executes the op on the 910B (A2/A3) can read each tile
    /// operand from; checked before C++ is emitted (`verify::memory_reach`). Ops on the vector pipe
    /// get [`Reads::Tiles`]`(&[Vec])` from [`OpDef::pipes`] unless they say otherwise.
    pub reads: Reads,
    /// The memory space of the result's buffer (`passes-and-codegen.md` §2.8 step 2), read by
    /// init-mem-ref for block ops.
    pub result_space: ResultSpace,
    /// Whose buffer the result is (§2.8 step 3), read by init-mem-ref, insert-sync and the
    /// sync checker.
    pub result_buffer: ResultBuffer,
    /// The synchronisation the op is, for the sync passes and the sync checker; `None` for
    /// every op that is not one.
    pub sync: Option<SyncOp>,
    /// Whether today's PyPTO reaches this block op as `pl.tile.<short name or alias>` with the
    /// same parameters (its `pl.block.*` namespace is called `pl.tile.*` there). False for the
    /// block ops whose `pl.tile.*` namesake takes other arguments today, and for non-block ops.
    pub today_tile: bool,
    /// Further spellings of today's PyPTO that mean this op (`tile.create` for
    /// `block.create_tile`), each with how its arguments become this op's.
    pub today: &'static [Today],
    /// Whether today's PyPTO gives this op the keyword `high_precision=` (a bool, default
    /// False), with why ptoc refuses `True`: a call with `high_precision=False` means the op as
    /// it is, one with `True` is refused at the keyword (`ops::high_precision`).
    pub high_precision: Option<&'static str>,
    /// [`OpDef::written_arg`], found in `params` when the table is built: the sync analyses ask
    /// it of every leaf they read.
    written: Option<u8>,
}

/// The memory space of an op's result (the [`OpDef::result_space`] column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultSpace {
    /// Vec (UB), where the vector unit computes.
    Vec,
    /// The space the call's `target_memory` kwarg names, Vec without one.
    TargetMemory,
    /// DDR: the result is a tensor in global memory.
    Ddr,
    /// Acc (L0C), where the cube unit accumulates.
    Acc,
}

/// Whose buffer an op's result is (the [`OpDef::result_buffer`] column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultBuffer {
    /// A buffer of its own.
    Own,
    /// The buffer of argument `k`, which the op writes and does not read: the result of
    /// `block.store` is its destination tensor (spec §2.10), and of its other operands only the
    /// stored tile has a buffer.
    Destination(usize),
    /// The buffer of argument `k`, which the op reads: `block.reshape`'s result is its input
    /// tile seen in another shape.
    ViewOf(usize),
}

impl ResultBuffer {
    /// The argument whose buffer the result is, if any.
    pub fn shared_arg(self) -> Option<usize> {
        match self {
            ResultBuffer::Own => None,
            ResultBuffer::Destination(k) | ResultBuffer::ViewOf(k) => Some(k),
        }
    }
}

/// The synchronisation an op is (the [`OpDef::sync`] column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncOp {
    /// `system.sync_src`: sets an event flag (`set_flag`).
    Set,
    /// `system.sync_dst`: waits for an event flag (`wait_flag`).
    Wait,
    /// A pipe barrier (`system.bar_v`, `system.bar_m`).
    Barrier(PipeType),
    /// `system.bar_all`.
    BarrierAll,
}

/// A spelling of today's PyPTO (upstream HEAD, whose DSL renamed some of be8155433's) that
/// means an op of this table (the [`OpDef::today`] column; docs/language.md, "Today's PyPTO
/// spellings").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Today {
    /// The dotted name after `pl.` (`tile.create`, `store`).
    pub name: &'static str,
    pub form: TodayForm,
}

/// How the arguments of a [`Today`] spelling become the op's (`ops::today`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TodayForm {
    /// The op's own parameters.
    Same,
    /// `tile.col_sum(t[, tmp])`, `tile.col_max(t)`, `tile.col_min(t)`: the reduction over axis 0
    /// with `keepdim=True`, the `[1, N]` column result. A scratch tile, when given, must be a
    /// tile and is not used: the axis-0 reduction needs none.
    ColumnReduce,
    /// `store(tile, offsets, output_tensor[, shapes])`: the destination is the third argument
    /// and the shape defaults to the tile's; a tile the cube unit wrote (in Acc) is stored by
    /// the fixpipe, `block.l0c_store`. A call with the shape third is be8155433's form, bound
    /// as written.
    Store,
}

impl TodayForm {
    /// How a call in this form binds, for `--list-ops` (empty for [`TodayForm::Same`]).
    pub fn about(self) -> &'static str {
        match self {
            TodayForm::Same => "",
            TodayForm::ColumnReduce => {
                "(tile): the reduction over axis 0 with keepdim=True (col_sum also takes an optional scratch tile, not used)"
            }
            TodayForm::Store => {
                "(tile, offsets, output_tensor[, shapes]): the shape defaults to the tile's; a tile in Acc (a matmul result) is stored by block.l0c_store"
            }
        }
    }
}

/// Today's `pl.tile.transpose_view(t)`: the Mat tile `t` seen as its transpose (NZ read as ZN),
/// no data moved. The one use be8155433 has a form for is a move of it into L0 (Left or Right),
/// which is be8155433's `pl.move(t, target_memory=…, transpose=True)`: lowering folds the two
/// at the move and refuses any other read of the view.
pub const TRANSPOSE_VIEW: &str = "tile.transpose_view";

const fn today(name: &'static str) -> Today {
    Today { name, form: TodayForm::Same }
}
const fn today_form(name: &'static str, form: TodayForm) -> Today {
    Today { name, form }
}

/// Which memory spaces an op's tile operands may be in (the [`OpDef::reads`] column). The
/// facts come from pto-isa's instruction constraints for A2/A3 (`include/pto/npu/a2a3/`):
/// the vector unit reads only UB (Vec); `TMATMUL`/`TMATMUL_ACC` read L0A (Left) and L0B (Right)
/// and accumulate in L0C (Acc); `TMOV` copies Mat to Left/Right, Acc to Mat and Vec to Vec;
/// MTE3 stores from Vec and the fixpipe (`block.l0c_store`) from Acc. Spaces with no path
/// between them (`backend::memory_path`) need a store to a tensor and a load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// Not checked: no tile operand, no CCE emitter, or an op that works in the space of its
    /// operand (`block.view` is `TEXTRACT`, `block.reshape` `TRESHAPE`, both in any space).
    Any,
    /// Every tile operand in one of these spaces.
    Tiles(&'static [MemorySpace]),
    /// The k-th IR argument, when it is a tile, in one of the k-th spaces (an empty list, or
    /// no k-th list: any space).
    Args(&'static [&'static [MemorySpace]]),
    /// `block.move`: the source's spaces depend on the target ([`move_sources`]).
    MoveSource,
}

impl Reads {
    /// The spaces the `k`-th IR argument may be in, `None` for any; `target` is the op's
    /// `target_memory` kwarg (for [`Reads::MoveSource`]).
    pub fn arg(self, k: usize, target: Option<MemorySpace>) -> Option<&'static [MemorySpace]> {
        match self {
            Reads::Any => None,
            Reads::Tiles(spaces) => Some(spaces),
            Reads::Args(lists) => lists.get(k).copied().filter(|l| !l.is_empty()),
            Reads::MoveSource if k == 0 => Some(move_sources(target?)),
            Reads::MoveSource => None,
        }
    }
}

/// The spaces `TMOV` (`block.move`) can copy into `target` from on A2/A3 (pto-isa
/// `npu/a2a3/TMov.hpp`, `TMOV_TILE_IMPL`'s static_assert): Mat → Left/Right, Acc → Mat,
/// Vec → Vec. Nothing moves into Acc or DDR.
pub fn move_sources(target: MemorySpace) -> &'static [MemorySpace] {
    match target {
        MemorySpace::Left | MemorySpace::Right => &[MemorySpace::Mat],
        MemorySpace::Mat => &[MemorySpace::Acc],
        MemorySpace::Vec => &[MemorySpace::Vec],
        MemorySpace::Acc | MemorySpace::Ddr => &[],
    }
}

const VEC: &[MemorySpace] = &[MemorySpace::Vec];
const ACC: &[MemorySpace] = &[MemorySpace::Acc];
const LEFT: &[MemorySpace] = &[MemorySpace::Left];
const RIGHT: &[MemorySpace] = &[MemorySpace::Right];
/// `TMATMUL(acc, left, right)`: pto-isa `cpu/TMatmul.hpp` and `npu/a2a3/TMatmul.hpp`
/// static_assert `Loc == Left`, `Right`, `Acc`.
const MATMUL_READS: Reads = Reads::Args(&[LEFT, RIGHT]);
const MATMUL_ACC_READS: Reads = Reads::Args(&[ACC, LEFT, RIGHT]);
/// The bias of `TMATMUL_BIAS` lives in the Bias table, which the IR has no space for: unchecked.
const MATMUL_BIAS_READS: Reads = Reads::Args(&[LEFT, RIGHT, &[]]);

impl OpDef {
    /// The last segment of the IR name (`add_scalar`).
    pub fn short_name(&self) -> &'static str {
        self.name.split_once('.').map_or(self.name, |(_, s)| s)
    }
    /// The IR argument parameters in order (arity = their count).
    pub fn arg_params(&self) -> impl Iterator<Item = &'static Param> {
        self.params.iter().filter(|p| matches!(p.slot, Slot::Arg { .. }))
    }
    /// The name argument `index` is written with in the printed form when it is an optional
    /// argument after a kwarg parameter (given positionally, it would bind to the kwarg).
    pub fn keyword_arg(&self, index: usize) -> Option<&'static str> {
        let at = self.params.iter().enumerate().filter(|(_, p)| matches!(p.slot, Slot::Arg { .. })).nth(index)?.0;
        let p = &self.params[at];
        (p.optional && self.params[..at].iter().any(|q| matches!(q.slot, Slot::Kw))).then_some(p.name)
    }
    /// The most arguments a call takes.
    pub fn arity(&self) -> usize {
        self.arg_params().count()
    }
    /// The fewest arguments a call takes (the optional ones left out).
    pub fn min_arity(&self) -> usize {
        self.arg_params().filter(|p| !p.optional).count()
    }
    /// Whether the argument at `index` is a destination the op writes (a parameter named
    /// `output_tensor`, like `block.store`'s tensor), not an operand it reads.
    pub fn writes_arg(&self, index: usize) -> bool {
        self.written_arg() == Some(index)
    }
    /// The argument the op writes (see [`OpDef::writes_arg`]), if any.
    pub fn written_arg(&self) -> Option<usize> {
        self.written.map(usize::from)
    }
    pub fn kwarg(&self, name: &str) -> Option<&'static KwSpec> {
        self.kwargs.iter().find(|k| k.name == name)
    }
}

/// The id of the entry named `name`, for the typed ids of `ops::id` (evaluated when the crate
/// is compiled; a name without an entry stops the build).
pub(super) const fn id_of(name: &str) -> OpId {
    let mut i = 0;
    while i < OPS.len() {
        if same_str(OPS[i].name, name) {
            return OpId(i as u16);
        }
        i += 1;
    }
    panic!("an operator id names no entry of the operator table")
}

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Every entry with its id, in table order.
pub fn entries() -> impl Iterator<Item = (OpId, &'static OpDef)> {
    OPS.iter().enumerate().map(|(i, d)| (OpId(i as u16), d))
}

/// A constructor parameter.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub slot: Slot,
    /// What the argument is for, when its name and kind do not say it (shown by `--list-ops`
    /// and docs/ops.md); empty otherwise.
    pub about: &'static str,
    /// Whether a call may leave the argument out (only the last argument parameters are
    /// optional: a scratch tile that legalize-cce provides when the program does not).
    pub optional: bool,
}

impl Param {
    /// The same parameter with its explanation.
    const fn about(self, about: &'static str) -> Param {
        Param { about, ..self }
    }
    /// The same parameter, which calls may leave out.
    const fn optional(self) -> Param {
        Param { optional: true, ..self }
    }
}

/// Where a parameter's value goes in the IR call.
#[derive(Clone, Copy, Debug)]
pub enum Slot {
    /// The next IR argument: what it must be, and how a plain value given for it becomes an Expr.
    Arg { expect: Expect, conv: ArgConv },
    /// The kwarg of the same name (see [`OpDef::kwargs`]).
    Kw,
}

/// What an IR argument must be; checked before the result-type rule runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    Any,
    Tensor,
    Tile,
    Scalar,
    /// A literal list (`MakeTuple` expression); elements unchecked.
    List,
    /// `tuple<int>`: any TupleType value whose elements are integer scalars.
    IntTuple,
    /// `tuple<i64>`: like `IntTuple` with INT64/UINT64 elements.
    IndexTuple,
    ConstInt,
    /// `ConstInt` or `ConstFloat`.
    Const,
}

/// How a plain value (a literal given as a keyword, or an enum member given positionally)
/// becomes an IR argument: the constructor conversions of §4.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgConv {
    /// int → ConstInt(INT64), float → ConstFloat(FP32), bool → ConstBool.
    Expr,
    /// A MemorySpace member → ConstInt(its code) (`block.alloc`).
    Space,
    /// A scalar operand: int → ConstInt(`int`), float → ConstFloat(`float`).
    Scalar { int: DataType, float: DataType },
    /// `block.full`'s value: a constant gets the tile dtype (kwarg `dtype`).
    Fill,
}

/// A kwarg of the schema.
#[derive(Clone, Copy, Debug)]
pub struct KwSpec {
    pub name: &'static str,
    pub kind: KwKind,
    /// The type deduction needs it (a call without it is invalid IR).
    pub required: bool,
    /// What the Python constructor stores when the author omitted it.
    pub default: Option<KwDefault>,
}

/// Value kind of a kwarg (§2.1 kwarg kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KwKind {
    Int,
    Bool,
    Str,
    Float,
    /// A DataType; an int is accepted as a dtype code.
    DType,
    /// A MemorySpace, restricted to the listed members when the list is non-empty.
    Space(&'static [MemorySpace]),
    /// Cast rounding mode: an int 0..=6 or the name of a [`RoundMode`], stored as int.
    ///
    /// [`RoundMode`]: super::modes::RoundMode
    Mode,
    /// A comparison of `cmp`/`cmps`: an int 0..=5 ([`CmpMode`]).
    ///
    /// [`CmpMode`]: super::modes::CmpMode
    Cmp,
    /// A PipeType, stored as its int code.
    Pipe,
    /// A tile pad value other than `null` (`pl.PadValue.zero`, `max`, `min`).
    Pad,
}

/// A constructor default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KwDefault {
    Int(i64),
    Bool(bool),
    Space(MemorySpace),
    DType(DataType),
}

impl KwDefault {
    pub fn value(self) -> crate::ir::KwValue {
        match self {
            KwDefault::Int(v) => crate::ir::KwValue::Int(v),
            KwDefault::Bool(v) => crate::ir::KwValue::Bool(v),
            KwDefault::Space(v) => crate::ir::KwValue::Space(v),
            KwDefault::DType(v) => crate::ir::KwValue::DType(v),
        }
    }
}

/// Whether a rule builds a Tensor or a Tile result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shaped {
    Tensor,
    Tile,
}

/// Result dtype of the element-wise rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtypeRule {
    /// `P(arg0, arg1)` (promotion 1.1(b)).
    Promote,
    /// `arg0.dtype`.
    Lhs,
}

/// Result-type rules; implemented in `deduce.rs`. Argument kinds (Tile/Tensor/Scalar/lists)
/// are already checked through [`Expect`] when a rule runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// `Tensor(shape, dtype)`; dims from a list or `t[i]` of a tuple value.
    TensorCreate,
    /// `Scalar(t.dtype)`; #indices == rank.
    TensorRead,
    /// `Scalar(INT64)`; axis in [-rank, rank).
    TensorDim,
    /// `X(shape, dtype)` from arg 1 (`tensor.view`, `block.view`).
    View(Shaped),
    /// `Tensor(target.shape, target.dtype)`.
    TensorAssemble,
    /// `X(shape, dtype)`, element count preserved when static.
    Reshape(Shaped),
    /// Two constant axes swapped.
    Transpose(Shaped),
    /// `X(B(a0, a1), dtype)`.
    Broadcast {
        shaped: Shaped,
        int_only: bool,
        dtype: DtypeRule,
    },
    /// `X(a0.shape, dtype)` (tile/tensor with a scalar or a second tile whose shape is ignored).
    KeepShape {
        shaped: Shaped,
        int_only: bool,
        dtype: DtypeRule,
    },
    /// `Tensor(shape, dtype if float else FP32)`.
    TensorExp,
    /// `X(shape, target_type)`.
    Cast(Shaped),
    TensorMatmul,
    /// Reduce kwarg `axis` (default -1), `keep_dim` (default true).
    TensorRowReduce,
    GetBlockIdx,
    CreateTile,
    Full,
    Load,
    Store,
    Move,
    Alloc,
    /// `Tile(shape, dtype)` of arg 0 with a minimum rank.
    SameTile {
        min_rank: usize,
    },
    /// Same, INT16/UINT16 only.
    NotTile,
    /// `Tile(B(B(a,b),c), P(P(a,b),c))`.
    AddC,
    /// `Tile(B(a,c), P(P(a,s),c))`.
    AddSC,
    /// `Tile(B(l,r), P(l,r))` over args 1, 2.
    Select,
    Matmul,
    MatmulAcc,
    MatmulBias,
    BatchMatmul,
    /// `block.sum/max/min`: kwarg `axis` (required), `keepdim` (default false).
    Reduce,
    /// `Tile(shape[:-1] + [1], dtype)`.
    RowReduce,
    /// `Tile(shape[:-2] + [1, shape[-1]], dtype)`: the reduction over the rows into a row.
    ColReduce,
    /// `Tile([R, C0 + C1], dtype)` of an `[R, C0]` and an `[R, C1]` tile of one dtype, columns
    /// of static counts.
    Concat,
    /// `Tile(indices.shape, src.dtype)`: a 2-D source of a 16- or 32-bit dtype, 2-D INT32
    /// indices and an INT32 scratch tile of the indices' shape.
    Gather,
    /// `Tile([R, C / k], output_dtype or src.dtype)` of a 2-D 16- or 32-bit `[R, C]` source
    /// (C static): the columns the kwarg `mask_pattern` (1–7) selects, `k` of them in 1, 2 or 4.
    GatherMask,
    /// `Tile(dst.shape, dst.dtype)` of a 2-D `dst`, a 2-D `src` of its dtype (8, 16 or 32 bits)
    /// and indexes of `src`'s shape, INT32 for a 32-bit dtype, else INT16.
    Scatter,
    /// `Tile([R, 2C], FP32)` of an FP32 `[R, C]` source (C a static multiple of 32) and UINT32
    /// indices of its shape: a (value, index) record of two elements per source element.
    Sort32,
    /// `Tile([1, C], FP32)` of the `[1, C]` FP32 records of a source: `block_len` (a constant
    /// multiple of 64) divides C / 4, and C / (4 · block_len) ≤ 255.
    MrgSort,
    /// `Tile(src0.shape, src0.dtype)` with `src0`'s valid shape, of two 2-D tiles of one shape
    /// and one dtype (INT16, INT32, FP16, FP32), `src1` valid over at most `src0`'s valid region.
    PartBinary,
    /// `Tile(lhs.shape, FP32)` with `lhs`'s valid shape, of a 2-D FP32 tile and (`scalar`) an
    /// FP32 scalar or a tile of its shape, dtype and valid shape.
    Fmod {
        scalar: bool,
    },
    /// `Tile(tile.shape, tile.dtype)` of a 2-D FP16 or FP32 `[M, N]` tile and a vector of its
    /// dtype, the column `[M, 1]` (`row`) or the row `[1, N]`, broadcast along the other axis.
    ExpandExpdif {
        row: bool,
    },
    /// `Tile(shape, dtype)` (kwarg `dtype`, INT16 or INT32) of a static one-row shape and a
    /// start scalar of that dtype.
    Ci,
    /// `Tile(shape, dtype)` of a static 2-D shape (kwarg `dtype`: INT16, INT32, UINT16, UINT32,
    /// FP16, FP32) and an integer diagonal, with the valid shape of the optional `valid_shape`.
    Tri,
    /// `Tile(shape, tile.dtype)` of a 2-D 8-, 16- or 32-bit tile and a static 2-D shape at least
    /// the tile's on each axis.
    FillPadExpand,
    /// `Tile([R, K · 32 / size], output_dtype or src.dtype)` of a 2-D 8-, 16- or 32-bit source
    /// and a UINT32 `[R, K]` offset tile; `output_dtype` of the source's width.
    GatherB,
    /// The position of the greatest (least) element: `Tile(shape[:-1] + [1], INT32)` along
    /// each row (`row`), `Tile(shape[:-2] + [1, shape[-1]], INT32)` down each column.
    ArgReduce {
        row: bool,
    },
    RowExpandBinary,
    /// `UnknownType`.
    Sync,
    /// `Tile([R, pad32(ceil(C / 8))], UINT8)` for an `[R, C]` (or `[C]`, R = 1) arg 0: a packed
    /// bit mask, rows padded to 32 bytes.
    CmpBits,
    /// The type of arg 1 (the source the mask selects from).
    SelectBits,
    /// The type of arg 0 (a 2-D tile) with the valid shape `[arg 1, arg 2]` (integer scalars).
    SetValidShape,
    /// The type of arg 0.
    TestOp,
}

// ---------------------------------------------------------------------------------------------
// Builders (const, so the table is a plain static).

const fn arg(name: &'static str, expect: Expect) -> Param {
    Param { name, slot: Slot::Arg { expect, conv: ArgConv::Expr }, about: "", optional: false }
}
const fn arg_conv(name: &'static str, expect: Expect, conv: ArgConv) -> Param {
    Param { name, slot: Slot::Arg { expect, conv }, about: "", optional: false }
}
const fn kw(name: &'static str) -> Param {
    Param { name, slot: Slot::Kw, about: "", optional: false }
}
const fn opt(name: &'static str, kind: KwKind) -> KwSpec {
    KwSpec { name, kind, required: false, default: None }
}
const fn req(name: &'static str, kind: KwKind) -> KwSpec {
    KwSpec { name, kind, required: true, default: None }
}
impl KwSpec {
    const fn default(self, d: KwDefault) -> KwSpec {
        KwSpec { default: Some(d), ..self }
    }
}

/// The position among the IR arguments of the parameter named `output_tensor`, if any.
const fn output_tensor_arg(params: &[Param]) -> Option<u8> {
    const NAME: &[u8] = b"output_tensor";
    let (mut i, mut arg) = (0, 0);
    while i < params.len() {
        if let Slot::Arg { .. } = params[i].slot {
            let name = params[i].name.as_bytes();
            if name.len() == NAME.len() {
                let mut k = 0;
                while k < NAME.len() && name[k] == NAME[k] {
                    k += 1;
                }
                if k == NAME.len() {
                    return Some(arg);
                }
            }
            arg += 1;
        }
        i += 1;
    }
    None
}

const fn op(name: &'static str, category: Category, params: &'static [Param], rule: Rule) -> OpDef {
    OpDef {
        name,
        printed: name,
        category,
        aliases: &[],
        unified: &[],
        scalar_rhs: None,
        params,
        kwargs: &[],
        rule,
        block_form: None,
        pipe_cce: None,
        pipe_pto: None,
        cce: None,
        pto: None,
        reads: Reads::Any,
        result_space: ResultSpace::Vec,
        result_buffer: ResultBuffer::Own,
        sync: None,
        today_tile: matches!(category, Category::Block),
        today: &[],
        high_precision: None,
        written: output_tensor_arg(params),
    }
}
const fn tensor(name: &'static str, params: &'static [Param], rule: Rule) -> OpDef {
    op(name, Category::Tensor, params, rule)
}
const fn block(name: &'static str, params: &'static [Param], rule: Rule) -> OpDef {
    op(name, Category::Block, params, rule)
}
const fn system(name: &'static str, params: &'static [Param], kwargs: &'static [KwSpec]) -> OpDef {
    op(name, Category::Sync, params, Rule::Sync).kwargs(kwargs)
}
impl OpDef {
    const fn result_space(self, result_space: ResultSpace) -> OpDef {
        OpDef { result_space, ..self }
    }
    const fn result_buffer(self, result_buffer: ResultBuffer) -> OpDef {
        OpDef { result_buffer, ..self }
    }
    const fn sync(self, sync: SyncOp) -> OpDef {
        OpDef { sync: Some(sync), ..self }
    }
    const fn today(self, today: &'static [Today]) -> OpDef {
        OpDef { today, ..self }
    }
    /// Today's PyPTO gives the op `high_precision=`; `why` ptoc refuses `True`
    /// ([`OpDef::high_precision`]).
    const fn high_precision(self, why: &'static str) -> OpDef {
        OpDef { high_precision: Some(why), ..self }
    }
    /// Today's `pl.tile.<name>` of this block op takes other arguments: it does not reach it.
    const fn not_today_tile(self) -> OpDef {
        OpDef { today_tile: false, ..self }
    }
    const fn printed(self, printed: &'static str) -> OpDef {
        OpDef { printed, ..self }
    }
    const fn aliases(self, aliases: &'static [&'static str]) -> OpDef {
        OpDef { aliases, ..self }
    }
    const fn unified(self, unified: &'static [&'static str]) -> OpDef {
        OpDef { unified, ..self }
    }
    const fn scalar_rhs(self, op: &'static str) -> OpDef {
        OpDef { scalar_rhs: Some(op), ..self }
    }
    const fn kwargs(self, kwargs: &'static [KwSpec]) -> OpDef {
        OpDef { kwargs, ..self }
    }
    const fn block_form(self, op: &'static str) -> OpDef {
        OpDef { block_form: Some(op), ..self }
    }
    /// The pipes on the CCE and the PTO backend (§3.3). An op on the CCE vector pipe reads its
    /// tiles from Vec (UB), the only memory the vector unit can address.
    const fn pipes(self, cce: Option<PipeType>, pto: Option<PipeType>) -> OpDef {
        let reads = if matches!(cce, Some(PipeType::V)) { Reads::Tiles(VEC) } else { self.reads };
        OpDef { pipe_cce: cce, pipe_pto: pto, reads, ..self }
    }
    /// The memory spaces of the tile operands ([`Reads`]); after [`OpDef::pipes`].
    const fn reads(self, reads: Reads) -> OpDef {
        OpDef { reads, ..self }
    }
    /// The CCE emitter (§4.7).
    const fn cce(self, emit: CceEmit) -> OpDef {
        OpDef { cce: Some(emit), ..self }
    }
    /// The PTO-ISA MLIR emitter (`pto-codegen.md` §10).
    const fn pto(self, emit: PtoEmit) -> OpDef {
        OpDef { pto: Some(emit), ..self }
    }
}
const fn dst(instr: &'static str, arity: usize, family: Family) -> CceEmit {
    CceEmit::Dst { instr, arity, family }
}
const fn ew(instr: &'static str, arity: usize, family: Family) -> CceEmit {
    CceEmit::Elementwise { instr, arity, family }
}
const fn dst_arg(instr: &'static str, arg: usize) -> CceEmit {
    CceEmit::DstArg { instr, arg }
}
/// A generic PTO instruction taking `arity` arguments (`pto-codegen.md` §9.1).
const fn pto(instr: &'static str, arity: usize) -> PtoEmit {
    PtoEmit::Generic { instr, arity }
}

// Shared parameter lists.
const INT32_FP32: ArgConv = ArgConv::Scalar { int: DataType::Int32, float: DataType::Fp32 };
const FP32_FP32: ArgConv = ArgConv::Scalar { int: DataType::Fp32, float: DataType::Fp32 };

const TENSOR_TENSOR: &[Param] = &[arg("lhs", Expect::Tensor), arg("rhs", Expect::Tensor)];
const TENSOR_SCALAR: &[Param] = &[arg("lhs", Expect::Tensor), arg_conv("rhs", Expect::Scalar, FP32_FP32)];
const TENSOR_INPUT: &[Param] = &[arg("input", Expect::Tensor)];
const TILE_TILE: &[Param] = &[arg("lhs", Expect::Tile), arg("rhs", Expect::Tile)];
const TILE_SCALAR: &[Param] = &[arg("lhs", Expect::Tile), arg_conv("rhs", Expect::Scalar, INT32_FP32)];
const TILE: &[Param] = &[arg("tile", Expect::Tile)];
const TILE_TILE_TILE: &[Param] = &[arg("lhs", Expect::Tile), arg("rhs", Expect::Tile), arg("rhs2", Expect::Tile)];
const TILE_SCALAR_TILE: &[Param] =
    &[arg("lhs", Expect::Tile), arg_conv("rhs", Expect::Scalar, INT32_FP32), arg("rhs2", Expect::Tile)];
const STORE: &[Param] = &[
    arg("tile", Expect::Tile),
    arg("offsets", Expect::List),
    arg("shapes", Expect::List),
    arg("output_tensor", Expect::Tensor),
];
const MATMUL: &[Param] = &[arg("lhs", Expect::Tile), arg("rhs", Expect::Tile)];
const MATMUL_ACC: &[Param] = &[arg("acc", Expect::Tile), arg("lhs", Expect::Tile), arg("rhs", Expect::Tile)];
const MATMUL_BIAS: &[Param] = &[arg("lhs", Expect::Tile), arg("rhs", Expect::Tile), arg("bias", Expect::Tile)];
const REDUCE: &[Param] = &[
    arg("tile", Expect::Tile),
    kw("axis"),
    kw("keepdim"),
    arg("tmp_tile", Expect::Tile).optional().about(
        "the scratch tile a reduction along rows works in (pto-isa's TROWSUM/TROWMAX/TROWMIN `tmp`): \
         a Vec tile of the input's shape and dtype, written by keyword. legalize-cce gives one to a row \
         reduction that has none; a column reduction does not use it",
    ),
];
const REDUCE_KW: &[KwSpec] = &[req("axis", KwKind::Int), opt("keepdim", KwKind::Bool).default(KwDefault::Bool(false))];
/// A scratch operand of an instruction that works in steps (pto-isa's `tmp` argument).
const SCRATCH: &str = "a scratch tile the instruction works in: a Vec tile of the first operand's shape and dtype; \
                       its contents afterwards are unspecified";

const MASK: &str = "a packed bit mask (`block.cmp_bits`): a UINT8 tile whose byte `w` of a row holds the \
                    comparisons of elements `8w` to `8w + 7`, bit `b` for element `8w + b`";
const SELECT_TMP: &str = "a scratch Vec tile of one 32-byte block of the result's dtype; its contents \
                          afterwards are unspecified";

/// The row reductions take a scratch tile because the NPU's TROWSUM/TROWMAX/TROWMIN reduce
/// in steps through it (pto-isa's signature `TROWMAX(dst, src, tmp)`).
const ROW_REDUCE: &[Param] = &[
    arg("tile", Expect::Tile),
    arg("tmp_tile", Expect::Tile).about(
        "a scratch tile for the instruction's partial results: a Vec tile of the input's shape and \
         dtype (e.g. `pl.block.create_tile([16, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)`); \
         its contents afterwards are unspecified, so do not read it",
    ),
];
/// Why `high_precision=True` is refused (the [`OpDef::high_precision`] column).
const HP_DIV: &str = "pto-isa's a2a3 TDIV and its CPU simulator have one division: they take \
                      DivAlgorithm::HIGH_PRECISION as a template argument and ignore it";
const HP_RECIP: &str = "pto-isa's a2a3 TRECIP (a TDIVS of 1) and its CPU simulator have one algorithm: they take \
                        RecipAlgorithm::HIGH_PRECISION as a template argument and ignore it";
const HP_RSQRT: &str = "ptoc emits block.rsqrt as TRSQRT(dst, src), not as pto-isa's high-precision form (a2a3 \
                        TRSQRT with a scratch tile: a square root, then a division)";
const HP_FMOD: &str = "pto-isa's a2a3 TFMOD and its CPU simulator have one algorithm: they take \
                       FmodAlgorithm::HIGH_PRECISION as a template argument and ignore it";
/// Why `block.sin`/`block.cos` have no C++ form.
const NO_TRIG: &str = "pto-isa has no sine or cosine instruction (no TSIN/TCOS in include/pto)";
/// Why `block.scatter` has no C++ form.
const NO_SCATTER: &str = "pto-isa's a2a3 TSCATTER zeroes the whole destination before it scatters (InitUBBuffer), \
                          its CPU simulator keeps the destination's other elements: the two agree only when the \
                          indexes write every element, which is not known before the kernel runs";
/// The operands of the partial-combine ops (`block.partadd` …).
const PART: &[Param] = &[
    arg("src0", Tile)
        .about("the first operand, whose valid region is the result's: a 2-D INT16, INT32, FP16 or FP32 tile"),
    arg("src1", Tile).about(
        "the second operand, of `src0`'s shape and dtype, valid over at most `src0`'s valid region: where \
         it is not valid the result is `src0`'s element",
    ),
];
/// The arg reductions take a scratch tile, as pto-isa's `TROWARGMAX(dst, src, tmp)` does.
const ARG_REDUCE: &[Param] = &[
    arg("tile", Expect::Tile),
    arg("tmp_tile", Expect::Tile).about(
        "a scratch tile for the instruction's partial results: a Vec tile of the input's shape and \
         dtype; its contents afterwards are unspecified, so do not read it",
    ),
];
const ROW_EXPAND: &[Param] = &[arg("tile", Expect::Tile), arg("row_vec", Expect::Tile)];
const COL_EXPAND: &[Param] = &[arg("tile", Expect::Tile), arg("col_vec", Expect::Tile)];
const CAST_KW: &[KwSpec] = &[req("target_type", KwKind::DType), opt("mode", KwKind::Mode).default(KwDefault::Int(2))];
const CMP_KW: &[KwSpec] = &[req("cmp_type", KwKind::Cmp).default(KwDefault::Int(0))];
const TENSOR_ROW_REDUCE: &[Param] = &[arg("input", Expect::Tensor), kw("axis"), kw("keep_dim")];
const TENSOR_ROW_REDUCE_KW: &[KwSpec] = &[opt("axis", KwKind::Int), opt("keep_dim", KwKind::Bool)];
/// The `valid_shape` argument of `block.load` and `block.create_tile`.
const VALID_SHAPE: &str = "the tile's valid shape (a partial tile): the extents, one per axis and at most the \
                           shape, of the part that ops compute on and stores write, written by keyword; a \
                           scalar variable gives a dynamic extent. Without it the whole tile is valid";
const SYNC: &[Param] = &[kw("set_pipe"), kw("wait_pipe"), kw("event_id")];
const SYNC_KW: &[KwSpec] =
    &[req("set_pipe", KwKind::Pipe), req("wait_pipe", KwKind::Pipe), req("event_id", KwKind::Int)];

const fn bcast(shaped: Shaped) -> Rule {
    Rule::Broadcast { shaped, int_only: false, dtype: DtypeRule::Promote }
}
const fn keep(shaped: Shaped) -> Rule {
    Rule::KeepShape { shaped, int_only: false, dtype: DtypeRule::Promote }
}
const TILE_BCAST: Rule = bcast(Shaped::Tile);
const TILE_BCAST_INT: Rule = Rule::Broadcast { shaped: Shaped::Tile, int_only: true, dtype: DtypeRule::Promote };
const TILE_SHIFT: Rule = Rule::Broadcast { shaped: Shaped::Tile, int_only: true, dtype: DtypeRule::Lhs };
const TILE_KEEP: Rule = keep(Shaped::Tile);
const TILE_KEEP_INT: Rule = Rule::KeepShape { shaped: Shaped::Tile, int_only: true, dtype: DtypeRule::Lhs };
const SAME: Rule = Rule::SameTile { min_rank: 0 };

/// The registered operators (`ops::tests` counts them).
pub static OPS: &[OpDef] = &[
    // ---- §4.1 tensor.* (21)
    tensor(names::TENSOR_CREATE, &[arg("shape", IntTuple), kw("dtype")], Rule::TensorCreate)
        .kwargs(&[req("dtype", KwKind::DType)])
        .aliases(&["create_tensor"])
        .unified(&["create_tensor"]),
    tensor(names::TENSOR_READ, &[arg("tensor", Tensor), arg("indices", IntTuple)], Rule::TensorRead)
        .pipes(Some(PipeType::S), None)
        .cce(CceEmit::TensorRead),
    tensor(names::TENSOR_DIM, &[arg("tensor", Tensor), arg("axis", ConstInt)], Rule::TensorDim)
        .pipes(Some(PipeType::S), Some(PipeType::S))
        .unified(&["dim"])
        .cce(CceEmit::TensorDim),
    tensor(
        names::TENSOR_VIEW,
        &[arg("tensor", Tensor), arg("shape", IntTuple), arg("offset", IntTuple)],
        Rule::View(Shaped::Tensor),
    ),
    tensor(
        names::TENSOR_ASSEMBLE,
        &[arg("target", Tensor), arg("source", Tensor), arg("offset", IntTuple)],
        Rule::TensorAssemble,
    )
    .unified(&["assemble"]),
    tensor(names::TENSOR_RESHAPE, &[arg("tensor", Tensor), arg("shape", IntTuple)], Rule::Reshape(Shaped::Tensor))
        .block_form(names::RESHAPE),
    tensor(
        names::TENSOR_TRANSPOSE,
        &[arg("tensor", Tensor), arg("axis1", ConstInt), arg("axis2", ConstInt)],
        Rule::Transpose(Shaped::Tensor),
    )
    .block_form(names::TRANSPOSE),
    tensor("tensor.add", TENSOR_TENSOR, bcast(Shaped::Tensor))
        .scalar_rhs(names::TENSOR_ADD_SCALAR)
        .block_form(names::ADD),
    tensor("tensor.sub", TENSOR_TENSOR, bcast(Shaped::Tensor))
        .scalar_rhs(names::TENSOR_SUB_SCALAR)
        .block_form(names::SUB),
    tensor("tensor.mul", TENSOR_TENSOR, bcast(Shaped::Tensor))
        .scalar_rhs(names::TENSOR_MUL_SCALAR)
        .block_form(names::MUL),
    tensor("tensor.div", TENSOR_TENSOR, bcast(Shaped::Tensor))
        .scalar_rhs(names::TENSOR_DIV_SCALAR)
        .high_precision(HP_DIV)
        .block_form(names::DIV),
    tensor("tensor.maximum", TENSOR_TENSOR, bcast(Shaped::Tensor)).block_form(names::MAXIMUM),
    tensor(names::TENSOR_ADD_SCALAR, TENSOR_SCALAR, keep(Shaped::Tensor))
        .printed("tensor.add")
        .unified(&["add_scalar"])
        .block_form(names::ADDS),
    tensor(names::TENSOR_SUB_SCALAR, TENSOR_SCALAR, keep(Shaped::Tensor))
        .printed("tensor.sub")
        .unified(&["sub_scalar"])
        .today(&[today("tensor.subs")])
        .block_form(names::SUBS),
    tensor(names::TENSOR_MUL_SCALAR, TENSOR_SCALAR, keep(Shaped::Tensor))
        .printed("tensor.mul")
        .unified(&["mul_scalar"])
        .block_form(names::MULS),
    tensor(names::TENSOR_DIV_SCALAR, TENSOR_SCALAR, keep(Shaped::Tensor))
        .printed("tensor.div")
        .high_precision(HP_DIV)
        .unified(&["div_scalar"])
        .block_form(names::DIVS),
    tensor(names::TENSOR_EXP, TENSOR_INPUT, Rule::TensorExp).block_form(names::EXP),
    tensor(names::TENSOR_CAST, &[arg("input", Tensor), kw("target_type"), kw("mode")], Rule::Cast(Shaped::Tensor))
        .kwargs(CAST_KW)
        .block_form(names::CAST),
    tensor(
        names::TENSOR_MATMUL,
        &[arg("lhs", Tensor), arg("rhs", Tensor), kw("out_dtype"), kw("a_trans"), kw("b_trans"), kw("c_matrix_nz")],
        Rule::TensorMatmul,
    )
    .kwargs(&[
        opt("a_trans", KwKind::Bool).default(KwDefault::Bool(false)),
        opt("b_trans", KwKind::Bool).default(KwDefault::Bool(false)),
        opt("c_matrix_nz", KwKind::Bool).default(KwDefault::Bool(false)),
        opt("out_dtype", KwKind::DType),
    ]),
    tensor(names::TENSOR_ROW_MAX, TENSOR_ROW_REDUCE, Rule::TensorRowReduce).kwargs(TENSOR_ROW_REDUCE_KW),
    tensor(names::TENSOR_ROW_SUM, TENSOR_ROW_REDUCE, Rule::TensorRowReduce).kwargs(TENSOR_ROW_REDUCE_KW),
    // ---- §4.2 block.* (80): memory / creation
    block(names::GET_BLOCK_IDX, &[], Rule::GetBlockIdx)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::BlockIdx),
    block(
        names::CREATE_TILE,
        &[arg("shape", List), kw("dtype"), kw("target_memory"), arg("valid_shape", List).optional().about(VALID_SHAPE)],
        Rule::CreateTile,
    )
    .pipes(Some(PipeType::Mte2), None)
    .result_space(ResultSpace::TargetMemory)
    .kwargs(&[
        req("dtype", KwKind::DType),
        opt("target_memory", KwKind::Space(&[])).default(KwDefault::Space(MemorySpace::Vec)),
    ])
    .unified(&["create_tile"])
    .today(&[today("tile.create")])
    .cce(CceEmit::Nothing),
    block(names::FULL, &[arg("shape", List), kw("dtype"), arg_conv("value", Const, ArgConv::Fill)], Rule::Full)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .kwargs(&[req("dtype", KwKind::DType)])
        .cce(dst_arg("TEXPANDS", 1))
        .pto(PtoEmit::Full),
    block(
        names::LOAD,
        &[
            arg("tensor", Tensor),
            arg("offsets", List),
            arg("shapes", List),
            kw("target_memory"),
            arg("valid_shape", List).optional().about(VALID_SHAPE),
        ],
        Rule::Load,
    )
    .pipes(Some(PipeType::Mte2), Some(PipeType::Mte2))
    .result_space(ResultSpace::TargetMemory)
    .kwargs(&[req("target_memory", KwKind::Space(&[MemorySpace::Vec, MemorySpace::Mat]))
        .default(KwDefault::Space(MemorySpace::Vec))])
    .unified(&["load"])
    .cce(CceEmit::Load)
    .pto(PtoEmit::Load),
    // `TSTORE` on MTE3 (the pipe the passes sync on) stores from UB.
    block(names::STORE, STORE, Rule::Store)
        .pipes(Some(PipeType::Mte3), Some(PipeType::Mte2))
        .unified(&["store"])
        .not_today_tile()
        .today(&[today_form("store", TodayForm::Store), today_form("tile.store", TodayForm::Store)])
        .result_space(ResultSpace::Ddr)
        .result_buffer(ResultBuffer::Destination(3))
        .reads(Reads::Args(&[VEC]))
        .cce(CceEmit::Store)
        .pto(PtoEmit::Store),
    // The fixpipe: the only way out of L0C (npu/a2a3/TStore.hpp "Source TileType only support Acc").
    block(names::L0C_STORE, STORE, Rule::Store)
        .pipes(Some(PipeType::Fix), Some(PipeType::Mte3))
        .unified(&["l0c_store"])
        .not_today_tile()
        .reads(Reads::Args(&[ACC]))
        .cce(CceEmit::Store)
        .pto(PtoEmit::Store),
    block(names::MOVE, &[arg("tile", Tile), kw("target_memory"), kw("transpose")], Rule::Move)
        .pipes(Some(PipeType::Mte1), Some(PipeType::Mte1))
        .result_space(ResultSpace::TargetMemory)
        .reads(Reads::MoveSource)
        .kwargs(&[
            req("target_memory", KwKind::Space(&[])),
            opt("transpose", KwKind::Bool).default(KwDefault::Bool(false)),
        ])
        .unified(&["move"])
        .cce(CceEmit::Move)
        .pto(pto("pto.tmov", 1)),
    block(names::VEC_MOVE, TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .not_today_tile()
        .cce(CceEmit::VecMove)
        .pto(pto("pto.tmov", 1)),
    block(
        names::ALLOC,
        &[
            arg_conv("memory_space", ConstInt, ArgConv::Space),
            arg("addr", Any),
            arg("size", ConstInt),
            arg("id", ConstInt),
        ],
        Rule::Alloc,
    )
    .pipes(Some(PipeType::Mte2), Some(PipeType::Mte2))
    .not_today_tile()
    .cce(CceEmit::Nothing)
    .pto(PtoEmit::Nothing),
    // Registered after be8155433 (today's `pl.tile.ci(start, shape, dtype=…, descending=…)`, also
    // `pl.tile.arange`): pto-isa's TCI<Dst, T, descending>(dst, start), start + j (or start - j)
    // in column j of a one-row tile. The a2a3 form writes it with scalar stores; the sync
    // passes, which order tile writers on the device pipes, order it on the vector pipe.
    block(
        names::CI,
        &[
            arg_conv("start", Scalar, ArgConv::Fill)
                .about("the first element: a scalar of the result's dtype (a literal takes it)"),
            arg("shape", List).about("the static shape `[1, N]` (or `[N]`), N > 1: pto-isa's TCI writes one row"),
            kw("dtype"),
            kw("descending"),
        ],
        Rule::Ci,
    )
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .kwargs(&[
        opt("dtype", KwKind::DType).default(KwDefault::DType(DataType::Int32)),
        opt("descending", KwKind::Bool).default(KwDefault::Bool(false)),
    ])
    .aliases(&["arange"])
    .cce(CceEmit::Ci),
    // Registered after be8155433 (today's `pl.tile.tri(diagonal, shape, valid_shape, dtype=…,
    // upper=…)`): pto-isa's TTRI<Dst, upper>(dst, diagonal), 1 where column j <= row i +
    // diagonal (upper: j >= i + diagonal), else 0, over the destination's valid region.
    block(
        names::TRI,
        &[
            arg_conv("diagonal", Scalar, INT32_FP32)
                .about("the boundary's offset from the main diagonal, in columns: an integer scalar"),
            arg("shape", List).about("the static 2-D shape of the result"),
            arg("valid_shape", List)
                .optional()
                .about("the region written (each extent a constant at most the shape's): the result's valid shape"),
            kw("dtype"),
            kw("upper"),
        ],
        Rule::Tri,
    )
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .kwargs(&[
        opt("dtype", KwKind::DType).default(KwDefault::DType(DataType::Int32)),
        opt("upper", KwKind::Bool).default(KwDefault::Bool(false)),
    ])
    .cce(CceEmit::Tri),
    block(names::FILLPAD, &[arg("tile", Tile), kw("pad_value")], SAME)
        .kwargs(&[opt("pad_value", KwKind::Pad)])
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::FillPad { instr: "TFILLPAD" })
        .pto(pto("pto.tfillpad", 1)),
    // Registered after be8155433 (today's `pl.tile.fillpad_inplace(tile, pad_value=…)`): pto-isa's
    // TFILLPAD_INPLACE(dst, src) pads the source's own buffer, which the result is. It writes
    // only outside the source's valid region, which no reader of the source sees.
    block(names::FILLPAD_INPLACE, &[arg("tile", Tile), kw("pad_value")], SAME)
        .kwargs(&[opt("pad_value", KwKind::Pad)])
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .result_buffer(ResultBuffer::ViewOf(0))
        .cce(CceEmit::FillPad { instr: "TFILLPAD_INPLACE" }),
    // Registered after be8155433 (today's `pl.tile.fillpad_expand(tile, shape, pad_value=…)`):
    // pto-isa's TFILLPAD_EXPAND(dst, src) copies the source's valid region into the top-left
    // corner of a destination at least as large and writes the pad value everywhere else.
    block(
        names::FILLPAD_EXPAND,
        &[
            arg("tile", Tile),
            arg("shape", List).about("the static 2-D shape of the result, each extent at least the tile's"),
            kw("pad_value"),
        ],
        Rule::FillPadExpand,
    )
    .kwargs(&[opt("pad_value", KwKind::Pad)])
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .cce(CceEmit::FillPad { instr: "TFILLPAD_EXPAND" }),
    // element-wise tile ⊕ tile
    block(names::ADD, TILE_TILE, TILE_BCAST)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .scalar_rhs(names::ADDS)
        .cce(ew("TADD", 2, Family::Binary))
        .pto(pto("pto.tadd", 2)),
    block(names::SUB, TILE_TILE, TILE_BCAST)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .scalar_rhs(names::SUBS)
        .cce(ew("TSUB", 2, Family::Binary))
        .pto(pto("pto.tsub", 2)),
    block(names::MUL, TILE_TILE, TILE_BCAST)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .scalar_rhs(names::MULS)
        .cce(ew("TMUL", 2, Family::Binary))
        .pto(pto("pto.tmul", 2)),
    block(names::DIV, TILE_TILE, TILE_BCAST)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .high_precision(HP_DIV)
        .scalar_rhs(names::DIVS)
        .cce(ew("TDIV", 2, Family::Binary))
        .pto(pto("pto.tdiv", 2)),
    block(names::MAXIMUM, TILE_TILE, TILE_BCAST)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(ew("TMAX", 2, Family::Binary))
        .pto(pto("pto.tmax", 2)),
    block(names::MINIMUM, TILE_TILE, TILE_BCAST)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["minimum"])
        .cce(ew("TMIN", 2, Family::Binary))
        .pto(pto("pto.tmin", 2)),
    block("block.rem", TILE_TILE, TILE_BCAST).pipes(None, Some(PipeType::V)).pto(pto("pto.trem", 2)),
    block("block.and", TILE_TILE, TILE_BCAST_INT)
        .pipes(None, Some(PipeType::V))
        .aliases(&["and_"])
        .pto(pto("pto.tand", 2)),
    block("block.or", TILE_TILE, TILE_BCAST_INT)
        .pipes(None, Some(PipeType::V))
        .aliases(&["or_"])
        .pto(pto("pto.tor", 2)),
    block("block.shl", TILE_TILE, TILE_SHIFT).pipes(None, Some(PipeType::V)).pto(pto("pto.tshl", 2)),
    block("block.shr", TILE_TILE, TILE_SHIFT).pipes(None, Some(PipeType::V)).pto(pto("pto.tshr", 2)),
    // tile ⊕ scalar
    block(names::ADDS, TILE_SCALAR, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["adds"])
        .cce(ew("TADDS", 2, Family::BinaryScalar))
        .pto(pto("pto.tadds", 2)),
    block(names::SUBS, TILE_SCALAR, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["subs"])
        .cce(ew("TSUBS", 2, Family::BinaryScalar))
        .pto(pto("pto.tsubs", 2)),
    block(names::MULS, TILE_SCALAR, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["muls"])
        .cce(ew("TMULS", 2, Family::BinaryScalar))
        .pto(pto("pto.tmuls", 2)),
    block(names::DIVS, TILE_SCALAR, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["divs"])
        .cce(ew("TDIVS", 2, Family::BinaryScalar))
        .pto(pto("pto.tdivs", 2)),
    block("block.rems", TILE_SCALAR, TILE_KEEP).pipes(None, Some(PipeType::V)).pto(pto("pto.trems", 2)),
    block("block.maxs", TILE_SCALAR, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .today(&[today("tile.maximums")])
        .cce(ew("TMAXS", 2, Family::BinaryScalar))
        .pto(pto("pto.tmaxs", 2)),
    block("block.mins", TILE_SCALAR, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .today(&[today("tile.minimums")])
        .cce(ew("TMINS", 2, Family::BinaryScalar))
        .pto(pto("pto.tmins", 2)),
    block(names::LRELU, &[arg("tile", Tile), arg_conv("slope", Scalar, FP32_FP32)], TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(ew("TLRELU", 2, Family::BinaryScalar))
        .pto(pto("pto.tlrelu", 2)),
    block("block.shls", TILE_SCALAR, TILE_KEEP_INT).pipes(None, Some(PipeType::V)).pto(pto("pto.tshls", 2)),
    block("block.shrs", TILE_SCALAR, TILE_KEEP_INT).pipes(None, Some(PipeType::V)).pto(pto("pto.tshrs", 2)),
    block("block.ands", TILE_SCALAR, TILE_KEEP_INT).pipes(None, Some(PipeType::V)).pto(pto("pto.tands", 2)),
    block("block.ors", TILE_SCALAR, TILE_KEEP_INT).pipes(None, Some(PipeType::V)).pto(pto("pto.tors", 2)),
    // three-operand element-wise
    block("block.xor", &[arg("lhs", Tile), arg("rhs", Tile), arg("tmp", Tile).about(SCRATCH)], TILE_BCAST_INT)
        .pipes(None, Some(PipeType::V))
        .pto(pto("pto.txor", 2)),
    block(
        "block.xors",
        &[arg("lhs", Tile), arg_conv("rhs", Scalar, INT32_FP32), arg("tmp", Tile).about(SCRATCH)],
        TILE_KEEP_INT,
    )
    .pipes(None, Some(PipeType::V))
    .pto(pto("pto.txors", 2)),
    block(names::PRELU, &[arg("tile", Tile), arg("slope", Tile), arg("tmp", Tile).about(SCRATCH)], TILE_BCAST)
        .pipes(None, Some(PipeType::V))
        .pto(pto("pto.tprelu", 2)),
    block(names::ADDC, TILE_TILE_TILE, Rule::AddC)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(ew("TADDC", 3, Family::Ternary))
        .pto(pto("pto.taddc", 3)),
    block(names::SUBC, TILE_TILE_TILE, Rule::AddC)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(ew("TSUBC", 3, Family::Ternary))
        .pto(pto("pto.tsubc", 3)),
    block(names::ADDSC, TILE_SCALAR_TILE, Rule::AddSC)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(ew("TADDSC", 3, Family::BinaryScalar))
        .pto(pto("pto.taddsc", 3)),
    block(names::SUBSC, TILE_SCALAR_TILE, Rule::AddSC)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(ew("TSUBSC", 3, Family::BinaryScalar))
        .pto(pto("pto.tsubsc", 3)),
    block(names::SEL, &[arg("mask", Tile), arg("lhs", Tile), arg("rhs", Tile)], Rule::Select)
        .pipes(None, Some(PipeType::V))
        .not_today_tile()
        .pto(pto("pto.tsel", 3)),
    block(names::SELS, &[arg("lhs", Tile), arg("rhs", Tile), arg_conv("select_mode", Scalar, INT32_FP32)], TILE_BCAST),
    block(names::CMP, &[arg("lhs", Tile), arg("rhs", Tile), kw("cmp_type")], TILE_BCAST)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .kwargs(CMP_KW)
        .unified(&["cmp"])
        .cce(CceEmit::Cmp { instr: "TCMP" })
        .pto(PtoEmit::Cmp { instr: "pto.tcmp" }),
    block(names::CMPS, &[arg("lhs", Tile), arg_conv("rhs", Scalar, INT32_FP32), kw("cmp_type")], TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .kwargs(CMP_KW)
        .unified(&["cmps"])
        .cce(CceEmit::Cmp { instr: "TCMPS" })
        .pto(PtoEmit::Cmp { instr: "pto.tcmps" }),
    // pto-isa's comparison and select as they are: legalize-cce writes `block.cmp`/`cmps` with
    // them (a packed bit mask, then a select by it), so that the passes see every instruction.
    block(names::CMP_BITS, &[arg("lhs", Tile), arg("rhs", Tile), kw("cmp_type")], Rule::CmpBits)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .kwargs(CMP_KW)
        .not_today_tile()
        .cce(CceEmit::CmpBits { instr: "TCMP" }),
    block(names::CMPS_BITS, &[arg("lhs", Tile), arg_conv("rhs", Scalar, INT32_FP32), kw("cmp_type")], Rule::CmpBits)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .kwargs(CMP_KW)
        .not_today_tile()
        .cce(CceEmit::CmpBits { instr: "TCMPS" }),
    block(
        names::SELECT_BITS,
        &[
            arg("mask", Tile).about(MASK),
            arg("src", Tile),
            arg("tmp", Tile).about(SELECT_TMP),
            arg_conv("scalar", Scalar, INT32_FP32),
        ],
        Rule::SelectBits,
    )
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .not_today_tile()
    .cce(CceEmit::SelectBits),
    // unary
    block("block.neg", TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["neg"])
        .cce(ew("TNEG", 1, Family::Unary))
        .pto(pto("pto.tneg", 1)),
    block(names::EXP, TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(ew("TEXP", 1, Family::Unary))
        .pto(pto("pto.texp", 1)),
    // Registered after be8155433 (today's `pl.tile.sin/cos`): pto-isa has no sine or cosine
    // instruction, so the C++ form rule refuses them at the call; the interpreter runs them.
    // They are vector work on both backends (the pipe the sync passes order them on).
    block(names::SIN, TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["sin"])
        .cce(CceEmit::Unsupported { why: NO_TRIG }),
    block(names::COS, TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["cos"])
        .cce(CceEmit::Unsupported { why: NO_TRIG }),
    block("block.recip", TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .high_precision(HP_RECIP)
        .unified(&["recip"])
        .cce(ew("TRECIP", 1, Family::Unary))
        .pto(pto("pto.trecip", 1)),
    block("block.sqrt", TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["sqrt"])
        .cce(ew("TSQRT", 1, Family::Unary))
        .pto(pto("pto.tsqrt", 1)),
    block("block.rsqrt", TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .high_precision(HP_RSQRT)
        .unified(&["rsqrt"])
        .cce(ew("TRSQRT", 1, Family::Unary))
        .pto(pto("pto.trsqrt", 1)),
    block("block.log", TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["log"])
        .cce(ew("TLOG", 1, Family::Unary))
        .pto(pto("pto.tlog", 1)),
    block("block.abs", TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["abs"])
        .cce(ew("TABS", 1, Family::Unary))
        .pto(pto("pto.tabs", 1)),
    block("block.relu", TILE, SAME)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["relu"])
        .cce(ew("TRELU", 1, Family::Unary))
        .pto(pto("pto.trelu", 1)),
    block("block.not", TILE, Rule::NotTile)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .aliases(&["not_"])
        .cce(ew("TNOT", 1, Family::Unary))
        .pto(pto("pto.tnot", 1)),
    block(names::CAST, &[arg("tile", Tile), kw("target_type"), kw("mode")], Rule::Cast(Shaped::Tile))
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .kwargs(CAST_KW)
        .cce(CceEmit::Cast)
        .pto(PtoEmit::Cast),
    // matrix
    block(names::MATMUL, MATMUL, Rule::Matmul)
        .pipes(Some(PipeType::M), Some(PipeType::M))
        .reads(MATMUL_READS)
        .result_space(ResultSpace::Acc)
        .cce(dst("TMATMUL", 2, Family::Binary))
        .pto(pto("pto.tmatmul", 2)),
    block(names::GEMV, MATMUL, Rule::Matmul)
        .pipes(None, Some(PipeType::M))
        .unified(&["gemv"])
        .reads(MATMUL_READS)
        .pto(pto("pto.tgemv", 2)),
    block(names::MATMUL_ACC, MATMUL_ACC, Rule::MatmulAcc)
        .pipes(Some(PipeType::M), Some(PipeType::M))
        .unified(&["matmul_acc"])
        .result_space(ResultSpace::Acc)
        .reads(MATMUL_ACC_READS)
        .cce(dst("TMATMUL_ACC", 3, Family::Ternary))
        .pto(pto("pto.tmatmul.acc", 3)),
    block(names::GEMV_ACC, MATMUL_ACC, Rule::MatmulAcc)
        .pipes(None, Some(PipeType::M))
        .unified(&["gemv_acc"])
        .reads(MATMUL_ACC_READS)
        .pto(pto("pto.tgemv.acc", 3)),
    block(names::MATMUL_BIAS, MATMUL_BIAS, Rule::MatmulBias)
        .pipes(None, Some(PipeType::M))
        .unified(&["matmul_bias"])
        .reads(MATMUL_BIAS_READS)
        .pto(pto("pto.tmatmul.bias", 3)),
    block(names::GEMV_BIAS, MATMUL_BIAS, Rule::MatmulBias)
        .pipes(None, Some(PipeType::M))
        .unified(&["gemv_bias"])
        .reads(MATMUL_BIAS_READS)
        .pto(pto("pto.tgemv.bias", 3)),
    block(names::BATCH_MATMUL, MATMUL, Rule::BatchMatmul),
    // reduction / broadcast / layout
    block(names::SUM, REDUCE, Rule::Reduce)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .kwargs(REDUCE_KW)
        .today(&[today_form("tile.col_sum", TodayForm::ColumnReduce)])
        .unified(&["sum"])
        .cce(CceEmit::Reduce { col: "TCOLSUM", row: "TROWSUM" }),
    block(names::MAX, REDUCE, Rule::Reduce)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .kwargs(REDUCE_KW)
        .today(&[today_form("tile.col_max", TodayForm::ColumnReduce)])
        .cce(CceEmit::Reduce { col: "TCOLMAX", row: "TROWMAX" }),
    block(names::MIN, REDUCE, Rule::Reduce)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .kwargs(REDUCE_KW)
        .today(&[today_form("tile.col_min", TodayForm::ColumnReduce)])
        .cce(CceEmit::Reduce { col: "TCOLMIN", row: "TROWMIN" }),
    block(names::ROW_SUM, ROW_REDUCE, Rule::RowReduce)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::RowReduce { instr: "TROWSUM" })
        .pto(pto("pto.trowsum", 2)),
    block(names::ROW_MAX, ROW_REDUCE, Rule::RowReduce)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::RowReduce { instr: "TROWMAX" })
        .pto(pto("pto.trowmax", 2)),
    block(names::ROW_MIN, ROW_REDUCE, Rule::RowReduce)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["row_min"])
        .cce(CceEmit::RowReduce { instr: "TROWMIN" })
        .pto(pto("pto.trowmin", 2)),
    // Registered after be8155433 (today's `pl.tile.row_prod/col_prod/row_argmax/…`); pto-isa
    // has TROWPROD, TCOLPROD, TROWARGMAX/TROWARGMIN and TCOLARGMAX/TCOLARGMIN.
    block(names::ROW_PROD, ROW_REDUCE, Rule::RowReduce)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::RowReduce { instr: "TROWPROD" })
        .pto(pto("pto.trowprod", 2)),
    block(names::COL_PROD, TILE, Rule::ColReduce)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::ColReduce { instr: "TCOLPROD", tmp: false })
        .pto(pto("pto.tcolprod", 1)),
    block(names::ROW_ARGMAX, ARG_REDUCE, Rule::ArgReduce { row: true })
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::RowReduce { instr: "TROWARGMAX" })
        .pto(pto("pto.trowargmax", 2)),
    block(names::ROW_ARGMIN, ARG_REDUCE, Rule::ArgReduce { row: true })
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::RowReduce { instr: "TROWARGMIN" })
        .pto(pto("pto.trowargmin", 2)),
    block(names::COL_ARGMAX, ARG_REDUCE, Rule::ArgReduce { row: false })
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::ColReduce { instr: "TCOLARGMAX", tmp: true })
        .pto(pto("pto.tcolargmax", 2)),
    block(names::COL_ARGMIN, ARG_REDUCE, Rule::ArgReduce { row: false })
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::ColReduce { instr: "TCOLARGMIN", tmp: true })
        .pto(pto("pto.tcolargmin", 2)),
    block(names::ROW_EXPAND, &[arg("src", Tile)], Rule::SameTile { min_rank: 2 })
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["row_expand"])
        .not_today_tile()
        .cce(dst_arg("TROWEXPAND", 0))
        .pto(pto("pto.trowexpand", 1)),
    block(names::ROW_EXPAND_ADD, ROW_EXPAND, Rule::RowExpandBinary)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["row_expand_add"])
        .cce(CceEmit::RowExpand { instr: "TROWEXPANDADD", arity: 2 }),
    block(names::ROW_EXPAND_SUB, ROW_EXPAND, Rule::RowExpandBinary)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["row_expand_sub"])
        .cce(CceEmit::RowExpand { instr: "TROWEXPANDSUB", arity: 2 })
        .pto(pto("pto.trowexpandsub", 2)),
    block(names::ROW_EXPAND_MUL, ROW_EXPAND, Rule::RowExpandBinary)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["row_expand_mul"])
        .cce(CceEmit::RowExpand { instr: "TROWEXPANDMUL", arity: 2 })
        .pto(pto("pto.trowexpandmul", 2)),
    block(names::ROW_EXPAND_DIV, ROW_EXPAND, Rule::RowExpandBinary)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["row_expand_div"])
        .cce(CceEmit::RowExpand { instr: "TROWEXPANDDIV", arity: 2 })
        .pto(pto("pto.trowexpanddiv", 2)),
    // Registered after be8155433 (today's `pl.tile.row_expand_max/min`); pto-isa has them.
    block(names::ROW_EXPAND_MAX, ROW_EXPAND, Rule::RowExpandBinary)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["row_expand_max"])
        .cce(CceEmit::RowExpand { instr: "TROWEXPANDMAX", arity: 2 }),
    block(names::ROW_EXPAND_MIN, ROW_EXPAND, Rule::RowExpandBinary)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["row_expand_min"])
        .cce(CceEmit::RowExpand { instr: "TROWEXPANDMIN", arity: 2 }),
    block(names::COL_EXPAND, &[arg("target", Tile), arg("col_vec", Tile)], TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["col_expand"])
        .cce(dst_arg("TCOLEXPAND", 1))
        .pto(pto("pto.tcolexpand", 2)),
    block(names::COL_EXPAND_MUL, COL_EXPAND, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["col_expand_mul"])
        .cce(CceEmit::ColExpand { instr: "TCOLEXPANDMUL", arity: 2 }),
    block(names::COL_EXPAND_DIV, COL_EXPAND, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["col_expand_div"])
        .cce(CceEmit::ColExpand { instr: "TCOLEXPANDDIV", arity: 2 }),
    block(names::COL_EXPAND_SUB, COL_EXPAND, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["col_expand_sub"])
        .cce(CceEmit::ColExpand { instr: "TCOLEXPANDSUB", arity: 2 }),
    // Registered after be8155433 (today's `pl.tile.col_expand_add/max/min`); pto-isa has them.
    block(names::COL_EXPAND_ADD, COL_EXPAND, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["col_expand_add"])
        .cce(CceEmit::ColExpand { instr: "TCOLEXPANDADD", arity: 2 }),
    block(names::COL_EXPAND_MAX, COL_EXPAND, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["col_expand_max"])
        .cce(CceEmit::ColExpand { instr: "TCOLEXPANDMAX", arity: 2 }),
    block(names::COL_EXPAND_MIN, COL_EXPAND, TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["col_expand_min"])
        .cce(CceEmit::ColExpand { instr: "TCOLEXPANDMIN", arity: 2 }),
    // Registered after be8155433 (today's `pl.tile.row_expand_expdif(tile, row_vec)` and
    // `col_expand_expdif(tile, col_vec)`, softmax's exp(x - max)): pto-isa's TROWEXPANDEXPDIF and
    // TCOLEXPANDEXPDIF(dst, src0, src1), exp(src0 - the broadcast vector), FP16 or FP32.
    block(names::ROW_EXPAND_EXPDIF, ROW_EXPAND, Rule::ExpandExpdif { row: true })
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["row_expand_expdif"])
        .cce(CceEmit::RowExpand { instr: "TROWEXPANDEXPDIF", arity: 2 }),
    block(names::COL_EXPAND_EXPDIF, COL_EXPAND, Rule::ExpandExpdif { row: false })
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["col_expand_expdif"])
        .cce(CceEmit::ColExpand { instr: "TCOLEXPANDEXPDIF", arity: 2 }),
    block(names::EXPANDS, &[arg("target", Tile), arg_conv("scalar", Scalar, FP32_FP32)], TILE_KEEP)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["expands"])
        .cce(dst_arg("TEXPANDS", 1)),
    block(
        names::VIEW,
        &[arg("tile", Tile), arg("shape", IndexTuple), arg("offset", IndexTuple)],
        Rule::View(Shaped::Tile),
    )
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .not_today_tile()
    .reads(Reads::Any)
    .cce(CceEmit::Extract),
    // Registered after be8155433 (today's `pl.tile.concat`): pto-isa's TCONCAT(dst, src0, src1)
    // writes src0's columns, then src1's.
    block(names::CONCAT, &[arg("src0", Tile), arg("src1", Tile)], Rule::Concat)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(dst("TCONCAT", 2, Family::Binary))
        .pto(pto("pto.tconcat", 2)),
    // Registered after be8155433 (today's `pl.tile.gather(src, indices, tmp)`, the index form):
    // pto-isa's TGATHER(dst, src0, indices, tmp) writes dst[i, j] = src0's element at the flat
    // row-major position indices[i, j]; the a2a3 form turns the indices into byte offsets in tmp.
    block(
        names::GATHER,
        &[
            arg("src", Tile),
            arg("indices", Tile).about(
                "INT32 flat row-major positions in `src` (`r * C + c` for a source of C columns), \
                 each in range; the result has the indices' shape",
            ),
            arg("tmp", Tile).about(
                "a scratch INT32 Vec tile of the indices' shape, where the instruction turns positions \
                 into byte offsets; its contents afterwards are unspecified",
            ),
        ],
        Rule::Gather,
    )
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .cce(dst("TGATHER", 3, Family::Ternary))
    .pto(pto("pto.tgather", 2)),
    // Registered after be8155433 (today's `pl.tile.gather_mask(src, mask_pattern)`, the mask
    // form of gather): pto-isa's TGATHER<Dst, Src, MaskPattern>(dst, src) keeps the columns the
    // pattern selects, packed, read as the destination's dtype of the same width.
    block(names::GATHER_MASK, &[arg("src", Tile), kw("mask_pattern"), kw("output_dtype")], Rule::GatherMask)
        .kwargs(&[req("mask_pattern", KwKind::Int), opt("output_dtype", KwKind::DType)])
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(CceEmit::GatherMask),
    // Registered after be8155433 (today's `pl.tile.gatherb(src, offset, output_dtype=…)`):
    // pto-isa's TGATHERB(dst, src, offset) copies, for each UINT32 byte offset, the 32-byte
    // block of the source there into the next 32 bytes of the destination's row.
    block(
        names::GATHERB,
        &[
            arg("src", Tile).about("the 2-D 8-, 16- or 32-bit source the blocks are read from"),
            arg("offset", Tile).about(
                "a 2-D UINT32 tile of byte offsets into `src` (multiples of 32, each block inside `src`): \
                 column k of a row gives the result's elements 32 / size · k onward",
            ),
            kw("output_dtype"),
        ],
        Rule::GatherB,
    )
    .kwargs(&[opt("output_dtype", KwKind::DType)])
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .cce(dst("TGATHERB", 2, Family::Binary))
    .pto(pto("pto.tgatherb", 2)),
    // Registered after be8155433 (today's `pl.tile.scatter(dst, src, indexes)`, the index
    // form): dst with dst.flat[indexes[i, j]] = src[i, j]. The C++ form rule refuses it
    // (NO_SCATTER); the interpreter runs it.
    block(
        names::SCATTER,
        &[
            arg("dst", Tile).about("the destination: the result is this tile with the scattered elements replaced"),
            arg("src", Tile).about("the elements to scatter: a 2-D tile of `dst`'s dtype"),
            arg("indexes", Tile).about(
                "flat row-major positions in `dst` (`r * C + c` for C columns), one per element of `src` and of \
                 its shape: INT32 for a 32-bit dtype, INT16 for 8- and 16-bit ones; each in range",
            ),
        ],
        Rule::Scatter,
    )
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .cce(CceEmit::Unsupported { why: NO_SCATTER }),
    // Registered after be8155433 (today's `pl.tile.sort32(src, idx)`): pto-isa's
    // TSORT32(dst, src, idx) sorts each 32-element block of a row by value, greatest first,
    // into (value, index) records of 8 bytes: for FP32 the value, then the index's bits.
    block(
        names::SORT32,
        &[
            arg("src", Tile).about(
                "the FP32 values: a 2-D tile whose static column count is a multiple of 32 (each run of \
                 32 columns of a row is one block, sorted by itself)",
            ),
            arg("idx", Tile).about("a UINT32 tile of `src`'s shape: the index carried with each value into its record"),
        ],
        Rule::Sort32,
    )
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .cce(dst("TSORT32", 2, Family::Binary))
    .pto(pto("pto.tsort32", 2)),
    // Registered after be8155433 (today's `pl.tile.mrgsort(src, block_len=…)`, format 1):
    // pto-isa's TMRGSORT(dst, src, blockLen) merges each 4 consecutive sorted runs of
    // `blockLen` elements (blockLen / 2 FP32 records) into one, greatest value first.
    block(
        names::MRGSORT,
        &[
            arg("src", Tile).about(
                "a one-row FP32 tile of (value, index) records (`block.sort32`'s), in sorted runs of \
                 `block_len` elements",
            ),
            arg("block_len", ConstInt).about(
                "the length of a sorted run in elements (two per record): a constant multiple of 64; \
                 the columns are a multiple of 4 · block_len, at most 255 times it",
            ),
        ],
        Rule::MrgSort,
    )
    .today(&[today("tile.mrgsort_format1")])
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .cce(dst("TMRGSORT", 2, Family::Binary)),
    // Registered after be8155433 (today's `pl.tile.part_add/part_mul/part_max/part_min(src0,
    // src1)`): pto-isa's TPARTADD/TPARTMUL/TPARTMAX/TPARTMIN(dst, src0, src1) combine the two
    // over the destination's valid region, and where only one source is valid copy that one.
    block(names::PARTADD, PART, Rule::PartBinary)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["part_add"])
        .today(&[today("tile.part_add")])
        .cce(dst("TPARTADD", 2, Family::Binary))
        .pto(pto("pto.tpartadd", 2)),
    block(names::PARTMUL, PART, Rule::PartBinary)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["part_mul"])
        .today(&[today("tile.part_mul")])
        .cce(dst("TPARTMUL", 2, Family::Binary))
        .pto(pto("pto.tpartmul", 2)),
    block(names::PARTMAX, PART, Rule::PartBinary)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["part_max"])
        .today(&[today("tile.part_max")])
        .cce(dst("TPARTMAX", 2, Family::Binary))
        .pto(pto("pto.tpartmax", 2)),
    block(names::PARTMIN, PART, Rule::PartBinary)
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .unified(&["part_min"])
        .today(&[today("tile.part_min")])
        .cce(dst("TPARTMIN", 2, Family::Binary))
        .pto(pto("pto.tpartmin", 2)),
    // Registered after be8155433 (today's `pl.tile.fmod(lhs, rhs)`, `pl.tile.fmods(lhs, rhs)`):
    // pto-isa's TFMOD(dst, src0, src1) and TFMODS(dst, src, scalar), C's fmod (the remainder of
    // the quotient truncated toward zero, with the dividend's sign). The a2a3 forms overwrite the
    // destination before they read src0 the last time: it is a buffer of its own (the Dst form).
    block(names::FMOD, &[arg("lhs", Tile), arg("rhs", Tile)], Rule::Fmod { scalar: false })
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .scalar_rhs(names::FMODS)
        .high_precision(HP_FMOD)
        .cce(dst("TFMOD", 2, Family::Binary)),
    block(names::FMODS, &[arg("lhs", Tile), arg_conv("rhs", Scalar, FP32_FP32)], Rule::Fmod { scalar: true })
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .cce(dst("TFMODS", 2, Family::BinaryScalar)),
    // No data moves: the result is the input's buffer with another valid shape.
    block(
        names::SET_VALIDSHAPE,
        &[arg("tile", Tile), arg("valid_rows", Any), arg("valid_cols", Any)],
        Rule::SetValidShape,
    )
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .result_buffer(ResultBuffer::ViewOf(0))
    .cce(CceEmit::Nothing),
    block(names::RESHAPE, &[arg("tile", Tile), arg("shape", IndexTuple)], Rule::Reshape(Shaped::Tile))
        .pipes(Some(PipeType::V), Some(PipeType::V))
        .result_buffer(ResultBuffer::ViewOf(0))
        .reads(Reads::Any)
        .cce(dst_arg("TRESHAPE", 0))
        .pto(pto("pto.treshape", 1)),
    block(
        names::TRANSPOSE,
        &[
            arg("tile", Tile),
            arg("axis1", ConstInt),
            arg("axis2", ConstInt),
            arg("tmp_tile", Tile).optional().about(
                "the scratch tile pto-isa's TTRANS works in: a Vec tile of the input's shape and dtype. \
                 legalize-cce gives one to a call that has none (before memory is allocated, so the \
                 allocator places it); its contents afterwards are unspecified",
            ),
        ],
        Rule::Transpose(Shaped::Tile),
    )
    .pipes(Some(PipeType::V), Some(PipeType::V))
    .cce(CceEmit::Transpose)
    .pto(pto("pto.ttrans", 3)),
    // ---- §4.3 system.* (5)
    system(names::SYNC_SRC, SYNC, SYNC_KW)
        .pipes(Some(PipeType::S), Some(PipeType::S))
        .sync(SyncOp::Set)
        .cce(CceEmit::Flag { instr: "set_flag" }),
    system(names::SYNC_DST, SYNC, SYNC_KW)
        .pipes(Some(PipeType::S), Some(PipeType::S))
        .sync(SyncOp::Wait)
        .cce(CceEmit::Flag { instr: "wait_flag" }),
    system(names::BAR_V, &[], &[])
        .pipes(Some(PipeType::S), Some(PipeType::S))
        .sync(SyncOp::Barrier(PipeType::V))
        .cce(CceEmit::Barrier { instr: "pipe_barrier", pipe: "PIPE_V" }),
    system(names::BAR_M, &[], &[])
        .pipes(Some(PipeType::S), Some(PipeType::S))
        .sync(SyncOp::Barrier(PipeType::M))
        .cce(CceEmit::Barrier { instr: "pipe_barrier", pipe: "PIPE_M" }),
    system(names::BAR_ALL, &[], &[])
        .pipes(Some(PipeType::S), Some(PipeType::S))
        .sync(SyncOp::BarrierAll)
        .cce(CceEmit::Barrier { instr: "pipe_barrier", pipe: "PIPE_ALL" }),
    // ---- test.op
    op(
        names::TEST_OP,
        Category::Test,
        &[arg("arg1", Any), arg("arg2", Any), kw("int_attr"), kw("string_attr"), kw("bool_attr")],
        Rule::TestOp,
    )
    .kwargs(&[opt("int_attr", KwKind::Int), opt("string_attr", KwKind::Str), opt("bool_attr", KwKind::Bool)]),
];
