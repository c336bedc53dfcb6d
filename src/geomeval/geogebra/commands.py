"""GeoGebra's construction commands, with the manual's argument forms and results.

Each command takes evaluated arguments and returns a value (number, text, boolean), one
object, or an `Outputs` holding several objects and how a single label names them. A wrong
argument raises `CommandError`, which the executor reports on that line; an impossible
construction (two parallel lines' intersection) returns undefined objects instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from geomeval.geogebra import geometry as gm
from geomeval.geogebra.arguments import (
    AngleValue,
    CommandError,
    Context,
    LimitReached,
    Outputs,
    ScriptError,
    Value,
    _any,
    _direction,
    _geo_list,
    _is_conic,
    _is_list,
    _is_polygon,
    _is_text,
    _is_vector,
    _kind,
    boolean,
    illegal,
    is_circle,
    is_line,
    is_number,
    is_point,
    match,
    num,
)
from geomeval.geogebra.objects import (
    NAN,
    NAN_VEC,
    Geo,
    GeoAngle,
    GeoCircle,
    GeoConicPart,
    GeoLine,
    GeoList,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoRay,
    GeoSegment,
    GeoVector,
    Vec,
)
from geomeval.geogebra.textcommands import (
    MAX_TEXT_CHARS,
    cmd_element,
    cmd_if,
    cmd_sequence,
    cmd_text,
    format_number,
    sequence_values,
    value_text,
)

# The argument helpers and text commands live in `arguments` and `textcommands`; the names
# other modules take from here stay importable here.
__all__ = [
    "COMMANDS",
    "MAX_TEXT_CHARS",
    "AngleValue",
    "CommandError",
    "Context",
    "LimitReached",
    "Moved",
    "Outputs",
    "ScriptError",
    "Value",
    "_kind",
    "boolean",
    "format_number",
    "illegal",
    "is_line",
    "is_number",
    "is_point",
    "match",
    "num",
    "sequence_values",
    "value_text",
]



def cmd_point(ctx: Context, args: list[Value]) -> Value:
    if len(args) == 1 and _is_list(args[0]):
        items = _geo_list(args[0])
        if len(items) == 2 and all(is_number(i) for i in items):
            return GeoPoint(num(items[0]), num(items[1]))
    if match(args, is_point, _is_vector):
        return GeoPoint(args[0].x + args[1].x, args[0].y + args[1].y)
    if len(args) == 1 and isinstance(args[0], (GeoCircle, GeoLine, GeoPolygon)):
        # GeoGebra starts a point on a path at the path's point nearest the origin.
        return GeoPoint(*_nearest_to_origin(args[0]))
    raise illegal("Point", args)


def _nearest_on_segment(p: Vec, a: Vec, b: Vec) -> Vec:
    d = gm.sub(b, a)
    length2 = gm.dot(d, d)
    t = 0.0 if length2 == 0 else min(1.0, max(0.0, gm.dot(gm.sub(p, a), d) / length2))
    return gm.add(a, gm.scale(d, t))


def _nearest_to_origin(path: Geo) -> Vec:
    origin = (0.0, 0.0)
    if isinstance(path, GeoConicPart):
        angle = path.start_angle
        return gm.add(path.center, (path.radius * math.cos(angle), path.radius * math.sin(angle)))
    if isinstance(path, GeoCircle):
        direction = gm.unit(gm.sub(origin, path.center))
        if not gm.finite_vec(direction):
            direction = (1.0, 0.0)
        return gm.add(path.center, gm.scale(direction, path.radius))
    if isinstance(path, GeoSegment):
        return _nearest_on_segment(origin, path.start, path.end)
    if isinstance(path, GeoPolygon):
        pts = path.vertices
        sides = [_nearest_on_segment(origin, p, pts[(i + 1) % len(pts)]) for i, p in enumerate(pts)]
        return min(sides, key=gm.norm)
    if isinstance(path, GeoLine):
        d = gm.unit(path.direction)
        return gm.sub(path.point, gm.scale(d, gm.dot(path.point, d)))
    raise CommandError("Point: expected a path")


def cmd_segment(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_point):
        segment = GeoSegment(args[0].xy, args[1].xy)
        _through(ctx, segment, args[0], args[1])
        segment.endpoint_labels = (ctx.label_of(args[0]), ctx.label_of(args[1]))
        return segment
    if match(args, is_point, is_number):
        start = args[0].xy
        end = (start[0] + num(args[1]), start[1])
        return Outputs([GeoSegment(start, end), GeoPoint(*end)], naming="main")
    raise illegal("Segment", args)


def _through(ctx: Context, geo: Geo, *points: Value) -> Geo:
    geo.through = tuple(label for p in points if (label := ctx.label_of(p)))
    return geo


def cmd_line(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_point):
        a, b = args[0].xy, args[1].xy
        if a == b:
            return GeoLine(NAN_VEC, NAN_VEC)
        return _through(ctx, GeoLine(a, gm.sub(b, a)), args[0], args[1])
    if match(args, is_point, is_line) or match(args, is_point, _is_vector):
        return GeoLine(args[0].xy, _direction(args[1]))
    raise illegal("Line", args)


def cmd_ray(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_point):
        a, b = args[0].xy, args[1].xy
        return GeoRay(a, gm.sub(b, a)) if a != b else GeoRay(NAN_VEC, NAN_VEC)
    if match(args, is_point, _is_vector):
        return GeoRay(args[0].xy, _direction(args[1]))
    raise illegal("Ray", args)


def cmd_vector(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_point):
        a, b = args[0].xy, args[1].xy
        return GeoVector(b[0] - a[0], b[1] - a[1], a)
    if match(args, is_point):
        return GeoVector(args[0].x, args[0].y)
    raise illegal("Vector", args)


def cmd_perpendicular_line(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_line) or match(args, is_point, _is_vector):
        dx, dy = _direction(args[1])
        return GeoLine(args[0].xy, (-dy, dx))
    raise illegal("PerpendicularLine", args)


def cmd_perpendicular_bisector(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_point):
        a, b = args[0].xy, args[1].xy
    elif match(args, lambda v: isinstance(v, GeoSegment)):
        a, b = args[0].start, args[0].end
    else:
        raise illegal("PerpendicularBisector", args)
    if a == b:
        return GeoLine(NAN_VEC, NAN_VEC)
    dx, dy = gm.sub(b, a)
    return GeoLine(gm.midpoint(a, b), (-dy, dx))


def cmd_angle_bisector(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_point, is_point):
        a, b, c = args[0].xy, args[1].xy, args[2].xy
        ua, uc = gm.unit(gm.sub(a, b)), gm.unit(gm.sub(c, b))
        d = gm.add(ua, uc)
        if gm.norm(d) < 1e-12:
            d = (-ua[1], ua[0])
        return GeoLine(b, d)
    if match(args, is_line, is_line):
        l1, l2 = args
        p = gm.intersect_lines(GeoLine(l1.point, l1.direction), GeoLine(l2.point, l2.direction))
        u1, u2 = gm.unit(l1.direction), gm.unit(l2.direction)
        first = GeoLine(p, gm.add(u1, u2))
        second = GeoLine(p, gm.sub(u1, u2))
        return Outputs([first, second])
    raise illegal("AngleBisector", args)


def cmd_midpoint(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_point):
        return GeoPoint(*gm.midpoint(args[0].xy, args[1].xy))
    if match(args, lambda v: isinstance(v, GeoSegment)):
        return GeoPoint(*gm.midpoint(args[0].start, args[0].end))
    if match(args, _is_conic):
        return GeoPoint(*args[0].center)
    raise illegal("Midpoint", args)


def cmd_circle(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_point):
        circle = GeoCircle(args[0].xy, gm.norm(gm.sub(args[1].xy, args[0].xy)))
        return _through(ctx, circle, args[1])
    if match(args, is_point, is_number):
        radius = num(args[1])
        return GeoCircle(args[0].xy, radius if radius >= 0 else NAN)
    if match(args, is_point, lambda v: isinstance(v, GeoSegment)):
        return GeoCircle(args[0].xy, args[1].length)
    if match(args, is_point, is_point, is_point):
        center, radius = gm.circumcircle(args[0].xy, args[1].xy, args[2].xy)
        return _through(ctx, GeoCircle(center, radius), *args)
    raise illegal("Circle", args)


def _arc(name: str, args: list[Value], sector: bool) -> GeoConicPart:
    if not match(args, is_point, is_point, is_point):
        raise illegal(name, args)
    m, a, b = args[0].xy, args[1].xy, args[2].xy
    radius = gm.norm(gm.sub(a, m))
    if radius == 0 or a == m or b == m:
        return GeoConicPart(sector=sector)
    start = gm.angle_of(gm.sub(a, m))
    end = gm.angle_of(gm.sub(b, m))
    return GeoConicPart(m, radius, start, end, sector)


def cmd_circular_arc(ctx: Context, args: list[Value]) -> Value:
    return _arc("CircularArc", args, sector=False)


def cmd_circular_sector(ctx: Context, args: list[Value]) -> Value:
    return _arc("CircularSector", args, sector=True)


def _circum(name: str, args: list[Value], sector: bool) -> GeoConicPart:
    if not match(args, is_point, is_point, is_point):
        raise illegal(name, args)
    a, b, c = args[0].xy, args[1].xy, args[2].xy
    center, radius = gm.circumcircle(a, b, c)
    if not math.isfinite(radius):
        return GeoConicPart(sector=sector)
    start, middle, end = (gm.angle_of(gm.sub(p, center)) for p in (a, b, c))
    two_pi = 2 * math.pi
    if (middle - start) % two_pi > (end - start) % two_pi:
        start, end = end, start
    return GeoConicPart(center, radius, start, end, sector)


def cmd_circumcircular_arc(ctx: Context, args: list[Value]) -> Value:
    return _circum("CircumcircularArc", args, sector=False)


def cmd_circumcircular_sector(ctx: Context, args: list[Value]) -> Value:
    return _circum("CircumcircularSector", args, sector=True)


def cmd_semicircle(ctx: Context, args: list[Value]) -> Value:
    if not match(args, is_point, is_point):
        raise illegal("Semicircle", args)
    a, b = args[0].xy, args[1].xy
    if a == b:
        return GeoConicPart()
    center = gm.midpoint(a, b)
    start = gm.angle_of(gm.sub(b, center))
    return GeoConicPart(center, gm.norm(gm.sub(b, center)), start, start + math.pi)


def cmd_incircle(ctx: Context, args: list[Value]) -> Value:
    if not match(args, is_point, is_point, is_point):
        raise illegal("Incircle", args)
    center, radius = gm.incircle(args[0].xy, args[1].xy, args[2].xy)
    return GeoCircle(center, radius)


def cmd_center(ctx: Context, args: list[Value]) -> Value:
    if match(args, _is_conic):
        return GeoPoint(*args[0].center)
    raise illegal("Center", args)


def _intersections(a: Value, b: Value) -> list[Vec]:
    if is_line(a) and is_line(b):
        return [gm.intersect_lines(a, b)]
    if is_line(a) and _is_conic(b):
        return gm.intersect_line_circle(a, b)
    if _is_conic(a) and is_line(b):
        return gm.intersect_line_circle(b, a)
    if _is_conic(a) and _is_conic(b):
        return gm.intersect_circles(a, b)
    if _is_polygon(a) or _is_polygon(b):
        poly, other = (a, b) if _is_polygon(a) else (b, a)
        if not (is_line(other) or _is_conic(other)):
            raise CommandError("Intersect: a polygon meets only lines and circles here")
        points: list[Vec] = []
        vertices = poly.vertices
        for i, start in enumerate(vertices):
            side = GeoSegment(start, vertices[(i + 1) % len(vertices)])
            for p in _intersections(other, side):
                if gm.finite_vec(p) and not any(gm.norm(gm.sub(p, q)) < 1e-9 for q in points):
                    points.append(p)
        return points
    raise CommandError(f"Intersect: cannot intersect a {_kind(a)} with a {_kind(b)}")


def _lies_on(p: Vec, geo: Geo) -> bool:
    if isinstance(geo, GeoLine):
        return _point_line_distance(p, geo) <= 1e-9 * max(1.0, gm.norm(p))
    if isinstance(geo, GeoCircle):
        return abs(gm.norm(gm.sub(p, geo.center)) - geo.radius) <= 1e-9 * max(1.0, geo.radius)
    return False


def _known_first(ctx: Context, a: Geo, b: Geo, points: list[Vec]) -> list[Vec]:
    """Put first an intersection point that is a labelled point a circle was defined through
    and that lies on the other object too (Circle(O, A) ∩ Line(O, A) starts with A), as
    GeoGebra 4.0 does."""
    if len(points) != 2:
        return points
    conic_points = [geo.through for geo in (a, b) if isinstance(geo, GeoCircle)]
    for label in (label for labels in conic_points for label in labels):
        known = ctx.lookup_point(label)
        if known is None or not known.defined:
            continue
        if not (_lies_on(known.xy, a) and _lies_on(known.xy, b)):
            continue
        for index, p in enumerate(points):
            if gm.finite_vec(p) and gm.norm(gm.sub(p, known.xy)) <= 1e-9 * max(1.0, gm.norm(p)):
                return [points[index], points[1 - index]] if index else points
    return points


def cmd_intersect(ctx: Context, args: list[Value]) -> Value:
    if len(args) not in (2, 3) or not all(isinstance(a, Geo) for a in args[:2]):
        raise illegal("Intersect", args)
    points = _known_first(ctx, args[0], args[1], _intersections(args[0], args[1]))
    if len(args) == 3:
        if is_number(args[2]):
            index = num(args[2])
            if index != int(index):
                raise CommandError(f"Intersect: index must be a whole number, got {index:g}")
            index = max(index, 1)  # GeoGebra 4.0 reads 0 and below as 1
            chosen = points[int(index) - 1] if int(index) <= len(points) else NAN_VEC
            return GeoPoint(*chosen)
        if is_point(args[2]):
            near = args[2].xy
            defined = [p for p in points if gm.finite_vec(p)]
            if not defined:
                return GeoPoint()
            return GeoPoint(*min(defined, key=lambda p: gm.norm(gm.sub(p, near))))
        raise illegal("Intersect", args)
    if len(points) == 1:
        return GeoPoint(*points[0])
    return Outputs([GeoPoint(*p) for p in points])


def cmd_tangent(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_circle):
        point, circle = args[0].xy, args[1]
        touches = gm.tangent_points(point, circle)
        if len(touches) == 1:
            radial = gm.sub(point, circle.center)
            return GeoLine(point, (-radial[1], radial[0]))
        if not touches:
            return Outputs([])  # from inside the circle: GeoGebra creates nothing
        return Outputs([GeoLine(point, gm.sub(t, point)) for t in touches])
    if match(args, is_line, is_circle):
        line, circle = args
        n = gm.unit((line.a, line.b))
        lines: list[Geo] = [
            GeoLine(gm.add(circle.center, gm.scale(n, s * circle.radius)), line.direction)
            for s in (1, -1)
        ]
        return Outputs(lines)
    raise illegal("Tangent", args)


def cmd_polygon(ctx: Context, args: list[Value]) -> Value:
    if len(args) == 1 and _is_list(args[0]):
        items = _geo_list(args[0])
        if len(items) < 3 or not all(is_point(p) for p in items):
            raise illegal("Polygon", args)
        return GeoPolygon([p.xy for p in items])
    if match(args, is_point, is_point, is_number):
        n = num(args[2])
        if n != int(n) or not 3 <= n <= 1000:
            raise CommandError(f"Polygon: a regular polygon needs 3 to 1000 vertices, got {n:g}")
        labels = [ctx.label_of(args[0]), ctx.label_of(args[1])]
        outputs = _regular_polygon(args[0].xy, args[1].xy, int(n))
        regular = outputs.geos[0]
        assert isinstance(regular, GeoPolygon)  # _regular_polygon puts the polygon first
        regular.vertex_labels = labels
        # Sides are named from their start vertex; the new vertices have no label yet then.
        outputs.names = [None, _lower(labels[0]), _lower(labels[1])]
        for side_index, side in enumerate(outputs.geos[1 : 1 + int(n)]):
            assert isinstance(side, GeoSegment)
            if side_index < 2:
                side.endpoint_labels = (labels[side_index], labels[1] if side_index == 0 else None)
        return outputs
    if len(args) >= 2 and all(is_point(p) for p in args):
        vertices = [p.xy for p in args]
        sides = [
            GeoSegment(vertices[i], vertices[(i + 1) % len(vertices)]) for i in range(len(vertices))
        ]
        polygon = GeoPolygon(vertices)
        labels = [ctx.label_of(p) for p in args]
        polygon.vertex_labels = labels
        count = len(labels)
        for i, side in enumerate(sides):
            side.endpoint_labels = (labels[i], labels[(i + 1) % count])
        # GeoGebra names a triangle's sides after the opposite vertex (a = BC), other
        # polygons' sides after their start vertex (a = AB).
        if count == 3:
            side_names = [_lower(labels[2]), _lower(labels[0]), _lower(labels[1])]
        else:
            side_names = [_lower(label) for label in labels]
        return Outputs([polygon, *sides], naming="main", names=[None, *side_names])
    raise illegal("Polygon", args)


def _lower(label: str | None) -> str | None:
    return label.lower() if label else None


def _regular_polygon(a: Vec, b: Vec, n: int) -> Outputs:
    side = gm.sub(b, a)
    half = gm.norm(side) / 2
    if half == 0:
        points = [NAN_VEC] * n
    else:
        normal = gm.unit((-side[1], side[0]))
        center = gm.add(gm.midpoint(a, b), gm.scale(normal, half / math.tan(math.pi / n)))
        points = [
            gm.add(center, gm.rotate_vec(gm.sub(a, center), 2 * math.pi * k / n)) for k in range(n)
        ]
        points[0], points[1] = a, b
    polygon = GeoPolygon(points)
    new_points = [GeoPoint(*p) for p in points[2:]]
    sides = [GeoSegment(points[i], points[(i + 1) % n]) for i in range(n)]
    return Outputs([polygon, *sides, *new_points], naming="main")


def cmd_centroid(ctx: Context, args: list[Value]) -> Value:
    if not match(args, _is_polygon):
        raise illegal("Centroid", args)
    pts = args[0].vertices
    twice = 0.0
    cx = cy = 0.0
    for i, (x0, y0) in enumerate(pts):
        x1, y1 = pts[(i + 1) % len(pts)]
        c = x0 * y1 - x1 * y0
        twice += c
        cx += (x0 + x1) * c
        cy += (y0 + y1) * c
    if abs(twice) < 1e-12:
        return GeoPoint()
    return GeoPoint(cx / (3 * twice), cy / (3 * twice))


@dataclass
class Moved:
    """A transformed object plus the copies GeoGebra makes of a polygon's vertices and sides."""

    source: Geo
    transform: gm.Transform


