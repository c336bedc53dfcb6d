"""The English parser's shared vocabulary: name and object patterns, kind words, `canon`.

Used by the normalisation (`en_normalise`), the relation rules (`en_relations`) and the
mention and element rules (`parse_en`); the Chinese parser reuses the handlers built on it.
"""

from __future__ import annotations

import re

from . import canonical as cn
from ._engine import (
    NUMC,
    OBJ_CORE,
    PNAME,
    POLY,
    SEG,
    Builder,
    list_of,
)

SEP = "(?:, and |, | and |,)"
OBJW = (
    "(?:(?i:the |a |an |line |lines |straight line |segment |segments |line segment |side |sides |edge |chord "
    "|diagonal |diagonals |diameter |radius |ray |median |altitude |base |leg |hypotenuse |triangle |quadrilateral |square "
    "|rectangle |parallelogram |rhombus |trapezoid |polygon |pentagon |hexagon |extension of |extended line of "
    "|tangent line |arc |equilateral |isosceles |right |regular |circumference of |boundary of |face |bottom face |top face |second |third |fourth |another |other |same )){0,3}"
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
