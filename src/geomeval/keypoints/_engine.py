"""The language-neutral parts of caption parsing: name patterns, the builder, rules, equations.

Why this shape: a caption is parsed by many small independent rules (one regular
expression and one handler each) over normalised sentences. Every pattern uses only
bounded quantifiers on short names, so one match attempt costs a bounded number of
steps and a whole parse is linear in the (capped) input; a rule runs on a sentence only
when one of its trigger words occurs in it, which is what makes parsing fast enough to
score thousands of captions per second.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, pairwise

from . import canonical as cn
from .model import ELEMENT, NUMERICAL, RELATION, Keypoint, KeypointSet, Value

MAX_CHARS = 20_000  # longer captions are cut here (a figure caption is a few hundred characters)
MAX_SENTENCE_EQUALS = 64  # '=' signs looked at per sentence
MAX_CHAIN_NAMES = 6  # members of one equality chain paired up (6 -> 15 pairs)

# --------------------------------------------------------------------------- name patterns
PT = r"[A-Z]\d{0,2}'{0,2}"
LB = r"(?=[A-Z])(?<![A-Za-z0-9'_])"  # a name starts here (the cheap capital test first: faster scans)
RB = r"(?![A-Za-z0-9'_])"  # and ends here
PNAME = LB + PT + RB
SEG = LB + f"(?:{PT}){{2}}" + RB
POLY = LB + f"(?:{PT}){{3,12}}" + RB
SOLID_NAME = LB + f"(?:{PT}){{1,8}}(?:-(?:{PT}){{1,8}})?" + RB
ANG = f"∠(?:(?:{PT}){{3}}|{PT}|\\d{{1,2}}|[α-ωθ])" + RB
BIG, SMALL = "⁺", "⁻"  # ⊙⁺ / ⊙⁻: the larger / smaller of two unnamed (concentric) circles
CIRC = f"⊙(?:{PT}{RB}|[{BIG}{SMALL}])?"
LINE_NAME = r"ℓ[a-z]\d{0,2}" + RB
AXIS = r"[xyz]-axis"
PLANE = f"plane (?:(?:{PT}){{3,8}}{RB}|[α-ω]|⊙ ?{PT}{RB})"
ARC = f"⌒(?:{PT}){{2,3}}" + RB
# One object a relation talks about, in any of its notations.
OBJ_CORE = f"(?=[⊙ℓxyzp⌒∠△A-Z])(?:{CIRC}|{LINE_NAME}|{AXIS}|{PLANE}|{ARC}|{ANG}|△ ?{POLY}|{SEG}|{POLY})"
NUMC = r"[-+]?[0-9.√π/]{1,16}"  # one coordinate / ratio part (no parentheses, no spaces)
NUMSTART = r"(?=[-+]?(?:\d|√|π|\.\d))"


def list_of(item: str, sep: str, most: int = 10) -> str:
    """`item (sep item){0,most}` — a bounded list, never a nested unbounded quantifier."""
    return f"{item}(?:{sep}{item}){{0,{most}}}"


@dataclass(frozen=True, slots=True)
class Rule:
    """One pattern and what to do with each match; runs only when a trigger occurs."""

    triggers: tuple[str, ...]
    pattern: re.Pattern[str]
    handle: Callable[[re.Match[str], Builder, int], None]


@dataclass(slots=True)
class Mention:
    pos: int
    family: str  # circle | polygon | solid
    ref: str


@dataclass
class Builder:
    """Collects raw keypoints and the shapes mentioned (for 'the circle', 'its radius', ∠B)."""

    pending: list[tuple[str, str, tuple[str, ...], Value, str]] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    polygons: dict[tuple[str, ...], str] = field(default_factory=dict)  # tokens -> kind
    unnamed_circle: bool = False
    _mention_pos: list[int] = field(default_factory=list)

    # -- emit -------------------------------------------------------------------------
    def add(self, dimension: str, kind: str, args: Sequence[str], value: Value = None, text: str = "") -> None:
        if any(a is None for a in args):
            return
        self.pending.append((dimension, kind, tuple(args), value, text))

    def element(self, kind: str, *args: str, text: str = "") -> None:
        self.add(ELEMENT, kind, args, None, text)

    def relation(self, kind: str, *args: str, value: Value = None, text: str = "") -> None:
        if kind == "on" and len(args) == 2 and args[0] and args[1] and args[1][0].isupper() and args[0] in cn.point_tokens(args[1]):
            return  # `the line AB passes through A(−3, 0) and B(0, 6)`: a line through its own points states nothing
        self.add(RELATION, kind, args, value, text)

    def number(self, kind: str, *args: str, value: Value, text: str = "") -> None:
        if value is not None:
            self.add(NUMERICAL, kind, args, value, text)

    def point(self, name: str) -> None:
        self.element("point", name, text=f"point {name}")

    # -- shapes in context ------------------------------------------------------------
    def mention(self, pos: int, family: str, ref: str) -> None:
        index = bisect.bisect_right(self._mention_pos, pos)
        self._mention_pos.insert(index, pos)
        self.mentions.insert(index, Mention(pos, family, ref))

    def polygon(self, pos: int, kind: str, name: str, text: str = "") -> str:
        tokens = cn.polygon_tokens(name)
        ref = "".join(tokens)
        self.polygons.setdefault(tokens, kind)
        self.element(kind, ref, text=text or f"{kind} {ref}")
        self.mention(pos, "polygon", ref)
        return ref

    def circle(self, pos: int, name: str) -> str:
        ref = "⊙" + name
        if name:
            self.element("circle", ref, text=f"circle {name}")
            self.mention(pos, "circle", ref)
        else:
            self.unnamed_circle = True
        return ref

    def context(self, pos: int, families: Iterable[str], skip: tuple[str, ...] = ()) -> str:
        """The nearest shape of one of `families` mentioned before `pos` (else the first after); refs
        starting with one of `skip` are passed over (an edge length never belongs to a sphere)."""
        wanted = set(families)
        index = bisect.bisect_right(self._mention_pos, pos)
        for i in [*range(index - 1, -1, -1), *range(index, len(self.mentions))]:
            if self.mentions[i].family in wanted and not (skip and self.mentions[i].ref.startswith(skip)):
                return self.mentions[i].ref
        return ""

    def circle_ref(self, raw: str, pos: int) -> str:
        """`⊙O` as written, or for an unnamed `⊙` the circle in context."""
        raw = raw.strip()
        if raw and raw != "⊙":
            return cn.ref(raw)
        return self.context(pos, ("circle",)) or "⊙"

    # -- finish -----------------------------------------------------------------------
    def finish(self) -> KeypointSet:
        angle_map = self._vertex_angles()
        species = self._species()
        if self.unnamed_circle and not any(m.family == "circle" for m in self.mentions):
            self.element("circle", "⊙", text="circle")
        named_solids = {k for d, k, a, _, _ in self.pending if d == ELEMENT and k in SOLID_FAMILY and a}
        out: list[Keypoint] = []
        for dimension, kind, args, value, text in self.pending:
            if dimension == ELEMENT and kind in POLYGON_RANK and args and species.get(args[0], kind) != kind:
                continue  # a quadrilateral ABCD also called a parallelogram is one parallelogram
            if dimension == ELEMENT and not args and any(kind in SOLID_FAMILY[k] for k in named_solids):
                continue  # `the prism` after `rectangular prism ABCD-EFGH` is that solid again
            if angle_map:
                args = tuple(angle_map.get(a, a) for a in args)
                if kind == "angle_bisector" and isinstance(value, str):
                    value = angle_map.get(value, value)
            if dimension == ELEMENT and kind == "pyramid" and args and _triangular(args[0]):
                kind = "tetrahedron"  # a triangular pyramid is a tetrahedron (guide)
            if any(a.startswith("pyramid ") and _triangular(a[8:]) for a in args):
                args = tuple("tetrahedron " + a[8:] if a.startswith("pyramid ") and _triangular(a[8:]) else a for a in args)
            if dimension == RELATION and kind == "inscribed":  # `the cube … in sphere O` for a cuboid: the species is the element's
                args = tuple(_SPECIES.sub("", a) for a in args)
            if dimension == RELATION and kind == "intersect" and len(args) == 3:
                kind, args = _endpoint_meeting(args)
            out.append(Keypoint(dimension, kind, order_args(kind, args), value, text))
        if any(k.kind == "angle_bisector" and k.value is not None for k in out):  # `BD bisects ∠ABC`: one bisector, its angle named
            named = {k.args for k in out if k.kind == "angle_bisector" and k.value is not None}
            out = [k for k in out if not (k.kind == "angle_bisector" and k.value is None and k.args in named)]
        centres = {k.args[0][1:] for k in out if k.dimension == ELEMENT and k.kind == "circle" and k.args and len(k.args[0]) > 1}
        if centres & {k.args[0] for k in out if k.dimension == ELEMENT and k.kind == "point" and k.args}:
            out = _centre_points(out, centres)
        if sum(k.kind == "on" for k in out) > 2:
            out = _inscribed(out)
        if any(k.kind == "tangent" and len(k.args) == 3 and not k.args[2] for k in out):  # `QT, a tangent to ⊙W, touches it at T`: one tangency
            placed = {k.args[:2] for k in out if k.kind == "tangent" and len(k.args) == 3 and k.args[2]}
            out = [k for k in out if not (k.kind == "tangent" and len(k.args) == 3 and not k.args[2] and k.args[:2] in placed)]
        return KeypointSet(out)

    def _species(self) -> dict[str, str]:
        best: dict[str, str] = {}
        for dimension, kind, args, _, _ in self.pending:
            if dimension == ELEMENT and kind in POLYGON_RANK and args:
                current = best.get(args[0])
                if current is None or POLYGON_RANK[kind] > POLYGON_RANK[current]:
                    best[args[0]] = kind
        return best

    def _vertex_angles(self) -> dict[str, str]:
        """∠B -> ∠ABC when B is a vertex of exactly one named polygon (its interior angle)."""
        resolved: dict[str, set[str]] = {}
        for tokens in self.polygons:
            n = len(tokens)
            for i, vertex in enumerate(tokens):
                full = cn.angle(tokens[i - 1] + vertex + tokens[(i + 1) % n])
                resolved.setdefault(vertex, set()).add(full)
        return {f"∠{v}": next(iter(fulls)) for v, fulls in resolved.items() if len(fulls) == 1}


# Specificity of polygon kinds: a name keeps only its most specific kind.
POLYGON_RANK = {
    "polygon": 0, "triangle": 1, "quadrilateral": 1, "pentagon": 1, "hexagon": 1, "heptagon": 1,
    "octagon": 1, "trapezoid": 2, "parallelogram": 2, "kite": 2, "rectangle": 3, "rhombus": 3,
    "square": 4,
}

# Which kinds a named solid may be called by later (`the prism` for a cuboid ABCD-EFGH).
SOLID_FAMILY = {
    "cube": {"cube", "cuboid", "prism"}, "cuboid": {"cuboid", "prism"}, "prism": {"prism"},
    "pyramid": {"pyramid"}, "tetrahedron": {"tetrahedron", "pyramid"}, "cylinder": {"cylinder"},
    "cone": {"cone"}, "sphere": {"sphere"}, "hemisphere": {"hemisphere"}, "frustum": {"frustum"},
}

SYMMETRIC = {"parallel", "perpendicular", "equal_length", "equal_angle", "concentric", "collinear"}
PAIRED = {"congruent", "similar"}


def _triangular(name: str) -> bool:
    """`P-ABC`: a solid name whose base has three vertices."""
    return "-" in name and len(cn.point_tokens(name.split("-", 1)[1])) == 3 and len(cn.point_tokens(name.split("-", 1)[0])) == 1


_SPECIES = re.compile(r"^(?:cube|cuboid|prism|pyramid|tetrahedron) (?=\S*-)")


def _centre_points(out: list[Keypoint], centres: set[str]) -> list[Keypoint]:
    """Guide rule 4: circle M's centre letter is part of its name; `its centre is M(3, 4)` gives the
    coordinate, not also point M, unless a relation places M (`M lies on AB`)."""
    placed = {a for k in out if k.dimension == RELATION for a in k.args}
    return [k for k in out if not (k.dimension == ELEMENT and k.kind == "point" and k.args and k.args[0] in centres - placed)]


def _inscribed(out: list[Keypoint]) -> list[Keypoint]:
    """`circle O passes through A, B and C` with triangle ABC: the guide's one keypoint, *ABC
    inscribed in ⊙O*, in place of a point on the circle per vertex (each follows from it)."""
    on = {(k.args[0], k.args[1]) for k in out if k.dimension == RELATION and k.kind == "on" and len(k.args) == 2 and k.args[1].startswith("⊙")}
    drop: set[tuple[str, str]] = set()
    for k in [k for k in out if k.dimension == ELEMENT and k.kind in POLYGON_RANK and k.args]:
        tokens = cn.point_tokens(k.args[0])
        for circle in {c for _, c in on}:
            if len(tokens) >= 3 and all((t, circle) in on for t in tokens):
                drop |= {(t, circle) for t in tokens}
                if not any(x.kind == "inscribed" and x.args[:1] == k.args[:1] and circle in x.args for x in out):
                    out.append(Keypoint(RELATION, "inscribed", order_args("inscribed", (k.args[0], circle)), None, "inscribed"))
    return [k for k in out if not (k.kind == "on" and len(k.args) == 2 and (k.args[0], k.args[1]) in drop)] if drop else out


def _endpoint_meeting(args: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """Guide rule 8: a meeting point that is an end of one of the two named segments is a point
    *on* the other (`AD meets BC at D`, `EG交CD于G` -> D on BC, G on CD)."""
    x, y, p = args
    ends = [o for o in (x, y) if o[:1] not in "⊙ℓ" and o.isalnum() and cn.point_tokens(o).count(p) == 1
            and len(cn.point_tokens(o)) == 2]
    if len(ends) == 1:
        return "on", (p, y if ends[0] == x else x)
    return "intersect", args


def order_args(kind: str, args: tuple[str, ...]) -> tuple[str, ...]:
    """Argument order: symmetric relations sorted; intersect sorts its objects (last arg is the
    point); tangent between two circles sorts them; congruent/similar keep the correspondence."""
    if kind in SYMMETRIC:
        return tuple(sorted(args))
    if kind == "intersect" and len(args) >= 3:
        return (*sorted(args[:-1]), args[-1])
    if kind == "tangent" and len(args) == 3 and args[0].startswith("⊙") and args[1].startswith("⊙"):
        return (*sorted(args[:2]), args[2])
    if kind in PAIRED and len(args) == 2:
        return cn.joint_polygons(args, symmetric=True)
    return args


# --------------------------------------------------------------------------- running rules

_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[;。；！？\n]")


def sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) pieces split at . ! ? ; and newlines (not inside 2.5)."""
    out: list[tuple[int, str]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > start:
            out.append((start, text[start : m.start()]))
        start = m.end()
    if start < len(text):
        out.append((start, text[start:]))
    return [(o, s) for o, s in out if s.strip()]


# A clause that denies or supposes a relation states none: `AB is not parallel to CD`, `D is
# not the midpoint`, `the circles do not touch`, `if AB were perpendicular`, `AD与BC不垂直`.
# Clauses end at a comma, `but`, `that`, `which`, `and` before a name, `但`/`而`/`且`; the clause holding the cue is blanked for
# the relation rules only (same length, so offsets hold), its objects stay elements.
_NEGATION_HINT = ("not", "n't", "neither", "never", "nor ", "no ", "if ", "suppose", "false", "untrue", "不", "没有", "并非", "非", "未", "若",
                  "假设")
_NEGATION = re.compile(
    r"(?<![A-Za-z])(?:not|neither|never|nor|no longer|no|isn't|aren't|doesn't|don't|if|suppose|supposing|were it|false|untrue)(?![A-Za-z])"
    r"|n't(?![A-Za-z])|不|没有|并非|非|未|若|假设"
)
_CLAUSE_BREAK = re.compile(r",|，|\bbut\b|\bwhereas\b|\bwhile\b|\bthat\b|\bwhich\b|\band\b(?= [A-Z⊙△∠ℓ])|但|而|且")


def affirmed(pieces: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
    """`pieces` with every negated or hypothetical clause blanked (for the relation rules)."""
    out = []
    for offset, sentence in pieces:
        low = sentence.lower()
        if not any(h in low for h in _NEGATION_HINT) or not _NEGATION.search(low):
            out.append((offset, sentence))
            continue
        cuts = [0, *(m.start() for m in _CLAUSE_BREAK.finditer(sentence)), len(sentence)]
        chars = list(sentence)
        denied = False
        for lo, hi in pairwise(cuts):
            # `not ... that X` denies X too; `X that is not ...` denies only its own clause
            denied = bool(_NEGATION.search(low, lo, hi)) or (denied and low.startswith("that", lo))
            if denied:
                chars[lo:hi] = " " * (hi - lo)
        out.append((offset, "".join(chars)))
    return out


_DENIED_NAME = re.compile(SEG)
UNLISTED_TEXT = "not listed in a reference: "  # `text` of an element only a candidate counts (a denied name, an unwritten plane)


def denied_segments(pieces: Sequence[tuple[int, str]], kept: Sequence[tuple[int, str]], builder: Builder) -> None:
    """A two-letter name written in a denied clause is still written: in a candidate it covers its
    segment (guide, coverage), `AB is not parallel to CD` names segments AB and CD though it states
    no relation. In a reference a bare name lists nothing (guide, rule 6): `match` drops these there."""
    for (_, sentence), (_, blanked) in zip(pieces, kept, strict=True):
        if sentence != blanked:
            for m in _DENIED_NAME.finditer(sentence):
                if blanked[m.start() : m.end()].isspace():
                    builder.element("segment", cn.segment(m.group(0)), text=UNLISTED_TEXT + m.group(0))


WINDOW_BACK = 120  # a match starts at most this far before its trigger word...
WINDOW_FORWARD = 240  # ...and ends at most this far after it


def _windows(sentence_low: str, triggers: tuple[str, ...]) -> list[tuple[int, int]]:
    """Merged, disjoint [lo, hi) spans around every trigger occurrence (total ≤ sentence length)."""
    anchors: list[int] = []
    for trigger in triggers:
        at = sentence_low.find(trigger)
        while at >= 0:
            anchors.append(at)
            at = sentence_low.find(trigger, at + 1)
    anchors.sort()
    spans: list[tuple[int, int]] = []
    for at in anchors:
        lo, hi = max(0, at - WINDOW_BACK), at + WINDOW_FORWARD
        if spans and lo <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], hi))
        else:
            spans.append((lo, hi))
    return spans


