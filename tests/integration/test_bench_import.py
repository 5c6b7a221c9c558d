"""Import of PerspectiveBench into a real Neo4j: round trip, idempotence, bad input untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from construction.perspectivebench.exporter import export_perspectivebench
from construction.perspectivebench.importer import import_perspectivebench
from construction.perspectivebench.report import ImportValidationError

pytestmark = pytest.mark.integration

MALFORMED = Path(__file__).resolve().parents[1] / "data" / "malformed"


def snapshot(store, drop_provenance: bool = False) -> tuple[list[str], list[str]]:
    """Every node and relationship with all properties, as sorted canonical JSON."""

    def clean(props: dict) -> dict:
        # provenance: who wrote a node, and (Domain.import_sources) which files it came from
        where = ("provenance", "import_sources")
        return {k: v for k, v in props.items() if not (drop_provenance and k in where)}

    nodes = sorted(
        json.dumps([sorted(r["labels"]), clean(r["props"])], sort_keys=True)
        for r in store.query("bench/snapshot_nodes")
    )
    rels = sorted(
        json.dumps([r["type"], clean(r["props"]), r["from"], r["to"]], sort_keys=True)
        for r in store.query("bench/snapshot_rels")
    )
    return nodes, rels


def objects(*files: Path) -> list[dict]:
    out = [
        json.loads(line)
        for f in files
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return sorted(out, key=lambda o: (o["domain"], o["id"]))


@pytest.fixture(scope="module")
def sample_files(shared_data) -> list[Path]:
    root = shared_data / "perspectivebench"
    return [root / "sample.jsonl", root / "samples" / "benchmark.jsonl"]


@pytest.fixture(scope="module")
def imported(store, sample_files):
    return import_perspectivebench(store, sample_files)


def test_import_writes_the_graph_model(store, imported):
    assert imported.questions_written == 141
    assert imported.errors == []
    counts = store.node_counts()
    assert counts["Question"] == 141
    assert counts["Domain"] == 4
    assert counts["Path"] == imported.paths
    assert counts["Concept"] == imported.concepts
    # the published file's missing relations are imported and listed as warnings
    assert any("'None'" in w.message for w in imported.warnings)
    assert imported.nodes_created["Question"] == 141


def test_import_is_idempotent(store, sample_files, imported):
    before = snapshot(store)
    again = import_perspectivebench(store, sample_files)
    assert again.nodes_before == again.nodes_after
    assert again.nodes_created == {}
    assert snapshot(store) == before


def test_export_reproduces_every_field(store, sample_files, imported, tmp_path):
    out = tmp_path / "export.jsonl"
    n = export_perspectivebench(store, out)
    assert n == 141
    assert objects(out) == objects(*sample_files)


def test_export_one_domain(store, imported, sample_files, tmp_path):
    out = tmp_path / "demo.jsonl"
    assert export_perspectivebench(store, out, domain="demo") == 2
    assert objects(out) == objects(sample_files[1])


def test_import_export_import_gives_the_same_graph(store, imported, tmp_path):
    first = tmp_path / "first.jsonl"
    export_perspectivebench(store, first)
    before = snapshot(store, drop_provenance=True)
    store.wipe()
    import_perspectivebench(store, [first])
    assert snapshot(store, drop_provenance=True) == before
    second = tmp_path / "second.jsonl"
    export_perspectivebench(store, second)
    assert objects(second) == objects(first)


def _bad_inputs(tmp_path: Path) -> list[Path]:
    files = sorted(p for p in MALFORMED.glob("*.jsonl") if p.name != "good.jsonl")
    huge = tmp_path / "ten_megabytes.jsonl"
    obj = json.loads((MALFORMED / "good.jsonl").read_text())
    obj["focused_evidence"] = ["y" * (10 * 1024 * 1024)]
    huge.write_text(json.dumps(obj) + "\n")
    mixed = tmp_path / "good_then_bad.jsonl"
    mixed.write_text(
        (MALFORMED / "good.jsonl").read_text()
        + (MALFORMED / "four_hops.jsonl").read_text().replace('"id": 1', '"id": 5')
    )
    return [*files, huge, mixed]


def test_bad_files_leave_the_database_unchanged(store, imported, tmp_path):
    before = snapshot(store)
    counts = (store.node_counts(), store.query("core/rel_counts"))
    bad = _bad_inputs(tmp_path)
    assert len(bad) >= 14
    for path in bad:
        with pytest.raises(ImportValidationError) as exc:
            import_perspectivebench(store, [path])
        assert exc.value.problems, path
        assert str(exc.value.problems[0]).startswith(f"{path}:")
        assert "nothing was written" in str(exc.value)
        # counts after each file; every property once at the end (a full snapshot is slow)
        assert (store.node_counts(), store.query("core/rel_counts")) == counts, path.name
    assert snapshot(store) == before


def test_a_failing_write_rolls_back_everything(store, imported, monkeypatch):
    from construction.perspectivebench import importer

    before = snapshot(store)
    # a query that fails after every other write of the transaction has run
    monkeypatch.setattr(importer, "_WRITES", [*importer._WRITES, ("bench/no_such_query", "pool")])
    with pytest.raises(Exception, match="no_such_query"):
        import_perspectivebench(store, [MALFORMED / "good.jsonl"])
    assert snapshot(store) == before
