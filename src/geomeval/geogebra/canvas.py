"""What a GeoGebra figure is drawn with: sizes, colours and bounds, the objects to draw and
their extents, clipping to the view, and the labels objects show.
"""

from __future__ import annotations

import io
import itertools
import math
import re
from collections.abc import Iterator, Sequence
from typing import Literal

import numpy as np
from PIL import Image

from geomeval.engines.fonts import font_family
from geomeval.geogebra.commands import format_number, value_text
from geomeval.geogebra.construction import Construction
from geomeval.geogebra.objects import (
    LINE_STYLES,
    Geo,
    GeoAngle,
    GeoBoolean,
    GeoCircle,
    GeoConic,
    GeoConicPart,
    GeoFunction,
    GeoFunctionNVar,
    GeoImplicitPoly,
    GeoLine,
    GeoList,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoSegment,
    GeoText,
    GeoVector,
    Style,
)

Vec = tuple[float, float]


Window = tuple[float, float, float, float]


Size = tuple[int, int]


RGB = tuple[float, float, float]


# At 72 dpi one matplotlib point is one pixel, so every size below is in pixels, and
# int(w / 72 * 72) == w for every width up to MAX_SIDE (at 100 dpi it is not: 29 px
# would come out as 28).
DPI = 72


MIN_SIDE = 16


MAX_SIDE = 4096


MAX_OBJECTS = 5_000


MAX_POLYGON_VERTICES = 10_000


MAX_LIST_DEPTH = 8


# Labels beyond this many are left out: text is the slow part of a render, and hundreds of
# labels are unreadable anyway.
MAX_LABELS = 300


# Drawing text is work counted in characters, never time: each line of a left-aligned text or
# label is drawn up to as many characters as the image is wide in pixels (no glyph at these
# sizes advances less than a pixel, so the rest lies past the image's edge), of a right-aligned
# one from as many last characters, and a figure draws at most MAX_TEXT_CHARS_DRAWN characters of texts and
# labels in all (later ones are left out): a 4-line script can make thousands of
# 60,000-character texts, which took minutes and gigabytes to draw.
MAX_TEXT_CHARS_DRAWN = 8_000


MAX_LONG_STEPS = 64


# Function graphs take at most this many samples; conics and implicit curves are traced on a
# grid of CURVE_GRID² values over the view.
CURVE_SAMPLES = 4_000


CURVE_GRID = 400


CURVE_T = 50.0


MAX_LONG_WIDTH = 32_768


MAX_STEP_IMAGE_PIXELS = 50_000_000  # a drawn step image larger than this is refused, not decoded


STEP_TITLE_HEIGHT = 32


# Beyond this a coordinate is treated as "far away": it cannot widen a fitted view.
MAX_COORDINATE = 1e12


DEFAULT_WINDOW: Window = (-1.0, -1.0, 10.0, 8.0)


FIT_MARGIN = 0.1


# The span given to a view whose objects all sit on one spot (a single point).
SINGLE_POINT_SPAN = 4.0


# A circle with a radius this many times the other objects' extent is left out of the fit.
HUGE_CIRCLE_FACTOR = 20.0


# GeoGebra-like default colours by kind (GeoGebra 5's construction defaults).
FREE_POINT_COLOR = (21, 101, 192)


DEPENDENT_POINT_COLOR = (97, 97, 97)


LINE_COLOR = (0, 0, 0)


POLYGON_COLOR = (153, 51, 0)


SECTOR_COLOR = (153, 51, 0)


ANGLE_COLOR = (0, 125, 0)


TEXT_COLOR = (0, 0, 0)


ERROR_COLOR = (200, 0, 0)


# Default fill opacity when `Style.filling` is None.
POLYGON_FILLING = 0.1


SECTOR_FILLING = 0.1


ANGLE_FILLING = 0.1


CIRCLE_FILLING = 0.0


# GeoGebra shows labels for new points only; angles also show their value, since an angle
# arc without its measure tells a judge little. Everything else needs ShowLabel.
LABELED_BY_DEFAULT = ("point", "angle")


DEFAULT_THICKNESS = 5


THICKNESS_TO_PX = 0.4  # GeoGebra thickness 5 -> 2 px


