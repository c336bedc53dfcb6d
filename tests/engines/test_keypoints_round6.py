"""Classes of wordings the keypoint engine reads since round 6 of issue #41 (the fifth independent
set, h5), each tested with phrasings that are in no data set, and the negated or wrong forms of the
same relation that must not be credited."""

from __future__ import annotations

import pytest

from geomeval.keypoints import parse_caption, score_captions, to_text


def texts(caption: str, dimension: str) -> set[str]:
    return {to_text(k) for k in parse_caption(caption) if k.dimension == dimension}


# --------------------------------------------------------------------------- names in a denied clause

def test_a_bare_name_in_a_denied_reference_clause_lists_no_element() -> None:
    """Guide, rule 6: `KL is not parallel to MN` lists no segment in the reference, so a candidate
    that never writes KL loses nothing; a candidate's own denial still covers a written segment."""
    reference = "Trapezoid KLMN has KN ∥ LM, and KL is not parallel to MN."
    result = score_captions("Trapezoid KLMN with KN ∥ LM.", reference)
    assert result.recall["element"] == 1.0, result.report()
    written = score_captions("Trapezoid KLMN, segment KL drawn; KN ∥ LM.", "Trapezoid KLMN; segment KL drawn; KN ∥ LM.")
    denied = score_captions("Trapezoid KLMN; KN ∥ LM but KL is not parallel to MN.", "Trapezoid KLMN; segment KL drawn; KN ∥ LM.")
    assert written.recall["element"] == denied.recall["element"] == 1.0


# --------------------------------------------------------------------------- a polygon's plane in a solid

@pytest.mark.parametrize(("caption", "expected"), [
    ("In the cuboid KLMN-K1L1M1N1, KK1 ⊥ KLMN.", "KK1 ⊥ plane KLMN"),
    ("Prism KLM-K1L1M1: KK1 ⊥ KLM, KL = 2.", "KK1 ⊥ plane KLM"),
    ("三棱锥S-KLM中，SK⊥KLM。", "KS ⊥ plane KLM"),
])
def test_a_line_perpendicular_to_a_polygon_name_in_a_solid_is_perpendicular_to_its_plane(caption: str, expected: str) -> None:
    assert expected in texts(caption, "relation"), texts(caption, "relation")


def test_outside_a_solid_a_polygon_name_after_perp_is_left_alone() -> None:
    assert "plane KLM" not in " ".join(texts("In the figure, SK ⊥ KLM is not stated; KL ⊥ LM.", "relation"))


# --------------------------------------------------------------------------- conic roles in Chinese

