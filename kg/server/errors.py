"""Errors of the local server that name their fix."""

from __future__ import annotations


class ServerError(RuntimeError):
    """A failure with a cause and the fix; `log_tail` carries the last lines of the Neo4j log."""

    def __init__(self, message: str, fix: str = "", log_tail: str = "") -> None:
        self.message = message
        self.fix = fix
        self.log_tail = log_tail
        super().__init__(message + (f"\nfix: {fix}" if fix else ""))