def _matches(rule: Rule, sentence: str, sentence_low: str) -> Iterable[re.Match[str]]:
    """`rule.pattern.finditer(sentence)`, but on a long sentence only near the rule's trigger words.

    Every rule's trigger occurs inside its matches, so scanning the merged windows around the
    triggers finds the same matches; it saves trying the pattern at every position of a long
    caption (most of the cost for patterns that start with a name).
    """
    n = len(sentence)
    if n <= 2 * (WINDOW_BACK + WINDOW_FORWARD) or not rule.triggers or len(sentence_low) != n:
        yield from rule.pattern.finditer(sentence)
        return
    for lo, hi in _windows(sentence_low, rule.triggers):
        hi = min(hi, n)
        for m in rule.pattern.finditer(sentence, lo, hi):
            if m.end() >= hi and hi < n:  # cut by the window: match again on the whole sentence
                full = rule.pattern.match(sentence, m.start())
                if full is not None:
                    yield full
                break
            yield m


class RuleSet:
    """Rules indexed by trigger, so a caption checks each distinct trigger string once."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self.always = tuple(i for i, r in enumerate(self.rules) if not r.triggers)
        self.by_trigger: dict[str, list[int]] = {}
        for i, rule in enumerate(self.rules):
            for t in rule.triggers:
                self.by_trigger.setdefault(t, []).append(i)

    def active(self, low: str) -> list[Rule]:
        found = set(self.always)
        for trigger, indices in self.by_trigger.items():
            if trigger in low:
                found.update(indices)
        return [self.rules[i] for i in sorted(found)]


def run_rules(rules: RuleSet, pieces: Sequence[tuple[int, str]], builder: Builder, low: str) -> None:
    """Rules whose triggers occur in the caption (`low`, lower-cased), sentence by sentence."""
    active = rules.active(low)
    if not active:
        return
    several = len(pieces) > 1
    for offset, sentence in pieces:
        sentence_low = sentence.lower() if several else low
        for rule in active:
            if several and rule.triggers and not any(t in sentence_low for t in rule.triggers):
                continue
            for m in _matches(rule, sentence, sentence_low):
                rule.handle(m, builder, offset)


@dataclass(frozen=True, slots=True)
class Sub:
    """One normalising substitution, tried only when one of its trigger strings occurs (it needs one)."""

    triggers: tuple[str, ...]
    pattern: re.Pattern[str]
    repl: object


def sub(triggers: tuple[str, ...], pattern: str, repl: object, flags: int = 0) -> Sub:
    """A `Sub` from its pattern's text, compiled once, when a module builds its table."""
    return Sub(triggers, re.compile(pattern, flags), repl)


