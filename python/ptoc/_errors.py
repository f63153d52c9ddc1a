"""The error and warning types of ptoc's Python API. (Plain classes: `dataclasses` and
`typing` would cost more import time than the rest of the package. The annotations are strings,
read by type checkers only.)"""


class Diagnostic:
    """One problem ptoc found, as the ``ptoc`` command prints it.

    ``severity`` is ``"error"``, ``"warning"`` or ``"internal"`` (a bug of ptoc). ``code`` is
    the diagnostic code (``"E0201"``, listed in docs/diagnostics.md), ``None`` for a malformed
    option or a crash. ``line`` and ``column`` (1-based, the column in characters) locate the
    start of the offending text, ``None`` when the problem has no place in the source (an
    unknown pass name, a missing function). ``rendered`` is the text the command line prints
    for it: the message, the source excerpt and the notes.
    """

    __slots__ = ("severity", "code", "message", "line", "column", "rendered")
    severity: str
    code: "str | None"
    message: str
    line: "int | None"
    column: "int | None"
    rendered: str

    def __init__(
        self,
        severity: str,
        code: "str | None",
        message: str,
        line: "int | None",
        column: "int | None",
        rendered: str,
    ) -> None:
        self.severity = severity
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.rendered = rendered

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Diagnostic) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"Diagnostic({fields})"

    def __str__(self) -> str:
        return self.rendered


class CompileError(Exception):
    """A compilation or a run that failed: the input has an error, an option is invalid, or
    the interpreter stopped (there is no partial result).

    ``diagnostics`` lists every problem found, in the order the command line prints them;
    ``stderr`` is what the command line would have printed before them (the passes' findings).
    ``str(error)`` is the whole rendered text.
    """

    diagnostics: "list[Diagnostic]"
    stderr: str

    def __init__(self, diagnostics: "list[Diagnostic]", stderr: str = "") -> None:
        self.diagnostics = list(diagnostics)
        self.stderr = stderr
        super().__init__("".join(d.rendered for d in self.diagnostics).rstrip("\n"))


class CompileWarning(UserWarning):
    """What a successful compilation printed on stderr on the command line: the passes'
    findings (e.g. ``run-verifier``'s report)."""
