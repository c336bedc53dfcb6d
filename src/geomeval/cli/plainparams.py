"""Plain command-line values read without pydantic.

The typer geomeval is built with (0.2x) turns every parameter's value into its type through a
pydantic `TypeAdapter` made for that parameter when the command line is read: importing pydantic
and building an adapter per option took 60-100 ms of each `geomeval run`'s start, which a bare
client does not pay (issue #42). Every option geomeval declares is a plain one -- a string, a
path with no checks, a whole or decimal number with bounds, a flag, a list of strings -- and
for the values a command line gives such an option the answer is known without pydantic:
`install` gives those parameters a reader that returns it directly, and hands every other value
(a number out of its bounds or not plainly written, anything unexpected) to typer's own reader,
so what is accepted, what it becomes and every error message stay typer's. Any other
parameter, and any typer without this layer (older or newer), is left to typer entirely.
tests/faces/test_cli_plain_params.py holds the answers equal to typer's for every parameter.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_WHOLE = re.compile(r"[0-9]{1,18}")
_DECIMAL = re.compile(r"[0-9]{1,15}(\.[0-9]{1,15})?")
_TYPERS = object()  # "hand this value to typer's reader"


def install() -> bool:
    """Give typer's plain parameters the direct reader; whether this typer has the layer."""
    try:
        from typer import _coercion, core
        from typer._param_types import coerce_cli_path, routes_to_path
        from typer._typing import get_args, get_origin
    except ImportError:
        return False
    found = getattr(core, "build_runtime_param", None)
    runtime = getattr(_coercion, "RuntimeParam", None)
    if found is None or runtime is None or getattr(found, "plain", False):
        return found is not None and runtime is not None
    typers: Callable[[Any], Any] = found

    @dataclass(frozen=True)
    class PlainRuntimeParam(runtime):  # type: ignore[misc, valid-type]
        """Typer's `RuntimeParam` for a plain parameter: the value read directly, or by
        typer's own reader (made when a value needs it: one not plainly written, or wrong)."""

        descriptor: Any
        kind: str

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            plain = _plain(self.kind, self.parameter_info, self.annotation, value, param, ctx)
            if plain is not _TYPERS:
                return plain
            return typers(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

    def _plain(kind: str, info: Any, annotation: Any, value: Any, param: Any, ctx: Any) -> Any:
        if kind == "str":
            return value if type(value) is str else _TYPERS
        if kind == "bool":  # a flag's value is a bool already; a None (an unset flag) is not read
            return value if type(value) is bool else _TYPERS
        if kind == "strings":
            ok = isinstance(value, (list, tuple)) and all(type(item) is str for item in value)
            return list(value) if ok else _TYPERS
        if kind == "path":  # typer's own checks (none that geomeval asks for), on the Path made here
            if type(value) is not str or not value:
                return _TYPERS
            try:
                return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
            except ValueError:  # a NUL in the name: typer's message
                return _TYPERS
        if kind == "int":
            number: Any = value if type(value) is int else (
                int(value) if type(value) is str and _WHOLE.fullmatch(value) else None)
        else:  # float
            number = float(value) if type(value) in (int, float) or (
                type(value) is str and _DECIMAL.fullmatch(value)) else None
        if number is None or number != number:
            return _TYPERS
        if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
            return _TYPERS  # typer's own error message
        return number

    def kind_of(descriptor: Any) -> str | None:
        info, annotation = descriptor.parameter_info, descriptor.annotation
        if descriptor.file_annotation is not None or info.parser is not None or getattr(info, "clamp", False):
            return None
        if annotation is str or annotation is bool:
            return annotation.__name__  # type: ignore[no-any-return]
        if annotation is int or annotation is float:
            return annotation.__name__  # type: ignore[no-any-return]
        if get_origin(annotation) is list and get_args(annotation) == (str,):
            return "strings"
        if annotation is Path and info.path_type is None and routes_to_path(annotation, info):
            return "path"
        return None

    def build_runtime_param(descriptor: Any) -> Any:
        kind = kind_of(descriptor)
        if kind is None:
            return typers(descriptor)
        return PlainRuntimeParam(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation,
                                 descriptor=descriptor, kind=kind)

    build_runtime_param.plain = True  # type: ignore[attr-defined]
    build_runtime_param.typers = typers  # type: ignore[attr-defined]
    core.build_runtime_param = build_runtime_param
    return True
