"""Token log-probabilities summarised into an answer's confidence (FRS ranks samples by it)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from evaluation.models import Confidence

# A token is "low-confidence" when the model gave it less than even odds (p < 0.5).
LOW_TOKEN_LOGPROB = math.log(0.5)


def summarise(logprobs: Sequence[float] | None) -> Confidence | None:
    """None when the server returned no logprobs (or none for this reply)."""
    values = [float(v) for v in logprobs or [] if v is not None and math.isfinite(v)]
    if not values:
        return None
    return Confidence(
        mean_logprob=sum(values) / len(values),
        low_share=sum(v < LOW_TOKEN_LOGPROB for v in values) / len(values),
        tokens=len(values),
    )
