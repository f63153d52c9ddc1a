//! The words a CCE kernel file's identifiers must not be: C++ keywords, the names the file
//! uses itself (pto-isa's types, macros and every instruction the operator table's C++ forms
//! call), handed to each file's [`super::namer::Namer`].

use std::sync::OnceLock;

use compact_str::CompactString;
use rustc_hash::FxHashSet;

use crate::ops::cce::CceEmit;

/// Words a generated identifier must not be: C++ keywords and the names the kernel file itself
/// uses (pto-isa types, instructions and macros, the entry point and its argument).
const RESERVED: &[&str] = &[
    // C++ keywords and literals
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "char8_t",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "compl",
    "concept",
    "const",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    // fixed names of the kernel file and of pto-isa / the runtime
    "args",
    "kernel_entry",
    "pto",
    "Tensor",
    "Tile",
    "TileType",
    "Shape",
    "Stride",
    "GlobalTensor",
    "GlobalTensorDim",
    "Layout",
    "BLayout",
    "SLayout",
    "RoundMode",
    "CmpMode",
    "half",
    "bfloat16_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "abs",
    "pow",
    "min",
    "max",
    "GET_BLOCK_IDX",
    "TASSIGN",
    "TLOAD",
    "TSTORE",
    "TMOV",
    "TCVT",
    "TTRANS",
    "std",
];

/// Every reserved word: [`RESERVED`] and the instruction names of the operator table. Built
/// once per process; each file's [`super::namer::Namer`] starts from a copy, so that one
/// insert into its set is both the "reserved?" and the "already handed out?" test.
pub fn cce_kernel() -> &'static FxHashSet<CompactString> {
    static SET: OnceLock<FxHashSet<CompactString>> = OnceLock::new();
    SET.get_or_init(|| {
        let mut set: FxHashSet<CompactString> =
            RESERVED.iter().chain(HELPER_INSTRUCTIONS).copied().map(CompactString::const_new).collect();
        // Every instruction of the operator table is a pto-isa function name.
        for (_, def) in crate::ops::table::entries() {
            if let Some(instrs) = def.cce.and_then(instruction_names) {
                set.extend(instrs.into_iter().map(CompactString::const_new));
            }
        }
        set
    })
}

/// The pto-isa function names an emitter form uses (reserved by the namer).
pub fn instruction_names(e: CceEmit) -> Option<Vec<&'static str>> {
    Some(match e {
        CceEmit::Dst { instr, .. }
        | CceEmit::Elementwise { instr, .. }
        | CceEmit::DstArg { instr, .. }
        | CceEmit::Flag { instr }
        | CceEmit::Barrier { instr, .. }
        | CceEmit::RowReduce { instr }
        | CceEmit::ColReduce { instr, .. }
        | CceEmit::RowExpand { instr, .. }
        | CceEmit::ColExpand { instr, .. } => vec![instr],
        CceEmit::Cmp { instr } | CceEmit::CmpBits { instr } => vec![instr],
        CceEmit::SelectBits => vec!["TSELS"],
        CceEmit::Reduce { col, row } => vec![col, row],
        CceEmit::Extract => vec!["TEXTRACT"],
        CceEmit::Transpose => vec!["TTRANS"],
        CceEmit::FillPad { instr } => vec![instr],
        CceEmit::BlockIdx => vec!["get_block_idx"],
        _ => return None,
    })
}

/// Names the lowering uses besides the ops' instructions (reserved by the namer).
pub const HELPER_INSTRUCTIONS: &[&str] = &["PadValue"];
