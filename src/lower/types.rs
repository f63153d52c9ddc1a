//! Type annotations → IR types (spec `ir-and-syntax.md` §3.4, §3.10 "Types", README §2.5).
//!
//! Accepted forms: `pl.Scalar[D]`, `pl.Tensor[[dims], D, …]`, `pl.Tile[[dims], D, …]` where `…`
//! is any of a positional `pl.MemRef(...)`, `pl.TensorView(...)` / `pl.TileView(...)`, a layout
//! (`pl.NZ`, `pl.TensorLayout.NZ`), or the old keyword forms `memref=…`, `tensor_view=…`,
//! `tile_view=…`; `pl.Tuple([…])`, `pl.MemRefType`, `pl.UnknownType`; the legacy call forms
//! `pl.Tensor((64, 128), pl.FP16)`; bare `Tensor[...]`; parameter wrappers `pl.Out[T]`,
//! `pl.InOut[T]`; return annotations `T` and `tuple[T, …]`.

use super::Lowerer;
use crate::ast::{self, Arg, ExprKind as A};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::*;

type R<T> = Result<T, Diagnostic>;

impl Lowerer {
    /// A parameter annotation: the type and the direction wrapper.
    pub(super) fn lower_param_type(&mut self, e: &ast::Expr) -> R<(Type, ParamDirection)> {
        if let A::Subscript(base, items) = &e.kind {
            let dir = match self.type_name(base) {
                Some("Out") => Some(ParamDirection::Out),
                Some("InOut") => Some(ParamDirection::InOut),
                Some("In") => Some(ParamDirection::In),
                _ => None,
            };
            if let Some(dir) = dir {
                let inner = single_item(items, e.span, "a direction wrapper takes exactly one type")?;
                let ty = self.lower_type(inner)?;
                if dir == ParamDirection::InOut && matches!(ty, Type::Scalar(_)) {
                    return Err(Diagnostic::error(
                        codes::BAD_PARAM,
                        e.span,
                        "Scalar parameters cannot have InOut direction",
                    ));
                }
                return Ok((ty, dir));
            }
        }
        let ty = self.lower_type(e)?;
        if matches!(ty, Type::Tuple(_)) {
            return Err(Diagnostic::error(codes::BAD_PARAM, e.span, "a parameter cannot have a tuple type"));
        }
        Ok((ty, ParamDirection::In))
    }

    /// A return annotation: `T` or `tuple[T1, T2, …]`.
    pub(super) fn lower_return_types(&mut self, e: &ast::Expr) -> R<Vec<Type>> {
        if let A::Subscript(base, items) = &e.kind {
            if matches!(&base.kind, A::Name(n) if n == "tuple") {
                let mut out = Vec::new();
                for it in items {
                    match it {
                        Arg::Positional(t) => out.push(self.lower_type(t)?),
                        Arg::Keyword(k, _) => return Err(unexpected_keyword(k)),
                    }
                }
                return Ok(out);
            }
        }
        Ok(vec![self.lower_type(e)?])
    }

