"""Canonical names and values, so that two captions stating the same fact give equal keypoints.

Why here and once: the matcher is exact on canonical forms (fast, deterministic,
explainable). Every notational freedom a caption has is removed by these functions:

- segment / line through two points: unordered (AB = BA), points sorted;
- polygon: cyclic and reversal invariant (ABC = BCA = CBA), the smallest of the 2n
  rotations/reflections as a tuple of point names;
- angle ∠ABC = ∠CBA: the vertex stays in the middle, the two ends are sorted;
- ray AB: ordered (it starts at A);
- arc AB = BA; arc ACB keeps its middle point and sorts the ends;
- paired figures (△ABC ≅ △DEF, cube ABCD-A1B1C1D1): one rotation/reflection applied to
  both at once, so the vertex correspondence survives, then the smallest;
- values: one float, evaluated from `2√3`, `sqrt(3)`, `\\sqrt{12}`, `3/2`, `π/3`...,
  compared by value with a 1e-9 relative tolerance (`values_equal`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from .model import Value

_POINT = re.compile(r"[A-Z]\d{0,2}'{0,2}")
REL_TOL = 1e-9
ABS_TOL = 1e-12


def point_tokens(name: str) -> list[str]:
    """`A1B1C` -> ['A1', 'B1', 'C']: the point names inside a normalised name."""
    return _POINT.findall(name)


def segment(name: str | Sequence[str]) -> str:
    tokens = point_tokens(name) if isinstance(name, str) else list(name)
    return "".join(sorted(tokens))


def _dihedral(tokens: Sequence[str]) -> list[tuple[str, ...]]:
    n = len(tokens)
    forward = tuple(tokens)
    backward = tuple(reversed(tokens))
    return [seq[i:] + seq[:i] for seq in (forward, backward) for i in range(n)]


def polygon(name: str | Sequence[str]) -> str:
    """Smallest rotation or reflection: `BCA` -> `ABC`, `DCBA` -> `ABCD`."""
    tokens = point_tokens(name) if isinstance(name, str) else list(name)
    if len(tokens) < 3:
        return "".join(tokens)
    return "".join(min(_dihedral(tokens)))


def polygon_tokens(name: str) -> tuple[str, ...]:
    tokens = point_tokens(name)
    return min(_dihedral(tokens)) if len(tokens) >= 3 else tuple(tokens)


def joint_polygons(names: Sequence[str], *, symmetric: bool) -> tuple[str, ...]:
    """One rotation/reflection for all names at once (keeps vertex correspondence).

    `symmetric` (congruent, similar) also lets the figures swap places. Names of unequal
    length are canonicalised one by one instead.
    """
    lists = [point_tokens(n) for n in names]
    n = len(lists[0])
    if n < 3 or any(len(t) != n for t in lists):
        out = tuple(polygon(t) for t in lists)
        return tuple(sorted(out)) if symmetric else out
    orders = [lists, list(reversed(lists))] if symmetric and len(lists) == 2 else [lists]
    best: tuple[tuple[str, ...], ...] | None = None
    for order in orders:
        for shift in range(n):
            for rev in (False, True):
                candidate = []
                for tokens in order:
                    seq = list(reversed(tokens)) if rev else tokens
                    candidate.append(tuple(seq[shift:] + seq[:shift]))
                key = tuple(candidate)
                if best is None or key < best:
                    best = key
    assert best is not None
    return tuple("".join(t) for t in best)


def angle(name: str) -> str:
    """`∠CBA` -> `∠ABC`; `∠B`, `∠1`, `∠α` unchanged (with the ∠)."""
    body = name.lstrip("∠").strip()
    tokens = point_tokens(body)
    if len(tokens) == 3 and "".join(tokens) == body:
        a, b, c = tokens
        if c < a:
            a, c = c, a
        return f"∠{a}{b}{c}"
    return f"∠{body}"


def angle_vertex(name: str) -> str | None:
    """The vertex point of a canonical angle, None for a numbered angle such as ∠1."""
    tokens = point_tokens(name)
    if len(tokens) == 3:
        return tokens[1]
    if len(tokens) == 1 and name == f"∠{tokens[0]}":
        return tokens[0]
    return None


def arc(name: str) -> str:
    tokens = point_tokens(name)
    if len(tokens) == 3:
        a, m, b = tokens
        if b < a:
            a, b = b, a
        return f"⌒{a}{m}{b}"
    return "⌒" + "".join(sorted(tokens))


def plane(name: str) -> str:
    body = name.split(" ", 1)[1] if " " in name else name
    tokens = point_tokens(body)
    return "plane " + ("".join(sorted(tokens)) if tokens else body.strip())


def solid_name(kind: str, name: str) -> str:
    """`ABCD-A1B1C1D1` (prism-like: both faces turned together), `P-ABCD` (apex + base),
    `ABCD` for a tetrahedron (any vertex order), otherwise the name as written."""
    name = name.strip()
    if not name:
        return ""
    if "-" in name:
        left, right = name.split("-", 1)
        lt, rt = point_tokens(left), point_tokens(right)
        if len(lt) == 1 and len(rt) >= 3:
            return f"{lt[0]}-{polygon(rt)}"
        if len(lt) == len(rt) >= 3:
            a, b = joint_polygons([left, right], symmetric=False)
            c, d = joint_polygons([right, left], symmetric=False)
            return min(f"{a}-{b}", f"{d}-{c}")
        return name
    tokens = point_tokens(name)
    if kind == "tetrahedron" and len(tokens) == 4:
        return "".join(sorted(tokens))
    return "".join(tokens) if tokens else name


def ref(text: str) -> str:
    """Canonical reference string of one object as written in a caption (see `model`)."""
    text = text.strip()
    if not text:
        return ""
    head = text[0]
    if head == "⊙":
        return "⊙" + text[1:].strip()
    if head == "∠":
        return angle(text)
    if head == "⌒":
        return arc(text)
    if head == "△":
        return polygon(text[1:])
    if head == "ℓ" or text.endswith("-axis"):
        return text
    if text.startswith("plane"):
        return plane(text)
    tokens = point_tokens(text)
    if len(tokens) == 2:
        return "".join(sorted(tokens))
    if len(tokens) >= 3:
        return polygon(tokens)
    return "".join(tokens) or text


# --------------------------------------------------------------------------- values

_NUM_TOKEN = re.compile(r"\d+(?:\.\d*)?|\.\d+|[√π()+\-*/^]")
MAX_VALUE_CHARS = 80
_MAX_DEPTH = 12


class _Fail(Exception):
    pass


class _Evaluator:
    """Recursive descent over +, -, *, /, ^, √, π, parentheses and implicit products (2√3)."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> str:
        tok = self.peek()
        if tok is None:
            raise _Fail
        self.i += 1
        return tok

    def expr(self) -> float:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            rhs = self.term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self) -> float:
        value = self.unary()
        while True:
            tok = self.peek()
            if tok in ("*", "/"):
                self.take()
                rhs = self.unary()
                if tok == "*":
                    value *= rhs
                else:
                    if rhs == 0:
                        raise _Fail
                    value /= rhs
            elif tok is not None and (tok[0].isdigit() or tok[0] == "." or tok in ("√", "π", "(")):
                value *= self.power()  # implicit product: 2√3, 3π, 2(1+√2)
            else:
                return value

    def unary(self) -> float:
        tok = self.peek()
        if tok in ("-", "+"):
            self.take()
            inner = self.unary()
            return -inner if tok == "-" else inner
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self.peek() == "^":
            self.take()
            exponent = self.unary()
            if abs(exponent) > 12 or (base < 0 and exponent != int(exponent)):
                raise _Fail
            return float(base**exponent)
        return base

    def atom(self) -> float:
        tok = self.take()
        if tok == "(":
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise _Fail
            value = self.expr()
            if self.take() != ")":
                raise _Fail
            self.depth -= 1
            return value
        if tok == "π":
            return math.pi
        if tok == "√":
            inner = self.power()
            if inner < 0:
                raise _Fail
            return math.sqrt(inner)
        if tok[0].isdigit() or tok[0] == ".":
            return float(tok)
        raise _Fail


