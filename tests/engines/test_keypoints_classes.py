"""Classes of wordings the keypoint engine reads (issue #41, round 4), each tested with
phrasings that are in no data set: a class of surface forms, never one pair's words, and
the negated or wrong forms of the same relation that must not be credited."""

from __future__ import annotations

import pytest

from geomeval.keypoints import parse_caption, score_captions, to_text


def relations(caption: str) -> set[str]:
    return {to_text(k) for k in parse_caption(caption) if k.dimension == "relation"}


def numericals(caption: str) -> set[str]:
    return {to_text(k) for k in parse_caption(caption) if k.dimension == "numerical"}


@pytest.mark.parametrize("caption", [
    "Circles K and L are tangent to each other at S.",
    "Circle K, of radius 4, and circle L, of radius 1, are internally tangent to each other at S.",
    "Two circles, K of radius 4 and L of radius 1, are tangent at S.",
    "⊙K, ⊙L tangent at S.",
    "Circles K (radius 4) and L (radius 1) touch at S.",
    "Two circles, K and L, meet in exactly one point S.",
    "The circles K and L have exactly one common point S.",
    "⊙K and ⊙L, with radii 4 and 1, are tangent from outside at S.",
])
def test_tangency_between_two_circles(caption: str) -> None:
    assert "⊙K tangent to ⊙L at S" in relations(caption)


@pytest.mark.parametrize("caption", [
    "Circles K and L are not tangent to each other; S is on circle K.",
    "Circles K (radius 4) and L (radius 1) do not touch.",
    "PQ, PR tangent to ⊙K at Q, R.",
])
def test_no_tangency_between_circles_when_denied_or_to_a_circle(caption: str) -> None:
    assert not any("⊙K tangent to ⊙L" in r for r in relations(caption)), relations(caption)


def test_radii_given_beside_each_circle_name() -> None:
    got = numericals("Two circles, K of radius 4 and L of radius 1, are tangent at S.")
    assert {"radius of ⊙K = 4", "radius of ⊙L = 1"} <= got


@pytest.mark.parametrize(("caption", "expected"), [
    ("K(2, 0), L(-3, 0) on the x-axis; M(0, 5) on the y-axis.", {"K on x-axis", "L on x-axis", "M on y-axis"}),
    ("circle W, centre (0, 1); Q(0, 3) on circle W.", {"Q on ⊙W"}),
])
def test_terse_placements_of_points_given_with_coordinates(caption: str, expected: set[str]) -> None:
    assert expected <= relations(caption)


@pytest.mark.parametrize(("caption", "expected", "absent"), [
    # a list of meeting points ends where the next clause starts
    ("直线m: y=x-2与x轴交于点K，与y轴交于点L，O为原点。", {"y-axis ∩ ℓm at L"}, {"y-axis ∩ ℓm at O"}),
    ("⊙W与直线g交于点K、L，M为KL的中点。", {"ℓg ∩ ⊙W at K", "ℓg ∩ ⊙W at L"}, {"ℓg ∩ ⊙W at M"}),
    # mixed captions: an English list before 交于, and 二者 after 连接
    ("菱形KLMN中, diagonals KM, LN 交于点T.", {"KM ∩ LN at T"}, set()),
    ("在正方形KLMN中, the diagonals KM and LN 相交于T", {"KM ∩ LN at T"}, set()),
    ("连接KM、LN，它们交于点T。", {"KM ∩ LN at T"}, set()),
])
def test_meeting_points_in_chinese_and_mixed_lists(caption: str, expected: set[str], absent: set[str]) -> None:
    got = relations(caption)
    assert expected <= got and not absent & got, got


@pytest.mark.parametrize(("caption", "expected"), [
    ("△KLM with incircle ⊙J; ⊙J touches LM at N.", "⊙J inscribed KLM"),
    ("triangle KLM, incircle ⊙J (r = 1).", "⊙J inscribed KLM"),
    ("Triangle KLM has circumcircle W.", "KLM inscribed ⊙W"),
])
def test_a_polygon_given_with_its_incircle_or_circumcircle(caption: str, expected: str) -> None:
    assert expected in relations(caption)


