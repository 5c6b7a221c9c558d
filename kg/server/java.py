"""Find a Java runtime that Neo4j 5.26 supports (17 or 21; not 25)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kg.server.errors import ServerError

SUPPORTED = (17, 21)


@dataclass(frozen=True)
class Java:
    executable: Path
    major: int


def java_major(executable: Path) -> int:
    out = subprocess.run(
        [str(executable), "-version"], capture_output=True, text=True, timeout=30, check=False
    )
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not m:
        raise ServerError(f"could not read the version of {executable}", "install OpenJDK 17")
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major


def _candidates(java_home: Path | None) -> list[Path]:
    found: list[Path] = []
    if java_home:
        found.append(java_home / "bin" / "java")
    if os.environ.get("JAVA_HOME"):
        found.append(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    on_path = shutil.which("java")
    if on_path:
        found.append(Path(on_path))
    jvm = Path("/usr/lib/jvm")
    if jvm.is_dir():
        found.extend(sorted(jvm.glob("*17*/bin/java")) + sorted(jvm.glob("*21*/bin/java")))
    return [p for p in found if p.exists()]


def find_java(java_home: Path | None = None, candidates: list[Path] | None = None) -> Java:
    """The first supported Java among KG_JAVA_HOME, JAVA_HOME, PATH and /usr/lib/jvm."""
    seen: list[str] = []
    for exe in _candidates(java_home) if candidates is None else candidates:
        major = java_major(exe)
        if major in SUPPORTED:
            return Java(exe, major)
        seen.append(f"{exe} (Java {major})")
    if not seen:
        raise ServerError(
            "no Java runtime found",
            "install OpenJDK 17 (Debian: apt-get install openjdk-17-jre-headless) "
            "or set KG_JAVA_HOME",
        )
    raise ServerError(
        "Neo4j 5.26 needs Java 17 or 21; found only " + ", ".join(seen),
        "install OpenJDK 17 and point KG_JAVA_HOME at it",
    )
