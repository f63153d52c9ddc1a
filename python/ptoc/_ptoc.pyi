"""The native part of ``ptoc`` (PyO3, src/python.rs). Use the functions of ``ptoc`` itself:
these take the command line's options as a list of flags."""

def compile(options: list[str], source: str, filename: str) -> tuple[str | dict[str, str], str]:
    """Compile ``source`` with ``ptoc``'s flags ``options``; the result (the text, or the C++
    files by path) and what the command line would print on stderr. Raises
    ``ptoc.CompileError``."""

def run(
    options: list[str], source: str, filename: str, inputs: list[tuple[str, bytes | str]]
) -> tuple[list[tuple[str, str, bytes]], str]:
    """``ptoc run`` with the flags ``options``; ``inputs`` are (parameter, .npy bytes or the
    text of a number). Returns (name, IR dtype, .npy bytes) per output and the stderr text.
    Raises ``ptoc.CompileError``."""

def main(argv: list[str]) -> int:
    """The ``ptoc`` command line on ``argv`` (``argv[0]`` the program name), on this process's
    standard streams; returns the exit status."""

def list_ops() -> list[str]:
    """The IR names of every operator."""

def describe_op(name: str) -> str | None:
    """``ptoc --list-ops NAME``'s text, or None."""

def version() -> str:
    """``ptoc --version``'s text."""
