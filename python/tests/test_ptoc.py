"""The Python package `ptoc`: compile and run kernels from Python, checked against numpy and
against the `ptoc` command line (run as `python -m ptoc`, which is the same driver)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import ptoc

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.pto"))


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ptoc", *args], capture_output=True, text=True, cwd=ROOT)


def test_the_examples_are_all_found():
    # One compile test per example below; a lost glob would make them check nothing.
    assert len(EXAMPLES) == 10, EXAMPLES


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_each_example_compiles_as_the_command_line_compiles_it(path: Path):
    source = path.read_text()
    files = ptoc.compile(source)
    assert isinstance(files, dict) and any(p.startswith("kernels/") and p.endswith(".cpp") for p in files), files
    printed = "".join(f"// ==== {p}\n{text}\n" for p, text in files.items())
    assert printed == cli("--emit", "cpp", str(path)).stdout
    ir = ptoc.compile(source, emit="ir", filename=str(path))
    assert ir + "\n" == cli(str(path)).stdout
    # The printed IR is a program again, with the same kernels.
    assert ptoc.compile(ir).keys() == files.keys()


def test_options_have_the_command_lines_names_and_meaning():
    source = (ROOT / "examples" / "softmax.pto").read_text()
    path = str(ROOT / "examples" / "softmax.pto")
    assert ptoc.compile(source, emit="ir", opt_level=0) + "\n" == cli("-O0", path).stdout
    cut = ptoc.compile(source, emit="ir", stop_after="convert-to-ssa")
    assert cut + "\n" == cli("--stop-after", "convert-to-ssa", path).stdout
    assert "pl.system.sync_src" not in cut and "pl.system.sync_src" in ptoc.compile(source, emit="ir")
    assert ptoc.compile(source, emit="ir", pipeline="none") + "\n" == cli("--pipeline", "none", path).stdout
    kernel = ROOT / "examples" / "matmul.pto"  # one module of kernels only: no orchestration
    mlir = ptoc.compile(kernel.read_text(), emit="pto")
    assert mlir + "\n" == cli("--emit", "pto", str(kernel)).stdout and "module" in mlir
    assert ptoc.compile(source, jobs=1) == ptoc.compile(source, jobs=2)


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_softmax_runs_as_numpy_computes_it():
    source = (ROOT / "examples" / "softmax.pto").read_text()
    x = np.random.default_rng(1).standard_normal((64, 128)).astype(np.float32)
    out = ptoc.run(source, {"x": x})
    assert list(out) == ["x", "return_0"]
    assert out["return_0"].dtype == np.float32 and out["return_0"].shape == (64, 128)
    np.testing.assert_allclose(out["return_0"], softmax(x.astype(np.float64)), rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(out["x"], x)
    # The kernel alone, and the program as written (before any pass), compute the same.
    direct = ptoc.run(source, {"x": x}, func="softmax", pipeline="none")
    np.testing.assert_array_equal(direct["y"], out["return_0"])
    np.testing.assert_array_equal(direct["return_0"], out["return_0"])


@pytest.mark.parametrize("example,k", [("matmul.pto", 64), ("kloop_gemm.pto", 256)])
def test_matmul_runs_as_numpy_computes_it(example: str, k: int):
    source = (ROOT / "examples" / example).read_text()
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (64, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, 64)).astype(np.float16)
    inputs = {"a": a, "b": b}
    if example == "matmul.pto":
        inputs["c"] = np.zeros((64, 64), np.float32)
    out = ptoc.run(source, inputs)
    product = out["c"] if example == "matmul.pto" else out["return_0"]
    assert product.dtype == np.float32
    np.testing.assert_allclose(product, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_an_error_has_its_line_column_code_and_the_cli_text(tmp_path: Path):
    source = (ROOT / "examples" / "softmax.pto").read_text().replace("pl.exp(shifted)", "pl.exp(shiftd)")
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "shiftd" in text)
    column = source.splitlines()[line - 1].index("shiftd") + 1
    with pytest.raises(ptoc.CompileError) as caught:
        ptoc.compile(source, filename="bad.pto")
    [d] = caught.value.diagnostics
    assert (d.severity, d.code, d.line, d.column) == ("error", "E0301", line, column)
    assert d.message == "undefined variable `shiftd`"
    assert f"--> bad.pto:{line}:{column}" in d.rendered and "shifted" in d.rendered
    assert str(caught.value) == d.rendered.rstrip("\n")
    (tmp_path / "bad.pto").write_text(source)
    printed = subprocess.run(
        [sys.executable, "-m", "ptoc", "bad.pto"], capture_output=True, text=True, cwd=tmp_path
    )
    assert printed.returncode == 1 and printed.stderr == d.rendered


def test_every_kind_of_error_raises_compile_error():
    source = (ROOT / "examples" / "softmax.pto").read_text()
    cases = {
        "option value": (lambda: ptoc.compile(source, emit="asm"), None),
        "option conflict": (lambda: ptoc.compile(source, emit="cpp", backend="pto"), "E0904"),
        "unknown pass": (lambda: ptoc.compile(source, stop_after="nope"), "E0902"),
        "syntax": (lambda: ptoc.compile(source.replace("e = pl.exp", "e = = pl.exp")), "E0201"),
        "input dtype": (lambda: ptoc.run(source, {"x": np.zeros((64, 128))}), "E0705"),
        "input shape": (lambda: ptoc.run(source, {"x": np.zeros((64, 64), np.float32)}), "E0705"),
        "unknown parameter": (lambda: ptoc.run(source, {"z": 1}), "E0705"),
        "unknown function": (lambda: ptoc.run(source, func="nope"), "E0706"),
        "step budget": (lambda: ptoc.run(source, max_steps=3), "E0707"),
    }
    for name, (call, code) in cases.items():
        with pytest.raises(ptoc.CompileError) as caught:
            call()
        assert [d.code for d in caught.value.diagnostics][:1] == [code], name
        assert caught.value.diagnostics[0].rendered, name
    with pytest.raises(ptoc.CompileError) as caught:
        ptoc.run(source, {"x": np.zeros((64, 128))})
    d = caught.value.diagnostics[0]
    assert "the array holds f8 elements, but the parameter is FP32 (expected f4)" in d.message
    # The parameter of `main`, the function that runs.
    assert d.line == next(i for i, t in enumerate(source.splitlines(), 1) if "def main(self, x:" in t)
    assert d.column == source.splitlines()[d.line - 1].index("x:") + 1
    with pytest.raises(TypeError):
        ptoc.compile(source.encode())


def copy_program(dtype: str, shape: str = "[4, 8]") -> str:
    return f"""# pypto.program: RoundTrip
