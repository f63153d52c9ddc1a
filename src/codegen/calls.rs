//! Op calls as pto-isa instructions (spec `passes-and-codegen.md` §4.7), driven by the operator
//! table's `cce` column ([`CceEmit`]). `d` is the C++ name of the assigned variable.
//!
//! Fixes of reference defects (§6 Q10, §6.1 Q23): `TCMP`/`TCMPS` get a `CmpMode` value
//! instead of an integer; `block.get_block_idx` and `tensor.dim` declare their result, and
//! `block.get_block_idx` is pto-isa's `get_block_idx()` (the reference's `GET_BLOCK_IDX(axis)`
//! reads an `axis` kwarg the op does not have, and pto-isa has no such macro);
//! `tensor.dim` is the tensor type's dimension (the GlobalTensor's shape is the access window,
//! Q22), read from the `Tensor` argument's shape where it is symbolic;
//! `block.transpose` is reported instead of being emitted as `TRESHAPE`; a store whose result
//! is not assigned is emitted without the alias declaration.
//!
//! Where the reference's one instruction is not what pto-isa accepts, the op becomes the
//! instructions that compute the IR's result on the CPU simulator and the hardware (each case
//! is recorded in `tests/conformance-deviations.md` where the reference's C++ differs):
//! - column-major tiles (a `[N, 1]` column) are used through a row-major view of the same
//!   memory where pto-isa wants row-major tiles; 1-D tiles are rows `[1, N]`, seen as
//!   columns where an instruction wants one (row reductions, row expansions);
//! - a transposing `block.move` reads its source through the transposed view (a Mat `Nz` tile
//!   read as `Zn`), since `TMOV` copies element by element;
//! - `block.view` is `TEXTRACT` at its offset (`TMOV` asserts equal shapes);
//! - `block.fillpad` writes through a view of its destination with a pad value.
//!
//! Everything else an instruction needs is in the IR before this writer runs: legalize-cce
//! converts and broadcasts operands, gives row reductions their scratch tile and writes
//! comparisons as pto-isa's bit-mask compare and select (`block.cmp_bits`, `block.select_bits`),
//! so allocate-memory-addr places every buffer and insert-sync orders every instruction. A
//! placed op whose operands are not in that form is an internal error, not C++ the passes
//! never saw.

use std::rc::Rc;

use super::ctype::{Placed, TileCType};
use super::writer::{broken, Global, Kernel, TileRef};
use crate::diag::{Diagnostic, Span};
use crate::ir::{Call, Callee, Expr, ExprKind, MemorySpace, TileLayout, TilePad, Type, VarId};
use crate::ops::cce::{CceEmit, Family};
use crate::ops::kwargs;
use crate::ops::modes::{CmpMode, RoundMode};
use crate::text::cat;