def _transform(name: str, args: list[Value], transform: gm.Transform) -> Value:
    target = args[0]
    if isinstance(target, list):
        return GeoList([transform.apply(e) if isinstance(e, Geo) else e for e in target])
    if not isinstance(target, Geo):
        raise illegal(name, args)
    return Moved(target, transform)


def cmd_rotate(ctx: Context, args: list[Value]) -> Value:
    if match(args, _any, is_number):
        return _transform("Rotate", args, gm.rotation(num(args[1])))
    if match(args, _any, is_number, is_point):
        return _transform("Rotate", args, gm.rotation(num(args[1]), args[2].xy))
    raise illegal("Rotate", args)


def cmd_reflect(ctx: Context, args: list[Value]) -> Value:
    if match(args, _any, is_point):
        return _transform("Reflect", args, gm.point_reflection(args[1].xy))
    if match(args, _any, is_line):
        if not args[1].defined:
            return _transform("Reflect", args, gm.translation(NAN_VEC))
        return _transform("Reflect", args, gm.line_reflection(args[1]))
    raise illegal("Reflect", args)


def cmd_translate(ctx: Context, args: list[Value]) -> Value:
    if match(args, _is_vector, is_point):
        return GeoVector(args[0].x, args[0].y, args[1].xy)
    if match(args, _any, _is_vector):
        return _transform("Translate", args, gm.translation((args[1].x, args[1].y)))
    raise illegal("Translate", args)


