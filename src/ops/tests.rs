//! Unit tests of the operator table, dispatch, binding, type deduction and promotion.

use super::table::{Slot, OPS};
use super::*;
use crate::ir::{
    MemRefInfo, MemorySpace, TensorType, TileLayout, TilePad, TileType, TileView, VarId, VarKind, VarTable,
};
use std::collections::HashSet;

use DataType::{Bool as BOOL, Fp16 as FP16, Fp32 as FP32, Int16 as INT16, Int32 as INT32, Int64 as INT64};

const SP: Span = Span::NONE;

fn dims(v: &[i64]) -> Vec<Expr> {
    v.iter().map(|&d| Expr::int(d, INT64, SP)).collect()
}
fn tile_ty(shape: &[i64], dtype: DataType) -> Type {
    Type::tile(TileType { dtype, shape: dims(shape), memref: None, view: None })
}
fn tensor_ty(shape: &[i64], dtype: DataType) -> Type {
    Type::tensor(TensorType { dtype, shape: dims(shape), memref: None, view: None })
}

/// A program with variables and helpers to call operators on them.
struct P {
    prog: VarTable,
}

impl P {
    fn new() -> P {
        P { prog: VarTable::new() }
    }
    fn var(&mut self, name: &str, ty: Type) -> Expr {
        let id = self.prog.new_var(name, ty, VarKind::Plain, SP);
        Expr::var(id, SP)
    }
    fn tile(&mut self, name: &str, shape: &[i64], dtype: DataType) -> Expr {
        self.var(name, tile_ty(shape, dtype))
    }
    fn tensor(&mut self, name: &str, shape: &[i64], dtype: DataType) -> Expr {
        self.var(name, tensor_ty(shape, dtype))
    }
    fn scalar(&mut self, name: &str, dtype: DataType) -> Expr {
        self.var(name, Type::Scalar(dtype))
    }
    fn build(&self, path: &str, args: Vec<ArgIn>, kwargs: Vec<KwIn>) -> Result<Expr, Diagnostic> {
        let path: Vec<&str> = path.split('.').collect();
        build_op_call(&self.prog, &path, Span::new(0, 3), args, kwargs, Span::new(0, 100))
    }
    fn ok(&self, path: &str, args: Vec<ArgIn>, kwargs: Vec<KwIn>) -> Expr {
        match self.build(path, args, kwargs) {
            Ok(e) => e,
            Err(d) => panic!("{path}: unexpected error {}: {}", d.code, d.message),
        }
    }
    fn err(&self, path: &str, args: Vec<ArgIn>, kwargs: Vec<KwIn>) -> Diagnostic {
        match self.build(path, args, kwargs) {
            Ok(e) => panic!("{path}: expected an error, got {e:?}"),
            Err(d) => d,
        }
    }
}

/// Positional argument `i` (its span is `10*i .. 10*i+5`, so tests can check error spans).
fn a(i: u32, e: Expr) -> ArgIn {
    ArgIn { value: ArgValue::Expr(e), span: Span::new(10 * i as usize, 10 * i as usize + 5) }
}
fn v(i: u32, value: KwValue) -> ArgIn {
    ArgIn { value: ArgValue::Value(value), span: Span::new(10 * i as usize, 10 * i as usize + 5) }
}
fn k(name: &str, value: KwValue) -> KwIn {
    KwIn { name: name.into(), name_span: Span::new(200, 210), value: ArgValue::Value(value), span: Span::new(200, 220) }
}
fn ke(name: &str, e: Expr) -> KwIn {
    KwIn { name: name.into(), name_span: Span::new(200, 210), value: ArgValue::Expr(e), span: Span::new(200, 220) }
}
fn list(vals: &[i64]) -> Expr {
    let items = dims(vals);
    let ty = Type::Tuple(items.iter().map(|e| e.ty.clone()).collect());
    Expr::new(ExprKind::MakeTuple(items), ty, SP)
}
fn int(v: i64) -> Expr {
    Expr::int(v, INT64, SP)
}
fn float(v: f64) -> Expr {
    Expr::float(v, FP32, SP)
}

