"""Option groups several commands share, each option declared once here.

A group is a pydantic model whose fields are `Annotated[T, typer.Option(...)] = default`: the
option's names, help and default live on the field. A command names the groups it takes as
parameters (`llm: LLMEndpoint = LLMEndpoint.options()`) and is wrapped by `@grouped`, which
gives typer the groups' fields as ordinary options and calls the command with one typed
instance per group. Adding an option to every command of a group is one field here
(docs/extending.md, "Adding a CLI option").

A command may change a field's default or help where its meaning differs
(`LLMEndpoint.options(concurrency=4)`, `Selection.options(limit=Change(help=...))`) or leave a
field out (`Selection.options(hop=DROP)`: the command receives the field's default).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from copy import copy
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer
from pydantic import BaseModel, ConfigDict
from typer.models import OptionInfo

from kg.cli.console import fail
from kg.cli.scopes import DOMAINS, ORIGIN, selected
from kg.domains import Origin

if TYPE_CHECKING:
    from kg.llm.config import LLMConfig, Role
    from kg.store import Store

P = ParamSpec("P")
R = TypeVar("R")
E = TypeVar("E", bound=Enum)


def choice(enum: type[E], value: str, option: str) -> E:
    """An enum option value, or an `InputError` listing the choices."""
    from kg.errors import InputError

    try:
        return enum(value)
    except ValueError:
        raise InputError(
            f"{option} {value!r}: choose one of {', '.join(str(m.value) for m in enum)}"
        ) from None


class _Keep:
    def __repr__(self) -> str:
        return "KEEP"


KEEP: Any = _Keep()
DROP: Any = object()  # `Group.options(name=DROP)`: this command has no such option


@dataclass(frozen=True)
class Change:
    """One command's own default, help or lower bound for a group's option."""

    default: Any = KEEP
    help: str | None = None
    min: int | float | None = None


@dataclass(frozen=True)
class GroupOptions:
    """A group as one command declares it: the group and the command's changes to it."""

    group: type[OptionGroup]
    changes: dict[str, Change | Any] = field(default_factory=dict)

    def fields(self) -> list[str]:
        return [n for n in self.group.model_fields if self.changes.get(n) is not DROP]

    def parameters(self) -> list[inspect.Parameter]:
        """The group's fields as typer parameters: `name: Annotated[T, Option] = default`."""
        out = []
        for name in self.fields():
            info = self.group.model_fields[name]
            option = copy(next(m for m in info.metadata if isinstance(m, OptionInfo)))
            change = self.changes.get(name, Change())
            if not isinstance(change, Change):
                change = Change(default=change)
            if change.help is not None:
                option.help = change.help
            if change.min is not None:
                option.min = change.min
            default = info.default if change.default is KEEP else change.default
            out.append(
                inspect.Parameter(
                    name,
                    inspect.Parameter.KEYWORD_ONLY,
                    default=default,
                    annotation=Annotated[info.annotation, option],
                )
            )
        return out


class OptionGroup(BaseModel):
    """Options a command receives as one typed object (see the module docstring)."""

    model_config = ConfigDict(frozen=True)

    @classmethod
    def options(cls, **changes: Change | Any) -> Any:
        """This group as a command parameter's default; `changes` per field: a new default,
        a `Change` (default, help, min) or `DROP`."""
        unknown = set(changes) - set(cls.model_fields)
        if unknown:
            raise TypeError(f"{cls.__name__} has no option(s) {', '.join(sorted(unknown))}")
        return GroupOptions(cls, changes)


def grouped(command: Callable[P, R]) -> Callable[P, R]:
    """Let typer see each `OptionGroup` parameter of `command` as the group's options, and
    call `command` with one group instance per such parameter. Put it under `@app.command`."""
    signature = inspect.signature(command)
    groups: dict[str, GroupOptions] = {}
    params: list[inspect.Parameter] = []
    for p in signature.parameters.values():
        if isinstance(p.default, GroupOptions):
            groups[p.name] = p.default
            params.extend(p.default.parameters())
        else:
            params.append(p)
    names = [p.name for p in params]
    clash = sorted({n for n in names if names.count(n) > 1})
    if clash:
        raise TypeError(f"{command.__name__}: option(s) declared twice: {', '.join(clash)}")
    # Positional-or-keyword parameters may not follow keyword-only ones; typer passes keywords.
    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params]

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        for name, spec in groups.items():
            kwargs[name] = spec.group(**{f: kwargs.pop(f) for f in spec.fields()})
        return command(*args, **kwargs)

    run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params} | {
        "return": signature.return_annotation
    }
    return run


