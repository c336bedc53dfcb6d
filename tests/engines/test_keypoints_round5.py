"""Classes of wordings the keypoint engine reads since round 5 of issue #41 (the third and fourth
independent sets, h3 and h4), each tested with phrasings that are in no data set, and the negated
or wrong forms of the same relation that must not be credited."""

from __future__ import annotations

import pytest

from geomeval.keypoints import parse_caption, to_text


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