/// Emits the call `c`, assigned to `target` (an `EvalStmt` has none).
pub fn emit_call(k: &mut Kernel, target: Option<VarId>, c: &Call, span: Span) -> Result<(), Diagnostic> {
    let op = match &c.callee {
        Callee::Op(op) => *op,
        Callee::Function(f) => return Err(broken(span, &format!("a call of function {f}"))),
    };
    let def = crate::ops::def(op);
    let name = def.name;
    let Some(form) = def.cce else { return Err(broken(span, &format!("{name}, which has no C++ form"))) };
    set_dynamic_valid_shape(k, target, span)?;
    let args = &c.args;
    let arity = |n: usize, msg: &dyn Fn() -> String| expect_arity(args, n, span, msg);
    let family_arity = |n: usize, family: Family| {
        let family = family.message_name();
        arity(n, &|| format!("{family} requires {n} argument{}", if n == 1 { "" } else { "s" }))
    };
    match form {
        CceEmit::Dst { instr, arity: n, family } => {
            family_arity(n, family)?;
            let d = tile_dst(k, target, name, span)?;
            instruction(k, instr, &d, args, "")?;
        }
        CceEmit::Elementwise { instr, arity: n, family } => {
            family_arity(n, family)?;
            let scalar = (family == Family::BinaryScalar).then_some(1);
            elementwise(k, target, name, instr, args, scalar, "", true, span)?;
        }
        CceEmit::DstArg { instr, arg } => {
            // Binding checks the count against the op's parameters (`ops::tests`: they agree
            // with this form).
            let x =
                args.get(arg).ok_or_else(|| broken(span, &format!("{name} with fewer than {} arguments", arg + 1)))?;
            let d = tile_dst(k, target, name, span)?;
            instruction(k, instr, &d, std::slice::from_ref(x), "")?;
        }
        CceEmit::Load => load(k, target, name, c, span)?,
        CceEmit::Store => store(k, target, name, c, span)?,
        CceEmit::Move | CceEmit::VecMove => tile_move(k, target, name, c, form, span)?,
        CceEmit::Cast => {
            arity(1, &|| "Unary op requires 1 argument".to_string())?;
            let m = kwargs::round_mode(c)
                .map(RoundMode::isa_name)
                // Binding the op's kwargs refuses a `mode` that is not a rounding mode.
                .ok_or_else(|| broken(span, &format!("{name} without a valid rounding mode")))?;
            elementwise(k, target, name, "TCVT", args, None, &format!(", RoundMode::CAST_{m}"), false, span)?;
        }
        CceEmit::Cmp { instr } => {
            arity(2, &|| format!("{name} requires 2 arguments"))?;
            let m = cmp_mode(c, name, span)?;
            compare(k, target, name, instr, args, m, span)?;
        }
        CceEmit::CmpBits { instr } => compare_bits(k, target, name, c, instr, span)?,
        CceEmit::SelectBits => select_bits(k, target, name, c, span)?,
        CceEmit::Reduce { col, row } => reduce(k, target, name, c, col, row, span)?,
        CceEmit::RowReduce { instr } => {
            family_arity(2, Family::Binary)?;
            let var = dst_var(k, target, name, span)?;
            let d = k.tile_var(var, span)?;
            let d = as_column(k, &d);
            let (x, tmp) = (k.tile_ref(&args[0])?, k.tile_ref(&args[1])?);
            k.linef(format_args!("{instr}({}, {}, {});", d.name, x.name, tmp.name));
        }
        CceEmit::ColReduce { instr, tmp } => {
            let n = 1 + usize::from(tmp);
            family_arity(n, if tmp { Family::Binary } else { Family::Unary })?;
            let var = dst_var(k, target, name, span)?;
            let d = k.tile_var(var, span)?;
            let mut names = vec![d.name.clone()];
            for a in args {
                names.push(k.tile_ref(a)?.name);
            }
            k.linef(format_args!("{instr}({});", names.join(", ")));
        }
        CceEmit::RowExpand { instr, arity: n } | CceEmit::ColExpand { instr, arity: n } => {
            family_arity(n, Family::Binary)?;
            let var = dst_var(k, target, name, span)?;
            let d = k.tile_var(var, span)?;
            let mut names = vec![d.name.clone()];
            for (i, a) in args.iter().enumerate() {
                let t = k.tile_ref(a)?;
                let t = match (i + 1 == n, form) {
                    (true, CceEmit::RowExpand { .. }) => as_column(k, &t),
                    _ => t,
                };
                names.push(t.name);
            }
            k.linef(format_args!("{instr}({});", names.join(", ")));
        }
        CceEmit::Extract => extract(k, target, name, c, span)?,
        CceEmit::FillPad { instr } => fill_pad(k, target, name, instr, c, span)?,
        CceEmit::Nothing => {}
        CceEmit::BlockIdx => {
            let var = target.ok_or_else(|| broken(span, &format!("an unassigned {name}")))?;
            let decl = scalar_decl(k, var, span)?;
            k.linef(format_args!("{decl}get_block_idx();"));
        }
        CceEmit::Flag { instr } => flag(k, name, c, instr, span)?,
        CceEmit::Barrier { instr, pipe } => {
            k.start_line();
            cat!(k.out(); instr, "(", pipe, ");");
            k.end_line();
        }
        CceEmit::TensorDim => tensor_dim(k, target, name, c, span)?,
        CceEmit::TensorRead => tensor_read(k, target, name, c, span)?,
        CceEmit::Transpose => transpose(k, target, name, c, span)?,
        CceEmit::GatherMask => gather_mask(k, target, name, c, span)?,
        CceEmit::Ci | CceEmit::Tri => generator(k, target, name, c, form, span)?,
        CceEmit::Unsupported { .. } => return Err(broken(span, &format!("{name}, which has no C++ form"))),
    }
    Ok(())
}

/// The C++ name of a comparison call's `cmp_type`.
fn cmp_mode(c: &Call, name: &str, span: Span) -> Result<&'static str, Diagnostic> {
    kwargs::cmp_mode(c)
        .map(CmpMode::isa_name)
        // Binding the op's kwargs refuses a `cmp_type` that is not a comparison.
        .ok_or_else(|| broken(span, &format!("{name} without a valid cmp_type")))
}

/// An internal error unless the call has `n` arguments (the message is only built on a
/// mismatch): binding a call checks its count against the op's parameters, which agree with
/// the counts the forms take (`ops::tests::cce_forms_agree_with_argument_binding`).
fn expect_arity(args: &[Expr], n: usize, span: Span, msg: &dyn Fn() -> String) -> Result<(), Diagnostic> {
    if args.len() == n {
        Ok(())
    } else {
        Err(broken(span, &format!("a call with {} arguments ({})", args.len(), msg())))
    }
}

/// The valid extents of tile variable `var` as C++ values, when its type has a valid shape.
fn valid_extents(k: &Kernel, var: VarId) -> Result<Option<Vec<String>>, Diagnostic> {
    let Type::Tile(t) = k.vars.var_type(var) else { return Ok(None) };
    match t.view.as_ref().map(|v| v.valid_shape.as_slice()) {
        Some(v) if !v.is_empty() => v.iter().map(|e| k.value(e)).collect::<Result<Vec<_>, _>>().map(Some),
        _ => Ok(None),
    }
}

/// A tile whose valid shape is dynamic is declared with the whole tile valid; the statement
/// that defines it first sets its valid rows and columns (`Tile::SetValidShape`, a
/// declaration of its own: such tiles never share their object, see `declare_tile`).
fn set_dynamic_valid_shape(k: &mut Kernel, target: Option<VarId>, span: Span) -> Result<(), Diagnostic> {
    let Some(var) = target else { return Ok(()) };
    let Type::Tile(t) = k.vars.var_type(var) else { return Ok(()) };
    if !crate::codegen::writer::dynamic_valid(t) {
        return Ok(());
    }
    let Some(v) = valid_extents(k, var)? else { return Ok(()) };
    let [r, c] = v.as_slice() else {
        return Err(broken(span, "a dynamic valid shape of a tile that is not 2-D"));
    };
    let d = k.tile_var(var, span)?;
    k.linef(format_args!("{}.SetValidShape({r}, {c});", d.name));
    Ok(())
}

