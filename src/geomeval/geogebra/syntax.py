"""Parse GeoGebra scripts as language models write them (GGBench answers).

GGBench answers are GeoGebra scripts scored by executing them. Running them in a JVM is slow
and an answer is untrusted text, so the engine parses it here first: a single-pass tokenizer
and a recursive-descent parser that never pass input to ``eval``, bound every resource (script
size, line length, tokens, nesting) and report each bad line with its own error, so one typo
costs one construction step instead of the whole answer.

The accepted language is what models actually write, not all of GeoGebra: modern ``Cmd(...)``
and legacy ``Cmd[...]`` calls, ``label =`` / ``label:`` / ``A, B =`` / ``{A, B} =`` labels,
points, lists, arithmetic with GeoGebra's implicit multiplication (`2pi k`, `a b`), degrees,
strings, booleans, equations (`f: y = 2x + 1`), function definitions (`f(x) = x^2`), trailing
semicolons and the usual unicode operators. Comments fail their line, as in GeoGebra 4.0,
which has none.

AST equality means "the same construction": positions, the number's spelling and whether a
call was written with brackets are left out of ``==`` (they are kept on the nodes for error
messages and re-serialisation), so ``parse_line(to_source(s)) == s`` is the round-trip law.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

__all__ = [
    "MATH_FUNCTIONS",
    "BinOp",
    "Bool",
    "Call",
    "Const",
    "Degrees",
    "Equation",
    "Expr",
    "FunctionDef",
    "ListLit",
    "Name",
    "Neg",
    "Num",
    "ParseError",
    "ParsedLine",
    "PointLit",
    "ScriptLimits",
    "ScriptTooLarge",
    "Statement",
    "Str",
    "extract_code",
    "extract_code_with_offsets",
    "parse_line",
    "parse_script",
    "to_source",
]

#: Lowercase names that are mathematical functions rather than GeoGebra commands: legacy
#: (GeoGebra 4) syntax writes commands with brackets but these always with parentheses.
MATH_FUNCTIONS: frozenset[str] = frozenset(
    {
        "sqrt",
        "sin",
        "cos",
        "tan",
        "abs",
        "x",
        "y",
        "exp",
        "ln",
        "log",
        "floor",
        "ceil",
        "round",
        "arcsin",
        "arccos",
        "arctan",
    }
)


@dataclass(frozen=True, slots=True)
class ScriptLimits:
    """Bounds on the work one untrusted answer may cause; exceeding any raises ScriptTooLarge."""

    max_chars: int = 100_000
    max_lines: int = 2_000
    max_line_length: int = 2_000
    max_depth: int = 64
    max_tokens_per_line: int = 2_000


_DEFAULT_LIMITS = ScriptLimits()


class ParseError(Exception):
    """A line that cannot be parsed; ``line``/``col`` are 1-based and point into the script.

    All fields go to ``Exception.__init__`` so the error survives pickling (worker pools).
    """

    def __init__(self, line: int, col: int, message: str, source: str = "") -> None:
        super().__init__(line, col, message, source)
        self.line = line
        self.col = col
        self.message = message
        self.source = source

    def __str__(self) -> str:
        return f"line {self.line}, column {self.col}: {self.message}"


class ScriptTooLarge(ParseError):
    """A resource limit was hit; the whole script is refused (line 0 when about the script)."""


# ---------------------------------------------------------------------------------------------
# AST. Positions (and spellings that do not change meaning) are excluded from equality.
# Nodes are hashable values that nothing mutates; they are not `frozen` dataclasses only
# because a frozen dataclass's __init__ is several times slower, and a script builds
# thousands of nodes. (The decorator is spelled out on each class: mypy reads a dataclass
# only from the decorator itself.)


def _pos() -> Any:
    return field(default=0, compare=False, kw_only=True)


@dataclass(slots=True, unsafe_hash=True)
class Num:
    value: float
    text: str = field(default="", compare=False)
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class Str:
    value: str
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class Bool:
    value: bool
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class Name:
    name: str
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class Const:
    name: str
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class Call:
    name: str
    args: tuple[Expr, ...]
    brackets: bool = field(default=False, compare=False)
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class PointLit:
    """``(x, y)``, or with ``polar`` GeoGebra's ``(r; θ)``: y is then the angle."""

    x: Expr
    y: Expr
    polar: bool = False
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class ListLit:
    items: tuple[Expr, ...]
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class BinOp:
    op: str
    left: Expr
    right: Expr
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class Neg:
    operand: Expr
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class Not:
    operand: Expr
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class Degrees:
    operand: Expr
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class Equation:
    """``lhs = rhs`` in x and y: a line, conic, implicit curve or function (``y = 2x + 1``)."""

    left: Expr
    right: Expr
    line: int = _pos()
    col: int = _pos()


@dataclass(slots=True, unsafe_hash=True)
class FunctionDef:
    """``f(x) = body``: the statement's label is the function's name, ``var`` its variable
    (two, comma-separated, for ``f(x, y) = …``)."""

    var: str
    body: Expr
    line: int = _pos()
    col: int = _pos()


Expr = (
    Num | Str | Bool | Name | Const | Call | PointLit | ListLit | BinOp | Neg | Not | Degrees
    | Equation | FunctionDef
)


