"""GGBench scoring on real constructions: the engine's Pass@1 and verifier, code and pixel
similarity, and judge metrics that stay unscored (never zero) without a judge."""

from __future__ import annotations

import asyncio
import base64

import pytest

from geomeval.benchmarks.ggbench import scoring
from geomeval.benchmarks.ggbench.benchmark import GGBench
from geomeval.core.records import SampleRecord
from geomeval.engines.engine import score_record_sync
from geomeval.engines.judges import Judge
from geomeval.geogebra import render_png, run_blocks

# Reference: the perpendicular bisector of AB with compass circles, then the midpoint.
REFERENCE_STEPS = [
    "A = (0, 0)\nB = (4, 0)\ns = Segment(A, B)",
    "c_1 = Circle(A, B)\nc_2 = Circle(B, A)\nP = Intersect(c_1, c_2, 1)\nQ = Intersect(c_1, c_2, 2)",
    "m = Line(P, Q)\nM = Intersect(m, s)",
]

# The same construction rotated by 90° and scaled by 2 (A and B placed elsewhere).
ROTATED_SCALED = """Plan: draw AB, the two compass circles, and join their intersections.

Step 1: the segment.
```geogebra
A = (1, 1)
B = (1, 9)
s = Segment(A, B)
```
Step 2: circles of radius AB about A and B, and their intersections.
```geogebra
c_1 = Circle(A, B)
c_2 = Circle(B, A)
P = Intersect(c_1, c_2, 1)
Q = Intersect(c_1, c_2, 2)
```
Step 3: the bisector and the midpoint.
```geogebra
m = Line(P, Q)
M = Intersect(m, s)
```
"""

# Runs, but constructs the wrong line (the perpendicular at A, not the bisector).
WRONG = """Step 1:
```geogebra
A = (0, 0)
B = (4, 0)
s = Segment(A, B)
m = PerpendicularLine(A, s)
M = Intersect(m, s)
```
"""

# A model's typical failure: a command GeoGebra does not have.
BROKEN = """Step 1:
```geogebra
A = (0, 0)
B = (4, 0)
s = Segment(A, B)
m = PerpendicularBisector(A, B)
M = Midpoint(s)
X = Orthocenter(A, B, M)
```
"""


def _target() -> dict:
    construction = run_blocks(REFERENCE_STEPS)
    png = render_png(construction, size=scoring.RENDER_SIZE)
    return {
        "problem": "Construct the perpendicular bisector of AB with straightedge and compass.",
        "steps": [{"text": f"step {i}", "code": code} for i, code in enumerate(REFERENCE_STEPS, 1)],
        "reference_script": "\n".join(REFERENCE_STEPS),
        "inspection": "Perpendicular Bisector, Midpoint",
        "final_image": scoring.reference_image_b64({"bytes": png}),
    }


def _as_answer(steps: list[str]) -> str:
    return "\n".join(f"Step {i}:\n```geogebra\n{code}\n```" for i, code in enumerate(steps, 1))


def _score(response: str, task: str = "ggbench_code") -> dict:
    record = SampleRecord(id="1", benchmark="ggbench", task=task, target=_target(), meta={}, response=response)
    scores = asyncio.run(scoring.score_record(record, Judge("offline"), GGBench().prompts))
    return {name: score for name, score in scores.items()}


def test_reference_scores_one_against_itself() -> None:
    scores = _score(_as_answer(REFERENCE_STEPS))
    assert scores["Pass@1"].value == 1.0
    assert scores["verifier"].value == 1.0
    assert scores["BLEU"].value == pytest.approx(1.0)
    assert scores["edit_distance"].value == 0.0
    assert scores["SSIM"].value == pytest.approx(1.0)
    assert scores["PSNR"].value == scoring.PSNR_CAP  # identical: capped, not infinite


