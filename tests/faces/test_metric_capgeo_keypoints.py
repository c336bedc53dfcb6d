"""The `evaluate` module metrics/capgeo_keypoints: loads offline and reports geomeval's
CapGeo-Bench keypoint scores, on the embedded sample's real captions, with not-applicable
dimensions apart from failures and a judge engine on a loopback server."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from metric_card_support import assert_example_prints_what_it_says, card_body

evaluate = pytest.importorskip("evaluate")

from geomeval.benchmarks import get_benchmark  # noqa: E402
from geomeval.benchmarks.capgeo_bench import data as bench_data  # noqa: E402
from geomeval.benchmarks.capgeo_bench import scoring as bench_scoring  # noqa: E402
from geomeval.benchmarks.capgeo_bench.evaluation import NO_JUDGE_CONFIGURED, evaluate_captions  # noqa: E402
from geomeval.engines.judges import Judge  # noqa: E402
from geomeval.publishing.faces import metric_path  # noqa: E402
from geomeval.testing.chat_server import ChatServer, prompt_text  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SAMPLE = json.loads((bench_data.sample_path() / "captions.json").read_text(encoding="utf-8"))
REFERENCES = [r["caption_en"] for r in SAMPLE]
CLASSES = [r["class"] for r in SAMPLE]
DIFFICULTIES = [r["difficulty"] for r in SAMPLE]
OFFLINE = bench_scoring.OFFLINE_METRICS
JUDGED = bench_scoring.JUDGE_METRICS
INVENTED = " Segment PQ is parallel to segment RS, and PQ = 9."


def first_sentence(caption: str) -> str:
    return caption.split(". ")[0].rstrip(".") + "."


@pytest.fixture(scope="module")
def metric():
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["HF_DATASETS_OFFLINE"] == "1"
    return evaluate.load(metric_path("capgeo_keypoints"))


def test_identical_captions_score_one_everywhere(metric) -> None:
    results = metric.compute(predictions=REFERENCES, references=REFERENCES, language="en")
    assert {name: results[name] for name in OFFLINE} == dict.fromkeys(OFFLINE, 1.0)
    assert results["n"] == 12 and results["engine"] == "offline" and results["language"] == "en"
    assert results["coverage"] == dict.fromkeys(OFFLINE, 1.0)
    assert results["not_applicable"] == dict.fromkeys(OFFLINE, 0)
    assert results["unscored"] == {}
    assert not any(name in results for name in JUDGED)  # one engine's metrics only


def test_a_truncated_caption_loses_recall_and_keeps_precision(metric) -> None:
    truncated = [first_sentence(c) for c in REFERENCES]
    results = metric.compute(predictions=truncated, references=REFERENCES, per_item=True)
    assert results["keypoint recall"] < 0.8
    assert results["keypoint recall"] < results["keypoint precision"]
    assert results["relations recall"] < 1.0
    first = results["per_item"][0]  # cb_01: "In triangle ABC, AB = AC = 5 and BC = 6."
    assert first["scores"]["relations recall"]["value"] == 0.0
    assert first["scores"]["numericals recall"]["value"] == pytest.approx(4 / 5)
    assert first["scores"]["numericals precision"]["value"] == 1.0
    assert first["keypoints"]["relation"]["missed"] == ["D midpoint BC", "AD ⊥ BC", "D foot BC"]
    # Nothing stated in relations: its precision has nothing to judge (not applicable), not a failure.
    assert first["scores"]["relations precision"] == {
        "value": None,
        "explanation": "",
        "unscored": "the caption states none",
        "not_applicable": True,
    }


def test_an_invented_relation_lowers_precision_not_recall(metric) -> None:
    invented = [c + INVENTED for c in REFERENCES]
    results = metric.compute(predictions=invented, references=REFERENCES, per_item=True)
    assert results["keypoint recall"] == 1.0 and results["relations recall"] == 1.0
    assert results["keypoint precision"] < 1.0 and results["relations precision"] < 1.0
    assert 0 < results["keypoint F1"] < 1.0
    first = results["per_item"][0]["keypoints"]
    assert first["relation"]["extra"] == ["PQ ∥ RS"] and first["numerical"]["extra"] == ["PQ = 9"]
    assert results["per_item"][0]["scores"]["relations precision"]["value"] == pytest.approx(3 / 4)


def test_not_applicable_dimensions_are_said_apart_from_failures(metric) -> None:
    reference = "Triangle ABC has AB = 3, BC = 4 and CA = 5."  # no spatial relation at all
    results = metric.compute(
        predictions=["Triangle ABC has AB = 3 and BC = 4.", None, reference],
        references=[reference, REFERENCES[0], "The figure is blank."],
        per_item=True,
    )
    # Item 0: relations not applicable, the overall mean over elements and numericals.
    assert results["per_item"][0]["scores"]["keypoint recall"]["value"] == pytest.approx(
        (1 + 2 / 3) / 2
    )
    assert results["per_item"][0]["scores"]["relations recall"]["not_applicable"] is True
    # Item 1 had no response (a failure); item 2's reference states no keypoint (nothing applies).
    assert results["keypoint recall"] == pytest.approx((1 + 2 / 3) / 2)
    assert results["coverage"]["keypoint recall"] == pytest.approx(1 / 3)
    assert results["not_applicable"]["keypoint recall"] == 1
    assert results["not_applicable"]["relations recall"] == 2
    assert results["unscored"]["keypoint recall"] == [
        {"item": 1, "reason": "model failed: no response", "not_applicable": False},
        {"item": 2, "reason": "the reference caption states no keypoint", "not_applicable": True},
    ]
    assert results["relations recall"] is None  # applies to no scored item


def test_the_judge_engine_is_refused_without_a_judge(
    metric, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GEOMEVAL_JUDGE_MODEL", raising=False)
    with pytest.raises(ValueError, match="GEOMEVAL_JUDGE_MODEL") as info:
        metric.compute(predictions=REFERENCES[:1], references=REFERENCES[:1], engine="judge")
    assert str(info.value) == NO_JUDGE_CONFIGURED


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"engine": "gpt"}, "engine must be one of offline, judge"),
        ({"language": "fr"}, "language must be one of en, zh, auto"),
        ({"classes": CLASSES}, "classes and difficulties go together"),
        (
            {"classes": CLASSES[:3], "difficulties": DIFFICULTIES[:3]},
            r"expected one entry per item \(12 items\)",
        ),
        (
            {"classes": CLASSES, "difficulties": [5] * 12},
            "item 0, difficulties: expected 1, 2, 3 or 4, got 5",
        ),
        ({"classes": ["spherical"] * 12, "difficulties": DIFFICULTIES}, "item 0, classes"),
    ],
)
def test_bad_arguments_name_the_field(metric, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        metric.compute(predictions=REFERENCES, references=REFERENCES, **kwargs)


def test_an_empty_reference_is_refused() -> None:
    with pytest.raises(ValueError, match="item 1, references"):
        evaluate_captions(["a", "b"], ["Triangle ABC.", " "])


def test_table4_breakdown_by_class_and_difficulty(metric) -> None:
    # Plane figures answered in full, the others with their first sentence only.
    predictions = [
        c if k == "plane" else first_sentence(c) for c, k in zip(REFERENCES, CLASSES, strict=True)
    ]
    results = metric.compute(
        predictions=predictions,
        references=REFERENCES,
        classes=[["plane", "analytic", "solid"].index(k) for k in CLASSES],
        difficulties=DIFFICULTIES,
    )
    table = results["table"]
    assert table["title"] == "CapGeo-Bench as in the paper's Table 4 (offline engine; recall, %)"
    assert table["columns"] == ["dimension", "AG", "PG", "SG", "T1", "T2", "T3", "T4", "Overall", "Avg"]
    rows = {row[0]: row[1:] for row in table["rows"]}
    assert list(rows) == ["Element", "Relation", "Numerical"]
    classes = results["breakdowns"]["class"]
    assert rows["Element"][1] == classes["plane"]["elements recall"]["value"] == 1.0  # PG, answered in full
    assert rows["Relation"][0] == classes["analytic"]["relations recall"]["value"] < 1.0
    overall = [rows[d][7] for d in ("Element", "Relation", "Numerical")]
    assert overall == [results["elements recall"], results["relations recall"], results["numericals recall"]]
    assert rows["Element"][8] == pytest.approx(sum(overall) / 3) == pytest.approx(results["Avg"])
    assert rows["Relation"][8] is None and rows["Numerical"][8] is None


def test_the_face_agrees_with_the_runner_scorer(metric) -> None:
    """The benchmark's own records, scored by the benchmark and aggregated as `geomeval run` does."""
    bench = get_benchmark("capgeo_bench")
    items = bench.load_items(None, "capgeo_bench", None)
    predictions = [first_sentence(item.fields["caption_en"]) + INVENTED for item in items]
    records = []
    for item, prediction in zip(items, predictions, strict=True):
        record = bench.new_record(item, "capgeo_bench")
        record.response = prediction
        record.scores = asyncio.run(bench.score(record, Judge("offline")))
        records.append(record)
    expected = bench.aggregate(records)
    inputs = bench.evaluate_face("capgeo_bench").inputs(records)  # the declaration the contract test uses
    assert inputs["predictions"] == predictions and inputs["language"] == "en"
    assert inputs["references"] == [item.fields["caption_en"] for item in items]
    results = metric.compute(**inputs)
    for name in OFFLINE:
        assert results[name] == pytest.approx(expected["metrics"][name]["value"]), name
    assert results["table"] == expected["tables"][0]