def cmd_dilate(ctx: Context, args: list[Value]) -> Value:
    if match(args, _any, is_number):
        return _transform("Dilate", args, gm.dilation(num(args[1])))
    if match(args, _any, is_number, is_point):
        return _transform("Dilate", args, gm.dilation(num(args[1]), args[2].xy))
    raise illegal("Dilate", args)


def cmd_distance(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_point):
        return GeoNumber(gm.norm(gm.sub(args[0].xy, args[1].xy)))
    if match(args, is_point, is_line) or match(args, is_line, is_point):
        point, line = (args[0], args[1]) if is_point(args[0]) else (args[1], args[0])
        return GeoNumber(_point_line_distance(point.xy, line))
    if match(args, is_line, is_line):
        l1, l2 = args
        if abs(gm.cross(l1.direction, l2.direction)) > 1e-12 * gm.norm(l1.direction) * gm.norm(
            l2.direction
        ):
            return GeoNumber(0.0)
        return GeoNumber(_point_line_distance(l2.point, GeoLine(l1.point, l1.direction)))
    if match(args, is_point, _is_conic) or match(args, _is_conic, is_point):
        point, circle = (args[0], args[1]) if is_point(args[0]) else (args[1], args[0])
        return GeoNumber(abs(gm.norm(gm.sub(point.xy, circle.center)) - circle.radius))
    raise illegal("Distance", args)


