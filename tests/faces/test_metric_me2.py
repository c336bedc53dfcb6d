"""The `evaluate` modules metrics/me2_accuracy and metrics/me2_explanation: ME2's accuracy and
explanation scores from real-looking responses, offline and with a scripted loopback judge,
scored by the runner's own path and without the official scripts' per-domain and
failed-judge faults."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from statistics import mean
from typing import Any

import pytest
from metric_card_support import assert_example_prints_what_it_says, card_body

evaluate = pytest.importorskip("evaluate")

from geomeval.benchmarks.me2 import evaluation, scoring  # noqa: E402
from geomeval.benchmarks.me2.benchmark import ME2  # noqa: E402
from geomeval.engines.client import RetryPolicy  # noqa: E402
from geomeval.engines.engine import score_record_sync  # noqa: E402
from geomeval.engines.judges import Judge  # noqa: E402
from geomeval.engines.textmetrics import meteor_variant, text_metrics  # noqa: E402
from geomeval.publishing.faces import metric_path  # noqa: E402
from geomeval.testing.chat_server import ChatServer, Fault  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
MC, SHORT = "multiple-choice", "short-answer"

# Multiple-choice responses in the forms models write the letter: all read as B.
MC_FORMS = [
    "Since OA = OB, triangle OAB is isosceles, so ∠OBA = ∠OAB = 35°.\nThe final answer is: (B)",
    "The final answer is: {B}",
    "The line through (0, 2) with slope 3 is y = 3x + 2, which is option B.\nSo the answer is option B",
    "Only the second graph opens downward with its vertex at (1, 4).\nB.",
    "The final answer is: $\\boxed{B}$",
]
# The official normaliser kept the first character of "(B)": "(" was marked wrong.
ISOSCELES = MC_FORMS[0]
UNIT_12 = "BD is half of BC = 24 cm, so BD = 12 cm.\nThe final answer is: 12 cm"
BARE_12 = "By the Pythagorean theorem the side is √(144) = 12.\nThe final answer is: 12"
WRONG_13 = "Adding the two segments gives 13 cm.\nThe final answer is: 13 cm"

REFERENCE = (
    "Because AB = AC, triangle ABC is isosceles, so the altitude AH from A to BC bisects BC and "
    "BH = 3. In the right triangle ABH, AH = √(5² − 3²) = 4. The area is ½ · BC · AH = "
    "½ · 6 · 4 = 12."
)
GOOD = (
    "Draw the altitude AH from A to BC. Since AB = AC, H is the midpoint of BC, so BH = 3. In "
    "the right triangle ABH, AH = √(25 − 9) = 4, so the area is ½ · 6 · 4 = 12."
)
OFF_TOPIC = "The area of a triangle is half the base times the height, so the answer is 12."
GRAPH_REFERENCE = (
    "The vertex of y = (x − 1)² + 2 is V(1, 2), the lowest point of the parabola; mark it on the "
    "graph. The axis of symmetry is the line x = 1, so the minimum value is 2."
)
GRAPH_GOOD = (
    "Mark the vertex V(1, 2) on the parabola: it is the lowest point, and the axis of symmetry "
    "x = 1 passes through it. So the minimum value of y is 2."
)
KEYPOINTS = [
    {"element": "segment AH", "description": "the altitude from A to BC"},
    {"element": "point H", "description": "the midpoint of BC"},
]
GRAPH_KEYPOINTS = [{"element": "point V", "description": "the vertex (1, 2) of the parabola"}]
RATINGS = {
    "correctness": 4,
    "fidelity": 3,
    "referencing": 5,
    "reason": "Sound; argues a bit differently.",
}


def _offline() -> None:
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["HF_DATASETS_OFFLINE"] == "1"


@pytest.fixture(scope="module")
def accuracy():
    _offline()
    return evaluate.load(metric_path("me2_accuracy"))


@pytest.fixture(scope="module")
def explanation():
    _offline()
    return evaluate.load(metric_path("me2_explanation"))


def _request_text(request: dict[str, Any]) -> str:
    """Every message of a judge request, the original prompt included on a repair retry."""
    return "\n".join(str(message["content"]) for message in request["messages"])


@pytest.fixture
def judge_env(monkeypatch: pytest.MonkeyPatch):
    """Point the faces' judge at a scripted loopback server, with retries that do not wait."""

    def start(responder, faults: list[Fault] | None = None) -> contextlib.AbstractContextManager:
        server = ChatServer(responder, faults=faults)
        server.__enter__()
        monkeypatch.setenv("GEOMEVAL_JUDGE_MODEL", "judge-model")
        monkeypatch.setenv("GEOMEVAL_JUDGE_BASE_URL", server.base_url)
        monkeypatch.setenv("GEOMEVAL_NO_CACHE", "1")
        monkeypatch.setattr(RetryPolicy, "delay", lambda self, attempt, retry_after, rng: 0.0)
        started.append(server)
        return server

    started: list[ChatServer] = []
    yield start
    for server in started:
        server.__exit__(None, None, None)


