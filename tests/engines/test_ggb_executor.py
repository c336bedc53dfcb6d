"""The GeoGebra executor: GeoGebra's semantics, per-line status, limits.

Expected values are worked out by hand (and agree with GeoGebra 4.0.34, see
test_ggb_crosscheck.py for the jar comparison over the whole corpus).
"""

from __future__ import annotations

import math

import pytest

from geomeval.geogebra import Limits, run_blocks, run_script
from geomeval.geogebra.objects import (
    GeoAngle,
    GeoCircle,
    GeoConicPart,
    GeoLine,
    GeoList,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoSegment,
    GeoText,
    GeoVector,
)
from geomeval.geogebra.syntax import ScriptTooLarge

SQRT3 = math.sqrt(3)


def point(construction, label: str) -> tuple[float, float]:
    geo = construction.objects[label]
    assert isinstance(geo, GeoPoint), f"{label} is {type(geo).__name__}"
    return geo.x, geo.y


def close(a, b, tol: float = 1e-9) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def test_equilateral_triangle_construction() -> None:
    c = run_script(
        "A = (0, 0)\nB = (4, 0)\nc_1 = Circle(A, B)\nc_2 = Circle(B, A)\n"
        "C = Intersect(c_1, c_2, 1)\nt = Polygon(A, B, C)\nα = Angle(B, A, C)"
    )
    assert c.pass_at_1
    assert close(point(c, "C"), (2, 2 * SQRT3))
    assert isinstance(c.objects["t"], GeoPolygon)
    assert c.objects["t"].area == pytest.approx(4 * SQRT3)
    angle = c.objects["α"]
    assert isinstance(angle, GeoAngle) and angle.value == pytest.approx(math.pi / 3)
    # a triangle's sides are named after the opposite vertex, as in GeoGebra
    assert c.lines[5].labels == ["t", "c", "a", "b"]
    side_c = c.objects["c"]
    assert isinstance(side_c, GeoSegment) and side_c.start == (0, 0) and side_c.end == (4, 0)


def test_unlabelled_and_indexed_intersections() -> None:
    c = run_script(
        "c = Circle((0, 0), 2)\nd = Circle((2, 0), 2)\nX = Intersect(c, d)\nIntersect(c, d)\n"
        "e = Circle((10, 0), 1)\nP = Intersect(c, e, 1)\nl = Line((0, 5), (1, 5))\n"
        "Intersect(c, l)"
    )
    assert c.pass_at_1
    assert c.lines[2].labels == ["X_1", "X_2"]
    assert close(point(c, "X_1"), (1, SQRT3)) and close(point(c, "X_2"), (1, -SQRT3))
    assert c.lines[3].labels == ["X_1", "X_2"]  # the same intersection, nothing new
    assert not c.objects["P"].defined  # disjoint circles: undefined, not an error
    assert c.lines[7].ok and len(c.lines[7].labels) == 1  # no point: one undefined
    assert not c.objects[c.lines[7].labels[0]].defined


def test_line_circle_order_and_segments() -> None:
    c = run_script(
        "c = Circle((0, 0), 3)\nl = Line((0, 0), (1, 1))\nIntersect(c, l)\n"
        "s = Segment((0, 0), (5, 0))\nR = Intersect(c, s, 1)\nS = Intersect(c, s, 2)"
    )
    h = 3 / math.sqrt(2)
    assert close(point(c, "A"), (-h, -h)) and close(point(c, "B"), (h, h))
    assert close(point(c, "R"), (3, 0)) and not c.objects["S"].defined


def test_errors_are_per_line_and_later_lines_run() -> None:
    c = run_script(
        'A = (0, 0)\nB = (3, 0)\nl = Line(A, B)\nParallelLine(A, l)\nc = Circle(A, "3")\n'
        "s = Segment(A, D)\nM = Midpoint(A, B\nN = Midpoint(A, B)"
    )
    status = {s.line: s for s in c.lines}
    assert [s.ok for s in c.lines] == [True, True, True, False, False, False, False, True]
    assert "Unknown command: ParallelLine" in status[4].error
    assert "Line(<point>, <parallel line>)" in status[4].error
    assert "Circle" in status[5].error and "text" in status[5].error
    assert status[6].error == "Undefined variable: D"
    assert status[7].error.startswith("column ")
    assert not c.pass_at_1
    assert close(point(c, "N"), (1.5, 0))
    assert "c" not in c.objects and "s" not in c.objects


