"""GeoEval's two-step answer extraction (judge, then rules) and its correctness check."""

from __future__ import annotations

import asyncio
import json
import re
import time

import pytest

from geomeval.benchmarks.geoeval.extraction import (
    extract,
    extraction_messages,
    is_correct,
    parse_extraction,
    rule_extract,
)
from geomeval.engines.judges import Judge, parse_judge_spec
from geomeval.testing.chat_server import ChatServer, Fault, prompt_text

CHOICES = ["A.55°", "B.70°", "C.110°", "D.140°"]
PROBLEM = "Quadrilateral ABCD is inscribed in a circle and ∠A = 110°. Find ∠C."

VERBOSE_B = """To solve this problem, recall that a quadrilateral inscribed in a circle is cyclic.
In a cyclic quadrilateral, opposite angles are supplementary, which means they add up to 180°.

Step 1: Identify the opposite angle. The angle opposite ∠A is ∠C.
Step 2: Use the property: ∠A + ∠C = 180°.
Step 3: Substitute: 110° + ∠C = 180°, so ∠C = 70°.

Looking at the options, 70° corresponds to option B, so the answer is B."""

BOXED = r"""Let the side of the equilateral triangle be 24. Its altitude splits the base into
two segments of length 12, so by the Pythagorean theorem the altitude is
$\sqrt{24^2 - 12^2} = \sqrt{432}$. Simplifying, $\sqrt{432} = \sqrt{144 \cdot 3}$.

Therefore the height is $\boxed{12\sqrt{3}}$."""

APPROX = """We apply the law of cosines to triangle ABC with b = 5, c = 3 and A = 65°:
x² = 5² + 3² − 2(5)(3)cos 65°
x² = 34 − 30(0.4226) = 34 − 12.68 = 21.32
Taking the square root of both sides gives x ≈ 4.62."""

CLOSEST = """Using the tangent ratio, tan 35° = 6 / x, so x = 6 / tan 35° = 6 / 0.7002 ≈ 8.57.
None of the options is exactly 8.57, but the closest answer is D."""

ARTICLE_A = """This is a triangle with a right angle at C, so we draw a circle through A, B and C.
A right angle inscribed in a circle subtends a diameter, which means AB is a diameter of
a circle whose centre is the midpoint of AB, and a radius is half of a diameter. The
figure also shows a tangent line at B, which makes a right angle with the radius OB, and
so a similar argument applies to a triangle on the other side as well."""

NO_MARKER = """In triangle ABC we have AB = 6 and BC = 8, and the angle at B is 90°.
By the Pythagorean theorem, AC² = 36 + 64 = 100, and the median from B to AC is half of AC.
The circumcircle has AC as its diameter, its centre is the midpoint M of AC, and the
tangent at B is perpendicular to MB. The area of the triangle is 24 square units.
We now need to consider the position of point D on the circle relative to the chord BD."""


@pytest.mark.parametrize(
    ("response", "letters", "answer", "method"),
    [
        (VERBOSE_B, "ABCD", "B", "phrase"),
        (BOXED, None, "12\\sqrt{3}", "boxed"),
        (APPROX, None, "4.62", "approximately"),
        (CLOSEST, "ABCD", "D", "closest"),
        (
            "Since 8.57 is nearest to 8.6, the value of x is approximately 8.6.",
            None,
            "8.6",
            "approximately",
        ),
        ("After substituting back, the value of the unknown X is 7.5.", None, "7.5", "value-of"),
        (
            "Answer: We first find the radius. The radius is r = 4.\nTherefore, x = 12.",
            None,
            "12",
            "conclusion",
        ),
        (
            "Comparing the results with the choices, the correct option is (C).",
            "ABCD",
            "C",
            "option-phrase",
        ),
        ("The computed length is 8.57, which is closest to option D.", "ABCD", "D", "closest"),
        ("So ∠C = 70°.\n\n**B**", "ABCD", "B", "option-line"),
        (
            '{"steps": ["1. ∠A + ∠C = 180°", "2. ∠C = 70°"], "short_answer": "B"}',
            "ABCD",
            "B",
            "json",
        ),
        (
            "The midpoint is ((−2 + 6)/2, (5 − 1)/2).\nFinal Answer: (2, 2)",
            None,
            "(2, 2)",
            "phrase",
        ),
    ],
    ids=[
        "verbose-B",
        "boxed",
        "approx",
        "closest-answer",
        "value-of-approx",
        "backward-unknown",
        "conclusion-beats-early-answer-label",
        "correct-option",
        "closest-to-option",
        "letter-line",
        "json-short-answer",
        "final-answer-point",
    ],
)
def test_rules(response: str, letters: str | None, answer: str, method: str) -> None:
    assert rule_extract(response, letters) == (answer, method)


def test_article_a_is_not_option_a() -> None:
    assert rule_extract(ARTICLE_A, "ABCD") == (None, "none")
    assert not is_correct("a right angle", None, ["A.90°", "B.45°"], "A")


