//! The writer of one kernel's C++ text: the output and its indentation, the C++ names of IR
//! variables, tile declarations and views, and the C++ form of operands. The statements
//! ([`super::kernel`]) and op calls ([`super::calls`]) are written through it.

use std::fmt::{self, Write};
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::ctype::{tile_type_homed, TileCType};
use super::expr::write_value;
use super::namer::Namer;
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{Expr, TileType, Type, VarId, VarTable};
use crate::text::{cat, Hex};

/// On-chip places of tiles whose MemRef is in DDR: MemRef → memory and address.
pub(super) type Homes = FxHashMap<VarId, (crate::ir::MemorySpace, i64)>;

/// A tile operand in C++: its name and its type.
#[derive(Clone, Debug)]
pub(super) struct TileRef {
    pub name: Rc<str>,
    pub ct: TileCType,
}

/// The data pointer and `Tensor*` behind a GlobalTensor-valued variable.
#[derive(Clone, Debug)]
pub(super) struct Global {
    pub ptr: String,
    pub tensor: String,
}

pub(super) struct Kernel<'p> {
    pub(super) vars: &'p VarTable,
    pub(super) namer: Namer,
    /// IR variable → C++ name (shared, so handing a name out is a reference-count increment).
    /// The lookup-only maps are hashed: none is iterated, so no order reaches the output.
    pub(super) names: FxHashMap<VarId, Rc<str>>,
    /// Variables naming a GlobalTensor → its pointer and `Tensor*`.
    pub(super) globals: FxHashMap<VarId, Global>,
    /// The data pointers (`Global::ptr`) of the `In` tensor parameters: the tensors the kernel
    /// never writes, which a scalar read (`tensor.read`) may read without a sync.
    pub(super) read_only: FxHashSet<String>,
    /// A parameter's data pointer name (`Global::ptr`) → its GlobalTensor variable, declared in
    /// the prologue: the initial value of a tensor result of an `if`, which is visible before
    /// the `if` and has the type of every GlobalTensor over that parameter.
    pub(super) global_roots: FxHashMap<String, Rc<str>>,
    /// Variables whose C++ declaration has been emitted (later assignments drop `auto`).
    pub(super) declared: FxHashSet<VarId>,
    pub(super) out: String,
    pub(super) indent: usize,
    /// Tile iter args whose carried value nobody reads (see [`crate::verify::cce_form::dead_tile_carries`]): their
    /// yields move nothing.
    pub(super) dead_carries: FxHashSet<VarId>,
    /// Values of the last `yield`, consumed by the enclosing `for`/`if`.
    pub(super) pending_yield: Option<Vec<String>>,
    /// The `Tile<…>` text and the `(rows, cols);` constructor arguments of the last tile
    /// declared, for its type without the address: the tiles of a kernel mostly share a few
    /// types, so both are usually copied, not rebuilt.
    pub(super) tile_text: (Option<TileCType>, String, String),
    /// Declarations of tile views made while the body is emitted; they are
    /// inserted at `decls_at`, after the prologue's tile declarations.
    pub(super) extra_decls: String,
    pub(super) decls_at: usize,
    /// The text of a view's declaration → its name (each is declared once).
    pub(super) views: FxHashMap<String, Rc<str>>,
    /// The declaration text (`Tile<…>`, constructor arguments, address) of each placed tile
    /// declared in the prologue → the name of the first tile declared so.
    pub(super) placed_tiles: FxHashMap<String, Rc<str>>,
    /// On-chip places of the tile results of `if`s, which init-mem-ref puts in DDR (MemRef →
    /// memory and address), after the function's tiles ([`tile_homes`]).
    pub(super) homes: Homes,
    /// Variables defined inside a statement and used after it, declared before it (keyed by
    /// the statement's address).
    pub(super) hoisted: FxHashMap<usize, Vec<(VarId, Option<VarId>)>>,
    /// The loops around the statement being emitted, innermost last: whether each carries
    /// values (iter args), which a `break` or `continue` would skip updating.
    pub(super) loops: Vec<bool>,
}

