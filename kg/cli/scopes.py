"""The domain selection every command that reads questions shares: `--domain` (repeatable) and
`--origin imported|built`, declared once here so `eval`, `judge`, `stats` and `validate` accept
the same words and resolve them the same way (`kg.domains.select`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from kg.domains import Origin

if TYPE_CHECKING:
    from kg.store import Store

# Annotated-style options (`domains: Annotated[list[str] | None, DOMAINS] = None`); the
# `Scope` option group of kg.cli.options is made of them. Typer copies them per use.
DOMAINS: Any = typer.Option(
    "--domain", "-d", help="only this domain (repeatable); unknown names are an error"
)
ORIGIN: Any = typer.Option(
    "--origin",
    help="only domains imported from a published file (imported) or drafted by `kg build` "
    "(built); `kg domain list` shows each domain's origin",
)


def selected(store: Store, domains: list[str] | None, origin: Origin | None) -> list[str] | None:
    """The domain names to restrict to, or None for every domain (nothing was named). An
    unknown name is an `UnknownDomain` error naming the known ones; an origin that selects no
    domain is an error too (a run over nothing is a mistake, not an empty result)."""
    from kg import domains as kg_domains

    if not domains and origin is None:
        return None
    chosen = kg_domains.select(store, domains, origin)
    if not chosen:
        known = ", ".join(f"{d.name} ({d.origin})" for d in kg_domains.all_domains(store))
        raise kg_domains.UnknownDomain(
            f"no {origin.value if origin else ''} domain among "
            f"{', '.join(domains or []) or 'the domains'}: the graph holds {known or 'none'}"
        )
    return [d.name for d in chosen]
