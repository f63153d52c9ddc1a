//! Element-wise comparison of two results with per-dtype tolerances.
//!
//! |got - want| <= atol + rtol * |want|, with (rtol, atol):
//! FP32 (1e-4, 1e-5): kernels and interpreter may order float operations differently;
//! FP16 (2e-3, 1e-3) and BF16 (1e-2, 1e-2): a few units in the last place of those formats;
//! integers and BOOL: exact. NaN equals NaN (log/sqrt of the random negative inputs give NaN
//! on both sides); infinities must match in sign.

use super::npy::{Array, Elem};

pub fn tolerance(elem: Elem) -> (f64, f64) {
    match elem {
        Elem::F32 => (1e-4, 1e-5),
        Elem::F16 => (2e-3, 1e-3),
        Elem::Bf16 => (1e-2, 1e-2),
        _ => (0.0, 0.0),
    }
}

/// `Err` describes the first mismatches (at most 5) and how many there are.
pub fn compare(got: &Array, want: &Array, elem: Elem) -> Result<(), String> {
    let ge = got.elem(elem).map_err(|e| format!("result: {e}"))?;
    let we = want.elem(elem).map_err(|e| format!("reference: {e}"))?;
    if got.shape != want.shape {
        return Err(format!("shape {:?}, expected {:?}", got.shape, want.shape));
    }
    let (rtol, atol) = tolerance(elem);
    let mut bad = Vec::new();
    let mut count = 0;
    for i in 0..want.len() {
        let (g, w) = (ge.get(&got.data, i), we.get(&want.data, i));
        let ok = if w.is_nan() || g.is_nan() {
            w.is_nan() && g.is_nan()
        } else if w.is_infinite() || g.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= atol + rtol * w.abs()
        };
        if !ok {
            count += 1;
            if bad.len() < 5 {
                bad.push(format!("[{}] {g} vs {w}", index(&want.shape, i)));
            }
        }
    }
    if count == 0 {
        Ok(())
    } else {
        Err(format!("{count} of {} elements differ (got vs expected): {}", want.len(), bad.join(", ")))
    }
}

/// The multi-index of flat (C-order) index `i`.
fn index(shape: &[usize], mut i: usize) -> String {
    let mut idx = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        idx[k] = i % shape[k].max(1);
        i /= shape[k].max(1);
    }
    idx.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
#[allow(unused_imports)] // harness = false targets drop #[test] functions (see common/mod.rs)
mod tests {
    use super::*;

    #[test]
    fn tolerances_and_nan() {
        let f32s = |v: &[f32]| Array {
            descr: "<f4".into(),
            shape: vec![v.len()],
            data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        };
        assert!(compare(&f32s(&[1.0, f32::NAN]), &f32s(&[1.00005, f32::NAN]), Elem::F32).is_ok());
        let e = compare(&f32s(&[1.0, 2.0]), &f32s(&[1.0, 2.5]), Elem::F32).unwrap_err();
        assert!(e.starts_with("1 of 2 elements differ") && e.contains("[1] 2 vs 2.5"), "{e}");
        assert!(compare(&f32s(&[f32::NAN]), &f32s(&[0.0]), Elem::F32).is_err());
        // Division by a zero tile gives IEEE infinities on both sides (the NPU and the
        // interpreter; the CPU simulator through ptoc_float_division.h): they compare by value.
        let inf = f32::INFINITY;
        assert!(compare(&f32s(&[inf, -inf]), &f32s(&[inf, -inf]), Elem::F32).is_ok());
        assert!(compare(&f32s(&[-inf]), &f32s(&[inf]), Elem::F32).is_err());
        assert!(compare(&f32s(&[f32::MAX]), &f32s(&[inf]), Elem::F32).is_err());
        assert!(compare(&f32s(&[inf]), &f32s(&[f32::MAX]), Elem::F32).is_err());
        assert!(compare(&f32s(&[f32::NAN]), &f32s(&[inf]), Elem::F32).is_err());
        let i = |v: i32| Array { descr: "<i4".into(), shape: vec![], data: v.to_le_bytes().to_vec() };
        assert!(compare(&i(3), &i(3), Elem::I32).is_ok());
        assert!(compare(&i(3), &i(4), Elem::I32).is_err());
        assert!(compare(&f32s(&[1.0]), &i(1), Elem::F32).is_err());
    }
}
