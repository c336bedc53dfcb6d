"""Bounded fuzzing of what a model can answer: GeoGebra scripts with extreme numbers and
degenerate shapes, and answers for the checker. Each property is what a run relies on: the
engine reports a script's failure per line and never raises; a GGBench answer gets every
deterministic metric (a value or its floor), never a scoring error; the answer checker
returns a verdict or says it is undecided. Example counts are fixed and small, so the suite stays fast."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomeval.answers import (
    check_answer,
    extract_final_answer,
    parse_json_object,
    read_option_letter,
)
from geomeval.benchmarks.ggbench import scoring
from geomeval.geogebra import run_script
from geomeval.geogebra.syntax import ParseError
from geomeval.geogebra.verify import verify

EXTREME = st.sampled_from([
    "0", "-0", "1e308", "-1e308", "1e-320", "1e300", "1e200", "1e154", "1e49", "-4e49", "1e50", "7", "-3.5",
    "0.0001", "1/0", "sqrt(-1)",
])
LABELS = st.sampled_from(["A", "B", "C", "D"])


@st.composite
def scripts(draw: st.DrawFn) -> str:
    lines = [f"{label} = ({draw(EXTREME)}, {draw(EXTREME)})" for label in "ABCD"]
    for _ in range(draw(st.integers(1, 6))):
        a, b, c = draw(LABELS), draw(LABELS), draw(LABELS)
        lines.append(draw(st.sampled_from([
            f"Segment({a}, {b})", f"Circle({a}, {b})", f"Polygon({a}, {b}, {c})", f"Line({a}, {b})",
            f"Midpoint({a}, {b})", f"PerpendicularBisector({a}, {b})", f"Circle({a}, {b}, {c})",
            f"Angle({a}, {b}, {c})", f"Intersect(Line({a}, {b}), Line({b}, {c}))", f"Distance({a}, {b})",
            f"Rotate({a}, {draw(EXTREME)}°, {b})", f"Dilate({a}, {draw(EXTREME)}, {b})", f"Ray({a}, {b})",
            f"Semicircle({a}, {b})", f"CircularArc({a}, {b}, {c})", f"Tangent({a}, Circle({b}, {c}))",
            f"Vector({a}, {b})", f"Reflect({a}, Line({b}, {c}))",
        ])))
    return "\n".join(lines)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_the_engine_reports_failures_per_line_and_never_raises(script: str) -> None:
    try:
        construction = run_script(script)
    except ParseError:
        return  # a refused script is a reported failure too
    assert len(construction.lines) == script.count("\n") + 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_the_verifier_scores_any_construction_as_candidate_or_reference(script: str) -> None:
    _verify_both_ways(script)


def _verify_both_ways(script: str) -> None:
    """`script`'s construction verified as the candidate, as the reference, and against itself."""
    try:
        built = run_script(script)
    except ParseError:
        return
    plain = run_script(PLAIN)
    for candidate, reference in ((built, plain), (plain, built), (built, built)):
        assert 0.0 <= verify(candidate, reference).score <= 1.0


PLAIN = "A = (0, 0)\nB = (4, 0)\nC = (0, 3)\nPolygon(A, B, C)\nc = Circle(A, B)"

