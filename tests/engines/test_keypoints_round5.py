"""Classes of wordings the keypoint engine reads since round 5 of issue #41 (the third and fourth
independent sets, h3 and h4), each tested with phrasings that are in no data set, and the negated
or wrong forms of the same relation that must not be credited."""

from __future__ import annotations

import pytest

from geomeval.keypoints import parse_caption, score_captions, to_text


def texts(caption: str, dimension: str) -> set[str]:
    return {to_text(k) for k in parse_caption(caption) if k.dimension == dimension}


# --------------------------------------------------------------------------- equation labels

@pytest.mark.parametrize(("caption", "expected"), [
    ("The line g: 4x − 3y + 10 = 0 touches circle W: x^2 + y^2 = 4 at K.", {"ℓg tangent to ⊙W at K"}),
    ("Circle W: x^2 + y^2 = 1 and circle V: (x − 3)^2 + y^2 = 4 are tangent to each other at K(1, 0).", {"⊙V tangent to ⊙W at K"}),
    ("g1: y = 3x + 1 and g2: y = 5 − x/3 are perpendicular and meet at K.", {"ℓg1 ⊥ ℓg2", "ℓg1 ∩ ℓg2 at K"}),
    ("The lines g1 (y = x + 1) and g2 (y = 3 − x) intersect at K.", {"ℓg1 ∩ ℓg2 at K"}),
])
def test_an_object_labelled_by_an_equation_keeps_its_name(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_the_label_moves_whole_and_the_equation_stays_a_value() -> None:
    numbers = texts("Circle W: x^2 + y^2 = 4 and the line g: x − y + 4 = 0 do not meet.", "numerical")
    assert {"x^2+y^2=4", "x-y+4=0"} <= numbers, numbers  # no word glued to the equation (`=0do`)
    assert not texts("Circle W: x^2 + y^2 = 4 and the line g: x − y + 4 = 0 do not meet.", "relation")
    assert "ℓg1 ⊥ ℓg2" not in texts("g1: y = 3x + 1 and g2: y = 3x − 2 are not perpendicular.", "relation")


# --------------------------------------------------------------------------- inscription in other words

@pytest.mark.parametrize(("caption", "expected"), [
    ("Square KLMN is drawn; circle W passes through each of its vertices.", "KLMN inscribed ⊙W"),
    ("Circle W, of radius 2, goes through all four vertices of the rectangle KLMN.", "KLMN inscribed ⊙W"),
    ("Triangle KLM has all of its vertices on circle W.", "KLM inscribed ⊙W"),
    ("In triangle KLM, K, L and M lie on circle W.", "KLM inscribed ⊙W"),  # the reference's one keypoint, not three
    ("A box KLMN-K1L1M1N1 is inscribed in the sphere W.", "KLMN-K1L1M1N1 inscribed sphere W"),
    ("四棱柱KLMN-K1L1M1N1的所有顶点均在球W的表面上。", "KLMN-K1L1M1N1 inscribed sphere W"),
    ("正方体KLMN-K1L1M1N1内接于球W。", "KLMN-K1L1M1N1 inscribed sphere W"),
])
def test_every_vertex_on_a_circle_or_sphere_is_one_inscription(caption: str, expected: str) -> None:
    found = texts(caption, "relation")
    assert expected in found and not any(r.endswith("on ⊙W") for r in found), found


def test_no_inscription_when_denied_or_a_vertex_is_missing() -> None:
    assert not texts("Triangle KLM is drawn. Circle W does not pass through all three vertices.", "relation")
    assert texts("Triangle KLM is drawn; K and L lie on circle W.", "relation") == {"K on ⊙W", "L on ⊙W"}


def test_a_solid_of_the_wrong_species_still_states_the_inscription() -> None:
    """The species is counted once, in elements (guide): a cube for a cuboid keeps the relation."""
    result = score_captions("The cube KLMN-K1L1M1N1 is inscribed in sphere W.", "The cuboid KLMN-K1L1M1N1 is inscribed in sphere W.")
    assert result.recall["relation"] == 1.0 and result.recall["element"] < 1.0


# --------------------------------------------------------------------------- lists of midpoints and placements

@pytest.mark.parametrize(("caption", "expected"), [
    ("K, L and M are the midpoints of ST, TU and UV.", {"K midpoint ST", "L midpoint TU", "M midpoint UV"}),
    ("K and L are the midpoints of the sides ST and TU respectively.", {"K midpoint ST", "L midpoint TU"}),
    ("依次取五边形STUVW各边ST、TU、UV的中点K、L、M。", {"K midpoint ST", "L midpoint TU", "M midpoint UV"}),
    ("K、L分别为三角形STU的边ST、TU的中点。", {"K midpoint ST", "L midpoint TU"}),
    ("K, L and M lie on ST, TU and UV, respectively.", {"K on ST", "L on TU", "M on UV"}),
    ("A prism is drawn with K, L and M on the edges ST, TU and UV.", {"K on ST", "L on TU", "M on UV"}),
])
def test_the_ith_point_goes_with_the_ith_segment(caption: str, expected: set[str]) -> None:
    found = texts(caption, "relation")
    assert expected <= found, found
    assert not {"K midpoint TU", "L midpoint ST", "L on ST", "M on ST"} & found, found


def test_a_role_word_before_a_list_still_lists_its_segments() -> None:
    assert {"segment ST", "segment TU"} <= texts("K、L分别是棱ST、TU的中点。", "element")
    assert {"KM is a diagonal", "LN is a diagonal"} <= texts("四边形KLMN的对角线KM=LN=6。", "relation")


# --------------------------------------------------------------------------- conic roles, solids, right angles

@pytest.mark.parametrize(("caption", "expected"), [
    ("The ellipse x^2/9 + y^2/4 = 1 has left focus K(−√5, 0) and upper vertex L(0, 2).", {"K focus ellipse", "L vertex ellipse"}),
    ("For the parabola y^2 = 4x, K(1, 0) is the focus, and S is a point on the curve.", {"K focus parabola", "S on parabola"}),
    ("On the hyperbola x^2 − y^2 = 1, K is the left-hand vertex.", {"K vertex hyperbola"}),
])
def test_a_role_of_the_one_conic_said_without_naming_it(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_a_role_is_not_given_to_a_conic_when_two_are_named() -> None:
    found = texts("The ellipse E and the parabola P are drawn; K(1, 0) is the focus.", "relation")
    assert not any("focus" in r for r in found), found


@pytest.mark.parametrize(("caption", "expected"), [
    ("A cone of height 3 is drawn, and a sphere is inscribed in it.", "sphere inscribed cone"),
    ("Cylinder with radius 1; a ball is inscribed in it.", "sphere inscribed cylinder"),
    ("Segment KL stands at a right angle to line g.", "KL ⊥ ℓg"),
])
def test_solids_and_right_angles_in_other_words(caption: str, expected: str) -> None:
    assert expected in texts(caption, "relation"), texts(caption, "relation")


@pytest.mark.parametrize("caption", [
    "A cone of height 3 is drawn, and a sphere is not inscribed in it.",
    "Segment KL does not stand at a right angle to line g.",
])
def test_denied_solids_and_right_angles_are_not_credited(caption: str) -> None:
    assert not texts(caption, "relation"), texts(caption, "relation")


# --------------------------------------------------------------------------- meetings, tangency and perpendiculars in other words

@pytest.mark.parametrize(("caption", "expected"), [
    ("The line KS, through K, crosses circle W at L and at M.", {"KS ∩ ⊙W at L", "KS ∩ ⊙W at M"}),
    ("Circles W and V stay outside each other and have just one point, T, in common.", {"⊙V tangent to ⊙W at T"}),
    ("Circle W (radius 4) and circle V (radius 1) share exactly one common point T.", {"⊙V tangent to ⊙W at T"}),
    ("SK and SL are tangent to ⊙W at K and L respectively.", {"KS tangent to ⊙W at K", "LS tangent to ⊙W at L"}),
    ("Line g runs through K at right angles to LM.", {"K on ℓg", "LM ⊥ ℓg"}),
    ("The chords KM and LN intersect at T at right angles.", {"KM ⊥ LN", "KM ∩ LN at T"}),
    ("The perpendicular KH from K hits the side LM at H.", {"HK ⊥ LM", "H foot LM"}),
    ("Segment KL is 8 long, and its midpoint is S.", {"S midpoint KL"}),
])
def test_meetings_tangency_and_perpendiculars_in_other_words(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


@pytest.mark.parametrize("caption", [
    "Circles W and V do not have exactly one point T in common.",
    "SK and SL are not tangent to ⊙W at K and L respectively.",
    "The chords KM and LN intersect at T, but not at right angles.",
])
def test_denied_meetings_and_tangency_are_not_credited(caption: str) -> None:
    found = texts(caption, "relation")
    assert not any("tangent" in r or "⊥" in r for r in found), found


# --------------------------------------------------------------------------- Chinese: labels, coordinates, terse roles

@pytest.mark.parametrize(("caption", "expected"), [
    ("直线g: y = −x + 6交x轴于K(6, 0)，交y轴于L(0, 6)。", {"x-axis ∩ ℓg at K", "y-axis ∩ ℓg at L"}),
    ("直线g的方程为y = 3x − 3，它与x轴相交于点K。", {"x-axis ∩ ℓg at K"}),
    ("双曲线x²/9 − y²/16 = 1，焦点K、L，点S在双曲线上。", {"K focus hyperbola", "L focus hyperbola", "S on hyperbola"}),
    ("抛物线y = x² − 4x；其顶点为K(2, −4)。", {"K vertex parabola"}),
    ("从⊙W外一点S引⊙W的两条切线SK、SL，切点分别为K、L。", {"KS tangent to ⊙W at K", "LS tangent to ⊙W at L"}),
    ("连接KL，与WS相交于点T。", {"KL ∩ SW at T"}),
    ("△KLM与△KMN都是等腰三角形。", {"KLM is isosceles", "KMN is isosceles"}),
    ("Triangles KLM and KMN are both isosceles.", {"KLM is isosceles", "KMN is isosceles"}),
    ("K, L and M lie on a single straight line.", {"collinear(K, L, M)"}),
])
def test_chinese_and_list_wordings_of_round_5(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_coordinates_after_meeting_points_are_values_not_more_points() -> None:
    caption = "直线g: y = −x + 6交x轴于K(6, 0)，交y轴于L(0, 6)。"
    assert not any(r.endswith(" at K") and "y-axis" in r for r in texts(caption, "relation"))
    assert {"K(6, 0)", "L(0, 6)"} <= texts(caption, "numerical")
    assert not texts("△KLM与△KMN都不是等腰三角形。", "relation")


# --------------------------------------------------------------------------- radii beside two circles' names

@pytest.mark.parametrize(("caption", "relation"), [
    ("Two circles, W with radius 6 and V with radius 2, are tangent at T.", "⊙V tangent to ⊙W at T"),
    ("Circles W (radius 6) and V (radius 2) cross at K and L.", "⊙V ∩ ⊙W at K"),
    ("Circles W and V, with radii 6 and 2 respectively, intersect at K.", "⊙V ∩ ⊙W at K"),
])
def test_radii_beside_two_circles_names_keep_both_and_the_relation(caption: str, relation: str) -> None:
    assert relation in texts(caption, "relation"), texts(caption, "relation")
    assert {"radius of ⊙W = 6", "radius of ⊙V = 2"} <= texts(caption, "numerical"), texts(caption, "numerical")


def test_a_list_after_a_solid_name_is_not_a_list_tail() -> None:
    found = texts("In the cube KLMN-K1L1M1N1, S and T are the midpoints of the edges KL and LM respectively.", "relation")
    assert {"S midpoint KL", "T midpoint LM"} <= found, found


# --------------------------------------------------------------------------- values in other words

@pytest.mark.parametrize(("caption", "expected"), [
    ("The diagonals KM and LN of KLMN are both 10.", {"KM = 10", "LN = 10", "KM = LN"}),
    ("SK、KL、LM的长度都是3。", {"KS = 3", "KL = 3", "LM = 3"}),
    ("SK与KL都等于3。", {"KS = 3", "KL = 3", "KL = KS"}),
    ("KL是长为10的弦。", {"KL = 10"}),
    ("The prism stands 7 tall.", {"height of prism = 7"}),
    ("Triangle KLM has all three sides equal to 5.", {"side length of KLM = 5"}),
    ("Two triangles, KLM and STU, are drawn; the side KL equals the side ST.", {"KL = ST"}),
])
def test_values_said_in_other_words(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "numerical"), texts(caption, "numerical")


@pytest.mark.parametrize(("candidate", "recall"), [
    ("In square KLMN with KL = 4, S is the midpoint of MN.", 1.0),
    ("Square KLMN with LM = 4.", 1.0),
    ("Square KLMN with KM = 4.", 0.0),  # a diagonal is no side
    ("Rectangle KLMN with KL = 4.", 0.0),  # sides need not be equal
    ("Square KLMN with KL = 5.", 0.0),
])
def test_a_side_of_a_square_gives_its_side_length(candidate: str, recall: float) -> None:
    """Guide: any side's length gives the side length of a figure whose sides are all equal."""
    assert score_captions(candidate, "Square KLMN has side 4.").recall["numerical"] == recall


def test_an_edge_of_a_cube_gives_its_edge_length_but_not_a_cuboids() -> None:
    assert score_captions("Cube KLMN-K1L1M1N1 with KK1 = 2.", "Cube KLMN-K1L1M1N1 with edge length 2.").recall["numerical"] == 1.0
    assert score_captions("Cuboid KLMN-K1L1M1N1 with KL = 2.", "Cube KLMN-K1L1M1N1 with edge length 2.").recall["numerical"] == 0.0


# --------------------------------------------------------------------------- solids and angles named in other words

@pytest.mark.parametrize(("caption", "dimension", "expected"), [
    ("In the triangular pyramid S-KLM, SK ⊥ plane KLM.", "element", "tetrahedron S-KLM"),
    ("三棱锥S-KLM的体积为2。", "numerical", "volume of tetrahedron S-KLM = 2"),
    ("A cone is drawn with a sphere fitted tightly into it.", "relation", "sphere inscribed cone"),
    ("The angle KLM of triangle KLM is a right angle.", "numerical", "∠KLM = 90°"),
])
def test_solids_and_angles_named_in_other_words(caption: str, dimension: str, expected: str) -> None:
    assert expected in texts(caption, dimension), texts(caption, dimension)


def test_a_four_sided_pyramid_stays_a_pyramid() -> None:
    assert "pyramid S-KLMN" in texts("The pyramid S-KLMN has a square base.", "element")


def test_a_circles_centre_given_by_coordinates_is_no_point_element() -> None:
    """Guide rule 4: `its centre is W(1, 2)` for circle W gives the coordinate, not also point W."""
    elements = texts("Circle W goes through K(0, 0) and L(2, 0). Its centre is W(1, 2).", "element")
    assert "circle ⊙W" in elements and "point W" not in elements, elements
    assert "point W" in texts("Circle W is drawn, and W lies on KL.", "element")


# --------------------------------------------------------------------------- chords of conics, appositions, constructions

@pytest.mark.parametrize(("caption", "expected"), [
    ("The chord KL of the parabola passes through the focus S.", {"S on KL"}),
    ("The line W1W2, connecting the centres, crosses KL at T.", {"KL ∩ W1W2 at T"}),
    ("In the cube, the diagonals KM and LN of the top face cross at T.", {"KM ∩ LN at T"}),
    ("From K an arc is drawn which cuts KL at S and KM at T.", {"S on KL", "T on KM"}),
    ("以点K为圆心画弧，分别交KL、KM于点S、T。", {"S on KL", "T on KM"}),
    ("Points S on KL and T on KM are chosen.", {"S on KL", "T on KM"}),
    ("Triangles KLM and STU have KL = ST, LM = TU and ∠L = ∠T, which makes the two triangles congruent.", {"KLM ≅ STU"}),
    ("Pentagon KLMNS 的五个顶点都在⊙W上。", {"KLMNS inscribed ⊙W"}),
    ("T 平分弧KL。", {"T midpoint ⌒KL"}),
])
def test_chords_appositions_and_constructions(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_congruence_needs_two_triangles_named_before() -> None:
    assert not any("≅" in r for r in texts("KL = ST, which makes the two triangles congruent.", "relation"))


# --------------------------------------------------------------------------- pronouns and terse lines

@pytest.mark.parametrize(("caption", "expected"), [
    ("Line g is the perpendicular bisector of KL and crosses it at S.", {"KL ∩ ℓg at S", "ℓg perpendicular bisector KL"}),
    ("Triangle KLM is right-angled at M. A circle W is drawn with LM as diameter, and it meets KL at S.", {"KL ∩ ⊙W at S"}),
    ("The line g ⊥ KL through S meets the y-axis at T.", {"S on ℓg", "KL ⊥ ℓg", "y-axis ∩ ℓg at T"}),
    ("⊙W; line KS through L; K, S on ⊙W.", {"L on KS"}),
    ("The point S sits halfway between K and L.", {"S midpoint KL"}),
])
def test_pronouns_and_terse_lines(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_it_after_a_circle_that_is_no_subject_stays_with_the_clause_subject() -> None:
    found = texts("KL is a chord of circle W, and it meets MN at S.", "relation")
    assert "KL ∩ MN at S" in found and not any("⊙W at S" in r for r in found), found


# --------------------------------------------------------------------------- the directrix, a new canonical relation

@pytest.mark.parametrize("caption", [
    "The parabola x^2 = 4y has focus S(0, 1) and directrix g.",
    "K lies on the parabola x^2 = 4y, whose directrix is the line g.",
    "抛物线x²=4y，焦点S，准线g，点K在抛物线上。",
    "Line g is the directrix of the parabola.",
])
def test_a_directrix_is_a_relation_of_the_conic(caption: str) -> None:
    assert "ℓg directrix parabola" in texts(caption, "relation"), texts(caption, "relation")
    assert "line ℓg" in texts(caption, "element")


def test_roles_in_terse_lists_and_whose_clauses() -> None:
    assert {"S focus parabola", "K on parabola"} <= texts("parabola x^2 = 4y; focus S(0, 1); K on the parabola; KS drawn.", "relation")
    assert "S focus parabola" in texts("K lies on the parabola x^2 = 4y, whose focus is S(0, 1).", "relation")
    assert not texts("Line g is not the directrix of the parabola.", "relation")


# --------------------------------------------------------------------------- incircles, bisectors, 'again', radii of concentric circles

@pytest.mark.parametrize(("caption", "expected"), [
    ("Triangle KLM is drawn. The circle W inscribed in it touches KL at S.", {"⊙W inscribed KLM", "KL tangent to ⊙W at S"}),
    ("△KLM, KL = 5; incircle ⊙W, tangent to LM at S.", {"⊙W inscribed KLM", "LM tangent to ⊙W at S"}),
    ("In triangle KLM the circle W is inscribed, so W is the incentre.", {"⊙W inscribed KLM"}),
    ("∠KLM的平分线LS交KM于点S。", {"LS is an angle bisector", "S on KM"}),
    ("Line KS meets circle W again at T.", {"KS ∩ ⊙W at T"}),
    ("The diagonal KM has midpoint S.", {"S midpoint KM", "KM is a diagonal"}),
    ("Square KLMN: a segment KS is drawn from K to side LM.", {"S on LM"}),
])
def test_incircles_bisectors_and_midpoints_in_other_words(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_a_bisector_named_before_a_diameter_list_is_no_diameter() -> None:
    found = texts("⊙W的直径为KL，∠KMS的平分线MT与⊙W相交于点T。", "relation")
    assert "KL diameter ⊙W" in found and "MT diameter ⊙W" not in found, found


def test_the_smaller_radius_of_two_concentric_circles() -> None:
    assert {"radius of ⊙⁺ = 7", "radius of ⊙⁻ = 2"} <= texts("Two concentric circles have centre W. The larger radius is 7 and the smaller is 2.", "numerical")


@pytest.mark.parametrize(("caption", "expected"), [
    ("Circle W and a point S lying outside it are drawn.", {"S outside ⊙W"}),
    ("The point S(5, 0) lies on the x-axis, outside circle W.", {"S on x-axis", "S outside ⊙W"}),
    ("⊙W; S(5, 0) on the x-axis, outside ⊙W.", {"S on x-axis", "S outside ⊙W"}),
    ("From S a line is drawn that touches circle W at K; call it SK.", {"KS tangent to ⊙W at K"}),
])
def test_places_outside_a_circle_and_a_line_named_after_it_is_drawn(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_a_point_not_outside_is_not_placed_outside() -> None:
    assert "S outside ⊙W" not in texts("The point S(5, 0) lies on the x-axis, not outside circle W.", "relation")


# --------------------------------------------------------------------------- a cone's apex, a new canonical relation

@pytest.mark.parametrize("caption", [
    "A cone has apex S, and its base is circle W.",
    "A cone with vertex S stands on a base circle W.",
    "The figure is a cone on circle W, with S at its tip.",
    "S is the apex of a cone whose base is circle W.",
    "cone, apex S; base circle W.",
    "圆锥的顶点为S，底面圆心为W。",
])
def test_the_apex_of_a_cone_is_a_relation(caption: str) -> None:
    assert "S apex cone" in texts(caption, "relation"), texts(caption, "relation")


def test_no_apex_for_a_parabola_vertex_or_two_cones() -> None:
    assert not any("apex" in r for r in texts("The parabola has vertex S.", "relation"))
    assert not any("apex" in r for r in texts("Two cones are drawn; one cone has apex S.", "relation"))
