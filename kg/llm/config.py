"""Configuration of one language-model role (responder, judge or builder).

The API key is never held here: only the name of the environment variable that has it, so a
config can be dumped into a run record or a log without leaking anything.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr, ValidationError, field_validator, model_validator

from kg.errors import InputError
from kg.llm.fleet_file import Endpoint, endpoints_from_urls, load_fleet
from kg.settings import default_cache_dir

Role = Literal["responder", "judge", "builder"]

# Config fields that change what a model answers (concurrency, timeouts, retries and the cache
# do not): they, and only they, identify a run.
RESULT_FIELDS = (
    "model",
    "base_url",
    "temperature",
    "max_tokens",
    "reasoning_effort",
    "reasoning",
    "structured_output",
)
# PERSPECTRA run uids hash the first five (stored runs resume by their uid, so it stays).
PERSPECTRA_RESULT_FIELDS = RESULT_FIELDS[:5]

# Provider prefixes we strip from `--model` (`openai/gpt-4o` -> `gpt-4o`), with the base URL each
# one implies when `--base-url` is not given. Anything else is sent to the server verbatim.
PROVIDER_BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "vllm": "http://localhost:8000/v1",
    "ollama": "http://localhost:11434/v1",
    "lmstudio": "http://localhost:1234/v1",
    # `kg llm up` (kg.llm.local): the client sets the URL of the configured port
    "local": "http://127.0.0.1:8300/v1",
}

# Models that reason before answering: they take `reasoning_effort` and `max_completion_tokens`
# and reject a `temperature` other than the default.
_REASONING = re.compile(r"^(o\d|gpt-5|gpt-oss|deepseek-r1|qwq)", re.IGNORECASE)


class Price(BaseModel):
    """US dollars per million tokens."""

    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0
    # What a reply costs through the provider's batch API, as a factor of the prices above
    # (OpenAI's batch discount: half price).
    batch_factor: float = Field(default=0.5, ge=0)

    def cost(self, prompt_tokens: int, completion_tokens: int, *, batch: bool = False) -> float:
        """Dollars for these tokens; through the batch API at its factor. The one price rule
        of the ledger (spent) and the cost plans (estimated)."""
        spent = prompt_tokens * self.input_per_mtok + completion_tokens * self.output_per_mtok
        spent /= 1e6
        return spent * self.batch_factor if batch else spent


def default_cache_path() -> Path:
    return default_cache_dir() / "llm-cache.sqlite"


class LLMConfig(BaseModel):
    model: str = Field(description="`provider/model` or a bare model name sent as is")
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    # A key given by the product itself (the local model server's); never dumped or stored.
    api_key_value: SecretStr | None = Field(default=None, exclude=True, repr=False)
    role: Role = "responder"
    concurrency: int = Field(default=8, ge=1, le=1024)
    max_retries: int = Field(default=5, ge=0, le=50)
    timeout_s: float = Field(default=120.0, gt=0)
    backoff_base_s: float = Field(default=0.5, ge=0)
    backoff_max_s: float = Field(default=30.0, ge=0)
    # The longest a server's Retry-After may make a call wait (a hostile or broken server
    # asking for hours would hang the run silently); longer asks wait this long.
    retry_after_max_s: float = Field(default=120.0, ge=0, le=3600)
    cache: bool = True
    cache_path: Path = Field(default_factory=default_cache_path)
    temperature: float | None = 0.0
    max_tokens: int | None = None
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    reasoning: bool | None = Field(
        default=None, description="force reasoning-model parameters; None = guess from the name"
    )
    # json_schema: OpenAI's response_format; json_object: {"type": "json_object", "schema"}
    # (llama.cpp); prompt: the schema described in the prompt; auto: json_schema, falling
    # back to prompt when the server refuses it (local/ models: json_object)
    structured_output: Literal["auto", "json_schema", "json_object", "prompt"] = "auto"
    prices: dict[str, Price] = Field(default_factory=dict)
    max_cost: float | None = Field(default=None, ge=0)
    # A fleet (kg.llm.fleet): several endpoints serving this model; the first one is the
    # `base_url` that names the run and keys the cache, whichever endpoint answers.
    endpoints: list[Endpoint] = Field(default_factory=list)
    # Batch mode (kg.llm.batch): requests go to the provider's batch API (`--batch`); an
    # execution mode like `concurrency`, not a result field (same replies, lower price).
    batch: bool = False

    @model_validator(mode="after")
    def _fleet_base_url(self) -> LLMConfig:
        if self.endpoints and self.base_url != self.endpoints[0].base_url:
            self.base_url = self.endpoints[0].base_url
        return self

    @field_validator("model")
    @classmethod
    def _model_not_empty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("model must not be empty")
        return v.strip()

    # -- derived -----------------------------------------------------------------------
    @property
    def provider(self) -> str | None:
        head, sep, _ = self.model.partition("/")
        return head.lower() if sep and head.lower() in PROVIDER_BASE_URLS else None

    @property
    def model_name(self) -> str:
        """The name sent to the server (provider prefix removed)."""
        return self.model.split("/", 1)[1] if self.provider else self.model

    @property
    def resolved_base_url(self) -> str:
        if self.base_url:
            return self.base_url.rstrip("/")
        return PROVIDER_BASE_URLS[self.provider or "openai"]

    @property
    def is_reasoning(self) -> bool:
        if self.reasoning is not None:
            return self.reasoning
        return bool(_REASONING.match(self.model_name.split("/")[-1]))

    def api_key(self) -> str:
        """The key from the environment; local servers (vLLM, Ollama...) accept any value."""
        if self.api_key_value is not None:
            return self.api_key_value.get_secret_value()
        key = os.environ.get(self.api_key_env)
        if key:
            return key
        url = self.resolved_base_url
        if "127.0.0.1" in url or "localhost" in url or self.base_url:
            return "not-needed"
        raise InputError(
            f"no API key: set the environment variable {self.api_key_env} "
            f"(model {self.model}, base URL {url})"
        )

    @property
    def in_flight(self) -> int:
        """Requests this role keeps in flight: `concurrency`, or a fleet's caps together."""
        if not self.endpoints:
            return self.concurrency
        return sum(e.max_in_flight or self.concurrency for e in self.endpoints)

    def price_for(self) -> Price | None:
        return self.prices.get(self.model) or self.prices.get(self.model_name)

    def public_dict(self) -> dict[str, Any]:
        """What a run record may hold: everything but secrets and local paths."""
        d = self.model_dump(mode="json", exclude={"cache_path"})
        d["base_url"] = self.resolved_base_url
        return d


