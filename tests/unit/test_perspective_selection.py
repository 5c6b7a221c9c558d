"""The perspective selection rule (kg.queries.perspectives.select) on in-memory candidates."""

from __future__ import annotations

from itertools import product

from kg.queries.models import GraphPath, Perspective
from kg.queries.perspectives import jaccard, select


def _candidates(keys: list[str], per_hop: list[list[str]]) -> list[Perspective]:
    """Every (hop, label) candidate of the product group `per_hop` over `keys`."""
    paths = [
        GraphPath(
            keys=keys, labels=list(ls), reasons=[None] * len(ls), edge_uids=[], uid="|".join(ls)
        )
        for ls in product(*per_hop)
    ]
    out = []
    for hop, labels in enumerate(per_hop):
        if len(labels) < 2:
            continue
        for label in labels:
            out.append(
                Perspective(
                    concept_keys=keys,
                    hop=hop + 1,
                    focus=label,
                    foci_at_hop=len(labels),
                    group_size=len(paths),
                    paths=[p for p in paths if p.labels[hop] == label],
                )
            )
    return out


def _asked(chosen: list[Perspective]) -> set[tuple[int, str]]:
    return {(p.hop, p.focus) for p in chosen}


def test_one_hop_every_relation_is_asked():
    found = _candidates(["a", "b"], [["CAUSES", "PRECEDES", "IS_A_TYPE_OF"]])
    assert _asked(select(found)) == {(1, "CAUSES"), (1, "PRECEDES"), (1, "IS_A_TYPE_OF")}
    assert all(p.selected for p in found)


def test_two_hops_one_position_the_one_with_fewer_relations():
    found = _candidates(["a", "m", "b"], [["X", "Y", "Z"], ["U", "V"]])
    assert _asked(select(found)) == {(2, "U"), (2, "V")}
    assert sum(p.selected for p in found) == 2


def test_three_hops_two_positions_ties_go_to_the_earlier_hop():
    found = _candidates(["a", "m", "n", "b"], [["X", "Y"], ["P", "Q", "R"], ["U", "V"]])
    assert _asked(select(found)) == {(1, "X"), (1, "Y"), (3, "U"), (3, "V")}


def test_a_hop_where_every_path_agrees_gives_no_candidate():
    found = _candidates(["a", "m", "n", "b"], [["X"], ["P", "Q"], ["U", "V", "W"]])
    assert {p.hop for p in found} == {2, 3}
    assert _asked(select(found)) == {(2, "P"), (2, "Q"), (3, "U"), (3, "V"), (3, "W")}


def test_near_duplicates_are_asked_once():
    found = _candidates(["a", "b"], [["A", "B"]])
    twin = found[0].model_copy(update={"hop": 1, "focus": "A2"})  # the same paths again
    chosen = select([*found, twin])
    assert len(chosen) == 2 and not twin.selected
    assert jaccard(found[0].path_uids, twin.path_uids) == 1.0


def test_selection_is_deterministic_and_reads_no_questions():
    found = _candidates(["a", "m", "n", "b"], [["X", "Y"], ["P", "Q"], ["U", "V", "W"]])
    first = _asked(select(found))
    assert first == _asked(select(list(reversed(found))))
    assert all(not p.questions for p in found)


def test_the_grouping_query_needs_no_gds_plugin():
    from kg.cypher_files import load

    text = load("core/perspective_candidates")
    assert "gds." not in text.lower() and "$domain" in text
