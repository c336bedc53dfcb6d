"""GeoEval backward problems: which numbers are givens, the masked text, and determinism."""

from __future__ import annotations

import string

import pytest

from geomeval.benchmarks.geoeval.backward import (
    BACKWARD_QUESTION,
    BackwardProblem,
    NotMaskable,
    backward_question,
    build_backward,
    make_backward,
    maskable_numbers,
)

RIGHT_TRIANGLE = "In right triangle ABC, ∠C = 90°, AC = 6 cm and BC = 8 cm. Find the length of AB."
UNIGEO = "As shown in Figure 1, AB ∥ CD, ∠1 = 50°, then the degree of ∠2 is ()"
GEOMETRY3K = "Find x. Round to the nearest tenth if necessary. Assume that segments that appear to be tangent are tangent. The radius is 4.5 and the chord is 12."


def givens(text: str) -> list[str]:
    return [text[start:end] for start, end in maskable_numbers(text)]


def test_givens_keep_units_and_degrees_outside_the_number() -> None:
    assert givens(RIGHT_TRIANGLE) == ["90", "6", "8"]
    assert givens(UNIGEO) == ["50"]
    assert givens(GEOMETRY3K) == ["4.5", "12"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Points A1 and C_1 lie on x^2 + y^2 = 25.", ["25"]),
        ("In Figure 3, angle 1 = 40 and \\angle 2 = 3x + 5.", ["40", "5"]),
        ("$\\frac{3}{4}$ of $3\\sqrt{2}$ plus 4π plus √ 2 plus 5\\sqrt 3 is 7.", ["7"]),
        ("$AB = 5$, $\\angle ABC = 60^{\\circ}$ and $CD = 2.5\\,cm$.", ["5", "60", "2.5"]),
        ("The 1st side is 5cm and the 2nd is 50% longer.", ["5", "50"]),
        ("Built in 2019, the wall is 1,000 m long and 2000 m wide; take π = 3.14.", ["2000"]),
        ("1. AB = 3.\n(2) BC = 4.\nThe point (2, 3) and the point (1).", ["3", "4", "2", "3"]),
        ("The circle passes through (2,3) and (-1, 4).", ["2", "3", "1", "4"]),
        ("Find x.", []),
        (
            "The slant height is 13 cm. Give the height to 2 decimal places, or to the nearest 0.1.",
            ["13"],
        ),
    ],
    ids=[
        "labels-powers",
        "angle-names",
        "latex-forms",
        "latex-givens",
        "ordinals-units",
        "years-thousands-pi",
        "enumerators",
        "coordinates",
        "nothing",
        "rounding",
    ],
)
def test_what_counts_as_a_given(text: str, expected: list[str]) -> None:
    assert givens(text) == expected


def test_backward_problem_masks_one_given_and_asks_for_it() -> None:
    problem = make_backward(RIGHT_TRIANGLE, "10", seed=0)
    assert isinstance(problem, BackwardProblem)
    assert problem.unknown == "X" and problem.candidates == 3 and problem.forward_answer == "10"
    assert problem.answer in {"90", "6", "8"}
    assert problem.text.count("X") >= 2  # in the givens and in the question
    restored = problem.text.replace(f"= {problem.unknown}", f"= {problem.answer}", 1)
    assert restored.startswith(RIGHT_TRIANGLE)
    # The paper's backward question: the forward answer is stated as known, X is asked for.
    assert problem.text.endswith(
        " The answer to the question above is known: it is 10."
        " Working backwards from that answer, find the value of the unknown X."
    )
    assert problem.text.endswith(backward_question("10", "X"))


def test_each_given_is_masked_in_place_with_its_unit() -> None:
    seen: dict[str, BackwardProblem] = {}
    for seed in range(40):
        problem = make_backward(RIGHT_TRIANGLE, "10", seed=seed)
        assert problem is not None
        seen.setdefault(problem.answer, problem)
    assert set(seen) == {"90", "6", "8"}  # seeds reach every given
    assert "∠C = X°," in seen["90"].text and seen["90"].masked == "90°"
    assert "AC = X cm" in seen["6"].text and seen["6"].masked == "6 cm"
    assert "BC = X cm" in seen["8"].text and seen["8"].start == RIGHT_TRIANGLE.index("8 cm")


