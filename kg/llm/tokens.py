"""Token counts when the server reports no usage (offline responders, bare servers) and in the
cost plans of `kg eval plan` and `kg build --plan`."""

from __future__ import annotations

import re

# Words and single punctuation marks: a stable, model-free approximation, named in reports.
_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
REGEX_TOKENIZER = "regex-tokenizer"


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))
