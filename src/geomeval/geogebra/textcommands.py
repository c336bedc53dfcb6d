"""GeoGebra's commands on texts, lists and logic (Text, Sequence, Element, If), and how a value
prints as GeoGebra shows it.
"""

from __future__ import annotations

import math

from geomeval.geogebra.arguments import (
    AngleValue,
    CommandError,
    Context,
    LimitReached,
    Value,
    _geo_list,
    _is_list,
    boolean,
    illegal,
    is_number,
    is_point,
    match,
    num,
)
from geomeval.geogebra.objects import (
    NAN,
    Geo,
    GeoAngle,
    GeoBoolean,
    GeoList,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoSegment,
    GeoText,
    GeoVector,
)


def format_number(value: float) -> str:
    """GeoGebra's default display: two decimals, trailing zeros dropped."""
    if not math.isfinite(value):
        return "?"
    text = f"{round(value, 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


MAX_TEXT_CHARS = 100_000


"""The longest text a script may build (joined or converted): longer is a LimitReached."""


def value_text(value: Value) -> str:
    """How a value reads when joined to a text (GeoGebra's value string); a list's text stops
    with a LimitReached as soon as it passes MAX_TEXT_CHARS, before it is built whole."""
    if isinstance(value, (GeoList, list)):
        parts: list[str] = []
        total = 2
        for element in value.elements if isinstance(value, GeoList) else value:
            part = value_text(element)
            total += len(part) + 2
            if total > MAX_TEXT_CHARS:
                raise LimitReached(f"a text of more than {MAX_TEXT_CHARS} characters")
            parts.append(part)
        return "{" + ", ".join(parts) + "}"
    return _scalar_text(value)


def _scalar_text(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, AngleValue):
        return format_number(math.degrees(float(value) % (2 * math.pi))) + "°"
    if isinstance(value, (int, float)):
        return format_number(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, GeoText):
        return value.text
    if isinstance(value, GeoAngle):
        if not value.defined:
            return "?"
        return format_number(math.degrees(value.value % (2 * math.pi))) + "°"
    if isinstance(value, GeoNumber):
        return format_number(value.value)
    if isinstance(value, GeoBoolean):
        return "true" if value.value else "false"
    if isinstance(value, Geo) and not value.defined:
        return "?"
    if isinstance(value, GeoPoint) and value.polar:
        theta = math.degrees(math.atan2(value.y, value.x)) % 360
        return f"({format_number(math.hypot(value.x, value.y))}; {format_number(theta)}°)"
    if isinstance(value, GeoPoint):
        return f"({format_number(value.x)}, {format_number(value.y)})"
    if isinstance(value, GeoVector):
        return f"({format_number(value.x)}, {format_number(value.y)})"
    if isinstance(value, GeoSegment):
        return format_number(value.length)
    if isinstance(value, GeoPolygon):
        return format_number(value.area)
    if isinstance(value, Geo):
        return value.describe()
    return str(value)


def cmd_text(ctx: Context, args: list[Value]) -> Value:
    if not args or len(args) > 2:
        raise illegal("Text", args)
    position = None
    if len(args) == 2:
        if not is_point(args[1]):
            raise illegal("Text", args)
        position = args[1].xy
    return GeoText(value_text(args[0]), position)


def cmd_sequence(ctx: Context, args: list[Value]) -> Value:
    # Evaluated by the executor (it binds the variable); this only covers Sequence(n).
    if match(args, is_number):
        n = num(args[0])
        if not math.isfinite(n) or n < 1:
            return []
        return sequence_values(1.0, float(math.floor(n)), 1.0, ctx.max_sequence)
    raise illegal("Sequence", args)


def sequence_values(start: float, end: float, step: float, limit: int) -> list[float]:
    """The values Sequence(expr, k, start, end, step) visits, refusing more than `limit`."""
    if step == 0 or not all(map(math.isfinite, (start, end, step))):
        raise CommandError("Sequence: the step must be a finite non-zero number")
    count = math.floor((end - start) / step + 1e-9) + 1
    if count > limit:
        raise CommandError(f"Sequence: {count} elements is more than the limit of {limit}")
    return [start + k * step for k in range(max(count, 0))]


def cmd_element(ctx: Context, args: list[Value]) -> Value:
    if match(args, _is_list, is_number):
        items = _geo_list(args[0])
        index = int(num(args[1]))
        if 1 <= index <= len(items):
            return items[index - 1]
        return NAN
    raise illegal("Element", args)


def cmd_if(ctx: Context, args: list[Value]) -> Value:
    if len(args) in (2, 3) and isinstance(args[0], (bool, GeoBoolean)):
        if boolean(args[0]):
            return args[1]
        return args[2] if len(args) == 3 else NAN
    raise illegal("If", args)
