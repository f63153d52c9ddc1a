//! Float literal formatting (spec `ir-and-syntax.md` §3.7).
//!
//! The reference writes floats with a C++ stream: integral values (including ±inf) as fixed
//! notation with one decimal, everything else with the stream default, which is C's `%g` with
//! 6 significant digits. Rust has no `%g`, so it is rebuilt here from Rust's correctly rounded
//! `{:e}` / `{:.N}` formatting (both round ties to even on the exact binary value, as glibc does).

use crate::text::cat;

/// Significant digits of the C++ stream default (`%g` precision).
const SIGNIFICANT: i32 = 6;

/// Formats a float the way the reference printer does: `1.0`, `-0.0`, `inf`, `0.1`,
/// `3.14159`, `1e-07`, `123457`, `nan`.
pub fn format_float(v: f64) -> String {
    let mut out = String::new();
    push_float(v, &mut out);
    out
}

/// Appends [`format_float`]`(v)` to `out`.
pub fn push_float(v: f64, out: &mut String) {
    match small_integral(v) {
        Some(i) => cat!(out; i, ".0"),
        None => out.push_str(&format_slow(v)),
    }
}

/// The common case: an integral value well inside i64 (below 2^53 every such value converts
/// exactly), which prints as its digits and `.0` without the float formatter.
pub(super) fn small_integral(v: f64) -> Option<i64> {
    (v == v.floor() && v.abs() < 1e15 && !(v == 0.0 && v.is_sign_negative())).then_some(v as i64)
}

fn format_slow(v: f64) -> String {
    if v == v.floor() {
        // Integral or ±inf: fixed with exactly one decimal (Rust prints the exact decimal
        // expansion, the sign of -0.0 and `inf`/`-inf` like C).
        format!("{v:.1}")
    } else {
        format_g(v)
    }
}

/// C's `%g` with precision 6 for a non-integral value (or NaN).
fn format_g(v: f64) -> String {
    if v.is_nan() {
        // glibc prints the sign bit of a NaN.
        return if v.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let a = v.abs();
    // The decimal exponent after rounding to SIGNIFICANT digits decides the notation.
    let sci = format!("{:.*e}", (SIGNIFICANT - 1) as usize, a);
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (sci.as_str(), 0),
    };
    if !(-4..SIGNIFICANT).contains(&exp) {
        let exp_sign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{}e{exp_sign}{:02}", strip_zeros(mantissa), exp.abs())
    } else {
        let fixed = format!("{:.*}", (SIGNIFICANT - 1 - exp) as usize, a);
        format!("{sign}{}", strip_zeros(&fixed))
    }
}

/// Removes trailing fraction zeros and then a trailing decimal point (`%g` without `#`).
fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::format_float;

    #[test]
    #[allow(clippy::approx_constant)] // 3.14159265 is the spec's literal, not π
    fn spec_table() {
        // §3.13 observations.
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (123456.7, "123457"),
            (3.14159265, "3.14159"),
            (1e-7, "1e-07"),
            (1e20, "100000000000000000000.0"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (0.0025, "0.0025"),
            (-2.0, "-2.0"),
            (1048576.0, "1048576.0"),
            (-123.0, "-123.0"),
            (999999999999999.0, "999999999999999.0"),
            (1e15, "1000000000000000.0"),
            (-1e16, "-10000000000000000.0"),
        ];
        for &(v, want) in cases {
            assert_eq!(format_float(v), want, "formatting {v:?}");
        }
    }

    #[test]
    fn g_format_edges() {
        let cases: &[(f64, &str)] = &[
            (0.1, "0.1"),
            (0.5, "0.5"),
            (-1.5, "-1.5"),
            (0.0001, "0.0001"),
            (0.00012345678, "0.000123457"),
            (0.00001, "1e-05"),
            (1.5e-10, "1.5e-10"),
            (123456.5, "123456"),  // exact tie rounds to even, like glibc
            (999999.5, "1e+06"),   // rounding carries into the exponent form
            (99999.95, "99999.9"), // 99999.95 is slightly below the tie in binary
            (1234567.5, "1.23457e+06"),
            (2.5e-300, "2.5e-300"),
            (-0.000123, "-0.000123"),
            (9.9999996, "10"),
        ];
        for &(v, want) in cases {
            assert_eq!(format_float(v), want, "formatting {v:?}");
        }
    }
}
