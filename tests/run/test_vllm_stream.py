"""vLLM in-process as a stream (issue 43, point 1), against the stand-in engine in
tests/stubs/vllm: every prompt reaches the engine while the slow first answer is still being
made, answers are saved as they finish, engine arguments pass through, the cache answers a
rerun, and images reach the engine as pictures."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.engines.cache import ResponseCache
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.run.runner import run

STUBS = Path(__file__).resolve().parents[1] / "stubs"


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(STUBS))
    monkeypatch.delitem(sys.modules, "vllm", raising=False)
    module = importlib.import_module("vllm")
    module.EVENTS.clear()
    module.REFUSE.clear()
    yield module
    sys.modules.pop("vllm", None)


def test_a_slow_answer_does_not_hold_back_later_prompts(tmp_path: Path, fake_vllm: Any) -> None:
    bench = get_benchmark("geolaux")
    n = len(bench.load_items(None, "geolaux", None))
    fake_vllm.EXPECTED["prompts"] = n
    cache = ResponseCache(tmp_path / "cache.sqlite")
    options = ModelOptions(cache=cache, engine_args={"tensor_parallel_size": 2, "data_parallel_size": 2})
    results = run(bench, task="geolaux", model=parse_model_spec("vllm:org/model", options),
                  judge=parse_judge_spec("offline"), out_dir=tmp_path / "a",
                  concurrency=1)  # the engine is fed its window whatever --concurrency says
    events = fake_vllm.EVENTS
    assert events[0] == {"event": "engine", "model": "org/model",
                         "engine_args": {"tensor_parallel_size": 2, "data_parallel_size": 2}}
    arrivals = [i for i, e in enumerate(events) if e["event"] == "arrive"]
    slow_done = next(i for i, e in enumerate(events) if e["event"] == "answer" and e["number"] == 0)
    assert len(arrivals) == n and max(arrivals) < slow_done  # every prompt was in before it ended
    answers = [e["number"] for e in events if e["event"] == "answer"]
    assert answers[-1] == 0 and sorted(answers) == list(range(n))  # the slow one finished last
    assert events[-1] == {"event": "shutdown"}
    samples = [json.loads(line) for line in (tmp_path / "a" / "samples.jsonl").read_text().splitlines()]
    first_planned = bench.load_items(None, "geolaux", None)[0].id
    assert samples[-1]["id"] == first_planned  # saved as it finished, after the others
    assert all(s["generation_info"]["finish_reason"] == "stop" for s in samples)
    assert all(s["generation_info"]["usage"]["prompt_tokens"] == 4 for s in samples)
    assert all(e["images"] >= 1 for e in events if e["event"] == "arrive")  # GeoLaux's figure, as a picture
    assert results["generation"]["failed"] == 0 and results["n_items"] == n

    events.clear()
    again = run(bench, task="geolaux", model=parse_model_spec("vllm:org/model", options),
                judge=parse_judge_spec("offline"), out_dir=tmp_path / "b")
    assert not [e for e in events if e["event"] == "arrive"]  # every prompt answered by the cache
    assert again["metrics"] == results["metrics"]


def test_cli_passes_parallelism_and_engine_arguments_through_M(tmp_path: Path) -> None:
    log = tmp_path / "vllm.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(STUBS), os.environ.get("PYTHONPATH", "")]),
           "FAKE_VLLM_LOG": str(log), "FAKE_VLLM_PROMPTS": "3", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    flags = ["-M", "tensor_parallel_size=2", "-M", "data_parallel_size=4", "-M", "max_model_len=4096",
             "-M", "enforce_eager=true", "--cache", "off"]  # the model's settings as -M key=value
    done = subprocess.run(
        [sys.executable, "-m", "geomeval.cli", "run", "geolaux", "--model", "vllm:org/m", "--limit", "3", *flags,
         "--out", str(tmp_path / "run")],
        capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0]["engine_args"] == {"tensor_parallel_size": 2, "data_parallel_size": 4, "max_model_len": 4096,
                                        "enforce_eager": True}  # in any order
    arrived = [e for e in events if e["event"] == "arrive"]
    assert len(arrived) == 3 and arrived[0]["sampling"] == {"temperature": 0.1, "max_tokens": 8192, "seed": 0}


def test_a_prompt_the_engine_refuses_fails_alone(tmp_path: Path, fake_vllm: Any) -> None:
    fake_vllm.REFUSE.append("regular hexagon")
    results = run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec("vllm:m"),
                  judge=parse_judge_spec("offline"), out_dir=tmp_path)
    assert results["generation"]["failed"] == 1
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    failed = [s for s in samples if s["generation_error"]]
    assert len(failed) == 1 and "max_model_len" in failed[0]["generation_error"]


def test_vllm_missing_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(ValueError, match=r"pip install 'geomeval\[vllm\]'"):
        parse_model_spec("vllm:some/model")