import pypto.language as pl

@pl.program
class RoundTrip:
    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, a: pl.Tensor[{shape}, pl.{dtype}], b: pl.Out[pl.Tensor[{shape}, pl.{dtype}]]) -> pl.Tensor[{shape}, pl.{dtype}]:
        t = pl.load(a, [0, 0], {shape})
        r = pl.store(t, [0, 0], {shape}, b)
        return r
"""


DTYPES = {
    "FP32": np.float32,
    "FP16": np.float16,
    "BF16": np.float32,
    "INT8": np.int8,
    "INT16": np.int16,
    "INT32": np.int32,
    "INT64": np.int64,
    "UINT8": np.uint8,
    "UINT16": np.uint16,
    "UINT32": np.uint32,
    "UINT64": np.uint64,
    "BOOL": np.bool_,
}

try:
    from ml_dtypes import bfloat16 as BFLOAT16
except ImportError:
    BFLOAT16 = None


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_dtype_round_trip(dtype: str):
    numpy_dtype = DTYPES[dtype]
    if dtype == "BF16" and BFLOAT16 is not None:
        numpy_dtype = BFLOAT16
    values = np.arange(-16, 16).reshape(4, 8) * (0.5 if dtype.startswith(("FP", "BF")) else 1)
    if dtype.startswith("UINT"):
        values = values + 16
    if dtype == "BOOL":
        values = values % 3 == 0
    a = values.astype(numpy_dtype)
    out = ptoc.run(copy_program(dtype), {"a": a}, func="copy", pipeline="default")
    assert list(out) == ["a", "b", "return_0"]
    for name in ("b", "return_0"):
        assert out[name].dtype == numpy_dtype and out[name].dtype.byteorder in "=|<", (name, out[name].dtype)
        np.testing.assert_array_equal(out[name], a)


def test_bf16_values_are_rounded_to_bf16():
    a = np.array([[1.0 + 2.0**-9, 3.140625, -0.1, 65504.0] * 2] * 4, np.float32)
    bits = a.view(np.uint32)
    # Round to nearest even in the top 16 bits: what a bfloat16 holds.
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
    out = ptoc.run(copy_program("BF16"), {"a": a}, func="copy")
    b = out["b"].astype(np.float32)
    np.testing.assert_array_equal(b, rounded)
    assert not np.array_equal(b, a)


def test_bf16_with_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = (np.arange(32).reshape(4, 8) / 8).astype(ml_dtypes.bfloat16)
    out = ptoc.run(copy_program("BF16"), {"a": a}, func="copy")
    assert out["b"].dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out["b"].astype(np.float32), a.astype(np.float32))
    # A float32 array is read as BF16 values too.
    same = ptoc.run(copy_program("BF16"), {"a": a.astype(np.float32)}, func="copy")
    np.testing.assert_array_equal(same["b"], out["b"])


def test_scalars_numbers_and_generated_inputs():
    source = """# pypto.program: S
import pypto.language as pl

@pl.program
class S:
    @pl.function
    def f(self, x: pl.Tensor[[4, 8], pl.FP16], n: pl.Scalar[pl.INT32], k: pl.Tensor[[16], pl.INT8]) -> pl.Scalar[pl.INT32]:
        return n
