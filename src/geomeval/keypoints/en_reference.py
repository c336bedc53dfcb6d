"""What an English pronoun or a bare line letter refers to, written out before the rules run.

Why: `the line l is tangent to it at A` states *l tangent to circle O at A* when circle O was
named before, and `c ⊥ a` names two lines as `line c ⊥ line a` would
(docs/keypoint_annotation_guide.md). The rules read names, so `it` is replaced by the name
of the object it stands for, and a lone lower-case letter that a line relation uses becomes
a line name, before the rules see the caption.

- `it` as a subject (at the start of a clause, before a verb) is the subject of the clause
  before it (`line k meets the y-axis at R; it crosses the x-axis at S`);
- `it` as an object (`tangent to it`, `meets it at`, `lies on it`, `a diameter of it`) is the
  last object named before the current clause other than that clause's subject, else the
  last one named earlier in the clause after the subject (`the bisector l of AB crosses it at M`);
- nothing is guessed where no object was named, and `it is given that` is no pronoun.

Bounded: one scan of the caption for objects and one for pronouns, each pronoun looking
back over at most `LOOK_BACK` objects.
"""

from __future__ import annotations

import re
from bisect import bisect_left

LOOK_BACK = 12
SUBJECT_SPAN = 160  # characters from a clause's start within which its subject is looked for

# Objects, as written after `_normalize.common` (circle O / ⊙O, line l, the x-axis, AB, triangle ABC, ...)
_OBJECT = re.compile(
    r"(?P<icircle>\b(?:the |its )?(?:incircle|circumcircle|inscribed circle|circumscribed circle)(?: of (?:the )?(?:triangle |△ ?)?"
    r"[A-Z][A-Z0-9']{2,16})? (?:has|with) (?:its )?(?:centre|center) (?:at )?(?:point )?(?P<ic>[A-Z][0-9']{0,2})(?![A-Za-z0-9']))"
    r"|(?P<circle>(?:\bcircle |⊙ ?)(?P<cn>[A-Z][0-9']{0,2})(?![A-Za-z0-9']))"
    r"|(?P<ucircle>\bthe (?:base |given |same |first |second )?circle\b(?! ?[A-Z⊙]))"
    r"|(?P<line>\blines? (?P<ln>[a-w][0-9]{0,2})(?![A-Za-z0-9'_]))"
    r"|(?P<axis>\b(?:the )?(?P<ax>[xy])-axis\b)"
    r"|(?P<curve>\b(?:the )?(?P<cv>parabola|hyperbola|ellipse|curve|graph)\b)"
    r"|(?P<poly>\b(?:triangle|quadrilateral|square|rectangle|parallelogram|rhombus|trapezoid|polygon|△) ?"
    r"(?P<pn>(?:[A-Z][0-9']{0,2}){3,8})(?![A-Za-z0-9']))"
    r"|(?P<bpoly>(?<![A-Za-z0-9'∠⊙△])(?P<bn>(?:[A-Z][0-9']{0,2}){3,8})(?![A-Za-z0-9'(]))"
    r"|(?P<seg>(?<![A-Za-z0-9'∠⊙△])(?P<sn>[A-Z][0-9']{0,2}[A-Z][0-9']{0,2})(?![A-Za-z0-9'(]))"
    r"|(?P<point>(?<![A-Za-z0-9'∠⊙△])(?P<pt>[A-Z][0-9']{0,2})(?![A-Za-z0-9'(]))"
)
_CLAUSE_END = re.compile(r"[.;:](?: |$)|, (?:and |but |while |so )?|(?<=[a-z0-9°]) (?:and|but) (?=[A-Za-z⊙△])")
_PRONOUN = re.compile(r"(?<![A-Za-z'])(?:(?P<p>[Ii]t)|(?P<they>[Tt]hey)|(?P<its>its)(?= (?:perpendicular bisector|diameter|chord|median|altitude"
                      r"|tangent|radius|angle bisector|diagonals|diagonal)\b))(?![A-Za-z'])"
                      r"|(?<=[A-Za-z0-9°')] and )(?P<verb>)(?=(?:touches|meets|crosses|cuts|intersects|is tangent to|passes through|bisects"
                      r"|is parallel to|is perpendicular to|runs parallel to|lies on) )"
                      r"|(?<=[A-Za-z0-9°'] and )(?P<pverb>)(?=(?:cross|meet|intersect) (?:each other )?at )")
_LINE_RELATION_BEFORE = re.compile(r"(?:(?:perpendicular|parallel) to|[⊥∥]) $")
_BARE_LINE = re.compile(r"(?<![A-Za-z0-9'_\\-])([a-w]\d{0,2})(?![A-Za-z0-9'_(])")
_SUBJECT_VERB = re.compile(r" (?:also |then |again )?(?:is|does|never|cannot|lies|meets|crosses|cuts|intersects|touches|passes|goes|runs|bisects"
                           r"|has|meets|reaches|hits)\b")
