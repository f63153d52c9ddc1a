//! What one operator issues on the a2a3 (910B) AI core and how long each instruction occupies
//! its pipe, in cycles of the 1.85 GHz clock.
//!
//! The instruction list follows the operator table's C++ form ([`CceEmit`]): a load or store is a
//! scalar `TASSIGN` of the global tensor and the transfer, an element-wise op whose operand has
//! another dtype or broadcasts first converts or expands it into a scratch tile, a comparison is
//! `TCMP`, `TEXPANDS`, `TSELS`.
//!
//! Costs (the facts are pto-isa's a2a3 cost model, `include/pto/costmodel/a2a3`, calibrated there
//! on a 910B3; the fits to Perf-Sim's per-instruction figures are in [`vector`]):
//! * transfers: bytes / bandwidth of the path, GM→UB 100.9 GiB/s, GM→L1 135, UB→GM 188.5,
//!   L0C→GM 70 (on the FP16-sized result), L1→L0A 441, L1→L0B 220.5, plus one cycle of setup
//!   on MTE1;
//! * cube: `⌈M/16⌉·⌈K/k0⌉·⌈N/16⌉` fractal steps (k0 = 32 bytes of the input dtype), two cycles
//!   each for FP32 inputs, plus 6 of startup;
//! * vector: per instruction a fixed part and a part per 256-byte repeat of each row (see
//!   [`vector`]); the first vector instruction of a kernel also pays the pipe's startup latency
//!   ([`vector_startup`]);
//! * scalar: `TASSIGN` one cycle.

use crate::ir::{Call, Callee, DataType, Expr, Function, MemorySpace, PipeType, Type, VarId};
use crate::ops::cce::CceEmit;

/// Cycles per second of the AI core clock.
const CLOCK_HZ: f64 = 1.85e9;
const GIB: f64 = (1u64 << 30) as f64;

/// Bandwidths (GiB/s) of the transfer paths.
const GM_TO_UB: f64 = 100.9;
const GM_TO_L1: f64 = 135.0;
const UB_TO_GM: f64 = 188.5;
const L0C_TO_GM: f64 = 70.0;
const L1_TO_L0A: f64 = 441.0;
const L1_TO_L0B: f64 = 220.5;
const UB_TO_UB: f64 = 1300.0;

/// One instruction on one pipe.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    pub pipe: PipeType,
    /// The pto-isa instruction (`TLOAD`, `TADD`, …).
    pub name: &'static str,
    pub cycles: u64,
    /// The tile the cost was computed from (the source of a reduction or transfer).
    pub shape: Option<Shape>,
}

fn instr(pipe: PipeType, name: &'static str, cycles: u64) -> Instr {
    Instr { pipe, name, cycles, shape: None }
}

fn sized(pipe: PipeType, name: &'static str, cycles: u64, shape: Option<Shape>) -> Instr {
    Instr { pipe, name, cycles, shape }
}

/// Shape facts of a tile operand: valid rows and columns, element bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub rows: u64,
    pub cols: u64,
    pub bytes: u64,
}

impl Shape {
    fn total_bytes(self) -> u64 {
        self.rows * self.cols * self.bytes
    }
    /// 256-byte repeats of one row.
    fn row_repeats(self) -> u64 {
        (self.cols * self.bytes).div_ceil(256).max(1)
    }
    /// Whether the tile is one contiguous run of whole repeats (a row a multiple of 256
    /// bytes), so that the vector unit covers it with full masks.
    fn aligned(self) -> bool {
        (self.cols * self.bytes).is_multiple_of(256)
    }
}

fn dtype_bytes(d: DataType) -> u64 {
    u64::from(d.bits().max(8) / 8)
}

