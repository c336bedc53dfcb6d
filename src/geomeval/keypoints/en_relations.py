"""The English relation rules: one bounded pattern per surface form, each emitting canonical
relations (`canonical.RELATIONS`) through the builder, never text.

The Chinese parser reuses most handlers (`parse_zh`); the patterns read the notation that
`en_normalise.normalise` has produced.
"""

from __future__ import annotations

import itertools
import re
from functools import partial

from . import canonical as cn
from ._engine import (
    ANG,
    AXIS,
    BIG,
    CIRC,
    LINE_NAME,
    NUMC,
    OBJ_CORE,
    PNAME,
    POLY,
    PT,
    RB,
    SEG,
    SMALL,
    SOLID_NAME,
    Builder,
    Rule,
    RuleSet,
    list_of,
)
from .en_patterns import (
    _ADJ_RE,
    _PNAME_RE,
    _PROPERTY,
    _SEG_RE,
    ADJ,
    COORDS,
    LEAD_LIST,
    OBJ_LIST,
    OBJW,
    PLIST,
    POLYWORD,
    SEP,
    SOLIDWORD,
    _names,
    canon,
    lead,
    obj,
    poly_kind,
    rx,
    solid_kind,
    trim_list,
)

# --------------------------------------------------------------------------- relation rules

def _pairwise(kind: str, m: re.Match[str], b: Builder, off: int) -> None:
    refs = [canon(r, b, off + m.start()) for r in _names(m.group(0))]
    for x, y in itertools.pairwise(refs):
        if x != y:
            b.relation(kind, x, y, text=m.group(0))


def _on_parallel_words(m: re.Match[str], b: Builder, off: int) -> None:
    kind = "parallel" if m.group("rel").lower().startswith("par") else "perpendicular"
    b.relation(kind, canon(m.group("a"), b, off), canon(m.group("b"), b, off), text=m.group(0))


def _on_perp(m: re.Match[str], b: Builder, off: int) -> None:
    line = canon(m.group("b"), b, off + m.start())
    b.relation("perpendicular", canon(m.group("a"), b, off + m.start()), line, text=m.group(0))
    if m.group("at"):
        b.point(m.group("at"))
        first = canon(m.group("a"), b, off + m.start())
        if first.startswith("ℓ") and line.startswith("ℓ"):  # `m ⊥ n at O`: two named lines meet at O (guide)
            b.relation("intersect", first, line, m.group("at"), text=m.group(0))
        else:
            b.relation("foot", m.group("at"), line, text=m.group(0))


def _on_foot(m: re.Match[str], b: Builder, off: int) -> None:
    p = m.group("p")
    line = canon(m.group("b"), b, off + m.start()) if m.group("b") else ""
    b.point(p)
    b.relation("foot", p, line, text=m.group(0))
    if m.group("src") and line:
        b.relation("perpendicular", cn.segment(m.group("src") + p), line, text=m.group(0))


def subjects(items: list[str], m: re.Match[str]) -> list[str]:
    """A subject list before a singular verb is one name, the last: in `O, and E is the midpoint`
    only E is the subject (the list pattern ran back into the previous clause)."""
    verb = (m.groupdict().get("v") or "").lower()
    return items[-1:] if verb in ("is", "lies", "is located", "moves", "is a point", "is a moving point", "is any point") else items


def _on_midpoint(m: re.Match[str], b: Builder, off: int) -> None:
    pts = subjects(_PNAME_RE.findall(m.group("pts")), m)
    segs = [canon(s, b, off) for s in _names(m.group("segs"))]
    if len(pts) > len(segs):
        pts = pts[-len(segs) :]
    if len(segs) >= len(pts):  # `D is the midpoint of BC and AD ⊥ BC`: the list ran on
        for p, s in zip(pts, segs, strict=False):
            b.point(p)
            b.relation("midpoint", p, s, text=m.group(0))


def _on_on(m: re.Match[str], b: Builder, off: int) -> None:
    target = canon(m.group("o"), b, off + m.start())
    pts = _PNAME_RE.findall(m.group("pts"))
    if m.start("pts") > 0 and m.string[m.start("pts") - 1] in "⊙∠△":  # `⊙O,C, D lie on`: O names the circle, not a point
        pts = pts[1:]
    for p in subjects(pts, m):
        if p != target:
            b.point(p)
            b.relation("on", p, target, text=m.group(0))


def _on_collinear(m: re.Match[str], b: Builder, off: int) -> None:
    pts = _PNAME_RE.findall(m.group("pts"))
    if len(pts) >= 3:
        b.relation("collinear", *pts, text=m.group(0))


_OWNER_BEFORE = re.compile(f"(?P<o>{SEG}|ℓ[a-z]\\d{{0,2}}) (?:[a-z]{{1,12}} ){{0,2}}?of (?:the |a |an |line |circle |segment |side )*$")
_PREPOSITION_BEFORE = re.compile(r"\b(?:to|of|from|through|onto|at) (?:the |a |an |line |circle |segment |side )*$")


def _on_intersect(m: re.Match[str], b: Builder, off: int) -> None:
    x, y = canon(m.group("a"), b, off + m.start()), canon(m.group("b"), b, off + m.start())
    if x.startswith("∠") or y.startswith("∠") or x == y:
        return  # `the bisector of ∠ABC meets AC at D` is handled by its own rule
    if m.start("a") == m.start() and _PREPOSITION_BEFORE.search(m.string, max(0, m.start() - 24), m.start()):
        owner = _OWNER_BEFORE.search(m.string, max(0, m.start() - 40), m.start())
        if owner is None:
            return  # `the tangent at T to ⊙W meets g at Q`: ⊙W is no subject, the tangent meets g
        x = canon(owner.group("o"), b, off + m.start())  # `chord PQ of the big circle cuts …`: PQ does
    for p in trim_list(_PNAME_RE.findall(m.group("pts")), m, "pts"):
        b.point(p)
        b.relation("intersect", x, y, p, text=m.group(0))
    second = m.groupdict().get("b2")
    if second:  # `c cuts a at A and b at B`
        z = canon(second, b, off + m.start())
        if z != x and not z.startswith("∠"):
            b.point(m.group("p2"))
            b.relation("intersect", x, z, m.group("p2"), text=m.group(0))


