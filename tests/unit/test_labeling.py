"""The labeling loop's pure parts: stratified allocation, task files (refused with
file:line:field), annotator agreement (Cohen, Fleiss), the merged gold and the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from evaluation.labeling.agreement import (
    check_consistent,
    fleiss_kappa,
    load_labels,
    measure,
    merge,
)
from evaluation.labeling.annotate import render_annotation_page
from evaluation.labeling.task import TaskFileError, TaskItem, allocate, load_task, write_task

DATA = Path(__file__).resolve().parents[1] / "data" / "judge"


def _item(aid: str, answer: str = "The pump starts.") -> TaskItem:
    return TaskItem.model_validate(
        {
            "task": "run-1",
            "answer_id": aid,
            "question_id": 1,
            "domain": "d",
            "hop": 1,
            "style": "cover-all",
            "setting": "oracle",
            "stratum": "1-hop/d/aligned",
            "question": "How does the controller act on the pump?",
            "answer": answer,
            "concepts": {"a": "the controller", "b": "the pump"},
            "paths": [
                {
                    "name": "path_0",
                    "edges": [{"source": "a", "label": "STARTS", "target": "b", "reason": "r0"}],
                },
                {
                    "name": "path_1",
                    "edges": [{"source": "a", "label": "STOPS", "target": "b", "reason": "r1"}],
                },
            ],
        }
    )


@pytest.mark.parametrize(
    ("sizes", "n", "expected"),
    [
        ({"a": 10, "b": 10}, 4, {"a": 2, "b": 2}),
        ({"a": 30, "b": 10, "c": 1}, 8, {"a": 5, "b": 2, "c": 1}),  # every stratum at least once
        ({"a": 3, "b": 1}, 10, {"a": 3, "b": 1}),  # never more than a stratum holds
        ({"a": 5, "b": 9, "c": 2}, 2, {"a": 1, "b": 1, "c": 0}),  # fewer than strata: the largest
    ],
)
def test_allocation_is_proportional_and_covers_strata(sizes, n, expected):
    got = allocate(sizes, n)
    assert got == expected and sum(got.values()) == min(n, sum(sizes.values()))


def test_task_file_round_trip_and_bad_task_refused(tmp_path):
    path = write_task([_item("x"), _item("y")], tmp_path / "task.jsonl")
    assert [i.answer_id for i in load_task(path)] == ["x", "y"]
    bad = DATA / "task_bad.jsonl"
    with pytest.raises(TaskFileError) as err:
        load_task(bad)
    problems = err.value.problems
    assert f"{bad}:2:question_id: Input should be a valid integer" in problems[0]
    assert f"{bad}:3:answer_id: duplicate of line 1" in problems
    assert f"{bad}:4:-: expected a JSON object" in problems
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(TaskFileError, match="no answers in the task file"):
        load_task(empty)


def test_edgeless_path_is_refused(tmp_path):
    row = json.loads(_item("x").model_dump_json())
    row["paths"][1]["edges"] = []
    f = tmp_path / "t.jsonl"
    f.write_text(json.dumps(row) + "\n")
    with pytest.raises(TaskFileError, match=r":1:paths\[1\].edges: a path needs at least one edge"):
        load_task(f)


def test_bad_label_file_is_refused():
    bad = DATA / "labels_bad.jsonl"
    with pytest.raises(TaskFileError) as err:
        load_labels(bad)
    p = err.value.problems
    assert p[0] == f"{bad}:1:present.path_0: label must be true or false, got 'yes'"
    assert p[1] == f"{bad}:2:answer_id: missing (a non-empty string)"
    assert p[2].startswith(f"{bad}:3:answer: missing")
    assert p[3].startswith(f"{bad}:4:-: not JSON")


def _labels(tmp_path, name: str, rows: dict[str, list[bool]]) -> Path:
    f = tmp_path / name
    f.write_text(
        "".join(
            json.dumps(
                {
                    "answer_id": aid,
                    "question_id": 1,
                    "answer": f"answer {aid}",
                    "style": "m",
                    "present": {f"path_{i}": v for i, v in enumerate(labels)},
                    "annotator": name,
                }
            )
            + "\n"
            for aid, labels in rows.items()
        )
    )
    return f


A = {"x": [True, False, True], "y": [False, False, True], "z": [True, True, False]}
B = {"x": [True, False, False], "y": [False, False, True], "z": [True, False, False]}
C = {"x": [True, True, True], "y": [False, False, True]}


def test_pairwise_cohen_and_fleiss_match_their_definitions(tmp_path):
    files = [_labels(tmp_path, n, rows) for n, rows in (("a", A), ("b", B), ("c", C))]
    labels = [load_labels(f) for f in files]
    r = measure(files, labels)
    flat = {n: [v for aid in sorted(rows) for v in rows[aid]] for n, rows in (("a", A), ("b", B))}
    ab = r.pairs[0]
    assert (ab.answers, ab.decisions) == (3, 9)
    assert ab.kappa == pytest.approx(cohen_kappa_score(flat["a"], flat["b"]))
    assert r.pairs[1].answers == 2  # a vs c: only the answers both labeled
    assert r.shared_answers == 2 and r.decisions == 6
    # Fleiss by hand: 6 items, 3 raters; present counts per item 3,1,2,0,0,3
    import numpy as np

    m = np.array([[1, 1, 1], [0, 0, 1], [1, 0, 1], [0, 0, 0], [0, 0, 0], [1, 1, 1]], dtype=bool)
    counts = m.sum(axis=1)
    p_i = (counts * (counts - 1) + (3 - counts) * (2 - counts)) / 6
    pj = counts.sum() / 18
    expected = (p_i.mean() - (pj**2 + (1 - pj) ** 2)) / (1 - (pj**2 + (1 - pj) ** 2))
    assert fleiss_kappa(m) == pytest.approx(expected)
    assert r.fleiss == pytest.approx(expected)


def test_majority_merge_needs_adjudication_for_ties(tmp_path):
    fa, fb = _labels(tmp_path, "a", A), _labels(tmp_path, "b", B)
    labels = [load_labels(fa), load_labels(fb)]
    with pytest.raises(TaskFileError) as err:
        merge(labels)
    assert "x:path_2: tie (1 present, 1 absent)" in err.value.problems[0]
    adj = tmp_path / "adj.jsonl"
    adj.write_text(
        json.dumps({"answer_id": "x", "present": {"path_2": True}})
        + "\n"
        + json.dumps({"answer_id": "z", "present": {"path_1": False}})
        + "\n"
    )
    merged = merge(labels, load_labels(adj, need_rows=False), adj)
    by = {r["answer_id"]: r for r in merged}
    assert by["x"]["present"] == {"path_0": True, "path_1": False, "path_2": True}
    assert by["z"]["present"] == {"path_0": True, "path_1": False, "path_2": False}
    assert by["x"]["annotators"] == [
        dict(zip(["path_0", "path_1", "path_2"], A["x"], strict=True)),
        dict(zip(["path_0", "path_1", "path_2"], B["x"], strict=True)),
    ]
    assert "annotator" not in by["x"]
    three = merge(  # z: labeled by two only, its tie still settled by the adjudication
        [*labels, load_labels(_labels(tmp_path, "c", C))], load_labels(adj, need_rows=False), adj
    )
    assert {r["answer_id"]: r["present"]["path_2"] for r in three} == {
        "x": True,
        "y": True,
        "z": False,
    }
    unknown = tmp_path / "adj2.jsonl"
    unknown.write_text(json.dumps({"answer_id": "nope", "present": {"path_0": True}}) + "\n")
    with pytest.raises(TaskFileError, match=r"adj2.jsonl:1:answer_id: not in the label files"):
        merge(labels, load_labels(unknown, need_rows=False), unknown)


def test_label_files_must_agree_on_the_answers(tmp_path):
    fa = _labels(tmp_path, "a", A)
    fb = _labels(tmp_path, "b", {"x": [True, False]})
    with pytest.raises(TaskFileError, match=r"b:1:present: path names"):
        check_consistent([fa, fb], [load_labels(fa), load_labels(fb)])


def test_annotation_page_is_blind_and_self_contained():
    hostile = "</script><script>alert(1)</script> the pump & the controller"
    page = render_annotation_page([_item("x", hostile)], "Label <paths>", "task.jsonl")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "</script><script>alert(1)" not in page  # data block escapes it
    assert "Label &lt;paths&gt;" in page
    assert "http://" not in page and "https://" not in page  # no network
    data = page.split('id="kg-data">', 1)[1].split("</script>", 1)[0]
    assert "verdict" not in data and '"present"' not in data  # blind: no judge verdict
