"""The GeoGebra verifier on real geometric inputs: alignment, object matching, relations, caps.

Most constructions are built by hand so these tests hold whatever state the executor is in;
the script-driven ones at the end run the same figures through `run_script`.
"""

from __future__ import annotations

import cmath
import json
import math
import random
from collections.abc import Callable

import pytest

from geomeval.geogebra.construction import Construction, LineStatus
from geomeval.geogebra.objects import (
    Geo,
    GeoAngle,
    GeoCircle,
    GeoConicPart,
    GeoLine,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoSegment,
)
from geomeval.geogebra.verify import Check, Verdict, verify


def _build(objects: list[tuple[str, Geo]], *, ran: bool = True) -> Construction:
    construction = Construction()
    for label, geo in objects:
        geo.label = label
        construction.objects[label] = geo
    construction.lines = [LineStatus(1, "…", ran)]
    return construction


Move = Callable[[float, float], tuple[float, float]]


def _move(a: complex, b: complex, reflect: bool) -> Move:
    """The similarity z -> a·z + b (a·conj(z) + b when reflected) on coordinate pairs."""

    def f(x: float, y: float) -> tuple[float, float]:
        z = complex(x, y)
        w = a * (z.conjugate() if reflect else z) + b
        return (w.real, w.imag)

    return f


def _identity(x: float, y: float) -> tuple[float, float]:
    return (x, y)


def _triangle(labels: dict[str, str] | None = None, move: Move = _identity) -> Construction:
    """Equilateral triangle ABC on AB with sides AB and AC, the midpoint M of AB, the
    perpendicular bisector l of AB, the circle c centred at A through B, and a point D a
    quarter of the way along AB joined to C (which makes the figure chiral)."""
    names = {k: k for k in "ABCDMltcfgs"}
    names.update(labels or {})
    h = 2 * math.sqrt(3)
    A, B, C = move(0, 0), move(4, 0), move(2, h)
    M, D = move(2, 0), move(1, 0)
    radius = math.dist(A, B)
    bisector_dir = (move(2, 1)[0] - M[0], move(2, 1)[1] - M[1])
    return _build([
        (names["A"], GeoPoint(*A)),
        (names["B"], GeoPoint(*B)),
        (names["C"], GeoPoint(*C)),
        (names["t"], GeoPolygon([A, B, C])),
        (names["f"], GeoSegment(A, B)),
        (names["g"], GeoSegment(A, C)),
        (names["M"], GeoPoint(*M)),
        (names["l"], GeoLine(M, bisector_dir)),
        (names["c"], GeoCircle(A, radius)),
        (names["D"], GeoPoint(*D)),
        (names["s"], GeoSegment(D, C)),
    ])


OTHER_LABELS = {"A": "P", "B": "Q", "C": "R", "t": "poly", "f": "u", "g": "v", "M": "N",
                "l": "m", "c": "k", "D": "E", "s": "w"}


def _failed(verdict: Verdict) -> list[Check]:
    return [check for check in verdict.checks if not check.passed]


def _named(verdict: Verdict, name: str) -> Check:
    found = [check for check in verdict.checks if check.name == name]
    assert found, (name, verdict.report())
    return found[0]


def test_identical_constructions_score_one() -> None:
    ref = _triangle()
    verdict = verify(_triangle(), ref)
    assert verdict.score == 1.0, verdict.report()
    assert verdict.transform == "identity"
    assert verdict.candidate_ran
    assert verdict.mapping == {label: label for label in ref.objects}
    assert any(check.kind == "relation" for check in verdict.checks)
    assert "point A: matched candidate A (by label)" in verdict.report()
    # The reference's structure shows up as relations.
    names = {check.name for check in verdict.checks}
    assert {"M lies on line l", "AB ⊥ l", "C lies on line l", "B lies on circle c",
            "C lies on circle c", "|AB| = |AC|"} <= names


@pytest.mark.parametrize("reflect", [False, True])
def test_similar_copy_with_other_labels_matches_by_geometry(reflect: bool) -> None:
    a = 2 * cmath.exp(1j * math.radians(30))
    moved = _triangle(OTHER_LABELS, _move(a, complex(5, -3), reflect))
    verdict = verify(moved, _triangle())
    assert verdict.score == pytest.approx(1.0), verdict.report()
    assert verdict.transform.startswith("similarity: scale 2, rotation 30°")
    assert ("reflected" in verdict.transform) is reflect
    assert verdict.mapping["C"] == "R" and verdict.mapping["c"] == "k"
    assert _named(verdict, "point C").detail == "matched candidate R (by geometry)"


