"""Scoring a candidate GeoGebra construction against a reference one by what it builds.

GGBench calls GeoGebra code "machine-verifiable ground truth" but scores it without running it;
this module runs the comparison that claim implies. Both scripts are executed elsewhere (see
`geomeval.geogebra.executor`); here only the resulting `Construction`s meet.

What counts. Reference objects that are defined, visible and geometric (points; lines,
segments, rays, vectors; circles, arcs, sectors; polygons). Hidden objects are auxiliary in
GeoGebra figures, and numbers carry no geometry, so neither counts unless named in `targets`;
`targets` restricts the *scored* objects to those labels, while the whole visible reference
still drives the alignment and supplies relations (those touching at least one target).
Candidate objects must be defined and visible (a hidden answer is no answer); candidate numbers
count whether shown or not. Lists, texts and booleans are ignored. Extra candidate objects cost
nothing: auxiliary construction is normal.

Alignment. A model may put its figure anywhere and at any size unless the problem fixes
coordinates (`fixed_coordinates=True`: compare in place), so the reference is mapped onto the
candidate by the similarity (translation, rotation, uniform scale, optional reflection) that
explains the most of it. Labels are the cheapest evidence, so they come first: a closed-form
Procrustes fit over shared point labels (with and without reflection), then each pair of shared
labels, so that one misplaced point cannot drag the fit. When labels are missing or lie,
correspondences are searched by geometry: up to three well-spread reference base pairs onto
every ordered pair of at most `MAX_SEARCH_POINTS` well-spread candidate points, both
orientations, each hypothesis screened on `SEARCH_SAMPLE` reference points. Identity is always a
contender. A hypothesis that puts every reference point on a candidate point is matched object
by object, and the search stops at one that matches everything (with all the label agreement
the labels allow); otherwise the best few by points are matched in full. The winner matches the
most reference objects; ties go to more label agreement, then identity, then direct over
reflected, then the lower residual. With fewer than two reference points (after taking a
circle's radius or a ray's direction as a stand-in) only translations are tried.

Object checks (weight 1 each). Same label and the same geometry after alignment passes "by
label"; otherwise any unused candidate of a compatible kind within tolerance passes "by
geometry"; otherwise the check fails, keeping a same-labelled candidate of a compatible kind
as the object's stand-in for relation checks, or naming the nearest candidate as a hint.
Compatible kinds: point-point; segment-segment (either endpoint order); line-line, or a ray or
segment on the same carrier (passes, reported as such, since drawing a line as a segment is a
rendering choice); ray-ray; vector-vector (free vectors by components); circle-circle (radius
scales); arc-arc and sector-sector by centre, radius, endpoints and midpoint (a reflection swaps
the endpoints, since it reverses orientation); polygon-polygon by vertex cycle up to rotation
and reversal; number/angle-number/angle by value: angles are invariant (2π - v when reflected),
a plain number may be a ratio, a length or an area (v, v·s or v·s², s the scale). A candidate
object serves one reference object, except that reference objects identical to each other (a
polygon side redrawn as a segment) may share one. Matching is greedy in construction order.

Relation checks (weight 1 each). Relations the reference satisfies, each checked on the
candidate objects its reference objects map to (failing with "object X missing" when one has
no stand-in): a point on a line, segment, ray, circle or arc (a segment's or arc's endpoints
and a ray's start are skipped: they hold by definition); parallels (chained through one member
per distinct carrier of each direction class); perpendiculars (one per pair of perpendicular
direction classes); tangency of a line-like object to a circle-like one, and of two circles
(internal or external); equal lengths among segments (chained within each length class,
identical segments skipped); collinear triples and concyclic quadruples among the first
`MAX_CYCLIC_POINTS` distinct points (constructed points first) that no reference line or
circle already carries (chained from the first two or three points). All are invariant under
similarities, so they give partial credit when alignment cannot place an object: a line through
the right point at the wrong angle keeps "M lies on l" and loses "AB ⊥ l". At most
`MAX_RELATIONS` are kept: those touching a constructed (non-free) object first, then
round-robin across the categories in the order above, each category in construction order.

Tolerances and score. Distances pass within ``tolerance * max(1, D)`` in reference units, D
being the bounding-box diagonal of the reference's points and circle extents (scaled into
candidate units by the alignment); infinite objects are compared at witness points spread over
D, so a small turn counts as the displacement it causes across the figure. Directions pass
within ``tolerance`` (|sin| for parallels, |cos| for perpendiculars); numbers within
``tolerance * max(1, |value|)``. The default 1e-6 suits exact constructions, whose errors are
orders of magnitude smaller; scripts that type rounded coordinates need a looser tolerance.
Failed checks report how far off they were, in reference units (degrees for directions). The
score is the weighted fraction of passed checks; with no qualifying reference objects it is 1.0
when the candidate has no scorable objects either, else 0.0. A candidate whose script did not
fully run is scored on what it built (`Verdict.candidate_ran` says so).

Numbers beyond comparison. An object whose coordinates, radius or value are not finite or
exceed `MAX_COORDINATE` in size counts as undefined (GeoGebra draws neither), and alignments
scaling by more than `MAX_SCALE` or less than its inverse are not considered, so that no
distance computed here overflows: such an object in an answer is simply missing.

All work is bounded (`MAX_OBJECTS` per side, the search and relation caps below, a polygon
comparison trying a few cyclic shifts), so a hostile or runaway candidate cannot make scoring
slow: 600 random points take well under a second.
"""

from __future__ import annotations

