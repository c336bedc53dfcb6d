"""GeoLaux judged as the official judge judges (the authors' evaluate_score.py with its two
rubrics, read as three_metrics.py reads them): a proof in the official format (plain ∵/∴
steps, no JSON, no short answer) goes to the proving judge and is scored from its reply; the
judge reads the answer as written and decides the steps, so n in PCS and PQS is its count;
only a calculation without a short answer is wrong without asking. `-T steps=geomeval`
keeps geomeval's own numbering as a switch."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.geolaux.judging import parse_official_judgment
from geomeval.benchmarks.geolaux.process_metrics import pqs
from geomeval.engine import score
from geomeval.judges import parse_judge_spec
from geomeval.models import ModelOptions, parse_model_spec
from geomeval.runner import run
from geomeval.testing.chat_server import ChatServer, prompt_text

BENCH = get_benchmark("geolaux")
ITEMS = list(BENCH.load_items(None, "geolaux", None))
PROOFS = [item for item in ITEMS if item.fields["type"] == "proving"]

# A proof as the official proving prompt asks for it: numbered ∵/∴ steps, no JSON.
PROOF = ("1) ∵ AB = AC，D是BC的中点，∴ BD = CD <STEP1>\n"
         "2) ∵ AD = AD，∴ △ABD ≌ △ACD，∴ ∠ADB = ∠ADC = 90°，即 AD ⊥ BC <STEP2>")


def _records(items: list) -> list:
    records = []
    for item in items:
        record = BENCH.new_record(item, "geolaux")
        record.response = PROOF
        records.append(record)
    return records


def _score_all(records: list, reply, bench=BENCH) -> list:  # type: ignore[no-untyped-def]
    async def go(judge) -> None:  # type: ignore[no-untyped-def]
        for record in records:
            await score(bench, record, judge)
        await judge.aclose()

    with ChatServer(reply) as server:
        asyncio.run(go(parse_judge_spec("openai:j", base_url=server.base_url)))
    return server.requests


def test_official_style_proofs_are_judged_and_scored() -> None:
    """The issue's case: with an always-correct judge, proofs in the official format scored
    0 without a request. Now each goes to the proving judge, and the judge's four step marks
    (its own count, not geomeval's two lines) make PQS and PCS."""
    assert len(PROOFS) >= 3
    records = _records(PROOFS)
    requests = _score_all(records, lambda r: '{"Step_by_step_evaluation": [1, 1, 1, 1], "Final_judgment": 1}')
    assert len(requests) == len(PROOFS)  # one judge question per proof, none skipped
    for record, request in zip(records, requests, strict=True):
        assert {m: record.scores[m].value for m in ("ACS", "PCS", "PQS")} == {"ACS": 1.0, "PCS": 1.0, "PQS": 1.0}
        assert record.judgment["marks"] == [1, 1, 1, 1] and record.judgment["steps_by"] == "judge"
        text = prompt_text(request)
        assert "要求证明的结论" in text and "short_answer" not in text  # the proving rubric, no short-answer rule
        assert text.endswith(PROOF)  # the answer as the model wrote it, last
        assert record.target["solution"].strip() in text and record.target["problem"].strip() in text
        content = request["messages"][-1]["content"]
        assert len(request["messages"]) == 1 and content[0]["type"] == "image_url"  # figure first, no system
        assert request["temperature"] == 0.1


def test_the_judges_step_count_is_n_in_pqs_and_a_wrong_step_is_classified() -> None:
    records = _records(PROOFS[:1])

    def reply(request: dict) -> str:
        text = prompt_text(request)
        if "has been graded step by step" in text:
            assert "Step 2: 0" in text and PROOF in text  # the judge's numbering, the answer as written
            return '{"errors": [{"step": 2, "error_type": "logical_reasoning"}]}'
        return '{"Step_by_step_evaluation": [1, 0, 1], "Final_judgment": 1}'

    requests = _score_all(records, reply)
    assert len(requests) == 2
    record = records[0]
    assert record.scores["PQS"].value == pytest.approx(pqs([1, 0, 1]))
    assert record.scores["PCS"].value == 0.0 and record.scores["ACS"].value == 1.0
    assert record.judgment["step_error_types"] == ["logical_reasoning"]


def test_a_null_judgment_has_no_steps() -> None:
    """As three_metrics.py reads "null": no steps, PQS 0 and PCS 0; ACS is Final_judgment."""
    assert parse_official_judgment('{"Step_by_step_evaluation": "null", "Final_judgment": 0}') == {
        "marks": [], "final_answer_correct": 0}
    assert parse_official_judgment('{"Step_by_step_evaluation":[1,0,1],"Final_judgment":"1"}')["marks"] == [1, 0, 1]
    for bad, field in (('{"Step_by_step_evaluation": [1]}', "Final_judgment"),
                       ('{"Final_judgment": 1}', "Step_by_step_evaluation"),
                       ('{"Step_by_step_evaluation": [2], "Final_judgment": 1}', "0 or 1")):
        with pytest.raises(ValueError, match=field):
            parse_official_judgment(bad)
    records = _records(PROOFS[:1])
    _score_all(records, lambda r: '{"Step_by_step_evaluation": "null", "Final_judgment": 0}')
    assert {m: records[0].scores[m].value for m in ("ACS", "PCS", "PQS")} == {"ACS": 0.0, "PCS": 0.0, "PQS": 0.0}


def test_a_calculation_is_judged_with_its_correct_answer_and_only_it_needs_a_short_answer() -> None:
    calc = next(item for item in ITEMS if item.fields["type"] == "calculation" and item.fields["language"] == "zh")
    record = BENCH.new_record(calc, "geolaux")
    record.response = json.dumps({"solution": "1) ∵ x ∴ y <STEP1>", "short_answer": calc.fields["answer"]},
                                 ensure_ascii=False)
    requests = _score_all([record], lambda r: '{"Step_by_step_evaluation": [1], "Final_judgment": 1}')
    text = prompt_text(requests[0])
    assert f"正确的数值答案：{calc.fields['answer']}\n" in text and '"short_answer"' in text
    assert record.scores["PQS"].value == 1.0  # one step: its mark, as the official script
    bare = BENCH.new_record(calc, "geolaux")
    bare.response = PROOF  # steps but no short answer
    assert _score_all([bare], lambda r: "never asked") == []
    assert bare.judgment["note"] == "no short answer" and bare.scores["ACS"].value == 0.0


def test_the_geomeval_steps_switch_numbers_the_steps_itself() -> None:
    bench = BENCH.configure({"steps": "geomeval"})
    assert bench.options == {"steps": "geomeval"} and BENCH.options == {"steps": "judge"}
    records = _records(PROOFS[:1])

    def reply(request: dict) -> str:
        text = prompt_text(request)
        assert "Grade a student's solution" in text and "Step 2: ∵ AD = AD" in text
        return '{"steps": [{"step": 1, "correct": 1}, {"step": 2, "correct": 1}], "final_answer_correct": 1}'

    requests = _score_all(records, reply, bench)
    assert len(requests) == 1 and records[0].judgment["steps_by"] == "geomeval"
    assert records[0].scores["PCS"].value == 1.0


def test_a_run_of_official_style_proofs_scores_them(tmp_path: Path) -> None:
    def serve(request: dict) -> str:
        text = prompt_text(request)
        if "Step_by_step_evaluation" in text:
            return '{"Step_by_step_evaluation": [1, 1], "Final_judgment": 1}'
        if "JSON" in text:  # a calculation: the official JSON
            return '{"solution": "1) ∵ a ∴ b <STEP1>", "short_answer": "1"}'
        return PROOF

    with ChatServer(serve) as server:
        results = run(BENCH, task="geolaux", model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
                      judge=parse_judge_spec("openai:j", base_url=server.base_url), out_dir=tmp_path)
    proving = results["breakdowns"]["type"]["proving"]
    assert proving["ACS"]["value"] == 1.0 and proving["PCS"]["value"] == 1.0 and proving["PQS"]["value"] == 1.0
    judged = sum("Step_by_step_evaluation" in prompt_text(r) for r in server.requests)
    assert judged == len(ITEMS)
