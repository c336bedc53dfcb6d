"""A conic's matrix alone: its classification, centre and axes (no conic objects needed, so
`objects.GeoConic` reads its type and axes here while `conics` builds on both).

The matrix is (A0, A1, A2, A3, A4, A5) of A0 x² + A1 y² + A2 + 2 A3 xy + 2 A4 x + 2 A5 y = 0.
"""

from __future__ import annotations

import math
from typing import Any

Matrix = tuple[float, ...]
Vec = tuple[float, float]
NAN_VEC: Vec = (float("nan"), float("nan"))


def _unit(p: Vec) -> Vec:
    length = math.hypot(p[0], p[1])
    if length == 0 or not math.isfinite(length):
        return NAN_VEC
    return (p[0] / length, p[1] / length)


def _cross(p: Vec, q: Vec) -> float:
    return p[0] * q[1] - p[1] * q[0]


def _scale(m: Matrix) -> float:
    return max((abs(v) for v in m), default=1.0) or 1.0


def _zero(value: float, m: Matrix, power: int = 1) -> bool:
    return abs(value) <= 1e-9 * _scale(m) ** power


def det2(m: Matrix) -> float:
    return m[0] * m[1] - m[3] * m[3]


def det3(m: Matrix) -> float:
    a0, a1, a2, a3, a4, a5 = m
    return a0 * (a1 * a2 - a5 * a5) - a3 * (a3 * a2 - a5 * a4) + a4 * (a3 * a5 - a1 * a4)


def is_circle(m: Matrix) -> bool:
    return _zero(m[3], m) and _zero(m[0] - m[1], m) and not _zero(m[0], m)


def classify(m: Matrix) -> str:
    """GeoGebra's conic type name for the matrix."""
    if not all(math.isfinite(v) for v in m):
        return "unknown"
    d2 = det2(m)
    d3 = det3(m)
    if _zero(m[0], m) and _zero(m[1], m) and _zero(m[3], m):
        return "line" if not (_zero(m[4], m) and _zero(m[5], m)) else "empty"
    if _zero(d2, m, 2):
        if not _zero(d3, m, 3):
            return "parabola"
        # parallel lines, a double line or nothing: λ s² + 2 L s + A2 = 0
        lam = m[0] + m[1]
        u = _quadratic_direction(m)
        lu = m[4] * u[0] + m[5] * u[1]
        disc = lu * lu - lam * m[2]
        if _zero(disc, m, 2):
            return "double_line"
        return "parallel_lines" if disc > 0 else "empty"
    cx, cy = center(m)
    a2 = m[2] + m[4] * cx + m[5] * cy
    if _zero(a2, m):
        return "single_point" if d2 > 0 else "intersecting_lines"
    if d2 < 0:
        return "hyperbola"
    if a2 * m[0] > 0:
        return "empty"
    return "circle" if is_circle(m) else "ellipse"


def center(m: Matrix) -> Vec:
    d = det2(m)
    if d == 0:
        return NAN_VEC
    return ((-m[4] * m[1] + m[5] * m[3]) / d, (-m[5] * m[0] + m[4] * m[3]) / d)


def _quadratic_direction(m: Matrix) -> Vec:
    """For a rank-1 quadratic part: the unit vector u with A0 x² + 2A3 xy + A1 y² = λ (u·p)²."""
    if abs(m[0]) >= abs(m[1]):
        return _unit((m[0], m[3]))
    return _unit((m[3], m[1]))


def _eigen(m: Matrix) -> tuple[float, float, Vec]:
    """Eigenvalues (λ1 for e1, λ2) of the quadratic part and GeoGebra's first eigenvector e1."""
    a0, a1, a3 = m[0], m[1], m[3]
    if _zero(a3, m):
        return a0, a1, (1.0, 0.0)
    mean = (a0 + a1) / 2
    root = math.hypot((a0 - a1) / 2, a3)
    lam1 = mean + root
    e1 = _unit((a3, lam1 - a0))
    return lam1, mean - root, e1


def axes(conic: Any) -> tuple[Vec, Vec, float, float]:
    """(first axis, second axis, first half axis, second half axis) of an ellipse or
    hyperbola; the first is the major (ellipse) or real (hyperbola) axis."""
    m = conic.matrix
    lam1, lam2, e1 = _eigen(m)
    cx, cy = center(m)
    a2 = m[2] + m[4] * cx + m[5] * cy
    r1, r2 = -a2 / lam1, -a2 / lam2
    swap = r2 > r1 if (r1 > 0 and r2 > 0) else r1 < 0
    if swap:
        e1 = (-e1[1], e1[0])
        r1, r2 = r2, r1
    first = getattr(conic, "first_axis", None)
    if first is not None and abs(_cross(first, e1)) < 1e-9:
        e1 = _unit(first)
    e2 = (-e1[1], e1[0])
    return e1, e2, math.sqrt(abs(r1)), math.sqrt(abs(r2))


def half_axes(conic: Any) -> Vec:
    _, _, a, b = axes(conic)
    return (a, b)