/// The shape of a tile or tensor type, its valid shape where known: `dim` evaluates a
/// dimension (a constant, or a scalar the walk knows); one it cannot counts as 16. A column
/// `[N, 1]` is the row `[1, N]` it is in memory (the C++ sees it so).
pub fn shape_of(ty: &Type, dim: &dyn Fn(&Expr) -> Option<i64>) -> Option<Shape> {
    let (dims, valid, dtype) = match ty {
        Type::Tile(t) => (&t.shape, t.view.as_ref().map(|v| &v.valid_shape), t.dtype),
        Type::Tensor(t) => (&t.shape, None, t.dtype),
        _ => return None,
    };
    let at = |i: usize| -> u64 {
        let from = |d: &[Expr]| d.get(i).and_then(dim).and_then(|v| u64::try_from(v).ok());
        valid.filter(|v| v.len() == dims.len()).and_then(|v| from(v)).or_else(|| from(dims)).unwrap_or(16)
    };
    let (rows, cols) = match dims.len() {
        0 => (1, 1),
        1 => (1, at(0)),
        n => ((0..n - 1).map(at).product(), at(n - 1)),
    };
    let (rows, cols) = if cols == 1 { (1, rows) } else { (rows, cols) };
    Some(Shape { rows, cols, bytes: dtype_bytes(dtype) })
}

fn space_of(f: &Function, ty: &Type) -> Option<MemorySpace> {
    let m = ty.memref()?;
    match &f.vars.get(m)?.kind {
        crate::ir::VarKind::MemRef(info) => Some(info.space),
        _ => None,
    }
}

fn transfer(bytes: u64, gib_per_s: f64) -> u64 {
    (bytes as f64 / GIB / gib_per_s * CLOCK_HZ) as u64
}

/// [`transfer`] rounded up (the fixpipe's count).
fn transfer_ceil(bytes: u64, gib_per_s: f64) -> u64 {
    (bytes as f64 / GIB / gib_per_s * CLOCK_HZ).ceil() as u64
}

/// The instructions of `call` (assigned to `target`, if any), which the effect model places
/// on `pipe`.
/// `dim` evaluates shape dimensions (see [`shape_of`]).
pub fn instrs(
    f: &Function,
    call: &Call,
    target: Option<VarId>,
    pipe: PipeType,
    dim: &dyn Fn(&Expr) -> Option<i64>,
) -> Vec<Instr> {
    let Callee::Op(op) = call.callee else { return Vec::new() };
    let def = crate::ops::def(op);
    let arg = |i: usize| call.args.get(i).map(|e| f.type_of(e));
    let arg_shape = |i: usize| arg(i).and_then(|t| shape_of(t, dim));
    let arg_column = |i: usize| arg(i).is_some_and(|t| is_column(t, dim));
    let result = target.map(|v| f.var_type(v));
    let res_shape = result.and_then(|t| shape_of(t, dim)).or_else(|| arg_shape(0));
    let Some(emit) = def.cce else { return Vec::new() };
    let s = |n| instr(PipeType::S, "TASSIGN", n);
    match emit {
        CceEmit::Load => {
            let bytes = res_shape.map_or(0, Shape::total_bytes);
            let to_l1 = result.and_then(|t| space_of(f, t)) == Some(MemorySpace::Mat);
            vec![s(1), sized(pipe, "TLOAD", transfer(bytes, if to_l1 { GM_TO_L1 } else { GM_TO_UB }), res_shape)]
        }
        CceEmit::Store => {
            let src = arg_shape(0);
            let from_acc = arg(0).and_then(|t| space_of(f, t)) == Some(MemorySpace::Acc);
            let c = match (src, from_acc) {
                (Some(sh), true) => transfer_ceil(sh.rows * sh.cols * 2, L0C_TO_GM),
                (Some(sh), false) => transfer(sh.total_bytes(), UB_TO_GM),
                (None, _) => 0,
            };
            vec![s(1), sized(pipe, "TSTORE", c, src)]
        }
        CceEmit::Move => {
            let bytes = arg_shape(0).map_or(0, Shape::total_bytes);
            let to = result.and_then(|t| space_of(f, t));
            let c = match to {
                Some(MemorySpace::Left) => transfer(bytes, L1_TO_L0A) + 1,
                Some(MemorySpace::Right) => transfer(bytes, L1_TO_L0B) + 1,
                Some(MemorySpace::Vec) => transfer(bytes, UB_TO_UB) + 1,
                _ => transfer(bytes, L1_TO_L0B) + 1,
            };
            vec![sized(pipe, "TMOV", c, arg_shape(0))]
        }
        CceEmit::Dst { instr: name, .. } if pipe == PipeType::M => {
            let (a, b) = match name {
                "TGEMV" | "TGEMV_ACC" | "TGEMV_BIAS" => (0, 1),
                "TMATMUL_ACC" => (1, 2),
                _ => (0, 1),
            };
            let (lhs, rhs) = (arg_shape(a), arg_shape(b));
            let c = match (lhs, rhs) {
                (Some(l), Some(r)) => {
                    let k0 = (32 / l.bytes).max(1);
                    let steps = l.rows.div_ceil(16) * l.cols.div_ceil(k0) * r.cols.div_ceil(16);
                    steps * if l.bytes >= 4 { 2 } else { 1 } + 6
                }
                _ => 6,
            };
            vec![sized(pipe, name, c, lhs)]
        }
        CceEmit::Nothing
        | CceEmit::TensorDim
        | CceEmit::TensorRead
        | CceEmit::Unsupported { .. }
        | CceEmit::Flag { .. }
        | CceEmit::Barrier { .. } => Vec::new(),
        CceEmit::BlockIdx => vec![s(1)],
        _ if pipe != PipeType::V => {
            // An instruction of another unit: its size only.
            let bytes = res_shape.map_or(0, Shape::total_bytes);
            vec![instr(pipe, "T?", transfer(bytes, UB_TO_GM) + 1)]
        }
        CceEmit::DstArg { instr: "TRESHAPE", .. } | CceEmit::Dst { instr: "TRESHAPE", .. } => {
            // A new view of the same buffer: the scalar unit re-points the tile.
            vec![s(1)]
        }
        other => vector_instrs(call, other, res_shape, &arg_shape, &arg_column),
    }
}

