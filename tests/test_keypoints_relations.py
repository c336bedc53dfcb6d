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
])
def test_a_relation_in_other_words_is_recalled(candidate: str, reference: str) -> None:
    assert score_captions(candidate, reference).recall["relation"] == 1.0


@pytest.mark.parametrize(("candidate", "reference"), [
    ("Lines AB and CD are not parallel.", "Lines AB and CD are parallel."),
    ("D is a point on BC but it is not the midpoint of BC.", "D is the midpoint of BC."),
    ("AB and CD are chords of circle O that do not intersect.", "Chords AB and CD of circle O intersect at P."),
    ("在△ABC中，点D在BC上，AD与BC不垂直。", "在△ABC中，AD⊥BC于点D。"),
])
def test_a_denied_relation_is_not_recalled(candidate: str, reference: str) -> None:
    result = score_captions(candidate, reference)
    denied = {"parallel", "midpoint", "intersect", "perpendicular"}
    assert not [k for k in result["relation"].matched if k.kind in denied]
