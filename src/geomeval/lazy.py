"""Modules loaded on first use, so that `geomeval list` and `--help` need not import datasets,
pyarrow, matplotlib or the keypoint grammars that only running or scoring uses."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any


class _Deferred:
    """A stand-in for a module that imports it on the first attribute read.

    It replaces importlib's LazyLoader, which is not thread-safe on Python 3.11: the first
    reader turns the lazy module into a plain one *before* executing it, so a second thread
    reading at that moment sees a half-executed module ("has no attribute ...") and the
    failure sticks. Here the import is `import_module`'s own, under the import system's
    per-module lock: a second thread waits for the first to finish, and the stand-in is
    never placed in sys.modules, so every other import sees only the real module.
    """

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_module", None)

    def _load(self) -> ModuleType:
        module = self._module
        if module is None:
            module = importlib.import_module(self._name)
            object.__setattr__(self, "_module", module)
        return module

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._load(), attr)

    def __setattr__(self, attr: str, value: Any) -> None:
        setattr(self._load(), attr, value)

    def __dir__(self) -> list[str]:
        return dir(self._load())

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<deferred module {self._name!r} ({state})>"


def lazy_import(name: str) -> Any:
    """The module `name`, imported on its first attribute access; safe to read from several
    threads at once. An already imported module is returned as it is; a name that does not
    exist raises ModuleNotFoundError now, not at first use."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"no module named {name!r}", name=name)
    return _Deferred(name)


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
