"""The shapes `verify` compares: every object reduced to complex points (plus radius or value),
the similarity maps between two figures, a grid index of points, each side's indexed items,
and the distance from a mapped reference shape to a candidate shape. Bounds on the work are
here with the code they bound (`verify` re-exports them).
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from geomeval.geogebra.construction import Construction
from geomeval.geogebra.objects import (
    Geo,
    GeoAngle,
    GeoCircle,
    GeoConicPart,
    GeoLine,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoRay,
    GeoSegment,
    GeoVector,
)

# Objects considered per side, in construction order; the rest are ignored (and not scored).
MAX_OBJECTS = 500


# Coordinates, radii and values larger than this count as undefined, and alignments scaling by
# more than MAX_SCALE (or less than its inverse) are skipped: squares of mapped distances then
# stay far below the float range.
MAX_COORDINATE = 1e50


MAX_SCALE = 1e50


# Grid cell indices are clamped here, so that a tiny cell never turns into an infinite index.
_MAX_CELL_INDEX = 2**60


# Cyclic shifts tried per direction when comparing polygons (see `_polygon_error`).
POLYGON_SHIFTS = 8


_LINELIKE = frozenset({"line", "segment", "ray"})


_CIRCLELIKE = frozenset({"circle", "arc", "sector"})


_NUMERIC = frozenset({"number", "angle"})


@dataclass(frozen=True, slots=True)
class _Shape:
    """family-specific points: point (p), segment (start, end), line/ray (p, p + direction),
    vector (start, end; start 0 when `free`), circle (center), arc/sector (center, start point,
    end point, arc midpoint: counter-clockwise from start to end), polygon (vertices)."""

    family: str
    pts: tuple[complex, ...] = ()
    r: float = 0.0
    value: float = 0.0
    free: bool = False


@dataclass(frozen=True, slots=True)
class _Item:
    label: str
    shape: _Shape
    order: int
    dependent: bool


def _c(v: tuple[float, float]) -> complex:
    return complex(v[0], v[1])


def _shape(geo: Geo) -> _Shape | None:
    """The comparable form of `geo`, or None for kinds the verifier does not score and for
    objects past `MAX_COORDINATE`."""
    if not geo.defined:
        return None
    shape = _raw_shape(geo)
    if shape is None or not _comparable(shape):
        return None
    return shape


def _comparable(shape: _Shape) -> bool:
    values = (shape.r, shape.value, *(t for z in shape.pts for t in (z.real, z.imag)))
    return all(math.isfinite(v) and abs(v) <= MAX_COORDINATE for v in values)


def _raw_shape(geo: Geo) -> _Shape | None:
    if isinstance(geo, GeoPoint):
        return _Shape("point", (complex(geo.x, geo.y),))
    if isinstance(geo, GeoSegment):
        return _Shape("segment", (_c(geo.start), _c(geo.end)))
    if isinstance(geo, GeoLine):
        family = "ray" if isinstance(geo, GeoRay) else "line"
        p = _c(geo.point)
        return _Shape(family, (p, p + _unit(_c(geo.direction))))
    if isinstance(geo, GeoVector):
        v = complex(geo.x, geo.y)
        if geo.start is None or not all(math.isfinite(t) for t in geo.start):
            return _Shape("vector", (0j, v), free=True)
        s = _c(geo.start)
        return _Shape("vector", (s, s + v))
    if isinstance(geo, GeoConicPart):
        c = _c(geo.center)
        r = geo.radius
        a0 = geo.start_angle
        mid = a0 + geo.sweep / 2
        pts = (c, c + cmath.rect(r, a0), c + cmath.rect(r, geo.end_angle), c + cmath.rect(r, mid))
        return _Shape("sector" if geo.sector else "arc", pts, r=r)
    if isinstance(geo, GeoCircle):
        return _Shape("circle", (_c(geo.center),), r=geo.radius)
    if isinstance(geo, GeoPolygon):
        return _Shape("polygon", tuple(_c(v) for v in geo.vertices))
    if isinstance(geo, GeoAngle):
        return _Shape("angle", value=geo.value)
    if isinstance(geo, GeoNumber):
        return _Shape("number", value=geo.value)
    return None


def _key_points(shape: _Shape) -> tuple[complex, ...]:
    """Points that any figure equal to this one must also have (lines have none)."""
    fam = shape.family
    if fam in ("point", "segment", "polygon", "circle"):
        return shape.pts
    if fam == "ray":
        return shape.pts[:1]
    if fam == "vector":
        return () if shape.free else shape.pts
    if fam in ("arc", "sector"):
        return shape.pts[:3]
    return ()


def _extent_points(shape: _Shape) -> Iterator[complex]:
    """Points spanning the object's drawn extent, for the figure's size."""
    yield from _key_points(shape)
    if shape.family in _CIRCLELIKE:
        c = shape.pts[0]
        yield c + complex(shape.r, shape.r)
        yield c - complex(shape.r, shape.r)


@dataclass(frozen=True, slots=True)
class _Similarity:
    a: complex = 1 + 0j
    b: complex = 0j
    reflect: bool = False

    def __call__(self, z: complex) -> complex:
        return self.a * (z.conjugate() if self.reflect else z) + self.b

    def linear(self, z: complex) -> complex:
        return self.a * (z.conjugate() if self.reflect else z)

    @property
    def scale(self) -> float:
        return abs(self.a)

    def is_identity(self, tol: float) -> bool:
        return not self.reflect and abs(self.a - 1) <= 1e-9 and abs(self.b) <= tol

    def describe(self, tol: float) -> str:
        if self.is_identity(tol):
            return "identity"
        parts = []
        if abs(self.scale - 1) > 1e-9:
            parts.append(f"scale {_num(self.scale)}")
        rotation = math.degrees(_phase(self.a))
        if abs(rotation) > 1e-7:
            parts.append(f"rotation {_num(rotation)}°")
        if abs(self.b) > tol:
            parts.append(f"translation ({_num(self.b.real)}, {_num(self.b.imag)})")
        if self.reflect:
            parts.append("reflected")
        return "similarity: " + ", ".join(parts) if parts else "identity"

    def map_shape(self, shape: _Shape) -> _Shape:
        fam = shape.family
        if fam in _NUMERIC:
            return shape
        if fam == "vector" and shape.free:
            return _Shape(fam, (0j, self.linear(shape.pts[1])), free=True)
        pts = tuple(self(z) for z in shape.pts)
        if fam in ("arc", "sector") and self.reflect:
            # A reflection reverses orientation: the counter-clockwise arc now runs end -> start.
            pts = (pts[0], pts[2], pts[1], pts[3])
        return _Shape(fam, pts, r=shape.r * self.scale, value=shape.value, free=shape.free)


def _phase(z: complex) -> float:
    """The argument of `z`; `cmath.phase` raises on an underflowing quotient (5e-321 over 1e48)
    where `math.atan2` returns 0."""
    return math.atan2(z.imag, z.real)


def _num(value: float) -> str:
    text = f"{value:.4g}"
    return "0" if text == "-0" else text


def _fit(pairs: Sequence[tuple[complex, complex]], reflect: bool) -> _Similarity | None:
    """Least-squares similarity taking each pair's first point to its second (2D Umeyama).

    When the reference points coincide, only a translation is determined (and no reflection).
    """
    n = len(pairs)
    if n == 0:
        return None
    zs = [z.conjugate() if reflect else z for z, _ in pairs]
    ws = [w for _, w in pairs]
    zbar = sum(zs) / n
    wbar = sum(ws) / n
    den = sum(abs(z - zbar) ** 2 for z in zs)
    size = max(1.0, max(abs(z) for z in zs))
    if den <= n * (1e-12 * size) ** 2:
        if reflect:
            return None
        return _Similarity(1 + 0j, wbar - zbar, False)
    a = sum((z - zbar).conjugate() * (w - wbar) for z, w in zip(zs, ws, strict=True)) / den
    if abs(a) <= 1e-12:
        return None
    return _similarity(a, wbar - a * zbar, reflect)


def _pair_similarity(
    r1: complex, r2: complex, c1: complex, c2: complex, reflect: bool
) -> _Similarity | None:
    if reflect:
        r1, r2 = r1.conjugate(), r2.conjugate()
    dz = r2 - r1
    dw = c2 - c1
    if dz == 0 or dw == 0:
        return None
    a = dw / dz
    return _similarity(a, c1 - a * r1, reflect)


def _similarity(a: complex, b: complex, reflect: bool) -> _Similarity | None:
    """The similarity, or None when its scale is beyond `MAX_SCALE` either way (or not finite)."""
    scale = abs(a)
    if not (1 / MAX_SCALE <= scale <= MAX_SCALE) or not (math.isfinite(b.real) and math.isfinite(b.imag)):
        return None
    return _Similarity(a, b, reflect)


def _cell_index(v: float, cell: float) -> int:
    """`floor(v / cell)`, clamped to ±`_MAX_CELL_INDEX` (also for an infinite quotient)."""
    q = v / cell
    if math.isnan(q):
        return 0
    if not math.isfinite(q):
        return int(math.copysign(_MAX_CELL_INDEX, q))
    return max(-_MAX_CELL_INDEX, min(_MAX_CELL_INDEX, math.floor(q)))


class _Grid:
    def __init__(self, entries: Sequence[tuple[complex, int]], cell: float) -> None:
        self.cell = cell if cell > 0 and math.isfinite(cell) else 1.0
        self.buckets: dict[tuple[int, int], list[tuple[complex, int]]] = {}
        for z, idx in entries:
            key = (_cell_index(z.real, self.cell), _cell_index(z.imag, self.cell))
            self.buckets.setdefault(key, []).append((z, idx))

    def _span(self, z: complex, radius: float) -> tuple[int, int, int, int]:
        """The cell index ranges (x0, x1, y0, y1) the disc of `radius` around `z` touches."""
        h = self.cell
        return (_cell_index(z.real - radius, h), _cell_index(z.real + radius, h),
                _cell_index(z.imag - radius, h), _cell_index(z.imag + radius, h))

    def near(self, z: complex, radius: float) -> Iterator[tuple[complex, int]]:
        """Entries within `radius` of `z` (candidates; callers re-check exact errors)."""
        if not (math.isfinite(z.real) and math.isfinite(z.imag)) or math.isnan(radius):
            return
        if not math.isfinite(radius):
            for bucket in self.buckets.values():
                yield from bucket
            return
        x0, x1, y0, y1 = self._span(z, radius)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > len(self.buckets):
            for bucket in self.buckets.values():
                for entry in bucket:
                    if abs(entry[0] - z) <= radius:
                        yield entry
            return
        for ix in range(x0, x1 + 1):
            for iy in range(y0, y1 + 1):
                for entry in self.buckets.get((ix, iy), ()):
                    if abs(entry[0] - z) <= radius:
                        yield entry

    def has_near(self, z: complex, radius: float) -> bool:
        if not (math.isfinite(z.real) and math.isfinite(z.imag) and math.isfinite(radius)):
            return next(self.near(z, radius), None) is not None
        x0, x1, y0, y1 = self._span(z, radius)
        if x0 == x1 and y0 == y1:
            bucket = self.buckets.get((x0, y0))
            return bucket is not None and any(abs(e[0] - z) <= radius for e in bucket)
        return next(self.near(z, radius), None) is not None


def _bbox(points: Sequence[complex]) -> tuple[complex, float]:
    """Centre and diagonal of the bounding box (origin and 0 when there are no points)."""
    if not points:
        return 0j, 0.0
    xs = [z.real for z in points]
    ys = [z.imag for z in points]
    lo = complex(min(xs), min(ys))
    hi = complex(max(xs), max(ys))
    return (lo + hi) / 2, abs(hi - lo)


def _cell_for(points: Sequence[complex]) -> float:
    _, diag = _bbox(points)
    return diag / math.sqrt(len(points) + 1) if diag > 0 else 1.0


def _items(
    construction: Construction, targets: set[str] | None, *, numbers: bool
) -> list[_Item]:
    """Objects in construction order: defined, and visible (hidden objects are auxiliary in
    GeoGebra figures) unless named in `targets`. Numbers and angles have no visibility worth
    trusting, so `numbers` decides whether unnamed ones are taken at all. Named targets are
    kept even past the `MAX_OBJECTS` cap."""
    out: list[_Item] = []
    for order, (label, geo) in enumerate(construction.objects.items()):
        named = targets is not None and label in targets
        if len(out) >= MAX_OBJECTS and not named:
            continue
        shape = _shape(geo)
        if shape is None:
            continue
        numeric = shape.family in _NUMERIC
        if not named and (not numbers if numeric else not geo.style.visible):
            continue
        out.append(_Item(label, shape, order, not geo.independent))
    return out


@dataclass
class _Side:
    """The candidate, indexed for matching."""

    items: list[_Item]
    by_label: dict[str, int]
    by_family: dict[str, list[int]]
    grids: dict[str, _Grid]
    keys: list[complex]
    key_labels: list[frozenset[str]]
    key_grid: _Grid
    # Lines, rays and segments by their carrier (see `_carrier_key`); vectors by components.
    origin: complex = 0j
    span: float = 1.0
    carrier_grids: dict[str, _Grid] = field(default_factory=dict)
    vector_grid: _Grid | None = None


def _anchor(shape: _Shape) -> complex | None:
    """A point that moves no more than the shape's match error (for grid lookups)."""
    fam = shape.family
    if fam == "point" or fam == "ray" or fam in _CIRCLELIKE:
        return shape.pts[0]
    if fam == "segment":
        return (shape.pts[0] + shape.pts[1]) / 2
    if fam == "polygon" and shape.pts:
        return sum(shape.pts) / len(shape.pts)
    return None