import cmath
import heapq
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from typing import Any

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
# Relation checks kept after prioritising (see `_select_relations`).
MAX_RELATIONS = 200
# Candidate points tried as images of a reference base pair (ordered pairs: at most 60·59).
MAX_SEARCH_POINTS = 60
# Reference points a search hypothesis is screened on before a full evaluation.
SEARCH_SAMPLE = 8
# Reference base pairs tried in the geometric search.
SEARCH_BASE_PAIRS = 3
# Hypotheses that survive screening; the best few of all hypotheses get full object matching.
SEARCH_KEEP = 10
FULL_MATCH_KEEP = 4
# Object matches (summed over hypotheses) spent on hypotheses that fit every key point.
FULL_MATCH_WORK = 20_000
# Shared labels used for pairwise label hypotheses (at most 20·19/2 pairs).
MAX_LABEL_PAIRS_LABELS = 20
# Per-kind enumeration caps for deriving relations from the reference.
MAX_RELATION_POINTS = 150
MAX_RELATION_PATHS = 150
MAX_RELATION_LINES = 150
MAX_RELATION_CIRCLES = 150
MAX_CYCLIC_POINTS = 30
# A failed object's "nearest candidate" hint is only searched in buckets this small.
MAX_NEAREST_SCAN = 300
# Coordinates, radii and values larger than this count as undefined, and alignments scaling by
# more than MAX_SCALE (or less than its inverse) are skipped: squares of mapped distances then
# stay far below the float range.
MAX_COORDINATE = 1e50
MAX_SCALE = 1e50
# Grid cell indices are clamped here, so that a tiny cell never turns into an infinite index.
_MAX_CELL_INDEX = 2**60
# Cyclic shifts tried per direction when comparing polygons (see `_polygon_error`).
POLYGON_SHIFTS = 8

# What a reference object of each family may match, best first. A reference line accepts a
# candidate ray or segment on the same carrier (a drawing choice), reported as such.
_COMPATIBLE: dict[str, tuple[str, ...]] = {
    "point": ("point",),
    "segment": ("segment",),
    "line": ("line", "ray", "segment"),
    "ray": ("ray",),
    "vector": ("vector",),
    "circle": ("circle",),
    "arc": ("arc",),
    "sector": ("sector",),
    "polygon": ("polygon",),
    "number": ("number", "angle"),
    "angle": ("angle", "number"),
}
_GEOMETRIC = frozenset(_COMPATIBLE) - {"number", "angle"}
_LINELIKE = frozenset({"line", "segment", "ray"})
_CIRCLELIKE = frozenset({"circle", "arc", "sector"})
_NUMERIC = frozenset({"number", "angle"})
_RELATION_RANK = {
    "on": 0, "perpendicular": 1, "parallel": 2, "tangent": 3,
    "equal_length": 4, "collinear": 5, "concyclic": 6,
}


@dataclass(frozen=True)
class Check:
    """One scored statement about the candidate, kept readable for reports."""

    kind: str
    name: str
    passed: bool
    detail: str
    weight: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "name": self.name, "passed": self.passed,
            "detail": self.detail, "weight": self.weight,
        }


@dataclass(frozen=True)
class Verdict:
    """The score and the evidence behind it, so a reader can see why a candidate lost points.

    `mapping` holds every reference object that has a candidate stand-in: the geometric match,
    or, failing one, the same-labelled candidate object of a compatible kind (whose object check
    fails but which relation checks still use).
    """

    score: float
    checks: tuple[Check, ...]
    mapping: dict[str, str]
    transform: str
    candidate_ran: bool

    @property
    def passed(self) -> int:
        return sum(1 for check in self.checks if check.passed)

    def report(self) -> str:
        lines = [f"transform: {self.transform}"]
        if not self.candidate_ran:
            lines.append("candidate script did not run fully; scored what it built")
        for check in self.checks:
            mark = "✓" if check.passed else "✗"
            lines.append(f"{mark} {check.name}: {check.detail}")
        lines.append(f"score {self.score:.2f} ({self.passed}/{len(self.checks)} checks)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "passed": self.passed,
            "total": len(self.checks),
            "checks": [check.to_dict() for check in self.checks],
            "mapping": dict(self.mapping),
            "transform": self.transform,
            "candidate_ran": self.candidate_ran,
        }


# --------------------------------------------------------------------------------------------
# Shapes: every object reduced to complex points (plus radius or value), so one similarity map
# and one set of distance functions serve all kinds.


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


# --------------------------------------------------------------------------------------------
# Similarities z -> a·z + b, or a·conj(z) + b when reflected (reflection in the x-axis first).


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


# --------------------------------------------------------------------------------------------
# A uniform grid over candidate anchors, so matching stays near-linear in the object count.


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


# --------------------------------------------------------------------------------------------
# Collecting the two sides.


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


# --------------------------------------------------------------------------------------------
# Distances between a mapped reference shape and a candidate shape (candidate units).


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


# --------------------------------------------------------------------------------------------
# Matching reference objects to candidate objects under one hypothesis.


@dataclass
class _Match:
    cand: int | None = None
    passed: bool = False
    how: str = ""
    err: float = math.inf


@dataclass
class _Matching:
    frame: _Frame
    matches: list[_Match]
    passed: int = 0
    label_agree: int = 0
    residual: float = 0.0


def _within(err: float, m: _Shape, frame: _Frame, tolerance: float) -> bool:
    limit = tolerance if m.family in _NUMERIC else frame.tol
    return err <= limit