    /// The path of a type constructor: `pl.Tensor` → `["Tensor"]`; bare `Tensor` too.
    fn type_path<'e>(&self, e: &'e ast::Expr) -> Option<ast::DottedPath<'e>> {
        if let Some(p) = self.prefixed_path(e) {
            return Some(p);
        }
        match &e.kind {
            A::Name(_) => e.dotted(),
            _ => None,
        }
    }

    /// The one name of a type constructor or dtype: `pl.Tile` or bare `Tile` → `Tile` (what
    /// `type_path` gives when it has one part, without building the path).
    fn type_name<'e>(&self, e: &'e ast::Expr) -> Option<&'e str> {
        match &e.kind {
            A::Name(n) => Some(n.as_str()),
            _ => self.prefixed_name(e),
        }
    }

    pub(super) fn lower_type(&mut self, e: &ast::Expr) -> R<Type> {
        // Most annotations are a few constant-shape types written over and over: build each
        // once per lowering and share it.
        let Some(key) = self.constant_shaped_key(e) else { return self.lower_type_uncached(e) };
        if let Some((_, ty)) = self.constant_types.iter().find(|(k, _)| *k == key) {
            return Ok(ty.clone());
        }
        let ty = self.lower_type_uncached(e)?;
        if self.constant_types.len() < MAX_CONSTANT_TYPES {
            self.constant_types.push((key, ty.clone()));
        }
        Ok(ty)
    }

    /// What `pl.Tile[[64, 64], pl.FP32]` / `pl.Tensor[(8, 16), pl.FP16]` (shape and dtype only,
    /// every dim an integer literal) is made of; `None` for any other annotation. Such a
    /// type depends on nothing but these parts (no names are resolved).
    fn constant_shaped_key(&self, e: &ast::Expr) -> Option<ConstantShaped> {
        let A::Subscript(base, items) = &e.kind else { return None };
        let tensor = match self.type_name(base)? {
            "Tensor" => true,
            "Tile" => false,
            _ => return None,
        };
        let [Arg::Positional(shape), Arg::Positional(dtype)] = items.as_slice() else { return None };
        let (A::List(elems) | A::Tuple(elems)) = &shape.kind else { return None };
        let mut dims = [0i64; MAX_CONSTANT_RANK];
        if elems.len() > MAX_CONSTANT_RANK {
            return None;
        }
        for (slot, d) in dims.iter_mut().zip(elems) {
            let A::Int(v) = d.kind else { return None };
            *slot = i64::try_from(v).ok()?;
        }
        let dtype = DataType::from_name(self.type_name(dtype)?)?;
        Some(ConstantShaped { tensor, rank: elems.len() as u8, dims, dtype })
    }

    fn lower_type_uncached(&mut self, e: &ast::Expr) -> R<Type> {
        match &e.kind {
            A::Subscript(base, items) => match self.type_name(base) {
                Some("Scalar") => {
                    let d = single_item(items, e.span, "`Scalar[...]` takes exactly one dtype")?;
                    Ok(Type::Scalar(self.lower_dtype(d)?))
                }
                Some("Tensor") => self.lower_shaped(e.span, true, items),
                Some("Tile") => self.lower_shaped(e.span, false, items),
                _ => Err(self.unknown_type(base)),
            },
            A::Call(base, args) => {
                match self.type_name(base) {
                    Some("Tuple") => {
                        let list = single_item(args, e.span, "`Tuple(...)` takes one list of types")?;
                        let (A::List(elems) | A::Tuple(elems)) = &list.kind else {
                            return Err(Diagnostic::error(codes::BAD_TYPE, list.span, "expected a list of types"));
                        };
                        let mut tys = Vec::new();
                        for t in elems {
                            tys.push(self.lower_type(t)?);
                        }
                        Ok(Type::Tuple(tys))
                    }
                    // Legacy call forms `pl.Tensor((64, 128), pl.FP16)`, `pl.Scalar(pl.FP32)`.
                    Some("Scalar") => {
                        let d = single_item(args, e.span, "`Scalar(...)` takes exactly one dtype")?;
                        Ok(Type::Scalar(self.lower_dtype(d)?))
                    }
                    Some("Tensor") => self.lower_shaped(e.span, true, args),
                    Some("Tile") => self.lower_shaped(e.span, false, args),
                    _ => Err(self.unknown_type(base)),
                }
            }
            _ => match self.type_name(e) {
                Some("MemRefType") => Ok(Type::MemRef),
                Some("UnknownType") => Ok(Type::Unknown),
                _ => Err(self.unknown_type(e)),
            },
        }
    }

    fn unknown_type(&self, e: &ast::Expr) -> Diagnostic {
        let p = &self.prefix;
        Diagnostic::error(codes::BAD_TYPE, e.span, "unknown type").with_note(format!(
            "expected {p}.Scalar[...], {p}.Tensor[...], {p}.Tile[...], {p}.Tuple([...]), {p}.MemRefType or {p}.UnknownType"
        ))
    }

    /// A dtype: `pl.FP32` or bare `FP32` (also `BF16`, `BFLOAT16`, `INDEX`).
    pub(super) fn lower_dtype(&self, e: &ast::Expr) -> R<DataType> {
        self.dtype_of(e).ok_or_else(|| {
            let d = Diagnostic::error(codes::UNKNOWN_DTYPE, e.span, "unknown dtype");
            let given = self.type_name(e).or_else(|| match &e.kind {
                ast::ExprKind::Attr(_, name) => Some(name.name.as_str()),
                _ => None,
            });
            match given.and_then(|g| super::scope::suggest_spelling(g, DataType::all_names())) {
                Some(dt) => d.with_note(format!("help: did you mean `{}.{dt}`?", self.prefix)),
                None => d.with_note(format!(
                    "expected one of {}",
                    DataType::all_names().map(|n| format!("{}.{}", self.prefix, n)).collect::<Vec<_>>().join(", ")
                )),
            }
        })
    }

    /// The dtype an expression names, if it names one.
    pub(super) fn dtype_of(&self, e: &ast::Expr) -> Option<DataType> {
        self.type_name(e).and_then(DataType::from_name)
    }

    fn lower_shaped(&mut self, span: Span, tensor: bool, items: &[Arg]) -> R<Type> {
        let what = if tensor { "Tensor" } else { "Tile" };
        let positional: Vec<&ast::Expr> = items
            .iter()
            .filter_map(|a| match a {
                Arg::Positional(e) => Some(e),
                Arg::Keyword(..) => None,
            })
            .collect();
        if positional.len() < 2 {
            return Err(Diagnostic::error(
                codes::BAD_TYPE,
                span,
                format!(
                    "`{what}[...]` needs a shape and a dtype, e.g. {}.{what}[[64, 64], {}.FP32]",
                    self.prefix, self.prefix
                ),
            ));
        }
        let shape = self.lower_dims(positional[0])?;
        let dtype = self.lower_dtype(positional[1])?;
        let mut memref = None;
        let mut tensor_view = None;
        let mut tile_view = None;
        let mut pending_named_memref: Option<&ast::Expr> = None;
        let mut npos = 0;
        for a in items {
            let (key, v) = match a {
                Arg::Positional(v) => {
                    npos += 1;
                    if npos <= 2 {
                        continue; // shape and dtype, lowered above
                    }
                    (None, v)
                }
                Arg::Keyword(k, v) => (Some(k), v),
            };
            let ctor = match &v.kind {
                A::Call(f, _) => self.prefixed_path(f).and_then(|p| (p.len() == 1).then(|| p[0])),
                _ => None,
            };
            match (key.map(|k| k.name.as_str()), ctor) {
                (None | Some("memref"), Some("MemRef")) => memref = Some(self.lower_memref_ctor(v)?),
                (Some("memref"), None) if matches!(v.kind, A::Name(_)) => pending_named_memref = Some(v),
                (None | Some("tensor_view"), Some("TensorView")) if tensor => {
                    tensor_view = Some(self.lower_tensor_view(v)?)
                }
                (None | Some("tile_view"), Some("TileView")) if !tensor => tile_view = Some(self.lower_tile_view(v)?),
                (None, None) if tensor && self.layout_of(v).is_some() => {
                    tensor_view = Some(TensorView { stride: Vec::new(), layout: self.layout_of(v).unwrap() })
                }
                (Some(k), _) if !matches!(k, "memref" | "tensor_view" | "tile_view") => {
                    return Err(Diagnostic::error(
                        codes::BAD_TYPE,
                        a.span(),
                        format!("unknown keyword `{k}` in a {what} type"),
                    ))
                }
                _ => {
                    return Err(Diagnostic::error(
                        codes::BAD_TYPE,
                        v.span,
                        format!(
                            "unexpected item in a {what} type; expected {p}.MemRef(...){}",
                            if tensor {
                                format!(", {p}.TensorView(...) or a layout", p = self.prefix)
                            } else {
                                format!(" or {}.TileView(...)", self.prefix)
                            },
                            p = self.prefix
                        ),
                    ))
                }
            }
        }
        if let Some(v) = pending_named_memref {
            let size = type_bytes(&shape, dtype);
            memref = Some(self.resolve_named_memref(v, size)?);
        }
        Ok(if tensor {
            Type::tensor(TensorType { dtype, shape, memref, view: tensor_view })
        } else {
            Type::tile(TileType { dtype, shape, memref, view: tile_view })
        })
    }

    fn layout_of(&self, e: &ast::Expr) -> Option<TensorLayout> {
        match self.type_path(e).as_deref() {
            Some([name]) | Some(["TensorLayout", name]) => TensorLayout::from_name(name),
            _ => None,
        }
    }

    /// Shape dims: a list or tuple of int literals, names and expressions.
    pub(super) fn lower_dims(&mut self, e: &ast::Expr) -> R<Vec<Expr>> {
        let (A::List(elems) | A::Tuple(elems)) = &e.kind else {
            return Err(Diagnostic::error(codes::BAD_TYPE, e.span, "expected a shape list like [64, 64]"));
        };
        elems.iter().map(|d| self.lower_dim(d)).collect()
    }

    /// One dimension. A name that is no variable in scope is a symbolic dimension: one symbol
    /// per name per function, also inside arithmetic (`M * 2`, today's composite dynamic
    /// dimensions). Anything else must be an integer scalar, and a constant one positive:
    /// pto-isa has no tile or tensor of a zero or negative extent, and a list where a dim
    /// belongs (`pl.Tensor[[[16, 16]], …]`) would otherwise reach the interpreter or codegen.
    fn lower_dim(&mut self, e: &ast::Expr) -> R<Expr> {
        if let A::Name(n) = &e.kind {
            if self.scopes.lookup(n).is_none() {
                return Ok(Expr::var(self.free_dim(n, e.span), e.span));
            }
        }
        let mut free = Vec::new();
        arithmetic_names(e, &mut free);
        free.retain(|(n, _)| self.scopes.lookup(n).is_none());
        let dim = if free.is_empty() {
            self.lower_expr(e)?
        } else {
            // The symbols are in scope for this dimension only.
            self.scopes.push();
            for (n, span) in &free {
                let v = self.free_dim(n, *span);
                self.scopes.bind(n, v);
            }
            let dim = self.lower_expr(e);
            self.scopes.pop();
            dim?
        };
        match self.vars.type_of(&dim) {
            Type::Scalar(d) if d.is_int() => {}
            Type::Unknown => {}
            other => {
                return Err(Diagnostic::error(
                    codes::BAD_TYPE,
                    e.span,
                    format!("a dimension must be an integer, but this is {}", describe_dim_type(other)),
                )
                .with_label("not an integer dimension")
                .with_note("help: a shape is one list of integers, e.g. [16, 16]"))
            }
        }
        match crate::ops::const_dim(&dim) {
            Some(v) if v <= 0 => Err(Diagnostic::error(
                codes::BAD_TYPE,
                e.span,
                format!("a dimension must be positive, but this one is {v}"),
            )
            .with_label("not a positive extent")),
            _ => Ok(dim),
        }
    }

    /// The symbol of the free dimension name `n` in the current function.
    fn free_dim(&mut self, n: &str, span: Span) -> VarId {
        if let Some(&v) = self.free_dims.get(n) {
            return v;
        }
        let v = self.vars.new_var(n, Type::Scalar(DataType::Int64), VarKind::Plain, span);
        self.free_dims.insert(n.to_string(), v);
        v
    }

    fn lower_exprs_list(&mut self, e: &ast::Expr) -> R<Vec<Expr>> {
        let (A::List(elems) | A::Tuple(elems)) = &e.kind else {
            return Err(Diagnostic::error(codes::BAD_TYPE, e.span, "expected a list like [a, b]"));
        };
        elems.iter().map(|d| self.lower_expr(d)).collect()
    }

    /// `pl.MemRef(pl.MemorySpace.Vec, addr, size, id)`, interned by id within the function.
    fn lower_memref_ctor(&mut self, e: &ast::Expr) -> R<VarId> {
        let A::Call(_, args) = &e.kind else { unreachable!("checked by caller") };
        let pos: Vec<&ast::Expr> = args
            .iter()
            .map(|a| match a {
                Arg::Positional(e) => Ok(e),
                Arg::Keyword(k, _) => Err(unexpected_keyword(k)),
            })
            .collect::<R<_>>()?;
        if pos.len() != 4 {
            return Err(Diagnostic::error(
                codes::BAD_MEMREF,
                e.span,
                format!("`MemRef(...)` takes 4 arguments (memory space, address, size, id), found {}", pos.len()),
            ));
        }
        let space = self.memory_space_of(pos[0])?;
        let addr = self.lower_expr(pos[1])?;
        let size = self.lower_u64(pos[2], "a MemRef size")?;
        let id = self.lower_u64(pos[3], "a MemRef id")?;
        self.intern_memref(MemRefInfo { space, addr, size, id }, None, e.span)
    }

    /// `pl.MemorySpace.Vec`.
    pub(super) fn memory_space_of(&self, e: &ast::Expr) -> R<MemorySpace> {
        match self.prefixed_path(e).as_deref() {
            Some(["MemorySpace", name]) => MemorySpace::from_name(name).ok_or_else(|| {
                unknown_member(e, "MemorySpace", &self.prefix, MemorySpace::ALL.iter().map(|m| m.name()))
            }),
            _ => Err(Diagnostic::error(
                codes::UNKNOWN_ENUM,
                e.span,
                format!("expected a memory space like {}.MemorySpace.Vec", self.prefix),
            )),
        }
    }

    fn lower_u64(&mut self, e: &ast::Expr, what: &str) -> R<u64> {
        match &e.kind {
            A::Int(v) => Ok(*v),
            _ => Err(Diagnostic::error(
                codes::BAD_TYPE,
                e.span,
                format!("expected a non-negative integer literal for {what}"),
            )),
        }
    }

    /// Returns the MemRef variable with this id in the current function, creating it on first
    /// sight. Two mentions of one id must agree on space, address and size.
    pub(super) fn intern_memref(&mut self, info: MemRefInfo, name: Option<&str>, span: Span) -> R<VarId> {
        if let Some(&v) = self.memrefs.get(&info.id) {
            if let VarKind::MemRef(old) = &self.vars.var(v).kind {
                if **old != info {
                    return Err(Diagnostic::error(
                        codes::BAD_MEMREF,
                        span,
                        format!(
                            "MemRef id {} is used with a different memory space, address or size than before",
                            info.id
                        ),
                    )
                    .with_label("described differently here")
                    .with_secondary(self.vars.var(v).span, "first described here"));
                }
            }
            return Ok(v);
        }
        let name = name.map_or_else(|| info.derived_name(), str::to_string);
        let id = info.id;
        let v = self.vars.new_var(name, Type::MemRef, VarKind::MemRef(Box::new(info)), span);
        self.memrefs.insert(id, v);
        Ok(v)
    }

    /// Old form `memref=mem_vec_3`: the MemRef defined by a `block.alloc` statement of that name,
    /// else decoded from the name (`mem_<space>_<id>`), with unknown address and the size of
    /// the type (§7 Q5).
    fn resolve_named_memref(&mut self, e: &ast::Expr, size: u64) -> R<VarId> {
        let A::Name(n) = &e.kind else { unreachable!("checked by caller") };
        if let Some(v) = self.scopes.lookup(n) {
            if matches!(self.vars.var(v).kind, VarKind::MemRef(_)) {
                return Ok(v);
            }
        }
        let decoded = n.strip_prefix("mem_").and_then(|rest| {
            let (space, id) = rest.rsplit_once('_')?;
            let space = MemorySpace::ALL.iter().copied().find(|m| m.lower_name() == space)?;
            Some((space, id.parse::<u64>().ok()?))
        });
        let Some((space, id)) = decoded else {
            return Err(Diagnostic::error(
                codes::BAD_MEMREF,
                e.span,
                format!("`{n}` is not a MemRef: expected the name of a `block.alloc` result or `mem_<space>_<id>`"),
            ));
        };
        if let Some(&v) = self.memrefs.get(&id) {
            return Ok(v);
        }
        let addr = Expr::int(-1, DataType::Int64, Span::NONE);
        self.intern_memref(MemRefInfo { space, addr, size, id }, Some(n), e.span)
    }

    /// `pl.TensorView(stride=[…], layout=pl.TensorLayout.ND)`.
    fn lower_tensor_view(&mut self, e: &ast::Expr) -> R<TensorView> {
        let A::Call(_, args) = &e.kind else { unreachable!("checked by caller") };
        let mut view = TensorView { stride: Vec::new(), layout: TensorLayout::Nd };
        for a in args {
            let Arg::Keyword(k, v) = a else {
                return Err(Diagnostic::error(
                    codes::BAD_TYPE,
                    a.span(),
                    "TensorView fields are given by keyword (stride=, layout=)",
                ));
            };
            match k.name.as_str() {
                "stride" => view.stride = self.lower_exprs_list(v)?,
                "layout" => {
                    view.layout = self.layout_of(v).ok_or_else(|| {
                        unknown_member(v, "TensorLayout", &self.prefix, TensorLayout::ALL.iter().map(|l| l.name()))
                    })?
                }
                _ => return Err(unexpected_keyword(k)),
            }
        }
        Ok(view)
    }

    /// `pl.TileView(valid_shape=[…], stride=[…], start_offset=E, blayout=…, slayout=…, fractal=N, pad=…)`.
    fn lower_tile_view(&mut self, e: &ast::Expr) -> R<TileView> {
        let A::Call(_, args) = &e.kind else { unreachable!("checked by caller") };
        let mut view = TileView::default();
        for a in args {
            let Arg::Keyword(k, v) = a else {
                return Err(Diagnostic::error(
                    codes::BAD_TYPE,
                    a.span(),
                    "TileView fields are given by keyword (valid_shape=, stride=, …)",
                ));
            };
            match k.name.as_str() {
                "valid_shape" => view.valid_shape = self.lower_exprs_list(v)?,
                "stride" => view.stride = self.lower_exprs_list(v)?,
                "start_offset" => {
                    view.start_offset = match v.kind {
                        A::Unsupported => None,
                        _ => Some(Box::new(self.lower_expr(v)?)),
                    }
                }
                "blayout" => view.blayout = self.tile_layout_of(v)?,
                "slayout" => view.slayout = self.tile_layout_of(v)?,
                "fractal" => view.fractal = self.lower_u64(v, "fractal")?,
                "pad" => {
                    view.pad = match self.prefixed_path(v).as_deref() {
                        // `pl.PadValue` is today's PyPTO name of the enum.
                        Some(["TilePad" | "PadValue", name]) => TilePad::from_name(name),
                        _ => None,
                    }
                    .ok_or_else(|| unknown_member(v, "TilePad", &self.prefix, TilePad::ALL.iter().map(|l| l.name())))?
                }
                _ => return Err(unexpected_keyword(k)),
            }
        }
        Ok(view)
    }

    fn tile_layout_of(&self, e: &ast::Expr) -> R<TileLayout> {
        match self.prefixed_path(e).as_deref() {
            Some(["TileLayout", name]) => TileLayout::from_name(name),
            _ => None,
        }
        .ok_or_else(|| unknown_member(e, "TileLayout", &self.prefix, TileLayout::ALL.iter().map(|l| l.name())))
    }
}

