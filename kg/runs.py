"""What every Run writer shares. The Run record itself is not one type yet (see the CHANGELOG):
build, PERSPECTRA and evaluation runs still write their own shapes; they share the clock here."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> str:
    """The time stamp runs record: UTC, ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")
