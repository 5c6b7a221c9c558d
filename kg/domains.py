"""Domains are never overwritten by surprise: each knows where its content came from
(imported, built, or both), and a build that would replace what a domain holds is refused
with the choices named, unless the caller chose one."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from kg.errors import InputError
from kg.store import Store, StoreError


class Origin(StrEnum):
    """Where a domain's questions came from: a published file, or `kg build` (a draft)."""

    imported = "imported"
    built = "built"


class DomainInfo(BaseModel):
    name: str
    exists: bool = False
    imported: bool = False
    built: bool = False
    questions: int = 0
    imported_questions: int = 0
    chunk_uids: list[str] = Field(default_factory=list)
    concepts: int = 0
    runs: list[str] = Field(default_factory=list)
    last_build: dict[str, Any] | None = None
    generation: int = 0  # the build generation later builds write into (`--extend`)
    import_sources: list[str] = Field(default_factory=list)  # "FILE sha256:HEX" per import

    @property
    def origin(self) -> str:
        if self.imported and self.built:
            return "both"
        return "imported" if self.imported else "built" if self.built else "empty"

    def has_origin(self, origin: Origin) -> bool:
        return self.imported if origin is Origin.imported else self.built

    @property
    def source(self) -> str:
        """Where the content came from, for a person: the imported files with their sha256,
        the last build's run and product version."""
        parts = list(self.import_sources)
        if not parts and self.imported:
            parts.append("import (file not recorded)")
        if self.last_build:
            b = self.last_build
            gen = f", generation {b['generation']}" if b.get("generation") else ""
            parts.append(f"build {b['uid']} (kg {b.get('version') or '?'}{gen})")
        elif self.built:
            parts.append("build (run not recorded)")
        return "; ".join(parts)


class DomainConflict(StoreError):
    """A build would replace or change what a domain already holds."""


def info(store: Store, names: Iterable[str]) -> list[DomainInfo]:
    return [DomainInfo(**r) for r in store.query("core/domain_info", names=list(names))]


def one(store: Store, name: str) -> DomainInfo:
    return info(store, [name])[0]


def all_domains(store: Store) -> list[DomainInfo]:
    return info(store, [r["name"] for r in store.query("core/domain_names")])


def mark(
    store: Store,
    names: Iterable[str],
    *,
    imported: bool = False,
    built: bool = False,
    sources: list[str] | None = None,
) -> None:
    store.query(
        "core/domain_mark",
        names=sorted(set(names)),
        imported=imported,
        built=built,
        sources=sources,
    )


class UnknownDomain(InputError, LookupError):
    """A domain name the graph does not know; the message names the known ones."""


def unknown(names: Iterable[str], known: Iterable[str]) -> UnknownDomain:
    names, known = sorted(set(names)), sorted(set(known))
    return UnknownDomain(
        f"unknown domain(s) {', '.join(repr(n) for n in names)}: the graph holds "
        f"{', '.join(known) or 'no domain yet'}"
    )


def select(
    store: Store, names: Iterable[str] | None = None, origin: Origin | None = None
) -> list[DomainInfo]:
    """The one selection of domains every command uses (`--domain`, `--origin`): the named
    domains (all when none is named) that have the origin (any when None). A name the graph
    does not know is an `UnknownDomain` error naming the known ones."""
    every = all_domains(store)
    wanted = list(dict.fromkeys(names or []))
    if wanted:
        by_name = {d.name: d for d in every}
        missing = [n for n in wanted if n not in by_name or not by_name[n].exists]
        if missing:
            raise unknown(missing, [d.name for d in every if d.exists])
        chosen = [by_name[n] for n in wanted]
    else:
        chosen = [d for d in every if d.exists]
    if origin is not None:
        chosen = [d for d in chosen if d.has_origin(origin)]
    return chosen


def default_eval_origin(store: Store) -> Origin | None:
    """What `kg eval run` evaluates when no domain and no origin is named: the imported
    (published) domains when the graph holds one, so drafts built beside them are never
    evaluated by surprise; every domain in a graph of drafts only."""
    return Origin.imported if any(d.imported for d in all_domains(store)) else None


def delete(store: Store, name: str, *, keep_domain: bool = False) -> dict[str, int]:
    """Delete one domain and everything in it; runs that referenced it are kept and marked
    (`Run.deleted_domains`). `keep_domain` keeps the Domain node (for --replace)."""
    row = store.query("core/domain_delete", domain=name, keep_domain=keep_domain)
    return row[0] if row else {"runs_marked": 0, "nodes_deleted": 0}


def check_build(
    store: Store,
    name: str,
    chunk_uids: list[str],
    *,
    replace: bool,
    yes: bool,
    extend: bool = False,
) -> DomainInfo:
    """Refuse a build that would replace imported questions or change an existing build's
    chunks, naming the choices. `replace` (with `yes`) and `extend` are the caller's explicit
    choices."""
    d = one(store, name)
    if replace and extend:
        raise DomainConflict("choose one of --extend (keeps the questions) and --replace")
    if replace:
        if not yes:
            raise DomainConflict(
                f"--replace deletes domain {name!r}: {d.questions} question(s), referenced by "
                f"{len(d.runs)} run(s); add --yes to confirm"
            )
        return d
    new = sorted(set(chunk_uids) - set(d.chunk_uids))
    if extend:
        return d  # new chunks start a new build generation beside the kept questions
    if d.imported:
        why = (
            f"domain {name!r} holds {d.imported_questions} imported question(s) "
            f"(referenced by {len(d.runs)} run(s)); a build would replace them"
        )
    elif d.built and d.chunk_uids and new:
        why = (
            f"domain {name!r} was built from {len(d.chunk_uids)} chunk(s); these chunks "
            f"add {len(new)} new one(s), which would rebuild and renumber its "
            f"{d.questions} question(s) (referenced by {len(d.runs)} run(s))"
        )
    else:
        return d  # a new domain, or a rerun/resume of the same build
    raise DomainConflict(
        f"{why}. Choose: a new domain name (`kg build NEW_NAME ...`), `--extend` (adds new "
        "questions with new ids; the existing questions, their ids and the runs that "
        "reference them stay as they are), or `--replace --yes` (deletes the domain's "
        "questions; the runs that referenced them are kept and marked)"
    )
