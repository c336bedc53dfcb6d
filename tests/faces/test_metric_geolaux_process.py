"""The `evaluate` module metrics/geolaux_process: loads offline, computes GeoLaux's numbers."""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Callable
from fnmatch import fnmatch
from pathlib import Path

import pytest
from metric_card_support import card_body

evaluate = pytest.importorskip("evaluate")

from geomeval.publishing.faces import metric_path  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _pqs_by_hand(marks: list[int]) -> float:
    n = len(marks)
    weights = [math.exp(-i / n) for i in range(1, n + 1)]
    s = sum(w * m for w, m in zip(weights, marks, strict=True)) / sum(weights)
    return math.tanh(3.5 * (s - 1)) + 1


# [1, 0, 1]: weights e^(-1/3), e^(-2/3), e^(-1); the middle step is wrong.
S_101 = (math.exp(-1 / 3) + math.exp(-1)) / (math.exp(-1 / 3) + math.exp(-2 / 3) + math.exp(-1))
PQS_101 = math.tanh(3.5 * (S_101 - 1)) + 1
PQS_FLOOR = 0.0  # a single wrong step, or no steps: 0, as the official script


@pytest.fixture(scope="module")
def metric():
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["HF_DATASETS_OFFLINE"] == "1"
    return evaluate.load(str(REPO / "metrics" / "geolaux_process"))


def test_hand_computed_pqs_value() -> None:
    assert abs(S_101 - 0.678678) < 1e-6
    assert abs(PQS_101 - 0.190828) < 1e-6
    assert _pqs_by_hand([1, 0, 1]) == pytest.approx(PQS_101)


def test_headline_scores(metric) -> None:
    results = metric.compute(predictions=[[1, 1], [1, 0, 1]], references=[1, 1])
    assert results["ACS"] == 1.0
    assert results["PCS"] == 0.5
    assert results["PQS"] == pytest.approx((1.0 + PQS_101) / 2)
    assert results["n"] == 2
    assert results["first_error_step"] == {"counts": {"2": 1}, "with_error": 1, "without_error": 1}
    assert "by_step_bucket" not in results and "by_type" not in results


def test_single_item_cases(metric) -> None:
    # All steps right but the final answer wrong: PCS 0, PQS 1.
    assert metric.compute(predictions=[[1, 1, 1]], references=[0]) == {
        "ACS": 0.0,
        "PCS": 0.0,
        "PQS": 1.0,
        "n": 1,
        "first_error_step": {"counts": {}, "with_error": 0, "without_error": 1},
    }
    # No steps judged: S = 0, PCS 0 even with a right answer.
    empty = metric.compute(predictions=[[]], references=[1])
    assert (empty["ACS"], empty["PCS"]) == (1.0, 0.0)
    assert empty["PQS"] == pytest.approx(PQS_FLOOR)
    # A wrong first step of four: weights e^(-i/4).
    marks = [0, 1, 1, 1]
    weights = [math.exp(-i / 4) for i in (1, 2, 3, 4)]
    expected = math.tanh(3.5 * (sum(weights[1:]) / sum(weights) - 1)) + 1
    assert metric.compute(predictions=[marks], references=[1])["PQS"] == pytest.approx(expected)


def test_batches_accumulate(metric) -> None:
    metric.add_batch(predictions=[[1, 1]], references=[1])
    metric.add_batch(predictions=[[1, 0, 1]], references=[1])
    assert metric.compute()["PQS"] == pytest.approx((1.0 + PQS_101) / 2)


def test_breakdowns(metric) -> None:
    results = metric.compute(
        predictions=[[1, 1], [1, 0, 1], [0], [1, 1, 1, 1, 1]],
        references=[1, 1, 0, 1],
        step_buckets=["1-4", "1-4", "5-8", "13-24"],
        types=["calculation", "proving", "proving", None],
        error_types=[None, "calculation", "knowledge", None],
    )
    assert results["ACS"] == 0.75
    assert results["PCS"] == 0.5
    assert results["PQS"] == pytest.approx((1 + PQS_101 + PQS_FLOOR + 1) / 4)
    buckets = results["by_step_bucket"]
    assert list(buckets) == ["1-4", "5-8", "13-24"]
    assert buckets["1-4"]["PQS"] == pytest.approx((1 + PQS_101) / 2)
    assert {k: v for k, v in buckets["1-4"].items() if k != "PQS"} == {"ACS": 1.0, "PCS": 0.5, "n": 2}
    assert buckets["5-8"]["n"] == 1 and buckets["5-8"]["ACS"] == 0.0
    assert results["delta_pcs"] == {"from": "1-4", "to": "13-24", "value": pytest.approx(-100.0)}  # 0.5 -> 1.0
    proving = results["by_type"]["proving"]
    assert (proving["ACS"], proving["PCS"], proving["ACS_minus_PCS"], proving["n"]) == (0.5, 0.0, 0.5, 2)
    assert proving["PQS"] == pytest.approx((PQS_101 + PQS_FLOOR) / 2)
    assert results["by_type"]["calculation"]["ACS_minus_PCS"] == 0.0
    assert results["first_error_step"] == {"counts": {"1": 1, "2": 1}, "with_error": 2, "without_error": 2}
    assert results["error_types"] == {
        "counts": {"figure_comprehension": 0, "knowledge": 1, "calculation": 1, "logical_reasoning": 0},
        "shares": {"figure_comprehension": 0.0, "knowledge": 0.5, "calculation": 0.5, "logical_reasoning": 0.0},
        "classified": 2,
    }


