//! One `func.func` (spec `pto-codegen.md` §2): signature, constants, tensor views, tile
//! buffers and body, in that order. The body is generated first into a side buffer, because
//! the constants it needs are declared above everything else.

use rustc_hash::FxHashMap;

use super::namer::{push_line, Namer};
use super::types;
use crate::analysis::pto_buffers::{self as buffers, Buffers};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{Function, FunctionType, Type, VarTable};

/// Indentation of the function's own lines: the same two spaces as the `func.func` line (§2).
pub const BASE_INDENT: usize = 2;

pub type Res<T> = Result<T, Diagnostic>;

/// A tensor parameter's `pto.make_tensor_view` value.
pub struct View {
    pub value: String,
    pub rank: usize,
    pub dtype: &'static str,
}

/// The state of one function's generation.
pub struct FnGen<'p> {
    pub vars: &'p VarTable,
    pub names: Namer,
    pub buffers: Buffers,
    /// Value and type string of each buffer, by index.
    pub buffer_values: Vec<(String, String)>,
    /// Tensor parameters' views by parameter name.
    pub views: FxHashMap<String, View>,
    /// The tensor parameter each tensor variable aliases (`analysis::param_roots`).
    pub tensor_roots: FxHashMap<crate::ir::VarId, crate::analysis::param_roots::Root>,
    /// The body's lines.
    pub body: String,
    /// Indentation of the next body line, in spaces.
    pub indent: usize,
    /// The values of the last `yield` met, taken by the enclosing `for`/`if`.
    pub yielded: Option<Vec<String>>,
}

/// A dtype without a spelling (§13's `Invalid DataType value`), at `span`: the PTO form rule
/// refuses every dtype the writer spells (parameters, tile buffers, float scalars and the
/// scalar operands of block ops).
pub fn invalid_dtype(span: Span) -> Diagnostic {
    broken(span, "a dtype the dialect does not spell")
}

/// An error of the writer on a construct the PTO form rule ([`crate::verify::pto_form`])
/// refuses: a bug of ptoc, an internal error.
pub fn broken(span: crate::diag::Span, what: &str) -> Diagnostic {
    Diagnostic::internal(codes::NO_PTO_FORM, span, format!("PTO codegen: {what}, which the PTO form rule refuses"))
}

/// The MLIR spelling of `d`, or an internal error at `span` ([`invalid_dtype`]).
pub fn spell(d: crate::ir::DataType, span: Span) -> Res<&'static str> {
    types::dtype(d).ok_or_else(|| invalid_dtype(span))
}