# =========================================================================== me2_accuracy


def test_option_letters_in_every_form_read_the_same(accuracy) -> None:
    results = accuracy.compute(
        predictions=MC_FORMS, references=["B"] * 5, question_formats=[MC] * 5, per_item=True
    )
    assert results["accuracy"] == 1.0 and results["coverage"] == {"accuracy": 1.0}
    assert [item["extracted"] for item in results["per_item"]] == ["B"] * 5
    # The same forms naming another letter are read as that letter: wrong, not unreadable.
    wrong = accuracy.compute(
        predictions=[f.replace("B", "D") for f in MC_FORMS],
        references=["B"] * 5,
        question_formats=[MC] * 5,
        per_item=True,
    )
    assert wrong["accuracy"] == 0.0 and wrong["unscored"] == {}
    assert [item["extracted"] for item in wrong["per_item"]] == ["D"] * 5


def test_short_answers_with_units(accuracy) -> None:
    results = accuracy.compute(
        predictions=[UNIT_12, BARE_12, WRONG_13, "I could not solve this problem."],
        references=["12", "12 cm", "12", "12"],
        question_formats=[SHORT] * 4,
        per_item=True,
    )
    assert [item["correct"] for item in results["per_item"]] == [True, True, False, False]
    assert results["per_item"][0]["extracted"] == "12 cm"
    assert results["accuracy"] == 0.5 and results["unscored"] == {}


def test_a_missing_response_is_unscored_not_wrong(accuracy) -> None:
    results = accuracy.compute(
        predictions=[ISOSCELES, None, UNIT_12],
        references=["B", "C", "12"],
        question_formats=[MC, MC, SHORT],
        per_item=True,
    )
    assert results["accuracy"] == 1.0
    assert results["coverage"]["accuracy"] == pytest.approx(2 / 3)
    assert results["unscored"]["accuracy"] == [
        {"item": 1, "reason": evaluation.NO_RESPONSE, "not_applicable": False}
    ]
    assert results["per_item"][1]["correct"] is None
    assert results["methods"] == {"phrase": 2, "no response": 1}


def test_per_domain_accuracy_divides_by_the_domain_own_items(accuracy) -> None:
    """Two geometry items (one right) and one graph item (right): geometry 1/2, graph 1/1.
    The official utilities gave the other domain's items 0 and averaged over all three."""
    correct = [True, False, True]
    domains = ["geometry", "geometry", "graph"]
    results = accuracy.compute(
        predictions=[ISOSCELES, WRONG_13, MC_FORMS[2]],
        references=["B", "12", "B"],
        question_formats=[MC, SHORT, 0],  # a ClassLabel index is a name
        domains=[domains[0], 0, 1],
    )
    by_domain = {k: v["accuracy"]["value"] for k, v in results["breakdowns"]["domain"].items()}
    assert by_domain == {"geometry": 0.5, "graph": 1.0}
    assert results["accuracy"] == pytest.approx(2 / 3)
    official_graph = sum(c for c, d in zip(correct, domains, strict=True) if d == "graph") / 3
    assert official_graph == pytest.approx(1 / 3) and by_domain["graph"] != official_graph
    by_format = {
        k: v["accuracy"]["value"] for k, v in results["breakdowns"]["question_format"].items()
    }
    assert by_format == {MC: 1.0, SHORT: 0.0}
    assert results["breakdowns"]["domain"]["geometry"]["accuracy"]["total"] == 2


def test_numeric_gold_values(accuracy) -> None:
    results = accuracy.compute(
        predictions=[BARE_12, "The final answer is: 2.5", "The final answer is: 7"],
        references=[12, 2.5, 8],
        question_formats=[SHORT] * 3,
    )
    assert results["accuracy"] == pytest.approx(2 / 3)


