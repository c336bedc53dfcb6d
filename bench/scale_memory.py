"""Peak memory (max RSS) of `build`, `run`, `score` (rescore), loading a raw release,
`publish` and lmms-eval's dataset as the data grows: streamed, the way geomeval works,
against held whole, the former way.

    python bench/scale_memory.py [--full] [--sizes 1000,10000] [--whole-up-to 10000] [--paths build,raw]

For each N (1k and 10k; 100k too with `--full`), real GeoLaux items replicated N times (see
_replicated.py; every item has its own figure file): each measurement is a fresh process (same
interpreter, same cores, same files), its peak RSS (VmHWM) reported by the process itself.
Side by side, per path:

- build, streamed (what `geomeval build` does: each row written to its shard as it is read)
  against every row and image held, then written (`from_raw` and `write_dataset`);
- run of the built folder, streamed (items read a window at a time, the copy of each record
  its aggregate reads, `Benchmark.kept`, waiting on disk: keptrecords.py) against the items
  and the records held whole in memory. The run
  uses an openai model on a loopback server answering at once and the offline judge, so every
  item is read, posed with its figure, scored and written;
- rescore of that run (`geomeval score --judge offline`): records read, scored and written a
  window at a time (streamed only: there is no held-whole way left to run);
- raw load: the items of the raw release (`--data` a raw folder), every figure's bytes
  touched, streamed (read once into temporary shards, items made as reached) against the
  release read into a Dataset (`from_raw`, the former way);
- publish: `geomeval publish geolaux --data RAW` as a dry run (`publish.stage`): the release
  built into the staged folder, its card written, and the folder validated (every row loaded
  back by `datasets` and compared with the source's);
- lmms-eval: the dataset geomeval's lmms-eval tasks read, made from the raw release
  (`integrations.lmms.datasets.resolve_dataset`: the release fingerprinted, then built once
  into the cache).

`--paths` measures only some of the paths (build, run, rescore, raw: raw load, publish,
lmms: lmms-eval's dataset); a run needs the build, a rescore the run.

Prints MB per N and, per path, the ratio of each larger N's peak to N=1000's. Target: every
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
PATHS = ("build", "run", "rescore", "raw", "publish", "lmms")
PEAK = """
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""
BUILD = """
import sys
from geomeval.benchmarks.geolaux import data
from geomeval.engines.hfdata import write_dataset
if sys.argv[3] == "streamed":
    data.build(sys.argv[1], sys.argv[2], overwrite=True)
else:  # the former way: every row and image held, then written
    write_dataset({"test": data.from_raw(sys.argv[1])[0]}, sys.argv[2], data.SOURCE.render_card, overwrite=True)
""" + PEAK
RUN = """
import sys
from pathlib import Path
from geomeval.run import runner
from geomeval.benchmarks import get_benchmark
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
bench = get_benchmark("geolaux")
if sys.argv[4] == "whole":  # the former way: every item made up front, every record held whole
    from geomeval.run import runner
    load = bench.load_items
    bench.load_items = lambda *args: list(load(*args))
    bench.kept = lambda record: record

    class Held(list):  # in memory, in place of keptrecords.KeptRecords (on disk)
        def __init__(self, planned=None, *, folder=None):  # as KeptRecords is called
            super().__init__()
        add = list.append
        __contains__ = lambda self, item_id: any(r.id == item_id for r in self)
        ids = lambda self: [r.id for r in self]
        __enter__ = lambda self: self
        __exit__ = lambda self, *exc: None
    runner.KeptRecords = Held
model = parse_model_spec("openai:m", ModelOptions(base_url=sys.argv[3]))
results = runner.run(bench, task="geolaux", model=model, judge=parse_judge_spec("offline"), out_dir=Path(sys.argv[2]),
                     data=sys.argv[1], overwrite=True)
assert results["n_items"] > 0
""" + PEAK
RESCORE = """
import sys
from pathlib import Path
from geomeval.engines.judges import parse_judge_spec
from geomeval.run.runner import rescore
assert rescore(Path(sys.argv[1]), parse_judge_spec("offline"))["n_items"] == int(sys.argv[2])
""" + PEAK
RAW_LOAD = """
import sys
from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.geolaux import data
if sys.argv[2] == "streamed":
    rows = (item.fields for item in get_benchmark("geolaux").load_items(sys.argv[1], "geolaux", None))
else:  # the former way: the release read into a Dataset, every row and image at once
    rows = iter(data.undecoded(data.from_raw(sys.argv[1])[0]))
assert sum(1 for row in rows if row["image"]["bytes"]) == int(sys.argv[3])
""" + PEAK


