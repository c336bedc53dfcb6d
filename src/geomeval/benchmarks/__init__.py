"""The benchmark registry: every benchmark geomeval knows."""

from __future__ import annotations

from .base import Benchmark
from .capgeo.bench import CapGeoBench
from .capgeo.reasoning_bench import CapGeo
from .geoeval.benchmark import GeoEval
from .geolaux.benchmark import GeoLaux
from .ggbench.benchmark import GGBench
from .me2.benchmark import ME2

REGISTRY: dict[str, Benchmark] = {
    b.name: b for b in (CapGeo(), CapGeoBench(), GGBench(), GeoEval(), GeoLaux(), ME2())
}


def get_benchmark(name: str) -> Benchmark:
    """The benchmark called `name`; an unknown name raises KeyError listing the known ones."""
    key = name.strip().lower()
    if key not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise KeyError(f"unknown benchmark {name!r}; known: {known}")
    return REGISTRY[key]


__all__ = ["REGISTRY", "Benchmark", "get_benchmark"]
