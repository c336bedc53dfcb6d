"""Score the three items issue 37 found load-dependent, at the niceness given, and print the
scores as one JSON line (tests/engines/test_deterministic_limits.py runs it twice and compares)."""

from __future__ import annotations

import asyncio
import json
import os
import sys


def main() -> None:
    os.nice(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    from geomeval.answers import check_answer
    from geomeval.benchmarks import get_benchmark
    from geomeval.engines.judges import Judge
    from geomeval.geogebra import run_script

    bench = get_benchmark("ggbench")
    record = bench.new_record(bench.load_items(None, "ggbench_code", 1)[0], "ggbench_code")
    circles = "\n".join(f"P_{{{i}}} = ({i % 20}, {i // 20})\nc_{{{i}}} = Circle(P_{{{i}}}, 0.5)" for i in range(200))
    record.response = f"Plan: two hundred circles on a grid.\n```geogebra\n{circles}\n```"
    scores = asyncio.run(bench.score(record, Judge("offline")))
    ggbench = {name: (round(s.value, 9) if s.scored else s.unscored) for name, s in sorted(scores.items())
               if not s.needs_judge}

    lines = ["A = (0, 0)", "B = (4, 0)", "C = (1, 3)"]
    while len(lines) < 1997:
        n = len(lines)
        lines.append(f"s_{{{n}}} = Segment(A, Midpoint(B, C))" if n % 2 else f"m_{{{n}}} = Midpoint(A, ({n % 97}, {n % 89}))")
    construction = run_script("\n".join(lines))
    engine = {"pass_at_1": construction.pass_at_1, "lines_ok": sum(line.ok for line in construction.lines),
              "errors": [line.error for line in construction.errors][:3]}

    verdict = check_answer("\\sin^2 x+\\cos^2 x", "1")
    print(json.dumps({"ggbench": ggbench, "engine": engine,
                      "checker": {"equal": verdict.equal, "decided": verdict.decided}}))


if __name__ == "__main__":
    main()