"""
    for n in (5, np.int32(5), np.array(5, np.int32)):
        out = ptoc.run(source, {"n": n}, seed=7)
        assert out["return_0"].shape == () and out["return_0"].dtype == np.int32 and out["return_0"] == 5
    # Parameters not given come from the seed, as `ptoc run --seed` makes them.
    seeded = ptoc.run(source, seed=7)
    assert seeded["return_0"] == 1  # n drawn from [1, 8] (docs/execution.md)
    assert seeded["x"].dtype == np.float16 and seeded["k"].dtype == np.int8
    assert -1 <= seeded["x"].min() and seeded["x"].max() < 1 and -8 <= seeded["k"].min() and seeded["k"].max() <= 8
    assert f"{seeded['x'].astype(np.float64).mean():.6f}" == "0.063881"  # lit-tests/run/seeded-inputs.pto
    assert not np.array_equal(ptoc.run(source, seed=8)["x"], seeded["x"])
    np.testing.assert_array_equal(ptoc.run(source, seed=7)["x"], seeded["x"])


def test_a_large_input():
    rows, cols = 4096, 512
    source = f"""# pypto.program: Big
import pypto.language as pl

@pl.program
class Big:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[{rows}, {cols}], pl.FP32], s: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[{rows}, {cols}], pl.FP32]]) -> pl.Tensor[[{rows}, {cols}], pl.FP32]:
        for i, (acc,) in pl.range({rows // 16}, init_values=(y,)):
            t = pl.load(x, [i * 16, 0], [16, {cols}])
            u = pl.muls(t, s)
            stored = pl.store(u, [i * 16, 0], [16, {cols}], acc)
            done = pl.yield_(stored)
        return done
"""
    x = np.random.default_rng(3).standard_normal((rows, cols)).astype(np.float32)  # 8 MiB
    out = ptoc.run(source, {"x": x, "s": 0.25, "y": np.zeros_like(x)})
    np.testing.assert_array_equal(out["y"], x * np.float32(0.25))
    np.testing.assert_array_equal(out["return_0"], out["y"])
    # The C++ of a kernel over such a tensor is no different in kind.
    assert "TMULS" in ptoc.compile(source)["kernels/aiv/scale.cpp"]


def test_findings_are_warnings():
    source = """# pypto.program: T
import pypto.language as pl

@pl.program
class T:
    @pl.function
    def f(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        if a > 0:
            r: pl.Scalar[pl.INT64] = pl.yield_(a)
        return r
"""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ptoc.compile(source, emit="ir", passes=["convert-to-ssa", "run-verifier"])
    [w] = caught
    assert w.category is ptoc.CompileWarning and "IfStmt size mismatch" in str(w.message)
    assert w.filename == __file__
    with pytest.raises(ptoc.CompileError) as error:
        ptoc.compile(source)  # the default pipeline verifies after convert-to-ssa
    assert error.value.diagnostics[0].code == "E0903"


def test_operators_and_version():
    ops = ptoc.list_ops()
    assert "block.load" in ops and "block.matmul" in ops and len(ops) == len(set(ops)) > 50
    assert ptoc.describe_op("pl.load").startswith("block.load")
    assert ptoc.describe_op("no.such.op") is None
    assert ptoc.version() == cli("--version").stdout.strip().removeprefix("ptoc ")
    assert ptoc.__version__ == ptoc.version().split()[0]


def test_python_dash_m_is_the_command_line():
    done = cli("--help")
    assert done.returncode == 0 and "--emit" in done.stdout and "Exit status" in done.stdout
    done = cli("run", "--seed", "7", "lit-tests/run/seeded-inputs.pto")
    assert done.returncode == 0 and "x [4, 8] FP16 min=-0.966309 max=0.942383 mean=0.063881" in done.stdout
    assert cli("--emit", "asm", "x.pto").returncode == 2


def test_bf16_without_ml_dtypes_is_float32(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ptoc, "_bfloat16", lambda: None)
    a = (np.arange(32).reshape(4, 8) / 8).astype(np.float32)
    out = ptoc.run(copy_program("BF16"), {"a": a}, func="copy")
    assert out["b"].dtype == np.float32
    np.testing.assert_array_equal(out["b"], a)
    # Raw BF16 bits as uint16 are read as the values they stand for (docs/execution.md).
    bits = (a.view(np.uint32) >> 16).astype(np.uint16)
    np.testing.assert_array_equal(ptoc.run(copy_program("BF16"), {"a": bits}, func="copy")["b"], a)


def test_the_readme_example_passes(monkeypatch: pytest.MonkeyPatch):
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## From Python") :]
    code = section[section.index("```python\n") + len("```python\n") :]
    code = code[: code.index("```")]
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    tests = [f for name, f in namespace.items() if name.startswith("test_")]
    assert len(tests) == 3
    for test in tests:
        test()
