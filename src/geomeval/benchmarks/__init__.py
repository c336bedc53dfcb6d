"""The benchmark registry: every benchmark geomeval knows."""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from threading import RLock
from typing import Any

from ..core.errors import UsageError
from ..engines.prompts import from_config, load_for
from .base import Benchmark

# Each benchmark's declaration, made by a function that imports it when first looked up: a
# direct import, which mypy and the import graph see (never a module named by a string).


def _capgeo() -> Benchmark:
    from .capgeo.benchmark import CapGeo

    return CapGeo()


def _capgeo_bench() -> Benchmark:
    from .capgeo_bench.benchmark import CapGeoBench

    return CapGeoBench()


def _ggbench() -> Benchmark:
    from .ggbench.benchmark import GGBench

    return GGBench()


def _geoeval() -> Benchmark:
    from .geoeval.benchmark import GeoEval

    return GeoEval()


def _geolaux() -> Benchmark:
    from .geolaux.benchmark import GeoLaux

    return GeoLaux()


def _me2() -> Benchmark:
    from .me2.benchmark import ME2

    return ME2()


# The registry's order; a new benchmark is one entry here (and its function above).
DECLARATIONS: dict[str, Callable[[], Benchmark]] = {
    "capgeo": _capgeo, "capgeo_bench": _capgeo_bench, "ggbench": _ggbench, "geoeval": _geoeval,
    "geolaux": _geolaux, "me2": _me2,
}


class _Registry(MutableMapping[str, Benchmark]):
    """Benchmarks by name, each declaration imported when it is first looked up: a run of
    one benchmark imports only its own (the six together cost a process about 0.1 s to
    start), while listing the names imports none. Iterating values or items imports each
    as it is reached."""

    def __init__(self, declarations: dict[str, Callable[[], Benchmark]]):
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
                found = self._declared[name]()
                if found.name != name:
                    raise RuntimeError(f"{type(found).__module__} declares {found.name!r}, registered as {name!r}")
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
