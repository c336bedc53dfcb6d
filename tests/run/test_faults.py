"""Fault injection over real HTTP: GeoLaux with an LLM model and an LLM judge.

A scripted model answers each embedded-sample item in a known way (right or wrong
final answer, some steps containing WRONG) and a scripted judge grades by rule, so
every item's ACS, PCS and PQS is known in advance and asserted exactly, with and
without injected faults (error statuses, Retry-After, malformed and truncated bodies,
dropped connections, hangs), with a judge that always fails, and across a `kill -9`.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.core.errors import EndpointFailure
from geomeval.engines.client import ChatClient, RetryPolicy
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import OpenAIChatModel
from geomeval.run.runner import run
from geomeval.testing.chat_server import ChatServer, Fault, prompt_text

# id: (a phrase only that item's problem contains, the model's steps, its short answer,
#      the expected final-answer verdict). A step containing WRONG is graded 0.
PLAN: dict[str, tuple[str, list[str], str, int]] = {
    "en_1": ("∠A = 40°", ["base angles are equal", "∠B = 70°"], "70", 1),
    "en_2": ("∠C = 90°, AC = 3", ["AB = 5", "area WRONG", "h = 12/5"], "12/5", 1),
    "en_3": ("diameter of circle O", ["AB = 4", "∠C = 90°"], "4", 0),
    "en_4": ("AB ∥ CD and AB = CD", ["ABCD is a parallelogram", "so AD ∥ BC"], "QED", 1),
    "en_5": ("regular hexagon", ["six triangles WRONG", "each has area √3", "sum", "3√3"], "3√3", 1),
    "zh_1": ("OA的长为", ["AC = 10", "OA = AC/2 = 5"], "B", 0),
    "zh_2": ("∠C=60°", ["作AD⊥BC", "BD = 6", "DC WRONG"], "6+2√3", 1),
    "zh_3": ("D是BC的中点", ["AB=AC", "AD平分∠BAC"], "not sure", 0),
    "zh_4": ("求∠A的度数", ["∠A = 45°", "AB = 3√2"], "45和3√2", 1),
    "zh_5": ("正方形ABCD", ["设边长4", "BE WRONG", "CF=1", "勾股 WRONG", "AE⊥EF"], "QED", 1),
}
IDS = sorted(PLAN)
# Fault-free requests: one answer and one step judgment per item, plus one error-type
# question per item with a wrong step.
CLEAN_REQUESTS = 2 * len(PLAN) + sum(any("WRONG" in s for s in steps) for _, steps, _, _ in PLAN.values())
FAST_RETRY = RetryPolicy(max_attempts=10, base_delay_s=0.01, max_delay_s=0.05)


def responder(request: dict[str, Any]) -> str:
    text = prompt_text(request)
    if "Grade a student's solution" in text:
        steps = re.findall(r"^Step (\d+): (.*)$", text, re.M)
        reference = re.search(r"^Answer: (.*)$", text, re.M).group(1).split(" (")[0]  # type: ignore[union-attr]
        student = re.search(r"^Student's final answer: (.*)$", text, re.M).group(1)  # type: ignore[union-attr]
        final = student == reference or (reference == "a proof" and student == "QED")
        marks = [{"step": int(i), "correct": int("WRONG" not in s), "reason": "rule"} for i, s in steps]
        return json.dumps({"steps": marks, "final_answer_correct": int(final)})
    if "has been graded step by step" in text:  # the error-type question: every step graded 0
        wrong = re.findall(r"^Step (\d+): 0$", text, re.M)
        return json.dumps({"errors": [{"step": int(i), "error_type": "calculation"} for i in wrong]})
    matches = [item for item, (phrase, *_rest) in PLAN.items() if phrase in text]
    assert len(matches) == 1, f"prompt matches {matches}: {text[:200]}"
    _, steps, answer, _ = PLAN[matches[0]]
    return json.dumps({"steps": [f"{i}. {s}" for i, s in enumerate(steps, 1)], "short_answer": answer})


def expected_pqs(marks: list[int]) -> float:
    weights = [math.exp(-i / len(marks)) for i in range(1, len(marks) + 1)]
    s = sum(w * m for w, m in zip(weights, marks, strict=True)) / sum(weights)
    return math.tanh(3.5 * (s - 1)) + 1


def expected_scores(item: str) -> dict[str, float]:
    _, steps, _, final = PLAN[item]
    marks = [int("WRONG" not in s) for s in steps]
    return {"ACS": float(final), "PCS": float(final and all(marks)), "PQS": expected_pqs(marks)}


def samples(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


def run_geolaux(
    out: Path, model_url: str, judge_url: str, *, retry: RetryPolicy = FAST_RETRY, timeout_s: float = 30.0
) -> dict[str, Any]:
    client = ChatClient("m", base_url=model_url, params={"temperature": 0.0, "max_tokens": 2048},
                        concurrency=8, timeout_s=timeout_s, retry=retry)
    judge = parse_judge_spec("openai:j", base_url=judge_url, concurrency=8, timeout_s=timeout_s, retry=retry)
    # geomeval numbers the steps (-T steps=geomeval), so the scripted judge grades the PLAN's steps
    return run(get_benchmark("geolaux").configure({"steps": "geomeval"}), task="geolaux", model=OpenAIChatModel(client), judge=judge,
               out_dir=out, concurrency=8)


def assert_all_correct(results: dict[str, Any], out: Path) -> None:
    rows = samples(out)
    assert sorted(r["id"] for r in rows) == IDS
    for row in rows:
        want = expected_scores(row["id"])
        for metric, value in want.items():
            assert row["scores"][metric]["value"] == pytest.approx(value, abs=1e-12), (row["id"], metric)
    for metric in ("ACS", "PCS", "PQS"):
        stats = results["metrics"][metric]
        assert stats["coverage"] == 1.0 and stats["scored"] == len(PLAN)
        mean = sum(expected_scores(i)[metric] for i in IDS) / len(IDS)
        assert stats["value"] == pytest.approx(mean, abs=1e-12)


def test_plan_is_not_trivial() -> None:
    per_item = [expected_scores(i) for i in IDS]
    for metric in ("ACS", "PCS"):
        assert {s[metric] for s in per_item} == {0.0, 1.0}
    assert len({round(s["PQS"], 9) for s in per_item}) >= 3


def test_fault_free_run_scores_every_item_as_planned(tmp_path: Path) -> None:
    with ChatServer(responder) as server:
        results = run_geolaux(tmp_path / "out", server.base_url, server.base_url)
    assert_all_correct(results, tmp_path / "out")
    assert len(server.requests) == CLEAN_REQUESTS


class RecordingServer(ChatServer):
    """Also notes which kind of fault each faulted request got."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.kinds: list[str] = []

    async def _fault(self, fault: Fault, writer: Any) -> bool:
        self.kinds.append(f"{fault.kind} {fault.status}" if fault.kind == "status" else fault.kind)
        return await super()._fault(fault, writer)