def _match_objects(
    ref: list[_Item], cand: _Side, frame: _Frame, tolerance: float, *, nearest: bool = False
) -> _Matching:
    """Greedy matching in construction order: a candidate object serves one reference object,
    except that reference objects identical to each other (a polygon side drawn again as a
    segment) may share one."""
    mapped = [frame.transform.map_shape(item.shape) for item in ref]
    matches = [_Match() for _ in ref]
    used: dict[int, int] = {}

    def shareable(j: int, i: int) -> bool:
        other = mapped[used[j]]
        return other.family == mapped[i].family and _within(
            _error(mapped[i], other, frame, tolerance), other, frame, tolerance
        )

    # Pass 1: a same-labelled candidate in the right place.
    for i, item in enumerate(ref):
        j = cand.by_label.get(item.label)
        if j is None or cand.items[j].shape.family not in _COMPATIBLE[item.shape.family]:
            continue
        err = _error(mapped[i], cand.items[j].shape, frame, tolerance)
        if _within(err, mapped[i], frame, tolerance) and (j not in used or shareable(j, i)):
            matches[i] = _Match(j, True, "label", err)
            used.setdefault(j, i)
    # Pass 2: any candidate of a compatible family in the right place, unused ones first.
    for i, m in enumerate(mapped):
        if matches[i].passed:
            continue
        for fam in _COMPATIBLE[m.family]:
            best: tuple[bool, float, int] | None = None
            for j in _nearby(cand, fam, m, frame):
                err = _error(m, cand.items[j].shape, frame, tolerance)
                if not _within(err, m, frame, tolerance):
                    continue
                key = (j in used, err, j)
                if (best is None or key < best) and (j not in used or shareable(j, i)):
                    best = key
            if best is not None:
                how = "geometry" if fam == m.family or m.family in _NUMERIC else f"carrier:{fam}"
                matches[i] = _Match(best[2], True, how, best[1])
                used.setdefault(best[2], i)
                break
    # Pass 3: failures keep a same-labelled stand-in (for relations) or a nearest-miss hint.
    for i, item in enumerate(ref):
        if matches[i].passed:
            continue
        j = cand.by_label.get(item.label)
        if (
            j is not None
            and j not in used
            and cand.items[j].shape.family in _COMPATIBLE[item.shape.family]
        ):
            err = _error(mapped[i], cand.items[j].shape, frame, tolerance)
            matches[i] = _Match(j, False, "label", err)
            used[j] = i
        elif nearest:
            matches[i] = _nearest_miss(mapped[i], cand, frame, tolerance)
    result = _Matching(frame, matches)
    for i, match in enumerate(matches):
        if match.passed:
            result.passed += 1
            result.residual += match.err if math.isfinite(match.err) else 0.0
            if cand.items[match.cand or 0].label == ref[i].label:
                result.label_agree += 1
    return result


def _nearby(cand: _Side, fam: str, m: _Shape, frame: _Frame) -> Iterator[int]:
    """Candidates of family `fam` that may lie within tolerance of `m` (a superset).

    Each index key moves no more than the match error allows. A line within tol of another at
    witnesses `size` apart turns by at most ~2·tol/size and shifts its offset from the index
    origin by at most tol·(1 + 2·d/size), d being the origin's distance from the witnesses'
    centre; the query radius has 3x slack on both. Vector components move by at most twice
    the endpoint error."""
    idxs = cand.by_family.get(fam, [])
    radius = frame.tol
    grid: _Grid | None
    if m.family == "line":
        grid = cand.carrier_grids.get(fam)
        anchor: complex | None = _carrier_key(m, cand.origin, cand.span)
        far = abs(cand.origin - _foot(frame.centre, m))
        radius = frame.tol * (3 + 6 * (far + cand.span) / frame.size)
    elif m.family == "vector":
        grid = cand.vector_grid
        anchor = m.pts[1] - m.pts[0]
        radius = 2 * frame.tol
    else:
        grid = cand.grids.get(fam)
        anchor = _anchor(m) if fam == m.family else None
    if grid is None or anchor is None:
        yield from idxs
        return
    for _, j in grid.near(anchor, radius):
        yield j


def _nearest_miss(m: _Shape, cand: _Side, frame: _Frame, tolerance: float) -> _Match:
    """The closest compatible candidate, as a hint in the report (never a match)."""
    best = _Match()
    for fam in _COMPATIBLE[m.family]:
        idxs = cand.by_family.get(fam, [])
        if len(idxs) > MAX_NEAREST_SCAN:
            continue
        for j in idxs:
            err = _error(m, cand.items[j].shape, frame, tolerance)
            if err < best.err:
                best = _Match(j, False, "nearest", err)
    return best


# --------------------------------------------------------------------------------------------
# Choosing the alignment.


@dataclass
class _KeyScore:
    transform: _Similarity
    hits: int
    label_agree: int
    residual: float
    pairs: list[tuple[complex, complex]] = field(default_factory=list)


def _simplicity(t: _Similarity, tol: float) -> int:
    return 2 if t.is_identity(tol) else (0 if t.reflect else 1)


class _Aligner:
    """Scores similarity hypotheses by how many reference key points land on candidate ones."""

    def __init__(
        self, ref_keys: list[complex], ref_labels: list[frozenset[str]], cand: _Side,
        diameter: float, tolerance: float,
    ) -> None:
        self.ref_keys = ref_keys
        self.ref_labels = ref_labels
        self.cand = cand
        self.diameter = diameter
        self.tolerance = tolerance

    def tol_for(self, t: _Similarity) -> float:
        return self.tolerance * max(1.0, self.diameter * t.scale)

    def score(self, t: _Similarity) -> _KeyScore:
        tol = self.tol_for(t)
        result = _KeyScore(t, 0, 0, 0.0)
        for z, labels in zip(self.ref_keys, self.ref_labels, strict=True):
            w = t(z)
            best: tuple[float, int] | None = None
            for wz, j in self.cand.key_grid.near(w, tol):
                d = abs(wz - w)
                if best is None or d < best[0]:
                    best = (d, j)
            if best is None:
                continue
            result.hits += 1
            result.residual += best[0]
            result.pairs.append((z, self.cand.keys[best[1]]))
            if labels & self.cand.key_labels[best[1]]:
                result.label_agree += 1
        return result

    def rank(self, s: _KeyScore) -> tuple[int, int, int, float]:
        simple = _simplicity(s.transform, self.tol_for(s.transform))
        return (s.hits, s.label_agree, simple, -s.residual)


