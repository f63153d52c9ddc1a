class Diagnostic:
    """One problem ptoc found, as the ``ptoc`` command prints it."""

    severity: str
    code: str | None
    message: str
    line: int | None
    column: int | None
    rendered: str
    def __init__(
        self, severity: str, code: str | None, message: str, line: int | None, column: int | None, rendered: str
    ) -> None: ...

class CompileError(Exception):
    """A compilation or a run that failed, with its diagnostics."""

    diagnostics: list[Diagnostic]
    stderr: str
    def __init__(self, diagnostics: list[Diagnostic], stderr: str = "") -> None: ...

class CompileWarning(UserWarning):
    """The passes' findings of a successful compilation."""
