"""English shared verbs, constructions and meetings (read since round 7 of issue #41, the sixth
independent set), each a class of phrasings rewritten into a form the rules read, applied before
pronouns are resolved:

- one verb said once for two objects: `line AB touches circle O1 at A and circle O2 at B`;
- two predicates of one subject: `line CD meets AB at M and is the perpendicular bisector of AB`;
- `these two altitudes` (medians, chords, …): the two of that kind named last;
- a perpendicular constructed from a point: `through P, the perpendicular to m is drawn; it meets
  m at H`, `from C the perpendicular to AB is drawn, meeting AB at D`;
- a line drawn through a point: `the line n is drawn through P parallel to m`;
- a point named by a meeting: `A is the point where l1 cuts the y-axis`, `A and B are its
  intersections with the x-axis`, `are cut by a third line c, at P on a and at Q on b`;
- a perpendicular bisector said by its parts: `is perpendicular to AB and passes through its midpoint M`;
- a perpendicular that crosses: `CD is a chord perpendicular to AB, crossing it at E` (E is the foot);
- other verbs and asides: `sit on`, `∠AOB, the angle between the radii OA and OB, is 100°`, terse
  `△ABC equilateral`, `a ball fits snugly inside a cylinder`, `the radius of its base`;
- `the base circle` and `the base plane` said after a cone's base circle was named: that circle,
  its plane;
- a directrix after its line: `the line l: x = −1 is its directrix`;
- values said as a description (guide, after h6): `two equal sides, AB and AC` is AB = AC, `P is a
  point on l, 4 units away from A` is PA = 4.

Every pattern is bounded (short names, capped gaps), so a caption's cost stays linear.
"""

from __future__ import annotations

import re

from ._engine import PT, RB, SEG
from ._engine import sub as _sub

_LOWER = r"[a-z]\d{0,2}"
# an object a verb takes: a circle, a named line, a segment, an axis
_OBJ = rf"(?:(?:the )?(?:circle |⊙ ?){PT}{RB}|(?:the )?(?:line |side |segment )?{SEG}|(?:the )?line {_LOWER}(?![A-Za-z0-9'])|the [xy]-axis)"
_SUBJ = rf"(?:(?:the )?(?:line |segment |chord )(?:{SEG}|{_LOWER}(?![A-Za-z0-9']))|(?:the )?(?:circle |⊙ ?){PT}{RB}|(?<![A-Za-z0-9'∠△]){SEG})"
_OBJL = rf"(?:{_OBJ}|{_LOWER}(?![A-Za-z0-9']))"  # or a bare line letter
_VERB = r"(?:touches|is tangent to|meets|cuts|intersects|crosses)"
_ROLES = {"altitudes": "altitude", "heights": "altitude", "medians": "median", "chords": "chord", "diameters": "diameter",
          "angle bisectors": "(?:angle )?bisector", "bisectors": "(?:angle )?bisector", "tangents": "tangent"}



def _its_directrix(m: re.Match[str]) -> str:
    """`the line l: x = −1 is its directrix`: the directrix of the conic named before."""
    conics = re.findall(r"\b(parabola|ellipse|hyperbola)\b", m.string[max(0, m.start() - 300): m.start()])
    if not conics:
        return m.group(0)
    return f"line {m.group(1)} is the directrix of the {conics[-1]}"


_BASE_CIRCLE = re.compile(rf"\bbase (?:is )?(?:the )?(?:circle |⊙ ?)({PT}){RB}|\bbase circle is (?:the )?(?:circle |⊙ ?)?({PT}){RB}")


def _the_base_circle(m: re.Match[str]) -> str:
    """`A lies on the base circle` after the base circle was named: that circle."""
    named = [a or b for a, b in _BASE_CIRCLE.findall(m.string, 0, m.start())]
    return f"circle {named[-1]}" if named else m.group(0)


def _base_plane(m: re.Match[str]) -> str:
    """`PO ⊥ the base plane` in a caption whose base circle is named: the plane of that circle."""
    named = [a or b for a, b in _BASE_CIRCLE.findall(m.string, 0, m.start())]
    return f"{m.group(1)} plane ⊙{named[-1]}" if named else m.group(0)


def _these_two(m: re.Match[str]) -> str:
    """`these two altitudes intersect at H`: the two altitudes named last before it."""
    role = _ROLES[m.group(2)]
    before = m.string[max(0, m.start() - 300): m.start()]
    found = re.findall(rf"\b{role}s? (?:from {PT}{RB} )?(?:is |are )?({SEG})|({SEG}) (?:is|are) (?:the |an |a )?{role}\b", before)
    names = [a or b for a, b in found]
    unique = list(dict.fromkeys(reversed(names)))[:2]
    if len(unique) != 2:
        return m.group(0)
    return f"{unique[1]} and {unique[0]}"


