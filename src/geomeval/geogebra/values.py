"""What the executor does with values between commands: GeoGebra's command table, arithmetic and
comparison on numbers, points, vectors and symbolic expressions, how derived objects are
named, and the hints for commands models invent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from geomeval.geogebra import algebra as alg
from geomeval.geogebra import commands as cmds
from geomeval.geogebra import syntax as sx
from geomeval.geogebra.algebra import Sym
from geomeval.geogebra.analytic import ANALYTIC_COMMANDS
from geomeval.geogebra.commands import (
    AngleValue,
    LimitReached,
    Moved,
    ScriptError,
    Value,
    value_text,
)
from geomeval.geogebra.objects import (
    NAN,
    Geo,
    GeoAngle,
    GeoBoolean,
    GeoCircle,
    GeoConicPart,
    GeoFunction,
    GeoLine,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoRay,
    GeoSegment,
    GeoText,
    GeoVector,
)
from geomeval.geogebra.style import STYLE_COMMANDS

# The basic table and the conics', functions' and curves' commands (analytic.py builds on
# commands.py, so the two tables meet here).
COMMANDS = {**cmds.COMMANDS, **ANALYTIC_COMMANDS}


@dataclass(eq=False)  # definitions are told apart by identity (two can read alike)
class _Definition:
    labels: list[str]
    expr: sx.Expr
    deps: set[str]
    line: int
    indices: list[int] = field(default_factory=list)  # which command outputs the labels name
    moved: bool = False  # a transformed copy: its vertices are separate objects in GeoGebra


NameRule = str | None | Callable[[list[str]], str | None]


def _side_name(first_vertex: int, side: int, count: int, named: int) -> NameRule:
    """The name of side `side` of a transformed polygon, from the labels its new vertices got
    (claimed just before the sides): a triangle's side after its opposite vertex, other
    polygons' after their start vertex, lower-cased, as GeoGebra does."""
    if named != count:
        return None
    vertex = (side + 2) % 3 if count == 3 else side

    def rule(labels: list[str]) -> str | None:
        index = first_vertex + vertex
        return labels[index].lower() if index < len(labels) else None

    return rule


def _settle(value: Value) -> Value:
    """A transformation used inside another command is just its image."""
    if isinstance(value, Moved):
        return value.transform.apply(value.source)
    return value


def _primed(label: str | None) -> str | None:
    return label + "'" if label else None


def _intersection_key(stmt: sx.Statement) -> tuple[str, ...] | None:
    expr = stmt.expr
    if not (isinstance(expr, sx.Call) and expr.name == "Intersect" and len(expr.args) == 2):
        return None
    if not all(isinstance(arg, sx.Name) for arg in expr.args):
        return None
    return tuple(sorted(arg.name for arg in expr.args))  # type: ignore[union-attr]


# GeoGebra's built-in axes, as lines a x + b y + c = 0 with direction (b, -a) like its own.
_AXES: dict[str, Callable[[], GeoLine]] = {
    "xAxis": lambda: GeoLine((0.0, 0.0), (1.0, 0.0)),
    "yAxis": lambda: GeoLine((0.0, 0.0), (0.0, -1.0)),
}


def _as_function(value: Value) -> Value:
    """An expression in x passed to a command (Root(f - 1)) is a function there."""
    if isinstance(value, Sym):
        if value.has("y"):
            raise ScriptError("Invalid input: an expression in x and y is no function")
        return GeoFunction(value)
    return value


def _mentions_xy(node: sx.Expr) -> bool:
    """Whether x or y appear as variables (not as x(A)) in a line's expression."""
    if isinstance(node, sx.Name):
        return node.name in ("x", "y")
    if isinstance(node, sx.BinOp):
        return _mentions_xy(node.left) or _mentions_xy(node.right)
    if isinstance(node, (sx.Neg, sx.Not, sx.Degrees)):
        return _mentions_xy(node.operand)
    if isinstance(node, sx.Call):
        return any(_mentions_xy(a) for a in node.args)
    return False


