"""Errors of the local server that name their fix (the class lives in `kg.errors`)."""

from __future__ import annotations

from kg.errors import ServerError

__all__ = ["ServerError"]