def _dedupe_keys(
    raw: Sequence[tuple[complex, str | None]], tol: float
) -> tuple[list[complex], list[frozenset[str]]]:
    q = max(2 * tol, 1e-300)
    seen: dict[tuple[int, int], int] = {}
    keys: list[complex] = []
    labels: list[set[str]] = []
    for z, label in raw:
        k = (_cell_index(z.real + q / 2, q), _cell_index(z.imag + q / 2, q))
        idx = seen.get(k)
        if idx is None:
            if len(keys) >= MAX_OBJECTS:
                continue
            seen[k] = idx = len(keys)
            keys.append(z)
            labels.append(set())
        if label is not None:
            labels[idx].add(label)
    return keys, [frozenset(s) for s in labels]


def _raw_keys(items: Sequence[_Item], circle_east: bool) -> list[tuple[complex, str | None]]:
    raw: list[tuple[complex, str | None]] = []
    for item in items:
        if item.shape.family == "point":
            raw.append((item.shape.pts[0], item.label))
        else:
            raw.extend((z, None) for z in _key_points(item.shape))
            # With under two points a figure fixes no rotation or scale; these stand-ins do
            # (a circle's radius, a ray's direction), at the cost of assuming no rotation.
            if circle_east and item.shape.family in _CIRCLELIKE:
                raw.append((item.shape.pts[0] + item.shape.r, None))
            elif circle_east and item.shape.family == "ray":
                raw.append((item.shape.pts[1], None))
    # Labelled points first, so a deduplicated key keeps the label of the point drawn there.
    raw.sort(key=lambda entry: entry[1] is None)
    return raw


