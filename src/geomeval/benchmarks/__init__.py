"""The benchmark registry: every benchmark geomeval knows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..prompts import from_config, load_for
from .base import Benchmark
from .capgeo.benchmark import CapGeo
from .capgeo_bench.benchmark import CapGeoBench
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
        raise UsageError(f"unknown benchmark {name!r}; known: {known}")
    return REGISTRY[key]


def with_prompt_file(bench: Benchmark, path: str | Path | None) -> Benchmark:
    """`bench` rendering the templates of the prompt file at `path` over its defaults (as it
    is, without a file); a PromptError names what in the file is wrong."""
    if path is None or str(path) == "":
        return bench
    return bench.with_prompts(load_for(bench.name, bench.prompt_templates, path, REGISTRY))


def with_recorded_prompts(bench: Benchmark, config: dict[str, Any]) -> Benchmark:
    """`bench` rendering the prompt set a run recorded in its run.json."""
    return bench.with_prompts(from_config(bench.name, bench.prompt_templates, config.get("prompts")))


__all__ = ["REGISTRY", "Benchmark", "get_benchmark", "with_prompt_file", "with_recorded_prompts"]
