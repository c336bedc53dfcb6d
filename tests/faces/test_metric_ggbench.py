"""The `evaluate` modules metrics/ggbench_code and metrics/ggbench_image: load offline and
report geomeval's GGBench numbers, with coverage instead of zeros for what cannot be scored."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from metric_card_support import card_body
from PIL import Image

evaluate = pytest.importorskip("evaluate")

from geomeval.benchmarks.ggbench import scoring  # noqa: E402
from geomeval.engines import imagemetrics  # noqa: E402
from geomeval.geogebra import render_png, run_script  # noqa: E402
from geomeval.publishing.faces import metric_path  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

# The perpendicular bisector of AB by two compass circles.
REFERENCE = """A = (0, 0)
B = (4, 0)
c_1 = Circle(A, B)
c_2 = Circle(B, A)
P = Intersect(c_1, c_2, 1)
Q = Intersect(c_1, c_2, 2)
m = Line(P, Q)"""

# The reference's own script as a model would answer: a plan, then a fenced block.
SELF_ANSWER = f"""Plan: circles of radius AB about A and B; their intersections lie on the bisector.
```geogebra
{REFERENCE}
```"""

# The same construction rotated by 90° and scaled by 2, in two steps.
ROTATED_SCALED = """Step 1: the endpoints.
```geogebra
A = (1, 1)
B = (1, 9)
```
Step 2: the two circles, their intersections and the line through them.
```geogebra
c_1 = Circle(A, B)
c_2 = Circle(B, A)
P = Intersect(c_1, c_2, 1)
Q = Intersect(c_1, c_2, 2)
m = Line(P, Q)
```"""

# A bare script whose last line uses points it never constructed.
BROKEN = """A = (0, 0)
B = (4, 0)
c_1 = Circle(A, B)
m = Line(P, Q)"""

# A reference the engine cannot run: a parenthesis never closed.
UNRUNNABLE_REFERENCE = "A = (0, 0\nB = (4, 0)"

CODE_METRICS = scoring.ENGINE_METRICS + scoring.CODE_METRICS


def _offline() -> None:
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["HF_DATASETS_OFFLINE"] == "1"


@pytest.fixture(scope="module")
def code_metric():
    _offline()
    return evaluate.load(metric_path("ggbench_code"))


@pytest.fixture(scope="module")
def image_metric():
    _offline()
    return evaluate.load(metric_path("ggbench_image"))


@pytest.fixture(scope="module")
def figures() -> dict[str, bytes]:
    """PNG figures drawn by geomeval's engine: the reference, and two other constructions."""
    base = "A = (0, 0)\nB = (4, 0)\nc = Circle(A, B)\n"
    return {
        "reference": render_png(run_script(base + "t = Polygon(A, B, 3)")),
        "square": render_png(run_script(base + "t = Polygon(A, B, 4)")),
        "segment": render_png(run_script("A = (0, 0)\nB = (4, 1)\ns = Segment(A, B)")),
    }


# --------------------------------------------------------------------------- code track


def test_reference_answer_and_rotated_copy_pass_the_engine(code_metric) -> None:
    results = code_metric.compute(
        predictions=[SELF_ANSWER, ROTATED_SCALED], references=[REFERENCE, REFERENCE], per_item=True
    )
    assert results["Pass@1"] == 1.0 and results["verifier"] == 1.0
    assert results["n"] == 2
    assert results["coverage"] == dict.fromkeys(CODE_METRICS, 1.0)
    assert results["unscored"] == {}
    own, rotated = results["per_item"]
    # Its own script: identical code, so every similarity is perfect.
    assert {name: own[name]["value"] for name in scoring.CODE_METRICS} == {
        "BLEU": 1.0,
        "ROUGE-L": 1.0,
        "chrF": 1.0,
        "edit_distance": 0.0,
        "RUBY": 1.0,
    }
    assert own["verifier"]["explanation"].endswith("(identity)")
    # Rotated and scaled: the engine sees the same construction, the code differs.
    assert rotated["Pass@1"]["value"] == rotated["verifier"]["value"] == 1.0
    assert "similarity" in rotated["verifier"]["explanation"]
    assert "rotation 90°" in rotated["verifier"]["explanation"]
    assert 0 < rotated["BLEU"]["value"] < 1 and 0 < rotated["edit_distance"]["value"] < 1