_VERB = re.compile(r"\b(?:is|are|lies|meets|crosses|cuts|intersects|touches|passes|goes|runs|bisects|has|reaches|hits)\b")
_ROLE = re.compile(r" (perpendicular bisector|angle bisector|diameter|chord|median|altitude|tangent|radius|diagonals|diagonal)\b")
_ELIDED_TRIGGERS = (" and touches", " and meets", " and crosses", " and cuts", " and intersects", " and is tangent",
                    " and passes", " and bisects", " and is parallel", " and is perpendicular", " and runs parallel", " and lies on")
_ANY_PRONOUN = re.compile(r"(?<![A-Za-z'])(?:[Ii]ts?|[Tt]hey)(?![A-Za-z'])")
_PLURAL_TRIGGERS = (" and cross", " and meet", " and intersect")
_PLURAL_VERB = re.compile(r" (?:(?:both |also |then |again )?(?:meet|cross|intersect|touch|are|lie)\b)")
_NOT_REFERRING = re.compile(r" (?:is|was) (?:known|given|clear|easy|true|obvious|required|assumed|seen|shown|found)\b|,? follows?\b")
_OBJECT_BEFORE = re.compile(r"(?:\b(?:to|on|of|meets|meeting|crosses|crossing|cuts|cutting|intersects|intersecting|touches|touching"
                            r"|bisects|bisecting|through|onto|with|and)|[=∥⊥]) $")
# only a curved object is touched: `side BC has one point D in common with it, CA touches it at E`
_TOUCHES_BEFORE = re.compile(r"\b(?:touches|touching|tangent to|in common with) $")
_CURVED = ("circle", "curve")
# a lone lower-case letter in a line relation: `c ⊥ a`, `l ∥ m`, `P lies on l`, `c meets a at P`
_LINE_LETTER = r"[a-w][0-9]{0,2}"
_BARE_PAIR = re.compile(rf"(?<![A-Za-z0-9'_\\-])ℓ?({_LINE_LETTER}) ?(⊥|∥|//) ?ℓ?({_LINE_LETTER})(?![A-Za-z0-9'_(])")
_BARE_VERB = re.compile(rf"(?:(?<=^)|(?<=[.;,:] )|(?<=and )|(?<=\$)|(?<=line ))ℓ?({_LINE_LETTER}) (meets|crosses|cuts|intersects) ℓ?"
                        rf"({_LINE_LETTER})(?= at [A-Z])")
_BARE_TANGENT = re.compile(rf"(?:(?<=^)|(?<=[.;,:] )|(?<=and )|(?<=\$))({_LINE_LETTER})(?= is tangent to | touches )")
_BARE_ON = re.compile(rf"(?<=[A-Z0-9'] )(lies on|lie on|is on|are on|∈) ({_LINE_LETTER})(?=$|[.;,)$]| and | at | with )")
_BARE_CAP = re.compile(rf"(?<![A-Za-z0-9'_\\-])ℓ?({_LINE_LETTER}) ?∩ ?ℓ?({_LINE_LETTER})(?![A-Za-z0-9'_(])")


def _surface(m: re.Match[str]) -> tuple[str, str]:
    """(kind, the text that names the object) for one `_OBJECT` match."""
    kind = m.lastgroup or ""
    if m.group("circle"):
        return "circle", "⊙" + m.group("cn")
    if m.group("icircle"):  # `the incircle of triangle ABC has centre I`: circle I
        return "circle", "⊙" + m.group("ic")
    if m.group("ucircle"):  # `a diameter of the base circle, and C is a point on it`: the circle in context
        return "circle", "the circle"
    if m.group("line"):
        return "line", "line " + m.group("ln")
    if m.group("axis"):
        return "axis", f"the {m.group('ax')}-axis"
    if m.group("curve"):
        return "curve", "the " + m.group("cv")
    if m.group("poly"):
        return "poly", m.group(0).strip()
    if m.group("bpoly"):
        return "poly", m.group("bn")
    if m.group("seg"):
        return "seg", m.group("sn")
    return kind or "point", m.group("pt")