/// For a partial tile `var` read from or written to tensor `t` at `offsets`: a GlobalTensor of
/// the tile's valid extents at the window (pto-isa's TLOAD/TSTORE want the GlobalTensor's
/// shape to be the tile's valid rows and columns), declared in a block the caller closes.
fn partial_global(
    k: &mut Kernel,
    var: VarId,
    t: &Expr,
    offsets: &Expr,
    span: Span,
) -> Result<Option<Rc<str>>, Diagnostic> {
    let Some(v) = valid_extents(k, var)? else { return Ok(None) };
    let tv = t.as_var().ok_or_else(|| broken(t.span, "an access of a tensor expression"))?;
    let rank = k.type_of(t).shape().map_or(0, <[Expr]>::len);
    let ([r, c], 2) = (v.as_slice(), rank) else {
        return Err(broken(span, "a partial tile of a tensor that is not 2-D"));
    };
    let (g, at) = window_start(k, t, offsets, span)?;
    let Some(Global { ptr, tensor }) = k.globals.get(&tv).cloned() else { return Ok(None) };
    let Type::Tensor(tt) = k.type_of(t) else { return Ok(None) };
    let ct = super::ctype::c_type(tt.dtype, span)?;
    k.line("{");
    k.linef(format_args!(
        "    GlobalTensor<{ct}, Shape<1, 1, 1, -1, -1>, {ptr}GlobalStrideDim5, {ptr}GlobalType::layout> {g}Valid({at}, \
         {{static_cast<int64_t>({r}), static_cast<int64_t>({c})}}, \
         {{static_cast<int64_t>({tensor}->strides[0]), static_cast<int64_t>({tensor}->strides[1])}});"
    ));
    Ok(Some(format!("{g}Valid").into()))
}

/// `block.load`: the window of the tensor as a GlobalTensor, then `TLOAD`.
fn load(k: &mut Kernel, target: Option<VarId>, name: &str, c: &Call, span: Span) -> Result<(), Diagnostic> {
    let args = &c.args;
    expect_arity(&c.args, 3, span, &|| "block.load requires 3 arguments: tensor, offsets, shapes".to_string())
        .or_else(|_| expect_arity(&c.args, 4, span, &|| "block.load requires 3 or 4 arguments".to_string()))?;
    let var = dst_var(k, target, name, span)?;
    if let Some(g) = partial_global(k, var, &args[0], &args[1], span)? {
        let d = k.tile_var(var, span)?;
        k.linef(format_args!("    TLOAD({}, {g});", d.name));
        k.line("}");
        return Ok(());
    }
    let (g, assign) = global_at(k, &args[0], &args[1], span)?;
    let d = k.tile_var(var, span)?;
    let d = window_view(k, &d, &args[2]);
    k.line(&assign);
    k.linef(format_args!("TLOAD({}, {g});", d.name));
    Ok(())
}

/// `block.store`: `TSTORE` into the window; the result names the tensor written.
fn store(k: &mut Kernel, target: Option<VarId>, name: &str, c: &Call, span: Span) -> Result<(), Diagnostic> {
    let args = &c.args;
    expect_arity(&c.args, 4, span, &|| format!("{name} requires 4 arguments: tile, offsets, shapes, output_tensor"))?;
    if let Some(tv) = args[0].as_var() {
        if let Some(g) = partial_global(k, tv, &args[3], &args[1], span)? {
            let t = k.tile_var(tv, span)?;
            k.linef(format_args!("    TSTORE({g}, {});", t.name));
            k.line("}");
            return store_result(k, target, &args[3], span);
        }
    }
    let tile = match args[0].as_var().map(|_| k.tile_ref(&args[0])) {
        Some(Ok(t)) => window_view(k, &t, &args[2]).name,
        _ => k.value(&args[0])?.into(),
    };
    let (g, assign) = global_at(k, &args[3], &args[1], span)?;
    k.line(&assign);
    k.linef(format_args!("TSTORE({g}, {tile});"));
    store_result(k, target, &args[3], span)
}

/// The result of a store: the GlobalTensor of the tensor `out` written.
fn store_result(k: &mut Kernel, target: Option<VarId>, out: &Expr, span: Span) -> Result<(), Diagnostic> {
    if let Some(var) = target {
        let g = match out.as_var() {
            Some(t) => k.name_of(t, span)?.clone(),
            None => return Err(broken(out.span, "an access of a tensor expression")),
        };
        if let Some(info) = out.as_var().and_then(|t| k.globals.get(&t).cloned()) {
            k.globals.insert(var, info);
        }
        let d = k.target(var);
        let decl = k.declare(var);
        k.linef(format_args!("{decl}{d} = {g};"));
    }
    Ok(())
}

