"""The product's errors: one root, four branches, so callers (the CLI) catch `KGError` once.

- `InputError`: a file, option, id or setting the user gave is wrong (the message names the
  file, line, field and problem). Also a `ValueError`, as it always was.
- `StoreError`: the graph cannot be reached or a write did not land as a whole.
- `LLMError`: a model call failed, went over budget or replied unusably.
- `ServerError`: the local Neo4j server cannot be provisioned, started or stopped; carries the
  fix and the last lines of the server log.
"""

from __future__ import annotations


class KGError(Exception):
    """Root of every error PerspectiveKG raises on purpose."""


class InputError(KGError, ValueError):
    """Bad input from the user; nothing was written."""


class StoreError(KGError, RuntimeError):
    """The Neo4j store failed or refused a write."""


class LLMError(KGError, RuntimeError):
    """A language-model call failed or its reply cannot be used."""


class ServerError(KGError, RuntimeError):
    """A failure with a cause and the fix; `log_tail` carries the last lines of the Neo4j log."""

    def __init__(self, message: str, fix: str = "", log_tail: str = "") -> None:
        self.message = message
        self.fix = fix
        self.log_tail = log_tail
        super().__init__(message + (f"\nfix: {fix}" if fix else ""))


class Interrupted(KGError):
    """A run or build stopped by SIGINT/SIGTERM: its record was closed `interrupted` and its
    lease given back; the message says how to resume."""

    exit_code = 130  # 128 + SIGINT, as shells report an interrupted command


__all__ = ["InputError", "Interrupted", "KGError", "LLMError", "ServerError", "StoreError"]
