"""The one place judges are made. Each judge registers under a name with the options model it
takes; the runner (`kg eval run|judge`), `kg judge validate` and the run spec's name check all
ask this registry, so adding a judge is one decorated factory (docs/extending.md).

A name the registry does not hold, given to `--judge`, is a judge model on an
OpenAI-compatible endpoint: it is made by the `llm` entry, the one that needs a client.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from evaluation.judges.base import Judge

if TYPE_CHECKING:
    from kg.llm import LLMClient

DEFAULT_JUDGE = "edge-evidence"
LLM_JUDGE = "llm"  # the entry that makes a judge of a model (`--judge MODEL`)


def _refused(message: str) -> Exception:
    # imported here: evaluation.runs imports the judges package (no cycle at import time)
    from evaluation.runs.questions import EvalInputError

    return EvalInputError(message)


class JudgeOptions(BaseModel):
    """A judge's settings; each judge reads the fields its model declares (others ignored,
    so one settings map serves every judge)."""

    model_config = ConfigDict(extra="ignore", frozen=True)


Opts = TypeVar("Opts", bound=JudgeOptions)
Factory = Callable[[Opts, "LLMClient | None"], Judge]


@dataclass(frozen=True)
class JudgeEntry:
    name: str
    options: type[JudgeOptions]
    factory: Callable[[Any, LLMClient | None], Judge]
    needs_llm: bool = False  # made for a model on an endpoint (a client must be given)

    def make(self, settings: Mapping[str, Any], client: LLMClient | None = None) -> Judge:
        """The judge with `settings` read through this entry's options model."""
        if self.needs_llm and client is None:
            raise _refused("an LLM judge needs --judge-model")
        return self.factory(self.options.model_validate(dict(settings)), client)


_ENTRIES: dict[str, JudgeEntry] = {}


def register(
    name: str, options: type[Opts], *, needs_llm: bool = False
) -> Callable[[Factory[Opts]], Factory[Opts]]:
    """Register the decorated factory `(options, client) -> Judge` under `name`."""

    def add(factory: Factory[Opts]) -> Factory[Opts]:
        _ENTRIES[name] = JudgeEntry(name, options, factory, needs_llm)
        return factory

    return add


def unregister(name: str) -> None:
    """Drop a registered judge (a test's toy judge)."""
    _ENTRIES.pop(name, None)


def names() -> list[str]:
    return list(_ENTRIES)


def offline_names() -> list[str]:
    """Judges that need no model endpoint (the names `--judge` takes as they are)."""
    return [n for n, e in _ENTRIES.items() if not e.needs_llm]


def is_offline(name: str) -> bool:
    return name in offline_names()


def spec_name(judge: str) -> str:
    """The registry name of `--judge VALUE`: an offline judge's own name, else `llm` (the
    value names a judge model)."""
    return judge if is_offline(judge) else LLM_JUDGE


def entry(name: str) -> JudgeEntry:
    """The entry of a registry name (`edge-evidence`, `embedding`, `llm`, ...)."""
    found = _ENTRIES.get(name)
    if found is None:
        raise _refused(f"unknown judge {name!r}: {', '.join(_ENTRIES)}")
    return found


def entry_for(judge: str) -> JudgeEntry:
    """The entry `--judge VALUE` selects: an offline judge by name, else the LLM judge for
    model VALUE. A value spelled as an offline judge's (`offline:...`, `baseline:...`) that is
    not registered is refused rather than sent to an endpoint as a model name."""
    if judge.startswith(("offline:", "baseline:")) and not is_offline(judge):
        raise _refused(f"unknown offline judge {judge!r}: {', '.join(offline_names())}")
    return entry(spec_name(judge))


def make(name: str, settings: Mapping[str, Any], client: LLMClient | None = None) -> Judge:
    """The judge registered as `name`, with its options read from `settings`."""
    return entry(name).make(settings, client)


# --- the built-in judges ------------------------------------------------------------------


class EdgeEvidenceOptions(JudgeOptions):
    claim_threshold: float | None = None  # faithfulness: claim support threshold
    faithfulness: bool = True


class EmbeddingOptions(JudgeOptions):
    path_threshold: float = 0.8
    claim_threshold: float = 0.7


class LLMJudgeOptions(JudgeOptions):
    relevancy_n: int = 3
    seed: int = 0
    faithfulness: bool = True
    votes: int = Field(default=1, ge=1)
    granularity: Literal["answer", "path"] = "answer"


@register("edge-evidence", EdgeEvidenceOptions)
def _edge_evidence(opts: EdgeEvidenceOptions, client: LLMClient | None) -> Judge:
    from evaluation.judges.edge_evidence import EdgeEvidenceJudge

    return EdgeEvidenceJudge(faithfulness=opts.faithfulness, claim_threshold=opts.claim_threshold)


@register("embedding", EmbeddingOptions)
def _embedding(opts: EmbeddingOptions, client: LLMClient | None) -> Judge:
    from evaluation.judges.embedding import EmbeddingJudge

    return EmbeddingJudge(opts.path_threshold, opts.claim_threshold)


@register(LLM_JUDGE, LLMJudgeOptions, needs_llm=True)
def _llm(opts: LLMJudgeOptions, client: LLMClient | None) -> Judge:
    from evaluation.judges.llm import LLMJudge

    assert client is not None  # JudgeEntry.make checks it
    return LLMJudge(
        client,
        relevancy_n=opts.relevancy_n,
        seed=opts.seed,
        faithfulness=opts.faithfulness,
        votes=opts.votes,
        granularity=opts.granularity,
    )
