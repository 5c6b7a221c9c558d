"""A fleet of endpoints for one model (kg.llm.fleet) against scripted servers over real HTTP:
least-in-flight selection, a dead and a faulty endpoint (no answer lost, none counted twice),
cooldown and return, per-endpoint keys and stats, the fleet file's errors."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest
from llm_server import LLMTestServer

from kg.errors import InputError
from kg.llm import LLMClient, LLMConfig, LLMRequest, ServerUnreachable, llm_config
from kg.llm.config import RESULT_FIELDS
from kg.llm.fleet_file import Endpoint, load_fleet


def _dead_url() -> str:
    """An address where nothing listens (a port just released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _fleet(*endpoints: Endpoint | str, **overrides) -> LLMConfig:
    eps = [Endpoint(base_url=e) if isinstance(e, str) else e for e in endpoints]
    values = {
        "model": "test-model",
        "cache": False,
        "backoff_base_s": 0.01,
        "timeout_s": 10.0,
        "endpoints": eps,
        **overrides,
    }
    return LLMConfig(**values)


def _ask(client: LLMClient, n: int, tag: str = "Q") -> list:
    reqs = [LLMRequest(messages=[{"role": "user", "content": f"{tag}-{i}"}]) for i in range(n)]
    return client.run_sync(client.complete_many(reqs, return_exceptions=True))


@pytest.fixture
def two_servers():
    with LLMTestServer() as a, LLMTestServer() as b:
        for s, name in ((a, "A"), (b, "B")):
            s.add_rule(reply=lambda body, name=name: f"{name}:{body['messages'][-1]['content']}")
        yield a, b


def test_requests_go_to_the_least_busy_endpoint(two_servers):
    a, b = two_servers
    client = LLMClient(_fleet(a.base_url, b.base_url, concurrency=2))
    replies = _ask(client, 4)
    assert [r.text.split(":")[1] for r in replies] == ["Q-0", "Q-1", "Q-2", "Q-3"]
    assert (a.calls, b.calls) == (2, 2)  # alternating: the other one had fewer in flight
    stats = {s["base_url"]: s for s in client.endpoint_stats()}
    assert stats[a.base_url]["answered"] == stats[b.base_url]["answered"] == 2
    assert stats[a.base_url]["errors"] == 0
    assert stats[a.base_url]["latency_p50_s"] is not None
    assert client.ledger.calls == 4 and client.ledger.http_requests == 4


def test_ties_go_to_the_heavier_endpoint(two_servers):
    a, b = two_servers
    client = LLMClient(_fleet(a.base_url, Endpoint(base_url=b.base_url, weight=3)))
    for i in range(3):  # one at a time: every choice is a tie on requests in flight
        assert client.complete_sync([{"role": "user", "content": f"x{i}"}]).text.startswith("B:")
    assert (a.calls, b.calls) == (0, 3)


def test_a_dead_endpoint_loses_no_answer_and_counts_none_twice(two_servers):
    a, _ = two_servers
    dead = _dead_url()
    client = LLMClient(_fleet(dead, a.base_url, concurrency=3))
    replies = _ask(client, 12)
    assert all(not isinstance(r, BaseException) for r in replies), replies
    assert sorted(r.text for r in replies) == sorted(f"A:Q-{i}" for i in range(12))
    stats = {s["base_url"]: s for s in client.endpoint_stats()}
    assert stats[dead]["answered"] == 0 and stats[dead]["errors"] >= 1
    assert stats[dead]["cooldowns"] >= 1 and stats[dead]["last_error"]
    assert stats[a.base_url]["answered"] == 12 == a.calls
    # one ledger entry per answer; the failed tries are attempts of the same request
    assert client.ledger.calls == 12
    assert client.ledger.http_requests == 12 + stats[dead]["calls"]


def test_a_faulty_endpoint_is_cooled_down_and_used_again_later(two_servers):
    a, b = two_servers
    a.reset()
    a.add_rule(status=500, times=1)  # the first request to A fails
    a.add_rule(reply=lambda body: f"A:{body['messages'][-1]['content']}")
    client = LLMClient(_fleet(a.base_url, b.base_url))
    assert client.pool is not None
    client.pool.cooldown_base_s = 0.05

    async def go() -> list[str]:
        first = await client.complete([{"role": "user", "content": "one"}])
        await asyncio.sleep(0.1)  # past the cooldown: A takes requests again
        later = [await client.complete([{"role": "user", "content": f"n{i}"}]) for i in range(2)]
        return [first.text, *(r.text for r in later)]

    texts = client.run_sync(go)
    assert texts == ["B:one", "A:n0", "A:n1"]  # retried on B, then A (first on ties) is back
    stats = {s["base_url"]: s for s in client.endpoint_stats()}
    assert (stats[a.base_url]["errors"], stats[a.base_url]["cooldowns"]) == (1, 1)
    assert stats[a.base_url]["answered"] == 2
    assert "500" in stats[a.base_url]["last_error"]
    assert client.ledger.records[0].attempts == 2 and client.ledger.calls == 3


def test_a_fleet_with_no_live_endpoint_fails_instead_of_waiting():
    client = LLMClient(_fleet(_dead_url(), _dead_url(), max_retries=1))
    assert client.pool is not None
    client.pool.cooldown_base_s = 0.01
    replies = _ask(client, 6)  # every request fails (the run stops), none waits forever
    assert all(isinstance(r, ServerUnreachable) for r in replies), replies
    assert any("every endpoint of the fleet failed" in str(r) for r in replies)
    assert all(s["answered"] == 0 and s["cooldowns"] >= 1 for s in client.endpoint_stats())


def test_endpoint_keys_come_from_their_variables_and_stay_out_of_records(two_servers, monkeypatch):
    a, b = two_servers
    monkeypatch.setenv("FLEET_ROLE_KEY", "sk-role-0123456789")
    monkeypatch.setenv("FLEET_B_KEY", "sk-bbbb-0123456789")
    cfg = _fleet(
        a.base_url,
        Endpoint(base_url=b.base_url, api_key_env="FLEET_B_KEY"),
        api_key_env="FLEET_ROLE_KEY",
        concurrency=1,
    )
    client = LLMClient(cfg)
    _ask(client, 2)
    assert a.requests[0].headers["authorization"] == "Bearer sk-role-0123456789"
    assert b.requests[0].headers["authorization"] == "Bearer sk-bbbb-0123456789"
    dumped = json.dumps([cfg.public_dict(), client.endpoint_stats()])
    assert "sk-" not in dumped and "FLEET_B_KEY" in dumped


def test_an_endpoint_key_variable_that_is_unset_is_named(two_servers, monkeypatch):
    a, b = two_servers
    monkeypatch.delenv("FLEET_UNSET_KEY", raising=False)
    cfg = _fleet(a.base_url, Endpoint(base_url=b.base_url, api_key_env="FLEET_UNSET_KEY"))
    with pytest.raises(InputError, match="FLEET_UNSET_KEY"):
        LLMClient(cfg).complete_sync([{"role": "user", "content": "x"}])


# -- options and the fleet file ----------------------------------------------------------------
def test_repeated_base_url_makes_a_fleet_named_by_its_first_endpoint():
    one = llm_config("m", role="judge", base_url="http://h1:8000/v1")
    two = llm_config("m", role="judge", base_url=["http://h1:8000/v1", "http://h2:8000/v1/"])
    assert one.endpoints == [] and [e.base_url for e in two.endpoints] == [
        "http://h1:8000/v1",
        "http://h2:8000/v1",
    ]
    # the run's identity and the cache key do not depend on which endpoints serve it
    assert {k: one.public_dict()[k] for k in RESULT_FIELDS} == {
        k: two.public_dict()[k] for k in RESULT_FIELDS
    }
    assert (one.in_flight, two.in_flight) == (8, 16)
    with pytest.raises(InputError, match="listed twice"):
        llm_config("m", role="judge", base_url=["http://h1/v1", "http://h1/v1"])


def test_fleet_file_yaml_and_json(tmp_path: Path):
    y = tmp_path / "fleet.yaml"
    y.write_text(
        "endpoints:\n"
        "  - base_url: http://gpu1:8000/v1\n"
        "    weight: 2\n"
        "    max_in_flight: 4\n"
        "  - base_url: http://gpu2:8000/v1\n"
        "    api_key_env: GPU2_KEY\n"
    )
    j = tmp_path / "fleet.json"
    j.write_text(json.dumps({"endpoints": [{"base_url": "http://gpu1:8000/v1", "weight": 2}]}))
    eps = load_fleet(y)
    assert [(e.base_url, e.weight, e.max_in_flight, e.api_key_env) for e in eps] == [
        ("http://gpu1:8000/v1", 2.0, 4, None),
        ("http://gpu2:8000/v1", 1.0, None, "GPU2_KEY"),
    ]
    assert load_fleet(j)[0].weight == 2.0
    cfg = llm_config("m", role="responder", fleet=y, concurrency=3)
    assert cfg.base_url == "http://gpu1:8000/v1" and cfg.in_flight == 4 + 3
    with pytest.raises(InputError, match="not both"):
        llm_config("m", role="responder", fleet=y, base_url="http://x/v1")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "endpoints:\n  - base_url: http://a/v1\n  - base_url: http://b/v1\n    weight: -1\n",
            ":4:endpoints.1.weight: ",
        ),
        ("endpoints:\n  - base_url: ftp://a\n", ":2:endpoints.0.base_url: "),
        ("endpoints:\n  - base_url: http://a/v1\n    api_key: sk-x\n", ":3:endpoints.0.api_key: "),
        ("endpoints:\n  - base_url: http://a/v1\n    api_key_env: sk-abc def\n", ":3:"),
        ("endpoints: []\n", ":1:endpoints: "),
        ('{"endpoints": [\n  {"base_url": "http://a/v1", "max_in_flight": 0}\n]}', ":2:"),
        ("endpoints:\n  - base_url: [http://a\n", ":2:-: not YAML or JSON"),
        ("- http://a/v1\n", ":1:endpoints: a mapping"),
    ],
)
def test_fleet_file_errors_name_file_line_and_field(tmp_path: Path, text: str, where: str):
    path = tmp_path / "fleet.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_fleet(path)
    assert f"{path}{where}" in str(err.value)
    assert "sk-" not in str(err.value)  # a key written by mistake is not echoed


