//! Inputs for a run: values given by the caller, the others generated from a seed.
//!
//! The generator is SplitMix64 (Steele, Lea, Flood 2014), written here so that the values
//! never depend on a crate version. One generator, seeded with the seed, draws the parameters
//! in order; each element takes one draw:
//! - float dtypes: `u / 2^53 * 2 - 1` with `u` the draw's top 53 bits — uniform in [-1, 1) —
//!   then rounded to the dtype;
//! - signed integers: `draw % 17 - 8` (in [-8, 8]); unsigned: `draw % 9` (in [0, 8]);
//!   BOOL: `draw % 2`;
//! - integer scalars: `draw % 8 + 1` (in [1, 8]: they are often sizes or loop bounds).

use super::err;
use super::numeric::check_dtype;
use super::value::{element_count, Array, Num, Scalar, Value};
use crate::diag::{codes, Diagnostic};
use crate::ir::{DataType, ExprKind, Function, Type, VarId};

/// SplitMix64.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    /// One element of a tensor of `d`.
    pub fn element(&mut self, d: DataType) -> Num {
        if d.is_float() {
            Num::F(self.next_unit())
        } else if d == DataType::Bool {
            Num::I(i128::from(self.next_u64() % 2))
        } else if d.is_unsigned_int() {
            Num::I(i128::from(self.next_u64() % 9))
        } else {
            Num::I(i128::from(self.next_u64() % 17) - 8)
        }
    }
    /// A scalar argument of `d`.
    pub fn scalar(&mut self, d: DataType) -> Num {
        if d.is_float() {
            Num::F(self.next_unit())
        } else {
            Num::I(i128::from(self.next_u64() % 8) + 1)
        }
    }
}

/// The arguments of `func`: `given[i]` where present, else generated (in parameter order, from
/// one generator seeded with `seed`; a given parameter takes no draws). Tensor dims that are
/// scalar parameters take that parameter's value, which must come earlier or be given.
pub fn make_args(func: &Function, seed: u64, given: Vec<Option<Value>>) -> Result<Vec<Value>, Diagnostic> {
    let mut rng = SplitMix64::new(seed);
    let mut out: Vec<Value> = Vec::with_capacity(func.params.len());
    let mut given = given;
    given.resize(func.params.len(), None);
    // Scalars given by the caller are known before any tensor needs them as a dim.
    let known = |out: &[Value], given: &[Option<Value>], v: VarId| -> Option<i128> {
        let k = func.params.iter().position(|p| p.var == v)?;
        match out.get(k).or(given[k].as_ref()) {
            Some(Value::Scalar(s)) => Some(s.num.as_i128()),
            _ => None,
        }
    };
    for (k, p) in func.params.iter().enumerate() {
        let var = func.var(p.var);
        if let Some(v) = given[k].take() {
            out.push(v);
            continue;
        }
        let value = match &var.ty {
            Type::Scalar(d) => {
                check_dtype(*d, var.span)?;
                Value::Scalar(Scalar::new(*d, rng.scalar(*d)))
            }
            Type::Tensor(_) | Type::Tile(_) => {
                let d = var.ty.dtype().unwrap_or(DataType::Fp32);
                check_dtype(d, var.span)?;
                let mut shape = Vec::new();
                for dim in var.ty.shape().unwrap_or(&[]) {
                    let n = match &dim.kind {
                        ExprKind::ConstInt(n, _) => Some(i128::from(*n)),
                        ExprKind::Var(v) => known(&out, &given, *v),
                        _ => None,
                    };
                    let Some(n) = n.and_then(|n| usize::try_from(n).ok()) else {
                        return Err(err(
                            codes::RUN_BAD_INPUT,
                            var.span,
                            format!(
                                "parameter `{}`: the size of a dimension is not known; give the parameter (or the size) with --input",
                                var.name
                            ),
                        ));
                    };
                    shape.push(n);
                }
                let n = element_count(&shape)
                    .map_err(|m| err(codes::RUN_BAD_INPUT, var.span, format!("parameter `{}`: {m}", var.name)))?;
                let a = Array::from_nums(d, shape, (0..n).map(|_| rng.element(d)));
                if matches!(var.ty, Type::Tile(_)) {
                    Value::tile(a)
                } else {
                    Value::tensor(a)
                }
            }
            t => {
                return Err(err(
                    codes::RUN_BAD_INPUT,
                    var.span,
                    format!("parameter `{}` of type {} cannot be given a value", var.name, t.kind_name()),
                ))
            }
        };
        out.push(value);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_is_the_published_sequence() {
        // First outputs of SplitMix64 seeded with 0 (as in the reference C implementation).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let mut r = SplitMix64::new(7);
        for _ in 0..1000 {
            let u = r.next_unit();
            assert!((-1.0..1.0).contains(&u));
            let Num::I(i) = r.element(DataType::Int8) else { panic!() };
            assert!((-8..=8).contains(&i));
        }
    }
}
