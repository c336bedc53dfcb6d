"""Wordings read since round 5 of issue #41: equation labels mid-clause, and polygons whose
every vertex lies on a circle said in other words.

`circle O: x^2 + y^2 = 25`, `line l1 (y = 2x − 1)`, `l1: y = 2x - 1 and l2: y = 4 - x are perpendicular`:
the equation sits between an object's name and the rest of its clause, so the rules saw an
unnamed circle or no subject at all. The label keeps its name in the clause and the equation
moves to a sentence of its own right after (`… meet at P. line l1: y = 2x - 1.`), where the
equation rules read it as before. An equation already closing its clause is left where it is.

Runs on the text `lower_words` has produced, before the substitutions; every pattern is bounded.
"""

from __future__ import annotations

import re

from ._engine import NUMC, NUMSTART, POLY, PT, RB, SEG, Sub
from .en_patterns import POLYWORD

_NAME = r"(?:(?P<word>[Cc]ircle|[Ll]ines?|[Tt]he circle|[Tt]he line) (?:⊙ ?)?(?P<n1>[A-Za-z]\d{0,2})|⊙ ?(?P<n2>[A-Z]\d{0,2})|(?P<n3>[a-z]\d{0,2}))"
_SIDE = r"[-−–+*/^()\d.xyz²³√π ]{0,30}"
# an equation is two sides of maths; it ends where a word, a name or a clause boundary begins
_EQ = rf"(?P<eq>{_SIDE}[xy]{_SIDE}={_SIDE}(?<![.\s]))"
_END = r"(?=\s*(?:(?!through\b)[a-z]{2,}\b|⊙|ℓ|[A-Z]\b))"
_EQ2 = _EQ.replace("?P<eq>", "?P<eq2>")
_LABEL = re.compile(rf"(?<![A-Za-z0-9'])(?:{_NAME}(?:: ?{_EQ}{_END}|,? \({_EQ2}\)))")
_STOP = re.compile(r"\.(?=\s|$)|;|。|；")


def _label(m: re.Match[str]) -> tuple[str, str]:
    word = (m.group("word") or "").lower()
    name = m.group("n1") or m.group("n2") or m.group("n3")
    eq = (m.group("eq") or m.group("eq2") or "").strip()
    if "circle" in word or m.group("n2") or (name[:1].isupper() and "line" not in word):
        return f"circle {name}", eq
    return f"line {name}", eq


def _moves(text: str, found: list[tuple[re.Match[str], str, str]]) -> str:
    """Apply (match, kept text, sentence to add after the match's sentence) edits in order."""
    edits: list[tuple[int, int, str]] = []
    for m, keep, moved in found:
        edits.append((m.start(), m.end(), keep))
        stop = _STOP.search(text, m.end())
        at = stop.end() if stop else len(text)
        edits.append((at, at, f" {moved}." if stop else f". {moved}."))
    out, pos = [], 0
    for start, end, repl in sorted(edits, key=lambda e: (e[0], e[1])):
        out.append(text[pos:start] + repl)
        pos = end
    return "".join(out) + text[pos:]


_RADIUS = r"(?P<r{i}>\d+(?:\.\d+)?|√\d+)"
_CIRCLE_PAIR = re.compile(rf"\b(?:[Tt]wo )?[Cc]ircles,? (?P<a>[A-Z]\d{{0,2}}) (?:with|of|having) (?:a )?radius {_RADIUS.format(i=1)},? and "
                          rf"(?P<b>[A-Z]\d{{0,2}}) (?:with|of|having) (?:a )?radius {_RADIUS.format(i=2)},?(?= [a-z])")
_CIRCLE_RADII = re.compile(rf"\b(?:[Tt]wo )?[Cc]ircles,? (?P<a>[A-Z]\d{{0,2}}) and (?P<b>[A-Z]\d{{0,2}}),? (?:with|of|having) radii {_RADIUS.format(i=1)} and "
                           rf"{_RADIUS.format(i=2)}(?:,? respectively)?,?(?= [a-z])")
_CIRCLE_NOTE = re.compile(rf"(?P<c>\b[Cc]ircles? |⊙ ?|(?<=and )(?:circle )?)(?P<a>[A-Z]\d{{0,2}}) \((?:radius|r) ?=? ?{_RADIUS.format(i=1)}\)(?= and| [a-z])")


