"""Each statistic a report prints, checked against scipy (or a textbook value) on the same data."""

from __future__ import annotations

import math
import random

import pytest
from scipy import stats as sp

from geomeval.core.records import SampleRecord, Score
from geomeval.engines.aggregate import metric_summary
from geomeval.engines.stats import (
    bootstrap_interval,
    clustered_se,
    mcnemar,
    mean_uncertainty,
    paired_difference,
    permutation_test,
    too_few,
    wilson_interval,
)


@pytest.mark.parametrize(("k", "n"), [(0, 7), (1, 7), (14, 20), (20, 20), (523, 1000)])
def test_wilson_interval_matches_scipy(k: int, n: int) -> None:
    expected = sp.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(k, n)
    assert low == pytest.approx(expected.low, abs=1e-9) and high == pytest.approx(expected.high, abs=1e-9)


def test_binary_mean_gets_analytic_se_and_wilson() -> None:
    values = [1.0] * 14 + [0.0] * 6
    found = mean_uncertainty(values)
    assert found["ci_method"] == "wilson"
    assert found["se"] == pytest.approx(math.sqrt(0.7 * 0.3 / 20))
    assert found["ci"] == pytest.approx(list(wilson_interval(14, 20)))


def test_continuous_mean_gets_sem_and_a_seeded_bootstrap_near_scipys() -> None:
    rng = random.Random(3)
    values = [rng.random() ** 2 for _ in range(120)]
    found = mean_uncertainty(values)
    assert found["se"] == pytest.approx(sp.sem(values))
    assert found["ci_method"] == "bootstrap"
    assert found == mean_uncertainty(values)  # fixed seed: the same records, the same interval
    reference = sp.bootstrap((values,), lambda x, axis: x.mean(axis=axis), method="percentile",
                             n_resamples=20000, random_state=0).confidence_interval
    assert found["ci"][0] == pytest.approx(reference.low, abs=0.006)
    assert found["ci"][1] == pytest.approx(reference.high, abs=0.006)


def test_large_continuous_sample_uses_the_normal_interval() -> None:
    values = [i % 7 / 6 for i in range(1000)]
    low, high = bootstrap_interval(values)
    mean, half = sum(values) / 1000, sp.norm.ppf(0.975) * sp.sem(values)
    assert (low, high) == pytest.approx((mean - half, mean + half))