impl<'p> Kernel<'p> {
    /// One line at the current indentation.
    pub fn line(&mut self, s: &str) {
        self.start_line();
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// One formatted line at the current indentation, written in place (no `String` per line).
    pub fn linef(&mut self, args: fmt::Arguments<'_>) {
        self.start_line();
        // Writing into a String cannot fail.
        let _ = self.out.write_fmt(args);
        self.out.push('\n');
    }

    /// Starts a line piece by piece: the indentation; text appended to [`Kernel::out`] and
    /// [`Kernel::push_value`] add to it, [`Kernel::end_line`] ends it.
    pub fn start_line(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
    }

    /// The text so far, to append to the current line.
    pub fn out(&mut self) -> &mut String {
        &mut self.out
    }

    /// Appends the C++ value of a scalar expression to the current line.
    pub fn push_value(&mut self, e: &Expr) -> Result<(), Diagnostic> {
        let (names, vars) = (&self.names, self.vars);
        write_value(e, &|v, at| lookup(names, vars, v, at.span), &mut self.out)
    }

    pub fn end_line(&mut self) {
        self.out.push('\n');
    }

    pub fn blank(&mut self) {
        self.out.push('\n');
    }

    /// Gives `var` a C++ name with the derived identifiers `suffixes` reserved.
    pub(super) fn name_var(&mut self, var: VarId, suffixes: &[&str]) -> Rc<str> {
        let n = self.namer.claim(self.vars.var_name(var), suffixes);
        self.names.insert(var, n.clone());
        n
    }

    /// The C++ name of `var` (a use at `span`).
    pub fn name_of(&self, var: VarId, span: Span) -> Result<Rc<str>, Diagnostic> {
        self.names.get(&var).cloned().ok_or_else(|| not_in_context(self.vars, var, span))
    }

    /// The C++ value string of a scalar expression.
    pub fn value(&self, e: &Expr) -> Result<String, Diagnostic> {
        super::expr::value(e, &|v, at| lookup(&self.names, self.vars, v, at.span))
    }

    pub fn type_of<'e>(&self, e: &'e Expr) -> &'e Type
    where
        'p: 'e,
    {
        self.vars.type_of(e)
    }

    // ---------------------------------------------------------------------------------------
    // Tile operands, views and scratch tiles

    /// The tile operand `e` (a tile variable).
    pub fn tile_ref(&self, e: &Expr) -> Result<TileRef, Diagnostic> {
        // The C++ form rule refuses a tile argument that is not a variable.
        let var = e.as_var().ok_or_else(|| broken(e.span, "a tile operand that is not a variable"))?;
        self.tile_var(var, e.span)
    }

    /// The tile variable `var` used at `span`.
    pub fn tile_var(&self, var: VarId, span: Span) -> Result<TileRef, Diagnostic> {
        // Binding checks each argument against its parameter's kind, which is a tile where a
        // form reads one (`ops::tests::cce_forms_agree_with_argument_binding`).
        let Type::Tile(t) = self.vars.var_type(var) else {
            return Err(broken(
                span,
                &format!("a {} {} used as a tile", self.vars.var_type(var).kind_name(), self.vars.var_name(var)),
            ));
        };
        let ct = tile_type_homed(self.vars, t, span, &self.homes)?;
        Ok(TileRef { name: self.name_of(var, span)?, ct })
    }

    /// The memory of `t` seen as the tile type `ct` (same address): a declaration made once.
    /// A tile without an address is returned unchanged.
    pub fn view(&mut self, t: &TileRef, ct: TileCType, suffix: &str) -> TileRef {
        if t.ct == ct || t.ct.addr.is_none() {
            return t.clone();
        }
        let name = self.declare_extra(&format!("{}_{suffix}", t.name), ct, (ct.rows, ct.cols));
        TileRef { name, ct }
    }

    /// Declares a tile of type `ct` with valid shape `valid` (once per distinct declaration)
    /// among the extra declarations; its name is derived from `base`.
    pub(super) fn declare_extra(&mut self, base: &str, ct: TileCType, valid: (i64, i64)) -> Rc<str> {
        let mut key = String::new();
        cat!(&mut key; base, "|", &ct, "|", valid.0, "|", valid.1, "|", ct.addr.unwrap_or(-1));
        if let Some(n) = self.views.get(&key) {
            return n.clone();
        }
        let n = self.namer.claim(base, &["", "Type"]);
        cat!(&mut self.extra_decls; "    using ", &n, "Type = ", &ct, ";\n");
        cat!(&mut self.extra_decls; "    ", &n, "Type ", &n, "(", valid.0, ", ", valid.1, ");\n");
        if let Some(a) = ct.addr {
            cat!(&mut self.extra_decls; "    TASSIGN(", &n, ", 0x", Hex(a.unsigned_abs()), ");\n");
        }
        self.views.insert(key, n.clone());
        n
    }

