"""English caption parser: normalise phrasing to one notation, then run small bounded rules.

What a caption yields (the rule this module implements, so that references and candidates
are read the same way):

- elements are the objects the caption *names* with a type word or symbol: `triangle ABC`
  / `△ABC`, `circle O` / `⊙O`, `segment AB`, `side BC`, `chord AB`, `diagonals AC and BD`,
  `line l`, `ray AB`, `arc AB`, `∠ABC`, `point D`, axes, solids, planes; plus the points a
  sentence locates (`E is the midpoint of AB` names point E). Points and segments that are
  only *implied* (A, B, C by `triangle ABC`; AB by `AB = 5`) are not emitted;
- a polygon called by two kinds (`quadrilateral ABCD is a parallelogram`) is one element
  of the most specific kind; triangle adjectives (isosceles, equilateral, right) are
  `property` relations;
- an equality chain `AB = AC = 5` gives each member's value and every equal pair;
- `∠B` is read as the interior angle ∠ABC when B is a vertex of exactly one named polygon;
  `right-angled at B` gives the value ∠ABC = 90° but no angle element (no angle is named);
- the figure's own wording is not needed: `the circle`, `its radius`, `the side length`
  refer to the nearest shape of that family mentioned before (else after) in the caption.

- phrasing families are one notation: `touches` is tangent; `two circles centred at O` /
  `concentric circles` are ⊙⁺ and ⊙⁻ (the larger and the smaller: `big`, `outer` ...),
  concentric; `cut by a transversal c at A and B` / `c crosses a at A and b at B` are
  intersections; `AD is drawn` / `join AD` name segment AD; `∠1 and ∠2 are both 50°`,
  `its length is 9`, `P is 4 units from O`, `their radii are 3 and 2` give values.

How: `normalise` maps phrasing to one notation (`is parallel to` -> `∥`, `circle O` -> `⊙O`,
`angle ABC` -> `∠ABC`, `the coordinates of A are` -> `A =`, `radius 3` -> `radius = 3`,
capitalised English words to lower case); then mention, element and relation rules run,
and equality chains become numbers (`_engine.equations`).

Where: `en_reference` (pronouns, bare line letters), `en_normalise` (the phrasing
substitutions), `en_patterns` (the shared name patterns and kind words), `en_relations`
(the relation rules); this module holds the mention and element rules and the entry point.
"""

from __future__ import annotations

import re
from functools import partial

from . import canonical as cn
from ._engine import (
    ANG,
    ARC,
    AXIS,
    CIRC,
    LINE_NAME,
    NUMC,
    PLANE,
    PNAME,
    POLY,
    PT,
    SEG,
    SOLID_NAME,
    Builder,
    Rule,
    RuleSet,
    TermGrammar,
    affirmed,
    denied_segments,
    equations,
    list_of,
    run_rules,
    sentences,
)
from .en_normalise import IMPLIED, normalise
from .en_patterns import (
    _ADJ_RE,
    _PNAME_RE,
    _POLY_RE,
    _PROPERTY,
    _SEG_RE,
    ADJ,
    PLIST,
    POLYWORD,
    SEP,
    SOLIDWORD,
    poly_kind,
    rx,
    solid_kind,
    trim_list,
)
from .en_relations import RELATION_RULES
from .model import KeypointSet

# --------------------------------------------------------------------------- mention rules

_ADJS_BEFORE = re.compile(f"(?<![A-Za-z-])(?:(?:{ADJ}|Rt) ?){{1,3}}$")


def adjectives_before(m: re.Match[str]) -> list[str]:
    """`isosceles right triangle ABC`, `Rt△ABC`: the adjectives just before the match."""
    found = _ADJS_BEFORE.search(m.string, max(0, m.start() - 40), m.start())
    return [_PROPERTY.get(a.lower(), a.lower()) for a in _ADJ_RE.findall(found.group(0))] if found else []


def _on_polygon(m: re.Match[str], b: Builder, off: int) -> None:
    kind = poly_kind(m.group("word")) if m.group("word") else "triangle"
    adjs = adjectives_before(m)
    for name in _POLY_RE.findall(m.group("names")):
        ref = b.polygon(off + m.start(), kind, name, text=m.group(0))
        for adj in adjs:
            b.relation("property", ref, value=adj, text=m.group(0))