def parse_number(text: str) -> float | None:
    """Value of a closed form such as `5`, `2.5`, `3/2`, `2√3`, `√(3)`, `sqrt(3)`, `π/3`.

    None when it is not one (letters, unbalanced parentheses, division by zero), so a
    caption's value either parses exactly or is ignored; never raises, never loops.
    """
    text = text.strip().replace(" ", "").replace("sqrt", "√").replace("pi", "π")
    text = text.replace("×", "*").replace("·", "*").replace("−", "-")
    if not text or len(text) > MAX_VALUE_CHARS:
        return None
    tokens = _NUM_TOKEN.findall(text)
    if "".join(tokens) != text:
        return None
    try:
        evaluator = _Evaluator(tokens)
        value = evaluator.expr()
        if evaluator.i != len(tokens):
            return None
    except (_Fail, OverflowError, ValueError, ZeroDivisionError):
        return None
    return value if math.isfinite(value) else None


_UNIT_TAIL = re.compile(
    r"(?:\s*(?:cm\^?[23²³]?|mm\^?[23²³]?|km|m\^?[23²³]?|units?(?: of length)?|unit lengths?|square units|"
    r"sq\.? units|cubic units|厘米|米|单位))$"
)


def parse_angle(text: str) -> float | None:
    """Degrees from `60°`, `60 degrees`, `60`, `π/3` (radians when π and no degree sign)."""
    text = text.strip()
    radians = False
    if text.endswith("rad") or text.endswith("radians"):
        text = text.removesuffix("radians").removesuffix("rad")
        radians = True
    degree = "°" in text or "度" in text
    text = text.replace("°", "").replace("度", "")
    text = re.sub(r"\s*(?:degrees?|deg)$", "", text)
    value = parse_number(text)
    if value is None:
        return None
    if radians or ("π" in text and not degree):
        return value * 180.0 / math.pi
    return value


