from collections.abc import Iterable, Mapping
from typing import Any

import numpy

from ptoc._errors import CompileError as CompileError
from ptoc._errors import CompileWarning as CompileWarning
from ptoc._errors import Diagnostic as Diagnostic

__version__: str

def compile(
    source: str,
    *,
    emit: str = "cpp",
    opt_level: int = 1,
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
    """Compile the ``.pto`` program ``source``: ``emit="cpp"`` gives the C++ files by path,
    ``"ir"`` the program's text after the passes, ``"pto"`` the PTO-ISA MLIR module. The
    keywords are ``ptoc``'s options. Raises :class:`CompileError`."""

def run(
    source: str,
    inputs: Mapping[str, numpy.ndarray | int | float | bool] | None = None,
    *,
    func: str | None = None,
    seed: int = 0,
    pipeline: str = "default",
    opt_level: int = 1,
    passes: Iterable[str] | None = None,
    stop_after: str | None = None,
    backend: str = "cce",
    max_steps: int | None = None,
    filename: str = "<string>",
) -> dict[str, numpy.ndarray]:
    """Run a function of ``source`` in ptoc's interpreter (``ptoc run``) on ``inputs``; every
    tensor parameter's final value and every returned value (``return_<i>``). Raises
    :class:`CompileError`."""

def list_ops() -> list[str]:
    """The IR names of every operator."""

def describe_op(name: str) -> str | None:
    """``ptoc --list-ops NAME``'s description of an operator, or ``None``."""

def version() -> str:
    """ptoc's version and commit, as ``ptoc --version`` says."""

def _bfloat16() -> Any: ...
