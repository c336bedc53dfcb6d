"""The canonical relation set (geomeval.keypoints.canonical.RELATIONS): every listed surface
form, English and Chinese, parses to its relation kind; a negated form never does; and a
relation stated in other words matches the same canonical keypoint (never a substring)."""

from __future__ import annotations

import pytest

from geomeval.keypoints import parse_caption, score_captions
from geomeval.keypoints.canonical import RELATIONS

FORMS = [(kind, text) for kind, r in RELATIONS.items() for text in r.en + r.zh]
NEGATED = [(kind, text) for kind, r in RELATIONS.items() for text in r.negated]


def kinds(text: str) -> set[str]:
    return {kp.kind for kp in parse_caption(text).relations}


def test_the_set_covers_the_relations_the_issue_names() -> None:
    assert {"parallel", "perpendicular", "tangent", "on", "midpoint", "intersect", "angle_bisector", "similar",
            "congruent", "collinear", "inscribed"} <= set(RELATIONS)
    assert all(r.en and r.zh for r in RELATIONS.values())


@pytest.mark.parametrize(("kind", "text"), FORMS)
def test_each_surface_form_parses_to_its_relation(kind: str, text: str) -> None:
    assert kind in kinds(text)


@pytest.mark.parametrize(("kind", "text"), NEGATED)
def test_a_negated_relation_is_not_stated(kind: str, text: str) -> None:
    assert kind not in kinds(text)