def test_figures_are_drawn_only_for_what_reads_them(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The reference figure is drawn once (then the figure cache has it); an answer with the
    reference's code is that figure; without a judge no PNG is made for the answer; a blank
    figure gets no long image. The scores are those of drawing everything each time."""
    from geomeval.geogebra import figures

    monkeypatch.setenv("GEOMEVAL_CACHE_DIR", str(tmp_path))  # no figure from an earlier test
    monkeypatch.setattr(figures, "_shared", None)
    drawn: list[str] = []
    for name in ("render_image", "render_long_image", "encode_png"):
        original = getattr(scoring, name)
        monkeypatch.setattr(scoring, name, lambda *a, _f=original, _n=name, **k: drawn.append(_n) or _f(*a, **k))
    target, own = _target(), _as_answer(REFERENCE_STEPS)
    other = _as_answer(REFERENCE_STEPS[:-1])
    _, first, _ = scoring.code_track(other, target, None, False, "rendered", False)
    assert drawn == ["render_image", "encode_png", "render_image"]  # the reference (kept as PNG), the answer
    drawn.clear()
    result, again, _ = scoring.code_track(other, target, None, False, "rendered", False)
    assert drawn == ["render_image"] and again == first and result.final is None
    drawn.clear()
    result, same, _ = scoring.code_track(own, target, None, False, "rendered", True)
    assert drawn == ["render_long_image"] and same["SSIM"].value == pytest.approx(1.0)
    assert result.final == render_png(run_blocks(REFERENCE_STEPS), size=scoring.RENDER_SIZE,
                                      window=scoring.fit_window(run_blocks(REFERENCE_STEPS), size=scoring.RENDER_SIZE))
    drawn.clear()
    result, _, _ = scoring.code_track("```geogebra\nFoo(1)\n```", target, None, False, "rendered", True)
    assert result.blank and result.final is None and result.long is None and drawn == ["render_image"]


def test_rotated_and_scaled_copy_still_verifies() -> None:
    scores = _score(ROTATED_SCALED)
    assert scores["Pass@1"].value == 1.0
    assert scores["verifier"].value == 1.0, scores["verifier"].explanation
    assert scores["edit_distance"].value > 0  # the code differs, the construction does not
    assert scores["SSIM"].value < 1.0  # drawn elsewhere in the reference's view


def test_wrong_and_broken_constructions_score_lower() -> None:
    wrong, broken = _score(WRONG), _score(BROKEN)
    assert wrong["Pass@1"].value == 1.0 and wrong["verifier"].value < 1.0
    assert broken["Pass@1"].value == 0.0
    assert "Orthocenter" in broken["Pass@1"].explanation
    assert broken["verifier"].value < 1.0
    reference = _score(_as_answer(REFERENCE_STEPS))
    for name in ("BLEU", "ROUGE-L", "chrF", "RUBY"):
        assert wrong[name].value < reference[name].value


def test_answers_without_fences_run_as_a_script() -> None:
    bare = _score("\n".join(REFERENCE_STEPS))  # a bare script is run as it is
    assert bare["Pass@1"].value == 1.0 and bare["verifier"].value == 1.0
    prose = _score("I would draw two circles and join their intersections.")
    assert prose["Pass@1"].value == 0.0 and "line 1" in prose["Pass@1"].explanation
    assert prose["verifier"].value == 0.0
    empty = _score("")
    assert empty["Pass@1"].value == 0.0 and "no GeoGebra code" in empty["Pass@1"].explanation
    # no code is the model's failure: each pixel metric at its worst value, never left out
    assert (empty["SSIM"].value, empty["PSNR"].value) == (0.0, 0.0) and "no GeoGebra code" in empty["SSIM"].explanation


def test_code_that_draws_nothing_is_never_compared_as_a_blank_canvas() -> None:
    """Every line failing draws a white canvas, which looks much like a white-background
    reference (SSIM ≈ 0.84): it is scored at the floor, as is code drawing nothing visible."""
    for answer, why in (("P = ParallelLine(A, B)\nQ = Orthocenter(A, B, C)", "no line of the answer ran"),
                        ("a = 3\nb = a + 1", "draws nothing visible")):
        scores = _score(_as_answer(answer.split("\n")))
        assert scores["SSIM"].value == 0.0 and scores["PSNR"].value == 0.0, answer
        assert why in scores["SSIM"].explanation


def test_offline_judge_leaves_judge_metrics_unscored_not_zero() -> None:
    scores = _score(_as_answer(REFERENCE_STEPS))
    for name in ("VLM-T", "VLM-I-Mid", "VLM-I-Res", "VLM-I", "VLM-I (0-100)", "Problem-Solution Accuracy"):
        assert scores[name].value is None and scores[name].needs_judge, name


def test_model_failure_is_unscored() -> None:
    record = SampleRecord(id="1", benchmark="ggbench", task="ggbench_code", target=_target(), meta={},
                          generation_error="HTTP 500")
    scores = score_record_sync(GGBench(), record, Judge("offline"))  # the engine's rule, before the scorer
    assert all(not s.scored and "HTTP 500" in (s.unscored or "") for s in scores.values())


def test_reference_image_kept_in_the_record_is_small_png() -> None:
    data = base64.b64decode(_target()["final_image"])
    assert data.startswith(b"\x89PNG") and len(data) < 100_000


def test_plan_text_drops_code_blocks() -> None:
    assert scoring.plan_text("Plan: X.\n```geogebra\nA = (0, 0)\n```\nThen Y.") == "Plan: X.\nThen Y."


def test_a_jar_harness_failure_leaves_pass_at_1_unscored_and_a_script_timeout_scores_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`-T engine=jar`: a timeout is the script's failure (0); the harness's own failure (its
    pipe gone, output it cannot read) says nothing of the answer, so Pass@1 is unscored."""
    from geomeval.benchmarks.ggbench.scoring import jar_pass_at_1_score
    from geomeval.geogebra import jar_scoring

    def verdict(error: str, harness: bool):
        return lambda code: {"passed": False, "lines": 1, "failed": [], "error": error, "harness_failure": harness}

    monkeypatch.setattr(jar_scoring, "jar_pass_at_1", verdict("harness exited before the script ran: EPIPE", True))
    score, failed = jar_pass_at_1_score("A = (0, 0)")
    assert score.value is None and "harness failure" in (score.unscored or "") and failed == []
    monkeypatch.setattr(jar_scoring, "jar_pass_at_1", verdict("timeout after 60 s (JVM restarted)", False))
    score, _ = jar_pass_at_1_score("A = (0, 0)")
    assert score.value == 0.0 and "timeout" in score.explanation