def parse_length(text: str) -> float | None:
    """A length/area/volume value with its unit dropped: `5 cm` -> 5.0, `12 square units` -> 12.0."""
    return parse_number(_UNIT_TAIL.sub("", text.strip()))


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


_POLY_TERM = re.compile(r"([+-]?)(\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)?)?\*?(x\^2|y\^2|xy|x|y)?(?:/(\d+(?:\.\d+)?))?")


def _number(text: str) -> float:
    top, _, bottom = text.partition("/")
    return float(top) / float(bottom) if bottom else float(top)


def polynomial(equation: str) -> dict[str, float] | None:
    """Coefficients of `left − right` for an equation of degree ≤ 2 in x and y written as a sum of
    terms (`y=x+2`, `x-y+2=0`, `x^2/4+y^2=1`); None for anything else (parentheses, roots, π)."""
    if equation.count("=") != 1 or len(equation) > 80:
        return None
    coeffs: dict[str, float] = {}
    for side, sign in zip(equation.split("="), (1.0, -1.0), strict=True):
        pos = 0
        while pos < len(side):
            m = _POLY_TERM.match(side, pos)
            if m is None or m.end() == pos or not (m.group(2) or m.group(3)):
                return None
            if pos > 0 and not m.group(1):
                return None
            try:
                value = (_number(m.group(2)) if m.group(2) else 1.0) / (float(m.group(4)) if m.group(4) else 1.0)
            except (ValueError, ZeroDivisionError):
                return None
            monomial = m.group(3) or ""
            coeffs[monomial] = coeffs.get(monomial, 0.0) + sign * (-value if m.group(1) == "-" else value)
            pos = m.end()
    return coeffs if any(abs(v) > ABS_TOL for k, v in coeffs.items() if k) else None


def same_equation(a: str, b: str) -> bool:
    """Two equations of degree ≤ 2 with proportional coefficients (`y=x+2` and `x-y+2=0`)."""
    pa, pb = polynomial(a), polynomial(b)
    if pa is None or pb is None:
        return False
    keys = set(pa) | set(pb)
    pivot = max(keys, key=lambda k: abs(pa.get(k, 0.0)))
    if abs(pa.get(pivot, 0.0)) <= ABS_TOL or abs(pb.get(pivot, 0.0)) <= ABS_TOL:
        return False
    scale = pb[pivot] / pa[pivot]
    return all(close(pa.get(k, 0.0) * scale, pb.get(k, 0.0)) for k in keys)


