//! Element arithmetic as the device stores it: floats rounded to their dtype after every
//! operation, integers wrapped at their width, and the conversions of `cast`.
//!
//! Values travel as `f64` (float dtypes) or `i128` (integer dtypes and BOOL): `i128` holds every
//! INT64 and UINT64 value exactly, so wrapping is a mask and a sign extension.

use crate::diag::{codes, Diagnostic, Span};
use crate::ir::DataType;

/// Whether the interpreter can hold elements of this dtype. FP8/FP4/HiFloat formats have no
/// arithmetic defined here (the operator table never produces them from DSL input).
pub fn supported(d: DataType) -> bool {
    use DataType::*;
    !matches!(d, Fp4 | Fp8E4M3Fn | Fp8E5M2 | Hf4 | Hf8)
}

/// An error unless the interpreter can hold values of `d`.
pub(super) fn check_dtype(d: DataType, span: Span) -> Result<(), Diagnostic> {
    if supported(d) {
        Ok(())
    } else {
        Err(super::err(codes::RUN_UNSUPPORTED, span, format!("the interpreter has no arithmetic for {}", d.name())))
    }
}

/// Whether elements of `d` are kept as floats (`f64`); otherwise as integers (`i128`).
pub fn is_float(d: DataType) -> bool {
    d.is_float()
}

/// Rounds `v` to the nearest value of the float dtype `d` (round to nearest, ties to even).
///
/// FP16 goes through `f32` first, as pto-isa's CPU simulator and the cpusim reference do
/// (`(_Float16)(float)v`): half arithmetic there is float arithmetic rounded to half.
pub fn round_float(d: DataType, v: f64) -> f64 {
    match d {
        DataType::Fp32 => v as f32 as f64,
        DataType::Fp16 => half::f16::from_f32(v as f32).to_f64(),
        DataType::Bf16 => half::bf16::from_f32(v as f32).to_f64(),
        _ => v,
    }
}

/// Wraps `v` to the integer dtype `d` (two's complement for signed types); BOOL is `v != 0`.
pub fn wrap_int(d: DataType, v: i128) -> i128 {
    if d == DataType::Bool {
        return i128::from(v != 0);
    }
    let bits = d.bits();
    if bits >= 128 {
        return v;
    }
    let shift = 128 - bits;
    if d.is_unsigned_int() {
        v & ((1i128 << bits) - 1)
    } else {
        (v << shift) >> shift
    }
}

/// The smallest and largest value of an integer dtype.
pub fn int_range(d: DataType) -> (i128, i128) {
    if d == DataType::Bool {
        return (0, 1);
    }
    let bits = d.bits();
    if d.is_unsigned_int() {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

/// Float → integer dtype: the C++ conversion truncates toward zero; a value outside the
/// target's range (undefined behaviour in C++) saturates here, NaN becomes 0.
pub fn float_to_int(d: DataType, v: f64) -> i128 {
    if v.is_nan() {
        return 0;
    }
    let (lo, hi) = int_range(d);
    let t = v.trunc();
    if t <= lo as f64 {
        lo
    } else if t >= hi as f64 {
        hi
    } else {
        t as i128
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    #[test]
    fn wrapping() {
        assert_eq!(wrap_int(Int8, 128), -128);
        assert_eq!(wrap_int(Int8, -129), 127);
        assert_eq!(wrap_int(UInt8, 256 + 5), 5);
        assert_eq!(wrap_int(UInt8, -1), 255);
        assert_eq!(wrap_int(Int32, i128::from(i32::MAX) + 1), i128::from(i32::MIN));
        assert_eq!(wrap_int(Int64, i128::from(i64::MAX) + 1), i128::from(i64::MIN));
        assert_eq!(wrap_int(UInt64, -1), i128::from(u64::MAX));
        assert_eq!(wrap_int(Int4, 8), -8);
        assert_eq!(wrap_int(Bool, 7), 1);
    }

    #[test]
    fn float_rounding() {
        // 1 + 2^-11 is halfway between two FP16 values: ties to even gives 1.0.
        assert_eq!(round_float(Fp16, 1.0 + 2f64.powi(-11)), 1.0);
        assert_eq!(round_float(Fp16, 1.0 + 3.0 * 2f64.powi(-11)), 1.0 + 2f64.powi(-9));
        assert_eq!(round_float(Fp16, 70000.0), f64::INFINITY);
        assert_eq!(round_float(Bf16, 1.0 + 2f64.powi(-8)), 1.0);
        assert_eq!(round_float(Fp32, 0.1), 0.1f32 as f64);
    }

    #[test]
    fn round_modes() {
        use crate::ops::modes::RoundMode::{self, *};
        let cases: [(RoundMode, [f64; 4]); 7] = [
            (None, [2.5, -2.5, 1.7, -1.7]),
            (Rint, [2.0, -2.0, 2.0, -2.0]),
            (Round, [3.0, -3.0, 2.0, -2.0]),
            (Floor, [2.0, -3.0, 1.0, -2.0]),
            (Ceil, [3.0, -2.0, 2.0, -1.0]),
            (Trunc, [2.0, -2.0, 1.0, -1.0]),
            (Odd, [3.0, -3.0, 2.0, -2.0]),
        ];
        for (mode, want) in cases {
            let got: Vec<f64> = [2.5, -2.5, 1.7, -1.7].iter().map(|&v| mode.to_integral(v)).collect();
            assert_eq!(got, want, "{mode:?}");
        }
        assert_eq!(Odd.to_integral(3.5), 3.0);
        assert_eq!(float_to_int(Int8, 300.0), 127);
        assert_eq!(float_to_int(Int32, -2.7), -2);
        assert_eq!(float_to_int(UInt8, -1.0), 0);
    }
}
