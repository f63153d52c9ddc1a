//! Expressions (spec `ir-and-syntax.md` §3.6 read backwards, §3.10 "Expressions", §3.12).

use super::scope::suggest;
use super::Lowerer;
use crate::ast::{self, Arg, ExprKind as A, UnaryOp};
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::*;
use crate::ops::{self, ArgIn, ArgValue, KwIn};

type R<T> = Result<T, Diagnostic>;

/// Names of the DSL forms that are statements, not operators.
const STATEMENT_FORMS: &[&str] = &["yield_", "cond", "range", "parallel", "pipeline", "unroll", "while_", "incore"];

impl Lowerer {
    pub(super) fn lower_expr(&mut self, e: &ast::Expr) -> R<Expr> {
        match &e.kind {
            A::Name(n) => self.lower_name(n, e.span),
            A::Int(v) => int_literal(*v, false, e.span),
            A::Float(v) => Ok(Expr::float(*v, DataType::Fp32, e.span)),
            A::Bool(b) => Ok(Expr::bool(*b, e.span)),
            A::Str(_) => Err(Diagnostic::error(
                codes::UNSUPPORTED,
                e.span,
                "a string is only allowed as a keyword argument value",
            )),
            A::None => Err(Diagnostic::error(codes::UNSUPPORTED, e.span, "`None` is not an expression of the IR")),
            A::Unsupported => Err(Diagnostic::error(
                codes::UNSUPPORTED,
                e.span,
                "`<unsupported IRNode type>` may only stand for a TileView's start_offset",
            )),
            A::Unary(op, inner) => self.lower_unary(*op, inner, e.span),
            A::Binary(op, l, r) => {
                let lhs = self.lower_expr(l)?;
                let rhs = self.lower_expr(r)?;
                ops::scalar_binary(&self.vars, op.ir(), lhs, rhs, e.span)
            }
            A::List(elems) | A::Tuple(elems) => {
                let elems = elems.iter().map(|x| self.lower_expr(x)).collect::<R<Vec<_>>>()?;
                let ty = Type::Tuple(elems.iter().map(|x| self.vars.type_of(x).clone()).collect());
                Ok(Expr::new(ExprKind::MakeTuple(elems), ty, e.span))
            }
            A::Subscript(base, items) => self.lower_subscript(base, items, e.span),
            A::Attr(..) => {
                let path = self.prefixed_path(e).unwrap_or_default();
                let what = path.join(".");
                let mut d = Diagnostic::error(
                    codes::UNSUPPORTED,
                    e.span,
                    if what.is_empty() {
                        "an attribute is not a value here".to_string()
                    } else {
                        format!("`{}.{what}` is not a value here", self.prefix)
                    },
                );
                if let [name] = path.as_slice() {
                    if let Some(dt) = super::scope::suggest_spelling(name, DataType::all_names()) {
                        d = d.with_note(format!("help: the dtype is spelled `{}.{dt}`", self.prefix));
                    }
                }
                Err(d)
            }
            A::Call(f, args) => self.lower_call(f, args, e.span),
        }
    }

    /// A use of variable `v` (noting when it stands for a failed statement's target).
    fn use_var(&mut self, v: VarId, span: Span) -> Expr {
        self.read_poison |= !self.poisoned.is_empty() && self.poisoned.contains(&v);
        if !self.transposed_views.is_empty() && self.transposed_views.contains_key(&v) {
            self.error(transposed_view_read(span));
        }
        Expr::var(v, span)
    }

