//! PyPTO's own system tests (`../shared/systests/<case>/`, layout in its README): the case's
//! function run on the case's own inputs — by ptoc's C++ on the CPU simulator and by the
//! interpreter — and both compared with the outputs the case's authors expect, within the
//! case's tolerances.

use std::path::{Path, PathBuf};

use super::npy::{Array, Elem};
use crate::common::json::{self, Json};

/// One case, read from its `case.json`.
#[derive(Clone, Debug)]
pub struct Case {
    /// The function to run.
    pub func: String,
    /// The outputs compared: parameter names as the program writes them, or `return_<i>`.
    pub outputs: Vec<String>,
    pub rtol: f64,
    pub atol: f64,
    /// Extra `ptoc run` flags (e.g. `--pipeline ptoas --backend pto`).
    pub run_args: Vec<String>,
    /// Extra `ptoc --emit cpp` flags.
    pub cpp_args: Vec<String>,
}

/// The case folders under `shared/systests`, sorted.
pub fn dirs(shared: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(shared.join("systests"))
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.join("case.json").is_file()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

pub fn load(dir: &Path) -> Result<Case, String> {
    let path = dir.join("case.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let j = json::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let strings = |key: &str| -> Vec<String> {
        j.get(key)
            .and_then(Json::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(|s| s.as_str().map(String::from))
            .collect()
    };
    let number = |key: &str, default: f64| match j.get(key) {
        Some(Json::Number(n)) => *n,
        _ => default,
    };
    let func = j.get("func").and_then(Json::as_str).ok_or(format!("{}: no `func`", path.display()))?.to_string();
    Ok(Case {
        func,
        outputs: strings("outputs"),
        rtol: number("rtol", 1e-5),
        atol: number("atol", 1e-5),
        run_args: strings("run_args"),
        cpp_args: strings("cpp_args"),
    })
}

/// The element type of an `.npy` descr.
pub fn elem_of_descr(descr: &str) -> Option<Elem> {
    use Elem::*;
    [F32, F16, I8, I16, I32, I64, U8, U16, U32, U64, Bool].into_iter().find(|e| e.descr() == descr)
}

/// `a` (a case's input: BF16 as float32 values, scalars as one-element arrays) as an array of
/// `elem` with `shape`, the form the C++ host and the interpreter read.
pub fn convert(a: &Array, elem: Elem, shape: &[usize]) -> Result<Array, String> {
    let from = elem_of_descr(&a.descr).ok_or(format!("unsupported input dtype `{}`", a.descr))?;
    if a.len() != shape.iter().product::<usize>() {
        return Err(format!("input of shape {:?}, the parameter has {:?}", a.shape, shape));
    }
    let mut data = Vec::with_capacity(a.len() * elem.size());
    for i in 0..a.len() {
        elem.push(&mut data, from.get(&a.data, i));
    }
    Ok(Array { descr: elem.descr().into(), shape: shape.to_vec(), data })
}

/// `got` (of `elem`) against the expected `want` (its own dtype; BF16 expected as float32):
/// |got − want| ≤ atol + rtol·|want| (numpy's `allclose`), NaN equal to NaN.
pub fn allclose(got: &Array, elem: Elem, want: &Array, rtol: f64, atol: f64) -> Result<(), String> {
    let ge = got.elem(elem).map_err(|e| format!("result: {e}"))?;
    let we = elem_of_descr(&want.descr).ok_or(format!("expected dtype `{}`", want.descr))?;
    if got.len() != want.len() {
        return Err(format!("shape {:?}, expected {:?}", got.shape, want.shape));
    }
    let mut count = 0;
    let mut first = Vec::new();
    for i in 0..want.len() {
        let (g, w) = (ge.get(&got.data, i), we.get(&want.data, i));
        let ok = if g.is_nan() || w.is_nan() {
            g.is_nan() && w.is_nan()
        } else {
            (g - w).abs() <= atol + rtol * w.abs() || g == w
        };
        if !ok {
            count += 1;
            if first.len() < 5 {
                first.push(format!("[{i}] {g} vs {w}"));
            }
        }
    }
    if count == 0 {
        Ok(())
    } else {
        Err(format!(
            "{count} of {} elements differ from the expected output (rtol {rtol}, atol {atol}): {}",
            want.len(),
            first.join(", ")
        ))
    }
}
