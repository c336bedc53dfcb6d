"""The `evaluate` module metrics/geoeval_accuracy: GeoEval's A and T from real-looking
responses, offline, with the runner's extraction and check, and none of the official
scorer's bugs."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from metric_card_support import assert_example_prints_what_it_says, card_body

evaluate = pytest.importorskip("evaluate")

from geomeval.benchmarks.geoeval import evaluation  # noqa: E402
from geomeval.benchmarks.geoeval.benchmark import GeoEval  # noqa: E402
from geomeval.benchmarks.geoeval.features import SUBSETS  # noqa: E402
from geomeval.engines.engine import score_record_sync  # noqa: E402
from geomeval.engines.judges import Judge  # noqa: E402
from geomeval.publishing.faces import metric_path  # noqa: E402
from geomeval.testing.chat_server import ChatServer, prompt_text  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

CHOICES = ["55°", "70°", "110°", "140°"]

VERBOSE_B = """To solve this problem, recall that a quadrilateral inscribed in a circle is cyclic.
In a cyclic quadrilateral, opposite angles are supplementary, which means they add up to 180°.

Step 1: Identify the opposite angle. The angle opposite ∠A is ∠C.
Step 2: Use the property: ∠A + ∠C = 180°.
Step 3: Substitute: 110° + ∠C = 180°, so ∠C = 70°.