def test_redefining_a_free_point_recomputes_dependents() -> None:
    c = run_script(
        "A = (0, 0)\nB = (4, 0)\ns = Segment(A, B)\nM = Midpoint(s)\nk = Circle(M, A)\n"
        "len = Length(s)\nA = (2, 2)"
    )
    assert c.pass_at_1
    assert close(point(c, "M"), (3, 1))
    assert c.objects["len"].value == pytest.approx(math.hypot(2, 2))
    circle = c.objects["k"]
    assert isinstance(circle, GeoCircle) and circle.radius == pytest.approx(math.sqrt(2))
    assert c.lines[-1].labels == ["A"]


def test_circular_definition() -> None:
    # a dependent object cannot be redefined through its own dependents
    c = run_script("A = (0, 0)\nB = A + (1, 0)\nC = B + (1, 0)\nB = C\nD = (5, 5)")
    assert not c.lines[3].ok and "Circular" in c.lines[3].error and c.lines[4].ok
    # a free one takes the expression's current value and stays free (GeoGebra 4.0 does so)
    c = run_script("A = (0, 0)\nB = A + (1, 0)\nA = B + (1, 0)")
    assert c.pass_at_1 and point(c, "A") == (2, 0) and point(c, "B") == (3, 0)


TRIANGLE = "A = (0, 0)\nB = (4, 0)\nC = (1, 3)\ntri = Polygon(A, B, C)\n"


def test_redefining_a_polygon_side_deletes_the_polygon() -> None:
    # GeoGebra 4.0: the side is freed, the polygon, its other sides and their dependents go
    c = run_script(TRIANGLE + "ar = Area(tri)\na = Distance(B, C)\nM = Midpoint(A, B)")
    assert c.pass_at_1
    assert set(c.objects) == {"A", "B", "C", "a", "M"}
    assert isinstance(c.objects["a"], GeoNumber) and c.objects["a"].value == pytest.approx(
        math.hypot(3, 3)
    )
    # a side something else uses cannot be redefined; nothing changes
    c = run_script(TRIANGLE + "M = Midpoint(a)\na = Segment(B, C)\nN = Midpoint(b)")
    assert not c.lines[5].ok and c.lines[5].error.startswith("Redefinition failed: a is a side")
    assert {"tri", "a", "b", "c", "M", "N"} <= set(c.objects) and c.lines[6].ok


def test_redefining_a_polygon_relabels_its_sides_and_keeps_its_dependents() -> None:
    c = run_script(TRIANGLE + "D = (2, 5)\nM = Midpoint(a)\nar = Area(tri)\ntri = Polygon(A, B, D)")
    assert c.pass_at_1
    assert c.lines[-1].labels == ["tri", "a", "b", "c"]  # fresh labels in side order
    assert "M" not in c.objects  # it used an old side
    assert c.objects["ar"].value == pytest.approx(10)  # recomputed from the new polygon
    side_a = c.objects["a"]
    assert isinstance(side_a, GeoSegment) and side_a.start == (0, 0) and side_a.end == (4, 0)


def test_redefining_an_intersection_point_deletes_the_other() -> None:
    c = run_script(
        "A = (0, 0)\nB = (4, 0)\nc_1 = Circle(A, 3)\nc_2 = Circle(B, 3)\nX = Intersect(c_1, c_2)\n"
        "s = Segment(X_1, X_2)\nR = Midpoint(A, X_1)\nX_1 = (5, 5)"
    )
    assert c.pass_at_1
    assert "X_2" not in c.objects and "s" not in c.objects
    assert point(c, "R") == (2.5, 2.5)


def test_redefining_a_vertex_a_regular_polygon_made_fails_and_drops_the_polygon() -> None:
    c = run_script("A = (0, 0)\nB = (4, 0)\nsq = Polygon(A, B, 4)\nE = (8, 8)\nC = Midpoint(A, E)")
    assert not c.lines[-1].ok and "vertex made by polygon sq" in c.lines[-1].error
    assert set(c.objects) == {"A", "B", "E"}


def test_comparisons_logic_and_polar_points() -> None:
    c = run_script(
        "A = (0, 0)\nB = (4, 0)\nC = (2, 3)\nd_1 = Distance(A, C)\nd_2 = Distance(B, C)\n"
        "iso = d_1 == d_2\nwide = Distance(A, B) > d_1\nboth = iso && !wide\n"
        "either = iso || wide\nP = (2; 90°)\nsame = P == (0, 2)\nt = Text(\"iso: \" + iso)\n"
        "u = Text(P)\nbad = (1 < 2) + 1"
    )
    names = ("iso", "wide", "both", "either", "same")
    values = {k: getattr(c.objects.get(k), "value", None) for k in names}
    assert values == {"iso": True, "wide": True, "both": False, "either": True, "same": True}
    assert close(point(c, "P"), (0, 2))
    assert c.objects["t"].text == "iso: true"
    assert c.objects["u"].text == "(2; 90°)"
    assert not c.lines[-1].ok and "boolean" in c.lines[-1].error


