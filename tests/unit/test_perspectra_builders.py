"""Task builders: seeded and reproducible, gold derived from the structure, provenance kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from construction.perspectra.release_import import release_rows
from construction.perspectra.tasks.builders import build_items
from construction.perspectra.tasks.corpus import corpus_from_rows
from kg.queries.perspectra_corpus import Corpus
from kg.task_items import LETTERS, T1Config, T2Config, T3Config, TaskSetSpec

DEMO = Path(__file__).resolve().parents[2] / "demo" / "perspectra"


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return corpus_from_rows(release_rows(DEMO / "sample_release.json"))


def _lookup(corpus: Corpus):
    ops = {o.uid: (t, o) for t, o in corpus.opinions()}
    exp = {e.uid: (t, o, e) for t, o, e in corpus.expansions()}
    return ops, exp


@pytest.mark.parametrize("task", ["t1", "t2", "t3"])
def test_same_seed_same_items_other_seed_other_items(corpus: Corpus, task: str) -> None:
    a = build_items(corpus, TaskSetSpec(task=task, n=40, seed=5))
    b = build_items(corpus, TaskSetSpec(task=task, n=40, seed=5))
    c = build_items(corpus, TaskSetSpec(task=task, n=40, seed=6))
    assert [i.model_dump() for i in a] == [i.model_dump() for i in b]
    assert [i.expansion_uids for i in a] != [i.expansion_uids for i in c]
    assert len({i.uid for i in a}) == 40 and a[0].task_set != c[0].task_set
    assert [i.index for i in a] == list(range(40))


def test_t1_gold_is_number_of_distinct_opinions(corpus: Corpus) -> None:
    ops, exp = _lookup(corpus)
    spec = TaskSetSpec(task="t1", n=60, seed=1, t1=T1Config(k_min=2, k_max=4, per_opinion_max=3))
    items = build_items(corpus, spec)
    several = 0
    for i in items:
        owners = [exp[u][1].uid for u in i.expansion_uids]
        assert owners == i.expansion_opinions
        assert int(i.gold) == len(set(owners)) == len(i.opinion_uids)
        assert 2 <= int(i.gold) <= 4
        assert {exp[u][0].uid for u in i.expansion_uids} == {i.topic_uid}  # one topic
        assert i.text == "\n\n".join(exp[u][2].text for u in i.expansion_uids)
        several += len(owners) > len(set(owners))
    assert several > 0  # several expansions of one opinion do occur


def test_t2_options_gold_letter_and_both_sides(corpus: Corpus) -> None:
    ops, exp = _lookup(corpus)
    items = build_items(corpus, TaskSetSpec(task="t2", n=60, seed=2, t2=T2Config(options=4)))
    for i in items:
        assert len(i.options) == len(i.option_uids) == 4 == len(set(i.option_uids))
        gold_uid = i.option_uids[LETTERS.index(i.gold)]
        assert [gold_uid] == i.opinion_uids == [exp[i.expansion_uids[0]][1].uid]
        assert i.option_stances == [ops[u][1].stance for u in i.option_uids]
        assert i.gold_stance == ops[gold_uid][1].stance
        others = [s for u, s in zip(i.option_uids, i.option_stances, strict=True) if u != gold_uid]
        assert "pro" in others and "con" in others  # distractors from both sides
        assert all(ops[u][0].uid == i.topic_uid for u in i.option_uids)
    assert {i.gold for i in items} == set("ABCD")  # shuffled


def test_t2_option_count_is_configurable(corpus: Corpus) -> None:
    items = build_items(corpus, TaskSetSpec(task="t2", n=10, seed=2, t2=T2Config(options=3)))
    assert {len(i.options) for i in items} == {3}
    assert {i.gold for i in items} <= set("ABC")


def test_t3_gold_stance_and_one_sided_bundles(corpus: Corpus) -> None:
    ops, exp = _lookup(corpus)
    single = build_items(corpus, TaskSetSpec(task="t3", n=50, seed=3))
    assert {len(i.expansion_uids) for i in single} == {1}
    assert {i.gold for i in single} == {"pro", "con"}
    bundles = build_items(corpus, TaskSetSpec(task="t3", n=30, seed=3, t3=T3Config(bundle=3)))
    for i in bundles:
        assert len(i.expansion_uids) == 3
        assert {exp[u][1].stance for u in i.expansion_uids} == {i.gold}
        assert {exp[u][0].uid for u in i.expansion_uids} == {i.topic_uid}


def test_build_id_depends_on_config_and_corpus(corpus: Corpus) -> None:
    a = TaskSetSpec(task="t2", n=10).task_set_id(corpus.fingerprint)
    b = TaskSetSpec(task="t2", n=10, t2=T2Config(options=3)).task_set_id(corpus.fingerprint)
    c = TaskSetSpec(task="t2", n=10).task_set_id("0" * 12)
    assert len({a, b, c}) == 3 and a.startswith("t2-s13-n10-")
