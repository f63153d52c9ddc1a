//! The types part of the CCE C++ form rule ([`super::cce_form`] runs it after its own walk):
//! every type the kernel writer spells has a pto-isa C++ form. The scalar C types and the rows
//! and columns of a `Tile<…>` are defined here, and `codegen::ctype` spells them from these.
//!
//! Checked at each variable's definition (a parameter, the statement that assigns it, the loop
//! or `if` whose value it is): dtypes with a C type, tiles of one to five dimensions of static
//! extent (an N-D tile's last dimension not 1) whose buffer has an address and (for an assigned
//! tile) is not in DDR, tensor parameters of
//! one to five dimensions (a 5-D `GlobalTensor`); and casts to a dtype with a C type.

use crate::diag::{codes, Diagnostic, Span};
use crate::ir::visit::{walk_all_exprs, walk_stmts};
use crate::ir::{
    DataType, Expr, ExprKind, Function, MemorySpace, Stmt, TileLayout, TileType, Type, UnOp, VarId, VarKind, VarTable,
};

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
/// shape is the window, `codegen/window.rs`), so TLOAD/TSTORE move the same elements. Only the
/// ops that fold does not change may use such a tile (`cce_form::check_folded`).
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

/// The layout of a placed tile of `space` with `cols` columns (its folded `Tile<…>`): the block
/// layout (`BLayout`), the layout inside a fractal box (`SLayout`, `NoneBox` for a plain tile)
/// and the fractal size in bytes. The operands of `TMATMUL` are fractal tiles of one layout
/// each, Left `Zz`, Right `Zn` and Acc `Nz` (16×16 fractals); a 2-D `[N, 1]` tile is a plain
/// column-major one (a row-major one would pad its one column to 32 bytes); any other 2-D
/// tile has its view's layout, and a tile of another rank is a plain row-major one.
pub fn tile_layout(space: MemorySpace, tt: &TileType, cols: i64) -> (TileLayout, TileLayout, u64) {
    use TileLayout::*;
    match space {
        MemorySpace::Left => (RowMajor, RowMajor, 512),
        MemorySpace::Right => (RowMajor, ColMajor, 512),
        MemorySpace::Acc => (ColMajor, RowMajor, 1024),
        _ if cols == 1 && tt.shape.len() == 2 => (ColMajor, NoneBox, 512),
        _ => match &tt.view {
            Some(v) if tt.shape.len() == 2 => (v.blayout, v.slayout, v.fractal),
            _ => (RowMajor, NoneBox, 512),
        },
    }
}

/// A GlobalTensor's rank: one to five dimensions (its `Shape<…>` is 5-D, padded with 1s).
pub fn global_rank(rank: usize, span: Span) -> Result<(), Diagnostic> {
    if rank == 0 {
        return Err(Diagnostic::error(codes::NO_CPP_FORM, span, "Cannot generate Shape type for empty dimensions"));
    }
    if rank > 5 {
        return Err(Diagnostic::error(
            codes::NO_CPP_FORM,
            span,
            format!("Cannot generate Shape with more than 5 dimensions, got {rank}"),
        ));
    }
    Ok(())
}

/// Checks the types of kernel `f`; the first without a C++ form, parameters first, then the
/// definitions and casts of the body in program order.
pub fn check(f: &Function) -> Result<(), Diagnostic> {
    let vars = &f.vars;
    for p in &f.params {
        let data = vars.var(p.var);
        match &data.ty {
            Type::Tensor(t) => {
                c_type(t.dtype, data.span)?;
                global_rank(t.shape.len(), data.span)?;
            }
            Type::Scalar(d) => {
                c_type(*d, data.span)?;
            }
            _ => {}
        }
    }
    let mut found = Ok(());
    walk_stmts(&f.body, &mut |s| {
        if found.is_err() {
            return;
        }
        found = defined(vars, s);
    });
    found?;
    let mut cast = Ok(());
    walk_all_exprs(&f.body, &mut |e| {
        if let (Ok(()), ExprKind::Unary(UnOp::Cast, _)) = (&cast, &e.kind) {
            if let Some(d) = e.ty.scalar_dtype() {
                cast = c_type(d, e.span).map(drop);
            }
        }
    });
    cast
}

/// The variables statement `s` itself defines (not those of its nested statements), each at
/// the statement, or at its own definition for an iter arg.
fn defined(vars: &VarTable, s: &Stmt) -> Result<(), Diagnostic> {
    match s {
        Stmt::Assign { var, span, .. } => {
            var_type(vars, *var, *span)?;
            ddr_tile(vars, *var, *span)
        }
        Stmt::For { loop_var, iter_args, return_vars, span, .. } => {
            var_type(vars, *loop_var, *span)?;
            iter_args.iter().try_for_each(|&a| var_type(vars, a, vars.var(a).span))?;
            return_vars.iter().try_for_each(|&r| var_type(vars, r, *span))
        }
        Stmt::While { iter_args, return_vars, span, .. } => {
            iter_args.iter().try_for_each(|&a| var_type(vars, a, vars.var(a).span))?;
            return_vars.iter().try_for_each(|&r| var_type(vars, r, *span))
        }
        Stmt::If { return_vars, span, .. } => return_vars.iter().try_for_each(|&r| var_type(vars, r, *span)),
        _ => Ok(()),
    }
}

/// A tile assigned a buffer in DDR (IR written so, or a pass's bug): DDR holds tensors only.
fn ddr_tile(vars: &VarTable, v: VarId, span: Span) -> Result<(), Diagnostic> {
    let Type::Tile(t) = vars.var_type(v) else { return Ok(()) };
    match t.memref.map(|m| &vars.var(m).kind) {
        Some(VarKind::MemRef(info)) if info.space == MemorySpace::Ddr => {
            Err(Diagnostic::error(codes::NO_CPP_FORM, span, "DDR is for GlobalTensor, not Tile")
                .with_note("a tile lives in a core's local memory (Vec, Mat, Left, Right, Acc); DDR holds the tensors it is loaded from and stored to"))
        }
        _ => Ok(()),
    }
}

/// The type of variable `v`, defined at `span`: a scalar's C type, a tile's `Tile<…>`.
fn var_type(vars: &VarTable, v: VarId, span: Span) -> Result<(), Diagnostic> {
    match vars.var_type(v) {
        Type::Scalar(d) => c_type(*d, span).map(drop),
        Type::Tile(t) => {
            c_type(t.dtype, span)?;
            tile_rows_cols(&t.shape, span)?;
            // A buffer in DDR is a loop's or `if`'s tile result, which the writer places on
            // chip (or refuses) itself.
            let Some(VarKind::MemRef(info)) = t.memref.map(|m| &vars.var(m).kind) else { return Ok(()) };
            if info.space != MemorySpace::Ddr && info.addr.as_const_int().is_none_or(|a| a < 0) {
                return Err(Diagnostic::error(
                    codes::NO_CPP_FORM,
                    span,
                    format!("CCE codegen: tile buffer {} has no allocated address", info.derived_name()),
                )
                .with_note("help: run allocate-memory-addr before --emit cpp (the default pipeline does)"));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