def test_number_in_the_reasoning_is_not_the_answer() -> None:
    assert rule_extract(NO_MARKER, "ABCD") == (None, "none")
    assert rule_extract(NO_MARKER, None) == (None, "none")


def test_a_marker_far_from_the_end_does_not_count() -> None:
    early = "We find x ≈ 4.62 for the first triangle.\n" + "\n".join(
        f"Line {i} of further discussion about the construction, with no conclusion."
        for i in range(6)
    )
    assert rule_extract(early, None) == (None, "none")


def test_an_answer_phrase_after_a_geoeval_phrase_wins() -> None:
    response = "The value of x is 70, so the answer is B."
    assert rule_extract(response, "ABCD") == ("B", "phrase")


def test_an_answer_phrase_keeps_its_sentence_and_sheds_its_remark() -> None:
    assert rule_extract("So the answer is B (since x ≈ 70.1°).", "ABCD") == ("B", "phrase")
    assert rule_extract("The answer is 12 (rounded to the nearest unit).", None) == ("12", "phrase")
    assert rule_extract("Hence the answer is (2, 3).", None) == ("(2, 3)", "phrase")


def test_approximately_needs_a_value() -> None:
    response = "The two triangles are about the same size, and x is approximately the length of AB."
    assert rule_extract(response * 3, None) == (None, "none")


def test_empty_and_missing_responses() -> None:
    assert rule_extract(None, "ABCD") == (None, "none")
    assert rule_extract("   \n ", "ABCD") == (None, "none")


# --- the judge's prompt and replies ---------------------------------------------------------


def test_prompt_carries_problem_options_and_own_examples() -> None:
    messages = extraction_messages(PROBLEM, CHOICES, VERBOSE_B)
    prompt = messages[-1]["content"]
    assert messages[0]["role"] == "system" and "JSON" in messages[0]["content"]
    assert PROBLEM in prompt and "A. 55°" in prompt and "D. 140°" in prompt
    assert VERBOSE_B in prompt
    for example in (
        '{"answer": "B"}',
        '{"answer": "12\\\\sqrt{3}"}',
        '{"answer": "4.62"}',
        '{"answer": "(2, 2)"}',
        '{"answer": "none"}',
    ):
        assert example in prompt
    for shown in re.findall(r"Reply: (\{.*\})", prompt):
        json.loads(shown)  # every example reply is valid JSON