DEFAULT_POINT_SIZE = 5


ANGLE_ARC_PX = 30.0  # GeoGebra's default angle arc size


LABEL_PX = 14.0


TEXT_PX = 14.0


TITLE_PX = 16.0


FOOTER_PX = 11.0


FOOTER_MAX_LINES = 6


FONT = list(font_family())  # DejaVu Sans, then a CJK fallback when the system has one (geomeval.engines.fonts)


# Dash patterns in pixels, per GeoGebra line-style name.
DASHES: dict[str, tuple[float, ...]] = {
    "dashed_long": (8.0, 6.0),
    "dashed_short": (4.0, 4.0),
    "dotted": (1.5, 3.0),
    "dash_dot": (8.0, 4.0, 1.5, 4.0),
}


# (matplotlib marker, filled, size factor) per GeoGebra point style 0..9.
POINT_MARKERS: dict[int, tuple[str, bool, float]] = {
    0: ("o", True, 1.0),
    1: ("x", False, 1.0),
    2: ("o", False, 1.0),
    3: ("+", False, 1.2),
    4: ("D", True, 0.85),
    5: ("D", False, 0.85),
    6: ("^", True, 1.1),
    7: ("v", True, 1.1),
    8: (">", True, 1.1),
    9: ("<", True, 1.1),
}


# Drawing order, bottom to top: GeoGebra draws fills first and points on top.
Z_GRID, Z_AXES = 0.0, 0.5


Z_FILL, Z_ANGLE, Z_OUTLINE, Z_CONIC, Z_LINE, Z_VECTOR = 1.0, 1.5, 2.0, 2.5, 3.0, 3.5


Z_POINT, Z_TEXT, Z_LABEL = 5.0, 6.0, 7.0


TAU = 2 * math.pi


def finite_point(x: float, y: float) -> bool:
    return math.isfinite(x) and math.isfinite(y)


def _check_size(size: Sequence[int]) -> Size:
    if not isinstance(size, (tuple, list)) or len(size) != 2:
        raise ValueError(f"size must be (width, height), got {size!r}")
    width, height = size
    for side in (width, height):
        if isinstance(side, bool) or not isinstance(side, (int, np.integer)):
            raise ValueError(f"size must be two ints, got {size!r}")
        if not MIN_SIDE <= side <= MAX_SIDE:
            raise ValueError(
                f"image size {width}x{height} is out of range: each side must be "
                f"{MIN_SIDE}..{MAX_SIDE} px"
            )
    return int(width), int(height)


def _valid_window(window: Sequence[float]) -> bool:
    """Finite, non-empty, and within ±MAX_COORDINATE, so its spans and scales are finite."""
    try:
        xmin, ymin, xmax, ymax = (float(v) for v in window)
    except (TypeError, ValueError):
        return False
    return (
        all(math.isfinite(v) and abs(v) <= MAX_COORDINATE for v in (xmin, ymin, xmax, ymax))
        and xmin < xmax
        and ymin < ymax
    )


def _to_aspect(window: Window, aspect: float) -> Window:
    """Widen the short side so that x and y units are equal on an image of `aspect`."""
    xmin, ymin, xmax, ymax = window
    w, h = xmax - xmin, ymax - ymin
    cx, cy = (xmin + xmax) / 2, (ymin + ymax) / 2
    if w / h < aspect:
        w = h * aspect
    else:
        h = w / aspect
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def _png(image: Image.Image) -> bytes:
    """Encode without any metadata chunk, so equal pixels give equal bytes."""
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=6, optimize=False)
    return out.getvalue()


def _rgb(color: tuple[int, int, int] | None, default: tuple[int, int, int]) -> RGB:
    r, g, b = color if color is not None else default
    return (_channel(r), _channel(g), _channel(b))


def _channel(value: float) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return 0.0
    return min(max(v, 0.0), 255.0) / 255.0 if math.isfinite(v) else 0.0


def _filling(style: Style, default: float) -> float:
    value = style.filling if style.filling is not None else default
    try:
        value = float(value)
    except (TypeError, ValueError):
        return default
    return min(max(value, 0.0), 1.0) if math.isfinite(value) else default


