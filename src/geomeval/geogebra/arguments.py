"""What every GeoGebra command reads and returns: the value types, the errors a command raises,
the context it runs in, and the checks and conversions of its arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from geomeval.geogebra.objects import (
    Geo,
    GeoBoolean,
    GeoCircle,
    GeoConicPart,
    GeoLine,
    GeoList,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoText,
    GeoVector,
    Vec,
)

Value = Any  # float | str | bool | Geo | list[Value]


class AngleValue(float):
    """A number that is an angle (from ° or an angle object): GeoGebra keeps arithmetic on
    angles an angle, stored in [0, 2π) and shown in degrees."""


class ScriptError(Exception):
    """One line's failure, worded like GeoGebra's own messages."""


class LimitReached(ScriptError):
    """A run-time bound was hit; the rest of the script is not run."""


class CommandError(Exception):
    """A command called with arguments it does not accept (reported on the script line)."""


@dataclass
class Outputs:
    """Several objects from one command.

    `naming` says how one given label names them: "indexed" (X = Intersect(c, d) gives
    X_1, X_2), or "main" (the label names the first object, the others get `names`, else
    automatic labels: Polygon's sides, Segment(A, 3)'s end point).
    """

    geos: list[Geo]
    naming: str = "indexed"
    names: list[str | None] = field(default_factory=list)


class Context(Protocol):
    def label_of(self, geo: Geo) -> str | None: ...

    def lookup_point(self, label: str) -> GeoPoint | None: ...

    def check_limits(self, created: int = 0) -> None: ...

    @property
    def max_sequence(self) -> int: ...


def _kind(value: Value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "list"
    if isinstance(value, Geo) and not isinstance(value, GeoCircle) and value.kind == "conic":
        return "conic"
    if isinstance(value, Geo):
        return {
            "point": "point",
            "line": "line",
            "segment": "segment",
            "ray": "ray",
            "vector": "vector",
            "conic": "circle",
            "conicpart": "arc",
            "polygon": "polygon",
            "numeric": "number",
            "angle": "angle",
            "text": "text",
            "boolean": "boolean",
            "list": "list",
        }.get(value.kind, value.kind)
    return type(value).__name__


def is_number(v: Value) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) or isinstance(v, GeoNumber)


def is_point(v: Value) -> bool:
    return isinstance(v, GeoPoint)


def is_line(v: Value) -> bool:
    return isinstance(v, GeoLine)


def is_circle(v: Value) -> bool:
    return isinstance(v, GeoCircle) and not isinstance(v, GeoConicPart)


def num(v: Value) -> float:
    if isinstance(v, GeoNumber):
        return v.value
    return float(v)


def boolean(v: Value) -> bool:
    if isinstance(v, GeoBoolean):
        return v.value
    return bool(v)


def _geo_list(v: Value) -> list[Value]:
    if isinstance(v, GeoList):
        return list(v.elements)
    return list(v)


def illegal(name: str, args: Sequence[Value]) -> CommandError:
    kinds = ", ".join(_kind(a) for a in args)
    return CommandError(f"{name}: illegal argument types ({kinds})")


def match(args: Sequence[Value], *tests: Callable[[Value], bool]) -> bool:
    if len(args) != len(tests):
        return False
    for i, test in enumerate(tests):  # noqa: SIM110 - a plain loop is faster; runs per signature
        if not test(args[i]):
            return False
    return True


def _any(_: Value) -> bool:
    return True


def _is_text(v: Value) -> bool:
    return isinstance(v, (str, GeoText))


def _is_vector(v: Value) -> bool:
    return isinstance(v, GeoVector)


def _is_polygon(v: Value) -> bool:
    return isinstance(v, GeoPolygon)


def _is_conic(v: Value) -> bool:
    return isinstance(v, GeoCircle)


def _is_list(v: Value) -> bool:
    return isinstance(v, (list, GeoList))


def _direction(v: Value) -> Vec:
    if isinstance(v, GeoLine):
        return v.direction
    if isinstance(v, GeoVector):
        return (v.x, v.y)
    raise CommandError("expected a line or a vector")
