"""ptoc: a compiler for the PyPTO tile IR, from Python.

``ptoc.compile`` turns ``.pto`` program text into pto-isa C++ files, printed IR or PTO-ISA
MLIR; ``ptoc.run`` runs a function of a program in ptoc's interpreter on numpy arrays. Both
take the options of the ``ptoc`` command line (docs/cli.md, docs/execution.md) under the same
names, and run exactly what the command line runs: the same option checks, the same pass
pipeline, the same diagnostics. Every error raises :class:`CompileError`; there is no partial
result. ``python -m ptoc ...`` is the command line itself.

    >>> import numpy as np, ptoc
    >>> files = ptoc.compile(open("examples/softmax.pto").read())          # {path: C++ text}
    >>> out = ptoc.run(open("examples/softmax.pto").read(), {"x": np.ones((64, 128), np.float32)})
    >>> out["return_0"]                                                     # the softmax of x
"""

from __future__ import annotations

import io
import warnings

from ptoc import _ptoc
from ptoc._errors import CompileError, CompileWarning, Diagnostic

# The types of the signatures are for type checkers only: importing `typing` (or numpy, which
# only `run` needs) would double the package's import time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    import numpy

__all__ = [
    "CompileError",
    "CompileWarning",
    "Diagnostic",
    "compile",
    "describe_op",
    "list_ops",
    "run",
    "version",
]