def apply_subs(subs: Sequence[Sub], text: str) -> str:
    low = text.lower()
    for sub in subs:
        for trigger in sub.triggers:
            if trigger in low:
                new = sub.pattern.sub(sub.repl, text)  # type: ignore[call-overload]
                if new != text:
                    text, low = new, new.lower()
                break
    return text


# --------------------------------------------------------------------------- equations

@dataclass(frozen=True, slots=True)
class Term:
    kind: str  # seg | angle | qty | num | ratio_names | ratio_nums | scaled | frac_names
    names: tuple[str, ...] = ()
    value: float | None = None
    values: tuple[float, ...] = ()
    raw: str = ""


NUM = r"[-+]?[0-9.√π()/*^+\-]{1,30}"
NUMS = r"[-+]?[0-9.√π()/]{1,12}"
SEG_AFTER_NUMBER = f"(?:{PT}){{2}}{RB}"  # `2CD`: a digit may touch the name here
UNIT = (
    r"(?: ?(?:°|degrees?|deg|rad|radians|cm\^?[23²³]?|mm\^?[23²³]?|km|m\^?[23²³]?|square units|"
    r"sq units|cubic units|units?(?: of length)?|厘米|米|单位长度|度))?"
)
_BAD_FOLLOW = {"from", "away", "more", "less", "times", "longer", "shorter", "than", "greater", "plus", "minus", "x", "y"}


