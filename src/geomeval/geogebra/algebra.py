"""Expressions in x and y: what equations (`c: x^2 + y^2 = 25`) and functions (`f(x) = 2x + 1`)
are made of.

GeoGebra turns an equation into a line, a conic or an implicit curve by reading it as a
polynomial in x and y, and a function into something it can evaluate, differentiate and
solve. Both start here as a small expression tree (`Sym`) over numbers and the variables x
and y, built while the executor evaluates the line with x and y left symbolic; labels are
replaced by their current values, so a redefinition recomputes the tree. Trees are bounded
(node count and depth) because the text they come from is untrusted, and nothing is ever
`eval`ed.
"""

from __future__ import annotations

import math
from collections.abc import Callable

Node = tuple  # ("n", v) | ("x",) | ("y",) | (op, a, b) | ("neg", a) | ("f", name, a)
Poly = dict[tuple[int, int], float]  # (power of x, power of y) -> coefficient

MAX_NODES = 5_000
MAX_DEPTH = 200
MAX_DEGREE = 8
_BINARY = ("+", "-", "*", "/", "^")


class AlgebraError(ValueError):
    """An expression in x and y that GeoGebra would refuse, or one over our bounds."""


def _safe_pow(a: float, b: float) -> float:
    try:
        result = a**b
    except (OverflowError, ZeroDivisionError):
        return math.nan
    return result if isinstance(result, float) else math.nan


# The one-argument functions GeoGebra knows, shared with the executor's numeric evaluation.
MATH: dict[str, Callable[[float], float]] = {
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "arcsin": math.asin,
    "acos": math.acos,
    "arccos": math.acos,
    "atan": math.atan,
    "arctan": math.atan,
    "abs": abs,
    "exp": math.exp,
    "ln": math.log,
    "log": math.log,
    "lg": math.log10,
    "ld": math.log2,
    "floor": math.floor,
    "ceil": math.ceil,
    "round": round,
    "sgn": lambda v: float((v > 0) - (v < 0)),
    "sign": lambda v: float((v > 0) - (v < 0)),
    "cbrt": lambda v: math.copysign(abs(v) ** (1 / 3), v),
}


class Sym:
    """An expression tree in x and y, with its size and depth kept to bound later work."""

    __slots__ = ("depth", "node", "size")

    def __init__(self, node: Node, size: int = 1, depth: int = 1) -> None:
        if size > MAX_NODES:
            raise AlgebraError(f"expression in x and y has more than {MAX_NODES} terms")
        if depth > MAX_DEPTH:
            raise AlgebraError(f"expression in x and y nested more than {MAX_DEPTH} levels")
        self.node = node
        self.size = size
        self.depth = depth

    def __repr__(self) -> str:
        return f"Sym({self.node!r})"

    def has(self, var: str) -> bool:
        return _has(self.node, var)

    def __call__(self, x: float, y: float = 0.0) -> float:
        return evaluate(self.node, x, y)


X = Sym(("x",))
Y = Sym(("y",))


def _has(node: Node, var: str) -> bool:
    tag = node[0]
    if tag == var:
        return True
    if tag in _BINARY:
        return _has(node[1], var) or _has(node[2], var)
    if tag == "neg":
        return _has(node[1], var)
    if tag == "f":
        return _has(node[2], var)
    return False


def const(value: float) -> Sym:
    return Sym(("n", float(value)))


def lift(value: Sym | float) -> Sym:
    return value if isinstance(value, Sym) else const(value)


def combine(op: str, a: Sym | float, b: Sym | float) -> Sym:
    """`a op b` as a tree (op one of + - * / ^)."""
    left, right = lift(a), lift(b)
    return Sym(
        (op, left.node, right.node), left.size + right.size + 1, max(left.depth, right.depth) + 1
    )


def negate(a: Sym) -> Sym:
    return Sym(("neg", a.node), a.size + 1, a.depth + 1)


def apply(name: str, a: Sym) -> Sym:
    if name not in MATH:
        raise AlgebraError(f"{name}() cannot take x or y")
    return Sym(("f", name, a.node), a.size + 1, a.depth + 1)


def substitute(body: Sym, arg: Sym | float) -> Sym:
    """`body` with x replaced by `arg` (calling a function on an expression: f(x + 1))."""
    sub = lift(arg)
    size = body.size * max(1, sub.size)
    if size > MAX_NODES:  # checked before building: composing could multiply sizes
        raise AlgebraError(f"expression in x and y has more than {MAX_NODES} terms")
    return Sym(_subst(body.node, sub.node), size, body.depth + sub.depth)


def _subst(node: Node, arg: Node) -> Node:
    tag = node[0]
    if tag == "x":
        return arg
    if tag in _BINARY:
        return (tag, _subst(node[1], arg), _subst(node[2], arg))
    if tag == "neg":
        return ("neg", _subst(node[1], arg))
    if tag == "f":
        return ("f", node[1], _subst(node[2], arg))
    return node