/// `block.move` / `block.vec_move`: `TMOV` between memories (a transposing move reads the source through its transposed view).
fn tile_move(
    k: &mut Kernel,
    target: Option<VarId>,
    name: &str,
    c: &Call,
    form: CceEmit,
    span: Span,
) -> Result<(), Diagnostic> {
    let args = &c.args;
    expect_arity(&c.args, 1, span, &|| "Unary op requires 1 argument".to_string())?;
    let src_space = space_of(k, &args[0]);
    let to = kwargs::space(c, "target_memory");
    let vec_to_vec = form == CceEmit::Move && src_space == Some(MemorySpace::Vec) && to == Some(MemorySpace::Vec);
    if form == CceEmit::VecMove {
        // The memory-space rule (`verify::memory_reach`, run before the C++ form rule)
        // refuses a source block.vec_move cannot read.
        if let Some(s) = src_space.filter(|s| *s != MemorySpace::Vec) {
            return Err(broken(span, &format!("a block.vec_move from {}", s.name())));
        }
    }
    let var = dst_var(k, target, name, span)?;
    let d = k.tile_var(var, span)?;
    let mut src = k.tile_ref(&args[0])?;
    if kwargs::bool(c, "transpose") == Some(true) {
        src = transposed(k, &src, span)?;
    }
    if vec_to_vec {
        // A Vec to Vec copy runs on the vector pipe, where the operator table (and so
        // insert-sync) puts block.vec_move, not block.move (MTE1).
        return Err(broken(span, "a Vec to Vec block.move (legalize-cce makes it block.vec_move)"));
    }
    k.linef(format_args!("TMOV({}, {});", d.name, src.name));
    Ok(())
}

/// `block.cmp_bits` / `cmps_bits`: pto-isa's comparison into a packed bit mask.
fn compare_bits(
    k: &mut Kernel,
    target: Option<VarId>,
    name: &str,
    c: &Call,
    instr: &str,
    span: Span,
) -> Result<(), Diagnostic> {
    let args = &c.args;
    expect_arity(&c.args, 2, span, &|| format!("{name} requires 2 arguments"))?;
    let m = cmp_mode(c, name, span)?;
    let d = tile_dst(k, target, name, span)?;
    let mut names = vec![d.to_string()];
    for a in args {
        names.push(match a.as_var().map(|_| k.tile_ref(a)) {
            Some(Ok(t)) => memory_order(k, &t).name.to_string(),
            _ => k.value(a)?,
        });
    }
    k.linef(format_args!("{instr}({}, CmpMode::{m});", names.join(", ")));
    Ok(())
}

/// `block.select_bits`: `TSELS` of the source where the mask bit is set, else the scalar.
fn select_bits(k: &mut Kernel, target: Option<VarId>, name: &str, c: &Call, span: Span) -> Result<(), Diagnostic> {
    let args = &c.args;
    expect_arity(&c.args, 4, span, &|| format!("{name} requires 4 arguments: mask, src, tmp, scalar"))?;
    let var = dst_var(k, target, name, span)?;
    let d = k.tile_var(var, span)?;
    let d = memory_order(k, &d);
    let (mask, src, tmp) = (k.tile_ref(&args[0])?, k.tile_ref(&args[1])?, k.tile_ref(&args[2])?);
    let src = memory_order(k, &src);
    let v = k.value(&args[3])?;
    k.linef(format_args!("TSELS({}, {}, {}, {}, {v});", d.name, mask.name, src.name, tmp.name));
    Ok(())
}

/// `block.view`: `TEXTRACT` of the window at its offset.
fn extract(k: &mut Kernel, target: Option<VarId>, name: &str, c: &Call, span: Span) -> Result<(), Diagnostic> {
    let args = &c.args;
    expect_arity(&c.args, 3, span, &|| format!("{name} requires 3 arguments: tile, shape, offset"))?;
    let var = dst_var(k, target, name, span)?;
    let d = k.tile_var(var, span)?;
    let x = k.tile_ref(&args[0])?;
    let offs: Vec<String> = match &args[2].kind {
        ExprKind::MakeTuple(xs) => xs.iter().map(|e| k.value(e)).collect::<Result<_, _>>()?,
        _ => return Err(broken(args[2].span, "a block.view offset that is not a list literal")),
    };
    let (r, c) = match offs.as_slice() {
        [c] => ("0".to_string(), c.clone()),
        [r, c] => (r.clone(), c.clone()),
        _ => return Err(broken(args[2].span, "a block.view offset of another rank than 1 or 2")),
    };
    k.linef(format_args!("TEXTRACT({}, {}, {r}, {c});", d.name, x.name));
    Ok(())
}

/// `block.fillpad`: `TFILLPAD` through a view of the destination with a pad value.
fn fill_pad(
    k: &mut Kernel,
    target: Option<VarId>,
    name: &str,
    instr: &str,
    c: &Call,
    span: Span,
) -> Result<(), Diagnostic> {
    let args = &c.args;
    // `block.fillpad_expand` also has the result's shape, which the destination's type spells.
    if args.is_empty() || args.len() > 2 {
        // Binding the call's arguments checks their count.
        return Err(broken(span, &format!("{name} with {} arguments", args.len())));
    }
    let var = dst_var(k, target, name, span)?;
    let d = k.tile_var(var, span)?;
    // pto-isa's TFILLPAD refuses a destination without a pad value; the tiles here are
    // full (their valid shape is their shape), so the value is never written.
    let d = match d.ct.placed {
        Some(p) if p.pad == TilePad::Null => {
            let ct = d.ct.reshaped(d.ct.rows, d.ct.cols, Placed { pad: TilePad::Zero, ..p });
            k.view(&d, ct, "pad")
        }
        _ => d,
    };
    let x = k.tile_ref(&args[0])?;
    k.linef(format_args!("{instr}({}, {});", d.name, x.name));
    Ok(())
}