def compile(
    source: str,
    *,
    emit: str = "cpp",
    opt_level: int | None = None,
    pipeline: str | None = None,
    passes: Iterable[str] | None = None,
    stop_after: str | None = None,
    stop_before: str | None = None,
    backend: str | None = None,
    verify_level: str | None = None,
    verify_each: bool = False,
    verify_sync: bool = False,
    disable_rule: Iterable[str] = (),
    print_width: int | None = None,
    jobs: int | None = None,
    filename: str = "<string>",
) -> str | dict[str, str]:
    """Compile the ``.pto`` program ``source``.

    With ``emit="cpp"`` (the default) the result is a dict of the C++ files, relative path
    (``"kernels/aiv/softmax.cpp"``, ``"orchestration/main.cpp"``, ``"kernel_config.py"``) to
    contents, as ``ptoc --emit cpp -o DIR`` writes them under DIR. With ``emit="ir"`` it is
    the program's text after the passes, and with ``emit="pto"`` the PTO-ISA MLIR module, as
    ``ptoc`` prints them (without the final newline).

    The other keywords are the command line's options (``ptoc --help``): ``opt_level`` is
    ``-O`` (0: the pipelines as the reference runs them, 1: also remove redundant syncs and
    plan buffers by lifetime, 2: also split kernels into blocks of rows and pipeline loops
    where the cycle model says it pays; ``None``: ptoc's default, 2), ``pipeline`` is ``--pipeline`` (``"default"``, ``"ptoas"``,
    ``"none"``; by default ``"ptoas"`` for ``emit="pto"``, else ``"default"``), ``passes``
    is ``--passes`` (this list instead of the pipeline's), ``stop_after`` / ``stop_before``
    end the pass list at a pass, ``backend`` is ``--backend`` (``"cce"``, ``"pto"``),
    ``verify_level`` (``"basic"``, ``"none"``), ``verify_each``, ``verify_sync``,
    ``disable_rule`` (run-verifier rules to leave out), ``print_width`` (wrap printed IR at
    this many columns) and ``jobs`` (threads; the output does not depend on it).
    ``filename`` is the name diagnostics give the source.

    Raises :class:`CompileError` with the diagnostics when the program has an error or an
    option is invalid. The passes' findings, which the command line prints on stderr without
    failing, come as a :class:`CompileWarning`.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be the program's text (str), not {type(source).__name__}")
    options = ["--emit", str(emit)] + _valued("-O", opt_level)
    options += _valued("--pipeline", pipeline)
    if passes is not None:
        options += ["--passes", passes if isinstance(passes, str) else ",".join(passes)]
    options += _valued("--stop-after", stop_after)
    options += _valued("--stop-before", stop_before)
    options += _valued("--backend", backend)
    options += _valued("--verify-level", verify_level)
    options += ["--verify-each"] if verify_each else []
    options += ["--verify-sync"] if verify_sync else []
    for rule in [disable_rule] if isinstance(disable_rule, str) else disable_rule:
        options += ["--disable-rule", str(rule)]
    options += _valued("--print-width", print_width)
    options += _valued("-j", jobs)
    result, stderr = _ptoc.compile(options, source, str(filename))
    _warn(stderr)
    return result


def run(
    source: str,
    inputs: Mapping[str, numpy.ndarray | int | float | bool] | None = None,
    *,
    func: str | None = None,
    seed: int = 0,
    pipeline: str = "default",
    opt_level: int | None = None,
    passes: Iterable[str] | None = None,
    stop_after: str | None = None,
    backend: str = "cce",
    max_steps: int | None = None,
    filename: str = "<string>",
) -> dict[str, numpy.ndarray]:
    """Run a function of the ``.pto`` program ``source`` in ptoc's interpreter.

    This is ``ptoc run`` (docs/execution.md): the passes of ``pipeline`` run first (``"none"``
    runs the program as written; ``opt_level``, ``passes``, ``stop_after`` and ``backend`` as
    for :func:`compile`), then the function ``func`` (default: the program's Orchestration
    function, else its only function) runs on ``inputs``.

    ``inputs`` maps parameter names, as the source writes them, to values: a numpy array for a
    tensor (its dtype must be the parameter's: float32 for FP32, float16 for FP16, float32 or
    ``ml_dtypes.bfloat16`` for BF16, int8 for INT8 and INT4, ...; its shape the parameter's),
    a number (int, float, bool or a numpy scalar) or a 0-d array for a scalar. Every parameter
    not given is generated from ``seed`` exactly as ``ptoc run --seed`` does.

    Returns every output as a numpy array: each tensor parameter's final value under its name
    and each returned value as ``"return_0"``, ``"return_1"``, ... (scalars as 0-d arrays), in
    that order. BF16 values come as float32 arrays, or as ``ml_dtypes.bfloat16`` arrays when
    ml_dtypes is installed. ``max_steps`` bounds the statements executed (error E0707).

    Raises :class:`CompileError` when the program has an error, an input does not fit its
    parameter, or the run fails (out-of-bounds access, division by zero, ...).
    """
    import numpy as np

    if not isinstance(source, str):
        raise TypeError(f"source must be the program's text (str), not {type(source).__name__}")
    options = ["--seed", str(int(seed)), "--pipeline", str(pipeline)] + _valued("-O", opt_level)
    options += ["--backend", str(backend)]
    options += _valued("--func", func)
    if passes is not None:
        options += ["--passes", passes if isinstance(passes, str) else ",".join(passes)]
    options += _valued("--stop-after", stop_after)
    options += _valued("--max-steps", max_steps)
    given = [(str(name), _input(np, value)) for name, value in (inputs or {}).items()]
    outputs, stderr = _ptoc.run(options, source, str(filename), given)
    _warn(stderr)
    bfloat16 = _bfloat16()
    result = {}
    for name, dtype, npy in outputs:
        array = np.load(io.BytesIO(npy), allow_pickle=False)
        if dtype == "BF16" and bfloat16 is not None:
            array = array.astype(bfloat16)
        result[name] = array
    return result


def list_ops() -> list[str]:
    """The IR names of every operator ptoc knows (``"block.load"``, ``"tensor.matmul"``, ...)."""
    return _ptoc.list_ops()


def describe_op(name: str) -> str | None:
    """What ``ptoc --list-ops NAME`` prints for an operator named by its IR name or any
    spelling (``"block.load"``, ``"pl.load"``): spellings, arguments, keyword arguments and
    defaults, result rule, pipes and instructions. ``None`` if there is no such operator."""
    return _ptoc.describe_op(name)


def version() -> str:
    """ptoc's version and the commit it was built from, as ``ptoc --version`` says."""
    return _ptoc.version()


__version__ = version().split()[0]


def _valued(flag: str, value: object) -> list[str]:
    return [] if value is None else [flag, str(value)]


def _warn(stderr: str) -> None:
    if stderr:
        warnings.warn(stderr.rstrip("\n"), CompileWarning, stacklevel=3)


def _bfloat16() -> Any:
    try:
        import ml_dtypes
    except ImportError:
        return None
    return ml_dtypes.bfloat16


def _input(np: Any, value: Any) -> bytes | str:
    """A parameter's value as the native module takes it: the text of a number, or an array as
    the bytes of an .npy file (C order, little-endian; BF16 as its raw bits)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, np.generic):
        value = value.item()
        if isinstance(value, bool):
            return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    array = np.asarray(value)
    bfloat16 = _bfloat16()
    if bfloat16 is not None and array.dtype == bfloat16:
        # The raw bits, which `ptoc run` reads as BF16 values (numpy has no bfloat16 of its own).
        array = array.view(np.uint16)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    buffer = io.BytesIO()
    # C order (`ptoc run` reads no other); `asarray` keeps a 0-d array 0-d.
    np.save(buffer, np.asarray(array, order="C"), allow_pickle=False)
    return buffer.getvalue()
