"""Resolve Neo4j Community and build the open-GDS plugin from Maven Central with Maven (the
plugin only when `settings.gds`: a server without GDS needs no jar).

Jars land in a shared distribution folder under the cache dir (one per version), so several
server instances (ports) share them. A `.complete` marker is written last: a resolution that
was killed half-way is redone, never half-used.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from kg.server.errors import ServerError
from kg.settings import Settings


@dataclass(frozen=True)
class Distribution:
    lib: Path
    plugin_jar: Path | None  # None: the server runs without GDS

    @property
    def ready(self) -> bool:
        jar_ready = self.plugin_jar is None or self.plugin_jar.exists()
        return (self.lib / ".complete").exists() and jar_ready


def distribution(settings: Settings) -> Distribution:
    dist = settings.cache_dir / "dist"
    gds = settings.gds_version
    return Distribution(
        lib=dist / f"neo4j-{settings.neo4j_version}" / "lib",
        plugin_jar=dist / f"gds-{gds}" / f"open-gds-{gds}.jar" if settings.gds else None,
    )


def _mvn() -> str:
    mvn = shutil.which("mvn")
    if not mvn:
        raise ServerError(
            "Maven (mvn) is not installed",
            "install Maven 3.8+ (Debian: apt-get install maven), or set NEO4J_URI to use an "
            "existing server",
        )
    return mvn


def _run_maven(
    pom_name: str, workdir: Path, props: dict[str, str], repo_local: Path | None = None
) -> None:
    workdir.mkdir(parents=True, exist_ok=True)
    pom = workdir / "pom.xml"
    pom.write_text(
        (resources.files("kg.server") / "maven" / pom_name).read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    cmd = [_mvn(), "-B", "-q", "-f", str(pom), "package"]
    cmd += [f"-D{k}={v}" for k, v in props.items()]
    if repo_local is not None:  # a chosen local repository (CI uses a fresh one: cold caches)
        cmd.append(f"-Dmaven.repo.local={repo_local}")
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
        raise ServerError(
            f"Maven could not resolve {pom_name.removesuffix('-pom.xml')} "
            f"({' '.join(props.values())})",
            "check that Maven Central is reachable (mvn -v; ~/.m2/settings.xml mirrors/proxies) "
            "and that the version exists",
            log_tail=tail,
        )


def resolve(
    settings: Settings, force: bool = False, progress: Callable[[str], None] | None = None
) -> Distribution:
    """Make sure the Neo4j lib/ and the GDS plugin jar exist; resolve them if not."""
    dist = distribution(settings)
    if dist.ready and not force:
        return dist
    say = progress or (lambda _msg: None)
    build = settings.cache_dir / "build"
    repo = settings.maven_repo_local
    if force or not (dist.lib / ".complete").exists():
        shutil.rmtree(dist.lib, ignore_errors=True)
        say(
            f"resolving Neo4j {settings.neo4j_version} from Maven Central into {dist.lib} "
            "(first run only; about a minute on a cold machine)"
        )
        t0 = time.monotonic()
        _run_maven(
            "neo4j-pom.xml",
            build / "neo4j",
            {"neo4j.version": settings.neo4j_version, "kg.lib": str(dist.lib)},
            repo,
        )
        (dist.lib / ".complete").write_text(settings.neo4j_version)
        say(f"Neo4j resolved in {time.monotonic() - t0:.0f} s")
    if dist.plugin_jar is not None and (force or not dist.plugin_jar.exists()):
        say(
            f"building the GDS {settings.gds_version} plugin from its Maven Central modules "
            "(first run only; about a minute)"
        )
        t0 = time.monotonic()
        tmp = dist.plugin_jar.with_suffix(".jar.part")
        _run_maven(
            "gds-pom.xml",
            build / "gds",
            {"gds.version": settings.gds_version, "kg.plugin.jar": str(tmp)},
            repo,
        )
        say(f"GDS plugin built in {time.monotonic() - t0:.0f} s")
        tmp.replace(dist.plugin_jar)  # atomic: a killed build leaves no half jar in place
    return dist
