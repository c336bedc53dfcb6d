"""Classes of wordings the keypoint engine reads since round 7 of issue #41 (the sixth independent
set, h6), each tested with phrasings that are in no data set, and the wrong or missing forms of the
same relation that must not be credited."""

from __future__ import annotations

import pytest

from geomeval.keypoints import parse_caption, score_captions, to_text


def texts(caption: str, dimension: str) -> set[str]:
    return {to_text(k) for k in parse_caption(caption) if k.dimension == dimension}


# --------------------------------------------------------------------------- one verb, two objects

@pytest.mark.parametrize(("caption", "expected"), [
    ("Segment KL touches circle P at K and circle Q at L.", {"KL tangent to ⊙P at K", "KL tangent to ⊙Q at L"}),
    ("The line MN cuts ⊙R at M and ⊙S at N.", {"M on ⊙R", "N on ⊙S"}),
])
def test_one_verb_said_once_serves_both_objects(caption: str, expected: set[str]) -> None:
    assert expected <= texts(caption, "relation"), texts(caption, "relation")


def test_a_reference_tangency_to_the_second_object_is_not_credited_by_a_cut() -> None:
    reference = "Line KL touches circle P at K and circle Q at L."
    result = score_captions("Line KL is tangent to circle P at K and cuts circle Q at L.", reference)
    assert result.recall["relation"] == 0.5, result.report()


def test_one_point_in_common_with_each_of_two_circles_is_two_tangencies() -> None:
    caption = "The line KL has exactly one point in common with each of them: K with circle P and L with circle Q."
    assert {"KL tangent to ⊙P at K", "KL tangent to ⊙Q at L"} <= texts(caption, "relation")


# --------------------------------------------------------------------------- two predicates of one subject

def test_a_second_predicate_after_and_keeps_its_subject() -> None:
    caption = "Line RS crosses KL at N and is the perpendicular bisector of KL."
    got = texts(caption, "relation")
    assert {"KL ∩ RS at N", "RS perpendicular bisector KL"} <= got, got
    # a candidate saying only `perpendicular at N` misses the bisector
    result = score_captions("Line RS is perpendicular to KL at N.", caption)
    assert result.recall["relation"] < 1.0, result.report()


# --------------------------------------------------------------------------- `these two altitudes`

def test_these_two_altitudes_are_the_two_named_last() -> None:
    caption = "In triangle KLM, KP is the altitude from K and LQ is the altitude from L. These two altitudes cross at R."
    assert "KP ∩ LQ at R" in texts(caption, "relation"), texts(caption, "relation")


def test_these_two_with_fewer_than_two_named_is_left_alone() -> None:
    caption = "In triangle KLM, KP is an altitude. These two altitudes meet at R."
    assert not any("∩" in t for t in texts(caption, "relation"))


# --------------------------------------------------------------------------- constructions from a point

@pytest.mark.parametrize("caption", [
    "Through the point S off line k, the perpendicular to k is drawn; it meets k at T.",
    "From S the perpendicular to line k is dropped, meeting line k at T.",
])
def test_a_perpendicular_constructed_from_a_point_has_its_foot(caption: str) -> None:
    got = texts(caption, "relation")
    assert {"ST ⊥ ℓk", "T foot ℓk"} <= got, got


def test_a_line_drawn_through_a_point_parallel_to_another() -> None:
    got = texts("A line q is constructed through R perpendicular to KL.", "relation")
    assert {"R on ℓq", "KL ⊥ ℓq"} <= got, got


def test_a_point_named_by_a_meeting() -> None:
    got = texts("Line k: y = 3x − 2. S is the point where k crosses the x-axis.", "relation")
    assert "x-axis ∩ ℓk at S" in got, got


# --------------------------------------------------------------------------- an edge length is a polyhedron's

@pytest.mark.parametrize("caption", [
    "长方体KLMN-K1L1M1N1的所有顶点都在球S的球面上，棱长为3。",
    "The cuboid KLMN-K1L1M1N1 is inscribed in sphere S, and its edge length is 3.",
])
def test_an_edge_length_never_belongs_to_the_sphere(caption: str) -> None:
    got = texts(caption, "numerical")
    assert not any("sphere" in t for t in got), got
    assert any(t.startswith("side length of cuboid") and t.endswith("= 3") for t in got), got


# --------------------------------------------------------------------------- meetings, bisectors, crossings

