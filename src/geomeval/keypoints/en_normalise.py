"""English phrasing to one notation, before any rule runs (`normalise`).

`is parallel to` -> `∥`, `circle O` -> `⊙O`, `angle ABC` -> `∠ABC`, `the coordinates of A
are` -> `A =`, `radius 3` -> `radius = 3`; the surface forms of the canonical relations
(`canonical.RELATIONS`) that the rules do not read directly are rewritten to ones they do;
pronouns and bare line letters are written out first and after (`en_reference`). Every
substitution is one bounded regular expression, applied only when its trigger words occur.
"""

from __future__ import annotations

import re

from . import canonical as cn
from ._engine import (
    ANG,
    BIG,
    CIRC,
    NUMC,
    NUMSTART,
    OBJ_CORE,
    PNAME,
    POLY,
    PT,
    RB,
    SEG,
    SMALL,
    SOLID_NAME,
    Sub,
    apply_subs,
    list_of,
)
from ._engine import sub as _sub
from ._normalize import common, drop_colours_en, lower_words, solid_planes
from .en_asides import ASIDE_SUBS
from .en_labels import LABEL_SUBS, conic_roles, equation_labels
from .en_patterns import _SEG_RE, POLYWORD, SEP, SOLIDWORD
from .en_prose import PROSE_SUBS
from .en_reference import bare_line_names, resolve_pronouns
from .en_shared_verbs import SHARED_VERB_SUBS

# --------------------------------------------------------------------------- normalisation


def _let(m: re.Match[str]) -> str:
    """`let A, B be points on ...` -> `A, B are points on ...`."""
    return m.group(1) + (" are" if len(cn.point_tokens(m.group(1))) > 1 else " is")


def _circles(m: re.Match[str]) -> str:
    return " and ".join("⊙" + p for p in cn.point_tokens(m.group(1)))


def _lines(m: re.Match[str]) -> str:
    names = re.sub(r"(?<![a-z])([a-z]\d{0,2})(?![a-z0-9])", r"ℓ\1", m.group(2))
    return f"{m.group(1)} {names}"


def _sized_one(m: re.Match[str]) -> str:
    """`the larger one` in a caption about a big and a small circle is that circle."""
    if "⊙" + BIG not in m.string and "⊙" + SMALL not in m.string and "circles" not in m.string:
        return m.group(0)
    return "⊙" + (BIG if re.fullmatch(_BIG_WORDS, m.group("w")) else SMALL)


IMPLIED = "\u2063"  # marks an angle the caption only implies (`right-angled at B`): a value, not an element
def _diagonals_of(m: re.Match[str]) -> str:
    """`the diagonals of square KLMN intersect at T`: a quadrilateral's diagonals are KM and LN."""
    pts = cn.point_tokens(m.group(1))
    if len(pts) != 4:
        return m.group(0)
    return f"{m.group(0)}, the diagonals {pts[0]}{pts[2]} and {pts[1]}{pts[3]},"


def _parallel_lines(m: re.Match[str]) -> str:
    """`two parallel lines a and b are cut by ...` -> `lines a and b (ℓa ∥ ℓb) are cut by ...`: the relation
    is stated in brackets so that the sentence around it still reads the same."""
    def name(x: str) -> str:
        return x if x[0].isupper() else "ℓ" + x
    symbol = "∥" if m.group(1) == "parallel" else "⊥"
    return f"{m.group(2)} {m.group(3)} and {m.group(4)} ({name(m.group(3))} {symbol} {name(m.group(4))})"


def _respectively_touch(m: re.Match[str]) -> str:
    """`⊙K touches QR, RP and PQ at X, Y and Z`: one tangency per side, in order (when the counts agree)."""
    sides, pts = re.findall(SEG, m.group(3)), re.findall(PNAME, m.group(4))
    if len(sides) != len(pts):
        return m.group(0)
    return ", and ".join(f"{m.group(1)} {m.group(2)} {s} at {p}" for s, p in zip(sides, pts, strict=True))


def _foot_in_triangle(m: re.Match[str]) -> str:
    """`D is the foot of the altitude from A` in the caption's one triangle with vertex A: on the opposite side."""
    vertex = m.group(2)
    sides = {tuple(t for t in cn.point_tokens(name) if t != vertex)
             for name in re.findall(rf"(?:triangle|△) ?((?:{PT}){{3}}){RB}", m.string) if vertex in cn.point_tokens(name)}
    if len(sides) != 1:
        return m.group(0)
    (side,) = sides
    return f"{vertex}{m.group(1)} ⊥ {''.join(side)} at {m.group(1)}"


def _solid_base(m: re.Match[str]) -> str:
    """`PK is perpendicular to the base` in the caption's one pyramid P-KLM (prism KLM-K1L1M1): the plane KLM."""
    bases = {name.split("-", 1)[1] if len(cn.point_tokens(name.split("-", 1)[0])) == 1 else name.split("-", 1)[0]
             for pair in re.findall(r"(?:pyramid|prism|cube|cuboid|box|frustum) ((?:[A-Z][0-9']{0,2}){1,8}-(?:[A-Z][0-9']{0,2}){3,8})"
                                    r"|((?:[A-Z][0-9']{0,2}){1,8}-(?:[A-Z][0-9']{0,2}){3,8}) is an? (?:[a-z]+ )?(?:pyramid|prism|cube|cuboid|box|frustum)\b", m.string)
             for name in pair if name}
    if len(bases) != 1:
        return m.group(0)
    return f"{m.group(1)} plane {bases.pop()}"


_CENTRE_OF = {"medians": "centroid", "angle bisectors": "incentre", "internal angle bisectors": "incentre", "altitudes": "orthocentre",
              "heights": "orthocentre", "perpendicular bisectors": "circumcentre", "perpendicular bisectors of the sides": "circumcentre"}


def _concurrence(m: re.Match[str]) -> str:
    """`the medians of triangle KLM meet at T`, `T is where the medians of triangle KLM meet`: T is its centroid
    (angle bisectors: incentre, altitudes: orthocentre, perpendicular bisectors: circumcentre)."""
    head = re.match(rf"({PT}){RB} is ", m.group(0))
    point = head.group(1) if head else m.group(3)
    if point is None or (head is None and " at " not in m.group(0) and " in " not in m.group(0)):
        return m.group(0)
    return f"{point} is the {_CENTRE_OF[m.group(1)]} of triangle {m.group(2)}"


def _dropped_perpendicular(m: re.Match[str]) -> str:
    """`from D a perpendicular is dropped to AC, meeting it at E`, `a perpendicular AH is dropped from A
    to BC, landing at H`, `drop a perpendicular from P to l with foot F`: PF ⊥ the line at F (guide)."""
    foot, seg = m.group("f"), m.group("seg") or ""
    src = m.group("p1") or m.group("p2") or next((t for t in cn.point_tokens(seg) if t != foot), "")
    if not src or src == foot:
        return m.group(0)
    return f"{src}{foot} ⊥ {m.group('to')} at {foot}"


def _joined_to(m: re.Match[str]) -> str:
    """`O is joined to A, to B and to P`, `P is joined to both A and B`: the segments OA, OB, OP are drawn."""
    src = m.group(1)
    ends = [m.group(2), *re.findall(f"({PT}){RB}", m.group(3))]
    return m.group(0)[: m.start(2) - m.start()].rsplit(" is ", 1)[0] + ", " + ", ".join(f"{src}{e} is drawn" for e in ends if e != src)


def _touches_each_at(m: re.Match[str]) -> str:
    """`⊙I touches BC at D, CA at E and AB at F`: one tangency per side and point."""
    pairs = [(m.group(4), m.group(5)), *re.findall(f"({SEG}) at (?:point )?({PT}){RB}", m.group(6))]
    return m.group(1) + m.group(2) + ", and ".join(f" {m.group(3)} {seg} at {p}" if i == 0 else f"{m.group(1)} {m.group(3)} {seg} at {p}"
                                                  for i, (seg, p) in enumerate(pairs))


def _through_line(p: str, how: str, to: str, meets: str, at: str) -> str:
    """`the line through P parallel to QR meets QS at T`: PT ∥ QR and T on QS (PT ⊥ QR at T when it meets QR itself)."""
    if how == "perpendicular" and cn.segment(to) == cn.segment(meets):
        return f"{p}{at} ⊥ {to} at {at}"
    symbol = "∥" if how == "parallel" else "⊥"
    return f"{p}{at} {symbol} {to}, and {p}{at} meets {meets} at {at}"


_SPACES = re.compile(r" {2,}")
_LOWER_NAME = r"[a-z]\d{0,2}"
_BIG_WORDS = r"(?:larger|bigger|big|greater|outer)"
# `two circles centred at O`, `two concentric circles have centre O`, `concentric circles with a common centre O`
_CONCENTRIC = (
    r"\b(?:(?:the )?(?:two|2|both) )?(?:concentric circles|circles(?= (?:[a-z]{1,10} ){0,2}?(?:concentric|cent(?:re|er)e?d"
    r" (?:at|on)|(?:a |the )?(?:common|same|shared) cent|(?:the |a |one )?cent(?:re|er)\b)))"
    r"(?: (?:[a-z]{1,10} ){0,2}?(?:concentric|cent(?:re|er)e?d (?:at|on)|(?:a |the )?(?:common|same|shared) cent(?:re|er)"
    rf"|(?:the |a )?cent(?:re|er))(?: (?:at |point |is )?{PT}{RB})?)?"
)
_SMALL_WORDS = r"(?:smaller|small|lesser|inner)"
_TOUCH_ITEM = re.compile(rf",? (?:and )?(?:to )?(?:side |line |segment )?({SEG}) (?:only )?at (?:point )?({PT}){RB}")


def _touch_list(m: re.Match[str]) -> str:
    """`⊙I meets side BC only at D, side CA only at E, and AB only at F`: each side touches ⊙I at its point;
    `only at` (one common point) is tangency whatever the verb."""
    verb = "is tangent to" if m.group("only") or m.group("v") in ("touches", "is tangent to") else m.group("v")
    items = [(m.group("s"), m.group("p")), *_TOUCH_ITEM.findall(m.group("rest"))]
    said = f"{m.group('c')} is {m.group('app').strip(', ')}, and " if m.group("app") else ""
    return said + ", and ".join(f"{m.group('c')} {verb} {seg} at {p}" for seg, p in items)


def _its_incircle(m: re.Match[str]) -> str:
    """`Triangle ABC has ... Its incircle, circle I, ...`: `its` is the polygon named last before."""
    found = re.findall(rf"(?:triangle |△ ?|quadrilateral |square )({POLY})", m.string[: m.start()], flags=re.I)
    if not found:
        return m.group(0)
    return f"{m.group(2)}, the {m.group(1)} of triangle {found[-1]},"


