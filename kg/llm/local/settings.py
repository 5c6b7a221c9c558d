"""Settings of the local model server (`kg llm up`): `KG_LLM_*` variables and `.env`."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from kg.settings import default_cache_dir


class LocalLLMSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="KG_LLM_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # A registered name (`kg llm models`) or the path of a .gguf file.
    model: str = "smollm2-135m"
    port: int = Field(default=8300, ge=1, le=65535)
    # Tokens of prompt + reply each slot holds; a longer prompt is refused per item.
    n_ctx: int = Field(default=4096, ge=256, le=131072)
    # 1 by default: measured on a shared 2-core machine, a second thread made generation
    # slower, not faster (OpenMP threads spin while the other core is busy); see
    # docs/local-model.md and benchmarks/local_model.py.
    threads: int = Field(default=1, ge=1, le=256)
    # Slots: requests the server generates together (continuous batching), and so the
    # requests the product keeps in flight on it, all roles together; more would only wait in
    # the server's queue (and run into client timeouts), so the product queues them itself.
    # 1 by default: on one thread a second slot shares the same core (docs/local-model.md).
    parallel: int = Field(default=1, ge=1, le=64)
    # Reply length when a command sets none: a small model can ramble until the context is
    # full, and grammar-constrained JSON can repeat a string forever.
    max_tokens: int = Field(default=512, ge=1)
    # Seconds per request (prompt evaluation on one CPU thread is slow for long prompts).
    timeout_s: float = Field(default=600.0, gt=0)
    # Seconds from launching the process until it must answer (model load included).
    start_timeout_s: float = Field(default=120.0, gt=0)
    cache_dir: Path = Field(
        default_factory=default_cache_dir, validation_alias=AliasChoices("KG_CACHE_DIR")
    )
    # Where GGUF files provisioned from PyPI are kept (shared by every port).
    models_dir: Path | None = None
    # Per-port server home: pid file, state file, log.
    server_home: Path | None = None
    # The key clients must send; by default one is made on the first start and kept in
    # `<cache>/llm-server.key` (mode 0600), shared by every port of this cache.
    api_key: SecretStr | None = None

    @property
    def resolved_models_dir(self) -> Path:
        return self.models_dir or self.cache_dir / "models"

    @property
    def resolved_server_home(self) -> Path:
        return self.server_home or self.cache_dir / f"llm-server-{self.port}"

    @property
    def key_file(self) -> Path:
        return self.cache_dir / "llm-server.key"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def get_local_settings(**overrides: object) -> LocalLLMSettings:
    clean = {k: v for k, v in overrides.items() if v is not None}
    return LocalLLMSettings.model_validate(clean)
