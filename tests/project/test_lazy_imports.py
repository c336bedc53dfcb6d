"""Modules imported on first use are safe to read from many threads at once: the Space and a
run's posing threads both reach a benchmark's `data` and `scoring` parts first from threads, and a
half-initialised module seen by one of them used to break that benchmark until restart."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

# A fresh process: the registry imported, then 8 threads released together, each asking every
# benchmark for each of its declared parts (imported on that first call) and reading what the
# contract reads of it.
CHILD = textwrap.dedent(
    """
    import threading
    from geomeval.benchmarks import REGISTRY

    READS = {"scoring": ("METRICS", "BREAKDOWNS", "KEPT", "score_record", "aggregate"),
             "data": ("SOURCE", "sample_path", "build", "locate"), "card": ("render_card",),
             "evaluation": ("FACES",), "raw": ("locate_release",)}
    reads = [(bench, role, attr) for bench in REGISTRY.values() for role, attrs in READS.items()
             if getattr(bench.parts, role) is not None for attr in attrs]
    assert len(reads) > 10, reads
    gate = threading.Barrier(8)
    failures = []

    def read_all():
        gate.wait()
        for bench, role, attr in reads:
            try:
                getattr(getattr(bench.parts, role)(), attr)
            except Exception as exc:  # the failure this test exists for
                failures.append(f"{bench.name}.{role}.{attr}: {exc!r}")

    threads = [threading.Thread(target=read_all) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("\\n".join(failures) or "ok")
    """
)


def _fresh_process(_: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 50 processes of about 1.3 CPU-s each; generous for a loaded machine
def test_fifty_fresh_processes_of_eight_threads_see_whole_modules() -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(_fresh_process, range(50)))
    assert outcomes == ["ok"] * 50, [o for o in outcomes if o != "ok"][:3]