def test_extracted_answers_are_checked_as_given(accuracy) -> None:
    results = accuracy.compute(
        predictions=["B", "(C)", "12 cm", ""],
        references=["B", "B", "12", "12"],
        question_formats=[MC, MC, SHORT, SHORT],
        extracted=True,
        per_item=True,
    )
    assert results["extraction"] == "given" and results["methods"] == {"given": 4}
    assert [item["correct"] for item in results["per_item"]] == [True, False, True, False]
    assert results["accuracy"] == 0.5
    assert all("(given)" in item["explanation"] for item in results["per_item"][:3])
    # A given answer is not searched for a final answer: a two-line one is taken as it is.
    spread = accuracy.compute(predictions=["2√3\n(exact)"], references=["2\\sqrt{3}"],
                              question_formats=[SHORT], extracted=True, per_item=True)
    assert spread["per_item"][0]["extracted"] == "2√3\n(exact)"


def test_keypoint_choices_and_which_options_mislead(accuracy) -> None:
    sources = [
        ["similar_keypoints", "correct", "similar_problem", "similar_summary", "random"],
        ["correct", "random", "similar_summary", "similar_problem", "similar_keypoints"],
        [3, 4, 1, 2, 0],  # ClassLabel indices: E is correct
        ["similar_problem", "similar_keypoints", "correct", "random", "similar_summary"],
    ]
    results = accuracy.compute(
        predictions=[
            "The altitude AD is what the summary uses.\nThe final answer is: (B)",
            "The final answer is: C",  # a similar-summary distractor
            "Set E marks the vertex and the axis.\nThe final answer is: {E}",
            "None of these sets fits the figure.",
        ],
        references=["B", "A", "E", "C"],
        task="me2_keypoints",
        domains=["geometry", "geometry", "graph", "graph"],
        option_sources=sources,
        per_item=True,
    )
    assert results["task"] == "me2_keypoints"
    assert [item["correct"] for item in results["per_item"]] == [True, False, True, False]
    assert [item["chosen_source"] for item in results["per_item"]] == [
        "correct",
        "similar_summary",
        "correct",
        None,
    ]
    assert results["chosen_sources"] == {
        "correct": 2,
        "similar_problem": 0,
        "similar_summary": 1,
        "similar_keypoints": 0,
        "random": 0,
        "no letter": 1,
    }
    assert results["chosen_sources_by_domain"]["graph"]["correct"] == 1
    assert results["chosen_sources_by_domain"]["graph"]["no letter"] == 1
    by_domain = {k: v["accuracy"]["value"] for k, v in results["breakdowns"]["domain"].items()}
    assert by_domain == {"geometry": 0.5, "graph": 0.5}
    assert "question_format" not in results["breakdowns"]
    # The dataset's ClassLabel indices name the letters (evaluate hands them over as floats).
    by_index = accuracy.compute(
        predictions=["The final answer is: (B)", "The final answer is: C", "E"],
        references=[1, 0, 4],
        task="me2_keypoints",
        option_sources=sources[:3],
    )
    assert by_index["accuracy"] == pytest.approx(2 / 3)
    assert by_index["chosen_sources"]["similar_summary"] == 1
    assert "chosen_sources" not in accuracy.compute(
        predictions=["B"], references=["B"], task="me2_keypoints"
    )


@pytest.mark.parametrize("task", ["me2_solve", "me2_keypoints"])
def test_accuracy_agrees_with_the_runner_on_the_sample(task: str) -> None:
    """The embedded sample scored by `geomeval run me2`'s path and by the face agree."""
    bench = ME2()
    items = bench.load_items(None, task, None)
    records = [bench.new_record(item, task) for item in items]
    for index, record in enumerate(records):
        gold = record.target["keypoint_answer" if task == "me2_keypoints" else "answer"]
        answer = "E" if index % 3 == 0 and record.target["question_format"] == MC else gold
        record.response = f"Reading the figure carefully.\nThe final answer is: {answer}"
        if task == "me2_keypoints" and index % 4 == 0:
            record.response = "The final answer is: (A)"
        record.scores = score_record_sync(bench, record, Judge("offline"))
    # the records reach the face through the benchmark's declaration, as the contract test's do
    results = evaluation.evaluate_accuracy(**bench.evaluate_face(task).inputs(records), per_item=True)
    values = [r.scores["accuracy"].value for r in records]
    assert results["accuracy"] == pytest.approx(mean(values))
    assert 0 < results["accuracy"] < 1  # the sample exercises right and wrong answers
    assert [i["explanation"] for i in results["per_item"]] == [
        r.scores["accuracy"].explanation for r in records
    ]
    runner = bench.aggregate(records)["breakdowns"]["domain"]
    assert {k: v["accuracy"]["value"] for k, v in results["breakdowns"]["domain"].items()} == {
        k: v["accuracy"]["value"] for k, v in runner.items()
    }


