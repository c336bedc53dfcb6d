"""The syntax tree of a GeoGebra script line (hashable values; positions do not count in
equality), its serialisation back to source, and the code blocks of a Markdown answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from geomeval.geogebra.tokenizer import (
    MATH_FUNCTIONS,
    ParseError,
    _tokenize,
)


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


def split_blocks(text: str) -> list[tuple[int, str]]:
    """The command blocks of an answer, each with the line number it starts after.

    Fenced ```geogebra (or ```ggb) blocks when there are any, else untagged fenced blocks,
    else the whole text as one block. Keeping the offset lets errors name the line of the
    original answer.
    """
    if "```" not in text:
        return [(0, text)]
    tagged: list[tuple[int, str]] = []
    untagged: list[tuple[int, str]] = []
    lines = text.split("\n")
    inside: list[str] | None = None
    start = 0
    is_tagged = False
    for number, line in enumerate(lines):
        stripped = line.strip()
        if inside is None and stripped.startswith("```"):
            info = stripped[3:].strip().lower()
            inside, start = [], number + 1
            is_tagged = info in ("geogebra", "ggb", "geogebrascript", "ggbscript")
            continue
        if inside is not None and stripped.startswith("```"):
            (tagged if is_tagged else untagged).append((start, "\n".join(inside)))
            inside = None
            continue
        if inside is not None:
            inside.append(line)
    if inside is not None:
        (tagged if is_tagged else untagged).append((start, "\n".join(inside)))
    return tagged or untagged or [(0, text)]


def _shift(entry: ParsedLine, offset: int) -> ParsedLine:
    if isinstance(entry, ParseError):
        return type(entry)(entry.line + offset, entry.col, entry.message, entry.source)
    return Statement(entry.line + offset, entry.col, entry.labels, entry.expr, entry.source)