# Each once crashed the verifier (overflow, an infinite or NaN grid index, an underflowing
# phase) and so cost the answer its whole item; found by fuzzing, kept as they were found.
CRASHED_THE_VERIFIER = [
    "A = (1e308, 1/0)\nB = (2, 1e200)\nC = (1e200, -0)\nD = (1e-320, -0)\nLine(D, D)\nSegment(D, A)\n"
    "Rotate(D, 1/0°, C)\nSegment(A, A)",
    "A = (2, 0.0001)\nB = (7, 1/0)\nC = (2, 0)\nD = (-3.5, -1e308)\nDilate(D, 0.0001, D)\nVector(A, D)\n"
    "Tangent(D, Circle(C, D))\nPerpendicularBisector(A, C)\nReflect(B, Line(A, B))\nDilate(B, 1/0, D)",
    "A = (1e-320, -1e308)\nB = (-1e308, 1e300)\nC = (-0, 2)\nD = (1e-320, -0)\nCircle(A, C)\n"
    "Distance(C, B)\nPolygon(B, C, A)\nRay(B, B)",
    "A = (1e308, -0)\nB = (-3.5, 1e308)\nC = (sqrt(-1), -1e308)\nD = (1e308, 1e154)\nTangent(D, Circle(D, C))",
    "A = (1e300, -0)\nB = (-1e308, sqrt(-1))\nC = (1e300, 0)\nD = (0, 0)\nPolygon(C, D, D)\n"
    "Circle(A, C, D)\nCircle(D, C, C)",
    "A = (-0, sqrt(-1))\nB = (1e154, 1e308)\nC = (2, 1/0)\nD = (-3.5, 1/0)\nMidpoint(B, C)\nRay(B, D)\n"
    "Distance(B, A)\nTangent(A, Circle(A, B))\nSegment(A, B)\nCircularArc(B, A, D)",
    "A = (0.0001, 0.0001)\nB = (1e308, 0)\nC = (1e308, 1e-320)\nD = (sqrt(-1), -1e308)\nCircle(B, A)\n"
    "Polygon(A, C, A)\nPerpendicularBisector(A, A)\nTangent(D, Circle(A, C))\nAngle(C, B, B)",
    "A = (7, sqrt(-1))\nB = (0, 1e308)\nC = (1e-320, 1e300)\nD = (-1e308, -0)\nRotate(C, 1e200°, D)\n"
    "Semicircle(C, D)",
    "A = (0, 1e-320)\nB = (1e300, -0)\nC = (7, 4)\nD = (-3.5, 1e-320)\nLine(C, C)\nCircularArc(D, D, C)\n"
    "Tangent(B, Circle(B, C))\nCircle(B, C, C)\nCircularArc(A, D, C)",
    "A = (-1e308, -1e308)\nB = (4, 1e-320)\nC = (-0, 1e154)\nD = (1e308, 2)\nSegment(A, A)\n"
    "Distance(B, A)\nPerpendicularBisector(C, A)\nMidpoint(D, C)\nMidpoint(D, D)",
    "A = (1e300, sqrt(-1))\nB = (4, 4)\nC = (-0, 1e154)\nD = (-0, 7)\nCircle(A, C)\nDilate(C, 4, D)\n"
    "Reflect(C, Line(A, D))\nPerpendicularBisector(B, C)\nRotate(D, 2°, C)\nLine(C, B)",
    "A = (1e200, 1e-320)\nB = (1e300, 1e300)\nC = (1e300, 1e200)\nD = (-3.5, 0)\nRotate(A, 7°, B)\n"
    "Circle(A, D, C)\nPerpendicularBisector(A, C)\nPolygon(A, A, D)\nPolygon(B, B, A)",
    "A = (1e308, 1e154)\nB = (1e-320, -0)\nC = (-0, 1e154)\nD = (-1e308, 1e308)\nMidpoint(A, D)\n"
    "Vector(B, B)\nReflect(B, Line(A, A))\nLine(D, D)\nDistance(C, C)\nSemicircle(C, D)",
    "A = (2, -0)\nB = (2, 1e200)\nC = (-1e308, -4e49)\nD = (1e49, 1e-320)\nSegment(B, A)",
    "A = (-0, 0.0001)\nB = (4, -0)\nC = (1e49, 1e-320)\nD = (1e308, -4e49)\nRotate(A, 1/0°, C)\n"
    "Intersect(Line(D, D), Line(D, C))\nDilate(B, sqrt(-1), D)\nPolygon(A, B, C)\nIntersect(Line(C, A), Line(A, B))",
]