def test_twenty_percent_faults_still_score_every_item(tmp_path: Path) -> None:
    # Five kinds, each ~4% of requests in turn (conditional rates so the total is 20%);
    # the seed is one under which every kind occurs.
    kinds = [
        Fault(status=500),
        Fault(status=429, headers={"Retry-After": "0"}, body='{"error": "slow down"}'),
        Fault(kind="malformed"),
        Fault(kind="truncated"),
        Fault(kind="drop"),
    ]
    for index, fault in enumerate(kinds):
        fault.rate = 0.04 / (1 - 0.04 * index)
    with RecordingServer(responder, faults=kinds, seed=3) as server:
        results = run_geolaux(tmp_path / "out", server.base_url, server.base_url)
    assert_all_correct(results, tmp_path / "out")
    assert set(server.kinds) == {"status 500", "status 429", "malformed", "truncated", "drop"}
    # Every logical call succeeds exactly once; every injected fault cost one extra request.
    assert len(server.requests) == CLEAN_REQUESTS + len(server.faulted) > CLEAN_REQUESTS
    assert all(r["generation_error"] is None and not r["judgment"]["repaired"] for r in samples(tmp_path / "out"))


def test_hung_request_times_out_and_is_retried(tmp_path: Path) -> None:
    started = time.monotonic()
    with ChatServer(responder, faults=[Fault(kind="hang", on={0, 3}, hang_s=30)]) as server:
        results = run_geolaux(tmp_path / "out", server.base_url, server.base_url, timeout_s=0.5)
    assert time.monotonic() - started < 10
    assert_all_correct(results, tmp_path / "out")
    assert server.faulted == [0, 3]
    assert len(server.requests) == CLEAN_REQUESTS + 2


def test_failing_judge_leaves_items_unscored_with_the_error(tmp_path: Path) -> None:
    # breaker_failures past the number of requests: each failure is the item's, unscored
    retry = RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.02, breaker_failures=10_000)
    with ChatServer(responder) as model_server, ChatServer(responder, faults=[Fault(rate=1.0)]) as judge_server:
        results = run_geolaux(tmp_path / "out", model_server.base_url, judge_server.base_url, retry=retry)
    assert len(model_server.requests) == len(PLAN)
    assert len(judge_server.requests) == 2 * len(PLAN)  # two attempts per step judgment, none after
    rows = samples(tmp_path / "out")
    assert sorted(r["id"] for r in rows) == IDS
    for row in rows:
        assert row["generation_error"] is None and row["response"]
        for metric in ("ACS", "PCS", "PQS"):
            score = row["scores"][metric]
            assert score["value"] is None and "HTTP 500" in score["unscored"] and "2 attempts" in score["unscored"]
    for metric in ("ACS", "PCS", "PQS"):
        stats = results["metrics"][metric]
        assert stats["value"] is None and stats["coverage"] == 0.0 and stats["scored"] == 0
    assert results["generation"]["coverage"] == 1.0


