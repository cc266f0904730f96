"""User-facing errors.  The CLI turns any ``CepsimInputError`` into exit code 2."""
from __future__ import annotations


class CepsimInputError(ValueError):
    """Bad user input (pattern text, data file, config).  The message names what and how to fix."""


class PatternSyntaxError(CepsimInputError):
    """Pattern text that does not parse; carries line and column (1-based)."""

    def __init__(self, message: str, line: int, column: int, source: str | None = None):
        self.line = line
        self.column = column
        self.source = source
        where = f"{source}:" if source else ""
        super().__init__(f"{where}line {line}, column {column}: {message}")


class PatternError(CepsimInputError):
    """A pattern that parses but is not meaningful (unknown variable, type or attribute)."""


class StreamError(CepsimInputError):
    """An event stream or data file that violates the stream model."""


class CapacityError(RuntimeError):
    """An engine hit its configured cap on live partial matches / matches."""


class PatternMisuseError(PatternSyntaxError, PatternError):
    """A construct written where it has no meaning (e.g. ``REMOTE[...]`` outside a comparison):
    a ``PatternError`` that also carries the line and column of the offending token."""
