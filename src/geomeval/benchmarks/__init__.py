"""The benchmark registry: every benchmark geomeval knows, built or planned."""

from __future__ import annotations

from .base import Benchmark, BenchmarkNotBuilt, PlannedBenchmark
from .capgeo.bench import CapGeoBench
from .capgeo.reasoning_bench import CapGeo
from .geoeval.benchmark import GeoEval
from .geolaux.benchmark import GeoLaux
from .ggbench.benchmark import GGBench
from .me2 import PLANNED as _ME2

REGISTRY: dict[str, Benchmark | PlannedBenchmark] = {
    b.name: b for b in (CapGeo(), CapGeoBench(), GGBench(), GeoEval(), GeoLaux(), _ME2)
}


def get_benchmark(name: str) -> Benchmark:
    """The built benchmark called `name`; a planned one raises `BenchmarkNotBuilt`."""
    key = name.strip().lower()
    if key not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise KeyError(f"unknown benchmark {name!r}; known: {known}")
    bench = REGISTRY[key]
    if isinstance(bench, PlannedBenchmark):
        raise bench.refuse()
    return bench


__all__ = ["REGISTRY", "Benchmark", "BenchmarkNotBuilt", "PlannedBenchmark", "get_benchmark"]