def test_fixed_coordinates_compares_in_place() -> None:
    moved = _triangle(move=_move(2 * cmath.exp(0.5j), complex(5, -3), False))
    assert verify(moved, _triangle()).score == pytest.approx(1.0)
    fixed = verify(moved, _triangle(), fixed_coordinates=True)
    assert fixed.transform == "identity"
    assert fixed.score < 0.5, fixed.report()
    assert not _named(fixed, "point C").passed
    assert "same label but is off by" in _named(fixed, "point C").detail


def test_wrong_perpendicular_bisector_keeps_midpoint_loses_perpendicular() -> None:
    ref = _build([
        ("A", GeoPoint(0, 0)), ("B", GeoPoint(4, 0)), ("f", GeoSegment((0, 0), (4, 0))),
        ("M", GeoPoint(2, 0)), ("l", GeoLine((2, 0), (0, 1))),
    ])
    cand = _build([
        ("A", GeoPoint(0, 0)), ("B", GeoPoint(4, 0)), ("f", GeoSegment((0, 0), (4, 0))),
        ("M", GeoPoint(2, 0)), ("l", GeoLine((2, 0), (1, 3))),  # through M, not perpendicular
    ])
    verdict = verify(cand, ref)
    assert _named(verdict, "point M").passed
    line = _named(verdict, "line l")
    assert not line.passed and "same label" in line.detail
    assert _named(verdict, "M lies on line l").passed
    perpendicular = _named(verdict, "AB ⊥ l")
    assert not perpendicular.passed and perpendicular.detail == "off by 18.43°"
    assert 0 < verdict.score < 1
    assert verdict.transform == "identity"


def test_missing_circle_fails_its_object_and_relations() -> None:
    ref = _triangle()
    cand = _triangle()
    del cand.objects["c"]
    verdict = verify(cand, ref)
    circle = _named(verdict, "circle c")
    assert not circle.passed and circle.detail == "missing"
    on_circle = [check for check in verdict.checks if "circle c" in check.name]
    assert len(on_circle) >= 3
    assert all(not check.passed for check in on_circle)
    assert all(check.detail == "object c missing" for check in on_circle if check.kind == "relation")
    assert {check.name for check in _failed(verdict)} == {check.name for check in on_circle}
    assert 0 < verdict.score < 1
    assert "c" not in verdict.mapping


def test_label_matched_points_in_wrong_places_fall_back_to_geometry() -> None:
    # The candidate is the same figure, moved, but A/B/C name each other's places.
    swapped = dict(OTHER_LABELS, A="B", B="C", C="A")
    moved = _triangle(swapped, _move(3 * cmath.exp(-1j), complex(-7, 2), False))
    verdict = verify(moved, _triangle())
    assert verdict.score == pytest.approx(1.0), verdict.report()
    assert verdict.mapping["A"] == "B" and verdict.mapping["B"] == "C"
    assert _named(verdict, "point A").detail == "matched candidate B (by geometry)"


def test_one_misplaced_labelled_point_does_not_spoil_the_alignment() -> None:
    cand = _triangle(move=_move(3, 0, False))
    cand.objects["D"] = GeoPoint(4, 1)
    cand.objects["D"].label = "D"
    verdict = verify(cand, _triangle())
    assert verdict.transform == "similarity: scale 3"
    assert _named(verdict, "point A").detail == "matched candidate A (by label)"
    d = _named(verdict, "point D")
    assert not d.passed and "off by" in d.detail
    assert verdict.mapping["D"] == "D"


