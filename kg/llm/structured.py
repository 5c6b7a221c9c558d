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


def response_format(
    schema: type[BaseModel], style: str = "json_schema", schema_json: dict[str, Any] | None = None
) -> dict[str, Any]:
    """`json_schema`: the OpenAI format (OpenAI, vLLM, Ollama, LM Studio); `json_object`: a
    JSON object constrained by `schema` (llama.cpp's server, Anyscale). `schema_json`: a
    narrower schema for this one request (e.g. naming the exact items the reply must hold);
    the reply is still validated by `schema`."""
    body = schema_json if schema_json is not None else json_schema(schema)
    if style == "json_object":
        return {"type": "json_object", "schema": body}
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": body, "strict": False},
    }


def schema_instructions(schema: type[BaseModel], schema_json: dict[str, Any] | None = None) -> str:
    """Appended to the prompt when the server cannot enforce a JSON schema itself."""
    if schema_json is None:
        return _class_instructions(schema)
    return _INSTRUCTIONS + json.dumps(schema_json, ensure_ascii=False)


_INSTRUCTIONS = (
    "Reply with one JSON object only (no prose, no code fence) that validates against "
    "this JSON schema:\n"
)


@cache
def _class_instructions(schema: type[BaseModel]) -> str:
    return _INSTRUCTIONS + json.dumps(json_schema(schema), ensure_ascii=False)


def _candidates(text: str) -> list[str]:
    out = [text.strip()]
    out += [m.strip() for m in _FENCE.findall(text)]
    # the outermost object, then the outermost array (a schema's before-validator may accept a
    # bare list of items from servers that ignore the requested format)
    for opening, closing in ("{}", "[]"):
        start, end = text.find(opening), text.rfind(closing)
        if 0 <= start < end:
            out.append(text[start : end + 1])
    return out


def parse_reply(text: str, schema: type[BaseModel]) -> BaseModel:
    """The first JSON object in `text` that validates; tolerant of fences and chatter.

    When none validates, the error is that of the first candidate that is JSON at all (the
    whole reply before any inner part): it says what the model got wrong, where an inner
    array's error would only say "not an object"."""
    last: Exception | None = None
    first_mismatch: ValidationError | None = None
    for cand in _candidates(text):
        try:
            data = json.loads(cand)
        except json.JSONDecodeError as exc:
            last = exc
            continue
        try:
            return schema.model_validate(data)
        except ValidationError as exc:
            first_mismatch = first_mismatch or exc
    if first_mismatch is not None:
        raise StructuredOutputError(
            f"reply does not match {schema.__name__}: {first_mismatch}", text
        )
    raise StructuredOutputError(f"reply is not valid JSON: {last}", text)