# ---------------------------------------------------------------- the groups
FLEET_HELP = (
    "fleet file (YAML or JSON): endpoints serving the model, each with base_url and optional "
    "api_key_env, weight, max_in_flight (docs/fleet.md); instead of --base-url"
)


class LLMEndpoint(OptionGroup):
    """How a command reaches its model: endpoint, key, requests in flight, cache, timeout."""

    base_url: Annotated[
        list[str] | None,
        typer.Option(
            metavar="<url>",
            help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1; repeat it for "
            "several endpoints serving the model (a fleet)",
        ),
    ] = None
    fleet: Annotated[Path | None, typer.Option(help=FLEET_HELP, dir_okay=False)] = None
    api_key_env: Annotated[str, typer.Option(help="env var holding the API key")] = "OPENAI_API_KEY"
    concurrency: Annotated[int, typer.Option(help="model requests in flight")] = 8
    no_cache: Annotated[bool, typer.Option("--no-cache", help="do not use the response cache")] = (
        False
    )
    timeout: Annotated[float | None, typer.Option(help="seconds per request")] = None

    def config(self, model: str, role: Role, **options: Any) -> LLMConfig:
        """The model config of `model` in `role` on this endpoint (`kg.llm.llm_config`);
        `options` are the command's own settings (max_tokens, max_cost, ...)."""
        from kg.llm import llm_config

        return llm_config(
            model,
            role=role,
            base_url=self.base_url or None,
            fleet=self.fleet,
            api_key_env=self.api_key_env,
            concurrency=self.concurrency,
            no_cache=self.no_cache,
            timeout_s=self.timeout,
            **options,
        )


class Spend(OptionGroup):
    """What a run may spend on a priced endpoint."""

    max_cost: Annotated[
        float | None, typer.Option(help="stop once this many dollars are spent")
    ] = None
    prices: Annotated[
        Path | None, typer.Option(help="JSON price table {model: {input_per_mtok, ...}}")
    ] = None
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="send the model requests as provider batch jobs (OpenAI batch API: the batch "
            "price, replies within 24 h); a killed run resumes by polling the same batches "
            "(docs/batch.md)",
        ),
    ] = False


class Scope(OptionGroup):
    """Which domains a command reads: `--domain` (repeatable) and `--origin`."""

    domain: Annotated[list[str] | None, DOMAINS] = None
    origin: Annotated[Origin | None, ORIGIN] = None

    def domains(self, store: Store) -> list[str] | None:
        """The selected domain names, or None for every domain (`kg.cli.scopes.selected`)."""
        return selected(store, self.domain, self.origin)


class Selection(Scope):
    """Which questions a command takes: its domains, hops and the first N."""

    hop: Annotated[list[int] | None, typer.Option(help="only these hops (repeatable)")] = None
    limit: Annotated[int | None, typer.Option(help="the first N questions (by domain, id)")] = None

    @property
    def hops(self) -> list[int] | None:
        return self.hop or None

    def run_fields(self, domains: list[str] | None) -> dict[str, Any]:
        """The `RunSpec` fields of the selection, given its resolved `domains`."""
        return {"domains": domains, "hops": self.hops, "limit": self.limit}


FORMATS = ("csv", "json", "md")


class Output(OptionGroup):
    """Where a report's tables go and in which formats."""

    out: Annotated[
        Path | None, typer.Option(help="write the tables (CSV/JSON/Markdown) to this directory")
    ] = None
    formats: Annotated[str, typer.Option(help="comma-separated: csv, json, md")] = ",".join(FORMATS)

    def chosen(self) -> list[str]:
        """The formats asked for; an unknown one is an error naming the choices."""
        out = [f.strip() for f in self.formats.split(",") if f.strip()]
        bad = [f for f in out if f not in FORMATS]
        if bad:
            fail(f"unknown format(s) {', '.join(bad)}: {', '.join(FORMATS)}")
        return out