def load_prices(path: Path) -> dict[str, Price]:
    """A price table file: `{model: {input_per_mtok, output_per_mtok, batch_factor?}}`."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {k: Price(**v) for k, v in raw.items()}
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        raise InputError(
            f"{path}: not a price table ({{model: {{input_per_mtok, output_per_mtok}}}}): {exc}"
        ) from None


def llm_config(
    model: str,
    *,
    role: Role,
    base_url: str | list[str] | None = None,
    fleet: Path | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    no_cache: bool = False,
    prices: Path | None = None,
    **options: Any,
) -> LLMConfig:
    """The one way commands turn their options into a model config; `options` are
    `LLMConfig` fields (concurrency, max_cost, ...), those left at None keep the config's
    defaults. Bad values are an `InputError` naming the role and the field.

    `base_url` given more than once, or a `fleet` file: the endpoints of a fleet."""
    from kg.llm.local.registry import resolve_model
    from kg.llm.local.route import local_model_spec

    if (local := local_model_spec(model)) is not None:
        if options.get("batch"):
            raise InputError(
                f"{role} model {model}: --batch needs a provider with a batch API (OpenAI's); "
                "the local model server answers requests one by one"
            )
        resolve_model(local)  # an unknown name or a missing GGUF file: said before anything opens
    urls = [base_url] if isinstance(base_url, str) else list(base_url or [])
    if fleet is not None and urls:
        raise InputError(f"{role} model: give --fleet or --base-url, not both")
    if fleet is not None:
        options["endpoints"] = load_fleet(fleet)
        base_url = None
    elif len(urls) > 1:
        options["endpoints"] = endpoints_from_urls(urls)
        base_url = urls[0]
    else:
        base_url = urls[0] if urls else None
    values = {k: v for k, v in {"base_url": base_url, **options}.items() if v is not None}
    try:
        return LLMConfig(
            model=model,
            role=role,
            api_key_env=api_key_env,
            cache=not no_cache,
            prices=load_prices(prices) if prices is not None else {},
            **values,
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "model"
        raise InputError(f"{role} model setting {where}: {err['msg']}") from None
