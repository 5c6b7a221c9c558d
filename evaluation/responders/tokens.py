"""Token counts when the server reports no usage (offline responders, bare servers)."""

from __future__ import annotations

import re

# Words and single punctuation marks: a stable, model-free approximation, named in reports.
_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
REGEX_TOKENIZER = "regex-tokenizer"


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def split_sentences(text: str) -> list[str]:
    """Sentences of an answer (for the embedding baselines and tokenizer-free claim split)."""
    parts = re.split(r"(?<=[.!?])\s+|\n+", text.strip())
    return [p.strip() for p in parts if p and p.strip()]
