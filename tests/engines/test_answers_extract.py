"""Final-answer extraction from realistic responses."""

from __future__ import annotations

import pytest

from geomeval.answers import check_answer, extract_final_answer

CASES = [
    ('{"steps": ["1. AB = 5"], "short_answer": "\\frac{3\\sqrt{3}}{2}"}', "\\frac{3\\sqrt{3}}{2}", "json"),
    ('Reasoning...\n```json\n{"steps": ["1. x"], "short_answer": "12.8"}\n```', "12.8", "json"),
    ('{"steps": ["1. ∠B = 70°"], "short_answer": "B"}', "B", "json"),
    ("Thinking <answer>2√5</answer>", "2√5", "answer-tag"),
    ("<think>so 3</think><answer>\\boxed{\\frac{1}{2}}</answer>", "\\frac{1}{2}", "answer-tag"),
    ("Hence BE = 12.8, so \\boxed{\\frac{64}{5}}.", "\\frac{64}{5}", "boxed"),
    ("After a long derivation with AB = 3 and BC = 4, the answer is 12/5.", "12/5", "phrase"),
    ("All angles add to 180°. So the answer is B.", "B", "phrase"),
    ("Final answer: 3√3", "3√3", "phrase"),
    ("由勾股定理得AB=5，故答案为：2√5。", "2√5", "phrase"),
    ("The triangle is isosceles, so ∠B = 70°.\n\n(B)", "(B)", "option-line"),
    ("70°", "70°", "whole-response"),
]


@pytest.mark.parametrize(("response", "answer", "method"), CASES)
def test_extraction(response: str, answer: str, method: str) -> None:
    found = extract_final_answer(response, letters="ABCD")
    assert (found.answer, found.method) == (answer, method)


def test_a_number_inside_long_reasoning_is_not_the_answer() -> None:
    response = "We know AB = 3 and BC = 4. The angle at C is 90°, and so on for many words. " * 3
    assert extract_final_answer(response).answer is None


def test_article_a_is_not_an_option_line() -> None:
    assert extract_final_answer("It is a\nvery long explanation that ends with a", letters="ABCD").answer is None


def test_latex_backslashes_in_json_survive() -> None:
    found = extract_final_answer('{"short_answer": "\\times 2\\frac{1}{2}\\theta"}')
    assert found.answer == "\\times 2\\frac{1}{2}\\theta"


def test_huge_response_is_bounded() -> None:
    response = "{" * 200_000 + " the answer is 7"
    assert extract_final_answer(response).answer == "7"


@pytest.mark.parametrize("opening", ["```json\n{", "<answer>", "\\boxed{"])
def test_many_unclosed_openings_stay_fast(opening: str) -> None:
    import time

    response = (opening + "x" * 10) * 6000
    start = time.perf_counter()
    extract_final_answer(response)
    assert time.perf_counter() - start < 2.0


def test_json_object_is_returned_with_the_answer() -> None:
    found = extract_final_answer('Work.\n{"steps": ["1. AB = 5", "2. so 12/5"], "short_answer": "12/5"}')
    assert found.answer == "12/5" and found.data == {"steps": ["1. AB = 5", "2. so 12/5"], "short_answer": "12/5"}
    assert extract_final_answer("the answer is 3").data is None


# Responses in the shape a small instruct model (SmolLM2-135M behind llama.cpp) gives.
@pytest.mark.parametrize(
    "response",
    [
        "A. 6\nB. 8\nC. 10",
        "The options are:\nA. 6\nB. 8\nC. 10\nD. 12",
        "The answer is:\nA. 6\nB. 8\nC. 10",
        "Let me see.\n(A) 45°\n(B) 60°",
    ],
)
def test_an_echo_of_the_options_is_no_answer(response: str) -> None:
    extracted = extract_final_answer(response, letters="ABCD")
    assert extracted.answer is None
    assert not check_answer(extracted.answer, "C", choices=["6", "8", "10", "12"]).equal


@pytest.mark.parametrize(
    ("response", "answer"),
    [
        ("The answer is B, because the base angles are equal.", "B"),
        ("the answer is 70°, since the base angles are equal", "70°"),
        ("So the answer is 12 as AB = 12.", "12"),
        ("故答案为：5，因为AB=5", "5"),
        ("Answer: 2, 3", "2, 3"),  # a bare comma keeps a two-part answer whole
    ],
)
def test_a_reason_after_the_answer_is_not_part_of_it(response: str, answer: str) -> None:
    assert extract_final_answer(response, letters="ABCD").answer == answer


@pytest.mark.parametrize(("response", "letter"), [("(d)", "D"), ("c", "C"), ("答案：D", "D"), ("Thinking.\nc.", "C")])
def test_lone_lower_case_letters_and_chinese_answer_marks_name_the_option(response: str, letter: str) -> None:
    extracted = extract_final_answer(response, letters="ABCD")
    verdict = check_answer(extracted.answer, letter, choices=["1", "2", "3", "4"])
    assert verdict.equal and verdict.rule == "option-letter"
    assert not check_answer("$a$", "A", choices=["1", "2", "3", "4"]).equal  # the variable a