def equation_labels(text: str) -> str:
    """Move each mid-clause equation label after its sentence, the object keeping its name there;
    radii in the same places (`circles O1 (radius 5) and O2 (radius 3) meet at A and B`, `two
    circles, O1 with radius 5 and O2 with radius 3, touch at T`) likewise."""
    found: list[tuple[re.Match[str], str, str]] = []
    if ("radius" in text or "radii" in text) and ("(" in text or "circles" in text.lower()):
        for m in [*_CIRCLE_PAIR.finditer(text), *_CIRCLE_RADII.finditer(text)]:
            found.append((m, f"circles {m.group('a')} and {m.group('b')}", f"circle {m.group('a')} has radius {m.group('r1')}. "
                                                                            f"circle {m.group('b')} has radius {m.group('r2')}"))
        for m in _CIRCLE_NOTE.finditer(text):
            found.append((m, f"{m.group('c')}{m.group('a')}", f"circle {m.group('a')} has radius {m.group('r1')}"))
    if "=" in text and (":" in text or "(" in text):
        for m in _LABEL.finditer(text):
            word, bare = m.group("word"), m.group("n3")
            if not word and bare and bare[0] in "xyz":
                continue  # `x: …` is no object
            label, eq = _label(m)
            keep = label if (bare and not word) else m.group(0)[: (m.start("eq") if m.group("eq") else m.start("eq2")) - m.start()].rstrip(" :(,")
            found.append((m, keep, f"{label}: {eq}"))
    found.sort(key=lambda f: f[0].start())
    kept = [f for i, f in enumerate(found) if i == 0 or f[0].start() >= found[i - 1][0].end()]
    return _moves(text, kept) if kept else text


_LAST_POLY = re.compile(rf"(?:\b{POLYWORD} |△ ?)({POLY})")


def _through_vertices(m: re.Match[str]) -> str:
    """`circle O, of radius 5, goes through all three vertices`: the polygon named there, or the
    last one named before it, is inscribed in the circle (unchanged when there is none)."""
    polys = [m.group("poly")] if m.group("poly") else _LAST_POLY.findall(m.string, max(0, m.start() - 200), m.start())
    if not polys:
        return m.group(0)
    return f"{m.group('c')}{m.group('app') or ''}, and {polys[-1]} is inscribed in {m.group('c')}"


_TRIANGLE = re.compile(rf"(?:\btriangle |△ ?)({POLY})")


def _two_triangles_congruent(m: re.Match[str]) -> str:
    """`…, which makes the two triangles congruent`: the last two triangles named are (unchanged
    when fewer than two are named before)."""
    names = list(dict.fromkeys(_TRIANGLE.findall(m.string, max(0, m.start() - 300), m.start())))
    return f", so △{names[-2]} ≅ △{names[-1]}" if len(names) >= 2 else m.group(0)


def _pairwise_on(m: re.Match[str]) -> str:
    """`P, Q and R lie on AB, BC and BB1 respectively`, `with P, Q and R on the edges AB, BC and BB1`:
    the i-th point on the i-th segment (unchanged when the lists differ in length)."""
    pts, segs = re.findall(rf"{PT}{RB}", m.group("pts")), re.findall(SEG, m.group("segs"))
    if len(pts) != len(segs) or not (m.group("resp") or m.group("plural")):
        return m.group(0)
    return ", ".join(f"{p} lies on {s}" for p, s in zip(pts, segs, strict=True))


def _list(x: str) -> str:
    return rf"(?:{x}(?:, |,? and )){{1,5}}{x}"

_VERTICES = r"(?:all |each of )?(?:the |its |of its )?(?:three |four |five |six |eight )?(?:of its )?vertices"
def _through_apposition(m: re.Match[str]) -> str:
    """`the line PC, through P, cuts …`: an end of a two-point name says nothing new; a named line
    passes through the point."""
    line, p = m.group(1), m.group(2)
    if re.fullmatch(SEG, line.split()[-1]) and p in line:
        return line
    return f"{line} passes through {p}, and {line}"


