"""Facts that follow from what a caption states, so matching counts what careful annotators count.

Why: an annotator who reads "D is the midpoint of BC" and "AD" in triangle ABC counts the
reference's "AD is a median" as stated; "triangle ABC" states its vertices and sides; "the
medians AD and BE meet at G" states that G is the centroid. The parsers emit only what is
written (so a caption's keypoint count stays what it says); `closure` adds, for matching
only, the facts that follow by the rules of docs/keypoint_annotation_guide.md ("Derived
facts"). A reference keypoint is recalled when the candidate states it or it follows from
the candidate; a candidate keypoint is not extra when it follows from the reference.

Bounded: at most `MAX_INPUT` keypoints are read, and every rule is a loop over pairs of
them (a few hundred at most), never a search.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from itertools import combinations

from . import canonical as cn
from ._engine import POLYGON_RANK, order_args
from .model import ELEMENT, NUMERICAL, RELATION, Keypoint

MAX_INPUT = 300  # keypoints of one caption looked at
MAX_PER_POINT = 8  # objects a point lies on that are paired into intersections

PRISM_LIKE = {"cube", "cuboid", "prism", "frustum"}
# What `closure` can produce: any other keypoint follows from nothing (checked before deriving).
DERIVABLE = {
    (ELEMENT, "point"), (ELEMENT, "segment"), (ELEMENT, "line"), (NUMERICAL, "angle"),
    (NUMERICAL, "coordinate"), (NUMERICAL, "radius"), (NUMERICAL, "equation"), (NUMERICAL, "side_length"),
    *((RELATION, k) for k in ("perpendicular", "median", "midpoint", "on", "altitude", "foot", "intersect", "chord",
                              "centroid", "inscribed", "angle_bisector", "property", "perpendicular_bisector")),
}


def derivable(kp: Keypoint) -> bool:
    """Whether `closure` could ever contain `kp` (a right angle, not any angle)."""
    if kp.kind == "property":
        return kp.dimension == RELATION and kp.value == "right"
    return (kp.dimension, kp.kind) in DERIVABLE and (kp.kind != "angle" or kp.value == 90.0)


def _rel(kind: str, *args: str) -> Keypoint:
    return Keypoint(RELATION, kind, order_args(kind, tuple(args)))


def _two_point(name: str) -> list[str] | None:
    """['A', 'D'] for a segment-like name `AD` (not an angle, circle, plane or polygon)."""
    if not name or not ("A" <= name[0] <= "Z"):
        return None
    tokens = cn.point_tokens(name)
    return tokens if len(tokens) == 2 and "".join(tokens) == name else None


def _ring(tokens: Sequence[str]) -> list[str]:
    n = len(tokens)
    return [cn.segment((tokens[i], tokens[(i + 1) % n])) for i in range(n)]


def _solid_parts(kind: str, name: str) -> tuple[list[str], list[str]]:
    """Vertices and edges of a named solid: ABCD-A1B1C1D1 (prism-like), P-ABCD (pyramid), ABCD (tetrahedron)."""
    if "-" in name:
        left, right = (cn.point_tokens(p) for p in name.split("-", 1))
        if len(left) == 1 and len(right) >= 3:
            return left + right, _ring(right) + [cn.segment((left[0], v)) for v in right]
        if len(left) == len(right) >= 3 and kind in PRISM_LIKE:
            return left + right, _ring(left) + _ring(right) + [cn.segment(p) for p in zip(left, right, strict=True)]
        return left + right, []
    tokens = cn.point_tokens(name)
    if kind == "tetrahedron" and len(tokens) == 4:
        return tokens, [cn.segment(p) for p in combinations(tokens, 2)]
    return tokens, []


def closure(keypoints: Iterable[Keypoint]) -> set[Keypoint]:
    """Keypoints that follow from `keypoints` (they themselves not included)."""
    kps = list(keypoints)[:MAX_INPUT]
    out: set[Keypoint] = set()
    mentioned: set[str] = set()  # two-point names written anywhere
    triangles: list[list[str]] = []
    relations: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for kp in kps:
        for a in kp.args:
            if _two_point(a):
                mentioned.add(a)
        if kp.dimension == RELATION:
            relations[kp.kind].append(kp.args)
        elif kp.dimension == ELEMENT and kp.args:
            name = kp.args[0]
            if kp.kind in POLYGON_RANK:
                tokens = cn.point_tokens(name)
                out.update(Keypoint(ELEMENT, "point", (v,)) for v in tokens)
                mentioned.update(_ring(tokens))
                if len(tokens) == 3:
                    triangles.append(tokens)
            elif " " not in name and not name.startswith(("⊙", "∠", "⌒", "ℓ", "plane")):
                vertices, edges = _solid_parts(kp.kind, name)
                out.update(Keypoint(ELEMENT, "point", (v,)) for v in vertices)
                mentioned.update(edges)
        elif kp.dimension == NUMERICAL and kp.kind == "angle" and kp.value == 90.0 and len(cn.point_tokens(kp.args[0])) == 3:
            x, y, z = cn.point_tokens(kp.args[0])
            out.add(_rel("perpendicular", cn.segment((x, y)), cn.segment((y, z))))
    ends_of: dict[str, list[str]] = {}
    by_end: dict[str, list[str]] = defaultdict(list)  # point -> mentioned two-point names ending there
    for name in mentioned:
        tokens = cn.point_tokens(name)
        ends_of[name] = tokens
        out.add(Keypoint(ELEMENT, "segment", (name,)))
        out.add(Keypoint(ELEMENT, "line", (name,)))
        for p in tokens:
            out.add(Keypoint(ELEMENT, "point", (p,)))
            by_end[p].append(name)

    on: dict[str, set[str]] = defaultdict(set)
    for p, target in (r[:2] for r in relations["on"] if len(r) >= 2):
        on[p].add(target)
    for p, target in (r[:2] for r in relations["midpoint"] if len(r) >= 2):
        on[p].add(target)
    for p, target in (r[:2] for r in relations["foot"] if len(r) >= 2 and r[1]):
        on[p].add(target)
    for shape, circle in (r[:2] for r in relations["inscribed"] if len(r) >= 2):
        if circle.startswith("⊙") and not shape.startswith("⊙"):
            for v in cn.point_tokens(shape):
                on[v].add(circle)
    for args in relations["intersect"]:
        *objects, p = args
        for o in objects:
            on[p].add(o)
    for x, y in (r[:2] for r in relations["perpendicular"] if len(r) >= 2):
        pair = (_two_point(x), _two_point(y))
        if pair[0] and pair[1] and len(set(pair[0]) & set(pair[1])) == 1:
            vertex = (set(pair[0]) & set(pair[1])).pop()
            ends = [t for t in pair[0] + pair[1] if t != vertex]
            out.add(Keypoint(NUMERICAL, "angle", (cn.angle(ends[0] + vertex + ends[1]),), 90.0))

    # D on BC with BD = DC: D is the midpoint (before the triangle lines, so that AD is then a median)
    equal_lengths = {frozenset(kp.args) for kp in kps if kp.kind == "equal_length" and len(kp.args) == 2}
    midpoints = _pairs(relations["midpoint"])
    for p, targets in list(on.items()):
        for t in targets:
            seg = _two_point(t)
            if seg and p not in seg and frozenset((cn.segment((p, seg[0])), cn.segment((p, seg[1])))) in equal_lengths:
                out.add(_rel("midpoint", p, t))
                midpoints.add((p, t))

    # triangle lines: medians and altitudes, from a vertex to a point of the opposite side
    medians: dict[tuple[str, ...], set[str]] = defaultdict(set)
    stated_medians = {r[0] for r in relations["median"] if r}
    stated_altitudes = {r[0] for r in relations["altitude"] if r}
    perpendicular = {tuple(r[:2]) for r in relations["perpendicular"] if len(r) >= 2}
    for tri in triangles:
        for vertex in tri:
            side = cn.segment([t for t in tri if t != vertex])
            for name in by_end.get(vertex, ()):
                ends = ends_of[name]
                foot = ends[0] if ends[1] == vertex else ends[1]
                if foot in tri:
                    continue
                if name in stated_medians or (foot, side) in midpoints:
                    medians[tuple(tri)].add(name)
                    out.update({_rel("median", name), _rel("midpoint", foot, side), _rel("on", foot, side)})
                if name in stated_altitudes or order_args("perpendicular", (name, side)) in perpendicular:
                    out.update({_rel("altitude", name), _rel("perpendicular", name, side), _rel("on", foot, side),
                                _rel("foot", foot, side)})
                    on[foot].add(side)

    for p, targets in on.items():
        for t in targets:
            out.add(_rel("on", p, t))
        for x, y in combinations(sorted(targets)[:MAX_PER_POINT], 2):
            out.add(_rel("intersect", x, y, p))
        for name in by_end.get(p, ()):  # D on BC and segment AD written: AD meets BC at D
            for t in sorted(targets)[:MAX_PER_POINT]:
                if t != name:
                    out.add(_rel("intersect", name, t, p))
    for name, (x, y) in ends_of.items():  # both ends on a circle: a chord of it
        for circle in on[x] & on[y]:
            if circle.startswith("⊙"):
                out.add(_rel("chord", name, circle))

    # definitions stated in other words (guide, "Wordings that state a relation without its name")
    equal_angles = [kp.args for kp in kps if kp.kind == "equal_angle" and len(kp.args) == 2]
    for kp in kps:  # every vertex of a named polygon on one circle: inscribed in it
        if kp.dimension == ELEMENT and kp.kind in POLYGON_RANK and kp.args:
            tokens = cn.point_tokens(kp.args[0])
            circles = set.intersection(*(on.get(v, set()) for v in tokens)) if tokens else set()
            for circle in circles:
                if circle.startswith("⊙"):
                    out.add(_rel("inscribed", kp.args[0], circle))
    perpendicular_pairs = [tuple(r[:2]) for r in relations["perpendicular"] if len(r) >= 2]
    feet = [(r[0], r[1]) for r in relations["foot"] if len(r) >= 2 and r[1]]
    crossings = [(r[0], r[1], r[2]) for r in relations["intersect"] if len(r) == 3 and r[2]]
    for x, y in perpendicular_pairs:  # x ⊥ y at P: P is where they meet, and the other way round
        for p, line in feet:
            if line in (x, y):
                other = y if line == x else x
                out.update({_rel("intersect", x, y, p), _rel("on", p, other)})
        for a, c, p in crossings:
            if {a, c} == {x, y}:
                out.update({_rel("foot", p, x), _rel("foot", p, y)})
        for line, other in ((x, y), (y, x)):  # CD ⊥ AB with D on AB: they meet at D, the foot
            for p in _two_point(line) or ():
                if other in on.get(p, ()):
                    out.update({_rel("foot", p, other), _rel("intersect", x, y, p)})
    midpoints_of: dict[str, set[str]] = defaultdict(set)
    for r in relations["midpoint"]:
        if len(r) >= 2:
            midpoints_of[r[1]].add(r[0])
    for r in relations["perpendicular_bisector"]:
        if len(r) >= 2:
            out.add(_rel("perpendicular", r[0], r[1]))  # the name states the perpendicularity (guide)
    for x, y in perpendicular_pairs:  # l ⊥ AB through the midpoint of AB: the perpendicular bisector
        for bisector, cut in ((x, y), (y, x)):
            if any(bisector in on.get(m, ()) or m in (_two_point(bisector) or ()) for m in midpoints_of.get(cut, ())):
                out.add(_rel("perpendicular_bisector", bisector, cut))
    right_at = {cn.angle_vertex(kp.args[0]): kp.args[0] for kp in kps
                if kp.dimension == NUMERICAL and kp.kind == "angle" and kp.value == 90.0 and kp.args}
    for tri in triangles:  # a triangle with a right interior angle is a right triangle
        for vertex in tri:
            right = right_at.get(vertex)
            if right and set(cn.point_tokens(right)) == set(tri):
                out.add(Keypoint(RELATION, "property", (cn.polygon(tri),), "right"))
    for a1, a2 in equal_angles:  # ∠ABD = ∠DBC: BD bisects ∠ABC
        t1, t2 = cn.point_tokens(a1), cn.point_tokens(a2)
        if len(t1) == 3 and len(t2) == 3 and t1[1] == t2[1]:
            shared = ({t1[0], t1[2]} & {t2[0], t2[2]}) - {t1[1]}
            if len(shared) == 1:
                ray = shared.pop()
                sides = ({t1[0], t1[2]} ^ {t2[0], t2[2]}) - {ray}
                whole = cn.angle(sides.pop() + t1[1] + sides.pop()) if len(sides) == 2 else None
                out.add(Keypoint(RELATION, "angle_bisector", (cn.segment((t1[1], ray)),), whole))

    centroids = {(r[0], r[1]) for r in relations["centroid"] if len(r) >= 2}
    for triangle, lines in medians.items():
        shape = cn.polygon(triangle)
        for m1, m2 in combinations(sorted(lines), 2):
            for args in relations["intersect"]:
                if len(args) == 3 and {args[0], args[1]} == {m1, m2}:
                    out.add(_rel("centroid", args[2], shape))
            for p, targets in on.items():  # `G lies on the medians AD and BE`
                if m1 in targets and m2 in targets:
                    out.add(_rel("centroid", p, shape))
            for g, s in centroids:
                if s == shape:
                    out.add(_rel("intersect", m1, m2, g))
                    out.update({_rel("on", g, m1), _rel("on", g, m2)})
    out.update(_circle_equations(kps))
    out.update(_equal_sided(kps))
    return out


_EQUAL_SIDED = ("square", "rhombus")


def _equal_sided(kps: Sequence[Keypoint]) -> set[Keypoint]:
    """`square ABCD` (rhombus, equilateral or regular polygon, cube) with `AB = 4`: its side is 4
    (guide: any side's length gives the side length of a figure whose sides are all equal)."""
    shapes: dict[str, str] = {}  # vertex ring or solid name -> the name the side length is keyed by
    for kp in kps:
        if kp.dimension == ELEMENT and kp.args and (kp.kind in _EQUAL_SIDED or kp.kind == "cube"):
            shapes[kp.args[0]] = f"cube {kp.args[0]}" if kp.kind == "cube" else kp.args[0]
        elif kp.dimension == RELATION and kp.kind == "property" and kp.value in ("equilateral", "regular") and kp.args:
            shapes[kp.args[0]] = kp.args[0]
    if not shapes:
        return set()
    out: set[Keypoint] = set()
    for kp in kps:
        if kp.dimension != NUMERICAL or kp.kind != "length" or not kp.args or not isinstance(kp.value, float):
            continue
        ends = set(cn.point_tokens(kp.args[0]))
        for name, key in shapes.items():
            if kp.kind == "length" and len(ends) == 2 and _is_side(name, ends):
                out.add(Keypoint(NUMERICAL, "side_length", (key,), kp.value))
    return out


def _is_side(name: str, ends: set[str]) -> bool:
    if "-" in name:  # a cube: an edge of the base, of the top, or a lateral one
        base, top = (cn.point_tokens(part) for part in name.split("-", 1))
        rings = [_ring(base), _ring(top)] if len(base) == len(top) else []
        lateral = [cn.segment((a, b)) for a, b in zip(base, top, strict=False)]
        return any(cn.segment(tuple(ends)) in ring for ring in rings) or cn.segment(tuple(ends)) in lateral
    return cn.segment(tuple(ends)) in _ring(cn.point_tokens(name))


def _circle_equations(kps: Sequence[Keypoint]) -> set[Keypoint]:
    """A circle's equation states its centre and radius, and a centre and radius state the equation
    (guide); the equation names no circle, so it is the caption's circle when it names exactly one."""
    circles = {kp.args[0] for kp in kps if kp.dimension == ELEMENT and kp.kind == "circle" and kp.args}
    found = [c for kp in kps if kp.kind == "equation" and isinstance(kp.value, str)
             if (c := cn.circle_equation(kp.value)) is not None]
    out: set[Keypoint] = set()
    if len(circles) == 1 and len(found) == 1:
        (circle,), (a, b, r) = circles, found[0]
        out.add(Keypoint(NUMERICAL, "radius", (circle,), r))
        centre = circle[1:]
        if centre and centre[0].isupper():
            out.add(Keypoint(NUMERICAL, "coordinate", (centre,), (a, b)))
    coords = {kp.args[0]: kp.value for kp in kps if kp.kind == "coordinate" and kp.args and isinstance(kp.value, tuple)}
    for kp in kps:
        if kp.kind == "radius" and kp.args and isinstance(kp.value, float) and kp.args[0][1:] in coords:
            xy = coords[kp.args[0][1:]]
            if len(xy) == 2:
                out.add(Keypoint(NUMERICAL, "equation", (), cn.circle_equation_text(xy[0], xy[1], kp.value)))
    return out


def _pairs(rows: list[tuple[str, ...]]) -> set[tuple[str, str]]:
    return {(r[0], r[1]) for r in rows if len(r) >= 2}
