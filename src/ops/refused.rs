//! Operators of today's PyPTO (upstream HEAD) that ptoc does not read, each with why: a call of
//! one is refused at the call with the reason (not reported as an unknown name), and
//! `--list-ops NAME` gives the reason too. An operator that ptoc reads has a row of the
//! operator table instead (`table.rs`, its `today` column).

/// One refused spelling: the dotted name after `pl.` and why ptoc does not read it.
#[derive(Clone, Copy, Debug)]
pub struct Refused {
    pub name: &'static str,
    pub why: &'static str,
}

const fn no(name: &'static str, why: &'static str) -> Refused {
    Refused { name, why }
}

/// pto-isa has the instruction; ptoc has no table row for the operator.
const NOT_YET: &str = "pto-isa has its instruction, but ptoc has no operator for it yet";
/// No pto-isa instruction is the operator.
const NO_INSTR: &str = "no pto-isa instruction: upstream PyPTO composes it from other instructions or \
                        address arithmetic, and ptoc has no operator for it";
/// The tensor-level forms upstream converts to tile operators.
const TENSOR_FORM: &str = "a tensor-level form that upstream's ConvertTensorToTileOps turns into the tile \
                           operator: ptoc does not convert it; write the pl.tile operator in an InCore function";

/// The refused spellings, by upstream family (its `tile.*` registry).
pub static REFUSED: &[Refused] = &[
    no("tile.random", NOT_YET),          // TRANDOM
    no("tile.extract", NOT_YET),         // TEXTRACT
    no("tile.assemble", NOT_YET),        // TINSERT
    no("tile.gather_compare", NOT_YET),  // TGATHER's compare form
    no("tile.scatter_mask", NOT_YET),    // TSCATTER's mask form
    no("tile.mgather", NOT_YET),         // MGATHER
    no("tile.mscatter", NOT_YET),        // MSCATTER
    no("tile.mrgsort_format2", NOT_YET), // TMRGSORT of 2 to 4 lists
    no("tile.tpush_to_aic", NOT_YET),    // TPUSH
    no("tile.tpush_to_aiv", NOT_YET),
    no("tile.tpop_from_aic", NOT_YET), // TPOP
    no("tile.tpop_from_aiv", NOT_YET),
    no("tile.cast_fragment", NO_INSTR),
    no("tile.gather_row", NO_INSTR),
    no("tile.load_rebased_row", NO_INSTR),
    no(
        "tile.reinterpret_view",
        "no pto-isa instruction (no data moves: the tile's bits seen as another dtype); ptoc has no operator \
         for it: pl.tile.gather_mask with output_dtype= reads a tile's bits as another dtype",
    ),
    no("tile.read", "no pto-isa instruction (a scalar read of one element of a tile); ptoc has no operator for it"),
    no("tile.write", "no pto-isa instruction (a scalar write of one element of a tile); ptoc has no operator for it"),
    no("tile.get_block_num", "no pto-isa instruction (the number of cores of the launch); ptoc has no operator for it"),
    no(
        "tile.get_subblock_idx",
        "no pto-isa instruction (the vector core's index in its cluster); ptoc has no operator for it",
    ),
    no("tensor.sort32", TENSOR_FORM),
    no("tensor.mrgsort_format1", TENSOR_FORM),
    no("tensor.mrgsort_format2", TENSOR_FORM),
    no("tensor.gather", TENSOR_FORM),
    no("tensor.gather_mask", TENSOR_FORM),
    no("tensor.scatter", TENSOR_FORM),
    no("tensor.scatter_mask", TENSOR_FORM),
];

/// Why today's `pl.<dotted>` is refused, when it is a refused spelling.
pub fn refused(dotted: &str) -> Option<&'static str> {
    REFUSED.iter().find(|r| r.name == dotted).map(|r| r.why)
}
