"""A judge asked N times: the majority of its votes, and how far its votes agree with each other.

Rule: a path (or an edge) is present when a strict majority of the *valid* votes on it says so.
A tie (as many "present" as "absent" votes: an even N, or an odd N with one vote failed) is
resolved to absent, the conservative reading (a path is only credited when most samples see
it), and counted, so a report can say how many decisions a tie made. A vote that gave no
verdict on a path is not a vote on it; a path with no valid vote at all is a failed judgement.

Self-agreement over the path decisions with at least two valid votes: mean pairwise agreement
(the share of vote pairs on a path that agree) and Fleiss' kappa, the same pairwise agreement
corrected for the agreement expected from the overall share of "present" votes (the
variable-raters form: each path's pairwise agreement weighs equally, whatever its vote count).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from pydantic import BaseModel


def majority(votes: Sequence[bool]) -> tuple[bool, bool]:
    """(present, tie) of one decision's valid votes; a tie is absent."""
    yes = sum(votes)
    no = len(votes) - yes
    return yes > no, yes == no


def edge_majority(edge_votes: Sequence[Sequence[bool]], hops: int) -> list[bool]:
    """Per edge, the majority of the votes' edge decisions (ties absent)."""
    return [majority([v[i] for v in edge_votes if i < len(v)])[0] for i in range(hops)]


class SelfAgreement(BaseModel):
    """How consistently a voting judge decides the same path across its N samples."""

    votes: int  # samples asked per decision
    decisions: int  # path decisions with at least two valid votes
    agreement: float | None = None  # mean pairwise agreement, percent
    fleiss_kappa: float | None = None  # None when undefined (every vote the same)
    unanimous: int = 0  # decisions whose valid votes all agree
    ties: int = 0  # decisions a tie resolved (to absent)
    failed_votes: int = 0  # votes that gave no verdict on a path (not counted as votes)

    @classmethod
    def stored(cls, value: object) -> SelfAgreement | None:
        """The self-agreement a run stored (JSON text), or None (no voting judge)."""
        if isinstance(value, str):
            return cls.model_validate_json(value)
        return cls.model_validate(value) if isinstance(value, dict) else None

    def line(self) -> str:
        """One line for tables and reports."""
        if not self.decisions:
            return f"judge self-agreement over {self.votes} votes: no path had two valid votes"
        kappa = f"{self.fleiss_kappa:.2f}" if self.fleiss_kappa is not None else "undefined"
        agreement = f"{self.agreement:.1f}%" if self.agreement is not None else "n/a"
        return (
            f"judge self-agreement over {self.votes} votes: Fleiss' kappa {kappa}, pairwise "
            f"agreement {agreement} on {self.decisions} path decisions ({self.unanimous} "
            f"unanimous, {self.ties} ties resolved to absent, {self.failed_votes} failed votes)"
        )


def self_agreement(
    vote_lists: Iterable[Sequence[bool]], votes: int, *, ties: int = 0, failed_votes: int = 0
) -> SelfAgreement:
    """Pairwise agreement and Fleiss' kappa of the valid votes on each path decision."""
    # Sorted so the figures do not depend on the order the decisions come in (float sums).
    rows = sorted((len(v), sum(v)) for v in vote_lists if len(v) >= 2)
    out = SelfAgreement(votes=votes, decisions=len(rows), ties=ties, failed_votes=failed_votes)
    if not rows:
        return out
    n, k = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    pairs = (k * (k - 1) + (n - k) * (n - k - 1)) / (n * (n - 1))  # per decision
    p_bar = float(pairs.mean())
    share = float(k.sum() / n.sum())
    expected = share**2 + (1 - share) ** 2
    out.agreement = 100 * p_bar
    out.fleiss_kappa = (p_bar - expected) / (1 - expected) if expected < 1 else None
    out.unanimous = int(((k == 0) | (k == n)).sum())
    return out