_LINE = rf"(?:line )?(?:ℓ[a-z]\d{{0,2}}|{SEG})"
LABEL_SUBS: list[Sub] = [
    # meetings and tangency said in other words
    Sub((" and at ",), re.compile(rf" at (?:point )?({PT}){RB} and at (?:point )?({PT}){RB}"), r" at \1 and \2"),
    Sub(("through",), re.compile(rf"({_LINE}), (?:passing |going |drawn )?through (?:point )?({PT}){RB},"), _through_apposition),
    Sub(("one point", "one common point"), re.compile(rf"(?:,? (?:lie|lying|are|being|stay|staying) outside each other,? and)? (?:share|have|having|sharing) (?:exactly |only |just )?one (?:common )?"
                                                       rf"point,? ({PT}){RB}(?:,? in common)?"), r" are tangent to each other at \1"),
    Sub(("respectively",), re.compile(rf"({SEG}) and ({SEG}) (?:touch|are tangent to) (⊙{PT}{RB}) at (?:points )?({PT}){RB} and ({PT}){RB},? respectively"),
        r"\1 is tangent to \3 at \4, and \2 is tangent to \3 at \5"),
    Sub(("through",), re.compile(rf"(ℓ[a-z]\d{{0,2}}) (?:passes|goes|runs) through ({PT}){RB} ⊥"), r"\1 passes through \2, and \1 ⊥"),
    Sub(("right angles",), re.compile(rf"({SEG}) and ({SEG}) (cross|meet|intersect) at ({PT}){RB},? at right angles"),
        r"\1 and \2 are perpendicular, and \1 and \2 \3 at \4"),
    Sub(("perpendicular",), re.compile(rf"\b[Tt]he perpendicular ({SEG}) (?:from (?:point )?{PT}{RB} )?(?:meets|hits|reaches|cuts) (?:the )?(?:side |line |segment )?({SEG}) at ({PT}){RB}"),
        r"\1 ⊥ \2 at \3"),
    # `triangles ABC and CDE are both equilateral`: each is; `B, C and D lie on one straight line`: collinear
    Sub(("triangles",), re.compile(rf"\b[Tt]riangles ({POLY}) and ({POLY}),? are (?:both )?(equilateral|isosceles|right-angled|right)\b"),
        r"triangle \1 is \3 and triangle \2 is \3"),
    Sub(("line",), re.compile(rf"(?<![A-Z0-9'] )(?<!, )((?:{PT}{RB}, )+{PT}{RB},? and {PT}{RB}) (?:all )?(?:lie|lying|are|being) on (?:one|a single|the same|a) (?:straight )?line\b"),
        r"\1 are collinear"),
    # values said of two segments together or in other words
    Sub(("both", "each"), re.compile(rf"\b({SEG}) and ({SEG})(?: of (?:the )?(?:[a-z]+ )?{POLY}{RB})? are (?:both|each) ({NUMSTART}{NUMC})(?![0-9A-Za-z°(])(?: (?:units? |cm )?long)?"),
        r"\1 = \2 = \3"),
    Sub(("the side", "the segment"), re.compile(rf"\b[Tt]he (?:side|segment|edge) ({SEG}) = (?:the (?:side|segment|edge) )?({SEG})"), r"\1 = \2"),
    Sub(("tall", "high"), re.compile(rf"\bthe (cylinder|cone|prism|pyramid|cuboid|box|frustum) (?:stands|is) ({NUMSTART}{NUMC}) (?:units? )?(?:tall|high)\b"),
        r"the height of the \1 = \2"),
    Sub(("sides equal to", "sides ="), re.compile(rf"\b((?:triangle |square |△ ?)?{POLY}) has all (?:three |four |its )?sides (?:equal to|=) ({NUMSTART}{NUMC})"),
        r"the side length of \1 = \2"),
    Sub(("triangles",), re.compile(rf"\b(?:two )?triangles,? ({POLY}) and ({POLY})(?=,| are| is| have)"), r"triangle \1 and triangle \2"),
    Sub((" of ",), re.compile(rf"(?:\b(?:[Tt]he )?[Aa]ngle |∠ ?)({PT}{PT}{PT}){RB} of ((?:the )?(?:triangle |△ ?){POLY}) (?:is a right angle|= ?90°)"), r"in \2, ∠\1 = 90°"),
    # `the chord AB of the ellipse passes through F1`, `chord AB of the ellipse through F1`
    Sub(("chord",), re.compile(rf"\b(?:[Tt]he )?chord ({SEG}) of (?:the )?(ellipse|parabola|hyperbola|⊙{PT}{RB}|⊙) (?:passes |passing |goes |going )?through (?:the )?(?:point |focus )?({PT}){RB}"),
        r"\1 is a chord of the \2, and \1 passes through \3"),
    # `the line O1O2, joining their centres, cuts AB at M`: the participle between commas says nothing more
    Sub(("joining", "connecting"), re.compile(rf"({_LINE}), (?:joining|connecting) (?:their|the two|the) cent(?:re|er)s,"), r"\1"),
    # `the diagonals AC and BD of the base meet at O`
    Sub(("diagonals",), re.compile(rf"\b(diagonals {SEG} and {SEG}) of (?:the )?(?:(?:top |bottom |base |lateral )?(?:face|base)|top|square|rectangle|rhombus|parallelogram|quadrilateral)(?: {POLY})? (meet|cross|intersect)"),
        r"\1 \2"),
    # construction arcs: `an arc is drawn meeting AB at D and AC at E`
    Sub(("arc",), re.compile(rf"\b(?:an |the )?arcs? (?:is |are )?(?:then )?(?:drawn,? )?(?:that |which )?(?:meeting|cutting|crossing|intersecting|meets?|cuts?|crosses|intersects?) (?:side |ray |line )?({SEG}) at ({PT}){RB},? and (?:side |ray |line )?({SEG}) at ({PT}){RB}"),
        r"\2 lies on \1 and \4 lies on \3"),
    Sub(("points ", "Points "), re.compile(rf"\b[Pp]oints ({PT}){RB} on ({SEG}) and ({PT}){RB} on ({SEG})"), r"points \1 and \3, \1 lies on \2 and \3 lies on \4;"),
    # `the line m ⊥ AB through M meets …`, terse `line PB through A;`: the line passes through the point
    Sub(("through",), re.compile(rf"((?:line )?ℓ[a-z]\d{{0,2}}) ([⊥∥] (?:line |segment )?(?:{SEG}|ℓ[a-z]\d{{0,2}})) through (?:point )?({PT}){RB}(?= (?:meets|cuts|crosses|intersects))"),
        r"\1 \2, \1 passes through \3, and \1"),
    Sub(("through",), re.compile(rf"\bline ({SEG}) through (?:point )?({PT}){RB}(?= ?[;,.]| ?$)"), r"line \1 passes through \2"),
    # `M sits halfway between B1 and C1 on the edge B1C1`
    Sub(("halfway",), re.compile(rf"\b({PT}){RB} (?:sits|lies|is located|is placed|is|stands) (?:exactly )?halfway between ({PT}){RB} and ({PT}){RB}(?: on (?:the )?(?:edge|side|segment) {SEG})?"),
        r"\1 is the midpoint of \2\3"),
    Sub((" on the ",), re.compile(rf"(?:^|(?<=[;:] ))((?:{PT}{RB}, )*{PT}{RB}) on the (ellipse|parabola|hyperbola)\b"), r"\1 lies on the \2"),  # terse `P on the parabola;`
    Sub((" again",), re.compile(r" (meets?|cuts?|crosses|intersects?) ((?:the )?(?:⊙|circle |line |segment )?\S{1,6}) again at\b"), r" \1 \2 at"),
    Sub(("has midpoint", "has its midpoint"), re.compile(rf"\b({SEG}) has (?:its )?midpoint (?:point )?({PT}){RB}"), r"\1, \2 is the midpoint of \1, \2"),
    Sub(("drawn from",), re.compile(rf"\b({SEG}) is drawn from ({PT}){RB} to (?:the )?(?:side |segment |line |edge )?({SEG})"),
        lambda m: m.group(0) + (f", and {m.group(1).replace(m.group(2), '', 1)} lies on {m.group(3)}" if m.group(1).startswith(m.group(2)) and len(m.group(1)) - len(m.group(2)) <= 3 else "")),
    Sub(("radius of ⊙",),
        re.compile(rf"\b(radius of ⊙[⁺⁻] = {NUMSTART}{NUMC}) and (⊙[⁺⁻]) = "), r"\1 and radius of \2 = "),
    # `a point P lying outside it`, `P(4, 0) lies on the x-axis, outside the circle`
    Sub(("outside", "inside"), re.compile(rf"\bpoint ({PT}){RB}((?: ?\([^()]{{1,24}}\))?) (?:lying|located|situated|that lies|which lies) (outside|inside) (⊙{PT}{RB}|⊙)"),
        r"point \1\2, and \1 lies \3 \4,"),
    Sub(("outside", "inside"), re.compile(rf"\b({PT}){RB}((?: ?\([^()]{{1,24}}\))?) (?:lies )?on (the [xy]-axis|{SEG}|ℓ[a-z]\d{{0,2}}), (outside|inside) (?:of )?(⊙{PT}{RB}|⊙)"),
        r"\1\2 lies on \3, and \1 lies \4 \5"),
    Sub(("lying outside it", "lying inside it"), re.compile(rf"(⊙{PT}{RB}) and a point ({PT}){RB} lying (outside|inside) it\b"), r"\1 and a point \2, \2 lies \3 \1,"),
    # `from P a line is drawn that touches the circle at A; call it PA`: the line named after it
    Sub(("call it", "called", "named"), re.compile(rf"\b[Ff]rom ({PT}){RB},? an? (?:line|tangent(?: line)?|segment) is drawn (?:that|which) (touches|is tangent to|meets|cuts|crosses) "
                                                  rf"([^;.]{{1,30}}?) at ({PT}){RB}[;,] (?:call it|called|named) ({SEG})"), r"line \5 \2 \3 at \4"),
    Sub(("congruent",), re.compile(r",? (?:which makes|making|so|hence|thus|and so) the two triangles(?: are)? congruent"), _two_triangles_congruent),
    Sub(("its midpoint",), re.compile(rf"({SEG})([^.;]{{0,40}}?),? and its midpoint is (?:point )?({PT}){RB}"), r"\1\2, and \3 is the midpoint of \1"),
    Sub(("right angle to",), re.compile(r" ?\b(?:stands?|standing|is|lies|lying|runs?|running)? ?at a right angle to\b"), " ⊥"),
    Sub((" on ",), re.compile(rf"(?<![\s(,][A-Z], )(?<![\s(,][A-Z]\d, )(?<![A-Z0-9'] )(?P<pts>{_list(PT + RB)}) (?:(?:all |both )?(?:lie|lying|are|are taken|are chosen|are points) )?on "
                              rf"(?:the )?(?P<plural>(?:edges|sides|segments|lines) )?(?P<segs>{_list(SEG)})(?P<resp>,? respectively)?"), _pairwise_on),
    # `triangle ABC has all three of its vertices on circle O`
    Sub(("vertices",), re.compile(rf"(?P<p>(?:\b{POLYWORD} |△ ?){POLY}),? (?:has|with|having) {_VERTICES} (?:all )?(?:lying |that lie )?on (?:the )?(?P<c>⊙{PT}{RB})"),
        r"\g<p> is inscribed in \g<c>"),
    # `circle O goes through all three vertices (of triangle ABC)`
    Sub(("vertices",), re.compile(rf"(?P<c>⊙{PT}{RB})(?P<app>,[^.;,]{{1,30}},)? (?:passes|goes|passing|going|runs|running) through {_VERTICES}"
                                  rf"(?: of (?:the )?(?:{POLYWORD} |△ ?)?(?P<poly>{POLY}))?"), _through_vertices),
]


