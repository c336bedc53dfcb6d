"""Commands on conics and functions: what analytic constructions (equations, `f(x) = …`) use.

GGBench answers solve construction problems with equations as often as with compass steps:
`c: x^2 + y^2 = 25`, `Ellipse(F_1, F_2, 5)`, `Focus(e)`, `Tangent(A, e)`, `Root(f)`. These
commands take the general conics (`GeoConic`), functions (`GeoFunction`) and implicit curves
the executor makes from equations, and fall back to `commands.py` for circles and lines, so
one table (`ANALYTIC_COMMANDS`, merged into `commands.COMMANDS`) keeps GeoGebra's
one-name-many-signatures dispatch. Argument forms and output orders follow GeoGebra 4.0.34
as the reference harness shows them; a form 4.0 refuses raises CommandError here too.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from geomeval.geogebra import algebra as alg
from geomeval.geogebra import commands as base
from geomeval.geogebra import conics
from geomeval.geogebra import geometry as gm
from geomeval.geogebra.commands import (
    CommandError,
    Context,
    Outputs,
    Value,
    illegal,
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
    GeoCircle,
    GeoConic,
    GeoConicPart,
    GeoFunction,
    GeoImplicitPoly,
    GeoLine,
    GeoNumber,
    GeoPoint,
    Vec,
)

# How far Root/Intersect look for the zeros of a function that is not a polynomial.
_SCAN = (-100.0, 100.0, 4000)


def _conic(v: Value) -> bool:
    return isinstance(v, GeoConic)


def _any_conic(v: Value) -> bool:
    return isinstance(v, GeoConic) or (isinstance(v, GeoCircle) and not isinstance(v, GeoConicPart))


def _function(v: Value) -> bool:
    return isinstance(v, GeoFunction)


def _kind(conic: GeoConic) -> str:
    return conic.conic_type


# --- zeros of functions --------------------------------------------------------------------


def _zeros(f: Callable[[float], float], body: alg.Sym | None) -> list[float]:
    """Zeros of f, ascending: exact for polynomials, else sign changes in a bounded range."""
    if body is not None:
        poly = alg.to_poly(body.node)
        if poly is not None and all(j == 0 for (_i, j) in poly):
            coeffs = alg.univariate(alg.clean(poly))
            if len(coeffs) > 1:
                return alg.real_roots(coeffs)
            return []
    lo, hi, steps = _SCAN
    steps = alg.sample_count(body, steps)
    h = (hi - lo) / steps
    out: list[float] = []
    prev_x, prev = lo, f(lo)
    for k in range(1, steps + 1):
        x = lo + k * h
        cur = f(x)
        if math.isfinite(prev) and math.isfinite(cur) and (prev == 0 or (prev < 0) != (cur < 0)):
            a, b, fa = prev_x, x, prev
            for _ in range(80):
                m = (a + b) / 2
                fm = f(m)
                if not math.isfinite(fm):
                    break
                if (fm < 0) == (fa < 0) and fm != 0:
                    a, fa = m, fm
                else:
                    b = m
            root = (a + b) / 2
            # a pole (1/x) changes sign too: keep only true zeros
            if abs(f(root)) < 1e-6 and (not out or abs(root - out[-1]) > 1e-9):
                out.append(root)
        prev_x, prev = x, cur
    return out


def _difference(f: GeoFunction, g: GeoFunction) -> tuple[Callable[[float], float], alg.Sym | None]:
    if f.body is None or g.body is None:
        return (lambda _x: NAN), None
    body = alg.combine("-", f.body, g.body)
    return body, body


def _line_as_function(line: GeoLine) -> GeoFunction | None:
    if line.b == 0:
        return None
    slope = alg.combine("*", alg.X, -line.a / line.b)
    return GeoFunction(alg.combine("+", slope, -line.c / line.b))


def _function_points(a: Value, b: Value) -> list[Vec]:
    f = a if _function(a) else b
    other = b if f is a else a
    if is_line(other):
        line_f = _line_as_function(other)
        if line_f is None:  # a vertical line x = k
            k = -other.c / other.a
            return [(k, f(k))]
        other = line_f
    if _any_conic(other):
        m = other.matrix

        def on_conic(x: float) -> float:
            return conics.value(m, (x, f(x)))

        body = None
        if f.body is not None:
            y = f.body
            a0, a1, a2, a3, a4, a5 = m
            terms = [
                alg.combine("*", a0, alg.combine("*", alg.X, alg.X)),
                alg.combine("*", a1, alg.combine("*", y, y)),
                alg.const(a2),
                alg.combine("*", 2 * a3, alg.combine("*", alg.X, y)),
                alg.combine("*", 2 * a4, alg.X),
                alg.combine("*", 2 * a5, y),
            ]
            body = terms[0]
            for term in terms[1:]:
                body = alg.combine("+", body, term)
        return [(x, f(x)) for x in _zeros(on_conic, body)]
    if not _function(other):
        raise CommandError(f"Intersect: cannot intersect a function with a {base._kind(other)}")
    fn, body = _difference(f, other)
    return [(x, f(x)) for x in _zeros(fn, body)]


# --- Intersect, Tangent, Point, measurements ----------------------------------------------


def _points(a: Value, b: Value) -> list[Vec] | None:
    """Intersection points for the new kinds, or None to leave the pair to commands.py."""
    if _function(a) or _function(b):
        return _function_points(a, b)
    if isinstance(a, GeoImplicitPoly) or isinstance(b, GeoImplicitPoly):
        raise CommandError("Intersect: intersections with implicit curves are not supported")
    if _conic(a) or _conic(b):
        conic, other = (a, b) if _conic(a) else (b, a)
        if is_line(other):
            points = conics.intersect_line(other, conic.matrix)
            return [p if gm.finite_vec(p) and gm._on_extent(other, p) else NAN_VEC for p in points]
        if _any_conic(other):
            return conics.intersect_conics(a, b)
        raise CommandError(f"Intersect: cannot intersect a conic with a {base._kind(other)}")
    return None


def cmd_intersect(ctx: Context, args: list[Value]) -> Value:
    if len(args) not in (2, 3):
        return base.cmd_intersect(ctx, args)
    points = _points(args[0], args[1])
    if points is None:
        return base.cmd_intersect(ctx, args)
    if len(args) == 3:
        if is_number(args[2]):
            index = num(args[2])
            if index != int(index):
                raise CommandError(f"Intersect: index must be a whole number, got {index:g}")
            index = max(int(index), 1)
            return GeoPoint(*(points[index - 1] if index <= len(points) else NAN_VEC))
        if is_point(args[2]):
            near = args[2].xy
            defined = [p for p in points if gm.finite_vec(p)]
            if not defined:
                return GeoPoint()
            return GeoPoint(*min(defined, key=lambda p: gm.norm(gm.sub(p, near))))
        raise illegal("Intersect", args)
    if not points:
        return GeoPoint()
    if len(points) == 1:
        return GeoPoint(*points[0])
    return Outputs([GeoPoint(*p) for p in points])


def cmd_tangent(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, _conic):
        p, conic = args[0].xy, args[1]
        m = conic.matrix
        a, b, c = conics.polar(m, p)
        if abs(conics.value(m, p)) <= 1e-9 * max(1.0, conics._scale(m)) * max(1.0, gm.norm(p)) ** 2:
            line = conics.line_from_abc(a, b, c)
            return GeoLine(p, line.direction)
        touches = conics.intersect_line(conics.line_from_abc(a, b, c), m)
        lines: list[Geo] = [GeoLine(p, gm.sub(t, p)) for t in touches if gm.finite_vec(t)]
        return Outputs(lines) if len(lines) != 1 else lines[0]
    if match(args, is_number, _function) or match(args, is_point, _function):
        f = args[1]
        x0 = num(args[0]) if is_number(args[0]) else args[0].x
        if f.body is None:
            return GeoLine()
        slope = alg.derivative(f.body)(x0)
        y0 = f(x0)
        if not (math.isfinite(slope) and math.isfinite(y0)):
            return GeoLine()
        return GeoLine((x0, y0), (1.0, slope))
    return base.cmd_tangent(ctx, args)


def cmd_point(ctx: Context, args: list[Value]) -> Value:
    if match(args, _conic):
        pieces = conics.parametrisation(args[0])
        if not pieces:
            return GeoPoint()
        t0, t1, point = pieces[0]
        return GeoPoint(*point(max(t0, min(t1, 0.0))))  # type: ignore[operator]
    if match(args, _function):
        return GeoPoint(0.0, args[0](0.0))
    return base.cmd_point(ctx, args)


def cmd_center(ctx: Context, args: list[Value]) -> Value:
    if match(args, _conic):
        if _kind(args[0]) not in ("ellipse", "hyperbola", "single_point", "intersecting_lines"):
            return GeoPoint()
        return GeoPoint(*conics.center(args[0].matrix))
    return base.cmd_center(ctx, args)


def _circumference(v: Value) -> float:
    if isinstance(v, GeoCircle):
        return 2 * math.pi * v.radius
    if _kind(v) != "ellipse":
        return NAN
    a, b = conics.half_axes(v)
    h = ((a - b) / (a + b)) ** 2
    return math.pi * (a + b) * (1 + 3 * h / (10 + math.sqrt(4 - 3 * h)))  # Ramanujan II


def cmd_radius(ctx: Context, args: list[Value]) -> Value:
    if match(args, _conic):
        return GeoNumber(NAN)  # 4.0 accepts any conic; only a circle has a radius
    return base.cmd_radius(ctx, args)


def cmd_circumference(ctx: Context, args: list[Value]) -> Value:
    if match(args, _any_conic):
        return GeoNumber(_circumference(args[0]))
    raise illegal("Circumference", args)


def cmd_perimeter(ctx: Context, args: list[Value]) -> Value:
    if match(args, _conic):
        return GeoNumber(_circumference(args[0]))
    return base.cmd_perimeter(ctx, args)


def cmd_area(ctx: Context, args: list[Value]) -> Value:
    if match(args, _conic):
        if _kind(args[0]) != "ellipse":
            return GeoNumber(NAN)
        a, b = conics.half_axes(args[0])
        return GeoNumber(math.pi * a * b)
    return base.cmd_area(ctx, args)


def cmd_distance(ctx: Context, args: list[Value]) -> Value:
    if match(args, _conic, is_point) or match(args, _function, is_point):
        args = [args[1], args[0]]
    if match(args, is_point, _conic) or match(args, is_point, _function):
        nearest = cmd_closest_point(ctx, [args[1], args[0]])
        return GeoNumber(gm.norm(gm.sub(nearest.xy, args[0].xy)))
    if any(_conic(a) or _function(a) for a in args):
        raise illegal("Distance", args)
    return base.cmd_distance(ctx, args)


def cmd_reflect(ctx: Context, args: list[Value]) -> Value:
    """Reflect(<point>, <circle>) is the inversion in the circle (GeoGebra 4.0)."""
    if match(args, is_point, lambda v: isinstance(v, GeoCircle) and not isinstance(v, GeoConicPart)):
        center, r = args[1].center, args[1].radius
        d = gm.sub(args[0].xy, center)
        d2 = gm.dot(d, d)
        if d2 == 0:
            return GeoPoint()
        return GeoPoint(*gm.add(center, gm.scale(d, r * r / d2)))
    return base.cmd_reflect(ctx, args)


def cmd_closest_point(ctx: Context, args: list[Value]) -> Value:
    """ClosestPoint(<path>, <point>): the point of the path nearest the given point."""
    if len(args) == 2 and is_point(args[0]) and not is_point(args[1]):
        args = [args[1], args[0]]
    if not (len(args) == 2 and is_point(args[1])):
        raise illegal("ClosestPoint", args)
    path, p = args[0], args[1].xy
    if isinstance(path, base.GeoSegment):
        return GeoPoint(*base._nearest_on_segment(p, path.start, path.end))
    if is_line(path):
        d = gm.unit(path.direction)
        return GeoPoint(*gm.add(path.point, gm.scale(d, gm.dot(gm.sub(p, path.point), d))))
    if isinstance(path, GeoCircle) and not isinstance(path, GeoConicPart):
        direction = gm.unit(gm.sub(p, path.center))
        if not gm.finite_vec(direction):
            direction = (1.0, 0.0)
        return GeoPoint(*gm.add(path.center, gm.scale(direction, path.radius)))
    if _conic(path):
        best = (math.inf, NAN_VEC)
        for t0, t1, point in conics.parametrisation(path):
            best = min(best, _nearest_on_curve(point, t0, t1, p))  # type: ignore[arg-type]
        return GeoPoint(*best[1])
    if _function(path):
        steps = alg.sample_count(path.body, 4000)
        best = _nearest_on_curve(lambda t: (t, path(t)), -100.0, 100.0, p, steps)
        return GeoPoint(*best[1])
    raise illegal("ClosestPoint", args)


def _nearest_on_curve(
    point: Callable[[float], Vec], t0: float, t1: float, target: Vec, steps: int = 4000
) -> tuple[float, Vec]:
    """(distance, point) of the curve's point nearest `target`: a scan, then golden sections."""
    def dist(t: float) -> float:
        q = point(t)
        d = gm.norm(gm.sub(q, target))
        return d if math.isfinite(d) else math.inf

    h = (t1 - t0) / steps
    k_best = min(range(steps + 1), key=lambda k: dist(t0 + k * h))
    lo, hi = t0 + max(k_best - 1, 0) * h, t0 + min(k_best + 1, steps) * h
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(100):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if dist(a) < dist(b):
            hi = b
        else:
            lo = a
    t = (lo + hi) / 2
    return dist(t), point(t)