Looking at the options, 70° corresponds to option B, so the answer is B."""

# Full of the article "a", with no answer: never option A.
ARTICLE_A = """This is a triangle with a right angle at C, so we draw a circle through A, B and C.
A right angle inscribed in a circle subtends a diameter, which means AB is a diameter of
a circle whose centre is the midpoint of AB, and a radius is half of a diameter."""

# Numbers in the reasoning, but no final answer: none is guessed.
NO_MARKER = """In triangle ABC we have AB = 6 and BC = 8, and the angle at B is 90°.
By the Pythagorean theorem, AC² = 36 + 64 = 100, and the median from B to AC is half of AC.
The area of the triangle is 24 square units.
We now need to consider the position of point D on the circle relative to the chord BD."""

# The official scorer's bug: float("1.0") - float("5.0") < 1e-3 holds, so it counts this right.
TOO_SMALL = (
    "The legs are 3 and 4, so the hypotenuse follows from the Pythagorean theorem.\nAnswer: 1.0"
)
BOXED = r"The altitude of an equilateral triangle with side 24 is 24·√3/2, so the height is $\boxed{12\sqrt{3}}$."
APPROX = "By the law of cosines, x² = 5² + 3² − 2·5·3·cos 65° ≈ 21.32, so x ≈ 4.62."


def _offline() -> None:
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["HF_DATASETS_OFFLINE"] == "1"


@pytest.fixture(scope="module")
def metric():
    _offline()
    return evaluate.load(metric_path("geoeval_accuracy"))


# --------------------------------------------------------------------------- extraction and check


def test_verbose_answer_naming_the_option_is_right(metric) -> None:
    results = metric.compute(
        predictions=[VERBOSE_B], references=["70"], choices=[CHOICES], per_item=True
    )
    assert results["A"] == 1.0 and results["coverage"]["A"] == 1.0
    item = results["per_item"][0]
    assert (item["extracted"], item["method"], item["correct"]) == ("B", "phrase", True)
    # The gold given as a letter instead of a value counts the same.
    by_letter = metric.compute(
        predictions=[VERBOSE_B], references=[""], choices=[CHOICES], gold_letters=["B"]
    )
    assert by_letter["A"] == 1.0


def test_the_article_a_is_not_option_a(metric) -> None:
    results = metric.compute(
        predictions=[ARTICLE_A],
        references=["90"],
        choices=[["90°", "45°"]],
        gold_letters=["A"],
        per_item=True,
    )
    assert results["A"] == 0.0
    assert (
        results["per_item"][0]["extracted"] is None and results["per_item"][0]["method"] == "none"
    )


def test_no_extracted_answer_is_wrong_not_unscored(metric) -> None:
    """A number in the reasoning is a step, not the answer; the model gave no answer, which
    is a wrong answer (scored 0), not a missing one (unscored)."""
    results = metric.compute(predictions=[NO_MARKER, ""], references=["10", "10"], per_item=True)
    assert results["A"] == 0.0 and results["coverage"]["A"] == 1.0 and results["unscored"] == {}
    assert [item["extracted"] for item in results["per_item"]] == [None, None]
    assert "no-answer" in results["per_item"][0]["explanation"]


def test_no_response_is_unscored(metric) -> None:
    results = metric.compute(
        predictions=[VERBOSE_B, None], references=["70", "70"], choices=[CHOICES, CHOICES]
    )
    assert results["A"] == 1.0 and results["coverage"]["A"] == 0.5
    assert results["unscored"]["A"] == [
        {"item": 1, "reason": evaluation.NO_RESPONSE, "not_applicable": False}
    ]
    assert results["methods"] == {"phrase": 1, "no response": 1}


def test_official_one_sided_tolerance_bug_is_not_reproduced(metric) -> None:
    assert float("1.0") - float("5.0") < 1e-3  # what the official `safe_equal` tests: "right"
    raw = metric.compute(predictions=[TOO_SMALL], references=["5.0"], per_item=True)
    given = metric.compute(predictions=["1.0", "-3"], references=["5.0", "5.0"], extracted=True)
    assert raw["A"] == 0.0 and raw["per_item"][0]["extracted"] == "1.0"
    assert given["A"] == 0.0
    # ... and what the official float() cast cannot credit, geomeval does.
    exact = metric.compute(predictions=[BOXED, APPROX], references=["12√3", "4.62"], per_item=True)
    assert exact["A"] == 1.0
    assert [i["method"] for i in exact["per_item"]] == ["boxed", "approximately"]


def test_numeric_references(metric) -> None:
    results = metric.compute(predictions=["So the answer is 5.", "x ≈ 4.62"], references=[5, 4.62])
    assert results["A"] == 1.0


# --------------------------------------------------------------------------- A and T


def test_t_counts_only_text_only_items(metric) -> None:
    predictions = [VERBOSE_B, TOO_SMALL, BOXED, APPROX, None]
    references = ["70", "5.0", "12√3", "4.62", "10"]
    results = metric.compute(
        predictions=predictions,
        references=references,
        choices=[CHOICES, None, None, None, None],
        text_only=[False, True, True, False, True],
    )
    assert results["A"] == pytest.approx(3 / 4) and results["coverage"]["A"] == pytest.approx(4 / 5)
    assert results["T"] == pytest.approx(1 / 2)  # TOO_SMALL wrong, BOXED right; item 4 unscored
    assert results["not_applicable"] == {"A": 0, "T": 2}
    assert results["coverage"]["T"] == pytest.approx(2 / 5)
    t_unscored = {entry["item"]: entry["not_applicable"] for entry in results["unscored"]["T"]}
    assert t_unscored == {0: True, 3: True, 4: False}
    # No text-only item: T has nothing to count, it is None (never 0).
    none_text = metric.compute(
        predictions=[VERBOSE_B], references=["70"], choices=[CHOICES], text_only=[False]
    )
    assert none_text["T"] is None and none_text["A"] == 1.0


def test_without_text_only_t_is_left_out_with_a_note(metric) -> None:
    results = metric.compute(predictions=[BOXED], references=["12√3"])
    assert results["T"] is None and "T" not in results["coverage"]
    assert results["notes"] == [evaluation.NO_TEXT_ONLY]


def test_extracted_answers_are_checked_as_given(metric) -> None:
    results = metric.compute(
        predictions=["B", "12\\sqrt{3}", "", "3"],
        references=["70", "12√3", "3", "4"],
        choices=[CHOICES, None, None, None],
        extracted=True,
        per_item=True,
    )
    assert results["extraction"] == "given" and results["methods"] == {"given": 4}
    # "" is no answer: wrong, not unscored.
    assert [item["correct"] for item in results["per_item"]] == [True, True, False, False]
    assert results["A"] == 0.5


def test_breakdowns_by_subset_source_and_problem_type(metric) -> None:
    results = metric.compute(
        predictions=["x = 4", "x = 4", "x = 4"],
        references=["4", "4", "5"],
        subsets=["geoeval_2000", 1, "geoeval_backward"],
        sources=["MATH", "GeoQA+", 3],
        problem_types=["flat", "solid", 1],
    )
    breakdowns = results["breakdowns"]
    assert {k: v["A"]["value"] for k, v in breakdowns["subset"].items()} == {
        "geoeval_2000": 1.0,
        "geoeval_backward": 0.5,
    }
    assert list(breakdowns["source"]) == ["GeoQA+", "MATH"]  # the dataset's order
    assert breakdowns["source"]["GeoQA+"]["A"]["total"] == 2
    assert {k: v["A"]["value"] for k, v in breakdowns["problem_type"].items()} == {
        "flat": 1.0,
        "solid": 0.5,
    }
    assert "breakdowns" not in metric.compute(predictions=["x = 4"], references=["4"])


def test_agrees_with_the_runner_on_the_sample() -> None:
    """The same responses scored by `geomeval run geoeval`'s path and by the face agree."""
    bench = GeoEval()
    items = bench.load_items(None, SUBSETS[0], None)
    records, predictions = [], []
    for index, item in enumerate(items):
        record = bench.new_record(item, SUBSETS[0])
        answer = record.target["answer"] if index % 3 else "999"
        record.response = f"Working through the figure gives the result.\nAnswer: {answer}"
        record.scores = score_record_sync(bench, record, Judge("offline"))
        records.append(record)
        predictions.append(record.response)
    assert [r.response for r in records] == predictions
    # the records reach the face through the benchmark's declaration, as the contract test's do
    results = evaluation.evaluate_accuracy(**bench.evaluate_face(SUBSETS[0]).inputs(records), per_item=True)
    for name in ("A", "T"):
        scored = [r.scores[name].value for r in records if r.scores[name].scored]
        assert results[name] == pytest.approx(sum(scored) / len(scored)), name
    assert [i["explanation"] for i in results["per_item"]] == [
        r.scores["A"].explanation for r in records
    ]