@pytest.mark.parametrize("script", CRASHED_THE_VERIFIER)
def test_inputs_that_once_crashed_the_verifier_are_scored(script: str) -> None:
    run_script(script)  # each parses
    _verify_both_ways(script)


def test_coordinates_past_the_comparable_range_count_as_missing() -> None:
    """A point at 1e51 is as absent as an undefined one; at 1e49 it is still compared."""
    far = verify(run_script("A = (1e51, 0)\nB = (4, 0)"), run_script("A = (1e51, 0)\nB = (4, 0)"))
    assert [check.passed for check in far.checks] == [True]  # B alone is scored, and found
    near = verify(run_script("A = (1e49, 0)\nB = (4, 0)"), run_script("A = (1e49, 0)\nB = (4, 0)"))
    assert near.score == 1.0 and len(near.checks) == 2


REFERENCE = {"reference_script": "A = (0, 0)\nB = (4, 0)\nC = (0, 3)\nPolygon(A, B, C)", "steps": []}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_every_deterministic_ggbench_metric_is_a_value_or_its_floor(script: str) -> None:
    drawn, scores, _ = scoring.code_track(f"```geogebra\n{script}\n```", REFERENCE, None, False)
    for name in ("Pass@1", "verifier", *scoring.CODE_METRICS):
        assert scores[name].scored, (name, scores[name])
    assert drawn.construction is None  # what crosses the sandbox pickles


ANSWERS = st.one_of(
    st.text(max_size=60),
    st.builds(lambda a, b: f"{a}^{{{b}}}", st.integers(-10**6, 10**6), st.integers(-10**6, 10**6)),
    st.builds(lambda a: f"\\frac{{{a}}}{{0}}", st.integers()),
    st.sampled_from(["10^{10^{10}}", "9^9^9", "\\sqrt{-1}", "1e400", "(((((((((1)))))))))", "∞", "NaN"]),
)


@settings(max_examples=200, deadline=None)
@given(ANSWERS, st.sampled_from(["1", "3\\sqrt{3}/2", "25°", "A", "(2, 3)"]))
def test_the_answer_checker_decides_or_says_it_is_undecided(prediction: str, gold: str) -> None:
    """Within its work budget (CPU seconds of its worker, never the clock) the checker gives a
    verdict, or says it is undecided (not equal) for the benchmarks to leave unscored."""
    verdict = check_answer(prediction, gold)
    assert isinstance(verdict.equal, bool) and verdict.rule
    assert verdict.decided or (not verdict.equal and "undecided" in verdict.detail)


# --------------------------------------------------------------------------- every answer scored
# A model's answer is untrusted text: whatever it is, parsing it never raises out of the
# checker or the extractor, and every benchmark's scorer ends with the answer scored (right or
# wrong) or explicitly undecided, never a "scoring error" (which would drop it from the means).

LATEX_PIECES = st.sampled_from([
    "\\sqrt", "\\frac", "\\dfrac", "\\sqrt[", "{", "}", "\\", "\\\\", "[", "]", "(", ")", "2", "3", "0", "x",
    "a", "^", "_", "°", "^\\circ", "\\pi", "π", "√", "$", "\\text", "\\boxed{", "\\left(", "\\right)", "=",
    ",", "、", "A", "(B)", " ", "\\cdot", "-", "/", "1e400", "\\sin", "²", "'", "%", "\\unknown", "答案为",
    "The answer is", "<answer>", "</answer>", "```json\n{\"answer\": \"", "\"}\n```", "\n",
])
MODEL_ANSWERS = st.one_of(
    st.lists(LATEX_PIECES, max_size=14).map("".join),
    st.text(max_size=40),
    st.sampled_from(["x\\sqrt\\", "\\sqrt\\", "\\frac\\", "\\frac{1}\\", "2\\sqrt[3]\\", "\\boxed{\\sqrt\\}",
                     "\\sqrt[", "\\frac{", "{{{{", "}}}}", "\\text\\"]),
)
GOLDS = st.sampled_from(["1", "3\\sqrt{3}/2", "25°", "A", "(2, 3)", "\\frac{\\pi}{3}", "2, 3"])