# --- conic properties ----------------------------------------------------------------------


def _centered(name: str, args: list[Value]) -> tuple[GeoConic, str]:
    if not match(args, _conic):
        raise illegal(name, args)
    return args[0], _kind(args[0])


def cmd_focus(ctx: Context, args: list[Value]) -> Value:
    if match(args, lambda v: isinstance(v, GeoCircle) and not isinstance(v, GeoConicPart)):
        return Outputs([GeoPoint(*args[0].center), GeoPoint(*args[0].center)])
    conic, kind = _centered("Focus", args)
    if kind == "parabola":
        vertex, w, p = conics.parabola_frame(conic.matrix)
        return GeoPoint(*gm.add(vertex, gm.scale(w, p / 2)))
    if kind not in ("ellipse", "hyperbola"):
        return Outputs([GeoPoint(), GeoPoint()])
    e1, _e2, a, b = conics.axes(conic)
    c = math.sqrt(a * a - b * b) if kind == "ellipse" else math.hypot(a, b)
    m = conics.center(conic.matrix)
    return Outputs([GeoPoint(*gm.add(m, gm.scale(e1, -c))), GeoPoint(*gm.add(m, gm.scale(e1, c)))])


def cmd_vertex(ctx: Context, args: list[Value]) -> Value:
    if not match(args, _conic):
        return _no_vertex(ctx, args)
    conic, kind = args[0], _kind(args[0])
    if kind == "parabola":
        vertex, _w, _p = conics.parabola_frame(conic.matrix)
        return GeoPoint(*vertex)
    if kind not in ("ellipse", "hyperbola"):
        return Outputs([GeoPoint(), GeoPoint()])
    e1, e2, a, b = conics.axes(conic)
    m = conics.center(conic.matrix)
    points = [gm.add(m, gm.scale(e1, -a)), gm.add(m, gm.scale(e1, a))]
    if kind == "ellipse":
        points += [gm.add(m, gm.scale(e2, -b)), gm.add(m, gm.scale(e2, b))]
    return Outputs([GeoPoint(*p) for p in points])


