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
"""

from __future__ import annotations

import itertools
import re
from functools import partial

from . import canonical as cn
from ._engine import (
    ANG,
    ARC,
    AXIS,
    BIG,
    CIRC,
    LINE_NAME,
    NUMC,
    NUMSTART,
    OBJ_CORE,
    PLANE,
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
    Sub,
    TermGrammar,
    affirmed,
    apply_subs,
    equations,
    list_of,
    run_rules,
    sentences,
)
from ._normalize import common, drop_colours_en, lower_words
from .en_reference import bare_line_names, resolve_pronouns
from .model import KeypointSet

SEP = "(?:, and |, | and |,)"
OBJW = (
    "(?:(?i:the |a |an |line |lines |straight line |segment |segments |line segment |side |sides |edge |chord "
    "|diagonal |diagonals |diameter |radius |ray |median |altitude |base |leg |hypotenuse |triangle |quadrilateral |square "
    "|rectangle |parallelogram |rhombus |trapezoid |polygon |pentagon |hexagon |extension of |extended line of "
    "|tangent line |arc |equilateral |isosceles |right |regular |circumference of |boundary of )){0,3}"
)


def rx(pattern: str) -> re.Pattern[str]:
    """A rule pattern. Keywords are matched case-sensitively in lower case: `lower_words` has
    lower-cased every capitalised English word, and a case-insensitive alternation is ~10x
    slower to scan (no literal prefix for the regex engine to skip to)."""
    return re.compile(pattern.replace("(?i:", "(?:"))


def obj(name: str) -> str:
    return f"{OBJW}(?P<{name}>{OBJ_CORE})"


def lead(name: str) -> str:
    """An object that starts a pattern: its type words need not be matched (finditer finds the
    name anyway), and leaving them out keeps every scan position cheap."""
    return f"(?P<{name}>{OBJ_CORE})"


OBJ_LIST = list_of(f"{OBJW}{OBJ_CORE}", SEP, 4)
LEAD_LIST = f"{OBJ_CORE}(?:{SEP}{OBJW}{OBJ_CORE}){{0,4}}"
PLIST = list_of(PNAME, SEP, 10)
COORDS = f"(?: ?\\( ?{NUMC} ?, ?{NUMC}(?: ?, ?{NUMC})? ?\\))?"  # `P(3, 4) lies on ...`
ADJ = "(?i:regular|isosceles|equilateral|right-angled|right angled|right|scalene|acute|obtuse|rt(?= ?△))"
POLYWORD = (
    "(?i:triangle|quadrilateral|rectangle|square|parallelogram|rhombus|rhombi|trapezoid|trapezium|kite"
    "|pentagon|hexagon|heptagon|octagon|polygon)(?i:es|s)?"
)
SOLIDWORD = "(?i:cube|cuboid|prism|box|cylinder|cone|sphere|ball|hemisphere|pyramid|tetrahedron|frustum)s?"
_OBJ_RE = re.compile(OBJ_CORE)
_SEG_RE = re.compile(SEG)
_POLY_RE = re.compile(POLY)
_PNAME_RE = re.compile(PNAME)
_ADJ_RE = re.compile("(?i:regular|isosceles|equilateral|right-angled|right angled|right|scalene|acute|obtuse|rt)")

_POLY_KIND = {
    "triangle": "triangle", "quadrilateral": "quadrilateral", "rectangle": "rectangle",
    "square": "square", "parallelogram": "parallelogram", "rhombus": "rhombus", "rhombi": "rhombus",
    "trapezoid": "trapezoid", "trapezium": "trapezoid", "kite": "kite", "pentagon": "pentagon",
    "hexagon": "hexagon", "heptagon": "heptagon", "octagon": "octagon", "polygon": "polygon",
}
_PROPERTY = {"right-angled": "right", "right angled": "right", "rt": "right"}


def poly_kind(word: str) -> str:
    word = word.lower()
    for stem, kind in _POLY_KIND.items():
        if word.startswith(stem):
            return kind
    return "polygon"


_SOLID_KIND = {"cube": "cube", "cuboid": "cuboid", "prism": "prism", "cylinder": "cylinder", "cone": "cone",
               "sphere": "sphere", "ball": "sphere", "hemisphere": "hemisphere", "pyramid": "pyramid",
               "tetrahedron": "tetrahedron", "frustum": "frustum"}


def solid_kind(word: str, qualifier: str = "") -> str | None:
    word = word.lower()
    for plural in ("es", "s"):
        if word.endswith(plural) and (word[: -len(plural)] in _SOLID_KIND or word[: -len(plural)] == "box"):
            word = word[: -len(plural)]
            break
    if word in ("box", "prism") and "rectangular" in qualifier.lower():
        return "cuboid"
    return _SOLID_KIND.get(word)


def canon(raw: str, builder: Builder, pos: int) -> str:
    """Reference string of one matched object; an unnamed `⊙` is the circle in context."""
    raw = raw.strip()
    if raw.startswith("⊙"):
        return builder.circle_ref(raw, pos)
    return cn.ref(raw)


def _names(text: str, pattern: re.Pattern[str] = _OBJ_RE) -> list[str]:
    return pattern.findall(text)


# --------------------------------------------------------------------------- normalisation

def _sub(triggers: tuple[str, ...], pattern: str, repl: str | object, flags: int = 0) -> Sub:
    return Sub(triggers, re.compile(pattern, flags), repl)


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
    r" (?:at|on)|(?:a |the )?(?:common|same|shared) cent|(?:the |a )?cent(?:re|er) )))"
    r"(?: (?:[a-z]{1,10} ){0,2}?(?:concentric|cent(?:re|er)e?d (?:at|on)|(?:a |the )?(?:common|same|shared) cent(?:re|er)"
    rf"|(?:the |a )?cent(?:re|er))(?: (?:at |point |is )?{PT}{RB})?)?"
)
_SMALL_WORDS = r"(?:smaller|small|lesser|inner)"
_EN_SUBS: list[Sub] = [
    _sub(("▱",), r"▱ ?", "parallelogram "),
    _sub(("concentric", "circles"), _CONCENTRIC, "⊙" + BIG + " and ⊙" + SMALL + " are concentric"),
    _sub(("er circle", "big circle"), rf"\b(?:the |a |an )?{_BIG_WORDS} circle(?:'s)?\b", "⊙" + BIG),
    _sub(("er circle", "small circle"), rf"\b(?:the |a |an )?{_SMALL_WORDS} circle(?:'s)?\b", "⊙" + SMALL),
    _sub(("er radius", "big radius"), rf"\b(?:the )?{_BIG_WORDS} radius\b", "radius of ⊙" + BIG),
    _sub(("er radius", "small radius"), rf"\b(?:the )?{_SMALL_WORDS} radius\b", "radius of ⊙" + SMALL),
    _sub(("er one", "big one", "small one"), rf"\b(?:the )?(?P<w>{_BIG_WORDS}|{_SMALL_WORDS}) one\b", _sized_one),
    _sub(("transversal",), r"\b(?:a |the )?transversal(?: line)?(?= [a-zA-Z]\d{0,2}(?![a-zA-Z0-9']))", "line"),
    _sub(("(on ", "(of "), r" ?\((?:on|of) (?:line |the line )?[a-z]\d{0,2}\)", ""),
    # other surface forms of the same canonical relations (see canonical.RELATIONS)
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
    _sub(("point of",), r"\b(is|are) (a|any|two|three) (points?|moving points?) of (?=(?:the )?(?:circle|line|segment|side|edge|arc|⊙|[A-Z]))",
         r"\1 \2 \3 on "),
    _sub(("bisects",), rf"(?<![A-Za-z0-9'])(?:point )?({PT}) bisects (?:the )?(?:line segment |segment |side |edge )?({SEG})",
         r"\1 is the midpoint of \2"),
    _sub(("perpendicular from", "perpendicular is", "perpendicular was"), rf"\b(?:the |a )?perpendicular(?: line| segment)?(?: is| was)?(?: drawn| dropped)? "
         rf"from (?:point )?({PT}){RB} (?:to|onto) (?:the )?(?:line |side |segment )?({SEG}),? (?:has (?:its |the )?foot (?:at )?|meets (?:it |\2 )?at "
         rf"|meeting (?:it |\2 )?at |with (?:the |its )?foot (?:at )?|whose foot is |at )(?:point |the point )?({PT}){RB}", r"\1\3 ⊥ \2 at \3"),
    # constructions (#41): what a drawn perpendicular or parallel states
    _sub(("perpendicular from", "perpendicular is", "perpendicular was", "perpendicular line from"),
         rf"\b(?:the |a )?perpendicular(?: line| segment)? from (?:point )?({PT}){RB} (?:to|onto) (?:the )?(?:line |side |segment )?({SEG})"
         rf",? (?:is |was )?(?:drawn|dropped|constructed),? (?:and )?(?:meets (?:it |\2 )?at |meeting (?:it |\2 )?at |(?:with |and )?(?:the |its )?foot "
         rf"(?:is |at |being )?)(?:point |the point )?({PT}){RB}", r"\1\3 ⊥ \2 at \3"),
    _sub(("perpendicular from", "perpendicular is", "perpendicular was"),
         rf"\b(?:the |a )?perpendicular(?: line| segment)?(?: is| was)?(?: drawn| dropped)? from (?:point )?({PT}){RB} (?:to|onto) "
         rf"(?:the )?line (?:ℓ)?([a-z]\d{{0,2}}),? (?:has (?:its |the )?foot (?:at )?|meets (?:it |line \2 |\2 )?at |meeting (?:it |line \2 |\2 )?at "
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
    _sub((" mid ",), rf"(?<![A-Za-z0-9'])({PT})(?: ?: ?| )mid (?:of )?({SEG})", r"\1 is the midpoint of \2"),
    _sub(("tangency", "contact"), rf"\b(?:the )?(?:point of (?:tangency|contact)|tangent point|tangency point) (?:of|between) "
         rf"([^,.;]{{1,30}}?) and ([^,.;]{{1,30}}?) is (?:point )?({PT}){RB}", r"\1 and \2 are tangent at \3"),
    _sub(("tangency", "contact", "tangent point"), rf",? (?:and |with )?(?:the |its )?(?:point of (?:tangency|contact)|tangent point"
         rf"|tangency point|contact point)(?: is| being|:)? (?:at )?(?:point )?({PT}){RB}", r" at \1"),
    _sub(("on both",), r"\b(lies|lie|is) on both ([^,.;]{1,30}?) and ", r"\1 on \2 and on "),
    _sub(("∩",), rf"(?<![A-Za-z0-9'])({PT}) ?= ?({OBJ_CORE}|[a-z]\d{{0,2}}(?![A-Za-z0-9'])) ?∩ ?({OBJ_CORE}|[a-z]\d{{0,2}}(?![A-Za-z0-9']))",
         r"\2 and \3 meet at \1"),
    _sub(("∩",), rf"({OBJ_CORE}) ?∩ ?({OBJ_CORE}) ?[=:] ?\{{? ?({PT}){RB}(?: ?, ?({PT}){RB})? ?\}}?",
         lambda m: f"{m.group(1)} and {m.group(2)} meet at {m.group(3)}" + (f" and {m.group(4)}" if m.group(4) else "")),
    _sub(("right angle",), rf"({SEG}) (meets|intersects|crosses|cuts) (?:the )?(?:line |segment |side )?({SEG}) at (?:a )?right angles?\b",
         r"\1 ⊥ \3, and \1 \2 \3"),
    _sub(("from",), rf"\b(?:the )?(median|altitude|height|angle bisector)(?: drawn| dropped)? from (?:vertex |point )?({PT}){RB}"
         rf"(?: (?:to|on|onto) (?:the )?(?:side |hypotenuse |base )?{SEG})? is ({SEG})", r"\3 is the \1"),
    _sub(("from",), rf"\b(?:the )?(median|altitude|height)(?: drawn| dropped)? from (?:vertex |point )?({PT}){RB} "
         rf"(meets|intersects|cuts|reaches|hits) (?:the )?(?:side |segment |hypotenuse |base )?({SEG}) at (?:its midpoint |the point |point )?"
         rf"({PT}){RB}", r"\2\5 is the \1, and \2\5 \3 \4 at \5"),
    _sub((" as the ", " as its "), rf"(?:\b(?:has|have|with|and|takes?)|,) ({PT}){RB} as (?:the |its )(midpoint|cent(?:re|er)|centroid|incent(?:re|er)"
         r"|circumcent(?:re|er)|orthocent(?:re|er)|foot) of\b", r", \1 is the \2 of"),
    _sub(("midpoint", "centroid", "incent", "circumcent", "orthocent", "foot"),
         rf"(?:^|(?<=[;,:.] )|(?<=[;,:]))({PT}){RB}(?: ?[=:] ?| )(?:the )?(midpoint|centroid|incent(?:re|er)|circumcent(?:re|er)"
         r"|orthocent(?:re|er)|foot) of\b", r"\1 is the \2 of"),
    _sub((" is a ", " is an "), rf"\b({SOLID_NAME}) is (?:a|an|the) ((?:regular |right |triangular |square |quadrilateral |rectangular )?"
         r"(?:tetrahedron|cube|cuboid|pyramid|prism))\b", r"\2 \1,"),
    _sub(("all equal", "all are", "are all", "all have length", "all measure", "each equal", "each measure"),
         rf"({SEG}(?:{SEP}{SEG}){{1,5}}) (?:are |all |each ){{0,2}}(?:equal to|equal|=|measure|have length|are)(?: to)? ?(?={NUMSTART})",
         lambda m: " = ".join(re.findall(SEG, m.group(1))) + " = "),
    _sub(("into two equal",), rf"(?<![A-Za-z0-9'])(?:point )?({PT}) (?:divides|splits|cuts) (?:the )?(?:line segment |segment |side |edge )?({SEG}) "
         r"into two equal (?:parts|halves|segments|pieces)\b", r"\1 is the midpoint of \2"),
    _sub(("base", "face"), rf"(⊥|perpendicular to) (?:the )?(?:base|bottom face|base face|base plane|lateral face|face)(?: plane)? ({POLY})",
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
    _sub(("midpoints of",), rf"\b({PT}){RB}(?:,| and) ({PT}){RB} (?:are )?(?:the )?midpoints of ({SEG})(?:,| and) ({SEG})(?:,? respectively)?",
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
    _sub(("long",), rf"({SEG})(?:,? | ?\()(?:which is |that is )?({NUMC}) (?:units? |cm )?long\b\)?", r"\1 = \2"),
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
    _sub(("drawn through", "runs through"), rf"({CIRC}) (?:is drawn|drawn|runs) through (?=(?:the )?(?:points? )?{PT}{RB})", r"\1 passes through "),
    _sub(("into two equal",), r"\b(?:divides|splits|cuts) (∠ ?[A-Z0-9'α-ω]{1,9}) into two equal (?:angles|parts|halves)\b", r"bisects \1"),
    _sub(("between them", "between the two"), r"(∠ ?[A-Z0-9']{1,9}) between (?:them|the two (?:lines|tangents|segments|sides))\b", r"\1"),
    _sub(("tangent",), rf"\b(?:the |two )?tangents? (?:lines? )?(?:drawn )?from (?:the )?(?:point )?({PT}){RB} (?:touch|touches|are tangent to|meet) "
         rf"({CIRC}) at (?:the )?(?:points? )?({PT}){RB} and ({PT}){RB}", r"\1\3 and \1\4 are tangent to \2 at \3 and \4"),
    _sub(("touches", "tangent to"), rf"({CIRC})([^.;⊙]{{1,60}}?,? and) (touches|is tangent to) (?=(?:the )?(?:sides? |lines? |segments? )?{SEG}{SEP})",
         r"\1\2 \1 \3 "),
    _sub(("respectively", " at "), rf"({CIRC}|\bit) (touches|is tangent to) (?:the )?(?:sides? |lines? |segments? )?((?:{SEG})(?:{SEP}{SEG}){{1,4}})"
         rf"(?: of [^,.;]{{1,30}}?)? at (?:the )?(?:points? )?((?:{PT})(?:{SEP}{PT}){{1,4}}){RB}(?:,? respectively)?", _respectively_touch),
    _sub(("respectively",), rf"\b((?:lines? )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|{CIRC})) and ((?:line )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|{CIRC})) (meet|intersect|cut|cross) "
         rf"((?:line )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|{CIRC})) at (?:points? )?({PT}){RB} and ({PT}){RB},? respectively",
         r"\1 \3s \4 at \5, and \2 \3s \4 at \6"),
    _sub((" and ",), rf"(?:^|(?<=lines )|(?<=segments )|(?<=, )|(?<=; )|(?<=: )|(?<=\. ))((?:{SEG}|ℓ[a-z]\d{{0,2}}){RB}) and ((?:line |segment )?(?:{SEG}|ℓ[a-z]\d{{0,2}}){RB}) ?([⊥∥]) ?"
         rf"((?:line |segment |plane )?(?:{SEG}|ℓ[a-z]\d{{0,2}}|(?:{PT}){{3,8}}){RB})(?! ?[⊥∥])", r"\1 \3 \4 and \2 \3 \4"),
    _sub(("tangent",), rf"(?:\btangent (?:line )?({SEG})|({SEG}) tangent) at (?:point )?({PT}){RB}", r"\1\2 tangent to ⊙ at \3"),
    _sub(("bisector",), rf"\b(?:the )?(?:angle )?bisector ({SEG}) of (∠ ?[A-Z0-9']{{1,9}})", r"\1 bisects \2"),
    _sub(("bisector",), rf"({SEG}) ?: ?(?:the )?(?:angle )?bisector of (∠ ?[A-Z0-9']{{1,9}})", r"\1 bisects \2"),
    _sub(("cyclic",), rf"({POLY}) (?:is )?cyclic,? (?:with )?(?:circumcircle|circumscribed circle|its circumcircle) ({CIRC})", r"\1 is inscribed in \2"),
    _sub(("foot",), rf"(⊥ ?(?:{SEG}|ℓ[a-z]\d{{0,2}}){RB})[,;]? (?:with |and )?(?:the |its )?foot (?:is |at |being )?(?:point )?({PT}){RB}",
         r"\1 at \2"),
    # the passive: `segment EF is cut at M by line k` is `line k meets EF at M`
    _sub((" by ",), rf"((?:{SEG}|ℓ[a-z]\d{{0,2}}|⊙{PT}){RB})(?: ?= ?[^,;.]{{1,12}})?,? (?:is|are|gets|being) (?:cut|crossed|met|intersected) "
         rf"at (?:the )?(?:point )?({PT}){RB},? by (?:the )?(?:line |segment |circle )?((?:{SEG}|ℓ[a-z]\d{{0,2}}|⊙{PT}){RB})",
         lambda m: f"{m.group(0)}; {m.group(3)} meets {m.group(1)} at {m.group(2)}; {m.group(3)}"),
    # `the circle x^2 + y^2 = 25 passes through P`: the unnamed circle is the subject
    _sub(("passes through", "passing through", "goes through"), r"⊙( ?:? ?[^,;.⊙]{3,40}?) (passes|passing|goes) through", r"⊙\1, ⊙ \2 through"),
]


def _last_segment(m: re.Match[str]) -> str:
    """`AD is a median, and its length is 9`: `its` is the last segment named before."""
    found = _SEG_RE.findall(m.string, max(0, m.start() - 80), m.start())
    return found[-1] if found else m.group(0)


_LINE_THROUGH = re.compile(rf"(ℓ[a-z]\d{{0,2}}) (?:passing |going )?through (?:the )?(?:point )?({PT}){RB}(?= (?:is|⊥|∥))")
_LINE_EQUATIONS = re.compile(r"(?P<a>ℓ[a-z]\d{0,2})(?P<ea>: ?[^,;]{1,30}?) and (?:line )?(?P<b>ℓ[a-z]\d{0,2})(?P<eb>: ?[^,;]{1,30}?)"
                             r" (?P<v>intersect|meet|cross)")


def normalise(text: str) -> str:
    text = apply_subs(_EN_SUBS, resolve_pronouns(drop_colours_en(lower_words(common(text)))))
    if "  " in text:
        text = _SPACES.sub(" ", text)
    text = bare_line_names(text)
    names = {m.group(1) for m in re.finditer(r"ℓ([a-z]\d{0,2})", text)} if "ℓ" in text else set()
    if "a" in names:  # `a` is also the article: only where a line name must stand
        names.discard("a")
        text = _BARE_A.sub("ℓa", text)
    for name in sorted(names):
        text = re.sub(rf"(?<![A-Za-z0-9'_ℓ]){name}(?![A-Za-z0-9'_])", "ℓ" + name, text)
    if "ℓ" in text and "through" in text:  # `line m through A is perpendicular to l`
        text = _LINE_THROUGH.sub(r"\1 passes through \2, \1", text)
    if "ℓ" in text and ":" in text:  # `lines l1: y = x and l2: y = 4 - x intersect at P`
        text = _LINE_EQUATIONS.sub(r"\g<a>\g<ea>, \g<b>\g<eb>, \g<a> and \g<b> \g<v>", text)
    return text


_BARE_A = re.compile(r"(?:(?<=meets )|(?<=cuts )|(?<=crosses )|(?<=intersects )|(?<=and )|(?<=∥ )|(?<=⊥ )|(?<=^))a"
                     r"(?= at (?:the )?(?:point )?[A-Z]| ?[∥⊥]| and ℓ)")


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

_CLAUSE_AFTER = re.compile(
    r" ?(?:[=⊥∥≅∼:/]|(?:is|intersects|meets|bisects|lies|passes|cuts|touches|has|equals)\b)", re.IGNORECASE
)


def trim_list(items: list[str], m: re.Match[str], group: str = "names") -> list[str]:
    """Drop a list's last item when it starts the next clause: `line l, and OA = 5` names one line.

    Only a singular verb or a relation symbol ends the list this way; a plural verb (`AB and CD
    are parallel`) has the whole list as its subject.
    """
    if len(items) > 1 and m.end(group) == m.end() and _CLAUSE_AFTER.match(m.string, m.end()):
        return items[:-1]
    return items


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
    Rule(("axis", "axes", "coordinate", "cartesian", "xoy"),
         rx(f"{AXIS}|(?i:coordinate (?:system|plane|axes|grid)|cartesian|\\bx ?O ?y\\b)"), _on_axis),
    Rule(("parabola", "ellipse", "hyperbola"), rx("(?i:parabola|ellipse|hyperbola)s?"), _on_curve),
    Rule(("plane",), rx(PLANE), _on_plane),
    Rule(("semicircle",), rx(f"(?i:semicircles?)(?: (?i:on|with diameter|over) (?P<seg>{SEG}))?"), _on_semicircle),
])


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
    for p in subjects(_PNAME_RE.findall(m.group("pts")), m):
        if p != target:
            b.point(p)
            b.relation("on", p, target, text=m.group(0))


def _on_collinear(m: re.Match[str], b: Builder, off: int) -> None:
    pts = _PNAME_RE.findall(m.group("pts"))
    if len(pts) >= 3:
        b.relation("collinear", *pts, text=m.group(0))


def _on_intersect(m: re.Match[str], b: Builder, off: int) -> None:
    x, y = canon(m.group("a"), b, off + m.start()), canon(m.group("b"), b, off + m.start())
    if x.startswith("∠") or y.startswith("∠") or x == y:
        return  # `the bisector of ∠ABC meets AC at D` is handled by its own rule
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
    kind = solid_kind(word or "")
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
    b.relation("angle_bisector", line if line.startswith("ℓ") else cn.segment(line), text=m.group(0))


def _on_bisector_meets(m: re.Match[str], b: Builder, off: int) -> None:
    vertex = cn.angle_vertex(cn.angle(m.group("ang")))
    p = m.group("p")
    if vertex is None or vertex == p:
        return
    b.point(p)
    bisector = cn.segment(vertex + p)
    b.relation("angle_bisector", bisector, text=m.group(0))
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
        for p in _PNAME_RE.findall(pts or "") if axis else ():
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


def _on_equal_words(m: re.Match[str], b: Builder, off: int) -> None:
    x, y = canon(m.group("a"), b, off), canon(m.group("b"), b, off)
    if x.startswith("∠") and y.startswith("∠"):
        b.add("numerical", "equal_angle", (x, y), None, m.group(0))
    elif len(cn.point_tokens(x)) == 2 and len(cn.point_tokens(y)) == 2 and x == cn.segment(x):
        b.add("numerical", "equal_length", (x, y), None, m.group(0))


def _on_origin(m: re.Match[str], b: Builder, off: int) -> None:
    p = m.group("p") or m.group("q")
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
    Rule((" on", " upon"),
         rx(f"(?P<pts>{list_of(PNAME + COORDS, SEP, 10)}) (?P<v>(?i:lies|lie|lying|is a point|is a moving point|is any point|is located|is|are located"
                    f"|are points|are (?:two|three|four|five|six) (?:distinct )?points|are|moves|all lie|both lie))(?i: on| upon)(?i: the extension of| the extended line of)? {obj('o')}"),
         _on_on),
    Rule(("point",), rx(f"(?i:points?) (?P<pts>{PLIST}) (?i:on) {obj('o')}"), _on_on),
    Rule((" on",), rx(f"(?P<pts>{PNAME}) (?i:on) {obj('o')}(?= ?(?:[,;:.]|$| (?i:and|with) ))"), _on_on),  # terse: `D on AC;`
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
    Rule(("through",), rx(f"{lead('o')} (?i:passes|passing|pass|goes|going) (?i:through) (?i:the )?(?i:points? )?(?P<pts>{PLIST})"), _on_on),
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
    Rule(("touch",),
         rx(f"{lead('a')}(?:,? and | ?, ?){obj('b')} (?i:touch|touch each other|are touching)(?i: externally| internally)?"
            f"(?: (?i:at) (?i:the )?(?i:point )?(?P<p>{PNAME}))?"),
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
         rx(f"{lead('a')}(?:,? and | ?, ?){obj('b')} (?i:are|is) (?i:externally |internally |mutually )?(?i:tangent)"
                    f"(?i: to each other)?(?: (?i:at) (?i:the )?(?i:point )?(?P<p>{PNAME}))?"),
         _on_tangent_pair),
    Rule(("chord", "diameter", "radi"),
         rx(f"(?P<segs>{list_of(SEG, SEP, 4)}) (?i:is|are|as) (?i:a |an |the )?(?P<role>(?i:chords?|diameters?|radii|radius))"
                    f"(?: (?i:of) {obj('c')})?"),
         _on_circle_role),
    Rule(("chord", "diameter", "radius"),
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
    Rule(("bisect",), rx(f"(?P<s>{SEG}|{LINE_NAME}) (?i:bisects|is the bisector of|is the angle bisector of) {ANG}"), _on_bisects),
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
    Rule(("inside", "outside", "interior", "exterior", "within"),
         rx(f"(?P<p>{PNAME}) (?i:is|lies|is located)(?i: a point)? (?P<w>(?i:inside|outside|in the interior of"
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
    Rule(("origin",), rx(f"(?i:the origin)(?: (?i:is))? (?i:point )?(?P<p>{PNAME})|(?P<q>{PNAME}) (?i:is|is at|lies at|at) (?i:the origin)"),
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
    Rule(("divides",), rx(f"(?P<p>{PNAME}) (?i:divides) (?P<s>{SEG}) (?i:in the ratio of|in the ratio|in a ratio of) "
                                  f"(?P<a>{NUMC}) ?: ?(?P<b>{NUMC})"), _on_divides),
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
    run_rules(RELATION_RULES, affirmed(pieces), builder, low)
    for offset, sentence in pieces:
        if "=" in sentence:
            equations(sentence, offset, GRAMMAR, builder)
    return builder.finish()