/// The text of `func.func @f` with its closing line.
pub fn generate(f: &Function) -> Res<String> {
    let vars = &f.vars;
    if f.kind == FunctionType::Orchestration {
        return Err(broken(f.span, &format!("the Orchestration function {}", f.name)));
    }
    let mut params = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let var = vars.var(p.var);
        let ty = match &var.ty {
            Type::Tensor(t) => format!("!pto.ptr<{}>", spell(t.dtype, var.span)?),
            Type::Scalar(d) => spell(*d, var.span)?.to_string(),
            // The reference's spelling of any other parameter (a tile): kept for conformance.
            _ => "!pto.ptr<f32>".to_string(),
        };
        params.push(format!("%arg{i}: {ty}"));
    }

    let mut g = FnGen {
        vars,
        names: Namer::default(),
        buffers: buffers::collect(vars, &f.body),
        buffer_values: Vec::new(),
        views: FxHashMap::default(),
        tensor_roots: crate::analysis::param_roots::roots(f),
        body: String::new(),
        indent: BASE_INDENT,
        yielded: None,
    };
    refuse_nd_tiles(vars, &f.body)?;
    // 1. buffers, 2. tensor views take the first counter values (§3).
    for b in &g.buffers.list {
        let ty = types::tile_buf(&b.tile, b.key.0).map_err(|()| invalid_dtype(vars.var(b.var).span))?;
        let value = g.names.fresh();
        g.buffer_values.push((value, ty));
    }
    let mut view_lines = Vec::new();
    let tensor_params: Vec<(usize, &crate::ir::VarData)> = f
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| (i, vars.var(p.var)))
        .filter(|(_, v)| matches!(v.ty, Type::Tensor(_)))
        .collect();
    for (i, var) in &tensor_params {
        let Type::Tensor(t) = &var.ty else { continue };
        // `pto.make_tensor_view` is given constant extents and strides here; a runtime extent
        // would need an index argument of the function, which the kernel ABI does not pass.
        if t.shape.iter().any(|d| d.as_const_int().is_none()) {
            return Err(broken(var.span, &format!("tensor parameter `{}` with a runtime extent", var.name)));
        }
        let value = g.names.fresh();
        let dtype = spell(t.dtype, var.span)?;
        view_lines.push((*i, value.clone(), t.clone()));
        g.views.insert(var.name.clone(), View { value, rank: t.shape.len(), dtype });
    }
    // Constants of the tensor views, pre-scanned in parameter order (§6.1).
    let mut view_text = String::new();
    for (i, value, t) in view_lines {
        let dims: Vec<String> =
            t.shape.iter().map(|d| g.names.index_const(d.as_const_int().unwrap_or(0), BASE_INDENT)).collect();
        let strides: Vec<String> = match dims.len() {
            2 => vec![dims[1].clone(), g.names.index_const(1, BASE_INDENT)],
            1 => vec![g.names.index_const(1, BASE_INDENT)],
            _ => Vec::new(),
        };
        // No comma before `strides` (§4.4): the reference's spelling.
        push_line(
            &mut view_text,
            BASE_INDENT,
            &format!(
                "{value} = pto.make_tensor_view %arg{i}, shape = [{}] strides = [{}] : {}",
                dims.join(", "),
                strides.join(", "),
                types::tensor_view(t.shape.len(), spell(t.dtype, f.span)?)
            ),
        );
    }
    for (i, p) in f.params.iter().enumerate() {
        g.names.bind(vars.var_name(p.var), format!("%arg{i}"));
    }
    let targets = std::mem::take(&mut g.buffers.targets);
    for (name, k) in &targets {
        let value = g.buffer_values[*k].0.clone();
        g.names.bind(name, value);
    }

    g.stmt(&f.body)?;

    let mut out = String::new();
    push_line(&mut out, 2, &format!("func.func @{}({}) {{", f.name, params.join(", ")));
    out.push_str(g.names.constants());
    out.push_str(&view_text);
    for (value, ty) in &g.buffer_values {
        push_line(&mut out, BASE_INDENT, &format!("{value} = pto.alloc_tile : {ty}"));
    }
    out.push_str(&g.body);
    push_line(&mut out, BASE_INDENT, "return");
    push_line(&mut out, 2, "}");
    Ok(out)
}

impl FnGen<'_> {
    /// Appends a body line at the current indentation.
    pub fn line(&mut self, text: &str) {
        push_line(&mut self.body, self.indent, text);
    }
}

/// A tile of more than two dimensions, which the PTO form rule refuses (a `!pto.tile_buf` has
/// two).
fn refuse_nd_tiles(vars: &crate::ir::VarTable, body: &crate::ir::Stmt) -> Result<(), Diagnostic> {
    let mut found = None;
    crate::ir::visit::walk_stmts(body, &mut |s| {
        if let crate::ir::Stmt::Assign { var, span, .. } = s {
            if let crate::ir::Type::Tile(t) = vars.var_type(*var) {
                if t.shape.len() > 2 && found.is_none() {
                    found = Some((*span, t.shape.len()));
                }
            }
        }
    });
    match found {
        None => Ok(()),
        Some((span, rank)) => Err(broken(span, &format!("a {rank}-D tile"))),
    }
}