class Generation(OptionGroup):
    """How a responder model generates: temperature, reply length, reasoning effort."""

    temperature: Annotated[
        float | None, typer.Option(help="sampling temperature (default: the endpoint's)")
    ] = None
    max_tokens: Annotated[int | None, typer.Option(help="most tokens per reply")] = None
    reasoning_effort: Annotated[str | None, typer.Option(help="minimal, low, medium, high")] = None

    def settings(self) -> dict[str, Any]:
        """The settings given, for `LLMEndpoint.config` (unset ones keep the config's)."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


JUDGE_GRANULARITIES = ("answer", "path")


class JudgeChoice(OptionGroup):
    """Which judge decides an answer, and how an LLM judge is asked."""

    judge: Annotated[
        str,
        typer.Option(
            help="offline judge 'edge-evidence', 'embedding' (baseline) or a judge model such "
            "as openai/gpt-4o"
        ),
    ] = "edge-evidence"
    judge_base_url: Annotated[
        list[str] | None,
        typer.Option(
            metavar="<url>",
            help="endpoint of the judge (default: --base-url); repeat it for a fleet",
        ),
    ] = None
    judge_fleet: Annotated[
        Path | None,
        typer.Option(
            help="fleet file of the judge (default: --fleet, when no --judge-base-url)",
            dir_okay=False,
        ),
    ] = None
    judge_api_key_env: Annotated[
        str | None, typer.Option(help="env var with the judge key (default: --api-key-env)")
    ] = None
    judge_votes: Annotated[
        int,
        typer.Option(
            help="LLM judge: ask each checklist N times (temperature above 0, each vote with "
            "its own path order) and take the majority; ties count as absent (use an odd N); "
            "the judge's self-agreement (Fleiss' kappa) is reported"
        ),
    ] = 1
    judge_granularity: Annotated[
        str,
        typer.Option(
            help="LLM judge: 'answer' (one call judges all paths of an answer) or 'path' (one "
            "call per path, for small models)"
        ),
    ] = "answer"

    @property
    def offline(self) -> bool:
        from evaluation.judges import registry

        return registry.is_offline(self.judge)

    def check(self) -> None:
        """Votes and granularity are options of an LLM judge: refused for an offline one."""
        if self.judge_votes < 1:
            fail(f"--judge-votes: at least 1 (got {self.judge_votes})")
        if self.judge_granularity not in JUDGE_GRANULARITIES:
            fail(
                f"--judge-granularity {self.judge_granularity!r}: choose one of "
                f"{', '.join(JUDGE_GRANULARITIES)}"
            )
        if self.offline and (self.judge_votes != 1 or self.judge_granularity != "answer"):
            fail(f"--judge-votes and --judge-granularity need an LLM judge (got {self.judge!r})")

    def run_fields(self, llm: LLMEndpoint, spend: Spend) -> dict[str, Any]:
        """The `RunSpec` fields this group sets: an LLM judge is `llm`, with its model config
        (on `llm`, or on the judge's own endpoint) in `judge_llm`."""
        from evaluation.judges import registry

        return {
            "judge": registry.spec_name(self.judge),
            "judge_llm": None
            if self.offline
            else self.endpoint(llm).config(self.judge, "judge", **spend.model_dump()),
            "judge_votes": self.judge_votes,
            "judge_granularity": self.judge_granularity,
        }

    def endpoint(self, llm: LLMEndpoint) -> LLMEndpoint:
        """The judge's endpoint: its own URL and key where given, else the command's."""
        own = bool(self.judge_base_url or self.judge_fleet)  # its own endpoints, else the command's
        return llm.model_copy(
            update={
                "base_url": self.judge_base_url if own else llm.base_url,
                "fleet": self.judge_fleet if own else llm.fleet,
                "api_key_env": self.judge_api_key_env or llm.api_key_env,
            }
        )


class Scoring(OptionGroup):
    """How an answer is scored: ground truth, seed, relevancy and embedding thresholds."""

    gt: Annotated[str, typer.Option("--gt", help="faithfulness ground truth: evidence, full")] = (
        "evidence"
    )
    seed: Annotated[int, typer.Option(help="random seed of the run")] = 0
    relevancy_n: Annotated[int, typer.Option(help="questions regenerated for relevancy")] = 3
    path_threshold: Annotated[
        float, typer.Option(help="embedding judge: edge cosine threshold")
    ] = 0.8
    claim_threshold: Annotated[
        float, typer.Option(help="embedding judge: claim cosine threshold")
    ] = 0.7

    def run_fields(self) -> dict[str, Any]:
        """The `RunSpec` fields this group sets (`--gt` checked against its choices)."""
        from evaluation.models import GroundTruth

        return self.model_dump() | {"gt": choice(GroundTruth, self.gt, "--gt")}
