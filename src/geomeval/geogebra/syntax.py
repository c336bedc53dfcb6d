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
from dataclasses import dataclass
from typing import cast

from geomeval.geogebra.nodes import (
    BinOp,
    Bool,
    Call,
    Const,
    Degrees,
    Equation,
    Expr,
    FunctionDef,
    ListLit,
    Name,
    Neg,
    Not,
    Num,
    ParsedLine,
    PointLit,
    Statement,
    Str,
    extract_code,
    extract_code_with_offsets,
    to_source,
)
from geomeval.geogebra.tokenizer import (
    _BOOLEANS,
    _CONSTANTS,
    _DEFAULT_LIMITS,
    _EQUATION_LABELS,
    _HINTS,
    MATH_FUNCTIONS,
    ParseError,
    ScriptLimits,
    ScriptTooLarge,
    _Tok,
    _tokenize,
)

# Parsed here; the tree, tokens and limits live in `nodes` and `tokenizer`, named here too.
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
    "Not",
    "Num",
    "ParseError",
    "ParsedLine",
    "PointLit",
    "ScriptLimits",
    "ScriptTooLarge",
    "Statement",
    "Str",
    "_tokenize",
    "extract_code",
    "extract_code_with_offsets",
    "parse_line",
    "parse_script",
    "to_source",
]


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
# tests/engines/test_ggb_syntax.py checks both ways give the same tree, positions included.
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