def _on_circle(m: re.Match[str], b: Builder, off: int) -> None:
    b.circle(off + m.start(), m.group(0)[1:])


_SOLID_QUALIFIER = re.compile("(?:regular |right |triangular |square |quadrilateral |rectangular |pentagonal |hexagonal "
                              "|oblique ){1,2}$")


def _on_solid(m: re.Match[str], b: Builder, off: int) -> None:
    qualifier = _SOLID_QUALIFIER.search(m.string, max(0, m.start() - 40), m.start())
    kind = solid_kind(m.group("w"), qualifier.group(0) if qualifier else "")
    if kind is None:
        return
    name = cn.solid_name(kind, m.group("name") or "")
    ref = f"{kind} {name}".strip()
    if name:
        b.element(kind, name, text=m.group(0))
    else:
        b.element(kind, text=m.group(0))
    b.mention(off + m.start(), "solid", ref)
    if kind in ("sphere", "cylinder", "cone", "hemisphere", "frustum"):
        b.mention(off + m.start(), "round", ref)


def _on_circle_centre(m: re.Match[str], b: Builder, off: int) -> None:
    """`O is the centre of the circle` names that circle ⊙O (before any rule asks for 'the circle')."""
    b.circle(off + m.start(), m.group("p") or m.group("q") or m.group("r"))


def _on_unnamed_circle(m: re.Match[str], b: Builder, off: int) -> None:
    b.unnamed_circle = True


MENTION_RULES = RuleSet([
    Rule(("triangle", "quadrilateral", "rectangle", "square", "parallelogram", "rhomb", "trapez", "kite",
          "gon"),
         rx(f"(?P<word>{POLYWORD}) ?:? ?(?:(?i:base|face|cross-section|section) )?"
                    f"(?P<names>{list_of(POLY, SEP, 8)})"),
         _on_polygon),
    Rule(("△",), rx(f"(?P<word>)△ ?(?P<names>{POLY})"), _on_polygon),
    Rule(("⊙",), rx(CIRC), _on_circle),
    Rule(("circumcircle", "incircle", "inscribed circle", "circumscribed circle"),
         rx("(?i:circumcircle|incircle|inscribed circle|circumscribed circle)"), _on_unnamed_circle),
    Rule(("cent",), rx(f"(?P<p>{PNAME}) (?i:is) (?i:the )?(?i:centre|center) (?i:of) ⊙(?!{PT})"
                               f"|(?i:the )?(?i:centre|center) (?i:of) ⊙(?!{PT}) (?i:is) (?i:point )?(?P<q>{PNAME})"
                               f"|⊙(?!{PT}) (?i:has|with) (?i:its )?(?i:centre|center) (?i:at )?(?i:point )?(?P<r>{PNAME})"),
         _on_circle_centre),
    Rule(("cube", "cuboid", "prism", "box", "cylinder", "cone", "sphere", "ball", "pyramid", "tetrahed", "frustum"),
         rx(f"(?P<w>{SOLIDWORD})\\b(?: (?P<name>{SOLID_NAME}))?"),
         _on_solid),
])


# --------------------------------------------------------------------------- element rules

def _elements(kind: str, pattern: re.Pattern[str], m: re.Match[str], b: Builder, off: int) -> None:
    for raw in trim_list(pattern.findall(m.group("names")), m):
        if kind == "ray":
            b.element("ray", "".join(cn.point_tokens(raw)), text=m.group(0))
        elif kind == "point":
            b.point(raw)
        else:
            b.element(kind, cn.ref(raw), text=m.group(0))


def _on_drawn(m: re.Match[str], b: Builder, off: int) -> None:
    """`AD is drawn`, `join BE`: the segments a construction names."""
    names = m.groupdict()
    for raw in _SEG_RE.findall(names.get("names") or names.get("names2") or ""):
        b.element("segment", cn.segment(raw), text=m.group(0))


def _on_joined(m: re.Match[str], b: Builder, off: int) -> None:
    if m.group("x") != m.group("y"):
        b.element("segment", cn.segment(m.group("x") + m.group("y")), text=m.group(0))


def _on_angle(m: re.Match[str], b: Builder, off: int) -> None:
    b.element("angle", cn.angle(m.group(0)), text=m.group(0))


def _on_arc(m: re.Match[str], b: Builder, off: int) -> None:
    b.element("arc", cn.arc(m.group(0)), text=m.group(0))