@pytest.mark.parametrize(("candidate", "reference"), [
    ("Point D lies on BC with BD = DC, and A is joined to D.", "D is the midpoint of BC and AD is drawn."),
    ("The vertices A, B and C of triangle ABC all lie on circle O.", "Triangle ABC is inscribed in circle O."),
    ("In triangle ABC, D is on AC, BD is drawn and ∠ABD = ∠DBC.", "In triangle ABC, BD bisects ∠ABC and meets AC at D."),
    ("The line l touches circle O at A.", "Line l is tangent to circle O at A."),
    ("直线PA与⊙O只有一个公共点A。", "PA is tangent to circle O at A."),
    ("O lies on both AC and BD.", "AC and BD intersect at O."),
    ("AC与BD的交点为O。", "AC and BD intersect at O."),
    ("D is the point halfway between B and C.", "D is the midpoint of BC."),
    ("点D在BC上，且BD=DC。", "D is the midpoint of BC."),
    ("The perpendicular from C to AB has its foot at D.", "CD ⊥ AB at D."),
    ("直线l与⊙O相切，切点为A。", "Line l is tangent to circle O at A."),
    ("∠ABC = 90°.", "AB ⊥ BC."),
    ("In triangle ABC, ∠BAD = ∠CAD, with D on BC.", "In triangle ABC, AD bisects ∠BAC."),
    ("Circle O is circumscribed about triangle ABC.", "Triangle ABC is inscribed in circle O."),
    ("⊙O是△ABC的外接圆。", "Triangle ABC is inscribed in circle O."),
    ("Triangle ABC and triangle DEF are congruent to each other.", "Triangle ABC is congruent to triangle DEF."),
    # whole captions: every relation of the reference recalled
    ("From a point P outside circle O (radius 4), two tangents PA and PB are drawn, touching the circle at A and B; "
     "∠APB = 60°.", "Circle O has radius 4. PA and PB are tangent to circle O at A and B, and ∠APB = 60°."),
    ("Triangle ABC has D as the midpoint of AB and E as the midpoint of AC; segment DE joins them, and BC = 10.",
     "In triangle ABC, D and E are the midpoints of AB and AC, and DE is drawn. BC = 10."),
    ("square ABCD, side 4; E = midpoint of BC; AE ∩ BD = F.",
     "In square ABCD, E is the midpoint of BC, and AE meets BD at F. The side length is 4."),
    ("AB and CD are chords of circle O meeting at P; PA = 2, PB = 6, PC = 3.",
     "Chords AB and CD of circle O intersect at P, with PA = 2, PB = 6 and PC = 3."),
    ("The lines m and n cross at right angles at the point O, and P is on m.",
     "Lines m and n are perpendicular and meet at O, and P lies on line m."),
    # prose, terse and LaTeX forms
    (r"$AC \cap BD = \{O\}$", "AC and BD intersect at O."),
    ("The midpoints of AB and CD are E and F.", "E is the midpoint of AB and F is the midpoint of CD."),
    ("The figure shows circle O and a line l that is tangent to it at A.", "Line l is tangent to circle O at A."),
    ("Rectangle ABCD has its diagonals AC and BD drawn; they intersect at O.", "The diagonals AC and BD of rectangle ABCD meet at O."),
    ("In rectangle ABCD, O is the point at which the diagonals AC and BD meet.",
     "The diagonals AC and BD of rectangle ABCD meet at O."),
    ("Two parallel lines, a and b, are drawn, and a third line c cuts a at the point A.",
     "Lines a and b are parallel, and line c meets a at A."),
    ("A perpendicular is dropped from C to AB, meeting it at D.", "CD ⊥ AB at D."),
    ("In triangle ABC, AD, the altitude from A, meets BC at D.", "In triangle ABC, AD is the altitude to BC, and AD meets BC at D."),
    ("⊙O; PA tangent at A.", "PA is tangent to circle O at A."),
    ("△ABC; BD: bisector of ∠B.", "In triangle ABC, BD bisects ∠ABC."),
    ("y = x^2 - 4 is a parabola with vertex V; its x-intercepts are M and N.",
     "The parabola y = x^2 - 4 has vertex V and meets the x-axis at M and N."),
    ("∠BAC的平分线交BC于点D。", "AD平分∠BAC，交BC于点D。"),
    ("PA、PB是⊙O的切线，A、B为切点。", "PA、PB分别与⊙O相切于点A、B。"),
    ("⊙O经过△ABC的三个顶点。", "△ABC内接于⊙O。"),
    ("D为BC中点。", "D是BC的中点。"),
    # two guide rules in a row: D on BC with BD = DC is the midpoint, so AD is a median
    ("In triangle ABC, D lies on BC with BD = DC, and AD is drawn.", "In triangle ABC, AD is the median to BC."),
    # perpendicular lines meeting at D (D on AB, CD written): D is the foot
    ("D is on AB, and CD ⊥ AB.", "CD ⊥ AB at D."),
    ("点D在AB上，CD⊥AB。", "CD ⊥ AB at D."),
    ("In triangle ABC, D and E are the midpoints of BC and AC; G lies on AD and on BE.", "G is the centroid of triangle ABC."),
    # bare line names, pronouns and constructions (#41): the gaps the second fresh set was written for
    ("g ⊥ h; g meets h at S.", "Lines g and h are perpendicular and meet at S."),
    ("Lines g and h are perpendicular at S.", "Lines g and h are perpendicular and meet at S."),
    ("Circle W has radius 2, and line g is tangent to it at K.", "Line g touches circle W at K."),
    ("Line k, with equation y = 3x + 2, meets the y-axis at R; it crosses the x-axis at S.",
     "Line k: y = 3x + 2 meets the y-axis at R and the x-axis at S."),
    ("In triangle KLM, the perpendicular from K to LM is drawn, meeting it at N.", "In triangle KLM, N lies on LM and KN ⊥ LM."),
    ("Through E a line is drawn parallel to FG, meeting FH at J.", "EJ ∥ FG, and J lies on FH."),
    ("直线g∥h，直线k与g交于点S。", "Lines g and h are parallel, and line k meets g at S."),
    ("Chords KL and MN of circle W are drawn; they meet at P.", "Chords KL and MN of circle W intersect at P."),
    ("Circle W has chord KL, and MN is its diameter.", "MN is a diameter of circle W, and KL is a chord of circle W."),
    ("Circle R lies inside circle Q and touches it at T.", "Circles Q and R are tangent at T."),
    # model-style wordings, both languages
    ("Point E sits on segment AB.", "E lies on AB."),
    ("M is the center of segment AB.", "M is the midpoint of AB."),
    ("M divides AB in half.", "M is the midpoint of AB."),
    ("The line through A and B is parallel to CD.", "AB ∥ CD."),
    ("C is the point where AB touches circle O.", "AB is tangent to circle O at C."),
    ("ABCD is a cyclic quadrilateral with circumcircle O.", "ABCD is inscribed in circle O."),
    ("In triangle ABC, D is the foot of the altitude from A.", "In triangle ABC, AD ⊥ BC at D."),
    ("Through A, a tangent to circle O is drawn, meeting BC extended at P.", "PA is tangent to circle O at A, and P lies on BC."),
    ("点M平分线段AB。", "M is the midpoint of AB."),
    ("过点A作⊙O的切线，交BC的延长线于点P。", "PA is tangent to circle O at A, and P lies on BC."),
    ("过点P作PE∥BC，交AB于点E。", "PE ∥ BC, and E lies on AB."),
    ("直线a与直线b平行，直线c与a、b分别交于点P、Q。", "Lines a and b are parallel; line c meets a at P and b at Q."),
    ("a∥b，c与a交于点P。", "Lines a and b are parallel; line c meets a at P."),
    # definitions in other words (guide)
    ("The three medians of triangle KLM meet at T.", "T is the centroid of triangle KLM."),
    ("T is where the medians of triangle KLM meet.", "T is the centroid of triangle KLM."),
    ("T is the intersection of the angle bisectors of triangle KLM.", "T is the incentre of triangle KLM."),
    ("The altitudes of triangle KLM are concurrent at H.", "H is the orthocentre of triangle KLM."),
    ("Line g meets circle W only at K.", "Line g is tangent to circle W at K."),
    ("The line g and the circle W share exactly one point, K.", "Line g is tangent to circle W at K."),
    ("The sides KL and MN of quadrilateral KLMN are parallel and equal.", "KL ∥ MN."),
    ("N is the point of LM that is equally far from L and M.", "N is the midpoint of LM."),
    ("KL、MN互相平分于点T。", "T is the midpoint of KL, and T is the midpoint of MN."),
    ("直线g与⊙W只有一个交点K。", "Line g is tangent to circle W at K."),
    ("△KLM的三个顶点都在⊙W上。", "Triangle KLM is inscribed in circle W."),
    ("过点K作LM的平行线，交MN于点P。", "KP ∥ LM, and P lies on MN."),
    ("在三棱柱KLM-K1L1M1中，KK1⊥底面KLM。", "KK1 ⊥ plane KLM."),
    # solid and analytic wordings
    ("The lateral edge PK of pyramid P-KLM is perpendicular to the base.", "PK ⊥ plane KLM."),
    ("K(3, 0) is the x-intercept of the line l: y = -x + 3.", "K lies on the x-axis and on line l."),
    ("Line l is tangent to the circle x^2 + y^2 = 25 at K(3, 4).", "Line l touches the circle at K."),
    ("M(2, 2) is the midpoint of K(0, 0) and L(4, 4).", "M is the midpoint of KL."),
    # perpendicularity and tangency in prose
    ("KN stands perpendicular to LM.", "KN ⊥ LM."),
    ("KN drops perpendicularly onto LM at N.", "KN ⊥ LM at N."),
    ("The segment from K to N meets LM at a right angle.", "KN ⊥ LM."),
    ("KN and LM form a right angle at N.", "KN ⊥ LM at N."),
    ("The angle between KN and LM is 90°.", "KN ⊥ LM."),
    ("KN and LM are orthogonal.", "KN ⊥ LM."),
    ("KN makes a 90° angle with LM.", "KN ⊥ LM."),
    ("Circle W just touches line g at K.", "Line g is tangent to circle W at K."),
    ("g is tangent to ⊙W at K.", "Line g is tangent to circle W at K."),
    ("Circle W touches KL at P and KM at Q.", "KL is tangent to circle W at P, and KM is tangent to circle W at Q."),
    ("Circles W and V touch each other externally at T.", "Circles W and V are tangent at T."),
    ("A tangent from P touches circle W at K.", "PK is tangent to circle W at K."),
    # more verbs and definitions
    ("KL cuts through MN at T.", "KL and MN meet at T."),
    ("The intersection of KL and MN is labelled T.", "KL and MN meet at T."),
    ("KL and MN have T as their common point.", "KL and MN meet at T."),
    ("T is a point lying on KL.", "T lies on KL."),
    ("KL contains the point T.", "T lies on KL."),
    ("T is taken at the middle of KL.", "T is the midpoint of KL."),
    ("T is the halfway point of KL.", "T is the midpoint of KL."),
    ("KN divides ∠LKM in half.", "KN bisects ∠LKM."),
    ("Circle W is drawn around triangle KLM.", "Triangle KLM is inscribed in circle W."),
    ("Circle W is drawn inside triangle KLM, touching all three sides.", "Circle W is inscribed in triangle KLM."),
    ("All three sides of triangle KLM are equal.", "Triangle KLM is equilateral."),
    # notes in model-style captions
    ("On segment KL there is a point T.", "T lies on KL."),
    ("T, a point on KL, is joined to M.", "T lies on KL."),
    ("Key relations: perpendicular (KL, LM); midpoint T of KL.", "KL ⊥ LM, and T is the midpoint of KL."),
    ("The figure consists of triangle KLM and its circumcircle W.", "Triangle KLM is inscribed in circle W."),
    ("W is the center of the circumscribed circle of triangle KLM.", "W is the circumcentre of triangle KLM."),
    ("KN ⟂ LM.", "KN ⊥ LM."),
    ("KL || MN.", "KL ∥ MN."),
    ("KN perp LM.", "KN ⊥ LM."),
    # LaTeX and terse notes
    (r"$l_1 \parallel l_2$", "Line l1 is parallel to line l2."),
    ("⊙W; chord KL; M = mid KL; WM ⊥ KL.", "KL is a chord of circle W, M is the midpoint of KL, WM ⊥ KL."),
    ("KLMN: rhombus; KM, LN diagonals; KM ∩ LN = T.", "In rhombus KLMN, the diagonals KM and LN meet at T."),
    ("T - midpoint of KL", "T is the midpoint of KL."),
    ("Tangent at K to ⊙W meets line LM at P.", "The tangent to circle W at K meets LM at P."),
    # prose: relative clauses, appositives, passives, elided subjects
    ("Inside the square PQRS, the diagonals PR and QS are drawn and cross at the centre T.",
     "In square PQRS, the diagonals PR and QS meet at T."),
    ("Triangle KLM sits inside circle W with all three of its vertices on the circle.", "Triangle KLM is inscribed in circle W."),
    ("From the external point T, two tangent segments TK and TL are drawn to circle W, touching it at K and L.",
     "TK and TL are tangent to circle W at K and L."),
    ("Segment KL, a chord of circle W, is bisected by the radius WM at the point N.",
     "KL is a chord of circle W, N is the midpoint of KL, N lies on WM."),
    ("The line g, which passes through K, runs parallel to LM.", "Line g passes through K and g ∥ LM."),
    ("Line g passes through K and is parallel to LM.", "K lies on line g and g ∥ LM."),
    ("N is chosen on KL so that KN equals NL.", "N is the midpoint of KL."),
    ("Through the midpoint N of KL, a line g perpendicular to KL is drawn.", "N is the midpoint of KL, g ⊥ KL, N lies on g."),
    ("KN, the bisector of angle LKM, meets LM at N.", "KN bisects ∠LKM, N lies on LM."),
    ("KLMN is a parallelogram; its diagonals meet at T.", "In parallelogram KLMN, KM and LN meet at T."),
    ("Circle W has a diameter KL, and M is another point on the circle.", "KL is a diameter of circle W, M lies on circle W."),
    ("The circle W and the line g have two common points, K and L.", "Line g meets circle W at K and L."),
    ("KM ⊥ LN, and the foot of the perpendicular is T.", "KM ⊥ LN at T."),
    ("Triangle KLM is right-angled at L, and N is the midpoint of its hypotenuse KM.", "N is the midpoint of KM."),
    ("Segments KL and MN bisect each other at T.", "T is the midpoint of KL, and T is the midpoint of MN."),
    ("The point T is equidistant from K and L and lies on KL.", "T is the midpoint of KL."),
    ("Segment KL is a chord of circle W and meets MN at P.", "KL is a chord of circle W, and KL and MN intersect at P."),
    ("Segment EF is cut at M by line k, which is its perpendicular bisector.",
     "Line k is the perpendicular bisector of EF and meets EF at M."),
])