    /// `using tType = Tile<…>; tType t(rows, cols); TASSIGN(t, addr);`.
    ///
    /// With `share` (the prologue's declarations, all in the kernel's outermost scope), a placed
    /// tile declared exactly like an earlier one, the same memory seen the same way, is a
    /// reference to that tile's object: a second object would cost a `TASSIGN` on the scalar
    /// pipe and hold nothing new (the buffer of a tile that allocate-memory-addr hands to a
    /// later one of the same type: a compare's mask buffer, a tile of ones built in the buffer
    /// of the select that reads it, the result of an op computed in place).
    pub(super) fn declare_tile(
        &mut self,
        var: VarId,
        t: &TileType,
        span: Span,
        share: bool,
    ) -> Result<Rc<str>, Diagnostic> {
        let ty = tile_type_homed(self.vars, t, span, &self.homes)?;
        let n = self.name_var(var, &["", "Type"]);
        let key = ty.without_addr();
        // The constructor's valid rows and columns: the view's valid shape where it is given
        // (a bit mask's packed bytes), else the whole tile.
        let valid = match t.view.as_ref().map(|v| v.valid_shape.as_slice()) {
            Some([r, c]) => r.as_const_int().zip(c.as_const_int()),
            _ => None,
        };
        if self.tile_text.0 != Some(key) || valid.is_some() {
            self.tile_text.1.clear();
            cat!(&mut self.tile_text.1; &ty);
            self.tile_text.2.clear();
            let (rows, cols) = valid.unwrap_or((ty.rows, ty.cols));
            cat!(&mut self.tile_text.2; "(", rows, ", ", cols, ");\n");
            self.tile_text.0 = if valid.is_some() { None } else { Some(key) };
        }
        if let (Some(a), true) = (ty.addr, share && !dynamic_valid(t)) {
            let key = format!("{}{}{a:x}", self.tile_text.1, self.tile_text.2);
            if let Some(first) = self.placed_tiles.get(&key).cloned() {
                self.start_line();
                cat!(&mut self.out; "auto& ", &n, " = ", &first, ";\n");
                self.declared.insert(var);
                return Ok(n);
            }
            self.placed_tiles.insert(key, n.clone());
        }
        // The hottest lines of a kernel: appended piece by piece (see `crate::text`).
        self.start_line();
        cat!(&mut self.out; "using ", &n, "Type = ", &self.tile_text.1, ";\n");
        self.start_line();
        cat!(&mut self.out; &n, "Type ", &n, &self.tile_text.2);
        if let Some(a) = ty.addr {
            self.start_line();
            // `tile_type` only gives non-negative addresses.
            cat!(&mut self.out; "TASSIGN(", &n, ", 0x", Hex(a.unsigned_abs()), ");\n");
        }
        self.declared.insert(var);
        Ok(n)
    }

    /// The C++ target of an assignment to `var`: its name, given on first definition.
    pub fn target(&mut self, var: VarId) -> Rc<str> {
        match self.names.get(&var) {
            Some(n) => n.clone(),
            None => self.name_var(var, &[""]),
        }
    }

    /// `auto ` on the first declaration of `var`, nothing on a re-assignment.
    pub fn declare(&mut self, var: VarId) -> &'static str {
        if self.declared.insert(var) {
            "auto "
        } else {
            ""
        }
    }
}

/// Whether tile type `t` has a valid shape given at run time (an extent that is not a
/// constant): its object's valid rows and columns are set where it is defined, so it is an
/// object of its own, never a reference to another tile's.
pub(super) fn dynamic_valid(t: &TileType) -> bool {
    t.view.as_ref().is_some_and(|v| v.valid_shape.iter().any(|e| e.as_const_int().is_none()))
}

/// IR the C++ form rule ([`crate::verify::cce_form`]) refuses, found by the writer: a bug of
/// ptoc (the rule runs on every kernel before its C++ is written).
pub(super) fn broken(span: Span, what: &str) -> Diagnostic {
    Diagnostic::internal(codes::NO_CPP_FORM, span, format!("CCE codegen: {what}, which the C++ form rule refuses"))
}

/// The C++ name of `var` in `names` (a use at `span`).
fn lookup<'n>(
    names: &'n FxHashMap<VarId, Rc<str>>,
    vars: &VarTable,
    var: VarId,
    span: Span,
) -> Result<&'n str, Diagnostic> {
    names.get(&var).map(|n| &**n).ok_or_else(|| not_in_context(vars, var, span))
}

fn not_in_context(vars: &VarTable, var: VarId, span: Span) -> Diagnostic {
    Diagnostic::error(
        codes::NO_CPP_FORM,
        span,
        format!("CCE codegen: Variable {} not found in context", vars.var_name(var)),
    )
    .with_note("the value is used outside the scope where the generated C++ declares it")
}