def _stub(definition: _Definition) -> sx.Statement:
    return sx.Statement(definition.line, 1, tuple(definition.labels), definition.expr, "")


def _defined_stand_in(geo: Geo) -> Geo:
    if isinstance(geo, GeoSegment):
        return GeoSegment((0.0, 0.0), (1.0, 0.0))
    if isinstance(geo, GeoRay):
        return GeoRay((0.0, 0.0), (1.0, 0.0))
    if isinstance(geo, GeoLine):
        return GeoLine((0.0, 0.0), (1.0, 0.0))
    if isinstance(geo, GeoConicPart):
        return GeoConicPart((0.0, 0.0), 1.0, 0.0, 1.0, geo.sector)
    if isinstance(geo, GeoCircle):
        return GeoCircle((0.0, 0.0), 1.0)
    if isinstance(geo, GeoVector):
        return GeoVector(1.0, 0.0)
    if isinstance(geo, GeoPolygon):
        return GeoPolygon([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)])
    if isinstance(geo, GeoAngle):
        return GeoAngle(1.0)
    if isinstance(geo, GeoNumber):
        return GeoNumber(1.0)
    return geo


_COMMAND_NAMES = {name.lower(): name for name in (*COMMANDS, *STYLE_COMMANDS, "Sum")}


# Commands models often invent, with what GeoGebra offers instead.
_HINTS = {
    "parallelline": "Line(<point>, <parallel line>)",
    "parallel": "Line(<point>, <parallel line>)",
    "perpendicular": "PerpendicularLine(<point>, <line>)",
    "orthocenter": "the intersection of two PerpendicularLine altitudes",
    "incenter": "Intersect(AngleBisector(B, A, C), AngleBisector(A, B, C))",
    "circumcenter": "Center(Circle(A, B, C))",
    "circlethroughpoints": "Circle(A, B, C)",
    "circumcircle": "Circle(A, B, C)",
    "triangle": "Polygon(A, B, C)",
    "regularpolygon": "Polygon(A, B, n)",
}


def _suggest(name: str) -> str | None:
    return _HINTS.get(name.lower())


def _is_angle(value: Value) -> bool:
    return isinstance(value, (AngleValue, GeoAngle))


def _negate(value: Value) -> Value:
    if isinstance(value, GeoFunction) and value.body is not None:
        value = value.body
    if isinstance(value, Sym):
        return alg.negate(value)
    if cmds.is_number(value):
        return AngleValue(-cmds.num(value)) if _is_angle(value) else -cmds.num(value)
    if isinstance(value, GeoPoint):
        return GeoPoint(-value.x, -value.y)
    if isinstance(value, GeoVector):
        return GeoVector(-value.x, -value.y)
    raise ScriptError(f"cannot negate {cmds._kind(value)}")


def _as_number(value: Value) -> Value:
    """GeoGebra reads a segment as its length, a polygon as its area, an arc as its value."""
    if isinstance(value, GeoSegment):
        return value.length
    if isinstance(value, GeoPolygon):
        return value.area
    if isinstance(value, GeoConicPart):
        return value.value
    return value


# GeoGebra's comparisons allow for rounding: two values this close are equal.
_EPSILON = 1e-8


# Free objects a circular redefinition sets to the expression's current value (GeoGebra 4.0).
_VALUE_ASSIGNABLE = (GeoNumber, GeoPoint, GeoVector, GeoBoolean)


_COMPARE: dict[str, Callable[[float], bool]] = {
    "==": lambda d: abs(d) < _EPSILON,
    "!=": lambda d: abs(d) >= _EPSILON,
    "<": lambda d: d < -_EPSILON,
    ">": lambda d: d > _EPSILON,
    "<=": lambda d: d < _EPSILON,
    ">=": lambda d: d > -_EPSILON,
}


