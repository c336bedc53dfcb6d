"""A GeoGebra script line as tokens: one linear-time pass (no backtracking pattern), with the
limits a script is read under and the errors reading it raises.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

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
