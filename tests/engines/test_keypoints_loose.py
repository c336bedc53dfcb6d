"""The loose pass of keypoint matching: a relation whose only difference from the other side's
is an object left unnamed there ("the circle" for the one circle ⊙O, a tangency without its
point of contact) is the same fact; anything else that differs is not."""

from __future__ import annotations

import pytest

from geomeval import keypoints
from geomeval.keypoints.match import _loosely_same
from geomeval.keypoints.model import RELATION, Keypoint


def rel(kind: str, *args: str, value=None) -> Keypoint:
    return Keypoint(RELATION, kind, args, value)


@pytest.mark.parametrize(
    ("reference", "candidate"),
    [
        (rel("tangent", "ℓl", "⊙", "T"), rel("tangent", "ℓl", "⊙O", "T")),
        (rel("tangent", "ℓl", "⊙O", "T"), rel("tangent", "ℓl", "⊙", "T")),
        (rel("intersect", "ℓl", "⊙", "A"), rel("intersect", "ℓl", "⊙C", "A")),
        (rel("tangent", "BP", "⊙O", "B"), rel("tangent", "BP", "⊙O", "")),
        (rel("tangent", "BP", "⊙O", ""), rel("tangent", "BP", "⊙O", "B")),
    ],
)
def test_an_object_left_unnamed_on_one_side_is_the_same_fact(reference: Keypoint, candidate: Keypoint) -> None:
    assert _loosely_same(reference, candidate)


@pytest.mark.parametrize(
    ("reference", "candidate"),
    [
        (rel("tangent", "ℓl", "⊙O", "T"), rel("tangent", "ℓl", "⊙P", "T")),  # another named circle
        (rel("tangent", "ℓl", "⊙O", "T"), rel("tangent", "ℓl", "⊙O", "S")),  # another point of contact
        (rel("tangent", "ℓl", "⊙", "T"), rel("tangent", "ℓm", "⊙O", "T")),  # another line
        (rel("intersect", "ℓl", "⊙C", "A"), rel("intersect", "ℓl", "⊙C", "")),  # only tangency points may be left out
        (rel("tangent", "ℓl", "⊙", "T"), rel("intersect", "ℓl", "⊙O", "T")),  # another kind
        (rel("perpendicular", "AB", "CD"), rel("parallel", "AB", "CD")),
    ],
)
def test_anything_else_that_differs_is_not(reference: Keypoint, candidate: Keypoint) -> None:
    assert not _loosely_same(reference, candidate)


def test_a_reference_that_never_names_its_circle_recalls_a_candidate_that_does() -> None:
    reference = "The line l is tangent to the circle at T."
    candidate = "The line l touches circle C at the point T."
    assert keypoints.score_captions(candidate, reference).recall["relation"] == 1.0
    assert keypoints.score_captions(reference, candidate).recall["relation"] == 1.0


def test_a_loose_match_is_one_to_one_and_not_extra() -> None:
    reference = "Line l is tangent to the circle at T."
    candidate = "Line l is tangent to circle O at T. Line l is tangent to circle O at S."
    result = keypoints.score_captions(candidate, reference)
    assert result.recall["relation"] == 1.0
    scores = {s.dimension: s for s in result.scores}
    assert [k.args for k in scores[RELATION].extra] == [("ℓl", "⊙O", "S")]