/// Whether a tile type is a column `[N, 1]` with N > 1 (its broadcast is a row expansion).
fn is_column(ty: &Type, dim: &dyn Fn(&Expr) -> Option<i64>) -> bool {
    let Type::Tile(t) = ty else { return false };
    let n = t.shape.len();
    n >= 2 && dim(&t.shape[n - 1]) == Some(1) && dim(&t.shape[n - 2]).is_some_and(|r| r > 1)
}

/// The vector instructions of an op in form `emit` with result shape `res`.
fn vector_instrs(
    call: &Call,
    emit: CceEmit,
    res: Option<Shape>,
    arg_shape: &dyn Fn(usize) -> Option<Shape>,
    arg_column: &dyn Fn(usize) -> bool,
) -> Vec<Instr> {
    let Some(r) = res else { return Vec::new() };
    let v = |name: &'static str, sh: Shape, src_bytes: u64| {
        sized(PipeType::V, name, vector(name, Shape { bytes: sh.bytes.max(src_bytes), ..sh }), Some(sh))
    };
    match emit {
        CceEmit::Elementwise { instr: name, arity, .. } => {
            let mut out = Vec::new();
            for i in 0..arity {
                let Some(a) = arg_shape(i) else { continue };
                if a.bytes != r.bytes {
                    out.push(v("TCVT", r, a.bytes));
                }
                if a.rows * a.cols < r.rows * r.cols {
                    let row = arg_column(i) || a.rows == r.rows;
                    out.push(v(if row { "TROWEXPAND" } else { "TCOLEXPAND" }, r, 0));
                }
            }
            out.push(v(name, r, 0));
            out
        }
        CceEmit::Cmp { instr: name } => {
            let src = arg_shape(0).unwrap_or(r);
            vec![v(name, src, 0), v("TEXPANDS", r, 0), v("TSELS", r, 0)]
        }
        CceEmit::Reduce { col, row } => {
            let src = arg_shape(0).unwrap_or(r);
            let axis = call.kwargs.iter().find(|(k, _)| *k == "axis").and_then(|(_, v)| match v {
                crate::ir::KwValue::Int(i) => Some(*i),
                _ => None,
            });
            if axis == Some(0) {
                let mut out = vec![v(col, src, 0)];
                if col == "TCOLSUM" && src.bytes < 4 {
                    out.push(v("TCVT", r, 4));
                }
                out
            } else {
                vec![v(row, src, 0)]
            }
        }
        CceEmit::CmpBits { instr: name } => vec![v(name, arg_shape(0).unwrap_or(r), 0)],
        CceEmit::SelectBits => vec![v("TSELS", r, 0)],
        CceEmit::RowReduce { instr: name } | CceEmit::ColReduce { instr: name, .. } => {
            let src = arg_shape(0).unwrap_or(r);
            vec![v(name, src, 0)]
        }
        CceEmit::RowExpand { instr: name, .. } | CceEmit::ColExpand { instr: name, .. } => {
            vec![v(name, r, 0)]
        }
        CceEmit::Dst { instr: name, .. } | CceEmit::DstArg { instr: name, .. } => vec![v(name, r, 0)],
        CceEmit::Cast => vec![v("TCVT", r, arg_shape(0).map_or(0, |a| a.bytes))],
        CceEmit::VecMove => vec![v("TMOV", r, 0)],
        CceEmit::Extract => vec![v("TEXTRACT", r, 0)],
        CceEmit::Transpose => vec![v("TTRANS", arg_shape(0).unwrap_or(r), 0)],
        CceEmit::FillPad { instr } => vec![v(instr, r, 0)],
        // One reduce-by-pattern intrinsic over the source's rows (a2a3 `vreducev2`), costed as
        // a plain vector instruction on the source (not calibrated on Perf-Sim).
        CceEmit::GatherMask => vec![v("TGATHER_MASK", arg_shape(0).unwrap_or(r), 0)],
        CceEmit::Ci => vec![v("TCI", r, 0)],
        CceEmit::Tri => vec![v("TTRI", r, 0)],
        _ => Vec::new(),
    }
}