_EN_SUBS: list[Sub] = [
    *ASIDE_SUBS,
    *PROSE_SUBS,
    _sub(("▱",), r"▱ ?", "parallelogram "),
    _sub(("plane through", "plane containing", "plane passing"), rf"\b[Tt]he plane (?:through|containing|passing through) (?:the )?(?:points? )?({PT}){RB}, ({PT}){RB},? and ({PT}){RB}",
         r"plane \1\2\3"),
    _sub((";",), rf"(?:(?<=; )|(?<=: ))({SEG})(?= ?(?:;|\.|$))", r"segment \1"),  # terse list item: `…; AE; …` draws AE
    _sub(("hrough",), rf"\b[Tt]hrough (?:point )?({PT}){RB},? (?:runs|passes|goes|is drawn) (?:a |the )?line ([a-z]\d{{0,2}})\b", r"line \2 passes through \1, and line \2 runs"),
    _sub(("On ", "on "), rf"\b[Oo]n (?:the )?(?:line |segment |side )?({SEG}|[a-z]\d{{0,2}}\b|⊙{PT}{RB}),? (?:a |the )?point ({PT}){RB} is (?:taken|chosen|marked|placed)",
         r"point \2 lies on \1, and \2 is taken"),
    _sub(("units from", "unit from", "cm from"), rf"\b({PT}){RB} is (?:taken|chosen|placed|located|marked) ({NUMC}) (?:units?|cm) (?:away )?from (?:point )?({PT}){RB}",
         r"\1\3 = \2"),
    _sub(("midpoint",), rf"({SEG})(?: (?:is )?drawn)?,? with (?:its )?midpoint ({PT}){RB}", r"\1, and \2 is the midpoint of \1"),
    _sub((" through ",), rf"(?:^ ?|(?<=[;.] )|(?<=, ))((?:line )?ℓ?[a-z]\d{{0,2}})( ?: ?[^;.,:]{{1,40}}?) through (?=(?:the )?(?:points? )?{PT})", r"\1\2, \1 passes through "),
    _sub(("inscribed in it", "inscribed within it"), rf"\b({SOLIDWORD})\b([^.;]{{0,40}}?) (?:has|contains) (?:a |an )({SOLIDWORD})\b([^.;]{{0,30}}?) inscribed (?:in|within) it\b",
         r"\1\2, and a \3\4 is inscribed in the \1"),
    _sub(("extend", "produce"), rf"\b(?:(?:[Tt]he )?(?:[Ss]ide |[Ss]egment |[Ll]ine )?({SEG}) is (?:extended|produced)|(?:[Ee]xtend|[Pp]roduce) (?:the )?(?:side |segment |line )?({SEG}))"
         rf"(?: (?:past|beyond|through) (?:point )?{PT}{RB})? to (?:a |the )?(?:point )?({PT}){RB}", r"\3 lies on the extension of \1\2"),
    _sub(("foci", "focal points"), rf"\b(ellipse|hyperbola)\b([^.;]{{0,80}}?),? (?:and )?(?:with|has|having) (?:the |its )?(?:two )?(?:foci|focal points) (?:at )?(?:points? )?"
         rf"({PT}){RB}((?: ?\([^()]{{1,20}}\))?),? and ({PT}){RB}((?: ?\([^()]{{1,20}}\))?)((?:,? (?:both )?(?:on|lying on) the [xy]-axis)?)",
         lambda m: f"{m.group(1)}{m.group(2)}, and {m.group(3)} and {m.group(5)} are the foci of the {m.group(1)}"
                   + (f", {m.group(3)}{m.group(4)}, {m.group(5)}{m.group(6)}" if m.group(4) or m.group(6) else "")
                   + (f"; {m.group(3)} and {m.group(5)} lie on the {m.group(7).split('the ')[-1]}" if m.group(7) else "")),
    _sub(("its vertex", "its focus", "s vertex", "s focus"), rf"\b(parabola|ellipse|hyperbola)\b([^!?]{{0,160}}?)(?:\b(?:its|whose|the {PT}{RB}'s) (vertex|focus) is (?:called |named )?(?:point )?({PT}){RB}"
         rf"|\b({PT}){RB} is its (vertex|focus)\b)", lambda m: f"{m.group(1)}{m.group(2)}{m.group(4) or m.group(5)} is the {m.group(3) or m.group(6)} of the {m.group(1)}"),
    _sub(("vertex", "focus"), rf"\b(parabola|ellipse|hyperbola)\b([^.]{{0,100}}?)(,|;|,? and|,? with|,? which has|,? has|,? having) (?:its |a |the )?(vertex|focus)"
         rf"(?: (?:is )?(?:at|called|named|is))? (?:point )?({PT}){RB}",
         lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)} {m.group(5)} is the {m.group(4)} of the {m.group(1)}, {m.group(5)}"),
    _sub(("perpendicular",), rf"(?:\b(?i:from) (?i:point )?(?P<p1>{PT}){RB},? )?(?:\b(?i:drop|draw|construct) )?(?:\b(?i:a|the) )?\b(?i:perpendicular)"
         rf"(?: (?i:line|segment))?(?: (?P<seg>{SEG}))?(?: (?i:is))?(?: (?i:dropped|drawn|constructed))?(?: (?i:from) (?i:point )?(?P<p2>{PT}){RB})?"
         rf" (?i:to|onto) (?i:the )?(?:(?i:side|line|segment) )?(?P<to>{SEG}|ℓ[a-z]\d{{0,2}}|[xy]-axis){RB},? (?i:meeting it at|meeting (?:side |line |the )?(?P=to) at"
         rf"|landing at|with (?:the |its )?foot(?: at)?|whose foot is|the foot being|hitting it at|at) (?i:the )?(?i:point )?(?P<f>{PT}){RB}",
         _dropped_perpendicular),
    _sub(("perpendicular",), rf"\b(?:(?i:the|a) )?(?i:perpendicular)(?: (?i:line|segment))? (?:(?i:drawn|dropped) )?(?i:from) (?i:point )?({PT}){RB},? "
         rf"(?i:meets|meeting|cuts|hits|intersects) (?i:the )?(?:(?i:side|line|segment) )?({SEG}|ℓ[a-z]\d{{0,2}}){RB} (?i:at) (?i:point )?({PT}){RB}",
         r"\1\3 ⊥ \2 at \3"),
    _sub(("concentric", "circles"), _CONCENTRIC, "⊙" + BIG + " and ⊙" + SMALL + " are concentric"),
    _sub(("er circle", "big circle"), rf"\b(?:the |a |an )?{_BIG_WORDS} circle(?:'s)?\b", "⊙" + BIG),
    _sub(("er circle", "small circle"), rf"\b(?:the |a |an )?{_SMALL_WORDS} circle(?:'s)?\b", "⊙" + SMALL),
    _sub(("er radius", "big radius"), rf"\b(?:the )?{_BIG_WORDS} radius\b", "radius of ⊙" + BIG),
    _sub(("er radius", "small radius"), rf"\b(?:the )?{_SMALL_WORDS} radius\b", "radius of ⊙" + SMALL),
    _sub(("radius of ⊙",), rf"\b(radius of ⊙[{BIG}{SMALL}]) ({NUMC}){RB}", r"\1 = \2"),
    _sub(("er one", "big one", "small one", "er has", "er is"), rf"\b(?:the )?(?P<w>{_BIG_WORDS}|{_SMALL_WORDS})(?: one\b|(?= (?:has|is|with)\b))", _sized_one),
    _sub(("away from",), rf"\b({PT}){RB} (?:is|lies) ({NUMC}) (?:units? |cm )?(?:away )?from (?:both )?(?:points? )?({PT}){RB},? and (?:point )?({PT}){RB}",
         r"\1\3 = \1\4 = \2"),
    _sub(("transversal",), r"\b(?:a |the )?transversal(?: line)?(?= [a-zA-Z]\d{0,2}(?![a-zA-Z0-9']))", "line"),
    _sub(("(on ", "(of "), r" ?\((?:on|of) (?:line |the line )?[a-z]\d{0,2}\)", ""),
    # other surface forms of the same canonical relations (see canonical.RELATIONS)
    # `A, B, C, D ∈ ⊙O`, `A, B and C are all on circle O`: every point listed lies on it
    _sub(("∈",), rf"((?:{PT}{RB}(?: ?\([^()]{{1,24}}\))?, ?(?:and )?)+{PT}{RB}(?: ?\([^()]{{1,24}}\))?) ?∈ ?", r"\1 lie on "),
    _sub(("all on", "all lie on"), rf"((?:{PT}{RB}, ?(?:and )?)*{PT}{RB},? and {PT}{RB}) (?:are |being |lie |lying )?all (?:lie )?on\b", r"\1 lie on"),
    _sub(("∈",), r" ?∈ ?", " lies on "),
    _sub(("right angle",), r" ?\b(?:is |are |stands? |standing |being |lies |lying )?at right angles (?:to|with)\b"
         r"| ?\b(?:makes?|making|forms?|forming) a right angle with\b", " perpendicular to"),
    _sub(("right angle",), rf"((?:{SEG}|[a-z]\d{{0,2}}(?![A-Za-z0-9']))) and ((?:line )?(?:{SEG}|[a-z]\d{{0,2}}(?![A-Za-z0-9']))) "
         r"(cross|meet|intersect) (?:each other )?at (?:a )?right angles?\b", r"\1 and \2 are perpendicular, and \1 and \2 \3"),
    _sub(("right angle",), r"\b(cross|crosses|meet|meets|intersect|intersects) (?:each other )?at (?:a )?right angles?\b",
         r"are perpendicular and \1"),
    _sub(("parallel",), r"\b(?:runs?|running|is drawn|drawn|lies|lying|goes|going) parallel (?=to\b)", "parallel "),
    _sub(("incircle", "inscribed circle"), rf"\b(?:the )?(?:incircle|inscribed circle) (?:⊙ ?)?({PT}){RB} of ",
         r"⊙\1 is inscribed in "),
    _sub(("r =", "r=", "h =", "h="), rf"(?<![A-Za-z])(?:(?:base )?radius |\(|, )?r ?= ?(?={NUMSTART})", " radius = "),
    _sub(("h =", "h="), rf"(?<![A-Za-z])(?:height )?h ?= ?(?={NUMSTART})", "height = "),
    _sub(("cent",), rf"(⊙{PT}){RB},? (?:(?:which is |is )?cent(?:red|ered) at|with cent(?:re|er)|cent(?:re|er)) (?:point )?(?=\()",
         r"\1 has centre "),
    _sub(("edges of length", "edge of length"), r"\b(?:has |with )?(?:all )?(?:its )?edges? of length\b", "edge length"),
    _sub(("reach",), r"\b(?:reaches|reaching) (?=(?:the )?(?:side |segment |line |edge )?[A-Z])", "meets "),
    # more surface forms of the canonical relations (#41), each rewritten to a wording the rules read
    _sub(("halfway", "midway"), rf"\b({PT}){RB} (?:is |lies )?(?:the point )?(?:exactly )?(?:halfway|midway) between (?:points? )?"
         rf"({PT}){RB} and (?:point )?({PT}){RB}", r"\1 is the midpoint of \2\3"),
    _sub(("middle point", "mid-point", "mid point"), r"\b(?:middle |mid-|mid )point of\b", "midpoint of"),
    # more surface forms met in model-style captions
    _sub((")/(",), rf"\(({SEG})\)/\(({SEG})\)", r"\1/\2"),  # LaTeX \frac{KN}{NL}
    _sub(("s_", "s△"), rf"(?<![A-Za-z])S_?\{{?(△ ?{POLY}|{POLY})\}}?(?= ?=)", r"area of \1"),
    _sub((" =", "= "), rf"\(((?:{SEG}|∠ ?[A-Z0-9']{{1,9}}) ?= ?[^()=]{{1,30}})\)", r", \1,"),  # `△KLM (KL = KM)`
    _sub((": ",), rf"(?<![A-Za-z0-9'])({POLY}): ?(?:a |an )?((?:{POLYWORD}))\b", r"\2 \1"),
    _sub((" diagonals", " medians", " altitudes", " chords"), rf"(?<![A-Za-z0-9'])({SEG})(?:, | and )({SEG}) (diagonals|medians|altitudes|chords)\b",
         r"\3 \1 and \2"),
    _sub(("tangent at",), rf"\b(?:the )?tangent(?: line)? at (?:point )?({PT}){RB} to ((?:circle |⊙ ?)?{PT}){RB} (meets|intersects|cuts) (?:the )?(?:line |side |segment )?"
         rf"({SEG}) at (?:point )?({PT}){RB}", r"\5\1 is tangent to \2 at \1, and \5 lies on \4"),
    _sub((", which ", ", that "), r"((?:\bthe )?(?:line|segment|circle|ray) [a-zA-Z]\d{0,2}|(?<![A-Za-z0-9'])[A-Z][0-9']{0,2}[A-Z][0-9']{0,2}), (?:which|that) "
         r"([^,;.]{3,50}), (runs|is|lies|meets|touches|cuts|crosses|intersects|passes|bisects|parallel to|perpendicular to)\b", r"\1 \2, and \1 \3"),
    _sub(("through",), rf"\bthrough (?:the )?(midpoint |point )?({PT}){RB}((?: of (?:the )?(?:segment |side )?{SEG})?),? (?:we draw |draw )?(?:a |the )?"
         r"(?:straight )?line ([a-w]\d{0,2})(?![A-Za-z0-9'])",
         lambda m: (f"{m.group(2)} is the midpoint{m.group(3)}, " if m.group(1) == "midpoint " and m.group(3) else "")
         + f"{m.group(2)} lies on line {m.group(4)}, and line {m.group(4)}"),
    _sub(("chosen on", "taken on", "selected on", "picked on", "marked on", "chosen in", "taken in"),
         r"\b(?:is|are) (?:chosen|taken|selected|picked|marked)(?= (?:on|in|upon) )", "lies"),
    _sub(("another point", "one more point", "second point", "third point"), r"\bis (?:another|one more|a second|a third) point (?=on|of)", "is a point "),
    _sub(("bisect each other",), rf"({SEG}) and ({SEG}) bisect each other at (?:the )?(?:point )?({PT}){RB}",
         r"\3 is the midpoint of \1, \3 is the midpoint of \2, and \1 and \2 meet at \3"),
    _sub(("midpoint of both", "midpoint of each"), rf"({SEG}) and ({SEG}) (meet|intersect|cross) at (?:the )?(?:point )?({PT}){RB},? (?:which is )?"
         r"the midpoint of (?:both|each)(?: of them)?", r"\1 and \2 \3 at \4, \4 is the midpoint of \1, \4 is the midpoint of \2"),
    _sub(("equidistant",), rf"(?<![A-Za-z0-9'])({PT}) is equidistant from (?:points )?({PT}) and ({PT}) and (?:lies|is) on (?:the )?(?:segment )?({SEG})",
         lambda m: f"{m.group(1)} is the midpoint of {m.group(4)}" if cn.segment(m.group(2) + m.group(3)) == cn.segment(m.group(4))
         else m.group(0)),
    _sub(("equally far", "equidistant"), rf"(?<![A-Za-z0-9'])({PT}) is (?:the|a) point (?:of|on) (?:the )?(?:segment |side )?({SEG}) (?:that is |which is )?"
         rf"(?:equally far from|equidistant from|the same distance from) (?:points )?({PT}) and ({PT}){RB}",
         lambda m: f"{m.group(1)} is the midpoint of {m.group(2)}" if cn.segment(m.group(3) + m.group(4)) == cn.segment(m.group(2))
         else m.group(0)),
    _sub(("parallel and equal", "equal and parallel", "perpendicular and equal", "equal and perpendicular"),
         rf"({SEG}) and ({SEG})(?: of [^,;.]{{1,30}}?)? are (?:(parallel|perpendicular) and equal|equal and (parallel|perpendicular))(?: in length)?\b",
         lambda m: f"{m.group(1)} {'∥' if (m.group(3) or m.group(4)) == 'parallel' else '⊥'} {m.group(2)}, and {m.group(1)} = {m.group(2)}"),
    _sub(("medians", "bisectors", "altitudes", "heights"), rf"\b(?:(?:{PT}){RB} is (?:where|the point where|the (?:point of )?intersection of|"
         rf"the common point of) )?(?:the )?(?:three )?(medians|angle bisectors|internal angle bisectors|altitudes|heights|perpendicular bisectors"
         rf"(?: of the sides)?) of (?:the )?(?:triangle |△ ?)?((?:{PT}){{3}}){RB}(?: (?:all )?(?:meet|intersect|cross|are concurrent|concur|pass through"
         rf" (?:the )?(?:same )?(?:common )?point))?(?: (?:at|in) (?:the )?(?:point )?({PT}){RB})?",
         lambda m: _concurrence(m)),
    _sub(("cuts through", "passes through"), rf"({SEG}) (?:cuts|passes) (?:right )?through ({SEG}) at ", r"\1 cuts \2 at "),
    _sub(("intersection of",), rf"\bthe (?:point of )?intersection of ((?:line |segment )?(?:{SEG}|⊙{PT}|[a-z]\d{{0,2}}){RB}) and ((?:line |segment )?(?:{SEG}|⊙{PT}|[a-z]\d{{0,2}}){RB}) "
         rf"is (?:labell?ed |called |named |denoted |marked )?(?:(?:as|by) )?(?:point )?({PT}){RB}", r"\1 and \2 meet at \3"),
    _sub(("common point",), rf"({SEG}) and ({SEG}) have (?:the )?(?:point )?({PT}){RB} as (?:their|a) common point", r"\1 and \2 meet at \3"),
    _sub(("point lying", "point located", "point situated", "point sitting"), r"\bis a point (?:lying|located|situated|sitting) (?=on\b)", "lies "),
    _sub(("contains",), rf"((?:line |segment |side )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|⊙{PT}){RB}) contains (?:the )?(?:points? )?({PT}){RB}(?! ?[A-Z(])", r"\2 lies on \1"),
    _sub(("middle of", "halfway point", "mid-point of"), rf"\bthe (?:middle|halfway point|exact middle) of (?:the )?(?:segment |side )?(?=({SEG}){RB})", "the midpoint of "),
    _sub(("at the midpoint",), r"\bis (?:taken|placed|located|chosen|situated) at the midpoint of\b", "is the midpoint of"),
    _sub(("in half", "into halves"), r"\b(?:divides|splits|cuts) (∠ ?[A-Z0-9']{1,9}) (?:in half|into halves)\b", r"bisects \1"),
    _sub(("around", "about"), rf"((?:circle |⊙ ?){PT}){RB} (?:is )?(?:drawn |passes |goes |circumscribed )?(?:around|about) (?:the )?((?:triangle |△ ?|quadrilateral )?{POLY})",
         r"\2 is inscribed in \1"),
    _sub(("inside",), rf"((?:circle |⊙ ?){PT}){RB} (?:is )?(?:drawn |placed |lies )?inside (?:the )?((?:triangle |△ ?)?{POLY}),? (?:and )?(?:touching|tangent to|touches) "
         r"(?:all )?(?:three |its |the )?(?:three )?sides", r"\1 is inscribed in \2"),
    _sub(("right angle",), rf"\bwith (?:the |a |its )?right angle (?:at )?(?:vertex )?({PT}){RB}", r"with the right angle at \1"),
    _sub(("sides of",), rf"\b(?:all )?(?:the )?(?:three )?sides of (?:the )?(?:triangle |△ ?)((?:{PT}){{3}}){RB} are (?:all )?equal(?: in length)?", r"triangle \1 is equilateral"),
    _sub(("sides of length",), r"\b(has|with) (?:all )?(?:its |the )?(?:four |three )?sides of length\b", r"\1 side length"),
    _sub(("||", " perp "), rf"({SEG}) ?(\|\||perp) ?({SEG})", lambda m: f"{m.group(1)} {'∥' if m.group(2) == '||' else '⊥'} {m.group(3)}"),
    _sub(("perpendicular(", "parallel(", "perpendicular (", "parallel ("), rf"\b(perpendicular|parallel) ?\(({SEG}), ?({SEG})\)",
         lambda m: f"{m.group(2)} {'⊥' if m.group(1) == 'perpendicular' else '∥'} {m.group(3)}"),
    _sub(("there is a point", "there lies a point", "there is point"), rf"\b[Oo]n (?:the )?(?:segment |side |line |edge )?({SEG}|⊙{PT}|circle {PT}){RB},? there (?:is|lies) "
         rf"(?:a )?(?:point )?({PT}){RB}", r"\2 lies on \1"),
    _sub((", a point on", ", a point of", ", the point on"), rf"(?<![A-Za-z0-9'])({PT}), (?:a|the) point (?:on|of) (?:the )?(?:segment |side |line |edge )?({SEG}|⊙{PT}|circle {PT}|ℓ?[b-z]\d{{0,2}}){RB}, ",
         r"\1 lies on \2, and \1 "),
    _sub(("and its circumcircle", "and its circumscribed circle", "and its incircle", "and its inscribed circle"),
         rf"((?:triangle |△ ?|quadrilateral |square |rectangle )?{POLY}) and its (circumcircle|circumscribed circle|incircle|inscribed circle) (?:⊙ ?|circle )?({PT}){RB}",
         lambda m: f"{m.group(1)} is inscribed in ⊙{m.group(3)}" if m.group(2).startswith("circum") else f"⊙{m.group(3)} is inscribed in {m.group(1)}"),
    # `△ABC with incircle ⊙I`, `△ABC, incircle ⊙O, r = 1`, `triangle ABC has circumcircle O`: the circle of that polygon
    _sub(("incircle", "circumcircle", "inscribed circle", "circumscribed circle"),
         rf"((?:triangle |△ ?|quadrilateral |square |rectangle )?{POLY}),?(?: with| has| having)?(?: its| an| the| a)? (circumcircle|circumscribed circle|incircle|inscribed circle) (?:⊙ ?|circle )?({PT}){RB}",
         lambda m: f"{m.group(1)} is inscribed in ⊙{m.group(3)}" if m.group(2).startswith("circum") else f"⊙{m.group(3)} is inscribed in {m.group(1)}"),
    _sub(("centre of the", "center of the"), r"\bthe cent(?:re|er) of the (circumcircle|circumscribed circle|incircle|inscribed circle) of\b",
         lambda m: "the circumcentre of" if m.group(1).startswith("circum") else "the incentre of"),
    _sub(("there is a right angle", "there is the right angle"), r"\bthere is (?=(?:a |the )?right angle (?:at|in) )", ""),
    _sub(("marked equal", "shown equal", "marked as equal", "marked congruent"), rf"({SEG}) and ({SEG}) are (?:marked|shown|indicated) (?:as )?(?:equal|congruent)\b",
         r"\1 = \2"),
    _sub(("segment is drawn from", "segment was drawn from", "line is drawn from"),
         rf"\b(?:[Aa]|[Tt]he) (?:line )?segment (?:is |was )?drawn from (?:point )?({PT}){RB} to (?:point )?({PT}){RB}", r"segment \1\2 is drawn"),
    _sub(("x- and y-axes", "x- and y-axis", "x and y axes"), r"\b(?:the )?x-? and y-?ax[ei]s\b", "the x-axis and the y-axis"),
    _sub(("orthogonal",), r"\b(is|are|be|being|was) orthogonal(?= to\b| with\b|\b)", r"\1 perpendicular"),
    _sub(("segment from", "line from"), rf"\b(?:the )?(?:line )?(?:segment|line) (?:joining|from) (?:point )?({PT}){RB} (?:to|and) (?:point )?({PT}){RB}(?! ?[A-Z(])",
         r"segment \1\2"),
    _sub(("perpendicular",), rf"({SEG}) (?:drops|is dropped|falls|is drawn|is let fall) perpendicular(?:ly)? (?:to|onto|on|upon) (?:the )?(?:line |side |segment )?({SEG})"
         rf",? (?:landing |meeting it |meeting \2 |with (?:its )?foot |and lands )?(?:at|on) (?:the )?(?:point )?({PT}){RB}", r"\1 ⊥ \2 at \3"),
    _sub(("right angle", "90° angle", "90 degree"), rf"({SEG}) and ({SEG}) (?:form|make|meet at) (?:a )?(?:right angle|90° angle|90 degree angle)(?: at (?:the )?(?:point )?({PT}){RB})?",
         lambda m: f"{m.group(1)} ⊥ {m.group(2)}" + (f" at {m.group(3)}" if m.group(3) else "")),
    _sub(("right angle", "90° angle", "90 degree"), rf"({SEG}) (?:makes?|forms?) (?:a )?(?:right angle|90° angle|90 degree angle|angle of 90°) with ({SEG})",
         r"\1 ⊥ \2"),
    _sub(("angle between",), rf"\b(?:the )?angle between ({SEG}) and ({SEG}) (?:is|=|measures) (?:90°|90 degrees|a right angle)", r"\1 ⊥ \2"),
    _sub(("touch each other", "touches each other"), r"\b(touch|touches) each other\b", r"\1"),
    _sub(("just touch", "only touch", "exactly touch"), r"\b(?:just|only|exactly) (?=touch)", ""),
    _sub(("tangent from",), rf"\b(?:[Aa]|the) tangent(?: line| segment)? (?:drawn )?from (?:the )?(?:point )?({PT}){RB} (?:touches|is tangent to|meets) "
         rf"((?:circle |⊙ ?)?{PT}){RB} at (?:the )?(?:point )?({PT}){RB}", r"\1\3 is tangent to \2 at \3"),
    _sub(("intercept of",), rf"(?<![A-Za-z0-9'])({PT})((?: ?\([^()]{{1,24}}\))?) is (?:the|an|one) ([xy])-intercept of ",
         r"\1\2 lies on the \3-axis, and \1 lies on "),
    _sub(("midpoint of",), rf"\bmidpoint of (?:the )?(?:segment )?(?:points )?({PT})( ?\([^()]{{1,24}}\)) and ({PT})( ?\([^()]{{1,24}}\))",
         r"midpoint of \1\3, \1\2, \3\4"),
    _sub(("is the midpoint", "is the centroid", "is the cent", "is the incent", "is the circumcent", "is the orthocent", "is the foot"),
         rf"(?<![A-Za-z0-9'])({PT})( ?\([^()]{{1,24}}\)) is the (midpoint|centroid|cent(?:re|er)|incent(?:re|er)|circumcent(?:re|er)"
         r"|orthocent(?:re|er)|foot) of\b", r"\1\2, \1 is the \3 of"),
    _sub(("perpendicular to the base", "⊥ the base", "perpendicular to its base", "perpendicular to the bottom"),
         r"(perpendicular to|⊥) (?:the|its) (?:base|bottom face|base face)(?: plane)?(?! ?(?:plane )?[A-Z])", _solid_base),
    _sub(("hypotenuse", "its base", "its side", "its leg"), rf"\bof (?:its|the) (?:hypotenuse|base|side|leg) (?=({SEG}){RB})", "of "),
    _sub((", a chord", ", the chord", ", a diameter", ", the diameter", ", a radius", ", a tangent", ", the tangent"),
         r"((?<![A-Za-z0-9'])[A-Z][0-9']{0,2}[A-Z][0-9']{0,2}), (?:a|the|one) (chord|diameter|radius|tangent) of ([^,;.]{1,30}), ",
         r"\1 is a \2 of \3, and \1 "),
    _sub(("bisected by",), rf"({SEG}) is bisected by (?:the )?(?:radius |line |segment |diameter )?({SEG}) at (?:the )?(?:point )?({PT}){RB}",
         r"\3 is the midpoint of \1, and \3 lies on \2"),
    _sub(("common points", "points in common"), r"(\b[^,;.]{1,24}?) and ([^,;.]{1,24}?) have (?:two|2) (?:common points|points in common),? "
         rf"(?:namely |at )?(?:points )?({PT}){RB} and ({PT}){RB}", r"\1 and \2 meet at \3 and \4"),
    _sub(("vertices on", "vertices lie on", "vertices lying on"), rf"({POLY}) ([^,;.]{{0,30}}?)with (?:all )?(?:three |four |five |six )?(?:of )?its vertices (?:lying |lie )?on ",
         r"\1 \2, \1 is inscribed in "),
    _sub(("tangent",), rf"\b(?:the )?(?:two )?tangent(?:s| segments| lines)?,? ({SEG}) and ({SEG}),? (?:are )?(?:drawn )?to ([^,;.]{{1,20}}?),? "
         rf"(?:touching|which touch|that touch|touch|and touch) (?:it |the circle |{CIRC} |circle {PT} )?at (?:the )?(?:points )?({PT}){RB} and ({PT}){RB}",
         r"\1 and \2 are tangent to \3 at \4 and \5"),
    _sub(("sits on", "sitting on", "belongs to", "is situated on", "is located on", "is placed on"),
         r"\b(?:sits|sitting|belongs|is situated|is located|is placed) (?:on|to|upon)\b(?= (?:the )?(?:line |segment |side |edge |circle |arc |⊙|[A-Z]))",
         "lies on"),
    _sub(("centre of", "center of"), rf"\b(?:the )?cent(?:re|er) of (?:the )?(?:line segment|segment|side|edge) (?=({SEG}){RB})", "the midpoint of "),
    _sub(("in half", "into halves", "in two halves"), rf"(?<![A-Za-z0-9'])(?:point )?({PT}) (?:divides|splits|cuts) (?:the )?(?:line segment |segment |side |edge )?"
         rf"({SEG}) (?:in half|into halves|in two halves)\b", r"\1 is the midpoint of \2"),
    _sub(("through",), rf"\b(?:the )?(?:straight )?line (?:passing |going )?through (?:the )?(?:points )?({PT}){RB} and ({PT}){RB}(?= (?:is|meets|intersects|cuts|crosses))",
         r"line \1\2"),
    _sub(("normal to",), r"\b(is|are) normal to\b", r"\1 perpendicular to"),
    _sub(("equal length", "same length", "equal lengths"), rf"(?:\b(?:the )?(?:segments |sides )?)?({SEG}) and ({SEG}) (?:have|are of) (?:the )?(?:equal|same) lengths?\b",
         r"\1 = \2"),
    _sub(("angles",), rf"\bangles ((?:{PT}){{3}}){RB} and ((?:{PT}){{3}}){RB} (?:are (?:equal|congruent)(?: to each other)?|have the same (?:size|measure))\b",
         r"∠\1 = ∠\2"),
    _sub(("foot of the altitude", "foot of the height", "foot of the perpendicular"),
         rf"\b({PT}){RB} is the foot of the (?:altitude|height|perpendicular) (?:drawn |dropped )?from (?:vertex |point )?({PT}){RB}(?! (?:to|on|onto)\b)",
         lambda m: _foot_in_triangle(m)),
    _sub(("point of",), r"\b(is|are) (a|any|two|three) (points?|moving points?) of (?=(?:the )?(?:circle|line|segment|side|edge|arc|⊙|[A-Z]))",
         r"\1 \2 \3 on "),
    _sub(("bisects",), rf"(?<![A-Za-z0-9'])(?:point )?({PT}) bisects (?:the )?(?:line segment |segment |side |edge )?({SEG})",
         r"\1 is the midpoint of \2"),
    _sub(("perpendicular from", "perpendicular is", "perpendicular was"), rf"\b(?:the |a )?perpendicular(?: line| segment)?(?: is| was)?(?: drawn| dropped)? "
         rf"from (?:point )?({PT}){RB} (?:to|onto) (?:the )?(?:line |side |segment )?({SEG}|[xy]-axis),? (?:has (?:its |the )?foot (?:at )?|meets (?:it |\2 |the \2 )?at "
         rf"|meeting (?:it |\2 )?at |with (?:the |its )?foot (?:at )?|whose foot is |at )(?:point |the point )?({PT}){RB}", r"\1\3 ⊥ \2 at \3"),
    # constructions (#41): what a drawn perpendicular or parallel states
    _sub(("perpendicular from", "perpendicular is", "perpendicular was", "perpendicular line from"),
         rf"\b(?:the |a )?perpendicular(?: line| segment)? from (?:point )?({PT}){RB} (?:to|onto) (?:the )?(?:line |side |segment )?({SEG})"
         rf",? (?:is |was )?(?:drawn|dropped|constructed),? (?:and )?(?:meets (?:it |\2 )?at |meeting (?:it |\2 )?at |(?:with |and )?(?:the |its )?foot "
         rf"(?:is |at |being )?)(?:point |the point )?({PT}){RB}", r"\1\3 ⊥ \2 at \3"),
    _sub(("perpendicular from", "perpendicular is", "perpendicular was"),
         rf"\b(?:the |a )?perpendicular(?: line| segment)?(?: is| was)?(?: drawn| dropped)? from (?:point )?({PT}){RB} (?:to|onto) "
         rf"(?:the )?(?:line )?(?:ℓ)?([a-z]\d{{0,2}})(?![A-Za-z0-9']),? (?:has (?:its |the )?foot (?:at )?|meets (?:it |line \2 |ℓ?\2 )?at |meeting (?:it |line \2 |ℓ?\2 )?at "
         rf"|with (?:the |its )?foot (?:at )?|whose foot is |at )(?:point |the point )?({PT}){RB}", r"\1\3 ⊥ line \2 at \3"),
    _sub(("altitude from", "height from", "median from"),
         rf"\b(?:the )?(median|altitude|height)(?: drawn| dropped)? from (?:vertex |point )?({PT}){RB} (?:lands|falls|drops|comes down) "
         rf"(?:on|onto|to) (?:the )?(?:side |segment |hypotenuse |base )?({SEG}) at (?:the point |point )?({PT}){RB}",
         r"\2\4 is the \1, and \2\4 meets \3 at \4"),
    _sub(("through",), rf"\b(?:(?:we )?draw(?:s|n)? |drawing )?(?:the |a )?(?:straight )?line (?:drawn )?through (?:the )?(?:point )?({PT}){RB},? "
         rf"(?:(?:which|that) )?(?:is )?(?:drawn )?(parallel|perpendicular) to (?:the )?(?:line |side |segment )?({SEG}),? (?:and )?(?:which )?"
         rf"(?:meeting|meets|intersecting|intersects|cutting|cuts|crossing|crosses|hitting|hits) (?:the )?(?:line |side |segment )?({SEG}) "
         rf"at (?:the )?(?:point )?({PT}){RB}", lambda m: _through_line(m.group(1), m.group(2), m.group(3), m.group(4), m.group(5))),
    _sub(("through",), rf"\bthrough (?:the )?(?:point )?({PT}){RB},? (?:draw |we draw )?(?:a|the) (?:straight )?line (?:is )?(?:drawn )?"
         rf"(parallel|perpendicular) to (?:the )?(?:line |side |segment )?({SEG}),? (?:and )?(?:which )?"
         rf"(?:meeting|meets|intersecting|intersects|cutting|cuts|crossing|crosses|hitting|hits) (?:the )?(?:line |side |segment )?({SEG}) "
         rf"at (?:the )?(?:point )?({PT}){RB}", lambda m: _through_line(m.group(1), m.group(2), m.group(3), m.group(4), m.group(5))),
    _sub(("foot of the perpendicular",), rf"\bthe foot of the perpendicular (?:drawn |dropped )?from (?:point )?({PT}){RB} (?:to|onto) (?:the )?"
         rf"(?:line |side |segment )?({SEG}) is (?:point |the point )?({PT}){RB}", r"\1\3 ⊥ \2 at \3"),
    _sub(("the point where", "the point at which"), rf"\bthe point (?:where|at which) ((?:{SEG}|⊙{PT}|[a-z]\d{{0,2}}){RB}) and "
         rf"((?:{SEG}|⊙{PT}|[a-z]\d{{0,2}}){RB}) (?:cross|meet|intersect)(?: each other)? is (?:point |the point )?({PT}){RB}", r"\1 and \2 meet at \3"),
    _sub((", the altitude", ", the median", ", the angle bisector", ", an altitude", ", a median"),
         rf"({SEG}), (?:the|an|a) (altitude|median|angle bisector|height)(?: (?:from|of|to|on) [^,;.]{{1,24}})?, ", r"\1 is the \2, and \1 "),
    _sub(("lying", "end "), rf"\b(?:its |whose |with |the )?(?:other )?(?:end|endpoint|end point|foot|vertex) ({PT}){RB} (?:lying|lies|is|being|located|sitting)? ?"
         r"(?:on|upon) ", r"\1 lies on "),
    _sub(("tangency", "tangent point", "contact"), rf"(?<![A-Za-z0-9'])({PT}) ?(?:=|is) ?(?:the )?(?:point of (?:tangency|contact)|tangent point"
         r"|tangency point|contact point)\b", r"the point of tangency is \1"),
    _sub(("foot",), rf"(?<![A-Za-z0-9'])({PT}) ?= ?(?:the )?foot\b", r"foot \1"),
    _sub((" mid ",), rf"(?<![A-Za-z0-9'])({PT})(?: ?[:=] ?| )mid (?:of )?({SEG})", r"\1 is the midpoint of \2"),
    _sub(("tangency", "contact"), rf"\b(?:the )?(?:point of (?:tangency|contact)|tangent point|tangency point) (?:of|between) "
         rf"([^,.;]{{1,30}}?) and ([^,.;]{{1,30}}?) is (?:point )?({PT}){RB}", r"\1 and \2 are tangent at \3"),
    _sub(("tangency", "contact", "tangent point"), rf",? (?:and |with )?(?:the |its )?(?:point of (?:tangency|contact)|tangent point"
         rf"|tangency point|contact point)(?: is| being|:)? (?:at )?(?:point )?({PT}){RB}", r" at \1"),
    _sub(("on both",), r"\b(lies|lie|is) on both ([^,.;]{1,30}?) and ", r"\1 on \2 and on "),
    _sub(("∩",), rf"(?<![A-Za-z0-9'])({PT}) ?= ?({OBJ_CORE}|[a-z]\d{{0,2}}(?![A-Za-z0-9'])) ?∩ ?({OBJ_CORE}|[a-z]\d{{0,2}}(?![A-Za-z0-9']))",
         r"\2 and \3 meet at \1"),
    _sub(("∩",), rf"({OBJ_CORE}|(?<![A-Za-z0-9'])[a-z]\d{{0,2}}(?![A-Za-z0-9'])) ?∩ ?({OBJ_CORE}|(?<![A-Za-z0-9'])[a-z]\d{{0,2}}(?![A-Za-z0-9'])) ?[=:] ?\{{? ?({PT}){RB}(?: ?, ?({PT}){RB})? ?\}}?(?! ?\}}? ?only)",
         lambda m: " and ".join("ℓ" + x if x[0].islower() else x for x in m.group(1, 2)) + f" meet at {m.group(3)}"
                   + (f" and {m.group(4)}" if m.group(4) else "")),
    _sub(("right angle",), rf"({SEG}) (meets|intersects|crosses|cuts) (?:the )?(?:line |segment |side )?({SEG}) at (?:a )?right angles?\b",
         r"\1 ⊥ \3, and \1 \2 \3"),
    _sub(("from",), rf"\b(?:the )?(median|altitude|height|angle bisector)(?: drawn| dropped)? from (?:vertex |point )?({PT}){RB}"
         rf"(?: (?:to|on|onto) (?:the )?(?:side |hypotenuse |base )?{SEG})? is ({SEG})", r"\3 is the \1"),
    _sub(("from",), rf"\b(?:the )?(median|altitude|height|angle bisector)(?: drawn| dropped)? from (?:vertex |point )?({PT}){RB} "
         rf"(meets|intersects|cuts|reaches|hits) (?:the )?(?:side |segment |hypotenuse |base )?({SEG}) at (?:its midpoint |the point |point )?"
         rf"({PT}){RB}", r"\2\5 is the \1, and \2\5 \3 \4 at \5"),
    _sub((" as the ", " as its "), rf"(?:\b(?:has|have|with|and|takes?)|,) ({PT}){RB} as (?:the |its )(midpoint|cent(?:re|er)|centroid|incent(?:re|er)"
         r"|circumcent(?:re|er)|orthocent(?:re|er)|foot) of\b", r", \1 is the \2 of"),
    _sub(("midpoint", "centroid", "incent", "circumcent", "orthocent", "foot"),
         rf"(?:^|(?<=[;,:.] )|(?<=[;,:]))({PT}){RB}(?: ?[=:–—] ?| - | )(?:the )?(midpoint|centroid|incent(?:re|er)|circumcent(?:re|er)"
         r"|orthocent(?:re|er)|foot) of\b", r"\1 is the \2 of"),
    _sub((" is a ", " is an "), rf"\b({SOLID_NAME}) is (?:a|an|the) ((?:regular |right |triangular |square |quadrilateral |rectangular )?"
         r"(?:tetrahedron|cube|cuboid|pyramid|prism))\b", r"\2 \1,"),
    _sub(("all equal", "all are", "are all", "all have length", "all measure", "each equal", "each measure"),
         rf"({SEG}(?:{SEP}{SEG}){{1,5}}) (?:are |all |each ){{0,2}}(?:equal to|equal|=|measure|have length|are)(?: to)? ?(?={NUMSTART})",
         lambda m: " = ".join(re.findall(SEG, m.group(1))) + " = "),
    _sub(("into two equal",), rf"(?<![A-Za-z0-9'])(?:point )?({PT}) (?:divides|splits|cuts) (?:the )?(?:line segment |segment |side |edge )?({SEG}) "
         r"into two equal (?:parts|halves|segments|pieces)\b", r"\1 is the midpoint of \2"),
    _sub(("base", "face"), rf"(⊥|perpendicular to) (?:the |its )?(?:base|bottom face|base face|base plane|lateral face|face)(?: plane)? ({POLY})",
         r"\1 plane \2"),
    _sub(("diagonals of",), rf"\b(?:the )?(?:two )?diagonals of (?:the )?(?:{POLYWORD} )?({POLY})(?=,? (?:intersect|meet|cross|are|have))", _diagonals_of),
    _sub((" also ",), r"\b(is|are) also (?=(?:a|an|the) (?:median|altitude|height|angle bisector|bisector|diagonal|chord|diameter|tangent))", r"\1 "),
    _sub(("tangent externally", "tangent internally"), r"\btangent (externally|internally)\b", r"\1 tangent"),
    _sub(("positive", "negative"), r"\b(?:the )?(?:positive|negative) (?:half[- ])?(?:of the )?([xyz])[- ]?axis\b", r"the \1-axis"),
    _sub(("both perpendicular", "both parallel", "all perpendicular", "all parallel", "each perpendicular", "each parallel"),
         r"\b(are|lie) (?:both|all|each) (perpendicular|parallel) to\b", r"\1 \2 to"),
    _sub(("the point",), r"\bis the point (?:of|on) (?=(?:the )?(?:circle|line|segment|side|edge|arc|⊙|[A-Z]))", "lies on "),
    _sub(("respectively",), rf"\b({PT}){RB},? and ({PT}){RB} (?:are (?:two )?points |are |lie |both lie |are located )?(?:on|upon) (?:the )?"
         rf"(?:sides? |segments? |lines? |edges? )?({SEG}) and (?:side |segment |line |edge )?({SEG}),? respectively",
         r"\1 lies on \3 and \2 lies on \4"),
    _sub(("perpendicular bisector of",), rf"\bthe perpendicular bisector of (?:segment )?({SEG}) (meets|intersects|cuts|crosses) (?:it|(?:segment )?\1) "
         rf"at (?:point )?({PT}){RB}", r"\3 is the midpoint of \1, and the perpendicular bisector of \1 \2 \1 at \3"),
    _sub(("incircle", "inscribed circle"), rf"\b(?:the )?(?:incircle|inscribed circle) of ((?:{POLYWORD} |△ ?)?{POLY}) (touches|is tangent to)\b",
         r"the circle is inscribed in \1, and the circle \2"),
    _sub(("midpoints",), rf"\b(?:the )?midpoints of (?:the )?(?:segments |sides )?({SEG}) and ({SEG}) are (?:the points |points )?({PT}){RB} and ({PT}){RB}"
         r"(?:,? respectively)?", r"\3 is the midpoint of \1 and \4 is the midpoint of \2"),
    _sub(("midpoints",), rf"\b({SEG}) and ({SEG}) have (?:the )?midpoints ({PT}){RB} and ({PT}){RB}(?:,? respectively)?",
         r"\3 is the midpoint of \1 and \4 is the midpoint of \2"),
    _sub(("the midpoint of",), rf"\bthe midpoint of (?:the )?(?:segment |side )?({SEG}) is (?:the point |point )?({PT}){RB}", r"\2 is the midpoint of \1"),
    _sub((" that ", " which "), rf"((?:{SEG}|\bline [a-z]\d{{0,2}}|\bcircle {PT}|{PT}){RB}),? (?:that|which) (?:just |only |also )?"
         r"(?=(?:is|touches|meets|intersects|cuts|crosses|passes|bisects|lies)\b)(?![^,;.]{0,16}\bnot\b)", r"\1 "),
    _sub(("inscribed in it", "circumscribed about it", "inscribed in the circle"), r"\b(inscribed in|circumscribed about) (?:it|the circle)\b", r"\1 ⊙"),
    _sub(("intercept",), rf"\b(?:its |the )?([xy])-intercepts? (?:are |is |= ?)?(?:the points |points |point )?({PT}){RB}(?: and ({PT}){RB})?",
         lambda m: f"meets the {m.group(1)}-axis at {m.group(2)}" + (f" and {m.group(3)}" if m.group(3) else "")),
    _sub(("rectangular base", "square base", "triangular base"), rf"\b(rectangular|square|triangular) base ({POLY})",
         lambda m: f"{ {'rectangular': 'rectangle', 'triangular': 'triangle'}.get(m.group(1), m.group(1))} {m.group(2)}"),
    _sub(("midpoints of",), rf"(?<![\s(,][A-Z], )(?<![\s(,][A-Z]\d, )(?<!^[A-Z], )\b({PT}){RB}(?:,| and) ({PT}){RB} (?:are )?(?:the )?midpoints of (?:the )?(?:edges |sides |segments )?({SEG})(?:,| and) ({SEG})"
         rf"(?!,? and {SEG}|, {SEG})(?:,? respectively)?",
         r"\1 is the midpoint of \3 and \2 is the midpoint of \4"),
    _sub(("one of the", "one of its"), r"\bis one of (?:the|its) (chord|diameter|median|altitude|diagonal|tangent)s\b", r"is a \1"),
    _sub(("itself", "themselves"), r" (?:itself|themselves)\b", ""),
    _sub(("parallel lines", "parallel segments", "parallel chords", "perpendicular lines", "perpendicular segments"),
         rf"\b(?:two |the )?(parallel|perpendicular) (lines|segments|chords),? ((?:{SEG}|[a-z]\d{{0,2}})(?![A-Za-z0-9'])) and "
         rf"((?:{SEG}|[a-z]\d{{0,2}})(?![A-Za-z0-9']))",
         _parallel_lines),
    _sub(("halfway along", "midway along"), rf"\b(?:the point )?({PT}){RB},? (?:which is |that is )?(?:halfway|midway) along (?:the )?(?:segment |side )?({SEG})",
         r"\1 (\1 is the midpoint of \2)"),
    _sub(("is the point where", "is the point at which", "is the point in which"),
         rf"\b({PT}){RB} is the point (?:where|at which|in which) (?:the )?((?:diagonals |lines |segments |chords |circles )?)"
         rf"((?:{SEG}|⊙{PT}|[a-z]\d{{0,2}}){RB}) and ((?:{SEG}|⊙{PT}|[a-z]\d{{0,2}}){RB}) (?:cross|meet|intersect)", r"the \2\3 and \4 meet at \1"),
    _sub(("they ", "which "), rf"((?:{SEG}|⊙{PT}|ℓ[a-z]\d{{0,2}}){RB}) and ((?:{SEG}|⊙{PT}|ℓ[a-z]\d{{0,2}}){RB})([^.;]{{0,60}}?)[;,] (?:and )?(?:they|which) "
         r"(meet|cross|intersect)(?: each other| one another)?(?= at )", r"\1 and \2\3; \1 and \2 \4"),
    _sub(("crossing at", "meeting at", "intersecting at"), rf"((?:{SEG}|⊙{PT}|ℓ[a-z]\d{{0,2}}){RB}) and ((?:{SEG}|⊙{PT}|ℓ[a-z]\d{{0,2}}){RB})"
         r"([^.;]{0,40}?), (cross|meet|intersect)ing(?: each other| one another)?(?= at )", r"\1 and \2\3, \1 and \2 \4"),
    _sub(("rect.",), r"\brect\. ?", "rectangle "),
    _sub(("diameter",), rf"({SEG}),? (?:which |that )?(?:passes|passing|goes|going) through (?:the )?(?:cent(?:re|er) )?(?:(?:point )?{PT}{RB} )?,? ?"
         r"(?:is|as) (?:a |the )?diameter\b", r"\1 is a diameter"),
    _sub(("between",), rf"\b({PT}){RB} (?:is |lies |lying |sitting |sits |located |situated )?between (?:points? )?({PT}){RB} and ({PT}){RB}", r"\1 on \2\3"),
    _sub(("touching", "touches it", "touch it"), r"\btouching\b", "touches"),
    _sub(("touches it", "tangent to it"), r"\b(touches|tangent to) it\b", r"\1 ⊙"),
    _sub(("long",), rf"\b(?:whose |with |its )?(edges?|sides?) (?:are|is|each) ({NUMC}) (?:units )?long\b", lambda m: f"with {m.group(1)[:4]} length {m.group(2)}"),
    _sub((" at the centroid", " at the incent", " at the circumcent", " at the orthocent", " at its centroid", " at its incent",
          " at its circumcent", " at its orthocent"),
         rf" at (?:the|its) (centroid|incent(?:re|er)|circumcent(?:re|er)|orthocent(?:re|er)) ({PT}){RB}", r" at \2, \2 is the \1,"),
    _sub((" at the centre", " at the center", " at its centre", " at its center"),
         rf"\b(meet|meets|cross|crosses|intersect|intersects) at (?:the|its) cent(?:re|er) ({PT}){RB}", r"\1 at \2, \2 is the centre,"),
    _sub(("long",), rf"({SEG})(?:,? | ?\()(?:which is |that is )?({NUMC}) (?:units? |cm )?long\b\)?", r"\1 = \2"),
    _sub(("each", "both"), rf"\b({SEG}),? and ({SEG}),? (?:are )?(?:each|both) (?:of length |with length |of |= ?|has length |have length )({NUMC}){RB}",
         r"\1 = \3, \2 = \3"),
    _sub(("length",), rf"({SEG}),? (?:has|with|having|of) (?:a )?length (?:of )?({NUMC}){RB}", r"\1 = \2"),
    _sub(("tall", "high"), rf"\b(cylinder|cone|prism|pyramid) ({NUMC}) (?:units? |cm )?(?:tall|high)\b", r"\1 of height \2"),
    _sub(("joined to", "connected to"), rf"\b({PT}){RB}(?: (?:(?!\bis\b|\bare\b)[^,.;]){{1,40}}?)? is (?:then |also )?(?:joined|connected) to (?:both )?(?:points? )?"
         rf"({PT}){RB}((?:(?:,|,? and) (?:to )?(?:point )?{PT}{RB}){{0,4}})", _joined_to),
    _sub(("origin",), rf"(?:^|(?<=; )|(?<=, ))({PT}){RB} :? ?(?:the )?origin\b", r"\1 is the origin"),
    _sub(("one another",), r"\bone another\b", "each other"),
    _sub(("each other",), r"\b(parallel|perpendicular|congruent|similar) (?:to|with) each other\b", r"\1"),
    _sub(("vertices", "corners"), rf"\b(?:the |all )?(?:all the )?(?:three |four |five |six )?(?:vertices|corners)(?: {list_of(PNAME, SEP, 8)})? of "
         rf"(?:the )?((?:{POLYWORD} |△ ?)?{POLY}) (?:all |each )?(?:lie|are|are all|all lie) on ", r"\1 is inscribed in "),
    _sub(("vertices",), rf"(?<!through )(?<!through the )\b(?:the )?vertices ({list_of(PNAME, SEP, 8)}) of ((?:{POLYWORD} |△ ?)?{POLY})",
         r"\2 with vertices \1"),
    _sub(("⊥", "∥"), r"(?<![A-Za-z0-9'_ℓ-])([b-w]\d{0,2}) ?([⊥∥]) ?([b-w]\d{0,2})(?![A-Za-z0-9'_(])", r"ℓ\1 \2 ℓ\3"),
    _sub(("perpendicular at", "perpendicular to each other at"),
         rf"((?:{SEG}|(?<![A-Za-z0-9'])ℓ?[a-z]\d{{0,2}}){RB}) and (?:line |segment )?((?:{SEG}|ℓ?[a-z]\d{{0,2}}){RB}) (?:are|is|being|were) "
         r"perpendicular (?:to each other )?"
         rf"at (?:the )?(?:point )?({PT}){RB}", r"\1 ⊥ \2 at \3"),
    _sub(("parallel",), r" ?\b(?:is|are|be|being|was) parallel (?:to|with)\b|(?<=[A-Za-z0-9'ℓ]) parallel to\b", " ∥"),
    _sub(("//",), r"(?<=[A-Za-z0-9']) ?// ?(?=[A-Zℓ△⊙p])", " ∥ "),
    _sub(("perpendicular",), r" ?\b(?:is|are|be|being|was) perpendicular (?:to|with)\b|(?<=[A-Za-z0-9'ℓ]) perpendicular to\b", " ⊥"),
    _sub(("congruent",), r"\b(?:is|are) congruent (?:to|with)\b", "≅"),
    _sub(("similar",), r"\b(?:is|are) similar to\b", "∼"),
    # `two circles, O1 of radius 3 and O2 of radius 2`, `circles O1 (radius 3) and O2 (radius 2)`: both are circles
    _sub(("circles",), rf"\bcircles,? ({PT}){RB}( ?\(radius(?: =)? {NUMC}\)| of radius(?: =)? {NUMC})?,? and ({PT}){RB}", r"⊙\1\2 and ⊙\3"),
    _sub(("circles",), rf"\bcircles ({list_of(PNAME, SEP, 3)})(?= )", _circles),
    _sub(("circle",), r"\bcircles? (?:with (?:its |the )?cent(?:er|re) (?:at )?|cent(?:er|re|ere)d (?:at|on) |of cent(?:er|re) "
         rf"|with cent(?:er|re) point )(?:point )?(?={PT}{RB})", "⊙"),
    _sub(("circle",), rf"\bcircle (?={PT}{RB})", "⊙"),
    _sub(("circle",), r"\b(?:the|this|that|a|an|given) circle\b(?! ?⊙)", "⊙"),
    _sub(("circle",), r"\b(circumcircle|incircle|circumscribed circle|inscribed circle) of ((?:[a-z-]{1,12} ){0,3}(?:△ ?)?[A-Z][A-Z0-9']{2,24})"
         rf" (has|with) (?:its )?cent(?:er|re) (?:at )?(?:point )?({PT}){RB}(?: and)?", r"\1 ⊙\4 of \2 \3"),
    _sub(("let ",), rf"\blet ({list_of(PNAME, SEP, 8)}) be\b", _let),
    _sub(("let ",), rf"\blet ({SEG}) be\b", r"\1 is"),
    _sub(("arc",), rf"\b(?:minor |major )?arcs? (?=(?:{PT}){{2,3}}{RB})", "⌒"),
    _sub(("right",), rf"\bright[- ]angled at (?:vertex |point )?({PT}){RB}", "right-angled, " + IMPLIED + r"∠\1 = 90°"),
    _sub(("right",), r"\b(?:is|are) (?:a )?right angles?\b|\bis right\b(?![- ](?:triangle|angled))", "= 90°"),
    _sub(("right",), rf"\b(?:the |a )?right angle (?:is )?at (?:vertex |point )?({PT}){RB}", r"∠\1 = 90°"),
    _sub(("angle",), rf"\b(?:the|its|whose) angle (?:at|of) (?:vertex |point )?(?=(?:{PT}){RB})", "∠"),
    _sub(("angle",), r"\b(?:the )?angles? (?=∠)", ""),
    _sub(("angle",), rf"\bangles? (?=(?:(?:{PT}){{3}}|{PT}){RB}|\d{{1,2}}\b)", "∠"),
    _sub(("∠",), r"\b(?:the )?(?:measure|size|degree|magnitude) of (?=∠)|\bm ?(?=∠)", ""),
    _sub(("line",), rf"\b((?:straight )?lines?) ({list_of(_LOWER_NAME, SEP, 4)})(?![A-Za-z0-9'_]| ?[=:(])", _lines),
    _sub(("line",), rf"\b((?:straight )?lines?) ({_LOWER_NAME})(?=: ?[xy(])", _lines),  # `line l: y = x + 1`
    _sub((" and ",), rf"(?<=[0-9x)]) and ({_LOWER_NAME})(?=: ?[xy(])", r" and line ℓ\1"),  # `lines l1: ... and l2: ...`
    _sub(("axis",), r"\b([xyzXYZ]) ?[- ]?axis\b", lambda m: m.group(1).lower() + "-axis"),
    _sub(("length",), rf"\bthe length of (?:the )?(?:line )?(?:segment |side |edge )?(?={SEG})", ""),
    _sub(("|",), rf"\|({SEG})\|", r"\1"),
    _sub(("length", "measure"), rf"({SEG}) (?:has|with|of|is of) (?:a )?(?:length|measure)(?: of| equal to| =)? {NUMSTART}", r"\1 = "),
    _sub(("coordinate",), rf"\b(?:the )?coordinates? of (?:the )?(?:point )?({PT}){RB}(?: (?:are|is|=|:) ?| ?(?=\())",
         r"\1 = "),
    _sub(("coordinate",), rf"({PNAME}) (?:has|with) (?:the )?coordinates?(?: of| =)? ?(?=\()", r"\1 = "),
    _sub(("at (",), rf"({PNAME}) (?:is |lies |is located |located )?at (?=\()", r"\1 = "),
    _sub(("ratio",), rf"\bthe ratio (?:of )?({SEG}) (?:to|and) ({SEG})(?: (?:is|=|equals))? ?", r"\1:\2 = "),
    _sub((":",), rf"({SEG}) ?: ?(?={SEG})", r"\1:"),
    _sub((":",), r"(?<=[\d√π]) ?: ?(?=[\d√π])", ":"),
    _sub(("equal",), r"\b(?:is equal to|are equal to|is equal in length to|equals|equal to)\b", "="),
    _sub((" is ", " are ", "measure", " was ", "becomes", "marked", "label", "given", "shown", "indicated"), rf" (?:is|are|measures|measure|has measure|has a measure of|was|becomes|(?:is |are )?(?:marked|labell?ed|given|shown|"
         rf"indicated)(?: as| to be)?) {NUMSTART}", " = "),
    _sub(("radius", "diameter", "side", "edge", "height", "area", "perimeter", "volume", "circumference"), r"\b(surface area|lateral area|side length|edge length|slant height|circumference|perimeter|diameter"
         rf"|radius|volume|height|area|side|edge)(?: of| is| equal to| =)? {NUMSTART}", r"\1 = "),
    _sub(("both", "each"), rf"({ANG}|{SEG}) and ({ANG}|{SEG}) (?:are )?(?:both|each)(?: measure| equal to| equal| =| are)? ?(?={NUMSTART})",
         r"\1 = \2 = "),
    _sub(("its length",), rf"\bits length(?: is| =)? ?(?={NUMSTART})", lambda m: _last_segment(m) + " = "),
    _sub(("with length", "of length", "having length", "with a length", "of a length"), rf"({SEG})((?: is| as)? (?:a |an |the )?(?:[a-z]{{1,12}} ){{1,3}}?)(?:with|of|having) (?:a )?length"
         rf"(?: of| equal to| =)? ?(?={NUMSTART})", lambda m: f"{m.group(1)}{m.group(2).rstrip()}, {m.group(1)} = "),
    _sub((", =",), r"(?<=[A-Z0-9'°]), = ", " = "),
    # (#41) forms that need circles and angles already in symbols
    _sub(("only at",), rf"((?:line |segment )?(?:{SEG}|ℓ[a-z]\d{{0,2}}){RB}) (?:meets|touches|intersects) ({CIRC}) only at (?:the )?(?:point )?({PT}){RB}",
         r"\1 is tangent to \2 at \3"),
    _sub(("exactly one point", "only one point", "just one point", "a single point"),
         rf"((?:the )?(?:line |segment )?(?:{SEG}|ℓ[a-z]\d{{0,2}}) and (?:the )?{CIRC}|(?:the )?{CIRC} and (?:the )?(?:line |segment )?(?:{SEG}|ℓ[a-z]\d{{0,2}})) "
         rf"(?:share|have) (?:exactly |only |just )?(?:one|a single) (?:common )?point(?: in common)?,? (?:namely |at )?(?:point )?({PT}){RB}",
         r"\1 are tangent at \2"),
    _sub(("one point", "one common point"), rf" (?:has|shares) (?:exactly |only |just )?one (?:common )?point,? (?:point )?({PT}){RB},? "
         rf"(?:in common )?with ({CIRC})", r" is tangent to \2 at \1"),
    _sub(("one point", "one common point"), rf"((?:line |segment )?(?:{SEG}|ℓ[a-z]\d{{0,2}}) and {CIRC}|{CIRC} and (?:line |segment )?"
         rf"(?:{SEG}|ℓ[a-z]\d{{0,2}})) (?:have|share) (?:exactly |only |just )?one (?:common )?point(?: in common)?,? (?:point )?({PT}){RB}",
         r"\1 are tangent at \2"),
    _sub(("vertices",), rf"({CIRC}) (?:passes|goes|is drawn|drawn|runs) through (?:all |each of )?(?:the |its )?(?:three |four )?vertices"
         rf"(?: {list_of(PNAME, SEP, 8)})? of "
         rf"(?:the )?((?:{POLYWORD} |△ ?)?{POLY})", r"\2 is inscribed in \1"),
    _sub(("cent",), rf"(⊙{PT}){RB},? (?:(?:which is |is )?cent(?:red|ered) at|with cent(?:re|er)|cent(?:re|er)) (?:point )?(?=\()",
         r"\1 has centre "),
    _sub((", =",), rf"({ANG}|{SEG}), (?:which is |that is )?[a-z][^,;.=]{{0,40}}, (?== ?{NUMSTART})", r"\1 "),
    _sub(("the point where", "the point at which"), rf"(?<![A-Za-z0-9'])({PT}){RB} is the point (?:where|at which) ((?:line |segment )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|{CIRC}){RB}) "
         rf"(?:touches|is tangent to) ((?:line |segment )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|{CIRC}){RB})", r"\2 is tangent to \3 at \1"),
    _sub(("tangent",), rf"\b(?:through|at) (?:the )?(?:point )?({PT}){RB},? (?:we draw )?(?:a|the) tangent(?: line)?(?: to ({CIRC}))? (?:is )?(?:drawn,? )?(?:which )?"
         rf"(?:meeting|meets|intersecting|intersects|cutting|cuts|hitting|hits) (?:the )?(?:extension of )?(?:the )?(?:line |side |segment )?({SEG})"
         rf"(?: extended| produced)? at (?:the )?(?:point )?({PT}){RB}",
         lambda m: f"{m.group(4)}{m.group(1)} is tangent to {m.group(2) or '⊙'} at {m.group(1)}, and {m.group(4)} lies on {m.group(3)}"),
    _sub(("bisector of",), rf"({SEG}), (?:the |an |a )?(?:angle )?bisector of (∠ ?[A-Z0-9']{{1,9}}), ", r"\1 bisects \2, and \1 "),
    _sub(("drawn through", "runs through"), rf"({CIRC}) (?:is drawn|drawn|runs) through (?=(?:the )?(?:points? )?{PT}{RB})", r"\1 passes through "),
    _sub(("into two equal",), r"\b(?:divides|splits|cuts) (∠ ?[A-Z0-9'α-ω]{1,9}) into two equal (?:angles|parts|halves)\b", r"bisects \1"),
    _sub(("between them", "between the two"), r"(∠ ?[A-Z0-9']{1,9}) between (?:them|the two (?:lines|tangents|segments|sides))\b", r"\1"),
    _sub(("tangent",), rf"\b(?:the |two )?tangents? (?:lines? )?(?:drawn )?from (?:the )?(?:point )?({PT}){RB} (?:touch|touches|are tangent to|meet) "
         rf"({CIRC}) at (?:the )?(?:points? )?({PT}){RB} and ({PT}){RB}", r"\1\3 and \1\4 are tangent to \2 at \3 and \4"),
    _sub(("touches", "tangent to"), rf"({CIRC})([^.;⊙]{{1,60}}?,? and) (touches|is tangent to) (?=(?:the )?(?:sides? |lines? |segments? )?{SEG}{SEP})",
         r"\1\2 \1 \3 "),
    _sub(("centred", "centered", "centre", "center"), rf"\b(?:the |an |a )?(incircle|circumcircle|inscribed circle|circumscribed circle) (of (?:the )?(?:triangle |△ ?)?{POLY}),? "
         rf"(?:centred at|centered at|with centre|with center|whose centre is|whose center is) (?:point )?({PT}){RB},?", r"⊙\3, the \1 \2,"),
    _sub(("in common with",), rf"(?:(?<=[,;] )|(?<=^)|(?<=\. ))(?:and )?({CIRC}|[Ii]t) (?:has|shares) (?:exactly|only) one (?:common )?point (?:in common )?with (?:the )?(?:side |line |segment )?({SEG}),? "
         rf"(?:namely|which is|the point|point|at) (?:point )?({PT}){RB}", lambda m: f"{m.group(2)} is tangent to {'it' if m.group(1) in ('it', 'It') else m.group(1)} at {m.group(3)}"),
    _sub((" at ",), rf"({CIRC}|\bit)((?:, [^,.;⊙]{{1,50}},)?) (touches|is tangent to) (?:side |line |segment )?({SEG}) at (?:point )?({PT}){RB}((?:(?:,|,? and) (?:side |line |segment )?{SEG} at (?:point )?{PT}{RB}){{1,4}})",
         _touches_each_at),
    _sub(("respectively", " at "), rf"({CIRC}|\bit) (touches|is tangent to) (?:the )?(?:sides? |lines? |segments? )?((?:{SEG})(?:{SEP}{SEG}){{1,4}})"
         rf"(?: of [^,.;]{{1,30}}?)? at (?:the )?(?:points? )?((?:{PT})(?:{SEP}{PT}){{1,4}}){RB}(?:,? respectively)?", _respectively_touch),
    _sub(("respectively",), rf"\b((?:lines? )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|{CIRC})) and ((?:line )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|{CIRC})) (meet|intersect|cut|cross) "
         rf"((?:line )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|{CIRC})) at (?:points? )?({PT}){RB} and ({PT}){RB},? respectively",
         r"\1 \3s \4 at \5, and \2 \3s \4 at \6"),
    _sub(("respectively",), rf"\b((?:line )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|{CIRC})) (meets|intersects|cuts|crosses) (?:lines? )?((?:{SEG}|ℓ?[a-z]\d{{0,2}}|{CIRC}){RB}) "
         rf"and (?:line )?((?:{SEG}|ℓ?[a-z]\d{{0,2}}|{CIRC}){RB}) at (?:the )?(?:points? )?({PT}){RB} and ({PT}){RB},? respectively",
         r"\1 \2 \3 at \5, and \1 \2 \4 at \6"),
    _sub((" and ",), rf"(?:^|(?<=lines )|(?<=segments )|(?<=, )|(?<=; )|(?<=: )|(?<=\. ))((?:{SEG}|ℓ[a-z]\d{{0,2}}){RB}) and ((?:line |segment )?(?:{SEG}|ℓ[a-z]\d{{0,2}}){RB}) ?([⊥∥]) ?"
         rf"((?:line |segment |plane )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|(?:{PT}){{3,8}}){RB})(?! ?[⊥∥])", r"\1 \3 \4 and \2 \3 \4"),
    _sub(("tangent",), rf"(?:\btangent (?:line )?({SEG})|({SEG}) tangent) at (?:point )?({PT}){RB}", r"\1\2 tangent to ⊙ at \3"),
    _sub(("bisector",), rf"\b(?:the )?(?:angle )?bisector ({SEG}) of (∠ ?[A-Z0-9']{{1,9}})", r"\1 bisects \2"),
    _sub(("bisector",), rf"({SEG}) ?: ?(?:the )?(?:angle )?bisector of (∠ ?[A-Z0-9']{{1,9}})", r"\1 bisects \2"),
    _sub(("cyclic",), rf"({POLY}) (?:is )?(?:a )?cyclic(?: quadrilateral| polygon)?,? (?:with )?(?:circumcircle|circumscribed circle|its circumcircle) ({CIRC})", r"\1 is inscribed in \2"),
    _sub(("cyclic",), rf"({POLY}) (?:is )?(?:a )?cyclic(?: quadrilateral| polygon)?,? (?:with )?(?:circumcircle|circumscribed circle|its circumcircle) ({PT}){RB}",
         r"\1 is inscribed in ⊙\2"),
    _sub(("foot",), rf"(⊥ ?(?:{SEG}|ℓ[a-z]\d{{0,2}}){RB})[,;]? (?:with |and )?(?:the |its )?foot(?: of the perpendicular)? (?:is |at |being )?(?:point )?({PT}){RB}",
         r"\1 at \2"),
    # the passive: `segment EF is cut at M by line k` is `line k meets EF at M`
    _sub((" by ",), rf"((?:{SEG}|ℓ[a-z]\d{{0,2}}|⊙{PT}){RB})(?: ?= ?[^,;.]{{1,12}})?,? (?:is|are|gets|being) (?:cut|crossed|met|intersected) "
         rf"at (?:the )?(?:point )?({PT}){RB},? by (?:the )?(?:line |segment |circle )?((?:{SEG}|ℓ[a-z]\d{{0,2}}|⊙{PT}){RB})",
         lambda m: f"{m.group(0)}; {m.group(3)} meets {m.group(1)} at {m.group(2)}; {m.group(3)}"),
    # `KN stands ⊥ LM`: the verb before a relation symbol carries nothing
    _sub(("⊥", "∥"), rf"((?:{SEG}|ℓ[a-z]\d{{0,2}}){RB}) (?:stands?|standing|runs?|running|lies|lying|is drawn|is set|sits|goes) ([⊥∥])", r"\1 \2"),
    _sub(("touches", "tangent to"), rf"({CIRC}) (touches|is tangent to) (?:line |side |segment )?((?:{SEG}|ℓ[a-z]\d{{0,2}}){RB}) at (?:point )?({PT}){RB} and "
         rf"(?:line |side |segment )?((?:{SEG}|ℓ[a-z]\d{{0,2}}){RB}) at (?:point )?({PT}){RB}", r"\1 \2 \3 at \4, and \1 \2 \5 at \6"),
    # `the lateral edge PK of pyramid P-KLM ⊥ plane KLM`: the edge is the subject, the solid an element
    _sub(("edge ", "side ", "segment "), rf"\b((?:lateral |side )?edge|side|segment) ({SEG}) of (?:the )?((?:{SOLIDWORD}|{POLYWORD}) [A-Z][A-Z0-9'-]{{2,20}}) "
         r"(?=⊥|∥|is |lies |meets |touches |bisects )", r"\1 \2 of \3, and \2 "),
    # `line l is tangent to the circle x^2 + y^2 = 25 at K`: the equation is the circle's, the tangency at K
    _sub(("tangent to ⊙", "touches ⊙"), rf"(is tangent to|touches) ⊙ ?(:? ?[^,;.⊙]{{3,40}}?=[^,;.⊙]{{1,20}}?) at ((?:the )?(?:point )?{PT}{RB}"
         r"(?: ?\([^()]{1,24}\))?)", r"\1 ⊙ at \3, ⊙ \2"),
    # `the circle x^2 + y^2 = 25 passes through P`: the unnamed circle is the subject
    _sub(("passes through", "passing through", "goes through"), r"⊙( ?:? ?[^,;.⊙]{3,40}?) (passes|passing|goes) through", r"⊙\1, ⊙ \2 through"),
    # `t ∩ l = {P}`: set notation for one meeting point (`… = {T} only` is tangency, above)
    _sub(("∩",), rf"((?:ℓ|\b)[a-z]\d{{0,2}}|{SEG}|⊙{PT}{RB}) ∩ ((?:ℓ|\b)[a-z]\d{{0,2}}|{SEG}|⊙{PT}{RB}) = ({PT}){RB}(?! only)",
         lambda m: " meets ".join("ℓ" + x if x[0].islower() else x for x in m.group(1, 2)) + f" at {m.group(3)}"),
    # `E bisects the vertical edge CC1`: the point is the midpoint; `join A to E and B to D1`: both segments
    _sub(("bisects",), rf"(?<![A-Za-z0-9'])({PT}){RB} bisects (?:the )?(?:[a-z]{{3,12}} )?(?:edge|side|segment) ({SEG})", r"\1 is the midpoint of \2"),
    _sub((" to ",), rf"\b([Jj]oin|[Jj]oins|[Cc]onnect|[Cc]onnects) ({PT}){RB} to ({PT}){RB} and ({PT}){RB} to ({PT}){RB}", r"\1 \2\3 and \4\5"),
    # `base BC of 12`, `side AB of length 5`: the length of that segment
    _sub((" of ",), rf"\b(base|side|edge|leg|hypotenuse) ({SEG}) of (?:length )?({NUMSTART}{NUMC})(?![0-9A-Za-z°(])", r"\1 \2, \2 = \3"),
    # `two circles, one centred at A and one centred at B`: circles A and B
    _sub(("one centred", "one centered"), rf"\b(?:two )?circles,? one cent(?:r|er)ed (?:at |on )?({PT}){RB},? and (?:one|the other|another)(?: cent(?:r|er)ed)? (?:at |on )?({PT}){RB}",
         r"⊙\1 and ⊙\2"),
    # `M lies on BC and is equidistant from B and C`: MB = MC; `O is 3 away from both A and C`: OA = OC = 3
    _sub(("equidistant",), rf"\b({PT}){RB}([^.;,]{{0,50}}?) (?:is |are |being |lies |lying )?equidistant from (?:the )?(?:points? )?({PT}){RB},? and (?:point )?({PT}){RB}",
         r"\1\2, and \1\3 = \1\4"),
    # `circles A and B both have radius 6`, `⊙A, ⊙B each with radius 6`: the value is each circle's radius
    _sub(("both", "each"), rf"(⊙{PT}){RB},? (?:and )?⊙?({PT}){RB}((?:,[^.;]{{0,40}}?,)?),? (?:both|each) (?:have |has |with |of )?(?:a |the )?radius(?: of)?(?: =| is)? ?({NUMC})",
         r"\1 and ⊙\2\3, radius of \1 = \4, radius of ⊙\2 = \4"),
    _sub(("its incircle", "its circumcircle", "its inscribed circle", "its circumscribed circle"),
         rf"\b[Ii]ts (incircle|circumcircle|inscribed circle|circumscribed circle),? (?:circle )?(⊙{PT}{RB}),", _its_incircle),
    # `⊙I meets BC only at D, CA only at E and AB only at F`: tangency at each point; lists after `touches`
    _sub(("only at", "touches", "tangent to"), rf"(?P<c>⊙{PT}{RB}),?(?P<app>, the [a-z ]{{1,30}} of [^,;.]{{1,30}},)? (?P<v>touches|meets|cuts|crosses|intersects|is tangent to|tangent to) (?:side |line |segment )?(?P<s>{SEG})"
         rf" (?P<only>only )?at (?:point )?(?P<p>{PT}){RB}(?P<rest>(?:,? (?:and )?(?:to )?(?:side |line |segment )?{SEG} (?:only )?at (?:point )?{PT}{RB}){{0,6}})", _touch_list),
    # `l ∩ ⊙O = {T} only`: one common point is tangency
    _sub(("only",), rf"((?:ℓ|\b)[a-z]\d{{0,2}}|{SEG}|⊙{PT}{RB}) ∩ ((?:ℓ|\b)[a-z]\d{{0,2}}|{SEG}|⊙{PT}{RB}) = (?P<p>{PT}){RB} only\b(?:,? (?P=p) ?(?P<xy>\([^()]{{1,24}}\)))?",
         lambda m: f"{m.group(1)} touches {m.group(2)} at {m.group('p')}{m.group('xy') or ''}"),
    _sub(("only at",), r"\b(touches|meets|cuts|crosses|intersects) ((?:the )?(?:side |line |segment )?[^,;.]{1,20}?) only at\b", r"is tangent to \2 at"),
    *LABEL_SUBS,
]