def _on_cut_by(m: re.Match[str], b: Builder, off: int) -> None:
    """`a and b are cut by c at A and B (respectively)`: the i-th line meets c at the i-th point."""
    subjects = [canon(r, b, off + m.start()) for r in _names(m.group("subj"))]
    cutter = canon(m.group("b"), b, off + m.start())
    pts = _PNAME_RE.findall(m.group("pts"))
    if len(subjects) == 1 and len(pts) > 1:  # `⊙W is cut by line g at K and L`: one object, two meeting points
        subjects = subjects * len(pts)
    if len(subjects) != len(pts) and len(pts) != 1:
        return
    for i, x in enumerate(subjects):
        p = pts[i] if len(pts) == len(subjects) else pts[0]
        if x != cutter and not x.startswith("∠"):
            b.point(p)
            b.relation("intersect", x, cutter, p, text=m.group(0))


def _on_on_both(m: re.Match[str], b: Builder, off: int) -> None:
    p = m.group("pts")
    b.point(p)
    for group in ("o", "o2"):
        b.relation("on", p, canon(m.group(group), b, off + m.start()), text=m.group(0))


def _on_distance(m: re.Match[str], b: Builder, off: int) -> None:
    """`P is 4 units from O`, `the distance from P to O is 4`: the length PO."""
    p, q, v = (m.group("p"), m.group("q"), m.group("v")) if m.group("p") else (m.group("p2"), m.group("q2"), m.group("v2"))
    if p != q:
        b.number("length", cn.segment(p + q), value=cn.parse_length(v), text=m.group(0))


def _on_tangent_at_meets(m: re.Match[str], b: Builder, off: int) -> None:
    """`the tangent to ⊙O at A meets BC at P`: the tangent line is AP."""
    t, p = m.group("t"), m.group("p")
    circle = m.group("c") or m.group("c2")
    if t == p or not circle:
        return
    b.point(p)
    b.relation("tangent", cn.segment(t + p), canon(circle, b, off + m.start()), t, text=m.group(0))
    b.relation("on", p, canon(m.group("o"), b, off + m.start()), text=m.group(0))


def _on_radii(m: re.Match[str], b: Builder, off: int) -> None:
    """`their radii are 3 and 2`: the two circles named before, in order; big/small circles by size."""
    values = [cn.parse_length(m.group("v1")), cn.parse_length(m.group("v2"))]
    if any(v is None for v in values):
        return
    circles = list(dict.fromkeys(x.ref for x in b.mentions if x.family == "circle" and x.pos < off + m.start()))
    if {"⊙" + BIG, "⊙" + SMALL} <= set(circles):
        big, small = max(values), min(values)  # type: ignore[type-var]
        b.number("radius", "⊙" + BIG, value=big, text=m.group(0))
        b.number("radius", "⊙" + SMALL, value=small, text=m.group(0))
    elif len(circles) >= 2:
        for circle, value in zip(circles[-2:], values, strict=True):
            b.number("radius", circle, value=value, text=m.group(0))


def _on_concentric_pair(m: re.Match[str], b: Builder, off: int) -> None:
    b.circle(off + m.start(), BIG)
    b.circle(off + m.start(), SMALL)
    b.relation("concentric", "⊙" + BIG, "⊙" + SMALL, text=m.group(0))


def _solid_ref(word: str | None, name: str | None) -> str | None:
    kind = solid_kind(word or "", "rectangular")  # a box inscribed in a sphere is a rectangular one
    if kind is None:
        return None
    return f"{kind} {cn.solid_name(kind, name or '')}".strip()


def _on_solid_inscribed(m: re.Match[str], b: Builder, off: int) -> None:
    """`a sphere is inscribed in a cube`, `the cube contains an inscribed sphere`."""
    inner = _solid_ref(m.group("a") or m.group("a2"), m.group("an"))
    outer = _solid_ref(m.group("b") or m.group("b2"), m.group("bn") or m.group("bn2"))
    if inner and outer and inner != outer:
        b.relation("inscribed", inner, outer, text=m.group(0))


def _tangent(b: Builder, x: str, y: str, p: str, text: str) -> None:
    if x == y:  # `⊙O (radius 4) ..., touching the circle`: a circle is not tangent to itself
        return
    if any(len(cn.point_tokens(r)) > 2 and r[0] not in "⊙ℓ" for r in (x, y)):
        return  # a polygon is inscribed in or circumscribed about a circle, not tangent to it
    if not x.startswith("⊙") and y.startswith("⊙"):
        b.relation("tangent", x, y, p, text=text)
    elif x.startswith("⊙") and not y.startswith("⊙"):
        b.relation("tangent", y, x, p, text=text)
    elif x.startswith("⊙") and y.startswith("⊙"):
        b.relation("tangent", x, y, p, text=text)


def _on_tangent_to(m: re.Match[str], b: Builder, off: int) -> None:
    subjects = [canon(s, b, off + m.start()) for s in _names(m.group("subj"))]
    circle = canon(m.group("c"), b, off + m.start())
    pts = trim_list(_PNAME_RE.findall(m.group("pts") or ""), m, "pts") if m.group("pts") else []
    for p in pts:
        b.point(p)
    for i, s in enumerate(subjects):
        p = pts[i] if len(pts) == len(subjects) else pts[0] if len(pts) == 1 else ""
        _tangent(b, s, circle, p, m.group(0))


def _on_tangent_pair(m: re.Match[str], b: Builder, off: int) -> None:
    x, y = canon(m.group("a"), b, off + m.start()), canon(m.group("b"), b, off + m.start())
    p = m.group("p") or ""
    if p:
        b.point(p)
    _tangent(b, x, y, p, m.group(0))


def lookup(table: dict[str, str], word: str) -> str | None:
    """`table[word]`, case-insensitive, also for an English plural (medians, diagonals)."""
    word = word.strip().lower()
    if word in table:
        return table[word]
    for plural in ("es", "s"):
        if word.endswith(plural) and word[: -len(plural)] in table:
            return table[word[: -len(plural)]]
    return None


ROLE = {"chord": "chord", "diameter": "diameter", "radius": "radius", "radii": "radius",
        "弦": "chord", "直径": "diameter", "半径": "radius"}