def test_a_relation_in_other_words_is_recalled(candidate: str, reference: str) -> None:
    assert score_captions(candidate, reference).recall["relation"] == 1.0


@pytest.mark.parametrize(("candidate", "reference"), [
    ("⊙O的直径是AB, point C lies on ⊙O, ∠ABC = 40°.", "Circle O has diameter AB, and C is on circle O. ∠ABC = 40°."),
    ("In parallelogram ABCD, E是CD的中点, and BE is drawn.", "In parallelogram ABCD, E is the midpoint of CD, and BE is drawn."),
    ("PA与⊙O相切于点A, PO meets circle O at B, PA = 4.", "PA is tangent to circle O at A, and PO meets circle O at B. PA = 4."),
    ("⊙O has a chord AB, OC⊥AB于点C.", "Circle O has chord AB, and OC ⊥ AB at C."),
    ("In ⊙O中, 弦AB, OC ⊥ AB at C.", "Circle O has chord AB, and OC ⊥ AB at C."),
    ("AB与CD相交于点O, and OE bisects ∠BOD.", "Lines AB and CD intersect at O, and OE bisects ∠BOD."),
    ("In cube ABCD-A1B1C1D1, E是CC1的中点。", "In cube ABCD-A1B1C1D1, E is the midpoint of CC1."),
    ("△ABC内接于⊙O, and AB = AC.", "Triangle ABC is inscribed in circle O, and AB = AC."),
])
def test_a_mixed_chinese_and_english_caption_is_read_in_both_languages(candidate: str, reference: str) -> None:
    """Each parser reads its own language's clauses; the caption states their union."""
    recall = score_captions(candidate, reference).recall
    assert recall["relation"] == 1.0 and recall["element"] == 1.0 and recall["numerical"] in (1.0, None), recall