def _last_segment(m: re.Match[str]) -> str:
    """`AD is a median, and its length is 9`: `its` is the last segment named before."""
    found = _SEG_RE.findall(m.string, max(0, m.start() - 80), m.start())
    return found[-1] if found else m.group(0)


_LINE_THROUGH = re.compile(rf"(ℓ[a-z]\d{{0,2}}) (?:passing |going |drawn )?through (?:the |its )?(?:point |(midpoint) (?:point )?)?({PT}{RB}(?: ?\([^()]{{1,20}}\))?)"
                           rf"(?: of (?:segment |side )?({SEG}){RB})?(?= (?:is|⊥|∥|has|meets|crosses|cuts|intersects|touches)| ?[;.]| ?$)")
_MIDPOINT_THROUGH = re.compile(rf"(ℓ[a-z]\d{{0,2}}) ([⊥∥]) ((?:segment |line |side )?)({SEG}){RB},? (?:and )?(?:passes |passing |going |goes )?(?:through|at) "
                               rf"(?:its|the) midpoint (?:point )?({PT}){RB}")


def _line_through(m: re.Match[str]) -> str:
    """`line l through the midpoint M of AB is ⊥ AB`: l passes through M, M is AB's midpoint, l ⊥ AB."""
    line, mid, p, seg = m.group(1, 2, 3, 4)
    midpoint = f", {p.split('(')[0].strip()} is the midpoint of {seg}" if mid and seg else ""
    return f"{line} passes through {p}{midpoint}, {line}"