def evaluate(node: Node, x: float, y: float = 0.0) -> float:
    """The expression's value at (x, y); NaN where it is undefined (sqrt(-1), 1/0)."""
    tag = node[0]
    if tag == "n":
        return node[1]
    if tag == "x":
        return x
    if tag == "y":
        return y
    if tag == "neg":
        return -evaluate(node[1], x, y)
    if tag == "f":
        inner = evaluate(node[2], x, y)
        try:
            return float(MATH[node[1]](inner))
        except (ValueError, OverflowError, ZeroDivisionError):
            return math.nan
    a = evaluate(node[1], x, y)
    b = evaluate(node[2], x, y)
    if tag == "+":
        return a + b
    if tag == "-":
        return a - b
    if tag == "*":
        return a * b
    if tag == "/":
        return a / b if b != 0 else math.nan
    return _safe_pow(a, b)


# Node evaluations one command may spend on sampling a function (roots by scanning, graphs).
EVAL_BUDGET = 2_000_000


def sample_count(body: Sym | None, wanted: int) -> int:
    """How many samples of `body` fit the evaluation budget (at least 50)."""
    size = body.size if body is not None else 1
    return max(50, min(wanted, EVAL_BUDGET // max(size, 1)))


# --- polynomials ---------------------------------------------------------------------------


def degree(poly: Poly) -> int:
    return max((i + j for (i, j), c in poly.items() if c != 0), default=0)


def _padd(p: Poly, q: Poly, sign: float = 1.0) -> Poly:
    out = dict(p)
    for key, value in q.items():
        out[key] = out.get(key, 0.0) + sign * value
    return out


def _pmul(p: Poly, q: Poly) -> Poly | None:
    out: Poly = {}
    for (i1, j1), a in p.items():
        for (i2, j2), b in q.items():
            if i1 + j1 + i2 + j2 > MAX_DEGREE and a * b != 0:
                return None
            key = (i1 + i2, j1 + j2)
            out[key] = out.get(key, 0.0) + a * b
    return out


def to_poly(node: Node) -> Poly | None:
    """The expression as a polynomial in x and y (None if it is not one, or too large)."""
    tag = node[0]
    if tag == "n":
        return {(0, 0): node[1]}
    if tag == "x":
        return {(1, 0): 1.0}
    if tag == "y":
        return {(0, 1): 1.0}
    if tag == "neg":
        inner = to_poly(node[1])
        return None if inner is None else {k: -v for k, v in inner.items()}
    if tag == "f":
        if _has(node[2], "x") or _has(node[2], "y"):
            return None
        return {(0, 0): evaluate(node, 0.0, 0.0)}
    a = to_poly(node[1])
    if a is None:
        return None
    if tag == "^":
        if _has(node[2], "x") or _has(node[2], "y"):
            return None
        exponent = evaluate(node[2], 0.0, 0.0)
        if degree(a) == 0:
            return {(0, 0): _safe_pow(a.get((0, 0), 0.0), exponent)}
        if exponent != int(exponent) or not 0 <= exponent <= MAX_DEGREE:
            return None
        out: Poly | None = {(0, 0): 1.0}
        for _ in range(int(exponent)):
            out = _pmul(out, a) if out is not None else None
        return out
    b = to_poly(node[2])
    if b is None:
        return None
    if tag == "+":
        return _padd(a, b)
    if tag == "-":
        return _padd(a, b, -1.0)
    if tag == "*":
        return _pmul(a, b)
    # division: only by a constant
    if degree(b) != 0:
        return None
    divisor = b.get((0, 0), 0.0)
    if divisor == 0:
        return None
    return {k: v / divisor for k, v in a.items()}


def clean(poly: Poly) -> Poly:
    """Drop the zero coefficients."""
    return {k: v for k, v in poly.items() if v != 0}


def univariate(poly: Poly) -> list[float]:
    """Coefficients of a polynomial in x alone, constant first."""
    n = degree(poly)
    coeffs = [0.0] * (n + 1)
    for (i, _j), c in poly.items():
        coeffs[i] += c
    return coeffs


def real_roots(coeffs: list[float]) -> list[float]:
    """The real roots, ascending, of sum(c_k x^k) (constant first); repeated roots once."""
    import numpy as np

    while coeffs and coeffs[-1] == 0:
        coeffs = coeffs[:-1]
    if len(coeffs) < 2:
        return []
    scale = max(abs(c) for c in coeffs)
    roots = np.roots([c / scale for c in reversed(coeffs)])
    out: list[float] = []
    for r in sorted(roots, key=lambda z: z.real):
        if abs(r.imag) > 1e-7 * max(1.0, abs(r.real)):
            continue
        x = _polish(coeffs, float(r.real))
        if not out or abs(x - out[-1]) > 1e-7 * max(1.0, abs(x)):
            out.append(x)
    return out


def _polish(coeffs: list[float], x: float) -> float:
    """A few Newton steps, so a root is good to the last digits GeoGebra shows."""
    for _ in range(4):
        value = 0.0
        slope = 0.0
        for c in reversed(coeffs):
            slope = slope * x + value
            value = value * x + c
        if slope == 0 or not math.isfinite(value):
            break
        step = value / slope
        if not math.isfinite(step) or abs(step) > 1e-3 * max(1.0, abs(x)):
            break
        x -= step
    return x


# --- derivatives ---------------------------------------------------------------------------


def derivative(body: Sym) -> Sym:
    """d/dx of a function body, simplified a little (constants folded)."""
    node = _d(body.node)
    return Sym(node, _count(node), _depth(node))


def _count(node: Node) -> int:
    tag = node[0]
    if tag in _BINARY:
        return 1 + _count(node[1]) + _count(node[2])
    if tag == "neg":
        return 1 + _count(node[1])
    if tag == "f":
        return 1 + _count(node[2])
    return 1


def _depth(node: Node) -> int:
    tag = node[0]
    if tag in _BINARY:
        return 1 + max(_depth(node[1]), _depth(node[2]))
    if tag == "neg":
        return 1 + _depth(node[1])
    if tag == "f":
        return 1 + _depth(node[2])
    return 1


def _mk(op: str, a: Node, b: Node) -> Node:
    if a[0] == "n" and b[0] == "n":
        return ("n", evaluate((op, a, b), 0.0))
    if op == "*":
        if (a[0] == "n" and a[1] == 0) or (b[0] == "n" and b[1] == 0):
            return ("n", 0.0)
        if a[0] == "n" and a[1] == 1:
            return b
        if b[0] == "n" and b[1] == 1:
            return a
    if op in "+-" and b[0] == "n" and b[1] == 0:
        return a
    if op == "+" and a[0] == "n" and a[1] == 0:
        return b
    return (op, a, b)


_ZERO: Node = ("n", 0.0)
_ONE: Node = ("n", 1.0)


def _d(node: Node) -> Node:
    tag = node[0]
    if tag in ("n", "y"):
        return _ZERO
    if tag == "x":
        return _ONE
    if tag == "neg":
        inner = _d(node[1])
        return ("n", -inner[1]) if inner[0] == "n" else ("neg", inner)
    if tag in "+-" and len(tag) == 1:
        return _mk(tag, _d(node[1]), _d(node[2]))
    if tag == "*":
        a, b = node[1], node[2]
        return _mk("+", _mk("*", _d(a), b), _mk("*", a, _d(b)))
    if tag == "/":
        a, b = node[1], node[2]
        top = _mk("-", _mk("*", _d(a), b), _mk("*", a, _d(b)))
        return _mk("/", top, _mk("*", b, b))
    if tag == "^":
        a, b = node[1], node[2]
        if not _has(b, "x"):
            return _mk("*", _mk("*", b, ("^", a, _mk("-", b, _ONE))), _d(a))
        # a^b = exp(b ln a)
        inner = _mk("+", _mk("*", _d(b), ("f", "ln", a)), _mk("*", b, _mk("/", _d(a), a)))
        return _mk("*", node, inner)
    if tag == "f":
        name, a = node[1], node[2]
        da = _d(a)
        outer: Node
        if name == "sin":
            outer = ("f", "cos", a)
        elif name == "cos":
            outer = ("neg", ("f", "sin", a))
        elif name == "tan":
            outer = ("/", _ONE, ("^", ("f", "cos", a), ("n", 2.0)))
        elif name == "exp":
            outer = node
        elif name in ("ln", "log"):
            outer = ("/", _ONE, a)
        elif name == "sqrt":
            outer = ("/", _ONE, ("*", ("n", 2.0), node))
        elif name == "abs":
            outer = ("f", "sgn", a)
        elif name in ("arctan", "atan"):
            outer = ("/", _ONE, ("+", _ONE, ("^", a, ("n", 2.0))))
        else:
            raise AlgebraError(f"cannot differentiate {name}()")
        return _mk("*", outer, da)
    raise AlgebraError("cannot differentiate this expression")


def integral(body: Sym, a: float, b: float) -> float:
    """∫_a^b body dx by composite Gauss–Legendre quadrature (5 points on 64 panels)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.nan
    nodes = (0.0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640, 0.9061798459386640)
    weights = (
        0.5688888888888889,
        0.4786286704993665,
        0.4786286704993665,
        0.2369268850561891,
        0.2369268850561891,
    )
    panels = 64
    h = (b - a) / panels
    total = 0.0
    for k in range(panels):
        mid = a + (k + 0.5) * h
        for t, w in zip(nodes, weights, strict=True):
            total += w * evaluate(body.node, mid + t * h / 2)
    return total * h / 2