def test_regular_polygon_creates_vertices_and_sides() -> None:
    c = run_script("A = (0, 0)\nB = (1, 0)\nPolygon(A, B, 4)")
    assert c.lines[2].labels == ["poly1", "a", "b", "c", "d", "C", "D"]
    assert close(point(c, "C"), (1, 1)) and close(point(c, "D"), (0, 1))
    assert c.objects["poly1"].area == pytest.approx(1)


def test_transformations() -> None:
    c = run_script(
        "A = (0, 0)\nB = (2, 0)\nC = (0, 1)\nt = Polygon(A, B, C)\n"
        "Rotate(B, 90°, A)\nRotate(C, pi/2, A)\nD = Reflect(B, Line(A, C))\nE = Reflect(B, C)\n"
        "F = Translate(B, Vector((1, 1)))\nG = Dilate(B, 3, C)\nRotate(t, 180°, A)\nk = Circle(A, 1)\n"
        "Translate(k, Vector((5, 0)))"
    )
    assert c.pass_at_1
    assert close(point(c, "B'"), (0, 2)) and close(point(c, "C'"), (-1, 0))
    assert close(point(c, "D"), (-2, 0)) and close(point(c, "E"), (-2, 2))
    assert close(point(c, "F"), (3, 1)) and close(point(c, "G"), (6, -2))
    # a polygon's image brings its vertices and sides along, primed
    assert {"t'", "A'", "B'_1", "C'_1", "a'", "b'_1", "c'_1"} <= set(c.objects)
    assert close(point(c, "B'_1"), (-2, 0))
    image = c.objects[c.lines[-1].labels[0]]
    assert isinstance(image, GeoCircle) and image.center == (5, 0)
    assert c.lines[-1].labels[0] == "k'"


def test_measurements_text_and_sequence() -> None:
    c = run_script(
        "A = (0, 0)\nB = (3, 0)\nC = (0, 4)\nd = Distance(B, C)\nar = Area(A, B, C)\n"
        "p = Polygon(A, B, C)\nG = Centroid(p)\nu = UnitVector(Vector(A, C))\n"
        'txt = Text("BC = " + d, (1, 1))\nL = Sequence((k, k^2), k, 1, 4)\nv = (1, 2)\n'
        "r = sqrt(3)^2 + sin(30°)\nO = Center(Circle(A, B, C))\nh = Distance(A, Line(B, C))"
    )
    assert c.pass_at_1
    assert c.objects["d"].value == pytest.approx(5)
    assert c.objects["ar"].value == pytest.approx(6)
    assert close(point(c, "G"), (1, 4 / 3))
    vector = c.objects["u"]
    assert isinstance(vector, GeoVector) and (vector.x, vector.y) == pytest.approx((0, 1))
    text = c.objects["txt"]
    assert isinstance(text, GeoText) and text.text == "BC = 5" and text.position == (1, 1)
    seq = c.objects["L"]
    assert isinstance(seq, GeoList) and [e.y for e in seq.elements] == [1, 4, 9, 16]
    assert isinstance(c.objects["v"], GeoVector)  # lowercase label on a tuple: a vector
    assert c.objects["r"].value == pytest.approx(3.5)
    assert close(point(c, "O"), (1.5, 2))
    assert c.objects["h"].value == pytest.approx(12 / 5)