def _farthest_point_order(points: Sequence[complex], count: int) -> list[int]:
    """Indices of up to `count` well-spread points, starting with an (approximate) diameter."""
    if not points:
        return []
    centre = sum(points) / len(points)
    first = max(range(len(points)), key=lambda i: abs(points[i] - centre))
    chosen = [first]
    dist = [abs(p - points[first]) for p in points]
    while len(chosen) < min(count, len(points)):
        nxt = max(range(len(points)), key=dist.__getitem__)
        if dist[nxt] <= 0:
            break
        chosen.append(nxt)
        for i, p in enumerate(points):
            d = abs(p - points[nxt])
            if d < dist[i]:
                dist[i] = d
    return chosen


def _label_pairs(ref: list[_Item], cand: _Side) -> list[tuple[complex, complex]]:
    out = []
    for item in ref:
        if item.shape.family != "point":
            continue
        j = cand.by_label.get(item.label)
        if j is not None and cand.items[j].shape.family == "point":
            out.append((item.shape.pts[0], cand.items[j].shape.pts[0]))
    return out


class _Search:
    """Hypotheses tried so far. A hypothesis that puts every reference key point on a candidate
    one gets a full object matching (key points say nothing about lines, free vectors or
    numbers, and a symmetric point set fits several ways); the search stops at one that
    matches every object with as much label agreement as the labels allow, or when the full
    matching budget (`FULL_MATCH_WORK` object matches in all) runs out."""

    def __init__(
        self, aligner: _Aligner, ref: list[_Item], cand: _Side, tolerance: float,
        frame_for: Callable[[_Similarity], _Frame],
    ) -> None:
        self.aligner = aligner
        self.ref = ref
        self.cand = cand
        self.tolerance = tolerance
        self.frame_for = frame_for
        self.scored: list[_KeyScore] = []
        self.full: list[_Matching] = []
        self.budget = FULL_MATCH_WORK
        self.max_agree = 0
        for item in ref:
            j = cand.by_label.get(item.label)
            if j is not None and cand.items[j].shape.family in _COMPATIBLE[item.shape.family]:
                self.max_agree += 1

    def consider(self, t: _Similarity | None) -> bool:
        """Score `t`; True when the search can stop."""
        if t is None or not all(
            math.isfinite(v) for v in (t.a.real, t.a.imag, t.b.real, t.b.imag)
        ):
            return False
        key = self.aligner.score(t)
        self.scored.append(key)
        if key.hits < len(self.aligner.ref_keys):
            return False
        if self.budget <= 0:
            return True
        self.budget -= max(1, len(self.ref))
        matching = _match_objects(self.ref, self.cand, self.frame_for(t), self.tolerance)
        self.full.append(matching)
        return matching.passed == len(self.ref) and matching.label_agree >= self.max_agree

    def run(self, tol_ref: float) -> None:
        """Identity, label fits, then the geometric search, stopping as soon as one is perfect."""
        aligner, cand = self.aligner, self.cand
        if self.consider(_Similarity()):
            return
        shared = _label_pairs(self.ref, cand)
        if len(shared) >= 2:
            if self.consider(_fit(shared, False)) or self.consider(_fit(shared, True)):
                return
        elif len(shared) == 1:
            (z, w), = shared
            if self.consider(_Similarity(1 + 0j, w - z, False)):
                return
        refk, candk = aligner.ref_keys, cand.keys
        if len(refk) < 2 or len(candk) < 2:
            # Too few points to fix a rotation and scale: try translations only.
            if len(refk) == 1:
                for w in candk[:MAX_SEARCH_POINTS]:
                    if self.consider(_Similarity(1 + 0j, w - refk[0], False)):
                        return
            return
        screened: list[tuple[int, int, _Similarity]] = []
        counter = 0

        def screen(t: _Similarity, sample: list[complex]) -> int:
            tol = aligner.tol_for(t)
            grid = cand.key_grid
            a, b = t.a, t.b
            if t.reflect:
                return sum(1 for z in sample if grid.has_near(a * z.conjugate() + b, tol))
            return sum(1 for z in sample if grid.has_near(a * z + b, tol))

        def keep(hits: int, t: _Similarity) -> None:
            nonlocal counter
            counter += 1
            item = (hits, -counter, t)
            if len(screened) < SEARCH_KEEP:
                heapq.heappush(screened, item)
            elif item > screened[0]:
                heapq.heapreplace(screened, item)

        # Pairs of shared labels: robust to a few misplaced labelled points.
        label_sample = [z for z, _ in shared[:MAX_LABEL_PAIRS_LABELS]]
        for (z1, w1), (z2, w2) in combinations(shared[:MAX_LABEL_PAIRS_LABELS], 2):
            for reflect in (False, True):
                t = _pair_similarity(z1, z2, w1, w2, reflect)
                if t is not None:
                    keep(screen(t, label_sample), t)
        for _, _, t in sorted(screened, reverse=True)[:3]:
            if self.consider(t):
                return
        screened.clear()
        # Geometric search: well-spread reference base pairs onto ordered candidate pairs.
        order = _farthest_point_order(refk, SEARCH_SAMPLE + 3)
        spread = [refk[i] for i in order]
        bases = [(0, 1), (0, 2), (1, 2)][:SEARCH_BASE_PAIRS]
        cand_pts = [candk[i] for i in _farthest_point_order(candk, MAX_SEARCH_POINTS)]
        for bi, bj in bases:
            if bj >= len(spread) or abs(spread[bi] - spread[bj]) <= tol_ref:
                continue
            r1, r2 = spread[bi], spread[bj]
            sample = [z for k, z in enumerate(spread) if k not in (bi, bj)][:SEARCH_SAMPLE]
            for c1 in cand_pts:
                for c2 in cand_pts:
                    if c1 == c2:
                        continue
                    for reflect in (False, True):
                        t = _pair_similarity(r1, r2, c1, c2, reflect)
                        if t is None:
                            continue
                        hits = screen(t, sample)
                        if hits == len(sample) and self.consider(t):
                            return
                        keep(hits, t)
        for _, _, t in sorted(screened, reverse=True):
            if self.consider(t):
                return


