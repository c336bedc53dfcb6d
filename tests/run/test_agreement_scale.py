"""Weighted kappa on a metric's declared scale: a 1-5 rating where nobody gave a 3 keeps 4
two steps from 2. The observed levels alone would put them next to each other."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from geomeval.core.errors import UsageError
from geomeval.run.agreement import agreement, cohen_kappa, compare_judgments, declared_scale

A = [1, 2, 2, 4, 5, 5, 4, 1, 2, 5]  # no 3 on either side
B = [2, 2, 1, 4, 4, 5, 5, 1, 4, 5]


def test_kappa_on_the_declared_scale_matches_scikit_learn_with_labels() -> None:
    declared = cohen_kappa(A, B, "quadratic", [1, 2, 3, 4, 5])
    observed = cohen_kappa(A, B, "quadratic")
    assert declared == pytest.approx(cohen_kappa_score(A, B, weights="quadratic", labels=[1, 2, 3, 4, 5]))
    assert observed == pytest.approx(cohen_kappa_score(A, B, weights="quadratic"))
    assert round(declared, 3) == 0.838 and round(observed, 3) == 0.797  # the scale changes the number
    with pytest.raises(UsageError, match="outside the declared scale"):
        cohen_kappa([1, 6], [1, 2], "quadratic", [1, 2, 3, 4, 5])


def test_declared_scales() -> None:
    assert declared_scale("me2", "Correctness") == (1.0, 2.0, 3.0, 4.0, 5.0)
    assert declared_scale("me2", "Fidelity (0-100)") == (0.0, 0.25, 0.5, 0.75, 1.0)
    assert declared_scale("ggbench", "VLM-T") == pytest.approx((0.2, 0.4, 0.6, 0.8, 1.0))
    assert declared_scale("ggbench", "Step Accuracy") == pytest.approx((0.2, 0.4, 0.6, 0.8, 1.0))
    assert declared_scale("ggbench", "VLM-I") is None  # may average two ratings
    assert declared_scale("me2", "accuracy") is None and declared_scale("geolaux", "PCS") is None


def test_agreement_uses_the_scale_it_is_given() -> None:
    pairs = [(float(a), float(b)) for a, b in zip(A, B, strict=True)]
    found = agreement(pairs, declared_scale("me2", "Correctness"))
    assert found["scale"] == "declared" and found["levels"] == 5
    assert found["kappa"] == pytest.approx(cohen_kappa_score(A, B, weights="quadratic", labels=[1, 2, 3, 4, 5]))
    assert agreement(pairs)["scale"] == "observed" and agreement(pairs)["levels"] == 4
    # GGBench's stored s / 5 values are matched to the scale despite float rounding
    ggb = [(a / 5, b / 5) for a, b in zip(A, B, strict=True)]
    assert agreement(ggb, declared_scale("ggbench", "VLM-T"))["kappa"] == pytest.approx(found["kappa"])


def test_compare_judgments_reads_the_scale_of_the_runs_benchmark(tmp_path: Path) -> None:
    from geomeval.benchmarks import get_benchmark
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import parse_model_spec
    from geomeval.run.runner import run

    out = tmp_path / "run"
    run(get_benchmark("me2"), task="me2_explain", model=parse_model_spec("baseline:random"),
        judge=parse_judge_spec("offline"), out_dir=out)
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    ids = [s["id"] for s in samples][: len(A)]
    if len(ids) < 4:
        pytest.skip("too few items")
    labels_b = tmp_path / "b.jsonl"
    shutil.copytree(out, tmp_path / "copy")
    # rewrite run A's Correctness to A's ratings, and give B's as human labels
    for s, value in zip(samples, A, strict=False):
        s["scores"]["Correctness"] = {**(s["scores"].get("Correctness") or {}), "value": float(value)}
    (tmp_path / "copy" / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    labels_b.write_text("".join(json.dumps({"id": i, "Correctness": float(v)}) + "\n"
                                for i, v in zip(ids, B, strict=False)))
    found = compare_judgments(tmp_path / "copy", labels_b, ["Correctness"])["metrics"]["Correctness"]
    n = len(ids)
    assert found["scale"] == "declared"
    assert found["kappa"] == pytest.approx(cohen_kappa_score(A[:n], B[:n], weights="quadratic", labels=[1, 2, 3, 4, 5]))