/// Cycles of vector instruction `name` on a tile of shape `sh` (for reductions the source;
/// for a conversion the wider of the two dtypes), warm: when the vector stream is open, after
/// another instruction of it (the first one of a stream pays [`vector_startup`] on top).
///
/// pto-isa's a2a3 implementations pick one of three forms by shape, and Perf-Sim charges each
/// intrinsic `slope · repeats` warm, one cycle per mask or mode setting, and 16 for a partial
/// (count-mode) mask on the two-operand ALU ops:
/// * rows narrower than a repeat (256 bytes): one intrinsic repeating over the rows, partial mask;
/// * a contiguous tile of at most 255 repeats whose rows are whole repeats (or shorter than
///   one): one intrinsic over the tile (plus one for a tail repeat);
/// * more than 255 repeats, or rows longer than a repeat that do not end on one: count mode,
///   one intrinsic whose repeat count the hardware takes from the mask, which Perf-Sim charges
///   as zero repeats: a constant.
///
/// Reductions, broadcasts and padding step row by row with barriers in between (fitted on
/// Perf-Sim's per-instruction figures).
pub fn vector(name: &str, sh: Shape) -> u64 {
    let aligned = sh.aligned();
    let runs = sh.rows * sh.row_repeats();
    let rows = sh.rows;
    let total = sh.total_bytes().div_ceil(256).max(1);
    let per_repeat = (256 / sh.bytes.max(1)).max(1);
    // Count mode of the one-run forms (see above).
    let count_mode = total > 255 || (sh.cols > per_repeat && !sh.cols.is_multiple_of(per_repeat));
    let binary = |slope: u64| {
        if count_mode {
            16 + 4
        } else {
            slope * runs + if aligned { 0 } else { 18 }
        }
    };
    let unary = |slope: u64| if total > 255 { 4 } else { slope * total };
    match name {
        "TADD" | "TSUB" | "TMUL" | "TMAX" | "TMIN" | "TAND" | "TOR" => binary(2),
        // The combination over the smaller valid region, as TADD, then a copy of the rest of the
        // larger one (pto-isa's a2a3 TPartOp; not calibrated on Perf-Sim).
        "TPARTADD" | "TPARTMUL" | "TPARTMAX" | "TPARTMIN" => binary(2) + 4,
        // Row by row (pto-isa's a2a3 TFmod): a division, a truncation, a multiply and a
        // subtraction, each followed by a vector barrier; TFMODS first fills the row with the
        // scalar (not calibrated on Perf-Sim).
        "TFMOD" => rows * 4 * (8 + sh.row_repeats()),
        "TFMODS" => rows * 5 * (8 + sh.row_repeats()),
        "TDIV" => binary(4),
        // A reciprocal: a division per repeat, row by row.
        "TRECIP" => {
            if aligned {
                5 * runs + 31 * sh.row_repeats()
            } else {
                5 * runs + 49
            }
        }
        // Tile-scalar and cheap unary ops, conversions: 1 cycle a repeat.
        // A tile divided by a scalar is a multiply by its reciprocal: Perf-Sim charges TDIVS as
        // TMULS on the same tile (but simulates it on the values, which its harness does not
        // compute, so that a kernel whose buffers hold other values can be charged more).
        "TADDS" | "TSUBS" | "TMULS" | "TDIVS" | "TMAXS" | "TMINS" | "TLRELU" | "TNEG" | "TCVT" => {
            runs + if aligned { 0 } else { 2 }
        }
        // One cycle a repeat over the tile as one run.
        "TRELU" | "TABS" | "TRSQRT" => unary(1),
        // Bitwise NOT: 2 cycles a repeat over the tile as one run.
        "TNOT" => unary(2),
        // Transcendentals: 2 cycles a repeat over the tile as one run.
        "TEXP" | "TLOG" | "TSQRT" => unary(2),
        "TEXPANDS" => 4,
        // A new view of the same buffer: no data moves.
        "TRESHAPE" => 0,
        "TSELS" => 2 * rows + 35,
        "TCMP" | "TCMPS" => 2 * rows + 2,
        // A copy within UB, about 600 bytes a cycle.
        "TMOV" => (sh.total_bytes() / 600).max(1),
        // A window copy: a fixed part and about 128 bytes a cycle; TCONCAT copies its two
        // sources row by row the same way (not calibrated on Perf-Sim).
        "TEXTRACT" | "TCONCAT" => 2 + sh.total_bytes() / 128,
        // Row by row: a multiply of the indices into byte offsets, a vector barrier, then a
        // gather that reads about 32 bytes a cycle (not calibrated on Perf-Sim).
        "TGATHER" => rows * 12 + sh.total_bytes() / 32,
        // Row by row, one block gather of up to 8 blocks a repeat (a2a3 vgatherb; not
        // calibrated on Perf-Sim).
        "TGATHERB" => rows * (4 + sh.total_bytes() / sh.rows.max(1) / 256 * 2),
        // Row by row (pto-isa's a2a3 TSORT32): one bit sort of a repeat per 32 values, then a
        // vector barrier; TMRGSORT merges its records in one instruction (neither calibrated
        // on Perf-Sim).
        "TSORT32" => rows * (10 + sh.total_bytes() / sh.rows.max(1) / 64),
        "TMRGSORT" => 10 + sh.total_bytes() / 32,
        "TROWEXPANDSUB" | "TROWEXPANDADD" | "TROWEXPANDMUL" | "TROWEXPANDMAX" | "TROWEXPANDMIN" => 40 + 2 * runs,
        "TROWEXPANDDIV" => 50 + 4 * runs,
        // The subtraction, a vector barrier, then an exponential over the tile (pto-isa's a2a3
        // TROWEXPANDEXPDIF is TROWEXPANDSUB then TEXP; not calibrated on Perf-Sim).
        "TROWEXPANDEXPDIF" => 40 + 2 * runs + 2 * total,
        // Rows of exactly one repeat: one count-mode reduction over all rows.
        "TROWMAX" | "TROWMIN" | "TROWSUM" if sh.cols == per_repeat => 5,
        // The product and the arg reductions step through the rows as TROWMAX does (pto-isa's
        // a2a3 implementations share its row loop); not calibrated on Perf-Sim.
        "TROWPROD" | "TROWARGMAX" | "TROWARGMIN" if sh.cols == per_repeat => 5,
        // Rows of one to two repeats, not whole ones: the tail repeat folded into the first
        // (a partial-mask ALU op), a barrier, then the one-repeat reduction.
        "TROWMAX" | "TROWMIN" | "TROWPROD" | "TROWARGMAX" | "TROWARGMIN" if sh.cols > per_repeat && !aligned => {
            2 * rows + 69
        }
        "TROWSUM" if sh.cols > per_repeat && !aligned => 2 * rows + 72,
        "TROWMAX" | "TROWMIN" | "TROWPROD" | "TROWARGMAX" | "TROWARGMIN" => 2 * rows + if aligned { 0 } else { 3 },
        "TROWSUM" => {
            if aligned {
                40 + 2 * rows
            } else {
                7 * rows + 3
            }
        }
        "TROWEXPAND" => 28 * rows + 4,
        "TCOLEXPAND" => rows / 2 + 2,
        "TCOLEXPANDADD" | "TCOLEXPANDSUB" | "TCOLEXPANDMUL" | "TCOLEXPANDDIV" | "TCOLEXPANDMAX" | "TCOLEXPANDMIN" => {
            16 * rows + 4
        }
        // Each row's subtraction followed by its exponential, a barrier between (a2a3
        // ColExpandExpdifOp; not calibrated on Perf-Sim).
        "TCOLEXPANDEXPDIF" => 20 * rows + 4,
        // The column product and arg reductions as TCOLMAX (not calibrated on Perf-Sim).
        "TCOLMAX" | "TCOLMIN" | "TCOLSUM" | "TCOLPROD" | "TCOLARGMAX" | "TCOLARGMIN" => 40 * rows,
        "TFILLPAD" | "TFILLPAD_EXPAND" => 6 * rows + 10,
        // The padding only, in the source's own buffer (not calibrated on Perf-Sim).
        "TFILLPAD_INPLACE" => 4 * rows + 10,
        // The scalar unit's loop over the row, about a cycle an element (pto-isa's a2a3 TCI
        // without a scratch tile; not calibrated on Perf-Sim).
        "TCI" => 10 + sh.cols,
        // Row by row: a fill of the row, a barrier, a fill of its triangle part, a barrier
        // (a2a3 TTri; not calibrated on Perf-Sim).
        "TTRI" => 16 * rows + 4,
        // Perf-Sim's figures for FP32 [16, 16], [16, 32], [32, 64], [64, 64]: 20, 30, 84, 130
        // (it books them on MTE1; they are vector instructions on the a2a3, as in the table).
        "TTRANS" => 12 + sh.rows * sh.cols / 34,
        _ => 10 + 2 * runs,
    }
}