@dataclass(frozen=True)
class TermGrammar:
    """A language's equation terms: the shared notation plus its quantity words (area, 半径...)."""

    qty_pattern: str  # must define groups qk (quantity word) and optionally qref (shape)
    resolve_qty: Callable[[re.Match[str], Builder, int], tuple[str, str, float] | None]
    # compiled from the two above by __post_init__: a term at the end, at the start, alone
    tail: re.Pattern[str] = field(init=False, repr=False, compare=False)
    head: re.Pattern[str] = field(init=False, repr=False, compare=False)
    whole: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        term = (
            f"(?P<ratio_names>{SEG}(?: ?: ?{SEG}){{1,3}})"
            f"|(?P<frac_names>{SEG} ?/ ?{SEG})"
            f"|(?P<scaled>{NUMS} ?\\*? ?{SEG_AFTER_NUMBER})"
            f"|(?P<angle>{ANG})"
            f"|(?P<seg>{SEG})"
            f"|(?P<qty>{self.qty_pattern})"
            f"|(?P<ratio_nums>{NUMC}(?: ?: ?{NUMC}){{1,3}})"
            f"|(?P<num>{NUM}){UNIT}"
        )
        object.__setattr__(self, "tail", re.compile(f"(?:{term}) ?$"))
        object.__setattr__(self, "head", re.compile(f" ?(?:{term})"))
        object.__setattr__(self, "whole", re.compile(f" ?(?:{term}) ?"))