def _compare(op: str, left: Value, right: Value) -> bool:
    """A comparison's boolean; ``==``/``!=`` also compare points, vectors, texts, booleans."""
    test = _COMPARE[op]
    left, right = _as_number(left), _as_number(right)
    if cmds.is_number(left) and cmds.is_number(right):
        return test(cmds.num(left) - cmds.num(right))
    if op in ("==", "!="):
        same: bool | None = None
        if isinstance(left, (GeoPoint, GeoVector)) and isinstance(right, type(left)):
            same = abs(left.x - right.x) < _EPSILON and abs(left.y - right.y) < _EPSILON
        elif isinstance(left, (str, GeoText)) and isinstance(right, (str, GeoText)):
            same = value_text(left) == value_text(right)
        elif isinstance(left, (bool, GeoBoolean)) and isinstance(right, (bool, GeoBoolean)):
            same = cmds.boolean(left) == cmds.boolean(right)
        if same is not None:
            return same if op == "==" else not same
    raise ScriptError(f"cannot compare {cmds._kind(left)} {op} {cmds._kind(right)}")


def _symbolic_operand(value: Value) -> Sym | float | None:
    if isinstance(value, Sym):
        return value
    if isinstance(value, GeoFunction):
        return value.body
    value = _as_number(value)
    if cmds.is_number(value):
        return cmds.num(value)
    return None


def _binop(op: str, left: Value, right: Value) -> Value:
    if isinstance(left, (Sym, GeoFunction)) or isinstance(right, (Sym, GeoFunction)):
        a, b = _symbolic_operand(left), _symbolic_operand(right)
        if a is None or b is None or op not in ("+", "-", "*", "/", "^"):
            raise ScriptError(
                f"cannot apply {op} to {cmds._kind(left)} and {cmds._kind(right)}"
            )
        return alg.combine(op, a, b)
    if op in _COMPARE:
        return _compare(op, left, right)
    if op == "&&" or op == "||":
        if not all(isinstance(v, (bool, GeoBoolean)) for v in (left, right)):
            raise ScriptError(f"{op} joins booleans, not {cmds._kind(left)} and {cmds._kind(right)}")
        a, b = cmds.boolean(left), cmds.boolean(right)
        return (a and b) if op == "&&" else (a or b)
    if op == "+" and (isinstance(left, (str, GeoText)) or isinstance(right, (str, GeoText))):
        joined = value_text(left) + value_text(right)
        if len(joined) > cmds.MAX_TEXT_CHARS:
            raise LimitReached(f"a text of more than {cmds.MAX_TEXT_CHARS} characters")
        return joined
    left, right = _as_number(left), _as_number(right)
    if cmds.is_number(left) and cmds.is_number(right):
        result = _arith(op, cmds.num(left), cmds.num(right))
        angle_left, angle_right = _is_angle(left), _is_angle(right)
        stays_angle = (
            (op in "+-" and (angle_left or angle_right))
            or (op == "*" and angle_left != angle_right)
            or (op == "/" and angle_left and not angle_right)
        )
        return AngleValue(result) if stays_angle else result
    pointish = (GeoPoint, GeoVector)
    if op in "+-" and isinstance(left, pointish) and isinstance(right, pointish):
        sign = 1 if op == "+" else -1
        x, y = left.x + sign * right.x, left.y + sign * right.y
        if isinstance(left, GeoVector) and isinstance(right, GeoVector):
            return GeoVector(x, y)
        return GeoPoint(x, y)
    if op == "*" and isinstance(left, pointish) and isinstance(right, pointish):
        return left.x * right.x + left.y * right.y
    if op in "*/" and isinstance(left, pointish) and cmds.is_number(right):
        k = cmds.num(right)
        if op == "/":
            k = 1 / k if k != 0 else NAN
        return type(left)(left.x * k, left.y * k)
    if op == "*" and cmds.is_number(left) and isinstance(right, pointish):
        k = cmds.num(left)
        return type(right)(right.x * k, right.y * k)
    raise ScriptError(f"cannot apply {op} to {cmds._kind(left)} and {cmds._kind(right)}")


def _arith(op: str, a: float, b: float) -> float:
    try:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b if b != 0 else NAN
        if op == "^":
            result = a**b
            return result if isinstance(result, float) else NAN
    except (OverflowError, ZeroDivisionError):
        return NAN
    raise ScriptError(f"unknown operator {op}")