/// `TGATHER<Dst, Src, MaskPattern::P…>(d, x);`: the pattern is a template argument after the
/// two tile types, so both are spelled (as their variables' types: a destination that is an
/// alias `auto&` of another tile is a reference).
fn gather_mask(k: &mut Kernel, target: Option<VarId>, name: &str, c: &Call, span: Span) -> Result<(), Diagnostic> {
    expect_arity(&c.args, 1, span, &|| format!("{name} requires 1 argument"))?;
    let (_, _, pattern) = kwargs::int(c, "mask_pattern")
        .and_then(crate::ops::mask_pattern)
        // The op's type rule refuses a mask_pattern out of [1, 7].
        .ok_or_else(|| broken(span, &format!("{name} with a mask_pattern out of [1, 7]")))?;
    let d = tile_dst(k, target, name, span)?;
    let x = k.tile_ref(&c.args[0])?;
    k.linef(format_args!(
        "TGATHER<std::decay_t<decltype({d})>, std::decay_t<decltype({x})>, MaskPattern::{pattern}>({d}, {x});",
        x = x.name
    ));
    Ok(())
}

/// `TCI<Dst, T, descending>(d, start);` or `TTRI<Dst, upper>(d, diagonal);`: the tile type
/// and the flag are template arguments, the scalar the one operand.
fn generator(
    k: &mut Kernel,
    target: Option<VarId>,
    name: &str,
    c: &Call,
    form: CceEmit,
    span: Span,
) -> Result<(), Diagnostic> {
    // Binding the call's arguments checks their count.
    let Some(scalar) = c.args.first() else { return Err(broken(span, &format!("{name} without its scalar"))) };
    let var = dst_var(k, target, name, span)?;
    let dtype = k.vars.var_type(var).dtype().ok_or_else(|| broken(span, &format!("{name} without a dtype")))?;
    let d = k.target(var);
    let (instr, flag, extra) = match form {
        CceEmit::Ci => ("TCI", "descending", format!("{}, ", super::ctype::c_type(dtype, span)?)),
        _ => ("TTRI", "upper", String::new()),
    };
    let flag = i32::from(kwargs::bool(c, flag).unwrap_or(false));
    k.start_line();
    cat!(k.out(); instr, "<std::decay_t<decltype(", &d, ")>, ", &extra, &flag.to_string(), ">(", &d, ", ");
    k.push_value(scalar)?;
    k.out().push_str(");");
    k.end_line();
    Ok(())
}

/// `set_flag` / `wait_flag` between two pipes.
fn flag(k: &mut Kernel, name: &str, c: &Call, instr: &str, span: Span) -> Result<(), Diagnostic> {
    let e = kwargs::sync_event_of(&c.kwargs).ok_or_else(|| broken(span, &format!("{name} without a valid event")))?;
    if !(0..8).contains(&e.id) {
        return Err(broken(span, &format!("{name} with event_id {} out of [0, 7]", e.id)));
    }
    k.start_line();
    cat!(k.out(); instr, "(PIPE_", e.set_pipe.name(), ", PIPE_", e.wait_pipe.name(), ", EVENT_ID", e.id, ");");
    k.end_line();
    Ok(())
}

/// `tensor.dim`: a constant, or the runtime extent the `Tensor` argument carries.
fn tensor_dim(k: &mut Kernel, target: Option<VarId>, name: &str, c: &Call, span: Span) -> Result<(), Diagnostic> {
    let args = &c.args;
    expect_arity(&c.args, 2, span, &|| "tensor.dim requires 2 arguments: tensor, axis".to_string())?;
    let Type::Tensor(t) = k.type_of(&args[0]) else {
        return Err(broken(span, "a tensor.dim of a non-tensor"));
    };
    let rank = t.shape.len() as i64;
    let axis = args[1].as_const_int().ok_or_else(|| broken(span, "a tensor.dim axis that is not a constant"))?;
    let ax = if axis < 0 { axis + rank } else { axis };
    let dim = usize::try_from(ax)
        .ok()
        .and_then(|a| t.shape.get(a))
        .ok_or_else(|| broken(span, &format!("a tensor.dim axis {axis} out of range for rank {rank}")))?;
    // A static dimension is a constant; a runtime one (a symbolic dimension `M`) is the
    // extent the `Tensor` argument carries (`repeats`, its shape).
    let dim = match dim.as_const_int() {
        Some(d) => d.to_string(),
        None => {
            let var = args[0]
                .as_var()
                .and_then(|v| k.globals.get(&v))
                .ok_or_else(|| broken(span, "a tensor.dim of a runtime extent of a tensor that is no parameter's"))?;
            format!("static_cast<int64_t>({}->repeats[{ax}])", var.tensor)
        }
    };
    let var = target.ok_or_else(|| broken(span, &format!("an unassigned {name}")))?;
    let decl = scalar_decl(k, var, span)?;
    k.linef(format_args!("{decl}{dim};"));
    Ok(())
}

