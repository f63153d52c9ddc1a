//! Deterministic inputs: every array comes from a SplitMix64 stream seeded by the program id,
//! the function and the parameter, so a rerun (and the interpreter) sees the same values.
//!
//! Floats are uniform in [-1, 1] without 0 on a grid every dtype represents exactly (multiples
//! of 2^-10 for FP32/FP16, 2^-7 for BF16): the C++ and the interpreter then start from
//! bit-identical data. Integers are small (signed in [-8, 8], unsigned in [0, 8]); integer scalars are in
//! [1, 8] because generated programs use them as trip counts, divisors and offsets.

use super::npy::{Array, Elem};
use super::signature::TensorSpec;

pub use crate::common::rng::Rng;

/// One random element of `elem`.
pub fn element(rng: &mut Rng, elem: Elem) -> f64 {
    // Never exactly 0.0: the CPU simulator asserts on a division by zero (TDIVS, TRECIP),
    // which hardware answers with an infinity, and a reciprocal of an input is common.
    let nonzero = |rng: &mut Rng, n: i64| {
        let k = rng.int(-n, n - 1);
        (if k >= 0 { k + 1 } else { k }) as f64 / n as f64
    };
    match elem {
        Elem::F32 | Elem::F16 => nonzero(rng, 1024),
        Elem::Bf16 => nonzero(rng, 128),
        Elem::Bool => rng.int(0, 1) as f64,
        e if e.is_signed() => rng.int(-8, 8) as f64,
        _ => rng.int(0, 8) as f64,
    }
}

pub fn tensor(rng: &mut Rng, spec: &TensorSpec) -> Array {
    let mut data = Vec::with_capacity(spec.elements() * spec.elem.size());
    for _ in 0..spec.elements() {
        spec.elem.push(&mut data, element(rng, spec.elem));
    }
    Array { descr: spec.elem.descr().into(), shape: spec.shape.clone(), data }
}

/// A 0-d array holding a scalar argument.
pub fn scalar(rng: &mut Rng, elem: Elem) -> Array {
    let v = if elem.is_float() || elem == Elem::Bool { element(rng, elem) } else { rng.int(1, 8) as f64 };
    let mut data = Vec::new();
    elem.push(&mut data, v);
    Array { descr: elem.descr().into(), shape: vec![], data }
}
