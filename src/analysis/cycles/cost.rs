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
//!   ([`VECTOR_STARTUP`]);
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

/// The vector pipe's startup latency (head + tail of its first instruction): paid once per
/// kernel, as back-to-back vector instructions overlap it away.
pub const VECTOR_STARTUP: u64 = 24;

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
        (self.cols * self.bytes) % 256 == 0
    }
}

fn dtype_bytes(d: DataType) -> u64 {
    u64::from(d.bits().max(8) / 8)
}

/// The shape of a tile or tensor type; dims that are not constants count as 16.
pub fn shape_of(ty: &Type) -> Option<Shape> {
    let (dims, valid, dtype) = match ty {
        Type::Tile(t) => (&t.shape, t.view.as_ref().map(|v| &v.valid_shape), t.dtype),
        Type::Tensor(t) => (&t.shape, None, t.dtype),
        _ => return None,
    };
    let dim = |i: usize| -> u64 {
        let from = |d: &[Expr]| d.get(i).and_then(Expr::as_const_int).and_then(|v| u64::try_from(v).ok());
        valid.filter(|v| v.len() == dims.len()).and_then(|v| from(v)).or_else(|| from(dims)).unwrap_or(16)
    };
    let (rows, cols) = match dims.len() {
        0 => (1, 1),
        1 => (1, dim(0)),
        n => ((0..n - 1).map(dim).product(), dim(n - 1)),
    };
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

/// The instructions of `call` (assigned to `target`, if any), which the effect model places
/// on `pipe`.
pub fn instrs(f: &Function, call: &Call, target: Option<VarId>, pipe: PipeType) -> Vec<Instr> {
    let Callee::Op(op) = call.callee else { return Vec::new() };
    let def = crate::ops::def(op);
    let arg = |i: usize| call.args.get(i).map(|e| f.type_of(e));
    let arg_shape = |i: usize| arg(i).and_then(shape_of);
    let result = target.map(|v| f.var_type(v));
    let res_shape = result.and_then(shape_of).or_else(|| arg_shape(0));
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
                (Some(sh), true) => transfer(sh.rows * sh.cols * 2, L0C_TO_GM),
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
        CceEmit::Nothing | CceEmit::TensorDim | CceEmit::TensorRead | CceEmit::Unsupported { .. } => {
            if op == crate::ops::id::ALLOC {
                return Vec::new();
            }
            Vec::new()
        }
        CceEmit::Flag { .. } | CceEmit::Barrier { .. } => Vec::new(),
        CceEmit::BlockIdx => vec![s(1)],
        _ if pipe != PipeType::V => {
            // An instruction of another unit: its size only.
            let bytes = res_shape.map_or(0, Shape::total_bytes);
            vec![instr(pipe, "T?", transfer(bytes, UB_TO_GM) + 1)]
        }
        other => vector_instrs(f, call, other, res_shape, &arg_shape),
    }
}

/// The vector instructions of an op in form `emit` with result shape `res`.
fn vector_instrs(
    f: &Function,
    call: &Call,
    emit: CceEmit,
    res: Option<Shape>,
    arg_shape: &dyn Fn(usize) -> Option<Shape>,
) -> Vec<Instr> {
    let Some(r) = res else { return Vec::new() };
    let v = |name: &'static str, sh: Shape, src_cols: u64| sized(PipeType::V, name, vector(name, sh, src_cols), Some(sh));
    match emit {
        CceEmit::Elementwise { instr: name, arity, .. } => {
            let mut out = Vec::new();
            for i in 0..arity {
                let Some(a) = arg_shape(i) else { continue };
                if a.bytes != r.bytes {
                    out.push(v("TCVT", r, r.cols));
                }
                if a.rows * a.cols < r.rows * r.cols {
                    out.push(v(if a.rows == r.rows { "TROWEXPAND" } else { "TCOLEXPAND" }, r, r.cols));
                }
            }
            out.push(v(name, r, r.cols));
            out
        }
        CceEmit::Cmp { instr: name } => {
            let src = arg_shape(0).unwrap_or(r);
            vec![v(name, src, src.cols), v("TEXPANDS", r, r.cols), v("TSELS", r, r.cols)]
        }
        CceEmit::Reduce { col, row } => {
            let src = arg_shape(0).unwrap_or(r);
            let axis = call.kwargs.iter().find(|(k, _)| *k == "axis").and_then(|(_, v)| match v {
                crate::ir::KwValue::Int(i) => Some(*i),
                _ => None,
            });
            if axis == Some(0) {
                let mut out = vec![v(col, src, src.cols)];
                if col == "TCOLSUM" && src.bytes < 4 {
                    out.push(v("TCVT", r, r.cols));
                }
                out
            } else {
                vec![v(row, src, src.cols)]
            }
        }
        CceEmit::RowReduce { instr: name } => {
            let src = arg_shape(0).unwrap_or(r);
            vec![v(name, src, src.cols)]
        }
        CceEmit::RowExpand { instr: name, .. } | CceEmit::ColExpand { instr: name, .. } => {
            vec![v(name, r, r.cols)]
        }
        CceEmit::Dst { instr: name, .. } | CceEmit::DstArg { instr: name, .. } => vec![v(name, r, r.cols)],
        CceEmit::Cast => vec![v("TCVT", r, r.cols)],
        CceEmit::VecMove => vec![v("TMOV", r, r.cols)],
        CceEmit::Extract => vec![v("TEXTRACT", r, r.cols)],
        CceEmit::FillPad => vec![v("TFILLPAD", r, r.cols)],
        _ => {
            let _ = f;
            Vec::new()
        }
    }
}

/// Cycles of vector instruction `name` on a tile of shape `sh` (for reductions the source,
/// `src_cols` its columns), warm (after the first vector instruction of the kernel).
///
/// Each family is a fixed part plus a part per 256-byte repeat: element-wise ALU ops work
/// row by row when a row is not a whole number of repeats (count-mode masks, with a dispatch
/// floor), else over the tile as one run.
pub fn vector(name: &str, sh: Shape, src_cols: u64) -> u64 {
    let _ = src_cols;
    let reps = if sh.aligned() { sh.rows * sh.row_repeats() } else { sh.rows * sh.row_repeats() };
    let unaligned = !sh.aligned();
    // (fixed, per repeat, extra fixed when unaligned)
    let (fixed, slope, floor): (u64, u64, u64) = match name {
        "TADD" | "TSUB" | "TMUL" | "TMAX" | "TMIN" | "TAND" | "TOR" => (0, 2, 18),
        "TDIV" => (0, 4, 18),
        "TADDS" | "TSUBS" | "TMULS" | "TDIVS" | "TMAXS" | "TMINS" | "TLRELU" | "TRELU" | "TABS" | "TNEG" => (0, 1, 2),
        "TEXP" | "TLOG" | "TSQRT" | "TRSQRT" | "TRECIP" => (16, 2, 0),
        "TEXPANDS" => (4, 0, 0),
        "TSELS" => (67, 0, 0),
        "TCMP" | "TCMPS" => (34, 0, 0),
        "TCVT" => (18, 1, 0),
        "TMOV" => (6, 0, 0),
        "TROWEXPANDSUB" | "TROWEXPANDADD" | "TROWEXPANDMUL" | "TROWEXPANDMAX" | "TROWEXPANDMIN" => (40, 2, 0),
        "TROWEXPANDDIV" => (50, 4, 0),
        "TROWSUM" | "TROWMAX" | "TROWMIN" => (30, 2, 0),
        _ => (10, 2, 0),
    };
    fixed + slope * reps + if unaligned { floor } else { 0 }
}
