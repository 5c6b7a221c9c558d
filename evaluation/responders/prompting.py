"""Answer prompts for each setting and strategy, from the templates in `prompts/eval/`."""

from __future__ import annotations

from evaluation.models import Fact, Strategy
from kg.prompt_files import load_prompt

ANSWER_PROMPTS = ["eval/answer_system", "eval/answer_user", "eval/answer_context"]
STRATEGY_PROMPTS = {
    Strategy.one_shot: "eval/strategy_one_shot",
    Strategy.negative: "eval/strategy_negative",
}
JUDGE_PROMPTS = [
    "eval/judge_paths",
    "eval/judge_faithfulness",
    "eval/judge_relevancy",
    "llm/repair",
]


def prompt_hashes(names: list[str]) -> dict[str, str]:
    """Template id -> content hash, recorded on every run."""
    return {n: load_prompt(n).hash for n in names}


def responder_prompt_names(strategy: Strategy) -> list[str]:
    extra = [STRATEGY_PROMPTS[strategy]] if strategy in STRATEGY_PROMPTS else []
    return [*ANSWER_PROMPTS, *extra]


def answer_messages(
    question: str, context: list[Fact], strategy: Strategy, preamble: str | None = None
) -> list[dict]:
    """`preamble`: a C3 context perturbation, put before everything else the user says (the
    templates stay as they are: runs without perturbations keep their prompt hashes)."""
    rules = (
        load_prompt("eval/strategy_negative").text.rstrip("\n")
        if strategy is Strategy.negative
        else ""
    )
    example = load_prompt("eval/strategy_one_shot").text if strategy is Strategy.one_shot else ""
    block = ""
    if context:
        docs = "\n".join(f"[{i + 1}] {f.text}" for i, f in enumerate(context))
        block = load_prompt("eval/answer_context").render(documents=docs)
    system = load_prompt("eval/answer_system").render(strategy_rules=rules).strip()
    user = (
        load_prompt("eval/answer_user")
        .render(example=example, context_block=block, question=question)
        .strip()
    )
    if preamble:
        user = f"{preamble.strip()}\n\n{user}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
