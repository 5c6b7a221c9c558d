"""Prompt templates shipped in the `prompts` package, identified by name and content hash."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from string import Template

from pydantic import BaseModel, ConfigDict


class Prompt(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    text: str

    @property
    def hash(self) -> str:
        """Short content hash: a run records it so results say exactly which prompt was used."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:12]

    def render(self, **values: object) -> str:
        """Fill `$name` / `${name}` slots; a missing slot is an error, never left in the text."""
        return Template(self.text).substitute({k: str(v) for k, v in values.items()})


@cache
def load_prompt(name: str) -> Prompt:
    """`prompts/<name>.md` (or `.txt`); name may contain `/` for subfolders."""
    node = resources.files("prompts")
    *dirs, leaf = name.split("/")
    for d in dirs:
        node = node / d
    for ext in (".md", ".txt"):
        f = node / f"{leaf}{ext}"
        if f.is_file():
            return Prompt(name=name, text=f.read_text(encoding="utf-8"))
    raise KeyError(f"no prompt named {name!r} (expected prompts/{name}.md)")
