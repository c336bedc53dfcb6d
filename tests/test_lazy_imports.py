"""Modules imported on first use are safe to read from many threads at once: the Space and a
run's posing threads both reach a benchmark's `data` and `scoring` parts first from threads, and a
half-initialised module seen by one of them used to break that benchmark until restart."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from geomeval.lazy import lazy_import

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


def test_a_deferred_module_loads_once_under_contention(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module slow to execute, read by 8 threads at once: each sees it whole, and it runs once."""
    (tmp_path / "slow_module_for_lazy_test.py").write_text(
        "import time\nRUNS = []\nRUNS.append(1)\ntime.sleep(0.2)\nLATE = 'defined last'\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "slow_module_for_lazy_test", raising=False)
    deferred = lazy_import("slow_module_for_lazy_test")
    assert "slow_module_for_lazy_test" not in sys.modules  # nothing executed yet
    gate = threading.Barrier(8)

    def read() -> str:
        gate.wait()
        return str(deferred.LATE)

    with ThreadPoolExecutor(max_workers=8) as pool:
        seen = list(pool.map(lambda _: read(), range(8)))
    assert seen == ["defined last"] * 8
    assert sys.modules["slow_module_for_lazy_test"].RUNS == [1]


def test_a_missing_module_is_named_at_once() -> None:
    with pytest.raises(ModuleNotFoundError, match="no_such_geomeval_module"):
        lazy_import("geomeval.no_such_geomeval_module")