# --------------------------------------------------------------------------- the answer judge


def _answer_judge(request: dict[str, Any]) -> str:
    """The official short-answer judge's reply ({{Correctness: 1}} or 0, after its thinking)
    to the official inputs: the gold answer and the prediction."""
    response = _request_text(request).split("Model prediction:", 1)[1]
    if "give or take" in response:
        return "The student seems to be on the right track."  # unreadable, and again on repair
    if "4000 mm" in response:
        return "4000 mm is 4 m.\n{{Correctness: 1}}"
    return "400 mm is 0.4 m.\n{{Correctness: 0}}"


def test_the_judge_decides_short_answers_the_rules_find_unequal(accuracy, judge_env) -> None:
    server = judge_env(_answer_judge)
    results = accuracy.compute(
        predictions=[
            "The pole is 4 m tall, that is 4000 mm.\nThe final answer is: 4000 mm",
            "The final answer is: 400 mm",
            "garbled: the final answer is 4 metres, give or take",
            UNIT_12,  # equal by the rules: the judge is not asked
            ISOSCELES,  # multiple-choice: never asked
        ],
        references=["4 m", "4 m", "4 m", "12", "B"],
        question_formats=[SHORT, SHORT, SHORT, SHORT, MC],
        problems=["How tall is the pole?"] * 3 + ["Find BD.", "Find ∠OBA."],
        judge=True,
        per_item=True,
    )
    first, second, third, fourth, _ = results["per_item"]
    assert (first["correct"], first["judge"]) == (True, {"final_answer": None, "equivalent": True})
    assert "judge: equal" in first["explanation"]
    assert second["correct"] is False
    # A failed judgment is unscored with its error, never wrong.
    assert third["correct"] is None and "unreadable after one repair retry" in third["judge_error"]
    assert fourth["judge"] is None
    assert results["judge_failures"] == 1
    assert results["accuracy"] == pytest.approx(3 / 4)
    assert results["coverage"]["accuracy"] == pytest.approx(4 / 5)
    [entry] = results["unscored"]["accuracy"]
    assert entry["item"] == 2 and entry["reason"].startswith("answer judge failed")
    assert len(server.requests) == 4  # items 0 and 1 once, item 2 twice (the repair)
    # The official judge's inputs: the gold answer and the prediction after its marker.
    assert "How tall is the pole?" not in _request_text(server.requests[0])
    assert "Model prediction: 4000 mm\n" in _request_text(server.requests[0])


def test_judge_refused_without_a_judge_or_for_keypoints(accuracy) -> None:
    with pytest.raises(ValueError, match="GEOMEVAL_JUDGE_MODEL") as info:
        accuracy.compute(
            predictions=[UNIT_12], references=["12"], question_formats=[SHORT], judge=True
        )
    assert str(info.value) == evaluation.NO_JUDGE_CONFIGURED
    with pytest.raises(ValueError, match="me2_keypoints has nothing for a judge"):
        accuracy.compute(predictions=["B"], references=["B"], task="me2_keypoints", judge=True)


# --------------------------------------------------------------------------- bad input