def _no_vertex(ctx: Context, args: list[Value]) -> Value:
    if len(args) == 1 and base._is_polygon(args[0]):
        return Outputs([GeoPoint(*v) for v in args[0].vertices])
    raise illegal("Vertex", args)


def cmd_asymptote(ctx: Context, args: list[Value]) -> Value:
    conic, kind = _centered("Asymptote", args)
    if kind != "hyperbola":
        return Outputs([])  # GeoGebra 4.0 runs the line and creates nothing
    e1, e2, a, b = conics.axes(conic)
    m = conics.center(conic.matrix)
    d1 = gm.add(gm.scale(e1, a), gm.scale(e2, b))
    d2 = gm.add(gm.scale(e1, a), gm.scale(e2, -b))
    return Outputs([GeoLine(m, d1), GeoLine(m, d2)])


def cmd_directrix(ctx: Context, args: list[Value]) -> Value:
    conic, kind = _centered("Directrix", args)
    if kind != "parabola":
        return Outputs([])
    vertex, w, p = conics.parabola_frame(conic.matrix)
    return GeoLine(gm.add(vertex, gm.scale(w, -p / 2)), (-w[1], w[0]))


def cmd_parameter(ctx: Context, args: list[Value]) -> Value:
    conic, kind = _centered("Parameter", args)
    if kind != "parabola":
        return GeoNumber(NAN)
    return GeoNumber(conics.parabola_frame(conic.matrix)[2])


