//! The call context of result-type deduction (spec §4): [`Cx`], kwarg validation, arity and
//! argument kinds ([`Expect`]). `ops::deduce_call` runs these checks, then the op's rule
//! (`rules.rs`, which reads the call through [`Cx`]) computes the result type.
//!
//! Errors are [`DeduceError`]s that say which argument or kwarg is at fault, so that
//! `build_op_call` can point at it and `deduce_type` can report a plain message.

use super::kwvalue;
use super::shape::{
    broadcast, const_dim, fmt_dims, fmt_type, is_index_scalar, is_int_scalar, norm_axis, tuple_element_types,
    tuple_elements,
};
use super::table::{Expect, OpDef, Slot};
use crate::ir::{DataType, Expr, ExprKind, KwValue, MemorySpace, TensorType, TileType, Type, VarTable};

/// What a deduction error is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Wrong number of arguments, or a missing required kwarg.
    Count,
    /// Argument `i` has the wrong kind.
    Arg(usize),
    /// The kwarg of this name is unknown or of the wrong kind.
    Kwarg(String),
    /// A check of the rule failed (optionally about argument `i`).
    Check(Option<usize>),
}

#[derive(Clone, Debug)]
pub(crate) struct DeduceError {
    pub fault: Fault,
    pub message: String,
}

type R<T> = Result<T, DeduceError>;

/// The call being typed.
pub(crate) struct Cx<'a> {
    pub vars: &'a VarTable,
    pub def: &'static OpDef,
    pub args: &'a [Expr],
    pub kwargs: &'a [(&'static str, KwValue)],
}

