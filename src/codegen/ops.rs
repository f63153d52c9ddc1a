//! Op calls as pto-isa instructions (spec `passes-and-codegen.md` §4.7), driven by the operator
//! table's `cce` column ([`CceEmit`]). `d` is the C++ name of the assigned variable.
//!
//! Fixes of reference defects (§6 Q10, §6.1 Q23): `TCMP`/`TCMPS` get a `CmpMode` value
//! instead of an integer; `block.get_block_idx` and `tensor.dim` declare their result;
//! `tensor.dim` is the static dimension (the GlobalTensor's shape is the access window, Q22);
//! `block.transpose` is reported instead of being emitted as `TRESHAPE`; a store whose result
//! is not assigned is emitted without the alias declaration.

use std::rc::Rc;

use super::isa::CceEmit;
use crate::text::cat;
use super::kernel::{unsupported, Global, Kernel};
use crate::diag::{Diagnostic, Span};
use crate::ir::{Call, Callee, Expr, ExprKind, KwValue, MemorySpace, PipeType, Type, VarId};

/// The pto-isa function names an emitter form uses (reserved by the namer).
pub fn instruction_names(e: CceEmit) -> Option<Vec<&'static str>> {
    Some(match e {
        CceEmit::Dst { instr, .. } | CceEmit::DstArg { instr, .. } | CceEmit::Cmp { instr } | CceEmit::Flag { instr } => {
            vec![instr]
        }
        CceEmit::Reduce { col, row } => vec![col, row],
        _ => return None,
    })
}

const ROUND_MODES: [&str; 7] = ["NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD"];
const CMP_MODES: [&str; 6] = ["EQ", "NE", "LT", "LE", "GT", "GE"];

