"""`enable_numba_caching`: compiled functions declared without cache=True get numba's on-disk
cache, so a second process loads them instead of compiling (UMAP's ~24 s of CPU per build)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numba
import pytest

from construction.pipeline.clustering import enable_numba_caching

SOURCE = """
import numba

@numba.njit
def twice(x):
    return 2 * x

@numba.njit(cache=True)
def already(x):
    return x + 1

def plain(x):
    return x
"""


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    src = tmp_path / "src"
    (src / "kg_numba_probe").mkdir(parents=True)
    (src / "kg_numba_probe" / "__init__.py").write_text("")
    (src / "kg_numba_probe" / "funcs.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(src))
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    module = importlib.import_module("kg_numba_probe.funcs")
    yield module
    for name in ("kg_numba_probe.funcs", "kg_numba_probe"):
        sys.modules.pop(name, None)


def test_uncached_functions_of_the_package_get_the_disk_cache(package, tmp_path: Path) -> None:
    assert enable_numba_caching("kg_numba_probe") == 1  # `twice`; `already` had it; `plain` no
    assert package.twice(21) == 42
    saved = [p.name for p in (tmp_path / "cache").rglob("*.nbi")]
    assert any(name.startswith("funcs.twice") for name in saved), saved
    assert enable_numba_caching("kg_numba_probe") == 0  # idempotent


def test_other_packages_are_left_alone(package) -> None:
    assert enable_numba_caching("kg_numba_probe_other") == 0
    assert type(package.twice._cache).__name__ == "NullCache"
