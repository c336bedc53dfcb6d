"""Rewrite LaTeX and unicode math into the plain syntax that `mathexpr` parses.

Answers arrive as `\\frac{3\\sqrt3}{2}`, `(3√3)/2`, `25°39'` or `２√５`; one small
rewriting pass maps all of them to a single ASCII-ish form so that the value
parser stays simple. Everything here is bounded: input length, brace nesting
and the number of commands are capped, and an unsupported command raises
`Unsupported` so the caller can fall back to the symbolic checker.
"""

from __future__ import annotations

import re
import unicodedata

MAX_TEXT_CHARS = 600
MAX_DEPTH = 24


class Unsupported(ValueError):
    """The text holds math that the fast path does not understand."""


_SUPERSCRIPTS = str.maketrans({"²": "^2", "³": "^3", "¹": "^1", "⁰": "^0", "⁴": "^4"})
_UNICODE = {
    "√": " sqrt ",
    "π": " pi ",
    "×": "*",
    "·": "*",
    "⋅": "*",
    "∙": "*",
    "÷": "/",
    "−": "-",
    "–": "-",
    "—": "-",
    "º": "°",
    "˚": "°",
    "′": "'",
    "’": "'",
    "″": '"',
    "（": "(",
    "）": ")",
    "，": ",",
    "；": ";",
    "：": ":",
    "．": ".",
    "～": "~",
}

_TEXT_COMMANDS = frozenset(
    {"text", "mathrm", "textrm", "textbf", "mathbf", "mathit", "textit", "operatorname", "mbox",
     "boxed", "fbox", "mathbb", "rm", "bf", "it"}
)
_REPLACEMENTS = {
    "pi": " pi ",
    "cdot": "*",
    "times": "*",
    "ast": "*",
    "div": "/",
    "degree": "°",
    "circ": "°",
    "approx": "≈",
    "sin": " sin ",
    "cos": " cos ",
    "tan": " tan ",
    "angle": "∠",
    "triangle": "△",
    "%": "%",
    "{": "(",
    "}": ")",
    "prime": "'",
    "infty": " inf ",
    "neq": "≠",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "pm": "±",
    "colon": ":",
}
_DROPPED = frozenset(
    {"left", "right", "displaystyle", "textstyle", ",", ";", "!", " ", ":", "quad", "qquad",
     "big", "Big", "bigl", "bigr", "Bigl", "Bigr", "(", ")", "[", "]", "$"}
)
_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
_DEGREE_MARK = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\^\s*\{\s*°\s*\}|\^\s*°")


def to_plain(text: str) -> str:
    """Return `text` with LaTeX commands and unicode symbols rewritten to plain syntax."""
    if len(text) > MAX_TEXT_CHARS:
        raise Unsupported(f"answer longer than {MAX_TEXT_CHARS} characters")
    text = text.translate(_SUPERSCRIPTS)
    text = unicodedata.normalize("NFKC", text)
    for src, dst in _UNICODE.items():
        if src in text:
            text = text.replace(src, dst)
    text = _DEGREE_MARK.sub("°", text)
    if "\\" in text or "{" in text:
        text = _delatex(text, 0)
    return text


def _read_group(text: str, i: int) -> tuple[str, int]:
    """Read one macro argument at `i`: a balanced {...} group, a command, or one character."""
    n = len(text)
    while i < n and text[i] == " ":
        i += 1
    if i >= n:
        raise Unsupported("missing argument")
    if text[i] == "{":
        depth = 0
        for j in range(i, n):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    return text[i + 1 : j], j + 1
        raise Unsupported("unbalanced braces")
    if text[i] == "\\":
        m = _COMMAND.match(text, i)
        if m is None:  # a backslash that ends the text (`\\sqrt\\`): nothing to read
            raise Unsupported("dangling backslash")
        return m.group(0), m.end()
    return text[i], i + 1


def _read_bracket(text: str, i: int) -> tuple[str | None, int]:
    if i < len(text) and text[i] == "[":
        end = text.find("]", i)
        if end < 0:
            raise Unsupported("unbalanced [")
        return text[i + 1 : end], end + 1
    return None, i


def _delatex(text: str, depth: int) -> str:
    if depth > MAX_DEPTH:
        raise Unsupported("nesting too deep")
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            m = _COMMAND.match(text, i)
            if m is None:
                raise Unsupported("dangling backslash")
            name, i = m.group(1), m.end()
            if name in ("frac", "dfrac", "tfrac", "cfrac"):
                num, i = _read_group(text, i)
                den, i = _read_group(text, i)
                out.append(f"(({_delatex(num, depth + 1)})/({_delatex(den, depth + 1)}))")
            elif name == "sqrt":
                index, i = _read_bracket(text, i)
                arg, i = _read_group(text, i)
                inner = _delatex(arg, depth + 1)
                if index is None:
                    out.append(f" sqrt({inner})")
                else:
                    out.append(f"(({inner})^(1/({_delatex(index, depth + 1)})))")
            elif name in _TEXT_COMMANDS:
                arg, i = _read_group(text, i)
                out.append(_delatex(arg, depth + 1))
            elif name in _REPLACEMENTS:
                out.append(_REPLACEMENTS[name])
            elif name in _DROPPED:
                continue
            else:
                raise Unsupported(f"LaTeX command \\{name}")
        elif c == "{":
            out.append("(")
            i += 1
        elif c == "}":
            out.append(")")
            i += 1
        elif c == "$":
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)