/// Emits the call `c`, assigned to `target` (an `EvalStmt` has none).
pub fn emit_call(k: &mut Kernel, target: Option<VarId>, c: &Call, span: Span) -> Result<(), Diagnostic> {
    let op = match &c.callee {
        Callee::Op(op) => *op,
        Callee::Function(f) => return Err(no_codegen(f, span).with_note("a kernel cannot call another function")),
    };
    let def = crate::ops::def(op);
    let name = def.name;
    let Some(form) = def.cce else { return Err(no_codegen(name, span)) };
    let args = &c.args;
    // The message is only built on a mismatch.
    let arity = |n: usize, msg: &dyn Fn() -> String| -> Result<(), Diagnostic> {
        if args.len() == n {
            Ok(())
        } else {
            Err(unsupported(span, &msg()))
        }
    };
    match form {
        CceEmit::Dst { instr, arity: n, family } => {
            arity(n, &|| format!("{family} requires {n} argument{}", if n == 1 { "" } else { "s" }))?;
            let d = tile_dst(k, target, name, span)?;
            instruction(k, instr, &d, args, "")?;
        }
        CceEmit::DstArg { instr, arg } => {
            let x = args.get(arg).ok_or_else(|| unsupported(span, &format!("{name} requires {} arguments", arg + 1)))?;
            let d = tile_dst(k, target, name, span)?;
            instruction(k, instr, &d, std::slice::from_ref(x), "")?;
        }
        CceEmit::Load => {
            arity(3, &|| "block.load requires 3 arguments: tensor, offsets, shapes".to_string())?;
            let (g, assign) = global_at(k, &args[0], &args[1], span)?;
            let d = tile_dst(k, target, name, span)?;
            k.line(&assign);
            k.linef(format_args!("TLOAD({d}, {g});"));
        }
        CceEmit::Store => {
            arity(4, &|| format!("{name} requires 4 arguments: tile, offsets, shapes, output_tensor"))?;
            let tile = k.value(&args[0])?;
            let (g, assign) = global_at(k, &args[3], &args[1], span)?;
            k.line(&assign);
            k.linef(format_args!("TSTORE({g}, {tile});"));
            if let Some(var) = target {
                if let Some(info) = args[3].as_var().and_then(|t| k.globals.get(&t).cloned()) {
                    k.globals.insert(var, info);
                }
                let d = k.target(var);
                let decl = k.declare(var);
                k.linef(format_args!("{decl}{d} = {g};"));
            }
        }
        CceEmit::Move | CceEmit::VecMove => {
            arity(1, &|| "Unary op requires 1 argument".to_string())?;
            let src_space = space_of(k, &args[0]);
            if form == CceEmit::Move {
                let to = kw_space(c, "target_memory");
                if src_space == Some(MemorySpace::Vec) && to == Some(MemorySpace::Vec) {
                    return Err(unsupported(span, "block.move: Vec to Vec move should use block.vec_move"));
                }
            } else if let Some(s) = src_space.filter(|s| *s != MemorySpace::Vec) {
                return Err(unsupported(span, &format!("block.vec_move: source must be on Vec memory, got {}", s.name())));
            }
            let d = tile_dst(k, target, name, span)?;
            instruction(k, "TMOV", &d, &args[..1], "")?;
        }
        CceEmit::Cast => {
            arity(1, &|| "Unary op requires 1 argument".to_string())?;
            let mode = kw_int(c, "mode").unwrap_or(2);
            let m = usize::try_from(mode)
                .ok()
                .and_then(|m| ROUND_MODES.get(m))
                .ok_or_else(|| unsupported(span, &format!("Cast round mode must be in range [0, 6], got {mode}")))?;
            let d = tile_dst(k, target, name, span)?;
            instruction(k, "TCVT", &d, &args[..1], &format!(", RoundMode::CAST_{m}"))?;
        }
        CceEmit::Cmp { instr } => {
            arity(2, &|| format!("{name} requires 2 arguments"))?;
            let t = kw_int(c, "cmp_type").unwrap_or(0);
            let m = usize::try_from(t)
                .ok()
                .and_then(|m| CMP_MODES.get(m))
                .ok_or_else(|| unsupported(span, &format!("{name}: cmp_type must be in range [0, 5] (EQ, NE, LT, LE, GT, GE), got {t}")))?;
            let d = tile_dst(k, target, name, span)?;
            instruction(k, instr, &d, args, &format!(", CmpMode::{m}"))?;
        }
        CceEmit::Reduce { col, row } => {
            let axis = kw_int(c, "axis").unwrap_or(-1);
            let (instr, n) = if axis == 0 { (col, 1) } else { (row, 2) };
            arity(n, &|| format!("{instr} requires {n} argument{}", if n == 1 { "" } else { "s" }))?;
            let d = tile_dst(k, target, name, span)?;
            instruction(k, instr, &d, args, "")?;
        }
        CceEmit::Nothing => {}
        CceEmit::BlockIdx => {
            let axis = kw_int(c, "axis").ok_or_else(|| unsupported(span, "block.get_block_idx requires 'axis' kwarg"))?;
            let var = target.ok_or_else(|| unsupported(span, &format!("the result of {name} must be assigned")))?;
            let decl = scalar_decl(k, var, span)?;
            k.linef(format_args!("{decl}GET_BLOCK_IDX({axis});"));
        }
        CceEmit::Flag { instr } => {
            let pipe = |key: &str| -> Result<&'static str, Diagnostic> {
                kw_int(c, key)
                    .and_then(PipeType::from_index)
                    .map(|p| p.name())
                    .ok_or_else(|| unsupported(span, &format!("{name}: missing or invalid '{key}'")))
            };
            let (set, wait) = (pipe("set_pipe")?, pipe("wait_pipe")?);
            let id = kw_int(c, "event_id")
                .filter(|i| (0..8).contains(i))
                .ok_or_else(|| unsupported(span, &format!("{name}: event_id must be in range [0, 7]")))?;
            k.start_line();
            cat!(k.out(); instr, "(PIPE_", set, ", PIPE_", wait, ", EVENT_ID", id, ");");
            k.end_line();
        }
        CceEmit::Barrier { pipe } => {
            k.start_line();
            cat!(k.out(); "pipe_barrier(", pipe, ");");
            k.end_line();
        }
        CceEmit::TensorDim => {
            arity(2, &|| "tensor.dim requires 2 arguments: tensor, axis".to_string())?;
            let Type::Tensor(t) = k.type_of(&args[0]) else {
                return Err(unsupported(span, "tensor.dim: first argument must be a tensor"));
            };
            let rank = t.shape.len() as i64;
            let axis = args[1].as_const_int().ok_or_else(|| unsupported(span, "tensor.dim: axis must be a constant"))?;
            let ax = if axis < 0 { axis + rank } else { axis };
            let dim = usize::try_from(ax)
                .ok()
                .and_then(|a| t.shape.get(a))
                .ok_or_else(|| unsupported(span, &format!("tensor.dim: axis {axis} out of range for rank {rank}")))?;
            let dim = super::ctype::const_dim(dim, span)?;
            let var = target.ok_or_else(|| unsupported(span, &format!("the result of {name} must be assigned")))?;
            let decl = scalar_decl(k, var, span)?;
            k.linef(format_args!("{decl}{dim};"));
        }
        CceEmit::Unsupported { why } => {
            return Err(unsupported(span, &format!("CCE codegen: {name} is not supported")).with_note(why));
        }
    }
    Ok(())
}