/// `tensor.read`: a scalar read of an input tensor's memory.
fn tensor_read(k: &mut Kernel, target: Option<VarId>, name: &str, c: &Call, span: Span) -> Result<(), Diagnostic> {
    let args = &c.args;
    expect_arity(&c.args, 2, span, &|| "tensor.read requires 2 arguments: tensor, indices".to_string())?;
    let t = &args[0];
    let var = t.as_var().ok_or_else(|| broken(t.span, "a tensor.read of an expression"))?;
    let Global { ptr, tensor } = k
        .globals
        .get(&var)
        .cloned()
        .ok_or_else(|| broken(t.span, "a tensor.read of a tensor that is no parameter's"))?;
    // The scalar unit reads memory the vector and cube pipes may still be writing, and
    // the passes place no sync for it: only a tensor the kernel never writes is safe.
    if !k.read_only.contains(&ptr) {
        return Err(broken(span, "a tensor.read of a tensor that is not an input"));
    }
    let ExprKind::MakeTuple(idx) = &args[1].kind else {
        return Err(broken(args[1].span, "tensor.read indices that are not a list literal"));
    };
    let mut terms = vec![format!("{tensor}->start_offset")];
    for (i, x) in idx.iter().enumerate() {
        terms.push(format!("({}) * {tensor}->strides[{i}]", k.value(x)?));
    }
    let var = target.ok_or_else(|| broken(span, &format!("an unassigned {name}")))?;
    let decl = scalar_decl(k, var, span)?;
    k.linef(format_args!("{decl}{ptr}[{}];", terms.join(" + ")));
    Ok(())
}

/// `block.transpose`: `TTRANS` with its scratch tile.
fn transpose(k: &mut Kernel, target: Option<VarId>, name: &str, c: &Call, span: Span) -> Result<(), Diagnostic> {
    let args = &c.args;
    let Some(tmp) = args.get(3) else {
        return Err(broken(span, &format!("{name} without its scratch tile")));
    };
    let var = dst_var(k, target, name, span)?;
    let d = k.tile_var(var, span)?;
    let (x, tmp) = (k.tile_ref(&args[0])?, k.tile_ref(tmp)?);
    k.linef(format_args!("TTRANS({}, {}, {});", d.name, x.name, tmp.name));
    Ok(())
}

/// `INSTR(d, a0, …, a{n-1}<tail>);`, written straight into the kernel's text.
fn instruction(k: &mut Kernel, instr: &str, d: &str, args: &[Expr], tail: &str) -> Result<(), Diagnostic> {
    k.start_line();
    cat!(k.out(); instr, "(", d);
    for a in args {
        k.out().push_str(", ");
        k.push_value(a)?;
    }
    cat!(k.out(); tail, ");");
    k.end_line();
    Ok(())
}

/// The variable assigned by a tile-producing op.
fn dst_var(k: &Kernel, target: Option<VarId>, op: &str, span: Span) -> Result<VarId, Diagnostic> {
    let var = target.ok_or_else(|| broken(span, &format!("an unassigned {op}")))?;
    if !matches!(k.vars.var_type(var), Type::Tile(_)) {
        return Err(broken(span, &format!("{op} assigned to a {}", k.vars.var_type(var).kind_name())));
    }
    Ok(var)
}

/// The destination of a tile-producing instruction: the assigned variable, a tile declared by
/// the prologue.
fn tile_dst(k: &mut Kernel, target: Option<VarId>, op: &str, span: Span) -> Result<Rc<str>, Diagnostic> {
    let var = dst_var(k, target, op, span)?;
    Ok(k.target(var))
}

// ---------------------------------------------------------------------------------------------
// Views

/// Whether `t` is a vector: one of its dims is 1.
fn is_vector(ct: TileCType) -> bool {
    ct.rows == 1 || ct.cols == 1
}

/// A plain tile's memory seen as the vector `(rows, cols)` (a column is column-major, a row
/// row-major: both are the elements in order).
fn as_vector(k: &mut Kernel, t: &TileRef, rows: i64, cols: i64) -> TileRef {
    let Some(p) = t.ct.placed else { return t.clone() };
    if (t.ct.rows, t.ct.cols) == (rows, cols)
        || !is_vector(t.ct)
        || !p.unboxed()
        || t.ct.rows * t.ct.cols != rows * cols
    {
        return t.clone();
    }
    let blayout = if cols == 1 && rows > 1 { TileLayout::ColMajor } else { TileLayout::RowMajor };
    let ct = t.ct.reshaped(rows, cols, Placed { blayout, ..p });
    k.view(t, ct, if cols == 1 { "col" } else { "row" })
}

/// `t` as a column `[N, 1]` (a row `[1, N]` is seen as one).
fn as_column(k: &mut Kernel, t: &TileRef) -> TileRef {
    let n = t.ct.rows * t.ct.cols;
    if t.ct.rows == 1 && t.ct.cols > 1 {
        as_vector(k, t, n, 1)
    } else {
        t.clone()
    }
}

/// A vector tile loaded from or stored to a window of another orientation (a 1-D window is a
/// row) is seen in the window's orientation.
fn window_view(k: &mut Kernel, t: &TileRef, shapes: &Expr) -> TileRef {
    let ExprKind::MakeTuple(dims) = &shapes.kind else { return t.clone() };
    let Some(dims) = dims.iter().map(Expr::as_const_int).collect::<Option<Vec<i64>>>() else { return t.clone() };
    let Some((&cols, lead)) = dims.split_last() else { return t.clone() };
    let rows: i64 = lead.iter().product();
    as_vector(k, t, rows, cols)
}

/// The memory of a plain column-major tile `[R, C]` seen as the row-major `[C, R]`: each
/// element at the same address, so element-wise work on it is the same work.
/// A column-major column `[N, 1]` seen as the row `[1, N]` it is in memory (how pto-isa's bit
/// masks number its elements, [`crate::ops::mask_layout`]); other tiles as they are.
fn memory_order(k: &mut Kernel, t: &TileRef) -> TileRef {
    if t.ct.col_major_plain() && t.ct.addr.is_some() {
        transposed_plain(k, t)
    } else {
        t.clone()
    }
}

