//! Types → text (spec `ir-and-syntax.md` §3.4 with the canonical-text changes of
//! `README.md` §2.5: memref and view positional, start offset left out when null).

use super::doc::{self, Arena, Doc};
use super::Ctx;
use crate::ir::{DataType, Expr, ExprKind, TensorView, TileView, Type, VarId, VarKind};
use pretty::DocAllocator;

impl<'a> Ctx<'a> {
    /// The document of `t`.
    pub fn ty(&self, a: &'a Arena<'a>, t: &'a Type) -> Doc<'a> {
        let w = self.width;
        match t {
            Type::Unknown => a.text("pl.UnknownType"),
            Type::MemRef => a.text("pl.MemRefType"),
            Type::Scalar(d) => a.text("pl.Scalar[").append(self.dtype(a, *d)).append("]"),
            Type::Tensor(tt) => {
                let view = tt.view.as_ref().map(|v| self.tensor_view(a, v));
                doc::bracketed(a, w, "pl.Tensor[", self.shaped(a, &tt.shape, tt.dtype, tt.memref).chain(view), "", "]")
            }
            Type::Tile(tt) => {
                let view = tt.view.as_ref().map(|v| self.tile_view(a, v));
                doc::bracketed(a, w, "pl.Tile[", self.shaped(a, &tt.shape, tt.dtype, tt.memref).chain(view), "", "]")
            }
            Type::Tuple(ts) => doc::bracketed(a, w, "pl.Tuple([", ts.iter().map(|t| self.ty(a, t)), "", "])"),
        }
    }

    /// `pl.FP32`, `pl.BF16`, …
    pub fn dtype(&self, a: &'a Arena<'a>, d: DataType) -> Doc<'a> {
        a.text("pl.").append(d.name())
    }

    /// `[dims]`, `pl.D`(, `pl.MemRef(...)`): the parameters Tensor and Tile types share.
    fn shaped(
        &self,
        a: &'a Arena<'a>,
        shape: &'a [Expr],
        dtype: DataType,
        memref: Option<VarId>,
    ) -> impl Iterator<Item = Doc<'a>> {
        let dims = shape.iter().map(|dim| match dim.kind {
            // A constant dim prints its raw value whatever its dtype (never `pl.const`).
            ExprKind::ConstInt(v, _) => doc::int(a, v),
            _ => self.expr(a, dim),
        });
        let dims = doc::bracketed(a, self.width, "[", dims, "", "]");
        let memref = memref.map(|m| self.memref(a, m));
        [dims, self.dtype(a, dtype)].into_iter().chain(memref)
    }

    /// `pl.MemRef(pl.MemorySpace.Vec, 0, 16384, 3)`, built from the MemRef variable's data.
    fn memref(&self, a: &'a Arena<'a>, m: VarId) -> Doc<'a> {
        match self.vars.get(m).map(|v| &v.kind) {
            Some(VarKind::MemRef(info)) => {
                let items = [
                    a.text("pl.MemorySpace.").append(info.space.name()),
                    self.expr(a, &info.addr),
                    doc::uint(a, info.size),
                    doc::uint(a, info.id),
                ];
                doc::bracketed(a, self.width, "pl.MemRef(", items, "", ")")
            }
            // Not a MemRef variable (malformed IR): the old printer's by-name form.
            _ => a.text(self.var_name(m)),
        }
    }

    fn tensor_view(&self, a: &'a Arena<'a>, v: &'a TensorView) -> Doc<'a> {
        let items = [
            a.text("stride=").append(self.expr_list(a, &v.stride)),
            a.text("layout=pl.TensorLayout.").append(v.layout.name()),
        ];
        doc::bracketed(a, self.width, "pl.TensorView(", items, "", ")")
    }

    fn tile_view(&self, a: &'a Arena<'a>, v: &'a TileView) -> Doc<'a> {
        let start = v.start_offset.as_ref().map(|s| a.text("start_offset=").append(self.expr(a, s)));
        let items = [
            a.text("valid_shape=").append(self.expr_list(a, &v.valid_shape)),
            a.text("stride=").append(self.expr_list(a, &v.stride)),
        ]
        .into_iter()
        .chain(start)
        .chain([
            a.text("blayout=pl.TileLayout.").append(v.blayout.name()),
            a.text("slayout=pl.TileLayout.").append(v.slayout.name()),
            a.text("fractal=").append(doc::uint(a, v.fractal)),
            a.text("pad=pl.TilePad.").append(v.pad.name()),
        ]);
        doc::bracketed(a, self.width, "pl.TileView(", items, "", ")")
    }
}
