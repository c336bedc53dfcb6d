"""--budget cost and --budget requests are caps at any concurrency, and hold across resumes.

Over real HTTP (the loopback chat server, which reports usage as its words: one token per
space-separated word of the prompt's JSON and of the reply)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from geomeval.engines.budget import (
    LEDGER,
    BudgetExhausted,
    RequestBudget,
    prompt_tokens_bound,
    request_cost,
)
from geomeval.engines.client import ChatClient
from geomeval.testing.chat_server import ChatServer, Fault

PRICES = {"m": {"prompt": 2.0, "completion": 100.0}}  # dollars per million tokens


def server_usage(request: dict, reply: str) -> dict[str, int]:
    """The usage the loopback server reports for `request` answered with `reply`."""
    prompt = sum(len(json.dumps(m.get("content", "")).split(" ")) for m in request["messages"])
    words = reply.split(" ")
    limit = request.get("max_tokens")
    return {"prompt_tokens": prompt, "completion_tokens": min(len(words), limit or len(words))}


REPLY = "the answer is " + " ".join(["x"] * 20)


def ask_many(server: ChatServer, budget: RequestBudget, n: int, concurrency: int = 32) -> list[object]:
    client = ChatClient("m", base_url=server.base_url, params={"max_tokens": 30}, concurrency=concurrency)
    client.budget = budget

    async def main() -> list[object]:
        try:
            return await asyncio.gather(
                *(client.complete([{"role": "user", "content": f"question {i} " + "word " * 50}], use_cache=False)
                  for i in range(n)),
                return_exceptions=True)
        finally:
            await client.aclose()

    return asyncio.run(main())


def test_a_cent_is_never_exceeded_at_concurrency_32() -> None:
    budget = RequestBudget(max_cost=0.01, prices=PRICES)
    with ChatServer(lambda request: REPLY, latency_s=0.05) as server:
        outcomes = ask_many(server, budget, 200)
    spent = sum(request_cost(PRICES, "m", server_usage(r, REPLY)) or 0 for r in server.requests)
    stopped = [o for o in outcomes if isinstance(o, BudgetExhausted)]
    assert stopped and len(server.requests) < 200
    assert spent <= 0.01  # what the server would bill
    assert budget.spent == pytest.approx(spent) and budget.estimated == 0  # every reply settled at its usage
    assert budget.requests == len(server.requests)
    # the cap was used, not abandoned early: the next request's worst case no longer fit
    worst = budget.worst_cost("m", server.requests[0])
    assert budget.spent + worst > 0.01
    assert f"${budget.spent:.4f} of $0.01, --budget cost=0.01" in budget.stop_line()  # type: ignore[operator]


def test_the_request_cap_holds_at_concurrency_32() -> None:
    budget = RequestBudget(max_requests=7)
    with ChatServer(lambda request: REPLY, latency_s=0.05) as server:
        outcomes = ask_many(server, budget, 100)
    assert len(server.requests) == 7 == sum(not isinstance(o, BaseException) for o in outcomes)
    assert budget.stop_line() == "the request budget is spent (7 of --budget requests=7 sent)"


def test_failed_replies_with_usage_are_counted_and_refused_ones_released() -> None:
    usage = {"prompt_tokens": 1000, "completion_tokens": 50}
    refusal = json.dumps({"choices": [{"message": {"content": None}}], "usage": usage})
    faults = [Fault(on={0}, status=200, body=refusal), Fault(on={1}, status=400)]
    budget = RequestBudget(max_cost=1.0, prices=PRICES)
    with ChatServer(lambda request: REPLY, faults=faults) as server:
        client = ChatClient("m", base_url=server.base_url, params={"max_tokens": 30}, concurrency=1)
        client.budget = budget

        async def main() -> None:
            for _ in range(3):
                await client.complete([{"role": "user", "content": "q"}], use_cache=False)
            await client.aclose()

        asyncio.run(main())
    # the 200 without text reported usage: counted in the tokens and charged; the 400 cost nothing
    third = server_usage(server.requests[2], REPLY)
    assert client.tokens["prompt_tokens"] == 1000 + third["prompt_tokens"] and client.replies_reporting_usage == 2
    assert budget.spent == pytest.approx(request_cost(PRICES, "m", usage) + request_cost(PRICES, "m", third))
    assert budget.estimated == 0 and budget.reserved == 0


def test_a_request_whose_cost_never_comes_back_is_charged_its_worst_case() -> None:
    budget = RequestBudget(max_cost=1.0, prices=PRICES)
    with ChatServer(lambda request: REPLY, faults=[Fault(on={0}, kind="drop")]) as server:
        client = ChatClient("m", base_url=server.base_url, params={"max_tokens": 30}, concurrency=1)
        client.budget = budget
        messages = [{"role": "user", "content": "q"}]

        async def main() -> None:
            await client.complete(messages, use_cache=False)
            await client.aclose()

        asyncio.run(main())
    worst = budget.worst_cost("m", {"messages": messages, "max_tokens": 30})
    real = request_cost(PRICES, "m", server_usage(server.requests[1], REPLY))
    assert budget.estimated == pytest.approx(worst) and budget.spent == pytest.approx(worst + real)


def test_the_prompt_bound_covers_the_servers_count() -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "área del triángulo " * 40}]}]
    assert prompt_tokens_bound(messages) >= len(json.dumps(messages[0]["content"]).split(" "))


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})})


def test_max_cost_on_the_cli_stops_under_the_cap_and_the_stop_line_is_the_total(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"m": {"prompt": 0.1, "completion": 100.0}}))
    with ChatServer(lambda request: REPLY, latency_s=0.05) as server:
        done = cli("run", "geolaux", "--model", "openai:m", "--base-url", server.base_url, "--cache", "off",
                   "-M", "max_tokens=30", "--concurrency", "32", "--budget", "prices=" + str(prices), "--budget", "cost=0.01",
                   "--out", str(tmp_path / "a"))
    assert done.returncode == 5, done.stderr
    results = json.loads((tmp_path / "a" / "results.json").read_text())
    table = json.loads(prices.read_text())
    billed = sum(request_cost(table, "m", server_usage(r, REPLY)) or 0 for r in server.requests)
    assert 0 < billed <= 0.01 and len(server.requests) < 10
    assert results["budget"]["spent_usd"] == pytest.approx(billed)
    assert results["requests"]["model"]["cost_usd"] == pytest.approx(billed)
    assert f"${billed:.4f} of $0.01, --budget cost=0.01" in results["stopped"]
    assert " ".join(results["stopped"].split()) in " ".join(done.stderr.split())


def test_max_cost_without_a_price_for_the_model_is_refused(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"other": {"prompt": 1.0, "completion": 1.0}}))
    done = cli("run", "geolaux", "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--budget", "prices=" + str(prices), "--budget", "cost=1", "--out", str(tmp_path / "a"))
    assert done.returncode == 2 and "no price for 'm'" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_resume_after_a_kill_starts_from_the_spent_total(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"m": {"prompt": 0.1, "completion": 100.0}}))
    table = json.loads(prices.read_text())
    out = tmp_path / "a"
    args = ("run", "geolaux", "--model", "openai:m", "-M", "max_tokens=30", "--concurrency", "1",
            "--budget", "prices=" + str(prices), "--budget", "cost=0.015", "--out", str(out))
    env = {**os.environ, "GEOMEVAL_CACHE_DIR": str(tmp_path / "cache")}
    with ChatServer(lambda request: REPLY, latency_s=0.3) as server:
        first = subprocess.Popen([sys.executable, "-m", "geomeval.cli", *args, "--base-url", server.base_url],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        try:
            for _ in range(600):
                if len(server.requests) >= 3:
                    break
                time.sleep(0.05)
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait()
        assert len(server.requests) >= 3
        killed_at = len(server.requests)
        ledger = json.loads((out / LEDGER).read_text())
        recorded = ledger["spent_usd"] + ledger["in_flight_usd"]
        billed_before = sum(request_cost(table, "m", server_usage(r, REPLY)) or 0 for r in server.requests)
        assert ledger["spent_usd"] <= billed_before <= recorded + 1e-12  # in flight at the kill: its worst case
        resumed = cli(*args, "--base-url", server.base_url, env={"GEOMEVAL_CACHE_DIR": str(tmp_path / "cache")})
    assert resumed.returncode == 5, resumed.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["budget"]["spent_before_usd"] == pytest.approx(recorded)
    billed_after = sum(request_cost(table, "m", server_usage(r, REPLY)) or 0 for r in server.requests[killed_at:])
    assert results["budget"]["spent_usd"] == pytest.approx(recorded + billed_after)
    assert results["budget"]["spent_usd"] <= 0.015
    assert billed_before + billed_after <= 0.015  # what the server billed across both invocations