def _refine(aligner: _Aligner, best: _KeyScore) -> _KeyScore | None:
    """Re-fit on all matched key points, so a two-point hypothesis does not carry its noise."""
    if len(best.pairs) < 2:
        return None
    t = _fit(best.pairs, best.transform.reflect)
    return aligner.score(t) if t is not None else None


# --------------------------------------------------------------------------------------------
# Relations the reference satisfies.


@dataclass(frozen=True)
class _Relation:
    kind: str
    labels: tuple[str, ...]
    name: str
    mode: str = ""
    dependent: bool = True


def _carrier(shape: _Shape) -> tuple[complex, complex]:
    p, q = shape.pts[:2]
    return p, q - p


def _direction(shape: _Shape) -> complex:
    return _unit(shape.pts[1] - shape.pts[0])


def _point_path_distance(p: complex, path: _Shape, mode: str, tol: float) -> float:
    """Distance from `p` to `path` read as the reference's kind `mode` (a reference line
    matched by a candidate segment is still an infinite line here)."""
    if mode == "line":
        origin, direction = _carrier(path)
        return _line_distance(p, origin, direction)
    if mode == "segment":
        return _segment_distance(p, path.pts[0], path.pts[1])
    if mode == "ray":
        return _ray_distance(p, path.pts[0], path.pts[1] - path.pts[0])
    if mode == "circle":
        return abs(abs(p - path.pts[0]) - path.r)
    if mode in ("arc", "sector"):
        return _arc_distance(p, path, tol)
    return math.inf


def _defining_points(shape: _Shape) -> tuple[complex, ...]:
    """Points on a path by definition (endpoints), whose incidence says nothing new."""
    if shape.family == "segment":
        return shape.pts
    if shape.family == "ray":
        return shape.pts[:1]
    if shape.family in ("arc", "sector"):
        return shape.pts[1:3]
    return ()


def _circumcircle(a: complex, b: complex, c: complex) -> tuple[complex, float] | None:
    d = 2 * ((b - a).real * (c - a).imag - (b - a).imag * (c - a).real)
    if d == 0:
        return None
    ab, ac = b - a, c - a
    ux = (ac.imag * abs(ab) ** 2 - ab.imag * abs(ac) ** 2) / d
    uy = (ab.real * abs(ac) ** 2 - ac.real * abs(ab) ** 2) / d
    centre = a + complex(ux, uy)
    return centre, abs(centre - a)


def _collinear_error(points: Sequence[complex]) -> float:
    """Distance of the third point from the line through the two farthest apart."""
    a, b, c = points
    sides = [(abs(b - a), a, b, c), (abs(c - b), b, c, a), (abs(a - c), c, a, b)]
    length, p, q, r = max(sides, key=lambda s: s[0])
    if length == 0:
        return 0.0
    return _line_distance(r, p, q - p)


def _concyclic_error(points: Sequence[complex]) -> float:
    """Distance of one point from the circle through the other three (the best-shaped three)."""
    best: tuple[float, int] | None = None
    for k in range(4):
        tri = [points[i] for i in range(4) if i != k]
        a, b, c = tri
        area = abs(((b - a) * (c - a).conjugate()).imag)
        if best is None or area > best[0]:
            best = (area, k)
    assert best is not None
    k = best[1]
    tri = [points[i] for i in range(4) if i != k]
    circle = _circumcircle(*tri)
    if circle is None:
        return math.inf
    centre, radius = circle
    return abs(abs(points[k] - centre) - radius)


class _Namer:
    """Readable names: segments by their labelled endpoints ("AB") when the reference has them."""

    def __init__(self, ref: list[_Item], tol: float) -> None:
        self.names: dict[str, str] = {}
        points = [(item.shape.pts[0], item.label) for item in ref if item.shape.family == "point"]
        grid = _Grid([(z, i) for i, (z, _) in enumerate(points)], _cell_for([z for z, _ in points]))

        def at(z: complex) -> str | None:
            hits = sorted(grid.near(z, tol), key=lambda e: (abs(e[0] - z), e[1]))
            return points[hits[0][1]][1] if hits else None

        for item in ref:
            name = item.label
            if item.shape.family == "segment":
                s, e = at(item.shape.pts[0]), at(item.shape.pts[1])
                if s and e and s != e:
                    name = s + e
            self.names[item.label] = name

    def __call__(self, label: str) -> str:
        return self.names.get(label, label)


_FAMILY_WORD = {
    "point": "point", "segment": "segment", "line": "line", "ray": "ray", "vector": "vector",
    "circle": "circle", "arc": "arc", "sector": "sector", "polygon": "polygon",
    "number": "number", "angle": "angle",
}