fn transposed_plain(k: &mut Kernel, t: &TileRef) -> TileRef {
    let Some(p) = t.ct.placed else { return t.clone() };
    let ct = t.ct.reshaped(t.ct.cols, t.ct.rows, Placed { blayout: TileLayout::RowMajor, ..p });
    k.view(t, ct, "row")
}

/// The source of a transposing move: its memory seen as the transposed tile. A fractal layout
/// transposes by exchanging both levels (`Nz` `[R, C]` is `Zn` `[C, R]` byte for byte, the
/// fractal boxes being 16 × 32 bytes and 32 bytes × 16), a plain one by exchanging its order.
fn transposed(k: &mut Kernel, t: &TileRef, span: Span) -> Result<TileRef, Diagnostic> {
    let Some(p) = t.ct.placed else { return Ok(t.clone()) };
    let flip = |l: TileLayout| match l {
        TileLayout::RowMajor => TileLayout::ColMajor,
        TileLayout::ColMajor => TileLayout::RowMajor,
        TileLayout::NoneBox => TileLayout::NoneBox,
    };
    if p.fractal != 512 && p.slayout != TileLayout::NoneBox {
        return Err(broken(span, "a transposing move of a source without 512-byte fractals"));
    }
    let q = Placed { blayout: flip(p.blayout), slayout: flip(p.slayout), ..p };
    let ct = t.ct.reshaped(t.ct.cols, t.ct.rows, q);
    Ok(k.view(t, ct, "t"))
}

// ---------------------------------------------------------------------------------------------
// Element-wise ops

/// An operand of an element-wise op.
#[derive(Clone)]
enum Operand {
    Tile(TileRef),
    Value(String),
}

/// `INSTR(d, operands…tail);` for an element-wise op: tile operands of the result's dtype
/// (`same_dtype`) and shape, as legalize-cce leaves them. See the module documentation.
#[allow(clippy::too_many_arguments)]
fn elementwise(
    k: &mut Kernel,
    target: Option<VarId>,
    op: &str,
    instr: &str,
    args: &[Expr],
    scalar: Option<usize>,
    tail: &str,
    same_dtype: bool,
    span: Span,
) -> Result<(), Diagnostic> {
    let var = dst_var(k, target, op, span)?;
    let d = k.tile_var(var, span)?;
    let mut ops = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        ops.push(if Some(i) == scalar { Operand::Value(k.value(a)?) } else { Operand::Tile(k.tile_ref(a)?) });
    }
    let (d, ops) = prepare(k, d, ops, same_dtype, span)?;
    k.start_line();
    cat!(k.out(); instr, "(", &d.name);
    for o in &ops {
        k.out().push_str(", ");
        match o {
            Operand::Tile(t) => k.out().push_str(&t.name),
            Operand::Value(v) => k.out().push_str(v),
        }
    }
    cat!(k.out(); tail, ");");
    k.end_line();
    Ok(())
}

/// The destination and operands of an element-wise op as pto-isa wants them, row-major (see
/// [`row_major_views`]). A placed operand of another dtype (with `same_dtype`) or shape than
/// the result is an error: legalize-cce converts and broadcasts them into tiles of their own.
fn prepare(
    k: &mut Kernel,
    d: TileRef,
    ops: Vec<Operand>,
    same_dtype: bool,
    span: Span,
) -> Result<(TileRef, Vec<Operand>), Diagnostic> {
    if d.ct.placed.is_none() {
        return Ok((d, ops));
    }
    let (d, ops) = row_major_views(k, d, ops);
    if d.ct.col_major_plain() {
        return Ok((d, ops));
    }
    for o in &ops {
        let Operand::Tile(t) = o else { continue };
        if same_dtype && t.ct.dtype != d.ct.dtype {
            return Err(broken(span, "an element-wise operand of another dtype than the result"));
        }
        if (t.ct.rows, t.ct.cols) != (d.ct.rows, d.ct.cols) {
            return Err(broken(
                span,
                &format!(
                    "an element-wise operand [{}, {}] of another shape than the result [{}, {}]",
                    t.ct.rows, t.ct.cols, d.ct.rows, d.ct.cols
                ),
            ));
        }
    }
    Ok((d, ops))
}

/// Column-major tiles of one shape (the destination and every tile operand): their row-major
/// views, on which the same element-wise work is done. Anything else is returned as it is.
fn row_major_views(k: &mut Kernel, d: TileRef, ops: Vec<Operand>) -> (TileRef, Vec<Operand>) {
    let all = ops.iter().all(|o| match o {
        Operand::Tile(t) => t.ct.col_major_plain() && (t.ct.rows, t.ct.cols) == (d.ct.rows, d.ct.cols),
        Operand::Value(_) => true,
    });
    if !d.ct.col_major_plain() || !all || d.ct.addr.is_none() {
        return (d, ops);
    }
    let d = transposed_plain(k, &d);
    let ops = ops
        .into_iter()
        .map(|o| match o {
            Operand::Tile(t) => Operand::Tile(transposed_plain(k, &t)),
            v => v,
        })
        .collect();
    (d, ops)
}

