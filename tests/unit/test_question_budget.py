"""The question budget: the paper's hop shares, leftovers passed on, endpoint pairs in turn."""

from __future__ import annotations

from construction.pipeline.question_budget import hop_quotas, round_robin, select


def view(uid: str, keys: list[str], hops: int) -> dict:
    return {"uid": uid, "concept_keys": keys, "targets": [{"hops": hops}]}


def test_quotas_follow_the_paper_and_pass_on_what_a_hop_lacks():
    # Plenty everywhere: the paper's shares (217 / 325 / 119 of 661) of 333.
    assert hop_quotas({1: 500, 2: 500, 3: 500}, 333) == {1: 109, 2: 164, 3: 60}
    # Few 1-hop perspectives: all of them, the rest shared by 2 and 3 hops in proportion.
    q = hop_quotas({1: 43, 2: 395, 3: 1540}, 333)
    assert q[1] == 43 and sum(q.values()) == 333
    assert abs(q[2] / q[3] - 325 / 119) < 0.1
    # Less than the budget: everything.
    assert hop_quotas({1: 2, 2: 4, 3: 6}, 333) == {1: 2, 2: 4, 3: 6}
    # A hop with nothing gets nothing and passes its share on.
    assert hop_quotas({1: 0, 2: 10, 3: 100}, 20)[1] == 0
    assert sum(hop_quotas({1: 0, 2: 10, 3: 100}, 20).values()) == 20


def test_round_robin_asks_every_endpoint_pair_once_before_any_twice():
    views = [view(f"ab{i}", ["a", "x", "b"], 2) for i in range(5)]
    views += [view("cd0", ["c", "y", "d"], 2), view("ef0", ["e", "z", "f"], 2)]
    picked = [v["uid"] for v in round_robin(views, 4)]
    assert picked == ["ab0", "cd0", "ef0", "ab1"]


def test_select_is_deterministic_and_keeps_the_order_given():
    views = [view(f"h{h}-{i}", [f"s{i % 7}", f"t{i % 5}"], h) for h in (1, 2, 3) for i in range(60)]
    chosen = select(views, 50)
    assert len(chosen) == 50
    assert [v["uid"] for v in chosen] == [v["uid"] for v in select(list(views), 50)]
    order = [v["uid"] for v in views]
    assert [order.index(v["uid"]) for v in chosen] == sorted(order.index(v["uid"]) for v in chosen)
    per_hop = {h: sum(1 for v in chosen if v["targets"][0]["hops"] == h) for h in (1, 2, 3)}
    assert per_hop == {1: 16, 2: 25, 3: 9}
    assert select(views, None) == views and select(views, 0) == views