def test_failing_script_lowers_pass_at_1(code_metric) -> None:
    results = code_metric.compute(
        predictions=[ROTATED_SCALED, BROKEN], references=[REFERENCE, REFERENCE], per_item=True
    )
    assert results["Pass@1"] == 0.5
    broken = results["per_item"][1]
    assert broken["Pass@1"]["value"] == 0.0
    assert "line 4" in broken["Pass@1"]["explanation"] and "P" in broken["Pass@1"]["explanation"]
    # It still built A, B and one circle: partial credit, below the rotated copy's 1.
    assert 0 < broken["verifier"]["value"] < 1
    assert results["verifier"] == pytest.approx((1.0 + broken["verifier"]["value"]) / 2)
    assert results["coverage"]["verifier"] == 1.0


def test_unrunnable_reference_leaves_verifier_unscored(code_metric) -> None:
    results = code_metric.compute(
        predictions=[ROTATED_SCALED, SELF_ANSWER], references=[REFERENCE, UNRUNNABLE_REFERENCE]
    )
    assert results["verifier"] == 1.0  # the mean of the one scored item, not (1 + 0) / 2
    assert results["coverage"]["verifier"] == 0.5
    [entry] = results["unscored"]["verifier"]
    assert entry["item"] == 1
    assert entry["reason"].startswith("reference script fails in the engine at line 1")
    # Everything else about the answer is still scored.
    assert results["Pass@1"] == 1.0
    assert set(results["unscored"]) == {"verifier"}
    assert all(results["coverage"][name] == 1.0 for name in CODE_METRICS if name != "verifier")

    alone = code_metric.compute(predictions=[SELF_ANSWER], references=[UNRUNNABLE_REFERENCE])
    assert alone["verifier"] is None and alone["coverage"]["verifier"] == 0.0


def test_missing_response_is_unscored_and_empty_answer_scores_zero(code_metric) -> None:
    results = code_metric.compute(
        predictions=[SELF_ANSWER, "", None], references=[REFERENCE] * 3, per_item=True
    )
    assert results["coverage"] == dict.fromkeys(CODE_METRICS, 2 / 3)
    for name in CODE_METRICS:
        assert results["unscored"][name] == [{"item": 2, "reason": "model failed: no response"}]
    empty = results["per_item"][1]
    assert empty["Pass@1"]["value"] == 0.0 and empty["edit_distance"]["value"] == 1.0
    assert empty["Pass@1"]["explanation"] == "no GeoGebra code in the answer"
    assert results["Pass@1"] == 0.5 and results["edit_distance"] == 0.5


def test_matches_the_library(code_metric) -> None:
    answers = [SELF_ANSWER, ROTATED_SCALED, BROKEN]
    results = code_metric.compute(predictions=answers, references=[REFERENCE] * 3, per_item=True)
    expected = [scoring.code_answer_scores(answer, REFERENCE) for answer in answers]
    for item, scores in zip(results["per_item"], expected, strict=True):
        assert item == {
            name: {"value": s.value, "explanation": s.explanation, "unscored": s.unscored}
            for name, s in scores.items()
        }
    for name in CODE_METRICS:
        assert results[name] == pytest.approx(sum(s[name].value for s in expected) / 3)


def test_batches_accumulate(code_metric) -> None:
    code_metric.add_batch(predictions=[ROTATED_SCALED], references=[REFERENCE])
    code_metric.add_batch(predictions=[BROKEN], references=[REFERENCE])
    results = code_metric.compute(text_scores=[5, 1])
    assert results["n"] == 2 and results["Pass@1"] == 0.5
    assert results["VLM-T"] == pytest.approx(0.6)


JUDGE_INPUTS = {
    "text_scores": [5, 3, None, 1],
    "step_accuracy": [4, 2, 5, None],
    "process_consistency": [4, 4, 3, 2],
    "problem_solution_accuracy": [3, None, None, None],
    "result_scores": [5, 1, None, 2],
}

# By hand, from JUDGE_INPUTS: (published = mean of s/5, rescaled = mean of (s-1)/4, coverage).
# VLM-I-Mid per item: 4, 3, 4, - ; VLM-I per item: (4+5)/2 = 4.5, (3+1)/2 = 2, -, -.
EXPECTED_JUDGE = {
    "VLM-T": ((1.0 + 0.6 + 0.2) / 3, (1.0 + 0.5 + 0.0) / 3, 3 / 4),
    "Step Accuracy": ((0.8 + 0.4 + 1.0) / 3, None, 3 / 4),
    "Process Consistency": ((0.8 + 0.8 + 0.6 + 0.4) / 4, None, 1.0),
    "Problem-Solution Accuracy": (0.6, None, 1 / 4),
    "VLM-I-Mid": ((0.8 + 0.6 + 0.8) / 3, (0.75 + 0.5 + 0.75) / 3, 3 / 4),
    "VLM-I-Res": ((1.0 + 0.2 + 0.4) / 3, (1.0 + 0.0 + 0.25) / 3, 3 / 4),
    "VLM-I": ((0.9 + 0.4) / 2, (0.875 + 0.25) / 2, 2 / 4),
}


