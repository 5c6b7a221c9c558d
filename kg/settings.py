"""One settings object for the whole product: `KG_` environment variables, `.env`, CLI overrides.

`NEO4J_URI`, `NEO4J_USER` and `NEO4J_PASSWORD` are honoured too, because that is how users point
every Neo4j tool at an existing server (Aura, a team server).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kg.errors import InputError

# The driver's URI schemes: `neo4j` routes (a cluster, Aura, or one server), `bolt` talks to one
# server; `+s` is TLS with a verified certificate, `+ssc` TLS accepting a self-signed one.
URI_SCHEMES = ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc")


def _xdg(var: str, fallback: str) -> Path:
    return Path(os.environ.get(var) or Path.home() / fallback)


def check_neo4j_uri(uri: str) -> str:
    """A server URI the driver takes, or ValueError saying what is wrong (credentials never
    echoed: they belong in NEO4J_USER / NEO4J_PASSWORD)."""
    try:
        parts = urlsplit(uri)
        _ = parts.port  # ValueError when it is not a number in range
    except ValueError as exc:
        raise ValueError(f"{_shown(uri)!r} is not a valid URI ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in URI_SCHEMES:
        raise ValueError(
            f"{_shown(uri)!r}: scheme {scheme or '(none)'!r} is not a Neo4j driver scheme; use "
            + ", ".join(f"{s}://" for s in URI_SCHEMES)
            + " (Aura: neo4j+s://<id>.databases.neo4j.io)"
        )
    if not parts.hostname:
        raise ValueError(f"{_shown(uri)!r}: no host")
    if parts.username is not None or parts.password is not None:
        raise ValueError(
            f"{_shown(uri)!r}: credentials do not belong in the URI; set NEO4J_USER and "
            "NEO4J_PASSWORD"
        )
    if parts.path not in ("", "/") or parts.fragment:
        raise ValueError(
            f"{_shown(uri)!r}: no path or fragment; the database is chosen by KG_NEO4J_DATABASE"
        )
    if parts.query and not scheme.startswith("neo4j"):
        raise ValueError(
            f"{_shown(uri)!r}: a routing context (?...) needs a neo4j:// scheme, not {scheme}://"
        )
    return uri


def _shown(uri: str) -> str:
    """The URI as an error may show it: any user:password@ part is cut out."""
    scheme, sep, rest = uri.partition("://")
    return f"{scheme}{sep}{rest.rpartition('@')[2]}" if sep else uri.rpartition("@")[2]


def default_cache_dir() -> Path:
    return _xdg("XDG_CACHE_HOME", ".cache") / "perspectivekg"


def default_config_dir() -> Path:
    return _xdg("XDG_CONFIG_HOME", ".config") / "perspectivekg"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="KG_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # --- connection: an existing server when neo4j_uri is set, else the local one ---
    neo4j_uri: str | None = Field(
        default=None, validation_alias=AliasChoices("KG_NEO4J_URI", "NEO4J_URI")
    )
    neo4j_user: str = Field(
        default="neo4j", validation_alias=AliasChoices("KG_NEO4J_USER", "NEO4J_USER")
    )
    neo4j_password: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("KG_NEO4J_PASSWORD", "NEO4J_PASSWORD")
    )
    neo4j_database: str = "neo4j"

    # --- the local, Maven-provisioned server ---
    neo4j_version: str = "5.26.30"
    gds_version: str = "2.13.9"
    # False: the local server runs without the GDS plugin (as AuraDB Free/Pro do): the jar is
    # neither built nor placed. No command needs GDS; `kg db status` names the routes used.
    gds: bool = True
    bolt_port: int = Field(default=7687, ge=1, le=65535)
    http_port: int = Field(default=7474, ge=1, le=65535)
    # Per-instance home (conf/, data/, logs/, run/); jars are shared under cache_dir/dist.
    server_home: Path | None = None
    heap_size: str = Field(default="2g", pattern=r"^\d+[kmgKMG]?$")
    pagecache_size: str = Field(default="1g", pattern=r"^\d+[kmgKMG]?$")
    # Class-data sharing: the first clean stop writes an archive of the loaded classes that
    # later starts map instead of parsing ~20k classes again (about half the start time).
    class_data_sharing: bool = True
    # Extra JVM options for the local server (e.g. GC logging), space separated.
    jvm_options: str = ""
    java_home: Path | None = None
    # Bolt wait, counted from the JVM launch (provisioning has no deadline): give up after this
    # long with no progress in the server's logs, or after the maximum in all.
    start_timeout_s: float = Field(default=180.0, gt=0)
    start_timeout_max_s: float = Field(default=900.0, gt=0)
    # Maven local repository for resolving Neo4j + GDS (default: Maven's own, ~/.m2).
    maven_repo_local: Path | None = None

    cache_dir: Path = Field(default_factory=default_cache_dir)
    config_dir: Path = Field(default_factory=default_config_dir)

    # Bound of the LLM reply cache's content (every prompt and reply); the oldest replies are
    # dropped past it. `kg cache prune` prunes on demand.
    llm_cache_max_mb: float = Field(default=2048.0, gt=0)

    # --- batching ---
    batch_size: int = 1000
    # Provider batch mode (`--batch`, kg.llm.batch): the first wait between two polls of a
    # batch, growing by half each poll up to the longest wait.
    llm_batch_poll_s: float = Field(default=10.0, gt=0)
    llm_batch_poll_max_s: float = Field(default=300.0, gt=0)
    # A batch file's limits (OpenAI's: 50,000 lines, 200 MB); a provider with lower ones sets
    # them lower.
    llm_batch_max_lines: int = Field(default=50_000, ge=1, le=50_000)
    llm_batch_max_mb: float = Field(default=200.0, gt=0, le=200.0)

    # --- embeddings ---
    embedding_model: str = "all-MiniLM-L6-v2"

    @field_validator("neo4j_uri", mode="before")
    @classmethod
    def _uri(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip()
            return check_neo4j_uri(value) if value else None  # NEO4J_URI= means "unset"
        return value

    @property
    def is_local(self) -> bool:
        return self.neo4j_uri is None

    @property
    def resolved_server_home(self) -> Path:
        if self.server_home is not None:
            return self.server_home
        suffix = "" if self.bolt_port == 7687 else f"-{self.bolt_port}"
        return self.cache_dir / f"neo4j-server{suffix}"

    @property
    def password_file(self) -> Path:
        suffix = "" if self.bolt_port == 7687 else f"-{self.bolt_port}"
        return self.config_dir / f"neo4j-password{suffix}"

    @property
    def bolt_uri(self) -> str:
        return self.neo4j_uri or f"neo4j://127.0.0.1:{self.bolt_port}"

    @property
    def uri_kind(self) -> str:
        """How the driver talks to the server, for status lines: routing or direct, TLS."""
        scheme = self.bolt_uri.partition("://")[0].lower()
        route = "routing" if scheme.startswith("neo4j") else "direct"
        tls = {"+s": ", TLS", "+ssc": ", TLS (self-signed accepted)"}
        return route + next((v for k, v in tls.items() if scheme.endswith(k)), "")


def get_settings(**overrides: object) -> Settings:
    """Settings from the environment and `.env`, with CLI options (non-None) taking precedence."""
    clean = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings.model_validate(clean)
    except ValidationError as exc:
        # One line per bad setting, named as the user sets it; the input is not echoed (a
        # URI or password may be in it).
        lines = []
        for err in exc.errors(include_input=False, include_url=False):
            field = str(err["loc"][0]) if err["loc"] else "?"
            lines.append(f"setting {_variable(field)}: {err['msg'].removeprefix('Value error, ')}")
        raise InputError("; ".join(lines)) from None


def _variable(field: str) -> str:
    """The variable a setting is read from (an error names a field or its first alias)."""
    name = field.upper().removeprefix("KG_")
    return name if name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD") else f"KG_{name}"