_VAR_TAIL = re.compile(r"[-+0-9.xyz√π()/*^ ]{1,30}$")
_VAR_HEAD = re.compile(r"(?:[-+0-9.√π()/*^ ]|[a-z]{1,2}(?![a-z])){1,40}")
_EQ_STOP = {"at", "is", "to", "of", "in", "on", "as", "by", "it", "or", "an", "a"}
_HAS_VAR = re.compile(r"(?<![A-Za-z])[xy](?![A-Za-z])")


def _term(m: re.Match[str], grammar: TermGrammar, builder: Builder, pos: int) -> Term | None:
    groups = m.groupdict()
    if groups.get("ratio_names"):
        names = tuple(cn.segment(s) for s in groups["ratio_names"].replace(" ", "").split(":"))
        return Term("ratio_names", names, raw=m.group(0))
    if groups.get("frac_names"):
        a, b = groups["frac_names"].replace(" ", "").split("/")
        return Term("frac_names", (cn.segment(a), cn.segment(b)), raw=m.group(0))
    if groups.get("scaled"):
        raw = groups["scaled"]
        seg_m = re.search(f"(?:{PT}){{2}}$", raw)
        if not seg_m:
            return None
        k = cn.parse_number(raw[: seg_m.start()].replace("*", "").strip())
        return None if k is None else Term("scaled", (cn.segment(seg_m.group(0)),), value=k, raw=raw)
    if groups.get("angle"):
        return Term("angle", (cn.angle(groups["angle"]),), raw=groups["angle"])
    if groups.get("seg"):
        return Term("seg", (cn.segment(groups["seg"]),), raw=groups["seg"])
    if groups.get("qty"):
        resolved = grammar.resolve_qty(m, builder, pos)
        if resolved is None:
            return None
        qkind, qref, scale = resolved
        return Term("qty", (qkind, qref), value=scale, raw=groups["qty"])
    if groups.get("ratio_nums"):
        parts = [cn.parse_number(p) for p in groups["ratio_nums"].replace(" ", "").split(":")]
        if any(p is None for p in parts):
            return None
        return Term("ratio_nums", values=tuple(p for p in parts if p is not None), raw=groups["ratio_nums"])
    if groups.get("num"):
        raw = groups["num"].rstrip("+-*/^(")
        while raw.count(")") > raw.count("(") and raw.endswith(")"):
            raw = raw[:-1]
        if not re.search(r"[\dπ]", raw):
            return None
        unit = m.group(0)[m.end("num") - m.start() :].strip()
        return Term("num", raw=raw + (" " + unit if unit else ""))
    return None