_NUM = r"((?=[-+]?(?:\d|√|π|\.\d))[-+]?[0-9.√π/]{1,16}(?<![.]))"


SHARED_VERB_SUBS = [
    # `a cone standing on circle O`, `a cone with vertex P sits on a base circle O`: its base
    _sub(("standing on", "stands on", "sits on", "sitting on", "rests on", "resting on"),
         rf"\b(cone\b[^.;]{{0,30}}?),? (?:standing|stands|sitting|sits|resting|rests) on (?:a |the |its )?(?:base )?((?:circle |⊙ ?){PT}{RB})",
         r"\1 with base \2"),
    # a cone's base circle (guide: a relation of the cone), and `the base circle` said again
    _sub(("of the cone is",), rf"\b[Tt]he (?:apex|vertex|tip) of the cone is (?:the )?(?:point )?({PT}){RB}", r"\1 is the apex of the cone"),
    _sub(("base circle",), r"\bthe base circle\b(?! (?:is|of)\b)", _the_base_circle),
    # `PO ⊥ the base plane`, `perpendicular to the plane of the base` after a cone's base circle was named
    _sub(("base plane", "plane of the base"), r"(⊥|\bperpendicular to) (?:the )?(?:base plane|plane of (?:the |its )?base(?: circle)?)\b", _base_plane),
    # `the segment PO is the cone's axis, perpendicular to the base`: the aside keeps its subject
    _sub((", perpendicular to", ", parallel to"), rf"(?<![A-Za-z0-9'∠△])((?:[Tt]he )?(?:segment |line )?{SEG}) (is|lies) ([^,;.]{{1,40}}), (perpendicular|parallel) to ",
         r"\1 \2 \3, \1 is \4 to "),
    _sub(("directrix",), r"\b(?:the )?line ℓ?([a-z]\d{0,2})(?![A-Za-z0-9'])(?:,? ?(?:\([^()]{1,30}\)|:[^,;.]{1,30}?),?)? is (?:its|the) directrix\b(?! of)", _its_directrix),
    # `triangle ABC has two equal sides, AB and AC`: AB = AC (guide)
    _sub(("equal sides",), rf"\b(has|with|having) (?:two |a pair of |the )?equal sides,? ({SEG}) and ({SEG})\b", r"\2 = \3; \1 sides \2 and \3"),
    # `P is a point on l, 4 units away from A`: the distance said after the place (guide)
    _sub((" away from",), rf"\b({PT}){RB} (is|lies) ([^,;.]{{1,40}}), {_NUM}(?: units?| cm)? away from (?:point )?({PT}){RB}",
         r"\1 \2 \3, and \1 is \4 away from \5"),
    # `three points A, B and C sit on circle O`: placed as `lie on`
    _sub(("sit on", "sits on", "rest on", "rests on", "situated on", "located on"),
         r"\b(?:(sit|rest)|(sits|rests)|(?:is|are) (?:situated|located)) on\b", lambda m: "lie on" if m.group(1) else "lies on"),
    # `∠AOB, the angle between the radii OA and OB, is 100°`: the main clause first, the aside after it
    _sub((", the ", ", a ", ", an "), rf"((?:∠ ?|angle )(?:[A-Z]\d?'?){{3}}|(?<![A-Za-z0-9'∠△]){SEG}), ((?:the|an?) (?:angle|segment|side|chord|line)\b[^,;.]{{1,50}}), ((?:is|are|measures|equals|has)\b[^;.]{{0,60}})",
         r"\1 \3; \1 is \2"),
    # terse `△ABC equilateral` in a list
    _sub(("equilateral", "isosceles"), rf"(?:(?<=^)|(?<=[;:] ))((?:triangle |△ ?){PT}{PT}{PT}{RB}) (equilateral|isosceles)(?=[;.,]|$)", r"\1 is \2"),
    # `a ball of radius 3 fits snugly inside a cylinder`: inscribed
    _sub(("snugly", "tightly", "exactly inside"), r"\b((?:[Aa]n? |[Tt]he )?(?:sphere|ball)\b[^,;.]{0,30}?) (?:fits|is fitted|sits) (?:snugly|tightly|exactly) (?:inside|in|into|within) ((?:a |an |the )?(?:cylinder|cube|cone|cuboid|prism|box)\b)",
         r"\1 is inscribed in \2"),
    _sub(("of its base", "of the base"), r"\bthe radius of (its|the) base\b", r"\1 base radius"),
    # `A and B are its intersections with the x-axis`: it meets the x-axis at A and B
    _sub(("intersection",), rf"\b({PT}){RB} and ({PT}){RB} are (?:its|the) (?:two )?(?:intersections|intersection points|points of intersection) with ({_OBJL})",
         r"it meets \3 at \1 and \2"),
    # `lines a and b are cut by a third line c, at P on a and at Q on b`
    _sub(("cut by", "crossed by", "intersected by"), rf"\b(are|is) (?:cut|crossed|intersected) by (?:a |the )?(?:third |transversal )?(?:line )?({_LOWER}|{SEG})(?![A-Za-z0-9']),? at ({PT}){RB} on ({_LOWER}|{SEG})(?![A-Za-z0-9']),? and at ({PT}){RB} on ({_LOWER}|{SEG})(?![A-Za-z0-9'])",
         r"\1 cut by line \2; line \2 meets line \4 at \3, and line \2 meets line \6 at \5"),
    # `line CD is perpendicular to AB and passes through its midpoint M`: the perpendicular bisector
    _sub(("midpoint",), rf"({_SUBJ}) is perpendicular to ({SEG}),? and (?:passes|goes) through (?:its|the) midpoint(?: of \2)?,? (?:point )?({PT}){RB}",
         r"\1 is the perpendicular bisector of \2, \1 meets \2 at \3, and \3 is the midpoint of \2"),
    # `CD is a chord perpendicular to AB, crossing it at E`: E is the foot
    _sub(("perpendicular to",), rf"(?<![A-Za-z0-9'∠△])({SEG}) is (?:a |the )?(chord|line|segment)? ?perpendicular to (?:the )?(?:diameter |chord |line |side |segment )?({SEG}),? (?:crossing|meeting|cutting|intersecting) (?:it|\3) at (?:point )?({PT}){RB}",
         lambda m: (f"{m.group(1)} is a {m.group(2)}, and " if m.group(2) else "") + f"{m.group(1)} ⊥ {m.group(3)} at {m.group(4)}"),
    # `line AB has exactly one point in common with each of them: A with circle O1 and B with circle O2`
    _sub(("in common with each",), rf"({_SUBJ}) (?:has|shares) (?:exactly |only |just )?one (?:common )?point in common with each of them: ({PT}){RB} with ({_OBJ}),? and ({PT}){RB} with ({_OBJ})",
         r"\1 touches \3 at \2 and \5 at \4"),
    # `line AB touches circle O1 at A and circle O2 at B`: the verb serves both objects
    _sub(("touches", "tangent", "meets", "cuts", "intersects", "crosses"),
         rf"({_SUBJ}) ({_VERB}) ({_OBJ}) at (?:point )?({PT}){RB},? and ({_OBJ}) at (?:point )?({PT}){RB}",
         r"\1 \2 \3 at \4, and \1 \2 \5 at \6"),
    # `line CD meets AB at M and is the perpendicular bisector of AB`: the subject said again
    _sub((" and is ", " and lies ", " and passes "),
         rf"({_SUBJ}) ({_VERB}|passes through|lies on|is perpendicular to|is parallel to) ([^,;.]{{1,40}}?),? and (is (?:the|a|an|perpendicular|parallel|tangent)|lies|passes)\b",
         r"\1 \2 \3, and \1 \4"),
    _sub(("these two", "the two", "both "), r"\b([Tt]hese two |[Tt]he two |[Bb]oth (?:the |these )?)(altitudes|heights|medians|chords|diameters|angle bisectors|bisectors|tangents)\b(?! [A-Z])",
         _these_two),
    # `through P (not on m), the perpendicular to m is drawn; it meets m at H`, `from C the perpendicular to AB
    # is drawn, meeting AB at D`: the perpendicular from the point, meeting the line at its foot
    _sub(("perpendicular",), rf"\b(?:[Tt]hrough|[Ff]rom) (?:a |the )?(?:point )?({PT}){RB}(?: [^,;.]{{1,30}}?)?,? the perpendicular (?:line )?to ({_OBJL}) is (?:drawn|constructed|dropped)"
         rf"(?:;|,)? (?:and )?(?:it meets|meeting|it cuts|cutting|which meets) ({_OBJL}) at (?:point )?({PT}){RB}",
         r"the perpendicular from \1 to \2 meets \3 at \4"),
    # `the line n is drawn through P parallel to m`: n passes through P and is parallel to m
    _sub(("drawn through", "constructed through"), rf"\b(?:(?:[Tt]he|[Aa]) )?line ({_LOWER}|{SEG})(?![A-Za-z0-9']) is (?:drawn|constructed) through (?:the )?(?:point )?({PT}){RB},? (parallel|perpendicular) to ({_OBJL})",
         r"line \1 passes through \2, and line \1 is \3 to \4"),
    # `A is the point where l1 cuts the y-axis`: the meeting at A
    _sub(("the point where",), rf"\b({PT}){RB} is the point where ({_SUBJ}|{_LOWER}(?![A-Za-z0-9'])) (meets|cuts|intersects|crosses|touches) ({_OBJL})",
         lambda m: f"{'line ' if re.fullmatch(_LOWER, m.group(2)) else ''}{m.group(2)} {m.group(3)} {m.group(4)} at {m.group(1)}"),
]