/// `block.cmp` / `block.cmps` on tiles without MemRefs (no memory to work in): the
/// instruction as the reference writes it. Placed ones are `block.cmp_bits` and
/// `block.select_bits` after legalize-cce.
fn compare(
    k: &mut Kernel,
    target: Option<VarId>,
    op: &str,
    instr: &str,
    args: &[Expr],
    mode: &str,
    span: Span,
) -> Result<(), Diagnostic> {
    let var = dst_var(k, target, op, span)?;
    let d = k.tile_var(var, span)?;
    if d.ct.placed.is_some() {
        // legalize-cce writes it as block.cmp_bits and block.select_bits.
        return Err(broken(span, &format!("{op} on placed tiles")));
    }
    k.start_line();
    cat!(k.out(); instr, "(", &d.name);
    for a in args {
        k.out().push_str(", ");
        k.push_value(a)?;
    }
    cat!(k.out(); ", CmpMode::", mode, ");");
    k.end_line();
    Ok(())
}

/// `block.sum/max/min(t, axis)`: a column reduction into a row, or a row reduction (with a
/// scratch tile) into a column.
fn reduce(
    k: &mut Kernel,
    target: Option<VarId>,
    op: &str,
    c: &Call,
    col: &str,
    row: &str,
    span: Span,
) -> Result<(), Diagnostic> {
    let args = &c.args;
    // The op's type rule requires `axis`.
    let axis = kwargs::int(c, "axis").ok_or_else(|| broken(span, &format!("{op} without 'axis'")))?;
    let rank = match args.first().map(|a| k.type_of(a)) {
        Some(Type::Tile(t)) => t.shape.len() as i64,
        _ => 2,
    };
    let ax = if axis < 0 { axis + rank } else { axis };
    let along_rows = !(ax == 0 && rank == 2);
    let n = if along_rows { 2 } else { 1 };
    // Binding allows one or two arguments; the C++ form rule refuses a scratch tile of a
    // reduction along columns.
    if args.len() != 1 && args.len() != n {
        let instr = if along_rows { row } else { col };
        return Err(broken(span, &format!("{instr} with {} arguments", args.len())));
    }
    let var = dst_var(k, target, op, span)?;
    let d = k.tile_var(var, span)?;
    let x = k.tile_ref(&args[0])?;
    if !along_rows {
        // The column reduction writes a row [1, N].
        let d = as_vector(k, &d, 1, d.ct.rows * d.ct.cols);
        k.linef(format_args!("{col}({}, {});", d.name, x.name));
        return Ok(());
    }
    let d = as_column(k, &d);
    let Some(tmp) = args.get(1) else {
        if d.ct.placed.is_some() {
            // legalize-cce adds one as tmp_tile.
            return Err(broken(span, &format!("{row} on placed tiles without its scratch tile")));
        }
        k.linef(format_args!("{row}({}, {});", d.name, x.name));
        return Ok(());
    };
    let tmp = k.tile_ref(tmp)?;
    k.linef(format_args!("{row}({}, {}, {});", d.name, x.name, tmp.name));
    Ok(())
}

/// `T d = ` (first definition) or `d = ` for a scalar result.
fn scalar_decl(k: &mut Kernel, var: VarId, span: Span) -> Result<String, Diagnostic> {
    let Type::Scalar(dt) = k.vars.var_type(var) else {
        return Err(broken(span, "a scalar op assigned to a non-scalar"));
    };
    let ct = super::ctype::c_type(*dt, span)?;
    let d = k.target(var);
    Ok(if k.declare(var).is_empty() { format!("{d} = ") } else { format!("{ct} {d} = ") })
}

/// For an access to tensor `t` at `offsets`: its GlobalTensor's name and the `TASSIGN` line
/// pointing it at the window's first element.
fn global_at(k: &Kernel, t: &Expr, offsets: &Expr, span: Span) -> Result<(Rc<str>, String), Diagnostic> {
    let (g, at) = window_start(k, t, offsets, span)?;
    let assign = format!("TASSIGN({g}, {at});");
    Ok((g, assign))
}

/// For an access to tensor `t` at `offsets`: its GlobalTensor's name and the address of the
/// window's first element.
fn window_start(k: &Kernel, t: &Expr, offsets: &Expr, span: Span) -> Result<(Rc<str>, String), Diagnostic> {
    let var = t.as_var().ok_or_else(|| broken(t.span, "an access of a tensor expression"))?;
    let g = k.name_of(var, t.span)?;
    let Global { ptr, tensor } = k
        .globals
        .get(&var)
        .cloned()
        .ok_or_else(|| broken(t.span, &format!("an access of tensor {g}, which is no parameter's")))?;
    let ExprKind::MakeTuple(offs) = &offsets.kind else {
        return Err(broken(offsets.span, "offsets that are not a list literal"));
    };
    if offs.is_empty() {
        return Err(broken(span, "an empty offset list"));
    }
    let mut terms = vec![format!("{tensor}->start_offset")];
    for (i, o) in offs.iter().enumerate() {
        terms.push(format!("{} * {tensor}->strides[{i}]", k.value(o)?));
    }
    Ok((g.clone(), format!("{ptr} + ({})", terms.join(" + "))))
}

/// The memory space of a tile operand's MemRef.
fn space_of(k: &Kernel, e: &Expr) -> Option<MemorySpace> {
    let m = k.type_of(e).memref()?;
    match &k.vars.var(m).kind {
        crate::ir::VarKind::MemRef(info) => Some(info.space),
        _ => None,
    }
}