# --------------------------------------------------------------------------- the judge


def _judge_reply(request: dict) -> str:
    """The extraction judge, asked in the paper's form: the response after its last
    "Model response:", the reply the extracted answer as plain text."""
    text = prompt_text(request)
    if "Model response:" not in text or "garbled" in text.rsplit("Model response:", 1)[1]:
        return "I would rather not say anything about this response. " * 8  # unreadable, and again on repair
    response = text.rsplit("Model response:", 1)[1]
    if "refuses" in response:
        return "none"
    return "B"


def test_judge_extracts_and_a_failed_judge_falls_back_to_the_rules(monkeypatch, metric) -> None:
    with ChatServer(_judge_reply) as server:
        monkeypatch.setenv("GEOMEVAL_JUDGE_MODEL", "judge-model")
        monkeypatch.setenv("GEOMEVAL_JUDGE_BASE_URL", server.base_url)
        monkeypatch.setenv("GEOMEVAL_NO_CACHE", "1")
        results = metric.compute(
            predictions=[
                "Opposite angles add to 180°, and 70° is the second option.",
                "garbled, but the answer is C.",
                "The model refuses: I cannot see the figure.",
            ],
            references=["70", "110", "70"],
            choices=[CHOICES] * 3,
            problems=["Find ∠C."] * 3,
            judge=True,
            per_item=True,
        )
    assert results["extraction"] == "judge" and results["judge_failures"] == 1
    first, second, third = results["per_item"]
    assert (first["extracted"], first["method"], first["correct"]) == ("B", "judge", True)
    assert (second["extracted"], second["method"], second["correct"]) == ("C", "phrase", True)
    assert "unreadable" in second["judge_error"] and "the rules decided" in second["explanation"]
    assert (third["extracted"], third["correct"]) == (None, False)
    assert results["A"] == pytest.approx(2 / 3)