PUBLISH = """
import sys
from geomeval.publishing.publish import stage
staged = stage("geolaux", sys.argv[2], data=sys.argv[1], overwrite=True)
assert any(f"{sys.argv[3]} rows" in check for check in staged.checks), staged.checks
""" + PEAK
LMMS = """
import sys
from pathlib import Path
from geomeval.integrations.lmms.datasets import resolve_dataset
from geomeval.integrations.lmms.registry import for_task
built = Path(resolve_dataset(sys.argv[1], for_task("geolaux")))
assert (built / "README.md").exists() and str(built).startswith(sys.argv[2]), built
""" + PEAK


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
    parser.add_argument("--full", action="store_true", help="add N=100000 (about 4 GB of disk, tens of minutes)")
    parser.add_argument("--whole-up-to", type=int, default=10000,
                        help="measure the held-whole ways only up to this N (10k already takes 2 GB)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "geomeval-bench-scale")
    parser.add_argument("--paths", default=",".join(PATHS),
                        help="the paths to measure, of build, run, rescore, raw, publish, lmms "
                             "(a run needs the build, a rescore the run)")
    args = parser.parse_args()
    paths = set(args.paths.split(","))
    if not paths <= set(PATHS) or ("run" in paths and "build" not in paths) or ("rescore" in paths and "run" not in paths):
        parser.error(f"--paths: some of {', '.join(PATHS)}; run needs build, rescore needs run")
    sizes = [int(n) for n in args.sizes.split(",")] + ([100000] if args.full else [])
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEOMEVAL_")}
    rows: dict[str, dict[int, float]] = {}
    with tempfile.TemporaryDirectory(prefix="geomeval-bench-") as tmp, ChatServer(lambda r: MODEL_ANSWER) as server:
        env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_DATASETS_CACHE=str(Path(tmp) / "hf"),
                   GEOMEVAL_CACHE_DIR=str(Path(tmp) / "cache"), TMPDIR=tmp)
        for n in sizes:
            raw = replicated_release(n, args.cache / f"raw-{n}")
            ways = ("streamed", "whole") if n <= args.whole_up_to else ("streamed",)
            for way in ways if "build" in paths else ():
                out = Path(tmp) / f"built-{n}-{way}"
                rows.setdefault(f"build, {way}", {})[n] = max_rss_mb(BUILD, str(raw), str(out), way, env=env)
            built = Path(tmp) / f"built-{n}-streamed"
            for way in ways if "run" in paths else ():
                out = Path(tmp) / f"run-{n}-{way}"
                rows.setdefault(f"run, {way}", {})[n] = max_rss_mb(
                    RUN, str(built), str(out), server.base_url, way, env={**env, "GEOMEVAL_CACHE_DIR": str(out) + "-cache"})
            if "rescore" in paths:
                rows.setdefault("rescore, streamed", {})[n] = max_rss_mb(
                    RESCORE, str(Path(tmp) / f"run-{n}-streamed"), str(n), env=env)
            for way in ways if "raw" in paths else ():
                rows.setdefault(f"raw load, {way}", {})[n] = max_rss_mb(RAW_LOAD, str(raw), way, str(n), env=env)
            if "publish" in paths:  # `geomeval publish geolaux --data RAW` (a dry run): build, stage, validate
                out = Path(tmp) / f"published-{n}"
                rows.setdefault("publish, streamed", {})[n] = max_rss_mb(
                    PUBLISH, str(raw), str(out), str(n), env={**env, "HF_DATASETS_CACHE": str(out) + "-hf"})
                subprocess.run(["rm", "-rf", str(out), str(out) + "-hf"], check=False)
            if "lmms" in paths:  # the built folder lmms-eval's geolaux task reads, made from the raw release
                cache = Path(tmp) / f"lmms-{n}"
                rows.setdefault("lmms-eval data, streamed", {})[n] = max_rss_mb(
                    LMMS, str(raw), str(cache), env={**env, "GEOMEVAL_CACHE_DIR": str(cache)})
                subprocess.run(["rm", "-rf", str(cache)], check=False)
            for name in (f"built-{n}-whole", f"run-{n}-whole"):  # disk for the next N
                subprocess.run(["rm", "-rf", str(Path(tmp) / name)], check=False)
            print(json.dumps({k: v[n] for k, v in rows.items() if n in v}), file=sys.stderr)
    first = sizes[0]
    larger = sizes[1:]
    print(f"max RSS (MB) of fresh processes, GeoLaux items replicated; {os.cpu_count()} cores")
    print(f"{'':26}" + "".join(f"{f'N={n}':>10}" for n in sizes) + "".join(f"{f'N={n}/N={first}':>16}" for n in larger))
    failed = []
    for label, peaks in rows.items():
        cells = "".join(f"{peaks[n]:10.0f}" if n in peaks else f"{'-':>10}" for n in sizes)
        ratios = "".join(f"{peaks[n] / peaks[first]:15.2f}x" if n in peaks else f"{'-':>16}" for n in larger)
        verdict = ""
        if label.endswith("streamed"):
            missed = [n for n in larger if peaks[n] / peaks[first] > TARGET]
            verdict = "  FAIL" if missed else "  PASS"
            if missed:
                failed.append(label)
        print(f"{label:26}{cells}{ratios}{verdict}")
    for n in [n for n in sizes if any(n in peaks for label, peaks in rows.items() if label.endswith("whole"))]:
        print(f"N={n}: held whole / streamed, " + ", ".join(
            f"{path} {rows[f'{path}, whole'][n] / rows[f'{path}, streamed'][n]:.2f}x"
            for path in ("build", "run", "raw load") if n in rows.get(f"{path}, whole", {})))
    print(f"target: every streamed peak at N>{first} within {TARGET}x of N={first}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