def test_clustered_se_reduces_to_sem_for_singletons_and_grows_with_shared_problems() -> None:
    values = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    assert clustered_se(values, list(range(8))) == pytest.approx(sp.sem(values))
    # Pairs of identical variants: the 8 items carry only 4 problems' worth of information.
    paired = [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
    clusters = [0, 0, 1, 1, 2, 2, 3, 3]
    # Hand value: cluster residual sums ±1 (4 clusters), 4/3 * 4 = 16/3, sqrt / 8
    assert clustered_se(paired, clusters) == pytest.approx(math.sqrt(16 / 3) / 8)
    assert clustered_se(paired, clusters) > sp.sem(paired)
    found = mean_uncertainty(paired, clusters)
    assert found["ci_method"] == "clustered normal" and found["clusters"] == 4


def test_metric_summary_carries_the_interval_and_clusters_by_meta() -> None:
    def record(i: int, value: float, cluster: str) -> SampleRecord:
        return SampleRecord(id=str(i), benchmark="b", task="t", target={}, meta={"cluster": cluster},
                            scores={"A": Score(value)})

    records = [record(i, float(i // 2 % 2), f"p{i // 2}") for i in range(8)]
    stats = metric_summary(records, "A")
    assert stats["value"] == 0.5 and stats["clusters"] == 4
    assert stats["se"] == pytest.approx(math.sqrt(16 / 3) / 8)


def _keyed(values: list[float], keys: list[object]) -> dict:
    """The interval of `values` with clusters given by their keys (the text or number itself)."""
    return mean_uncertainty(values, keys)


@pytest.mark.parametrize("slice_size", [32768, 4])
def test_summaries_group_clusters_by_their_text_as_the_keys_do(slice_size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Clusters are numbered by digests and repeats looked for a slice at a time: the
    intervals are those of the clusters' own keys. An item without meta["cluster"] is its own
    cluster under its id, shared with any item whose cluster is that text; a number in meta
    is not the same cluster as its text; an item named twice in one group repeats there."""
    from geomeval.engines import aggregate

    monkeypatch.setattr(aggregate, "SLICE", slice_size)
    rng = random.Random(7)
    metas: list[dict] = [{}, {"cluster": "7"}, {"cluster": 7}, {"cluster": "p1"}, {"cluster": "p1"}, {}, {}]
    records, keys, values = [], [], []
    for i in range(60):
        meta = dict(metas[i % len(metas)], kind=["a", "a"] if i == 5 else "b" if i % 2 else "a")
        value = float(rng.random() < 0.5)
        records.append(SampleRecord(id=str(i), benchmark="b", task="t", target={}, meta=meta, scores={"A": Score(value)}))
        keys.append(meta.get("cluster", str(i)))
        values.append(value)
    summary = aggregate.summarize(records, ["A"], breakdowns=[aggregate.Breakdown("kind")])
    fields = ("se", "ci", "ci_method", "clusters")
    found = summary["metrics"]["A"]
    assert {k: found.get(k) for k in fields} == {k: _keyed(values, keys).get(k) for k in fields}
    assert found["clusters"] == len(set(keys)) < 60  # "7" (item 7's id and a meta text) is one cluster, 7 another
    for kind in ("a", "b"):
        picked = [(v, k) for r, v, k in zip(records, values, keys, strict=True)
                  for _ in range(([r.meta["kind"]] if isinstance(r.meta["kind"], str) else r.meta["kind"]).count(kind))]
        group = summary["breakdowns"]["kind"][kind]["A"]
        expected = _keyed([v for v, _ in picked], [k for _, k in picked])
        assert {k: group.get(k) for k in fields} == {k: expected.get(k) for k in fields}


def test_items_each_their_own_cluster_get_the_unclustered_interval() -> None:
    from geomeval.engines.aggregate import summarize

    records = [SampleRecord(id=f"i{i}", benchmark="b", task="t", target={}, meta={"kind": "a" if i % 3 else "b"},
                            scores={"A": Score(float(i % 4 == 0))}) for i in range(50)]
    from geomeval.engines.aggregate import Breakdown

    summary = summarize(records, ["A"], breakdowns=[Breakdown("kind")])
    values = [float(i % 4 == 0) for i in range(50)]
    assert summary["metrics"]["A"]["ci_method"] == "wilson" and "clusters" not in summary["metrics"]["A"]
    assert summary["metrics"]["A"]["ci"] == mean_uncertainty(values)["ci"]
    assert all(g["A"]["ci_method"] == "wilson" for g in summary["breakdowns"]["kind"].values())
    records[0].meta["kind"] = ["b", "b"]  # counted twice in "b": its one cluster repeats there
    again = summarize(records, ["A"], breakdowns=[Breakdown("kind")])
    assert again["metrics"]["A"]["ci_method"] == "wilson"
    assert again["breakdowns"]["kind"]["b"]["A"]["ci_method"] == "clustered normal"


@pytest.mark.parametrize(("only_a", "only_b"), [(0, 0), (3, 9), (150, 86), (1, 12)])
def test_mcnemar_exact_is_scipys_binomial_test_on_discordant_pairs(only_a: int, only_b: int) -> None:
    a = [1] * only_a + [0] * only_b + [1] * 5 + [0] * 4
    b = [0] * only_a + [1] * only_b + [1] * 5 + [0] * 4
    found = mcnemar(a, b)
    expected = sp.binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
    assert found["p_value"] == pytest.approx(expected, rel=1e-9)
    assert (found["only_A_right"], found["only_B_right"]) == (only_a, only_b)


def test_permutation_test_matches_scipys_exact_paired_permutation() -> None:
    a = [0.2, 0.5, 0.1, 0.9, 0.4, 0.3, 0.6, 0.2, 0.8, 0.5]
    b = [0.4, 0.6, 0.1, 0.95, 0.7, 0.2, 0.9, 0.5, 0.85, 0.7]
    found = permutation_test(a, b)
    expected = sp.permutation_test((a, b), lambda x, y, axis: (y - x).mean(axis=axis),
                                   permutation_type="samples", n_resamples=math.inf).pvalue
    assert found["exact"] and found["p_value"] == pytest.approx(expected)


def test_permutation_test_monte_carlo_is_seeded_and_close_to_scipys() -> None:
    rng = random.Random(1)
    a = [rng.random() for _ in range(60)]
    b = [x + rng.gauss(0.05, 0.2) for x in a]
    found = permutation_test(a, b)
    assert not found["exact"] and found == permutation_test(a, b)
    expected = sp.permutation_test((a, b), lambda x, y, axis: (y - x).mean(axis=axis),
                                   permutation_type="samples", n_resamples=20000, random_state=0).pvalue
    assert found["p_value"] == pytest.approx(expected, abs=0.02)


def test_paired_difference_picks_the_test_by_score_kind() -> None:
    binary = paired_difference([0, 0, 1, 1, 0], [1, 1, 1, 0, 1])
    assert binary["delta"] == pytest.approx(0.4) and binary["test"] == "mcnemar exact"
    assert binary["ci"][0] <= 0.4 <= binary["ci"][1]
    graded = paired_difference([0.1, 0.5, 0.3], [0.2, 0.7, 0.3])
    assert graded["test"] == "sign-flip permutation" and graded["delta"] == pytest.approx(0.1)


def test_few_items_are_flagged_as_unable_to_separate_models() -> None:
    assert too_few(7, [0.1, 0.5]) and too_few(400, [0.3, 0.5])
    assert not too_few(2000, [0.48, 0.52])
