"""Modules loaded on first use, so that `geomeval list` and `--help` need not import datasets,
pyarrow, matplotlib or the keypoint grammars that only running or scoring uses."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any


def lazy_import(name: str) -> ModuleType:
    """The module `name`, executed on its first attribute access (importlib's LazyLoader).
    An already imported module is returned as it is."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"no module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


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
