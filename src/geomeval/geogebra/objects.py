"""The objects a GeoGebra construction holds.

Kept as plain mutable classes so that redefining a free object can recompute its dependents
in place: a dependent keeps its identity, label and style, and only its values change, the
way GeoGebra updates a construction. Undefined objects (an intersection that does not exist)
are ordinary objects with ``defined = False`` and NaN values, never errors.

`dump()` gives every object's values in the shape the reference harness prints for GeoGebra
4.0.34 (see `geomeval.geogebra.reference`), so the two can be compared number by number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from geomeval.geogebra.conicmatrix import center, classify, half_axes

Vec = tuple[float, float]
NAN = float("nan")
NAN_VEC: Vec = (NAN, NAN)

# GeoGebra's line-style codes (SetLineStyle takes 0..4 and maps them to these).
LINE_STYLES = {0: "full", 1: "dashed_long", 2: "dashed_short", 3: "dotted", 4: "dash_dot"}


isfinite = math.isfinite


def finite(*values: float) -> bool:
    for v in values:  # noqa: SIM110 - faster than all() over a generator
        if not isfinite(v):
            return False
    return True


@dataclass
class Style:
    """What the styling commands set; the renderer reads it, geometry never does."""

    color: tuple[int, int, int] | None = None
    line_style: int = 0
    line_thickness: int | None = None
    point_size: int | None = None
    point_style: int = 0
    filling: float | None = None
    caption: str | None = None
    show_label: bool | None = None
    label_mode: int = 0
    fixed: bool = False
    visible: bool = True


class Geo:
    """Base of every construction object."""

    kind: ClassVar[str] = "other"
    label: str | None
    independent: bool

    def __init__(self) -> None:
        self.label = None
        self._style: Style | None = None
        self.independent = False
        # Labels of the points this object was defined through (Circle(M, A): A). GeoGebra
        # lists such a point first among the object's intersections with another one.
        self.through: tuple[str, ...] = ()

    @property
    def style(self) -> Style:
        """Made on first use: most objects (intermediate points, numbers) are never styled."""
        if self._style is None:
            self._style = Style()
        return self._style

    @style.setter
    def style(self, value: Style) -> None:
        self._style = value

    @property
    def defined(self) -> bool:
        raise NotImplementedError

    def values(self) -> dict[str, Any]:
        """The numbers that identify this object (empty when undefined)."""
        raise NotImplementedError

    def assign(self, other: Geo) -> None:
        """Take `other`'s values (same class), keeping this object's label and style."""
        for key, value in vars(other).items():
            if key not in ("label", "_style", "independent"):
                setattr(self, key, value)

    def dump(self) -> dict[str, Any]:
        out: dict[str, Any] = {"label": self.label, "type": self.kind, "defined": self.defined}
        if self.defined:
            out.update(self.values())
        return out

    def describe(self) -> str:
        """A short human-readable value, for CLI output and error messages."""
        if not self.defined:
            return "undefined"
        parts = []
        for key, value in self.values().items():
            parts.append(f"{key}={_fmt(value)}")
        return ", ".join(parts)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label!r}: {self.describe()})"


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(_fmt(v) for v in value) + ")"
    return str(value)


class GeoPoint(Geo):
    kind = "point"

    def __init__(self, x: float = NAN, y: float = NAN, *, polar: bool = False) -> None:
        super().__init__()
        self.x = float(x)
        self.y = float(y)
        self.polar = polar  # written as (r; θ), so its value reads that way too

    @property
    def xy(self) -> Vec:
        return (self.x, self.y)

    @property
    def defined(self) -> bool:
        return isfinite(self.x) and isfinite(self.y)

    def values(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y}


class GeoLine(Geo):
    """The line a·x + b·y + c = 0, with a point on it and its direction kept for drawing."""

    kind = "line"

    def __init__(self, point: Vec = NAN_VEC, direction: Vec = NAN_VEC) -> None:
        super().__init__()
        self.point = point
        self.direction = direction

    @property
    def a(self) -> float:
        return -self.direction[1]

    @property
    def b(self) -> float:
        return self.direction[0]

    @property
    def c(self) -> float:
        return -(self.a * self.point[0] + self.b * self.point[1])

    @property
    def defined(self) -> bool:
        dx, dy = self.direction
        return finite(*self.point, dx, dy) and (dx != 0 or dy != 0)

    def values(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "c": self.c}


class GeoSegment(GeoLine):
    kind = "segment"

    def __init__(self, start: Vec = NAN_VEC, end: Vec = NAN_VEC) -> None:
        super().__init__(start, (end[0] - start[0], end[1] - start[1]))
        self.start = start
        self.end = end
        # Labels of the end points, so a transformed copy can create A', B' as GeoGebra does.
        self.endpoint_labels: tuple[str | None, str | None] = (None, None)

    @property
    def length(self) -> float:
        return math.hypot(self.end[0] - self.start[0], self.end[1] - self.start[1])

    @property
    def defined(self) -> bool:
        return finite(*self.start, *self.end)

    def values(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "c": self.c,
            "start": list(self.start),
            "end": list(self.end),
            "length": self.length,
        }


class GeoRay(GeoLine):
    kind = "ray"

    @property
    def start(self) -> Vec:
        return self.point

    def values(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "c": self.c,
            "start": list(self.point),
            "direction": list(self.direction),
        }


class GeoVector(Geo):
    kind = "vector"

    def __init__(self, x: float = NAN, y: float = NAN, start: Vec | None = None) -> None:
        super().__init__()
        self.x = float(x)
        self.y = float(y)
        self.start = start

    @property
    def defined(self) -> bool:
        return finite(self.x, self.y)

    def values(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "start": list(self.start) if self.start else None}


class GeoCircle(Geo):
    kind = "conic"

    def __init__(self, center: Vec = NAN_VEC, radius: float = NAN) -> None:
        super().__init__()
        self.center = center
        self.radius = float(radius)

    @property
    def defined(self) -> bool:
        return finite(*self.center, self.radius) and self.radius >= 0

    def values(self) -> dict[str, Any]:
        return {"conic_type": "circle", "center": list(self.center), "radius": self.radius}

    @property
    def matrix(self) -> tuple[float, ...]:
        """The circle's conic matrix (GeoGebra's A0..A5, scaled to A0 = 1)."""
        cx, cy = self.center
        r = self.radius
        return (1.0, 1.0, cx * cx + cy * cy - r * r, 0.0, -cx, -cy)


class GeoConicPart(GeoCircle):
    """An arc or sector of a circle, counter-clockwise from `start_angle` to `end_angle`."""

    kind = "conicpart"

    def __init__(
        self,
        center: Vec = NAN_VEC,
        radius: float = NAN,
        start_angle: float = NAN,
        end_angle: float = NAN,
        sector: bool = False,
    ) -> None:
        super().__init__(center, radius)
        self.start_angle = float(start_angle)
        self.end_angle = float(end_angle)
        self.sector = sector

    @property
    def sweep(self) -> float:
        sweep = (self.end_angle - self.start_angle) % (2 * math.pi)
        return sweep if sweep > 0 or self.end_angle == self.start_angle else 2 * math.pi

    @property
    def value(self) -> float:
        return (
            self.radius * self.radius * self.sweep / 2 if self.sector else self.radius * self.sweep
        )

    @property
    def defined(self) -> bool:
        return super().defined and finite(self.start_angle, self.end_angle)

    def values(self) -> dict[str, Any]:
        return {
            "center": list(self.center),
            "radius": self.radius,
            "conic_part_type": "sector" if self.sector else "arc",
            "value": self.value,
        }


class GeoPolygon(Geo):
    kind = "polygon"

    def __init__(self, vertices: list[Vec] | None = None) -> None:
        super().__init__()
        self.vertices = list(vertices or [])
        # Labels of the vertex points and side segments, so a transformed copy can name its
        # own vertices and sides A', B', … as GeoGebra does.
        self.vertex_labels: list[str | None] = []
        self.side_labels: list[str | None] = []

    @property
    def area(self) -> float:
        pts = self.vertices
        twice = sum(
            pts[i][0] * pts[(i + 1) % len(pts)][1] - pts[(i + 1) % len(pts)][0] * pts[i][1]
            for i in range(len(pts))
        )
        return abs(twice) / 2

    @property
    def defined(self) -> bool:
        return len(self.vertices) >= 2 and all(finite(*v) for v in self.vertices)

    def values(self) -> dict[str, Any]:
        return {"vertices": [list(v) for v in self.vertices], "area": self.area}


class GeoNumber(Geo):
    kind = "numeric"

    def __init__(self, value: float = NAN) -> None:
        super().__init__()
        self.value = float(value)

    @property
    def defined(self) -> bool:
        return math.isfinite(self.value)

    def values(self) -> dict[str, Any]:
        return {"value": self.value}


class GeoAngle(GeoNumber):
    """An angle in radians; `vertex` and `start` (direction of the first arm) place its arc."""

    kind = "angle"

    def __init__(self, value: float = NAN, vertex: Vec | None = None, start: float = 0.0) -> None:
        super().__init__(value)
        self.vertex = vertex
        self.start = start


class GeoText(Geo):
    kind = "text"

    def __init__(self, text: str = "", position: Vec | None = None) -> None:
        super().__init__()
        self.text = text
        self.position = position

    @property
    def defined(self) -> bool:
        return True

    def values(self) -> dict[str, Any]:
        return {"text": self.text}


class GeoBoolean(Geo):
    kind = "boolean"

    def __init__(self, value: bool = False) -> None:
        super().__init__()
        self.value = bool(value)

    @property
    def defined(self) -> bool:
        return True

    def values(self) -> dict[str, Any]:
        return {"value": self.value}


class GeoList(Geo):
    kind = "list"

    def __init__(self, elements: list[Geo] | None = None) -> None:
        super().__init__()
        self.elements = list(elements or [])

    @property
    def defined(self) -> bool:
        return True

    def values(self) -> dict[str, Any]:
        return {"elements": [e.dump() for e in self.elements]}


# The abscissas a function is compared at (the reference harness samples the same ones).
FUNCTION_SAMPLES = (-2.7, -1.3, -0.45, 0.35, 1.15, 2.6)


class GeoConic(Geo):
    """A conic that is not a circle: A0 x² + A1 y² + A2 + 2 A3 xy + 2 A4 x + 2 A5 y = 0.

    `matrix` is (A0, A1, A2, A3, A4, A5) as GeoGebra stores it; `conic_type` is its class
    (ellipse, hyperbola, parabola or a degenerate one), as GeoGebra 4.0 classifies it. Circles,
    also from equations, stay GeoCircle so every circle command applies to them.
    """

    kind = "conic"

    def __init__(self, matrix: tuple[float, ...] = (NAN,) * 6) -> None:
        super().__init__()
        self.matrix = tuple(float(v) for v in matrix)
        # Set by the command that made it (foci-based conics), else from the matrix.
        self.first_axis: Vec | None = None

    @property
    def defined(self) -> bool:
        return finite(*self.matrix) and any(self.matrix)

    @property
    def conic_type(self) -> str:
        return classify(self.matrix)

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {"conic_type": self.conic_type, "matrix": list(self.matrix)}
        if out["conic_type"] in ("ellipse", "hyperbola"):
            out["center"] = list(center(self.matrix))
            out["half_axes"] = list(half_axes(self))
        return out


class GeoFunction(Geo):
    """A function of x (`f(x) = x^2`, `y = sin(x)`, `2x + 1`): its expression tree."""

    kind = "function"

    def __init__(self, body: Any = None, var: str = "x") -> None:
        super().__init__()
        self.body = body  # algebra.Sym in x, or None when undefined
        self.var = var
        self.domain: tuple[float, float] | None = None  # Function(f, a, b): drawn on [a, b]

    @property
    def defined(self) -> bool:
        return self.body is not None

    def __call__(self, x: float) -> float:
        return self.body(x) if self.body is not None else NAN

    def values(self) -> dict[str, Any]:
        samples = []
        for x in FUNCTION_SAMPLES:
            v = self(x)
            samples.append(v if isfinite(v) else None)
        return {"samples": samples}


class GeoFunctionNVar(GeoFunction):
    """A function of x and y (`f(x, y) = x^2 + y^2`), sampled on the mirrored grid
    (FUNCTION_SAMPLES[i], FUNCTION_SAMPLES[-1 - i]) for comparison."""

    kind = "function2"

    def __call__(self, x: float, y: float = 0.0) -> float:  # type: ignore[override]
        return self.body(x, y) if self.body is not None else NAN

    def values(self) -> dict[str, Any]:
        samples = []
        for x, y in zip(FUNCTION_SAMPLES, reversed(FUNCTION_SAMPLES), strict=True):
            v = self(x, y)
            samples.append(v if isfinite(v) else None)
        return {"samples": samples}


class GeoCurve(Geo):
    """A parametric curve t -> (x, y): what a function becomes when rotated, reflected or
    dilated (GeoGebra 4.0 makes such a curve; only a translation keeps it a function)."""

    kind = "curve"

    def __init__(self, point: Any = None, body: Any = None) -> None:
        super().__init__()
        self.point = point  # callable t -> (x, y), or None when undefined
        self.body = body  # the function's algebra.Sym, to bound how often `point` is sampled

    @property
    def defined(self) -> bool:
        return self.point is not None

    def values(self) -> dict[str, Any]:
        return {"samples": [list(self.point(t)) for t in FUNCTION_SAMPLES]}


class GeoImplicitPoly(Geo):
    """An implicit curve p(x, y) = 0 of degree 3 or more (or a constant equation)."""

    kind = "implicitpoly"

    def __init__(self, terms: dict[tuple[int, int], float] | None = None) -> None:
        super().__init__()
        self.terms = dict(terms or {})

    @property
    def defined(self) -> bool:
        return all(isfinite(v) for v in self.terms.values())

    def __call__(self, x: float, y: float) -> float:
        return sum(c * x**i * y**j for (i, j), c in self.terms.items())

    def values(self) -> dict[str, Any]:
        return {"terms": [[float(i), float(j), c] for (i, j), c in sorted(self.terms.items()) if c]}


@dataclass
class View:
    """The graphics view: a ZoomIn window (else fitted to the objects), axes and grid."""

    window: tuple[float, float, float, float] | None = None
    axes: bool = False
    grid: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
