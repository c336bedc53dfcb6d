"""The relations a reference construction satisfies (incidence, parallels, perpendiculars,
tangency, equal lengths, collinear and concyclic points), derived from its shapes and
checked on the candidate under the chosen alignment; each result is a `Check`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from typing import Any

from geomeval.geogebra.shapes import (
    _CIRCLELIKE,
    _LINELIKE,
    _NO_FRAME,
    _arc_distance,
    _cell_for,
    _error,
    _Frame,
    _Grid,
    _Item,
    _line_distance,
    _num,
    _ray_distance,
    _segment_distance,
    _Shape,
    _Side,
    _unit,
)

# Relation checks kept after prioritising (see `_select_relations`).
MAX_RELATIONS = 200


# Per-kind enumeration caps for deriving relations from the reference.
MAX_RELATION_POINTS = 150


MAX_RELATION_PATHS = 150


MAX_RELATION_LINES = 150


MAX_RELATION_CIRCLES = 150


MAX_CYCLIC_POINTS = 30


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
