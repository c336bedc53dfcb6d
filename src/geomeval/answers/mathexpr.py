"""A small, bounded parser that turns one plain-syntax answer into a numeric `Quantity`.

Geometry answers are closed forms (`2√5`, `(156√2)/7`, `5π`, `60°`) or short
expressions in a length variable (`√3a/2`). Evaluating them numerically, with
variables sampled at fixed points, decides equivalence in microseconds, which is
what lets a whole run be checked without sympy on the hot path. The parser never
evaluates anything but the arithmetic below, and it caps token count, nesting
and exponent size.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from .latex import Unsupported

MAX_TOKENS = 200
MAX_NESTING = 32
_FUNCS = {"sqrt": math.sqrt, "sin": math.sin, "cos": math.cos, "tan": math.tan}
_CONSTS = {"pi"}
_RESERVED = {"inf", "infty", "undefined", "none", "null"}
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<name>[A-Za-z]+(?:_\d+)?)|(?P<op>[-+*/^()°%]))"
)
# Sample points for expressions in variables: irrational-looking, distinct, positive.
_SAMPLE_POINTS = (1.3172938, 2.2360811, 1.7099457)


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed answer: its expression tree plus the facts the comparison rules need."""

    tree: tuple
    variables: frozenset[str]
    has_pi: bool
    has_degree: bool
    has_percent: bool
    decimal_literal: str | None  # the literal's text when the answer is a single decimal number

    def values(self) -> tuple[float, ...]:
        """Numeric values: one for a constant, one per sample point for an expression."""
        return _values(self)

    @property
    def significant_digits(self) -> int:
        if self.decimal_literal is None:
            return 0
        return len(self.decimal_literal.replace(".", "").lstrip("0"))

    @property
    def half_unit(self) -> float:
        """Half a unit of the literal's last digit: the rounding slack of an approximation."""
        text = self.decimal_literal or ""
        decimals = len(text.split(".", 1)[1]) if "." in text else 0
        return 0.5 * 10.0 ** (-decimals)


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self.variables: set[str] = set()
        self.has_pi = False
        self.has_degree = False
        self.has_percent = False

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect(self, op: str) -> None:
        tok = self.peek()
        if tok != ("op", op):
            raise Unsupported(f"expected {op!r}")
        self.pos += 1

    def parse(self) -> tuple:
        tree = self.expr()
        if self.pos != len(self.tokens):
            raise Unsupported(f"unexpected {self.tokens[self.pos][1]!r}")
        return tree

    def expr(self) -> tuple:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise Unsupported("expression nested too deeply")
        node = self.term()
        while (tok := self.peek()) is not None and tok in (("op", "+"), ("op", "-")):
            self.take()
            node = ("add" if tok[1] == "+" else "sub", node, self.term())
        self.depth -= 1
        return node

    def _starts_atom(self, tok: tuple[str, str] | None) -> bool:
        return tok is not None and (tok[0] in ("num", "name") or tok == ("op", "("))

    def term(self) -> tuple:
        node = self.factor()
        while True:
            tok = self.peek()
            if tok in (("op", "*"), ("op", "/")):
                self.take()
                node = ("mul" if tok[1] == "*" else "div", node, self.factor())
            elif self._starts_atom(tok):  # implicit multiplication: 2√3, 3π, 2(a+b)
                node = ("mul", node, self.factor())
            else:
                return node

    def factor(self) -> tuple:
        tok = self.peek()
        if tok in (("op", "-"), ("op", "+")):
            self.take()
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise Unsupported("expression nested too deeply")
            inner = self.factor()
            self.depth -= 1
            return ("neg", inner) if tok[1] == "-" else inner
        return self.power()

    def power(self) -> tuple:
        base = self.postfix()
        if self.peek() == ("op", "^"):
            self.take()
            return ("pow", base, self.factor())
        return base

    def postfix(self) -> tuple:
        node = self.atom()
        while (tok := self.peek()) in (("op", "°"), ("op", "%")):
            self.take()
            if tok[1] == "°":
                self.has_degree = True
                node = ("deg", node)
            else:
                self.has_percent = True
                node = ("pct", node)
        return node

    def atom(self) -> tuple:
        if self.pos >= len(self.tokens):
            raise Unsupported("incomplete expression")
        kind, text = self.take()
        if kind == "num":
            return ("num", float(text), text)
        if kind == "name":
            lowered = text.lower()
            if lowered in _FUNCS:
                if self.peek() == ("op", "("):
                    arg = self.atom()
                else:
                    arg = self.postfix() if lowered != "sqrt" else self.atom()
                return ("func", lowered, arg)
            if lowered in _CONSTS:
                self.has_pi = True
                return ("pi",)
            if lowered in _RESERVED:
                raise Unsupported(f"non-numeric answer {text!r}")
            self.variables.add(text)
            return ("var", text)
        if text == "(":
            node = self.expr()
            self.expect(")")
            return node
        raise Unsupported(f"unexpected {text!r}")


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos, n = 0, len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise Unsupported(f"unexpected character {text[pos]!r}")
        pos = m.end()
        kind = m.lastgroup
        assert kind is not None
        tokens.append((kind, m.group(kind)))
        if len(tokens) > MAX_TOKENS:
            raise Unsupported(f"more than {MAX_TOKENS} tokens")
    if not tokens:
        raise Unsupported("empty answer")
    return tokens


