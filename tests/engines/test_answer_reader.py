"""The one answer reader every benchmark shares (`answers.choose_option`, `read_option_letter`,
the extractor) and the benchmark paths that go through it: ME2's choice reading and GeoEval's
last-line rule. The cases are the ones issue 44 found scored differently by benchmark."""

from __future__ import annotations

import pytest

from geomeval.answers import check_answer, choose_option, extract_final_answer, read_option_letter
from geomeval.benchmarks.geoeval.extraction import rule_extract
from geomeval.benchmarks.me2.scoring import read_choice

ME2_PROBLEM = "What is the distance from C to the line AB?\n(A) 8\n(B) 8.4\n(C) 9\n(D) 9.6\n(E) 10"
ME2_TARGET = {"problem": ME2_PROBLEM, "answer": "D", "question_format": "multiple-choice"}
OPTIONS = {"A": "8", "B": "8.4", "C": "9", "D": "9.6", "E": "10"}


@pytest.mark.parametrize(("answer", "letter"), [
    ("\\boxed{\\text{(B)}}", "B"), ("\\text{(C)}", "C"), ("$\\mathbf{(D)}$", "D"), ("(B)", "B"),
    ("option B", "B"), ("故选 C", "C"), ("B. 8.4", "B"),
])
def test_a_single_letter_in_any_form_is_read(answer: str, letter: str) -> None:
    assert read_option_letter(answer, "ABCDE") == letter


@pytest.mark.parametrize("answer", [
    "A、C", "B and D", "(A), (C)", "AC", "option A or C", "option (A) or (C)", "选A和C",
    "(A) 8 (B) 8.4 (C) 9 (D) 9.6 (E) 10", "A. 8 B. 8.4 C. 9",
])
def test_several_letters_or_an_echoed_list_are_no_choice(answer: str) -> None:
    assert read_option_letter(answer, "ABCDE") is None
    assert choose_option(answer, OPTIONS)[0] is None


def test_a_letter_followed_by_another_sentence_is_still_read() -> None:
    assert read_option_letter("answer is B\nC is wrong", "ABCD") == "B"
    assert read_option_letter("The answer is B. C is wrong", "ABCD") == "B"


@pytest.mark.parametrize(("answer", "letter"), [("9.6", "D"), ("CE = 9.6", "D"), ("12", None), ("8.4 cm", "B")])
def test_a_value_names_the_one_option_it_equals(answer: str, letter: str | None) -> None:
    assert choose_option(answer, OPTIONS)[0] == letter


@pytest.mark.parametrize(("response", "letter"), [
    ("The answer is 9.6.", "D"),                       # a value naming the gold option, as elsewhere
    ("So \\boxed{\\text{(D)}}", "D"),
    ("(A) 8 (B) 8.4 (C) 9 (D) 9.6 (E) 10", None),       # one-line echo, once read as A
    ('{"answer": "(A) 8 (B) 8.4 (C) 9 (D) 9.6 (E) 10"}', None),
    ("答案：A、C", None),                                # once read as A
    ("I cannot determine the answer.", None),
    ("D, since the two areas are equal.", "D"),
])
def test_me2_reads_a_choice_as_every_benchmark_does(response: str, letter: str | None) -> None:
    assert read_choice(response, ME2_TARGET)[0] == letter


def test_geoeval_takes_no_echoed_option_list_for_a_choice() -> None:
    """A response ending on the option list ("C. 10", "D. 14") names no option: GeoEval's own
    last-line rule once read it as the last letter."""
    for response in ("Let me look at the choices.\nA. 6\nB. 8\nC. 10\nD. 14", "A. 6\nB. 8\nC. 10"):
        answer, _ = rule_extract(response, "ABCD")
        assert answer is None or read_option_letter(answer, "ABCD") is None
    assert rule_extract("So ∠C = 70°.\n\n**B**", "ABCD") == ("B", "option-line")


def test_the_shared_checker_scores_these_forms_alike() -> None:
    choices = ["A.6", "B.8", "C.10", "D.14"]
    assert check_answer("\\boxed{\\text{(C)}}", "10", choices=choices).equal
    assert check_answer(extract_final_answer("The answer is 10.").answer, "10", choices=choices).equal
    assert not check_answer("C、A", "10", choices=choices).equal
    assert not check_answer("(A) 6 (B) 8 (C) 10 (D) 14", "10", choices=choices).equal


def test_mathqa_lower_case_labels_are_labels_only_when_every_option_has_one() -> None:
    from geomeval.answers import parse_choices

    assert parse_choices(["a ) 9", "b ) 10", "c ) 12"]) == {"A": "9", "B": "10", "C": "12"}
    assert parse_choices(["(a) 1/2", "(b) 2"]) == {"A": "1/2", "B": "2"}
    # out of order or partial: values that happen to start with a letter stay whole
    assert parse_choices(["a ) 9", "c ) 10"]) == {"A": "a ) 9", "B": "c ) 10"}
    assert parse_choices(["a.b", "c"]) == {"A": "a.b", "B": "c"}