def test_refused_key_and_retry_after_send_requests_elsewhere(two_servers):
    a, b = two_servers
    a.reset()
    a.add_rule(status=401, times=1)  # a key this endpoint refuses: its failure, not the request's
    a.add_rule(status=429, headers={"Retry-After": "30"}, times=1)
    a.add_rule(reply=lambda body: "A")
    client = LLMClient(_fleet(a.base_url, b.base_url))
    assert client.pool is not None
    client.pool.cooldown_base_s = 0.0  # the 401's cooldown ends at once; the 429's does not

    async def go() -> list[str]:
        return [
            (await client.complete([{"role": "user", "content": f"r{i}"}])).text for i in range(4)
        ]

    texts = client.run_sync(go)
    # r0: 401 at A, answered by B; r1: A again (tie, first), 429, answered by B; then A waits
    # out its Retry-After (30 s) and B answers the rest
    assert texts == ["B:r0", "B:r1", "B:r2", "B:r3"]
    stats = {s["base_url"]: s for s in client.endpoint_stats()}
    assert (stats[a.base_url]["errors"], stats[a.base_url]["cooldowns"]) == (2, 2)
    assert stats[a.base_url]["answered"] == 0 and "429" in stats[a.base_url]["last_error"]
    assert [r.attempts for r in client.ledger.records] == [2, 2, 1, 1]
