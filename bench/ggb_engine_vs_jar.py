"""Scripts per second: geomeval's GeoGebra engine against the GeoGebra 4.0.34 jar, one run.

    python bench/ggb_engine_vs_jar.py [--scripts 1411] [--warm-rounds 20] [--render 200]

The workload is GGBench-sized: the cross-check corpus (tests/data/ggb_corpus, scripts in the
style of GGBench answers, faulty ones included) cycled to `--scripts` scripts (1,411 is
GGBench's size). Measured side by side in this one process:

1. engine, execute only, cold: a fresh Python process that imports the engine and runs every
   script, timed from its spawn to its exit (the whole process, as the jar's is below);
   then warm, in this process (imports and first calls done): `run_script` on every script;
2. engine, execute + render: the same plus `render_png` at 800×600, on `--render` scripts;
3. the reference jar in batch mode (`ReferenceEngine.run_batch`: one JVM, each script in a
   fresh construction), three ways:
   - one GGBench-sized batch in a fresh JVM, start-up included: what scoring GGBench with the
     jar costs. This is the comparison the target applies to;
   - steady state: `--warm-rounds` more passes over the corpus in the same, now JIT-warmed
     JVM (wall clock; the JVM's JIT and garbage collector use the second core meanwhile);
   - the same passes per CPU-second of the JVM process (read from /proc), next to the
     engine's CPU-seconds: the like-for-like cost per core.

Prints scripts/s for each and the ratios, cold against cold and warm against warm. PASS when
the cold engine process is at least 10× the cold jar process on the GGBench-sized batch.
Exits 1 on FAIL, 2 when the jar or Java is missing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from geomeval.geogebra import run_script
from geomeval.geogebra.jar_scoring import jar_lines
from geomeval.geogebra.reference import ReferenceEngine, ReferenceUnavailable

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "ggb_corpus"
TARGET = 10.0
GGBENCH_SIZE = 1411
COLD = """
import json, sys
from pathlib import Path
from geomeval.geogebra import run_script
for text in json.loads(Path(sys.argv[1]).read_text(encoding="utf-8")):
    run_script(text)
"""


def per_second(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc); None where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scripts", type=int, default=GGBENCH_SIZE)
    parser.add_argument("--warm-rounds", type=int, default=20)
    parser.add_argument("--render", type=int, default=200)
    args = parser.parse_args()
    corpus = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.ggb"))]
    if not corpus:
        print(f"no scripts in {CORPUS}")
        return 2
    scripts = list(itertools.islice(itertools.cycle(corpus), args.scripts))
    lines = sum(s.count("\n") + 1 for s in scripts)
    print(f"{len(scripts)} scripts ({len(corpus)} corpus scripts cycled), {lines} lines")

    with tempfile.TemporaryDirectory() as tmp:  # cold: a whole process, start-up and imports included
        listing = Path(tmp) / "scripts.json"
        listing.write_text(json.dumps(scripts), encoding="utf-8")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", COLD, str(listing)], check=True)
        cold_rate = per_second(len(scripts), time.perf_counter() - start)
    run_script(corpus[0])  # warm: imports and first-call costs are not the engine's throughput
    start, cpu = time.perf_counter(), time.process_time()
    for text in scripts:
        run_script(text)
    engine_rate = per_second(len(scripts), time.perf_counter() - start)
    engine_cpu_rate = per_second(len(scripts), time.process_time() - cpu)

    from geomeval.geogebra.render import render_png

    subset = scripts[: args.render]
    start = time.perf_counter()
    for text in subset:
        render_png(run_script(text), size=(800, 600))
    render_rate = per_second(len(subset), time.perf_counter() - start)

    batch = [jar_lines(text)[1] for text in scripts]  # GeoGebra 4.0 syntax, as -T engine=jar sends it
    warm_batch = [jar_lines(text)[1] for text in corpus]
    try:
        started = time.perf_counter()
        with ReferenceEngine() as jar:
            jar.run_batch(batch)  # a fresh JVM: start-up, then the whole GGBench-sized batch
            batch_rate = per_second(len(batch), time.perf_counter() - started)
            pid = jar.pid
            cpu_before = process_cpu_seconds(pid) if pid else None
            start = time.perf_counter()
            for _ in range(args.warm_rounds):
                jar.run_batch(warm_batch)
            warm_seconds = time.perf_counter() - start
            cpu_after = process_cpu_seconds(pid) if pid else None
    except ReferenceUnavailable as exc:
        print(f"reference jar unavailable: {exc}")
        return 2
    warm_count = len(warm_batch) * args.warm_rounds
    warm_rate = per_second(warm_count, warm_seconds)
    jar_cpu_rate = None
    if cpu_before is not None and cpu_after is not None and cpu_after > cpu_before:
        jar_cpu_rate = per_second(warm_count, cpu_after - cpu_before)

    print(f"engine, cold process        : {cold_rate:9.1f} scripts/s (fresh interpreter, imports included)")
    print(f"engine, execute only        : {engine_rate:9.1f} scripts/s (warm, one core)")
    print(f"engine, execute + render    : {render_rate:9.1f} scripts/s")
    print(f"jar, GGBench-sized batch    : {batch_rate:9.1f} scripts/s (fresh JVM, start-up included)")
    print(f"jar, steady state           : {warm_rate:9.1f} scripts/s (JIT-warmed JVM, wall clock)")
    if jar_cpu_rate is not None:
        cores = (cpu_after - cpu_before) / warm_seconds  # type: ignore[operator]
        print(f"jar, steady state per core  : {jar_cpu_rate:9.1f} scripts/CPU-s (JVM used {cores:.1f} cores)")
        print(f"engine per core             : {engine_cpu_rate:9.1f} scripts/CPU-s")
    ratio = cold_rate / batch_rate
    print(f"ratio cold / cold           : {ratio:9.1f}x  (whole processes, start-up included; target ≥ {TARGET:g}x)")
    print(f"ratio warm / warm           : {engine_rate / warm_rate:9.1f}x  (wall clock)")
    if jar_cpu_rate is not None:
        print(f"ratio per core, steady      : {engine_cpu_rate / jar_cpu_rate:9.1f}x")
    print(f"ratio execute+render / jar  : {render_rate / batch_rate:9.2f}x")
    verdict = ratio >= TARGET
    print("PASS" if verdict else "FAIL")
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