_LINE_EARLY = rf"(?:[Tt]he )?(?:line )?(?:[a-z]\d{{0,2}}|{SEG})"
_CONIC = re.compile(r"\b(parabola|ellipse|hyperbola)\b")
_COORD = r"(?: ?\([^()]{1,24}\))?"
_QUALIFIED_ROLE = re.compile(r"\b(?:right|left|upper|lower)(?:-hand)? (focus|vertex|foci|vertices)\b")
_TWO_ROLES = re.compile(rf"\b(parabola|ellipse|hyperbola)\b([^.;]{{0,100}}?) (has|with|having) (focus|vertex) ({PT}{RB}{_COORD}),? and (?:its |a |the )?(focus|vertex) ({PT}{RB}{_COORD})")
_BARE_ROLE = re.compile(rf"(?<![A-Za-z0-9'])({PT}{RB})({_COORD}) is (?:the |a )(focus|vertex)\b(?! of)")
_THE_CURVE = re.compile(r"\bthe curve\b")
_SINGULAR = {"foci": "focus", "vertices": "vertex", "focus": "focus", "vertex": "vertex"}
# `F1 and F2 are its two foci`, `A is its vertex`; terse `; foci F1, F2;`, `; focus F1, focus F2;`
_ITS_ROLES = re.compile(rf"(?<![A-Za-z0-9'])({PT}{RB})({_COORD})(?:(?: and ({PT}{RB})({_COORD}) are its (?:two )?(foci|vertices))| is its (focus|vertex))\b(?! of)"
                        rf"|(?:(?<=[;:] )|(?<=^))(?:the |its )?(?:(?:right|left|upper|lower)(?:-hand)? )?(foci|focus|vertices|vertex) ({PT}{RB})({_COORD})"
                        rf"(?:,? (?:and )?(?:(?:right|left|upper|lower)(?:-hand)? )?(?:(focus|vertex) )?({PT}{RB})({_COORD}))?(?= ?[,;.]|$)")


