"""Errors of the local model server and its models, each naming its fix."""

from __future__ import annotations

from kg.server.errors import ServerError


class LocalModelError(ServerError):
    """A local model could not be found, provisioned or served; `fix` says what to do."""