def test_an_answer_ending_in_a_dangling_backslash_is_scored_wrong() -> None:
    """Found by fuzzing: `\\sqrt\\` once raised AssertionError and the item became a scoring error."""
    for answer in ("x\\sqrt\\", "\\sqrt\\", "\\frac{1}\\"):
        verdict = check_answer(answer, "2", symbolic=False)
        assert verdict.equal is False and verdict.rule == "text"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(MODEL_ANSWERS, GOLDS)
def test_the_checker_and_the_extractor_never_raise_on_a_models_answer(answer: str, gold: str) -> None:
    found = extract_final_answer(answer, letters="ABCD")
    assert found.answer is None or isinstance(found.answer, str)
    parse_json_object(answer)
    read_option_letter(answer, "ABCD")
    for prediction in {answer, found.answer}:
        verdict = check_answer(prediction, gold, symbolic=False)
        assert isinstance(verdict.equal, bool) and verdict.rule
        verdict = check_answer(prediction, "C", choices=["A. 1", "B. 2", "C. 3\\sqrt{3}/2", "D. 25°"], symbolic=False)
        assert isinstance(verdict.equal, bool) and verdict.rule


@settings(max_examples=40, deadline=None, derandomize=True)
@given(MODEL_ANSWERS, GOLDS)
def test_the_checker_with_its_symbolic_fallback_never_raises(answer: str, gold: str) -> None:
    verdict = check_answer(answer, gold)
    assert isinstance(verdict.equal, bool) and verdict.rule


# A task of each benchmark that reads a model's text (through the checker, the extractor, the
# caption rules or the engine), and the metric that says how right the answer was.
ANSWER_METRICS = {
    ("capgeo", "capgeo_reasoning"): "accuracy",
    ("capgeo_bench", "capgeo_bench"): "elements recall",  # a caption, read by the keypoint rules
    ("geoeval", "geoeval_2000"): "A",
    ("geolaux", "geolaux"): "ACS",
    ("me2", "me2_solve"): "accuracy",
    ("me2", "me2_keypoints"): "accuracy",
    ("ggbench", "ggbench_code"): "Pass@1",
}
_SAMPLE_ITEMS: dict[tuple[str, str], Any] = {}


def _sample_item(name: str, task: str) -> tuple[Any, Any]:
    from geomeval.benchmarks import get_benchmark

    if (name, task) not in _SAMPLE_ITEMS:
        bench = get_benchmark(name)
        _SAMPLE_ITEMS[name, task] = (bench, bench.load_items(None, task, 2))
    return _SAMPLE_ITEMS[name, task]


@pytest.mark.parametrize(("name", "task"), list(ANSWER_METRICS))
def test_every_benchmark_scores_any_answer_right_wrong_or_undecided(name: str, task: str) -> None:
    from geomeval.engines.engine import score_record_sync
    from geomeval.engines.judges import Judge

    bench, items = _sample_item(name, task)
    metric = ANSWER_METRICS[name, task]

    @settings(max_examples=8 if name == "ggbench" else 25, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(MODEL_ANSWERS, st.sampled_from(["", "The final answer is: ", "\\boxed{", "<answer>"]), st.integers(0, 1))
    def scored(answer: str, lead: str, index: int) -> None:
        record = bench.new_record(items[index % len(items)], task)
        record.response = lead + answer
        scores = score_record_sync(bench, record, Judge("offline"))
        for score in scores.values():
            assert not (score.unscored or "").startswith("scoring error"), (record.response, score)
        assert _ends_decided(scores[metric]), (record.response, scores[metric])

    scored()


def _ends_decided(score: Any) -> bool:
    """Scored (right or wrong), or unscored with the checker explicitly undecided."""
    return score.scored or "undecided" in (score.unscored or "")
