"""The API key of the local model server: other local users' processes may reach 127.0.0.1,
so the server answers only requests that carry the key (`Authorization: Bearer KEY`)."""

from __future__ import annotations

import os
import secrets

from kg.llm.local.settings import LocalLLMSettings


def api_key(settings: LocalLLMSettings) -> str:
    """`KG_LLM_API_KEY` if set, else the key file's, made (mode 0600) when there is none."""
    if settings.api_key is not None:
        return settings.api_key.get_secret_value()
    path = settings.key_file
    try:
        key = path.read_text().strip()
    except FileNotFoundError:
        key = ""
    if key:
        return key
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(32)
    part = path.with_name(f"{path.name}.{os.getpid()}")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key)
    try:  # the first process to make the key wins; a concurrent one reads it
        os.link(part, path)
    except FileExistsError:
        key = path.read_text().strip()
    finally:
        part.unlink()
    return key


def auth_headers(settings: LocalLLMSettings) -> dict[str, str]:
    """Headers for a direct HTTP request to the server (tests, benchmarks)."""
    return {"Authorization": f"Bearer {api_key(settings)}"}