def _on_axis(m: re.Match[str], b: Builder, off: int) -> None:
    word = m.group(0).lower()
    if word.endswith("-axis"):
        b.element("axis", word, text=word)
        return
    b.element("coordinate_system", text=m.group(0))
    if "axes" in word:
        b.element("axis", "x-axis", text=m.group(0))
        b.element("axis", "y-axis", text=m.group(0))


def _on_curve(m: re.Match[str], b: Builder, off: int) -> None:
    b.element(m.group(0).lower().rstrip("s"), text=m.group(0))


def _on_plane(m: re.Match[str], b: Builder, off: int) -> None:
    b.element("plane", cn.plane(m.group(0)), text=m.group(0))


def _on_semicircle(m: re.Match[str], b: Builder, off: int) -> None:
    seg = m.group("seg")
    if seg:
        b.element("semicircle", cn.segment(seg), text=m.group(0))
    else:
        b.element("semicircle", text=m.group(0))


ELEMENT_RULES = RuleSet([
    Rule(("segment", "side", "edge", "chord", "diameter", "radi", "diagonal", "median", "altitude", "height",
          "leg", "hypotenuse", "base"),
         rx("(?P<w>(?i:line segments?|segments?|sides?|edges?|chords?|diameters?|radii|radius|diagonals?"
                    "|medians?|altitudes?|heights?|legs?|hypotenuse|bases?)) ?:? ?"
                    f"(?P<names>{list_of(f'{SEG}(?: ?= ?{NUMC})?', SEP, 10)})"),
         partial(_elements, "segment", _SEG_RE)),
    Rule(("line",), rx(f"(?i:(?:straight )?lines?) ?:? ?(?P<names>{list_of(f'(?:{SEG}|{LINE_NAME})', SEP, 8)})"),
         partial(_elements, "line", rx(f"{SEG}|{LINE_NAME}"))),
    Rule(("ℓ",), rx(LINE_NAME), lambda m, b, off: b.element("line", cn.ref(m.group(0)), text=m.group(0))),  # `c ⊥ a` names lines
    Rule(("ray",), rx(f"(?i:rays?) ?:? ?(?P<names>{list_of(SEG, SEP, 6)})"), partial(_elements, "ray", _SEG_RE)),
    Rule(("connect", "join", "draw"),
         rx(f"(?i:connect|join|draw)(?i:s|ed|ing)? (?i:the )?(?i:line )?(?i:segments? )?(?P<names>{list_of(SEG, SEP, 6)})"),
         _on_drawn),
    Rule((" is drawn", " are drawn", " is joined", " are joined", " is connected", " are connected"),
         rx(f"(?P<names2>{list_of(SEG, SEP, 6)}) (?i:is|are) (?i:drawn|joined|connected)"), _on_drawn),
    Rule((" drawn", " joined", " connected"),  # terse: `DE drawn;`
         rx(f"(?<![A-Za-z] )(?P<names2>{list_of(SEG, SEP, 6)}) (?i:drawn|joined|connected)(?= ?(?:[,;:.]|$))"), _on_drawn),
    Rule(("join", "connect"),  # `join A(0, 4) to B(3, 0)`
         rx(f"(?i:join|connect)(?i:s|ed|ing)? (?i:point )?(?P<x>{PNAME})(?: ?\\([^()]{{1,30}}\\))? (?i:to|with|and) (?i:point )?(?P<y>{PNAME})"),
         _on_joined),
    Rule(("join", "connect"), rx(f"(?P<x>{PNAME}) (?i:is |are )?(?i:joined|connected) (?i:to|with) (?i:point )?(?P<y>{PNAME})"),
         _on_joined),
    Rule(("vert",), rx(f"(?<![a-z])(?i:vertex|vertices) ?:? (?:(?i:is|at|are) )?(?:(?i:point|points) )?(?P<names>{PLIST})"),
         partial(_elements, "point", _PNAME_RE)),
    Rule(("point",), rx(f"(?<![a-z])points? ?:? ?(?P<names>{PLIST})"), partial(_elements, "point", _PNAME_RE)),
    Rule(("∠",), rx(f"(?<!{IMPLIED}){ANG}"), _on_angle),
    Rule(("⌒",), rx(ARC), _on_arc),
    Rule(("axis", "axes", "coordinate", "cartesian", "xoy", "xy-plane", "xy plane"),
         rx(f"{AXIS}|(?i:coordinate (?:system|plane|axes|grid)|cartesian|\\bx ?O ?y\\b|\\bxy(?:-| )plane\\b)"), _on_axis),
    Rule(("parabola", "ellipse", "hyperbola"), rx("(?i:parabola|ellipse|hyperbola)s?"), _on_curve),
    Rule(("plane",), rx(PLANE), _on_plane),
    Rule(("semicircle",), rx(f"(?i:semicircles?)(?: (?i:on|with diameter|over) (?P<seg>{SEG}))?"), _on_semicircle),
])



