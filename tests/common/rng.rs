//! A deterministic choice stream for the tests that generate programs and inputs: SplitMix64
//! seeded by the FNV-1a hash of a text, so that a case's name is its seed and the stream is the
//! same on every platform and Rust version. The generator is the interpreter's own
//! (`ptoc::interp::inputs::SplitMix64`, the published SplitMix64).

use ptoc::interp::inputs::SplitMix64;

pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: &str) -> Rng {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in seed.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(SplitMix64::new(h))
    }
    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// An index below `n` (> 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Uniform integer in [lo, hi].
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> Option<&'a T> {
        (!v.is_empty()).then(|| &v[self.below(v.len())])
    }
}
