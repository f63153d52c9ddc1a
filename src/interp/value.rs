//! Runtime values: scalars, tiles (arrays owned by the variable that holds them) and tensors
//! (shared buffers: a kernel that stores into a tensor parameter changes the caller's tensor,
//! as device memory would).

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use super::numeric::{float_to_int, is_float, round_float, wrap_int};
use crate::ir::DataType;

/// Elements of an [`Array`]: `f64` for float dtypes, `i128` for integer dtypes and BOOL.
#[derive(Clone, Debug, PartialEq)]
pub enum Elems {
    F(Vec<f64>),
    I(Vec<i128>),
}

/// A dense row-major array: dtype, shape and elements (already rounded/wrapped to the dtype).
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    dtype: DataType,
    shape: Vec<usize>,
    elems: Elems,
}

/// One element value, before it is stored into a dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    F(f64),
    I(i128),
}

impl Num {
    pub fn as_f64(self) -> f64 {
        match self {
            Num::F(v) => v,
            Num::I(v) => v as f64,
        }
    }
    /// As an integer; floats truncate toward zero (and saturate).
    pub fn as_i128(self) -> i128 {
        match self {
            Num::F(v) => float_to_int(DataType::Int64, v),
            Num::I(v) => v,
        }
    }
    pub fn is_true(self) -> bool {
        match self {
            Num::F(v) => v != 0.0,
            Num::I(v) => v != 0,
        }
    }
    /// The value as dtype `d` stores it: floats rounded, integers wrapped, floats converted to
    /// integers by truncation.
    pub fn to_dtype(self, d: DataType) -> Num {
        if is_float(d) {
            Num::F(round_float(d, self.as_f64()))
        } else {
            match self {
                Num::I(v) => Num::I(wrap_int(d, v)),
                Num::F(v) if d == DataType::Bool => Num::I(i128::from(v != 0.0)),
                Num::F(v) => Num::I(wrap_int(d, float_to_int(DataType::Int64, v))),
            }
        }
    }
}

impl Array {
    /// An array of zeros.
    pub fn zeros(dtype: DataType, shape: Vec<usize>) -> Array {
        let n = shape.iter().product();
        let elems = if is_float(dtype) { Elems::F(vec![0.0; n]) } else { Elems::I(vec![0; n]) };
        Array { dtype, shape, elems }
    }
    /// An array from values given as `f64`, rounded (or, for integer dtypes, truncated and
    /// wrapped) to `dtype`. Missing elements are 0; extra ones are ignored.
    pub fn from_f64(dtype: DataType, shape: Vec<usize>, data: &[f64]) -> Array {
        let n: usize = shape.iter().product();
        let elems = if is_float(dtype) {
            Elems::F((0..n).map(|i| round_float(dtype, data.get(i).copied().unwrap_or(0.0))).collect())
        } else {
            Elems::I((0..n).map(|i| Num::F(data.get(i).copied().unwrap_or(0.0)).to_dtype(dtype).as_i128()).collect())
        };
        Array { dtype, shape, elems }
    }
    /// An array from element values, each converted to `dtype`.
    pub fn from_nums(dtype: DataType, shape: Vec<usize>, data: impl IntoIterator<Item = Num>) -> Array {
        let elems = if is_float(dtype) {
            Elems::F(data.into_iter().map(|v| v.to_dtype(dtype).as_f64()).collect())
        } else {
            Elems::I(data.into_iter().map(|v| v.to_dtype(dtype).as_i128()).collect())
        };
        Array { dtype, shape, elems }
    }
    pub fn dtype(&self) -> DataType {
        self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    pub fn len(&self) -> usize {
        match &self.elems {
            Elems::F(v) => v.len(),
            Elems::I(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn elems(&self) -> &Elems {
        &self.elems
    }
    /// Element `i` of the flat (row-major) order.
    pub fn get(&self, i: usize) -> Num {
        match &self.elems {
            Elems::F(v) => Num::F(v[i]),
            Elems::I(v) => Num::I(v[i]),
        }
    }
    /// Stores `v` converted to the array's dtype at flat index `i`.
    pub fn set(&mut self, i: usize, v: Num) {
        let v = v.to_dtype(self.dtype);
        match (&mut self.elems, v) {
            (Elems::F(e), Num::F(x)) => e[i] = x,
            (Elems::I(e), Num::I(x)) => e[i] = x,
            // `to_dtype` gives the array's class; kept total for safety.
            (Elems::F(e), Num::I(x)) => e[i] = x as f64,
            (Elems::I(e), Num::F(x)) => e[i] = x as i128,
        }
    }
    /// Every element as `f64` (INT64/UINT64 values beyond 2^53 lose precision).
    pub fn to_f64_vec(&self) -> Vec<f64> {
        match &self.elems {
            Elems::F(v) => v.clone(),
            Elems::I(v) => v.iter().map(|&x| x as f64).collect(),
        }
    }
    /// The same elements with another shape (the caller checks the element count).
    pub fn reshaped(mut self, shape: Vec<usize>) -> Array {
        self.shape = shape;
        self
    }
}

/// The most elements one array may have (2^26, 1 GiB of `i128`s): a program that asks for more
/// (a huge `tensor.create`, a broadcast of two long vectors) is an error, not an abort.
pub const MAX_ELEMENTS: usize = 1 << 26;

/// The element count of `shape`, or an error past [`MAX_ELEMENTS`].
pub fn element_count(shape: &[usize]) -> Result<usize, String> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= MAX_ELEMENTS)
        .ok_or_else(|| format!("an array of shape {shape:?} has more than {MAX_ELEMENTS} elements"))
}

/// Row-major strides of a shape.
pub fn strides_of(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * shape[k + 1];
    }
    s
}

/// A tensor: a strided window onto a shared buffer. `tensor.view`, `tensor.reshape` and
/// `tensor.transpose` make new windows onto the same buffer, so writes through any of them are
/// seen by all, as in device memory.
#[derive(Clone)]
pub struct Tensor {
    buf: Rc<RefCell<Array>>,
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor({:?} {:?})", self.dtype(), self.shape)
    }
}

