"""GeoLaux judged step by step: segmentation, the judge's verdicts, the published metrics,
error types, the auxiliary-line comparison and the vLLM batch path."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.geolaux.judging import (
    parse_error_type,
    parse_error_types,
    parse_step_judgment,
    segment_steps,
)
from geomeval.benchmarks.geolaux.process_metrics import (
    delta_pcs,
    first_error_step,
    item_scores,
    pqs,
    summarize_process,
    weighted_step_score,
)
from geomeval.benchmarks.geolaux.scoring import TEXT_ONLY, WITH_FIGURE
from geomeval.core.errors import EndpointFailure
from geomeval.engines.client import RetryPolicy
from geomeval.engines.images import image_part
from geomeval.engines.judges import judge_images, parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.run.runner import run
from geomeval.testing.chat_server import ChatServer, prompt_text

# --- the metrics, by hand ---------------------------------------------------------------

def test_pqs_matches_the_published_formula() -> None:
    w = [math.exp(-i / 3) for i in (1, 2, 3)]
    s = (w[0] + w[2]) / sum(w)
    assert weighted_step_score([1, 0, 1]) == pytest.approx(s)
    assert pqs([1, 0, 1]) == pytest.approx(math.tanh(3.5 * (s - 1)) + 1)
    assert pqs([1, 1, 1, 1]) == 1.0
    assert pqs([1]) == 1.0 and pqs([0]) == 0.0  # one step: its mark, as the official script
    assert pqs([]) == 0.0  # no steps: 0, as the official script
    assert pqs([0, 0]) == pytest.approx(math.tanh(-3.5) + 1)  # the formula's floor otherwise
    assert pqs([0, 1, 1]) < pqs([1, 1, 0])  # an early mistake costs more


def test_item_scores_and_first_error() -> None:
    assert item_scores([1, 1], 1) == {"ACS": 1.0, "PCS": 1.0, "PQS": 1.0}
    assert item_scores([1, 1], 0)["PCS"] == 0.0  # right steps, wrong answer
    assert item_scores([1, 0], 1)["PCS"] == 0.0 and item_scores([1, 0], 1)["ACS"] == 1.0
    assert item_scores([], 1)["PCS"] == 0.0  # no steps: not a complete process
    assert first_error_step([1, 1, 0, 0]) == 3 and first_error_step([1]) is None
    with pytest.raises(ValueError, match="step 2"):
        item_scores([1, 2], 1)


def test_summary_breakdowns() -> None:
    summary = summarize_process(
        [[1, 1], [1, 0], [1, 1, 1], [0]],
        [1, 1, 1, 0],
        buckets=["1-4", "1-4", "13-24", "13-24"],
        types=["calculation", "calculation", "proving", "proving"],
        error_types=[None, "calculation", None, "knowledge"],
    )
    assert summary["ACS"] == 0.75 and summary["PCS"] == 0.5
    assert summary["by_step_bucket"]["1-4"]["PCS"] == 0.5 and summary["by_step_bucket"]["13-24"]["PCS"] == 0.5
    assert summary["delta_pcs"] == {"from": "1-4", "to": "13-24", "value": 0.0}

    assert summary["by_type"]["calculation"]["ACS_minus_PCS"] == 0.5
    assert summary["first_error_step"]["counts"] == {"1": 1, "2": 1}
    assert summary["error_types"]["counts"]["knowledge"] == 1 and summary["error_types"]["classified"] == 2


# --- segmentation and parsing --------------------------------------------------------------

def test_segmentation_uses_json_steps_then_numbers_then_paragraphs() -> None:
    assert segment_steps("", ["1. AB = 3", "2. so BC = 4"]) == ["AB = 3", "so BC = 4"]
    numbered = "Let us see.\nStep 1: AB = 3.\nStep 2: BC = 3.5 by symmetry.\n3.5 is the half.\nStep 3: done"
    assert segment_steps(numbered, None) == ["AB = 3.", "BC = 3.5 by symmetry.\n3.5 is the half.", "done"]
    chinese = "解：\n第1步：连接OA。\n第2步：由勾股定理得 OA=5。"
    assert segment_steps(chinese, None) == ["：连接OA。", "：由勾股定理得 OA=5。"] or len(segment_steps(chinese, None)) == 2
    assert segment_steps("(1) a\n(2) b\n(3) c", None) == ["a", "b", "c"]
    assert segment_steps("First idea.\n\nSecond idea.", None) == ["First idea.", "Second idea."]
    assert segment_steps("", None) == []
    hostile = "\n".join(f"{i}. x" for i in range(1, 5000))
    assert len(segment_steps(hostile, None)) == 64


def test_step_judgment_is_checked_against_the_student_steps() -> None:
    good = '{"steps": [{"step": 1, "correct": 1}, {"step": 2, "correct": false}], "final_answer_correct": "1"}'
    assert parse_step_judgment(good, 2) == {"marks": [1, 0], "reasons": ["", ""], "final_answer_correct": 1}
    with pytest.raises(ValueError, match="2 entries but the student gave 3"):
        parse_step_judgment(good, 3)
    with pytest.raises(ValueError, match="final_answer_correct"):
        parse_step_judgment('{"steps": []}', 0)
    with pytest.raises(ValueError, match="0 or 1"):
        parse_step_judgment('{"steps": [{"correct": 0.5}], "final_answer_correct": 1}', 1)
    with pytest.raises(ValueError, match="no JSON"):
        parse_step_judgment("all steps look right", 1)
    assert parse_error_type('{"error_type": "Logical reasoning"}')["error_type"] == "logical_reasoning"
    with pytest.raises(ValueError, match="error_type"):
        parse_error_type('{"error_type": "sloppiness"}')


# --- judged runs over loopback HTTP ------------------------------------------------------------

GOLD = {
    item.fields["problem_text"].strip()[:40]: item.fields
    for item in get_benchmark("geolaux").load_items(None, "geolaux", None)
}


def sample_item(text: str) -> dict:
    for head, item in GOLD.items():
        if head in text:
            return item
    raise AssertionError("unknown problem in prompt")


def student_answer(text: str) -> dict:
    """The student's answer (the model's JSON) as the official-format judge question quotes it."""
    return json.loads(text.split("学生解答：\n", 1)[1])


def error_question_marks(text: str) -> list[int]:
    """The step marks as the official-format error-type question lists them."""
    return json.loads(re.search(r"^每一步的正确性：(\[[01, ]*\])$", text, re.M).group(1))


def judge_or_model(request: dict) -> str:
    """Model: three steps, the second WRONG for English items; the gold answer except for en_2.
    Judge: marks WRONG steps 0 and the final answer by comparison with the reference (in the
    official format by default, in geomeval's with -T steps=geomeval)."""
    text = prompt_text(request)
    if '"Error_type"' in text:  # the official error-type question: every step marked 0 misread the figure
        return json.dumps({"Error_analysis": "misread",
                           "Error_type": ["图形理解错误" if not m else "N/A" for m in error_question_marks(text)]},
                          ensure_ascii=False)
    if "Step_by_step_evaluation" in text:  # the official judge: it reads the answer and decides the steps
        student = student_answer(text)
        return json.dumps({"Step_by_step_evaluation": [0 if "WRONG" in s else 1 for s in student["steps"]],
                           "Final_judgment": int(student["short_answer"] == "GOLD")})
    if "Grade a student's solution" in text:
        steps = re.findall(r"^Step (\d+): (.*)$", text, re.M)
        marks = [{"step": int(i), "correct": 0 if "WRONG" in s else 1, "reason": "checked"} for i, s in steps]
        student = re.search(r"^Student's final answer: (.*)$", text, re.M).group(1)
        return json.dumps({"steps": marks, "final_answer_correct": int(student == "GOLD")})
    if "has been graded step by step" in text:  # classify every step graded 0
        wrong = re.findall(r"^Step (\d+): 0$", text, re.M)
        return json.dumps({"errors": [{"step": int(i), "error_type": "figure_comprehension", "reason": "misread"}
                                      for i in wrong]})
    item = sample_item(text)
    english = item["language"] == "en"
    answer = "WRONG-ANSWER" if item["id"] == "en_2" else "GOLD"
    return json.dumps({"steps": ["1. given", "2. WRONG deduction" if english else "2. fine", "3. so"],
                       "short_answer": answer})


def test_judged_run_computes_the_published_metrics(tmp_path: Path) -> None:
    with ChatServer(judge_or_model) as server:
        results = run(get_benchmark("geolaux"), task="geolaux",
                      model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
                      judge=parse_judge_spec("openai:j", base_url=server.base_url), out_dir=tmp_path)
    n = results["n_items"]
    english = sum(1 for item in GOLD.values() if item["language"] == "en")
    metrics = results["metrics"]
    assert metrics["ACS"]["value"] == pytest.approx((n - 1) / n)
    assert metrics["PCS"]["value"] == pytest.approx((n - english) / n)
    assert metrics["PQS"]["value"] == pytest.approx(((n - english) * 1.0 + english * pqs([1, 0, 1])) / n)
    assert all(metrics[m]["coverage"] == 1.0 for m in ("ACS", "PCS", "PQS"))
    assert all(metrics[m]["judge"] == {"decided": n, "fallback": 0, "failed": 0} for m in ("ACS", "PCS", "PQS"))
    analysis = results["analysis"]
    assert analysis["first_error_step"]["counts"] == {"2": english}
    assert analysis["error_types"]["counts"]["figure_comprehension"] == english  # one wrong step each
    assert analysis["error_types"]["coverage"] == 1.0 and analysis["error_types"]["needed"] == english
    assert analysis["first_error_types"]["counts"]["figure_comprehension"] == english
    assert analysis["judge_input"] == {"text and figure": n}
    calc_gap = analysis["acs_pcs_gap_by_type"]
    assert set(calc_gap) == {"calculation", "proving"}
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    en1 = next(s for s in samples if s["id"] == "en_1")
    assert en1["judgment"]["marks"] == [1, 0, 1] and en1["judgment"]["error_type"] == "figure_comprehension"
    assert "Process analysis" in (tmp_path / "report.md").read_text()


def test_judge_failure_leaves_items_unscored_with_the_error(tmp_path: Path) -> None:
    def model_only(request: dict) -> str:
        if "Step_by_step_evaluation" in json.dumps(request["messages"]):  # the question and its repair
            return "I think it is mostly fine."  # never JSON: unreadable, even after the repair
        return judge_or_model(request)

    with ChatServer(model_only) as server:
        results = run(get_benchmark("geolaux"), task="geolaux",
                      model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
                      judge=parse_judge_spec("openai:j", base_url=server.base_url), out_dir=tmp_path)
    for metric in ("ACS", "PCS", "PQS"):
        stats = results["metrics"][metric]
        assert stats["value"] is None and stats["coverage"] == 0.0  # never counted as wrong
        assert any("after one repair retry" in reason for reason in stats["unscored_reasons"])
        assert stats["judge"] == {"decided": 0, "fallback": 0, "failed": results["n_items"]}
    assert results["analysis"] is None


def test_rescoring_with_a_judge_and_min_coverage_exit(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with ChatServer(judge_or_model) as server:
        first = subprocess.run(
            [sys.executable, "-m", "geomeval.cli", "run", "geolaux", "--model", "openai:m",
             "--base-url", server.base_url, "--out", str(out)],
            capture_output=True, text=True, timeout=300,
        )
        assert first.returncode == 0, first.stderr  # offline judge: PCS/PQS need a judge, not a failure
        rescored = subprocess.run(
            [sys.executable, "-m", "geomeval.cli", "score", str(out), "--judge", "openai:j",
             "-J", "base_url=" + str(server.base_url)],
            capture_output=True, text=True, timeout=300,
        )
    assert rescored.returncode == 0, rescored.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["judge"] == "openai:j" and results["metrics"]["PCS"]["coverage"] == 1.0


def test_compare_reports_the_auxiliary_line_ablation(tmp_path: Path) -> None:
    def helped_by_aux(request: dict) -> str:
        text = prompt_text(request)
        if _is_judge(request):
            return judge_or_model(request)
        answer = "GOLD" if "helpful auxiliary construction" in text or "辅助线提示" in text else "NOPE"
        return json.dumps({"steps": ["1. a", "2. b"], "short_answer": answer})

    with ChatServer(helped_by_aux) as server:
        for task in ("geolaux", "geolaux_aux"):
            run(get_benchmark("geolaux"), task=task,
                model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
                judge=parse_judge_spec("openai:j", base_url=server.base_url), out_dir=tmp_path / task)
    result = subprocess.run(
        [sys.executable, "-m", "geomeval.cli", "compare", str(tmp_path / "geolaux"), str(tmp_path / "geolaux_aux"),
         "--json", str(tmp_path / "cmp.json")],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    comparison = json.loads((tmp_path / "cmp.json").read_text())
    assert comparison["by"] == "auxiliary_type"
    groups = comparison["groups"]
    assert set(groups) == {"all", "none", "simple", "complex"}
    for aux_type, row in groups.items():
        items = [i for i in GOLD.values() if aux_type in ("all", i["auxiliary_type"])]
        helped = sum(1 for i in items if i["auxiliary_text"]) / len(items)
        assert row["ACS"]["A"] == 0.0 and row["ACS"]["delta"] == pytest.approx(helped), aux_type
    assert groups["simple"]["ACS"]["delta"] == 1.0 and groups["none"]["ACS"]["delta"] == 0.0
    assert "auxiliary_type" in result.stdout and "Δ (B − A)" in result.stdout and "+100.0" in result.stdout


def test_judge_never_gets_the_models_key_on_another_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOMEVAL_API_KEY", "sk-model")
    monkeypatch.setenv("GEOMEVAL_BASE_URL", "http://model-host/v1")
    shared = parse_judge_spec("openai:j")
    elsewhere = parse_judge_spec("openai:j", base_url="http://judge-host/v1")
    assert shared.client.redact("sk-model") == "***"  # same server: the model's key is used
    assert elsewhere.client.redact("sk-model") == "sk-model"  # no key sent to the judge's host


def test_delta_pcs_is_the_published_relative_drop() -> None:
    """The GeoLaux leaderboard's ΔPCS: QvQ's PCS 22.4 on 1–4 steps and 1.2 on 13–24 steps
    give 94.6 (%); other buckets do not enter, and no drop is measured from an empty bucket."""
    published = delta_pcs({"1-4": 0.224, "5-8": 0.09, "9-12": 0.03, "13-24": 0.012})
    assert published is not None and round(published["value"], 1) == 94.6
    assert delta_pcs({"1-4": 0.5, ">24": 0.0, "0": 0.1}) is None  # no 13–24 bucket
    assert delta_pcs({"1-4": 0.0, "13-24": 0.2}) is None
    assert delta_pcs({"1-4": 0.2, "13-24": 0.3})["value"] == pytest.approx(-50.0)  # type: ignore[index]


def test_a_solution_without_a_short_answer_is_wrong_with_no_steps_and_costs_no_judge_call() -> None:
    """As the official judge: no short answer means ACS, PCS and PQS 0, whatever the steps."""
    import asyncio

    bench = get_benchmark("geolaux")
    item = next(iter(bench.load_items(None, "geolaux", None)))
    record = bench.new_record(item, "geolaux")
    record.response = "Step 1: the triangle is isosceles.\nStep 2: so the base angles are equal."
    with ChatServer(lambda request: '{"marks": [1, 1], "final_answer_correct": 1}') as server:
        judge = parse_judge_spec("openai:j", base_url=server.base_url)
        scores = asyncio.run(bench.score(record, judge))
        assert server.requests == []
    assert {name: scores[name].value for name in ("ACS", "PCS", "PQS")} == {"ACS": 0.0, "PCS": 0.0, "PQS": 0.0}
    assert record.judgment is not None and record.judgment["note"] == "no short answer"


# --- the judge sees the figure (issue #19, point 1) ----------------------------------------------

def _is_judge(request: dict) -> bool:
    text = prompt_text(request)
    return any(mark in text for mark in ("Step_by_step_evaluation", "Grade a student's solution",
                                         "has been graded step by step", '"Error_type"'))


def test_the_judge_sees_the_problems_figure_and_not_the_auxiliary_one(tmp_path: Path) -> None:
    """As the paper's (and the official script's) judge: the problem's figure with every judge
    question, also in geolaux_aux, where the model got the auxiliary figure too."""
    with ChatServer(judge_or_model) as server:
        run(get_benchmark("geolaux"), task="geolaux_aux",
            model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
            judge=parse_judge_spec("openai:j", base_url=server.base_url), out_dir=tmp_path)
    judge_requests = [r for r in server.requests if _is_judge(r)]
    kinds = {('"Error_type"' in prompt_text(r)) for r in judge_requests}
    assert kinds == {True, False}  # step judgments and error-type questions both checked
    for request in judge_requests:
        item = sample_item(prompt_text(request))
        content = request["messages"][-1]["content"]
        images = [p for p in content if p["type"] == "image_url"]
        assert images == [image_part(item["image"])], item["id"]
        assert content[0]["type"] == "image_url" and len(request["messages"]) == 1  # figure first, as official
        assert "及其对应的图" in prompt_text(request)  # both official questions name the figure


def _text_only_run(tmp_path: Path, judge_retry: RetryPolicy, **judge_options: object) -> tuple[dict, ChatServer]:
    with ChatServer(judge_or_model) as model_server, ChatServer(judge_or_model, text_only=True) as judge_server:
        results = run(get_benchmark("geolaux"), task="geolaux",
                      model=parse_model_spec("openai:m", ModelOptions(base_url=model_server.base_url)),
                      judge=parse_judge_spec("openai:j", base_url=judge_server.base_url, retry=judge_retry,
                                             **judge_options),
                      out_dir=tmp_path)
    return results, judge_server


def test_a_judge_that_refuses_the_figure_leaves_items_unscored_saying_what_to_do(tmp_path: Path) -> None:
    """A text-only judge endpoint (HTTP 500 to list content, as llama.cpp's) is an infrastructure
    failure: every item unscored with the refusal and the switch named, never scored wrong."""
    results, _ = _text_only_run(tmp_path, RetryPolicy(max_attempts=1, breaker_failures=10_000))
    n = results["n_items"]
    for metric in ("ACS", "PCS", "PQS"):
        stats = results["metrics"][metric]
        assert stats["value"] is None and stats["coverage"] == 0.0
        assert stats["judge"] == {"decided": 0, "fallback": 0, "failed": n}
        assert stats["unscored_reasons"] and all(
            "carried an image" in reason and "GEOMEVAL_JUDGE_IMAGES=0" in reason for reason in stats["unscored_reasons"]
        )
    assert results["analysis"] is None


def test_a_figure_refusal_that_stops_the_run_names_the_switch(tmp_path: Path) -> None:
    with pytest.raises(EndpointFailure, match="GEOMEVAL_JUDGE_IMAGES=0"):
        _text_only_run(tmp_path, RetryPolicy(max_attempts=1, breaker_failures=2))


def test_the_text_only_switch_judges_from_the_words_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOMEVAL_JUDGE_IMAGES", "0")
    results, judge_server = _text_only_run(tmp_path, RetryPolicy(max_attempts=1, breaker_failures=10_000))
    n = results["n_items"]
    assert all(results["metrics"][m]["coverage"] == 1.0 for m in ("ACS", "PCS", "PQS"))
    judge_requests = [r for r in judge_server.requests if _is_judge(r)]
    assert judge_requests and all(isinstance(r["messages"][-1]["content"], str) for r in judge_requests)
    assert not any("figure is attached" in prompt_text(r) or "对应的图" in prompt_text(r) for r in judge_requests)
    assert results["analysis"]["judge_input"] == {TEXT_ONLY: n}
    assert f"The judge saw: {TEXT_ONLY} ({n} items)." in (tmp_path / "report.md").read_text()
    assert WITH_FIGURE != TEXT_ONLY


def test_the_switch_reads_yes_and_no_and_refuses_anything_else() -> None:
    assert judge_images(None) and judge_images("1") and judge_images("TRUE") and judge_images(" on ")
    assert not judge_images("0") and not judge_images("false") and not judge_images("Off")
    with pytest.raises(ValueError, match="GEOMEVAL_JUDGE_IMAGES"):
        judge_images("text")
    assert parse_judge_spec("openai:j", base_url="http://127.0.0.1:9/v1").images
    assert not parse_judge_spec("openai:j", base_url="http://127.0.0.1:9/v1", images=False).images


# --- every wrong step classified (issue #19, point 2) ---------------------------------------------

def test_every_wrong_step_is_classified_once_per_solution(tmp_path: Path) -> None:
    """English solutions go wrong at step 2 (a calculation) and step 4 (a theorem): the paper's
    shares count both; the first-wrong-step table, kept apart, counts step 2 only."""
    def two_mistakes(request: dict) -> str:
        text = prompt_text(request)
        if '"Error_type"' in text:  # the official error-type question: the answer as written, the marks
            answer = text.split("学生解答：\n", 1)[1].split("\n每一步的正确性：")[0]
            steps = json.loads(answer)["steps"]
            return json.dumps({"Error_analysis": "…", "Error_type": [
                "N/A" if mark else "计算错误" if "arithmetic" in step else "【知识点错误】"
                for step, mark in zip(steps, error_question_marks(text), strict=True)
            ]}, ensure_ascii=False)
        if _is_judge(request):
            return judge_or_model(request)
        english = sample_item(text)["language"] == "en"
        steps = ["1. given", "2. WRONG arithmetic" if english else "2. fine", "3. so",
                 "4. WRONG theorem" if english else "4. done"]
        return json.dumps({"steps": steps, "short_answer": "GOLD"})

    with ChatServer(two_mistakes) as server:
        results = run(get_benchmark("geolaux"), task="geolaux",
                      model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
                      judge=parse_judge_spec("openai:j", base_url=server.base_url), out_dir=tmp_path)
    english = sum(1 for item in GOLD.values() if item["language"] == "en")
    assert sum('"Error_type"' in prompt_text(r) for r in server.requests) == english
    every, first = results["analysis"]["error_types"], results["analysis"]["first_error_types"]
    assert every["counts"] == {"figure_comprehension": 0, "knowledge": english, "calculation": english,
                               "logical_reasoning": 0}
    assert (every["needed"], every["classified"], every["coverage"]) == (2 * english, 2 * english, 1.0)
    assert every["shares"]["knowledge"] == every["shares"]["calculation"] == 0.5
    assert first["counts"]["calculation"] == english and first["counts"]["knowledge"] == 0
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    en1 = next(s for s in samples if s["id"] == "en_1")["judgment"]
    assert en1["step_error_types"] == ["calculation", "knowledge"] and en1["error_type"] == "calculation"
    report = (tmp_path / "report.md").read_text()
    assert f"Error types of every wrong step ({2 * english}/{2 * english} classified)" in report
    assert "first wrong step (not the paper's shares)" in report


def test_error_types_reply_must_cover_exactly_the_wrong_steps() -> None:
    reply = {"errors": [{"step": 2, "error_type": "Calculation", "reason": "3 × 4 = 11"},
                        {"step": 3, "error_type": "N/A"}, {"step": "5", "error_type": "logical reasoning"}]}
    assert parse_error_types(json.dumps(reply), [2, 5]) == {
        "types": ["calculation", "logical_reasoning"], "reasons": ["3 × 4 = 11", ""]}
    with pytest.raises(ValueError, match=r"no error_type for wrong step \[5\]"):
        parse_error_types(json.dumps({"errors": reply["errors"][:2]}), [2, 5])
    with pytest.raises(ValueError, match="step 3 was not graded wrong"):
        parse_error_types('{"errors": [{"step": 3, "error_type": "knowledge"}]}', [2])
    with pytest.raises(ValueError, match="classified twice"):
        parse_error_types('{"errors": [{"step": 2, "error_type": "knowledge"}, {"step": 2, "error_type": "knowledge"}]}', [2])
    with pytest.raises(ValueError, match="error_type"):
        parse_error_types('{"errors": [{"step": 2, "error_type": "carelessness"}]}', [2])
    with pytest.raises(ValueError, match="must be a list"):
        parse_error_types('{"error_type": "knowledge"}', [2])
    with pytest.raises(ValueError, match="at most"):
        parse_error_types(json.dumps({"errors": [{"step": 1, "error_type": "n/a"}] * 500}), [2])


def test_cli_judge_text_only_flag_for_run_and_score(tmp_path: Path) -> None:
    """`-J images=no` is the command-line switch (GEOMEVAL_JUDGE_IMAGES=0's twin), on run and score."""
    out = tmp_path / "run"
    with ChatServer(judge_or_model) as model_server, ChatServer(judge_or_model, text_only=True) as judge_server:
        ran = subprocess.run(
            [sys.executable, "-m", "geomeval.cli", "run", "geolaux", "--model", "openai:m", "--base-url",
             model_server.base_url, "--judge", "openai:j", "-J", "base_url=" + str(judge_server.base_url),
             "-J", "images=no", "--out", str(out), "--cache", "off", "--limit", "3"],
            capture_output=True, text=True, timeout=600, check=False)
        assert ran.returncode == 0, ran.stderr
        rescored = subprocess.run(
            [sys.executable, "-m", "geomeval.cli", "score", str(out), "--judge", "openai:j", "-J",
             "base_url=" + str(judge_server.base_url), "-J", "images=no", "--cache", "off"],
            capture_output=True, text=True, timeout=600, check=False)
        assert rescored.returncode == 0, rescored.stderr
        judged = [r for r in judge_server.requests if _is_judge(r)]
    assert judged and all(isinstance(r["messages"][-1]["content"], str) for r in judged)
    results = json.loads((out / "results.json").read_text())
    assert all(results["metrics"][m]["coverage"] == 1.0 for m in ("ACS", "PCS", "PQS"))