def _index_candidate(items: list[_Item], circle_east: bool, tol_self: float) -> _Side:
    by_label = {item.label: i for i, item in enumerate(items)}
    by_family: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        by_family.setdefault(item.shape.family, []).append(i)
    keys, key_labels = _dedupe_keys(_raw_keys(items, circle_east), tol_self)
    cell = _cell_for(keys)
    grids: dict[str, _Grid] = {}
    for fam, idxs in by_family.items():
        anchored = [(a, i) for i in idxs if (a := _anchor(items[i].shape)) is not None]
        if len(anchored) == len(idxs):
            grids[fam] = _Grid(anchored, cell)
    key_grid = _Grid([(z, i) for i, z in enumerate(keys)], cell)
    origin, span = _bbox(keys)
    span = max(span, 1.0)
    carrier_grids: dict[str, _Grid] = {}
    for fam in _LINELIKE & by_family.keys():
        entries = []
        for i in by_family[fam]:
            key = _carrier_key(items[i].shape, origin, span)
            # Directions wrap at 180°: file each carrier under its neighbours' angles too.
            mirrored = complex(0, -key.imag)
            entries += [(key, i), (mirrored + key.real - math.pi * span, i),
                        (mirrored + key.real + math.pi * span, i)]
        carrier_grids[fam] = _Grid(entries, cell)
    vector_grid = _Grid(
        [(items[i].shape.pts[1] - items[i].shape.pts[0], i) for i in by_family.get("vector", [])],
        cell,
    )
    return _Side(
        items, by_label, by_family, grids, keys, key_labels, key_grid,
        origin, span, carrier_grids, vector_grid,
    )