impl Tensor {
    /// A new buffer holding `a`.
    pub fn new(a: Array) -> Tensor {
        let shape = a.shape.clone();
        let strides = strides_of(&shape);
        Tensor { buf: Rc::new(RefCell::new(a)), shape, strides, offset: 0 }
    }
    pub fn dtype(&self) -> DataType {
        self.buf.borrow().dtype
    }
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }
    /// Whether the window covers its buffer contiguously in row-major order.
    pub fn is_contiguous(&self) -> bool {
        self.strides == strides_of(&self.shape)
    }
    /// Buffer index of a multi-index of this window.
    pub fn buf_index(&self, idx: &[usize]) -> usize {
        self.offset + idx.iter().zip(&self.strides).map(|(i, s)| i * s).sum::<usize>()
    }
    pub fn get(&self, idx: &[usize]) -> Num {
        self.buf.borrow().get(self.buf_index(idx))
    }
    pub fn set(&self, idx: &[usize], v: Num) {
        let i = self.buf_index(idx);
        self.buf.borrow_mut().set(i, v);
    }
    /// A copy of the window's elements as a dense array.
    pub fn to_array(&self) -> Array {
        let buf = self.buf.borrow();
        let n: usize = self.shape.iter().product();
        let mut idx = vec![0usize; self.shape.len()];
        let mut out = Array::zeros(buf.dtype, self.shape.clone());
        for flat in 0..n {
            out.set(flat, buf.get(self.buf_index(&idx)));
            next_index(&mut idx, &self.shape);
        }
        out
    }
    /// A window with the given shape, strides and buffer offset (checked by the caller).
    pub fn window(&self, shape: Vec<usize>, strides: Vec<usize>, offset: usize) -> Tensor {
        Tensor { buf: self.buf.clone(), shape, strides, offset }
    }
    pub fn offset(&self) -> usize {
        self.offset
    }
}

/// Advances a row-major multi-index (wraps to all zeros after the last).
pub fn next_index(idx: &mut [usize], shape: &[usize]) {
    for k in (0..idx.len()).rev() {
        idx[k] += 1;
        if idx[k] < shape[k] {
            return;
        }
        idx[k] = 0;
    }
}

/// A scalar value with its dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scalar {
    pub dtype: DataType,
    pub num: Num,
}

impl Scalar {
    pub fn new(dtype: DataType, num: Num) -> Scalar {
        Scalar { dtype, num: num.to_dtype(dtype) }
    }
}

/// A runtime value.
#[derive(Clone, Debug)]
pub enum Value {
    Scalar(Scalar),
    /// A tensor (shared buffer).
    Tensor(Tensor),
    /// A tile (its own array).
    Tile(Rc<Array>),
    Tuple(Vec<Value>),
    /// What an operation without a result gives (sync ops, `block.alloc`).
    Unit,
}

impl Value {
    /// A tensor value with a new buffer holding `a`.
    pub fn tensor(a: Array) -> Value {
        Value::Tensor(Tensor::new(a))
    }
    pub fn tile(a: Array) -> Value {
        Value::Tile(Rc::new(a))
    }
    /// A scalar of `dtype` from an integer (wrapped to the dtype).
    pub fn scalar_i64(dtype: DataType, v: i64) -> Value {
        Value::Scalar(Scalar::new(dtype, Num::I(i128::from(v))))
    }
    /// The elements of a tensor or tile (a copy), or a scalar as a rank-0 array.
    pub fn array(&self) -> Option<Array> {
        match self {
            Value::Tensor(t) => Some(t.to_array()),
            Value::Tile(a) => Some((**a).clone()),
            Value::Scalar(s) => Some(Array::from_nums(s.dtype, Vec::new(), [s.num])),
            _ => None,
        }
    }
    /// Short kind name for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Scalar(_) => "Scalar",
            Value::Tensor(_) => "Tensor",
            Value::Tile(_) => "Tile",
            Value::Tuple(_) => "Tuple",
            Value::Unit => "nothing",
        }
    }
}
