//! Deterministic inputs: every array comes from a SplitMix64 stream seeded by the program id,
//! the function and the parameter, so a rerun (and the interpreter) sees the same values.
//!
//! Floats are uniform in [-1, 1] without 0 on a grid every dtype represents exactly (multiples
//! of 2^-10 for FP32/FP16, 2^-7 for BF16): the C++ and the interpreter then start from
//! bit-identical data. Integers are small (signed in [-8, 8], unsigned in [0, 8]); integer scalars are in
//! [1, 8] because generated programs use them as trip counts, divisors and offsets.

use super::npy::{Array, Elem};
use super::signature::TensorSpec;

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: &str) -> Rng {
        // FNV-1a of the seed text: stable across platforms and Rust versions.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in seed.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform integer in [lo, hi].
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

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