@pytest.mark.parametrize(("candidate", "reference"), [
    ("Lines AB and CD are not parallel.", "Lines AB and CD are parallel."),
    ("D is a point on BC but it is not the midpoint of BC.", "D is the midpoint of BC."),
    ("AB and CD are chords of circle O that do not intersect.", "Chords AB and CD of circle O intersect at P."),
    ("在△ABC中，点D在BC上，AD与BC不垂直。", "在△ABC中，AD⊥BC于点D。"),
    ("D is a point on BC other than the midpoint.", "D is the midpoint of BC."),
    ("AB and CD never meet; they are not parallel.", "AB ∥ CD."),
    ("D is on BC with BD = 2DC.", "D is the midpoint of BC."),
    ("PA is not perpendicular to plane ABC.", "PA ⊥ plane ABC."),
])
def test_a_denied_relation_is_not_recalled(candidate: str, reference: str) -> None:
    result = score_captions(candidate, reference)
    denied = {"parallel", "midpoint", "intersect", "perpendicular"}
    assert not [k for k in result["relation"].matched if k.kind in denied]


@pytest.mark.parametrize(("candidate", "reference"), [
    ("In the coordinate plane, circle M: (x+2)^2+(y-3)^2=9.", "In the coordinate plane, circle M has centre (-2, 3) and radius 3."),
    ("In the coordinate plane, circle M has centre (-2, 3) and radius 3.", "In the coordinate plane, circle M: (x+2)^2+(y-3)^2=9."),
    ("圆M的方程为(y-3)^2+(x+2)^2=3^2。", "Circle M: (x+2)^2+(y-3)^2=9."),
    ("Segments AB and CD have equal length.", "AB = CD."),
    ("Angles ABC and DEF are equal.", "∠ABC = ∠DEF."),
    (r"$\frac{KN}{NL} = \frac{1}{2}$", "KN:NL = 1:2."),
    ("KLM is a right triangle with right angle L.", "In triangle KLM, ∠KLM = 90°."),
    ("The square KLMN has sides of length 4.", "Square KLMN has side length 4."),
    ("In triangle KLM there is a right angle at L.", "In triangle KLM, ∠KLM = 90°."),
    ("The segments KT and TL are marked equal.", "KT = TL."),
    (r"$S_{\triangle KLM} = 12$", "The area of triangle KLM is 12."),
    ("△KLM (KL = KM).", "In triangle KLM, KL = KM."),
])
def test_numbers_in_other_words_are_recalled(candidate: str, reference: str) -> None:
    """The guide's rule: an equation (x - a)^2 + (y - b)^2 = r^2 of the one circle named states
    its centre (a, b) and radius r, and a centre and radius state the equation; equal lengths
    and angles stated in words are the equalities."""
    assert score_captions(candidate, reference).recall["numerical"] == 1.0