def _its_roles(m: re.Match[str], conic: str) -> str:
    if m.group(1):
        role = _SINGULAR[m.group(5) or m.group(6)]
        pairs = ((m.group(1), m.group(2), role), (m.group(3), m.group(4), role))
    else:
        role = _SINGULAR[m.group(7)]
        pairs = ((m.group(8), m.group(9), role), (m.group(11), m.group(12), m.group(10) or role))
    return ", ".join(f"{p} is the {r} of the {conic}" + (f", {p}{xy}" if xy else "") for p, xy, r in pairs if p)
_DIRECTRIX = re.compile(r"(?:,? and|,? with|,? has|,? having|,)? (?:whose |its |the |a )?directrix (?:is )?(?:the )?(?:line )?([a-z]\d{0,2})(?![A-Za-z0-9'])")
_WHOSE_ROLE = re.compile(rf"\bwhose (focus|vertex) is (?:the )?(?:point )?({PT}{RB})({_COORD})")
_SOLID_IT = re.compile(r"\b(cylinder|cone|cube|cuboid|prism|box)\b([^.]{0,60}?)(?:[;,] (?:and )?(?:a |an )(sphere|ball) is inscribed (?:in|within) it\b"
                       r"| (?:with|has|having) (?:a |an )(sphere|ball) (?:fitted (?:snugly |tightly |exactly )?(?:inside|in|into)|inscribed (?:in|within)) it\b"
                       r"|[;,] (?:and )?inscribed (?:in|within) it (?:is|lies) (?:a |an )(sphere|ball)\b)")


