"""File names built from run ids, domain names and other user-given names, kept inside their folder.

A run id such as `../../X` must not become `out/../../X_by_hop.csv`: every name that becomes part
of a file name goes through `safe_name`, and the final path is checked with `inside`.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from kg.errors import InputError

_UNSAFE = re.compile(r"[^A-Za-z0-9._+=@-]+")
_MAX_NAME = 120


class UnsafePathError(InputError):
    """A path built from a name would leave the folder it belongs in."""


def safe_name(name: str) -> str:
    """A file-name part with no separators, no `..`, no control characters, at most 120 chars.

    Runs of other characters become `_`; a name that had to change gets a short hash of the
    original appended so that two different names never map to the same file.
    """
    cleaned = _UNSAFE.sub("_", name).strip("._") or "_"
    cleaned = re.sub(r"\.{2,}", ".", cleaned)
    if cleaned == name and len(name) <= _MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned[: _MAX_NAME - 9]}-{digest}"


def inside(folder: Path | str, file_name: str) -> Path:
    """`folder / file_name`, refused unless it resolves to a direct child of `folder`."""
    base = Path(folder).resolve()
    target = (base / file_name).resolve()
    if target.parent != base:
        raise UnsafePathError(f"{file_name!r} would be written outside {base}")
    return target


def safe_file(folder: Path | str, stem: str, suffix: str = "") -> Path:
    """The path of `<safe stem><suffix>` inside `folder` (checked)."""
    return inside(folder, f"{safe_name(stem)}{suffix}")


def private_dir(path: Path) -> Path:
    """A folder only its owner can read (0700), created with its parents; an existing one
    made under a looser umask is tightened. For folders holding data, passwords, prompts and
    replies (the server home, the LLM cache, ledgers)."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_mode & 0o777 != 0o700:
        path.chmod(0o700)
    return path


def private_file(path: Path) -> Path:
    """Create `path` empty (if missing) readable by its owner only (0600), or tighten an
    existing one: files that other tools then open (SQLite, appends) keep that mode."""
    path = Path(path)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
    return path
