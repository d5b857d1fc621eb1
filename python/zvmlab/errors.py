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


def table_array(raw: object, *, field: str, file: str | None, fix: str, item_fix: str,
                line: int | None = None, message: str = "must be an array of tables"):
    """The tables of a TOML array of tables (``[[field]]``) as ``(index, "field[i]", table)``:
    anything else is refused with ``message`` / ``fix``, an element that is not a table with
    ``item_fix``."""
    if not isinstance(raw, list):
        raise InputError(message, file=file, line=line, field=field, fix=fix)
    for i, t in enumerate(raw):
        where = f"{field}[{i}]"
        if not isinstance(t, dict):
            raise InputError("must be a table", file=file, field=where, fix=item_fix)
        yield i, where, t