_EARLY = [
    # `the line O1O2 is the perpendicular bisector of AB and meets it at M`: `it` is the bisected segment
    (re.compile(rf"({_LINE_EARLY}) is the perpendicular bisector of (?:segment )?({SEG}),? and (meets|cuts|crosses|intersects) it at"), r"\1 is the perpendicular bisector of \2 and \1 \3 \2 at"),
    # `a circle O is drawn on BC as diameter, and it crosses AB at D`: `it` is the circle the clause is about
    (re.compile(r"((?:^|[.;] )(?:[Aa] |[Tt]he )?)([Cc]ircle ([A-Z]\d{0,2}))([^.;]{0,50}?), and it (crosses|meets|cuts|intersects|touches|passes)\b"),
     r"\1\2\4, and circle \3 \5"),
    # `the perpendicular from P to the y-axis meets it at Q`: `it` is the line the perpendicular goes to
    (re.compile(rf"(perpendicular (?:line |segment )?from (?:point )?{PT}{RB} to (?:the )?((?:line |segment |side )?{SEG}|[xy]-axis|line [a-z]\d?)),? "
                r"(?:and )?(meets|cuts|hits|intersects|reaches|meeting|cutting) it at"), r"\1 \3 \2 at"),
]


_INCIRCLE_IT = re.compile(r"\b((?:[Tt]he |[Aa] )?circle ([A-Z]\d{0,2}),? (?:is )?inscribed)(?: in it\b|(?= ?[,;.]| (?:so|and|touches|touching|is)\b))")
_INCIRCLE_TERSE = re.compile(r"(?:(?<=[;,] )|^)(?:the |its )?incircle (?:⊙ ?|circle )?([A-Z]\d{0,2})(?![A-Za-z0-9'])")