# --------------------------------------------------------------------------- equations

_QTY = {"surface area": ("surface_area", 1.0), "lateral area": ("lateral_area", 1.0),
        "side length": ("side_length", 1.0), "edge length": ("side_length", 1.0), "side": ("side_length", 1.0),
        "edge": ("side_length", 1.0), "slant height": ("slant_height", 1.0), "circumference": ("circumference", 1.0),
        "perimeter": ("perimeter", 1.0), "diameter": ("radius", 0.5), "radius": ("radius", 1.0),
        "volume": ("volume", 1.0), "height": ("height", 1.0), "altitude": ("height", 1.0), "area": ("area", 1.0)}
_QTY_CONTEXT = {"radius": ("circle", "round"), "circumference": ("circle", "round"), "side_length": ("polygon", "solid"),
                "area": ("polygon", "circle", "solid"), "perimeter": ("polygon", "circle"), "height": ("solid", "polygon"),
                "volume": ("solid",), "surface_area": ("solid",), "lateral_area": ("solid",), "slant_height": ("solid",)}
QTY_PATTERN = (
    "(?i:(?:the )?(?:total )?)(?P<qk>(?i:surface area|lateral area|side length|edge length|slant height|circumference"
    "|perimeter|diameter|radius|volume|height|altitude|area|side|edge))"
    f"(?: (?i:of) (?i:the )?(?:(?P<qword>{POLYWORD}|{SOLIDWORD}|(?i:circle)) ?)?(?P<qname>{CIRC}|△ ?{POLY}|{SOLID_NAME})?)?"
)


def resolve_qty(m: re.Match[str], b: Builder, pos: int) -> tuple[str, str, float] | None:
    kind, scale = _QTY[m.group("qk").lower()]
    word = (m.group("qword") or "").lower()
    name = m.group("qname") or ""
    if name.startswith("⊙"):
        return kind, b.circle_ref(name, pos), scale
    solid = solid_kind(word) if word else None
    if solid is not None:
        canon_name = cn.solid_name(solid, name)
        return kind, f"{solid} {canon_name}".strip() if canon_name else b.context(pos, ("solid",)) or solid, scale
    if name:
        return kind, cn.ref(name), scale
    if word == "circle":
        return kind, b.circle_ref("⊙", pos), scale
    if word:
        return kind, b.context(pos, ("polygon",)), scale
    if m.group("qk").lower() in ("edge length", "edge"):  # a polyhedron's, never a sphere's, cone's or cylinder's
        return kind, b.context(pos, ("solid",), skip=("sphere", "cone", "cylinder")) or b.context(pos, _QTY_CONTEXT[kind]), scale
    return kind, b.context(pos, _QTY_CONTEXT[kind]) or unnamed_circle(b, kind), scale


def unnamed_circle(b: Builder, kind: str) -> str:
    """`a circle of radius 2`: the one unnamed circle, when nothing named is in context."""
    return "⊙" if b.unnamed_circle and "circle" in _QTY_CONTEXT.get(kind, ()) else ""


GRAMMAR = TermGrammar(QTY_PATTERN, resolve_qty)


def parse_en(text: str) -> KeypointSet:
    """Keypoints of an English caption (see the module docstring for what is emitted)."""
    text = normalise(text)
    pieces = sentences(text)
    builder = Builder()
    low = text.lower()
    run_rules(MENTION_RULES, pieces, builder, low)
    run_rules(ELEMENT_RULES, pieces, builder, low)
    kept = affirmed(pieces)
    run_rules(RELATION_RULES, kept, builder, low)
    denied_segments(pieces, kept, builder)
    for offset, sentence in pieces:
        if "=" in sentence:
            equations(sentence, offset, GRAMMAR, builder)
    return builder.finish()
