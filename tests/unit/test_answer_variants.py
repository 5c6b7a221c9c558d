"""Answer variants and confidence summaries: uids of answers without variants never change."""

from __future__ import annotations

import math

import pytest

from evaluation.models import AnswerVariant
from evaluation.profiles.confidence import LOW_TOKEN_LOGPROB, summarise
from evaluation.runs.spec import RunSpec
from kg.ids import answer_uid, content_uid
from kg.llm.cache import cache_key


def test_default_variant_keeps_the_plain_uid():
    assert AnswerVariant().key() is None
    assert answer_uid("r", "q", AnswerVariant().key()) == answer_uid("r", "q")
    one = AnswerVariant(sample=1).key()
    assert one == {"sample": 1}
    assert answer_uid("r", "q", one) == content_uid("answer", "r", "q", {"sample": 1})
    assert answer_uid("r", "q", one) != answer_uid("r", "q")
    # decoder settings are recorded, not identifying
    assert AnswerVariant(sample=1, decoder={"seed": 1}).key() == one


def test_negative_sample_is_refused():
    with pytest.raises(ValueError):
        AnswerVariant(sample=-1)


def test_summarise_logprobs():
    c = summarise([-0.1, -2.0, math.log(0.5), -0.3])
    assert c is not None and c.tokens == 4
    assert math.isclose(c.mean_logprob, (-0.1 - 2.0 + math.log(0.5) - 0.3) / 4)
    assert c.low_share == 1 / 4  # only -2.0 is below log(0.5); log(0.5) itself is not
    assert LOW_TOKEN_LOGPROB == math.log(0.5)
    assert summarise(None) is None and summarise([]) is None
    assert summarise([float("nan")]) is None


def test_cache_key_counts_samples_and_keeps_unsampled_keys():
    args = ("m", "http://x/v1", [{"role": "user", "content": "q"}], {}, None)
    assert cache_key(*args) == cache_key(*args, sample=None)
    keys = {cache_key(*args, sample=i) for i in range(3)}
    assert len(keys) == 3 and cache_key(*args) not in keys


def test_samples_in_identity_only_when_sampled():
    assert "samples" not in RunSpec().identity({})
    assert RunSpec(samples=3).identity({})["samples"] == 3
    with pytest.raises(ValueError):
        RunSpec(samples=0)
