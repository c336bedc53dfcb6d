"""lmms-eval 0.7.3 running geomeval's GeoLaux tasks: the real CLI, a real loopback server.

`geomeval lmms-eval` runs `python -m lmms_eval --model openai` in a subprocess against
`ChatServer`, whose scripted model answers some items right and one wrong, so the
ACS in lmms-eval's results JSON has a known exact value. Offline there is no judge:
PCS and PQS must come out unscored (null), not zero.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from lmms_support import build_sample, geomeval_lmms_eval, only_results

from geomeval.benchmarks.geolaux import data
from geomeval.benchmarks.geolaux.benchmark import GeoLaux
from geomeval.benchmarks.geolaux.process_metrics import pqs
from geomeval.benchmarks.geolaux.prompts import build_messages
from geomeval.integrations import lmms_eval as integration
from geomeval.testing.chat_server import ChatServer, prompt_text

# CI sets REQUIRE_LMMS_EVAL=1, so a broken install fails there instead of skipping.
pytestmark = pytest.mark.skipif(
    find_spec("lmms_eval") is None and not os.environ.get("REQUIRE_LMMS_EVAL"),
    reason="lmms-eval is not installed (pip install -c constraints.txt '.[lmms]')",
)

RAW = json.loads((data.sample_path() / "GeoLaux_sample.json").read_text(encoding="utf-8"))
WRONG = {"en_3"}  # answered with a wrong value; every other item with its gold answer
MODEL_ARGS = "model=test-model,base_url={url},api_key=sk-test,num_concurrent=4,max_retries=2"


def item_id(prompt: str) -> str | None:
    matches = [key for key, raw in RAW.items() if raw["problem_text"].strip() in prompt]
    return max(matches, key=lambda k: len(RAW[k]["problem_text"])) if matches else None


def responder(request: dict) -> str:
    key = item_id(prompt_text(request))
    if key is None:
        return "I cannot tell which problem this is."
    answer = RAW[key].get("number_answer") or "the statement is proved"
    if key in WRONG:
        answer = "12345"
    return json.dumps({"steps": ["1. by the figure"], "short_answer": answer})


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample(tmp_path_factory, data, "geolaux")


@pytest.fixture(scope="module")
def rows(built: Path) -> list[dict]:
    return list(data.load(str(built)))


def image_count(request: dict) -> int:
    return sum(1 for part in request["messages"][-1]["content"] if part.get("type") == "image_url")


@pytest.mark.slow
def test_cli_scores_geolaux_on_a_built_dataset(built: Path, rows: list[dict], tmp_path: Path) -> None:
    out = tmp_path / "out"
    with ChatServer(responder) as server:
        result = geomeval_lmms_eval(
            "--data", str(built), "--",
            "--model", "openai", "--model_args", MODEL_ARGS.format(url=server.base_url),
            "--tasks", "geolaux", "--limit", "4", "--log_samples", "--output_path", str(out),
            cache=tmp_path / "cache",
        )
        requests = list(server.requests)
    # ACS scored 3 of 4: en_4's proof needs a judge for its final answer, and PCS and PQS need
    # one throughout; none was given, so those items are a setting of the run, not failures,
    # and coverage is whole (the default --min-coverage 0.95 passes), as `geomeval run` counts.
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "coverage below --min-coverage" not in result.stderr
    scores = only_results(out)["results"]["geolaux"]
    # en_1, en_2 right, en_3 wrong; en_4 is a proof with no gold short answer (unscored).
    assert scores["ACS,none"] == 2 / 3
    # ACS per scored item 1, 1, 0: sample standard deviation sqrt(1/3) over sqrt(3)
    assert scores["ACS_stderr,none"] == pytest.approx(1 / 3)
    # coverage once per task, with its standard error (every counted item scored: 0)
    assert scores["coverage,none"] == 1.0 and scores["coverage_stderr,none"] == 0.0
    assert not [key for key in scores if key.split(",")[0].endswith("_coverage")]
    for metric in ("PCS", "PQS"):  # offline: no judge, so not scored (null), never zero
        assert scores[f"{metric},none"] is None
        assert scores[f"{metric}_stderr,none"] == "N/A"
    assert "geolaux: ACS 0.6667 ± 0.3333, PCS n/a, PQS n/a (coverage 1.0000)" in result.stdout

    # The model saw exactly what `geomeval run` sends: the figure, then build_messages' text (the official order).
    assert len(requests) == 4
    by_id = {row["id"]: row for row in rows}
    seen = set()
    for request in requests:
        assert request["model"] == "test-model"
        key = item_id(prompt_text(request))
        seen.add(key)
        row = integration.doc_to_row(by_id[key], "geolaux")
        expected = build_messages(row, with_auxiliary=False, prompts=GeoLaux().prompts)[0]["content"]
        assert [p["type"] for p in request["messages"][-1]["content"]] == [p["type"] for p in expected]
        assert prompt_text(request) == next(p["text"] for p in expected if p["type"] == "text")
    assert seen == {"en_1", "en_2", "en_3", "en_4"}

    samples_file = next(out.rglob("*_samples_geolaux.jsonl"))
    samples = {s["ACS"]["id"]: s for s in map(json.loads, samples_file.read_text().splitlines())}
    assert {k: s["ACS"]["value"] for k, s in samples.items()} == {
        "en_1": 1.0, "en_2": 1.0, "en_3": 0.0, "en_4": None,
    }
    assert "no gold short answer" in samples["en_4"]["ACS"]["unscored"]
    assert samples["en_3"]["ACS"]["explanation"]
    assert all(s["PCS"]["value"] is None and s["PCS"]["unscored"] for s in samples.values())


@pytest.mark.slow
def test_cli_aux_task_on_the_embedded_sample(tmp_path: Path) -> None:
    """No --data: the embedded sample, built once into GEOMEVAL_CACHE_DIR."""
    out = tmp_path / "out"
    cache = tmp_path / "cache"
    with ChatServer(responder) as server:
        result = geomeval_lmms_eval(  # en_4, a proof without a short answer, leaves ACS at 4/5
            "--min-coverage", "0", "--",
            "--model", "openai", "--model_args", MODEL_ARGS.format(url=server.base_url),
            "--tasks", "geolaux_aux", "--limit", "5", "--output_path", str(out),
            cache=cache,
        )
        requests = list(server.requests)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert any(cache.glob("lmms_eval/geolaux-*/data/test-*.parquet"))
    scores = only_results(out)["results"]["geolaux_aux"]
    assert scores["ACS,none"] == 3 / 4  # en_1, en_2, en_5 right, en_3 wrong, en_4 a proof
    assert scores["PCS,none"] is None and scores["PQS,none"] is None
    images = {item_id(prompt_text(r)): image_count(r) for r in requests}
    # Items whose auxiliary construction has a drawing send it as a second image.
    assert images == {"en_1": 1, "en_2": 2, "en_3": 1, "en_4": 2, "en_5": 2}
    aux = next(r for r in requests if item_id(prompt_text(r)) == "en_2")
    assert "A helpful auxiliary construction: Draw CH perpendicular to AB at H." in prompt_text(aux)


@pytest.mark.slow
def test_cli_tasks_send_the_prompt_file_and_refuse_a_bad_one(tmp_path: Path) -> None:
    """`geomeval lmms-eval --prompts FILE`: the tasks pose items with the file's templates, as
    `geomeval run --prompts` does; a bad file stops before lmms-eval starts."""
    prompts = tmp_path / "authors.yaml"
    prompts.write_text("geolaux:\n  calculation: 'AUTHORS WORDING. {problem}{options}'\n"
                       "  proving: 'AUTHORS PROOF. {problem}'\n"  # the embedded sample's English items:
                       "  calculation_en: 'AUTHORS WORDING. {problem}{options}'\n"
                       "  proving_en: 'AUTHORS PROOF. {problem}'\n", encoding="utf-8")
    out = tmp_path / "out"
    with ChatServer(responder) as server:
        result = geomeval_lmms_eval(
            "--min-coverage", "0", "--prompts", str(prompts), "--",
            "--model", "openai", "--model_args", MODEL_ARGS.format(url=server.base_url),
            "--tasks", "geolaux", "--limit", "3", "--output_path", str(out),
            cache=tmp_path / "cache",
        )
        texts = [prompt_text(r) for r in server.requests]
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert len(texts) == 3 and all(t.startswith(("AUTHORS WORDING. ", "AUTHORS PROOF. ")) for t in texts)
    assert all(item_id(t) for t in texts)  # the problem itself was filled in

    prompts.write_text("geolaux:\n  calculation: 'AUTHORS {question}'\n", encoding="utf-8")
    bad = geomeval_lmms_eval("--prompts", str(prompts), "--", "--model", "openai", "--model_args",
                             "model=m,base_url=http://127.0.0.1:9/v1,api_key=k", "--tasks", "geolaux",
                             "--output_path", str(tmp_path / "bad"), cache=tmp_path / "cache")
    assert bad.returncode == 2 and "geolaux.calculation" in bad.stderr and "{question}" in bad.stderr
    assert not (tmp_path / "bad").exists()  # lmms-eval never started


@pytest.mark.slow
def test_cli_fails_when_lmms_eval_writes_no_results(built: Path, tmp_path: Path) -> None:
    result = geomeval_lmms_eval(
        "--data", str(built), "--",
        "--model", "openai", "--model_args", "model=m,base_url=http://127.0.0.1:9/v1,api_key=k",
        "--tasks", "no_such_geolaux_task", "--output_path", str(tmp_path / "out"),
        cache=tmp_path / "cache",
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert "wrote no results JSON" in result.stderr
    assert integration.find_results(tmp_path / "out") == []


def test_messages_match_build_messages_for_lmms_docs(rows: list[dict]) -> None:
    """lmms-eval docs (ClassLabel ints, PIL images) pose the item as build_messages does."""
    from PIL import Image, ImageChops

    for row in rows:
        for task in ("geolaux", "geolaux_aux"):
            ours = integration.doc_to_messages(row, task)[0]["content"]
            expected = build_messages(integration.doc_to_row(row, task), with_auxiliary=task == "geolaux_aux", prompts=GeoLaux().prompts)
            expected = expected[0]["content"]
            assert [p["type"] for p in ours] == ["text" if p["type"] == "text" else "image" for p in expected]
            texts = [p["text"] for p in ours if p["type"] == "text"]
            assert texts == [p["text"] for p in expected if p["type"] == "text"] == [integration.doc_to_text(row, task)]
            visuals = integration.doc_to_visual(row, task)
            assert len(visuals) == len(expected) - 1
            for image, part in zip(visuals, [p for p in expected if p["type"] != "text"], strict=True):
                payload = part["image_url"]["url"].partition(",")[2]
                original = Image.open(io.BytesIO(base64.b64decode(payload)))
                assert ImageChops.difference(image.convert("RGBA"), original.convert("RGBA")).getbbox() is None


def test_process_results_and_aggregation(rows: list[dict]) -> None:
    row = {k: v for k, v in rows[0].items() if k not in ("image", "auxiliary_image")}  # as lmms-eval passes it
    right = integration.entry_points("geolaux")["geolaux_process_results"](row, ['{"steps": ["1. x"], "short_answer": "70"}'])
    assert right["ACS"] == {**right["ACS"], "value": 1.0, "id": "en_1", "task": "geolaux"}
    failed = integration.entry_points("geolaux")["geolaux_process_results"](row, ["[LMMS_EVAL_REQUEST_FAILED after 5 retries] boom"])
    assert failed["ACS"]["value"] is None and "model failed" in failed["ACS"]["unscored"]
    assert integration.aggregate_scored([right["ACS"], failed["ACS"]]) == 1.0
    # one coverage entry per item: ACS scored on one of two; PCS and PQS need the judge none
    # was named (left out, as `geomeval run --min-coverage` leaves them)
    assert right["coverage"]["metrics"] == {"ACS": "scored", "PCS": "needs_judge", "PQS": "needs_judge"}
    # the failed request is a failure of every metric (the judge-only ones too): ACS 1 of 2,
    # PCS and PQS 0 of 1, so the task's coverage is 0, as `geomeval run` would count it
    assert failed["coverage"]["metrics"] == {"ACS": "unscored", "PCS": "unscored", "PQS": "unscored"}
    assert integration.coverage([right["coverage"], failed["coverage"]]) == 0.0
    assert integration.coverage([right["coverage"], right["coverage"]]) == 1.0
    assert not [key for key in right if key.endswith("_coverage")]
    assert integration.aggregate_scored([right["PCS"], failed["PCS"]]) is None
    assert integration.aggregate_scored([]) is None and integration.coverage([]) == 0.0
    # lmms-eval's Stderr_CLT reads `score` (the task YAMLs' score_key): the scored entry has
    # it, the unscored one none, so the standard error is over the items the mean is over.
    assert right["ACS"]["score"] == 1.0 and "score" not in failed["ACS"]


def test_include_dir_rewrites_dataset_path_and_keeps_function_tags(tmp_path: Path) -> None:
    from lmms_eval.utils import load_yaml_config

    include = integration.prepare_include_dir(tmp_path / "inc", {"geolaux": "/data/GeoLaux built"})
    folder = include / "geomeval" / "geolaux"
    shipped = integration.load_task_yaml((integration.tasks_dir() / "geolaux" / integration.TEMPLATE).read_text())
    rewritten = integration.load_task_yaml((folder / integration.TEMPLATE).read_text())
    assert "dataset_path" not in shipped and integration.SPECS["geolaux"].hub_dataset == ""  # no authors' Hub id
    assert rewritten == {**shipped, "dataset_path": "/data/GeoLaux built"}
    # lmms-eval's own loader: the include resolves and every !function tag imports.
    for task in ("geolaux", "geolaux_aux"):
        config = load_yaml_config(str(folder / f"{task}.yaml"), mode="full")
        assert config["task"] == task and config["dataset_path"] == "/data/GeoLaux built"
        assert config["process_results"].__name__ == f"{task}_process_results"
        assert config["doc_to_messages"].__name__ == f"{task}_doc_to_messages"
        aggregations = {m["metric"]: m["aggregation"].__name__ for m in config["metric_list"]}
        assert aggregations == {
            "ACS": "aggregate_scored", "PCS": "aggregate_scored", "PQS": "aggregate_scored",
            "coverage": "coverage",
        }


def judged_responder(request: dict) -> str:
    """Model: en_2 makes a WRONG second step, en_3 a wrong answer. Judge: marks WRONG steps 0
    and final answers by whether they are the planted wrong value."""
    text = prompt_text(request)
    if '"Error_type"' in text:  # the official-format error-type question: a type per step marked 0
        marks = json.loads(re.search(r"^每一步的正确性：(\[[01, ]*\])$", text, re.M).group(1))
        return json.dumps({"Error_analysis": "…", "Error_type": ["N/A" if m else "知识点错误" for m in marks]},
                          ensure_ascii=False)
    if "Step_by_step_evaluation" in text:  # the official-format judge: it reads the answer, decides the steps
        student = json.loads(text.split("学生解答：\n", 1)[1])
        marks = [0 if "WRONG" in step else 1 for step in student["steps"]]
        return json.dumps({"Step_by_step_evaluation": marks, "Final_judgment": int("12345" not in text)})
    if "Grade a student's solution" in text:
        steps = re.findall(r"^Step (\d+): (.*)$", text, re.M)
        marks = [{"step": int(i), "correct": 0 if "WRONG" in body else 1} for i, body in steps]
        return json.dumps({"steps": marks, "final_answer_correct": int("12345" not in text)})
    if "has been graded step by step" in text:  # the error-type question: every step graded 0
        wrong = re.findall(r"^Step (\d+): 0$", text, re.M)
        return json.dumps({"errors": [{"step": int(i), "error_type": "knowledge"} for i in wrong]})
    answer = json.loads(responder(request))
    if item_id(text) == "en_2":
        answer["steps"] = ["1. by the figure", "2. WRONG: the angles are equal"]
    return json.dumps(answer)


@pytest.mark.slow
def test_judge_calls_in_process_results_go_through_the_engine(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with ChatServer(judged_responder) as server:
        env = {"GEOMEVAL_JUDGE_MODEL": "judge-model", "GEOMEVAL_JUDGE_BASE_URL": server.base_url}
        result = geomeval_lmms_eval(
            "--data", str(built), "--",
            "--model", "openai", "--model_args", MODEL_ARGS.format(url=server.base_url),
            "--tasks", "geolaux", "--limit", "4", "--output_path", str(out),
            cache=tmp_path / "cache", extra_env=env,
        )
        judge_requests = [r for r in server.requests if r.get("model") == "judge-model"]
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    scores = only_results(out)["results"]["geolaux"]
    assert scores["ACS,none"] == 3 / 4  # en_4's proof is judged now
    assert scores["PCS,none"] == 2 / 4  # en_2 has a wrong step, en_3 a wrong answer
    assert scores["PQS,none"] == pytest.approx((3 + pqs([1, 0])) / 4)
    assert scores["coverage,none"] == 1.0
    assert len(judge_requests) == 5  # four step judgments and one error-type question
    assert all(r["temperature"] == 0.1 for r in judge_requests)  # GeoLaux's judge_temperature, as official


def _judged_lmms_run(built: Path, tmp_path: Path, name: str, defer: str) -> tuple[dict, ChatServer, list[dict]]:
    out = tmp_path / name
    with ChatServer(judged_responder) as model, ChatServer(judged_responder, latency_s=0.4) as judge:
        env = {"GEOMEVAL_JUDGE_MODEL": "judge-model", "GEOMEVAL_JUDGE_BASE_URL": judge.base_url,
               "GEOMEVAL_LMMS_DEFER": defer}
        result = geomeval_lmms_eval(
            "--data", str(built), "--",
            "--model", "openai", "--model_args", MODEL_ARGS.format(url=model.base_url),
            "--tasks", "geolaux", "--log_samples", "--output_path", str(out),
            cache=tmp_path / f"cache-{name}", extra_env=env,
        )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    samples_file = next(out.rglob("*_samples_geolaux.jsonl"))
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    return only_results(out)["results"]["geolaux"], judge, samples


@pytest.mark.slow
def test_judging_inside_lmms_eval_runs_at_geomevals_concurrency(built: Path, tmp_path: Path) -> None:
    """process_results starts each item's scoring and returns; the aggregation waits for all,
    so the judge calls of different items overlap (lmms-eval alone would judge one document
    after another). Scores, coverage and the logged samples are those of per-document judging."""
    together, judge, samples = _judged_lmms_run(built, tmp_path, "deferred", "1")
    one_by_one, serial_judge, serial_samples = _judged_lmms_run(built, tmp_path, "serial", "0")
    # lmms-eval's own postprocessing threads (4 at most) bound the per-document judging
    assert judge.max_in_flight >= 6 and serial_judge.max_in_flight <= 4
    assert len(judge.requests) == len(serial_judge.requests)
    for key in ("ACS,none", "PCS,none", "PQS,none", "coverage,none", "ACS_stderr,none", "PCS_stderr,none"):
        assert together[key] == pytest.approx(one_by_one[key]), key
    def logged(rows: list[dict]) -> dict:
        return {row["ACS"]["id"]: {m: row[m].get("value") for m in ("ACS", "PCS", "PQS")} for row in rows}
    assert logged(samples) == logged(serial_samples)
    assert not any("_geomeval_pending" in json.dumps(row) for row in samples)  # every placeholder filled


def test_min_coverage_reads_lmms_results_as_geomeval_run_does(tmp_path: Path) -> None:
    path = tmp_path / "results.json"

    def write(results: dict) -> Path:
        path.write_text(json.dumps({"results": results}), encoding="utf-8")
        return path

    full = {"geolaux": {"ACS,none": 0.5, "coverage,none": 1.0, "coverage_stderr,none": 0.0}}
    assert integration.coverage_shortfalls(write(full), 0.95) == []
    partial = {"geolaux": {"ACS,none": 1.0, "coverage,none": 0.5}, "other_task": {"coverage,none": 0.0}}
    assert integration.coverage_shortfalls(write(partial), 0.95) == ["geolaux: coverage 0.5000"]  # not other_task's
    assert integration.coverage_shortfalls(write(partial), 0.5) == []
    nothing = {"geolaux": {"ACS,none": None, "coverage,none": None}}  # no metric counted any item
    assert integration.coverage_shortfalls(write(nothing), 0.95) == []


def _coverage_entry(**states: str) -> dict:
    return {"id": "x", "task": "geolaux", "metrics": states}


def test_coverage_is_the_least_covered_metric_counting_failures_only() -> None:
    items = [_coverage_entry(ACS="scored", PCS="scored"), _coverage_entry(ACS="scored", PCS="unscored"),
             _coverage_entry(ACS="unscored", PCS="unscored"), _coverage_entry(ACS="scored", PCS="not_applicable")]
    # ACS 3 of 4, PCS 1 of 3 (the not-applicable item leaves its count): PCS's is the row
    assert integration.coverage(items) == pytest.approx(1 / 3)
    # its flags 1, 0, 0: sample standard deviation sqrt(1/3) over sqrt(3)
    assert integration.stderr_of_coverage(items) == pytest.approx(1 / 3)
    # a metric that needs a judge the run did not name is no failure, as `geomeval run` counts it
    offline = [_coverage_entry(ACS="scored", PQS="needs_judge"), _coverage_entry(ACS="unscored", PQS="needs_judge")]
    assert integration.coverage(offline) == 0.5
    assert integration.coverage([_coverage_entry(PQS="needs_judge")]) is None
    assert integration.stderr_of_coverage([_coverage_entry(PQS="needs_judge")]) == "N/A"
    # nothing scored: 0, never exempt
    assert integration.coverage([_coverage_entry(ACS="unscored"), _coverage_entry(ACS="unscored")]) == 0.0


def test_aggregations_carry_the_standard_error_of_their_mean() -> None:
    from lmms_eval import evaluator_utils
    from lmms_eval.api.metrics import mean, mean_stderr

    items = [{"value": v, "score": v} for v in (1.0, 0.0, 0.5, 1.0)] + [{"value": None}]
    # the scored values' sample standard deviation over sqrt(4), as lmms-eval's mean_stderr
    assert integration.stderr_of_scored(items) == pytest.approx(mean_stderr([1.0, 0.0, 0.5, 1.0]))
    assert integration.stderr_of_scored(items) == pytest.approx(0.2393567, abs=1e-7)
    assert integration.stderr_of_scored([{"value": 1.0}, {"value": None}]) == "N/A"
    assert integration.standard_error([2.0, 4.0]) == pytest.approx(1.0)
    # lmms-eval asks `stderr_for_metric` for a Stderr: once the task functions are loaded it
    # answers for geomeval's aggregations, keeps its own for lmms-eval's, and none at 0 iters
    functions = integration.entry_points("geolaux")
    for name in ("aggregate_scored", "coverage"):
        stderr = evaluator_utils.stderr_for_metric(functions[name], 100000)
        assert stderr is not None and evaluator_utils.stderr_for_metric(functions[name], 0) is None
    assert evaluator_utils.stderr_for_metric(functions["aggregate_scored"], 100000)(items) == pytest.approx(0.2393567)
    assert evaluator_utils.stderr_for_metric(mean, 100000) is mean_stderr


@pytest.mark.slow
def test_task_kwargs_set_prompts_and_judge_and_lmms_eval_reports_stderr(built: Path, tmp_path: Path) -> None:
    """A task YAML's `lmms_eval_specific_kwargs` carry the prompts and the judge, as upstream
    lmms-eval tasks carry theirs: plain `python -m lmms_eval --include_path`, no geomeval
    wrapper and no GEOMEVAL_JUDGE_* variable. The judge's API key is read from the
    environment only. lmms-eval's Stderr_CLT comes from the scored items."""
    include = integration.prepare_include_dir(tmp_path / "inc", {"geolaux": str(built)})
    template = include / "geomeval" / "geolaux" / integration.TEMPLATE
    config = integration.load_task_yaml(template.read_text(encoding="utf-8"))
    out = tmp_path / "out"
    with ChatServer(judged_responder) as model, ChatServer(judged_responder) as judge:
        config["lmms_eval_specific_kwargs"] = {"default": {
            "templates": {"calculation": "YAML WORDING. {problem}{options}", "proving": "YAML PROOF. {problem}",
                          "calculation_en": "YAML WORDING. {problem}{options}", "proving_en": "YAML PROOF. {problem}"},
            "judge": {"model": "yaml-judge", "base_url": judge.base_url, "concurrency": 3},
        }}
        template.write_text(integration.dump_task_yaml(config), encoding="utf-8")
        env = {key: value for key, value in integration._child_env().items() if not key.startswith("GEOMEVAL_")}
        env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", GEOMEVAL_CACHE_DIR=str(tmp_path / "cache"),
                   GEOMEVAL_JUDGE_API_KEY="sk-judge-secret", NO_PROXY="127.0.0.1,localhost")
        result = subprocess.run(
            [sys.executable, "-m", "lmms_eval", "--model", "openai",
             "--model_args", MODEL_ARGS.format(url=model.base_url), "--include_path", str(include),
             "--tasks", "geolaux", "--limit", "4", "--output_path", str(out)],
            capture_output=True, text=True, timeout=240, env=env, check=False,
        )
        model_texts = [prompt_text(r) for r in model.requests]
        judge_requests = list(judge.requests)
        judge_auth = {h.get("Authorization") or h.get("authorization") for h in judge.headers}
        model_auth = {h.get("Authorization") or h.get("authorization") for h in model.headers}
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert len(model_texts) == 4 and all(t.startswith(("YAML WORDING. ", "YAML PROOF. ")) for t in model_texts)
    assert judge_requests and all(r["model"] == "yaml-judge" for r in judge_requests)
    assert judge_auth == {"Bearer sk-judge-secret"} and "Bearer sk-judge-secret" not in model_auth
    scores = only_results(out)["results"]["geolaux"]
    assert scores["ACS,none"] == 3 / 4 and scores["PCS,none"] == 2 / 4
    # ACS per item 1, 1, 0, 1: the sample standard deviation 0.5 over sqrt(4)
    assert scores["ACS_stderr_clt,none"] == pytest.approx(0.25)
    assert "sk-judge-secret" not in result.stdout + result.stderr


def test_task_kwargs_are_checked() -> None:
    settings = integration.TaskSettings.parse("geolaux", {"default": {}, "prompt_file": "", "templates": {},
                                                          "judge": {"model": "m", "base_url": None}})
    assert settings.judge == (("model", "m"),)  # empty values fall back to the environment
    with pytest.raises(ValueError, match=r"task geolaux: lmms_eval_specific_kwargs: unknown key 'pre_prompt'"):
        integration.TaskSettings.parse("geolaux", {"pre_prompt": "x"})
    with pytest.raises(ValueError, match=r"judge: unknown key 'api_key'.*GEOMEVAL_JUDGE_API_KEY"):
        integration.TaskSettings.parse("geolaux", {"judge": {"api_key": "sk-x"}})
    # another model's section (lmms-eval keeps every section) is not a setting
    assert integration.TaskSettings.parse("geolaux", {"qwen2_vl": {"templates": {}}}) == integration.TaskSettings()
    from geomeval.engines.prompts import PromptError

    with pytest.raises(PromptError, match=r"lmms_eval_specific_kwargs.templates: geolaux.calculation.*\{question\}"):
        integration.chat_messages({"id": "x"}, "geolaux", {"templates": {"calculation": "AUTHORS {question}"}})