def _on_circle_role(m: re.Match[str], b: Builder, off: int) -> None:
    role = lookup(ROLE, m.group("role"))
    if role is None:
        return
    circle = canon(m.group("c"), b, off + m.start()) if m.group("c") else b.circle_ref("⊙", off + m.start())
    for s in trim_list(_SEG_RE.findall(m.group("segs")), m, "segs"):
        b.element("segment", cn.segment(s), text=m.group(0))
        b.relation(role, cn.segment(s), circle, text=m.group(0))


SEG_ROLE = {"median": "median", "altitude": "altitude", "height": "altitude", "angle bisector": "angle_bisector",
            "angular bisector": "angle_bisector", "bisector": "angle_bisector", "diagonal": "diagonal",
            "中线": "median", "高": "altitude", "高线": "altitude", "角平分线": "angle_bisector",
            "平分线": "angle_bisector", "对角线": "diagonal"}


def _on_segment_role(m: re.Match[str], b: Builder, off: int) -> None:
    kind = lookup(SEG_ROLE, m.group("role"))
    if kind is None:
        return
    for s in trim_list(_SEG_RE.findall(m.group("segs")), m, "segs"):
        b.element("segment", cn.segment(s), text=m.group(0))
        b.relation(kind, cn.segment(s), text=m.group(0))


def _on_bisects(m: re.Match[str], b: Builder, off: int) -> None:
    line = m.group("s")
    b.relation("angle_bisector", line if line.startswith("ℓ") else cn.segment(line), value=cn.angle(m.group("ang")), text=m.group(0))


def _on_bisector_meets(m: re.Match[str], b: Builder, off: int) -> None:
    vertex = cn.angle_vertex(cn.angle(m.group("ang")))
    p = m.group("p")
    if vertex is None or vertex == p:
        return
    b.point(p)
    bisector = cn.segment(vertex + p)
    b.relation("angle_bisector", bisector, value=cn.angle(m.group("ang")), text=m.group(0))
    b.relation("intersect", bisector, canon(m.group("o"), b, off + m.start()), p, text=m.group(0))


def _on_perp_bisector(m: re.Match[str], b: Builder, off: int) -> None:
    b.relation("perpendicular_bisector", canon(m.group("l"), b, off), cn.segment(m.group("s")), text=m.group(0))


CENTRE = {"外心": "circumcentre", "内心": "incentre", "重心": "centroid", "垂心": "orthocentre", "中心": "centre",
          "圆心": "centre", "incentre": "incentre", "incenter": "incentre", "circumcentre": "circumcentre",
           "circumcenter": "circumcentre", "centroid": "centroid", "barycenter": "centroid",
           "center of gravity": "centroid", "centre of gravity": "centroid", "orthocentre": "orthocentre",
           "orthocenter": "orthocentre", "centre": "centre", "center": "centre"}
CENTRE_WORDS_EN = "(?i:incentre|incenter|circumcentre|circumcenter|centroid|barycenter|centre of gravity|center of gravity|orthocentre|orthocenter|centre|center)"


def _on_centre(m: re.Match[str], b: Builder, off: int) -> None:
    kind = lookup(CENTRE, m.group("k"))
    if kind is None:
        return
    p = m.group("p")
    raw = m.group("s").strip()
    b.point(p)
    if kind == "centre" and raw.startswith("⊙"):
        if raw == "⊙":
            b.circle(off + m.start(), p)  # "O is the centre of the circle": the circle is ⊙O
        elif raw != "⊙" + p:
            b.relation("centre", p, cn.ref(raw), text=m.group(0))
        return
    b.relation(kind, p, canon(raw, b, off + m.start()), text=m.group(0))


def _on_centre_of_context(m: re.Match[str], b: Builder, off: int) -> None:
    """`O is the centre of the rectangle`: the polygon in context."""
    kind = lookup(CENTRE, m.group("k"))
    shape = b.context(off + m.start(), ("polygon",))
    if kind and shape:
        b.point(m.group("p"))
        b.relation(kind, m.group("p"), shape, text=m.group(0))


def _on_axis_meets(m: re.Match[str], b: Builder, off: int) -> None:
    """`... meets the x-axis at A and B`: the points lie on the axis (when no named object meets it,
    which the intersect rules cover)."""
    if re.search(f"{OBJ_CORE} $", m.string[max(0, m.start() - 24) : m.start()]):
        return
    for axis, pts in ((m.group("o"), m.group("pts")), (m.group("o2"), m.group("pts2"))):
        names = trim_list(_PNAME_RE.findall(pts), m, "pts") if pts and not m.group("o2") else _PNAME_RE.findall(pts or "")
        for p in names if axis else ():
            b.point(p)
            b.relation("on", p, axis.lower(), text=m.group(0))


def _on_inside(m: re.Match[str], b: Builder, off: int) -> None:
    word = m.group("w").lower()
    kind = "outside" if ("out" in word or "exterior" in word or "外" in word) else "inside"
    b.point(m.group("p"))
    b.relation(kind, m.group("p"), canon(m.group("s"), b, off + m.start()), text=m.group(0))


def _on_inscribed(swap: bool, m: re.Match[str], b: Builder, off: int) -> None:
    x, y = canon(m.group("a"), b, off + m.start()), canon(m.group("b"), b, off + m.start())
    if swap:
        x, y = y, x
    b.relation("inscribed", x, y, text=m.group(0))


def _on_named_circle_of(m: re.Match[str], b: Builder, off: int) -> None:
    circle = canon(m.group("a"), b, off + m.start())
    shape = canon(m.group("b"), b, off + m.start())
    if m.group("w").lower().startswith("circum") or "外接" in m.group("w"):
        b.relation("inscribed", shape, circle, text=m.group(0))
    else:
        b.relation("inscribed", circle, shape, text=m.group(0))


def _on_circle_of(m: re.Match[str], b: Builder, off: int) -> None:
    circle = b.circle_ref(m.group("c") or "⊙", off + m.start())
    shape = canon(m.group("b"), b, off + m.start())
    if m.group("w").lower().startswith("circum") or "外接" in m.group("w"):
        b.relation("inscribed", shape, circle, text=m.group(0))
    else:
        b.relation("inscribed", circle, shape, text=m.group(0))


def _on_concentric(m: re.Match[str], b: Builder, off: int) -> None:
    b.relation("concentric", canon(m.group("a"), b, off), canon(m.group("b"), b, off), text=m.group(0))