KEYPOINT_SOURCES = ["correct", "random", "similar_summary", "similar_problem", "similar_keypoints"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"question_formats": None}, r"question_formats: me2_solve needs it"),
        (
            {"question_formats": ["essay"]},
            r"item 0, question_formats: expected one of multiple-choice",
        ),
        (
            {"question_formats": [MC], "domains": ["algebra"]},
            r"item 0, domains: expected one of geometry, graph",
        ),
        (
            {"question_formats": [MC], "domains": [2]},
            r"item 0, domains: expected one of geometry, graph \(or 0-1\), got 2",
        ),
        (
            {"question_formats": [MC, MC]},
            r"question_formats: expected one entry per item \(1 items\), got a list of 2",
        ),
        (
            {"question_formats": MC},
            r"question_formats: expected one entry per item \(1 items\), got a string",
        ),
        (
            {"question_formats": [MC], "references": ["12"]},
            r"item 0, references: a multiple-choice item's gold answer must be an option letter A-E, got '12'",
        ),
        (
            {"question_formats": [SHORT], "references": [" "]},
            r"item 0, references: the gold answer is empty",
        ),
        (
            {"question_formats": [MC], "option_sources": [KEYPOINT_SOURCES]},
            r"option_sources: only me2_keypoints",
        ),
        (
            {"question_formats": [MC], "problems": [3]},
            r"item 0, problems: expected the question text",
        ),
        (
            {"question_formats": [MC], "task": "me2_explain"},
            r"task: expected one of me2_solve, me2_keypoints",
        ),
        (
            {"task": "me2_keypoints", "references": ["F"]},
            r"item 0, references: a keypoint item's gold answer must be an option letter A-E, got 'F'",
        ),
        (
            {"task": "me2_keypoints", "references": [5]},
            r"item 0, references: a keypoint item's gold answer must be an option letter A-E, got 5(\.0)?$",
        ),
        (
            {"task": "me2_keypoints", "option_sources": [KEYPOINT_SOURCES[:4]]},
            r"item 0, option_sources: expected the provenance of the five options",
        ),
        (
            {"task": "me2_keypoints", "option_sources": [["random"] * 5]},
            r"item 0, option_sources: the gold letter is B, so option B \(and only it\) must be 'correct'; 'correct' is at no option",
        ),
        (
            {"task": "me2_keypoints", "option_sources": [KEYPOINT_SOURCES]},
            r"item 0, option_sources: the gold letter is B, so option B \(and only it\) must be 'correct'; 'correct' is at A",
        ),
        (
            {"task": "me2_keypoints", "option_sources": [["nearest"] * 5]},
            r"item 0, option_sources: expected one of correct, similar_problem",
        ),
    ],
    ids=[
        "formats-missing",
        "format-unknown",
        "domain-unknown",
        "domain-index",
        "formats-length",
        "formats-string",
        "mc-gold-not-letter",
        "short-gold-empty",
        "sources-for-solve",
        "problem-not-text",
        "task-unknown",
        "keypoint-letter",
        "keypoint-index",
        "sources-four",
        "sources-no-correct",
        "sources-misplaced",
        "source-unknown",
    ],
)
def test_bad_accuracy_input_names_item_and_field(accuracy, kwargs, message) -> None:
    kwargs = {"references": ["B"], **kwargs}
    kwargs = {key: value for key, value in kwargs.items() if value is not None}
    with pytest.raises(ValueError, match=message):
        accuracy.compute(predictions=[ISOSCELES], **kwargs)


def test_bad_input_in_the_accuracy_library() -> None:
    with pytest.raises(ValueError, match=r"item 1, predictions: expected a response"):
        evaluation.evaluate_accuracy([ISOSCELES, 3], ["B", "B"], question_formats=[MC, MC])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"2 predictions but 1 references"):
        evaluation.evaluate_accuracy([ISOSCELES, ISOSCELES], ["B"], question_formats=[MC, MC])
    with pytest.raises(ValueError, match="no items"):
        evaluation.evaluate_accuracy([], [], question_formats=[])
    with pytest.raises(ValueError, match=r"item 0, references: expected the gold answer"):
        evaluation.evaluate_accuracy([UNIT_12], [True], question_formats=[SHORT])
    with pytest.raises(ValueError, match=r"item 0, references: expected a finite gold value"):
        evaluation.evaluate_accuracy([UNIT_12], [float("nan")], question_formats=[SHORT])


# =========================================================================== me2_explanation


def _direct(pairs: list[tuple[str, str]]) -> list[dict[str, float | None]]:
    return [text_metrics(c, r, bert=scoring.bert_scorer()) for c, r in pairs]


TEXT_KEYS = {
    "BLEU-2": "bleu2",
    "BLEU-4": "bleu4",
    "ROUGE-L": "rouge_l",
    "METEOR": "meteor",
    "BERTScore-F1": "bertscore_f1",
    "BERTScore-P": "bertscore_p",
    "BERTScore-R": "bertscore_r",
}


