"""Drawing one construction's objects onto a matplotlib view, in GeoGebra's style and order.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon as MplPolygon
from numpy.typing import NDArray

from geomeval.geogebra.canvas import (
    ANGLE_ARC_PX,
    ANGLE_COLOR,
    ANGLE_FILLING,
    CIRCLE_FILLING,
    CURVE_GRID,
    CURVE_SAMPLES,
    CURVE_T,
    DEFAULT_POINT_SIZE,
    DEPENDENT_POINT_COLOR,
    FONT,
    FREE_POINT_COLOR,
    LABEL_PX,
    LINE_COLOR,
    MAX_LABELS,
    MAX_TEXT_CHARS_DRAWN,
    POINT_MARKERS,
    POLYGON_COLOR,
    POLYGON_FILLING,
    RGB,
    SECTOR_COLOR,
    SECTOR_FILLING,
    TAU,
    TEXT_COLOR,
    TEXT_PX,
    Z_ANGLE,
    Z_CONIC,
    Z_FILL,
    Z_LABEL,
    Z_LINE,
    Z_OUTLINE,
    Z_POINT,
    Z_TEXT,
    Z_VECTOR,
    Size,
    Vec,
    Window,
    _dashes,
    _filling,
    _label_text,
    _line_px,
    _rgb,
    clip_parametric,
    clip_polygon,
    finite_point,
    visible_arcs,
)
from geomeval.geogebra.objects import (
    Geo,
    GeoAngle,
    GeoCircle,
    GeoConic,
    GeoConicPart,
    GeoCurve,
    GeoFunction,
    GeoFunctionNVar,
    GeoImplicitPoly,
    GeoLine,
    GeoPoint,
    GeoPolygon,
    GeoRay,
    GeoSegment,
    GeoText,
    GeoVector,
    Style,
)


@dataclass
class _Painter:
    """Draws objects onto one Axes whose data limits are exactly `window`."""

    ax: Axes
    window: Window
    size: Size

    def __post_init__(self) -> None:
        xmin, ymin, xmax, ymax = self.window
        width, height = self.size
        self.sx = width / (xmax - xmin)  # pixels per unit
        self.sy = height / (ymax - ymin)
        # Objects are clipped a little outside the image so line ends and markers at the
        # border are cut by the image edge, not by this module.
        mx, my = 0.05 * (xmax - xmin), 0.05 * (ymax - ymin)
        self.rect: Window = (xmin - mx, ymin - my, xmax + mx, ymax + my)
        self.text_slot = 0
        self.labels_drawn = 0
        self.chars_left = MAX_TEXT_CHARS_DRAWN

    def fit_text(self, content: str, ha: str = "left") -> str | None:
        """The part of `content` that can reach the image (`MAX_TEXT_CHARS_DRAWN`), charged to
        the figure's budget; None once the budget cannot pay for it."""
        if self.chars_left <= 0:
            return None
        width, height = self.size
        if len(content) > width and ha in ("left", "right"):
            if "\n" not in content:
                content = content[:width] if ha == "left" else content[-width:]
            else:  # every line is at least a pixel high
                lines = content.split("\n", height)[:height]
                content = "\n".join(line[:width] if ha == "left" else line[-width:] for line in lines)
        if len(content) > self.chars_left:
            self.chars_left = 0
            return None
        self.chars_left -= len(content)
        return content

    # -- shared helpers --

    def inside(self, x: float, y: float) -> bool:
        xmin, ymin, xmax, ymax = self.rect
        return xmin <= x <= xmax and ymin <= y <= ymax

    def offset(self, p: Vec, dx_px: float, dy_px: float) -> Vec:
        return (p[0] + dx_px / self.sx, p[1] + dy_px / self.sy)

    def add_line(
        self, xs: Sequence[float], ys: Sequence[float], color: RGB, style: Style, zorder: float
    ) -> None:
        width = _line_px(style)
        if width <= 0 or len(xs) < 2 or not _all_finite(xs, ys):
            return
        dashes = _dashes(style, width)
        self.ax.add_artist(
            Line2D(
                xs,
                ys,
                color=color,
                linewidth=width,
                linestyle=dashes,
                solid_capstyle="round",
                dash_capstyle="butt",
                solid_joinstyle="round",
                zorder=zorder,
            )
        )

    def add_segments(
        self, segments: list[tuple[Vec, Vec]], color: RGB, style: Style, zorder: float
    ) -> None:
        segments = [s for s in segments if _all_finite(*s)]
        width = _line_px(style)
        if width <= 0 or not segments:
            return
        collection = LineCollection(
            segments,
            colors=[color],
            linewidths=width,
            linestyles=_dashes(style, width),
            zorder=zorder,
        )
        collection.set_capstyle("round")
        self.ax.add_collection(collection, autolim=False)

    def add_fill(self, points: Sequence[Vec], color: RGB, alpha: float, zorder: float) -> None:
        if alpha <= 0:
            return
        clipped = clip_polygon(points, self.rect)
        if len(clipped) < 3 or not _all_finite(clipped):
            return
        self.ax.add_artist(
            MplPolygon(
                clipped,
                closed=True,
                facecolor=(*color, alpha),
                edgecolor="none",
                linewidth=0,
                zorder=zorder,
            )
        )

    def add_closed_outline(
        self, points: Sequence[Vec], color: RGB, style: Style, zorder: float
    ) -> None:
        """A closed outline: one joined path when it fits, clipped edges otherwise."""
        width = _line_px(style)
        if width <= 0 or len(points) < 2:
            return
        if all(self.inside(x, y) for x, y in points):
            self.ax.add_artist(
                MplPolygon(
                    points,
                    closed=True,
                    fill=False,
                    edgecolor=color,
                    linewidth=width,
                    linestyle=_dashes(style, width),
                    joinstyle="round",
                    zorder=zorder,
                )
            )
            return
        segments = []
        for i, a in enumerate(points):
            b = points[(i + 1) % len(points)]
            piece = self.clip_segment(a, b)
            if piece is not None:
                segments.append(piece)
        self.add_segments(segments, color, style, zorder)

    def clip_segment(self, a: Vec, b: Vec) -> tuple[Vec, Vec] | None:
        d = (b[0] - a[0], b[1] - a[1])
        span = clip_parametric(a, d, 0.0, 1.0, self.rect)
        if span is None:
            return None
        return (_at(a, d, span[0]), _at(a, d, span[1]))

    def arc_points(self, center: Vec, radius: float, start: float, sweep: float) -> list[Vec]:
        length_px = min(sweep * radius * max(self.sx, self.sy), 1e7)
        n = int(min(max(math.ceil(length_px / 2.0), 8), 4096)) + 1
        cx, cy = center
        return [
            (cx + radius * math.cos(t), cy + radius * math.sin(t))
            for t in np.linspace(start, start + sweep, n)
        ]

    def label(
        self,
        anchor: Vec,
        text: tuple[str, bool],
        color: RGB,
        dx: float,
        dy: float,
        ha: str = "left",
        va: str = "bottom",
    ) -> None:
        x, y = anchor
        if not (finite_point(x, y) and self.inside(x, y)) or self.labels_drawn >= MAX_LABELS:
            return
        self.labels_drawn += 1
        content, math_ok = text
        fitted = self.fit_text(content, ha)
        if fitted is None:
            return
        if fitted != content:  # cut: no longer whole mathtext
            content, math_ok = fitted, False
        self.ax.annotate(
            content,
            xy=(x, y),
            xytext=(dx, dy),
            textcoords="offset pixels",
            color=color,
            fontsize=LABEL_PX,
            fontfamily=FONT,
            ha=ha,
            va=va,
            zorder=Z_LABEL,
            parse_math=math_ok,
            annotation_clip=False,
        )

    # -- kinds --

    def draw(self, geo: Geo, style: Style, labelled: bool) -> None:
        """Draw one object; one whose numbers overflow the arithmetic is left out."""
        with contextlib.suppress(ArithmeticError, ValueError):
            self._draw(geo, style, labelled)

    def _draw(self, geo: Geo, style: Style, labelled: bool) -> None:
        if isinstance(geo, GeoPoint):
            self.point(geo, style, labelled)
        elif isinstance(geo, GeoSegment):
            self.line(
                geo,
                style,
                labelled,
                geo.start,
                (geo.end[0] - geo.start[0], geo.end[1] - geo.start[1]),
                0.0,
                1.0,
            )
        elif isinstance(geo, GeoRay):
            self.line(geo, style, labelled, geo.point, geo.direction, 0.0, math.inf)
        elif isinstance(geo, GeoLine):
            self.line(geo, style, labelled, geo.point, geo.direction, -math.inf, math.inf)
        elif isinstance(geo, GeoVector):
            self.vector(geo, style, labelled)
        elif isinstance(geo, GeoConicPart):
            self.conic_part(geo, style, labelled)
        elif isinstance(geo, GeoCircle):
            self.circle(geo, style, labelled)
        elif isinstance(geo, GeoPolygon):
            self.polygon(geo, style, labelled)
        elif isinstance(geo, GeoAngle):
            self.angle(geo, style, labelled)
        elif isinstance(geo, GeoText):
            self.text(geo, style)
        elif isinstance(geo, GeoFunction) and not isinstance(geo, GeoFunctionNVar):
            self.function_graph(geo, style, labelled)
        elif isinstance(geo, (GeoConic, GeoImplicitPoly)):
            self.implicit_curve(geo, style, labelled)
        elif isinstance(geo, GeoCurve) and geo.point is not None:
            self.parametric_curve(geo, style)

    def parametric_curve(self, geo: GeoCurve, style: Style) -> None:
        """A transformed function's curve for t in [-CURVE_T, CURVE_T], cut where it is
        undefined or far outside the view."""
        color = _rgb(style.color, LINE_COLOR)
        xmin, ymin, xmax, ymax = self.rect
        w, h = xmax - xmin, ymax - ymin
        runs: list[list[Vec]] = [[]]
        from geomeval.geogebra.algebra import sample_count

        for t in np.linspace(-CURVE_T, CURVE_T, sample_count(geo.body, CURVE_SAMPLES)):
            x, y = geo.point(float(t))
            if finite_point(x, y) and xmin - w <= x <= xmax + w and ymin - h <= y <= ymax + h:
                runs[-1].append((x, y))
            elif runs[-1]:
                runs.append([])
        for run in runs:
            if len(run) >= 2:
                self.add_line([p[0] for p in run], [p[1] for p in run], color, style, Z_CONIC)

    def function_graph(self, geo: GeoFunction, style: Style, labelled: bool) -> None:
        """y = f(x) across the view, broken where f is undefined or leaves the view far."""
        color = _rgb(style.color, LINE_COLOR)
        xmin, ymin, xmax, ymax = self.rect
        if geo.domain is not None:
            xmin, xmax = max(xmin, geo.domain[0]), min(xmax, geo.domain[1])
            if not xmin < xmax:
                return
        height = ymax - ymin
        low, high = ymin - height, ymax + height
        from geomeval.geogebra.algebra import sample_count

        n = sample_count(geo.body, int(min(max(self.size[0] * 2, 200), CURVE_SAMPLES)))
        runs: list[list[Vec]] = [[]]
        for x in np.linspace(xmin, xmax, n):
            y = geo(float(x))
            if math.isfinite(y) and low <= y <= high:
                runs[-1].append((float(x), y))
            elif runs[-1]:
                runs.append([])
        drawn = [run for run in runs if len(run) >= 2]
        for run in drawn:
            self.add_line([p[0] for p in run], [p[1] for p in run], color, style, Z_CONIC)
        if labelled and drawn:
            visible = [p for run in drawn for p in run if self.inside(*p)]
            if visible:
                self.label(visible[len(visible) // 4], _label_text(geo, style), color, 5, 5)

    def implicit_curve(self, geo: Geo, style: Style, labelled: bool) -> None:
        """A conic or implicit polynomial: its zero set on a grid over the view (marching
        squares), so every type, degenerate ones included, draws the same way."""
        import contourpy

        color = _rgb(style.color, LINE_COLOR)
        xmin, ymin, xmax, ymax = self.rect
        xs = np.linspace(xmin, xmax, CURVE_GRID)
        ys = np.linspace(ymin, ymax, CURVE_GRID)
        gx, gy = np.meshgrid(xs, ys)
        if isinstance(geo, GeoConic):
            a0, a1, a2, a3, a4, a5 = geo.matrix
            z = a0 * gx * gx + a1 * gy * gy + a2 + 2 * a3 * gx * gy + 2 * a4 * gx + 2 * a5 * gy
        else:
            assert isinstance(geo, GeoImplicitPoly)
            z = np.zeros_like(gx)
            for (i, j), c in geo.terms.items():
                z = z + c * gx**i * gy**j
        if not np.all(np.isfinite(z)):
            return
        # the default line type (LineType.Separate): one (n, 2) array of points per line
        lines = cast("list[NDArray[np.float64]]", contourpy.contour_generator(xs, ys, z).lines(0.0))
        anchor: Vec | None = None
        for line in lines:
            if len(line) < 2:
                continue
            self.add_line(list(line[:, 0]), list(line[:, 1]), color, style, Z_CONIC)
            if anchor is None:
                anchor = (float(line[len(line) // 2, 0]), float(line[len(line) // 2, 1]))
        if labelled and anchor is not None:
            self.label(anchor, _label_text(geo, style), color, 5, 5)

    def point(self, geo: GeoPoint, style: Style, labelled: bool) -> None:
        size: float = style.point_size if style.point_size is not None else DEFAULT_POINT_SIZE
        size = min(max(float(size), 1.0), 30.0)
        diameter = 1.5 * size + 1.0
        pad = diameter / min(self.sx, self.sy)
        xmin, ymin, xmax, ymax = self.window
        if not (xmin - pad <= geo.x <= xmax + pad and ymin - pad <= geo.y <= ymax + pad):
            return
        default = FREE_POINT_COLOR if geo.independent else DEPENDENT_POINT_COLOR
        color = _rgb(style.color, default)
        marker, filled, factor = POINT_MARKERS.get(style.point_style, POINT_MARKERS[0])
        self.ax.add_artist(
            Line2D(
                [geo.x],
                [geo.y],
                linestyle="none",
                marker=marker,
                markersize=diameter * factor,
                markerfacecolor=color if filled else "none",
                markeredgecolor=(0.0, 0.0, 0.0) if filled else color,
                markeredgewidth=1.0 if filled else max(1.5, size / 3),
                zorder=Z_POINT,
            )
        )
        if labelled:
            gap = diameter / 2 + 2
            self.label(geo.xy, _label_text(geo, style), color, gap, gap)

    def line(
        self, geo: GeoLine, style: Style, labelled: bool, p: Vec, d: Vec, t0: float, t1: float
    ) -> None:
        span = clip_parametric(p, d, t0, t1, self.rect)
        if span is None:
            return
        a, b = _at(p, d, span[0]), _at(p, d, span[1])
        color = _rgb(style.color, LINE_COLOR)
        self.add_line([a[0], b[0]], [a[1], b[1]], color, style, Z_LINE)
        if labelled:
            # The middle of the part inside the image proper, not of the padded part.
            inner = clip_parametric(p, d, t0, t1, self.window)
            if inner is not None:
                a, b = _at(p, d, inner[0]), _at(p, d, inner[1])
                self.label(
                    ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), _label_text(geo, style), color, 5, 5
                )

    def vector(self, geo: GeoVector, style: Style, labelled: bool) -> None:
        start = geo.start if geo.start is not None else (0.0, 0.0)
        if not finite_point(*start):
            return
        end = (start[0] + geo.x, start[1] + geo.y)
        color = _rgb(style.color, LINE_COLOR)
        # Arrowhead built in pixel space, so it keeps its shape under a stretched ZoomIn view.
        dx_px, dy_px = geo.x * self.sx, geo.y * self.sy
        length_px = math.hypot(dx_px, dy_px)
        if length_px == 0 or not math.isfinite(length_px):
            return
        ux, uy = dx_px / length_px, dy_px / length_px
        width = max(_line_px(style), 1.0)
        head = min(4.0 * width + 6.0, 0.6 * length_px)
        half = 0.45 * head
        shaft_end = end
        if self.inside(*end):
            base = self.offset(end, -ux * head, -uy * head)
            tip_left = self.offset(base, -uy * half, ux * half)
            tip_right = self.offset(base, uy * half, -ux * half)
            self.ax.add_artist(
                MplPolygon(
                    [end, tip_left, tip_right],
                    closed=True,
                    facecolor=color,
                    edgecolor=color,
                    linewidth=0.5,
                    zorder=Z_VECTOR,
                )
            )
            shaft_end = self.offset(end, -ux * head * 0.8, -uy * head * 0.8)
        piece = self.clip_segment(start, shaft_end)
        if piece is not None:
            (ax_, ay_), (bx_, by_) = piece
            self.add_line([ax_, bx_], [ay_, by_], color, style, Z_VECTOR)
        if labelled:
            mid = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
            self.label(mid, _label_text(geo, style), color, 5, 5)

    def circle(self, geo: GeoCircle, style: Style, labelled: bool) -> None:
        color = _rgb(style.color, LINE_COLOR)
        center, r = geo.center, geo.radius
        if r == 0:
            return
        pieces = visible_arcs(center, r, 0.0, TAU, self.rect)
        alpha = _filling(style, CIRCLE_FILLING)
        if alpha > 0:
            self.add_fill(self._disk_in_rect(center, r, pieces), color, alpha, Z_FILL)
        for start, sweep in pieces:
            points = self.arc_points(center, r, start, sweep)
            if sweep >= TAU:
                self.add_closed_outline(points[:-1], color, style, Z_CONIC)
            else:
                self.add_line([x for x, _ in points], [y for _, y in points], color, style, Z_CONIC)
        if labelled and pieces:
            t = (
                math.pi / 4
                if any(_in_piece(math.pi / 4, p) for p in pieces)
                else (pieces[0][0] + pieces[0][1] / 2)
            )
            anchor = (center[0] + r * math.cos(t), center[1] + r * math.sin(t))
            self.label(anchor, _label_text(geo, style), color, 5, 5)

    def _disk_in_rect(self, center: Vec, r: float, pieces: list[tuple[float, float]]) -> list[Vec]:
        """The disk cut to the view as a convex outline: visible arcs plus covered corners."""
        xmin, ymin, xmax, ymax = self.rect
        points: list[Vec] = []
        for start, sweep in pieces:
            points.extend(self.arc_points(center, r, start, sweep))
        for corner in ((xmin, ymin), (xmax, ymin), (xmax, ymax), (xmin, ymax)):
            if math.hypot(corner[0] - center[0], corner[1] - center[1]) <= r:
                points.append(corner)
        if len(points) < 3:
            return []
        mx = sum(x for x, _ in points) / len(points)
        my = sum(y for _, y in points) / len(points)
        return sorted(points, key=lambda q: math.atan2(q[1] - my, q[0] - mx))

    def conic_part(self, geo: GeoConicPart, style: Style, labelled: bool) -> None:
        default = SECTOR_COLOR if geo.sector else LINE_COLOR
        color = _rgb(style.color, default)
        center, r, start, sweep = geo.center, geo.radius, geo.start_angle, geo.sweep
        if r == 0:
            return
        r_px = r * max(self.sx, self.sy)
        pieces = visible_arcs(center, r, start, sweep, self.rect)
        if geo.sector:
            wedge = [center, *self.arc_points(center, r, start, sweep)]
            # Past ~10⁶ px the sampled wedge no longer follows the arc near the view, so
            # only its clipped outline is drawn.
            if r_px <= 1e6:
                self.add_fill(wedge, color, _filling(style, SECTOR_FILLING), Z_FILL)
                self.add_closed_outline(wedge, color, style, Z_CONIC)
            else:
                ends = [_at(center, (math.cos(t), math.sin(t)), r) for t in (start, start + sweep)]
                segments = [s for s in (self.clip_segment(center, e) for e in ends) if s]
                self.add_segments(segments, color, style, Z_CONIC)
                self._arc_pieces(center, r, pieces, color, style)
        else:
            self._arc_pieces(center, r, pieces, color, style)
        if labelled and pieces:
            t = pieces[0][0] + pieces[0][1] / 2
            anchor = (center[0] + r * math.cos(t), center[1] + r * math.sin(t))
            self.label(anchor, _label_text(geo, style), color, 5, 5)

    def _arc_pieces(
        self, center: Vec, r: float, pieces: list[tuple[float, float]], color: RGB, style: Style
    ) -> None:
        for start, sweep in pieces:
            points = self.arc_points(center, r, start, sweep)
            self.add_line([x for x, _ in points], [y for _, y in points], color, style, Z_CONIC)

    def polygon(self, geo: GeoPolygon, style: Style, labelled: bool) -> None:
        color = _rgb(style.color, POLYGON_COLOR)
        vertices = list(geo.vertices)
        if len(vertices) >= 3:
            self.add_fill(vertices, color, _filling(style, POLYGON_FILLING), Z_FILL)
        self.add_closed_outline(vertices, color, style, Z_OUTLINE)
        if labelled:
            cx = sum(x for x, _ in vertices) / len(vertices)
            cy = sum(y for _, y in vertices) / len(vertices)
            self.label((cx, cy), _label_text(geo, style), color, 0, 0, ha="center", va="center")

    def angle(self, geo: GeoAngle, style: Style, labelled: bool) -> None:
        vertex = geo.vertex
        if vertex is None or not finite_point(*vertex) or not self.inside(*vertex):
            return
        value = geo.value % TAU
        if value == 0 or not math.isfinite(geo.start):
            return
        color = _rgb(style.color, ANGLE_COLOR)
        # Arms in screen space, so the arc stays round under a stretched ZoomIn view.
        a0 = _screen_angle(geo.start, self.sx, self.sy)
        a1 = _screen_angle(geo.start + value, self.sx, self.sy)
        sweep = (a1 - a0) % TAU
        r = ANGLE_ARC_PX
        if abs(value - math.pi / 2) < 1e-8:
            # GeoGebra marks a right angle with a small square instead of an arc.
            side = 0.6 * r
            u = (math.cos(a0), math.sin(a0))
            w = (math.cos(a1), math.sin(a1))
            shape = [
                vertex,
                self.offset(vertex, u[0] * side, u[1] * side),
                self.offset(vertex, (u[0] + w[0]) * side, (u[1] + w[1]) * side),
                self.offset(vertex, w[0] * side, w[1] * side),
            ]
        else:
            n = int(min(max(math.ceil(sweep * r / 2.0), 8), 720)) + 1
            shape = [vertex] + [
                self.offset(vertex, r * math.cos(t), r * math.sin(t))
                for t in np.linspace(a0, a0 + sweep, n)
            ]
        self.add_fill(shape, color, _filling(style, ANGLE_FILLING), Z_ANGLE)
        self.add_closed_outline(shape, color, style, Z_ANGLE)
        if labelled:
            # Just outside the arc on the bisector, the text's near side facing the vertex,
            # so the measure neither covers the arc nor the vertex's own label.
            mid = a0 + sweep / 2
            cos_mid, sin_mid = math.cos(mid), math.sin(mid)
            distance = r + 4
            self.label(
                vertex,
                _label_text(geo, style),
                color,
                distance * cos_mid,
                distance * sin_mid,
                ha="left" if cos_mid > 0.3 else "right" if cos_mid < -0.3 else "center",
                va="bottom" if sin_mid > 0.3 else "top" if sin_mid < -0.3 else "center",
            )

    def text(self, geo: GeoText, style: Style) -> None:
        if not geo.text:
            return
        color = _rgb(style.color, TEXT_COLOR)
        if geo.position is None:
            # GeoGebra puts a text without a position near the top-left of the view; stack
            # several so they do not overwrite each other.
            xmin, _, _, ymax = self.window
            x, y = self.offset((xmin, ymax), 8, -8 - self.text_slot * (TEXT_PX * 1.4))
            self.text_slot += 1 + geo.text.count("\n")
            va = "top"
        else:
            x, y = geo.position
            if not (finite_point(x, y) and self.inside(x, y)):
                return
            va = "bottom"
        content = self.fit_text(geo.text)
        if content is None:
            return
        self.ax.text(
            x,
            y,
            content,
            color=color,
            fontsize=TEXT_PX,
            fontfamily=FONT,
            ha="left",
            va=va,
            zorder=Z_TEXT,
            parse_math=False,
            clip_on=True,
        )


def _all_finite(*groups: Sequence[float] | Sequence[Vec] | Vec) -> bool:
    return all(bool(np.isfinite(np.asarray(group, dtype=float)).all()) for group in groups)


def _at(p: Vec, d: Vec, t: float) -> Vec:
    return (p[0] + t * d[0], p[1] + t * d[1])


def _in_piece(angle: float, piece: tuple[float, float]) -> bool:
    return (angle - piece[0]) % TAU <= piece[1]


def _screen_angle(world_angle: float, sx: float, sy: float) -> float:
    return math.atan2(math.sin(world_angle) * sy, math.cos(world_angle) * sx)