def test_a_long_response_is_shown_by_its_end() -> None:
    response = "filler " * 5000 + "so the answer is C."
    prompt = extraction_messages(PROBLEM, CHOICES, response)[-1]["content"]
    assert "so the answer is C." in prompt and "omitted" in prompt and len(prompt) < 20_000


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ('{"answer": "B"}', "B"),
        ('```json\n{"answer": "12\\sqrt{3}"}\n```', "12\\sqrt{3}"),
        ('{"answer": 4.62}', "4.62"),
        ('{"answer": "$(2, 2)$"}', "(2, 2)"),
        ('{"answer": "none"}', None),
        ('{"answer": null}', None),
        ("none", None),
        ("None.", None),
    ],
)
def test_parse_extraction(reply: str, answer: str | None) -> None:
    assert parse_extraction(reply) == answer


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("The answer is B.", "no JSON"),
        ('{"final": "B"}', '"answer" is missing'),
        ('{"answer": ["B", "C"]}', "must be a string"),
        ('{"answer": true}', "must be a string"),
        (json.dumps({"answer": "x " * 400}), "final answer only"),
    ],
)
def test_parse_extraction_rejects(reply: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_extraction(reply)


# --- judged extraction over loopback HTTP -----------------------------------------------------


def scripted_judge(request: dict) -> str:
    """Reads the response under "## Response" and answers the way a careful judge would."""
    response = request["messages"][1]["content"].split("## Response", 1)[1]  # repairs included
    if "closest answer is D" in response:
        return '{"answer": "D"}'
    if "unable to see" in response:
        return '{"answer": "none"}'
    if "\\boxed{12\\sqrt{3}}" in response:
        return 'Here it is: {"answer": "12\\sqrt{3}"}'
    if "NO_MARKER" in response:
        return '{"answer": "none"}'
    return "I think the model answered B."  # unreadable: triggers the repair retry


def run_extract(response: str | None, judge: Judge, choices: list[str] | None = CHOICES):
    async def go():
        try:
            return await extract(response, PROBLEM, choices, judge)
        finally:
            await judge.aclose()

    return asyncio.run(go())


def test_judge_extracts_the_answer() -> None:
    with ChatServer(scripted_judge) as server:
        judge = parse_judge_spec("openai:j", base_url=server.base_url)
        assert run_extract(CLOSEST, judge) == ("D", "judge", None)
        judge = parse_judge_spec("openai:j", base_url=server.base_url)
        assert run_extract(BOXED, judge, None) == ("12\\sqrt{3}", "judge", None)
    assert "Options:\nA. 55°" in prompt_text(server.requests[0])
    assert all(request["temperature"] == 0.0 for request in server.requests)


def test_judge_finding_none_leaves_it_to_the_rules() -> None:
    refusal = "I am unable to see the diagram, so I cannot determine ∠C."
    with ChatServer(scripted_judge) as server:
        assert run_extract(refusal, parse_judge_spec("openai:j", base_url=server.base_url)) == (
            None,
            "none",
            None,
        )
        marked = "NO_MARKER here, but the closing line says\nTherefore, x = 12."
        judge = parse_judge_spec("openai:j", base_url=server.base_url)
        assert run_extract(marked, judge, None) == ("12", "conclusion", None)


def test_unreadable_judge_falls_back_to_the_rules_with_the_error() -> None:
    with ChatServer(scripted_judge) as server:
        answer, method, error = run_extract(
            VERBOSE_B, parse_judge_spec("openai:j", base_url=server.base_url)
        )
    assert (answer, method) == ("B", "phrase")
    assert error is not None and "after one repair retry" in error and "no JSON" in error
    assert len(server.requests) == 2  # the question and one repair


def test_failed_judge_request_falls_back_to_the_rules_with_the_error() -> None:
    fault = Fault(rate=1.0, status=400, body='{"error": {"message": "model not found"}}')
    with ChatServer(scripted_judge, faults=[fault]) as server:
        answer, method, error = run_extract(
            APPROX, parse_judge_spec("openai:j", base_url=server.base_url), None
        )
    assert (answer, method) == ("4.62", "approximately")
    assert error is not None and "judge request failed" in error and "400" in error
    assert is_correct(answer, "4.617")  # the fallback answer is scored, not counted wrong


def test_no_judge_and_offline_judge_use_rules_only() -> None:
    assert asyncio.run(extract(VERBOSE_B, PROBLEM, CHOICES, None)) == ("B", "phrase", None)
    assert asyncio.run(extract(VERBOSE_B, PROBLEM, CHOICES, parse_judge_spec("offline"))) == (
        "B",
        "phrase",
        None,
    )


def test_an_empty_response_is_not_sent_to_the_judge() -> None:
    with ChatServer(scripted_judge) as server:
        assert run_extract("  ", parse_judge_spec("openai:j", base_url=server.base_url)) == (
            None,
            "none",
            None,
        )
    assert server.requests == []


# --- correctness -----------------------------------------------------------------------------


def test_the_official_scorers_one_sided_tolerance_is_not_repeated() -> None:
    # safe_equal: float("1.0") - float("5.0") < 1e-3 is True, so the official scorer counts it right.
    assert float("1.0") - float("5.0") < 1e-3
    assert not is_correct("1.0", "5.0")
    assert not is_correct("1.0", 5.0)
    assert is_correct("5", 5.0) and is_correct("5.0", "5")
    assert not is_correct("5.002", "5")  # and no absolute 1e-3 slack upward either


def test_gold_value_or_gold_letter() -> None:
    assert is_correct("B", "70", CHOICES, "B", unit="°")
    assert is_correct("70°", None, CHOICES, "B")
    assert is_correct("B", None, CHOICES, "B")
    assert is_correct("70", "70", None, None)
    assert not is_correct("C", "70", CHOICES, "B", unit="°")
    assert not is_correct("110°", None, CHOICES, "B")
    assert is_correct("4.62", "4.617")  # a 3-significant-digit rounding of the gold value
    assert is_correct("12\\sqrt{3}", "20.7846")


def test_missing_answer_and_missing_gold() -> None:
    assert is_correct(None, "5").rule == "no-answer"
    assert is_correct("  ", "5").rule == "no-answer"
    assert is_correct("5", None).rule == "no-gold"
    assert not is_correct("5", None)


def test_malformed_choices_raise() -> None:
    with pytest.raises(ValueError, match="choices"):
        is_correct("B", "70", ["A.55°", "C.70°"], "B")


# --- hostile input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hostile",
    [
        "x" * 200_000,
        "≈" * 200_000,
        "the value of x is " * 12_000,
        "Therefore, x = " * 14_000,
        "closest answer is " * 11_000,
        "\\boxed{" * 30_000,
        "{" * 200_000,
        "1." * 100_000,
        " " * 199_990 + "answer is",
        ("A " * 50_000 + "\n") * 2,
    ],
    ids=[
        "letters",
        "approx-signs",
        "value-of",
        "conclusion",
        "closest",
        "boxed",
        "braces",
        "digits",
        "spaces",
        "letter-lines",
    ],
)
def test_hostile_input_returns_fast(hostile: str) -> None:
    assert len(hostile) >= 190_000
    start = time.perf_counter()
    rule_extract(hostile, "ABCD")
    extraction_messages(hostile, CHOICES, hostile)
    with pytest.raises(ValueError):
        parse_extraction(hostile)
    assert time.perf_counter() - start < 2.0