def test_text_metrics_offline_equal_textmetrics(explanation) -> None:
    predictions = [GOOD, OFF_TOPIC, GRAPH_GOOD, "", None]
    references = [REFERENCE, REFERENCE, GRAPH_REFERENCE, GRAPH_REFERENCE, REFERENCE]
    results = explanation.compute(
        predictions=predictions,
        references=references,
        domains=["geometry", "geometry", "graph", "graph", "geometry"],
        per_item=True,
    )
    direct = _direct(
        [(c, r) for c, r in zip(predictions, references, strict=True) if c is not None]
    )
    bert = scoring.bert_scorer()
    assert bert is not None  # the test extra installs the default model
    for name, key in TEXT_KEYS.items():
        assert results[name] == pytest.approx(mean(d[key] for d in direct)), name
        assert results["coverage"][name] == pytest.approx(4 / 5), name
        assert results["unscored"][name] == [
            {"item": 4, "reason": evaluation.NO_RESPONSE, "not_applicable": False}
        ]
    assert results["ROUGE-L"] > 0 and direct[0]["rouge_l"] > direct[1]["rouge_l"]
    # Per domain, each over its own scored items: geometry has items 0 and 1 (item 4 unscored).
    rouge = {k: v["ROUGE-L"]["value"] for k, v in results["breakdowns"]["domain"].items()}
    assert rouge == pytest.approx(
        {
            "geometry": (direct[0]["rouge_l"] + direct[1]["rouge_l"]) / 2,
            "graph": (direct[2]["rouge_l"] + 0.0) / 2,  # the empty explanation scores 0
        }
    )
    assert results["per_item"][3]["scores"]["BLEU-4"]["value"] == 0.0
    # The offline default model is flagged beside the metric: its numbers are not the paper's.
    assert results["notes"][:2] == [
        f"METEOR: {meteor_variant()}",
        f"BERTScore with {bert.label}; default model: not comparable with the paper",
    ]


def test_judge_metrics_need_a_judge(explanation) -> None:
    results = explanation.compute(predictions=[GOOD], references=[REFERENCE])
    for name in scoring.JUDGE_METRICS:
        assert results[name] is None and results["coverage"][name] == 0.0, name
        assert name not in results["unscored"]
    assert evaluation.NO_JUDGE_NOTE in results["notes"]
    assert results["ROUGE-L"] is not None and "judge_failures" not in results
    with pytest.raises(ValueError, match="GEOMEVAL_JUDGE_MODEL"):
        explanation.compute(predictions=[GOOD], references=[REFERENCE], judge=True)


