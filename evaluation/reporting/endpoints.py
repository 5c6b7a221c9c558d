"""The table of a run served by a fleet of endpoints (kg.llm.fleet): what each endpoint did."""

from __future__ import annotations

from typing import Any

from evaluation.reporting.tables import Table

COLUMNS = [
    "role",
    "endpoint",
    "requests",
    "answered",
    "errors",
    "cooldowns",
    "latency p50 (s)",
    "latency p95 (s)",
    "last error",
]


def endpoints_table(endpoints: list[dict[str, Any]], label: str) -> Table:
    """One row per endpoint of a run's last session (the run record's `endpoints`)."""
    rows = [
        {
            "role": e.get("role"),
            "endpoint": e.get("base_url"),
            "requests": e.get("calls"),
            "answered": e.get("answered"),
            "errors": e.get("errors"),
            "cooldowns": e.get("cooldowns"),
            "latency p50 (s)": e.get("latency_p50_s"),
            "latency p95 (s)": e.get("latency_p95_s"),
            "last error": e.get("last_error") or "",
        }
        for e in endpoints
        if isinstance(e, dict)
    ]
    return Table(
        title=f"{label} — endpoints of the fleet",
        columns=COLUMNS,
        rows=rows,
        notes=[
            "Requests: HTTP requests sent to the endpoint (a request that failed there and was "
            "answered by another counts once in the run's calls); cooldowns: times the endpoint "
            "was set aside after a failure of its own. Figures of the run's last session."
        ],
        digits={"latency p50 (s)": 3, "latency p95 (s)": 3},
    )
