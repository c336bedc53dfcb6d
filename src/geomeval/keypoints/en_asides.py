"""English asides, shared values and placements (read since round 6 of issue #41, the fifth
independent set), each a class of phrasings rewritten into a form the rules read: appositions
and which/whose asides, one value or verb said once for a list, solids sharing a value, and:

- a point placed in a noun phrase before its verb: `a point P on the ellipse is 6 away from F1`
  (P lies on the ellipse), `the parabola …, on which a point P lies`;
- a distance said as a place: `P lies at distance 5 from F`, `at a distance of 5 from F`.

Every pattern is bounded (short names, capped gaps), so a caption's cost stays linear.
"""

from __future__ import annotations

import re

from ._engine import NUMC, NUMSTART, POLY, PT, RB, SEG, SOLID_NAME
from ._engine import sub as _sub

_NUM = f"({NUMSTART}{NUMC}(?<![.]))(?![0-9A-Za-z°(])"
_PLACE = rf"(?:the (?:[a-z]-axis|parabola|ellipse|hyperbola|circle|curve|line [a-z]\d?|segment {SEG}|side {SEG})|(?:⊙ ?|circle ){PT}{RB}|(?:side |segment |line )?{SEG})"



_SOLIDS = r"(cone|cylinder|cube|cuboid|sphere|prism|pyramid)"
_SAME = re.compile(rf"\bthe same ((?:base |slant )?(?:radius|height)|edge length|volume),? (?:of |equal to )?{_NUM},?")
# Chinese solid names inside an English clause (mixed captions): the English parser reads them too
_ZH_SOLIDS = {"正四面体": "regular tetrahedron ", "四面体": "tetrahedron ", "三棱锥": "tetrahedron ", "正方体": "cube ",
              "长方体": "cuboid ", "四棱锥": "pyramid ", "三棱柱": "prism ", "圆锥": "cone ", "圆柱": "cylinder "}


def _both_have(m: re.Match[str]) -> str:
    """`a cone and a cylinder have the same base radius, 2, and the same height, 3`, `both the cylinder
    and the cone have a base of radius 2`: each solid has what the clause gives."""
    what = _SAME.sub(r"\1 \2", m.group(3)).strip(" ,")
    return f"the {m.group(1)} has {what}; the {m.group(2)} has {what}"


def _angles_each(m: re.Match[str]) -> str:
    """`the angles APB, BPC and CPA are all 90°`: each angle has the value."""
    names = re.findall(r"[A-Z]\d{0,2}'?[A-Z]\d{0,2}'?[A-Z]\d{0,2}'?", m.group(1))
    return ", ".join(f"∠{n} = {m.group(2)}" for n in names) if len(names) > 1 else m.group(0)


def _each_length(m: re.Match[str]) -> str:
    """`PA, PB and PC each have length 1`, `AB and AC are each 6 long`: every listed segment has the value."""
    value = m.group(2) or m.group(3)
    return ", ".join(f"{n} = {value}" for n in re.findall(SEG, m.group(1)))


_LAST_CIRCLE = re.compile(rf"(?:⊙ ?|circle )({PT}){RB}")


def _two_tangents(m: re.Match[str]) -> str:
    """`the tangents to circle O at A and B meet at P`: PA touches the circle at A, PB at B."""
    circle = m.group(1) or next(iter(_LAST_CIRCLE.findall(m.string, max(0, m.start() - 200), m.start())[-1:]), None)
    if circle is None:
        return m.group(0)
    circle = "⊙" + re.sub(r"^(?:⊙ ?|circle )", "", circle)
    p, a, b = m.group(4), m.group(2), m.group(3)
    return f"{p}{a} is tangent to {circle} at {a}; {p}{b} is tangent to {circle} at {b}; the point {p}"


def _at_distance(m: re.Match[str]) -> str:
    head = f"{m.group(1)} {m.group(2)}{m.group(3) or ''}".rstrip(" ,")
    return f"{head}, and {m.group(1)} is {m.group(4)} away from {m.group(5)}"


_SOLID_KIND = r"(?:regular |right )?(?:cube|cuboid|prism|pyramid|tetrahedron|box|rectangular box)"
_SPHERE = rf"(?:the |a )?(?:surface of (?:the |a )?)?(sphere(?: {PT}{RB})?)"