# --------------------------------------------------------------------------- the judge engine


def _sentences(description: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=\.)\s+", description) if s.strip()]


def keypoint_judge(request: dict) -> str:
    """A scripted keypoint judge: one relation keypoint per sentence, matched by identical
    text; a caption saying "THIS ONE FAILS" gets an unreadable extraction, and so does its
    repair request."""
    text = prompt_text(request)
    if text.startswith("List the keypoints"):
        description = text.split("Description:\n", 1)[1].rsplit("\n\nReply with", 1)[0]
        if "THIS ONE FAILS" in description:
            return "no idea"
        return json.dumps(
            {
                "elements": [],
                "spatial_relations": _sentences(description),
                "numerical_relations": [],
            }
        )
    if "## spatial_relations" not in text:  # the repair request after "no idea"
        return "still no idea"
    block = text.split("## spatial_relations\n", 1)[1].split("\n\n## numerical_relations", 1)[0]
    reference = re.findall(r"^R\d+\. (.*)$", block.split("Candidate:")[0], re.M)
    candidate = re.findall(r"^C\d+\. (.*)$", block.split("Candidate:")[1], re.M)
    empty = {"matched": [], "supported": []}
    return json.dumps(
        {
            "elements": empty,
            "numerical_relations": empty,
            "spatial_relations": {
                "matched": [i for i, k in enumerate(reference, 1) if k in candidate],
                "supported": [i for i, k in enumerate(candidate, 1) if k in reference],
            },
        }
    )


