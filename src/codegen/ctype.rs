//! IR types as pto-isa C++ types (spec `passes-and-codegen.md` §4.3, §4.5): scalar C types,
//! `Tile<…>` type strings and the 5-D `Shape<…>`/`Stride<…>` of GlobalTensors.

use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{DataType, Expr, MemorySpace, TileLayout, TilePad, TileType, VarTable};
use crate::text::{cat, Piece};

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
                codes::NO_CPP_FORM,
                span,
                format!("CCE codegen: dtype {} has no C++ type", other.name()),
            ))
        }
    })
}

/// The value of a tile's dimension: a tile is on-chip memory of a size fixed when the kernel is
/// compiled (pto-isa's `Tile<…, Rows, Cols, …>`), whatever the extent of the tensors around it.
fn tile_dim(e: &Expr, span: Span) -> Result<i64, Diagnostic> {
    e.as_const_int().ok_or_else(|| {
        Diagnostic::error(codes::NO_CPP_FORM, span, "CCE codegen: a tile's shape must be static")
            .with_note("a tile's rows and columns are part of its pto-isa type (`Tile<…, Rows, Cols, …>`); only tensors may have runtime extents")
            .with_note("help: load or create a tile of constant shape (e.g. `pl.load(t, [i, 0], [16, 128])`) and loop over the runtime extent")
    })
}

/// `(rows, cols)` of a 1-D (`[n]` → `(1, n)`, a row) or 2-D tile. A tile of more dimensions
/// is its leading dimensions folded into rows (`[a, b, r, c]` → `(a·b·r, c)`): row-major, that
/// is the same memory, and the GlobalTensor of its load or store keeps the dimensions (its 5-D
/// shape is the window, `window.rs`), so TLOAD/TSTORE move the same elements. Only the ops
/// that fold does not change may use such a tile (`calls::check_folded`).
pub fn tile_rows_cols(shape: &[Expr], span: Span) -> Result<(i64, i64), Diagnostic> {
    match shape {
        [n] => Ok((1, tile_dim(n, span)?)),
        [r, c] => Ok((tile_dim(r, span)?, tile_dim(c, span)?)),
        [] => Err(Diagnostic::error(codes::NO_CPP_FORM, span, "CCE codegen: a tile needs at least one dimension")),
        _ if shape.len() > 5 => Err(Diagnostic::error(
            codes::NO_CPP_FORM,
            span,
            format!("CCE codegen: a tile has at most 5 dimensions (pto-isa's GlobalTensor), got {}", shape.len()),
        )),
        [lead @ .., c] => {
            let cols = tile_dim(c, span)?;
            if cols == 1 {
                return Err(Diagnostic::error(
                    codes::NO_CPP_FORM,
                    span,
                    format!("CCE codegen: a {}-D tile whose last dimension is 1 has no C++ form", shape.len()),
                )
                .with_note("its leading dimensions fold into the rows of a one-column tile, which pto-isa lays out column-major; make the last dimension the longest"));
            }
            let mut rows = 1i64;
            for d in lead {
                rows = rows.saturating_mul(tile_dim(d, span)?);
            }
            Ok((rows, cols))
        }
    }
}

fn layout(l: TileLayout) -> &'static str {
    match l {
        TileLayout::NoneBox => "NoneBox",
        TileLayout::RowMajor => "RowMajor",
        TileLayout::ColMajor => "ColMajor",
    }
}

fn pad_value(p: TilePad) -> &'static str {
    match p {
        TilePad::Null => "Null",
        TilePad::Zero => "Zero",
        TilePad::Max => "Max",
        TilePad::Min => "Min",
    }
}

/// Where and how a tile with a MemRef is laid out: its memory, the block layout (`BLayout`:
/// row or column major), the layout inside a fractal box (`SLayout`, `NoneBox` for a plain
/// tile), the fractal size in bytes and the pad value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placed {
    pub space: MemorySpace,
    pub blayout: TileLayout,
    pub slayout: TileLayout,
    pub fractal: u64,
    pub pad: TilePad,
}

