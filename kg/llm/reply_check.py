"""A 200 reply is not always an answer: validation every reply passes before it counts.

Empty or whitespace-only content, a body with no `choices`, or a body that is not a JSON object
are failures of the call, retried like transient errors (servers under load send them) and,
when they persist, raised so that the item fails with the reason. They are never cached or
scored: an empty answer scored as PAS 0 is a silently wrong result.
"""

from __future__ import annotations

from typing import Any

from kg.errors import LLMError


class NotAnAnswer(LLMError):
    """The server answered 200 with something that is not a model reply (`reason` says what)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def answer_text(resp: Any) -> str:
    """The reply's message content, or NotAnAnswer naming what is wrong with the body."""
    if not isinstance(resp, dict):
        raise NotAnAnswer(f"reply is not a JSON object: {str(resp)[:200]!r}")
    choices = resp.get("choices")
    if not isinstance(choices, list) or not choices:
        raise NotAnAnswer("reply has no choices")
    first = choices[0]
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(message, dict):
        raise NotAnAnswer("reply's first choice has no message")
    content = message.get("content")
    if content is None or (isinstance(content, str) and not content.strip()):
        return _empty(first)
    if not isinstance(content, str):
        raise NotAnAnswer(f"reply content is not text: {str(content)[:100]!r}")
    return content


def _empty(choice: dict[str, Any]) -> str:
    reason = choice.get("finish_reason")
    raise NotAnAnswer(
        "empty reply (no content" + (f", finish_reason {reason!r})" if reason else ")")
    )


def usable_cached_text(text: str | None) -> bool:
    """Cache entries written before this check could hold empty replies: never replay those."""
    return bool(text and text.strip())


def not_an_answer(exc: BaseException) -> str | None:
    """The reason when `exc` says the body was not an answer (our check, or a 200 whose body
    the HTTP client could not decode as JSON), else None."""
    if isinstance(exc, NotAnAnswer):
        return exc.reason
    if isinstance(exc, ValueError) and type(exc).__name__ == "JSONDecodeError":
        return f"reply body is not JSON ({exc})"
    return None