_LINE_EQUATION_VERB = re.compile(r"(?:\bline ℓ?|ℓ)([a-z]\d{0,2})(?:: ?|, (?:with (?:the |its )?equation|whose equation is|of equation) )([^,;.:]{1,30}?),?"
                                 r" (meets|touches|cuts|intersects|crosses|is tangent to|passes through|goes through)\b")
_LINE_EQUATIONS = re.compile(r"(?P<a>ℓ[a-z]\d{0,2})(?P<ea>: ?[^,;]{1,30}?) and (?:line )?(?P<b>ℓ[a-z]\d{0,2})(?P<eb>: ?[^,;]{1,30}?)"
                             r" (?P<v>intersect|meet|cross)")


def normalise(text: str) -> str:
    text = lower_words(solid_planes(common(text), "plane "))
    text = apply_subs(_EN_SUBS, resolve_pronouns(apply_subs(SHARED_VERB_SUBS, drop_colours_en(conic_roles(equation_labels(text))))))
    if "  " in text:
        text = _SPACES.sub(" ", text)
    if ":" in text or "equation" in text:  # `line l: y = x + 1 meets ⊙C at A and B`: the equation between the line and its verb
        text = _LINE_EQUATION_VERB.sub(r"line ℓ\1: \2, ℓ\1 \3", text)
    text = bare_line_names(text)
    names = {m.group(1) for m in re.finditer(r"ℓ([a-z]\d{0,2})", text)} if "ℓ" in text else set()
    if "a" in names:  # `a` is also the article: only where a line name must stand
        names.discard("a")
        text = _BARE_A.sub("ℓa", text)
    for name in sorted(names):
        text = re.sub(rf"(?<![A-Za-z0-9'_ℓ]){name}(?![A-Za-z0-9'_])", "ℓ" + name, text)
    if "ℓ" in text and "through" in text:  # `line m through A is perpendicular to l`
        through = _LINE_THROUGH.sub(_line_through, text)
        if through != text:  # `ℓm passes through A, ℓm ⊥ l`: the lone letter is a line now
            text = bare_line_names(through).replace("ℓℓ", "ℓ")
    if "ℓ" in text and "midpoint" in text:  # `line n ⊥ AB through its midpoint M`
        text = _MIDPOINT_THROUGH.sub(r"\1 \2 \3\4, \5 is the midpoint of \4, \5 lies on \1", text)
    if "ℓ" in text and ":" in text:  # `lines l1: y = x and l2: y = 4 - x intersect at P`
        text = _LINE_EQUATIONS.sub(r"\g<a>\g<ea>, \g<b>\g<eb>, \g<a> and \g<b> \g<v>", text)
    return text


_BARE_A = re.compile(r"(?:(?<=meets )|(?<=cuts )|(?<=crosses )|(?<=intersects )|(?<=and )|(?<=∥ )|(?<=⊥ )|(?<=^))a"
                     r"(?= at (?:the )?(?:point )?[A-Z]| ?[∥⊥]| and ℓ)")