def test_relations_credit_a_correct_construction_on_other_free_points() -> None:
    """Circumcircle of a triangle whose free vertices the candidate placed elsewhere (not a
    similar triangle): most objects miss, but the incidences hold through the labels."""

    def figure(
        a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]
    ) -> Construction:
        za, zb, zc = (complex(*v) for v in (a, b, c))
        d = 2 * (za.real * (zb.imag - zc.imag) + zb.real * (zc.imag - za.imag)
                 + zc.real * (za.imag - zb.imag))
        ux = (abs(za) ** 2 * (zb.imag - zc.imag) + abs(zb) ** 2 * (zc.imag - za.imag)
              + abs(zc) ** 2 * (za.imag - zb.imag)) / d
        uy = (abs(za) ** 2 * (zc.real - zb.real) + abs(zb) ** 2 * (za.real - zc.real)
              + abs(zc) ** 2 * (zb.real - za.real)) / d
        return _build([("A", GeoPoint(*a)), ("B", GeoPoint(*b)), ("C", GeoPoint(*c)),
                       ("O", GeoPoint(ux, uy)), ("k", GeoCircle((ux, uy), math.dist((ux, uy), a)))])

    ref = figure((0, 0), (4, 0), (1, 3))
    verdict = verify(figure((0.5, -1), (6, 1), (2, 5)), ref)
    relations = [check for check in verdict.checks if check.kind == "relation"]
    assert {check.name for check in relations} == {
        "A lies on circle k", "B lies on circle k", "C lies on circle k"}
    assert all(check.passed for check in relations), verdict.report()
    assert not _named(verdict, "circle k").passed
    assert 0 < verdict.score < 1
    assert _named(verdict, "point A").passed and _named(verdict, "point B").passed
    # Without the labels nothing ties the unplaced objects together: no relation credit.
    other = figure((0.5, -1), (6, 1), (2, 5))
    for geo in other.objects.values():
        geo.label = "z" + str(geo.label)
    other.objects = {str(geo.label): geo for geo in other.objects.values()}
    unlabelled = verify(other, ref)
    assert all(not check.passed for check in unlabelled.checks if check.kind == "relation")
    assert unlabelled.score < verdict.score


def test_duplicate_reference_objects_may_share_a_candidate() -> None:
    ref = _triangle()
    ref.objects["g2"] = GeoSegment((2, 2 * math.sqrt(3)), (0, 0))  # side AC again, as CA
    ref.objects["g2"].label = "g2"
    verdict = verify(_triangle(OTHER_LABELS), ref)
    assert verdict.score == 1.0, verdict.report()
    assert verdict.mapping["g"] == verdict.mapping["g2"] == "v"


def test_polygon_vertex_order_reversed_still_matches() -> None:
    ref = _triangle()
    cand = _triangle()
    poly = cand.objects["t"]
    assert isinstance(poly, GeoPolygon)
    poly.vertices = [poly.vertices[1], poly.vertices[0], poly.vertices[2]]
    verdict = verify(cand, ref)
    assert _named(verdict, "polygon t").passed
    assert verdict.score == 1.0


def test_line_drawn_as_segment_on_the_same_carrier() -> None:
    ref = _build([("A", GeoPoint(0, 0)), ("B", GeoPoint(4, 0)), ("l", GeoLine((0, 0), (1, 0)))])
    cand = _build([("A", GeoPoint(0, 0)), ("B", GeoPoint(4, 0)), ("h", GeoSegment((0, 0), (4, 0)))])
    check = _named(verify(cand, ref), "line l")
    assert check.passed and "segment on the same line" in check.detail


def test_arc_orientation_survives_reflection() -> None:
    def figure(move: Move, labels: str) -> Construction:
        return _build([(labels[0], GeoPoint(*move(0, 0))), (labels[1], GeoPoint(*move(2, 0))),
                       (labels[2], GeoPoint(*move(0, 2))), (labels[3], GeoPoint(*move(1, 3)))])

    ref = figure(_identity, "OPQR")
    ref.objects["d"] = GeoConicPart((0, 0), 2, 0, math.pi / 2)
    ref.objects["d"].label = "d"
    # Mirror in the x-axis: the counter-clockwise arc from P to Q becomes the one from Q' to P'.
    cand = figure(_move(1, 0, True), "ABCD")
    cand.objects["e"] = GeoConicPart((0, 0), 2, -math.pi / 2, 0)
    cand.objects["e"].label = "e"
    verdict = verify(cand, ref)
    assert _named(verdict, "arc d").passed, verdict.report()
    assert "reflected" in verdict.transform
    # The complementary arc is not a match.
    cand.objects["e"] = GeoConicPart((0, 0), 2, 0, 3 * math.pi / 2)
    cand.objects["e"].label = "e"
    assert not _named(verify(cand, ref), "arc d").passed