def _check_judge(results: dict, expected: dict) -> None:
    for name, (published, rescaled, coverage) in expected.items():
        assert results[name] == pytest.approx(published), name
        assert results["coverage"][name] == pytest.approx(coverage), name
        shown = name + " (0-100)"
        if rescaled is None:  # the runner rescales VLM-T and the VLM-I family only
            assert shown not in results
        else:
            assert results[shown] == pytest.approx(rescaled), shown
            assert results["coverage"][shown] == pytest.approx(coverage), shown


def test_judge_scores_give_both_scales(code_metric) -> None:
    results = code_metric.compute(
        predictions=[SELF_ANSWER] * 4, references=[REFERENCE] * 4, **JUDGE_INPUTS
    )
    _check_judge(results, EXPECTED_JUDGE)
    # Same numbers as the library's likert_means.
    means = scoring.likert_means(
        text=JUDGE_INPUTS["text_scores"],
        step_accuracy=JUDGE_INPUTS["step_accuracy"],
        process_consistency=JUDGE_INPUTS["process_consistency"],
        problem_solution=JUDGE_INPUTS["problem_solution_accuracy"],
        result=JUDGE_INPUTS["result_scores"],
    )
    assert {name: results[name] for name in means} == {
        name: m["published"] for name, m in means.items()
    }


def test_judge_metrics_appear_only_with_their_inputs(code_metric) -> None:
    plain = code_metric.compute(predictions=[SELF_ANSWER], references=[REFERENCE])
    assert not set(plain) & set(scoring.JUDGE_ALL)
    result_only = code_metric.compute(
        predictions=[SELF_ANSWER], references=[REFERENCE], result_scores=[3]
    )
    judged = set(result_only) & set(scoring.JUDGE_ALL)
    assert judged == {"VLM-I-Res", "VLM-I-Res (0-100)"}  # no VLM-I without the step scores
    assert (result_only["VLM-I-Res"], result_only["VLM-I-Res (0-100)"]) == (0.6, 0.5)
    unjudged = code_metric.compute(
        predictions=[SELF_ANSWER], references=[REFERENCE], text_scores=[None]
    )
    assert unjudged["VLM-T"] is None and unjudged["coverage"]["VLM-T"] == 0.0


@pytest.mark.parametrize(
    ("predictions", "references", "kwargs", "message"),
    [
        (
            [SELF_ANSWER] * 2,
            [REFERENCE] * 2,
            {"result_scores": [5, 7]},
            r"item 1, result_scores: .*1 to 5.*got 7",
        ),
        (
            [SELF_ANSWER] * 2,
            [REFERENCE] * 2,
            {"text_scores": [0, 3]},
            r"item 0, text_scores: .*got 0",
        ),
        (
            [SELF_ANSWER] * 2,
            [REFERENCE] * 2,
            {"text_scores": [3, 2.5]},
            r"item 1, text_scores: .*got 2\.5",
        ),
        (
            [SELF_ANSWER] * 2,
            [REFERENCE] * 2,
            {"text_scores": [True, 3]},
            r"item 0, text_scores: .*got True",
        ),
        (
            [SELF_ANSWER] * 2,
            [REFERENCE] * 2,
            {"problem_solution_accuracy": [3, "4"]},
            r"item 1, problem_solution_accuracy",
        ),
        (
            [SELF_ANSWER] * 2,
            [REFERENCE] * 2,
            {"text_scores": [3]},
            r"text_scores: expected one entry per item \(2 items\), got a list of 1",
        ),
        (
            [SELF_ANSWER] * 2,
            [REFERENCE] * 2,
            {"text_scores": "55"},
            r"text_scores: expected one entry per item \(2 items\), got a string",
        ),
        (
            [SELF_ANSWER] * 2,
            [REFERENCE] * 2,
            {"step_accuracy": [3, 3]},
            r"step_accuracy and process_consistency go together",
        ),
        (
            [SELF_ANSWER] * 2,
            [REFERENCE, "  "],
            {},
            r"item 1, references: the reference script is empty",
        ),
        (
            [SELF_ANSWER] * 2,
            [REFERENCE, None],
            {},
            r"item 1, references: expected a string, got None",
        ),
        (
            [SELF_ANSWER] * 3,
            [REFERENCE] * 2,
            {},
            r"Mismatch in the number of predictions \(3\) and references \(2\)",
        ),
    ],
)
def test_code_bad_input_names_item_and_field(
    code_metric, predictions, references, kwargs, message
) -> None:
    with pytest.raises(ValueError, match=message):
        code_metric.compute(predictions=predictions, references=references, **kwargs)