def _line_px(style: Style) -> float:
    thickness = style.line_thickness if style.line_thickness is not None else DEFAULT_THICKNESS
    return min(max(float(thickness), 0.0), 30.0) * THICKNESS_TO_PX


def _dashes(style: Style, line_px: float) -> tuple[float, tuple[float, ...]] | Literal["solid"]:
    pattern = DASHES.get(LINE_STYLES.get(style.line_style, "full"))
    if pattern is None or line_px <= 0:
        return "solid"
    # matplotlib scales dash lengths by the line width; undo that so they stay in pixels.
    return (0.0, tuple(length / line_px for length in pattern))


def _drawables(
    construction: Construction, labels: Sequence[str] | None
) -> Iterator[tuple[Geo, Style]]:
    """Visible, defined, drawable objects with the style to draw them in, lists flattened.

    A list's elements are drawn in the list's style, as GeoGebra does.
    """
    wanted = None if labels is None else set(labels)
    count = 0
    for label, geo in construction.objects.items():
        if wanted is not None and label not in wanted:
            continue
        for item in _flatten(geo, geo.style, 0):
            count += 1
            if count > MAX_OBJECTS:
                raise ValueError(
                    f"construction has more than {MAX_OBJECTS} drawable objects; "
                    "refusing to render it"
                )
            yield item


def _flatten(geo: Geo, style: Style, depth: int) -> Iterator[tuple[Geo, Style]]:
    if not style.visible or not geo.style.visible:
        return
    if isinstance(geo, GeoList):
        if depth >= MAX_LIST_DEPTH:
            return
        for element in geo.elements:
            yield from _flatten(element, style, depth + 1)
        return
    if isinstance(geo, GeoBoolean) or (
        isinstance(geo, GeoNumber) and not isinstance(geo, GeoAngle)
    ):
        return
    if isinstance(geo, GeoAngle) and geo.vertex is None:
        return
    if isinstance(geo, GeoPolygon) and len(geo.vertices) > MAX_POLYGON_VERTICES:
        raise ValueError(
            f"polygon {geo.label!r} has {len(geo.vertices)} vertices "
            f"(limit {MAX_POLYGON_VERTICES}); refusing to render it"
        )
    try:
        defined = geo.defined
    except Exception:
        return
    if defined:
        yield geo, style


def _extent_points(geo: Geo) -> Iterator[Vec]:
    """The points a fitted view must contain for `geo` to show."""
    if isinstance(geo, GeoPoint):
        yield geo.xy
    elif isinstance(geo, GeoSegment):
        yield geo.start
        yield geo.end
    elif isinstance(geo, GeoLine):  # lines and rays: the point that defines them
        yield geo.point
    elif isinstance(geo, GeoVector):
        sx, sy = geo.start if geo.start is not None else (0.0, 0.0)
        yield (sx, sy)
        yield (sx + geo.x, sy + geo.y)
    elif isinstance(geo, GeoConicPart):
        (cx, cy), r = geo.center, geo.radius
        start, sweep = geo.start_angle, geo.sweep
        if geo.sector:
            yield (cx, cy)
        for t in (start, start + sweep):
            yield (cx + r * math.cos(t), cy + r * math.sin(t))
        for quarter in range(4):
            t = quarter * math.pi / 2
            if (t - start) % TAU <= sweep:
                yield (cx + r * math.cos(t), cy + r * math.sin(t))
    elif isinstance(geo, GeoCircle):
        (cx, cy), r = geo.center, geo.radius
        yield (cx - r, cy - r)
        yield (cx + r, cy + r)
    elif isinstance(geo, GeoPolygon):
        yield from geo.vertices
    elif isinstance(geo, GeoAngle):
        if geo.vertex is not None:
            yield geo.vertex
    elif isinstance(geo, GeoText) and geo.position is not None:
        yield geo.position
    elif isinstance(geo, GeoConic):
        yield from _conic_extent(geo)
    elif isinstance(geo, GeoFunction) and not isinstance(geo, GeoFunctionNVar):
        for x in (-4.0, -2.0, 0.0, 2.0, 4.0):
            y = geo(x)
            if math.isfinite(y) and abs(y) <= 20:
                yield (x, y)


