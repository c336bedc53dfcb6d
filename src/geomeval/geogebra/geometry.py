"""Plane geometry behind the commands: intersections, tangents and the four transformations.

Everything works on plain coordinates and returns NaN (an undefined object) where
GeoGebra would show "undefined", never an exception.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from geomeval.geogebra.objects import (
    NAN,
    NAN_VEC,
    Geo,
    GeoAngle,
    GeoBoolean,
    GeoCircle,
    GeoConic,
    GeoConicPart,
    GeoCurve,
    GeoFunction,
    GeoFunctionNVar,
    GeoLine,
    GeoList,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoRay,
    GeoSegment,
    GeoText,
    GeoVector,
    Vec,
)

EPS = 1e-9


def sub(p: Vec, q: Vec) -> Vec:
    return (p[0] - q[0], p[1] - q[1])


def add(p: Vec, q: Vec) -> Vec:
    return (p[0] + q[0], p[1] + q[1])


def scale(p: Vec, k: float) -> Vec:
    return (p[0] * k, p[1] * k)


def cross(p: Vec, q: Vec) -> float:
    return p[0] * q[1] - p[1] * q[0]


def dot(p: Vec, q: Vec) -> float:
    return p[0] * q[0] + p[1] * q[1]


def norm(p: Vec) -> float:
    return math.hypot(p[0], p[1])


def unit(p: Vec) -> Vec:
    length = norm(p)
    if length == 0 or not math.isfinite(length):
        return NAN_VEC
    return (p[0] / length, p[1] / length)


def rotate_vec(p: Vec, angle: float) -> Vec:
    c, s = math.cos(angle), math.sin(angle)
    return (p[0] * c - p[1] * s, p[0] * s + p[1] * c)


def angle_of(p: Vec) -> float:
    return math.atan2(p[1], p[0])


def finite_vec(p: Vec) -> bool:
    return math.isfinite(p[0]) and math.isfinite(p[1])


def midpoint(p: Vec, q: Vec) -> Vec:
    return ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)


def circumcircle(a: Vec, b: Vec, c: Vec) -> tuple[Vec, float]:
    d = 2 * (a[0] * (b[1] - c[1]) + b[0] * (c[1] - a[1]) + c[0] * (a[1] - b[1]))
    if abs(d) < EPS * max(1.0, norm(sub(b, a)) * norm(sub(c, a))):
        return NAN_VEC, NAN
    a2, b2, c2 = dot(a, a), dot(b, b), dot(c, c)
    ux = (a2 * (b[1] - c[1]) + b2 * (c[1] - a[1]) + c2 * (a[1] - b[1])) / d
    uy = (a2 * (c[0] - b[0]) + b2 * (a[0] - c[0]) + c2 * (b[0] - a[0])) / d
    return (ux, uy), norm(sub(a, (ux, uy)))


def incircle(a: Vec, b: Vec, c: Vec) -> tuple[Vec, float]:
    la, lb, lc = norm(sub(b, c)), norm(sub(c, a)), norm(sub(a, b))
    perimeter = la + lb + lc
    area2 = abs(cross(sub(b, a), sub(c, a)))
    if perimeter == 0 or area2 < EPS:
        return NAN_VEC, NAN
    center = (
        (la * a[0] + lb * b[0] + lc * c[0]) / perimeter,
        (la * a[1] + lb * b[1] + lc * c[1]) / perimeter,
    )
    return center, area2 / perimeter


# --- intersections -------------------------------------------------------------------------


def _on_extent(line: GeoLine, p: Vec) -> bool:
    """Whether a point of the carrier line lies on the segment or ray itself."""
    if isinstance(line, GeoSegment):
        d = sub(line.end, line.start)
        length2 = dot(d, d)
        if length2 == 0:
            return False
        t = dot(sub(p, line.start), d) / length2
        return -EPS <= t <= 1 + EPS
    if isinstance(line, GeoRay):
        return dot(sub(p, line.point), line.direction) >= -EPS * norm(line.direction)
    return True


def _on_arc(arc: GeoCircle, p: Vec) -> bool:
    if not isinstance(arc, GeoConicPart):
        return True
    angle = (angle_of(sub(p, arc.center)) - arc.start_angle) % (2 * math.pi)
    return angle <= arc.sweep + 1e-9 or angle >= 2 * math.pi - 1e-9


def intersect_lines(l1: GeoLine, l2: GeoLine) -> Vec:
    denominator = cross(l1.direction, l2.direction)
    scale_ = norm(l1.direction) * norm(l2.direction)
    if not l1.defined or not l2.defined or abs(denominator) <= EPS * scale_:
        return NAN_VEC
    t = cross(sub(l2.point, l1.point), l2.direction) / denominator
    p = add(l1.point, scale(l1.direction, t))
    if not (_on_extent(l1, p) and _on_extent(l2, p)):
        return NAN_VEC
    return p


def intersect_line_circle(line: GeoLine, circle: GeoCircle) -> list[Vec]:
    """Both intersection points, in GeoGebra's order (along the line's direction)."""
    if not line.defined or not circle.defined:
        return [NAN_VEC, NAN_VEC]
    d = unit(line.direction)
    foot_t = dot(sub(circle.center, line.point), d)
    foot = add(line.point, scale(d, foot_t))
    dist2 = dot(sub(circle.center, foot), sub(circle.center, foot))
    h2 = circle.radius * circle.radius - dist2
    tolerance = EPS * max(1.0, circle.radius * circle.radius)
    if h2 < -tolerance:
        return [NAN_VEC, NAN_VEC]
    if abs(h2) <= tolerance:  # tangent: GeoGebra gives one point, the other undefined
        return [foot if _on_extent(line, foot) and _on_arc(circle, foot) else NAN_VEC, NAN_VEC]
    h = math.sqrt(h2)
    points = [add(foot, scale(d, -h)), add(foot, scale(d, h))]
    kept = [p if _on_extent(line, p) and _on_arc(circle, p) else NAN_VEC for p in points]
    # On a segment or ray GeoGebra 4.0 lists the points that lie on it first.
    return sorted(kept, key=lambda p: not finite_vec(p))


def intersect_circles(c1: GeoCircle, c2: GeoCircle) -> list[Vec]:
    if not c1.defined or not c2.defined:
        return [NAN_VEC, NAN_VEC]
    delta = sub(c2.center, c1.center)
    d = norm(delta)
    r1, r2 = c1.radius, c2.radius
    tolerance = EPS * max(1.0, r1 + r2)
    if d < tolerance or d > r1 + r2 + tolerance or d < abs(r1 - r2) - tolerance:
        return [NAN_VEC, NAN_VEC]
    a = (d * d + r1 * r1 - r2 * r2) / (2 * d)
    h2 = r1 * r1 - a * a
    base = add(c1.center, scale(delta, a / d))
    if abs(h2) <= EPS * max(1.0, r1 * r1):  # touching circles: one point
        return [base if _on_arc(c1, base) and _on_arc(c2, base) else NAN_VEC, NAN_VEC]
    h = math.sqrt(max(h2, 0.0))
    offset = (-delta[1] * h / d, delta[0] * h / d)
    # GeoGebra 4.0 lists first the point left of the line from c1's centre to c2's.
    points = [add(base, offset), sub(base, offset)]
    return [p if _on_arc(c1, p) and _on_arc(c2, p) else NAN_VEC for p in points]


def tangent_points(p: Vec, circle: GeoCircle) -> list[Vec]:
    """Touch points of the tangents from `p`: two outside, one on the circle, none inside."""
    delta = sub(p, circle.center)
    d = norm(delta)
    r = circle.radius
    if d < r - EPS * max(1.0, r):
        return []
    if abs(d - r) <= EPS * max(1.0, r):
        return [p]
    angle = math.acos(r / d)
    base = angle_of(delta)
    return [
        add(circle.center, (r * math.cos(base + angle), r * math.sin(base + angle))),
        add(circle.center, (r * math.cos(base - angle), r * math.sin(base - angle))),
    ]


# --- transformations -----------------------------------------------------------------------

PointMap = Callable[[Vec], Vec]


class Transform:
    """A similarity as a point map plus what it does to directions, angles and lengths."""

    def __init__(self, point_map: PointMap, linear: PointMap, ratio: float, orientation: int):
        self.point_map = point_map
        self.linear = linear
        self.ratio = ratio
        self.orientation = orientation

    def apply(self, geo: Geo) -> Geo:
        """A new object: `geo` moved by this transformation (labels and style not copied)."""
        if isinstance(geo, GeoPoint):
            return GeoPoint(*self.point_map(geo.xy))
        if isinstance(geo, GeoSegment):
            return GeoSegment(self.point_map(geo.start), self.point_map(geo.end))
        if isinstance(geo, GeoRay):
            return GeoRay(self.point_map(geo.point), self.linear(geo.direction))
        if isinstance(geo, GeoLine):
            return GeoLine(self.point_map(geo.point), self.linear(geo.direction))
        if isinstance(geo, GeoVector):
            x, y = self.linear((geo.x, geo.y))
            start = self.point_map(geo.start) if geo.start is not None else None
            return GeoVector(x, y, start)
        if isinstance(geo, GeoConicPart):
            center = self.point_map(geo.center)
            radius = geo.radius * abs(self.ratio)
            a = self.point_map(
                add(geo.center, (math.cos(geo.start_angle), math.sin(geo.start_angle)))
            )
            b = self.point_map(add(geo.center, (math.cos(geo.end_angle), math.sin(geo.end_angle))))
            start_angle, end_angle = angle_of(sub(a, center)), angle_of(sub(b, center))
            if self.orientation < 0:
                start_angle, end_angle = end_angle, start_angle
            return GeoConicPart(center, radius, start_angle, end_angle, geo.sector)
        if isinstance(geo, GeoCircle):
            return GeoCircle(self.point_map(geo.center), geo.radius * abs(self.ratio))
        if isinstance(geo, GeoPolygon):
            return GeoPolygon([self.point_map(v) for v in geo.vertices])
        if isinstance(geo, GeoText):
            position = self.point_map(geo.position) if geo.position else None
            return GeoText(geo.text, position)
        if isinstance(geo, GeoAngle):
            return GeoAngle(geo.value, geo.vertex and self.point_map(geo.vertex), geo.start)
        if isinstance(geo, GeoNumber):
            return GeoNumber(geo.value)
        if isinstance(geo, GeoBoolean):
            return GeoBoolean(geo.value)
        if isinstance(geo, GeoList):
            return GeoList([self.apply(e) for e in geo.elements])
        if isinstance(geo, GeoConic):
            return self._conic(geo)
        if isinstance(geo, GeoFunction) and not isinstance(geo, GeoFunctionNVar):
            return self._function(geo)
        if isinstance(geo, GeoCurve):
            inner = geo.point
            if inner is None:
                return GeoCurve()
            return GeoCurve(lambda t: self.point_map(inner(t)), geo.body)
        raise ValueError(f"cannot transform a {geo.kind} here")

    def _function(self, geo: GeoFunction) -> Geo:
        """A translated or dilated function stays a function, k f((x - ox)/k) + oy; any other
        map makes the curve t -> map(t, f(t)), as GeoGebra 4.0 does."""
        from geomeval.geogebra import algebra as alg

        if geo.body is None:
            return GeoFunction()
        ox, oy = self.point_map((0.0, 0.0))
        kx, zero_y = self.linear((1.0, 0.0))
        zero_x, ky = self.linear((0.0, 1.0))
        if zero_y == 0 and zero_x == 0 and kx == ky and kx != 0:
            # a translation or a dilation: (x, f(x)) -> (o + k x, o + k f(x)), still a function
            inner = alg.substitute(geo.body, alg.combine("/", alg.combine("-", alg.X, ox), kx))
            return GeoFunction(alg.combine("+", alg.combine("*", kx, inner), oy))
        return GeoCurve(lambda t: self.point_map((t, geo(t))), geo.body)

    def _conic(self, geo: GeoConic) -> GeoConic:
        """The image conic: its matrix Q becomes H^-T Q H^-1 for the map's homogeneous H."""
        tx, ty = self.point_map((0.0, 0.0))
        (l00, l10), (l01, l11) = self.linear((1.0, 0.0)), self.linear((0.0, 1.0))
        det = l00 * l11 - l01 * l10
        if det == 0 or not geo.defined:
            return GeoConic()
        # inverse map p = M p' + u
        m00, m01, m10, m11 = l11 / det, -l01 / det, -l10 / det, l00 / det
        ux, uy = -(m00 * tx + m01 * ty), -(m10 * tx + m11 * ty)
        h = ((m00, m01, ux), (m10, m11, uy), (0.0, 0.0, 1.0))
        a0, a1, a2, a3, a4, a5 = geo.matrix
        q = ((a0, a3, a4), (a3, a1, a5), (a4, a5, a2))
        qh = [[sum(q[i][k] * h[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
        r = [[sum(h[k][i] * qh[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
        image = GeoConic((r[0][0], r[1][1], r[2][2], r[0][1], r[0][2], r[1][2]))
        if geo.first_axis is not None:
            image.first_axis = self.linear(geo.first_axis)
        return image


def rotation(angle: float, center: Vec = (0.0, 0.0)) -> Transform:
    def linear(v: Vec) -> Vec:
        return rotate_vec(v, angle)

    return Transform(lambda p: add(center, rotate_vec(sub(p, center), angle)), linear, 1.0, 1)


def translation(v: Vec) -> Transform:
    return Transform(lambda p: add(p, v), lambda d: d, 1.0, 1)


def dilation(factor: float, center: Vec = (0.0, 0.0)) -> Transform:
    return Transform(
        lambda p: add(center, scale(sub(p, center), factor)),
        lambda d: scale(d, factor),
        factor,
        1,
    )


def point_reflection(center: Vec) -> Transform:
    return Transform(lambda p: sub(scale(center, 2), p), lambda d: scale(d, -1), -1.0, 1)


def line_reflection(line: GeoLine) -> Transform:
    d = unit(line.direction)

    def linear(v: Vec) -> Vec:
        along = dot(v, d)
        return (2 * along * d[0] - v[0], 2 * along * d[1] - v[1])

    def point_map(p: Vec) -> Vec:
        return add(line.point, linear(sub(p, line.point)))

    return Transform(point_map, linear, 1.0, -1)