# --------------------------------------------------------------------------- image track


def test_identical_images_give_ssim_1_and_capped_psnr(image_metric, figures) -> None:
    png = figures["reference"]
    results = image_metric.compute(
        predictions=[{"bytes": png}], references=[{"bytes": png}], per_item=True
    )
    assert results["SSIM"] == pytest.approx(1.0)
    assert results["PSNR"] == scoring.PSNR_CAP == 100.0
    assert results["coverage"] == {"PSNR": 1.0, "SSIM": 1.0}
    assert results["unscored"] == {}
    assert "LPIPS" not in results  # not asked for
    assert results["notes"] == [
        "PSNR capped at 100 dB for 1 of 1 item(s) identical to the reference at 256×256 (their PSNR is infinite)"
    ]
    assert "PSNR ∞" in results["per_item"][0]["PSNR"]["explanation"]


def test_different_images_match_imagemetrics(image_metric, figures) -> None:
    reference, square, segment = figures["reference"], figures["square"], figures["segment"]
    results = image_metric.compute(
        predictions=[{"bytes": square}, {"bytes": segment}], references=[{"bytes": reference}] * 2
    )
    expected = [imagemetrics.image_metrics(p, reference) for p in (square, segment)]
    assert all(e["PSNR"] < scoring.PSNR_CAP for e in expected)
    assert results["PSNR"] == pytest.approx(sum(e["PSNR"] for e in expected) / 2)
    assert results["SSIM"] == pytest.approx(sum(e["SSIM"] for e in expected) / 2)
    assert results["SSIM"] < 1 and results["notes"] == []


def test_image_forms_give_the_same_numbers(image_metric, figures, tmp_path: Path) -> None:
    square = figures["square"]
    path = tmp_path / "square.png"
    path.write_bytes(square)
    forms = [Image.open(io.BytesIO(square)), str(path), {"bytes": square, "path": None}]
    results = image_metric.compute(
        predictions=forms, references=[{"bytes": figures["reference"]}] * 3, per_item=True
    )
    values = [(item["PSNR"]["value"], item["SSIM"]["value"]) for item in results["per_item"]]
    assert values[0] == values[1] == values[2]


def test_none_prediction_is_unscored_as_no_response(image_metric, figures) -> None:
    png = figures["reference"]
    results = image_metric.compute(
        predictions=[None, {"bytes": png}], references=[{"bytes": png}] * 2
    )
    assert results["SSIM"] == pytest.approx(1.0) and results["PSNR"] == 100.0
    assert results["coverage"] == {"PSNR": 0.5, "SSIM": 0.5}
    reason = [{"item": 0, "reason": "model failed: no response"}]
    assert results["unscored"] == {"PSNR": reason, "SSIM": reason}

    nothing = image_metric.compute(predictions=[None], references=[{"bytes": png}])
    assert nothing["PSNR"] is None and nothing["SSIM"] is None
    assert nothing["coverage"] == {"PSNR": 0.0, "SSIM": 0.0}


def test_a_blank_drawing_is_scored_at_the_floor_as_a_run_scores_it(image_metric, figures) -> None:
    png = figures["reference"]
    white = io.BytesIO()
    Image.new("RGB", (64, 64), "white").save(white, format="PNG")
    results = image_metric.compute(
        predictions=[{"bytes": white.getvalue()}, {"bytes": png}], references=[{"bytes": png}] * 2, per_item=True
    )
    assert results["coverage"] == {"PSNR": 1.0, "SSIM": 1.0} and results["unscored"] == {}
    blank = results["per_item"][0]
    assert blank["PSNR"]["value"] == 0.0 and blank["SSIM"]["value"] == 0.0
    assert "blank" in blank["PSNR"]["explanation"]
    assert results["PSNR"] == pytest.approx(100.0 / 2) and results["SSIM"] == pytest.approx(1.0 / 2)


def test_the_backend_floors_an_undecodable_drawing_and_names_an_item_that_is_no_image(figures) -> None:
    # Through `evaluate`, datasets decodes the images first; the backend (also the Space's)
    # takes raw bytes, where a drawing that cannot be decoded is the model's failure.
    from geomeval.benchmarks.ggbench.evaluation import evaluate_images

    png = figures["reference"]
    results = evaluate_images([b"not a png", b"", png], [png] * 3, per_item=True)
    assert results["coverage"] == {"PSNR": 1.0, "SSIM": 1.0}
    for item in results["per_item"][:2]:
        assert item["PSNR"]["value"] == 0.0 and "unreadable" in item["PSNR"]["explanation"]
    with pytest.raises(ValueError, match=r"item 1, predictions: .*not found"):
        evaluate_images([png, "/no/such/drawing.png"], [png] * 2)
    with pytest.raises(ValueError, match=r"item 0, predictions: not an image"):
        evaluate_images([3.5], [png])


