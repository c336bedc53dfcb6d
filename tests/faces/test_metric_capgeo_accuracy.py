"""The `evaluate` module metrics/capgeo_accuracy: CapGeo's reasoning accuracy from responses,
offline, with the runner's answer reading and checking, in every mode."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from metric_card_support import assert_example_prints_what_it_says, card_body

evaluate = pytest.importorskip("evaluate")

from geomeval.benchmarks.capgeo import evaluation  # noqa: E402
from geomeval.benchmarks.capgeo.benchmark import CapGeo, CapGeoOptions  # noqa: E402
from geomeval.benchmarks.capgeo.sources import SOURCES  # noqa: E402
from geomeval.engines.engine import score_record_sync  # noqa: E402
from geomeval.engines.judges import Judge  # noqa: E402
from geomeval.publishing.faces import metric_path  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CHOICES = ["34°", "46°", "56°", "66°"]


@pytest.fixture(scope="module")
def metric():
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["HF_DATASETS_OFFLINE"] == "1"
    return evaluate.load(metric_path("capgeo_accuracy"))


def test_letter_value_and_unit_count_and_no_answer_is_wrong(metric) -> None:
    results = metric.compute(
        predictions=["<think>…</think><answer>C</answer>", "<answer>46°</answer>", "<answer>5 cm</answer>",
                     "<think>The triangle is isosceles, so the base angles are equal.</think>"],
        references=["56°", "B", "5", "30"],
        choices=[CHOICES, CHOICES, None, None],
        units=[None, None, "cm", None],
        per_item=True,
    )
    assert results["accuracy"] == 0.75 and results["coverage"]["accuracy"] == 1.0 and results["unscored"] == {}
    assert [i["correct"] for i in results["per_item"]] == [True, True, True, False]
    assert results["per_item"][3]["extracted"] is None and results["per_item"][3]["method"] == "none"
    assert results["methods"] == {"answer-tag": 3, "none": 1}


def test_no_response_and_no_caption_are_unscored(metric) -> None:
    results = metric.compute(predictions=["<answer>C</answer>", None], references=["56°", "56°"],
                             choices=[CHOICES, CHOICES])
    assert results["accuracy"] == 1.0 and results["coverage"]["accuracy"] == 0.5
    assert results["unscored"]["accuracy"] == [
        {"item": 1, "reason": evaluation.NO_RESPONSE, "not_applicable": False}
    ]
    captioned = metric.compute(predictions=["<answer>C</answer>", "<answer>C</answer>"], references=["C", "C"],
                               choices=[CHOICES, CHOICES], mode="with_image", captions=["In circle O, …", None])
    assert captioned["accuracy"] == 1.0 and captioned["coverage"]["accuracy"] == 0.5
    assert captioned["unscored"]["accuracy"][0]["reason"].startswith("no caption for this item")


def test_breakdowns_by_question_type_and_subject(metric) -> None:
    results = metric.compute(
        predictions=["<answer>C</answer>", "<answer>A</answer>", "<answer>5</answer>"],
        references=["56°", "56°", "5"],
        choices=[CHOICES, CHOICES, None],
        question_types=["multi_choice", 0, 1],
        subjects=["geometry reasoning", "geometry reasoning", None],
    )
    breakdowns = results["breakdowns"]
    assert list(breakdowns) == ["question_type", "subject"]  # the run's order
    assert {k: v["accuracy"]["value"] for k, v in breakdowns["question_type"].items()} == {
        "multi_choice": 0.5, "free_form": 1.0,
    }
    assert breakdowns["subject"]["geometry reasoning"]["accuracy"]["total"] == 2
    assert "breakdowns" not in metric.compute(predictions=["<answer>5</answer>"], references=["5"])


@pytest.mark.parametrize("mode", ["direct", "without_image"])
def test_agrees_with_the_runner_on_the_sample(mode: str) -> None:
    """Every source's embedded sample scored by `geomeval run capgeo`'s path and by the face,
    right, wrong, unanswered and (in a caption mode) uncaptioned items alike."""
    records = []
    for source in SOURCES:
        bench = CapGeo(CapGeoOptions(source=source)).with_mode(mode)
        for index, item in enumerate(bench.load_items(None, "capgeo_reasoning", None)):
            if mode != "direct":
                item.fields["caption"] = None if index == 1 else f"The problem restated: {item.fields['question']}"
            record = bench.new_record(item, "capgeo_reasoning")
            answers = [record.target["answer"], "999", None, "A"]
            answer = answers[index % len(answers)]
            record.response = None if answer is None else f"<think>Working.</think><answer>{answer}</answer>"
            record.scores = score_record_sync(bench, record, Judge("offline"))
            records.append(record)
    # the records reach the face through the benchmark's declaration, as the contract test's do
    results = evaluation.evaluate_accuracy(**CapGeo().evaluate_face("capgeo_reasoning").inputs(records), per_item=True)
    expected = CapGeo().aggregate(records)
    accuracy = expected["metrics"]["accuracy"]
    assert results["accuracy"] == pytest.approx(accuracy["value"])
    assert results["coverage"]["accuracy"] == pytest.approx(accuracy["scored"] / accuracy["total"])
    assert 0 < results["accuracy"] < 1 and results["coverage"]["accuracy"] < 1
    def cells(breakdowns: dict) -> dict:  # what a reader compares (the sources' ids repeat here: no se)
        return {(group, bucket): tuple(stats["accuracy"][k] for k in ("value", "scored", "total", "unscored_reasons"))
                for group, buckets in breakdowns.items() for bucket, stats in buckets.items()}

    assert list(results["breakdowns"]) == list(expected["breakdowns"])
    assert cells(results["breakdowns"]) == cells(expected["breakdowns"])
    assert [i["explanation"] for i in results["per_item"]] == [
        r.scores["accuracy"].explanation or r.scores["accuracy"].unscored for r in records
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"choices": ["34°"]}, r"item 0, choices: expected a list of options or None, got '34°'"),
        ({"choices": [["34°", 46]]}, r"item 0, choices: every option is a non-empty string, got 46"),
        ({"choices": [CHOICES, None]}, r"choices: expected one entry per item \(1 items\), got a list of 2"),
        ({"units": [3]}, r"item 0, units: expected the answer's unit or None, got 3"),
        ({"question_types": ["proof"]}, r"item 0, question_types: expected one of multi_choice, free_form"),
        ({"subjects": "geometry"}, r"subjects: expected one entry per item \(1 items\), got a string"),
        ({"mode": "caption"}, r"mode: expected one of direct, with_image, without_image"),
        ({"mode": "with_image"}, r"captions: mode 'with_image' poses each problem with its figure's caption"),
        ({"captions": ["a caption"]}, r"captions: mode 'direct' poses the figure alone"),
        ({"mode": "without_image", "captions": [7]}, r"item 0, captions: expected the caption or None, got 7"),
    ],
    ids=["choices-not-a-list", "choices-option", "choices-length", "units", "question-type", "subjects-string",
         "mode", "captions-missing", "captions-direct", "captions-type"],
)
def test_bad_input_names_item_and_field(metric, kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        metric.compute(predictions=["<answer>C</answer>"], references=["56°"], **kwargs)


def test_bad_input_in_the_library() -> None:
    with pytest.raises(ValueError, match=r"item 1, references: the gold answer is empty"):
        evaluation.evaluate_accuracy(["<answer>1</answer>", "<answer>2</answer>"], ["1", " "])
    with pytest.raises(ValueError, match=r"2 predictions but 1 references"):
        evaluation.evaluate_accuracy(["a", "b"], ["1"])
    with pytest.raises(ValueError, match=r"item 0, predictions: expected a response"):
        evaluation.evaluate_accuracy([3], ["3"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"item 0, references: expected the gold answer"):
        evaluation.evaluate_accuracy(["<answer>1</answer>"], [None])
    with pytest.raises(ValueError, match="no items"):
        evaluation.evaluate_accuracy([], [])


# --------------------------------------------------------------------------- packaging and card


def test_card_sections_and_its_example_prints_what_it_says(monkeypatch: pytest.MonkeyPatch) -> None:
    body = card_body("capgeo_accuracy")
    assert "2510.09302" in body
    assert_example_prints_what_it_says(body, monkeypatch)


def test_packaging_ships_the_metric(setup_packages: Callable[[], list[str]]) -> None:
    packages = setup_packages()
    assert "geomeval.metrics.capgeo_accuracy" in packages
    assert "capgeo_accuracy/README.md" in (REPO / "metrics" / "README.md").read_text(encoding="utf-8")