@lru_cache(maxsize=65536)
def parse_quantity(text: str) -> Quantity:
    """Parse plain-syntax text (see `latex.to_plain`) into a `Quantity`; raise `Unsupported`."""
    parser = _Parser(tokenize(text))
    tree = parser.parse()
    core = tree
    while core[0] in ("neg", "deg", "pct"):
        core = core[1]
    literal = core[2] if core[0] == "num" and "." in core[2] else None
    quantity = Quantity(
        tree=tree,
        variables=frozenset(parser.variables),
        has_pi=parser.has_pi,
        has_degree=parser.has_degree,
        has_percent=parser.has_percent,
        decimal_literal=literal,
    )
    quantity.values()  # fail early on 1/0, sqrt(-1), overflow
    return quantity


@lru_cache(maxsize=65536)
def _values(q: Quantity) -> tuple[float, ...]:
    names = sorted(q.variables)
    if not names:
        return (_evaluate(q.tree, {}),)
    points = []
    for k in range(len(_SAMPLE_POINTS)):
        env = {name: _SAMPLE_POINTS[(k + j) % len(_SAMPLE_POINTS)] + 0.1 * j for j, name in enumerate(names)}
        points.append(_evaluate(q.tree, env))
    return tuple(points)


POWER_TOO_LARGE = "power too large"
"""Why a power tower (10^{10^{10}}) is not evaluated: it cannot be compared by value, and the
symbolic fallback would spend its whole timeout on it, on every call."""


def _evaluate(node: tuple, env: dict[str, float]) -> float:
    try:
        value = _eval(node, env)
    except (OverflowError, ZeroDivisionError, ValueError) as exc:
        raise Unsupported(f"cannot evaluate: {exc}") from None
    if not math.isfinite(value):
        raise Unsupported("value is not finite")
    return value


def _eval(node: tuple, env: dict[str, float]) -> float:
    op = node[0]
    if op == "num":
        return node[1]
    if op == "pi":
        return math.pi
    if op == "var":
        return env[node[1]]
    if op == "neg":
        return -_eval(node[1], env)
    if op in ("deg", "pct"):
        return _eval(node[1], env)
    if op == "func":
        arg = _eval(node[2], env)
        if node[1] in ("sin", "cos", "tan") and not _mentions_pi(node[2]):
            arg = math.radians(arg)  # geometry writes sin 30 and sin 30° for degrees
        return _FUNCS[node[1]](arg)
    a = _eval(node[1], env)
    b = _eval(node[2], env)
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "div":
        return a / b
    if op == "pow":
        if abs(b) > 64 or abs(a) > 1e12:
            raise OverflowError(POWER_TOO_LARGE)
        result = a**b
        if isinstance(result, complex):
            raise ValueError("complex power")
        return result
    raise ValueError(f"unknown node {op}")


def _mentions_pi(node: tuple) -> bool:
    if node[0] == "pi":
        return True
    return any(isinstance(child, tuple) and _mentions_pi(child) for child in node[1:])