def test_judge_without_a_configured_judge_is_refused(metric) -> None:
    with pytest.raises(ValueError, match="GEOMEVAL_JUDGE_MODEL"):
        metric.compute(predictions=[VERBOSE_B], references=["70"], judge=True)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"choices": ["A.55°"]},
            r"item 0, choices: expected a list of options or None, got 'A.55°'",
        ),
        ({"choices": [["1", "B.2"]]}, r"item 0, choices: option 1 '1' has no letter"),
        (
            {"choices": [CHOICES, None]},
            r"choices: expected one entry per item \(1 items\), got a list of 2",
        ),
        (
            {"choices": [CHOICES], "gold_letters": ["E"]},
            r"item 0, gold_letters: expected one of A, B, C, D",
        ),
        ({"gold_letters": ["A"]}, r"item 0, gold_letters: a gold letter needs the item's choices"),
        ({"text_only": ["yes"]}, r"item 0, text_only: expected True or False"),
        ({"sources": ["Nowhere"]}, r"item 0, sources: expected one of Geometry3K"),
        ({"subsets": [9]}, r"item 0, subsets: expected one of geoeval_2000"),
        (
            {"problem_types": "flat"},
            r"problem_types: expected one entry per item \(1 items\), got a string",
        ),
        ({"extracted": True, "judge": True}, r"nothing to extract"),
    ],
    ids=[
        "choices-not-a-list",
        "choices-mixed",
        "choices-length",
        "letter-unknown",
        "letter-no-choices",
        "text-only",
        "source",
        "subset",
        "column-string",
        "extracted-judge",
    ],
)
def test_bad_input_names_item_and_field(metric, kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        metric.compute(predictions=[VERBOSE_B], references=["70"], **kwargs)


def test_bad_input_in_the_library() -> None:
    with pytest.raises(ValueError, match=r"item 1, references: the gold answer is empty"):
        evaluation.evaluate_accuracy(["x = 1", "x = 2"], ["1", ""])
    with pytest.raises(ValueError, match=r"2 predictions but 1 references"):
        evaluation.evaluate_accuracy(["x = 1", "x = 2"], ["1"])
    with pytest.raises(ValueError, match=r"item 0, predictions: expected a response"):
        evaluation.evaluate_accuracy([3], ["3"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"item 0, references: expected the gold answer"):
        evaluation.evaluate_accuracy(["x = 1"], [True])
    with pytest.raises(ValueError, match="no items"):
        evaluation.evaluate_accuracy([], [])


# --------------------------------------------------------------------------- packaging and card


def test_card_sections_and_its_example_prints_what_it_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """The card's runnable example, run as written: a change in extraction or checking that
    moves its numbers shows here, not in a reader's terminal."""
    body = card_body("geoeval_accuracy")
    assert (
        "2402.10104" in body
        and "Findings of the Association for Computational Linguistics: ACL 2024" in body
    )
    assert "float(pred) - float(gold) < 1e-3" in body and "== 2000" in body
    assert_example_prints_what_it_says(body, monkeypatch)


def test_card_doctest_examples_hold(metric) -> None:
    results = metric.compute(
        predictions=["B", "12", ""],
        references=["70", "12.0", "3"],
        choices=[["A.55°", "B.70°"], None, None],
        extracted=True,
        per_item=True,
    )
    assert (results["A"], results["extraction"]) == (2 / 3, "given")
    assert (
        results["per_item"][2]["explanation"]
        == "extracted None (given); gold '3'; no-answer: no final answer was given"
    )


def test_packaging_ships_the_metric(setup_packages: Callable[[], list[str]]) -> None:
    packages = setup_packages()
    assert "geomeval.metrics.geoeval_accuracy" in packages
    assert "geoeval_accuracy/README.md" in (REPO / "metrics" / "README.md").read_text(
        encoding="utf-8"
    )
