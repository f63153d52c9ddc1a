"""The error type of ptoc's Python API."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One problem ptoc found, as the ``ptoc`` command prints it.

    ``severity`` is ``"error"``, ``"warning"`` or ``"internal"`` (a bug of ptoc). ``code`` is
    the diagnostic code (``"E0201"``, listed in docs/diagnostics.md), ``None`` for a malformed
    option or a crash. ``line`` and ``column`` (1-based, the column in characters) locate the
    start of the offending text, ``None`` when the problem has no place in the source (an
    unknown pass name, a missing function). ``rendered`` is the text the command line prints
    for it: the message, the source excerpt and the notes.
    """

    severity: str
    code: str | None
    message: str
    line: int | None
    column: int | None
    rendered: str

    def __str__(self) -> str:
        return self.rendered


class CompileError(Exception):
    """A compilation or a run that failed: the input has an error, an option is invalid, or
    the interpreter stopped (there is no partial result).

    ``diagnostics`` lists every problem found, in the order the command line prints them;
    ``stderr`` is what the command line would have printed before them (the passes' findings).
    ``str(error)`` is the whole rendered text.
    """

    def __init__(self, diagnostics: list[Diagnostic], stderr: str = "") -> None:
        self.diagnostics = list(diagnostics)
        self.stderr = stderr
        super().__init__("".join(d.rendered for d in self.diagnostics).rstrip("\n"))


class CompileWarning(UserWarning):
    """What a successful compilation printed on stderr on the command line: the passes'
    findings (e.g. ``run-verifier``'s report)."""