def _point_line_distance(p: Vec, line: GeoLine) -> float:
    if isinstance(line, GeoSegment):
        return gm.norm(gm.sub(p, _nearest_on_segment(p, line.start, line.end)))
    if isinstance(line, GeoRay):
        d = line.direction
        length2 = gm.dot(d, d)
        t = 0.0 if length2 == 0 else max(0.0, gm.dot(gm.sub(p, line.point), d) / length2)
        return gm.norm(gm.sub(p, gm.add(line.point, gm.scale(d, t))))
    return abs(line.a * p[0] + line.b * p[1] + line.c) / math.hypot(line.a, line.b)


def cmd_length(ctx: Context, args: list[Value]) -> Value:
    if match(args, lambda v: isinstance(v, GeoSegment)):
        return GeoNumber(args[0].length)
    if match(args, _is_vector):
        return GeoNumber(math.hypot(args[0].x, args[0].y))
    if match(args, is_point):
        return GeoNumber(math.hypot(args[0].x, args[0].y))
    if match(args, lambda v: isinstance(v, GeoConicPart)):
        arc = args[0]
        return GeoNumber(arc.radius * arc.sweep)
    if match(args, is_circle):
        return GeoNumber(2 * math.pi * args[0].radius)
    if match(args, _is_list):
        return GeoNumber(float(len(_geo_list(args[0]))))
    if match(args, _is_text):
        text = args[0] if isinstance(args[0], str) else args[0].text
        return GeoNumber(float(len(text)))
    raise illegal("Length", args)