def test_targets_restrict_and_numbers_scale() -> None:
    ref = _triangle()
    ref.objects["d"] = GeoNumber(4.0)  # |AB|
    ref.objects["alpha"] = GeoAngle(math.pi / 3, (0, 0))
    for label in ("d", "alpha"):
        ref.objects[label].label = label
    cand = _triangle(OTHER_LABELS, _move(2.5j, 1, False))
    cand.objects["len"] = GeoNumber(10.0)
    cand.objects["ang"] = GeoAngle(math.pi / 3, (1, 0))
    for label in ("len", "ang"):
        cand.objects[label].label = label
    verdict = verify(cand, ref, targets=["C", "d", "alpha"])
    objects = [check.name for check in verdict.checks if check.kind == "object"]
    assert objects == ["point C", "number d", "angle alpha"]
    # Relations kept are those touching a target; the rest of the figure still aligns.
    relations = [check.name for check in verdict.checks if check.kind == "relation"]
    assert relations and all("C" in name for name in relations)
    assert verdict.score == 1.0, verdict.report()
    assert verdict.mapping["C"] == "R"
    assert verdict.mapping["d"] == "len" and verdict.mapping["alpha"] == "ang"
    with pytest.raises(ValueError, match="nope"):
        verify(cand, ref, targets=["nope"])


def test_partial_candidate_report_and_json() -> None:
    ref = _triangle()
    cand = _triangle()
    cand.objects["C"] = GeoPoint(2, 3)  # should be (2, 2√3)
    cand.objects["C"].label = "C"
    cand.lines = [LineStatus(1, "A=(0,0)", True), LineStatus(2, "X=Foo()", False, "unknown")]
    verdict = verify(cand, ref)
    assert 0 < verdict.score < 1
    assert not verdict.candidate_ran
    text = verdict.report()
    lines = text.splitlines()
    assert any(line.startswith("✓ ") for line in lines)
    assert any(line.startswith("✗ point C: ") for line in lines)
    assert "did not run fully" in text
    passed = sum(check.passed for check in verdict.checks)
    assert lines[-1] == f"score {verdict.score:.2f} ({passed}/{len(verdict.checks)} checks)"
    data = json.loads(json.dumps(verdict.to_dict()))
    assert data["score"] == verdict.score and data["total"] == len(verdict.checks)
    assert data["checks"][0] == {"kind": "object", "name": "point A", "passed": True,
                                 "detail": "matched candidate A (by label)", "weight": 1.0}


def test_hidden_and_undefined_objects_do_not_count() -> None:
    ref = _triangle()
    ref.objects["l"].style.visible = False
    ref.objects["X"] = GeoPoint()  # undefined
    ref.objects["X"].label = "X"
    verdict = verify(_triangle(), ref)
    assert not any("line l" in check.name or "X" in check.name for check in verdict.checks)
    cand = _triangle()
    cand.objects["C"].style.visible = False  # a hidden answer is no answer
    assert not _named(verify(cand, _triangle()), "point C").passed


def test_empty_reference() -> None:
    empty = _build([])
    assert verify(empty, empty).score == 1.0
    assert verify(_triangle(), empty).score == 0.0


def test_degenerate_reference_does_not_crash() -> None:
    ref = _build([(k, GeoPoint(1, 1)) for k in "ABC"] + [("f", GeoSegment((1, 1), (1, 1)))])
    assert verify(ref, ref).score == 1.0
    shifted = _build([(k, GeoPoint(5, -2)) for k in "PQR"] + [("g", GeoSegment((5, -2), (5, -2)))])
    verdict = verify(shifted, ref)
    assert verdict.score == 1.0, verdict.report()
    assert verdict.transform == "similarity: translation (4, -3)"
    assert 0 <= verify(_triangle(), ref).score <= 1
    assert 0 <= verify(ref, _triangle()).score <= 1
    lone = _build([("c", GeoCircle((0, 0), 1))])
    assert verify(_build([("k", GeoCircle((3, 3), 2))]), lone).score == 1.0