def _carrier_key(shape: _Shape, origin: complex, span: float) -> complex:
    """A carrier as a point: (direction angle in [0, π) times `span`, signed offset from
    `origin`), so that lines through one point (a pencil) still spread over the grid."""
    p, q = shape.pts[:2]
    theta = _phase(q - p) % math.pi if q != p else 0.0
    u = cmath.rect(1.0, theta)
    return complex(theta * span, ((p - origin) * u.conjugate()).imag)


def _foot(z: complex, shape: _Shape) -> complex:
    """Foot of the perpendicular from `z` on the carrier of a line, ray or segment."""
    p, q = shape.pts[:2]
    u = _unit(q - p)
    return p + ((z - p) * u.conjugate()).real * u


def _unit(z: complex) -> complex:
    """z scaled to length 1 (0 for 0); pre-scaled so huge or tiny directions survive."""
    big = max(abs(z.real), abs(z.imag))
    if big == 0 or not math.isfinite(big):
        return 0j
    z = z / big
    return z / abs(z)


def _line_distance(p: complex, origin: complex, direction: complex) -> float:
    u = _unit(direction)
    if u == 0:
        return abs(p - origin)
    d = p - origin
    return abs(d.real * u.imag - d.imag * u.real)


def _segment_distance(p: complex, s: complex, e: complex) -> float:
    d = e - s
    n2 = abs(d) ** 2
    if n2 == 0:
        return abs(p - s)
    t = ((p - s) * d.conjugate()).real / n2
    return abs(p - (s + min(1.0, max(0.0, t)) * d))


