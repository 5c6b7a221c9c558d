"""Folders and the neo4j.conf of one local server instance."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from kg.safe_paths import private_dir, private_file
from kg.settings import Settings


@dataclass(frozen=True)
class ServerHome:
    root: Path

    @property
    def conf(self) -> Path:
        return self.root / "conf"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def run(self) -> Path:
        return self.root / "run"

    @property
    def plugins(self) -> Path:
        return self.root / "plugins"

    @property
    def pid_file(self) -> Path:
        return self.run / "neo4j.pid"

    @property
    def neo4j_log(self) -> Path:
        return self.logs / "neo4j.log"

    @property
    def console_log(self) -> Path:
        return self.logs / "console.log"

    @property
    def auth_file(self) -> Path:
        return self.data / "dbms" / "auth.ini"

    def create(self) -> None:
        # 0700: the store, auth.ini and the logs hold the graph's data and the password hash
        # (the JVM also runs under umask 077, so what it creates inside is its owner's only)
        private_dir(self.root)
        for d in (self.conf, self.data, self.logs, self.run, self.plugins, self.root / "import"):
            private_dir(d)
        if self.auth_file.exists():
            private_file(self.auth_file)

    def place_plugin(self, jar: Path | None) -> None:
        """Link the GDS plugin jar into plugins/ (None: no plugin), removing any other version,
        so one home switches between GDS and no GDS with the setting."""
        for old in self.plugins.glob("open-gds-*.jar"):
            if jar is None or old.name != jar.name or not old.exists():  # or a dangling link
                old.unlink()
        if jar is not None and not (self.plugins / jar.name).exists():
            (self.plugins / jar.name).symlink_to(jar)


def render_conf(settings: Settings, home: ServerHome, lib: Path) -> str:
    """neo4j.conf: loopback only, auth on, GDS procedures allowed (when GDS is on), memory
    sized by settings."""
    lines = {
        "server.default_listen_address": "127.0.0.1",
        "server.default_advertised_address": "127.0.0.1",
        "server.bolt.listen_address": f"127.0.0.1:{settings.bolt_port}",
        "server.bolt.advertised_address": f"127.0.0.1:{settings.bolt_port}",
        "server.http.listen_address": f"127.0.0.1:{settings.http_port}",
        "server.http.advertised_address": f"127.0.0.1:{settings.http_port}",
        "server.https.enabled": "false",
        "server.memory.heap.initial_size": settings.heap_size,
        "server.memory.heap.max_size": settings.heap_size,
        "server.memory.pagecache.size": settings.pagecache_size,
        "dbms.security.auth_enabled": "true",
        **(
            {
                "dbms.security.procedures.unrestricted": "gds.*",
                "dbms.security.procedures.allowlist": "gds.*",
            }
            if settings.gds
            else {}
        ),
        "dbms.usage_report.enabled": "false",
        "db.tx_log.rotation.retention_policy": "2 files",
        "server.directories.data": str(home.data),
        "server.directories.logs": str(home.logs),
        "server.directories.plugins": str(home.plugins),
        "server.directories.lib": str(lib),
        "server.directories.run": str(home.run),
        "server.directories.import": str(home.root / "import"),
        "server.jvm.additional": "-XX:+UseG1GC",
    }
    return "# Written by `kg db up`; edit settings through KG_* variables instead.\n" + "".join(
        f"{k}={v}\n" for k, v in lines.items()
    )


def read_or_create_password(path: Path) -> str:
    """The local server's password: generated once, kept in a 0600 file, never in the repo."""
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    private_dir(path.parent)
    password = secrets.token_urlsafe(24)
    while password.startswith("-"):  # neo4j-admin would read it as an option
        password = secrets.token_urlsafe(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(password + "\n")
    return password
