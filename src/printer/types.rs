//! Types → text (spec `ir-and-syntax.md` §3.4 with the canonical-text changes of
//! `README.md` §2.5: memref and view positional, start offset left out when null).

use super::Ctx;
use crate::ir::{DataType, Expr, ExprKind, TensorView, TileView, Type, VarId, VarKind};
use crate::text::cat;


impl Ctx<'_> {
    /// Appends the text of `t` to `out`.
    pub fn ty(&self, t: &Type, out: &mut String) {
        match t {
            Type::Unknown => out.push_str("pl.UnknownType"),
            Type::MemRef => out.push_str("pl.MemRefType"),
            Type::Scalar(d) => {
                out.push_str("pl.Scalar[");
                self.dtype(*d, out);
                out.push(']');
            }
            Type::Tensor(tt) => {
                out.push_str("pl.Tensor[");
                self.shaped(&tt.shape, tt.dtype, tt.memref, out);
                if let Some(v) = &tt.view {
                    self.tensor_view(v, out);
                }
                out.push(']');
            }
            Type::Tile(tt) => {
                out.push_str("pl.Tile[");
                self.shaped(&tt.shape, tt.dtype, tt.memref, out);
                if let Some(v) = &tt.view {
                    self.tile_view(v, out);
                }
                out.push(']');
            }
            Type::Tuple(ts) => {
                out.push_str("pl.Tuple([");
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.ty(t, out);
                }
                out.push_str("])");
            }
        }
    }

    /// `pl.FP32`, `pl.BF16`, …
    pub fn dtype(&self, d: DataType, out: &mut String) {
        out.push_str("pl.");
        out.push_str(d.name());
    }

    /// `[dims], pl.D(, pl.MemRef(...))` — the part Tensor and Tile types share.
    fn shaped(&self, shape: &[Expr], dtype: DataType, memref: Option<VarId>, out: &mut String) {
        out.push('[');
        for (i, dim) in shape.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match dim.kind {
                // A constant dim prints its raw value whatever its dtype (never `pl.const`).
                ExprKind::ConstInt(v, _) => cat!(out; v),
                _ => self.expr(dim, out),
            }
        }
        out.push_str("], ");
        self.dtype(dtype, out);
        if let Some(m) = memref {
            out.push_str(", ");
            self.memref(m, out);
        }
    }

    /// `pl.MemRef(pl.MemorySpace.Vec, 0, 16384, 3)`, built from the MemRef variable's data.
    fn memref(&self, m: VarId, out: &mut String) {
        match self.prog.vars.get(m.index()).map(|v| &v.kind) {
            Some(VarKind::MemRef(info)) => {
                cat!(out; "pl.MemRef(pl.MemorySpace.", info.space.name(), ", ");
                self.expr(&info.addr, out);
                cat!(out; ", ", info.size, ", ", info.id, ")");
            }
            // Not a MemRef variable (malformed IR): the old printer's by-name form.
            _ => out.push_str(self.var_name(m)),
        }
    }

    fn tensor_view(&self, v: &TensorView, out: &mut String) {
        out.push_str(", pl.TensorView(stride=");
        self.expr_list(&v.stride, out);
        cat!(out; ", layout=pl.TensorLayout.", v.layout.name(), ")");
    }

    fn tile_view(&self, v: &TileView, out: &mut String) {
        out.push_str(", pl.TileView(valid_shape=");
        self.expr_list(&v.valid_shape, out);
        out.push_str(", stride=");
        self.expr_list(&v.stride, out);
        if let Some(start) = &v.start_offset {
            out.push_str(", start_offset=");
            self.expr(start, out);
        }
        cat!(out;
            ", blayout=pl.TileLayout.", v.blayout.name(), ", slayout=pl.TileLayout.", v.slayout.name(), ", fractal=",
            v.fractal, ", pad=pl.TilePad.", v.pad.name(), ")"
        );
    }
}