impl<'a> Cx<'a> {
    pub(super) fn name(&self) -> &'static str {
        self.def.name
    }
    pub(super) fn check(&self, message: String) -> DeduceError {
        DeduceError { fault: Fault::Check(None), message: format!("The operator {} {message}", self.name()) }
    }
    pub(super) fn check_at(&self, i: usize, message: String) -> DeduceError {
        DeduceError { fault: Fault::Check(Some(i)), message: format!("The operator {} {message}", self.name()) }
    }
    pub(super) fn ensure(&self, cond: bool, message: impl FnOnce() -> String) -> R<()> {
        if cond {
            Ok(())
        } else {
            Err(self.check(message()))
        }
    }
    pub(super) fn dims(&self, dims: &[Expr]) -> String {
        fmt_dims(self.vars, dims)
    }

    // ---- validation shared by every rule

    /// Kwargs: known names (only when the op declares kwargs, as in the reference), right kinds,
    /// required ones present.
    pub(super) fn check_kwargs(&self) -> R<()> {
        let def = self.def;
        if def.kwargs.is_empty() {
            return Ok(());
        }
        for (k, v) in self.kwargs {
            let Some(spec) = def.kwarg(k) else {
                return Err(DeduceError {
                    fault: Fault::Kwarg(k.to_string()),
                    message: format!("Unknown kwarg '{k}' for operator '{}'", def.name),
                });
            };
            if !kwvalue::accepts(spec.kind, v) {
                return Err(DeduceError {
                    fault: Fault::Kwarg(k.to_string()),
                    message: format!(
                        "{} expects {} for '{k}', found {}",
                        def.name,
                        kwvalue::expected(spec.kind),
                        kwvalue::describe(v)
                    ),
                });
            }
        }
        for spec in def.kwargs.iter().filter(|s| s.required && s.default.is_none()) {
            if self.kw(spec.name).is_none() {
                return Err(DeduceError {
                    fault: Fault::Count,
                    message: format!("The operator {} requires the kwarg '{}'", def.name, spec.name),
                });
            }
        }
        Ok(())
    }

    /// Arity (the number of argument parameters) and each argument's [`Expect`].
    pub(super) fn check_args(&self) -> R<()> {
        let n = self.def.arity();
        if !(self.def.min_arity()..=n).contains(&self.args.len()) {
            let names: Vec<&str> = self.def.arg_params().map(|p| p.name).collect();
            return Err(DeduceError {
                fault: Fault::Count,
                message: format!(
                    "The operator {} requires {} ({}), but got {}",
                    self.name(),
                    match self.def.min_arity() {
                        m if m == n => plural(n, "argument"),
                        m => format!("{m} to {n} arguments"),
                    },
                    names.join(", "),
                    self.args.len()
                ),
            });
        }
        for (i, p) in self.def.arg_params().enumerate().take(self.args.len()) {
            if let Slot::Arg { expect, .. } = p.slot {
                self.check_expect(i, p.name, expect)?;
            }
        }
        Ok(())
    }

    fn check_expect(&self, i: usize, pname: &str, expect: Expect) -> R<()> {
        let e = &self.args[i];
        let ty = self.vars.type_of(e);
        let ok = match expect {
            Expect::Any => true,
            Expect::Tensor => matches!(ty, Type::Tensor(_)),
            Expect::Tile => matches!(ty, Type::Tile(_)),
            Expect::Scalar => matches!(ty, Type::Scalar(_)),
            Expect::List => matches!(e.kind, ExprKind::MakeTuple(_)),
            Expect::IntTuple | Expect::IndexTuple => {
                let elem_ok = if expect == Expect::IntTuple { is_int_scalar } else { is_index_scalar };
                match tuple_element_types(self.vars, e) {
                    Some(ts) => {
                        if let Some(bad) = ts.iter().find(|t| !elem_ok(t)) {
                            return Err(DeduceError {
                                fault: Fault::Arg(i),
                                message: format!(
                                    "{} expects {} elements in argument {} ({pname}), found {}",
                                    self.name(),
                                    if expect == Expect::IntTuple {
                                        "integer scalar"
                                    } else {
                                        "INT64 or UINT64 scalar"
                                    },
                                    i + 1,
                                    fmt_type(self.vars, bad)
                                ),
                            });
                        }
                        true
                    }
                    None => false,
                }
            }
            Expect::ConstInt => const_dim(e).is_some(),
            Expect::Const => matches!(kwvalue::literal_value(e), Some(KwValue::Int(_) | KwValue::Float(_))),
        };
        if ok {
            return Ok(());
        }
        Err(DeduceError {
            fault: Fault::Arg(i),
            message: format!(
                "{} expects {} for argument {} ({pname}), found {}",
                self.name(),
                expect_name(expect),
                i + 1,
                describe_arg(self.vars, e)
            ),
        })
    }

    // ---- accessors (kinds were checked by `check_args`; they still fail gracefully)

    pub(super) fn ty(&self, i: usize) -> &'a Type {
        self.args.get(i).map_or(&Type::Unknown, |e| self.vars.type_of(e))
    }
    pub(super) fn wrong(&self, i: usize, what: &str) -> DeduceError {
        DeduceError {
            fault: Fault::Arg(i),
            message: format!("{} expects {what} for argument {}, found {}", self.name(), i + 1, self.ty(i).kind_name()),
        }
    }
    /// Shape and dtype of a Tensor or Tile argument.
    pub(super) fn shaped(&self, i: usize) -> R<(&'a [Expr], DataType)> {
        match self.ty(i) {
            Type::Tensor(t) => Ok((&t.shape, t.dtype)),
            Type::Tile(t) => Ok((&t.shape, t.dtype)),
            _ => Err(self.wrong(i, "a Tensor or Tile")),
        }
    }
    pub(super) fn tile(&self, i: usize) -> R<&'a TileType> {
        match self.ty(i) {
            Type::Tile(t) => Ok(t),
            _ => Err(self.wrong(i, "a Tile")),
        }
    }
    pub(super) fn tensor(&self, i: usize) -> R<&'a TensorType> {
        match self.ty(i) {
            Type::Tensor(t) => Ok(t),
            _ => Err(self.wrong(i, "a Tensor")),
        }
    }
    /// dtype of a Scalar, Tensor or Tile argument.
    pub(super) fn dtype(&self, i: usize) -> R<DataType> {
        self.ty(i).dtype().ok_or_else(|| self.wrong(i, "a Scalar, Tensor or Tile"))
    }
    pub(super) fn const_int(&self, i: usize) -> R<i64> {
        self.args.get(i).and_then(const_dim).ok_or_else(|| self.wrong(i, "an integer constant"))
    }
    pub(super) fn tuple(&self, i: usize) -> R<Vec<Expr>> {
        self.args.get(i).and_then(|e| tuple_elements(self.vars, e)).ok_or_else(|| self.wrong(i, "a tuple"))
    }
    pub(super) fn list(&self, i: usize) -> R<&'a [Expr]> {
        match self.args.get(i).map(|e| &e.kind) {
            Some(ExprKind::MakeTuple(items)) => Ok(items),
            _ => Err(self.wrong(i, "a list literal")),
        }
    }
    /// The kwarg's value, or its constructor default when the call leaves it out (calls in
    /// the printed spelling are kept as written, so they may lack defaulted kwargs).
    pub(super) fn kw(&self, name: &str) -> Option<KwValue> {
        super::kwargs::value_or_default(self.def, self.kwargs, name)
    }
    pub(super) fn kw_int(&self, name: &str) -> Option<i64> {
        match self.kw(name) {
            Some(KwValue::Int(v)) => Some(v),
            _ => None,
        }
    }
    pub(super) fn kw_bool(&self, name: &str) -> Option<bool> {
        match self.kw(name) {
            Some(KwValue::Bool(v)) => Some(v),
            _ => None,
        }
    }
    pub(super) fn missing_kw(&self, name: &str) -> DeduceError {
        DeduceError {
            fault: Fault::Count,
            message: format!("The operator {} requires the kwarg '{name}'", self.name()),
        }
    }
    pub(super) fn kw_dtype(&self, name: &str) -> R<DataType> {
        match self.kw(name) {
            Some(KwValue::DType(d)) => Ok(d),
            Some(KwValue::Int(code)) => kwvalue::dtype_from_code(code).ok_or_else(|| self.missing_kw(name)),
            _ => Err(self.missing_kw(name)),
        }
    }
    pub(super) fn kw_space(&self, name: &str) -> R<MemorySpace> {
        match self.kw(name) {
            Some(KwValue::Space(s)) => Ok(s),
            _ => Err(self.missing_kw(name)),
        }
    }
    /// A static shape: a non-empty list of positive constants (`create_tile`, `full`).
    pub(super) fn static_shape(&self, i: usize) -> R<Vec<Expr>> {
        let items = self.list(i)?;
        self.ensure(!items.is_empty(), || "requires non-empty shape".into())?;
        for (k, d) in items.iter().enumerate() {
            match const_dim(d) {
                Some(v) if v > 0 => {}
                Some(v) => return Err(self.check_at(i, format!("shape element {k} must be positive, got {v}"))),
                None => {
                    return Err(
                        self.check_at(i, format!("shape element {k} must be a compile-time constant (ConstInt)"))
                    )
                }
            }
        }
        Ok(items.to_vec())
    }
    /// The shape `dims` given by argument `i` (a result's shape: `tensor.create`, a view, a
    /// reshape, a load or store window) has no constant dim of zero or less: pto-isa has no
    /// tile or tensor of such an extent, so the C++ would not compile.
    pub(super) fn positive_dims(&self, i: usize, dims: &[Expr]) -> R<()> {
        match dims.iter().enumerate().find_map(|(k, d)| const_dim(d).filter(|v| *v <= 0).map(|v| (k, v))) {
            Some((k, v)) => {
                Err(self.check_at(i, format!("requires positive dimensions, but shape element {k} is {v}")))
            }
            None => Ok(()),
        }
    }
    pub(super) fn broadcast(&self, a: &[Expr], b: &[Expr]) -> R<Vec<Expr>> {
        broadcast(a, b).ok_or_else(|| {
            self.check(format!("requires compatible shapes, but got {} and {}", self.dims(a), self.dims(b)))
        })
    }
    pub(super) fn require_int(&self, dtypes: &[DataType]) -> R<()> {
        match dtypes.iter().find(|d| !d.is_int()) {
            Some(d) => Err(self.check(format!("requires integer dtype, but got {}", d.name()))),
            None => Ok(()),
        }
    }
    pub(super) fn rank_at_least(&self, i: usize, shape: &[Expr], min: usize) -> R<()> {
        if shape.len() >= min {
            Ok(())
        } else {
            Err(self.check_at(
                i,
                format!("requires argument {} to have at least {min} dimensions, but got {}", i + 1, shape.len()),
            ))
        }
    }
    pub(super) fn rank_exactly(&self, i: usize, shape: &[Expr], n: usize) -> R<()> {
        if shape.len() == n {
            Ok(())
        } else {
            Err(self.check_at(i, format!("requires argument {} to be {n}D, but got {}D", i + 1, shape.len())))
        }
    }
    /// Two dims must be equal when both are constants.
    pub(super) fn same_if_const(&self, what: &str, a: &Expr, b: &Expr) -> R<()> {
        match (const_dim(a), const_dim(b)) {
            (Some(x), Some(y)) if x != y => Err(self.check(format!("requires matching {what}, but got {x} and {y}"))),
            _ => Ok(()),
        }
    }
    pub(super) fn axis(&self, axis: i64, rank: usize) -> R<usize> {
        norm_axis(axis, rank).ok_or_else(|| self.check(format!("requires axis in [-{rank}, {rank}), but got {axis}")))
    }
}

fn plural(n: usize, word: &str) -> String {
    match n {
        0 => format!("no {word}s"),
        1 => format!("exactly 1 {word}"),
        _ => format!("exactly {n} {word}s"),
    }
}

fn expect_name(e: Expect) -> &'static str {
    match e {
        Expect::Any => "a value",
        Expect::Tensor => "a Tensor",
        Expect::Tile => "a Tile",
        Expect::Scalar => "a Scalar",
        Expect::List => "a list literal",
        Expect::IntTuple => "a tuple of integer scalars",
        Expect::IndexTuple => "a tuple of INT64 scalars",
        Expect::ConstInt => "an integer constant",
        Expect::Const => "a numeric constant",
    }
}

/// What an argument is, for "found …": its type kind, or the kind of expression for lists and
/// constants.
fn describe_arg(vars: &VarTable, e: &Expr) -> String {
    match (&e.kind, vars.type_of(e)) {
        (ExprKind::MakeTuple(_), _) => "a list".into(),
        (ExprKind::Var(_), Type::Tuple(_)) => "a Tuple variable".into(),
        (_, t) => t.kind_name().into(),
    }
}