fn call(e: &Expr) -> &Call {
    e.as_call().expect("a call")
}
fn op_name(e: &Expr) -> &'static str {
    match call(e).callee {
        Callee::Op(id) => name(id),
        Callee::Function(_) => panic!("not an op"),
    }
}
fn kwargs_of(e: &Expr) -> Vec<(&'static str, KwValue)> {
    call(e).kwargs.clone()
}
fn kwv(pairs: &[(&'static str, KwValue)]) -> Vec<(&'static str, KwValue)> {
    pairs.to_vec()
}
fn shape_of(t: &Type) -> Vec<i64> {
    t.shape().expect("shaped").iter().map(|d| d.as_const_int().expect("const dim")).collect()
}
fn tile_of(t: &Type) -> &TileType {
    match t {
        Type::Tile(t) => t,
        other => panic!("expected a Tile, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The table

/// Each typed id is the entry of its name, and the memory and sync columns give the passes
/// what they need without comparing names.
#[test]
fn typed_ids_name_their_entries() {
    assert!(id::ALL.len() > 60);
    for &(op, n) in id::ALL {
        assert_eq!(name(op), n);
        assert_eq!(lookup(n), Some(op));
    }
    assert_eq!(def(id::STORE).result_buffer, ResultBuffer::Destination(3));
    assert_eq!(def(id::RESHAPE).result_buffer, ResultBuffer::ViewOf(0));
    assert_eq!(def(id::L0C_STORE).result_buffer, ResultBuffer::Own);
    assert_eq!(def(id::MATMUL_ACC).result_space, ResultSpace::Acc);
    assert_eq!(def(id::LOAD).result_space, ResultSpace::TargetMemory);
    let syncs: Vec<&str> = OPS.iter().filter(|d| d.sync.is_some()).map(|d| d.name).collect();
    assert_eq!(syncs, [names::SYNC_SRC, names::SYNC_DST, names::BAR_V, names::BAR_M, names::BAR_ALL]);
    assert!(OPS.iter().all(|d| d.sync.is_some() == (d.category == Category::Sync)));
}

#[test]
fn table_has_143_unique_ops_in_four_categories() {
    assert_eq!(OPS.len(), 143);
    let names: HashSet<&str> = OPS.iter().map(|d| d.name).collect();
    assert_eq!(names.len(), 143);
    let count = |c: Category| OPS.iter().filter(|d| d.category == c).count();
    assert_eq!(
        (count(Category::Tensor), count(Category::Block), count(Category::Sync), count(Category::Test)),
        (21, 116, 5, 1)
    );
    for d in OPS {
        assert!(d.name.starts_with(&format!("{}.", d.category.prefix())), "{}", d.name);
    }
}

#[test]
fn table_params_and_kwarg_schema_agree() {
    for d in OPS {
        let kw_params: Vec<&str> = d.params.iter().filter(|p| matches!(p.slot, Slot::Kw)).map(|p| p.name).collect();
        let mut schema: Vec<&str> = d.kwargs.iter().map(|k| k.name).collect();
        let mut sorted_params = kw_params.clone();
        sorted_params.sort();
        schema.sort();
        assert_eq!(sorted_params, schema, "{}", d.name);
        assert!(d.params.len() <= bind::MAX_PARAMS, "{} has more parameters than binding holds", d.name);
        let unique: HashSet<&str> = d.params.iter().map(|p| p.name).collect();
        assert_eq!(unique.len(), d.params.len(), "duplicate parameter in {}", d.name);
        if let Some(v) = d.scalar_rhs {
            assert!(lookup(v).is_some(), "{} → {v}", d.name);
        }
    }
    let unified: Vec<&str> = OPS.iter().flat_map(|d| d.unified.iter().copied()).collect();
    assert_eq!(unified.iter().collect::<HashSet<_>>().len(), unified.len());
}

#[test]
fn lookup_name_and_printed_name() {
    let id = lookup("tensor.add_scalar").unwrap();
    assert_eq!(name(id), "tensor.add_scalar");
    assert_eq!(printed_name(id), "tensor.add");
    assert_eq!(printed_name(lookup("block.and").unwrap()), "block.and");
    assert_eq!(printed_name(lookup("system.bar_v").unwrap()), "system.bar_v");
    assert!(lookup("block.and_").is_none());
    for (i, d) in OPS.iter().enumerate() {
        assert_eq!(lookup(d.name), Some(OpId(i as u16)));
    }
}

// ---------------------------------------------------------------------------------------------
// Element-wise families

#[test]
fn block_add_broadcasts_and_promotes() {
    let mut p = P::new();
    let x = p.tile("x", &[64, 64], FP16);
    let y = p.tile("y", &[1, 64], FP32);
    let e = p.ok("block.add", vec![a(0, x), a(1, y)], vec![]);
    assert_eq!(op_name(&e), "block.add");
    assert_eq!(e.ty, tile_ty(&[64, 64], FP32));
    assert!(kwargs_of(&e).is_empty());
}

#[test]
fn tensor_add_broadcasts_missing_dims() {
    let mut p = P::new();
    let x = p.tensor("x", &[4, 1, 8], INT32);
    let y = p.tensor("y", &[3, 8], INT16);
    let e = p.ok("tensor.add", vec![a(0, x), a(1, y)], vec![]);
    assert_eq!(e.ty, tensor_ty(&[4, 3, 8], INT32));
}

#[test]
fn incompatible_shapes_are_an_op_check_error() {
    let mut p = P::new();
    let x = p.tile("x", &[64, 64], FP32);
    let y = p.tile("y", &[32, 64], FP32);
    let d = p.err("block.add", vec![a(0, x), a(1, y)], vec![]);
    assert_eq!(d.code, codes::OP_CHECK);
    assert_eq!(d.message, "The operator block.add requires compatible shapes, but got [64, 64] and [32, 64]");
}

#[test]
fn symbolic_dims_unify_only_when_same_variable() {
    let mut p = P::new();
    let n = p.prog.new_var("n", Type::Scalar(INT64), VarKind::Plain, SP);
    let m = p.prog.new_var("n", Type::Scalar(INT64), VarKind::Plain, SP);
    let shape = |v: VarId| vec![Expr::var(v, SP), int(64)];
    let x = p.var("x", Type::tile(TileType { dtype: FP32, shape: shape(n), memref: None, view: None }));
    let y = p.var("y", Type::tile(TileType { dtype: FP32, shape: shape(n), memref: None, view: None }));
    let z = p.var("z", Type::tile(TileType { dtype: FP32, shape: shape(m), memref: None, view: None }));
    let e = p.ok("block.mul", vec![a(0, x.clone()), a(1, y)], vec![]);
    assert_eq!(e.ty.shape().unwrap()[0].as_var(), Some(n));
    let d = p.err("block.mul", vec![a(0, x), a(1, z)], vec![]);
    assert!(d.message.contains("[n, 64] and [n, 64]"), "{}", d.message);
}

#[test]
fn int_only_and_shift_ops() {
    let mut p = P::new();
    let i = p.tile("i", &[16, 16], INT32);
    let j = p.tile("j", &[16, 16], INT16);
    let f = p.tile("f", &[16, 16], FP32);
    let s = p.scalar("s", INT64);
    assert_eq!(p.ok("block.and_", vec![a(0, i.clone()), a(1, j.clone())], vec![]).ty, tile_ty(&[16, 16], INT32));
    assert_eq!(p.ok("block.shl", vec![a(0, j.clone()), a(1, i.clone())], vec![]).ty, tile_ty(&[16, 16], INT16));
    assert_eq!(p.ok("block.shls", vec![a(0, j.clone()), a(1, s.clone())], vec![]).ty, tile_ty(&[16, 16], INT16));
    let d = p.err("block.or", vec![a(0, i), a(1, f.clone())], vec![]);
    assert_eq!(d.code, codes::OP_CHECK);
    assert!(d.message.contains("requires integer dtype, but got FP32"), "{}", d.message);
    assert_eq!(p.err("block.ands", vec![a(0, f), a(1, s)], vec![]).code, codes::OP_CHECK);
}

#[test]
fn tile_scalar_ops_keep_shape_and_promote() {
    let mut p = P::new();
    let t = p.tile("t", &[32, 8], INT32);
    let s = p.scalar("s", INT64);
    let e = p.ok("block.adds", vec![a(0, t.clone()), a(1, s)], vec![]);
    assert_eq!(e.ty, tile_ty(&[32, 8], INT64));
    // A plain value given by keyword gets the constructor's INT32 literal dtype.
    let e = p.ok("block.muls", vec![a(0, t)], vec![k("rhs", KwValue::Int(3))]);
    assert_eq!(call(&e).args[1], Expr::int(3, INT32, SP));
    assert_eq!(e.ty, tile_ty(&[32, 8], INT32));
}

#[test]
fn three_operand_elementwise_ops() {
    let mut p = P::new();
    let x = p.tile("x", &[8, 8], FP16);
    let y = p.tile("y", &[1, 8], FP16);
    let z = p.tile("z", &[8, 1], FP32);
    let s = p.scalar("s", FP32);
    let m = p.tile("m", &[8, 8], INT16);
    let e = p.ok("block.addc", vec![a(0, x.clone()), a(1, y.clone()), a(2, z.clone())], vec![]);
    assert_eq!(e.ty, tile_ty(&[8, 8], FP32));
    let e = p.ok("block.addsc", vec![a(0, y.clone()), a(1, s.clone()), a(2, z.clone())], vec![]);
    assert_eq!(e.ty, tile_ty(&[8, 8], FP32));
    let e = p.ok("block.sel", vec![a(0, m.clone()), a(1, x.clone()), a(2, y.clone())], vec![]);
    assert_eq!(e.ty, tile_ty(&[8, 8], FP16));
    let e = p.ok("block.xors", vec![a(0, m.clone()), a(1, int(1)), a(2, m.clone())], vec![]);
    assert_eq!(e.ty, tile_ty(&[8, 8], INT16));
    let d = p.err("block.sels", vec![a(0, x), a(1, y), a(2, m)], vec![]);
    assert_eq!(
        (d.code, d.message.as_str()),
        (codes::OP_ARG_TYPE, "block.sels expects a Scalar for argument 3 (select_mode), found Tile")
    );
}

#[test]
fn cmp_gets_default_cmp_type_and_keeps_it_when_written() {
    let mut p = P::new();
    let x = p.tile("x", &[8, 8], FP32);
    let y = p.tile("y", &[8, 8], FP32);
    let e = p.ok("cmp", vec![a(0, x.clone()), a(1, y.clone())], vec![]);
    assert_eq!(kwargs_of(&e), kwv(&[("cmp_type", KwValue::Int(0))]));
    assert_eq!(e.ty, tile_ty(&[8, 8], FP32), "cmp keeps the promoted input dtype, not BOOL");
    let e = p.ok("cmp", vec![a(0, x), a(1, y), a(2, int(4))], vec![]);
    assert_eq!(kwargs_of(&e), kwv(&[("cmp_type", KwValue::Int(4))]));
}

#[test]
fn unary_ops() {
    let mut p = P::new();
    let t = p.tile("t", &[8, 8], INT16);
    let f = p.tile("f", &[8, 8], FP32);
    let i = p.tensor("i", &[8], INT32);
    assert_eq!(p.ok("block.not_", vec![a(0, t)], vec![]).ty, tile_ty(&[8, 8], INT16));
    assert_eq!(p.err("block.not", vec![a(0, f.clone())], vec![]).code, codes::OP_CHECK);
    assert_eq!(p.ok("block.rsqrt", vec![a(0, f)], vec![]).ty, tile_ty(&[8, 8], FP32));
    assert_eq!(p.ok("tensor.exp", vec![a(0, i)], vec![]).ty, tensor_ty(&[8], FP32));
}

// ---------------------------------------------------------------------------------------------
// Matrix family

#[test]
fn block_matmul_has_acc_dtype_and_view() {
    let mut p = P::new();
    let l = p.tile("l", &[64, 32], FP16);
    let r = p.tile("r", &[32, 16], FP16);
    let e = p.ok("block.matmul", vec![a(0, l.clone()), a(1, r.clone())], vec![]);
    let t = tile_of(&e.ty);
    assert_eq!((shape_of(&e.ty), t.dtype), (vec![64, 16], FP32));
    let view = t.view.as_ref().expect("matmul results carry a view");
    assert_eq!((view.blayout, view.slayout, view.fractal), (TileLayout::ColMajor, TileLayout::RowMajor, 1024));
    assert!(view.start_offset.is_none() && view.valid_shape.is_empty());

    let acc = p.tile("acc", &[64, 16], FP32);
    let e = p.ok("matmul_acc", vec![a(0, acc), a(1, l.clone()), a(2, r.clone())], vec![]);
    assert_eq!((op_name(&e), shape_of(&e.ty)), ("block.matmul_acc", vec![64, 16]));
    assert_eq!(tile_of(&e.ty).view.as_ref().unwrap().fractal, 1024);

    let ri = p.tile("ri", &[32, 16], INT16);
    let li = p.tile("li", &[64, 32], INT16);
    assert_eq!(tile_of(&p.ok("gemv", vec![a(0, li), a(1, ri)], vec![]).ty).dtype, INT32);
}

#[test]
fn block_matmul_checks() {
    let mut p = P::new();
    let l = p.tile("l", &[64, 32], FP16);
    let r = p.tile("r", &[16, 16], FP16);
    let r32 = p.tile("r32", &[32, 16], FP32);
    let v = p.tile("v", &[32], FP16);
    let d = p.err("block.matmul", vec![a(0, l.clone()), a(1, r)], vec![]);
    assert!(d.message.contains("matching inner dimensions (K), but got 32 and 16"), "{}", d.message);
    let d = p.err("block.matmul", vec![a(0, l.clone()), a(1, r32)], vec![]);
    assert!(d.message.contains("same dtype, but got FP16 and FP32"), "{}", d.message);
    let d = p.err("block.matmul", vec![a(0, l), a(1, v)], vec![]);
    assert_eq!((d.code, d.span.lo), (codes::OP_CHECK, 10), "points at the 1-D argument");
}

#[test]
fn matmul_bias_and_batch_matmul() {
    let mut p = P::new();
    let l = p.tile("l", &[64, 32], FP16);
    let r = p.tile("r", &[32, 16], FP16);
    let bias = p.tile("bias", &[1, 16], FP32);
    let bad_bias = p.tile("bad", &[2, 16], FP32);
    let e = p.ok("matmul_bias", vec![a(0, l.clone()), a(1, r.clone()), a(2, bias)], vec![]);
    assert_eq!(e.ty, tile_ty(&[64, 16], FP32), "no view, P(P(l, r), bias)");
    assert_eq!(p.err("block.gemv_bias", vec![a(0, l), a(1, r.clone()), a(2, bad_bias)], vec![]).code, codes::OP_CHECK);
    let bl = p.tile("bl", &[2, 1, 64, 32], FP16);
    let br = p.tile("br", &[3, 32, 16], FP16);
    let e = p.ok("block.batch_matmul", vec![a(0, bl), a(1, br)], vec![]);
    assert_eq!(e.ty, tile_ty(&[2, 3, 64, 16], FP16));
}

#[test]
fn tensor_matmul_defaults_order_and_transposes() {
    let mut p = P::new();
    let l = p.tensor("l", &[32, 64], FP16);
    let r = p.tensor("r", &[16, 32], FP16);
    let e = p.ok("matmul", vec![a(0, l.clone()), a(1, r.clone())], vec![]);
    assert_eq!(op_name(&e), "tensor.matmul");
    let f = KwValue::Bool(false);
    assert_eq!(kwargs_of(&e), kwv(&[("a_trans", f.clone()), ("b_trans", f.clone()), ("c_matrix_nz", f.clone())]));
    assert_eq!(shape_of(&e.ty), vec![32, 32], "no K check, [l0, r1]");
    // Keyword order in the text does not matter; out_dtype is stored last.
    let e = p.ok(
        "matmul",
        vec![a(0, l), a(1, r)],
        vec![
            k("out_dtype", KwValue::DType(FP32)),
            k("b_trans", KwValue::Bool(true)),
            k("a_trans", KwValue::Bool(true)),
        ],
    );
    let t = KwValue::Bool(true);
    assert_eq!(
        kwargs_of(&e),
        kwv(&[("a_trans", t.clone()), ("b_trans", t), ("c_matrix_nz", f), ("out_dtype", KwValue::DType(FP32))])
    );
    assert_eq!(e.ty, tensor_ty(&[64, 16], FP32));
    let v = p.tensor("v", &[64], FP16);
    let m = p.tensor("m", &[8, 64], FP16);
    assert_eq!(p.ok("matmul", vec![a(0, m), a(1, v.clone())], vec![]).ty, tensor_ty(&[8], FP16));
    assert_eq!(p.ok("matmul", vec![a(0, v.clone()), a(1, v)], vec![]).ty, tensor_ty(&[], FP16));
}

// ---------------------------------------------------------------------------------------------
// Reductions

#[test]
fn block_reductions_with_axis_and_keepdim() {
    let mut p = P::new();
    let t = p.tile("t", &[64, 32], FP32);
    // The DSL spelling gets the constructor default; the printed spelling is kept as written.
    let e = p.ok("sum", vec![a(0, t.clone())], vec![k("axis", KwValue::Int(1))]);
    assert_eq!(kwargs_of(&e), kwv(&[("axis", KwValue::Int(1)), ("keepdim", KwValue::Bool(false))]));
    let written = p.ok("block.sum", vec![a(0, t.clone())], vec![k("axis", KwValue::Int(1))]);
    assert_eq!(kwargs_of(&written), kwv(&[("axis", KwValue::Int(1))]));
    assert_eq!(written.ty, e.ty, "a left-out kwarg is deduced with its default");
    assert_eq!(e.ty, tile_ty(&[64], FP32));
    let e = p.ok("max", vec![a(0, t.clone())], vec![k("axis", KwValue::Int(-1)), k("keepdim", KwValue::Bool(true))]);
    assert_eq!((op_name(&e), e.ty.clone()), ("block.max", tile_ty(&[64, 1], FP32)));
    // Positional axis (a ConstInt expression) binds to the kwarg too.
    let e = p.ok("block.min", vec![a(0, t.clone()), a(1, int(0))], vec![]);
    assert_eq!(kwargs_of(&e)[0], ("axis", KwValue::Int(0)));
    let v = p.tile("v", &[64], FP16);
    assert_eq!(p.ok("block.sum", vec![a(0, v)], vec![k("axis", KwValue::Int(0))]).ty, Type::Scalar(FP16));
    let d = p.err("block.sum", vec![a(0, t.clone())], vec![k("axis", KwValue::Int(2))]);
    assert_eq!(
        (d.code, d.message.as_str()),
        (codes::OP_CHECK, "The operator block.sum requires axis in [-2, 2), but got 2")
    );
    let d = p.err("block.sum", vec![a(0, t)], vec![]);
    assert_eq!((d.code, d.message.as_str()), (codes::OP_ARG_COUNT, "block.sum is missing the argument 'axis'"));
}

#[test]
fn row_reductions_and_expansions() {
    let mut p = P::new();
    let t = p.tile("t", &[16, 128], FP32);
    let tmp = p.tile("tmp", &[16, 128], FP32);
    let row = p.tile("row", &[16, 1], FP32);
    let bad_row = p.tile("bad", &[16, 2], FP32);
    assert_eq!(p.ok("block.row_max", vec![a(0, t.clone()), a(1, tmp)], vec![]).ty, tile_ty(&[16, 1], FP32));
    assert_eq!(p.ok("row_expand_mul", vec![a(0, t.clone()), a(1, row)], vec![]).ty, tile_ty(&[16, 128], FP32));
    let d = p.err("block.row_expand_sub", vec![a(0, t.clone()), a(1, bad_row)], vec![]);
    assert_eq!((d.code, d.span.lo), (codes::OP_CHECK, 10));
    let x = p.tensor("x", &[8, 64], FP32);
    let e = p.ok("tensor.row_max", vec![a(0, x.clone())], vec![]);
    assert!(kwargs_of(&e).is_empty(), "the Python constructor passes no kwargs");
    assert_eq!(e.ty, tensor_ty(&[8, 1], FP32));
    let e =
        p.ok("tensor.row_sum", vec![a(0, x)], vec![k("axis", KwValue::Int(0)), k("keep_dim", KwValue::Bool(false))]);
    assert_eq!(e.ty, tensor_ty(&[64], FP32));
}

// ---------------------------------------------------------------------------------------------
// Memory / creation

#[test]
fn load_inserts_target_memory_and_sets_views() {
    let mut p = P::new();
    let t = p.tensor("t", &[64, 64], FP16);
    let e = p.ok("load", vec![a(0, t.clone()), a(1, list(&[0, 0])), a(2, list(&[64, 64]))], vec![]);
    assert_eq!(op_name(&e), "block.load");
    assert_eq!(kwargs_of(&e), kwv(&[("target_memory", KwValue::Space(MemorySpace::Vec))]));
    assert_eq!(tile_of(&e.ty).view, Some(TileView::default()));
    // Keyword forms of the constructor parameters bind.
    let e = p.ok(
        "block.load",
        vec![a(0, t.clone())],
        vec![
            ke("offsets", list(&[0, 0])),
            ke("shapes", list(&[32, 16])),
            k("target_memory", KwValue::Space(MemorySpace::Mat)),
        ],
    );
    let t2 = tile_of(&e.ty);
    assert_eq!(shape_of(&e.ty), vec![32, 16]);
    let view = t2.view.as_ref().unwrap();
    assert_eq!((view.blayout, view.slayout, view.fractal), (TileLayout::ColMajor, TileLayout::RowMajor, 512));
    let d = p.err(
        "block.load",
        vec![a(0, t.clone()), a(1, list(&[0, 0])), a(2, list(&[64, 64]))],
        vec![k("target_memory", KwValue::Space(MemorySpace::Left))],
    );
    assert_eq!((d.code, d.span.lo), (codes::OP_KWARG, 200));
    let d = p.err("block.load", vec![a(0, t), a(1, list(&[0])), a(2, list(&[64, 64]))], vec![]);
    assert!(d.message.contains("1 offsets and 2 shapes"), "{}", d.message);
}

#[test]
fn store_returns_the_output_tensor_type() {
    let mut p = P::new();
    let mem = p.prog.new_var(
        "mem_ddr_0",
        Type::MemRef,
        VarKind::MemRef(Box::new(MemRefInfo { space: MemorySpace::Ddr, addr: int(-1), size: 16384, id: 0 })),
        SP,
    );
    let out_ty = Type::tensor(TensorType { dtype: FP32, shape: dims(&[64, 64]), memref: Some(mem), view: None });
    let out = p.var("out", out_ty.clone());
    let t = p.tile("t", &[64, 64], FP32);
    let e = p.ok("store", vec![a(0, t.clone()), a(1, list(&[0, 0])), a(2, list(&[64, 64])), a(3, out.clone())], vec![]);
    assert_eq!((op_name(&e), e.ty.clone()), ("block.store", out_ty));
    let d = p.err("block.store", vec![a(0, t), a(1, list(&[0, 0])), a(2, list(&[64, 64]))], vec![]);
    assert_eq!(
        (d.code, d.message.as_str()),
        (codes::OP_ARG_COUNT, "block.store is missing argument 4 (output_tensor)")
    );
}

#[test]
fn move_views_and_transpose() {
    let mut p = P::new();
    let t = p.tile("t", &[32, 16], FP16);
    let mv = |p: &P, space: MemorySpace, transpose: Option<bool>| {
        let mut kw = vec![k("target_memory", KwValue::Space(space))];
        if let Some(b) = transpose {
            kw.push(k("transpose", KwValue::Bool(b)));
        }
        p.ok("move", vec![a(0, t.clone())], kw)
    };
    let e = mv(&p, MemorySpace::Left, None);
    assert_eq!(
        kwargs_of(&e),
        kwv(&[("target_memory", KwValue::Space(MemorySpace::Left)), ("transpose", KwValue::Bool(false))])
    );
    let view = tile_of(&e.ty).view.clone().unwrap();
    assert_eq!((view.blayout, view.slayout), (TileLayout::RowMajor, TileLayout::RowMajor));
    let e = mv(&p, MemorySpace::Right, None);
    let view = tile_of(&e.ty).view.clone().unwrap();
    assert_eq!((view.blayout, view.slayout), (TileLayout::RowMajor, TileLayout::ColMajor));
    let e = mv(&p, MemorySpace::Right, Some(true));
    let view = tile_of(&e.ty).view.clone().unwrap();
    assert_eq!(shape_of(&e.ty), vec![16, 32]);
    assert_eq!((view.blayout, view.slayout), (TileLayout::ColMajor, TileLayout::RowMajor), "swapped");
    let e = mv(&p, MemorySpace::Vec, Some(true));
    let view = tile_of(&e.ty).view.clone().unwrap();
    assert_eq!((view.blayout, view.slayout), (TileLayout::ColMajor, TileLayout::NoneBox), "blayout flipped");
    // Positional target memory (the constructor's second parameter).
    let e = p.ok("move", vec![a(0, t.clone()), v(1, KwValue::Space(MemorySpace::Left))], vec![]);
    assert_eq!(kwargs_of(&e)[0].1, KwValue::Space(MemorySpace::Left));
    let d = p.err("block.move", vec![a(0, t)], vec![]);
    assert_eq!(d.code, codes::OP_ARG_COUNT);
}

#[test]
fn create_tile_and_full() {
    let mut p = P::new();
    let e = p.ok("create_tile", vec![a(0, list(&[64, 64]))], vec![k("dtype", KwValue::DType(FP32))]);
    assert_eq!(op_name(&e), "block.create_tile");
    assert_eq!(
        kwargs_of(&e),
        kwv(&[("dtype", KwValue::DType(FP32)), ("target_memory", KwValue::Space(MemorySpace::Vec))])
    );
    assert_eq!(e.ty, tile_ty(&[64, 64], FP32));
    // Printed form: value is an argument, dtype a kwarg.
    let e = p.ok("block.full", vec![a(0, list(&[64, 64])), a(1, float(0.0))], vec![k("dtype", KwValue::DType(FP16))]);
    assert_eq!(call(&e).args[1], Expr::float(0.0, FP16, SP), "the value constant takes the tile dtype");
    assert_eq!(kwargs_of(&e), kwv(&[("dtype", KwValue::DType(FP16))]));
    assert_eq!(e.ty, tile_ty(&[64, 64], FP16));
    // Constructor form: full(shape, dtype, value).
    let e = p.ok("block.full", vec![a(0, list(&[8])), v(1, KwValue::DType(INT32)), a(2, int(0))], vec![]);
    assert_eq!(call(&e).args, vec![list(&[8]), Expr::int(0, INT32, SP)]);
    let e =
        p.ok("block.full", vec![a(0, list(&[8]))], vec![k("dtype", KwValue::DType(FP32)), k("value", KwValue::Int(1))]);
    assert_eq!(call(&e).args[1], Expr::int(1, FP32, SP));
    // An explicit `pl.const(0, pl.INT32)` is kept as written (round trip).
    let explicit = Expr::int(0, INT32, SP);
    let e = p.ok("block.full", vec![a(0, list(&[8])), a(1, explicit.clone())], vec![k("dtype", KwValue::DType(FP32))]);
    assert_eq!(call(&e).args[1], explicit);
    let s = p.scalar("s", FP32);
    let d = p.err("block.full", vec![a(0, list(&[8])), a(1, s)], vec![k("dtype", KwValue::DType(FP32))]);
    assert_eq!((d.code, d.span.lo), (codes::OP_ARG_TYPE, 10));
    let d = p.err("block.create_tile", vec![a(0, list(&[64, 0]))], vec![k("dtype", KwValue::DType(FP32))]);
    assert_eq!(d.code, codes::OP_CHECK);
    let e = p.ok("create_tensor", vec![a(0, list(&[4, 8]))], vec![k("dtype", KwValue::DType(FP16))]);
    assert_eq!((op_name(&e), e.ty.clone()), ("tensor.create", tensor_ty(&[4, 8], FP16)));
}

#[test]
fn tensor_create_from_a_tuple_variable_uses_tuple_items() {
    let mut p = P::new();
    let shp = p.var("shp", Type::Tuple(vec![Type::Scalar(INT64), Type::Scalar(INT64)]));
    let e = p.ok("tensor.create_tensor", vec![a(0, shp.clone())], vec![k("dtype", KwValue::DType(FP32))]);
    let shape = e.ty.shape().unwrap();
    assert_eq!(shape.len(), 2);
    assert_eq!(shape[1].kind, ExprKind::TupleGetItem(Box::new(shp), 1));
    let bad = p.var("bad", Type::Tuple(vec![Type::Scalar(FP32)]));
    let d = p.err("tensor.create", vec![a(0, bad)], vec![k("dtype", KwValue::DType(FP32))]);
    assert_eq!(d.code, codes::OP_ARG_TYPE);
}

#[test]
fn alloc_takes_a_memory_space_value() {
    let p = P::new();
    let e = p.ok(
        "block.alloc",
        vec![v(0, KwValue::Space(MemorySpace::Vec)), a(1, int(-1)), a(2, int(16384)), a(3, int(0))],
        vec![],
    );
    assert_eq!(call(&e).args[0], int(1));
    assert_eq!(e.ty, Type::MemRef);
}

#[test]
fn cast_mode_defaults_and_names() {
    let mut p = P::new();
    let t = p.tile("t", &[8, 8], FP32);
    let e = p.ok("cast", vec![a(0, t.clone()), v(1, KwValue::DType(FP16))], vec![]);
    assert_eq!(kwargs_of(&e), kwv(&[("target_type", KwValue::DType(FP16)), ("mode", KwValue::Int(2))]));
    assert_eq!(e.ty, tile_ty(&[8, 8], FP16));
    let e = p.ok(
        "block.cast",
        vec![a(0, t.clone())],
        vec![k("target_type", KwValue::Int(0x40)), k("mode", KwValue::Str("floor".into()))],
    );
    assert_eq!(kwargs_of(&e), kwv(&[("target_type", KwValue::DType(DataType::Bf16)), ("mode", KwValue::Int(3))]));
    let d = p.err(
        "block.cast",
        vec![a(0, t.clone())],
        vec![k("target_type", KwValue::DType(FP16)), k("mode", KwValue::Int(9))],
    );
    assert_eq!((d.code, d.span.lo), (codes::OP_KWARG, 200));
    let x = p.tensor("x", &[8], FP32);
    let e = p.ok("cast", vec![a(0, x), v(1, KwValue::DType(INT32))], vec![]);
    assert_eq!((op_name(&e), e.ty.clone()), ("tensor.cast", tensor_ty(&[8], INT32)));
}

// ---------------------------------------------------------------------------------------------
// View / reshape / transpose

#[test]
fn view_reshape_transpose() {
    let mut p = P::new();
    let x = p.tensor("x", &[64, 32], FP32);
    let e = p.ok("tensor.view", vec![a(0, x.clone()), a(1, list(&[16, 16])), a(2, list(&[0, 0]))], vec![]);
    assert_eq!(e.ty, tensor_ty(&[16, 16], FP32));
    assert_eq!(p.ok("reshape", vec![a(0, x.clone()), a(1, list(&[2048]))], vec![]).ty, tensor_ty(&[2048], FP32));
    let d = p.err("tensor.reshape", vec![a(0, x.clone()), a(1, list(&[100]))], vec![]);
    assert_eq!(d.code, codes::OP_CHECK);
    let e = p.ok("tensor.transpose", vec![a(0, x.clone()), a(1, int(0)), a(2, int(1))], vec![]);
    assert_eq!(e.ty, tensor_ty(&[32, 64], FP32));
    // Keyword axes are plain values converted to ConstInt(INT64).
    let t = p.tile("t", &[4, 8, 16], FP16);
    let e = p.ok("transpose", vec![a(0, t.clone())], vec![k("axis1", KwValue::Int(0)), k("axis2", KwValue::Int(-1))]);
    assert_eq!(call(&e).args[1..], [int(0), int(-1)]);
    assert_eq!(e.ty, tile_ty(&[16, 8, 4], FP16));
    let d = p.err("block.transpose", vec![a(0, t.clone()), a(1, int(1)), a(2, int(-2))], vec![]);
    assert!(d.message.contains("two different axes"), "{}", d.message);
    assert_eq!(
        p.ok("block.reshape", vec![a(0, t.clone()), a(1, list(&[32, 16]))], vec![]).ty,
        tile_ty(&[32, 16], FP16)
    );
    let i32_list = Expr::new(ExprKind::MakeTuple(vec![Expr::int(4, INT32, SP)]), Type::Unknown, SP);
    let d = p.err("block.view", vec![a(0, t), a(1, i32_list), a(2, list(&[0]))], vec![]);
    assert_eq!((d.code, d.span.lo), (codes::OP_ARG_TYPE, 10));
    let e = p.ok("tensor.dim", vec![a(0, x.clone()), a(1, int(-1))], vec![]);
    assert_eq!(e.ty, Type::Scalar(INT64));
    let e = p.ok("tensor.read", vec![a(0, x), a(1, list(&[1, 3]))], vec![]);
    assert_eq!(e.ty, Type::Scalar(FP32));
}

// ---------------------------------------------------------------------------------------------
// System ops and test.op

#[test]
fn system_ops_are_unknown_typed_with_ordered_kwargs() {
    let p = P::new();
    let e = p.ok(
        "system.sync_src",
        vec![],
        vec![k("event_id", KwValue::Int(0)), k("set_pipe", KwValue::Int(1)), k("wait_pipe", KwValue::Int(4))],
    );
    assert_eq!(e.ty, Type::Unknown);
    assert_eq!(
        kwargs_of(&e),
        kwv(&[("set_pipe", KwValue::Int(1)), ("wait_pipe", KwValue::Int(4)), ("event_id", KwValue::Int(0))])
    );
    assert_eq!(p.ok("system.bar_all", vec![], vec![]).ty, Type::Unknown);
    let e = p.ok(
        "system.sync_dst",
        vec![],
        vec![
            k("set_pipe", KwValue::Str("MTE2".into())),
            k("wait_pipe", KwValue::Int(4)),
            k("event_id", KwValue::Int(1)),
        ],
    );
    assert_eq!(kwargs_of(&e)[0], ("set_pipe", KwValue::Int(1)), "a pipe name is stored as its code");
    let d = p.err("system.sync_dst", vec![], vec![k("set_pipe", KwValue::Int(1)), k("wait_pipe", KwValue::Int(4))]);
    assert_eq!(d.code, codes::OP_ARG_COUNT);
    let d = p.err("system.bar_v", vec![a(0, int(1))], vec![]);
    assert_eq!((d.code, d.span.lo), (codes::OP_ARG_COUNT, 0));
    let d = p.err("system.bar_m", vec![], vec![k("x", KwValue::Int(1))]);
    assert_eq!((d.code, d.span.lo), (codes::OP_KWARG, 200));
}

#[test]
fn test_op_has_the_type_of_its_first_argument() {
    let mut p = P::new();
    let t = p.tile("t", &[2], FP32);
    let e = p.ok("test.op", vec![a(0, t), a(1, int(1))], vec![k("string_attr", KwValue::Str("s".into()))]);
    assert_eq!(e.ty, tile_ty(&[2], FP32));
}

// ---------------------------------------------------------------------------------------------
// Dispatch

#[test]
fn unified_dispatch_by_first_argument() {
    let mut p = P::new();
    let x = p.tensor("x", &[8], FP32);
    let t = p.tile("t", &[8], FP32);
    let s = p.scalar("s", FP32);
    assert_eq!(op_name(&p.ok("exp", vec![a(0, x.clone())], vec![])), "tensor.exp");
    assert_eq!(op_name(&p.ok("exp", vec![a(0, t.clone())], vec![])), "block.exp");
    assert_eq!(op_name(&p.ok("add", vec![a(0, x.clone()), a(1, float(1.0))], vec![])), "tensor.add_scalar");
    assert_eq!(op_name(&p.ok("add", vec![a(0, x.clone()), a(1, x.clone())], vec![])), "tensor.add");
    assert_eq!(op_name(&p.ok("mul", vec![a(0, t.clone()), a(1, s.clone())], vec![])), "block.muls");
    assert_eq!(op_name(&p.ok("sub", vec![a(0, t.clone()), a(1, t.clone())], vec![])), "block.sub");
    let it = p.tile("it", &[8], INT32);
    assert_eq!(op_name(&p.ok("and_", vec![a(0, it.clone()), a(1, it.clone())], vec![])), "block.and");
    assert_eq!(op_name(&p.ok("block.and", vec![a(0, it.clone()), a(1, it)], vec![])), "block.and");
    assert_eq!(op_name(&p.ok("add_scalar", vec![a(0, x.clone()), a(1, s.clone())], vec![])), "tensor.add_scalar");
    assert_eq!(op_name(&p.ok("tensor.div", vec![a(0, x.clone()), a(1, s.clone())], vec![])), "tensor.div_scalar");
    assert_eq!(op_name(&p.ok("tensor.div_scalar", vec![a(0, x.clone()), a(1, s)], vec![])), "tensor.div_scalar");
    let d = p.err("read", vec![a(0, t)], vec![]);
    assert_eq!((d.code, d.span.lo), (codes::OP_ARG_TYPE, 0));
    let d = p.err("exp", vec![], vec![]);
    assert_eq!(d.code, codes::OP_ARG_COUNT);
    let d = p.err("exp", vec![a(0, list(&[1]))], vec![]);
    assert_eq!(d.code, codes::OP_ARG_TYPE);
}

#[test]
fn block_add_with_a_scalar_is_not_redirected() {
    let mut p = P::new();
    let t = p.tile("t", &[8], FP32);
    let x = p.tensor("x", &[8], FP32);
    let s = p.scalar("s", FP32);
    let d = p.err("block.add", vec![a(0, t.clone()), a(1, s)], vec![]);
    assert_eq!(d.code, codes::OP_ARG_TYPE);
    assert_eq!(d.message, "block.add expects a Tile for argument 2 (rhs), found Scalar");
    assert_eq!(d.notes, vec!["for a scalar operand use pl.block.adds(...) or the unified pl.add(...)".to_string()]);
    assert!(d.span.same_range(Span::new(10, 15)));
    let d = p.err("block.add", vec![a(0, t), a(1, x)], vec![]);
    assert_eq!(d.message, "block.add expects a Tile for argument 2 (rhs), found Tensor");
    assert!(d.notes.is_empty());
}

#[test]
fn scalar_min_max_and_cast_through_unified_names() {
    let mut p = P::new();
    let i = p.scalar("i", INT32);
    let j = p.scalar("j", INT64);
    let e = p.ok("min", vec![a(0, i.clone()), a(1, j.clone())], vec![]);
    assert_eq!(e.ty, Type::Scalar(INT64));
    let ExprKind::Binary(BinOp::Min, l, r) = &e.kind else { panic!("{e:?}") };
    assert!(matches!(&l.kind, ExprKind::Unary(UnOp::Cast, _)) && l.ty == Type::Scalar(INT64));
    assert_eq!(**r, j);
    let e = p.ok("cast", vec![a(0, i.clone()), v(1, KwValue::DType(FP16))], vec![]);
    assert_eq!((e.kind.clone(), e.ty.clone()), (ExprKind::Unary(UnOp::Cast, Box::new(i.clone())), Type::Scalar(FP16)));
    let d = p.err("max", vec![a(0, i.clone()), a(1, j)], vec![k("axis", KwValue::Int(0))]);
    assert_eq!(d.code, codes::OP_KWARG);
    let d = p.err("max", vec![a(0, i.clone())], vec![]);
    assert_eq!(d.code, codes::OP_ARG_COUNT);
    let d = p.err("exp", vec![a(0, i)], vec![]);
    assert_eq!(d.code, codes::OP_ARG_TYPE);
}

// ---------------------------------------------------------------------------------------------
// Errors

#[test]
fn unknown_ops_suggest_close_names() {
    let mut p = P::new();
    let t = p.tile("t", &[8], FP32);
    let d = p.err("block.ad", vec![a(0, t.clone()), a(1, t.clone())], vec![]);
    assert_eq!((d.code, d.message.as_str()), (codes::UNKNOWN_OP, "unknown operator 'pl.block.ad'"));
    assert!(d.span.same_range(Span::new(0, 3)), "points at the name");
    assert_eq!(d.notes, vec!["did you mean 'pl.block.add'?".to_string()]);
    let d = p.err("tensor.load", vec![], vec![]);
    assert_eq!(d.notes, vec!["did you mean 'pl.block.load'?".to_string()]);
    let d = p.err("exps", vec![a(0, t.clone())], vec![]);
    assert_eq!((d.code, d.notes.clone()), (codes::UNKNOWN_OP, vec!["did you mean 'pl.exp'?".to_string()]));
    let d = p.err("frobnicate", vec![a(0, t)], vec![]);
    assert!(d.notes.is_empty());
    assert_eq!(p.err("a.b.c", vec![], vec![]).code, codes::UNKNOWN_OP);
}

#[test]
fn argument_count_errors() {
    let mut p = P::new();
    let t = p.tile("t", &[8], FP32);
    let d = p.err("block.add", vec![a(0, t.clone()), a(1, t.clone()), a(2, t.clone())], vec![]);
    assert_eq!(d.code, codes::OP_ARG_COUNT);
    assert!(d.span.same_range(Span::new(20, 25)), "points at the extra argument");
    let d = p.err("block.add", vec![a(0, t.clone())], vec![]);
    assert_eq!((d.code, d.message.as_str()), (codes::OP_ARG_COUNT, "block.add is missing argument 2 (rhs)"));
    let d = p.err("block.exp", vec![a(0, t.clone()), v(1, KwValue::DType(FP16))], vec![]);
    assert_eq!(d.code, codes::OP_ARG_COUNT);
    let d = p.err("block.add", vec![a(0, t.clone()), v(1, KwValue::DType(FP16))], vec![]);
    assert_eq!((d.code, d.span.lo), (codes::OP_ARG_TYPE, 10));
}

#[test]
fn kwarg_errors() {
    let mut p = P::new();
    let t = p.tile("t", &[8], FP32);
    let d = p.err("block.move", vec![a(0, t.clone())], vec![k("target_memroy", KwValue::Space(MemorySpace::Left))]);
    assert_eq!((d.code, d.span.lo, d.span.hi), (codes::OP_KWARG, 200, 210));
    assert_eq!(d.notes, vec!["did you mean 'target_memory'?".to_string()]);
    let d = p.err(
        "block.move",
        vec![a(0, t.clone()), v(1, KwValue::Space(MemorySpace::Left))],
        vec![k("target_memory", KwValue::Space(MemorySpace::Right))],
    );
    assert!(d.message.contains("multiple values for argument 'target_memory'"), "{}", d.message);
    let d = p.err(
        "block.move",
        vec![a(0, t.clone())],
        vec![k("target_memory", KwValue::Space(MemorySpace::Left)), k("transpose", KwValue::Int(1))],
    );
    assert_eq!(d.code, codes::OP_KWARG);
    assert_eq!(d.message, "block.move expects a bool for 'transpose', found the integer 1");
    let n = p.scalar("n", INT64);
    let d = p.err("block.sum", vec![a(0, t.clone())], vec![ke("axis", n)]);
    assert_eq!(d.code, codes::OP_KWARG);
    let d = p.err("block.cast", vec![a(0, t), v(1, KwValue::Str("fp16".into()))], vec![]);
    assert_eq!((d.code, d.span.lo), (codes::OP_ARG_TYPE, 10));
}

// ---------------------------------------------------------------------------------------------
// deduce_type (used by passes)

#[test]
fn deduce_type_accepts_stored_forms_and_reports_plain_messages() {
    let mut p = P::new();
    let t = p.tile("t", &[8, 8], FP32);
    let cast = lookup("block.cast").unwrap();
    let ty = deduce_type(
        &p.prog,
        cast,
        std::slice::from_ref(&t),
        &kwv(&[("target_type", KwValue::Int(0x33)), ("mode", KwValue::Int(2))]),
    );
    assert_eq!(ty, Ok(tile_ty(&[8, 8], FP16)));
    let err = deduce_type(&p.prog, cast, std::slice::from_ref(&t), &kwv(&[("bogus", KwValue::Int(1))])).unwrap_err();
    assert_eq!(err, "Unknown kwarg 'bogus' for operator 'block.cast'");
    let err = deduce_type(&p.prog, cast, std::slice::from_ref(&t), &[]).unwrap_err();
    assert_eq!(err, "The operator block.cast requires the kwarg 'target_type'");
    // Ops without a kwarg schema ignore kwargs, as in the reference.
    let exp = lookup("block.exp").unwrap();
    assert!(deduce_type(&p.prog, exp, std::slice::from_ref(&t), &kwv(&[("x", KwValue::Int(1))])).is_ok());
    let add = lookup("block.add").unwrap();
    let err = deduce_type(&p.prog, add, std::slice::from_ref(&t), &[]).unwrap_err();
    assert_eq!(err, "The operator block.add requires exactly 2 arguments (lhs, rhs), but got 1");
    assert!(deduce_type(&p.prog, OpId(999), &[], &[]).is_err());
}

// ---------------------------------------------------------------------------------------------
// Promotion

#[test]
fn promotion_rule_b_table() {
    use DataType::*;
    let cases = [
        (Fp16, Fp16, Fp16),
        (Int32, Fp16, Fp16),
        (Fp16, Int64, Fp16),
        (Fp16, Fp32, Fp32),
        (Bf16, Fp16, Bf16),
        (Fp16, Bf16, Fp16),
        (Int8, Int32, Int32),
        (UInt32, Int32, Int32),
        (Int32, UInt32, Int32),
        (UInt16, UInt8, UInt16),
        (Bool, Int8, Int8),
        (Bool, UInt4, UInt4),
        (UInt64, Int64, Int64),
    ];
    for (x, y, want) in cases {
        assert_eq!(promote_dtypes(x, y), want, "P({x:?}, {y:?})");
    }
}

#[test]
fn promotion_rule_a_inserts_casts() {
    let mut p = P::new();
    let i32v = p.scalar("a", INT32);
    let i64v = p.scalar("b", INT64);
    let u32v = p.scalar("u", DataType::UInt32);
    let f16 = p.scalar("h", FP16);
    let f32v = p.scalar("f", FP32);
    let flag = p.scalar("p", BOOL);
    let bin = |p: &P, op, l: &Expr, r: &Expr| scalar_binary(&p.prog, op, l.clone(), r.clone(), SP);
    let cast = |e: &Expr, d| Expr::new(ExprKind::Unary(UnOp::Cast, Box::new(e.clone())), Type::Scalar(d), SP);

    let e = bin(&p, BinOp::Mul, &i32v, &i64v).unwrap();
    assert_eq!(e.kind, ExprKind::Binary(BinOp::Mul, Box::new(cast(&i32v, INT64)), Box::new(i64v.clone())));
    assert_eq!(e.ty, Type::Scalar(INT64));
    let e = bin(&p, BinOp::Add, &i64v, &i64v).unwrap();
    assert_eq!(e.kind, ExprKind::Binary(BinOp::Add, Box::new(i64v.clone()), Box::new(i64v.clone())), "no cast");
    // Equal widths: the left dtype wins.
    let e = bin(&p, BinOp::Sub, &u32v, &i32v).unwrap();
    assert_eq!(
        (e.ty.clone(), e.kind),
        (
            Type::Scalar(DataType::UInt32),
            ExprKind::Binary(BinOp::Sub, Box::new(u32v.clone()), Box::new(cast(&i32v, DataType::UInt32)))
        )
    );
    assert_eq!(bin(&p, BinOp::FloatDiv, &i32v, &i32v).unwrap().ty, Type::Scalar(INT32), "int / int stays int");
    let e = bin(&p, BinOp::Lt, &f16, &f32v).unwrap();
    assert_eq!(e.ty, Type::Scalar(BOOL));
    assert_eq!(e.kind, ExprKind::Binary(BinOp::Lt, Box::new(cast(&f16, FP32)), Box::new(f32v.clone())));
    assert_eq!(bin(&p, BinOp::Max, &f16, &f32v).unwrap().ty, Type::Scalar(FP32));
    let e = bin(&p, BinOp::And, &flag, &i32v).unwrap();
    assert_eq!(
        (e.ty.clone(), e.kind),
        (Type::Scalar(BOOL), ExprKind::Binary(BinOp::And, Box::new(flag.clone()), Box::new(i32v.clone())))
    );

    let d = bin(&p, BinOp::Add, &i32v, &f32v).unwrap_err();
    assert_eq!(d.code, codes::BAD_SCALAR_OP);
    assert!(d.message.starts_with("Operator 'Add' requires same numeric dtype category"), "{}", d.message);
    assert_eq!(bin(&p, BinOp::Eq, &flag, &flag).unwrap().ty, Type::Scalar(BOOL), "bool == bool is accepted");
    let d = bin(&p, BinOp::Lt, &flag, &flag).unwrap_err();
    assert_eq!(d.message, "Operator 'Lt' does not accept bool dtype");
    let d = bin(&p, BinOp::Shl, &f32v, &f32v).unwrap_err();
    assert!(d.message.starts_with("Operator 'BitShiftLeft' requires integer dtype"), "{}", d.message);
    assert_eq!(bin(&p, BinOp::BitAnd, &i32v, &i64v).unwrap().ty, Type::Scalar(INT64));
    let t = p.tensor("t", &[4], FP32);
    let d = bin(&p, BinOp::Add, &t, &f32v).unwrap_err();
    assert_eq!(
        (d.code, d.message.as_str()),
        (codes::BAD_SCALAR_OP, "Operator 'Add' requires the left operand to be a scalar, but got Tensor")
    );
}

#[test]
fn scalar_unary_rules() {
    let mut p = P::new();
    let i = p.scalar("i", INT16);
    let f = p.scalar("f", FP16);
    let un = |p: &P, op, e: &Expr| scalar_unary(&p.prog, op, e.clone(), SP);
    assert_eq!(un(&p, UnOp::Neg, &f).unwrap().ty, Type::Scalar(FP16));
    assert_eq!(un(&p, UnOp::Abs, &i).unwrap().ty, Type::Scalar(INT16));
    assert_eq!(un(&p, UnOp::Not, &i).unwrap().ty, Type::Scalar(BOOL));
    assert_eq!(un(&p, UnOp::BitNot, &i).unwrap().ty, Type::Scalar(INT16));
    assert_eq!(un(&p, UnOp::BitNot, &f).unwrap_err().code, codes::BAD_SCALAR_OP);
    assert_eq!(un(&p, UnOp::Cast, &f).unwrap_err().code, codes::BAD_SCALAR_OP);
    let e = scalar_cast(&p.prog, i.clone(), FP32, SP).unwrap();
    assert_eq!((e.kind, e.ty), (ExprKind::Unary(UnOp::Cast, Box::new(i)), Type::Scalar(FP32)));
    let t = p.tile("t", &[1], FP32);
    assert_eq!(scalar_cast(&p.prog, t, FP32, SP).unwrap_err().code, codes::BAD_SCALAR_OP);
}

#[test]
fn dotted_paths_compare_segment_by_segment() {
    assert!(super::is_dotted(&["block", "load"], "block.load"));
    assert!(!super::is_dotted(&["block", "loa"], "block.load"));
    assert!(!super::is_dotted(&["block"], "block.load"));
    assert!(!super::is_dotted(&["block", "load", "x"], "block.load"));
    assert!(!super::is_dotted(&["blockload"], "block.load"));
    assert!(super::is_dotted(&["load"], "load"));
}

/// The `reads` column (the memory-space check before C++ emission): vector ops read Vec, the
/// matmuls Left/Right (and Acc), the stores Vec and Acc, and every move source is one step of
/// the backend's memory graph from its target (or the target itself).
#[test]
fn memory_spaces_read_by_each_op() {
    use super::table::{move_sources, Reads};
    use MemorySpace::{Acc, Left, Mat, Right, Vec};
    let reads = |name: &str| def(lookup(name).unwrap()).reads;
    for (id, d) in table::entries() {
        if d.pipe_cce == Some(crate::ir::PipeType::V) && !matches!(d.name, "block.view" | "block.reshape") {
            assert_eq!(d.reads, Reads::Tiles(&[Vec]), "{} ({id:?}) runs on V", d.name);
        }
    }
    assert_eq!(reads("block.view"), Reads::Any);
    assert_eq!(reads("block.matmul").arg(0, None), Some(&[Left][..]));
    assert_eq!(reads("block.matmul").arg(1, None), Some(&[Right][..]));
    assert_eq!(reads("block.matmul_acc").arg(0, None), Some(&[Acc][..]));
    assert_eq!(reads("block.matmul_acc").arg(2, None), Some(&[Right][..]));
    assert_eq!(reads("block.matmul_bias").arg(2, None), None);
    assert_eq!(reads("block.store").arg(0, None), Some(&[Vec][..]));
    assert_eq!(reads("block.store").arg(3, None), None);
    assert_eq!(reads("block.l0c_store").arg(0, None), Some(&[Acc][..]));
    assert_eq!(reads("block.move").arg(0, Some(Left)), Some(&[Mat][..]));
    assert_eq!(reads("block.move").arg(0, Some(Right)), Some(&[Mat][..]));
    assert_eq!(reads("block.move").arg(0, Some(Vec)), Some(&[Vec][..]));
    assert_eq!(reads("block.move").arg(0, None), None);
    for to in MemorySpace::ALL {
        for from in move_sources(*to) {
            let path = crate::backend::memory_path(*from, *to);
            assert!(path.is_some_and(|p| p.len() <= 2), "{from:?} -> {to:?}: not one step");
        }
    }
}

#[test]
fn optional_arguments_are_the_last_and_may_be_left_out() {
    let mut checked = 0;
    for def in OPS.iter() {
        let optional: Vec<bool> = def.arg_params().map(|p| p.optional).collect();
        assert!(optional.windows(2).all(|w| !w[0] || w[1]), "{}: an optional argument before a required one", def.name);
        checked += usize::from(optional.contains(&true));
    }
    assert!(checked >= 1, "no operator has an optional argument");
    // block.transpose takes its scratch tile or not, and no fewer arguments.
    let mut p = P::new();
    let x = p.tile("x", &[16, 32], FP32);
    let w = p.tile("w", &[16, 32], FP32);
    let three = p.ok("block.transpose", vec![a(0, x.clone()), a(1, int(0)), a(2, int(1))], vec![]);
    let four = p.ok("block.transpose", vec![a(0, x.clone()), a(1, int(0)), a(2, int(1))], vec![ke("tmp_tile", w)]);
    assert_eq!(three.ty, tile_ty(&[32, 16], FP32));
    assert_eq!(four.ty, three.ty);
    assert_eq!(four.as_call().map(|c| c.args.len()), Some(4));
    let d = p.err("block.transpose", vec![a(0, x.clone()), a(1, int(0))], vec![]);
    assert_eq!(d.code, codes::OP_ARG_COUNT);
    let transpose = lookup("block.transpose").unwrap();
    let err = deduce_type(&p.prog, transpose, std::slice::from_ref(&x), &[]).unwrap_err();
    assert_eq!(err, "The operator block.transpose requires 3 to 4 arguments (tile, axis1, axis2, tmp_tile), but got 1");
}

// ---------------------------------------------------------------------------------------------
// Valid shapes (partial tiles)

/// The valid shape of a tile type, as constants (`None` for a dynamic extent).
fn valid_of(ty: &Type) -> Vec<Option<i64>> {
    tile_of(ty).view.as_ref().map_or(Vec::new(), |v| v.valid_shape.iter().map(Expr::as_const_int).collect())
}

#[test]
fn valid_shapes_are_given_kept_reduced_and_dropped_when_whole() {
    let mut p = P::new();
    let t = p.tensor("t", &[16, 32], FP32);
    let whole = || vec![a(0, t.clone()), a(1, list(&[0, 0])), a(2, list(&[16, 32]))];
    let x = p.ok("load", whole(), vec![ke("valid_shape", list(&[8, 20]))]);
    assert_eq!(valid_of(&x.ty), [Some(8), Some(20)]);
    // Equal to the shape: the call and the type without it.
    let w = p.ok("load", whole(), vec![ke("valid_shapes", list(&[16, 32]))]);
    let ExprKind::Call(c) = &w.kind else { panic!("a call") };
    assert_eq!((c.args.len(), valid_of(&w.ty)), (3, vec![]));
    let xv = p.var("x", x.ty.clone());
    let e = p.ok("block.exp", vec![a(0, xv.clone())], vec![]);
    assert_eq!(valid_of(&e.ty), [Some(8), Some(20)]);
    let tmp = p.tile("tmp", &[16, 32], FP32);
    let r = p.ok("block.row_max", vec![a(0, xv.clone()), a(1, tmp)], vec![]);
    assert_eq!(valid_of(&r.ty), [Some(8), Some(1)]);
    let col =
        p.ok("block.max", vec![a(0, xv.clone())], vec![k("axis", KwValue::Int(0)), k("keepdim", KwValue::Bool(true))]);
    assert_eq!(valid_of(&col.ty), [Some(1), Some(20)]);
    // The fill pad makes the whole tile valid and keeps its pad value.
    let f = p.ok("block.fillpad", vec![a(0, xv.clone())], vec![k("pad_value", KwValue::Pad(TilePad::Max))]);
    assert_eq!((valid_of(&f.ty), tile_of(&f.ty).view.as_ref().map(|v| v.pad)), (vec![], Some(TilePad::Max)));
    let n = p.var("n", Type::Scalar(INT64));
    let v =
        p.ok("block.set_validshape", vec![a(0, xv.clone()), a(1, n), a(2, Expr::int(4, INT64, Span::NONE))], vec![]);
    assert_eq!(valid_of(&v.ty), [None, Some(4)]);
    // An extent past the axis, and one extent for two axes, are errors at the argument.
    let d = p.err("load", whole(), vec![ke("valid_shape", list(&[8, 40]))]);
    assert!(d.message.contains("at most the shape"), "{}", d.message);
    let d = p.err("load", whole(), vec![ke("valid_shape", list(&[8]))]);
    assert!(d.message.contains("one extent per axis"), "{}", d.message);
    assert!(ignores_valid_shape(id::RESHAPE) && ignores_valid_shape(id::GATHER) && !ignores_valid_shape(id::ADD));
}

/// A refused spelling of today's PyPTO names no operator ptoc reads (else the refusal would
/// hide it), and each is listed once.
#[test]
fn refused_spellings_name_no_operator() {
    let mut seen = HashSet::new();
    for r in refused::REFUSED {
        assert!(seen.insert(r.name), "{} listed twice", r.name);
        assert!(index::today(r.name).is_none(), "{} is a spelling of an operator", r.name);
        if let Some(name) = r.name.strip_prefix("tensor.") {
            assert!(index::by_spelling(Category::Tensor, name).is_none(), "{} names an operator", r.name);
        }
        assert!(!r.why.is_empty());
    }
}

/// The CCE writer (`codegen::calls`) takes each form's arguments at fixed positions and reads
/// some of them as tile variables; binding a call checks its argument count against the
/// table and the type of each argument against its parameter's `Expect`. So the writer meets
/// no other count and no non-tile there when every op's form agrees with its parameters.
#[test]
fn cce_forms_agree_with_argument_binding() {
    use super::cce::{CceEmit, Family};
    use super::table::Expect;
    for d in OPS {
        let Some(form) = d.cce else { continue };
        let counts: Vec<usize> = (d.min_arity()..=d.arity()).collect();
        let all = |n: usize| (0..n).collect::<Vec<usize>>();
        let (allowed, tiles): (Vec<usize>, Vec<usize>) = match form {
            CceEmit::Dst { arity, .. } => (vec![arity], vec![]),
            CceEmit::Elementwise { arity, family, .. } => {
                let tiles = all(arity).into_iter().filter(|&i| !(family == Family::BinaryScalar && i == 1)).collect();
                (vec![arity], tiles)
            }
            CceEmit::DstArg { arg, .. } => ((arg + 1..=d.arity().max(arg + 1)).collect(), vec![]),
            CceEmit::Cast | CceEmit::Move | CceEmit::VecMove | CceEmit::GatherMask => (vec![1], vec![0]),
            // `block.fillpad_expand` also takes the result's shape.
            CceEmit::FillPad { .. } => (vec![1, 2], vec![0]),
            CceEmit::Cmp { .. } | CceEmit::CmpBits { .. } | CceEmit::TensorDim | CceEmit::TensorRead => {
                (vec![2], vec![])
            }
            CceEmit::SelectBits => (vec![4], vec![0, 1, 2]),
            CceEmit::RowReduce { .. } => (vec![2], vec![0, 1]),
            CceEmit::ColReduce { tmp, .. } => (vec![1 + usize::from(tmp)], all(1 + usize::from(tmp))),
            CceEmit::RowExpand { arity, .. } | CceEmit::ColExpand { arity, .. } => (vec![arity], all(arity)),
            CceEmit::Reduce { .. } => (vec![1, 2], vec![0, 1]),
            CceEmit::Extract => (vec![3], vec![0]),
            CceEmit::Load => (vec![3, 4], vec![]),
            CceEmit::Store => (vec![4], vec![]),
            CceEmit::Transpose => ((d.min_arity()..=4).collect(), vec![0, 3]),
            _ => continue,
        };
        assert!(
            counts.iter().all(|n| allowed.contains(n)),
            "{}: binds {counts:?} arguments, its C++ form takes {allowed:?}",
            d.name
        );
        let params: Vec<Expect> = d
            .arg_params()
            .map(|p| match p.slot {
                Slot::Arg { expect, .. } => expect,
                Slot::Kw => Expect::Any,
            })
            .collect();
        for i in tiles.into_iter().filter(|&i| i < params.len()) {
            assert_eq!(params[i], Expect::Tile, "{}: argument {i} is read as a tile", d.name);
        }
    }
}
