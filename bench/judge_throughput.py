"""Judge-call throughput over real HTTP, and how many requests a rerun sends.

    python bench/judge_throughput.py [--calls 2000] [--concurrency 64] [--serial-calls 50] [--latency 0.1]

Against the loopback test server with a fixed latency, run in a process of its own
(so its CPU does not share our GIL), measures:

1. `--calls` GeoLaux step judgments (distinct prompts) through `Judge.ask` and
   `ChatClient` at `--concurrency`, with a response cache in a temp dir: wall time
   against the ideal calls·latency/concurrency (3.125 s by default). PASS when the
   ratio is at most 1.2x.
2. The same kind of call one at a time (`--serial-calls` of them): time per call, and
   the concurrent path's speed-up per call over it.
3. A full `geomeval.run.runner.run` of GeoLaux on the embedded sample with an openai
   model and an openai judge (a scripted in-process server, counting requests): cold,
   then the same run resumed in the same folder, then a fresh folder with the warm
   cache. PASS when the last two send 0 requests.

Exits 1 when any check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_RATIO = 1.2
ANSWER = json.dumps({"steps": [{"step": 1, "correct": 1, "reason": "ok"}], "final_answer_correct": 1})


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "geomeval.testing.chat_server", "--latency", str(latency), "--answer", ANSWER],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    port = int(process.stdout.readline())
    return process, f"http://127.0.0.1:{port}/v1"


def stop_server(process: subprocess.Popen[str]) -> None:
    assert process.stdin is not None
    process.stdin.close()  # the server serves until its stdin closes
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()


def judge_messages(index: int) -> list[dict[str, Any]]:
    from geomeval.benchmarks.geolaux.judging import step_judge_messages

    target = {"answer": "70", "unit": "°", "choices": [], "solution": "∠B = ∠C = (180° − 40°)/2 = 70°."}
    problem = f"Triangle ABC #{index} has AB = AC and ∠A = 40°. Find ∠B."
    return step_judge_messages(target, problem, [f"∠B = 70° (call {index})"], "70")


async def judge_calls(base_url: str, count: int, concurrency: int, cache_path: Path, offset: int) -> tuple[float, int, int]:
    """Wall seconds for `count` judgments at `concurrency`; requests sent; judgments that parsed."""
    from geomeval.benchmarks.geolaux.judging import parse_step_judgment
    from geomeval.engines.cache import ResponseCache
    from geomeval.engines.judges import parse_judge_spec

    judge = parse_judge_spec("openai:j", base_url=base_url, concurrency=concurrency, cache=ResponseCache(cache_path))
    prompts = [judge_messages(offset + i) for i in range(count)]
    try:
        start = time.perf_counter()
        answers = await asyncio.gather(*(judge.ask(m, lambda t: parse_step_judgment(t, 1)) for m in prompts))
        wall = time.perf_counter() - start
    finally:
        await judge.aclose()
    assert judge.client is not None
    return wall, judge.client.requests_sent, sum(a.value is not None for a in answers)


def scripted(request: dict[str, Any]) -> str:
    """A model that makes one wrong step in three, and a judge that grades by rule."""
    from geomeval.testing.chat_server import prompt_text

    text = prompt_text(request)
    if "Grade a student's solution" in text:
        steps = re.findall(r"^Step (\d+): (.*)$", text, re.M)
        marks = [{"step": int(i), "correct": int("WRONG" not in s), "reason": "rule"} for i, s in steps]
        return json.dumps({"steps": marks, "final_answer_correct": 1})
    if "first goes wrong" in text:
        return json.dumps({"error_type": "calculation", "reason": "rule"})
    return json.dumps({"steps": ["1. given", "2. WRONG", "3. so"], "short_answer": "70"})


def runner_requests(latency: float, cache_path: Path, root: Path) -> list[tuple[str, int, int, int, dict[str, Any]]]:
    """(label, server requests, client requests sent, cache hits, metrics) for cold, resumed and warm-cache runs."""
    from geomeval.benchmarks import get_benchmark
    from geomeval.engines.cache import ResponseCache
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import ModelOptions, parse_model_spec
    from geomeval.run.runner import run
    from geomeval.testing.chat_server import ChatServer

    cache = ResponseCache(cache_path)
    rows = []
    with ChatServer(scripted, latency_s=latency) as server:
        for label, out in (("cold cache, new folder", root / "a"), ("same command again (resume)", root / "a"),
                           ("warm cache, fresh folder", root / "b")):
            model = parse_model_spec("openai:m", ModelOptions(base_url=server.base_url, cache=cache))
            judge = parse_judge_spec("openai:j", base_url=server.base_url, cache=cache)
            before = len(server.requests)
            results = run(get_benchmark("geolaux"), task="geolaux", model=model, judge=judge, out_dir=out)
            clients = (model.client, judge.client)  # type: ignore[attr-defined]
            rows.append((label, len(server.requests) - before, sum(c.requests_sent for c in clients),
                         sum(c.cache_hits for c in clients), results["metrics"]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--serial-calls", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.1)
    args = parser.parse_args()
    failed = []
    with tempfile.TemporaryDirectory(prefix="geomeval-bench-") as tmp:
        root = Path(tmp)
        process, base_url = start_server(args.latency)
        try:
            asyncio.run(judge_calls(base_url, 20, 4, root / "warmup.sqlite", 10**6))  # imports, first connections
            wall, sent, parsed = asyncio.run(judge_calls(base_url, args.calls, args.concurrency, root / "c.sqlite", 0))
            serial_wall, serial_sent, serial_parsed = asyncio.run(
                judge_calls(base_url, args.serial_calls, 1, root / "s.sqlite", 10**5)
            )
        finally:
            stop_server(process)
        rows = runner_requests(args.latency, root / "runner.sqlite", root)

    ideal = args.calls * args.latency / args.concurrency
    ratio = wall / ideal
    per_call, serial_per_call = wall / args.calls, serial_wall / args.serial_calls
    verdict = "PASS" if ratio <= TARGET_RATIO and parsed == args.calls else "FAIL"
    if verdict == "FAIL":
        failed.append("concurrent judge calls")
    print(f"server: separate process, {1000 * args.latency:.0f} ms latency per request")
    print(f"{'path':34} {'calls':>6} {'sent':>6} {'parsed':>6} {'wall s':>8} {'ms/call':>8}")
    print(f"{f'concurrent ({args.concurrency} in flight)':34} {args.calls:6d} {sent:6d} {parsed:6d} {wall:8.3f} {1000 * per_call:8.2f}")
    print(f"{'serial (1 in flight)':34} {args.serial_calls:6d} {serial_sent:6d} {serial_parsed:6d} "
          f"{serial_wall:8.3f} {1000 * serial_per_call:8.2f}")
    print(f"ideal concurrent wall {args.calls}·{args.latency:g}/{args.concurrency} = {ideal:.3f} s; "
          f"measured / ideal = {ratio:.3f}x (target <= {TARGET_RATIO}x): {verdict}")
    print(f"serial extrapolated to {args.calls} calls: {serial_per_call * args.calls:.1f} s; "
          f"speed-up of the concurrent path per call: {serial_per_call / per_call:.1f}x")
    print()
    print(f"{'GeoLaux embedded sample, runner.run':34} {'server':>7} {'client':>7} {'cache':>6}  check")
    print(f"{'':34} {'reqs':>7} {'sent':>7} {'hits':>6}")
    metrics = rows[0][4]
    for index, (label, served, client_sent, hits, got) in enumerate(rows):
        check = "-"
        if index:
            ok = served == 0 and client_sent == 0 and got == metrics
            check = "PASS (0 requests, same metrics)" if ok else "FAIL"
            if not ok:
                failed.append(label)
        print(f"{label:34} {served:7d} {client_sent:7d} {hits:6d}  {check}")
    if failed:
        print("FAILED: " + ", ".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