def cmd_area(ctx: Context, args: list[Value]) -> Value:
    if match(args, _is_polygon):
        return GeoNumber(args[0].area)
    if match(args, lambda v: isinstance(v, GeoConicPart)):
        arc = args[0]
        if arc.sector:
            return GeoNumber(arc.value)
        sweep = arc.sweep
        return GeoNumber(arc.radius**2 * (sweep - math.sin(sweep)) / 2)
    if match(args, is_circle):
        return GeoNumber(math.pi * args[0].radius ** 2)
    if len(args) >= 3 and all(is_point(p) for p in args):
        return GeoNumber(GeoPolygon([p.xy for p in args]).area)
    raise illegal("Area", args)


def cmd_perimeter(ctx: Context, args: list[Value]) -> Value:
    if match(args, _is_polygon):
        pts = args[0].vertices
        return GeoNumber(
            sum(gm.norm(gm.sub(pts[(i + 1) % len(pts)], p)) for i, p in enumerate(pts))
        )
    if match(args, is_circle):
        return GeoNumber(2 * math.pi * args[0].radius)
    raise illegal("Perimeter", args)


def cmd_radius(ctx: Context, args: list[Value]) -> Value:
    if match(args, _is_conic):
        return GeoNumber(args[0].radius)
    raise illegal("Radius", args)


