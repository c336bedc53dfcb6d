"""The benchmark registry imports a benchmark's declaration when it is first looked up (issue
#42: a run of one benchmark does not pay for importing the other five at start-up), and gives
one instance per name however many threads ask first."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

from geomeval.benchmarks import DECLARATIONS, REGISTRY, get_benchmark

CHILD = textwrap.dedent(
    """
    import sys
    from geomeval.benchmarks import DECLARATIONS, REGISTRY, get_benchmark
    declared = [f"geomeval.benchmarks.{name}.benchmark" for name in DECLARATIONS]
    listed = list(REGISTRY)
    before = [m for m in declared if m in sys.modules]
    bench = get_benchmark("geolaux")
    after = [m for m in declared if m in sys.modules]
    print(listed, before, after, bench.name)
    """
)


def test_a_lookup_imports_only_that_benchmark() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("] [")[0] == "['capgeo', 'capgeo_bench', 'ggbench', 'geoeval', 'geolaux', 'me2'"
    assert done.stdout.strip().endswith("[] ['geomeval.benchmarks.geolaux.benchmark'] geolaux"), done.stdout


def test_every_declared_name_is_the_benchmark_it_makes() -> None:
    assert list(REGISTRY) == list(DECLARATIONS)
    assert [bench.name for bench in REGISTRY.values()] == list(DECLARATIONS)
    assert "nope" not in REGISTRY and len(REGISTRY) == 6


def test_threads_asking_first_get_one_instance() -> None:
    from geomeval.benchmarks import _Registry

    registry = _Registry(DECLARATIONS)
    gate = threading.Barrier(8)
    seen: list[object] = []

    def ask() -> None:
        gate.wait()
        seen.append(registry["me2"])

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and len({id(bench) for bench in seen}) == 1
    assert get_benchmark("ME2 ").name == "me2"