def values_equal(a: Value, b: Value) -> bool:
    """Values compare by value (1e-9 relative): 2√3 = √12 = 3.4641016151377544, 0.5 = 1/2.

    A rounded decimal (1.732) is *not* √3: a caption that gives a figure's value states
    it exactly or states a different claim.
    """
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) and isinstance(b, str):  # an equation in another equivalent form is the same equation
        return a == b or ("=" in a and "=" in b and same_equation(a, b))
    if isinstance(a, str) or isinstance(b, str):
        return False
    if isinstance(a, tuple) or isinstance(b, tuple):
        if not (isinstance(a, tuple) and isinstance(b, tuple)) or len(a) != len(b):
            return False
        return all(close(x, y) for x, y in zip(a, b, strict=True))
    return close(a, b)


def ratio_value(names: Sequence[str], parts: Sequence[float]) -> tuple[tuple[str, ...], tuple[float, ...]] | None:
    """Canonical ratio: names sorted, parts reordered with them and scaled so the first is 1.

    `AD:DB = 1:2` and `DB:AD = 2:1` and `AD:DB = 2:4` give the same keypoint.
    """
    if len(names) != len(parts) or len(names) < 2 or any(p == 0 for p in parts):
        return None
    pairs = sorted(zip(names, parts, strict=True))
    first = pairs[0][1]
    return tuple(n for n, _ in pairs), tuple(p / first for _, p in pairs)


def proportion(parts: Sequence[float]) -> tuple[float, ...]:
    """Parts scaled so the first is 1 (the canonical form `ratio_value` produces)."""
    if not parts or parts[0] == 0:
        return tuple(parts)
    return tuple(p / parts[0] for p in parts)


# --------------------------------------------------------------------------- relation types

class RelationType:
    """One canonical relation: its keypoint kind, argument types, whether the arguments are
    unordered, example surface forms in English and Chinese (each parses to this kind: tested),
    a negated form that must not, and the facts it implies for matching (`derive.closure`)."""

    __slots__ = ("args", "en", "implies", "kind", "negated", "symmetric", "zh")

    def __init__(self, kind: str, args: str, *, symmetric: bool = False, en: tuple[str, ...] = (),
                 zh: tuple[str, ...] = (), negated: tuple[str, ...] = (), implies: str = "") -> None:
        self.kind, self.args, self.symmetric = kind, args, symmetric
        self.en, self.zh, self.negated, self.implies = en, zh, negated, implies