def _ccw(angle: float) -> float:
    return angle % (2 * math.pi)


def cmd_angle(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_point, is_point):
        a, b, c = args[0].xy, args[1].xy, args[2].xy
        if a == b or c == b:
            return GeoAngle()
        start = gm.angle_of(gm.sub(a, b))
        return GeoAngle(_ccw(gm.angle_of(gm.sub(c, b)) - start), b, start)
    if match(args, is_point, is_point, is_number):
        a, b = args[0].xy, args[1].xy
        value = num(args[2])
        rotated = gm.add(b, gm.rotate_vec(gm.sub(a, b), value))
        return Outputs(
            [GeoAngle(_ccw(value), b, gm.angle_of(gm.sub(a, b))), GeoPoint(*rotated)],
            naming="main",
        )
    if match(args, is_line, is_line) or match(args, _is_vector, _is_vector):
        d1, d2 = _direction(args[0]), _direction(args[1])
        vertex = None
        if is_line(args[0]) and is_line(args[1]):
            p = gm.intersect_lines(GeoLine(args[0].point, d1), GeoLine(args[1].point, d2))
            vertex = p if gm.finite_vec(p) else None
        start = gm.angle_of(d1)
        return GeoAngle(_ccw(gm.angle_of(d2) - start), vertex, start)
    if match(args, _is_polygon):
        pts = args[0].vertices
        n = len(pts)
        angles: list[Geo] = []
        for i in range(n):
            prev, here, nxt = pts[i - 1], pts[i], pts[(i + 1) % n]
            start = gm.angle_of(gm.sub(nxt, here))
            angles.append(GeoAngle(_ccw(gm.angle_of(gm.sub(prev, here)) - start), here, start))
        return Outputs(angles)
    if match(args, is_number):
        return GeoAngle(_ccw(num(args[0])))
    raise illegal("Angle", args)


