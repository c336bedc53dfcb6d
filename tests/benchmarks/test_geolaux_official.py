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
from geomeval.benchmarks.geolaux.judging import parse_official_error_types, parse_official_judgment
from geomeval.benchmarks.geolaux.process_metrics import pqs
from geomeval.benchmarks.geolaux.scoring import analysis
from geomeval.engines.engine import score
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.run.runner import run
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
        if '"Error_type"' in text:  # the official error-type question
            return '{"Error_analysis": "步骤2凭图臆断", "Error_type": ["N/A", "逻辑推理错误", "N/A"]}'
        return '{"Step_by_step_evaluation": [1, 0, 1], "Final_judgment": 1}'

    requests = _score_all(records, reply)
    assert len(requests) == 2
    record = records[0]
    assert record.scores["PQS"].value == pytest.approx(pqs([1, 0, 1]))
    assert record.scores["PCS"].value == 0.0 and record.scores["ACS"].value == 1.0
    assert record.judgment["step_error_types"] == ["logical_reasoning"]


def test_the_error_type_question_is_asked_as_the_official_one() -> None:
    """evaluate_error_type.py: only for a solution with a 0 mark; one user message, the figure
    first, then the rubric, the problem (options appended), for a calculation the correct
    numeric answer (the official type check never matches: a bug geomeval fixes), the
    reference solution, the answer as written and the marks list; temperature 0.1; the reply
    {"Error_analysis", "Error_type": [a type or N/A per step]} gives the paper's shares."""
    calc = next(item for item in ITEMS if item.fields["type"] == "calculation" and item.fields["choices"])
    answer = json.dumps({"solution": "1) ∵ x ∴ y <STEP1>\n2) 3×4=11 <STEP2>\n3) ∴ z <STEP3>",
                         "short_answer": calc.fields["answer"]}, ensure_ascii=False)
    records = []
    for item, response in ((calc, answer), (PROOFS[0], PROOF), (PROOFS[1], PROOF)):
        record = BENCH.new_record(item, "geolaux")
        record.response = response
        records.append(record)
    marks = {calc.id: [1, 0, 0], PROOFS[0].id: [1, 0, 1], PROOFS[1].id: [1, 1, 1]}
    types = {calc.id: ["N/A", "计算错误", "【图形理解错误】"], PROOFS[0].id: ["N/A", "知识点错误", "N/A"]}

    def reply(request: dict) -> str:
        text = prompt_text(request)
        item = next(i for i in (calc, *PROOFS[:2]) if i.fields["problem_text"].strip() in text)
        if '"Error_type"' in text:
            return json.dumps({"Error_analysis": "…", "Error_type": types[item.id]}, ensure_ascii=False)
        return json.dumps({"Step_by_step_evaluation": marks[item.id], "Final_judgment": 1})

    requests = _score_all(records, reply)
    questions = [r for r in requests if '"Error_type"' in prompt_text(r)]
    assert len(requests) == 5 and len(questions) == 2  # none for the solution without a 0 mark
    for request, record in zip(questions, records, strict=False):
        content = request["messages"][0]["content"]
        assert len(request["messages"]) == 1 and request["messages"][0]["role"] == "user"  # no system line
        assert content[0]["type"] == "image_url" and content[1]["type"] == "text"  # the figure first
        assert content[0]["image_url"]["url"].endswith(record.target["figure"])
        assert request["temperature"] == 0.1
        text = prompt_text(request)
        item_marks = marks[record.id]
        assert f"每一步的正确性：{item_marks}\n" in text  # the marks list, as the official script prints it
        assert f"参考解答过程：\n{record.target['solution'].strip()}\n" in text
        assert f"学生解答：\n{record.response.strip()}\n每一步的正确性" in text  # as written, uncleaned
        assert text.index(record.target["problem"].strip()) < text.index("参考解答过程")
        assert "Step_by_step_evaluation" not in text and "图形理解错误" in text and "N/A" in text
    calc_text, proof_text = prompt_text(questions[0]), prompt_text(questions[1])
    assert f"正确的数值答案：{calc.fields['answer']}\n" in calc_text and "正确的数值答案" not in proof_text
    assert all(choice in calc_text for choice in calc.fields["choices"])
    assert records[0].judgment["step_error_types"] == ["calculation", "figure_comprehension"]
    assert records[1].judgment["step_error_types"] == ["knowledge"]
    every = analysis(records)["error_types"]
    assert every["counts"] == {"figure_comprehension": 1, "knowledge": 1, "calculation": 1, "logical_reasoning": 0}
    assert (every["needed"], every["classified"]) == (3, 3)
    assert every["shares"]["calculation"] == pytest.approx(1 / 3)


def test_the_official_error_reply_is_read_robustly() -> None:
    """A type or N/A per step (Chinese names, 【】 optional); only the wrong steps' types, in
    order; "null" (no solution) leaves them unclassified; a category of the judge's own, a
    wrong step typed N/A or a list of another length is an error (repaired once, then the
    solution's types are unclassified, as the card says)."""
    assert parse_official_error_types('{"Error_analysis": "a", "Error_type": ["N/A", "【计算错误】", "逻辑推理错误"]}',
                                      [1, 0, 0])["types"] == ["calculation", "logical_reasoning"]
    assert parse_official_error_types('{"Error_type": ["知识点错误"]}', [1, 0, 1])["types"] == ["knowledge"]
    assert parse_official_error_types('{"Error_analysis": "null", "Error_type": "null"}', [0])["types"] is None
    for bad, why in (('{"Error_type": ["N/A", "！臆造条件"]}', "one of"), ('{"Error_type": ["N/A", "N/A"]}', "typed N/A"),
                     ('{"Error_type": ["计算错误", "计算错误", "N/A"]}', "3 entries for 2 steps"),
                     ('{"Error_analysis": "a"}', "Error_type")):
        with pytest.raises(ValueError, match=why):
            parse_official_error_types(bad, [1, 0])
    records = _records(PROOFS[:1])

    def reply(request: dict) -> str:
        if '"Error_type"' in prompt_text(request):
            return '{"Error_analysis": "…", "Error_type": ["N/A", "！臆造条件", "N/A"]}'
        return '{"Step_by_step_evaluation": [1, 0, 1], "Final_judgment": 1}'

    requests = _score_all(records, reply)
    assert len(requests) == 3  # the judge's question, the error question and its one repair
    assert records[0].judgment["error_type"] is None and "Error_type" in records[0].judgment["error_type_error"]
    assert records[0].scores["PQS"].value == pytest.approx(pqs([1, 0, 1]))  # the scores stand


def test_steps_geomeval_keeps_geomevals_english_error_question() -> None:
    bench = BENCH.configure({"steps": "geomeval"})
    records = _records(PROOFS[:1])

    def reply(request: dict) -> str:
        text = prompt_text(request)
        if "has been graded step by step" in text:
            assert "Step 2: 0" in text and request["messages"][0]["role"] == "system"
            return '{"errors": [{"step": 2, "error_type": "logical_reasoning"}]}'
        return json.dumps({"steps": [{"step": 1, "correct": 1}, {"step": 2, "correct": 0}],
                           "final_answer_correct": 1})

    requests = _score_all(records, reply, bench)
    assert len(requests) == 2 and not any('"Error_type"' in prompt_text(r) for r in requests)
    assert records[0].judgment["step_error_types"] == ["logical_reasoning"]


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