def equations(sentence: str, offset: int, grammar: TermGrammar, builder: Builder) -> None:
    """Every chain `t1 = t2 = ... = tn` in a sentence, turned into numerical keypoints."""
    eqs = [i for i, ch in enumerate(sentence) if ch == "="][:MAX_SENTENCE_EQUALS]
    if not eqs:
        return
    chains: list[list[int]] = [[eqs[0]]]
    for prev, cur in pairwise(eqs):
        middle = sentence[prev + 1 : cur]
        if len(middle) <= 60 and "," not in middle and grammar.whole.fullmatch(middle):
            chains[-1].append(cur)
        else:
            chains.append([cur])
    lo = 0
    for chain in chains:
        first, last = chain[0], chain[-1]
        text = sentence[lo:first]
        lo = last + 1
        if _equation_keypoint(sentence, first, last, offset, builder):
            continue
        terms: list[Term] = []
        left = _left_term(text, grammar, builder, offset + first)
        if left is not None:
            terms.append(left)
        for a, b in pairwise(chain):
            m = grammar.whole.fullmatch(sentence[a + 1 : b])
            t = _term(m, grammar, builder, offset + a) if m else None
            if t is not None:
                terms.append(t)
        right = _right_term(sentence[last + 1 : last + 80], grammar, builder, offset + last)
        if right is not None:
            terms.append(right)
        if len(terms) >= 2:
            _chain_keypoints(terms, builder, sentence[max(0, first - 20) : last + 20].strip())


