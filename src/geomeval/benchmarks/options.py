"""A benchmark's run options, declared once as a frozen dataclass (`Benchmark.Options`).

The annotations type them (str, int, bool, Path, a `Literal` of choices, or any of these
`| None`), so one parser turns `geomeval run -T key=value` strings into them for every
benchmark, with an error naming the benchmark, the key and what it accepts, and the help of
`geomeval run` and `geomeval list` is read from the same declaration."""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..core.errors import UsageError

TRUE = ("true", "1", "yes", "on")
FALSE = ("false", "0", "no", "off")


def about(help: str, *, named: str | None = None) -> dict[str, Any]:
    """An option field's metadata, `field(default=..., metadata=about(...))`: the help line
    `geomeval run --help` shows, and what an error calls it (`named`, default the key; the
    error also names the `-T key=` that sets it)."""
    return {"help": help, "named": named}


def option_pairs(pairs: Iterable[str], given: Mapping[str, Any] | None = None, *, scoped: bool = False) -> dict[str, Any]:
    """`-T KEY=VALUE` strings as a dict, added to `given` (options already read, e.g. by a
    caller that takes some of them apart). `scoped`: each KEY is `BENCHMARK.KEY`, as `geomeval
    suite` takes them. A malformed pair, or a key given twice, is a usage error."""
    shape, example = ("BENCHMARK.KEY=VALUE", "geoeval.mode=text") if scoped else ("KEY=VALUE", "mode=text")
    options = dict(given or {})
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        parts = key.split(".")
        if not sep or len(parts) != (2 if scoped else 1) or not all(p.isidentifier() for p in parts) or not value.strip():
            raise UsageError(f"-T {pair!r}: expected {shape}, e.g. -T {example}")
        if key in options:
            raise UsageError(f"-T {key} given twice")
        options[key] = value.strip()
    return options


@dataclasses.dataclass(frozen=True)
class NoOptions:
    """The options of a benchmark that takes none."""


@dataclasses.dataclass(frozen=True)
class OptionSpec:
    """One declared option as help shows it."""

    name: str
    kind: str  # "text", "number", "yes/no", "path" or "a|b|c" (the choices)
    default: Any
    help: str
    choices: tuple[str, ...] = ()


def _hints(options_type: type) -> dict[str, Any]:
    module = sys.modules.get(options_type.__module__)
    return typing.get_type_hints(options_type, vars(module) if module else None)


def _base(hint: Any) -> Any:
    """`X | None` as X (an option is None when not given)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0] if len(args) == 1 else hint
    return hint


def specs(options_type: type) -> list[OptionSpec]:
    """The declared options, in declaration order, as help lists them."""
    hints = _hints(options_type)
    found = []
    for field in dataclasses.fields(options_type):
        hint = _base(hints[field.name])
        choices: tuple[str, ...] = ()
        if typing.get_origin(hint) is typing.Literal:
            choices = tuple(str(c) for c in typing.get_args(hint))
            kind = "|".join(choices)
        else:
            kind = {bool: "yes/no", int: "number", Path: "path"}.get(hint, "text")
        found.append(OptionSpec(field.name, kind, field.default, field.metadata.get("help", ""), choices))
    return found


def _convert(title: str, field: dataclasses.Field[Any], hint: Any, value: Any) -> Any:
    """`value` (a -T string, or a typed value from Python) as the field's type."""
    key = field.name
    named = field.metadata.get("named") or key
    if typing.get_origin(hint) is typing.Literal:
        choices = typing.get_args(hint)
        if value not in choices:
            raise UsageError(f"unknown {title} {named} {value!r} (-T {key}=...); {key} must be one of "
                             f"{', '.join(map(str, choices))}")
        return value
    if hint is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text not in TRUE + FALSE:
            raise UsageError(f"{title} -T {key}={value!r}: expected true or false")
        return text in TRUE
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return int(str(value))
        except ValueError:
            raise UsageError(f"{title} -T {key}={value!r}: expected a whole number") from None
    if hint is Path:
        return Path(value).expanduser() if isinstance(value, str) else value
    return value if isinstance(value, str) else str(value)


def parse(name: str, title: str, options_type: type, given: Mapping[str, Any]) -> Any:
    """An `options_type` from `given` (strings from -T, or typed values); a None value counts
    as not given. An unknown key or a value of the wrong kind is a UsageError."""
    fields = {field.name: field for field in dataclasses.fields(options_type)}
    chosen = {key: value for key, value in given.items() if value is not None}
    unknown = [key for key in chosen if key not in fields]
    if unknown:
        names = ", ".join(f"-T {key}" for key in unknown)
        accepted = ", ".join(f"-T {key}=…" for key in fields) or "none"
        raise UsageError(f"{name} takes no {names}; its options: {accepted} (see `geomeval run --help`)")
    hints = _hints(options_type)
    return options_type(**{
        key: _convert(title, fields[key], _base(hints[key]), value) for key, value in chosen.items()
    })