def test_without_a_bertscore_model_bertscore_is_none_with_the_reason(
    explanation, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(scoring, "_BERT", {})  # forget the process's loaded scorer
    monkeypatch.setenv("GEOMEVAL_BERTSCORE_MODEL", str(tmp_path / "roberta-large"))
    results = explanation.compute(predictions=[GOOD, None], references=[REFERENCE, REFERENCE])
    for name in scoring.BERT_METRICS:
        assert results[name] is None and results["coverage"][name] == 0.0, name
        assert name not in results["unscored"]
    [note] = [n for n in results["notes"] if n.startswith("BERTScore")]
    assert note.startswith("BERTScore not computed:") and "roberta-large" in note
    assert results["BLEU-2"] == pytest.approx(_direct([(GOOD, REFERENCE)])[0]["bleu2"])


def test_explanation_agrees_with_the_runner_on_the_sample() -> None:
    bench = ME2()
    items = bench.load_items(None, "me2_explain", None)
    records = [bench.new_record(item, "me2_explain") for item in items]
    for index, record in enumerate(records):
        reference = record.target["reference"]
        record.response = reference if index % 2 else " ".join(reference.split()[:12])
        record.scores = score_record_sync(bench, record, Judge("offline"))
    results = evaluation.evaluate_explanations(**bench.evaluate_face("me2_explain").inputs(records))
    for name in scoring.TEXT_METRICS + scoring.BERT_METRICS:
        assert results[name] == pytest.approx(mean(r.scores[name].value for r in records)), name
    assert 0 < results["BLEU-4"] < 1


# --------------------------------------------------------------------------- the explanation judge


def _explanation_judge(request: dict[str, Any]) -> str:
    candidate = _request_text(request).split("Model's explanation:", 1)[1]
    if "the lowest point" in candidate:
        return "A fine explanation overall, I would say."  # no JSON, twice
    if "half the base" in candidate:
        raise RuntimeError("scripted outage")  # the server answers HTTP 500
    # The official judge's reply: its thinking, then the three ratings in order.
    return f'{RATINGS["reason"]}\n{{"rating": [{RATINGS["correctness"]}, {RATINGS["fidelity"]}, {RATINGS["referencing"]}]}}'


def test_judge_ratings_as_published_and_rescaled(explanation, judge_env) -> None:
    server = judge_env(_explanation_judge)
    results = explanation.compute(
        predictions=[GOOD, GOOD.replace("Draw", "First draw")],
        references=[REFERENCE, REFERENCE],
        keypoints=[KEYPOINTS, KEYPOINTS],
        answers=["12", "12"],
        problems=["In triangle ABC, AB = AC = 5 and BC = 6. Find the area of triangle ABC."] * 2,
        judge=True,
        per_item=True,
    )
    assert (results["Correctness"], results["Fidelity"], results["Referencing"]) == (4.0, 3.0, 5.0)
    assert results["Correctness (0-100)"] == 0.75
    assert results["Fidelity (0-100)"] == 0.5
    assert results["Referencing (0-100)"] == 1.0
    assert all(results["coverage"][name] == 1.0 for name in scoring.JUDGE_METRICS)
    assert results["judge_failures"] == 0 and results["per_item"][0]["judge"]["fidelity"] == 3
    assert not any("judge was not shown" in note for note in results["notes"])
    assert results["per_item"][0]["judge"]["reason"] == RATINGS["reason"]
    # The official judge's inputs: the two explanations and the answer, nothing else.
    prompt = _request_text(server.requests[0])
    for shown in ("Answer: 12", REFERENCE, GOOD):
        assert shown in prompt, shown
    for hidden in ("segment AH: the altitude from A to BC", "Find the area"):
        assert hidden not in prompt, hidden


def test_failed_judgments_are_unscored_and_text_metrics_still_count(explanation, judge_env) -> None:
    judge_env(_explanation_judge)
    results = explanation.compute(
        predictions=[GOOD, GRAPH_GOOD, OFF_TOPIC],
        references=[REFERENCE, GRAPH_REFERENCE, REFERENCE],
        keypoints=[KEYPOINTS, GRAPH_KEYPOINTS, KEYPOINTS],
        judge=True,
        per_item=True,
    )
    assert results["Correctness"] == 4.0 and results["Referencing (0-100)"] == 1.0
    assert results["coverage"]["Correctness"] == pytest.approx(1 / 3)
    reasons = {entry["item"]: entry["reason"] for entry in results["unscored"]["Fidelity"]}
    assert set(reasons) == {1, 2}
    assert "unreadable after one repair retry" in reasons[1]
    assert "judge request failed" in reasons[2] and "HTTP 500" in reasons[2]
    assert results["judge_failures"] == 2
    assert results["per_item"][2]["judge_error"].startswith("judge request failed")
    for name in scoring.TEXT_METRICS:
        assert results["coverage"][name] == 1.0, name
    # The official judge sees the answer beside the two explanations: without it, a note.
    assert any("the judge was not shown the answer" in note for note in results["notes"])


def test_a_judge_down_for_every_item_leaves_judge_metrics_uncovered(explanation, judge_env) -> None:
    server = judge_env(_explanation_judge, faults=[Fault(rate=1.0, status=500)])
    results = explanation.compute(
        predictions=[GOOD, GRAPH_GOOD], references=[REFERENCE, GRAPH_REFERENCE], judge=True
    )
    for name in scoring.JUDGE_METRICS:
        assert results[name] is None and results["coverage"][name] == 0.0, name
        assert [entry["item"] for entry in results["unscored"][name]] == [0, 1]
    assert results["ROUGE-L"] == pytest.approx(
        mean(d["rouge_l"] for d in _direct([(GOOD, REFERENCE), (GRAPH_GOOD, GRAPH_REFERENCE)]))
    )
    assert results["coverage"]["ROUGE-L"] == 1.0
    assert len(server.requests) == 2 * RetryPolicy().max_attempts  # retried, then given up


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"references": [" "]},
            r"item 0, references: expected the teacher's reference explanation",
        ),
        (
            {"keypoints": ["segment AH"]},
            r"item 0, keypoints: expected a list of \{element, description\} dicts",
        ),
        ({"keypoints": [[{"name": "segment AH"}]]}, r"item 0, keypoints: entry 0 must be a dict"),
        (
            {"keypoints": [[KEYPOINTS[0], {"element": ""}]]},
            r"item 0, keypoints: entry 1 must be a dict",
        ),
        ({"answers": [["12"]]}, r"item 0, answers: expected the gold answer"),
        ({"answers": [float("inf")]}, r"item 0, answers: expected a finite gold value"),
        ({"problems": [{"text": "Find"}]}, r"item 0, problems: expected the question text"),
        (
            {"domains": ["geometry", "graph"]},
            r"domains: expected one entry per item \(1 items\), got a list of 2",
        ),
        ({"domains": ["calculus"]}, r"item 0, domains: expected one of geometry, graph"),
    ],
    ids=[
        "reference-empty",
        "keypoints-strings",
        "keypoint-key",
        "keypoint-empty",
        "answer-list",
        "answer-inf",
        "problem-dict",
        "domains-length",
        "domain-unknown",
    ],
)
def test_bad_explanation_input_names_item_and_field(explanation, kwargs, message) -> None:
    kwargs = {"references": [REFERENCE], **kwargs}
    with pytest.raises(ValueError, match=message):
        explanation.compute(predictions=[GOOD], **kwargs)