def _derive_relations(
    ref: list[_Item], tol: float, tolerance: float, name: _Namer, scored: set[str]
) -> list[_Relation]:
    """Relations among the reference's objects that involve at least one scored object, each
    category bounded (see module caps)."""
    by_label = {item.label: item for item in ref}
    points = [item for item in ref if item.shape.family == "point"]
    linelikes = [item for item in ref if item.shape.family in _LINELIKE][:MAX_RELATION_LINES]
    circles = [item for item in ref if item.shape.family in _CIRCLELIKE][:MAX_RELATION_CIRCLES]
    segments = [item for item in ref if item.shape.family == "segment"]
    out: dict[str, list[_Relation]] = {kind: [] for kind in _RELATION_RANK}

    def rel(kind: str, labels: tuple[str, ...], text: str, mode: str = "") -> None:
        if not scored.intersection(labels):
            return
        dependent = any(by_label[label].dependent for label in labels)
        out[kind].append(_Relation(kind, labels, text, mode, dependent))

    def phrase(item: _Item) -> str:
        return f"{_FAMILY_WORD[item.shape.family]} {name(item.label)}"

    # Incidence: point on a line, segment, ray, circle or arc (endpoints excluded).
    paths = (linelikes + circles)[:MAX_RELATION_PATHS]
    for p_item in points[:MAX_RELATION_POINTS]:
        p = p_item.shape.pts[0]
        for path in paths:
            if any(abs(p - d) <= tol for d in _defining_points(path.shape)):
                continue
            if _point_path_distance(p, path.shape, path.shape.family, tol) <= tol:
                text = f"{p_item.label} lies on {phrase(path)}"
                rel("on", (p_item.label, path.label), text, path.shape.family)
    # Parallel classes (chained through one member per distinct carrier) and perpendiculars
    # between classes (one per pair of classes, by their first members).
    usable = [item for item in linelikes if _direction(item.shape) != 0]
    classes: list[list[_Item]] = []
    for item in usable:
        u = _direction(item.shape)
        for cls in classes:
            v = _direction(cls[0].shape)
            if abs((u * v.conjugate()).imag) <= tolerance:
                cls.append(item)
                break
        else:
            classes.append([item])
    for cls in classes:
        reps: list[_Item] = []
        for item in cls:
            origin, _ = _carrier(item.shape)
            if not any(
                _line_distance(origin, *_carrier(rep.shape)) <= tol for rep in reps
            ):
                reps.append(item)
        for x, y in pairwise(reps):
            rel("parallel", (x.label, y.label), f"{name(x.label)} ∥ {name(y.label)}")
    for c1, c2 in combinations(classes, 2):
        u, v = _direction(c1[0].shape), _direction(c2[0].shape)
        if abs((u * v.conjugate()).real) <= tolerance:
            x, y = c1[0], c2[0]
            rel("perpendicular", (x.label, y.label), f"{name(x.label)} ⊥ {name(y.label)}")
    # Tangency: line to circle, circle to circle.
    for line in linelikes:
        origin, direction = _carrier(line.shape)
        for circle in circles:
            r = circle.shape.r
            if r > tol and abs(_line_distance(circle.shape.pts[0], origin, direction) - r) <= tol:
                text = f"{phrase(line)} is tangent to {phrase(circle)}"
                rel("tangent", (line.label, circle.label), text, "line")
    for x, y in combinations(circles, 2):
        d = abs(x.shape.pts[0] - y.shape.pts[0])
        if d <= tol:
            continue
        if abs(d - (x.shape.r + y.shape.r)) <= tol:
            mode = "external"
        elif abs(x.shape.r - y.shape.r) > tol and abs(d - abs(x.shape.r - y.shape.r)) <= tol:
            mode = "internal"
        else:
            continue
        text = f"{phrase(x)} and {phrase(y)} are tangent ({mode}ly)"
        rel("tangent", (x.label, y.label), text, mode)
    # Equal lengths: classes of segments, chained.
    lengths = sorted(
        ((abs(s.shape.pts[1] - s.shape.pts[0]), s.order, s) for s in segments),
        key=lambda t: (t[0], t[1]),
    )
    groups: list[list[tuple[float, int, _Item]]] = []
    for entry in lengths:
        if entry[0] <= tol:
            continue
        if groups and entry[0] - groups[-1][0][0] <= tol:
            groups[-1].append(entry)
        else:
            groups.append([entry])
    for group in groups:
        members: list[_Item] = []
        for _, _, seg in sorted(group, key=lambda t: t[1]):
            # A segment drawn twice (AC and CA) is one segment, not an equality.
            if not any(_error(seg.shape, other.shape, _NO_FRAME, tolerance) <= tol
                       for other in members):
                members.append(seg)
        for x, y in pairwise(members):
            rel("equal_length", (x.label, y.label), f"|{name(x.label)}| = |{name(y.label)}|")
    # Collinear triples and concyclic quadruples not already carried by a reference object.
    chosen: list[_Item] = []
    for item in sorted(points, key=lambda it: (not it.dependent, it.order)):
        if len(chosen) >= MAX_CYCLIC_POINTS:
            break
        if all(abs(item.shape.pts[0] - other.shape.pts[0]) > tol for other in chosen):
            chosen.append(item)
    chosen.sort(key=lambda it: it.order)
    zs = [item.shape.pts[0] for item in chosen]
    seen: set[frozenset[int]] = set()
    for i, j in combinations(range(len(zs)), 2):
        on_line = [k for k in range(len(zs)) if _line_distance(zs[k], zs[i], zs[j] - zs[i]) <= tol]
        key = frozenset(on_line)
        if len(on_line) < 3 or key in seen:
            continue
        seen.add(key)
        if any(
            all(_line_distance(zs[k], *_carrier(line.shape)) <= tol for k in on_line)
            for line in linelikes
        ):
            continue
        a, b = on_line[0], on_line[1]
        for k in on_line[2:]:
            labels: tuple[str, ...] = (chosen[a].label, chosen[b].label, chosen[k].label)
            rel("collinear", labels, f"{', '.join(labels)} collinear")
    seen_cyclic: list[frozenset[int]] = []
    for i, j, k in combinations(range(len(zs)), 3):
        if any({i, j, k} <= s for s in seen_cyclic):
            continue
        circum = _circumcircle(zs[i], zs[j], zs[k])
        if circum is None:
            continue
        centre, radius = circum
        if _collinear_error((zs[i], zs[j], zs[k])) <= tol:
            continue
        on_circle = [m for m in range(len(zs)) if abs(abs(zs[m] - centre) - radius) <= tol]
        if len(on_circle) < 4:
            continue
        seen_cyclic.append(frozenset(on_circle))
        if any(
            abs(c.shape.pts[0] - centre) <= tol and abs(c.shape.r - radius) <= tol for c in circles
        ):
            continue
        base = on_circle[:3]
        for m in on_circle[3:]:
            labels = tuple(chosen[index].label for index in (*base, m))
            rel("concyclic", labels, f"{', '.join(labels)} concyclic")
    return _select_relations(out)


