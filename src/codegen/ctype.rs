//! IR types as pto-isa C++ types (spec `passes-and-codegen.md` §4.3, §4.5): scalar C types,
//! `Tile<…>` type strings and the 5-D `Shape<…>`/`Stride<…>` of GlobalTensors.

use crate::diag::{codes, Diagnostic, Span};
use crate::text::{cat, Piece};
use crate::ir::{DataType, Expr, MemorySpace, Program, TileLayout, TileType};

/// The C type of a dtype; dtypes without one are an error at `span`.
pub fn c_type(dtype: DataType, span: Span) -> Result<&'static str, Diagnostic> {
    use DataType::*;
    Ok(match dtype {
        Bool => "bool",
        Int8 => "int8_t",
        Int16 => "int16_t",
        Int32 => "int32_t",
        Int64 => "int64_t",
        UInt8 => "uint8_t",
        UInt16 => "uint16_t",
        UInt32 => "uint32_t",
        UInt64 => "uint64_t",
        Fp16 => "half",
        Fp32 => "float",
        Bf16 => "bfloat16_t",
        other => {
            return Err(Diagnostic::error(
                codes::UNSUPPORTED,
                span,
                format!("CCE codegen: dtype {} has no C++ type", other.name()),
            ))
        }
    })
}

/// The value of a constant dimension.
pub fn const_dim(e: &Expr, span: Span) -> Result<i64, Diagnostic> {
    e.as_const_int().ok_or_else(|| {
        Diagnostic::error(codes::UNSUPPORTED, span, "Expected constant integer expression")
            .with_note("CCE codegen needs static shapes for tensors and tiles")
    })
}

/// `(rows, cols)` of a 1-D (`[r]` → `(r, 1)`) or 2-D tile.
pub fn tile_rows_cols(shape: &[Expr], span: Span) -> Result<(i64, i64), Diagnostic> {
    match shape {
        [r] => Ok((const_dim(r, span)?, 1)),
        [r, c] => Ok((const_dim(r, span)?, const_dim(c, span)?)),
        _ => Err(Diagnostic::error(
            codes::UNSUPPORTED,
            span,
            format!(
                "CCE codegen only supports 1D and 2D TileType, but got {} dimensions. Multi-dimensional tiles (>2D) are supported at IR level but not yet in code generation.",
                shape.len()
            ),
        )),
    }
}

fn layout(l: TileLayout) -> &'static str {
    match l {
        TileLayout::NoneBox => "NoneBox",
        TileLayout::RowMajor => "RowMajor",
        TileLayout::ColMajor => "ColMajor",
    }
}

/// The C++ type of a tile (§4.3) and its address: what a tile declaration needs. It
/// appends the `Tile<…>` text ([`Piece`]), which depends on everything but the address.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileCType {
    elem: &'static str,
    pub rows: i64,
    pub cols: i64,
    /// Memory space, BLayout, SLayout and fractal of a tile with a MemRef; `None` for a tile
    /// without one.
    placed: Option<(&'static str, &'static str, &'static str, u64)>,
    /// The allocated address (tiles with a MemRef).
    pub addr: Option<i64>,
}

impl TileCType {
    /// The type with the address dropped: equal for tiles whose `Tile<…>` text is equal.
    pub fn without_addr(self) -> TileCType {
        TileCType { addr: None, ..self }
    }
}

/// The `Tile<…>` text.
impl Piece for &TileCType {
    fn push_to(self, out: &mut String) {
        let TileCType { elem, rows, cols, .. } = *self;
        match self.placed {
            // The reference's type for a tile without a MemRef carries a stray `;`.
            None => cat!(out; "Tile<TileType::Vec, ", elem, ", ", rows, ", ", cols, ", BLayout::RowMajor, -1, -1>;"),
            Some((space, b, s, fractal)) => cat!(out;
                "Tile<TileType::", space, ", ", elem, ", ", rows, ", ", cols, ", BLayout::", b, ", -1, -1, SLayout::", s,
                ", ", fractal, ">"
            ),
        }
    }
}

/// The `Tile<…>` type of a tile (§4.3), with its address when it has a MemRef.
pub fn tile_type(prog: &Program, tt: &TileType, span: Span) -> Result<TileCType, Diagnostic> {
    let elem = c_type(tt.dtype, span)?;
    let (rows, cols) = tile_rows_cols(&tt.shape, span)?;
    let Some(memref) = tt.memref else {
        return Ok(TileCType { elem, rows, cols, placed: None, addr: None });
    };
    let crate::ir::VarKind::MemRef(info) = &prog.var(memref).kind else {
        return Err(Diagnostic::error(codes::UNSUPPORTED, span, "CCE codegen: tile MemRef is not a MemRef variable"));
    };
    let space = match info.space {
        MemorySpace::Ddr => {
            return Err(Diagnostic::error(codes::UNSUPPORTED, span, "DDR is for GlobalTensor, not Tile")
                .with_note("a tile in DDR (e.g. a tile-typed if/for return value, spec §6 Q6) has no CCE form"))
        }
        s => s.name(),
    };
    let addr = match info.addr.as_const_int() {
        Some(a) if a >= 0 => a,
        _ => {
            return Err(Diagnostic::error(
                codes::UNSUPPORTED,
                span,
                format!("CCE codegen: tile buffer {} has no allocated address", info.derived_name()),
            )
            .with_note("run allocate-memory-addr before --emit cpp"))
        }
    };
    let (mut b, mut s, mut fractal) = ("RowMajor", "NoneBox", 512);
    if cols == 1 {
        b = "ColMajor";
    } else if let Some(v) = &tt.view {
        b = layout(v.blayout);
        s = layout(v.slayout);
        fractal = v.fractal;
    }
    Ok(TileCType { elem, rows, cols, placed: Some((space, b, s, fractal)), addr: Some(addr) })
}

/// `Shape<…>` and `Stride<…>` arguments of a GlobalTensor over `dims` padded to 5-D, and whether
/// the layout is DN (last dim 1).
pub fn global_shape(dims: &[i64], span: Span) -> Result<(String, String, bool), Diagnostic> {
    if dims.is_empty() {
        return Err(Diagnostic::error(codes::UNSUPPORTED, span, "Cannot generate Shape type for empty dimensions"));
    }
    if dims.len() > 5 {
        return Err(Diagnostic::error(
            codes::UNSUPPORTED,
            span,
            format!("Cannot generate Shape with more than 5 dimensions, got {}", dims.len()),
        ));
    }
    let pad = 5 - dims.len();
    let shape: Vec<String> = std::iter::repeat_n("1".to_string(), pad).chain(dims.iter().map(|d| d.to_string())).collect();
    let stride: Vec<&str> = std::iter::repeat_n("1", pad).chain(std::iter::repeat_n("-1", dims.len())).collect();
    Ok((shape.join(", "), stride.join(", "), dims.last() == Some(&1)))
}
