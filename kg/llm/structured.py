"""Structured output: JSON schema for `response_format`, tolerant parsing, validation."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError

from kg.errors import LLMError

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class StructuredOutputError(LLMError, ValueError):
    """The reply could not be turned into the requested schema (even after one repair)."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(message)
        self.text = text


@cache
def json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema (generating it costs milliseconds: once per class). Read-only."""
    return schema.model_json_schema()


class TruncatedReply(StructuredOutputError):
    """The reply was cut at `max_tokens` (finish_reason "length") before its JSON ended: a
    repair request would be cut the same way, so none is made."""


def response_format(schema: type[BaseModel], style: str = "json_schema") -> dict[str, Any]:
    """`json_schema`: the OpenAI format (OpenAI, vLLM, Ollama, LM Studio); `json_object`: a
    JSON object constrained by `schema` (llama.cpp's server, Anyscale)."""
    if style == "json_object":
        return {"type": "json_object", "schema": json_schema(schema)}
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": json_schema(schema), "strict": False},
    }


@cache
def schema_instructions(schema: type[BaseModel]) -> str:
    """Appended to the prompt when the server cannot enforce a JSON schema itself."""
    return (
        "Reply with one JSON object only (no prose, no code fence) that validates against "
        "this JSON schema:\n" + json.dumps(json_schema(schema), ensure_ascii=False)
    )


def _candidates(text: str) -> list[str]:
    out = [text.strip()]
    out += [m.strip() for m in _FENCE.findall(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        out.append(text[start : end + 1])
    return out


def parse_reply(text: str, schema: type[BaseModel]) -> BaseModel:
    """The first JSON object in `text` that validates; tolerant of fences and chatter."""
    last: Exception | None = None
    for cand in _candidates(text):
        try:
            data = json.loads(cand)
        except json.JSONDecodeError as exc:
            last = exc
            continue
        try:
            return schema.model_validate(data)
        except ValidationError as exc:
            last = exc
    if isinstance(last, ValidationError):
        raise StructuredOutputError(f"reply does not match {schema.__name__}: {last}", text)
    raise StructuredOutputError(f"reply is not valid JSON: {last}", text)
