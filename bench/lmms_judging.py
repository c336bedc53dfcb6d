"""Judging inside lmms-eval: at geomeval's concurrency (the default) against per-document
judging (GEOMEVAL_LMMS_DEFER=0), side by side, whole lmms-eval processes.

    python bench/lmms_judging.py [--items 300] [--latency 0.1] [--judge-concurrency 32]

The same replicated GeoLaux items (see _replicated.py), the same model server (a loopback
server answering at once; lmms-eval's openai model with num_concurrent=4) and the same
judge server (a loopback server answering after `--latency`), the same cores, a fresh
response cache for each run. Each item is one judge call. A third run without a judge gives
lmms-eval's own cost (start-up, generation, logging), which is the same in both: the time a
run spends judging is its wall time less that. Prints each run's wall time, judging time,
judge calls and most calls in flight, and the ratio per-document / deferred of the judging
times and of the whole runs; checks that both judged runs score the same. Target: judging
at least 1.5x faster deferred (at 100 ms a call; a slower judge widens it). Exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _replicated import built
from run_fixed_cost import JUDGE_ANSWER, MODEL_ANSWER

TARGET = 1.5
KEYS = ("ACS,none", "PCS,none", "PQS,none", "coverage,none")


def lmms_run(data: Path, defer: str, latency: float, concurrency: int, root: Path) -> tuple[float, int, int, dict]:
    """(wall seconds, judge calls, most judge calls in flight, the geolaux results)."""
    from geomeval.integrations.lmms_eval import find_results
    from geomeval.testing.chat_server import ChatServer

    out = root / f"out-{defer}"
    with ChatServer(lambda request: MODEL_ANSWER) as model, \
            ChatServer(lambda request: JUDGE_ANSWER, latency_s=latency) as judge:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GEOMEVAL_")}
        env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", GEOMEVAL_CACHE_DIR=str(root / f"cache-{defer}"),
                   NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
        if defer != "offline":
            env.update(GEOMEVAL_JUDGE_MODEL="judge-model", GEOMEVAL_JUDGE_BASE_URL=judge.base_url,
                       GEOMEVAL_JUDGE_CONCURRENCY=str(concurrency), GEOMEVAL_LMMS_DEFER=defer)
        args = f"model=test-model,base_url={model.base_url},api_key=sk-test,num_concurrent=4,max_retries=2"
        start = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "geomeval.cli", "lmms-eval", "--data", str(data), "--min-coverage", "0", "--",
             "--model", "openai",
             "--model_args", args, "--tasks", "geolaux", "--output_path", str(out)],
            capture_output=True, text=True, env=env, check=False)
        wall = time.monotonic() - start
        calls, peak = len(judge.requests), judge.max_in_flight
    if result.returncode != 0:
        sys.exit(f"lmms-eval run (GEOMEVAL_LMMS_DEFER={defer}) failed:\n{result.stderr[-3000:]}")
    (found,) = find_results(out)
    return wall, calls, peak, json.loads(found.read_text(encoding="utf-8"))["results"]["geolaux"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--judge-concurrency", type=int, default=32)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "geomeval-bench-scale")
    args = parser.parse_args()
    data = built(args.items, args.cache)
    with tempfile.TemporaryDirectory(prefix="geomeval-bench-") as tmp:
        runs = {defer: lmms_run(data, defer, args.latency, args.judge_concurrency, Path(tmp))
                for defer in ("1", "0", "offline")}
    base = runs["offline"][0]
    print(f"lmms-eval on {args.items} replicated GeoLaux items, whole processes, {os.cpu_count()} cores; judge "
          f"{1000 * args.latency:.0f} ms a call, judge concurrency {args.judge_concurrency}")
    print(f"{'judging':40} {'wall s':>8} {'judging s':>10} {'calls':>6} {'in flight':>9}")
    labels = {"1": "at geomeval's concurrency (DEFER=1)", "0": "per document (GEOMEVAL_LMMS_DEFER=0)",
              "offline": "no judge (lmms-eval's own cost)"}
    for defer, (wall, calls, peak, _) in runs.items():
        print(f"{labels[defer]:40} {wall:8.2f} {wall - base:10.2f} {calls:6d} {peak:9d}")
    same = all(runs["1"][3].get(k) == runs["0"][3].get(k) for k in KEYS)
    judging = (runs["0"][0] - base) / max(runs["1"][0] - base, 1e-3)
    print(f"same scores and coverage: {'yes' if same else 'NO'}")
    print(f"whole run, per-document / deferred: {runs['0'][0] / runs['1'][0]:.2f}x")
    ideal = args.items * args.latency / args.judge_concurrency
    print(f"judging time deferred {runs['1'][0] - base:.2f} s against the ideal {args.items}·{args.latency:g}/"
          f"{args.judge_concurrency} = {ideal:.2f} s")
    verdict = "PASS" if judging >= TARGET and same and runs["1"][1] == runs["0"][1] == args.items else "FAIL"
    print(f"judging time, per-document / deferred: {judging:.2f}x (target >= {TARGET}x): {verdict}")
    if verdict == "FAIL":
        sys.exit(1)


if __name__ == "__main__":
    main()
