"""Judge agreement: each coefficient against a published example or scikit-learn/scipy, and the command."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from scipy import stats as sp
from sklearn.metrics import cohen_kappa_score
from test_run import cli

from geomeval.benchmarks import get_benchmark
from geomeval.demo.agreement import judge_agreement
from geomeval.demo.limits import DemoInputError
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import parse_model_spec
from geomeval.run.agreement import (
    agreement,
    cohen_kappa,
    compare_judgments,
    krippendorff_alpha,
    pearson,
    spearman,
)
from geomeval.run.runner import run

N = None


def test_krippendorff_alpha_reproduces_published_examples() -> None:
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", 4 observers x 12 units
    # with missing values: nominal 0.743, interval 0.849.
    a = [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N]
    b = [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3]
    c = [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N]
    d = [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N]
    units = list(zip(a, b, c, d, strict=True))
    assert round(krippendorff_alpha(units, "nominal"), 3) == 0.743
    assert round(krippendorff_alpha(units, "interval"), 3) == 0.849
    # The 3 coders x 15 units example of the coefficient's encyclopedia entry: 0.691 and 0.811.
    c1 = [N, N, N, N, N, 3, 4, 1, 2, 1, 1, 3, 3, N, 3]
    c2 = [1, N, 2, 1, 3, 3, 4, 3, N, N, N, N, N, N, N]
    c3 = [N, N, 2, 1, 3, 4, 4, N, 2, 1, 1, 3, 3, N, 4]
    units = list(zip(c1, c2, c3, strict=True))
    assert round(krippendorff_alpha(units, "nominal"), 3) == 0.691
    assert round(krippendorff_alpha(units, "interval"), 3) == 0.811


def test_cohen_kappa_matches_the_textbook_and_scikit_learn() -> None:
    # 50 items: both yes 20, yes/no 5, no/yes 10, both no 15 -> p_o 0.7, p_e 0.5, kappa 0.4
    a = [1] * 20 + [1] * 5 + [0] * 10 + [0] * 15
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    rng = random.Random(0)
    x = [rng.randint(1, 5) for _ in range(60)]
    y = [min(5, max(1, v + rng.randint(-1, 1))) for v in x]
    for weights in (None, "linear", "quadratic"):
        assert cohen_kappa(x, y, weights) == pytest.approx(cohen_kappa_score(x, y, weights=weights))


def test_correlations_match_scipy_with_ties() -> None:
    x = [1, 2, 2, 3, 5, 5, 5, 4, 1, 3]
    y = [0.1, 0.3, 0.2, 0.4, 0.9, 0.8, 0.85, 0.6, 0.3, 0.35]
    assert spearman(x, y) == pytest.approx(sp.spearmanr(x, y).statistic)
    assert pearson(x, y) == pytest.approx(sp.pearsonr(x, y).statistic)


def test_agreement_picks_weights_and_level_and_gives_intervals() -> None:
    likert = [(v, min(5, v + (i % 3 == 0))) for i, v in enumerate([1, 2, 3, 4, 5] * 8)]
    found = agreement([(float(a), float(b)) for a, b in likert])
    assert found["kappa_weights"] == "quadratic" and found["alpha_level"] == "interval"
    assert found["kappa_ci"][0] <= found["kappa"] <= found["kappa_ci"][1]
    binary = agreement([(1.0, 1.0), (0.0, 0.0), (1.0, 0.0), (0.0, 0.0), (1.0, 1.0)] * 4)
    assert binary["kappa_weights"] == "none" and binary["alpha_level"] == "nominal"
    assert binary == agreement([(1.0, 1.0), (0.0, 0.0), (1.0, 0.0), (0.0, 0.0), (1.0, 1.0)] * 4)  # seeded


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("agree") / "a"
    run(get_benchmark("me2"), task="me2_solve", model=parse_model_spec("baseline:random"),
        judge=parse_judge_spec("offline"), out_dir=out)
    return out


def _scores(run_dir: Path, metric: str) -> dict[str, float]:
    samples = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    return {s["id"]: s["scores"][metric]["value"] for s in samples if s["scores"][metric]["value"] is not None}


def test_a_run_against_human_labels_and_another_run(judged_run: Path, tmp_path: Path) -> None:
    metric = "accuracy"
    mine = _scores(judged_run, metric)
    ids = sorted(mine)
    human = {i: (1 - mine[i]) if k % 4 == 0 else mine[i] for k, i in enumerate(ids)}  # every 4th disagrees
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": i, metric: v}) + "\n" for i, v in human.items()))
    result = compare_judgments(judged_run, labels, [metric])
    found = result["metrics"][metric]
    assert found["items"] == len(ids)
    assert found["kappa"] == pytest.approx(cohen_kappa_score([mine[i] for i in ids], [human[i] for i in ids]))
    assert found["pearson"] == pytest.approx(sp.pearsonr([mine[i] for i in ids], [human[i] for i in ids]).statistic)
    # A second run folder (the same outputs rescored): identical judgments agree perfectly.
    twin = tmp_path / "b"
    shutil.copytree(judged_run, twin)
    done = cli("agreement", str(judged_run), str(twin), "--metric", metric, "--json", str(tmp_path / "agree.json"),
               env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    saved = json.loads((tmp_path / "agree.json").read_text())["metrics"][metric]
    assert saved["kappa"] == pytest.approx(1.0) and saved["alpha"] == pytest.approx(1.0)
    assert "1.000" in done.stdout and f"{len(ids)} item(s) in both" in done.stdout
    summary, headers, rows = judge_agreement(judged_run, labels)
    assert headers[0] == "metric" and any(row[0] == metric for row in rows) and "item(s) in both" in summary
    with pytest.raises(DemoInputError):
        judge_agreement(judged_run, tmp_path / "nothing")