_REL_LIST = (
    RelationType("parallel", "line, line", symmetric=True,
                 en=("AB ∥ CD.", "AB is parallel to CD.", "DE runs parallel to BC.", r"$AB \parallel CD$.",
                     "Lines AB and CD are parallel to each other.", "Lines s and t are both parallel to line u.",
                     "g // h.", "line g is parallel to h.", "Through E a line is drawn parallel to FG, meeting FH at J."),
                 zh=("AB∥CD。", "AB与CD平行。", "AB和CD互相平行。", "直线g∥h。"), negated=("AB is not parallel to CD.", "AB与CD不平行。", "It is not the case that AB ∥ CD.",
                          "AB∥CD不成立。")),
    RelationType("perpendicular", "line, line|plane", symmetric=True,
                 en=("AB ⊥ CD.", "AB is perpendicular to CD.", "Line m is at right angles to line n.",
                     r"$m \perp n$ at $O$.", "AB and CD are perpendicular to each other.", "AB meets CD at a right angle.",
                     "Lines m and n cross at right angles at O.", "The perpendicular from C to AB has its foot at D.",
                     "PA is perpendicular to the base ABC.", "The edge KK1 is perpendicular to the face KLMN.",
                     "g ⊥ h.", "Lines g and h are perpendicular at S.", "The perpendicular from K to LM is drawn, meeting it at N.",
                     "The line through E perpendicular to FG meets FG at J."),
                 zh=("AB⊥CD。", "AB垂直于CD。", "AB与CD互相垂直。", "直线m与直线n垂直，垂足为O。", "过点E作FG的垂线，垂足为H。", "点P在直线g上，g⊥h。"), negated=("AB is not perpendicular to CD.", "AD与BC不垂直。", "AB ⊥ CD does not hold.",
                          "AB⊥CD不成立。"),
                 implies="the right angle between them (and the other way round)"),
    RelationType("tangent", "line|circle, circle, point", en=("Line l is tangent to circle O at A.",
                 "Line l touches circle O at A.", "The line l touches circle O, whose radius is 3, at A.",
                 "Line l is tangent to circle O, and the point of tangency is A.",
                 "The point of tangency of line l and circle O is A.", "AB has exactly one point E in common with circle O.",
                 "Tangents from T touch circle W at M and N.", "Circle K touches QR, RP and PQ at X, Y and Z respectively.",
                 "Circles Q and R are tangent externally at T.",
                 "Circle W has radius 2, and the line g is tangent to it at K.", "Circle W is drawn; it touches line g at K."),
                 zh=("直线l与⊙O相切于点A。", "PA切⊙O于点A。", "直线PA与⊙O只有一个公共点A。", "直线l与⊙O相切，切点为A。",
                     "KL是⊙Q的切线，切点为K。", "⊙I与BC、CA、AB分别相切于点D、E、F。"),
                 negated=("Line l is not tangent to circle O.", "PA不与⊙O相切。", "Line l does not touch circle O.",
                          "It is not true that line l is tangent to circle O at A.")),
    RelationType("on", "point, line|circle|plane|axis|conic", en=("P lies on line l.", "D is on BC.", r"$P \in l$, line l.",
                 "Line l goes through the point P.", "P is a point of circle O.", "K and L lie on PQ and PR respectively.",
                 "The circle x^2 + y^2 = 9 meets the positive x-axis at K.", r"$K \in g$ and $g \perp h$."),
                 zh=("点P在直线l上。", "直线l经过点P。", "点E、F分别在AB、AC上。", "点P在椭圆上。", "P是抛物线上一点。"),
                 negated=("P does not lie on line l.",)),
    RelationType("midpoint", "point, segment", en=("D is the midpoint of BC.", "M is the midpoint of AB.", "Point D bisects segment BC.", "D is the middle point of BC.",
                     "D is the point halfway between B and C.", "Point D divides BC into two equal parts.",
                     "Triangle ABC has D as the midpoint of BC.", "M midpoint of AB; CM drawn.", "E = midpoint of BC."),
                 zh=("D是BC的中点。", "BC的中点为D。"), negated=("D is not the midpoint of BC.", "D不是BC的中点。", "We do not know that D is the midpoint of BC."),
                 implies="the point on the segment; with a vertex joined, a median; "
                         "D on BC with BD = DC states it"),
    RelationType("intersect", "object, object, point", symmetric=True,
                 en=("AC and BD meet at O.", "Line EF crosses AB at G.", "AC ∩ BD = O.", "AC ∩ BD = {O}.",
                     "A = l ∩ x-axis, line l.", "AB and CD are chords of circle O meeting at P.",
                     "Lines p and q meet line r at M and N respectively.", "The diagonals of square KLMN intersect at T.",
                     "g ∥ h, and k crosses g at S.", "Line k, y = 3x + 2, meets the y-axis at R; it crosses the x-axis at S."),
                 zh=("AC与BD相交于点O。", "AC与BD的交点为O。", "⊙O1和⊙O2有两个交点，分别记为A和B。", "AC∩BD=O。"),
                 negated=("AB and CD do not intersect.",), implies="the point on both objects"),
    RelationType("foot", "point, line", en=("CD ⊥ AB at D.", "CD ⊥ AB, foot D.", "CD is perpendicular to AB, with foot D."),
                 zh=("CD⊥AB于点D。", "CD⊥AB，垂足为D。"),
                 implies="the point on the line"),
    RelationType("angle_bisector", "line", en=("BD bisects ∠ABC.", "BD divides ∠ABC into two equal angles."),
                 zh=("BD平分∠ABC。",),
                 negated=("BD does not bisect ∠ABC.",), implies="∠ABD = ∠DBC states it"),
    RelationType("median", "segment", en=("In triangle ABC, AD is the median to BC.",
                 "In △ABC, the median from A meets BC at its midpoint D."),
                 zh=("在△ABC中，AD是BC边上的中线。",), implies="the midpoint of the opposite side"),
    RelationType("altitude", "segment", en=("In triangle ABC, AD is the altitude to BC.",
                 "In △ABC, the altitude from A to BC is AD.", "In triangle KLM, the median KT is also the altitude."),
                 zh=("在△ABC中，AD是BC边上的高。",), implies="perpendicular to the side, the foot on it"),
    RelationType("perpendicular_bisector", "line, segment", en=("Line l is the perpendicular bisector of AB.",),
                 zh=("直线l是AB的垂直平分线。", "直线l垂直平分AB。")),
    RelationType("chord", "segment, circle", en=("AB is a chord of circle O.", "AB is one of the chords of circle O."),
                 zh=("AB是⊙O的弦。", "⊙O的弦AB、CD相交于点P。"),
                 implies="a segment with both ends on a circle is a chord of it"),
    RelationType("diameter", "segment, circle", en=("AB is a diameter of circle O.",
                 "In circle O, the chord AB passing through O is a diameter."), zh=("AB是⊙O的直径。",),
                 negated=("AB is a chord of circle O but not a diameter.",)),
    RelationType("inscribed", "figure, figure", en=("Triangle ABC is inscribed in circle O.",
                 "Circle O is inscribed in triangle ABC.", "The incircle O of triangle ABC has radius 1.",
                 "The vertices of triangle ABC all lie on circle O.", "Circle O passes through all three vertices of triangle ABC.",
                 "Circle O is drawn through the vertices A, B and C of triangle ABC."),
                 zh=("△ABC内接于⊙O。", "⊙O是△ABC的内切圆。", "球内切于立方体。", "正方体的外接球。"),
                 implies="a polygon in a circle puts each vertex on it; every vertex on the circle states it"),
    RelationType("concentric", "circle, circle", symmetric=True, en=("Two concentric circles have centre O.",),
                 zh=("两个同心圆的圆心为O。",)),
    RelationType("congruent", "figure, figure", symmetric=True,
                 en=("Triangle ABC is congruent to triangle DEF.", r"$\triangle ABC \cong \triangle DEF$."),
                 zh=("△ABC≌△DEF。", "△ABC和△DEF全等。"), negated=("Triangles ABC and DEF are not congruent.", "△ABC与△DEF不全等。")),
    RelationType("similar", "figure, figure", symmetric=True, en=("Triangle ABC is similar to triangle DEF.",),
                 zh=("△ABC∽△DEF。",)),
    RelationType("collinear", "points", symmetric=True, en=("Points A, B and C are collinear.", "A, B, C collinear."),
                 zh=("点A、B、C共线。", "点A、B、C在同一直线上。"), negated=("Points A, B and C are not collinear.", "A, B, C collinear does not hold.")),
    RelationType("centroid", "point, triangle", en=("G is the centroid of triangle ABC.",),
                 zh=("G是△ABC的重心。",), implies="two medians meeting there"),
    RelationType("focus", "point, conic", en=("F1 and F2 are the foci of the ellipse.", "The ellipse x^2/9 + y^2/5 = 1 has foci F1 and F2.",
                 "F is the focus of the parabola."), zh=("椭圆的左、右焦点分别为F1、F2。", "点F是抛物线的焦点。")),
    RelationType("vertex", "point, conic", en=("D is the vertex of the parabola.", "The parabola y = x^2 - 2x meets the x-axis at O; its vertex is D."),
                 zh=("抛物线y=x^2-2x的顶点为D。",)),
    RelationType("apex", "point, cone", en=("A cone has apex P.", "P is the apex of the cone."), zh=("圆锥的顶点为P。",)),
    RelationType("base", "circle, cone", en=("A cone has apex P and base circle O.", "Circle O is the base of the cone.",
                 "The tip of the cone is P, and its base is the circle O."),
                 zh=("圆锥的底面圆为⊙O。",)),
    RelationType("directrix", "line, conic", en=("The parabola y^2 = 4x has focus F(1, 0) and directrix l.", "Line l is the directrix of the parabola."),
                 zh=("抛物线y^2=4x的准线为直线l。",)),
    RelationType("property", "figure (isosceles, right, equilateral, regular)",
                 en=("Triangle ABC is isosceles.", "In right triangle ABC, ∠C = 90°."), zh=("等腰△ABC中，AB=AC。",)),
)
RELATIONS: dict[str, RelationType] = {r.kind: r for r in _REL_LIST}
"""The canonical relation set: matching compares these kinds with canonical arguments, never text."""


