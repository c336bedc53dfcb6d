"""Start-up time of the command line, as a ratio to a bare interpreter, measured side by side.

    python bench/startup.py [--runs 7]

Each command runs as a fresh process (cold imports, warm OS file cache: one untimed run of
each first), interleaved round by round so that machine load hits all of them alike:
`python -c pass`, `python -c "import geomeval"`, `geomeval --help`, `geomeval --version`,
`geomeval list` and reading the GeoLaux sample's items (what a run does before its first
request; it says which heavy modules that imported). Prints the median wall time of each and its ratio to the bare
interpreter, and the target: `--help` and `list` well under a second (goal 0.3 s).
Exits 1 when `--help` misses 0.3 s or `list` misses 1 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

READ_SAMPLE = """
import sys
from geomeval.benchmarks import get_benchmark
items = list(get_benchmark("geolaux").load_items(None, "geolaux", None))
heavy = [name for name in ("datasets", "pandas", "matplotlib", "scipy") if name in sys.modules]
print(" ".join(heavy), file=sys.stderr)
"""
"""What `geomeval run` does before its first request: the embedded sample's items, and which
heavy modules that imported (none of datasets or pandas is needed to read a sample or a
built folder)."""

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import geomeval": [sys.executable, "-c", "import geomeval"],
    "geomeval --help": [sys.executable, "-m", "geomeval.cli", "--help"],
    "geomeval --version": [sys.executable, "-m", "geomeval.cli", "--version"],
    "geomeval list": [sys.executable, "-m", "geomeval.cli", "list"],
    "read a sample's items": [sys.executable, "-c", READ_SAMPLE],
}
LIMITS = {"geomeval --help": 0.3, "geomeval list": 1.0}


# As an installed package starts: its bytecode cached (PYTHONDONTWRITEBYTECODE, set on some
# machines, would have every start compile geomeval's sources again; pip compiles them once).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    for command in COMMANDS.values():
        timed(command)  # warm the file cache and bytecode
    heavy = subprocess.run(COMMANDS["read a sample's items"], check=True, capture_output=True, text=True,
                           env=ENV).stderr.split()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.runs):
        for name, command in COMMANDS.items():
            times[name].append(timed(command))
    medians = {name: statistics.median(values) for name, values in times.items()}
    bare = medians["python -c pass"]
    failed = False
    print(f"{'command':<22}{'median s':>10}{'× bare':>9}   target")
    for name, median in medians.items():
        limit = LIMITS.get(name)
        verdict = ""
        if limit is not None:
            ok = median <= limit
            failed |= not ok
            verdict = f"≤ {limit:g} s {'PASS' if ok else 'FAIL'}"
        print(f"{name:<22}{median:>10.3f}{median / bare:>9.1f}   {verdict}")
    print(f"reading a sample's items imported: {', '.join(heavy) or 'none of datasets, pandas, matplotlib, scipy'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
