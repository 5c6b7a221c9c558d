"""Tables shipped as package data (word lists and rule tables kept out of the code)."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any


def package_toml(package: str, name: str) -> dict[str, Any]:
    """The TOML file `name` shipped in `package` (listed in pyproject's package-data)."""
    return tomllib.loads((resources.files(package) / name).read_text(encoding="utf-8"))
