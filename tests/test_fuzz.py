"""Bounded fuzzing of what a model can answer: GeoGebra scripts with extreme numbers and
degenerate shapes, and answers for the checker. Each property is what a run relies on: the
engine reports a script's failure per line and never raises; a GGBench answer gets every
deterministic metric (a value or its floor), never a scoring error; the answer checker
returns a verdict quickly. Example counts are fixed and small, so the suite stays fast."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomeval.answers import check_answer
from geomeval.benchmarks.ggbench import scoring
from geomeval.geogebra import run_script
from geomeval.geogebra.syntax import ParseError

EXTREME = st.sampled_from(["0", "-0", "1e308", "-1e308", "1e-320", "1e300", "7", "-3.5", "0.0001", "1/0", "sqrt(-1)"])
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
            f"Rotate({a}, {draw(EXTREME)}°, {b})", f"Dilate({a}, {draw(EXTREME)}, {b})",
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
def test_the_answer_checker_answers_quickly(prediction: str, gold: str) -> None:
    started = time.monotonic()
    verdict = check_answer(prediction, gold)
    assert isinstance(verdict.equal, bool) and verdict.rule
    assert time.monotonic() - started < 6.0  # the symbolic fallback's own hard limit, never more