fn no_codegen(name: &str, span: Span) -> Diagnostic {
    unsupported(span, &format!("No codegen registered for operation: {name}"))
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

/// The destination of a tile-producing instruction: the assigned variable, a tile declared by
/// the prologue.
fn tile_dst(k: &mut Kernel, target: Option<VarId>, op: &str, span: Span) -> Result<Rc<str>, Diagnostic> {
    let var = target.ok_or_else(|| unsupported(span, &format!("the result of {op} must be assigned to a tile")))?;
    if !matches!(k.prog.var_type(var), Type::Tile(_)) {
        return Err(unsupported(span, &format!("the result of {op} must be a tile, got {}", k.prog.var_type(var).kind_name())));
    }
    Ok(k.target(var))
}

/// `T d = ` (first definition) or `d = ` for a scalar result.
fn scalar_decl(k: &mut Kernel, var: VarId, span: Span) -> Result<String, Diagnostic> {
    let Type::Scalar(dt) = k.prog.var_type(var) else {
        return Err(unsupported(span, "expected a scalar result"));
    };
    let ct = super::ctype::c_type(*dt, span)?;
    let d = k.target(var);
    Ok(if k.declare(var).is_empty() { format!("{d} = ") } else { format!("{ct} {d} = ") })
}

/// For an access to tensor `t` at `offsets`: its GlobalTensor's name and the `TASSIGN` line
/// pointing it at the window's first element.
fn global_at(k: &Kernel, t: &Expr, offsets: &Expr, span: Span) -> Result<(Rc<str>, String), Diagnostic> {
    let var = t.as_var().ok_or_else(|| unsupported(t.span, "CCE codegen: the accessed tensor must be a variable"))?;
    let g = k.name_of(var, t.span)?;
    let Global { ptr, tensor } = k.globals.get(&var).cloned().ok_or_else(|| {
        unsupported(t.span, &format!("Pointer for tensor {g} not found"))
            .with_note("a kernel can only access tensors passed as parameters")
    })?;
    let ExprKind::MakeTuple(offs) = &offsets.kind else {
        return Err(unsupported(offsets.span, "CCE codegen: offsets must be a list literal"));
    };
    if offs.is_empty() {
        return Err(unsupported(span, "CCE codegen: offsets must not be empty"));
    }
    let mut terms = vec![format!("{tensor}->start_offset")];
    for (i, o) in offs.iter().enumerate() {
        terms.push(format!("{} * {tensor}->strides[{i}]", k.value(o)?));
    }
    Ok((g.clone(), format!("TASSIGN({g}, {ptr} + ({}));", terms.join(" + "))))
}

fn kw<'c>(c: &'c Call, key: &str) -> Option<&'c KwValue> {
    c.kwargs.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

fn kw_int(c: &Call, key: &str) -> Option<i64> {
    match kw(c, key)? {
        KwValue::Int(i) => Some(*i),
        _ => None,
    }
}

fn kw_space(c: &Call, key: &str) -> Option<MemorySpace> {
    match kw(c, key)? {
        KwValue::Space(s) => Some(*s),
        KwValue::Int(i) => MemorySpace::from_index(*i),
        _ => None,
    }
}

/// The memory space of a tile operand's MemRef.
fn space_of(k: &Kernel, e: &Expr) -> Option<MemorySpace> {
    let m = k.type_of(e).memref()?;
    match &k.prog.var(m).kind {
        crate::ir::VarKind::MemRef(info) => Some(info.space),
        _ => None,
    }
}
