"""--concurrency is per endpoint: in a judged run the model answers the next items while the
judge weighs the last ones, each endpoint at its own limit (issue #22)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.geolaux import data as geolaux_data
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.run.runner import run
from geomeval.testing.chat_server import ChatServer
from geomeval.testing.replicated import replicated_release

LATENCY_S = 0.2
MODEL_ANSWER = json.dumps({"steps": ["1. AB = AC, so the base angles are equal", "2. (180 - 40) / 2 = 70"],
                           "short_answer": "70"})
JUDGE_ANSWER = json.dumps({"Step_by_step_evaluation": [1, 1], "Final_judgment": 1})  # GeoLaux's judge, official format


def most_at_once(intervals: list[tuple[float, float]]) -> int:
    """The largest number of the (start, end) intervals that overlap at one instant."""
    edges = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals],
                   key=lambda edge: (edge[0], edge[1]))  # an end before a start at the same instant
    held = most = 0
    for _, step in edges:
        held += step
        most = max(most, held)
    return most


def test_a_judged_run_keeps_the_model_and_the_judge_each_at_its_own_limit(tmp_path: Path) -> None:
    built = tmp_path / "built"
    geolaux_data.build(str(replicated_release(24, tmp_path / "raw")), str(built))
    answered: list[float] = []  # when each request of either endpoint was answered
    lock = threading.Lock()

    def replying(answer: str):
        def respond(request: dict) -> str:
            with lock:
                answered.append(time.monotonic())
            return answer
        return respond

    with ChatServer(replying(MODEL_ANSWER), latency_s=LATENCY_S) as model_server, \
            ChatServer(replying(JUDGE_ANSWER), latency_s=LATENCY_S) as judge_server:
        model = parse_model_spec("openai:m", ModelOptions(base_url=model_server.base_url, concurrency=4))
        judge = parse_judge_spec("openai:j", base_url=judge_server.base_url, concurrency=3)
        results = run(get_benchmark("geolaux"), task="geolaux", model=model, judge=judge, out_dir=tmp_path / "out",
                      data=str(built), concurrency=4)
    assert results["n_items"] == 24 and results["metrics"]["ACS"]["scored"] == 24
    assert len(model_server.requests) == 24 and len(judge_server.requests) == 24
    # Neither endpoint is sent more than its own limit, and each reaches it.
    assert model_server.max_in_flight == 4 and judge_server.max_in_flight == 3
    # Both at once: a request is in flight from LATENCY_S before its answer (the server sleeps,
    # then answers), trimmed at both ends so that timing noise cannot make two touch. Were the
    # items given one set of slots for both endpoints (4), no more than 4 would ever overlap.
    margin = 0.03
    assert most_at_once([(t - LATENCY_S + margin, t - margin) for t in answered]) > 4
