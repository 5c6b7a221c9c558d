"""`--model local/<name or GGUF path>`: any LLM route served by the local model server.

`LLMClient` calls `local_config` for such a model: the server is started if it is not running
(provisioning the model on first use), and the config gets what a small CPU-served model needs
and the user did not set (a reply-length cap, a long request timeout, the server's API key, its
JSON-schema constrained output).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pydantic import SecretStr

from kg.llm.local.key import api_key
from kg.llm.local.settings import LocalLLMSettings, get_local_settings

if TYPE_CHECKING:
    from kg.llm.config import LLMConfig

log = logging.getLogger(__name__)
PREFIX = "local"


def local_model_spec(model: str) -> str | None:
    """`local/smollm2-135m` -> `smollm2-135m` (a path may follow the prefix); else None."""
    head, sep, rest = model.partition("/")
    return rest if sep and head.lower() == PREFIX and rest else None


def local_config(
    config: LLMConfig, settings: LocalLLMSettings | None = None, autostart: bool = True
) -> LLMConfig:
    """A copy of `config` aimed at the local server (started first when `autostart`)."""
    from kg.llm.config import LLMConfig
    from kg.llm.local import server

    spec = local_model_spec(config.model)
    if spec is None:
        return config
    settings = settings or get_local_settings()
    updates: dict[str, object] = {}
    if not config.base_url:
        updates["base_url"] = settings.base_url
        if autostart:
            before = server.status(settings).state
            _, secs = server.start(settings, spec, exact=False)
            if before is not server.State.RUNNING:
                log.warning(
                    "started the local model server (%s) on port %d in %.1f s; "
                    "`kg llm down` stops it",
                    spec,
                    settings.port,
                    secs,
                )
    if config.api_key_value is None:
        updates["api_key_value"] = SecretStr(api_key(settings))
    defaults = LLMConfig.model_fields
    if config.max_tokens is None:
        updates["max_tokens"] = settings.max_tokens
    if config.timeout_s == defaults["timeout_s"].default:
        updates["timeout_s"] = settings.timeout_s
    if config.structured_output == "auto":
        # llama.cpp turns the JSON schema into a grammar: only schema-valid JSON is sampled
        updates["structured_output"] = "json_schema"
    return config.model_copy(update=updates)


def shared_limit(
    config: LLMConfig, settings: LocalLLMSettings | None = None
) -> tuple[str, int] | None:
    """All clients of one local server share its `parallel` slots (responder and judge): as
    many requests in flight as the running server generates together."""
    from kg.llm.local import server

    if local_model_spec(config.model) is None:
        return None
    settings = settings or get_local_settings()
    info = server.status(settings).info
    slots = info.parallel if info is not None else settings.parallel
    return f"local-llm:{config.resolved_base_url}", slots