def _axis_lengths(name: str, args: list[Value]) -> tuple[float, float, str]:
    if match(args, lambda v: isinstance(v, GeoCircle) and not isinstance(v, GeoConicPart)):
        return args[0].radius, args[0].radius, "circle"
    conic, kind = _centered(name, args)
    if kind not in ("ellipse", "hyperbola"):
        return NAN, NAN, kind
    a, b = conics.half_axes(conic)
    return a, b, kind


def cmd_semi_major(ctx: Context, args: list[Value]) -> Value:
    return GeoNumber(_axis_lengths("SemiMajorAxisLength", args)[0])


def cmd_semi_minor(ctx: Context, args: list[Value]) -> Value:
    return GeoNumber(_axis_lengths("SemiMinorAxisLength", args)[1])


def cmd_linear_eccentricity(ctx: Context, args: list[Value]) -> Value:
    a, b, kind = _axis_lengths("LinearEccentricity", args)
    if kind == "hyperbola":
        return GeoNumber(math.hypot(a, b))
    return GeoNumber(math.sqrt(max(a * a - b * b, 0.0)) if kind in ("ellipse", "circle") else NAN)


def cmd_eccentricity(ctx: Context, args: list[Value]) -> Value:
    if match(args, _conic) and _kind(args[0]) == "parabola":
        return GeoNumber(1.0)
    a, b, kind = _axis_lengths("Eccentricity", args)
    if kind == "hyperbola":
        return GeoNumber(math.hypot(a, b) / a)
    return GeoNumber(math.sqrt(max(a * a - b * b, 0.0)) / a if kind in ("ellipse", "circle") else NAN)


