"""The domain's relation palette: categories -> relations with descriptions (published format).

The one parser of palettes: `kg build --palette`, `kg import --palette`, the perspective
queries and the palette stored on a domain all go through `parse_palette`, so a bad palette is
the same clear error everywhere.

Format: `{"relation_palette_hypothesis": {category: {"description", "relations": [{"name",
"description", "example"}]}}}` (the top-level wrapper is optional).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from kg.errors import InputError

if TYPE_CHECKING:
    from kg.store import Store

LABEL = re.compile(r"^[A-Z][A-Z0-9_]*$")
CATEGORY = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class PaletteError(InputError):
    """A palette document that is not valid; the message names the file and field."""


class PaletteRelation(BaseModel):
    name: str
    description: str = ""
    example: str = ""
    category: str = ""

    def text(self) -> str:
        """What the offline matcher embeds: the label in words, its example and description."""
        words = self.name.replace("_", " ").lower()
        return f"{words}. {self.example} {self.description}".strip()


class PaletteCategory(BaseModel):
    description: str = ""
    relations: list[PaletteRelation] = Field(default_factory=list)


class Palette(BaseModel):
    categories: dict[str, PaletteCategory]
    # Labels a model proposed outside the palette, accepted under --allow-new-relations.
    new_relations: dict[str, PaletteRelation] = Field(default_factory=dict)

    def relations(self) -> list[PaletteRelation]:
        out: list[PaletteRelation] = []
        for cat, body in self.categories.items():
            out.extend(r.model_copy(update={"category": cat}) for r in body.relations)
        return out

    def category_of(self, label: str) -> str | None:
        for rel in self.relations():
            if rel.name == label:
                return rel.category
        new = self.new_relations.get(label)
        return new.category or None if new else None

    def category_map(self) -> dict[str, str]:
        """label -> category (what imports and perspective grouping need)."""
        return {r.name: r.category for r in self.relations()}

    def labels(self) -> set[str]:
        return {r.name for r in self.relations()}

    def meanings(self) -> dict[str, str]:
        """label -> its description, where it has one (the first, where a label repeats)."""
        out: dict[str, str] = {}
        for r in self.relations():
            if r.description.strip():
                out.setdefault(r.name, r.description.strip())
        return out

    def describe(self) -> str:
        """The palette as prompt text."""
        lines = []
        for cat, body in self.categories.items():
            lines.append(f"## {cat}: {body.description}")
            for r in body.relations:
                lines.append(f"- {r.name}: {r.description} (e.g. {r.example})")
        return "\n".join(lines)


def parse_palette(data: object, source: str = "<palette>") -> Palette:
    """Validate a palette document (a dict, or its JSON text); errors name the file, the field
    path and the problem."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise PaletteError(f"{source}: line {exc.lineno}: invalid JSON: {exc.msg}") from None
    if isinstance(data, dict) and "relation_palette_hypothesis" in data:
        data = data["relation_palette_hypothesis"]
    if not isinstance(data, dict) or not data:
        raise PaletteError(f"{source}: expected an object of categories, got {type(data).__name__}")
    try:
        palette = Palette(categories=data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"][1:])
        raise PaletteError(f"{source}: field {where}: {err['msg']}") from None
    seen: dict[str, str] = {}
    for cat, body in palette.categories.items():
        if not CATEGORY.match(cat):
            raise PaletteError(f"{source}: category {cat!r}: letters, digits, underscores only")
        if not body.relations:
            raise PaletteError(f"{source}: category {cat!r}: no relations")
        for i, rel in enumerate(body.relations):
            if not LABEL.match(rel.name):
                raise PaletteError(
                    f"{source}: {cat}.relations[{i}].name {rel.name!r}: must match {LABEL.pattern}"
                )
            if rel.name in seen and seen[rel.name] != cat:
                # The same label in two categories would make the perspective focus ambiguous.
                raise PaletteError(
                    f"{source}: {cat}.relations[{i}].name {rel.name!r} is already in "
                    f"category {seen[rel.name]!r}"
                )
            seen[rel.name] = cat
    return palette


def relation_meanings(document: object) -> dict[str, str]:
    """label -> description from a palette document (a dict or its JSON text); a palette that
    does not parse gives {} (a reader that only enriches, e.g. the judge's cue words)."""
    try:
        return parse_palette(document).meanings()
    except PaletteError:
        return {}


def load_palette(path: Path) -> Palette:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PaletteError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PaletteError(f"{path}: line {exc.lineno}: invalid JSON: {exc.msg}") from None
    return parse_palette(data, str(path))


def stored_palette(store: Store, domain: str) -> Palette | None:
    """The palette stored on the domain (with its accepted new relations), or None."""
    rows = store.query("core/domain_palette", domain=domain)
    if not rows or not rows[0]["palette"]:
        return None
    palette = parse_palette(rows[0]["palette"], f"palette of domain {domain!r}")
    new: Any = rows[0].get("new_relations")
    if new:
        palette.new_relations = {k: PaletteRelation(**v) for k, v in json.loads(new).items()}
    return palette