@dataclass(slots=True, unsafe_hash=True)
class Statement:
    """One script line; ``source`` is its code without comment or trailing ``;``, for reports."""

    line: int = field(compare=False)
    col: int = field(compare=False)
    labels: tuple[str, ...]
    expr: Expr
    source: str = field(default="", compare=False)


ParsedLine = Statement | ParseError


# ---------------------------------------------------------------------------------------------
# Tokenizer: one pass over the line, no regular expressions (nothing can backtrack).

_OPS = {
    "+": "+",
    "-": "-",
    "\u2212": "-",  # − minus sign
    "*": "*",
    "×": "*",
    "·": "*",
    "\u22c5": "*",  # ⋅ dot operator
    "/": "/",
    "÷": "/",
    "^": "^",
}
_PUNCT = frozenset("()[]{},;")
# Comparisons give booleans (GeoGebra writes ≟ for its equality test); ``!=`` is read apart.
_COMPARISONS = {
    "<": "<",
    ">": ">",
    "<=": "<=",
    ">=": ">=",
    "≤": "<=",
    "≥": ">=",
    "≠": "!=",
    "≟": "==",
}
_LOGIC = {"&": "&&", "|": "||", "∧": "&&", "∨": "||"}
_DEGREE_SIGNS = frozenset("°º˚")  # degree, masculine ordinal, ring above: all written for degrees
_SUPERSCRIPTS = {
    "⁰": "0",
    "¹": "1",
    "²": "2",
    "³": "3",
    "⁴": "4",
    "⁵": "5",
    "⁶": "6",
    "⁷": "7",
    "⁸": "8",
    "⁹": "9",
}
_INVISIBLE = frozenset("\ufeff\u200b\u200c\u200d\u2060")
_PRIMES = frozenset("'′")
_CONSTANTS = frozenset({"pi", "π"})
_BOOLEANS = {"true": True, "false": False}
_EQUATION_LABELS = frozenset({"x", "y"})  # z is a plain label in GeoGebra 4.0 (2D)
_HINTS = {
    "[": "; lists are written with braces, e.g. {1, 2}",
    "'": "; strings use double quotes",
    "“": "; strings use straight double quotes",
    "”": "; strings use straight double quotes",
}


class _Tok:
    """kind: 'num' 'str' 'name' 'op' 'sup' 'eof' or the punctuation itself ('(' '=' '°' ...)."""

    __slots__ = ("col", "data", "kind", "text")

    def __init__(self, kind: str, text: str, col: int, data: object = None) -> None:
        self.kind = kind
        self.text = text
        self.col = col
        self.data = data


