//! How an operator becomes PTO-ISA MLIR (spec `pto-codegen.md` §9–§12): the value of the
//! operator table's `pto` column ([`crate::ops::table::OpDef::pto`]). Adding an op to the PTO
//! backend is one table entry; the shapes of the emitted lines are the variants below, and
//! `codegen::pto::calls` interprets them. The forms live with the table (not in `codegen`) so
//! that the operator table depends on nothing above it (docs/architecture.md, "Layers").

/// The dialect's spelling of an element type (spec `pto-codegen.md` §4.1); `None` for the dtypes
/// it has none for (`Invalid DataType value`).
pub fn dtype_spelling(d: crate::ir::DataType) -> Option<&'static str> {
    use crate::ir::DataType::*;
    Some(match d {
        Fp32 => "f32",
        Fp16 => "f16",
        Bf16 => "bf16",
        Int32 => "i32",
        Int64 => "i64",
        Int8 => "i8",
        UInt8 => "ui8",
        _ => return None,
    })
}

/// The emitted form of one op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtoEmit {
    /// `INSTR ins(a0, …, a{n-1} : types) outs(dst : type)` with every argument, in order; the
    /// argument count is checked against `arity` (§9.1).
    Generic { instr: &'static str, arity: usize },
    /// `pto.partition_view` of the tensor argument, then `pto.tload` into the target (§11).
    Load,
    /// `pto.partition_view` of the output tensor, then `pto.tstore` of the tile (§11).
    Store,
    /// A generic two-operand op whose last operand carries `{cmpMode = #pto<cmp M>}`, `M` from
    /// the call's `cmp_type` (§12).
    Cmp { instr: &'static str },
    /// `pto.tcvt` with `{rmode = #pto<round_mode R>}` from the call's `mode` (§12).
    Cast,
    /// `pto.texpands` of the fill value only; the shape argument is not printed (§12).
    Full,
    /// No output (`block.alloc`: buffers come from the tile types, §5).
    Nothing,
}

impl PtoEmit {
    /// The instruction this op prints (for `--list-ops` and docs); `None` for [`PtoEmit::Nothing`].
    pub fn instruction(self) -> Option<&'static str> {
        match self {
            PtoEmit::Generic { instr, .. } | PtoEmit::Cmp { instr } => Some(instr),
            PtoEmit::Load => Some("pto.tload"),
            PtoEmit::Store => Some("pto.tstore"),
            PtoEmit::Cast => Some("pto.tcvt"),
            PtoEmit::Full => Some("pto.texpands"),
            PtoEmit::Nothing => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::table::entries;

    /// Every op the PTO generator emits has a PTO pipe (which decides aic/aiv and what
    /// insert-sync orders). The converse does not hold: every op that runs on the device has a
    /// pipe for both backends (`ops::cce::tests`), also where the PTO generator has no form
    /// for it yet and refuses it with a located diagnostic.
    #[test]
    fn every_pto_op_has_an_emitter() {
        for (_, def) in entries() {
            if def.pto.is_some() {
                assert!(def.pipe_pto.is_some(), "{}: a PTO emitter without a PTO pipe", def.name);
            }
        }
    }
}