/// Whether instruction `name` ends with a vector barrier of its own (the row reductions do), so
/// that the next vector instruction starts a new stream and pays [`vector_startup`].
pub fn ends_vector_stream(name: &str) -> bool {
    // TTRANS is booked on MTE1 by Perf-Sim: the vector instruction after it starts anew.
    matches!(
        name,
        "TROWMAX"
            | "TROWMIN"
            | "TROWSUM"
            | "TROWPROD"
            | "TROWARGMAX"
            | "TROWARGMIN"
            | "TTRANS"
            | "TSORT32"
            | "TFMOD"
            | "TFMODS"
    )
}

/// The startup latency (head + tail of its first intrinsic) an instruction pays when it opens
/// the vector stream: the first vector instruction of a kernel, or the first after one that
/// ends the stream ([`ends_vector_stream`]); later instructions overlap it away. The figures
/// are the a2a3 cost model's per intrinsic (`vadd` 24, `vmuls` 26, `vexp` 31, …).
pub fn vector_startup(name: &str) -> u64 {
    match name {
        "TEXP" => 31,
        "TLOG" => 33,
        "TSQRT" => 39,
        "TCVT" => 27,
        "TADDS" | "TSUBS" | "TRECIP" => 31,
        "TMULS" | "TDIVS" | "TLRELU" => 26,
        "TMAXS" | "TRELU" => 23,
        "TMINS" => 30,
        "TABS" => 29,
        "TMUL" => 25,
        "TDIV" => 30,
        "TAND" | "TOR" | "TNOT" => 20,
        "TROWMAX" | "TROWMIN" | "TROWPROD" | "TROWARGMAX" | "TROWARGMIN" => 6,
        "TROWSUM" => 46,
        "TCMP" | "TCMPS" => 6,
        // Broadcasts of a row start with their own barrier-separated steps (in their cost).
        "TCOLEXPAND" | "TEXTRACT" => 0,
        // Booked on MTE1 by Perf-Sim (see [`vector`]): no vector stream to open.
        "TTRANS" => 0,
        "TROWEXPANDSUB" | "TROWEXPANDADD" | "TROWEXPANDMUL" | "TROWEXPANDMAX" | "TROWEXPANDMIN" | "TROWEXPANDDIV" => 0,
        _ => 24,
    }
}
