"""One error type for everything a user can get wrong: it names the file, the line and the problem."""
from __future__ import annotations


class LigrettoError(Exception):
    """A problem with input the user gave us (a file, a line in it, an option)."""

    def __init__(self, problem: str, *, path: str | None = None, line: int | None = None):
        self.problem, self.path, self.line = problem, path, line
        where = path or ""
        if line is not None:
            where += f":{line}" if where else f"line {line}"
        super().__init__(f"{where}: {problem}" if where else problem)