/// The most dims a shape may have to be shared by [`Lowerer::lower_type`].
const MAX_CONSTANT_RANK: usize = 4;
/// The most distinct constant-shape types a lowering keeps (the cache is searched linearly).
pub(super) const MAX_CONSTANT_TYPES: usize = 32;

/// A Tensor or Tile annotation with a constant shape and no MemRef or view; see
/// [`Lowerer::constant_shaped_key`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ConstantShaped {
    tensor: bool,
    rank: u8,
    /// The dims; those past `rank` are 0.
    dims: [i64; MAX_CONSTANT_RANK],
    dtype: DataType,
}

/// Bytes of a tensor/tile with constant dims (0 when a dim is symbolic).
pub(super) fn type_bytes(shape: &[Expr], dtype: DataType) -> u64 {
    let mut n: u64 = 1;
    for d in shape {
        match d.as_const_int() {
            Some(v) if v >= 0 => n = n.saturating_mul(v as u64),
            _ => return 0,
        }
    }
    (n.saturating_mul(dtype.bits() as u64)).div_ceil(8)
}

/// What a dimension of the wrong kind is, for the message: `a list`, `a FP32 scalar`, ….
fn describe_dim_type(t: &Type) -> String {
    match t {
        Type::Tuple(_) => "a list".into(),
        Type::Scalar(d) => format!("a scalar of dtype {}", d.name()),
        other => format!("a {}", other.kind_name()),
    }
}