ASIDE_SUBS = [
    # `triangle ABC with centroid G`: the named centre is placed
    _sub(("with ",), rf"\b((?:triangle |△ ?)({POLY})),? (?:with|having|has) (?:its |the )?(centroid|incentre|incenter|circumcentre|circumcenter|orthocentre|orthocenter) ({PT}){RB}",
         r"\1; \4 is the \3 of triangle \2"),
    # appositions: `D, a point of the x-axis,`; `an angle D1BD of 45°`; `diagonals AC = 6 and BD = 8 meet at O`
    _sub((", a point ",), rf"(?<![A-Za-z0-9'])({PT}){RB}, a point (?:of|on) ((?:the )?[xy]-axis|(?:⊙ ?|circle ){PT}{RB}|(?:segment |side |line )?{SEG})(?=[,;.]| and\b|$)",
         r"\1, \1 lies on \2"),
    _sub((" of ",), rf"\b(?:an |the )?(?:angle |∠ ?)((?:[A-Z]\d?'?){{3}}) of ({NUMSTART}{NUMC} ?°)", r"∠\1 = \2 (an angle)"),
    _sub(("diagonals",), rf"\bdiagonals ({SEG}) ?= ?{_NUM} and ({SEG}) ?= ?{_NUM} (meet|intersect|cross)\b",
         r"diagonals \1 and \3 \5 at; \1 = \2, \3 = \4; diagonals \1 and \3 \5"),  # the meeting reads on, the values apart
    # `lines PA and PB, where P = (2, 2), each touch the circle: PA at A and PB at B`
    _sub(("touch",), rf"\b(?P<lines>[Ll]ines? )?({SEG}) and ({SEG})(, (?:[^,;.:()]|\([^()]{{0,20}}\)){{1,30}},)? (?:each |both )?(?:touch|are tangent to) ((?:the )?circle(?: {PT}{RB})?|⊙ ?(?:{PT}{RB})?)"
         rf"(?::|,| -) \2 at ({PT}){RB},? and \3 at ({PT}){RB}",
         lambda m: (f"line {m.group(2)}, line {m.group(3)}; " if m.group("lines") else "")
                   + f"{m.group(2)} is tangent to {m.group(5)} at {m.group(6)}, {m.group(3)} is tangent to {m.group(5)} at {m.group(7)}"
                   + (f"; {m.group(4).strip(' ,').removeprefix('where ')}" if m.group(4) else "")),
    _sub(("tangents",), rf"\b(?:[Tt]he )?tangents? (?:lines? )?(?:to ((?:⊙ ?|circle ){PT}{RB}) |to (?:the|it) )?at (?:points? )?({PT}){RB} and ({PT}){RB},? (?:meet|intersect|cross)(?: each other)? at (?:point |the point )?({PT}){RB}",
         _two_tangents),
    # `all (eight) vertices of the cube … lie on sphere O`, `the cube … has all its vertices on sphere O`: inscribed (guide)
    _sub(("vertices",), rf"\b(?:[Aa]ll |[Tt]he )?(?:the )?(?:four |six |eight )?vertices of (?:the )?({_SOLID_KIND}(?: (?:{SOLID_NAME}))?) (?:all )?(?:lie|are|are all) on {_SPHERE}",
         r"the \1 is inscribed in \2"),
    _sub(("vertices",), rf"\b({_SOLID_KIND}(?: (?:{SOLID_NAME}))?),? (?:has|with|having) all (?:of )?its (?:four |six |eight )?vertices (?:lying )?on {_SPHERE}",
         r"\1 is inscribed in \2"),
    _sub((" length", " long"), rf"(?<![A-Za-z0-9'])({SEG}(?:, {SEG}){{0,4}},? and {SEG}|(?:{SEG}, ){{1,5}}{SEG})(?:,? (?:each|all|both))? "
         rf"(?:(?:have|has) (?:a )?length (?:of )?{_NUM}|are (?:all |each |both )?{_NUM}(?: units?| cm)? long)", _each_length),
    _sub(("angles ",), rf"\b(?:the )?angles ((?:[A-Z]\d?'?){{3}}(?:(?:,| and|, and) (?:[A-Z]\d?'?){{3}}){{1,5}})(?:, [^,;.]{{1,40}},)? (?:are|were) (?:all |each |both )?(?:equal to )?({NUMSTART}{NUMC} ?°)(?: each)?",
         _angles_each),
    # `E is the midpoint of AB and F the midpoint of CD`: the verb said once serves both
    _sub((" the midpoint of", " the foot of", " the centre of"), rf"\b({PT}){RB} is the (midpoint|foot|centre|center) of ((?:side |segment |edge )?{SEG}),? and ({PT}){RB} the \2 of",
         r"\1 is the \2 of \3, and \4 is the \2 of"),
    # `the line AP and the line BC, extended, intersect at Q`
    _sub((", extended,",), rf"((?:line |segment |side )?{SEG}), extended,", r"\1"),
    # `diagonals OB and AC bisect each other at M`: they meet at M, the midpoint of each
    _sub(("bisect each other",), rf"\b(diagonals ({SEG}) and ({SEG})) bisect each other at (?:point )?({PT}){RB}",
         r"\1 intersect at \4, \4 is the midpoint of \2, \4 is the midpoint of \3"),
    _sub(tuple(_ZH_SOLIDS), "|".join(_ZH_SOLIDS), lambda m: _ZH_SOLIDS[m.group(0)]),
    _sub((" and ",), rf"\b(?:[Aa]n? |[Tt]he |[Bb]oth (?:the |a )?){_SOLIDS} and (?:an? |the ){_SOLIDS} (?:both )?(?:have|share) ([^.;]{{1,80}})", _both_have),
    # `AD and BE are two of its medians`: the medians of the figure in view
    _sub((" of its ",), r"\b(are|is) (?:two|three|one|both|each) of its (medians|altitudes|heights|angle bisectors|diagonals|chords|diameters)\b",
         r"\1 \2"),
    # terse `triangle ABC, A(−1, 0), B(3, 0), C(0, 3), inscribed in circle M`: the figure is inscribed
    _sub(("inscribed in",), rf"\b((?:triangle|△|quadrilateral|square|rectangle|pentagon|hexagon) ?{POLY})((?:,? {PT}{RB} ?\([^()]{{1,24}}\)){{1,8}}),? (inscribed in (?:⊙ ?|circle ){PT}{RB})",
         r"\1 \3\2"),
    # `the cube …, whose edge AB is 2, is inscribed in a sphere`: the aside moves after the main clause
    # `P-ABCD is a pyramid whose base ABCD is a rectangle and whose edge PD is …`: one clause each
    _sub((" whose ",), r"\b(pyramid|prism|cube|cuboid|box|cylinder|cone|tetrahedron)( [A-Z0-9'-]{0,20})? whose ((?:base|edge|lateral edge|face|apex|height)\b[^;.]{1,60}?) and whose ",
         r"\1\2; \3; "),
    _sub((" whose ",), r"\b(pyramid|prism|cube|cuboid|box|cylinder|cone|tetrahedron)( [A-Z0-9'-]{0,20})? whose (?=(?:base|edge|lateral edge|face|apex|height)\b)", r"\1\2; "),
    _sub(("that ",), r"\b(of|to|in|on|inside) that (sphere|circle|cone|cylinder|cube|base|plane|ellipse|parabola|hyperbola|triangle|square)\b", r"\1 the \2"),
    # `AB, which is a chord of the big circle and is 8 long, has one point C in common with …`: two clauses
    _sub((", which",), rf"(?<![A-Za-z0-9'])((?:[Tt]he )?(?:segment |line |chord |side )?{SEG}|(?:⊙ ?|circle ){PT}{RB}), which ((?:is|are|has|lies)\b[^,;.]{{1,60}}),"
         r" (?=(?:is|are|has|have|lies|meets|touches|passes|cuts|crosses|intersects)\b)", r"\1 \2; \1 "),
    # values in other words: `sides AB of 4 and BC of 3`; `AB is a chord of ⊙O and is 8 long`, `…, 8 units long`
    _sub((" of ",), rf"(?<![A-Za-z0-9'])({SEG}) of {_NUM}(?= ?(?:and\b|[,;.]|$))", r"\1 of length \2"),
    _sub((" long",), rf"(?:(?<=[A-Za-z'⁺⁻])|(?<=[A-Z][0-9])) ?(?:,|, and| and) (?:is |being )?{_NUM}(?: units?| cm)? long\b", r", and has length \1"),
    _sub((", whose",), r", whose ([^,;.]{1,50}), ((?:is|are|has|have|lies|lie|was|were|touches|meets|passes|stands)\b[^;.]{0,120})",
         r" \2; \1"),
    # `a point P on the ellipse is 6 away from F1`: P is placed, then the clause goes on about it
    _sub(("point",), rf"\b(?:[Aa]|[Tt]he) point ({PT}){RB} (on|of) ({_PLACE})((?: [^,;.]{{1,30}}?)?)(?= (?:is|lies|has|satisfies)\b)",
         r"\1 lies on \3\4, and \1"),
    # `the parabola y^2 = 4x, on which a point P lies`
    _sub(("on which",), rf"\b(the (?:parabola|ellipse|hyperbola|circle)|(?:⊙ ?|circle ){PT}{RB})([^,;.]{{0,40}}?), on which (?:a |the )?(?:point )?({PT}){RB} (?:lies|is)",
         r"\1\2, and \3 lies on \1"),
    # `P lies at distance 5 from F`, `P is on the parabola at a distance of 5 from F`
    _sub(("distance",), rf"\b({PT}){RB} (lies|is)((?: on {_PLACE})?),? at (?:a )?distance (?:of )?{_NUM}(?: units?)? from (?:point )?({PT}){RB}",
         _at_distance),
]
