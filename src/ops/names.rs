//! The IR names of the operators that code outside `ops` singles out (memory allocation, the
//! sync ops the sync passes make, the tensor ops orchestration codegen writes by hand, each op
//! the interpreter evaluates), and, through [`operator_list`], their typed ids (`ops::id`, made
//! in `ops/mod.rs`, which sees the table). The table's entries are declared with the name
//! constants, so each name is written once; code
//! outside `ops` compares and builds operators by id (`op == ops::id::ALLOC`) or asks the
//! entry's columns, never by name (`tests/op_names.rs`).

/// Hands the list of named operators (`ID = "name",` each) to the macro `$then`: the name
/// constants here, the ids in `ops::id`. The list is written once.
macro_rules! operator_list {
    ($then:ident) => {
        $then! {
            ALLOC = "block.alloc",
            ADD = "block.add",
            SUB = "block.sub",
            MUL = "block.mul",
            DIV = "block.div",
            MAXIMUM = "block.maximum",
            MINIMUM = "block.minimum",
            ADDS = "block.adds",
            SUBS = "block.subs",
            MULS = "block.muls",
            DIVS = "block.divs",
            EXP = "block.exp",
            TENSOR_ADD_SCALAR = "tensor.add_scalar",
            TENSOR_SUB_SCALAR = "tensor.sub_scalar",
            TENSOR_MUL_SCALAR = "tensor.mul_scalar",
            TENSOR_DIV_SCALAR = "tensor.div_scalar",
            LOAD = "block.load",
            STORE = "block.store",
            L0C_STORE = "block.l0c_store",
            MOVE = "block.move",
            CREATE_TILE = "block.create_tile",
            MATMUL = "block.matmul",
            MATMUL_ACC = "block.matmul_acc",
            RESHAPE = "block.reshape",
            SYNC_SRC = "system.sync_src",
            SYNC_DST = "system.sync_dst",
            BAR_V = "system.bar_v",
            BAR_M = "system.bar_m",
            BAR_ALL = "system.bar_all",
            TENSOR_CREATE = "tensor.create",
            TENSOR_READ = "tensor.read",
            TENSOR_VIEW = "tensor.view",
            TENSOR_DIM = "tensor.dim",

            // Evaluated by the interpreter one by one (`interp::semantics`).
            ADDC = "block.addc",
            ADDSC = "block.addsc",
            BATCH_MATMUL = "block.batch_matmul",
            CAST = "block.cast",
            CMP = "block.cmp",
            CMPS = "block.cmps",
            CMP_BITS = "block.cmp_bits",
            CMPS_BITS = "block.cmps_bits",
            COL_EXPAND = "block.col_expand",
            COL_EXPAND_DIV = "block.col_expand_div",
            COL_EXPAND_MUL = "block.col_expand_mul",
            COL_EXPAND_SUB = "block.col_expand_sub",
            EXPANDS = "block.expands",
            FILLPAD = "block.fillpad",
            FULL = "block.full",
            GEMV = "block.gemv",
            GEMV_ACC = "block.gemv_acc",
            GEMV_BIAS = "block.gemv_bias",
            GET_BLOCK_IDX = "block.get_block_idx",
            LRELU = "block.lrelu",
            MATMUL_BIAS = "block.matmul_bias",
            MAX = "block.max",
            MIN = "block.min",
            PRELU = "block.prelu",
            ROW_EXPAND = "block.row_expand",
            ROW_EXPAND_ADD = "block.row_expand_add",
            ROW_EXPAND_DIV = "block.row_expand_div",
            ROW_EXPAND_MUL = "block.row_expand_mul",
            ROW_EXPAND_SUB = "block.row_expand_sub",
            ROW_EXPAND_MAX = "block.row_expand_max",
            ROW_EXPAND_MIN = "block.row_expand_min",
            COL_EXPAND_ADD = "block.col_expand_add",
            COL_EXPAND_MAX = "block.col_expand_max",
            COL_EXPAND_MIN = "block.col_expand_min",
            ROW_MAX = "block.row_max",
            ROW_MIN = "block.row_min",
            ROW_SUM = "block.row_sum",
            ROW_PROD = "block.row_prod",
            COL_PROD = "block.col_prod",
            ROW_ARGMAX = "block.row_argmax",
            ROW_ARGMIN = "block.row_argmin",
            COL_ARGMAX = "block.col_argmax",
            COL_ARGMIN = "block.col_argmin",
            SIN = "block.sin",
            CONCAT = "block.concat",
            GATHER = "block.gather",
            GATHER_MASK = "block.gather_mask",
            SCATTER = "block.scatter",
            SORT32 = "block.sort32",
            MRGSORT = "block.mrgsort",
            PARTADD = "block.partadd",
            PARTMUL = "block.partmul",
            PARTMAX = "block.partmax",
            PARTMIN = "block.partmin",
            FMOD = "block.fmod",
            FMODS = "block.fmods",
            ROW_EXPAND_EXPDIF = "block.row_expand_expdif",
            COL_EXPAND_EXPDIF = "block.col_expand_expdif",
            COS = "block.cos",
            SEL = "block.sel",
            SELS = "block.sels",
            SELECT_BITS = "block.select_bits",
            SET_VALIDSHAPE = "block.set_validshape",
            SUBC = "block.subc",
            SUBSC = "block.subsc",
            SUM = "block.sum",
            TRANSPOSE = "block.transpose",
            VEC_MOVE = "block.vec_move",
            VIEW = "block.view",
            TENSOR_ASSEMBLE = "tensor.assemble",
            TENSOR_CAST = "tensor.cast",
            TENSOR_EXP = "tensor.exp",
            TENSOR_MATMUL = "tensor.matmul",
            TENSOR_RESHAPE = "tensor.reshape",
            TENSOR_ROW_MAX = "tensor.row_max",
            TENSOR_ROW_SUM = "tensor.row_sum",
            TENSOR_TRANSPOSE = "tensor.transpose",
            TEST_OP = "test.op",
        }
    };
}
pub(crate) use operator_list;

macro_rules! name_consts {
    ($($id:ident = $name:literal,)*) => {
        $(pub const $id: &str = $name;)*
    };
}

operator_list!(name_consts);