fn single_item<'a>(items: &'a [Arg], span: Span, msg: &str) -> R<&'a ast::Expr> {
    match items {
        [Arg::Positional(e)] => Ok(e),
        _ => Err(Diagnostic::error(codes::BAD_TYPE, span, msg)),
    }
}

fn unexpected_keyword(k: &ast::Ident) -> Diagnostic {
    Diagnostic::error(codes::BAD_TYPE, k.span, format!("unexpected keyword `{}`", k.name))
}

fn unknown_member<'a>(
    e: &ast::Expr,
    enum_name: &str,
    prefix: &str,
    names: impl Iterator<Item = &'a str> + Clone,
) -> Diagnostic {
    let d = Diagnostic::error(codes::UNKNOWN_ENUM, e.span, format!("unknown {enum_name} value"));
    let given = match &e.kind {
        ast::ExprKind::Attr(_, name) => Some(name.name.as_str()),
        ast::ExprKind::Name(n) => Some(n.as_str()),
        _ => None,
    };
    match given.and_then(|g| super::scope::suggest_spelling(g, names.clone())) {
        Some(m) => d.with_note(format!("help: did you mean `{prefix}.{enum_name}.{m}`?")),
        None => d.with_note(format!(
            "expected one of {}",
            names.map(|n| format!("{prefix}.{enum_name}.{n}")).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// The names of an arithmetic expression (names, integers, unary and binary operators; not
/// inside calls or attributes), with their spans.
fn arithmetic_names(e: &ast::Expr, out: &mut Vec<(String, Span)>) {
    match &e.kind {
        A::Name(n) => out.push((n.to_string(), e.span)),
        A::Binary(_, a, b) => {
            arithmetic_names(a, out);
            arithmetic_names(b, out);
        }
        A::Unary(_, a) => arithmetic_names(a, out),
        _ => {}
    }
}
