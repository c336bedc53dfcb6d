"""Scripts per second: geomeval's GeoGebra engine against the GeoGebra 4.0.34 jar, one run.

    python bench/ggb_engine_vs_jar.py [--rounds 20] [--render-rounds 2]

Over the cross-check corpus (tests/data/ggb_corpus, every script in the style of GGBench
answers, faulty ones included), measured side by side in this one process:

1. engine, execute only: `run_script` on each script, `--rounds` passes;
2. engine, execute + render: the same plus `render_png` at 800×600 (`--render-rounds`);
3. the reference jar in batch mode (`ReferenceEngine.run_batch`: one JVM, each script in a
   fresh construction): a cold batch (JVM start-up and the first pass over the corpus, as
   a user running the jar once pays), then `--rounds` warm passes.

Prints scripts/s for each and the ratios engine / jar. PASS when execute-only is at least
10× the jar's warm batch throughput (the stricter of the two comparisons). Exits 1 on FAIL, 2 when the jar or Java is missing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from geomeval.geogebra import run_script
from geomeval.geogebra import syntax as sx
from geomeval.geogebra.reference import ReferenceEngine, ReferenceUnavailable

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "ggb_corpus"
TARGET = 10.0


def legacy_lines(text: str) -> list[str]:
    """The script in GeoGebra 4.0's bracket syntax, as the cross-check test sends it."""
    lines = []
    for entry in sx.parse_script(text):
        if isinstance(entry, sx.ParseError):
            lines.append(entry.source)
        else:
            lines.append(sx.to_source(entry, legacy=True))
    return lines


def per_second(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--render-rounds", type=int, default=2)
    args = parser.parse_args()
    scripts = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.ggb"))]
    if not scripts:
        print(f"no scripts in {CORPUS}")
        return 2
    print(f"{len(scripts)} corpus scripts, {sum(s.count(chr(10)) + 1 for s in scripts)} lines")

    start = time.perf_counter()
    for _ in range(args.rounds):
        for text in scripts:
            run_script(text)
    engine_rate = per_second(len(scripts) * args.rounds, time.perf_counter() - start)

    from geomeval.geogebra.render import render_png

    start = time.perf_counter()
    for _ in range(args.render_rounds):
        for text in scripts:
            render_png(run_script(text), size=(800, 600))
    render_rate = per_second(len(scripts) * args.render_rounds, time.perf_counter() - start)

    batch = [legacy_lines(text) for text in scripts]
    try:
        started = time.perf_counter()
        with ReferenceEngine() as jar:
            jar.run_batch(batch)  # the first pass: a cold batch, JVM start-up included
            startup = time.perf_counter() - started
            cold_rate = per_second(len(scripts), startup)
            start = time.perf_counter()
            for _ in range(args.rounds):
                jar.run_batch(batch)
            jar_rate = per_second(len(scripts) * args.rounds, time.perf_counter() - start)
    except ReferenceUnavailable as exc:
        print(f"reference jar unavailable: {exc}")
        return 2

    print(f"engine, execute only     : {engine_rate:9.1f} scripts/s")
    print(f"engine, execute + render : {render_rate:9.1f} scripts/s")
    print(f"jar, cold batch          : {cold_rate:9.1f} scripts/s (one JVM started for the corpus)")
    print(f"jar, warm batch          : {jar_rate:9.1f} scripts/s (JIT warmed, start-up not counted)")
    print(f"ratio execute / cold jar : {engine_rate / cold_rate:9.1f}x")
    ratio = engine_rate / jar_rate
    print(f"ratio execute / warm jar : {ratio:9.1f}x  (target ≥ {TARGET:g}x)")
    print(f"ratio execute+render/jar : {render_rate / jar_rate:9.2f}x")
    verdict = ratio >= TARGET
    print("PASS" if verdict else "FAIL")
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
