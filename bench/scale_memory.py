"""Peak memory (max RSS) of `build` and `run` as the data grows, streamed against held whole.

    python bench/scale_memory.py [--sizes 1000,10000] [--sizes 1000,10000,100000] [--whole-up-to 10000]

For each N, real GeoLaux items replicated N times (see _replicated.py; every item has its own
figure file): each measurement is a fresh process (same interpreter, same cores, same files),
its peak RSS (VmHWM) reported by the process itself. Side by side:

- build, streamed (what `geomeval build` does: each row written to its shard as it is read)
  against the in-memory build (every row and image held, then written: the former way);
- run of the built folder, streamed (items read a window at a time, records kept without
  their figures once written) against the items held whole (the former way). The run uses
  an openai model on a loopback server answering at once and the offline judge, so every
  item is read, posed with its figure, scored and written.

Prints MB per N and the ratio of the largest N's peak to the smallest's. Target: the
streamed ratio within 1.5x (flat in N) while the data grows 10x or 100x. Exits 1 when missed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _replicated import replicated_release
from run_fixed_cost import MODEL_ANSWER

TARGET = 1.5
BUILD = """
import dataclasses, sys
from geomeval.benchmarks.geolaux import data
source = data.SOURCE if sys.argv[3] == "streamed" else dataclasses.replace(data.SOURCE, streamed=False)
source.build(sys.argv[1], sys.argv[2], overwrite=True)
""" + """
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""
RUN = """
import sys
from pathlib import Path
from geomeval import runner
from geomeval.benchmarks import get_benchmark
from geomeval.judges import parse_judge_spec
from geomeval.models import ModelOptions, parse_model_spec
bench = get_benchmark("geolaux")
if sys.argv[4] == "whole":  # the former way: every item made up front, every record kept whole
    load = bench.load_items
    bench.load_items = lambda *args: list(load(*args))
    runner.light = lambda record: record
model = parse_model_spec("openai:m", ModelOptions(base_url=sys.argv[3]))
results = runner.run(bench, task="geolaux", model=model, judge=parse_judge_spec("offline"), out_dir=Path(sys.argv[2]),
                     data=sys.argv[1], overwrite=True)
assert results["n_items"] > 0
""" + """
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""


def max_rss_mb(code: str, *args: str, env: dict[str, str]) -> float:
    """A fresh interpreter running `code`; its peak RSS in MB (it must succeed). The child
    reports its own VmHWM, which starts afresh at exec: the kernel's ru_maxrss of a child
    also counts the parent's memory at fork, which at 100k items is this script's own."""
    result = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {code.strip().splitlines()[-1]} {args}\n{result.stderr[-2000:]}")
    return int(result.stdout.split()[-1]) / 1024


def main() -> None:
    from geomeval.testing.chat_server import ChatServer

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--whole-up-to", type=int, default=10000,
                        help="measure the held-whole ways only up to this N (10k already takes 2 GB)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "geomeval-bench-scale")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEOMEVAL_")}
    rows: dict[str, dict[int, float]] = {}
    with tempfile.TemporaryDirectory(prefix="geomeval-bench-") as tmp, ChatServer(lambda r: MODEL_ANSWER) as server:
        env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_DATASETS_CACHE=str(Path(tmp) / "hf"),
                   GEOMEVAL_CACHE_DIR=str(Path(tmp) / "cache"))
        for n in sizes:
            raw = replicated_release(n, args.cache / f"raw-{n}")
            ways = ("streamed", "whole") if n <= args.whole_up_to else ("streamed",)
            for way in ways:
                out = Path(tmp) / f"built-{n}-{way}"
                rows.setdefault(f"build, {way}", {})[n] = max_rss_mb(BUILD, str(raw), str(out), way, env=env)
            built = Path(tmp) / f"built-{n}-streamed"
            for way in ways:
                out = Path(tmp) / f"run-{n}-{way}"
                rows.setdefault(f"run, {way}", {})[n] = max_rss_mb(
                    RUN, str(built), str(out), server.base_url, way, env={**env, "GEOMEVAL_CACHE_DIR": str(out) + "-cache"})
            print(json.dumps({k: v[n] for k, v in rows.items() if n in v}), file=sys.stderr)
    first, last = sizes[0], sizes[-1]
    print(f"max RSS (MB) of fresh processes, GeoLaux items replicated; {os.cpu_count()} cores")
    print(f"{'':18}" + "".join(f"{f'N={n}':>10}" for n in sizes) + f"  {f'N={last}/N={first}':>14}")
    failed = []
    for label, peaks in rows.items():
        if last not in peaks:
            print(f"{label:18}" + "".join(f"{peaks[n]:10.0f}" if n in peaks else f"{'-':>10}" for n in sizes))
            continue
        ratio = peaks[last] / peaks[first]
        verdict = ""
        if label.endswith("streamed"):
            verdict = "  PASS" if ratio <= TARGET else "  FAIL"
            if ratio > TARGET:
                failed.append(label)
        print(f"{label:18}" + "".join(f"{peaks[n]:10.0f}" for n in sizes) + f"{ratio:13.2f}x{verdict}")
    for n in [n for n in sizes if n in rows["build, whole"]]:
        print(f"N={n}: held whole / streamed, build {rows['build, whole'][n] / rows['build, streamed'][n]:.2f}x, "
              f"run {rows['run, whole'][n] / rows['run, streamed'][n]:.2f}x")
    print(f"target: streamed peak at N={last} within {TARGET}x of N={first}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
