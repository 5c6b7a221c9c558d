"""How well the offline judges agree with gold labels, and how fast the default one is.

    KG_BOLT_PORT=... python benchmarks/judge_validity.py [--gold FILE ...] [--sample FILE]
                                                         [--folds 5] [--answers 1000]

Every part below runs once per gold split: by default both development splits,
../shared/data/judge-gold/dev.jsonl (constructed answers: written to state chosen paths) and
natural-dev.jsonl (answers in the voices of real assistants, majority of three annotators), each
split's figures printed with its kind and the issue's target for that kind (kappa >= 0.6 on
constructed answers, >= 0.5 on natural ones), then the default judge's kappa per answer style.

0. Sanity floors on the shared sample (no gold needed): the offline `target-only` responder
   (each answer made of its target paths' stored reasons) must score PAS >= 90 with the default
   judge, and `cover-all` (every valid path's reasons) recall >= 90.
1. The gold split (its questions from
   ../shared/data/perspectivebench/sample.jsonl are imported first, idempotently) judged by the
   edge-evidence judge and by the embedding baseline, each with its thresholds chosen by
   leave-questions-out cross-validation (k folds by question): pooled held-out kappa,
   agreement and per-answer PAS error, the setting each fold chose, and the setting the whole
   split chooses (the shipped default).
   The edge-evidence judge twice: with its relation reader (fitted once on the graph's edge
   reasons, never on gold labels; grid: its threshold with the judge's own settings, and its
   threshold alone) and with its cue rules only.
1b. One reader threshold for both splits, cross-validated by question over both at once: how
   the shipped default (0.7) was chosen.
2. The same judges at their shipped defaults (no tuning at all), for reference, with the count
   of edges the reader read and of those it abstained on.
3. Time to judge N answers offline with the default judge: the path checklist alone (N, default
   1,000; with the reader and with the cue rules only; the reader's one-time fit is printed when
   it is fitted), and the full judgement (plus claims and relevancy through the embedding model,
   on --full-answers of them). The answers are the gold answers cycled, as written. Every answer
   sentence goes through the encoder (an embedder without the disk cache: real answers are new
   text), while the questions and facts are encoded once and then reused, as a run's disk cache
   does. (Earlier versions made each sentence unique with a prefix of 13 word pieces, 39% more
   encoder work than the 34-piece sentences themselves.) Wall time, CPU time of this process
   (what one idle core would take at one thread) and the load are printed side by side.

Needs a running Neo4j (the questions are read from the graph, as `kg judge validate` does).
Figures depend on machine load: the script prints the CPU count and load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))

from construction.perspectivebench.importer import import_perspectivebench  # noqa: E402
from evaluation.judges import EdgeEvidenceJudge, EmbeddingJudge  # noqa: E402
from evaluation.judges.calibration import cross_validate, folds_by_question  # noqa: E402
from evaluation.judges.gold import load_gold  # noqa: E402
from evaluation.judges.relation_reader import RelationReader  # noqa: E402
from evaluation.judges.validation import decide, group_stats, summarize  # noqa: E402
from evaluation.reporting import CI  # noqa: E402
from evaluation.runs.questions import load_questions  # noqa: E402
from kg.embeddings import Embedder  # noqa: E402
from kg.store import Store  # noqa: E402

EDGE_GRID = [
    {"concept_threshold": c, "undirected_credit": u, "window": w}
    for c in (1.0, 1.5, 2.0, 3.0, 4.0)
    for u in (0.0, 1.0)
    for w in (1, 2)
]
# With the relation reader: its threshold (1.1 = never finds an edge) beside the judge's own
READER_GRID = [
    {"concept_threshold": c, "undirected_credit": 1.0, "window": w, "reader_threshold": r}
    for c in (1.5, 2.0, 3.0)
    for w in (1, 2)
    for r in (0.6, 0.65, 0.7, 0.75, 0.8, 1.1)
]
# Only the reader's threshold, the judge's own settings at their defaults (chosen on `dev`)
READER_THRESHOLD_GRID = [{"reader_threshold": r} for r in (0.6, 0.65, 0.7, 0.75, 0.8, 1.1)]
READER: RelationReader | None = None  # fitted once on the graph's reasons (main)


def default_judge() -> EdgeEvidenceJudge:
    """The default offline judge as `kg eval run` and `kg judge validate` configure it."""
    return EdgeEvidenceJudge(faithfulness=False, reader=READER)


def default_judge_at(reader_threshold: float) -> EdgeEvidenceJudge:
    return EdgeEvidenceJudge(faithfulness=False, reader=READER, reader_threshold=reader_threshold)


EMBEDDING_GRID = [{"path_threshold": t / 100} for t in range(40, 95, 5)]


def line(label: str, kappa: float, agreement: float, mae: float) -> str:
    return f"  {label:<44} kappa {kappa:5.3f}  agreement {agreement:5.1f}%  PAS MAE {mae:5.1f}"


def ci(c: CI) -> str:
    return f"[{c.low:.2f}, {c.high:.2f}]" if c.low is not None else "[undefined]"


NATURAL_STYLES = {"base", "oracle", "negative", "midmodel"}


def gold_kind(items: list) -> str:
    """natural (answers like real assistants write) or constructed, from the styles in it."""
    styles = {g.style for g in items}
    return "natural" if styles and styles <= NATURAL_STYLES else "constructed"


def floors(questions: list) -> None:
    """Part 0: the offline baselines judged by the default judge (answers need no model)."""
    import asyncio

    from evaluation.scoring.question_scores.metrics import path_scores

    from evaluation.responders.responder import OfflineResponder

    judge = default_judge()
    print("\n0. sanity floors on the shared sample (default judge, offline responders)")
    for kind, metric, label in (("target-only", "pas", "PAS"), ("cover-all", "recall", "recall")):
        responder = OfflineResponder(kind)
        scores = []
        for q in questions:
            text = asyncio.run(responder.answer(q, q.evidence)).text
            present = {v.path_uid for v in judge.path_verdicts(q, text) if v.present}
            scores.append(path_scores(q.target_uids, present))
        value = 100 * float(np.mean([getattr(s, metric) for s in scores]))
        print(
            f"  {kind:<12} {label} {value:5.1f} over {len(scores)} questions "
            f"(PAS {100 * float(np.mean([s.pas for s in scores])):.1f}, recall "
            f"{100 * float(np.mean([s.recall for s in scores])):.1f}); target >= 90: "
            f"{'met' if value >= 90 else 'NOT met'}"
        )


def by_style(args: argparse.Namespace, items: list) -> None:
    judge = default_judge()
    ds, _ = decide(judge, items)
    v = summarize(judge.name, ds, args.gold[0], "-")
    print("\n   default judge by answer style:")
    for g in v.by_style:
        print(
            f"     {g.group:<22} {g.answers:3d} answers  kappa {g.kappa.mean or 0.0:5.2f} "
            f"{ci(g.kappa)}  found present {g.judge_present} / gold {g.gold_present}"
        )


def agreement(args: argparse.Namespace, items: list) -> None:
    """Parts 1 and 2: cross-validated and in-sample agreement of both offline judges."""
    target = 0.5 if gold_kind(items) == "natural" else 0.6
    print(
        f"\n1. cross-validated by question ({args.folds} folds; thresholds chosen on the "
        "training folds only)"
    )
    for name, grid, make in (
        (
            "edge-evidence + relation reader (default)",
            READER_GRID,  # the reader's threshold and the judge's own settings together
            lambda **kw: EdgeEvidenceJudge(**kw, faithfulness=False, reader=READER),
        ),
        (
            "  the same, reader threshold only",
            READER_THRESHOLD_GRID,
            lambda **kw: EdgeEvidenceJudge(**kw, faithfulness=False, reader=READER),
        ),
        (
            "edge-evidence, cue rules only",
            EDGE_GRID,
            lambda **kw: EdgeEvidenceJudge(**kw, faithfulness=False),
        ),
        ("embedding (baseline)", EMBEDDING_GRID, lambda **kw: EmbeddingJudge(**kw)),
    ):
        t0 = time.perf_counter()
        cv = cross_validate(items, grid, make, k=args.folds)
        held = group_stats("cv", cv.decisions)  # bootstrap CIs over the held-out answers
        print(
            line(name, cv.kappa, cv.agreement, cv.pas_mae) + f"  ({time.perf_counter() - t0:.1f} s)"
        )
        print(
            f"      95% CIs (bootstrap over answers): kappa {ci(held.kappa)}, "
            f"PAS MAE {ci(held.pas_mae)} points; targets kappa >= {target}: "
            f"{'met' if cv.kappa >= target else 'NOT met'}, PAS MAE <= 12: "
            f"{'met' if cv.pas_mae <= 12 else 'NOT met'}"
        )
        for f in cv.folds:
            print(
                f"      fold {f.fold}: {len(f.questions)} question(s) held out, chose "
                f"{f.setting} (train kappa {f.train_kappa:.3f})"
            )
        print(f"      whole split chooses {cv.chosen_on_all}")

    print("\n2. shipped defaults, no tuning (in-sample: the defaults were chosen on this split)")
    for judge in (default_judge(), EdgeEvidenceJudge(faithfulness=False), EmbeddingJudge()):
        ds, _ = decide(judge, items)
        o = summarize(judge.name, ds, args.gold[0], "-").overall
        print(
            line(judge.name, o.kappa.mean or 0.0, o.agreement.mean or 0.0, o.pas_mae.mean or 0.0)
            + f"  kappa CI {ci(o.kappa)}, PAS MAE CI {ci(o.pas_mae)}"
        )
        if isinstance(judge, EdgeEvidenceJudge) and judge.reader is not None:
            print(
                f"      relation reader: read {judge.reader_reads} edges the cue rules missed, "
                f"abstained on {judge.reader_abstentions} (class or words never seen in training)"
            )


def _kappa(ds: list) -> float:
    from sklearn.metrics import cohen_kappa_score

    judged = [d.judge[p] for d in ds for p in d.gold]
    gold = [d.gold[p] for d in ds for p in d.gold]
    return float(cohen_kappa_score(gold, judged))


def pooled(splits: list[tuple[Path, list]], k: int) -> None:
    """The shipped reader threshold: one value for both kinds of answers, chosen per fold on
    the mean of the two splits' training kappas (each split's folds by question), every fold's
    held-out answers judged with its fold's choice."""
    print(
        f"\n1b. one reader threshold for both splits, cross-validated by question ({k} folds "
        "of each split; chosen on the mean of the two training kappas)"
    )
    grid = [g["reader_threshold"] for g in READER_THRESHOLD_GRID]
    decisions = {
        t: [{d.answer_id: d for d in decide(default_judge_at(t), items)[0]} for _, items in splits]
        for t in grid
    }
    folds = [folds_by_question(items, k) for _, items in splits]
    held: list[list] = [[] for _ in splits]
    for f in range(k):
        parts = []
        for (_, items), fs in zip(splits, folds, strict=True):
            test = set(fs[f])
            parts.append(
                (
                    [g.answer_id for g in items if g.question.uid not in test],
                    [g.answer_id for g in items if g.question.uid in test],
                )
            )

        def train_score(t: float, parts: list = parts) -> float:
            return float(
                np.mean(
                    [_kappa([decisions[t][i][a] for a in tr]) for i, (tr, _) in enumerate(parts)]
                )
            )

        best = max(grid, key=train_score)
        print(f"      fold {f}: chose reader_threshold {best:g}")
        for i, (_, te) in enumerate(parts):
            held[i] += [decisions[best][i][a] for a in te]
    for (path, _), ds in zip(splits, held, strict=True):
        print(f"  {path.name:<20} held-out kappa {_kappa(ds):5.3f} ({len(ds)} answers)")


