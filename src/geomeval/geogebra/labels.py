"""GeoGebra's automatic labels: the next free name in a sequence chosen by the object's kind.

All labels share one namespace, so each sequence skips names already taken by any object.
The sequences follow GeoGebra 4.0.34 as the reference harness observes it; where current
GeoGebra names things differently (polygons), `README.md` in this folder says so.
"""

from __future__ import annotations

from collections.abc import Container, Iterator

from geomeval.geogebra.objects import (
    Geo,
    GeoAngle,
    GeoBoolean,
    GeoCircle,
    GeoConic,
    GeoFunction,
    GeoImplicitPoly,
    GeoLine,
    GeoList,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoText,
    GeoVector,
)

# The pools GeoGebra 4.0.34 draws from (observed through the reference harness).
_UPPER = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWZ"]  # X and Y are skipped
_LOWER = list("abcdefghijklmnpqrst")  # lines, segments, rays, numbers, booleans; no o
_CONICS = list("cdefghkpqrst")
_FUNCTIONS = list("fghpqrst")
_VECTORS = [*"uvwz", *_LOWER]
_GREEK = list("αβγδεζηθικλμνξορστυϕχψω")  # π is skipped
MAX_INDEX = 100_000


def _indexed(base: list[str]) -> Iterator[str]:
    yield from base
    for index in range(1, MAX_INDEX):
        for name in base:
            yield f"{name}_{index}" if index < 10 else f"{name}_{{{index}}}"


def _numbered(prefix: str) -> Iterator[str]:
    for index in range(1, MAX_INDEX):
        yield f"{prefix}{index}"


def _sequence(geo: Geo) -> Iterator[str]:
    if isinstance(geo, GeoPoint):
        return _indexed(_UPPER)
    if isinstance(geo, GeoVector):
        return _indexed(_VECTORS)
    if isinstance(geo, (GeoCircle, GeoConic)):
        return _indexed(_CONICS)
    if isinstance(geo, GeoFunction):
        return _indexed(_FUNCTIONS)
    if isinstance(geo, GeoAngle):
        return _indexed(_GREEK)
    if isinstance(geo, GeoPolygon):
        return _numbered("poly")
    if isinstance(geo, GeoText):
        return _numbered("text")
    if isinstance(geo, GeoList):
        return _numbered("list")
    if isinstance(geo, (GeoLine, GeoNumber, GeoBoolean, GeoImplicitPoly)):
        return _indexed(_LOWER)
    return _numbered("obj")


def next_label(geo: Geo, taken: Container[str]) -> str:
    """The first name in `geo`'s sequence that no object has yet."""
    for name in _sequence(geo):
        if name not in taken:
            return name
    raise RuntimeError("ran out of automatic labels")


def indexed_label(base: str, index: int) -> str:
    """`X` → `X_1`: how one label names several outputs (X = Intersect(c, d))."""
    return f"{base}_{index}" if index < 10 else f"{base}_{{{index}}}"


def free_label(base: str, taken: Container[str]) -> str:
    """GeoGebra's getFreeLabel: `base` if free, else `base_1`, `base_2`, …"""
    if base not in taken:
        return base
    for index in range(1, MAX_INDEX):
        candidate = indexed_label(base, index)
        if candidate not in taken:
            return candidate
    raise RuntimeError(f"ran out of labels like {base}")