def test_arcs_bisectors_tangents_and_incircle() -> None:
    c = run_script(
        "M = (0, 0)\nA = (2, 0)\nB = (0, 2)\narc = CircularArc(M, A, B)\nsec = CircularSector(M, A, B)\n"
        "sc = Semicircle(A, B)\nbis = AngleBisector(A, M, B)\npb = PerpendicularBisector(A, B)\n"
        "k = Circle(M, 1)\nT = Tangent((2, 0), k)\nin = Incircle(M, A, B)\n"
        "s = Segment(M, 3)\nperp = PerpendicularLine(A, Line(M, A))"
    )
    assert c.pass_at_1
    arc = c.objects["arc"]
    assert isinstance(arc, GeoConicPart) and arc.value == pytest.approx(math.pi)
    assert c.objects["sec"].value == pytest.approx(math.pi)
    bisector = c.objects["bis"]
    assert isinstance(bisector, GeoLine) and bisector.a == pytest.approx(-bisector.b)
    assert c.lines[9].labels == ["T_1", "T_2"]
    touch_lines = [c.objects["T_1"], c.objects["T_2"]]
    for line in touch_lines:
        distance = abs(line.c) / math.hypot(line.a, line.b)
        assert distance == pytest.approx(1)
    incircle = c.objects["in"]
    assert isinstance(incircle, GeoCircle)
    assert incircle.radius == pytest.approx((2 + 2 - 2 * math.sqrt(2)) / 2)
    assert c.lines[11].labels[0] == "s" and close(point(c, c.lines[11].labels[1]), (3, 0))


def test_styling_and_view_commands() -> None:
    c = run_script(
        'A = (1, 1)\nSetColor(A, "red")\nSetColor(A, 0, 0, 1)\nSetColor(A, "#00FF00")\n'
        'SetLineStyle(A, 2)\nSetPointSize(A, 7)\nSetCaption(A, "apex")\nShowLabel(A, false)\n'
        "SetVisibleInView(A, 1, false)\nShowAxes(true)\nShowGrid()\nZoomIn(-1, -2, 5, 6)\n"
        'SetColor(A, "nocolour")\nB = (2, 2)\nDelete(B)'
    )
    style = c.objects["A"].style
    assert style.color == (0, 255, 0) and style.line_style == 2 and style.point_size == 7
    assert style.caption == "apex" and style.show_label is False and style.visible is False
    assert c.view.axes and c.view.grid and c.view.window == (-1, -2, 5, 6)
    assert not c.lines[12].ok and "nocolour" in c.lines[12].error
    assert "B" not in c.objects


def test_commands_are_case_insensitive_and_legacy_brackets_work() -> None:
    c = run_script("A = (0, 0)\nB = (1, 0)\nm = midpoint[A, B]\nk = CIRCLE(A, 2)")
    assert c.pass_at_1 and close(point(c, "m"), (0.5, 0))
    assert isinstance(c.objects["k"], GeoCircle)


def test_fenced_blocks_become_steps_with_original_line_numbers() -> None:
    answer = (
        "Plan: draw the base first.\n```geogebra\nA = (0, 0)\nB = (2, 0)\n```\n"
        "Then the apex:\n```geogebra\nC = Rotate(B, 60°, A)\nFoo(C)\n```\n"
    )
    c = run_script(answer)
    assert c.blocks == 2
    assert [(s.line, s.block, s.ok) for s in c.lines] == [
        (3, 0, True), (4, 0, True), (8, 1, True), (9, 1, False)
    ]
    assert c.labels_through_block(0) == ["A", "B"]
    steps = run_blocks(["A = (0, 0)", "B = (1, 0)\nC = (2, 0)"])
    assert steps.blocks == 2 and steps.labels_through_block(1) == ["A", "B", "C"]


def test_limits_give_clear_errors() -> None:
    c = run_script("L = Sequence(k, k, 1, 1000000)\nA = (0, 0)")
    assert not c.lines[0].ok and "limit" in c.lines[0].error
    assert c.lines[1].ok
    with pytest.raises(ScriptTooLarge):
        run_script("A = (0, 0)\n" * 10, limits=Limits(max_lines=5))
    with pytest.raises(ScriptTooLarge):
        run_script("x" * 200, limits=Limits(max_script_chars=100))
    slow = run_script(
        "L = Sequence(Sequence(k + j, k, 1, 9000), j, 1, 9000)\nA = (0, 0)",
        limits=Limits(max_seconds=0.2),
    )
    assert not slow.lines[0].ok and "time limit" in slow.lines[0].error
    assert not slow.lines[1].ok and "not run" in slow.lines[1].error
    many = run_script("L = Sequence((k, 0), k, 1, 50)", limits=Limits(max_sequence=10))
    assert not many.lines[0].ok


def test_numbers_and_undefined_values() -> None:
    c = run_script("a = 1/0\nb = sqrt(-1)\nA = (0, 0)\nB = (0, 0)\nl = Line(A, B)\nP = Midpoint(A, B)")
    assert not c.objects["a"].defined and not c.objects["b"].defined
    assert not c.objects["l"].defined  # two equal points give an undefined line
    assert isinstance(c.objects["a"], GeoNumber)
    assert c.pass_at_1
