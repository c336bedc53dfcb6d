"""The benchmark registry: every benchmark geomeval knows."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from importlib import import_module
from pathlib import Path
from threading import RLock
from typing import Any

from ..errors import UsageError
from ..prompts import from_config, load_for
from .base import Benchmark

# Each benchmark's declaration (module under benchmarks/, class), in the registry's order.
DECLARATIONS: dict[str, tuple[str, str]] = {
    "capgeo": ("capgeo.benchmark", "CapGeo"),
    "capgeo_bench": ("capgeo_bench.benchmark", "CapGeoBench"),
    "ggbench": ("ggbench.benchmark", "GGBench"),
    "geoeval": ("geoeval.benchmark", "GeoEval"),
    "geolaux": ("geolaux.benchmark", "GeoLaux"),
    "me2": ("me2.benchmark", "ME2"),
}


class _Registry(MutableMapping[str, Benchmark]):
    """Benchmarks by name, each declaration imported when it is first looked up: a run of
    one benchmark imports only its own (the six together cost a process about 0.1 s to
    start), while listing the names imports none. Iterating values or items imports each
    as it is reached."""

    def __init__(self, declarations: dict[str, tuple[str, str]]):
        self._declared = dict(declarations)
        self._made: dict[str, Benchmark] = {}
        self._order = list(declarations)
        self._lock = RLock()

    def __getitem__(self, name: str) -> Benchmark:
        found = self._made.get(name)
        if found is not None:
            return found
        with self._lock:  # one instance however many threads ask first (the Space, posing threads)
            found = self._made.get(name)
            if found is None:
                if name not in self._declared:
                    raise KeyError(name)
                module, cls = self._declared[name]
                found = getattr(import_module(f"{__name__}.{module}"), cls)()
                if found.name != name:
                    raise RuntimeError(f"benchmarks/{module}.py declares {found.name!r}, registered as {name!r}")
                self._made[name] = found
        return found

    def __setitem__(self, name: str, bench: Benchmark) -> None:
        if name not in self._order:
            self._order.append(name)
        self._declared.pop(name, None)
        self._made[name] = bench

    def __delitem__(self, name: str) -> None:
        if name not in self._order:
            raise KeyError(name)
        self._order.remove(name)
        self._declared.pop(name, None)
        self._made.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._order

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def __repr__(self) -> str:
        return f"REGISTRY({', '.join(self._order)})"


REGISTRY: MutableMapping[str, Benchmark] = _Registry(DECLARATIONS)


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