    /// The argument of `value` when it is today's `pl.tile.transpose_view(t)` call (one
    /// positional argument, checked here).
    pub(super) fn transpose_view_arg<'e>(&self, value: &'e ast::Expr) -> R<Option<&'e ast::Expr>> {
        let A::Call(f, args) = &value.kind else { return Ok(None) };
        let Some((parts, n)) = self.op_path(f) else { return Ok(None) };
        if parts[..n].join(".") != crate::ops::table::TRANSPOSE_VIEW {
            return Ok(None);
        }
        match args.as_slice() {
            [Arg::Positional(e)] => Ok(Some(e)),
            _ => Err(Diagnostic::error(
                codes::OP_ARG_COUNT,
                value.span,
                format!("{}.{} takes one tile", self.prefix, crate::ops::table::TRANSPOSE_VIEW),
            )),
        }
    }

    /// The tile variable a transposed view is taken of: a 2-D tile in Mat (the only source a
    /// transposing move reads).
    pub(super) fn transposed_source(&mut self, e: &ast::Expr) -> R<VarId> {
        let tile = self.lower_expr(e)?;
        let src = tile.as_var().filter(|v| match self.vars.var_type(*v) {
            Type::Tile(t) => t.shape.len() == 2 && self.tile_spaces.get(v) == Some(&crate::ir::MemorySpace::Mat),
            _ => false,
        });
        src.ok_or_else(|| {
            Diagnostic::error(
                codes::OP_ARG_TYPE,
                e.span,
                format!(
                    "{}.{} needs a variable holding a 2-D tile loaded or moved into Mat",
                    self.prefix,
                    crate::ops::table::TRANSPOSE_VIEW
                ),
            )
            .with_note("ptoc reads the view only as the source of a move into Left or Right (a transposing move)")
        })
    }

    fn lower_name(&mut self, n: &str, span: Span) -> R<Expr> {
        if let Some(v) = self.scopes.lookup(n) {
            return Ok(self.use_var(v, span));
        }
        match n {
            "inf" => return Ok(Expr::float(f64::INFINITY, DataType::Fp32, span)),
            "nan" => return Ok(Expr::float(f64::NAN, DataType::Fp32, span)),
            _ => {}
        }
        let mut d = Diagnostic::error(codes::UNDEFINED_NAME, span, format!("undefined variable `{n}`"));
        if let Some(s) = suggest(n, self.scopes.visible_names()) {
            d = d.with_note(format!("help: a variable with a similar name exists: `{s}`"));
        }
        Err(d)
    }

    fn lower_unary(&mut self, op: UnaryOp, inner: &ast::Expr, span: Span) -> R<Expr> {
        // `-1` and `-1.5` are negative constants (§7 Q8), as passes print them.
        if op == UnaryOp::Neg {
            match inner.kind {
                A::Int(v) => return int_literal(v, true, span),
                A::Float(v) => return Ok(Expr::float(-v, DataType::Fp32, span)),
                _ => {}
            }
        }
        let operand = self.lower_expr(inner)?;
        let op = match op {
            UnaryOp::Pos => return Ok(operand),
            UnaryOp::Neg => UnOp::Neg,
            UnaryOp::Invert => UnOp::BitNot,
            UnaryOp::Not => UnOp::Not,
        };
        ops::scalar_unary(&self.vars, op, operand, span)
    }

    /// `t[i]`: an element of a tuple value.
    fn lower_subscript(&mut self, base: &ast::Expr, items: &[Arg], span: Span) -> R<Expr> {
        let tuple = self.lower_expr(base)?;
        let idx = match items {
            [Arg::Positional(ast::Expr { kind: A::Int(i), .. })] => *i,
            _ => {
                return Err(Diagnostic::error(
                    codes::BAD_TUPLE_INDEX,
                    span,
                    "a subscript must be one integer literal, like t[0]",
                ))
            }
        };
        let Type::Tuple(elems) = self.vars.type_of(&tuple) else {
            return Err(Diagnostic::error(
                codes::BAD_TUPLE_INDEX,
                base.span,
                format!("only tuples can be subscripted, but this is a {}", self.vars.type_of(&tuple).kind_name()),
            ));
        };
        let Some(ty) = usize::try_from(idx).ok().and_then(|i| elems.get(i)).cloned() else {
            return Err(Diagnostic::error(
                codes::BAD_TUPLE_INDEX,
                items[0].span(),
                format!("index {idx} out of bounds for tuple with {} elements", elems.len()),
            ));
        };
        Ok(Expr::new(ExprKind::TupleGetItem(Box::new(tuple), idx as usize), ty, span))
    }

    fn lower_call(&mut self, f: &ast::Expr, args: &[Arg], span: Span) -> R<Expr> {
        // self.f(...) inside a program class; a bare f(...) names a function in standalone files.
        match &f.kind {
            A::Attr(base, ident) if matches!(&base.kind, A::Name(n) if n == "self") => {
                return self.lower_function_call(&ident.name, ident.span, args, span);
            }
            A::Name(name) if self.scopes.lookup(name).is_none() => match name.as_str() {
                "min" | "max" | "abs" => return self.lower_builtin(name, args, span),
                _ if self.sigs.contains_key(name.as_str()) => {
                    return self.lower_function_call(name, f.span, args, span)
                }
                _ => {}
            },
            _ => {}
        }
        let short = self.op_path(f);
        let long;
        let path: &[&str] = match &short {
            Some((parts, n)) => &parts[..*n],
            None => {
                long = self.prefixed_path(f);
                match &long {
                        Some(p) => p,
                        None => return Err(Diagnostic::error(
                            codes::UNKNOWN_OP,
                            f.span,
                            format!(
                                "unknown function; operators are called as `{}.<name>(...)` and program functions as `self.<name>(...)`",
                                self.prefix
                            ),
                        )),
                    }
            }
        };
        match path {
            ["const"] => return self.lower_const(args, span),
            [name] if STATEMENT_FORMS.contains(name) => {
                return Err(Diagnostic::error(
                    codes::UNSUPPORTED,
                    f.span,
                    format!("`{}.{name}` can only be used in its statement form", self.prefix),
                ))
            }
            _ => {}
        }
        // The positional arguments go to a buffer kept across calls (a nested call in an
        // argument finds it taken and uses a new one).
        let mut pos = std::mem::take(&mut self.op_args);
        pos.clear();
        let mut kws = Vec::new();
        // Today's move of a transposed view (`pl.move(pl.tile.transpose_view(t), …)`, or of a
        // variable assigned one) is be8155433's transposing move of `t`.
        let view = match args.first() {
            Some(Arg::Positional(e)) => self.transposed_view(e)?.map(|src| (src, e.span)),
            _ => None,
        };
        if let Some((_, at)) = view {
            if !ops::spells(path, ops::id::MOVE) {
                return Err(transposed_view_read(at));
            }
        }
        for (i, a) in args.iter().enumerate() {
            match a {
                Arg::Positional(_) if i == 0 && view.is_some() => {
                    if let Some((src, at)) = view {
                        pos.push(ArgIn { value: ArgValue::Expr(Expr::var(src, at)), span: at });
                    }
                }
                Arg::Positional(e) => pos.push(ArgIn { value: self.lower_arg(e, false)?, span: e.span }),
                Arg::Keyword(k, e) => kws.push(KwIn {
                    name: k.name.to_string(),
                    name_span: k.span,
                    value: self.lower_arg(e, true)?,
                    span: k.span.to(e.span),
                }),
            }
        }
        if let Some((_, at)) = view {
            if kws.iter().any(|k| k.name == "transpose") {
                return Err(Diagnostic::error(
                    codes::OP_KWARG,
                    at,
                    "a move of a transposed view takes no `transpose=` (the view is the transpose)".to_string(),
                ));
            }
            kws.push(KwIn {
                name: "transpose".to_string(),
                name_span: at,
                value: ArgValue::Value(crate::ir::KwValue::Bool(true)),
                span: at,
            });
        }
        let spaces = &self.tile_spaces;
        let space_of = |v: VarId| spaces.get(&v).copied();
        let call = ops::build_op_call_in(
            &self.vars,
            path,
            f.span,
            &mut pos,
            kws,
            span,
            ops::Caller { hand_written: self.authorship.hand_written, space_of: &space_of },
        );
        self.op_args = pos;
        if let (Some((_, at)), Ok(e)) = (view, &call) {
            let into_l0 = e.as_call().is_some_and(|c| {
                c.callee == crate::ir::Callee::Op(ops::id::MOVE)
                    && matches!(
                        ops::target_memory(c),
                        Some(crate::ir::MemorySpace::Left | crate::ir::MemorySpace::Right)
                    )
            });
            if !into_l0 {
                return Err(transposed_view_read(at));
            }
        }
        call
    }

    /// The tile a transposed view `e` is of: a variable assigned today's
    /// `pl.tile.transpose_view(t)`, or that call itself.
    fn transposed_view(&mut self, e: &ast::Expr) -> R<Option<VarId>> {
        if let A::Name(n) = &e.kind {
            return Ok(self.scopes.lookup(n).and_then(|v| self.transposed_views.get(&v).copied()));
        }
        match self.transpose_view_arg(e)? {
            Some(tile) => self.transposed_source(tile).map(Some),
            None => Ok(None),
        }
    }

    /// An operator argument: enum members, dtypes and strings are plain values; so are literals
    /// given by keyword (the reference converts keyword values to Python values, §3.10).
    fn lower_arg(&mut self, e: &ast::Expr, keyword: bool) -> R<ArgValue> {
        // Most arguments are variables: look them up once.
        if let A::Name(n) = &e.kind {
            if let Some(v) = self.scopes.lookup(n) {
                return Ok(ArgValue::Expr(self.use_var(v, e.span)));
            }
        }
        if let Some(v) = self.plain_value(e, keyword) {
            return Ok(ArgValue::Value(v));
        }
        if let Some(["MemorySpace" | "PipeType", _]) = self.prefixed_path(e).as_deref() {
            return Err(self.unknown_enum_member(e));
        }
        Ok(ArgValue::Expr(self.lower_expr(e)?))
    }

    /// `pl.MemorySpace.L2`, `pl.PipeType.XYZ`: a member that does not exist.
    fn unknown_enum_member(&self, e: &ast::Expr) -> Diagnostic {
        let path = self.prefixed_path(e).unwrap_or_default();
        let enum_name = path.first().copied().unwrap_or_default();
        let members: Vec<&str> = match enum_name {
            "MemorySpace" => MemorySpace::ALL.iter().map(|m| m.name()).collect(),
            _ => PipeType::ALL.iter().map(|m| m.name()).collect(),
        };
        let given = path.last().copied().unwrap_or_default();
        let d = Diagnostic::error(codes::UNKNOWN_ENUM, e.span, format!("unknown {enum_name} value `{given}`"));
        match super::scope::suggest_spelling(given, members.iter().copied()) {
            Some(m) => d.with_note(format!("help: did you mean `{}.{enum_name}.{m}`?", self.prefix)),
            None => d.with_note(format!(
                "expected one of {}",
                members.iter().map(|m| format!("{}.{enum_name}.{m}", self.prefix)).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    fn plain_value(&self, e: &ast::Expr, keyword: bool) -> Option<KwValue> {
        match &e.kind {
            A::Str(s) => return Some(KwValue::Str(s.to_string())),
            A::Int(v) if keyword => return i64::try_from(*v).ok().map(KwValue::Int),
            A::Float(v) if keyword => return Some(KwValue::Float(*v)),
            A::Bool(b) if keyword => return Some(KwValue::Bool(*b)),
            A::Unary(UnaryOp::Neg, inner) if keyword => match inner.kind {
                A::Int(v) => return i64::try_from(v).ok().map(|v| KwValue::Int(-v)),
                A::Float(v) => return Some(KwValue::Float(-v)),
                _ => {}
            },
            _ => {}
        }
        if let A::Name(n) = &e.kind {
            if self.scopes.lookup(n).is_some() {
                return None;
            }
        }
        if let Some(d) = self.dtype_of(e) {
            return Some(KwValue::DType(d));
        }
        match self.prefixed_path(e).as_deref() {
            Some(["MemorySpace", name]) => MemorySpace::from_name(name).map(KwValue::Space),
            Some(["PipeType", name]) => PipeType::from_name(name).map(|p| KwValue::Int(p.index() as i64)),
            // `pl.PadValue` is today's PyPTO name of the enum.
            Some(["TilePad" | "PadValue", name]) => crate::ir::TilePad::from_name(name).map(KwValue::Pad),
            // Today's `pl.tile.MaskPattern.P0101` … (`block.gather_mask`): its code.
            Some(["tile", "MaskPattern", name]) => {
                (1..=7).find(|&p| crate::ops::mask_pattern(p).is_some_and(|(_, _, n)| n == *name)).map(KwValue::Int)
            }
            _ => None,
        }
    }

    /// `pl.const(v, pl.D)`: a constant of dtype D (an int literal gives a ConstInt even for a
    /// float dtype, as in the reference).
    fn lower_const(&mut self, args: &[Arg], span: Span) -> R<Expr> {
        let (value, dtype) = match args {
            [Arg::Positional(v), Arg::Positional(d)] => (v, d),
            _ => {
                return Err(Diagnostic::error(
                    codes::OP_ARG_COUNT,
                    span,
                    format!("`{}.const` takes a literal and a dtype", self.prefix),
                ))
            }
        };
        let dtype = self.lower_dtype(dtype)?;
        let (neg, lit) = match &value.kind {
            A::Unary(UnaryOp::Neg, inner) => (true, &**inner),
            _ => (false, value),
        };
        match lit.kind {
            A::Int(v) => {
                let c = int_literal(v, neg, value.span)?;
                Ok(Expr::int(c.as_const_int().unwrap_or_default(), dtype, span))
            }
            A::Float(v) => Ok(Expr::float(if neg { -v } else { v }, dtype, span)),
            A::Name(ref n) if n == "inf" || n == "nan" => {
                let v = if n == "inf" { f64::INFINITY } else { f64::NAN };
                Ok(Expr::float(if neg { -v } else { v }, dtype, span))
            }
            _ => Err(Diagnostic::error(
                codes::OP_ARG_TYPE,
                value.span,
                format!("`{}.const` needs a number literal", self.prefix),
            )),
        }
    }

    /// `min(a, b)`, `max(a, b)`, `abs(a)` on scalars.
    fn lower_builtin(&mut self, name: &str, args: &[Arg], span: Span) -> R<Expr> {
        let mut vals = Vec::new();
        for a in args {
            match a {
                Arg::Positional(e) => vals.push(self.lower_expr(e)?),
                Arg::Keyword(k, _) => {
                    return Err(Diagnostic::error(
                        codes::OP_KWARG,
                        k.span,
                        format!("`{name}` takes no keyword arguments"),
                    ))
                }
            }
        }
        let want = if name == "abs" { 1 } else { 2 };
        if vals.len() != want {
            return Err(Diagnostic::error(
                codes::OP_ARG_COUNT,
                span,
                format!("`{name}` takes {want} argument(s), found {}", vals.len()),
            ));
        }
        let mut it = vals.into_iter();
        let a = it.next().unwrap();
        match name {
            "abs" => ops::scalar_unary(&self.vars, UnOp::Abs, a, span),
            _ => {
                let b = it.next().unwrap();
                let op = if name == "min" { BinOp::Min } else { BinOp::Max };
                ops::scalar_binary(&self.vars, op, a, b, span)
            }
        }
    }

    /// A call of a function of the program (a GlobalVar call). Its type is the callee's return
    /// type (a tuple for several, Unknown for none), imported into this function's variables.
    fn lower_function_call(&mut self, name: &str, name_span: Span, args: &[Arg], span: Span) -> R<Expr> {
        let known = self.sigs.get(name).map(|sig| {
            let memo = self.imported.entry(name.to_string()).or_default();
            (sig.params.len(), self.vars.import_type(&sig.vars, &super::result_type(&sig.return_types), memo))
        });
        let Some((nparams, ty)) = known else {
            let mut d =
                Diagnostic::error(codes::UNKNOWN_FUNCTION, name_span, format!("the program has no function `{name}`"));
            if let Some(s) = suggest(name, self.sigs.keys().map(String::as_str)) {
                d = d.with_note(format!("help: a function with a similar name exists: `{s}`"));
            }
            return Err(d);
        };
        let mut vals = Vec::new();
        for a in args {
            match a {
                Arg::Positional(e) => vals.push(self.lower_expr(e)?),
                Arg::Keyword(k, _) => {
                    return Err(Diagnostic::error(
                        codes::OP_KWARG,
                        k.span,
                        "calls of program functions take positional arguments only",
                    ))
                }
            }
        }
        if vals.len() != nparams {
            return Err(Diagnostic::error(
                codes::OP_ARG_COUNT,
                span,
                format!("function `{name}` takes {nparams} argument(s), but {} were given", vals.len()),
            ));
        }
        if let Some(sig) = self.sigs.get(name) {
            self.check_call_args(name, sig, &vals)?;
        }
        let call = Call { callee: Callee::Function(name.to_string()), args: vals, kwargs: Vec::new() };
        Ok(Expr::new(ExprKind::Call(Box::new(call)), ty, span))
    }
}

/// An integer literal as an INT64 constant; `-9223372036854775808` is the one literal whose
/// magnitude only fits when negated.
fn int_literal(v: u64, negative: bool, span: Span) -> R<Expr> {
    let value = if negative {
        if v == 1u64 << 63 {
            i64::MIN
        } else {
            i64::try_from(v).map(|x| -x).map_err(|_| overflow(span))?
        }
    } else {
        i64::try_from(v).map_err(|_| overflow(span))?
    };
    Ok(Expr::int(value, DataType::Int64, span))
}

fn overflow(span: Span) -> Diagnostic {
    Diagnostic::error(codes::INT_OVERFLOW, span, "integer literal does not fit in 64 bits (INT64)")
}

/// A transposed view read other than by a move into L0.
fn transposed_view_read(span: Span) -> Diagnostic {
    Diagnostic::error(
        codes::UNSUPPORTED,
        span,
        format!("this reads today's pl.{} other than as the source of a move into Left or Right", crate::ops::table::TRANSPOSE_VIEW),
    )
    .with_note(
        "be8155433 has no transposed view; its transposing move is pl.move(t, target_memory=pl.MemorySpace.Right, transpose=True), \
         which is what a move of pl.tile.transpose_view(t) into Left or Right means",
    )
}
