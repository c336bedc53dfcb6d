"""Conics given by their matrix, as GeoGebra 4.0 handles them.

A conic is A0 x² + A1 y² + A2 + 2 A3 xy + 2 A4 x + 2 A5 y = 0 (GeoGebra's matrix order). Here
are its classification, centre, axes, foci, vertices, asymptotes and directrix, the conics
the Ellipse/Hyperbola/Parabola/Conic commands build, and intersections with lines and other
conics. Orders of multiple outputs (foci, vertices, intersection points) follow GeoGebra
4.0.34 as the reference harness shows them.
"""

from __future__ import annotations

import math

from geomeval.geogebra import geometry as gm
from geomeval.geogebra.algebra import Poly
from geomeval.geogebra.conicmatrix import (  # noqa: F401  (conics.<name> stays valid)
    Matrix,
    _eigen,
    _quadratic_direction,
    _scale,
    _zero,
    axes,
    center,
    classify,
    det2,
    det3,
    half_axes,
    is_circle,
)
from geomeval.geogebra.objects import NAN, NAN_VEC, GeoCircle, GeoConic, GeoLine, Vec

# What has a conic matrix: a GeoConic, or a circle (arcs and sectors included).
AnyConic = GeoConic | GeoCircle
EPS = 1e-9


def from_poly(poly: Poly) -> Matrix:
    """The matrix of a polynomial of degree at most 2."""
    g = poly.get
    return (
        g((2, 0), 0.0),
        g((0, 2), 0.0),
        g((0, 0), 0.0),
        g((1, 1), 0.0) / 2,
        g((1, 0), 0.0) / 2,
        g((0, 1), 0.0) / 2,
    )


# --- parabolas ---------------------------------------------------------------------------


def parabola_frame(m: Matrix) -> tuple[Vec, Vec, float]:
    """(vertex, unit opening direction, parameter p) of a parabola."""
    lam = m[0] + m[1]
    u = _quadratic_direction(m)
    v = (-u[1], u[0])
    lu = m[4] * u[0] + m[5] * u[1]
    lv = m[4] * v[0] + m[5] * v[1]
    if lam == 0 or lv == 0:
        return NAN_VEC, NAN_VEC, NAN
    s0 = -lu / lam
    t0 = -(m[2] - lu * lu / lam) / (2 * lv)
    vertex = gm.add(gm.scale(u, s0), gm.scale(v, t0))
    w = v if -lv / lam > 0 else gm.scale(v, -1.0)
    return vertex, w, abs(lv / lam)


# --- building conics ---------------------------------------------------------------------


def from_foci(f1: Vec, f2: Vec, a: float, hyperbola: bool = False) -> GeoConic:
    """GeoGebra's conic with foci f1, f2 and first half axis a, for Ellipse and Hyperbola
    alike: (a² - c²)(u·e1)² + a² (u·e2)² = a² (a² - c²), u measured from the midpoint, c the
    half focal distance. So it is an ellipse when a > c, a hyperbola when a < c and the double
    line through the foci when a = c, whichever command asked (as in GeoGebra 4.0)."""
    del hyperbola  # the same equation either way
    if not (a > 0) or not gm.finite_vec(f1) or not gm.finite_vec(f2):
        return GeoConic()
    c = gm.norm(gm.sub(f2, f1)) / 2
    mid = gm.midpoint(f1, f2)
    e1 = gm.unit(gm.sub(f2, f1)) if c > 0 else (1.0, 0.0)
    p, q = a * a - c * c, a * a
    ex, ey = e1
    a0 = p * ex * ex + q * ey * ey
    a1 = p * ey * ey + q * ex * ex
    a3 = (p - q) * ex * ey
    mx, my = mid
    a4 = -(a0 * mx + a3 * my)
    a5 = -(a3 * mx + a1 * my)
    a2 = a0 * mx * mx + a1 * my * my + 2 * a3 * mx * my - p * q
    conic = GeoConic((a0, a1, a2, a3, a4, a5))
    conic.first_axis = e1
    return conic


def parabola(focus: Vec, line: GeoLine) -> GeoConic:
    """Points as far from `focus` as from the directrix `line`."""
    a, b, c = line.a, line.b, line.c
    n2 = a * a + b * b
    if n2 == 0 or abs(a * focus[0] + b * focus[1] + c) < EPS * math.sqrt(n2):
        return GeoConic()
    fx, fy = focus
    # n2 ((x-fx)² + (y-fy)²) - (a x + b y + c)² = 0
    a0 = n2 - a * a
    a1 = n2 - b * b
    a3 = -a * b
    a4 = -n2 * fx - a * c
    a5 = -n2 * fy - b * c
    a2 = n2 * (fx * fx + fy * fy) - c * c
    return GeoConic((a0, a1, a2, a3, a4, a5))