def _left_term(text: str, grammar: TermGrammar, builder: Builder, pos: int) -> Term | None:
    window = text[-70:]
    cut = max(window.rfind(","), window.rfind("，"), window.rfind("、"))
    if cut >= 0:
        window = window[cut + 1 :]
    m = grammar.tail.search(window)
    if m is None:
        return None
    before = window[: m.start()].rstrip()
    if before and (before[-1] in "+-*/^∠△⊙" or (before[-1] == ":" and not window[: m.start()].endswith(" "))):
        return None  # `∠A + ∠B = 90°` is not `∠B = 90°`
    return _term(m, grammar, builder, pos)


def _right_term(text: str, grammar: TermGrammar, builder: Builder, pos: int) -> Term | None:
    m = grammar.head.match(text)
    if m is None:
        return None
    rest = text[m.end() :]
    if rest[:1] and ((rest[0].isalnum() and rest[0].isascii()) or rest[0] in "+-*/^(√π"):
        return None
    stripped = rest.lstrip()
    if stripped[:1] in ("+", "-", "*", "/", "^"):
        return None
    word = stripped.split(" ", 1)[0].lower().strip(",.;") if stripped else ""
    if word in _BAD_FOLLOW:
        return None
    return _term(m, grammar, builder, pos)


def _equation_keypoint(sentence: str, first: int, last: int, offset: int, builder: Builder) -> bool:
    """`y = 2x + 1`, `x^2 + y^2 = 4`: kept as normalised text (compared literally)."""
    left = _VAR_TAIL.search(sentence[max(0, first - 40) : first])
    right = _VAR_HEAD.match(sentence[last + 1 : last + 60])
    if left is None or right is None:
        return False
    lhs = left.group(0).strip()
    words = right.group(0).split(" ")
    while words and (words[-1] in _EQ_STOP or not words[-1]):
        words.pop()  # `y = 2x + 1 at A`: the equation ends before the prose
    rhs = " ".join(words).strip()
    full = f"{lhs}={sentence[first + 1 : last]}={rhs}" if last != first else f"{lhs}={rhs}"
    if not lhs or not rhs or not _HAS_VAR.search(full):
        return False
    norm = full.replace(" ", "").replace("**", "^").replace("*", "").replace("==", "=")
    circle = cn.circle_equation(norm)
    if circle is not None:  # one text per circle: `(y-2)^2+(x-1)^2=2^2` is `(x-1)^2+(y-2)^2=4`
        norm = cn.circle_equation_text(*circle)
    builder.number("equation", value=norm, text=full)
    return True