def cmd_unit_vector(ctx: Context, args: list[Value]) -> Value:
    if match(args, _is_vector) or match(args, is_line):
        dx, dy = gm.unit(_direction(args[0]))
        return GeoVector(dx, dy)
    raise illegal("UnitVector", args)


def cmd_slope(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_line):
        dx, dy = args[0].direction
        return GeoNumber(dy / dx if dx != 0 else NAN)
    raise illegal("Slope", args)


COMMANDS: dict[str, Callable[[Context, list[Value]], Value]] = {
    "Point": cmd_point,
    "Segment": cmd_segment,
    "Line": cmd_line,
    "Ray": cmd_ray,
    "Vector": cmd_vector,
    "PerpendicularLine": cmd_perpendicular_line,
    "OrthogonalLine": cmd_perpendicular_line,
    "PerpendicularBisector": cmd_perpendicular_bisector,
    "LineBisector": cmd_perpendicular_bisector,
    "AngleBisector": cmd_angle_bisector,
    "AngularBisector": cmd_angle_bisector,
    "Midpoint": cmd_midpoint,
    "Circle": cmd_circle,
    "Semicircle": cmd_semicircle,
    "CircularArc": cmd_circular_arc,
    "CircularSector": cmd_circular_sector,
    "CircumcircularArc": cmd_circumcircular_arc,
    "CircumcircularSector": cmd_circumcircular_sector,
    "Incircle": cmd_incircle,
    "Intersect": cmd_intersect,
    "Tangent": cmd_tangent,
    "Polygon": cmd_polygon,
    "Rotate": cmd_rotate,
    "Reflect": cmd_reflect,
    "Mirror": cmd_reflect,
    "Translate": cmd_translate,
    "Dilate": cmd_dilate,
    "Centroid": cmd_centroid,
    "Center": cmd_center,
    "Distance": cmd_distance,
    "Length": cmd_length,
    "Area": cmd_area,
    "Perimeter": cmd_perimeter,
    "Radius": cmd_radius,
    "Angle": cmd_angle,
    "UnitVector": cmd_unit_vector,
    "Slope": cmd_slope,
    "Text": cmd_text,
    "Sequence": cmd_sequence,
    "Element": cmd_element,
    "If": cmd_if,
}