def test_lpips_unavailable_gives_a_note_not_a_number(
    image_metric, figures, tmp_path, monkeypatch
) -> None:
    # Point the AlexNet weights at a file that does not exist, so LPIPS cannot run here
    # whether or not the lpips package is installed.
    monkeypatch.setenv(imagemetrics.ALEXNET_ENV, str(tmp_path / "missing-alexnet.pth"))
    reason = imagemetrics.lpips_status()
    assert reason is not None
    png = figures["reference"]
    results = image_metric.compute(
        predictions=[{"bytes": figures["square"]}, None],
        references=[{"bytes": png}] * 2,
        lpips=True,
    )
    assert "LPIPS" not in results and "LPIPS" not in results["coverage"]
    assert "LPIPS" not in results["unscored"]
    assert results["notes"] == [f"LPIPS not computed: {reason}"]
    assert results["SSIM"] is not None  # the other metrics are unaffected


def test_lpips_when_available_is_averaged_with_coverage(image_metric, figures, monkeypatch) -> None:
    """LPIPS's own numbers need the AlexNet weights (tested in test_imagemetrics when present);
    here a stand-in distance checks that an available LPIPS is reported like the others."""
    monkeypatch.setattr(imagemetrics, "_lpips_model", lambda: object())
    monkeypatch.setattr(
        imagemetrics,
        "_lpips",
        lambda a, b: float(np.abs(a.astype(float) - b.astype(float)).mean() / 255),
    )
    png = figures["reference"]
    results = image_metric.compute(
        predictions=[{"bytes": png}, {"bytes": figures["square"]}, None],
        references=[{"bytes": png}] * 3,
        lpips=True,
    )
    square = imagemetrics.load_image(figures["square"]).astype(float)
    reference = imagemetrics.load_image(png).astype(float)
    assert results["LPIPS"] == pytest.approx((0.0 + np.abs(square - reference).mean() / 255) / 2)
    assert results["coverage"]["LPIPS"] == pytest.approx(2 / 3)
    assert results["unscored"]["LPIPS"] == [{"item": 2, "reason": "model failed: no response"}]
    assert not any(note.startswith("LPIPS") for note in results["notes"])


def test_image_judge_scores(image_metric, figures) -> None:
    png = {"bytes": figures["reference"]}
    results = image_metric.compute(predictions=[png] * 4, references=[png] * 4, **JUDGE_INPUTS)
    _check_judge(results, EXPECTED_JUDGE)
    assert results["coverage"]["SSIM"] == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"step_accuracy": [5, 7], "process_consistency": [5, 5]},
            r"item 1, step_accuracy: .*got 7",
        ),
        ({"result_scores": [5]}, r"result_scores: expected one entry per item \(2 items\)"),
        ({"process_consistency": [5, 5]}, r"step_accuracy and process_consistency go together"),
    ],
)
def test_image_bad_judge_input(image_metric, figures, kwargs, message) -> None:
    png = {"bytes": figures["reference"]}
    with pytest.raises(ValueError, match=message):
        image_metric.compute(predictions=[png, png], references=[png, png], **kwargs)


def test_image_reference_is_required(image_metric, figures) -> None:
    png = {"bytes": figures["reference"]}
    with pytest.raises(ValueError, match=r"item 1, references: a reference image is required"):
        image_metric.compute(predictions=[png, png], references=[png, None])


# --------------------------------------------------------------------------- packaging and cards


@pytest.mark.parametrize("name", ["ggbench_code", "ggbench_image"])
def test_metric_path_and_card(name: str) -> None:
    folder = Path(metric_path(name))
    assert folder.is_dir() and folder.name == name and (folder / f"{name}.py").is_file()
    body = card_body(
        name, "## Metric Variants", "## Where geomeval Departs from GGBench's Official Scorer"
    )
    assert "2511.11134" in body and "1,411" in body


def test_packaging_ships_the_ggbench_metrics(setup_packages: Callable[[], list[str]]) -> None:
    packages = setup_packages()
    for name in ("ggbench_code", "ggbench_image"):
        assert f"geomeval.metrics.{name}" in packages
        assert (REPO / "metrics" / name / f"{name}.py").is_file()