def _select_relations(by_kind: dict[str, list[_Relation]]) -> list[_Relation]:
    """Keep at most `MAX_RELATIONS`: relations touching a constructed (non-free) object first,
    then round-robin over the categories in `_RELATION_RANK` order, each in construction order;
    the kept ones are listed by category."""
    ranked = []
    for kind, rels in by_kind.items():
        for idx, relation in enumerate(rels):
            ranked.append(((not relation.dependent, idx, _RELATION_RANK[kind]), relation))
    ranked.sort(key=lambda entry: entry[0])
    kept = ranked[:MAX_RELATIONS]
    kept.sort(key=lambda entry: (entry[0][2], entry[0][1]))
    return [relation for _, relation in kept]


def _measure(rel: _Relation, shapes: list[_Shape], tol: float) -> tuple[float, bool]:
    """The relation's defect on candidate shapes: (value, is_angle). Lengths are in candidate
    units; angles as |sin| (parallel) or |cos| (perpendicular)."""
    kind = rel.kind
    if kind == "on":
        return _point_path_distance(shapes[0].pts[0], shapes[1], rel.mode, tol), False
    if kind in ("parallel", "perpendicular"):
        u, v = _direction(shapes[0]), _direction(shapes[1])
        if u == 0 or v == 0:
            return math.inf, True
        prod = u * v.conjugate()
        return (abs(prod.imag) if kind == "parallel" else abs(prod.real)), True
    if kind == "tangent":
        x, y = shapes
        if rel.mode == "line":
            origin, direction = _carrier(x)
            return abs(_line_distance(y.pts[0], origin, direction) - y.r), False
        d = abs(x.pts[0] - y.pts[0])
        target = x.r + y.r if rel.mode == "external" else abs(x.r - y.r)
        return abs(d - target), False
    if kind == "equal_length":
        x, y = shapes
        return abs(abs(x.pts[1] - x.pts[0]) - abs(y.pts[1] - y.pts[0])), False
    if kind == "collinear":
        return _collinear_error([s.pts[0] for s in shapes]), False
    if kind == "concyclic":
        return _concyclic_error([s.pts[0] for s in shapes]), False
    return math.inf, False


def _check_relation(
    rel: _Relation, mapping: dict[str, int], cand: _Side, frame: _Frame, tolerance: float
) -> Check:
    missing = [label for label in rel.labels if label not in mapping]
    if missing:
        detail = f"object {missing[0]} missing" if len(missing) == 1 else (
            "objects " + ", ".join(missing) + " missing"
        )
        return Check("relation", rel.name, False, detail)
    shapes = [cand.items[mapping[label]].shape for label in rel.labels]
    value, is_angle = _measure(rel, shapes, frame.tol)
    if is_angle:
        passed = value <= tolerance
        degrees = math.degrees(math.asin(min(1.0, value))) if math.isfinite(value) else math.inf
        off = f"off by {_num(degrees)}°" if math.isfinite(degrees) else "degenerate direction"
    else:
        passed = value <= frame.tol
        off = f"off by {_num(value / frame.transform.scale)}" if math.isfinite(value) else (
            "degenerate (points collinear)"
        )
    return Check("relation", rel.name, passed, "holds" if passed else off)


# --------------------------------------------------------------------------------------------
# Entry point.


def _object_check(
    item: _Item, match: _Match, cand: _Side, frame: _Frame, side_labels: dict[str, str]
) -> Check:
    name = f"{_FAMILY_WORD[item.shape.family]} {item.label}"
    scale = frame.transform.scale
    numeric = item.shape.family in _NUMERIC

    def off(err: float) -> str:
        if not math.isfinite(err):
            return "does not correspond"
        if numeric:
            return f"off by {_num(err)} (relative)"
        return f"off by {_num(err / scale)}"

    if match.passed and match.cand is not None:
        other = cand.items[match.cand]
        if match.how == "label":
            detail = f"matched candidate {other.label} (by label)"
        elif match.how.startswith("carrier:"):
            detail = (
                f"matched candidate {other.label} (by geometry; a {match.how[8:]} on the same line)"
            )
        else:
            basis = "value" if numeric else "geometry"
            detail = f"matched candidate {other.label} (by {basis})"
        return Check("object", name, True, detail)
    if match.cand is not None and match.how == "label":
        return Check(
            "object", name, False,
            f"candidate {item.label} has the same label but is {off(match.err)}; no other match",
        )
    detail = "missing"
    if item.label in side_labels:
        detail += f" (candidate {item.label} is a {side_labels[item.label]})"
    elif match.cand is not None and match.how == "nearest" and math.isfinite(match.err):
        detail += f" (nearest candidate {cand.items[match.cand].label} {off(match.err)})"
    return Check("object", name, False, detail)