def _conic_extent(geo: GeoConic) -> Iterator[Vec]:
    """An ellipse's box; a hyperbola's vertices and foci; a parabola's vertex and focus."""
    from geomeval.geogebra import conics

    kind = geo.conic_type
    if kind in ("ellipse", "hyperbola"):
        e1, e2, a, b = conics.axes(geo)
        cx, cy = conics.center(geo.matrix)
        reach = a if kind == "ellipse" else math.hypot(a, b) * 1.5
        for s1, s2 in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            yield (cx + s1 * reach * e1[0] + s2 * b * e2[0], cy + s1 * reach * e1[1] + s2 * b * e2[1])
    elif kind == "parabola":
        vertex, w, p = conics.parabola_frame(geo.matrix)
        side = (-w[1], w[0])
        for t in (-4 * p, 4 * p):
            yield (vertex[0] + t * side[0] + 8 * p * w[0], vertex[1] + t * side[1] + 8 * p * w[1])
        yield vertex


def clip_parametric(
    p: Vec, d: Vec, t0: float, t1: float, rect: Window
) -> tuple[float, float] | None:
    """Liang–Barsky: the part [t0, t1] of p + t·d inside `rect`, or None."""
    xmin, ymin, xmax, ymax = rect
    for denom, num in (
        (-d[0], p[0] - xmin),
        (d[0], xmax - p[0]),
        (-d[1], p[1] - ymin),
        (d[1], ymax - p[1]),
    ):
        if denom == 0:
            if num < 0:
                return None
            continue
        t = num / denom
        if denom < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    if not (math.isfinite(t0) and math.isfinite(t1)):
        return None
    return t0, t1


def clip_polygon(points: Sequence[Vec], rect: Window) -> list[Vec]:
    """Sutherland–Hodgman: `points` (a closed polygon) cut to the rectangle."""
    xmin, ymin, xmax, ymax = rect
    edges = (
        (lambda q: q[0] >= xmin, lambda a, b: _cross_x(a, b, xmin)),
        (lambda q: q[0] <= xmax, lambda a, b: _cross_x(a, b, xmax)),
        (lambda q: q[1] >= ymin, lambda a, b: _cross_y(a, b, ymin)),
        (lambda q: q[1] <= ymax, lambda a, b: _cross_y(a, b, ymax)),
    )
    out = list(points)
    for inside, cross in edges:
        if not out:
            break
        source, out = out, []
        prev = source[-1]
        for cur in source:
            if inside(cur):
                if not inside(prev):
                    out.append(cross(prev, cur))
                out.append(cur)
            elif inside(prev):
                out.append(cross(prev, cur))
            prev = cur
    return out


def _cross_x(a: Vec, b: Vec, x: float) -> Vec:
    t = (x - a[0]) / (b[0] - a[0])
    return (x, a[1] + t * (b[1] - a[1]))


def _cross_y(a: Vec, b: Vec, y: float) -> Vec:
    t = (y - a[1]) / (b[1] - a[1])
    return (a[0] + t * (b[0] - a[0]), y)


def visible_arcs(
    center: Vec, radius: float, start: float, sweep: float, rect: Window
) -> list[tuple[float, float]]:
    """(start, sweep) pieces of the arc that lie inside `rect`, exactly, for any radius.

    The arc is cut where it crosses the rectangle's sides; each piece is kept when its
    middle is inside. This is what lets a circle a million times the view's size still
    show as the right short curve.
    """
    cx, cy = center
    xmin, ymin, xmax, ymax = rect
    cuts = {0.0, sweep}
    for value, base, use_cos in (
        (xmin, cx, True),
        (xmax, cx, True),
        (ymin, cy, False),
        (ymax, cy, False),
    ):
        d = (value - base) / radius
        if not -1.0 < d < 1.0:
            continue
        if use_cos:
            angles = (math.acos(d), -math.acos(d))
        else:
            angles = (math.asin(d), math.pi - math.asin(d))
        for angle in angles:
            rel = (angle - start) % TAU
            if 0.0 < rel < sweep:
                cuts.add(rel)
    ordered = sorted(cuts)
    pieces: list[tuple[float, float]] = []
    for a, b in itertools.pairwise(ordered):
        if b - a <= 0:
            continue
        mid = start + (a + b) / 2
        mx, my = cx + radius * math.cos(mid), cy + radius * math.sin(mid)
        if xmin <= mx <= xmax and ymin <= my <= ymax:
            if pieces and math.isclose(pieces[-1][0] + pieces[-1][1], start + a, abs_tol=1e-12):
                pieces[-1] = (pieces[-1][0], pieces[-1][1] + (b - a))
            else:
                pieces.append((start + a, b - a))
    # A full circle cut at angle 0: join the piece ending at 2π to the one starting at 0.
    if (
        len(pieces) >= 2
        and sweep >= TAU
        and math.isclose(pieces[0][0], start, abs_tol=1e-12)
        and math.isclose(pieces[-1][0] + pieces[-1][1], start + sweep, abs_tol=1e-12)
    ):
        last = pieces.pop()
        pieces[0] = (last[0], last[1] + pieces[0][1])
    return pieces


