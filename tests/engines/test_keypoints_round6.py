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