@pytest.mark.parametrize(("caption", "expected"), [
    ("Circle W: x^2 + y^2 = 4. Line g: y = x meets it at P and Q.", {"ℓg ∩ ⊙W at P", "ℓg ∩ ⊙W at Q"}),
    ("circle W, radius 2; line k: y = 2x - 1 cuts it at P.", {"ℓk ∩ ⊙W at P"}),
])
def test_it_after_a_line_and_its_equation_is_the_object_before(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got and not any(r.startswith("ℓg ∩ ℓg") or r.startswith("ℓk ∩ ℓk") for r in got), got


@pytest.mark.parametrize(("candidate", "reference", "recall"), [
    # the bisected angle, where both captions name it, must be the same angle
    ("KM平分∠LKN。", "KM平分∠LKN。", 1.0),
    ("KM平分∠JKN。", "KM平分∠LKN。", 0.0),
    ("KM bisects ∠JKN.", "KM bisects ∠LKN.", 0.0),
    ("∠JKM = ∠MKN.", "KM bisects ∠LKN.", 0.0),
    ("∠LKM = ∠MKN.", "KM bisects ∠LKN.", 1.0),
    # a bisector stated without its angle, or with its vertex only, still states it
    ("In triangle KLN, the angle bisector KM is drawn.", "In triangle KLN, KM bisects ∠LKN.", 1.0),
    ("In △KLN, KM bisects ∠K.", "In triangle KLN, KM bisects ∠LKN.", 1.0),
    ("In triangle KLN, M on LN with KM bisecting ∠LKN.", "In triangle KLN, KM bisects ∠LKN and meets LN at M.", 1.0),
])
def test_a_bisector_is_credited_only_for_its_own_angle(candidate: str, reference: str, recall: float) -> None:
    result = score_captions(candidate, reference)
    bisectors = [k for k in result["relation"].matched if k.kind == "angle_bisector"]
    assert len(bisectors) == recall, result.report()


@pytest.mark.parametrize(("caption", "expected"), [
    # a circle named by its centre after `incircle of …`: the elided subject of `and touches` is that circle
    ("The incircle of △KLM has centre J and touches LM, MK and KL at P, Q and R respectively.",
     {"⊙J inscribed KLM", "LM tangent to ⊙J at P", "KM tangent to ⊙J at Q", "KL tangent to ⊙J at R"}),
    ("△KLM, incircle ⊙J; ⊙J tangent to LM at P, to MK at Q, and to KL at R.",
     {"⊙J inscribed KLM", "LM tangent to ⊙J at P", "KM tangent to ⊙J at Q", "KL tangent to ⊙J at R"}),
    # a line through a segment's midpoint
    ("Line g is drawn perpendicular to segment KL through its midpoint N.", {"KL ⊥ ℓg", "N midpoint KL", "N on ℓg"}),
    ("The line g through the midpoint N of KL is perpendicular to KL.", {"KL ⊥ ℓg", "N midpoint KL", "N on ℓg"}),
    ("Line g through K is perpendicular to h.", {"ℓg ⊥ ℓh", "K on ℓg"}),
    # `g ∋ N` and a terse centre of a face
    (r"line $g \ni N$, $g \perp KL$", {"KL ⊥ ℓg", "N on ℓg"}),
    ("cube KLMN-K1L1M1N1; T centre of face KLMN.", {"T centre KLMN"}),
])
def test_references_state_what_they_say(caption: str, expected: set[str]) -> None:
    """A reference read short credits candidates for relations they do not state: these wordings are read in full."""
    got = relations(caption)
    assert expected <= got, got


@pytest.mark.parametrize(("caption", "expected"), [
    ("The legs KL and KM measure 5 and 12.", {"KL = 5", "KM = 12"}),
    ("KL and MN are parallel, of lengths 3 and 7.", {"KL = 3", "MN = 7"}),
    ("KL and KM are 5 and 12 units long respectively.", {"KL = 5", "KM = 12"}),
    ("Its sides KL and KM, each 9 long, meet at K.", {"KL = 9", "KM = 9"}),
    ("KL and KM are each 9.", {"KL = 9", "KM = 9"}),
])
def test_values_given_to_two_segments_together(caption: str, expected: set[str]) -> None:
    assert expected <= numericals(caption)


def test_values_together_are_not_swapped_or_shared_wrongly() -> None:
    got = numericals("The legs KL and KM measure 5 and 12.")
    assert "KL = 12" not in got and "KM = 5" not in got


@pytest.mark.parametrize(("caption", "expected"), [
    ("K and N are joined.", {"segment KN"}),
    ("A segment connecting K and N is drawn.", {"segment KN"}),
])
def test_joins_in_the_passive_and_as_a_noun(caption: str, expected: set[str]) -> None:
    assert expected <= {to_text(k) for k in parse_caption(caption) if k.dimension == "element"}


@pytest.mark.parametrize(("caption", "expected", "absent"), [
    ("K, L and M lie on circle W, with KM a diameter of it.", {"KM diameter ⊙W"}, set()),
    ("Circle W goes through K, L and M; its diameter is the segment LM.", {"LM diameter ⊙W"}, set()),
    ("Points S and T are chosen on the sides KL and KM of triangle KLM respectively.", {"S on KL", "T on KM"}, {"T on KL"}),
    ("Triangles KST and KLM are therefore similar.", {"KLM ∼ KST"}, set()),
    ("Line g runs through the midpoint N of segment KL.", {"N on ℓg", "N midpoint KL"}, set()),
    ("A tangent from Q touches circle W at T.", {"QT tangent to ⊙W at T"}, set()),
    ("From Q the tangent line is drawn to circle W, and touches it at T.", {"QT tangent to ⊙W at T"}, set()),
    ("点Q(1,4)、R(2,0)在⊙W上。", {"Q on ⊙W", "R on ⊙W"}, set()),
])
def test_prose_placements_roles_and_tangents(caption: str, expected: set[str], absent: set[str]) -> None:
    got = relations(caption)
    assert expected <= got and not absent & got, got


@pytest.mark.parametrize(("caption", "expected"), [
    ("KL is a chord of circle W of length 6.", {"KL = 6"}),
    ("The edge SK is perpendicular to the plane KLM and has length 5.", {"KS = 5"}),
    ("The lateral edge KK1, of length 7, is perpendicular to the base.", {"KK1 = 7"}),
    ("Its diagonals, KM of length 6 and LN of length 8, cross at T.", {"KM = 6", "LN = 8"}),
    ("Let KL be one of its diameters, of length 12.", {"KL = 12"}),
])
def test_a_length_stated_after_its_segment(caption: str, expected: set[str]) -> None:
    assert expected <= numericals(caption)


def test_a_side_length_is_not_moved_to_another_segment() -> None:
    assert "KL = 4" not in numericals("KL is drawn in the square KLMN of side length 4.")


@pytest.mark.parametrize(("caption", "expected"), [
    ("Its diagonals, KM of length 6 and LN of length 8, cross at T.", {"KM ∩ LN at T"}),
    ("The y-axis goes through K(0, 2), and the x-axis through L(3, 0).", {"K on y-axis", "L on x-axis"}),
    ("Lines g and h stay parallel to one another.", {"ℓg ∥ ℓh"}),
    ("The perpendicular bisector g of segment KL meets it at N.", {"ℓg perpendicular bisector KL", "KL ∩ ℓg at N"}),
    ("The line g defined by y = 2x meets circle W at K and L.", {"ℓg ∩ ⊙W at K", "ℓg ∩ ⊙W at L"}),
    ("Lines g and h are cut by a second line k at K and L respectively.", {"ℓg ∩ ℓk at K", "ℓh ∩ ℓk at L"}),
    ("Q is a point of line g, and R, a point of h, has QR = 2.", {"Q on ℓg", "R on ℓh"}),
    ("Let KM be one of the diagonals of square KLMN.", {"KM is a diagonal"}),
])
def test_prose_relations_stated_in_other_words(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got, got


def test_the_origin_named_in_a_with_clause() -> None:
    assert "O(0, 0)" in numericals("Line g meets the x-axis at K, with O the origin.")


@pytest.mark.parametrize(("caption", "expected", "absent"), [
    ("KL is a diameter of the given circle W, and N is a point on it.", {"N on ⊙W"}, {"N on KL"}),
    ("The line through Q and T touches circle W only at T.", {"QT tangent to ⊙W at T"}, set()),
    ("Line g has a point N on it.", {"N on ℓg"}, set()),
    ("Points K and L lie on the same line g.", {"K on ℓg", "L on ℓg"}, set()),
    ("The segment KL has both its ends on circle W.", {"KL chord ⊙W"}, set()),
    ("The two circles have one centre; the larger has radius 4 and the smaller radius 1.", {"concentric(⊙⁺, ⊙⁻)"}, set()),
    ("Lines g and h are drawn. The perpendicular from Q to h meets h at T.", {"QT ⊥ ℓh", "T foot ℓh"}, set()),
    ("KL is a diameter of ⊙W，M、N两点 lie on the circle.", {"M on ⊙W", "N on ⊙W"}, {"W on ⊙W"}),
])
def test_objects_named_in_other_words(caption: str, expected: set[str], absent: set[str]) -> None:
    got = relations(caption)
    assert expected <= got and not absent & got, got


def test_an_angle_with_an_appositive_keeps_its_value() -> None:
    assert "∠2 = 35°" in numericals("Angle 2, at K, is 35°.")


@pytest.mark.parametrize(("caption", "expected"), [
    ("⊙W的半径为2，点Q在圆外。", {"Q outside ⊙W"}),
    ("点Q位于⊙W的内部。", {"Q inside ⊙W"}),
    ("直线g经过y轴上的点K(0,2)和x轴上的点L(4,0)。", {"K on y-axis", "L on x-axis"}),
])
def test_chinese_placements(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got, got


def test_a_circumcircle_is_no_outside_point() -> None:
    got = relations("⊙W是△KLM的外接圆。")
    assert "KLM inscribed ⊙W" in got and not any("outside" in r for r in got), got


@pytest.mark.parametrize(("caption", "expected"), [
    ("The points S and T divide KL and KM into two equal parts respectively.", {"S midpoint KL", "T midpoint KM"}),
    ("Point S cuts the segment KL in half.", {"S midpoint KL"}),
    ("Two medians drawn, KS and LT, meet at G.", {"KS is a median", "LT is a median"}),
    ("In circle W the chords, KL and MN, meet at T.", {"KL chord ⊙W", "MN chord ⊙W"}),
    ("Line g is drawn through K and forms a right angle with line h.", {"ℓg ⊥ ℓh"}),
    ("Line g also passes through K.", {"K on ℓg"}),
    ("⊙W的弦KL与弦MN交于点T。", {"KL chord ⊙W", "MN chord ⊙W"}),
    ("从顶点K向底边LM作垂线，垂足为N。", {"KN ⊥ LM", "N foot LM"}),
    ("KLMN是一个直角梯形，上底KN与下底LM平行。", {"KN ∥ LM"}),
    ("棱长为2的正方体中有一个内切球。", {"sphere inscribed cube"}),
])
def test_constructions_and_roles_in_other_words(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got, got


def test_lengths_in_prose_clauses() -> None:
    assert {"ST = 4", "KS = 9"} <= numericals("The segment ST joining them is 4 long, and KS (which is 9 long) is drawn.")
    assert "side length of sphere = 2" not in numericals("棱长为2的正方体中有一个内切球。")


@pytest.mark.parametrize(("caption", "expected", "absent"), [
    # `it` after a clause whose subject was `it`: the topic, not the object named in that clause
    ("The ellipse has foci F1 and F2; it does not cross the y-axis. K and L are two points on it.",
     {"K on ellipse", "L on ellipse"}, {"K on y-axis", "L on y-axis"}),
    ("Line g is tangent to circle W at T; it meets the x-axis at K, and Q is a point on it.", {"Q on ℓg"}, {"Q on x-axis"}),
])
def test_it_continues_the_topic(caption: str, expected: set[str], absent: set[str]) -> None:
    got = relations(caption)
    assert expected <= got and not absent & got, got


@pytest.mark.parametrize(("candidate", "reference"), [
    ("The parabola y = x^2 - 1 has vertex V; it does not meet the x-axis. K and L are two points on it.",
     "The parabola y = x^2 - 1 meets the x-axis at K and L."),
    ("Circles K and L are not tangent to each other; S is on circle K.", "Circles K and L are tangent at S."),
    ("KL is not a chord of circle W.", "KL is a chord of circle W."),
    ("Line g does not make a right angle with line h.", "Line g is perpendicular to line h."),
    ("⊙K与⊙L不相切。", "⊙K与⊙L相切。"),
])
def test_a_denied_relation_is_not_credited(candidate: str, reference: str) -> None:
    result = score_captions(candidate, reference)
    assert result["relation"].tp == 0, result.report()


@pytest.mark.parametrize(("caption", "expected"), [
    # the card's known misses, each as a class
    ("The altitude from K, namely KH, is drawn to LM.", {"HK is an altitude"}),
    ("The median through vertex K, that is KS, has length 5.", {"KS is a median"}),
    ("QR is a common tangent of circles W and V.", {"QR tangent to ⊙W", "QR tangent to ⊙V"}),
    ("⊙J在△KLM内部, 与LM相切于P, 与KM相切于Q.", {"LM tangent to ⊙J at P", "KM tangent to ⊙J at Q"}),
    ("chord KL of the larger circle 与小圆相切于点T.", {"KL tangent to ⊙⁻ at T"}),
    ("Line QK touches circle W at K, 并且QL与⊙W相切于L.", {"KQ tangent to ⊙W at K", "LQ tangent to ⊙W at L"}),
])
def test_known_misses_read_as_classes(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got, got


def test_a_median_named_after_namely_keeps_its_length() -> None:
    assert "KS = 5" in numericals("The median through vertex K, that is KS, has length 5.")


@pytest.mark.parametrize(("caption", "expected", "absent"), [
    # an object after `to`/`of` is no subject of the verb that follows it
    ("The tangent at T to circle W meets line g at Q.", {"QT tangent to ⊙W at T", "Q on ℓg"}, {"ℓg ∩ ⊙W at Q"}),
    ("Chord KL of circle W crosses line g at Q.", {"KL ∩ ℓg at Q"}, {"ℓg ∩ ⊙W at Q"}),
    ("KH is perpendicular on LM.", {"HK ⊥ LM"}, set()),
    ("S lies halfway along KL.", {"S midpoint KL"}, set()),
    ("T is where KM and LN meet.", {"KM ∩ LN at T"}, set()),
])
def test_subjects_behind_prepositions_and_short_wordings(caption: str, expected: set[str], absent: set[str]) -> None:
    got = relations(caption)
    assert expected <= got and not absent & got, got


@pytest.mark.parametrize(("caption", "expected"), [
    ("⊙W的切线QT，切点为T。", {"QT tangent to ⊙W at T"}),
    ("QT, a tangent to circle W, touches it at T.", {"QT tangent to ⊙W at T"}),
    ("KL, a chord of circle W, meets line g at Q.", {"KL chord ⊙W", "KL ∩ ℓg at Q"}),
])
def test_tangents_and_chords_named_in_apposition(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert got == expected or expected <= got, got
    assert len([r for r in got if "tangent" in r]) <= 1, got  # one tangency, not one with and one without its point


@pytest.mark.parametrize(("caption", "expected", "absent"), [
    ("KL is 2 root 3.", {"KL = 2√3"}, {"KL = 2"}),
    ("KL is the square root of 3.", {"KL = √3"}, set()),
    ("A circle of radius 3 centred at W.", {"radius of ⊙W = 3"}, {"radius = 3"}),
])
def test_values_in_words(caption: str, expected: set[str], absent: set[str]) -> None:
    got = numericals(caption)
    assert expected <= got and not absent & got, got


@pytest.mark.parametrize(("caption", "expected"), [
    ("The lines g1 and g2 are perpendicular and meet at Q.", {"ℓg1 ⊥ ℓg2", "ℓg1 ∩ ℓg2 at Q"}),
    ("g1 ⊥ g2 and they meet at Q.", {"ℓg1 ⊥ ℓg2", "ℓg1 ∩ ℓg2 at Q"}),
    ("KL and MN are perpendicular and cross at T.", {"KL ⊥ MN", "KL ∩ MN at T"}),
    ("The line y = x + 2 cuts the ellipse x^2/4 + y^2 = 1 at K and L.", {"K on ellipse", "L on ellipse"}),
])
def test_a_pair_stated_and_then_meeting(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got, got


@pytest.mark.parametrize(("caption", "expected"), [
    ("Line h passes through K(1, 1) and is perpendicular to g, meeting it at T.", {"K on ℓh", "ℓg ⊥ ℓh", "ℓg ∩ ℓh at T"}),
    ("The hyperbola has foci F1(-3, 0) and F2(3, 0).", {"F1 focus hyperbola", "F2 focus hyperbola"}),
    ("The ellipse has foci F1 and F2 on the y-axis.", {"F1 on y-axis", "F2 on y-axis"}),
    ("Line h through K(0, 0) has slope 2.", {"K on ℓh"}),
    ("The angle KLM at the base is a right angle.", set()),
])
def test_analytic_wordings(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got, got


@pytest.mark.parametrize(("caption", "expected"), [
    ("A cube KLMN-K1L1M1N1 whose edges are all 3 long.", {"side length of cube KLMN-K1L1M1N1 = 3"}),
    ("The cone is 7 tall.", {"height of cone = 7"}),
    ("The angle KLM at the base is a right angle.", {"∠KLM = 90°"}),
    ("Line g has a point Q on it, and QS is perpendicular to it and 4 units long.", {"QS = 4"}),
    ("正方形KLMN的边长为5. Extend LM past M to T.", {"side length of KLMN = 5"}),
    ("square KLMN 边长5; MT = 2.", {"side length of KLMN = 5"}),
])
def test_values_in_prose_and_mixed_captions(caption: str, expected: set[str]) -> None:
    assert expected <= numericals(caption)


@pytest.mark.parametrize(("caption", "expected"), [
    ("在△KLM中，ST是中位线。", {"segment ST"}),
    ("The point S halfway between K and L is joined to M.", {"segment MS"}),
])
def test_segments_drawn_in_other_words(caption: str, expected: set[str]) -> None:
    assert expected <= {to_text(k) for k in parse_caption(caption) if k.dimension == "element"}


@pytest.mark.parametrize(("caption", "expected"), [
    ("⊙W中，弦KL⊥直径MN于点T。", {"KL ⊥ MN", "KL chord ⊙W", "MN diameter ⊙W"}),
    ("KL是⊙W的切线，K为切点。", {"KL tangent to ⊙W at K"}),
    ("过点Q作⊙W的两条切线QA、QB，切点分别为A、B。", {"AQ tangent to ⊙W at A", "BQ tangent to ⊙W at B"}),
    ("△KLM的三条中线交于点G。", {"G centroid KLM"}),
    ("直线g与x轴、y轴分别交于点K、L。", {"x-axis ∩ ℓg at K", "y-axis ∩ ℓg at L"}),
    ("点Q在抛物线y=x²+1上。", {"Q on parabola"}),
    ("KL的延长线交MN于点T。", {"KL ∩ MN at T"}),
])
def test_chinese_construction_wordings(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got, got


@pytest.mark.parametrize(("caption", "expected"), [
    ("The segment that joins K and M is perpendicular to LN.", {"KM ⊥ LN"}),
    ("KL is touched by circle W at T.", {"KL tangent to ⊙W at T"}),
    ("Circle W is cut by line g at K and L.", {"ℓg ∩ ⊙W at K", "ℓg ∩ ⊙W at L"}),
    ("A line perpendicular to KL is drawn through M, meeting KL at H.", {"HM ⊥ KL", "H foot KL"}),
    ("KLMN is a rhombus whose diagonals cross at T.", {"KM ∩ LN at T"}),
    ("KLMN is a kite whose two diagonals, KM and LN, meet at T.", {"KM ∩ LN at T"}),
    ("Let W be the circumcircle of triangle KLM.", {"KLM inscribed ⊙W"}),
])
def test_passives_relative_clauses_and_let(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got, got


@pytest.mark.parametrize("caption", [
    "KL and KM do not measure 5 and 12.",
    "KL and KM are not each 9.",
    "ST is not a chord of circle W of length 8.",
])
def test_denied_values_in_prose_are_not_stated(caption: str) -> None:
    assert not {"KL = 5", "KM = 12", "KL = 9", "KM = 9", "ST = 8"} & numericals(caption)


@pytest.mark.parametrize(("caption", "expected"), [
    ("The sphere W passes through all eight vertices of the cube.", {"cube inscribed sphere"}),
    ("A sphere goes through the vertices of the rectangular box.", {"cuboid inscribed sphere"}),
])
def test_a_solid_in_a_sphere_through_its_vertices(caption: str, expected: set[str]) -> None:
    assert expected <= relations(caption)


def test_a_shape_named_after_named_or_called() -> None:
    assert {"rhombus KLMN", "circle ⊙W"} <= {to_text(k) for k in parse_caption("A rhombus named KLMN and a circle called W.")}


def test_a_terse_line_through_a_point_and_a_latex_fraction_of_x() -> None:
    assert "T on ℓg" in relations("segment KL = 4; line g through T.")
    assert "y=-x/3" in numericals(r"The line $y = -\frac{x}{3}$ is drawn.")


@pytest.mark.parametrize(("candidate", "reference"), [
    ("S lies on KL.", "S is the midpoint of KL."),
    ("KH is a median of triangle KLM.", "KH is an altitude of triangle KLM."),
    ("Circle W is inscribed in triangle KLM.", "Triangle KLM is inscribed in circle W."),
    ("Line g is tangent to circle W at K.", "Line g is tangent to circle W at L."),
    ("KL is a chord of circle W.", "KL is a diameter of circle W."),
    ("T is the centroid of triangle KLM.", "T is the incentre of triangle KLM."),
    ("KM and LN meet at T.", "KM and LN meet at S."),
    ("Q is inside circle W.", "Q is outside circle W."),
    ("Line g meets circle W at K and L.", "Line g is tangent to circle W at K."),
    ("The circles W and V meet at K and L.", "The circles W and V are tangent at K."),
    ("S is the midpoint of KL.", "S is the midpoint of KM."),
    ("Line g passes through the midpoint N of KL.", "Line g is the perpendicular bisector of KL."),
    ("The tangent at T to circle W meets line g at Q.", "Line g meets circle W at Q."),
])
def test_a_wrong_relation_is_never_credited(candidate: str, reference: str) -> None:
    """Over-matching audit: a candidate stating a different relation (another kind, another
    point, another angle or segment) gets no relation recall for it."""
    result = score_captions(candidate, reference)
    assert result["relation"].tp == 0, result.report()


@pytest.mark.parametrize(("caption", "expected"), [
    ("KL, drawn from K to the side MN, is perpendicular to MN.", {"KL ⊥ MN"}),
    ("The line g, drawn through K parallel to LM, meets KN at T.", {"LM ∥ ℓg", "K on ℓg", "KN ∩ ℓg at T"}),
    ("Circle W, with radius 2, is tangent to both KL and KM.", {"KL tangent to ⊙W", "KM tangent to ⊙W"}),
    ("Line g that goes through K and L also meets circle W at M.", {"K on ℓg", "L on ℓg", "ℓg ∩ ⊙W at M"}),
    ("Lines g, h and k are parallel.", {"ℓg ∥ ℓh", "ℓh ∥ ℓk"}),
    ("KL, MN, and ST are all parallel to each other.", {"KL ∥ MN", "MN ∥ ST"}),
])
def test_subjects_behind_clauses_and_lists(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got, got


@pytest.mark.parametrize(("caption", "expected"), [
    ("The angle between KL and KM is 60°.", {"∠LKM = 60°"}),
    ("∠KLM is a 40° angle.", {"∠KLM = 40°"}),
    ("KL is twice as long as LM.", {"KL:LM = 2:1"}),
    ("KL is half as long as LM.", {"KL:LM = 1:2"}),
    ("在△KLM中，KL长5，LM长度为6。", {"KL = 5", "LM = 6"}),
])
def test_angles_and_lengths_in_other_words(caption: str, expected: set[str]) -> None:
    assert expected <= numericals(caption)


@pytest.mark.parametrize(("caption", "expected"), [
    ("S、T分别是KL、KM的midpoints。", {"S midpoint KL", "T midpoint KM"}),
    ("KL是⊙W的diameter, M在⊙W上。", {"KL diameter ⊙W", "M on ⊙W"}),
    ("过K作KH ⊥ LM, foot H。", {"HK ⊥ LM", "H foot LM"}),
    ("QT是⊙W的tangent，切点为T。", {"QT tangent to ⊙W at T"}),
])
def test_english_role_words_in_chinese_clauses(caption: str, expected: set[str]) -> None:
    got = relations(caption)
    assert expected <= got, got


@pytest.mark.parametrize(("equation", "circle"), [
    ("x^2+y^2-2x+4y-4=0", (1.0, -2.0, 3.0)),
    ("x^2+y^2-6x=0", (3.0, 0.0, 3.0)),
    ("x^2+y^2+4y=5", (0.0, -2.0, 3.0)),
    ("x^2+y^2-2x+4y+10=0", None),  # no real circle
])
def test_an_expanded_circle_equation_states_its_centre_and_radius(equation: str, circle: tuple[float, float, float] | None) -> None:
    from geomeval.keypoints.canonical import circle_equation

    assert circle_equation(equation) == circle


def test_an_expanded_circle_equation_matches_its_centre_and_radius() -> None:
    result = score_captions("Circle W: x^2 + y^2 - 2x + 4y - 4 = 0.", "Circle W has centre (1, -2) and radius 3.")
    assert result.recall["numerical"] == 1.0, result.report()


@pytest.mark.parametrize(("caption", "expected", "absent"), [
    ("g ∩ ⊙W = {K, L}.", {"ℓg ∩ ⊙W at K", "ℓg ∩ ⊙W at L"}, set()),
    ("T := KM ∩ LN.", {"KM ∩ LN at T"}, set()),
    ("KS: median; KH: altitude.", {"KS is a median", "HK is an altitude"}, set()),
    ("g: tangent to ⊙W at T.", {"ℓg tangent to ⊙W at T"}, set()),
    ("∠KLM ≅ ∠STU.", set(), {"KLM ≅ STU"}),  # two equal angles, not two congruent triangles
])
def test_terse_symbol_notations(caption: str, expected: set[str], absent: set[str]) -> None:
    got = relations(caption)
    assert expected <= got and not absent & got, got