@pytest.mark.parametrize(("caption", "expected"), [
    ("椭圆x²/16 + y²/7 = 1的左焦点为K(−3, 0)，下顶点为L(0, −√7)。", {"K focus ellipse", "L vertex ellipse"}),
    ("抛物线x² = 8y的上焦点为K，连接KL。", {"K focus parabola"}),
    ("双曲线x² − y²/3 = 1，K₁、K₂为焦点。", {"K1 focus hyperbola", "K2 focus hyperbola"}),
    ("抛物线y = 2x² + 1，L是它的顶点。", {"L vertex parabola"}),
])
def test_a_conic_role_with_a_side_word_or_after_the_points_is_read(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_coordinates_after_a_conic_role_stay_values() -> None:
    numbers = texts("椭圆x²/16 + y²/7 = 1的左焦点为K(−3, 0)，下顶点为L(0, −√7)。", "numerical")
    assert {"K(-3, 0)", "L(0, -√7)"} <= numbers, numbers
    assert not {r for r in texts("双曲线x² − y²/3 = 1，K₁、K₂不是焦点。", "relation") if "focus" in r}


# --------------------------------------------------------------------------- conic roles, places and distances in English

@pytest.mark.parametrize(("caption", "expected"), [
    ("The hyperbola x^2 − y^2/3 = 1 is shown; K1 and K2 are its foci.", {"K1 focus hyperbola", "K2 focus hyperbola"}),
    ("hyperbola x^2 − y^2/3 = 1; foci K1, K2; L on the hyperbola.", {"K1 focus hyperbola", "K2 focus hyperbola", "L on hyperbola"}),
    ("parabola y = x^2 + 1; upper focus K, vertex L.", {"K focus parabola", "L vertex parabola"}),
])
def test_roles_of_the_one_conic_said_with_its_or_in_a_list(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_a_point_and_its_role_are_not_read_across_and() -> None:
    got = texts("The parabola y = x^2 − 1 cuts the x-axis at K and L, and M is its vertex.", "relation")
    assert "M vertex parabola" in got and "L vertex parabola" not in got, got


@pytest.mark.parametrize(("caption", "relation", "number"), [
    ("A point K on the hyperbola x^2 − y^2 = 1 is 3 away from L.", "K on hyperbola", "KL = 3"),
    ("Take the parabola x^2 = 8y, on which a point K lies at a distance of 7 from L.", "K on parabola", "KL = 7"),
    ("K lies on circle W at distance 2 from L.", "K on ⊙W", "KL = 2"),
])
def test_a_point_placed_before_its_verb_and_a_distance_said_as_a_place(caption: str, relation: str, number: str) -> None:
    assert relation in texts(caption, "relation") and number in texts(caption, "numerical"), parse_caption(caption)


@pytest.mark.parametrize("caption", [
    "The perpendicular from K to the x-axis meets it at L.",
    "From K a perpendicular is dropped to the x-axis, meeting it at L.",
])
def test_the_perpendicular_to_an_axis_meets_the_axis(caption: str) -> None:
    assert {"KL ⊥ x-axis", "L foot x-axis"} <= texts(caption, "relation"), texts(caption, "relation")


# --------------------------------------------------------------------------- solids: asides, inscribed spheres, 'that base'

@pytest.mark.parametrize(("caption", "expected"), [
    ("A cone of height 8 is drawn; inscribed in it is a ball of radius 3.", "sphere inscribed cone"),
    ("The cylinder, of radius 2, has a sphere inscribed in it.", "sphere inscribed cylinder"),
    ("圆柱的底面半径为2；一个球内切于这个圆柱。", "sphere inscribed cylinder"),
    ("The cuboid KLMN-K1L1M1N1, whose edge KL is 3, is inscribed in a sphere.", "KLMN-K1L1M1N1 inscribed sphere"),
    ("S-KLMN is a pyramid whose base KLMN is a square and whose edge SK is perpendicular to that base.", "KS ⊥ plane KLMN"),
])
def test_solid_relations_behind_asides_and_inverted_order(caption: str, expected: str) -> None:
    assert expected in texts(caption, "relation"), texts(caption, "relation")


def test_the_inverted_sphere_keeps_its_own_radius_and_the_aside_its_value() -> None:
    assert "radius of sphere = 3" in texts("A cylinder of height 6; inscribed in it is a sphere whose radius is 3.", "numerical")
    assert "KL = 3" in texts("The cuboid KLMN-K1L1M1N1, whose edge KL is 3, is inscribed in a sphere.", "numerical")
    assert not texts("A cone of height 8 is drawn; no sphere is inscribed in it.", "relation")


# --------------------------------------------------------------------------- tangency by a common point, relative asides, values

@pytest.mark.parametrize(("caption", "expected"), [
    ("Quadrilateral KLMN has an inscribed circle W. Side KL has exactly one point P in common with it, LM touches it at Q, and MN is tangent to it at R.",
     {"KL tangent to ⊙W at P", "LM tangent to ⊙W at Q", "MN tangent to ⊙W at R"}),
    ("直线m与圆W只有一个公共点K。", {"ℓm tangent to ⊙W at K"}),
    ("KL, which is a chord of the big circle, has exactly one point M in common with the small circle.", {"KL chord ⊙⁺", "KL tangent to ⊙⁻ at M"}),
])
def test_a_single_common_point_and_it_after_touches_name_the_circle(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


@pytest.mark.parametrize(("caption", "expected"), [
    ("Parallelogram KLMN has sides KL of 7 and LM of 5.", {"KL = 7", "LM = 5"}),
    ("KL is a diameter of circle W and is 10 long.", {"KL = 10"}),
    ("KL is one of its chords, 6 units long.", {"KL = 6"}),
    ("KL and MN are 4 and 9 long.", {"KL = 4", "MN = 9"}),
])
def test_values_said_after_a_relation(caption: str, expected: set[str]) -> None:
    assert expected == {t for t in texts(caption, "numerical") if "=" in t}, texts(caption, "numerical")


# --------------------------------------------------------------------------- lines through their own points, shared values, lists

def test_a_line_through_its_own_points_states_no_incidence() -> None:
    got = texts("The line KL passes through K(1, 2) and L(4, 8); M lies on KL.", "relation")
    assert got == {"M on KL"}, got


@pytest.mark.parametrize(("caption", "expected"), [
    ("A cylinder and a cone share the same height, 5, and the same base radius, 4.",
     {"height of cylinder = 5", "height of cone = 5", "radius of cylinder = 4", "radius of cone = 4"}),
    ("Both the cone and the cylinder have a height of 7.", {"height of cone = 7", "height of cylinder = 7"}),
    ("正方体KLMN-K1L1M1N1, edge length 3.", {"side length of cube KLMN-K1L1M1N1 = 3"}),
])
def test_values_shared_by_two_solids_or_given_in_english_after_a_chinese_name(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "numerical"), texts(caption, "numerical")


@pytest.mark.parametrize(("caption", "expected"), [
    ("quadrilateral KLMN, K(0, 0), L(4, 0), M(4, 4), N(0, 4), inscribed in circle W.", "KLMN inscribed ⊙W"),
    ("In triangle KLM, KP and LQ are two of its altitudes.", "KP is an altitude"),
])
def test_terse_inscription_after_coordinates_and_two_of_its_roles(caption: str, expected: str) -> None:
    assert expected in texts(caption, "relation"), texts(caption, "relation")


# --------------------------------------------------------------------------- lists with one shared value or verb

@pytest.mark.parametrize(("caption", "dimension", "expected"), [
    ("The angles KLM, LMN and MNK are all 60°.", "numerical", {"∠KLM = 60°", "∠LMN = 60°", "∠KNM = 60°"}),
    ("The angles KLM and QRS, which are marked, are each 35°.", "numerical", {"∠KLM = 35°", "∠QRS = 35°"}),
    ("The sides KL, LM and MN each have length 4.", "numerical", {"KL = 4", "LM = 4", "MN = 4"}),
    ("K is the midpoint of ST and L the midpoint of UV.", "relation", {"K midpoint ST", "L midpoint UV"}),
    ("The line KM and the line LN, extended, intersect at P.", "relation", {"KM ∩ LN at P"}),
    ("Rhombus KLMN; its diagonals KM and LN bisect each other at P.", "relation",
     {"KM is a diagonal", "LN is a diagonal", "KM ∩ LN at P", "P midpoint KM", "P midpoint LN"}),
])
def test_one_value_or_verb_said_once_for_a_list(caption: str, dimension: str, expected: set[str]) -> None:
    assert expected <= texts(caption, dimension), texts(caption, dimension)


def test_a_shared_right_angle_covers_the_perpendiculars() -> None:
    result = score_captions("In tetrahedron S-KLM the angles KSL and LSM are both 90°.", "Tetrahedron S-KLM: SK ⊥ SL, SL ⊥ SM.")
    assert result.recall["relation"] == 1.0, result.report()


@pytest.mark.parametrize(("caption", "expected"), [
    ("All vertices of the cuboid KLMN-K1L1M1N1 lie on sphere W.", "KLMN-K1L1M1N1 inscribed sphere W"),
    ("The prism KLM-K1L1M1 has all of its six vertices on a sphere.", "KLM-K1L1M1 inscribed sphere"),
])
def test_every_vertex_of_a_solid_on_a_sphere_is_one_inscription(caption: str, expected: str) -> None:
    """Guide (settled after h3/h4, asked again by the h5 writer): all vertices on the sphere is *inscribed*."""
    assert expected in texts(caption, "relation"), texts(caption, "relation")


# --------------------------------------------------------------------------- equations in another form (guide, settled after h5)

@pytest.mark.parametrize(("candidate", "reference"), [
    ("line m: 3x − 6y + 12 = 0", "line m: y = x/2 + 2"),
    ("the ellipse 4x^2 + 9y^2 = 36", "the ellipse x^2/9 + y^2/4 = 1"),
    ("the parabola x^2 − 8y = 0", "the parabola y = x^2/8"),
])
def test_an_equation_rearranged_or_scaled_covers_the_reference(candidate: str, reference: str) -> None:
    assert score_captions(candidate, reference).recall["numerical"] == 1.0


@pytest.mark.parametrize(("candidate", "reference"), [
    ("line m: y = x/2 + 3", "line m: y = x/2 + 2"),
    ("the ellipse x^2/4 + y^2/9 = 1", "the ellipse x^2/9 + y^2/4 = 1"),
    ("the parabola y = x^2 + 8", "the parabola y = x^2/8"),
])
def test_a_different_equation_does_not(candidate: str, reference: str) -> None:
    assert score_captions(candidate, reference).recall["numerical"] == 0.0


# --------------------------------------------------------------------------- two tangents

@pytest.mark.parametrize(("caption", "expected"), [
    ("Circle W has K and L on it; the tangents to circle W at K and L meet at S.", {"KS tangent to ⊙W at K", "LS tangent to ⊙W at L"}),
    ("Lines SK and SL, where S = (0, 5), each touch circle W: SK at K and SL at L.", {"KS tangent to ⊙W at K", "LS tangent to ⊙W at L"}),
    ("MN是⊙W的直径，过点K的切线交MN的延长线于点S。", {"KS tangent to ⊙W at K", "S on MN"}),
])
def test_tangents_at_two_points_and_a_tangent_through_a_point(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_a_secant_through_the_point_is_no_tangent() -> None:
    assert not {r for r in texts("MN是⊙W的直径，过点K的割线交MN的延长线于点S。", "relation") if "tangent" in r}


# --------------------------------------------------------------------------- a plane is an element only when written as one (guide, settled after h5)

def test_a_plane_never_written_as_one_is_no_reference_element() -> None:
    reference = "三棱锥S-KLM中，SK⊥底面KLM，SK = 2。"
    result = score_captions("Tetrahedron S-KLM; SK is perpendicular to its base KLM, SK = 2.", reference)
    assert result.recall["element"] == 1.0 and result.recall["relation"] == 1.0, result.report()
    written = score_captions("Tetrahedron S-KLM; SK = 2.", "Tetrahedron S-KLM; the plane KLM is shaded; SK = 2.")
    assert written.recall["element"] == 0.5, written.report()  # `plane KLM` written: an element the candidate lacks


# --------------------------------------------------------------------------- appositions

@pytest.mark.parametrize(("caption", "dimension", "expected"), [
    ("The circle W has centre K, a point of the y-axis, and radius 3.", "relation", {"K on y-axis"}),
    ("The edge KL1 makes an angle LKL1 of 60° with the base.", "numerical", {"∠LKL1 = 60°"}),
    ("Kite KLMN: its diagonals KM = 10 and LN = 6 cross at P.", "numerical", {"KM = 10", "LN = 6"}),
    ("Kite KLMN: its diagonals KM = 10 and LN = 6 cross at P.", "relation", {"KM ∩ LN at P", "KM is a diagonal", "LN is a diagonal"}),
])
def test_appositions_give_their_fact(caption: str, dimension: str, expected: set[str]) -> None:
    assert expected <= texts(caption, dimension), texts(caption, dimension)


@pytest.mark.parametrize(("caption", "expected"), [
    ("triangle KLM with centroid S; KL = 6.", {"S centroid KLM"}),
    ("In triangle KLM, with circumcentre W, KL = 4.", {"W circumcentre KLM"}),
])
def test_a_centre_named_in_a_with_phrase_is_placed(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")
    assert {f"point {sorted(expected)[0][0]}"} <= texts(caption, "element")


# --------------------------------------------------------------------------- conventions settled after h5 (guide)

def test_a_wrong_value_still_names_the_angle_and_a_wrong_species_its_parts() -> None:
    angle = score_captions("In triangle KLM, ∠LKM = 65°.", "In triangle KLM, ∠LKM = 55°.")
    assert angle.recall == {"element": 1.0, "relation": None, "numerical": 0.0}
    species = score_captions("Rectangle KLMN with diagonal KM; P is the midpoint of KL.", "Square KLMN with diagonal KM; P is the midpoint of KL.")
    assert species.recall["relation"] == 1.0 and species.report().count("square KLMN") == 1  # missed once, in elements


def test_a_perpendicular_covers_the_right_angle_value_not_the_angle_element() -> None:
    result = score_captions("In triangle KLM, KL ⊥ KM.", "In triangle KLM, ∠LKM = 90°.")
    assert result.recall["numerical"] == 1.0 and result.recall["element"] == 0.5, result.report()


def test_a_sphere_name_lists_no_centre_point_and_coordinates_state_no_midpoint() -> None:
    assert "point W" not in texts("Sphere W has radius 3.", "element")
    result = score_captions("K(4, 0), L(0, 2); M(2, 1).", "K(4, 0), L(0, 2); M is the midpoint of KL.")
    assert result.recall["relation"] == 0.0


def test_line_and_segment_of_the_same_name_cover_each_other() -> None:
    assert score_captions("Segment KL is drawn.", "Line KL is drawn.").recall["element"] == 1.0
    assert score_captions("Line KL is drawn.", "Segment KL is drawn.").recall["element"] == 1.0


def test_triangle_does_not_cover_the_plane_of_the_same_name() -> None:
    result = score_captions("In the cube KLMN-K1L1M1N1, triangle KLN1 is drawn.", "In the cube KLMN-K1L1M1N1, plane KLN1 is drawn.")
    assert result.recall["element"] == 0.5, result.report()


# --------------------------------------------------------------------------- denials of the new wordings state nothing

@pytest.mark.parametrize(("caption", "absent"), [
    ("The ellipse x^2/4 + y^2 = 1 is drawn; K1 and K2 are not its foci.", "K1 focus ellipse"),
    ("Trapezoid KLMN; side KL has no point in common with circle W.", "KL tangent to ⊙W"),
    ("A cone of height 8 is drawn; no sphere is inscribed in it.", "sphere inscribed cone"),
    ("Not all vertices of the cube KLMN-K1L1M1N1 lie on sphere W.", "KLMN-K1L1M1N1 inscribed sphere W"),
])
def test_a_denied_new_wording_states_nothing(caption: str, absent: str) -> None:
    assert not {r for r in texts(caption, "relation") if r.startswith(absent)}, texts(caption, "relation")