impl Placed {
    /// A plain (`NoneBox`) tile of `space` in row-major (`RowMajor`) or column-major order.
    pub fn plain(space: MemorySpace, blayout: TileLayout) -> Placed {
        Placed { space, blayout, slayout: TileLayout::NoneBox, fractal: 512, pad: TilePad::Null }
    }

    /// Whether element (r, c) follows element (r, c - 1) in memory (`BLayout::RowMajor`).
    pub fn row_major(self) -> bool {
        self.blayout != TileLayout::ColMajor
    }

    /// Whether the tile is a plain array (no fractal boxes).
    pub fn unboxed(self) -> bool {
        self.slayout == TileLayout::NoneBox
    }
}

/// The C++ type of a tile (§4.3) and its address: what a tile declaration needs. It
/// appends the `Tile<…>` text ([`Piece`]), which depends on everything but the address.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileCType {
    pub dtype: DataType,
    elem: &'static str,
    pub rows: i64,
    pub cols: i64,
    /// Memory and layout of a tile with a MemRef; `None` for a tile without one.
    pub placed: Option<Placed>,
    /// The allocated address (tiles with a MemRef).
    pub addr: Option<i64>,
}

impl TileCType {
    /// The type with the address dropped: equal for tiles whose `Tile<…>` text is equal.
    pub fn without_addr(self) -> TileCType {
        TileCType { addr: None, ..self }
    }

    /// The same memory seen with another shape and layout.
    pub fn reshaped(self, rows: i64, cols: i64, placed: Placed) -> TileCType {
        TileCType { rows, cols, placed: Some(placed), ..self }
    }

    /// Whether the tile is a plain column-major tile (a `[N, 1]` column vector, or a tile
    /// annotated `col_major`).
    pub fn col_major_plain(self) -> bool {
        self.placed.is_some_and(|p| !p.row_major() && p.unboxed())
    }
}

/// The `Tile<…>` text.
impl Piece for &TileCType {
    fn push_to(self, out: &mut String) {
        let TileCType { elem, rows, cols, .. } = *self;
        match self.placed {
            // The reference's type for a tile without a MemRef carries a stray `;`.
            None => cat!(out; "Tile<TileType::Vec, ", elem, ", ", rows, ", ", cols, ", BLayout::RowMajor, -1, -1>;"),
            Some(p) => {
                cat!(out;
                    "Tile<TileType::", p.space.name(), ", ", elem, ", ", rows, ", ", cols, ", BLayout::", layout(p.blayout),
                    ", -1, -1, SLayout::", layout(p.slayout), ", ", p.fractal
                );
                if p.pad != TilePad::Null {
                    cat!(out; ", PadValue::", pad_value(p.pad));
                }
                out.push('>');
            }
        }
    }
}