def through_five(points: list[Vec]) -> Matrix:
    """The conic through five points (NaN matrix when they do not fix one)."""
    import numpy as np

    rows = [[x * x, y * y, 1.0, 2 * x * y, 2 * x, 2 * y] for x, y in points]
    _, sv, vt = np.linalg.svd(np.array(rows))
    if len(sv) < 5 or sv[4] <= 1e-12 * max(sv[0], 1e-300):
        return (NAN,) * 6
    return tuple(float(v) for v in vt[-1])


# --- evaluation and intersections -----------------------------------------------------------


def value(m: Matrix, p: Vec) -> float:
    x, y = p
    a0, a1, a2, a3, a4, a5 = m
    return a0 * x * x + a1 * y * y + a2 + 2 * a3 * x * y + 2 * a4 * x + 2 * a5 * y


def polar(m: Matrix, p: Vec) -> tuple[float, float, float]:
    """The polar line a x + b y + c = 0 of `p` (the tangent when p lies on the conic)."""
    a0, a1, a2, a3, a4, a5 = m
    x, y = p
    return (a0 * x + a3 * y + a4, a3 * x + a1 * y + a5, a4 * x + a5 * y + a2)


def line_from_abc(a: float, b: float, c: float) -> GeoLine:
    """GeoGebra's line a x + b y + c = 0 (direction (b, -a), as its equations show)."""
    n2 = a * a + b * b
    if n2 == 0 or not all(map(math.isfinite, (a, b, c))):
        return GeoLine()
    return GeoLine((-a * c / n2, -b * c / n2), (b, -a))


def intersect_line(line: GeoLine, m: Matrix) -> list[Vec]:
    """A line's two intersection points with a conic, at the parameters (-q1 ∓ √D)/(2 q2) of
    the line's point + t·direction, in that order (GeoGebra 4.0 does not sort them: a conic
    whose matrix is negative along the line lists them against its direction)."""
    p, d = line.point, line.direction
    a0, a1, _a2, a3, a4, a5 = m
    qa = a0 * d[0] * d[0] + a1 * d[1] * d[1] + 2 * a3 * d[0] * d[1]
    qb = 2 * (a0 * p[0] * d[0] + a1 * p[1] * d[1] + a3 * (p[0] * d[1] + p[1] * d[0]))
    qb += 2 * (a4 * d[0] + a5 * d[1])
    qc = value(m, p)
    size = max(abs(qa), abs(qb), abs(qc), 1e-300)
    if abs(qa) <= 1e-12 * size:
        if abs(qb) <= 1e-12 * size:
            return [NAN_VEC, NAN_VEC]
        return [gm.add(p, gm.scale(d, -qc / qb)), NAN_VEC]
    disc = qb * qb - 4 * qa * qc
    if disc < -1e-12 * qb * qb - 1e-12:
        return [NAN_VEC, NAN_VEC]
    root = math.sqrt(max(disc, 0.0))
    ts = ((-qb - root) / (2 * qa), (-qb + root) / (2 * qa))
    pts = [gm.add(p, gm.scale(d, t)) for t in ts]
    if root == 0:
        return [pts[0], NAN_VEC]
    return pts


def parametrisation(conic: AnyConic) -> list[tuple[float, float, object]]:
    """Pieces (t0, t1, t -> point) covering a bounded or far-reaching part of the conic."""
    if isinstance(conic, GeoCircle):
        cx, cy = conic.center
        r = conic.radius
        return [(0.0, 2 * math.pi, lambda t: (cx + r * math.cos(t), cy + r * math.sin(t)))]
    kind = classify(conic.matrix)
    if kind == "ellipse":
        e1, e2, a, b = axes(conic)
        c = center(conic.matrix)

        def ell(t: float) -> Vec:
            return gm.add(c, gm.add(gm.scale(e1, a * math.cos(t)), gm.scale(e2, b * math.sin(t))))

        return [(0.0, 2 * math.pi, ell)]
    if kind == "hyperbola":
        e1, e2, a, b = axes(conic)
        c = center(conic.matrix)

        def branch(sign: float) -> object:
            return lambda t: gm.add(
                c, gm.add(gm.scale(e1, sign * a * math.cosh(t)), gm.scale(e2, b * math.sinh(t)))
            )

        return [(-6.0, 6.0, branch(1.0)), (-6.0, 6.0, branch(-1.0))]
    if kind == "parabola":
        vertex, w, p = parabola_frame(conic.matrix)
        side = (-w[1], w[0])
        return [(-60.0, 60.0, lambda t: gm.add(vertex, gm.add(gm.scale(side, t), gm.scale(w, t * t / (2 * p)))))]
    return []


