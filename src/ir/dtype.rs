//! Data types (spec `ir-and-syntax.md` §1) and the enums that appear in the text (§2.3).

/// Element data type. The discriminant is the reference's one-byte code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DataType {
    Bool = 0x00,
    Int4 = 0x10,
    Int8 = 0x11,
    Int16 = 0x12,
    Int32 = 0x13,
    Int64 = 0x14,
    UInt4 = 0x20,
    UInt8 = 0x21,
    UInt16 = 0x22,
    UInt32 = 0x23,
    UInt64 = 0x24,
    Fp4 = 0x30,
    Fp8E4M3Fn = 0x31,
    Fp8E5M2 = 0x32,
    Fp16 = 0x33,
    Fp32 = 0x34,
    Bf16 = 0x40,
    Hf4 = 0x41,
    Hf8 = 0x42,
}

/// (printed name, value). The printer uses the first spelling; `BFLOAT16` and `INDEX` are
/// accepted on input only.
const DTYPE_NAMES: &[(&str, DataType)] = &[
    ("BOOL", DataType::Bool),
    ("INT4", DataType::Int4),
    ("INT8", DataType::Int8),
    ("INT16", DataType::Int16),
    ("INT32", DataType::Int32),
    ("INT64", DataType::Int64),
    ("UINT4", DataType::UInt4),
    ("UINT8", DataType::UInt8),
    ("UINT16", DataType::UInt16),
    ("UINT32", DataType::UInt32),
    ("UINT64", DataType::UInt64),
    ("FP4", DataType::Fp4),
    ("FP8E4M3FN", DataType::Fp8E4M3Fn),
    ("FP8E5M2", DataType::Fp8E5M2),
    ("FP16", DataType::Fp16),
    ("FP32", DataType::Fp32),
    ("BF16", DataType::Bf16),
    ("HF4", DataType::Hf4),
    ("HF8", DataType::Hf8),
    ("BFLOAT16", DataType::Bf16),
    ("INDEX", DataType::Int64),
];

impl DataType {
    /// Looks up a dtype by its text name (`FP32`, `BF16`, `BFLOAT16`, `INDEX`, …).
    pub fn from_name(name: &str) -> Option<DataType> {
        DTYPE_NAMES.iter().find(|(n, _)| *n == name).map(|&(_, d)| d)
    }
    /// The canonical printed name (without the `pl.` prefix).
    pub fn name(self) -> &'static str {
        DTYPE_NAMES.iter().find(|(_, d)| *d == self).map(|&(n, _)| n).unwrap()
    }
    /// All accepted names, for "expected one of" messages.
    pub fn all_names() -> impl Iterator<Item = &'static str> + Clone {
        DTYPE_NAMES.iter().map(|(n, _)| *n)
    }
    pub fn code(self) -> u8 {
        self as u8
    }
    pub fn bits(self) -> u32 {
        use DataType::*;
        match self {
            Bool => 1,
            Int4 | UInt4 | Fp4 | Hf4 => 4,
            Int8 | UInt8 | Fp8E4M3Fn | Fp8E5M2 | Hf8 => 8,
            Int16 | UInt16 | Fp16 | Bf16 => 16,
            Int32 | UInt32 | Fp32 => 32,
            Int64 | UInt64 => 64,
        }
    }
    pub fn is_float(self) -> bool {
        (0x30..=0x4F).contains(&self.code())
    }
    pub fn is_signed_int(self) -> bool {
        (0x10..=0x1F).contains(&self.code())
    }
    pub fn is_unsigned_int(self) -> bool {
        (0x20..=0x2F).contains(&self.code())
    }
    pub fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }
    /// Whether the integer `v` is a value of this floating-point dtype, exactly (FP32, FP16 and
    /// BF16; the narrower formats are never asked). An integer literal passed for a float
    /// scalar parameter converts only then.
    pub fn holds_int_exactly(self, v: i64) -> bool {
        let x = v as f64;
        match self {
            DataType::Fp32 => (x as f32) as f64 == x,
            DataType::Fp16 => half::f16::from_f64(x).to_f64() == x,
            DataType::Bf16 => half::bf16::from_f64(x).to_f64() == x,
            _ => false,
        }
    }
    /// Lower-case name used in error messages (`int32`, `bfloat16`, …).
    pub fn lower_name(self) -> String {
        match self {
            DataType::Bf16 => "bfloat16".into(),
            d => d.name().to_ascii_lowercase(),
        }
    }
}

/// Defines a C-like enum with its printed member names, `from_name`, `name` and `ALL`.
macro_rules! text_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($variant),+ }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $($text => Some($name::$variant),)+ _ => None }
            }
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
            pub fn index(self) -> usize { self as usize }
            pub fn from_index(i: i64) -> Option<$name> {
                usize::try_from(i).ok().and_then(|i| Self::ALL.get(i).copied())
            }
        }
    };
}

text_enum!(
    /// On-chip and off-chip memories (Vec≈UB, Mat≈L1, Left≈L0A, Right≈L0B, Acc≈L0C).
    MemorySpace { Ddr = "DDR", Vec = "Vec", Mat = "Mat", Left = "Left", Right = "Right", Acc = "Acc" }
);
text_enum!(TensorLayout { Nd = "ND", Dn = "DN", Nz = "NZ" });
text_enum!(TileLayout { NoneBox = "none_box", RowMajor = "row_major", ColMajor = "col_major" });
text_enum!(TilePad { Null = "null", Zero = "zero", Max = "max", Min = "min" });
text_enum!(
    /// Hardware pipes, used by sync ops' `set_pipe` / `wait_pipe` kwargs (stored as int).
    PipeType { Mte1 = "MTE1", Mte2 = "MTE2", Mte3 = "MTE3", M = "M", V = "V", S = "S", Fix = "FIX", All = "ALL" }
);
/// How a `for` loop runs: `pl.range` (in order), `pl.parallel`, or `pl.pipeline(..., stage=F)`:
/// in order, and the `pipeline-loops` pass runs the body as F copies with buffers of their own,
/// so that one copy's loads overlap another's compute and stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForKind {
    Sequential,
    Parallel,
    /// The number of copies (`stage=`), at least 1.
    Pipeline(u8),
}

impl ForKind {
    /// The `pl.` name of the loop form (`range`, `parallel`, `pipeline`).
    pub fn name(self) -> &'static str {
        match self {
            ForKind::Sequential => "range",
            ForKind::Parallel => "parallel",
            ForKind::Pipeline(_) => "pipeline",
        }
    }
}
text_enum!(FunctionType { Opaque = "Opaque", Orchestration = "Orchestration", InCore = "InCore" });
text_enum!(ParamDirection { In = "In", Out = "Out", InOut = "InOut" });
text_enum!(ScopeKind { InCore = "incore" });

impl MemorySpace {
    /// Lower-case name used in MemRef variable names (`mem_vec_3`).
    pub fn lower_name(self) -> String {
        self.name().to_ascii_lowercase()
    }
}