def test_a_circle_equation_with_another_radius_states_the_centre_only() -> None:
    result = score_captions("Circle M: (x+2)^2+(y-3)^2=16.", "Circle M has centre (-2, 3) and radius 3.")
    assert result.recall["numerical"] == 0.5
    assert [str(k) for k in result["numerical"].missed] == ["radius of ⊙M = 3"]


@pytest.mark.parametrize(("candidate", "reference"), [
    ("A segment is drawn from K to M.", "Segment KM is drawn."),
    ("The x- and y-axes are drawn.", "The x-axis and the y-axis are drawn."),
])
def test_an_element_in_other_words_is_recalled(candidate: str, reference: str) -> None:
    assert score_captions(candidate, reference).recall["element"] == 1.0


def test_it_is_false_that_denies() -> None:
    assert score_captions("It is false that KL ⊥ MN.", "KL ⊥ MN.").recall["relation"] == 0.0


def test_two_lines_perpendicular_at_a_point_meet_there_and_nothing_more() -> None:
    """`m ⊥ n at O` is annotated as the right angle and the meeting point: a candidate that has
    the lines meet at O but denies the right angle recalls the meeting, not the right angle."""
    result = score_captions("Lines m and n meet at O but are not perpendicular.", "Line m is perpendicular to line n at O.")
    assert [str(k) for k in result["relation"].missed] == ["ℓm ⊥ ℓn"]
    assert result.recall["relation"] == 0.5


def test_its_is_the_owner_of_the_part_it_names() -> None:
    """`Its radius` is the circle's even when a chord was named after the circle."""
    assert score_captions("Circle W has chord KL. Its radius is 5.", "The radius of circle W is 5.").recall["numerical"] == 1.0


def test_it_that_refers_to_nothing_is_left_alone() -> None:
    """`it is given that` is no pronoun: the caption reads as without it."""
    plain = score_captions("AB ∥ CD.", "AB ∥ CD.")
    assert score_captions("It is given that AB ∥ CD.", "AB ∥ CD.").recall == plain.recall


def test_a_chinese_caption_with_units_is_not_read_as_mixed() -> None:
    """Two English unit words are not English clauses: the caption is read by the Chinese parser alone."""
    from geomeval.keypoints.parse import _is_mixed

    assert not _is_mixed("AB=5cm，BC=3cm，∠ABC=90°。")
    assert _is_mixed("AB与CD相交于点O, and OE bisects ∠BOD.")