def test_matches_the_library(metric) -> None:
    from geomeval.benchmarks.geolaux.process_metrics import summarize_process

    marks = [[1, 0, 1, 1], [1, 1], [], [0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 0]]
    finals = [1, 1, 0, 0, 1]
    buckets = ["5-8", "1-4", None, "9-12", "13-24"]
    assert metric.compute(predictions=marks, references=finals, step_buckets=buckets) == (
        summarize_process(marks, finals, buckets=buckets)
    )


@pytest.mark.parametrize(
    ("predictions", "references", "kwargs", "message"),
    [
        ([[1], [1, 2]], [1, 1], {}, r"item 1, predictions: step 2: judgment must be 0 or 1"),
        ([[1], [0.5]], [1, 1], {}, r"item 1, predictions: step 1: judgment must be 0 or 1"),
        ([[1], [1], None], [1, 1, 1], {}, r"item 2, predictions"),
        ([[1], [1]], [1, 2], {}, r"item 1, references: final-answer judgment must be 0 or 1"),
        ([[1], [1]], [0.5, 1], {}, r"item 0, references"),
        ([[1], [1]], [1, 1], {"types": ["proving", "proof"]}, r"item 1, types: .*'proof'"),
        ([[1], [1]], [1, 1], {"error_types": ["bogus", None]}, r"item 0, error_types: .*'bogus'"),
        ([[1], [1]], [1, 1], {"step_buckets": ["1-4", 5]}, r"item 1, step_buckets"),
        ([[1], [1]], [1, 1], {"step_buckets": ["1-4"]}, r"step_buckets: expected one entry per item \(2 items\)"),
    ],
)
def test_bad_input_names_item_and_field(metric, predictions, references, kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        metric.compute(predictions=predictions, references=references, **kwargs)


def test_metric_path_resolves_to_the_module() -> None:
    folder = Path(metric_path("geolaux_process"))
    assert folder.is_dir() and folder.name == "geolaux_process"
    assert (folder / "geolaux_process.py").is_file()
    assert (folder / "README.md").is_file()
    with pytest.raises(FileNotFoundError):
        metric_path("no_such_metric")
    with pytest.raises(ValueError):
        metric_path("../geolaux_process")


def test_loads_through_metric_path() -> None:
    metric = evaluate.load(metric_path("geolaux_process"))
    assert metric.compute(predictions=[[1, 0, 1]], references=[0])["PQS"] == pytest.approx(PQS_101)


def test_card_has_the_metric_card_sections() -> None:
    card_body("geolaux_process")


def test_packaging_ships_the_metrics_and_finds_every_subpackage(
    setup_packages: Callable[[], list[str]],
) -> None:
    """The wheel maps metrics/ to geomeval.metrics; setup.py's `packages()` finds every metric
    folder and every importable folder under src/geomeval, with no list kept by hand."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = pyproject["tool"]["setuptools"]
    assert setuptools["package-dir"]["geomeval.metrics"] == "metrics"
    assert "packages" not in setuptools, "a hand-kept list in pyproject.toml would replace setup.py's"
    packages = set(setup_packages())
    metric_data = setuptools["package-data"]["geomeval.metrics"]
    for script in (REPO / "metrics").glob("*/*.py"):
        name = script.parent.name
        assert f"geomeval.metrics.{name}" in packages, f"metrics/{name} is missing from packages"
        assert any(fnmatch(f"{name}/README.md", g) for g in metric_data)
    # What `packages.find` over src/ used to discover: every importable-named folder.
    source = REPO / "src"
    for folder in sorted((source / "geomeval").rglob("*")):
        parts = folder.relative_to(source).parts
        if folder.is_dir() and all(part.isidentifier() and part != "__pycache__" for part in parts):
            dotted = ".".join(parts)
            assert dotted in packages, f"{dotted} is missing from setup.py's packages()"