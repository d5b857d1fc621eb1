"""Errors a person can act on.

Every error that reaches the command line names where the problem is (file, line, field), what
is wrong, and what is accepted. The CLI prints it as one message and exits with status 2.
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input: a scenario, option or data file that zvmlab cannot accept."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None, fix: str | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        self.fix = fix

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = str(self.file)
            if self.line:
                where += f":{self.line}"
        parts = []
        if where:
            parts.append(where)
        if self.field:
            parts.append(self.field)
        head = ": ".join(parts)
        text = f"{head}: {self.message}" if head else self.message
        if self.fix:
            text += f" ({self.fix})"
        return text