def _chain_keypoints(terms: list[Term], builder: Builder, text: str) -> None:
    nums = [t for t in terms if t.kind == "num"]
    segs = [t.names[0] for t in terms if t.kind == "seg"]
    angles = [t.names[0] for t in terms if t.kind == "angle"]
    qtys = [t for t in terms if t.kind == "qty"]
    # ratios: AD:DB = 1:2, AD/DB = 1/2, AB = 2CD
    names_ratio = next((t for t in terms if t.kind in ("ratio_names", "frac_names")), None)
    if names_ratio is not None:
        parts: tuple[float, ...] | None = None
        nums_ratio = next((t for t in terms if t.kind == "ratio_nums"), None)
        if nums_ratio is not None:
            parts = nums_ratio.values
        elif nums and names_ratio.kind == "frac_names":
            v = cn.parse_number(nums[-1].raw.split(" ")[0])
            parts = None if v is None else (v, 1.0)
        if parts is not None:
            canon = cn.ratio_value(names_ratio.names, parts)
            if canon:
                builder.number("ratio", *canon[0], value=canon[1], text=text)
        return
    scaled = next((t for t in terms if t.kind == "scaled"), None)
    if scaled is not None and len(segs) == 1 and scaled.value:
        canon = cn.ratio_value((segs[0], scaled.names[0]), (scaled.value, 1.0))
        if canon:
            builder.number("ratio", *canon[0], value=canon[1], text=text)
        return
    raw_value = nums[-1].raw if nums else None
    if raw_value is not None:
        length = cn.parse_length(raw_value)
        for s in segs:
            builder.number("length", s, value=length, text=text)
        if angles:
            degrees = cn.parse_angle(raw_value)
            for a in angles:
                builder.number("angle", a, value=degrees, text=text)
        for q in qtys:
            qkind, qref = q.names
            if length is not None and q.value:
                builder.number(qkind, qref, value=length * q.value, text=text)
    for group, kind in ((segs, "equal_length"), (angles, "equal_angle")):
        unique = list(dict.fromkeys(group))[:MAX_CHAIN_NAMES]
        for a, b in combinations(unique, 2):
            builder.add(NUMERICAL, kind, (a, b), None, text)