def _raw_poly(raw: str) -> str:
    return "".join(cn.point_tokens(raw))


def _on_congruent(m: re.Match[str], b: Builder, off: int) -> None:
    word = m.group("r")
    kind = "congruent" if word in ("≅", "全等") or word.lower().startswith("cong") else "similar"
    if m.group("a").startswith("∠") or m.group("b").startswith("∠"):
        return  # `∠KLM ≅ ∠STU` is two equal angles, not two congruent triangles
    x, y = _raw_poly(m.group("a")), _raw_poly(m.group("b"))
    if len(cn.point_tokens(x)) >= 3 and len(cn.point_tokens(y)) >= 3:
        b.relation(kind, x, y, text=m.group(0))


def _on_property(m: re.Match[str], b: Builder, off: int) -> None:
    name = m.group("name")
    adjs = [_PROPERTY.get(a.lower(), a.lower()) for a in _ADJ_RE.findall(m.group("adj") or "")]
    species = m.group("sp")
    if not adjs and not species:
        return
    kind = poly_kind(species) if species else ("triangle" if len(cn.point_tokens(name)) == 3 else "polygon")
    ref = b.polygon(off + m.start(), kind, name, text=m.group(0)) if species else cn.polygon(name)
    for adj in adjs:
        b.relation("property", ref, value=adj, text=m.group(0))


def _on_property_of_context(m: re.Match[str], b: Builder, off: int) -> None:
    """`the triangle is isosceles`: the one triangle (polygon) in context."""
    shape = b.context(off + m.start(), ("polygon",))
    sides = len(cn.point_tokens(shape))
    if not shape or (m.group("w").lower() == "triangle") != (sides == 3):
        return
    for adj in _ADJ_RE.findall(m.group("adj")):
        b.relation("property", shape, value=_PROPERTY.get(adj.lower(), adj.lower()), text=m.group(0))


def _on_equal_words(m: re.Match[str], b: Builder, off: int) -> None:
    x, y = canon(m.group("a"), b, off), canon(m.group("b"), b, off)
    if x.startswith("∠") and y.startswith("∠"):
        b.add("numerical", "equal_angle", (x, y), None, m.group(0))
    elif len(cn.point_tokens(x)) == 2 and len(cn.point_tokens(y)) == 2 and x == cn.segment(x):
        b.add("numerical", "equal_length", (x, y), None, m.group(0))


_CURVES = {"椭圆": "ellipse", "抛物线": "parabola", "双曲线": "hyperbola"}
_CURVE_ROLES = {"foci": "focus", "focus": "focus", "vertex": "vertex", "vertices": "vertex", "焦点": "focus", "顶点": "vertex"}


def _on_curve_point(m: re.Match[str], b: Builder, off: int) -> None:
    """`F1 and F2 are the foci of the ellipse`, `D is the vertex of the parabola`, `P lies on the
    hyperbola` (and 点P在椭圆上): a named point's place on the one unnamed conic of its kind (guide)."""
    curve = m.group("c").lower()
    curve = _CURVES.get(curve, curve)
    role = m.groupdict().get("k")
    kind = _CURVE_ROLES.get(role.lower(), "on") if role else "on"
    for p in subjects(_PNAME_RE.findall(m.group("pts")), m):
        b.point(p)
        b.relation(kind, p, curve, text=m.group(0))


def _on_apex(m: re.Match[str], b: Builder, off: int) -> None:
    """`P is the apex of the cone` (guide: a cone's apex is a relation of the cone)."""
    b.point(m.group("p"))
    b.relation("apex", m.group("p"), "cone", text=m.group(0))


def _on_cone_base(m: re.Match[str], b: Builder, off: int) -> None:
    """`circle O is the base of the cone`, `a cone with base circle O`, `its base is the circle O` (guide: a
    cone's base circle is a relation of the cone); only in a caption about a cone."""
    if not b.context(off + m.start(), ("solid",)).startswith("cone"):
        return
    b.relation("base", b.circle_ref(m.group("c") or m.group("c2"), off + m.start()), "cone", text=m.group(0))


def _on_directrix(m: re.Match[str], b: Builder, off: int) -> None:
    """`line l is the directrix of the parabola` (guide: a directrix is a line, its role a relation)."""
    line = m.group("l") if m.group("l").startswith("ℓ") else "ℓ" + m.group("l")
    b.element("line", line, text=m.group(0))
    b.relation("directrix", line, m.group("c").lower(), text=m.group(0))


def _on_origin(m: re.Match[str], b: Builder, off: int) -> None:
    p = m.group("p") or m.group("q") or m.group("r")
    b.point(p)
    b.number("coordinate", p, value=(0.0, 0.0), text=m.group(0))


def _on_coordinate(m: re.Match[str], b: Builder, off: int) -> None:
    parts = [m.group("x"), m.group("y")] + ([m.group("z")] if m.group("z") else [])
    values = [cn.parse_number(v) for v in parts]
    if any(v is None for v in values):
        return
    b.point(m.group("p"))
    b.number("coordinate", m.group("p"), value=tuple(v for v in values if v is not None), text=m.group(0))


def _on_centre_coordinate(m: re.Match[str], b: Builder, off: int) -> None:
    """`⊙C has centre (2, 3)`: C's coordinates (the centre is part of the circle's name, not a point element)."""
    values = [cn.parse_number(v) for v in (m.group("x"), m.group("y"), m.group("z")) if v]
    if all(v is not None for v in values):
        b.number("coordinate", m.group("p"), value=tuple(v for v in values if v is not None), text=m.group(0))


TUPLE = f"\\( ?{NUMC} ?, ?{NUMC}(?: ?, ?{NUMC})? ?\\)"
_TUPLE_RE = re.compile(f"\\( ?({NUMC}) ?, ?({NUMC})(?: ?, ?({NUMC}))? ?\\)")


def _on_coordinate_list(m: re.Match[str], b: Builder, off: int) -> None:
    """`the coordinates of A, B and C are (1, 1), (5, 1) and (3, 4)`: paired in order."""
    pts = _PNAME_RE.findall(m.group("pts"))
    tuples = _TUPLE_RE.findall(m.group("tuples"))
    if len(pts) != len(tuples):
        return
    for p, parts in zip(pts, tuples, strict=True):
        values = [cn.parse_number(v) for v in parts if v]
        if all(v is not None for v in values):
            b.point(p)
            b.number("coordinate", p, value=tuple(v for v in values if v is not None), text=m.group(0))