def _random_points(n: int, seed: int, prefix: str, move: Move = _identity) -> Construction:
    rng = random.Random(seed)
    return _build([(f"{prefix}{i}", GeoPoint(*move(rng.uniform(-50, 50), rng.uniform(-50, 50))))
                   for i in range(n)])


@pytest.mark.parametrize("case", ["same", "moved", "unrelated"])
def test_caps_bound_large_inputs(case: str) -> None:
    """600 points a side: the object cap scores 500 of them (its speed is a bench/ figure, not
    asserted here: a wall-clock limit fails under load)."""
    ref = _random_points(600, 1, "P")
    if case == "same":
        cand = _random_points(600, 1, "P")
    elif case == "moved":
        cand = _random_points(600, 1, "Q", _move(0.5j, 3, True))
    else:
        cand = _random_points(600, 2, "Q")
    verdict = verify(cand, ref)
    objects = [check for check in verdict.checks if check.kind == "object"]
    assert len(objects) == 500
    assert len(verdict.checks) - len(objects) <= 200
    if case == "unrelated":
        assert verdict.score < 0.2
    else:
        assert verdict.score == 1.0


def test_bad_tolerance_rejected() -> None:
    with pytest.raises(ValueError):
        verify(_triangle(), _triangle(), tolerance=0)


# --------------------------------------------------------------------------------------------
# Script-driven: the same checks on constructions the executor builds.

EQUILATERAL = "A=(0,0)\nB=(4,0)\nC=Rotate(B,60°,A)\nt=Polygon(A,B,C)"


def _run(script: str) -> Construction:
    executor = pytest.importorskip("geomeval.geogebra.executor")
    construction = executor.run_script(script)
    assert construction.pass_at_1, [s.error for s in construction.errors]
    return construction


def test_script_equilateral_triangle_moved_and_relabelled() -> None:
    ref = _run(EQUILATERAL + "\nD=Dilate(B,0.25,A)\ns=Segment(D,C)")
    assert verify(_run(EQUILATERAL + "\nD=Dilate(B,0.25,A)\ns=Segment(D,C)"), ref).score == 1.0
    cand = _run("P=(1,1)\nQ=(1,-7)\nR=Rotate(Q,-60°,P)\nT=Polygon(P,Q,R)\n"
                "E=Dilate(Q,0.25,P)\nw=Segment(E,R)")
    verdict = verify(cand, ref)
    assert verdict.score == 1.0, verdict.report()
    assert verdict.transform == "similarity: scale 2, rotation -90°, translation (1, 1), reflected"
    assert verify(cand, ref, fixed_coordinates=True).score < 0.5


def test_script_wrong_perpendicular_bisector() -> None:
    ref = _run("A=(0,0)\nB=(6,2)\nf=Segment(A,B)\nM=Midpoint(A,B)\nl=PerpendicularBisector(A,B)")
    cand = _run("A=(0,0)\nB=(6,2)\nf=Segment(A,B)\nM=Midpoint(A,B)\nl=Line(M,(1,5))")
    verdict = verify(cand, ref)
    assert _named(verdict, "point M").passed
    assert not _named(verdict, "line l").passed
    assert _named(verdict, "M lies on line l").passed
    assert not _named(verdict, "AB ⊥ l").passed
    assert 0 < verdict.score < 1


def test_script_tangent_and_circle_relations() -> None:
    ref = _run("O=(0,0)\nc=Circle(O,3)\nP=(5,0)\nl=Tangent(P,c)\n")
    tangent = verify(ref, ref)
    assert tangent.score == 1.0
    names = {check.name for check in tangent.checks}
    assert "line l_1 is tangent to circle c" in names, tangent.report()
    # A line through P that misses the tangent direction keeps "P lies on l_1" only.
    cand = _run("O=(0,0)\nc=Circle(O,3)\nP=(5,0)\nl_1=Line(P,(0,3))\nl_2=Line(P,(0,-3.75))\n")
    verdict = verify(cand, ref)
    assert _named(verdict, "P lies on line l_1").passed
    assert not _named(verdict, "line l_1 is tangent to circle c").passed
    assert _named(verdict, "line l_2 is tangent to circle c").passed
    assert not _named(verdict, "line l_1").passed and _named(verdict, "line l_2").passed