class _ColdAnswers(Embedder):
    """The default model without the disk cache, except for the `kept` texts (questions and
    facts), which are encoded once and then reused, as a run's disk cache reuses them; every
    other text (the answers' sentences) is encoded each time it is asked for."""

    def __init__(self, kept: set[str]) -> None:
        super().__init__(cache_path=None)
        self._kept = kept
        self._memo: dict[str, np.ndarray] = {}
        self.encoded_texts = 0
        self.encoded_pieces = 0

    def encode(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if todo:
            vecs = super().encode(todo, show_progress)
            self.encoded_texts += len(todo)
            self.encoded_pieces += sum(len(ids) for ids in self.model.tokenizer(todo)["input_ids"])
            self._memo.update({t: v for t, v in zip(todo, vecs, strict=True) if t in self._kept})
            fresh = dict(zip(todo, vecs, strict=True))
        else:
            fresh = {}
        return np.stack([self._memo[t] if t in self._memo else fresh[t] for t in texts])


@contextmanager
def _embedder(emb: Embedder) -> Iterator[None]:
    """The judges reach the model through `kg.embeddings.get_embedder`: point it at `emb`."""
    import kg.embeddings

    saved = kg.embeddings.get_embedder
    kg.embeddings.get_embedder = lambda model_name=None: emb  # type: ignore[assignment]
    try:
        yield
    finally:
        kg.embeddings.get_embedder = saved


def clock(label: str, t0: float, c0: float, n: int) -> str:
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return (
        f"  {label}: wall {wall:6.1f} s, CPU {cpu:6.1f} s, {n} answers "
        f"(per 1,000: wall ~{1000 * wall / max(n, 1):.0f} s, CPU ~{1000 * cpu / max(n, 1):.0f} s; "
        f"target <= 60 s per 1,000: {'met' if 1000 * wall / max(n, 1) <= 60 else 'NOT met'}; "
        f"load average {os.getloadavg()[0]:.1f})"
    )


def time_full(args: argparse.Namespace, work: list) -> None:
    # The full judgement as `kg eval run|judge` does it: answers judged in batches of the run's
    # batch size (50), each batch's sentences, questions and facts in one encoder call.
    full = EdgeEvidenceJudge(reader=READER)
    some = [(q, text, [*q.evidence]) for q, text in work[: args.full_answers]]
    kept = {q.text for q, _, _ in some} | {f.text for _, _, gt in some for f in gt}
    emb = _ColdAnswers(kept)
    # The model is loaded (and run once) before the clock starts: a run loads it once, whatever
    # the number of answers.
    t_load = time.perf_counter()
    emb.encode([f"warm-up {uuid.uuid4()}: the model runs before the clock starts"])
    emb.encoded_texts = emb.encoded_pieces = 0
    print(
        f"  embedding model loaded and run once in {time.perf_counter() - t_load:.1f} s (not timed)"
    )
    threads = os.environ.get("KG_EMBEDDING_THREADS") or "default"
    with _embedder(emb):
        t0, c0 = time.perf_counter(), time.process_time()
        for start in range(0, len(some), args.batch):
            full.judge_batch(some[start : start + args.batch])
        print(
            clock(
                f"full (+ claims, relevancy through the embedding model), batches of "
                f"{args.batch}, KG_EMBEDDING_THREADS={threads}",
                t0,
                c0,
                len(some),
            )
        )
    print(
        f"      encoded {emb.encoded_texts} texts, {emb.encoded_pieces} word pieces "
        f"({emb.encoded_pieces / max(emb.encoded_texts, 1):.1f} per text)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--gold",
        type=Path,
        action="append",
        help="a gold split (repeatable; default: dev.jsonl and natural-dev.jsonl)",
    )
    ap.add_argument("--sample", type=Path, default=SHARED / "perspectivebench" / "sample.jsonl")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--answers", type=int, default=1000)
    ap.add_argument(
        "--full-answers",
        type=int,
        default=200,
        help="answers for the full-judgement timing (embeddings are the cost)",
    )
    ap.add_argument("--batch", type=int, default=50, help="answers per judge batch (run default)")
    ap.add_argument("--timing-only", action="store_true", help="skip the agreement parts (1 and 2)")
    args = ap.parse_args()
    args.gold = args.gold or [
        SHARED / "judge-gold" / "dev.jsonl",
        SHARED / "judge-gold" / "natural-dev.jsonl",
    ]
    print(
        f"machine: {os.cpu_count()} CPU(s), load average {os.getloadavg()[0]:.1f} "
        "(shared with other jobs)"
    )
    with Store() as store:
        store.ensure_schema()
        import_perspectivebench(store, [args.sample], skip_invalid=True)
        questions, _ = load_questions(store, skip_invalid=True)
        splits = [(path, load_gold(path, questions)) for path in args.gold]
    global READER
    t_fit = time.perf_counter()
    READER = RelationReader().fit(questions)  # the graph's reasons, as `learn` does
    print(
        f"relation reader fitted on the graph's edge reasons in "
        f"{time.perf_counter() - t_fit:.1f} s (once per run): {READER.stats.examples} masked "
        f"spans, {len(READER.classes)} relation classes (the gold labels are not used)"
    )
    rows = [json.loads(line) for line in args.sample.open(encoding="utf-8") if line.strip()]
    in_sample = {(r["domain"], r["id"]) for r in rows}
    if not args.timing_only:
        floors([q for q in questions if (q.domain, q.id) in in_sample])
    for path, split in splits:
        n_paths = sum(len(g.present) for g in split)
        kind = gold_kind(split)
        print(
            f"\n== gold: {path.name} ({kind} answers; target kappa >= "
            f"{0.5 if kind == 'natural' else 0.6}): {len(split)} answers, "
            f"{len({g.question.uid for g in split})} questions, {n_paths} path decisions"
        )
        if not args.timing_only:
            one = argparse.Namespace(**{**vars(args), "gold": [path]})
            agreement(one, split)
            by_style(one, split)
    if not args.timing_only and len(splits) > 1:
        pooled(splits, args.folds)
    items = splits[0][1]

    print(f"\n3. judging {args.answers} answers offline with the default judge")
    work = [
        (items[i % len(items)].question, items[i % len(items)].answer) for i in range(args.answers)
    ]
    for label, judge in (
        ("path checklist only", default_judge()),
        ("path checklist, cue rules only (no reader)", EdgeEvidenceJudge(faithfulness=False)),
    ):
        t0, c0 = time.perf_counter(), time.process_time()
        for q, text in work:
            judge.judge_sync(q, text, [])
        print(clock(label, t0, c0, len(work)))
    if args.full_answers > 0:
        time_full(args, work)
    print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
