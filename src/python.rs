//! The Python extension module `ptoc._ptoc` (only with the cargo feature `python`; maturin
//! builds it, see `pyproject.toml`). It converts between Python values and
//! [`crate::driver::library`] and nothing more: the options are the command line's, the work is
//! the driver's, and the Python API on top (keyword arguments, numpy arrays, the exception
//! class, docstrings) is the package `python/ptoc/`.

use std::io::IsTerminal;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::driver::library::{self, Compiled, Emitted, Failure, Input, Ran};

/// The allocator of the `ptoc` binary (src/main.rs, docs/performance.md): allocation is a fifth
/// of a compilation's time with glibc's. Only Rust's own allocations use it; Python objects are
/// made by Python's allocator (the results are copied into them).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `compile(options, source, filename) -> (str | dict[str, str], stderr)`; raises
/// `ptoc.CompileError`.
#[pyfunction]
fn compile<'py>(
    py: Python<'py>,
    options: Vec<String>,
    source: &str,
    filename: &str,
) -> PyResult<(Bound<'py, PyAny>, String)> {
    // The compilation runs without the GIL: other Python threads go on meanwhile.
    match py.detach(|| library::compile(&options, filename, source)) {
        Ok(Compiled { emitted: Emitted::Ir(text), stderr }) => Ok((PyString::new(py, &text).into_any(), stderr)),
        Ok(Compiled { emitted: Emitted::Files(files), stderr }) => {
            let dict = PyDict::new(py);
            for (path, text) in files {
                dict.set_item(path, text)?;
            }
            Ok((dict.into_any(), stderr))
        }
        Err(failure) => Err(compile_error(py, failure)),
    }
}

/// The outputs of `run` as Python receives them: (name, IR dtype, .npy bytes) each.
type Outputs<'py> = Vec<(String, &'static str, Bound<'py, PyBytes>)>;

/// `run(options, source, filename, inputs) -> ([(name, dtype, npy bytes)], stderr)`: `inputs`
/// are `(param, bytes)` for an .npy array and `(param, str)` for a number.
#[pyfunction]
fn run<'py>(
    py: Python<'py>,
    options: Vec<String>,
    source: &str,
    filename: &str,
    inputs: Vec<(String, Bound<'py, PyAny>)>,
) -> PyResult<(Outputs<'py>, String)> {
    let mut given = Vec::with_capacity(inputs.len());
    for (param, value) in inputs {
        let value = if let Ok(bytes) = value.cast::<PyBytes>() {
            Input::Npy(bytes.as_bytes().to_vec())
        } else {
            Input::Number(value.extract::<String>()?)
        };
        given.push((param, value));
    }
    match py.detach(|| library::run(&options, filename, source, given)) {
        Ok(Ran { outputs, stderr }) => {
            let outputs = outputs.into_iter().map(|o| (o.name, o.dtype, PyBytes::new(py, &o.npy))).collect();
            Ok((outputs, stderr))
        }
        Err(failure) => Err(compile_error(py, failure)),
    }
}

/// `main(argv) -> int`: the `ptoc` command line in this process (`python -m ptoc`), on the
/// process's standard streams; returns the exit status.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| {
        let mut stdin = std::io::stdin();
        let host = crate::driver::Host {
            stdin: &mut stdin,
            stderr_is_terminal: std::io::stderr().is_terminal(),
            no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        };
        crate::driver::deliver(crate::driver::run_with(&argv, host))
    })
}

/// The IR names of every operator.
#[pyfunction]
fn list_ops() -> Vec<&'static str> {
    library::op_names()
}

/// `ptoc --list-ops NAME`'s text, or `None`.
#[pyfunction]
fn describe_op(name: &str) -> Option<String> {
    library::describe_op(name)
}

/// `ptoc --version`'s text.
#[pyfunction]
fn version() -> &'static str {
    library::version()
}

/// A `ptoc.CompileError` holding `ptoc.Diagnostic`s (classes of `ptoc/_errors.py`).
fn compile_error(py: Python<'_>, failure: Failure) -> PyErr {
    let make = || -> PyResult<PyErr> {
        let errors = py.import("ptoc._errors")?;
        let diagnostic = errors.getattr("Diagnostic")?;
        let list = PyList::empty(py);
        for d in failure.diagnostics {
            list.append(diagnostic.call1((d.severity, d.code, d.message, d.line, d.column, d.rendered))?)?;
        }
        Ok(PyErr::from_value(errors.getattr("CompileError")?.call1((list, failure.stderr))?))
    };
    make().unwrap_or_else(|e| e)
}

#[pymodule]
#[pyo3(name = "_ptoc")]
fn native_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(list_ops, m)?)?;
    m.add_function(wrap_pyfunction!(describe_op, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