_SUBSCRIPTED = re.compile(r"([A-Za-z]+)_\{?([A-Za-z0-9]+)\}?")


def _shows_label(geo: Geo, style: Style) -> bool:
    if style.show_label is not None:
        return bool(style.show_label)
    return geo.kind in LABELED_BY_DEFAULT


def _name(label: str) -> tuple[str, bool]:
    """The label as GeoGebra shows it: A_1 with a real subscript, anything else verbatim."""
    match = _SUBSCRIPTED.fullmatch(label)
    if match:
        return rf"$\mathregular{{{match.group(1)}_{{{match.group(2)}}}}}$", True
    return label, False


def value_string(geo: Geo) -> str:
    """The value GeoGebra's label shows in "name = value" mode: lines and circles as
    equations, everything else as the executor writes values into texts."""
    if isinstance(geo, GeoLine) and not isinstance(geo, GeoSegment):
        return _line_equation(geo.a, geo.b, geo.c)
    if isinstance(geo, GeoConicPart):
        return format_number(geo.value)
    if isinstance(geo, GeoCircle):
        (cx, cy), r = geo.center, geo.radius
        return f"{_shifted('x', cx)}² + {_shifted('y', cy)}² = {format_number(r * r)}"
    return value_text(geo)


def _shifted(var: str, value: float) -> str:
    if format_number(value) == "0":
        return var
    sign = "-" if value > 0 else "+"
    return f"({var} {sign} {format_number(abs(value))})"


def _line_equation(a: float, b: float, c: float) -> str:
    """a·x + b·y = -c the way GeoGebra writes it: "2x - 3y = 5", "y = 1"."""
    terms: list[str] = []
    for coefficient, var in ((a, "x"), (b, "y")):
        text = format_number(abs(coefficient))
        if text == "0":
            continue
        sign = "-" if coefficient < 0 else "+"
        body = var if text == "1" else f"{text}{var}"
        if not terms:
            terms.append(f"-{body}" if sign == "-" else body)
        else:
            terms.append(f"{sign} {body}")
    return f"{' '.join(terms) or '0'} = {format_number(-c)}"


def _label_text(geo: Geo, style: Style) -> tuple[str, bool]:
    """(text, whether it holds mathtext) per `style.label_mode`."""
    name_text, is_math = _name(geo.label or "")
    equation = isinstance(
        geo, (GeoLine, GeoCircle, GeoConic, GeoFunction, GeoImplicitPoly)
    ) and not isinstance(geo, (GeoSegment, GeoConicPart))
    joiner = ": " if equation else " = "
    mode = style.label_mode
    if isinstance(geo, GeoAngle) and mode == 0:
        mode = 2  # an angle's label is its measure; the name alone says nothing
    if mode in (3, 9):
        caption = style.caption if style.caption else (geo.label or "")
        caption = caption.replace("%v", value_string(geo)).replace("%n", geo.label or "")
        if mode == 9:
            return caption + joiner + value_string(geo), False
        return caption, False
    if mode == 1:
        return name_text + joiner + value_string(geo), is_math
    if mode == 2:
        return value_string(geo), False
    return name_text, is_math
