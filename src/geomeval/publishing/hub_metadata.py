"""Every registered benchmark's Hub dataset, by name: `METADATA` and `metadata(name)`, for
the faces that name a dataset (`geomeval publish`, the sample card, the lmms-eval tasks).

The entries themselves are the benchmarks' declarations (`Benchmark.hub`, a
`hub_terms.HubMetadata` in each folder's hub.py), read from the registry; the benchmarks and
the card renderer use `hub_terms` and never look an entry up by name. The classes are
re-exported here for the faces that use both.
"""

from __future__ import annotations

from typing import Any

from ..engines.hub_terms import (
    HUB_LICENSES,
    HUB_TASK_CATEGORIES,
    HubMetadata,
    SourceTerms,
    size_category,
)

__all__ = ["HUB_LICENSES", "HUB_TASK_CATEGORIES", "HubMetadata", "SourceTerms", "metadata", "size_category"]


def _declared() -> dict[str, HubMetadata]:
    """Every registered benchmark's dataset (`Benchmark.hub`, from its folder's hub.py)."""
    from ..benchmarks import REGISTRY

    return {name: bench.hub for name, bench in REGISTRY.items() if bench.hub is not None}


def __getattr__(name: str) -> Any:
    """`METADATA`, {dataset name: HubMetadata}, read from the registry when first asked for
    (the benchmark folders import this module for the classes above)."""
    if name == "METADATA":
        return _declared()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def metadata(name: str) -> HubMetadata:
    try:
        return _declared()[name]
    except KeyError:
        raise KeyError(f"no Hub metadata for dataset {name!r}; datasets: {', '.join(_declared())}") from None
