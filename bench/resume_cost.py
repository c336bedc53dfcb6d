"""CPU of resuming a finished run against the run itself (issue 43, point 5).

A replicated GeoLaux release of N items (default 10,000; `_replicated.py`) is built once, then
each step runs `runner.run` in a fresh process (baseline:random, offline judge) and reports the
CPU seconds the call took, all threads counted (`time.process_time`), imports done before
the clock starts (they are the same for both and are not the run's work):

- run: the run made from nothing;
- resume: the same call again on the finished folder (the command a user reruns);
- resume, no state: the same again with `.finished.json` removed, the way a folder written
  before it existed, or one whose files changed, is resumed (every record read once, the file
  rewritten only when something is dropped).

Target: resume <= 10% of the run's CPU (before: 11.87 against 11.04 CPU-s at 10k, 108%).
Exit 1 when missed. `--items N` for another size.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _replicated import built, process_env

TIMED = """
import sys, time
from pathlib import Path
from geomeval.benchmarks import get_benchmark
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import parse_model_spec
from geomeval.run import runner
bench = get_benchmark("geolaux")
bench.load_items(sys.argv[1], "geolaux", 1)  # the data's modules imported, as the run would
start = time.process_time()
results = runner.run(bench, task="geolaux", model=parse_model_spec("baseline:random"),
                     judge=parse_judge_spec("offline"), out_dir=Path(sys.argv[2]), data=sys.argv[1])
print(time.process_time() - start, results["n_items"])
"""


def timed(data: Path, out: Path, env: dict[str, str]) -> tuple[float, int]:
    done = subprocess.run([sys.executable, "-c", TIMED, str(data), str(out)], env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stderr)
    seconds, items = done.stdout.split()[-2:]
    return float(seconds), int(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    args = parser.parse_args()
    cache = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "geomeval-bench-scale"
    cache.mkdir(parents=True, exist_ok=True)
    data = built(args.items, cache)
    env = process_env(cache)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        run_cpu, n = timed(data, out, env)
        resume_cpu, again = timed(data, out, env)
        (out / ".finished.json").unlink()
        fallback_cpu, _ = timed(data, out, env)
    assert n == again == args.items, (n, again)
    ratio = resume_cpu / run_cpu
    print(f"{n} items: run {run_cpu:.2f} CPU-s, resume {resume_cpu:.3f} CPU-s ({ratio:.1%} of the run), "
          f"resume without the finished state {fallback_cpu:.2f} CPU-s ({fallback_cpu / run_cpu:.0%})")
    if ratio > 0.10:
        print("target missed: resume > 10% of the run's CPU")
        sys.exit(1)


if __name__ == "__main__":
    main()