# Linear-time patterns (no nested quantifiers): a name's letters and digits after its first
# character, and a decimal number with an optional exponent.
_SPACES = re.compile(r" +")
_NAME_TAIL = re.compile(r"[^\W_]*")
_NUMBER = re.compile(r"[0-9]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def _is_name_char(ch: str) -> bool:
    return ("0" <= ch <= "9" or ch.isalpha()) and ch not in _DEGREE_SIGNS and ch != "π"


def _is_subscript_char(ch: str) -> bool:
    return ch == "_" or (("0" <= ch <= "9" or ch.isalpha()) and ch not in _DEGREE_SIGNS)


def _scan_name(s: str, i: int, line: int, source: str) -> tuple[str, int]:
    """Read a label at ``s[i]`` and return its canonical form and the end index.

    Canonical form is what GeoGebra displays: ``s_{1}`` is ``s_1``, ``A_12`` is ``A_{12}``
    (GeoGebra reads every character after ``_`` as the subscript), primes follow.
    """
    n = len(s)
    if s[i] == "π":
        return "π", i + 1
    j = _NAME_TAIL.match(s, i + 1).end()  # type: ignore[union-attr]  # always matches
    run = s[i + 1 : j]
    if run and not (run.isascii() and run.isalnum()):  # rare: let the exact rule decide
        j = i + 1
        while j < n and _is_name_char(s[j]):
            j += 1
    name = s[i:j]
    if j < n and s[j] == "_":
        k = j + 1
        if k < n and s[k] == "{":
            m = k + 1
            while m < n and _is_subscript_char(s[m]):
                m += 1
            if m >= n or s[m] != "}":
                if m < n and s[m] != "}":
                    raise ParseError(line, m + 1, f"unexpected {s[m]!r} in subscript", source)
                raise ParseError(line, k + 1, "missing '}' to close the subscript", source)
            sub = s[k + 1 : m]
            j = m + 1
        else:
            m = k
            while m < n and _is_subscript_char(s[m]):
                m += 1
            sub = s[k:m]
            j = m
        if not sub:
            raise ParseError(line, k + 1, "expected a subscript after '_'", source)
        name += "_" + sub if len(sub) == 1 else "_{" + sub + "}"
    while j < n and s[j] in _PRIMES:
        name += "'"
        j += 1
    return name, j


# The common tokens in one linear-time match (spaces first); anything else (subscripts, primes,
# non-ASCII, strings, two-character operators) falls through to the character rules below.
_FAST = re.compile(
    r" *(?:(?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?(?![0-9.]))"
    r"|(?P<name>[A-Za-z][A-Za-z0-9]*)(?![_'′{\w])"
    r"|(?P<punct>[()\[\]{},;])"
    r"|(?P<op>[+\-/^]|\*(?!\*)))?"
)


def _tokenize(s: str, line: int, max_tokens: int, source: str) -> list[_Tok]:
    toks: list[_Tok] = []
    append = toks.append
    # _FAST matches the empty string, so its match() never returns None.
    fast = cast("Callable[[str, int], re.Match[str]]", _FAST.match)
    i = 0
    n = len(s)
    while i < n:
        m = fast(s, i)
        kind = m.lastgroup
        if kind is not None:
            if len(toks) >= max_tokens:
                raise ScriptTooLarge(
                    line, m.start(kind) + 1, f"more than {max_tokens} tokens on one line", source
                )
            text = m.group(kind)
            col = m.start(kind) + 1
            if kind == "num":
                value = float(text)
                if not math.isfinite(value):
                    raise ParseError(line, col, f"number {text!r} is too large", source)
                append(_Tok("num", text, col, value))
            elif kind == "name":
                append(_Tok("name", text, col))
            elif kind == "op":
                append(_Tok("op", text, col, text))
            else:
                append(_Tok(text, text, col))
            i = m.end()
            continue
        i = m.end()
        if i >= n:
            break
        c = s[i]
        if c == " ":
            i = _SPACES.match(s, i).end()  # type: ignore[union-attr]  # s[i] is a space
            continue
        if c.isspace() or c in _INVISIBLE:
            i += 1
            continue
        if len(toks) >= max_tokens:
            raise ScriptTooLarge(line, i + 1, f"more than {max_tokens} tokens on one line", source)
        col = i + 1
        if _is_digit(c) or (c == "." and i + 1 < n and _is_digit(s[i + 1])):
            j = _NUMBER.match(s, i).end()  # type: ignore[union-attr]  # starts with a digit
            text = s[i:j]
            value = float(text)  # validated digits only; float() is not eval
            if not math.isfinite(value):
                raise ParseError(line, col, f"number {text!r} is too large", source)
            append(_Tok("num", text, col, value))
            i = j
        elif c in _DEGREE_SIGNS:
            append(_Tok("°", c, col))
            i += 1
        elif c.isalpha():
            name, i = _scan_name(s, i, line, source)
            append(_Tok("name", name, col))
        elif c == '"':
            parts: list[str] = []
            j = i + 1
            start = j
            while True:
                if j >= n:
                    raise ParseError(line, col, "unterminated string", source)
                ch = s[j]
                if ch == '"':
                    break
                if ch == "\\" and j + 1 < n and s[j + 1] in '"\\':
                    parts.append(s[start:j])
                    parts.append(s[j + 1])
                    j += 2
                    start = j
                    continue
                j += 1
            parts.append(s[start:j])
            append(_Tok("str", s[i : j + 1], col, "".join(parts)))
            i = j + 1
        elif c == "*" and i + 1 < n and s[i + 1] == "*":  # Python's power; GeoGebra reads it
            append(_Tok("op", "^", col, _OPS["^"]))
            i += 2
        elif c == "!" and i + 1 < n and s[i + 1] == "=":
            append(_Tok("cmp", "!=", col, "!="))
            i += 2
        elif c == "!" or c == "¬":
            append(_Tok("not", c, col))
            i += 1
        elif c in _OPS:
            append(_Tok("op", c, col, _OPS[c]))
            i += 1
        elif c in _PUNCT:
            append(_Tok(c, c, col))
            i += 1
        elif c == "=":
            if i + 1 < n and s[i + 1] == "=":
                append(_Tok("cmp", "==", col, "=="))
                i += 2
            else:
                append(_Tok("=", c, col))
                i += 1
        elif c in _COMPARISONS:
            two = s[i : i + 2]
            if two in _COMPARISONS:
                append(_Tok("cmp", two, col, _COMPARISONS[two]))
                i += 2
            else:
                append(_Tok("cmp", c, col, _COMPARISONS[c]))
                i += 1
        elif c in _LOGIC:
            two = s[i : i + 2]
            if c in "&|" and two != c + c:
                raise ParseError(line, col, f"unexpected character {c!r} (write {c + c})", source)
            append(_Tok("logic", two if c in "&|" else c, col, _LOGIC[c]))
            i += 2 if c in "&|" else 1
        elif c == ":":
            if i + 1 < n and s[i + 1] == "=":  # CAS-style a := 5 means a = 5
                append(_Tok("=", ":=", col))
                i += 2
            else:
                append(_Tok(":", c, col))
                i += 1
        elif c in _SUPERSCRIPTS or c == "⁻":
            j = i + 1 if c == "⁻" else i
            k = j
            while k < n and s[k] in _SUPERSCRIPTS:
                k += 1
            if k == j:
                raise ParseError(line, col, f"unexpected character {c!r}", source)
            digits = "".join(_SUPERSCRIPTS[ch] for ch in s[j:k])
            append(_Tok("sup", s[i:k], col, (c == "⁻", digits)))
            i = k
        else:
            raise ParseError(line, col, f"unexpected character {c!r}{_HINTS.get(c, '')}", source)
    append(_Tok("eof", "", n + 1))
    return toks


# ---------------------------------------------------------------------------------------------
# Parser. Grammar, loosest first:
#   statement := [labels ('=' | ':')] either
#   either    := both ('||' both)*                      } binary(): precedence climbing
#   both      := compare ('&&' compare)*                } over _BINARY, same grammar
#   compare   := expr [('==' | '!=' | '<' | '>' | '<=' | '>=') expr]
#   expr      := term (('+' | '-') term)*
#   term      := unary (('*' | '/') unary | <after a number> unary)*
#   unary     := ('+' | '-' | '!' | '¬')* power
#   power     := primary ('°' | superscript)* ['^' unary]
#   primary   := number | string | name | name '(' args ')' | name '[' args ']'
#              | '(' either [(',' | ';') either] ')' | '{' [either (',' either)*] '}'


def _describe(tok: _Tok) -> str:
    if tok.kind == "eof":
        return "unexpected end of line"
    if tok.kind == "num":
        return f"unexpected number '{tok.text}'"
    if tok.kind == "name":
        return f"unexpected name '{tok.text}'"
    if tok.kind == "str":
        return "unexpected string"
    if tok.kind == "sup":
        return f"unexpected superscript '{tok.text}'"
    return f"unexpected '{tok.text}'{_HINTS.get(tok.text, '')}"


_CLOSERS = frozenset({")", "]", "}"})
# Binary operators and how tightly they bind; '^' (tighter, right-associative) is in power().
_PRODUCT = 4
_BINARY = {
    "||": 0,
    "&&": 1,
    "==": 2,
    "!=": 2,
    "<": 2,
    ">": 2,
    "<=": 2,
    ">=": 2,
    "+": 3,
    "-": 3,
    "*": _PRODUCT,
    "/": _PRODUCT,
}


@dataclass(frozen=True, slots=True)
class _PolarAngle:
    """Parser-internal: the angle after ';' in ``(r; θ)``, marking the point as polar."""

    angle: Expr


class _Parser:
    __slots__ = ("depth", "last", "line", "max_depth", "pos", "source", "toks")

    def __init__(self, toks: list[_Tok], line: int, max_depth: int, source: str) -> None:
        self.toks = toks
        self.pos = 0
        self.line = line
        self.depth = 0
        self.max_depth = max_depth
        self.source = source
        self.last: _Tok | None = None

    def error(self, col: int, message: str) -> ParseError:
        return ParseError(self.line, col, message, self.source)

    def advance(self) -> _Tok:
        tok = self.toks[self.pos]
        if tok.kind != "eof":
            self.pos += 1
            self.last = tok
        return tok

    def enter(self, tok: _Tok) -> None:
        # Counted at every construct that recurses, so hostile nesting stops here, long before
        # Python's own recursion limit.
        self.depth += 1
        if self.depth > self.max_depth:
            raise ScriptTooLarge(
                self.line,
                tok.col,
                f"expression nested more than {self.max_depth} levels deep",
                self.source,
            )

    # statement ------------------------------------------------------------------------------

    def statement(self) -> Statement:
        first = self.toks[0]
        labels, sep = self.labels()
        end = self.toks[self.pos]
        if sep is not None and end.kind == "eof":
            raise self.error(end.col, f"expected an expression after '{sep.text}'")
        expr = self.either()
        tok = self.toks[self.pos]
        if tok.kind == "=":
            if sep is not None and sep.kind == "=":
                # `c = x^2 + y^2 = 25`: GeoGebra 4.0 names an equation with ':' only.
                raise self.error(tok.col, "Invalid input: an equation is named with ':'")
            self.advance()
            if self.toks[self.pos].kind == "eof":
                raise self.error(self.toks[self.pos].col, "expected an expression after '='")
            if (
                sep is None
                and isinstance(expr, Call)
                and not expr.brackets
                and len(expr.args) in (1, 2)
                and all(isinstance(a, Name) for a in expr.args)
            ):
                var = ",".join(a.name for a in expr.args)  # type: ignore[union-attr]
                body = self.either()
                labels = (expr.name,)
                expr = FunctionDef(var, body, line=self.line, col=expr.col)
            else:
                right = self.either()
                expr = Equation(expr, right, line=self.line, col=first.col)
            tok = self.toks[self.pos]
            if tok.kind == "=":
                raise self.error(tok.col, "Invalid input: more than one '='")
        if tok.kind != "eof":
            raise self.error(tok.col, _describe(tok))
        return Statement(self.line, first.col, labels, expr, self.source)

    def labels(self) -> tuple[tuple[str, ...], _Tok | None]:
        """Recognise a label list by lookahead; anything else is an unlabelled expression."""
        toks = self.toks
        braced = toks[0].kind == "{"
        i = 1 if braced else 0
        names: list[_Tok] = []
        while True:
            if toks[i].kind != "name":
                return (), None
            names.append(toks[i])
            i += 1
            if toks[i].kind != ",":
                break
            i += 1
        if braced:
            if toks[i].kind != "}":
                return (), None
            i += 1
        sep = toks[i]
        if sep.kind != "=" and (braced or sep.kind != ":"):
            return (), None
        seen: set[str] = set()
        for tok in names:
            if tok.text in _CONSTANTS:
                raise self.error(tok.col, f"'{tok.text}' is a constant and cannot be a label")
            if tok.text.lower() in _BOOLEANS:
                raise self.error(tok.col, f"'{tok.text}' is a boolean and cannot be a label")
            if tok.text in _EQUATION_LABELS:
                if sep.kind == "=" and len(names) == 1:
                    return (), None  # `y = 2x + 1`, `x = 3`: an equation, not a label
                raise self.error(
                    tok.col, f"'{tok.text}' cannot be a label: x, y and z name coordinates"
                )
            if tok.text in seen:
                raise self.error(tok.col, f"label '{tok.text}' appears twice")
            seen.add(tok.text)
        self.pos = i + 1
        self.last = sep
        return tuple(t.text for t in names), sep

    # expressions ----------------------------------------------------------------------------

    def either(self) -> Expr:
        return self.binary(0)

    def binary(self, min_prec: int) -> Expr:
        """Operators from _BINARY, loosest first, by precedence climbing (one loop for every
        level, left-associative); comparisons do not chain."""
        toks = self.toks
        start = toks[self.pos].col  # not left.col: "(a + b) - c" starts at the parenthesis
        left = self.unary()
        while True:
            tok = toks[self.pos]
            kind = tok.kind
            if kind == "op" or kind == "cmp" or kind == "logic":
                op: str = tok.data  # type: ignore[assignment]
                prec = _BINARY.get(op)  # '^' is not there: power() takes it
                if prec is None or prec < min_prec:
                    return left
                self.advance()
            elif (
                (kind == "name" or kind == "(" or kind == "num")
                and min_prec <= _PRODUCT
                and self.last_ends_operand()
            ):
                # GeoGebra's implicit multiplication: 2pi, 3(1 + 2), 2sqrt(3), 2pi k, a b,
                # Distance(A, B) Distance(B, C).
                op, prec = "*", _PRODUCT
            else:
                return left
            right = self.binary(prec + 1)
            left = BinOp(op, left, right, line=self.line, col=start)
            if kind == "cmp" and toks[self.pos].kind == "cmp":
                raise self.error(
                    toks[self.pos].col, f"chained comparison: put '{tok.text} …' in parentheses"
                )

    def last_is_number(self) -> bool:
        return self.last is not None and self.last.kind == "num"

    def last_ends_operand(self) -> bool:
        """Whether the previous token closes an operand, so a name, number or '(' after it
        multiplies (GeoGebra 4.0 reads `a b`, `(a + b)(c)`, even `2 3`, as products)."""
        last = self.last
        return last is not None and last.kind in ("num", "name", ")", "]", "°", "sup")

    def unary(self) -> Expr:
        signs: list[_Tok] = []
        toks = self.toks
        while True:
            tok = toks[self.pos]
            if (tok.kind == "op" and (tok.data == "-" or tok.data == "+")) or tok.kind == "not":
                self.advance()
                if tok.data != "+":
                    self.enter(tok)
                    signs.append(tok)
            else:
                break
        node = self.power()
        for tok in reversed(signs):
            if tok.kind == "not":
                node = Not(node, line=self.line, col=tok.col)
            else:
                node = Neg(node, line=self.line, col=tok.col)
        self.depth -= len(signs)
        return node

    def power(self) -> Expr:
        toks = self.toks
        start = toks[self.pos].col
        base = self.primary()
        while True:
            tok = toks[self.pos]
            if tok.kind == "°":
                self.advance()
                base = Degrees(base, line=self.line, col=start)
            elif tok.kind == "sup":
                self.advance()
                # a 'sup' token carries (negative, digits), see _tokenize
                negative, digits = cast("tuple[bool, str]", tok.data)
                exponent: Expr = Num(float(digits), digits, line=self.line, col=tok.col)
                if negative:
                    exponent = Neg(exponent, line=self.line, col=tok.col)
                base = BinOp("^", base, exponent, line=self.line, col=start)
            else:
                break
        tok = toks[self.pos]
        if tok.kind == "op" and tok.data == "^":
            self.advance()
            self.enter(tok)
            exponent = self.unary()
            self.depth -= 1
            return BinOp("^", base, exponent, line=self.line, col=start)
        return base

    def primary(self) -> Expr:
        tok = self.advance()
        kind = tok.kind
        line = self.line
        if kind == "num":
            return Num(tok.data, tok.text, line=line, col=tok.col)  # type: ignore[arg-type]
        if kind == "str":
            return Str(tok.data, line=line, col=tok.col)  # type: ignore[arg-type]
        if kind == "name":
            name = tok.text
            if name in _CONSTANTS:
                return Const("pi", line=line, col=tok.col)
            if name.lower() in _BOOLEANS:
                return Bool(_BOOLEANS[name.lower()], line=line, col=tok.col)
            opener = self.toks[self.pos]
            if opener.kind == "(" or opener.kind == "[":
                self.advance()
                self.enter(opener)
                args = self.sequence(opener, ")" if opener.kind == "(" else "]", "argument")
                self.depth -= 1
                return Call(name, args, opener.kind == "[", line=line, col=tok.col)
            return Name(name, line=line, col=tok.col)
        if kind == "(":
            self.enter(tok)
            items = self.sequence(tok, ")", "coordinate")
            self.depth -= 1
            if len(items) == 1:
                return items[0]
            if items and isinstance(items[-1], _PolarAngle):
                return PointLit(items[0], items[1].angle, True, line=line, col=tok.col)
            if len(items) == 2:
                return PointLit(items[0], items[1], line=line, col=tok.col)
            if not items:
                raise self.error(tok.col, "empty parentheses")
            if len(items) == 3:
                raise self.error(tok.col, "3D points are not supported")
            raise self.error(tok.col, f"a point has two coordinates, not {len(items)}")
        if kind == "{":
            self.enter(tok)
            items = self.sequence(tok, "}", "list item")
            self.depth -= 1
            return ListLit(items, line=line, col=tok.col)
        if kind == "eof":
            after = f" after '{self.last.text}'" if self.last is not None else ""
            raise self.error(tok.col, f"expected an expression{after}")
        raise self.error(tok.col, _describe(tok))

    def sequence(self, opener: _Tok, closer: str, what: str) -> tuple[Expr, ...]:
        """Comma-separated items up to ``closer``; the opener is already consumed."""
        toks = self.toks
        if toks[self.pos].kind == closer:
            self.advance()
            return ()
        items: list[Expr] = []
        while True:
            tok = toks[self.pos]
            if tok.kind == "," or tok.kind == closer:
                raise self.error(tok.col, f"empty {what}")
            if tok.kind == "eof":
                raise self.missing(tok, opener, closer)
            item = self.either()
            if what == "argument" and toks[self.pos].kind == "=":
                # Intersect(e, y = 1): an equation as a command argument
                self.advance()
                item = Equation(item, self.either(), line=self.line, col=tok.col)
            items.append(item)
            tok = self.advance()
            if tok.kind == ",":
                continue
            if tok.kind == closer:
                return tuple(items)
            if tok.kind == ";" and what == "coordinate" and len(items) == 1:
                angle = self.either()  # polar (r; θ)
                end = self.advance()
                if end.kind != closer:
                    raise self.error(end.col, "a polar point is (r; θ): expected ')'")
                return (items[0], _PolarAngle(angle))  # type: ignore[return-value]
            if tok.kind == "eof" or tok.kind in _CLOSERS:
                raise self.missing(tok, opener, closer)
            raise self.error(tok.col, f"{_describe(tok)} (expected ',' or '{closer}')")

    def missing(self, tok: _Tok, opener: _Tok, closer: str) -> ParseError:
        return self.error(
            tok.col, f"missing '{closer}' to close '{opener.text}' opened at column {opener.col}"
        )


# ---------------------------------------------------------------------------------------------
# Lines and scripts.


def _comment_col(raw: str) -> int:
    """1-based column of a ``#`` or ``//`` outside a string, else 0.

    GeoGebra 4.0 has no comments: its input bar rejects any line holding one ("Invalid
    input"), a whole-line ``# note`` as much as ``A = (1, 2) # note``. The reference harness
    shows this, so such a line fails here too instead of being silently cut.
    """
    if "#" not in raw and "//" not in raw:
        return 0
    in_string = False
    i = 0
    n = len(raw)
    while i < n:
        c = raw[i]
        if in_string:
            if c == "\\" and i + 1 < n and raw[i + 1] in '"\\':
                i += 2
                continue
            if c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "#" or (c == "/" and i + 1 < n and raw[i + 1] == "/"):
            return i + 1
        i += 1
    return 0


def _code_part(raw: str) -> str:
    """The line without its trailing ``;`` (GeoGebra accepts ``A = (1, 2);``)."""
    code = raw.rstrip()
    while code.endswith(";"):
        code = code[:-1].rstrip()
    return code


def _comment_error(raw: str, line: int) -> ParseError | None:
    col = _comment_col(raw)
    if not col:
        return None
    return ParseError(
        line, col, "Invalid input: GeoGebra has no comments ('#', '//')", raw.strip()
    )


# Most lines models write are `label = Command(a, b, 2)`, `Command(a, b)` or `A = (1, -2)`
# with plain names and numbers. Those are read by one match, without tokens; everything else
# (and anything special: pi, true, x, subscripts, primes, operators) goes the general way.
# tests/test_ggb_syntax.py checks both ways give the same tree, positions included.
_GREEK = "α-ορ-ωΑ-Ω"  # π is a constant, not a name
_SIMPLE_NAME = rf"[A-Za-z{_GREEK}][A-Za-z0-9{_GREEK}]*(?:_[A-Za-z0-9](?![A-Za-z0-9]))?'*"
_SIMPLE_LINE = re.compile(
    rf"( *)(?:({_SIMPLE_NAME}) *= *)?({_SIMPLE_NAME})?"
    rf"\(((?:[ A-Za-z0-9{_GREEK}.,_'°-]|\"[^\"\\]*\")*)\)"
)
_SIMPLE_ARG = re.compile(
    rf" *(?:(-?)([0-9]+(?:\.[0-9]+)?)(°?)|({_SIMPLE_NAME})|\"([^\"\\]*)\") *(?:,|$)"
)
_RESERVED_LABELS = frozenset({"pi", "x", "y"})


def _special(name: str, label: bool) -> bool:
    """Whether the general parser reads `name` as something other than a plain name."""
    return name == "pi" or (label and name in _RESERVED_LABELS) or name.lower() in _BOOLEANS


def _parse_simple(code: str, line: int, limits: ScriptLimits) -> Statement | None:
    m = _SIMPLE_LINE.fullmatch(code)
    if m is None:
        return None
    indent, label, callee, inside = m.groups()
    if (label and _special(label, True)) or (callee and _special(callee, False)):
        return None
    if limits.max_depth < 2 or 3 * inside.count(",") + 12 > limits.max_tokens_per_line:
        return None
    base = m.start(4) + 1  # 1-based column of inside[0]
    args: list[Expr] = []
    pos = 0
    end = len(inside)
    if inside.strip():
        while pos < end:
            a = _SIMPLE_ARG.match(inside, pos)
            if a is None or (a.end() == end and inside.endswith(",")):
                return None
            sign, number, degrees, name, text = a.groups()
            if name is not None:
                if _special(name, False):
                    return None
                args.append(Name(name, line=line, col=base + a.start(4)))
            elif text is not None:
                args.append(Str(text, line=line, col=base + a.start(5) - 1))
            else:
                value = float(number)
                if not math.isfinite(value):
                    return None
                node: Expr = Num(value, number, line=line, col=base + a.start(2))
                if degrees:
                    node = Degrees(node, line=line, col=node.col)
                if sign:
                    node = Neg(node, line=line, col=base + a.start(1))
                args.append(node)
            pos = a.end()
    elif callee is None:
        return None  # "()" is an error, reported the general way
    if callee is not None:
        expr: Expr = Call(callee, tuple(args), False, line=line, col=m.start(3) + 1)
    elif len(args) == 2:
        expr = PointLit(args[0], args[1], line=line, col=m.start(4))
    else:
        return None
    return Statement(line, len(indent) + 1, (label,) if label else (), expr, code.strip())


def _parse_code(code: str, line: int, limits: ScriptLimits) -> Statement:
    simple = _parse_simple(code, line, limits)
    if simple is not None:
        return simple
    source = code.strip()
    toks = _tokenize(code, line, limits.max_tokens_per_line, source)
    try:
        return _Parser(toks, line, limits.max_depth, source).statement()
    except RecursionError:
        # Only reachable when max_depth is raised far beyond the default.
        raise ScriptTooLarge(line, 1, "expression nested too deeply", source) from None


def _check_line_length(raw: str, line: int, limits: ScriptLimits) -> None:
    if len(raw) > limits.max_line_length:
        raise ScriptTooLarge(
            line,
            limits.max_line_length + 1,
            f"line is longer than {limits.max_line_length} characters",
            raw[: limits.max_line_length].strip(),
        )


def parse_line(text: str, line: int = 1, *, limits: ScriptLimits | None = None) -> Statement:
    """Parse one script line; raises ParseError (ScriptTooLarge when a limit is hit)."""
    limits = limits or _DEFAULT_LIMITS
    if "\n" in text:
        raise ParseError(line, text.index("\n") + 1, "parse_line takes one line; use parse_script")
    _check_line_length(text, line, limits)
    code = _code_part(text)
    if not code.strip():
        raise ParseError(line, 1, "nothing to parse (blank line)")
    comment = _comment_error(text, line)
    if comment is not None:
        raise comment
    return _parse_code(code, line, limits)


def parse_script(text: str, *, limits: ScriptLimits | None = None) -> list[ParsedLine]:
    """Parse a whole script into one entry per statement line, each a Statement or ParseError.

    A bad line does not stop the rest: the executor runs what parsed and scores the errors.
    A limit, though, refuses the whole script (ScriptTooLarge), since its answer is hostile
    or garbage and partial results would be misleading.
    """
    limits = limits or _DEFAULT_LIMITS
    if len(text) > limits.max_chars:
        raise ScriptTooLarge(0, 0, f"script is longer than {limits.max_chars} characters")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if len(lines) > limits.max_lines:
        raise ScriptTooLarge(0, 0, f"script has more than {limits.max_lines} lines")
    out: list[ParsedLine] = []
    for number, raw in enumerate(lines, 1):
        _check_line_length(raw, number, limits)
        code = _code_part(raw)
        if not code or code.isspace():
            continue
        comment = _comment_error(raw, number)
        if comment is not None:
            out.append(comment)
            continue
        try:
            out.append(_parse_code(code, number, limits))
        except ScriptTooLarge:
            raise
        except ParseError as error:
            out.append(error)
    return out


# ---------------------------------------------------------------------------------------------
# Serialisation.

_PRECEDENCE = {
    "||": -2,
    "&&": -1,
    "==": 0,
    "!=": 0,
    "<": 0,
    ">": 0,
    "<=": 0,
    ">=": 0,
    "+": 1,
    "-": 1,
    "*": 2,
    "/": 2,
    "^": 4,
}
_NEG_PRECEDENCE = 3
_ATOM_PRECEDENCE = 5


def _number_text(node: Num) -> str:
    if node.text:
        return node.text
    value = node.value
    if not math.isfinite(value):
        raise ValueError(f"cannot write the number {value!r} in GeoGebra syntax")
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def _precedence(node: Expr) -> int:
    if isinstance(node, BinOp):
        return _PRECEDENCE[node.op]
    if isinstance(node, Neg) or (isinstance(node, Num) and _number_text(node).startswith("-")):
        return _NEG_PRECEDENCE
    return _ATOM_PRECEDENCE


def _canonical_label(name: str) -> str:
    if "_" not in name and "′" not in name and name != "π":
        return name
    try:
        toks = _tokenize(name, 0, 8, name)
    except ParseError:
        return name
    if len(toks) == 2 and toks[0].kind == "name":
        return toks[0].text
    return name


def _quote(value: str) -> str:
    # A backslash only needs doubling where the parser would otherwise read an escape, so
    # LaTeX in FormulaText/Text strings stays as written.
    out = ['"']
    last = len(value) - 1
    for i, ch in enumerate(value):
        if ch == '"':
            out.append('\\"')
        elif ch == "\\" and (i == last or value[i + 1] in '"\\'):
            out.append("\\\\")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _emit(node: Expr, legacy: bool) -> str:
    if isinstance(node, Num):
        return _number_text(node)
    if isinstance(node, Name):
        return _canonical_label(node.name)
    if isinstance(node, Call):
        args = ", ".join(_emit(a, legacy) for a in node.args)
        name = _canonical_label(node.name)
        if legacy and name[:1].isupper() and name not in MATH_FUNCTIONS:
            return f"{name}[{args}]"
        return f"{name}({args})"
    if isinstance(node, BinOp):
        op = node.op
        precedence = _PRECEDENCE[op]
        left = _emit(node.left, legacy)
        lp = _precedence(node.left)
        if lp < precedence or (lp == precedence and (op == "^" or precedence == 0)):
            left = f"({left})"
        right = _emit(node.right, legacy)
        rp = _precedence(node.right)
        if rp < precedence or rp == _NEG_PRECEDENCE or (rp == precedence and op != "^"):
            right = f"({right})"
        return f"{left}^{right}" if op == "^" else f"{left} {op} {right}"
    if isinstance(node, Neg):
        inner = _emit(node.operand, legacy)
        if _precedence(node.operand) < _PRECEDENCE["^"]:
            inner = f"({inner})"
        return f"-{inner}"
    if isinstance(node, Not):
        inner = _emit(node.operand, legacy)
        if _precedence(node.operand) < _ATOM_PRECEDENCE:
            inner = f"({inner})"
        return f"!{inner}"
    if isinstance(node, Degrees):
        inner = _emit(node.operand, legacy)
        if _precedence(node.operand) < _ATOM_PRECEDENCE:
            inner = f"({inner})"
        return f"{inner}°"
    if isinstance(node, PointLit):
        return f"({_emit(node.x, legacy)}{'; ' if node.polar else ', '}{_emit(node.y, legacy)})"
    if isinstance(node, ListLit):
        return "{" + ", ".join(_emit(item, legacy) for item in node.items) + "}"
    if isinstance(node, Str):
        return _quote(node.value)
    if isinstance(node, Bool):
        return "true" if node.value else "false"
    if isinstance(node, Const):
        return "pi"
    if isinstance(node, Equation):
        return f"{_emit(node.left, legacy)} = {_emit(node.right, legacy)}"
    if isinstance(node, FunctionDef):
        return _emit(node.body, legacy)
    raise TypeError(f"not a GeoGebra syntax node: {node!r}")


def to_source(node: Expr | Statement, *, legacy: bool = False) -> str:
    """Write a node back as GeoGebra input: modern ``Cmd(...)`` or GeoGebra 4 ``Cmd[...]``.

    Parentheses appear only where the tree needs them, so ``parse_line(to_source(s)) == s``.
    """
    if isinstance(node, Statement):
        body = _emit(node.expr, legacy)
        if isinstance(node.expr, FunctionDef):
            params = node.expr.var.replace(",", ", ")
            return f"{_canonical_label(node.labels[0])}({params}) = {body}"
        if isinstance(node.expr, Equation):
            if not node.labels:
                return body
            return f"{_canonical_label(node.labels[0])}: {body}"
        if not node.labels:
            return body
        return ", ".join(_canonical_label(label) for label in node.labels) + " = " + body
    return _emit(node, legacy)


# ---------------------------------------------------------------------------------------------
# Markdown answers.

_SCRIPT_TAGS = frozenset({"geogebra", "ggb"})


def extract_code_with_offsets(text: str) -> tuple[str, list[int]]:
    """Like extract_code, plus the 1-based line in ``text`` of each line of the code.

    Errors from parse_script on the extracted code can then point into the model's answer.
    """
    lines = text.split("\n")
    tagged: list[int] = []
    untagged: list[int] = []
    found_tagged = found_untagged = False
    block: list[int] | None = None
    fence_char = ""
    fence_len = 0
    for index, raw in enumerate(lines):
        stripped = raw.strip()
        if block is None:
            if stripped.startswith(("```", "~~~")):
                char = stripped[0]
                length = len(stripped) - len(stripped.lstrip(char))
                info = stripped[length:].strip()
                if char == "`" and "`" in info:
                    continue  # inline code such as ```x```, not a fence
                words = info.split()
                if not words:
                    block = untagged
                    found_untagged = True
                elif words[0].lower() in _SCRIPT_TAGS:
                    block = tagged
                    found_tagged = True
                else:
                    block = []  # another language: read through it and drop it
                fence_char, fence_len = char, length
        elif stripped.startswith(fence_char * fence_len) and not stripped.strip(fence_char):
            block = None
        else:
            block.append(index)
    chosen = tagged if found_tagged else untagged
    if not (found_tagged or found_untagged):
        return text, list(range(1, len(lines) + 1))
    code = "\n".join(lines[i].removesuffix("\r") for i in chosen)
    return code, [i + 1 for i in chosen]


def extract_code(text: str) -> str:
    """The GeoGebra script in a model's answer.

    Fenced blocks tagged geogebra/ggb win, then untagged fences, else the whole answer is taken
    to be the script (models often answer with bare commands). An unclosed final fence runs
    to the end, as truncated answers end mid-block.
    """
    return extract_code_with_offsets(text)[0]
