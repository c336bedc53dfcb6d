"""The report's bar charts: geomeval's SVG charts against the same charts drawn by matplotlib
(the way report.py drew them before, Agg to PNG), side by side, whole processes.

    python bench/report_charts.py [--groups 9] [--keys 6] [--repeat 5]

One results.json shaped like a GeoEval run's (`--groups` breakdowns of `--keys` groups each,
one of them unscored), written once. Each side is a fresh process that reads it and writes
one chart per breakdown into its own folder: `geomeval report` for the SVG side (the whole
report.md with its charts), a short script for matplotlib (imports included: a run pays them
once, after its last reply or on a thread while it waits). Both with bytecode already
written, fastest of `--repeat`. Prints each side's wall time and matplotlib / geomeval.
Target: the SVG charts at least 3x cheaper. Exits 1 when they are not.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 3.0
MATPLOTLIB = """
import json, sys
from pathlib import Path
from matplotlib.figure import Figure

results = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
out = Path(sys.argv[2]); out.mkdir(parents=True, exist_ok=True)
metric = results["headline"]
for group, buckets in results["breakdowns"].items():
    keys = list(buckets)
    values = [buckets[k][metric]["value"] for k in keys]
    width, height = max(3.5, 1.1 * len(keys) + 1.5), 3.2
    fig = Figure(figsize=(width, height), dpi=100)
    ax = fig.subplots()
    fig.subplots_adjust(left=0.7 / width, right=1 - 0.1 / width, bottom=0.4 / height, top=1 - 0.35 / height)
    bars = ax.bar(keys, [100 * v if v is not None else 0 for v in values],
                  color=["#4C72B0" if v is not None else "#DDDDDD" for v in values])
    for bar, key, value in zip(bars, keys, values):
        stats = buckets[key][metric]
        label = f"{100 * value:.0f}\\n{stats['scored']}/{stats['total']}" if value is not None else "not\\nscored"
        ax.annotate(label, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom",
                    fontsize=8, xytext=(0, 2), textcoords="offset points")
    ax.set_ylim(0, 119)
    ax.set_ylabel(f"{metric} (%)")
    ax.set_title(f"{metric} by {group}", fontsize=10, y=1.0)
    fig.savefig(out / f"{metric.lower()}_by_{group}.png")
"""


def results(groups: int, keys: int) -> dict:
    stats = {"value": 0.5, "scored": 10, "total": 12, "unscored_reasons": {}, "coverage": 10 / 12}
    breakdowns = {f"group_{g}": {f"key {k}": {"A": {**stats, "value": (k + 1) / (keys + 1)} if k else
                                              {**stats, "value": None, "scored": 0}} for k in range(keys)}
                  for g in range(groups)}
    return {"benchmark": "geoeval", "title": "GeoEval", "task": "geoeval_2000", "model": "m", "judge": "j",
            "headline": "A", "n_items": 12, "config": {"data": "d"},
            "generation": {"succeeded": 12, "failed": 0, "coverage": 1.0},
            "metrics": {"A": stats}, "breakdowns": breakdowns, "versions": {"geomeval": "0"}}


def timed(command: list[str]) -> float:
    start = time.monotonic()
    subprocess.run(command, check=True, capture_output=True)
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=9)
    parser.add_argument("--keys", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="geomeval-bench-") as tmp:
        run = Path(tmp) / "run"
        run.mkdir()
        (run / "results.json").write_text(json.dumps(results(args.groups, args.keys)), encoding="utf-8")
        svg = [sys.executable, "-m", "geomeval.cli", "report", str(run)]
        png = [sys.executable, "-c", MATPLOTLIB, str(run / "results.json"), str(Path(tmp) / "png")]
        timed(svg), timed(png)  # bytecode written, files cached: both warm
        best_svg = min(timed(svg) for _ in range(args.repeat))
        best_png = min(timed(png) for _ in range(args.repeat))
        assert len(list((run / "plots").glob("*.svg"))) == len(list((Path(tmp) / "png").glob("*.png"))) == args.groups
    ratio = best_png / best_svg
    print(f"{args.groups} breakdowns of {args.keys} groups each, fresh processes, fastest of {args.repeat}:")
    print(f"geomeval report (report.md and SVG charts): {best_svg:6.2f} s")
    print(f"matplotlib, the same charts as PNG:         {best_png:6.2f} s")
    print(f"matplotlib / geomeval: {ratio:.2f}x (target >= {TARGET}x): {'PASS' if ratio >= TARGET else 'FAIL'}")
    if ratio < TARGET:
        sys.exit(1)


if __name__ == "__main__":
    main()