def test_the_judge_engine_scores_through_the_configured_judge(
    metric, monkeypatch: pytest.MonkeyPatch
) -> None:
    references = REFERENCES[:3]
    half = _sentences(references[1])
    predictions = [references[0], " ".join(half[: len(half) // 2]), "THIS ONE FAILS."]
    with ChatServer(keypoint_judge) as server:
        monkeypatch.setenv("GEOMEVAL_JUDGE_MODEL", "judge-model")
        monkeypatch.setenv("GEOMEVAL_JUDGE_BASE_URL", server.base_url)
        results = metric.compute(
            predictions=predictions, references=references, engine="judge", per_item=True
        )
        asked = len(server.requests)
    # Per item two extractions and a matching; the unreadable one a repair retry instead of a matching.
    assert asked == 3 + 3 + 3
    assert results["engine"] == "judge" and not any(name in results for name in OFFLINE)
    per_item = results["per_item"]
    assert per_item[0]["scores"]["relations recall (judge)"]["value"] == 1.0
    assert per_item[1]["scores"]["relations recall (judge)"]["value"] == pytest.approx(
        (len(half) // 2) / len(half)
    )
    assert per_item[1]["scores"]["relations precision (judge)"]["value"] == 1.0
    # Elements and numericals: the scripted judge lists none in the reference, so not applicable.
    assert per_item[0]["scores"]["elements recall (judge)"]["not_applicable"] is True
    assert results["not_applicable"]["elements recall (judge)"] == 2
    failed = results["unscored"]["keypoint recall (judge)"]
    assert [entry["item"] for entry in failed] == [2] and failed[0]["not_applicable"] is False
    assert "unreadable" in failed[0]["reason"]
    assert results["coverage"]["keypoint recall (judge)"] == pytest.approx(2 / 3)
    assert results["keypoint recall (judge)"] == pytest.approx(
        (1 + (len(half) // 2) / len(half)) / 2
    )
    assert per_item[1]["keypoints"]["counts"]["relation"]["missed"] == half[len(half) // 2 :]


# --------------------------------------------------------------------------- packaging and card


def test_card_sections_and_its_example_prints_what_it_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """The card's runnable example, run as written: a change in the keypoint engine that
    moves its numbers shows here, not in a reader's terminal."""
    body = card_body("capgeo_keypoints")
    assert "2510.09302" in body and "A Caption-Assisted Approach to Geometric Reasoning" in body
    assert_example_prints_what_it_says(body, monkeypatch)


def test_packaging_ships_the_metric_and_the_lmms_task(setup_packages: Callable[[], list[str]]) -> None:
    packages = setup_packages()
    assert (
        "geomeval.metrics.capgeo_keypoints" in packages and "geomeval.lmms_tasks.capgeo" in packages
    )
    assert "capgeo_keypoints" in (REPO / "metrics" / "README.md").read_text(encoding="utf-8")