def test_a_judge_that_keeps_failing_stops_the_run_resumably_with_the_cause(tmp_path: Path) -> None:
    # Every judge request fails after its retries: after three in a row the circuit opens,
    # the run stops with the endpoint and the cause, and nothing is recorded as scored.
    retry = RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.02, breaker_failures=3)
    out = tmp_path / "out"
    with ChatServer(responder) as model_server, ChatServer(responder, faults=[Fault(rate=1.0)]) as judge_server:
        with pytest.raises(EndpointFailure, match=r"3 requests in a row failed.*HTTP 500") as failure:
            run_geolaux(out, model_server.base_url, judge_server.base_url, retry=retry)
        sent = len(judge_server.requests)
        assert judge_server.base_url in str(failure.value)
    assert sent <= 2 * (3 + 8)  # the breaker's three plus at most the other workers' in flight
    assert not (out / "results.json").exists()
    with ChatServer(responder) as good:  # the same command resumes against a healthy judge
        again = run_geolaux(out, good.base_url, good.base_url)
    assert_all_correct(again, out)


def test_rerun_retries_the_items_a_failing_judge_left_unscored(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with ChatServer(responder) as good, ChatServer(responder, faults=[Fault(rate=1.0, status=400)]) as bad:
        first = run_geolaux(out, good.base_url, bad.base_url)
        assert first["metrics"]["PCS"]["coverage"] == 0.0
        again = run_geolaux(out, good.base_url, good.base_url)
    assert_all_correct(again, out)
    assert sorted(s["id"] for s in samples(out)) == IDS  # redone in place, not duplicated


def cli_command(out: Path, model_url: str, judge_url: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "geomeval.cli", "run", "geolaux", "--model", "openai:m", "--base-url", model_url,
            "--judge", "openai:j", "-J", "base_url=" + str(judge_url), "--out", str(out), "-T", "steps=geomeval", *extra]


def cli(args: list[str], cache_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GEOMEVAL_CACHE_DIR": str(cache_dir)}
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)


def test_min_coverage_exit_code_with_a_rejecting_judge(tmp_path: Path) -> None:
    with ChatServer(responder) as model_server, ChatServer(responder, faults=[Fault(rate=1.0, status=400)]) as judge_server:
        strict = cli(cli_command(tmp_path / "strict", model_server.base_url, judge_server.base_url,
                                 "--min-coverage", "0.95"), tmp_path / "cache")
        lenient = cli(cli_command(tmp_path / "lenient", model_server.base_url, judge_server.base_url,
                                  "--min-coverage", "0"), tmp_path / "cache")
    assert strict.returncode == 3, strict.stderr
    assert "coverage below --min-coverage" in strict.stderr
    assert lenient.returncode == 0, lenient.stderr
    for out in (tmp_path / "strict", tmp_path / "lenient"):
        results = json.loads((out / "results.json").read_text())
        assert all(results["metrics"][m]["value"] is None and results["metrics"][m]["coverage"] == 0.0
                   for m in ("ACS", "PCS", "PQS"))
        assert all("HTTP 400" in row["scores"]["PCS"]["unscored"] for row in samples(out))
    assert len(model_server.requests) == len(PLAN)  # the second run's answers came from the cache


@pytest.mark.slow
def test_kill_9_then_rerun_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    with ChatServer(responder, latency_s=0.3) as server:
        url = server.base_url

        def command(out: Path) -> list[str]:
            return cli_command(out, url, url, "--concurrency", "2")

        full = cli(command(tmp_path / "full"), tmp_path / "cache-full")
        assert full.returncode == 0, full.stderr
        full_requests = len(server.requests)
        assert full_requests == CLEAN_REQUESTS

        out, cache = tmp_path / "killed", tmp_path / "cache-killed"
        env = {**os.environ, "GEOMEVAL_CACHE_DIR": str(cache)}
        process = subprocess.Popen(command(out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        path, lines = out / "samples.jsonl", 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            lines = path.read_text(encoding="utf-8").count("\n") if path.exists() else 0
            if lines >= 2:
                break
            time.sleep(0.02)
        assert process.poll() is None, "the run finished before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        assert 2 <= path.read_text(encoding="utf-8").count("\n") < len(PLAN)
        before = len(server.requests)

        rerun = cli(command(out), cache)
        assert rerun.returncode == 0, rerun.stderr
        rerun_requests = len(server.requests) - before
        assert rerun_requests < full_requests  # saved items are not redone; answered requests hit the cache

        third = cli(command(out), cache)
        assert third.returncode == 0, third.stderr
        assert len(server.requests) - before - rerun_requests == 0
        said = " ".join(third.stderr.split())  # the console may wrap the line
        assert "model: 0 requests sent" in said and "judge: 0 requests sent" in said

    def scores(path: Path) -> dict:  # when it ran and what it sent differ; every number must not
        results = json.loads(path.read_text())
        results.pop("provenance"), results.pop("requests"), results["config"].pop("provenance")
        return results

    assert scores(out / "results.json") == scores(tmp_path / "full" / "results.json")
    ids = [row["id"] for row in samples(out)]
    assert sorted(ids) == IDS and len(ids) == len(set(ids))
    assert_all_correct(json.loads((out / "results.json").read_text()), out)


def _ask_all(client: ChatClient, count: int) -> list[Any]:
    import asyncio

    async def main() -> list[Any]:
        try:
            return list(await asyncio.gather(
                *[client.complete([{"role": "user", "content": f"question {i}"}]) for i in range(count)]
            ))
        finally:
            await client.aclose()

    return asyncio.run(main())


@pytest.mark.slow
def test_a_server_that_answers_one_request_at_a_time_gets_each_prompt_once() -> None:
    """llama.cpp's server computes one request at a time: at the default 32 in flight the
    queue's tail waits far longer than the timeout, but the server keeps answering, so no
    prompt is abandoned and sent again."""
    with ChatServer(lambda request: "fine", latency_s=0.25, serial=True) as server:
        client = ChatClient("m", base_url=server.base_url, concurrency=32, timeout_s=1.0)
        replies = _ask_all(client, 16)  # the last waits about 4 s: four timeouts' worth
        assert [r.text for r in replies] == ["fine"] * 16
        assert len(server.requests) == server.computed == 16


def test_a_timeout_halves_the_requests_in_flight_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    hang = Fault(on=set(range(8)), kind="hang", hang_s=30)
    with ChatServer(lambda request: "fine", faults=[hang]) as server:
        client = ChatClient("m", base_url=server.base_url, concurrency=8, timeout_s=0.5,
                            retry=RetryPolicy(max_attempts=3, base_delay_s=0.05, breaker_failures=100))
        with caplog.at_level("WARNING", logger="geomeval"):
            replies = _ask_all(client, 8)
        assert [r.text for r in replies] == ["fine"] * 8  # each retried once the first tries went quiet
        assert "a request timed out; requests in flight 8 -> 4" in caplog.text
        # the retries went out under the narrowed window, not all eight at once again
        assert server.max_in_flight <= 8 + 4


def _reasoning_server_responder(request: dict) -> str:
    return "fine"


def test_a_reasoning_model_judge_gets_its_request_shape_by_name_or_by_the_servers_refusal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """OpenAI's reasoning models refuse max_tokens and a temperature of 0. By name the judge
    sends max_completion_tokens and no temperature; under another name, the server's 400
    makes the client switch (and say so) instead of failing every item."""
    refusals = [
        Fault(on={0}, status=400, body=json.dumps({"error": {
            "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                       "Use 'max_completion_tokens' instead.", "param": "max_tokens", "code": "unsupported_parameter"}})),
        Fault(on={1}, status=400, body=json.dumps({"error": {
            "message": "Unsupported value: 'temperature' does not support 0.0 with this model.",
            "param": "temperature", "code": "unsupported_value"}})),
    ]
    with ChatServer(_reasoning_server_responder, faults=refusals) as server:
        by_name = parse_judge_spec("openai:o4-mini", base_url=server.base_url, max_tokens=900)
        assert by_name.client is not None and by_name.client.params == {"max_completion_tokens": 900}
        renamed = parse_judge_spec("openai:my-reasoner", base_url=server.base_url)
        assert renamed.client is not None
        with caplog.at_level("WARNING", logger="geomeval"):
            replies = _ask_all(renamed.client, 3)
        assert [r.text for r in replies] == ["fine"] * 3
        last = server.requests[-1]
        assert "max_tokens" not in last and "temperature" not in last and last["max_completion_tokens"] == 2048
        assert "refused 'max_tokens'" in caplog.text and "refused 'temperature'" in caplog.text
        assert parse_judge_spec("openai:gpt-4o", base_url=server.base_url).client.params["temperature"] == 0.0  # type: ignore[union-attr]
        forced = parse_judge_spec("openai:gpt-4o", base_url=server.base_url, style="reasoning")
        assert forced.client is not None and "temperature" not in forced.client.params