def _incircle(text: str) -> str:
    """`the circle I inscribed in it`, `the circle I is inscribed, so …`, terse `incircle ⊙I`: the
    circle is inscribed in the last triangle (or polygon) named before it."""
    def last_polygon(m: re.Match[str]) -> str | None:
        found = _LAST_POLY.findall(m.string, max(0, m.start() - 200), m.start())
        return found[-1] if found else None

    def inscribed_it(m: re.Match[str]) -> str:
        poly = last_polygon(m)
        if not poly:
            return m.group(0)
        if re.match(r" (?:touches|touching|is tangent|meets)\b", m.string[m.end() :]):  # the circle stays the verb's subject
            return f"circle {m.group(2)} is inscribed in {poly}, and circle {m.group(2)}"
        return f"{m.group(1)} in {poly}"

    def terse(m: re.Match[str]) -> str:
        poly = last_polygon(m)
        return f"circle {m.group(1)} is inscribed in {poly}, circle {m.group(1)}" if poly else m.group(0)

    if "inscribed" in text:
        text = _INCIRCLE_IT.sub(inscribed_it, text)
    return _INCIRCLE_TERSE.sub(terse, text) if "incircle" in text else text


_CONE_APEX = re.compile(rf"\b(cone)\b([^.;]{{0,40}}?) (?:has|with|having) (?:its |an |the )?(?:apex|vertex|tip) (?:at )?(?:point )?({PT}){RB}"
                        rf"|,? with ({PT}){RB} (?:at|as) its (?:apex|vertex|tip)\b|\bcone[,;:] (?:apex|vertex|tip) ({PT}){RB}")


def _cone_apex(text: str) -> str:
    """`a cone has apex P`, `a cone with vertex P`, `…, with P at its tip` (one cone): P is its apex."""
    if re.search(r"\bcones\b|\b(?:two|another|second|other) cones?\b", text):
        return text  # a caption with two cones: the apex is not the one cone's
    return _CONE_APEX.sub(lambda m: (f"{m.group(1)}{m.group(2)}, and {m.group(3)} is the apex of the cone" if m.group(1)
                                     else f", and {m.group(4)} is the apex of the cone" if m.group(4)
                                     else f"cone; {m.group(5)} is the apex of the cone"), text)


def conic_roles(text: str) -> str:
    """Roles of a caption's one conic said without naming it: `right-hand focus` is a focus (the
    side is no part of the keypoint), `has focus F and vertex A` gives both, `A(2, 0) is the vertex`
    and `the curve` are the one conic's; and `…; a sphere is inscribed in it` after a solid."""
    if "inscribed" in text or "incircle" in text:
        text = _incircle(text)
    if "cone" in text:
        text = _cone_apex(text)
    if " it " in text:
        for pattern, repl in _EARLY:
            text = pattern.sub(repl, text)
    if " it" in text and ("inscribed" in text or "fitted" in text):  # `a cylinder with a ball fitted snugly inside it`
        text = _SOLID_IT.sub(lambda m: f"{m.group(1)}{m.group(2)}; a {m.group(3) or m.group(4) or m.group(5)} is inscribed in the {m.group(1)}"
                             + (f"; the {m.group(5)}" if m.group(5) else ""), text)
    kinds = set(_CONIC.findall(text))
    if len(kinds) != 1:
        return text
    conic = kinds.pop()
    if " its " in text or "foc" in text or "vert" in text:
        text = _ITS_ROLES.sub(lambda m: _its_roles(m, conic), text)
    text = _QUALIFIED_ROLE.sub(r"\1", text)
    text = _TWO_ROLES.sub(r"\1\2 \3 \4 \5, and the \1 \3 \6 \7", text)
    text = _BARE_ROLE.sub(lambda m: f"{m.group(1)} is the {m.group(3)} of the {conic}" + (f", {m.group(1)}{m.group(2)}" if m.group(2) else ""), text)
    if "whose " in text:  # `the parabola y^2 = 8x, whose focus is F(4, 0)`
        text = _WHOSE_ROLE.sub(lambda m: f"whose {m.group(1)} is {m.group(2)}, {m.group(2)} is the {m.group(1)} of the {conic}" + (f", {m.group(2)}{m.group(3)}" if m.group(3) else ""), text)
    if "directrix" in text:  # `has focus F and directrix l`: the line is the conic's directrix
        text = _DIRECTRIX.sub(rf", and line \1 is the directrix of the {conic}", text)
    return _THE_CURVE.sub(f"the {conic}", text)