def test_deterministic_per_seed() -> None:
    first = [make_backward(RIGHT_TRIANGLE, "10", seed=seed) for seed in range(10)]
    again = [make_backward(RIGHT_TRIANGLE, "10", seed=seed) for seed in range(10)]
    assert first == again
    assert make_backward(RIGHT_TRIANGLE, "10", seed="run-7") == make_backward(
        RIGHT_TRIANGLE, "10", seed="run-7"
    )


def test_known_picks_are_stable_across_versions() -> None:
    # The pick is a SHA-256 of seed and text, not Python's random: these never change.
    picks = [make_backward(RIGHT_TRIANGLE, "10", seed=seed).answer for seed in range(6)]  # type: ignore[union-attr]
    assert picks == [_expected_pick(seed) for seed in range(6)]


def _expected_pick(seed: int) -> str:
    import hashlib

    digest = hashlib.sha256(f"{seed}\x00{RIGHT_TRIANGLE}".encode()).digest()
    return ["90", "6", "8"][int.from_bytes(digest[:8], "big") % 3]


def test_latex_degrees_are_masked_before_the_circ() -> None:
    text = "In $\\triangle ABC$, $\\angle A = 60^{\\circ}$ and $AB = AC$. Find $\\angle B$."
    problem = make_backward(text, "60°", seed=1)
    assert problem is not None and problem.answer == "60"
    assert "$\\angle A = X^{\\circ}$" in problem.text


def test_a_problem_asking_for_x_names_the_unknown_otherwise() -> None:
    problem = make_backward(GEOMETRY3K, "9.6", seed=3)
    assert problem is not None and problem.unknown == "Y"
    assert problem.text.endswith(backward_question("9.6", "Y"))
    assert "find the value of the unknown Y." in problem.text
    point_x = "Point X lies on AB with AX = 3 and XB = 5. Find AB."
    assert make_backward(point_x, "8", seed=0).unknown == "Y"  # type: ignore[union-attr]


def test_a_sentence_without_final_punctuation_is_closed() -> None:
    problem = make_backward(UNIGEO, "40°", seed=0)
    assert problem is not None
    assert problem.text == (
        "As shown in Figure 1, AB ∥ CD, ∠1 = X°, then the degree of ∠2 is (). "
        "The answer to the question above is known: it is 40°. "
        "Working backwards from that answer, find the value of the unknown X."
    )


@pytest.mark.parametrize(
    ("text", "answer", "reason"),
    [
        ("Find x.", "12", "no plain number"),
        ("As shown in the figure, ∠1 = ∠2 and AB ∥ CD. Find ∠3.", "40°", "no plain number"),
        ("Find $\\frac{3}{4}$ of $2\\sqrt{3}$.", "\\frac{\\sqrt3}{2}", "no plain number"),
        ("AB = 5. Find AC.", "", "forward answer is empty"),
        ("AB = 5. Find AC.", "B", "option letter"),
        ("AB = 5; points X, Y, Z, K, N, T; x y z k n t.", "3", "every candidate name"),
    ],
)
def test_none_when_nothing_can_be_masked(text: str, answer: str, reason: str) -> None:
    assert make_backward(text, answer, seed=0) is None
    result = build_backward(text, answer, seed=0)
    assert isinstance(result, NotMaskable) and reason in result.reason


def test_huge_text_is_refused_not_scanned() -> None:
    result = build_backward("AB = 5, " * 5000, "5", seed=0)
    assert isinstance(result, NotMaskable) and "characters" in result.reason


def test_the_question_states_the_known_answer_once_and_asks_only_for_the_unknown() -> None:
    """Every clause of the paper's method: the forward answer is given as known, and the one
    value asked for is the masked one, under the name that now stands in its place."""
    problem = make_backward("A cone has radius 3 cm and height 4 cm. Find its slant height.", "5", seed=1)
    assert problem is not None and problem.answer in {"3", "4"}
    head, question = problem.text.split(" The answer to the question above", 1)
    assert f"{problem.unknown} cm" in head and "5" not in head  # the masked given, not the answer
    assert question.count("5") == 1 and question.endswith(f"the unknown {problem.unknown}.")
    fields = {name for _, name, _, _ in string.Formatter().parse(BACKWARD_QUESTION) if name}
    assert fields == {"answer", "name"}  # a named template, as the prompt files expect
    # A forward answer with braces (LaTeX) is stated as written, not read as a placeholder.
    assert backward_question("25\\pi", "Y").count("25\\pi") == 1
