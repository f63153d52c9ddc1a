//! The IR names of the operators that code outside `ops` singles out (memory allocation, the
//! loads and stores memory planning follows, the sync ops the sync passes make and read, the
//! tensor ops orchestration codegen writes by hand, each op the interpreter evaluates). The table's entries are declared with
//! these constants, so each name is written once; other modules compare `ops::name(op)` with
//! them or build calls with them, never with a quoted name (`tests/op_names.rs`).

pub const ALLOC: &str = "block.alloc";
pub const LOAD: &str = "block.load";
pub const STORE: &str = "block.store";
pub const L0C_STORE: &str = "block.l0c_store";
pub const MOVE: &str = "block.move";
pub const CREATE_TILE: &str = "block.create_tile";
pub const MATMUL: &str = "block.matmul";
pub const MATMUL_ACC: &str = "block.matmul_acc";
pub const RESHAPE: &str = "block.reshape";
pub const SYNC_SRC: &str = "system.sync_src";
pub const SYNC_DST: &str = "system.sync_dst";
pub const BAR_V: &str = "system.bar_v";
pub const BAR_M: &str = "system.bar_m";
pub const BAR_ALL: &str = "system.bar_all";
pub const TENSOR_CREATE: &str = "tensor.create";
pub const TENSOR_READ: &str = "tensor.read";
pub const TENSOR_VIEW: &str = "tensor.view";
pub const TENSOR_DIM: &str = "tensor.dim";

// Evaluated by the interpreter one by one (`interp::ops`).
pub const ADDC: &str = "block.addc";
pub const ADDSC: &str = "block.addsc";
pub const BATCH_MATMUL: &str = "block.batch_matmul";
pub const CAST: &str = "block.cast";
pub const CMP: &str = "block.cmp";
pub const CMPS: &str = "block.cmps";
pub const COL_EXPAND: &str = "block.col_expand";
pub const COL_EXPAND_DIV: &str = "block.col_expand_div";
pub const COL_EXPAND_MUL: &str = "block.col_expand_mul";
pub const COL_EXPAND_SUB: &str = "block.col_expand_sub";
pub const EXPANDS: &str = "block.expands";
pub const FILLPAD: &str = "block.fillpad";
pub const FULL: &str = "block.full";
pub const GEMV: &str = "block.gemv";
pub const GEMV_ACC: &str = "block.gemv_acc";
pub const GEMV_BIAS: &str = "block.gemv_bias";
pub const GET_BLOCK_IDX: &str = "block.get_block_idx";
pub const LRELU: &str = "block.lrelu";
pub const MATMUL_BIAS: &str = "block.matmul_bias";
pub const MAX: &str = "block.max";
pub const MIN: &str = "block.min";
pub const PRELU: &str = "block.prelu";
pub const ROW_EXPAND: &str = "block.row_expand";
pub const ROW_EXPAND_ADD: &str = "block.row_expand_add";
pub const ROW_EXPAND_DIV: &str = "block.row_expand_div";
pub const ROW_EXPAND_MUL: &str = "block.row_expand_mul";
pub const ROW_EXPAND_SUB: &str = "block.row_expand_sub";
pub const ROW_MAX: &str = "block.row_max";
pub const ROW_MIN: &str = "block.row_min";
pub const ROW_SUM: &str = "block.row_sum";
pub const SEL: &str = "block.sel";
pub const SELS: &str = "block.sels";
pub const SUBC: &str = "block.subc";
pub const SUBSC: &str = "block.subsc";
pub const SUM: &str = "block.sum";
pub const TRANSPOSE: &str = "block.transpose";
pub const VEC_MOVE: &str = "block.vec_move";
pub const VIEW: &str = "block.view";
pub const TENSOR_ASSEMBLE: &str = "tensor.assemble";
pub const TENSOR_CAST: &str = "tensor.cast";
pub const TENSOR_EXP: &str = "tensor.exp";
pub const TENSOR_MATMUL: &str = "tensor.matmul";
pub const TENSOR_RESHAPE: &str = "tensor.reshape";
pub const TENSOR_ROW_MAX: &str = "tensor.row_max";
pub const TENSOR_ROW_SUM: &str = "tensor.row_sum";
pub const TENSOR_TRANSPOSE: &str = "tensor.transpose";
pub const TEST_OP: &str = "test.op";
