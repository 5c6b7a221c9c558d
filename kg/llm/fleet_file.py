"""A fleet: several OpenAI-compatible endpoints serving one model (`--base-url` repeated, or
`--fleet FILE`).

The file is YAML or JSON (JSON is read as YAML, so both get line numbers in errors):

    endpoints:
      - base_url: http://gpu1:8000/v1
        api_key_env: GPU1_KEY      # optional: the env var with this endpoint's key
        weight: 2                  # optional (default 1): breaks ties between idle endpoints
        max_in_flight: 16          # optional (default: --concurrency): requests in flight here
      - base_url: http://gpu2:8000/v1

Keys are never in the file, only the names of the variables that hold them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kg.errors import InputError
from kg.input_rules import decode_text


class Endpoint(BaseModel):
    """One server of a fleet."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str
    api_key_env: str | None = Field(default=None, description="default: the role's key variable")
    weight: float = Field(default=1.0, gt=0, le=1000)
    max_in_flight: int | None = Field(default=None, ge=1, le=1024)

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, v: str) -> str:
        parts = urlsplit(v.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {v!r}")
        return v.strip().rstrip("/")

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        if v is not None and (not v.strip() or "=" in v or " " in v.strip()):
            # not echoed: it may be the key itself, written where its variable's name goes
            raise ValueError("not an environment variable name (name the variable, not the key)")
        return v.strip() if v else v


class FleetFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    endpoints: list[Endpoint] = Field(min_length=1)

    @field_validator("endpoints")
    @classmethod
    def _distinct(cls, v: list[Endpoint]) -> list[Endpoint]:
        seen = [e.base_url for e in v]
        twice = sorted({u for u in seen if seen.count(u) > 1})
        if twice:
            raise ValueError(f"endpoint listed twice: {', '.join(twice)}")
        return v


def endpoints_from_urls(urls: list[str], where: str = "--base-url") -> list[Endpoint]:
    """`--base-url` repeated: one endpoint per URL, equal weights, default caps."""
    try:
        return FleetFile.model_validate({"endpoints": [{"base_url": u} for u in urls]}).endpoints
    except ValidationError as exc:
        raise InputError(f"{where}: {exc.errors()[0]['msg']}") from None


def load_fleet(path: Path) -> list[Endpoint]:
    """The endpoints of a fleet file; any problem is an InputError naming file:line:field."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the fleet file: {exc.strerror or exc}") from None
    text, problems = decode_text(path, data)
    if text is None:
        raise InputError("\n".join(problems))
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise InputError(
            f"{path}:{line}:-: not YAML or JSON: {getattr(exc, 'problem', exc)}"
        ) from None
    if not isinstance(raw, dict):
        raise InputError(f"{path}:1:endpoints: a mapping with a list `endpoints` is expected")
    try:
        return FleetFile.model_validate(raw).endpoints
    except ValidationError as exc:
        lines = [
            f"{path}:{_line_of(node, err['loc'])}:{_field(err['loc'])}: {err['msg']}"
            for err in exc.errors()
        ]
        raise InputError("\n".join(lines)) from None


def _field(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "-"


def _line_of(node: yaml.Node | None, loc: tuple[Any, ...]) -> int:
    """The 1-based line of the deepest node the error location reaches (the key's line for a
    field, the item's for a list entry)."""
    line = node.start_mark.line if node is not None else 0
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            pair = next((kv for kv in node.value if kv[0].value == str(part)), None)
            if pair is None:
                break
            line, node = pair[0].start_mark.line, pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if not 0 <= part < len(node.value):
                break
            node = node.value[part]
            line = node.start_mark.line
        else:
            break
    return line + 1
