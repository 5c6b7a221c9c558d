"""Token counts when the server reports no usage (offline responders, bare servers)."""

from __future__ import annotations

import re

from kg.llm.tokens import REGEX_TOKENIZER, count_tokens

__all__ = ["REGEX_TOKENIZER", "count_tokens", "split_sentences"]


def split_sentences(text: str) -> list[str]:
    """Sentences of an answer (for the embedding baselines and tokenizer-free claim split)."""
    parts = re.split(r"(?<=[.!?])\s+|\n+", text.strip())
    return [p.strip() for p in parts if p and p.strip()]
