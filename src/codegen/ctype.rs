//! IR types as pto-isa C++ types (spec `passes-and-codegen.md` §4.3, §4.5): scalar C types,
//! `Tile<…>` type strings and the 5-D `Shape<…>`/`Stride<…>` of GlobalTensors.

use crate::diag::{codes, Diagnostic, Severity, Span};
use crate::ir::{DataType, Expr, MemorySpace, TileLayout, TilePad, TileType, VarTable};
use crate::text::{cat, Piece};
use crate::verify::cce_types;

/// The C type of a dtype (`verify::cce_types::c_type`); a dtype without one is an internal error
/// at `span` (the C++ form rule refuses it).
pub fn c_type(dtype: DataType, span: Span) -> Result<&'static str, Diagnostic> {
    cce_types::c_type(dtype, span).map_err(broken)
}

/// `(rows, cols)` of a tile of shape `shape` (`verify::cce_types::tile_rows_cols`); a shape
/// without a C++ form is an internal error at `span` (the C++ form rule refuses it).
pub fn tile_rows_cols(shape: &[Expr], span: Span) -> Result<(i64, i64), Diagnostic> {
    cce_types::tile_rows_cols(shape, span).map_err(broken)
}

/// A refusal of [`cce_types`] met by the writer: the C++ form rule refuses the construct, so
/// reaching it is a bug of ptoc.
fn broken(d: Diagnostic) -> Diagnostic {
    Diagnostic { severity: Severity::Internal, ..d }
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
        return Err(Diagnostic::internal(
            codes::NO_CPP_FORM,
            span,
            "CCE codegen: tile MemRef is not a MemRef variable",
        ));
    };
    if info.space == MemorySpace::Ddr {
        return Err(Diagnostic::internal(
            codes::NO_CPP_FORM,
            span,
            "CCE codegen: a tile in DDR, which the C++ form rule refuses",
        ));
    }
    let addr = match info.addr.as_const_int() {
        Some(a) if a >= 0 => a,
        _ => {
            return Err(Diagnostic::internal(
                codes::NO_CPP_FORM,
                span,
                format!(
                    "CCE codegen: tile buffer {} without an address, which the C++ form rule refuses",
                    info.derived_name()
                ),
            ))
        }
    };
    let placed = placement(info.space, tt, cols);
    Ok(TileCType { dtype: tt.dtype, elem, rows, cols, placed: Some(placed), addr: Some(addr) })
}

/// The layout of a tile of `space` ([`cce_types::tile_layout`], see [`tile_type_homed`]).
fn placement(space: MemorySpace, tt: &TileType, cols: i64) -> Placed {
    let pad = tt.view.as_ref().map_or(TilePad::Null, |v| v.pad);
    let (blayout, slayout, fractal) = cce_types::tile_layout(space, tt, cols);
    Placed { space, blayout, slayout, fractal, pad }
}

/// `Shape<…>` and `Stride<…>` arguments of a GlobalTensor over `dims` padded to 5-D, and whether
/// the layout is DN (last dim 1). A `None` dim is dynamic (`-1`): its extent is given when the
/// GlobalTensor is constructed.
pub fn global_shape(dims: &[Option<i64>], span: Span) -> Result<(String, String, bool), Diagnostic> {
    cce_types::global_rank(dims.len(), span).map_err(broken)?;
    let pad = 5 - dims.len();
    let shape: Vec<String> = std::iter::repeat_n("1".to_string(), pad)
        .chain(dims.iter().map(|d| d.map_or_else(|| "-1".to_string(), |d| d.to_string())))
        .collect();
    let stride: Vec<&str> = std::iter::repeat_n("1", pad).chain(std::iter::repeat_n("-1", dims.len())).collect();
    Ok((shape.join(", "), stride.join(", "), dims.last() == Some(&Some(1))))
}