def resolve_pronouns(text: str) -> str:
    """`it` replaced by what it stands for (see the module docstring); the rest untouched."""
    if _ANY_PRONOUN.search(text) is None and not any(v in text for v in (*_ELIDED_TRIGGERS, *_PLURAL_TRIGGERS)):
        return text
    objects = [(m.start(), *_surface(m)) for m in _OBJECT.finditer(text)]
    lines = {o[2][5:] for o in objects if o[1] == "line"}
    if lines:  # `line m …; perpendicular to l`: a named line's bare letter, or one in a line relation, names a line too
        bare = [(m.start(), "line", "line " + m.group(1)) for m in _BARE_LINE.finditer(text)
                if not text.endswith("line ", 0, m.start())
                and (m.group(1) in lines or _LINE_RELATION_BEFORE.search(text, max(0, m.start() - 18), m.start()))]
        if bare:
            objects = sorted(objects + bare)
    if not objects:
        return text
    starts = [o[0] for o in objects]
    bounds = [0] + [m.end() for m in _CLAUSE_END.finditer(text)]
    resolved: dict[int, str] = {}  # clause start -> its subject's name
    out: list[str] = []
    last = 0
    for m in _PRONOUN.finditer(text):
        pos = m.start()
        rest = text[m.end() : m.end() + 40]
        if _NOT_REFERRING.match(rest):
            continue
        clause = bounds[bisect_left(bounds, pos + 1) - 1]
        subject_here = clause == pos or text[clause:pos].strip() in ("", "and", "but", "then", "so")
        name: str | None = None
        if m.group("pverb") is not None:  # `the diagonals PR and QS are drawn and cross at T`: both cross
            k = bisect_left(bounds, clause)
            begin = bounds[k - 1] if clause == pos and k > 0 else clause  # the clause that ends in this `and`
            first = bisect_left(starts, begin)
            window = objects[first : min(first + LOOK_BACK, bisect_left(starts, pos))]
            pair = [o for o in window if o[1] != "point"][:2]
            if (len(pair) == 2 and pair[0][1] == pair[1][1] and pair[0][2] != pair[1][2] and last <= pos - 5
                    and not _VERB.search(text, begin, min(pair[1][0], begin + SUBJECT_SPAN))):
                out.append(text[last : pos - 5])
                out.append(f"; {pair[0][2]} and {pair[1][2]} ")
                last = pos
            continue
        if m.group("verb") is not None:  # `circle R lies inside circle Q and touches it at T`: the subject is R's
            here = _subject(clause, pos, objects, starts)
            if here is not None and here[1] != "point" and not _VERB.search(text, clause, min(here[0], clause + SUBJECT_SPAN)):
                name = here[2]
            else:
                name = _subject_before(text, clause, objects, starts, bounds, resolved)
            if name is not None and last <= pos - 5:  # `X lies inside Y and touches it`: `X lies inside Y; X touches it`
                out.append(text[last : pos - 5])
                out.append(f"; {name} ")
                last = pos
            continue
        if m.group("they"):
            name = _two_before(clause, objects, starts) if subject_here and _PLURAL_VERB.match(rest) else None
        elif m.group("its"):  # `line l, which is its perpendicular bisector`: the bisector of the object before
            role = _ROLE.match(rest)
            if role is not None and re.match(r",? ?(?:[A-Z]|⊙|ℓ)", rest[role.end() :]):
                continue  # `its diagonals AC and BD`: named, the rules read it
            of = _owner_before(role.group(1), pos, objects, starts) if role else None
            if role is not None and of is not None:
                out.append(text[last:pos])
                out.append(f"the {role.group(1)} of {of}")
                last = m.end() + role.end()
            continue
        elif subject_here and _SUBJECT_VERB.match(rest):
            name = _subject_before(text, clause, objects, starts, bounds, resolved)
        elif _OBJECT_BEFORE.search(text[max(0, pos - 16) : pos]):
            name = _object_before(text, clause, pos, objects, starts)
            named_in = bounds[bisect_left(bounds, _position(name, clause, objects, starts) + 1) - 1] if name else -1
            if named_in in resolved and resolved[named_in] != name:  # `it does not meet the x-axis. A is on it`: the topic
                name = resolved[named_in]
            if name is not None and _TOUCHES_BEFORE.search(text, max(0, pos - 24), pos):  # `CA touches it at E`: a circle
                seen = objects[max(0, bisect_left(starts, pos) - LOOK_BACK) : bisect_left(starts, pos)]
                if all(o[1] not in _CURVED for o in seen if o[2] == name):
                    name = next((o[2] for o in reversed(seen) if o[1] in _CURVED), name)
        if name is None:
            continue
        if subject_here:
            resolved[clause] = name
        out.append(text[last:pos])
        out.append(name)
        last = m.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _position(name: str, before: int, objects: list[tuple[int, str, str]], starts: list[int]) -> int:
    """Where `name` was last named before `before` (-1 when it was not)."""
    for j in range(bisect_left(starts, before) - 1, -1, -1):
        if objects[j][2] == name:
            return objects[j][0]
    return -1