def _ray_distance(p: complex, s: complex, direction: complex) -> float:
    u = _unit(direction)
    t = ((p - s) * u.conjugate()).real
    return abs(p - (s + max(0.0, t) * u))


def _arc_sweep(shape: _Shape, tol: float) -> tuple[float, float]:
    """Start angle and counter-clockwise sweep of an arc shape."""
    c, s, e, m = shape.pts
    a0 = _phase(s - c)
    sweep = (_phase(e - c) - a0) % (2 * math.pi)
    if abs(e - s) <= tol:
        sweep = 0.0 if abs(m - s) <= tol else 2 * math.pi
    return a0, sweep


def _arc_distance(p: complex, shape: _Shape, tol: float) -> float:
    c, s, e, _ = shape.pts
    a0, sweep = _arc_sweep(shape, tol)
    if abs(p - c) == 0:
        return shape.r
    if (_phase(p - c) - a0) % (2 * math.pi) <= sweep:
        return abs(abs(p - c) - shape.r)
    return min(abs(p - s), abs(p - e))


def _polygon_error(m: Sequence[complex], c: Sequence[complex]) -> float:
    """Largest vertex distance under the best cyclic shift and direction.

    Only shifts that put m[0] on one of the few candidate vertices nearest to it are tried
    (`POLYGON_SHIFTS` per direction), so long polygons cost O(n log n), not O(n²); the result
    is exact whenever those include the best shift, which a match within tolerance does."""
    n = len(m)
    if n != len(c) or n == 0:
        return math.inf
    best = math.inf
    for seq in (list(c), list(reversed(c))):
        shifts = sorted(range(n), key=lambda k: abs(m[0] - seq[k]))[:POLYGON_SHIFTS]
        for k in shifts:
            if abs(m[0] - seq[k]) >= best:
                break
            err = 0.0
            for i in range(n):
                err = max(err, abs(m[i] - seq[(i + k) % n]))
                if err >= best:
                    break
            best = min(best, err)
    return best