# --------------------------------------------------------------------------- circle equations

_NUM_RE = r"\d+(?:\.\d+)?"
_X_TERM = rf"(?:x\^2|\(x(?P<{{g}}>[+-]{_NUM_RE})\)\^2)"
_CIRCLE_EQ = re.compile(
    rf"(?:{_X_TERM.format(g='a')}\+{_X_TERM.replace('x', 'y').format(g='b')}"
    rf"|{_X_TERM.replace('x', 'y').format(g='b2')}\+{_X_TERM.format(g='a2')})=(?P<r>{_NUM_RE})(?P<sq>\^2)?"
)


_EXPANDED = re.compile(r"x\^2\+y\^2(?P<dx>[+-](?:\d{1,6}(?:\.\d{1,6})?)?x)?(?P<dy>[+-](?:\d{1,6}(?:\.\d{1,6})?)?y)?"
                       r"(?P<f>[+-]\d{1,6}(?:\.\d{1,6})?)?=(?P<rhs>-?\d{1,6}(?:\.\d{1,6})?)")


def _coefficient(term: str | None) -> float:
    if not term:
        return 0.0
    digits = term[1:-1]
    return (-1.0 if term[0] == "-" else 1.0) * (float(digits) if digits else 1.0)


def _expanded_circle(text: str) -> tuple[float, float, float] | None:
    """`x^2+y^2-2x+4y-4=0`: completing the squares gives centre (1, -2) and radius 3."""
    m = _EXPANDED.fullmatch(text)
    if m is None or not (m.group("dx") or m.group("dy")):
        return None
    a, b = -_coefficient(m.group("dx")) / 2, -_coefficient(m.group("dy")) / 2
    r2 = a * a + b * b - float(m.group("f") or 0) + float(m.group("rhs"))
    return (a + 0.0, b + 0.0, math.sqrt(r2)) if r2 > 0 else None


def circle_equation(text: str) -> tuple[float, float, float] | None:
    """(a, b, r) of a circle equation written `(x − a)^2 + (y − b)^2 = r^2` or expanded
    (`x^2 + y^2 + Dx + Ey + F = 0`; normalised: no spaces), else None."""
    m = _CIRCLE_EQ.fullmatch(text)
    if m is None:
        return _expanded_circle(text)
    shift_x, shift_y = m.group("a") or m.group("a2"), m.group("b") or m.group("b2")
    r = float(m.group("r")) if m.group("sq") else math.sqrt(float(m.group("r")))
    if r <= 0:
        return None
    return (-float(shift_x) if shift_x else 0.0), (-float(shift_y) if shift_y else 0.0), r


def _short(x: float) -> str:
    return f"{x:.10g}"


def circle_equation_text(a: float, b: float, r: float) -> str:
    """The one normalised text of the circle with centre (a, b) and radius r: `(x-1)^2+(y-2)^2=4`."""
    def term(var: str, c: float) -> str:
        if c == 0:
            return f"{var}^2"
        return f"({var}{'-' if c > 0 else '+'}{_short(abs(c))})^2"
    return f"{term('x', a)}+{term('y', b)}={_short(r * r)}"