def _subject(clause: int, end: int, objects: list[tuple[int, str, str]], starts: list[int]) -> tuple[int, str, str] | None:
    """The first object named in text[clause:end]: (position, kind, name)."""
    i = bisect_left(starts, clause)
    if i < len(objects) and objects[i][0] < end:
        return objects[i]
    return None


def _subject_before(text: str, clause: int, objects: list[tuple[int, str, str]], starts: list[int], bounds: list[int],
                    resolved: dict[int, str]) -> str | None:
    """The subject of the nearest clause before `clause` that has one (a resolved pronoun counts)."""
    k = bisect_left(bounds, clause)
    for back in range(1, min(k, LOOK_BACK) + 1):
        start, end = bounds[k - back], bounds[k - back + 1] if k - back + 1 < len(bounds) else clause
        if start in resolved:
            return resolved[start]
        head = text[start:end].lstrip()
        if head.lower().startswith("its ") or head.lower().startswith("it "):
            continue  # `its vertex is D`: the clause is about the same object; look further back
        found = _subject(start, end, objects, starts)
        if found is None or _VERB.search(text, start, min(found[0], start + SUBJECT_SPAN)):
            continue  # `meets the y-axis at R`: a clause that starts with its verb has the subject before it
        if found[1] != "point":
            return found[2]
    return None


_ROLE_OWNER = {"perpendicular bisector": "seg", "angle bisector": "poly", "median": "poly", "altitude": "poly", "diagonal": "poly",
               "diagonals": "poly", "diameter": "circle", "chord": "circle", "tangent": "circle", "radius": "circle"}


def _owner_before(role: str, pos: int, objects: list[tuple[int, str, str]], starts: list[int]) -> str | None:
    """`its` before a role word: the last object named before it of the kind that has such a part
    (`KL is its diameter`: the last circle; `line k, which is its perpendicular bisector`: the last segment)."""
    kind = _ROLE_OWNER[role]
    i = bisect_left(starts, pos)
    for j in range(i - 1, max(-1, i - 1 - LOOK_BACK), -1):
        if objects[j][1] == kind:
            return objects[j][2]
    return None


def _two_before(clause: int, objects: list[tuple[int, str, str]], starts: list[int]) -> str | None:
    """`they`: the last two objects of one kind named before the clause (`AD and BE ...; they cross at G`)."""
    i = bisect_left(starts, clause)
    seen = [o for o in objects[max(0, i - LOOK_BACK) : i] if o[1] != "point"]
    if len(seen) >= 2 and seen[-1][1] == seen[-2][1] and seen[-1][2] != seen[-2][2]:
        return f"{seen[-2][2]} and {seen[-1][2]}"
    return None


def _object_before(text: str, clause: int, pos: int, objects: list[tuple[int, str, str]], starts: list[int]) -> str | None:
    """The last object before the clause other than the clause's subject, else the last one in it after its subject."""
    subject = _subject(clause, pos, objects, starts)
    if subject is None and text[max(0, clause - 2) : clause] == ": ":  # `line l: y = x + 1 meets it`: the line is the subject
        subject = _subject(max(0, text.rfind(" ", 0, max(0, clause - 2)) - 8), clause, objects, starts)
    i = bisect_left(starts, clause)
    for j in range(i - 1, max(-1, i - 1 - LOOK_BACK), -1):
        kind, name = objects[j][1], objects[j][2]
        if kind != "point" and (subject is None or name != subject[2]):
            return name
    j = bisect_left(starts, pos)
    inside = [o for o in objects[max(i, j - LOOK_BACK) : j] if o[1] != "point"]
    if len(inside) >= 2:
        return inside[-1][2]
    return None


def bare_line_names(text: str, space: str = " ") -> str:
    """Lone lower-case letters that a line relation uses, written as line names (`c ⊥ a` -> `ℓc ⊥ ℓa`).

    `space` goes around the symbol (none for a Chinese caption, whose rules read it unspaced)."""
    if "⊥" in text or "∥" in text or "//" in text:
        text = _BARE_PAIR.sub(lambda m: f"ℓ{m.group(1)}{space}{'∥' if m.group(2) == '//' else m.group(2)}{space}ℓ{m.group(3)}", text)
    if not space:
        return text
    if "∩" in text:
        text = _BARE_CAP.sub(r"ℓ\1 ∩ ℓ\2", text)
    if " meets " in text or " crosses " in text or " cuts " in text or " intersects " in text:
        text = _BARE_VERB.sub(r"ℓ\1 \2 ℓ\3", text)
    if " tangent to " in text or " touches " in text:
        text = _BARE_TANGENT.sub(r"ℓ\1", text)
    if " on " in text or "∈" in text:
        text = _BARE_ON.sub(r"\1 ℓ\2", text)
    return text