@dataclass(frozen=True, slots=True)
class _Frame:
    """Where a hypothesis puts the reference: tolerance and witness size in candidate units."""

    transform: _Similarity
    tol: float
    size: float
    centre: complex


_NO_FRAME = _Frame(_Similarity(), 0.0, 0.0, 0j)


def _error(m: _Shape, c: _Shape, frame: _Frame, tolerance: float) -> float:
    """How far candidate `c` is from the mapped reference `m`, in candidate units.

    Infinite objects are compared at witness points spread over the figure's size, so an
    angular error counts as much as the displacement it causes across the figure.
    """
    fam = m.family
    if fam == "point":
        return abs(m.pts[0] - c.pts[0])
    if fam == "segment":
        s, e = m.pts
        s2, e2 = c.pts[:2]
        return min(max(abs(s - s2), abs(e - e2)), max(abs(s - e2), abs(e - s2)))
    if fam == "line":
        p, q = m.pts
        u = _unit(q - p)
        foot = p + ((frame.centre - p) * u.conjugate()).real * u
        half = frame.size / 2
        cp, cq = c.pts[:2]
        return max(
            _line_distance(foot + half * u, cp, cq - cp),
            _line_distance(foot - half * u, cp, cq - cp),
        )
    if fam == "ray":
        s, q = m.pts
        s2, q2 = c.pts
        return max(abs(s - s2), frame.size * abs(_unit(q - s) - _unit(q2 - s2)))
    if fam == "vector":
        if m.free or c.free:
            return abs((m.pts[1] - m.pts[0]) - (c.pts[1] - c.pts[0]))
        return max(abs(m.pts[0] - c.pts[0]), abs(m.pts[1] - c.pts[1]))
    if fam == "circle":
        return max(abs(m.pts[0] - c.pts[0]), abs(m.r - c.r))
    if fam in ("arc", "sector"):
        return max(abs(m.r - c.r), *(abs(x - y) for x, y in zip(m.pts, c.pts, strict=True)))
    if fam == "polygon":
        return _polygon_error(m.pts, c.pts)
    if fam in _NUMERIC:
        return _number_error(m, c, frame.transform, tolerance)
    return math.inf


def _expected_values(shape: _Shape, transform: _Similarity) -> list[float]:
    """Values a corresponding candidate number may take: angles are invariant (mirrored when
    reflected); a plain number may be a ratio, a length or an area, scaling by s⁰, s¹ or s²."""
    v = shape.value
    if shape.family == "angle":
        return [v, 2 * math.pi - v] if transform.reflect else [v]
    s = transform.scale
    return [v, v * s, v * s * s]


def _number_error(m: _Shape, c: _Shape, transform: _Similarity, tolerance: float) -> float:
    """Relative error, scaled so that `tolerance` is the pass threshold like distances."""
    best = math.inf
    for expected in _expected_values(m, transform):
        best = min(best, abs(c.value - expected) / max(1.0, abs(expected)))
    return best