def _axis(name: str, args: list[Value], second: bool) -> Value:
    conic, kind = _centered(name, args)
    if kind not in ("ellipse", "hyperbola"):
        return GeoLine()
    e1, e2, _a, _b = conics.axes(conic)
    return GeoLine(conics.center(conic.matrix), e2 if second else e1)


def cmd_major_axis(ctx: Context, args: list[Value]) -> Value:
    return _axis("MajorAxis", args, second=False)


def cmd_minor_axis(ctx: Context, args: list[Value]) -> Value:
    return _axis("MinorAxis", args, second=True)


# --- building conics -----------------------------------------------------------------------


def _as_circle(conic: GeoConic) -> Value:
    """A conic that came out a circle is a circle object, as for equations."""
    if conic.defined and conics.classify(conic.matrix) == "circle":
        m = conic.matrix
        cx, cy = conics.center(m)
        return GeoCircle((cx, cy), math.sqrt(-(m[2] + m[4] * cx + m[5] * cy) / m[0]))
    return conic


def _foci_conic(name: str, args: list[Value], hyperbola: bool) -> Value:
    return _as_circle(_foci_conic_raw(name, args, hyperbola))


def _foci_conic_raw(name: str, args: list[Value], hyperbola: bool) -> GeoConic:
    if match(args, is_point, is_point, is_number):
        return conics.from_foci(args[0].xy, args[1].xy, num(args[2]), hyperbola)
    if match(args, is_point, is_point, lambda v: isinstance(v, base.GeoSegment)):
        return conics.from_foci(args[0].xy, args[1].xy, args[2].length, hyperbola)
    if match(args, is_point, is_point, is_point):
        f1, f2, p = args[0].xy, args[1].xy, args[2].xy
        d1, d2 = gm.norm(gm.sub(p, f1)), gm.norm(gm.sub(p, f2))
        a = abs(d1 - d2) / 2 if hyperbola else (d1 + d2) / 2
        return conics.from_foci(f1, f2, a, hyperbola)
    raise illegal(name, args)


def cmd_ellipse(ctx: Context, args: list[Value]) -> Value:
    return _foci_conic("Ellipse", args, hyperbola=False)


def cmd_hyperbola(ctx: Context, args: list[Value]) -> Value:
    return _foci_conic("Hyperbola", args, hyperbola=True)


def cmd_parabola(ctx: Context, args: list[Value]) -> Value:
    if match(args, is_point, is_line):
        return conics.parabola(args[0].xy, args[1])
    raise illegal("Parabola", args)