def test_two_points_named_as_its_intersections_with_an_axis() -> None:
    got = texts("The ellipse x^2/4 + y^2 = 1; K and L are its intersections with the y-axis.", "relation")
    assert {"K on y-axis", "L on y-axis"} <= got, got


def test_a_transversal_cutting_two_lines_at_named_points() -> None:
    got = texts("Lines p and q are crossed by the transversal r, at S on p and at T on q.", "relation")
    assert {"ℓp ∩ ℓr at S", "ℓq ∩ ℓr at T"} <= got, got


def test_perpendicular_through_the_midpoint_is_the_perpendicular_bisector() -> None:
    caption = "Line RS is perpendicular to KL and goes through the midpoint N of KL."
    got = texts(caption, "relation")
    assert {"RS perpendicular bisector KL", "N midpoint KL"} <= got, got
    # perpendicular alone is not the bisector
    assert "RS perpendicular bisector KL" not in texts("Line RS is perpendicular to KL and goes through K.", "relation")


def test_a_perpendicular_chord_crossing_at_a_point_has_its_foot_there() -> None:
    got = texts("Circle S; KL is a chord perpendicular to the diameter MN, meeting it at T.", "relation")
    assert {"KL ⊥ MN", "T foot MN"} <= got, got


# --------------------------------------------------------------------------- other verbs, asides, terse forms

def test_points_that_sit_on_a_circle_lie_on_it() -> None:
    got = texts("Points K and L sit on circle S.", "relation")
    assert {"K on ⊙S", "L on ⊙S"} <= got, got


def test_an_aside_between_a_name_and_its_value() -> None:
    got = texts("∠KSL, the angle between the chords SK and SL, measures 35°.", "numerical")
    assert "∠KSL = 35°" in got, got


def test_a_terse_species_without_a_verb() -> None:
    got = texts("square KLMN; KM diagonal; △KLM isosceles.", "relation")
    assert "KLM is isosceles" in got, got


def test_a_ball_fitting_snugly_in_a_solid_is_inscribed() -> None:
    got = texts("A ball of radius 2 fits tightly into a cube; the radius of its base is not given.", "relation")
    assert "sphere inscribed cube" in got, got
    assert "sphere inscribed cube" not in texts("A ball of radius 2 lies inside a cube.", "relation")


# --------------------------------------------------------------------------- conventions settled after h6

@pytest.mark.parametrize(("candidate", "reference", "expected"), [
    ("Circles P and Q touch internally at T.", "Circles P and Q are externally tangent at T.", 0.0),
    ("⊙P与⊙Q内切于点T。", "⊙P与⊙Q外切于点T。", 0.0),
    ("Circles P and Q are tangent at T.", "Circles P and Q are externally tangent at T.", 1.0),
    ("Circles P and Q are internally tangent at T.", "Circles P and Q touch internally at T.", 1.0),
])
def test_the_other_contact_qualifier_does_not_cover_a_tangency(candidate: str, reference: str, expected: float) -> None:
    """Guide (tangency qualifiers): `tangent` alone covers either kind of contact, the other one does not."""
    assert score_captions(candidate, reference).recall["relation"] == expected


def test_two_equal_sides_named_after_a_comma_are_equal() -> None:
    got = texts("Triangle KLM has two equal sides, KL and KM, each of length 7.", "numerical")
    assert {"KL = KM", "KL = 7", "KM = 7"} <= got, got


def test_a_distance_said_after_a_place() -> None:
    got = texts("Line k is drawn. S is a point on k, 5 units away from T.", "numerical")
    assert "ST = 5" in got, got
    assert "ST = 5" not in texts("Line k is drawn. S is a point on k, away from T.", "numerical")


# --------------------------------------------------------------------------- mixed and Chinese captions

def test_english_species_words_inside_a_chinese_caption() -> None:
    got = texts("Isosceles triangle KLM; 点N在LM边上; 以KN为边作 equilateral △KNP, then join MP.", "relation")
    assert {"KLM is isosceles", "KNP is equilateral"} <= got, got
    assert "segment MP" in texts("Isosceles triangle KLM; 点N在LM边上; then join MP.", "element")


@pytest.mark.parametrize(("caption", "expected"), [
    ("椭圆x^2/25+y^2/9=1，K是它的左焦点。", "K focus ellipse"),
    ("抛物线y=x^2-2x，S为其顶点。", "S vertex parabola"),
])
def test_a_conic_role_with_a_side_word_after_the_point(caption: str, expected: str) -> None:
    assert expected in texts(caption, "relation"), texts(caption, "relation")


