//! Type spellings of the PTO-ISA dialect (spec `pto-codegen.md` §4) and the number formats of
//! constants (§6).

use crate::ir::{DataType, MemorySpace, TileLayout, TilePad, TileType, Type};

/// The MLIR spelling of an element type (§4.1, `ops::pto::dtype_spelling`); `None` for the
/// dtypes the dialect has no spelling for (the caller reports `Invalid DataType value`).
pub fn dtype(d: DataType) -> Option<&'static str> {
    crate::ops::pto::dtype_spelling(d)
}

/// The type of a scalar *value* (loop-carried values, `scf.if` results, §7.3): `i1` for BOOL,
/// the float spelling for FP32/FP16/BF16, `index` for everything else, tiles and tensors too.
pub fn value_type(ty: &Type) -> &'static str {
    match ty {
        Type::Scalar(DataType::Bool) => "i1",
        Type::Scalar(d @ (DataType::Fp32 | DataType::Fp16 | DataType::Bf16)) => dtype(*d).unwrap_or("index"),
        _ => "index",
    }
}

/// `loc=` of a memory space (§4.2).
pub fn loc(space: MemorySpace) -> &'static str {
    match space {
        MemorySpace::Ddr => "gm",
        MemorySpace::Vec => "vec",
        MemorySpace::Mat => "mat",
        MemorySpace::Left => "left",
        MemorySpace::Right => "right",
        MemorySpace::Acc => "acc",
    }
}

fn layout(l: TileLayout) -> &'static str {
    match l {
        TileLayout::RowMajor => "row_major",
        TileLayout::ColMajor => "col_major",
        TileLayout::NoneBox => "none_box",
    }
}

fn pad(p: TilePad) -> u8 {
    match p {
        TilePad::Null => 0,
        TilePad::Zero => 1,
        TilePad::Max => 2,
        TilePad::Min => 3,
    }
}

/// `!pto.tile_buf<…>` of a buffer whose representative tile type is `t`, in `space` (§4.3).
/// `Err(())`: the dtype has no spelling.
pub fn tile_buf(t: &TileType, space: MemorySpace) -> Result<String, ()> {
    let d = dtype(t.dtype).ok_or(())?;
    // Rank ≥ 2: the first two dims; rank 1: one row; a dim that is not a constant keeps the
    // default 32, as does a rank-0 tile.
    let dim = |i: usize| t.shape.get(i).and_then(|e| e.as_const_int()).unwrap_or(32);
    let (rows, cols) = match t.shape.len() {
        0 => (32, 32),
        1 => (1, dim(0)),
        _ => (dim(0), dim(1)),
    };
    let (bl, sl, fractal, pd) = match &t.view {
        Some(v) => (layout(v.blayout), layout(v.slayout), v.fractal, pad(v.pad)),
        None => ("row_major", "none_box", 512, 0),
    };
    Ok(format!(
        "!pto.tile_buf<loc={}, dtype={d}, rows={rows}, cols={cols}, v_row={rows}, v_col={cols}, blayout={bl}, slayout={sl}, fractal={fractal}, pad={pd}>",
        loc(space)
    ))
}

/// `!pto.tensor_view<?x…xd>`: one `?` per dimension (§4.3).
pub fn tensor_view(rank: usize, d: &str) -> String {
    let mut s = String::from("!pto.tensor_view<");
    for _ in 0..rank {
        s.push_str("?x");
    }
    s.push_str(d);
    s.push('>');
    s
}

/// A float constant's value as C++ `std::scientific` prints it: six fractional digits and a
/// signed exponent of at least two digits (`1.000000e+00`, `-2.500000e-01`).
pub fn scientific(v: f64) -> String {
    let s = format!("{v:.6e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scientific_like_cpp() {
        assert_eq!(scientific(1.0), "1.000000e+00");
        assert_eq!(scientific(0.5), "5.000000e-01");
        assert_eq!(scientific(1e-5), "1.000000e-05");
        assert_eq!(scientific(-0.25), "-2.500000e-01");
        assert_eq!(scientific(0.0), "0.000000e+00");
        assert_eq!(scientific(1.5e300), "1.500000e+300");
    }

    #[test]
    fn value_types() {
        assert_eq!(value_type(&Type::Scalar(DataType::Bool)), "i1");
        assert_eq!(value_type(&Type::Scalar(DataType::Bf16)), "bf16");
        assert_eq!(value_type(&Type::Scalar(DataType::Int32)), "index");
        assert_eq!(value_type(&Type::Unknown), "index");
    }

    #[test]
    fn tensor_views() {
        assert_eq!(tensor_view(2, "f32"), "!pto.tensor_view<?x?xf32>");
        assert_eq!(tensor_view(1, "i64"), "!pto.tensor_view<?xi64>");
    }
}