def _pencil_lines(a: Matrix, b: Matrix) -> list[GeoLine] | None:
    """The two lines of a degenerate conic a + λ b of the pencil (λ the smallest real root of
    det(a + λ b) = 0), the way GeoGebra 4.0 reduces two conics to a line pair."""
    import numpy as np

    def det_at(lam: float) -> float:
        return det3(tuple(x + lam * y for x, y in zip(a, b, strict=True)))

    samples = [det_at(t) for t in (-1.0, 0.0, 1.0, 2.0)]
    fitted = np.polyfit([-1.0, 0.0, 1.0, 2.0], samples, 3)
    scale = max(abs(c) for c in fitted) or 1.0
    coeffs = [c for c in fitted]
    while coeffs and abs(coeffs[0]) <= 1e-12 * scale:
        coeffs.pop(0)
    if len(coeffs) < 2:
        return None
    roots = sorted(r.real for r in np.roots(coeffs) if abs(r.imag) <= 1e-9 * max(1.0, abs(r.real)))
    for lam in roots:
        d = tuple(x + lam * y for x, y in zip(a, b, strict=True))
        lines = _line_pair(d)
        if lines is not None:
            return lines
    return None


def _line_pair(d: Matrix) -> list[GeoLine] | None:
    lam1, lam2, e1 = _eigen(d)
    e2 = (-e1[1], e1[0])
    if not _zero(det2(d), d, 2):
        # intersecting lines through the centre: λ1 s² + λ2 t² = 0
        if lam1 * lam2 > 0:
            return None
        c = center(d)
        k = math.sqrt(-lam1 / lam2)
        return [
            GeoLine(c, gm.sub(e1, gm.scale(e2, k))),
            GeoLine(c, gm.add(e1, gm.scale(e2, k))),
        ]
    # parallel lines: λ s² + 2 L s + A2 = 0 along the non-zero eigen-direction u
    if abs(lam2) > abs(lam1):  # the lines run along GeoGebra's first eigenvector
        lam1, e1, e2 = lam2, e2, e1
    if lam1 == 0:
        return None
    lu = d[4] * e1[0] + d[5] * e1[1]
    disc = lu * lu - lam1 * d[2]
    if disc < 0:
        return None
    root = math.sqrt(disc)
    s_values = ((-lu - root) / lam1, (-lu + root) / lam1)
    return [GeoLine(gm.scale(e1, s), e2) for s in s_values]


def intersect_conics(first: AnyConic, second: AnyConic, steps: int = 2048) -> list[Vec]:
    """Intersections of two conics: each line of a degenerate conic of their pencil met with
    the first conic (GeoGebra 4.0's method and order); failing that, sign changes of the
    second's equation along the first, refined by bisection."""
    lines = _pencil_lines(first.matrix, second.matrix)
    if lines is not None:
        points: list[Vec] = []
        for line in lines:
            for q in intersect_line(line, first.matrix):
                if gm.finite_vec(q) and abs(value(second.matrix, q)) <= 1e-6 * _scale(
                    second.matrix
                ) * max(1.0, gm.norm(q)) ** 2:
                    points.append(q)
                else:
                    points.append(NAN_VEC)
        return points
    return _intersect_by_scan(first, second, steps)


def _intersect_by_scan(first: AnyConic, second: AnyConic, steps: int) -> list[Vec]:
    """Intersections of two conics: sign changes of the second's equation along the first,
    refined by bisection (tangential touching points are not found)."""
    pieces = parametrisation(first)
    if not pieces:
        pieces = parametrisation(second)
        first, second = second, first
    m = second.matrix
    out: list[Vec] = []
    for t0, t1, point in pieces:
        h = (t1 - t0) / steps
        prev_t = t0
        prev = value(m, point(prev_t))  # type: ignore[operator]
        for k in range(1, steps + 1):
            t = t0 + k * h
            cur = value(m, point(t))  # type: ignore[operator]
            if prev == 0 or (prev < 0) != (cur < 0):
                lo, hi, flo = prev_t, t, prev
                for _ in range(80):
                    mid = (lo + hi) / 2
                    fm = value(m, point(mid))  # type: ignore[operator]
                    if (fm < 0) == (flo < 0) and fm != 0:
                        lo, flo = mid, fm
                    else:
                        hi = mid
                q = point((lo + hi) / 2)  # type: ignore[operator]
                if not any(gm.norm(gm.sub(q, r)) < 1e-7 for r in out):
                    out.append(q)
            prev_t, prev = t, cur
    return out[:4]