def _on_divides(m: re.Match[str], b: Builder, off: int) -> None:
    x, y = cn.point_tokens(m.group("s"))
    p = m.group("p")
    a, c = cn.parse_number(m.group("a")), cn.parse_number(m.group("b"))
    if a is None or c is None:
        return
    canon_ratio = cn.ratio_value((cn.segment(x + p), cn.segment(p + y)), (a, c))
    if canon_ratio:
        b.number("ratio", *canon_ratio[0], value=canon_ratio[1], text=m.group(0))


APPOS = "(?:,? \\([^()]{1,24}\\)|,? (?:of|with) [^,.;()]{1,24}?,?|, [^,.;]{1,30}?,)?"  # `⊙A (radius 2)`, `⊙A, of radius 2,` between a subject and its partner
AT_PTS = f"(?: (?i:at|in)(?i: the| a)?(?i: (?:two |three )?points?,?)? (?P<pts>{list_of(PNAME + COORDS, SEP, 3)}))"
AND_AT = f"(?:,? (?i:and) {obj('b2')} (?i:at) (?i:the )?(?i:point )?(?P<p2>{PNAME}))?"  # `... AB at G and CD at H`
RELATION_RULES = RuleSet([
    Rule(("∥",), rx(f"{OBJ_CORE}(?: ?∥ ?{OBJW}{OBJ_CORE}){{1,4}}"), partial(_pairwise, "parallel")),
    Rule(("parallel", "perpendicular"),
         rx(f"{lead('a')}(?:,? and | ?, ?){obj('b')} (?i:are|be|being) (?i:mutually )?(?P<rel>(?i:parallel|perpendicular))"),
         _on_parallel_words),
    Rule(("⊥",), rx(f"{lead('a')} ?⊥ ?{obj('b')}(?:,? (?i:at|with foot|with the foot at|with foot point|meeting it at"
                            f"|and the foot is|whose foot is|the foot being|with the foot being) (?i:point )?(?P<at>{PNAME}))?"),
         _on_perp),
    Rule(("foot",), rx(f"(?P<p>{PNAME}) (?i:is the foot of the (?:perpendicular|altitude|height)(?: line)?"
                               f"(?: (?:drawn |dropped )?from (?:point )?)?)(?P<src>{PNAME})?(?: (?i:to|on|onto) {obj('b')})?"),
         _on_foot),
    Rule(("foot",), rx(f"(?i:the foot of the (?:perpendicular|altitude|height)(?: line)? (?:drawn |dropped )?from (?:point )?)"
                               f"(?P<src>{PNAME})(?i: to| on| onto) {obj('b')}(?i: is| =) (?i:point )?(?P<p>{PNAME})"),
         _on_foot),
    Rule(("midpoint",), rx(f"(?P<pts>{list_of(PNAME, SEP, 6)}) (?P<v>(?i:is|are)) (?i:the |a )?(?i:midpoints?) (?i:of) "
                                   f"(?P<segs>{OBJ_LIST})"), _on_midpoint),
    Rule(("midpoint",), rx(f"(?i:midpoint) (?i:of) (?P<segs>{OBJW}{OBJ_CORE}) (?i:is) (?i:point )?(?P<pts>{PNAME})"),
         _on_midpoint),
    Rule(("midpoint",), rx(f"(?i:midpoint) (?i:point )?(?P<pts>{PNAME}) (?i:of) (?P<segs>{OBJW}{OBJ_CORE})"), _on_midpoint),
    Rule(("midpoint",), rx(f"(?P<pts>{PNAME}), (?i:the |a )?(?i:midpoint) (?i:of) (?P<segs>{OBJW}{OBJ_CORE})"), _on_midpoint),
    Rule((" on", " upon", "point of", "points of"),
         rx(f"(?P<pts>{list_of(PNAME + COORDS, SEP, 10)}) (?P<v>(?i:lies|lie|lying|is a point|is a moving point|is any point|is located|is|are located"
                    f"|are points|are (?:two|three|four|five|six) (?:distinct )?points|are|moves|all lie|both lie))(?i: on| upon|(?<=point) of|(?<=points) of)(?i: the extension of| the extended line of)? {obj('o')}"),
         _on_on),
    Rule(("point",), rx(f"(?i:points?) (?P<pts>{PLIST}) (?i:on) {obj('o')}"), _on_on),
    Rule((" on",), rx(f"(?P<pts>{list_of(PNAME + COORDS, SEP, 6)}) (?i:on) {obj('o')}(?= ?(?:[,;:.]|$| (?i:and|with) ))"), _on_on),  # terse: `D on AC;`, `A, B on ⊙O;`
    Rule(("-axis",), rx(f"(?:has|with|,|and) (?:(?i:vertex|point) )?(?P<pts>{PNAME}) (?i:on) (?i:the )?(?P<o>{AXIS})"),
         _on_on),
    Rule(("and on ",), rx(f"(?P<pts>{PNAME}) (?i:lies|is|lie) (?i:on) {obj('o')} (?i:and on) {obj('o2')}"), _on_on_both),
    Rule(("from",),
         rx(f"(?P<p>{PNAME})(?: (?i:on|of) {OBJ_CORE})? ?= ?(?P<v>{NUMC})(?: (?i:units?|cm))? (?i:away )?(?i:from) (?i:point )?(?P<q>{PNAME})"
            f"|(?i:the )?(?i:distance) (?i:from|between) (?i:point )?(?P<p2>{PNAME}) (?i:to|and) (?i:point )?(?P<q2>{PNAME}) ?= ?(?P<v2>{NUMC})"),
         _on_distance),
    Rule(("cent",),
         rx(f"⊙(?P<p>{PT}){RB} (?i:has|with) (?i:its )?(?i:centre|center) (?i:at )?(?i:point )?\\( ?(?P<x>{NUMC}) ?, ?(?P<y>{NUMC})"
            f"(?: ?, ?(?P<z>{NUMC}))? ?\\)"),
         _on_centre_coordinate),
    Rule(("through",), rx(f"{lead('o')} (?i:passes|passing|pass|goes|going|runs|running|run) (?i:through) (?i:the )?(?i:points? )?(?P<pts>{list_of(PNAME + COORDS, SEP, 10)})"), _on_on),
    Rule(("collinear", "line"),
         rx(f"(?P<pts>{PLIST}) (?i:are collinear|collinear|lie on (?:a|the same|one) (?:straight )?line"
                    f"|are on (?:a|the same|one) (?:straight )?line)"),
         _on_collinear),
    Rule(("intersect", "meet", "cross"),
         rx(f"{lead('a')}(?: ?= ?{NUMC})?(?:,? and | ?, ?){obj('b')}(?: ?= ?{NUMC})?(?: (?i:of) {OBJW}{OBJ_CORE})?"
                    ",? (?i:(?:that |which )?(?:intersect|intersects|intersecting|meet|meets|meeting|cross"
                    f"|crosses|crossing|intersected|are intersecting))(?i: each other)?{AT_PTS}"),
         _on_intersect),
    Rule(("intersect", "meet", "cut", "cross"),
         rx(f"{lead('a')} (?i:intersects|meets|cuts|crosses|intersect|meet|intersecting|meeting) {obj('b')}{AT_PTS}{AND_AT}"),
         _on_intersect),
    Rule((" and intersects", " and meets", " and cuts", " and crosses"),
         rx(f"{lead('a')}[^,.;]{{0,64}}? (?i:and) (?i:intersects|meets|cuts|crosses) {obj('b')}{AT_PTS}{AND_AT}"),
         _on_intersect),
    Rule(("that intersect", "which intersect", "that meet", "which meet", "that cross", "which cross"),
         rx(f"{lead('a')}(?:,? and | ?, ?){obj('b')} (?i:are|is) (?:[a-z]{{1,12}} ){{1,3}}?(?i:that|which) (?i:intersect|meet|cross)"
            f"(?i: each other)?{AT_PTS}"),
         _on_intersect),
    Rule(("meeting", "intersecting", "crossing"),
         rx(f"{lead('a')}(?:,? and | ?, ?){obj('b')} (?i:are|is) [^,.;]{{1,40}}? (?i:meeting|intersecting|crossing)(?i: each other)?{AT_PTS}"),
         _on_intersect),
    Rule(("intersection", "common point"),
         rx(f"(?P<pts>{PNAME}) (?i:is) (?i:the) (?i:point of intersection|intersection point|intersection|common point)"
                    f"(?i: of| between) {obj('a')} (?i:and) {obj('b')}"),
         _on_intersect),
    Rule(("intersection",),
         rx(f"(?i:the (?:point of intersection|intersection point|intersection) of) {obj('a')} (?i:and|with) {obj('b')}"
                    f" (?i:is) (?i:point )?(?P<pts>{PNAME})"),
         _on_intersect),
    Rule(("tangent",),
         rx(f"(?<!of )(?P<subj>{LEAD_LIST}) (?:(?i:is|are) (?i:a |an |the )?)?(?i:externally |internally )?(?i:tangents?)(?i: lines?)?"
                    f" (?i:to|of) {obj('c')}{AT_PTS}?"),
         _on_tangent_to),
    Rule(("tangent",),
         rx(f"(?i:tangents?|tangent lines?) (?P<subj>{list_of(SEG, SEP, 3)}) [^.;]{{0,40}}?(?i:to|of|touches|touch) {obj('c')}"
                    f"(?:[^.;]{{0,24}}?(?i: at)(?i: the)?(?i: points?)? (?P<pts>{list_of(PNAME, SEP, 3)}))?"),
         _on_tangent_to),
    Rule(("touch",), rx(f"(?<!of )(?P<subj>{OBJ_CORE}) (?i:touches|touch) {obj('c')}(?:,[^,.;]{{1,40}},)?{AT_PTS}?"),
         _on_tangent_to),
    Rule(("touch", "tangent"),  # `⊙O, inscribed in ..., has radius 1 and touches BC at D`: the circle is the subject
         rx(f"(?P<subj>⊙{PT}){RB}[^.;⊙ℓ]{{0,60}}?(?:,|,? (?i:and)) (?i:touches|is tangent to|tangent to) {obj('c')}{AT_PTS}?"),
         _on_tangent_to),
    Rule(("touch", "tangent"),
         rx(f"(?P<subj>{SEG})(?: (?i:is|as) (?i:a |an |the )?(?i:chord|diameter|secant))? (?i:of|in) {CIRC},? (?i:that |which |and )?(?i:touches|is tangent to|is also tangent to) {obj('c')}{AT_PTS}?"),
         _on_tangent_to),
    Rule(("touch", "exactly one", "only one"),  # two objects with one common point touch there
         rx(f"{lead('a')}{APPOS}(?:,? and | ?, ?){obj('b')}{APPOS},? (?i:touch|touch each other|are touching"
            f"|(?:meet|intersect|cross) (?:at |in )?(?:exactly|only) one point|have (?:exactly |only )?one (?:common )?point(?: in common)?)"
            f"(?i: externally| internally)?(?:(?: (?i:at))? (?i:the )?(?i:point )?(?P<p>{PNAME}))?"),
         _on_tangent_pair),
    Rule(("tangent",),
         rx(f"(?i:the |a )?(?i:tangent)(?i: line)? (?:(?i:to) {obj('c')} )?(?i:at) (?i:point )?(?P<t>{PNAME})(?: (?i:to) {obj('c2')})?"
            f" (?i:meets|intersects|cuts|crosses) {obj('o')} (?i:at) (?i:point )?(?P<p>{PNAME})"),
         _on_tangent_at_meets),
    Rule(("radii",), rx(f"(?i:radii)(?: (?i:of|are|=))? ?(?P<v1>{NUMC})(?: (?i:units?))?,? (?i:and )?(?P<v2>{NUMC})"), _on_radii),
    Rule((" cut by", " intersected by", " crossed by", " met by"),
         rx(f"(?P<subj>{LEAD_LIST})(?: [^.;]{{0,60}}?)?,? (?i:and )?(?:(?i:are|is|both|each|they are) ){{0,2}}"
            f"(?i:cut|intersected|crossed|met) (?i:by) {obj('b')}{AT_PTS}"),
         _on_cut_by),
    Rule(("concentric",), rx(f"(?P<a>⊙{BIG}) (?i:and) (?P<b>⊙{SMALL}) (?i:are concentric)"), partial(_on_concentric_pair)),
    Rule(("inscribed",),
         rx(f"(?P<a>{SOLIDWORD})(?: (?P<an>{SOLID_NAME}))?(?: [^.;,]{{0,30}}?)? (?:(?i:is|are) )?(?i:inscribed) (?i:in|into|within)"
            f" (?i:a |an |the )?(?P<b>{SOLIDWORD})(?: (?P<bn>{SOLID_NAME}))?"
            f"|(?P<b2>{SOLIDWORD})(?: (?P<bn2>{SOLID_NAME}))? (?i:contains|has) (?i:an |a )?(?i:inscribed) (?P<a2>{SOLIDWORD})"),
         _on_solid_inscribed),
    Rule(("tangent",),
         rx(f"{lead('a')}{APPOS}(?:,? and | ?, ?){obj('b')}{APPOS},? (?:(?i:are|is) )?(?i:externally |internally |mutually )?(?i:tangent)"
            f"(?! (?i:to|of) (?!each))(?i: to each other)?(?i: externally| internally| from outside| from inside)?"
            f"(?: (?i:at) (?i:the )?(?i:point )?(?P<p>{PNAME}))?"),
         _on_tangent_pair),
    Rule(("chord", "diameter", "radi"),
         rx(f"(?P<segs>{list_of(SEG, SEP, 4)}) (?i:is|are|as) (?i:a |an |the )?(?P<role>(?i:chords?|diameters?|radii|radius))"
                    f"(?: (?i:of) {obj('c')})?"),
         _on_circle_role),
    Rule((" chord of", " diameter of"),  # terse: `BC diameter of ⊙O;`
         rx(f"(?<![A-Za-z] )(?P<segs>{SEG}) (?P<role>(?i:chord|diameter)) (?i:of) {obj('c')}"), _on_circle_role),
    Rule(("chord", "diameter", "radi"),  # `radi`: `the radii OA and OB` as well
         rx(f"(?P<role>(?i:chords?|diameters?|radii|radius)) (?P<segs>{list_of(SEG, SEP, 4)})(?: (?i:of) {obj('c')})?"),
         _on_circle_role),
    Rule(("median", "altitude", "height", "bisector", "diagonal"),
         rx(f"(?P<segs>{list_of(SEG, SEP, 4)}) (?i:is|are|as) (?i:a |an |the )?(?i:corresponding )?"
                    "(?P<role>(?i:medians?|altitudes?|heights?|angle bisectors?|angular bisectors?|bisectors?|diagonals?))"
                    "(?! of (?:the )?(?:segment |side )?[A-Z]{2}(?![A-Z]))"),
         _on_segment_role),
    Rule(("median", "altitude", "height", "bisector", "diagonal"),
         rx(f"(?P<role>(?i:median|altitude|height|angle bisector|diagonals|diagonal|medians|altitudes)),? "
                    f"(?P<segs>{list_of(f'{SEG}(?: ?= ?{NUMC})?', SEP, 4)})"),
         _on_segment_role),
    Rule(("bisect",), rx(f"(?P<s>{SEG}|{LINE_NAME}) (?i:bisects|bisecting|which bisects|that bisects|is the bisector of|is the angle bisector of) (?P<ang>{ANG})"), _on_bisects),
    Rule(("bisector",),
         rx(f"(?i:the (?:angle )?bisector of) (?P<ang>{ANG})(?: [^,.;]{{0,30}}? (?i:and))? (?i:meets|intersects|cuts|crosses) "
            f"{obj('o')} (?i:at) (?i:the )?(?i:point )?(?P<p>{PNAME})"),
         _on_bisector_meets),
    Rule(("perpendicular bisector",),
         rx(f"{lead('l')} (?i:is) (?i:the )?(?i:perpendicular bisector) (?i:of) (?:{OBJW})?(?P<s>{SEG})"),
         _on_perp_bisector),
    Rule(("cent", "centroid", "barycenter"),
         rx(f"(?P<p>{PNAME}) (?i:is) (?i:the )?(?P<k>{CENTRE_WORDS_EN}) (?i:of) {obj('s')}"), _on_centre),
    Rule(("cent", "centroid", "barycenter"),
         rx(f"(?P<k>{CENTRE_WORDS_EN}) (?i:of) {obj('s')} (?i:is) (?i:the )?(?i:point )?(?P<p>{PNAME})"), _on_centre),
    Rule(("cent", "centroid", "barycenter"),
         rx(f"(?P<k>{CENTRE_WORDS_EN}) (?i:point )?(?P<p>{PNAME}) (?i:of) {obj('s')}"), _on_centre),
    Rule(("centre of", "center of"),  # terse: `O centre of face ABCD;`
         rx(f"(?:^ ?|(?<=[;:,] ))(?P<p>{PNAME}) (?P<k>(?i:centre|center|incentre|incenter|circumcentre|circumcenter|centroid|orthocentre"
            f"|orthocenter)) (?i:of) {obj('s')}"), _on_centre),
    Rule(("inside", "outside", "interior", "exterior", "within"),
         rx(f"(?<!⊙)(?P<p>{PNAME}) (?i:is|lies|is located)(?i: a point)? (?P<w>(?i:inside|outside|in the interior of"
                    f"|in the exterior of|within|interior to|exterior to)) {obj('s')}"),
         _on_inside),
    Rule(("inside", "outside"), rx(f"(?i:point) (?P<p>{PNAME}) (?P<w>(?i:inside|outside)) {obj('s')}"), _on_inside),
    Rule(("inscribed",), rx(f"{lead('a')} (?:(?i:is|are) )?(?i:inscribed) (?i:in|into|within) {obj('b')}"),
         partial(_on_inscribed, False)),
    Rule(("circumscribed",), rx(f"{lead('a')} (?i:is |are )?(?i:circumscribed) (?i:about|around|to) {obj('b')}"),
         partial(_on_inscribed, True)),
    Rule(("circumscribes",), rx(f"{lead('a')} (?i:circumscribes) {obj('b')}"), partial(_on_inscribed, True)),
    Rule(("circumcircle", "incircle", "inscribed circle", "circumscribed circle"),
         rx(f"{lead('a')} (?i:is) (?i:the |an |a )?(?P<w>(?i:circumcircle|circumscribed circle|incircle|inscribed circle))"
                    f" (?i:of) {obj('b')}"),
         _on_named_circle_of),
    Rule(("circumcircle", "incircle", "inscribed circle", "circumscribed circle"),
         rx(f"(?P<w>(?i:circumcircle|circumscribed circle|incircle|inscribed circle)) (?P<c>{CIRC} )?(?i:of) {obj('b')}"),
         _on_circle_of),
    Rule(("concentric",), rx(f"{lead('a')}(?:,? and | ?, ?){obj('b')} (?i:are) (?i:concentric)"), _on_concentric),
    Rule(("≅", "∼"), rx(f"{lead('a')} ?(?P<r>[≅∼]) ?{obj('b')}"), _on_congruent),
    Rule(("congruent", "similar"),
         rx(f"{lead('a')} (?i:and) {obj('b')} (?i:are) (?P<r>(?i:congruent|similar))"), _on_congruent),
    Rule((" is ", " are "),
         rx(f"(?P<name>{POLY}) (?i:is|are) (?i:a |an )?"
                    f"(?P<adj>(?:{ADJ}[ ,]{{0,2}}(?i:and )?){{0,3}})(?P<sp>{POLYWORD})?"),
         _on_property),
    Rule(("equal",), rx(f"{lead('a')}(?:,? and | ?, ?){obj('b')} (?i:are) (?i:equal)"), _on_equal_words),
    Rule(("the triangle is", "this triangle is", "the quadrilateral is", "the polygon is"),
         rx(f"\\b(?i:the|this) (?P<w>(?i:triangle|quadrilateral|polygon)) (?i:is) (?i:a |an |also )?(?P<adj>(?:{ADJ}[ ,]{{0,2}}(?i:and )?){{1,3}})"),
         _on_property_of_context),
    Rule(("origin",), rx(f"(?i:the origin)(?: (?i:is))? (?i:point )?(?P<p>{PNAME})|(?P<q>{PNAME}),? (?i:is|is at|lies at|at|as|being) (?i:the origin)"
                          f"|(?i:with|and) (?P<r>{PNAME}) (?i:the origin)"),
         _on_origin),
    Rule(("meeting", "intersecting", "cutting", "crossing"),
         rx(f"{lead('a')}[^,.;]{{0,40}}?, (?i:meeting|intersecting|cutting|crossing) {obj('b')}{AT_PTS}"), _on_intersect),
    Rule(("-axis",),
         rx(f"(?i:meets|intersects|cuts|crosses|meeting|intersecting|cutting|crossing) (?i:the )?(?P<o>{AXIS}){AT_PTS}"
                    f"(?:,? (?i:and) (?i:the )?(?P<o2>{AXIS})(?: (?i:at|in)(?i: the)?(?i: points?)? (?P<pts2>{list_of(PNAME, SEP, 3)})))?"),
         _on_axis_meets),
    Rule(("cent",),
         rx(f"(?P<p>{PNAME}) (?i:is) (?i:the )?(?P<k>{CENTRE_WORDS_EN}) (?i:of) (?i:the|this) (?P<w>{POLYWORD})\\b"),
         _on_centre_of_context),
    Rule(("centroid", "incent", "circumcent", "orthocent"),  # `G is the centroid.`, `G, the centroid of the triangle`
         rx(f"(?P<p>{PNAME})(?: (?i:is)|,) (?i:the )?(?P<k>(?i:centroid|incentre|incenter|circumcentre|circumcenter|orthocentre"
            f"|orthocenter))(?= ?(?:[,;.]|$| (?i:of) (?i:the|this) ))"),
         _on_centre_of_context),
    Rule(("(",), rx(f"(?P<p>{PNAME}) ?(?:= ?|(?i:is) )?\\( ?(?P<x>{NUMC}) ?, ?(?P<y>{NUMC})(?: ?, ?(?P<z>{NUMC}))? ?\\)"),
         _on_coordinate),
    Rule(("coordinate",),
         rx(f"(?i:coordinates?) (?i:of) (?i:points? )?(?P<pts>{PLIST}) (?i:are|=|:) ?(?P<tuples>{list_of(TUPLE, SEP, 8)})"),
         _on_coordinate_list),
    Rule(("foci", "focus", "vertex", "vertices"),
         rx(f"(?P<pts>{list_of(PNAME, SEP, 2)}) (?P<v>(?i:is|are)) (?i:the )?(?:(?i:left|right|upper|lower|two) )?(?P<k>(?i:foci|focus|vertex|vertices))"
            f" (?i:of) (?i:the )?(?P<c>(?i:ellipse|parabola|hyperbola))\\b"), _on_curve_point),
    Rule(("ellipse", "parabola", "hyperbola"),
         rx(f"(?P<pts>{list_of(PNAME, SEP, 3)}) (?P<v>(?i:lies|lie|is|are|is a point|is a moving point|is any point|are (?:two |three )?points)) (?i:on|of) (?i:the )?"
            f"(?P<c>(?i:ellipse|parabola|hyperbola))\\b"), _on_curve_point),
    Rule(("base",), rx(f"(?P<c>⊙ ?{PNAME}) (?i:is) (?i:the )?(?i:base|base circle) (?i:of) (?i:the |a )?(?i:cone)\\b"
                       f"|(?i:base)(?: (?i:circle))?(?: (?i:is))?(?: (?i:the))? (?P<c2>⊙ ?{PNAME})"), _on_cone_base),
    Rule(("apex", "vertex of the cone", "tip"), rx(f"(?P<p>{PNAME}) (?i:is) (?i:the )?(?i:apex|vertex|tip) (?i:of) (?i:the |a )?(?i:cone)\\b"), _on_apex),
    Rule(("directrix",), rx("(?:(?i:line) )?(?P<l>ℓ?[a-z]\\d{0,2}) (?i:is) (?i:the )?(?i:directrix) (?i:of) (?i:the )?(?P<c>(?i:ellipse|parabola|hyperbola))\\b"),
         _on_directrix),
    Rule(("divides",), rx(f"(?P<p>{PNAME}) (?i:divides) (?P<s>{SEG}) (?i:in the ratio of|in the ratio|in a ratio of) "
                                  f"(?P<a>{NUMC}) ?: ?(?P<b>{NUMC})"), _on_divides),
])