def verify(
    candidate: Construction,
    reference: Construction,
    *,
    fixed_coordinates: bool = False,
    tolerance: float = 1e-6,
    targets: list[str] | None = None,
) -> Verdict:
    """Compare `candidate` with `reference`; see the module docstring for the rules.

    `targets` restricts scoring to those reference labels (numbers and angles count only when
    named here, and named objects count even when hidden); an unknown label is a ValueError,
    an undefined one is skipped. With no qualifying reference objects the score is 1.0 when the
    candidate has no scorable objects either, else 0.0. Extra candidate objects cost nothing.
    """
    if not (tolerance > 0 and math.isfinite(tolerance)):
        raise ValueError(f"tolerance must be a positive number, got {tolerance!r}")
    if targets is not None:
        unknown = [label for label in targets if label not in reference.objects]
        if unknown:
            raise ValueError(f"targets not in the reference construction: {unknown}")
    ran = candidate.pass_at_1
    # The whole visible reference aligns and gives relations; `scored` are the objects checked.
    wanted = set(targets) if targets is not None else None
    ref = _items(reference, wanted, numbers=False)
    scored = {item.label for item in ref if wanted is None or item.label in wanted}
    cand_items = _items(candidate, None, numbers=True)
    if not scored:
        empty = not any(item.shape.family in _GEOMETRIC for item in cand_items)
        return Verdict(1.0 if empty else 0.0, (), {}, "identity", ran)

    ref_extent = [z for item in ref for z in _extent_points(item.shape)]
    centre, diameter = _bbox(ref_extent)
    tol_ref = tolerance * max(1.0, diameter)
    ref_keys, ref_key_labels = _dedupe_keys(_raw_keys(ref, False), tol_ref)
    degenerate = len(ref_keys) < 2
    if degenerate:
        ref_keys, ref_key_labels = _dedupe_keys(_raw_keys(ref, True), tol_ref)
    cand_extent = [z for item in cand_items for z in _extent_points(item.shape)]
    _, cand_diameter = _bbox(cand_extent)
    cand = _index_candidate(cand_items, degenerate, tolerance * max(1.0, cand_diameter))
    size = diameter if diameter > 0 else 1.0

    aligner = _Aligner(ref_keys, ref_key_labels, cand, diameter, tolerance)

    def frame_for(t: _Similarity) -> _Frame:
        return _Frame(t, aligner.tol_for(t), size * t.scale, t(centre))

    search = _Search(aligner, ref, cand, tolerance, frame_for)
    if fixed_coordinates:
        search.consider(_Similarity())
    else:
        search.run(tol_ref)
        refined = _refine(aligner, max(search.scored, key=aligner.rank))
        if refined is not None:
            search.scored.append(refined)
    # Full object matching decides: every fully matched hypothesis, the best few by key points,
    # and identity.
    pool = list(search.full)
    shortlist: list[_Similarity] = [m.frame.transform for m in pool]
    extra = 0
    for key in sorted(search.scored, key=aligner.rank, reverse=True):
        if extra >= FULL_MATCH_KEEP:
            break
        if not any(_same_transform(key.transform, t, aligner.tol_for(t)) for t in shortlist):
            shortlist.append(key.transform)
            pool.append(_match_objects(ref, cand, frame_for(key.transform), tolerance))
            extra += 1
    if fixed_coordinates or not any(t.is_identity(tol_ref) for t in shortlist):
        pool.append(_match_objects(ref, cand, frame_for(_Similarity()), tolerance))

    def rank(m: _Matching) -> tuple[int, int, int, float]:
        return (m.passed, m.label_agree, _simplicity(m.frame.transform, m.frame.tol), -m.residual)

    best = max(pool, key=rank)
    final = _match_objects(ref, cand, best.frame, tolerance, nearest=True)
    frame = final.frame

    side_labels = {
        item.label: _FAMILY_WORD[cand.items[j].shape.family]
        for item in ref
        if (j := cand.by_label.get(item.label)) is not None
        and cand.items[j].shape.family not in _COMPATIBLE[item.shape.family]
    }
    checks: list[Check] = []
    mapping_idx: dict[str, int] = {}
    for item, match in zip(ref, final.matches, strict=True):
        if item.label in scored:
            checks.append(_object_check(item, match, cand, frame, side_labels))
        if match.cand is not None and match.how != "nearest":
            mapping_idx[item.label] = match.cand
    namer = _Namer(ref, tol_ref)
    for relation in _derive_relations(ref, tol_ref, tolerance, namer, scored):
        checks.append(_check_relation(relation, mapping_idx, cand, frame, tolerance))
    total = sum(check.weight for check in checks)
    score = sum(check.weight for check in checks if check.passed) / total if total else 0.0
    mapping = {label: cand.items[j].label for label, j in mapping_idx.items()}
    return Verdict(score, tuple(checks), mapping, frame.transform.describe(frame.tol), ran)


def _same_transform(s: _Similarity, t: _Similarity, tol: float) -> bool:
    return s.reflect == t.reflect and abs(s.a - t.a) <= 1e-9 * max(1.0, abs(t.a)) and abs(
        s.b - t.b
    ) <= tol
