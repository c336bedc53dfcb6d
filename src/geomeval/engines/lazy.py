"""Module attributes made on first use, so that `geomeval list` and `--help` need not import
datasets, pyarrow, matplotlib or the keypoint grammars that only running or scoring uses.

A benchmark's modules themselves are imported on first use by its declaration's parts
(`benchmarks/contract.py`): plain function-level imports, under the import system's own
per-module lock, so a second thread waits for the first to finish the module."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def lazy_attributes(namespace: dict[str, Any], names: tuple[str, ...],
                    build: Callable[[], dict[str, Any]]) -> Callable[[str], Any]:
    """A module-level `__getattr__` that makes `names` with `build()` on first access and keeps
    them in the module (`namespace` is its `globals()`), so later reads are plain lookups."""
    module = namespace.get("__name__", "module")

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        built = build()
        namespace.update(built)
        return built[name]

    return __getattr__