/// The `Tile<…>` type of a tile (§4.3), with its address when it has a MemRef.
///
/// The layout is the tile's view, except where pto-isa accepts only one (a deviation from the
/// reference, which takes the view as it is): the operands of `TMATMUL` are fractal tiles,
/// Left `Zz` (row-major boxes of row-major fractals), Right `Zn` (row-major boxes of
/// column-major fractals) and Acc `Nz` (column-major boxes of row-major 16×16 fractals), so a
/// tile of those memories always gets that layout; a `[N, 1]` tile is column-major (a row-major
/// one would need its one column padded to 32 bytes); a 1-D tile `[N]` is the row `[1, N]`.
///
/// A tile whose MemRef is in `homes` (a loop's tile result that init-mem-ref put in DDR, spec
/// §6 Q6) lives at the on-chip place given there.
pub fn tile_type_homed(
    vars: &VarTable,
    tt: &TileType,
    span: Span,
    homes: &rustc_hash::FxHashMap<crate::ir::VarId, (MemorySpace, i64)>,
) -> Result<TileCType, Diagnostic> {
    let elem = c_type(tt.dtype, span)?;
    let (rows, cols) = tile_rows_cols(&tt.shape, span)?;
    let Some(memref) = tt.memref else {
        return Ok(TileCType { dtype: tt.dtype, elem, rows, cols, placed: None, addr: None });
    };
    if let Some(&(space, addr)) = homes.get(&memref) {
        let placed = placement(space, tt, cols);
        return Ok(TileCType { dtype: tt.dtype, elem, rows, cols, placed: Some(placed), addr: Some(addr) });
    }
    let crate::ir::VarKind::MemRef(info) = &vars.var(memref).kind else {
        return Err(Diagnostic::error(codes::NO_CPP_FORM, span, "CCE codegen: tile MemRef is not a MemRef variable"));
    };
    if info.space == MemorySpace::Ddr {
        return Err(Diagnostic::error(codes::NO_CPP_FORM, span, "DDR is for GlobalTensor, not Tile")
            .with_note("a tile in DDR (e.g. a tile-typed if/for return value, spec §6 Q6) has no CCE form"));
    }
    let addr = match info.addr.as_const_int() {
        Some(a) if a >= 0 => a,
        _ => {
            return Err(Diagnostic::error(
                codes::NO_CPP_FORM,
                span,
                format!("CCE codegen: tile buffer {} has no allocated address", info.derived_name()),
            )
            .with_note("run allocate-memory-addr before --emit cpp"))
        }
    };
    let placed = placement(info.space, tt, cols);
    Ok(TileCType { dtype: tt.dtype, elem, rows, cols, placed: Some(placed), addr: Some(addr) })
}

/// The layout of a tile of `space` (see [`tile_type`]).
fn placement(space: MemorySpace, tt: &TileType, cols: i64) -> Placed {
    use TileLayout::*;
    let pad = tt.view.as_ref().map_or(TilePad::Null, |v| v.pad);
    let fixed = |blayout, slayout, fractal| Placed { space, blayout, slayout, fractal, pad };
    match space {
        MemorySpace::Left => fixed(RowMajor, RowMajor, 512),
        MemorySpace::Right => fixed(RowMajor, ColMajor, 512),
        MemorySpace::Acc => fixed(ColMajor, RowMajor, 1024),
        _ if cols == 1 && tt.shape.len() == 2 => Placed { pad, ..Placed::plain(space, ColMajor) },
        _ => match &tt.view {
            Some(v) if tt.shape.len() == 2 => fixed(v.blayout, v.slayout, v.fractal),
            _ => Placed { pad, ..Placed::plain(space, RowMajor) },
        },
    }
}

/// `Shape<…>` and `Stride<…>` arguments of a GlobalTensor over `dims` padded to 5-D, and whether
/// the layout is DN (last dim 1). A `None` dim is dynamic (`-1`): its extent is given when the
/// GlobalTensor is constructed.
pub fn global_shape(dims: &[Option<i64>], span: Span) -> Result<(String, String, bool), Diagnostic> {
    if dims.is_empty() {
        return Err(Diagnostic::error(codes::NO_CPP_FORM, span, "Cannot generate Shape type for empty dimensions"));
    }
    if dims.len() > 5 {
        return Err(Diagnostic::error(
            codes::NO_CPP_FORM,
            span,
            format!("Cannot generate Shape with more than 5 dimensions, got {}", dims.len()),
        ));
    }
    let pad = 5 - dims.len();
    let shape: Vec<String> = std::iter::repeat_n("1".to_string(), pad)
        .chain(dims.iter().map(|d| d.map_or_else(|| "-1".to_string(), |d| d.to_string())))
        .collect();
    let stride: Vec<&str> = std::iter::repeat_n("1", pad).chain(std::iter::repeat_n("-1", dims.len())).collect();
    Ok((shape.join(", "), stride.join(", "), dims.last() == Some(&Some(1))))
}