# =========================================================================== cards and packaging


@pytest.mark.parametrize("name", ["me2_accuracy", "me2_explanation"])
def test_card_sections_and_its_example_prints_what_it_says(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card's runnable example, run as written: a change in scoring that moves its
    numbers shows here, not in a reader's terminal."""
    body = card_body(name)
    assert "2504.03197" in body and "AAAI" in body and "https://github.com/jungyangpark/ME2" in body
    assert "divide by the domain's own size" in body and "unscored, not 0" in body
    assert_example_prints_what_it_says(body, monkeypatch)


def test_card_doctest_examples_hold(accuracy, explanation) -> None:
    sources = [
        ["similar_keypoints", "correct", "similar_problem", "similar_summary", "random"],
        ["correct", "random", "similar_summary", "similar_problem", "similar_keypoints"],
    ]
    results = accuracy.compute(
        predictions=["The final answer is: (B)", "The final answer is: C"],
        references=["B", "A"],
        task="me2_keypoints",
        option_sources=sources,
    )
    assert (results["accuracy"], results["chosen_sources"]["similar_summary"]) == (0.5, 1)
    given = accuracy.compute(
        predictions=["B", "12 cm", ""],
        references=["B", "12", "12"],
        question_formats=[MC, SHORT, SHORT],
        extracted=True,
    )
    assert given["accuracy"] == 2 / 3
    text = "Draw the altitude AD. In the right triangle ABD, AD = 4."
    results = explanation.compute(
        predictions=[text, ""], references=[text, text], domains=["geometry", "graph"]
    )
    assert (results["BLEU-4"], results["coverage"]["BLEU-4"]) == (0.5, 1.0)
    assert {k: v["ROUGE-L"]["value"] for k, v in results["breakdowns"]["domain"].items()} == {
        "geometry": 1.0,
        "graph": 0.0,
    }


def test_explanation_card_names_the_bertscore_settings() -> None:
    card = (Path(metric_path("me2_explanation")) / "README.md").read_text(encoding="utf-8")
    for needle in (
        "all-MiniLM-L6-v2",
        "roberta-large",
        "GEOMEVAL_BERTSCORE_MODEL",
        "GEOMEVAL_BERTSCORE_LAYER=17",
    ):
        assert needle in card, needle
    accuracy_card = (Path(metric_path("me2_accuracy")) / "README.md").read_text(encoding="utf-8")
    for form in ("`(B)`", "`B.`", "`{B}`", "`option B`", "`The final answer is: B`"):
        assert form in accuracy_card, form


def test_packaging_ships_the_metrics(setup_packages: Callable[[], list[str]]) -> None:
    packages = setup_packages()
    assert {"geomeval.metrics.me2_accuracy", "geomeval.metrics.me2_explanation"} <= set(packages)
