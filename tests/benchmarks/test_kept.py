"""The copy of each written record a run keeps (`Benchmark.kept`) is all its summary needs.

`geomeval run` and `geomeval score` keep, for `aggregate`, `responded` and results.json, a slim
copy of every record (issue #22: memory flat in N), holding of the target, judgment,
extracted and explanations only what the benchmark's `scoring.KEPT` declares. Should an
aggregate start reading something else, these tests fail: every registered benchmark × task,
on its embedded sample, and GeoLaux judged over loopback HTTP (its analysis reads the
judgment), aggregates the kept copies exactly as the records read back from samples.jsonl.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from geomeval.benchmarks import REGISTRY, get_benchmark
from geomeval.benchmarks.base import Benchmark
from geomeval.core.records import SampleRecord
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.run.runner import generation_usage, read_samples, rescore, run
from geomeval.testing.chat_server import ChatServer, prompt_text

CASES = [(name, task) for name, bench in REGISTRY.items() for task in bench.tasks]
LIMIT = 8


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _in_run_order(bench: Benchmark, task: str, out: Path) -> list[SampleRecord]:
    """samples.jsonl's records (written as they finished) in the items' order, the order a run
    aggregates them in (bootstrap intervals depend on it)."""
    order = {item.id: i for i, item in enumerate(bench.load_items(None, task, LIMIT))}
    return sorted(read_samples(out / "samples.jsonl"), key=lambda r: order[r.id])


def _kept_summarises_as_the_records(bench: Benchmark, records: list[SampleRecord], results: dict[str, Any]) -> None:
    """The kept copies give the records' summary, generation counts and resume answers, and
    results.json (made from the kept copies by the run) holds that summary."""
    kept = [bench.kept(record) for record in records]
    whole = bench.aggregate(records)
    assert _text(bench.aggregate(kept)) == _text(whole), bench.name
    assert {k: _text(results[k]) for k in whole} == {k: _text(v) for k, v in whole.items()}, bench.name
    assert [bench.responded(r) for r in kept] == [bench.responded(r) for r in records]
    assert [bench.finished(r) for r in kept] == [bench.finished(r) for r in records]
    assert generation_usage(kept, bench.responded) == generation_usage(records, bench.responded)
    for copy, record in zip(kept, records, strict=True):  # the texts are not kept
        assert copy.response == ("" if record.response is not None else None)
        assert set(copy.target) <= set(bench.kept_fields.target)


@pytest.mark.parametrize(("name", "task"), CASES)
def test_kept_copies_aggregate_as_the_saved_records(name: str, task: str, tmp_path: Path) -> None:
    bench = get_benchmark(name)
    out = tmp_path / "run"
    results = run(bench, task=task, model=parse_model_spec("baseline:random"), judge=parse_judge_spec("offline"),
                  out_dir=out, limit=LIMIT)
    records = _in_run_order(bench, task, out)
    assert records and len(records) == results["n_items"]
    _kept_summarises_as_the_records(bench, records, results)
    rescored = rescore(out, parse_judge_spec("offline"))  # kept as the rescore wrote them, in the file's order
    _kept_summarises_as_the_records(bench, read_samples(out / "samples.jsonl"), rescored)


ANSWER = ("Connect AB. Since AB = 3 and BC = 4, the triangle is right-angled at B, so AC = 5.\n"
          "The answer is (A) 5. The keypoint is the right angle at B.")


@pytest.mark.parametrize(("name", "task"), CASES)
def test_kept_copies_of_answered_items_aggregate_as_the_saved_records(name: str, task: str, tmp_path: Path) -> None:
    """With a model that answers (text metrics and extraction then explain their scores)."""
    bench = get_benchmark(name)
    with ChatServer(lambda request: ANSWER) as server:
        results = run(bench, task=task, model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
                      judge=parse_judge_spec("offline"), out_dir=tmp_path, limit=LIMIT)
    _kept_summarises_as_the_records(bench, _in_run_order(bench, task, tmp_path), results)


def _geolaux_server(request: dict[str, Any]) -> str:
    """Model: three steps, the second wrong, and a short answer right for every other item.
    Judge: marks the wrong step 0, and classifies it."""
    text = prompt_text(request)
    if "Grade a student's solution" in text:
        steps = re.findall(r"^Step (\d+): (.*)$", text, re.M)
        marks = [{"step": int(i), "correct": 0 if "WRONG" in s else 1, "reason": "checked " * 40} for i, s in steps]
        student = re.search(r"^Student's final answer: (.*)$", text, re.M)
        return json.dumps({"steps": marks, "final_answer_correct": int(bool(student) and "7" in student.group(1))})
    if "has been graded step by step" in text:
        wrong = re.findall(r"^Step (\d+): 0$", text, re.M)
        return json.dumps({"errors": [{"step": int(i), "error_type": "figure_comprehension", "reason": "misread"}
                                      for i in wrong]})
    answer = "7" if len(text) % 2 else "8"
    return json.dumps({"steps": ["1. given", "2. WRONG deduction", "3. so"], "short_answer": answer})


def test_a_judged_geolaux_run_keeps_what_its_analysis_reads(tmp_path: Path) -> None:
    bench = get_benchmark("geolaux").configure({"steps": "geomeval"})  # its judge gives reasons to leave out
    with ChatServer(_geolaux_server) as server:
        results = run(bench, task="geolaux", model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
                      judge=parse_judge_spec("openai:j", base_url=server.base_url), out_dir=tmp_path, limit=LIMIT)
    assert results["analysis"]["judged_items"] == results["n_items"]  # the analysis ran on the kept copies
    records = _in_run_order(bench, "geolaux", tmp_path)
    assert all(r.judgment and r.judgment["reasons"] for r in records)  # the judge's texts are saved ...
    assert all("reasons" not in (bench.kept(r).judgment or {}) for r in records)  # ... and not kept
    _kept_summarises_as_the_records(bench, records, results)