def test_a_directrix_said_after_its_line() -> None:
    got = texts("The parabola x^2 = 8y has focus S, and the line k: y = −2 is its directrix.", "relation")
    assert "ℓk directrix parabola" in got, got


def test_radii_listed_after_their_word_are_radii() -> None:
    got = texts("In circle S the radii SK and SL are drawn.", "relation")
    assert {"KS radius ⊙S", "LS radius ⊙S"} <= got, got


# --------------------------------------------------------------------------- a cone's base circle (guide)

@pytest.mark.parametrize("caption", [
    "A cone has vertex S and base circle K of radius 2.",
    "The apex of the cone is S; its base is the circle K.",
    "A cone resting on circle K, with S at its tip.",
    "圆锥的底面圆为⊙K，顶点为S。",
])
def test_a_cones_base_circle_is_a_relation_of_the_cone(caption: str) -> None:
    assert "⊙K base cone" in texts(caption, "relation"), texts(caption, "relation")


def test_a_base_circle_outside_a_cone_is_no_cone_relation() -> None:
    assert not any("base" in t for t in texts("A cylinder has base circle K of radius 2.", "relation"))


def test_the_base_circle_and_the_base_plane_said_again() -> None:
    got = texts("A cone has apex S and base circle K. T is a point on the base circle, and SK ⊥ the base plane.", "relation")
    assert {"T on ⊙K", "KS ⊥ plane K"} <= got, got
    result = score_captions("A cone with apex S and base circle K; T lies on circle K.",
                            "A cone has apex S and base circle K. T is a point on the base circle.")
    assert result.recall["relation"] == 1.0, result.report()


# --------------------------------------------------------------------------- Chinese places and roles

@pytest.mark.parametrize("caption", ["点N在LM边上，LN=2。", "点N是LM边上一点。", "N是LM边上的一点。"])
def test_a_point_on_a_side_written_after_the_name(caption: str) -> None:
    assert "N on LM" in texts(caption, "relation"), texts(caption, "relation")


def test_a_name_closing_an_equation_is_not_listed_with_a_role() -> None:
    got = texts("在△KLM中，KL=KM，KN是LM边上的中线。", "relation")
    assert "KN is a median" in got and "KM is a median" not in got, got


# --------------------------------------------------------------------------- the h6 writer's conventions (guide)

def test_a_bare_name_is_no_reference_element_but_a_side_is() -> None:
    got = texts("In triangle KLM, N lies on side KM and LN ⊥ KM.", "element")
    assert "segment KM" in got and "segment LN" not in got, got


def test_an_unnamed_tangent_line_is_no_element_and_its_point_of_contact_is() -> None:
    got = texts("KL is a diameter of circle S, M is on circle S, and the tangent at M meets the extension of KL at N.", "element")
    assert "point M" in got and not any(t.startswith("line") for t in got), got


def test_medians_meeting_list_the_meeting_not_the_centroid() -> None:
    caption = "In triangle KLM, KP and LQ are medians and they cross at R."
    got = texts(caption, "relation")
    assert "KP ∩ LQ at R" in got and not any("centroid" in t for t in got), got
    assert score_captions("In triangle KLM, R is the centroid, with medians KP and LQ.", caption).recall["relation"] == 1.0


def test_equal_angles_make_a_bisector_in_a_parallelogram() -> None:
    reference = "Parallelogram KLMN; LP bisects ∠KLM and meets KN at P."
    candidate = "Parallelogram KLMN; P lies on KN with ∠KLP = ∠PLM."
    assert score_captions(candidate, reference).recall["relation"] == 1.0


def test_without_touching_denies_inscribed() -> None:
    reference = "A sphere is inscribed in a cylinder."
    assert score_captions("A sphere sits inside a cylinder without touching its curved side.", reference).recall["relation"] == 0.0


def test_a_side_named_in_a_role_phrase_is_listed() -> None:
    """Guide (a role names its element): `AD是BC边上的高` names side BC, as `点D在BC边上` does."""
    assert "segment LM" in texts("在△KLM中，KN是LM边上的中线。", "element")
    assert "segment LM" not in texts("在△KLM中，KN是中线。", "element")