def cmd_conic(ctx: Context, args: list[Value]) -> Value:
    if len(args) == 5 and all(is_point(p) for p in args):
        matrix = conics.through_five([p.xy for p in args])
        if conics.classify(matrix) == "circle":
            cx, cy = conics.center(matrix)
            a2 = matrix[2] + matrix[4] * cx + matrix[5] * cy
            return GeoCircle((cx, cy), math.sqrt(-a2 / matrix[0]))
        return GeoConic(matrix)
    raise illegal("Conic", args)


# --- functions -----------------------------------------------------------------------------


def cmd_function(ctx: Context, args: list[Value]) -> Value:
    """Function(<function>, <from>, <to>): the function drawn on [from, to] only (GeoGebra
    4.0 still evaluates it everywhere)."""
    if match(args, _function, is_number, is_number):
        restricted = GeoFunction(args[0].body, args[0].var)
        restricted.domain = (num(args[1]), num(args[2]))
        return restricted
    raise illegal("Function", args)


def cmd_root(ctx: Context, args: list[Value]) -> Value:
    if not match(args, _function):
        raise illegal("Root", args)
    f = args[0]
    xs = _zeros(f, f.body) if f.body is not None else []
    if not xs:
        return GeoPoint()
    if len(xs) == 1:
        return GeoPoint(xs[0], 0.0)
    return Outputs([GeoPoint(x, 0.0) for x in xs])


def cmd_extremum(ctx: Context, args: list[Value]) -> Value:
    if not match(args, _function) or args[0].body is None:
        raise illegal("Extremum", args)
    f = args[0]
    slope = alg.derivative(f.body)
    xs = _zeros(slope, slope)
    # keep only sign changes of the slope (true extrema, not inflection points)
    xs = [x for x in xs if (slope(x - 1e-5) < 0) != (slope(x + 1e-5) < 0)]
    if not xs:
        return GeoPoint()
    if len(xs) == 1:
        return GeoPoint(xs[0], f(xs[0]))
    return Outputs([GeoPoint(x, f(x)) for x in xs])


def cmd_derivative(ctx: Context, args: list[Value]) -> Value:
    if not match(args, _function) or args[0].body is None:
        raise illegal("Derivative", args)
    return GeoFunction(alg.derivative(args[0].body))


def cmd_integral(ctx: Context, args: list[Value]) -> Value:
    if match(args, _function, is_number, is_number) and args[0].body is not None:
        return GeoNumber(alg.integral(args[0].body, num(args[1]), num(args[2])))
    raise illegal("Integral", args)


ANALYTIC_COMMANDS: dict[str, Callable[[Context, list[Value]], Value]] = {
    "Intersect": cmd_intersect,
    "Tangent": cmd_tangent,
    "Point": cmd_point,
    "Center": cmd_center,
    "Circumference": cmd_circumference,
    "Radius": cmd_radius,
    "Perimeter": cmd_perimeter,
    "Area": cmd_area,
    "Distance": cmd_distance,
    "Reflect": cmd_reflect,
    "Mirror": cmd_reflect,
    "Focus": cmd_focus,
    "Vertex": cmd_vertex,
    "Asymptote": cmd_asymptote,
    "Directrix": cmd_directrix,
    "Parameter": cmd_parameter,
    "SemiMajorAxisLength": cmd_semi_major,
    "FirstAxisLength": cmd_semi_major,
    "SemiMinorAxisLength": cmd_semi_minor,
    "SecondAxisLength": cmd_semi_minor,
    "LinearEccentricity": cmd_linear_eccentricity,
    "Excentricity": cmd_linear_eccentricity,
    "Eccentricity": cmd_eccentricity,
    "MajorAxis": cmd_major_axis,
    "FirstAxis": cmd_major_axis,
    "MinorAxis": cmd_minor_axis,
    "SecondAxis": cmd_minor_axis,
    "Ellipse": cmd_ellipse,
    "Hyperbola": cmd_hyperbola,
    "Parabola": cmd_parabola,
    "Conic": cmd_conic,
    "ClosestPoint": cmd_closest_point,
    "Root": cmd_root,
    "Function": cmd_function,
    "Extremum": cmd_extremum,
    "Derivative": cmd_derivative,
    "Integral": cmd_integral,
}
