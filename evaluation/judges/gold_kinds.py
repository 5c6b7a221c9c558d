"""What kind of answers a gold set holds, and which evaluation setting each style stands for.

A judge tuned on answers written to state chosen paths ("constructed": aligned, blended,
drifted...) can fail on answers real models write ("natural": the voices of assistants in the
Base, Oracle and negative-constraint settings, or a mid-size model). A kappa means little
without the kind of answers it was measured on, so every gold answer has a kind: declared in
its line (`kind`), else given on the command line (`--gold-kind`), else inferred from its style
name when the name is a known one, else `unknown`.
"""

from __future__ import annotations

from typing import Literal

GoldKind = Literal["natural", "constructed", "unknown"]
KINDS: tuple[GoldKind, ...] = ("natural", "constructed", "unknown")

# the styles of the shipped and shared gold sets (docs/judge-gold-format.md)
NATURAL_STYLES = frozenset({"base", "oracle", "negative", "midmodel"})
CONSTRUCTED_STYLES = frozenset(
    {"aligned", "blended", "drifted", "off-topic", "reversed", "target-only", "cover-all"}
)
# the run setting whose answers a style imitates (constructed styles imitate none)
STYLE_SETTINGS = {"base": "base", "oracle": "oracle", "negative": "oracle", "midmodel": "base"}


def kind_of_style(style: str) -> GoldKind:
    s = style.strip().lower()
    if s in NATURAL_STYLES:
        return "natural"
    if s in CONSTRUCTED_STYLES:
        return "constructed"
    return "unknown"


def setting_of_style(style: str) -> str | None:
    return STYLE_SETTINGS.get(style.strip().lower())


def file_kind(kinds: set[str]) -> str:
    """One word for a whole file: its only kind, or `mixed`."""
    return next(iter(kinds)) if len(kinds) == 1 else "mixed" if kinds else "unknown"
