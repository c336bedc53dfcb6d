"""The wider keypoint development set (tests/data/keypoints_wide/) and the recorded held-out split.

The wider set was written after the engine's rules, in styles the first set lacks (prose,
terse lists, LaTeX, mixed Chinese and English, relations stated indirectly, negations), and
annotated by docs/keypoint_annotation_guide.md. bench/keypoints_agreement.py reports the
engine's held-out and cross-validated error on both sets; these tests keep the data honest
(well formed, split as recorded) and hold the engine to the limits the card states.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from test_keypoints_dev import dev_pairs

from geomeval.keypoints import DIMENSIONS, parse_caption, score_captions, to_text

DATA = Path(__file__).parents[1] / "data"
sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))


def set_pairs(name: str) -> list[dict]:
    """The pairs of `tests/data/keypoints_<name>/`, every JSON Lines file in name order."""
    return [json.loads(line) for path in sorted((DATA / f"keypoints_{name}").glob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def assert_recalls_follow_from_misses(row: dict) -> None:
    """Each dimension's missed keypoints are the reference's, listed once, and its recall is
    1 - missed/total (None where the reference states nothing)."""
    for dim in DIMENSIONS:
        keypoints, missed = row["reference_keypoints"][dim], row["missed"][dim]
        assert set(missed) <= set(keypoints) and len(set(keypoints)) == len(keypoints), row["id"]
        expected = (len(keypoints) - len(missed)) / len(keypoints) if keypoints else None
        assert (expected is None) == (row["recall"][dim] is None), row["id"]
        assert expected is None or abs(expected - row["recall"][dim]) < 1e-3, row["id"]


def wide_pairs() -> list[dict]:
    return set_pairs("wide")


def test_wide_set_is_well_formed_and_varied() -> None:
    rows = wide_pairs()
    assert len(rows) >= 150
    assert len({r["id"] for r in rows}) == len(rows)
    assert not {r["id"] for r in rows} & {r["id"] for r in dev_pairs()}
    assert {"prose", "terse", "latex", "mixed", "indirect", "negation"} <= {r["style"] for r in rows}
    assert {r["class"] for r in rows} == {"plane", "analytic", "solid"}
    for row in rows:
        assert row["candidate"] != row["reference"], row["id"]
        assert_recalls_follow_from_misses(row)


def fresh_pairs() -> list[dict]:
    return set_pairs("fresh")


def test_fresh_set_is_well_formed_new_and_in_every_style() -> None:
    """The fresh set (written before the later rule changes, all held out) is annotated like
    the others, shares no id with them, and covers every style, class and both languages."""
    rows = fresh_pairs()
    assert len(rows) >= 60
    ids = {r["id"] for r in rows}
    assert len(ids) == len(rows) and not ids & {r["id"] for r in dev_pairs() + wide_pairs()}
    assert {"prose", "terse", "latex", "mixed", "indirect", "negation"} <= {r["style"] for r in rows}
    assert {r["class"] for r in rows} == {"plane", "analytic", "solid"} and {r["language"] for r in rows} == {"en", "zh"}
    for row in rows:
        assert row["candidate"] != row["reference"], row["id"]
        assert_recalls_follow_from_misses(row)


def fresh2_pairs() -> list[dict]:
    return set_pairs("fresh2")


def test_second_fresh_set_is_well_formed_new_and_in_every_style() -> None:
    """The second fresh set (annotated before the engine ran on it) shares no id with the other
    sets, covers every style, class and both languages, and its recalls follow from its misses."""
    rows = fresh2_pairs()
    assert len(rows) >= 60
    ids = {r["id"] for r in rows}
    assert len(ids) == len(rows) and not ids & {r["id"] for r in dev_pairs() + wide_pairs() + fresh_pairs()}
    assert {"prose", "terse", "latex", "mixed", "indirect", "negation"} <= {r["style"] for r in rows}
    assert {r["class"] for r in rows} == {"plane", "analytic", "solid"} and {r["language"] for r in rows} == {"en", "zh"}
    for row in rows:
        assert row["candidate"] != row["reference"], row["id"]
        assert_recalls_follow_from_misses(row)


def indep_pairs() -> list[dict]:
    return set_pairs("indep")


def test_independent_set_is_well_formed_new_and_in_every_style() -> None:
    """The independent set (written from the guide alone) shares no id with the other sets,
    covers every style, class and both languages, and its recalls follow from its misses."""
    rows = indep_pairs()
    assert len(rows) == 75
    ids = {r["id"] for r in rows}
    assert len(ids) == len(rows) and not ids & {r["id"] for r in dev_pairs() + wide_pairs() + fresh_pairs() + fresh2_pairs()}
    assert {"prose", "terse", "latex", "mixed", "indirect", "negation"} <= {r["style"] for r in rows}
    assert {r["class"] for r in rows} == {"plane", "analytic", "solid"} and {r["language"] for r in rows} == {"en", "zh"}
    for row in rows:
        assert_recalls_follow_from_misses(row)


def indep2_pairs() -> list[dict]:
    return set_pairs("indep2")


def test_second_independent_set_is_well_formed_and_new() -> None:
    """The second independent set shares no id with the other sets (the bench keys results by id),
    covers every style, class and both languages, and its recalls follow from its misses."""
    rows = indep2_pairs()
    assert len(rows) == 80
    ids = {r["id"] for r in rows}
    others = dev_pairs() + wide_pairs() + fresh_pairs() + fresh2_pairs() + indep_pairs()
    assert len(ids) == len(rows) and not ids & {r["id"] for r in others}
    assert {"prose", "terse", "latex", "mixed", "indirect", "negation"} <= {r["style"] for r in rows}
    assert {r["class"] for r in rows} == {"plane", "analytic", "solid"} and {r["language"] for r in rows} == {"en", "zh"}
    for row in rows:
        assert_recalls_follow_from_misses(row)


@pytest.mark.parametrize(("name", "count"), [("h3", 76), ("h4", 76), ("h5", 96), ("h6", 82), ("h7", 88), ("h8", 80)])
def test_third_and_fourth_independent_sets_are_well_formed_and_new(name: str, count: int) -> None:
    """The sets written blind for rounds 5 to 7 of #41 (and h7, h8, never read) share no id with the other sets, cover every
    style, class and both languages, and their recalls follow from their misses."""
    rows = set_pairs(name)
    assert len(rows) == count
    ids = {r["id"] for r in rows}
    others = dev_pairs() + wide_pairs() + fresh_pairs() + fresh2_pairs() + indep_pairs() + indep2_pairs()
    others += [r for other in ("h3", "h4", "h5", "h6", "h7", "h8") if other != name for r in set_pairs(other)]
    assert len(ids) == len(rows) and not ids & {r["id"] for r in others}
    assert {"prose", "terse", "latex", "mixed", "indirect", "negation"} <= {r["style"] for r in rows}
    assert {r["class"] for r in rows} == {"plane", "analytic", "solid"} and {r["language"] for r in rows} == {"en", "zh"}
    for row in rows:
        assert_recalls_follow_from_misses(row)


def test_split_is_the_recorded_one_and_holds_out_a_third_of_the_wider_set() -> None:
    recorded = json.loads((DATA / "keypoints_split.json").read_text(encoding="utf-8"))
    ids = [r["id"] for r in dev_pairs() + wide_pairs()]
    held = sorted(i for i in ids if int(hashlib.sha1(i.encode()).hexdigest(), 16) % 3 == 0)
    assert recorded["heldout"] == held
    assert sorted(recorded["tuning"]) == sorted(set(ids) - set(held))
    wide_held = [r for r in wide_pairs() if r["id"] in set(held)]
    assert len(wide_held) * 3 >= len(wide_pairs())


def test_negated_relations_are_not_recalled() -> None:
    """A candidate that denies a reference relation never gets it (the negation family)."""
    rows = [r for r in wide_pairs() + fresh_pairs() + indep_pairs() if r["style"] == "negation" and r["recall"]["relation"] == 0.0]
    assert rows
    for r in rows:
        assert score_captions(r["candidate"], r["reference"]).recall["relation"] == 0.0, r["id"]


def test_held_out_agreement_is_at_least_what_the_card_states() -> None:
    """Every set keeps the agreement the CapGeo-Bench card reports. All of them were read in
    round 4 of #41 (development figures now, no longer unseen): the held-out part of both sets
    <= 0.01 overall and on relations, the wider set's held-out third <= 0.015 overall, <= 0.01
    on relations, the fresh set <= 0.01 and <= 0.012, the second fresh set <= 0.012 and <= 0.02,
    the independent set <= 0.01 and <= 0.012, the second independent set <= 0.012 and <= 0.025,
    and the sets written blind for round 5 (read in it): h3 <= 0.012 and <= 0.025, h4 <= 0.04 and
    <= 0.075; the set written blind for round 6 (read in it): h5 <= 0.012 and <= 0.012; for round 7
    (read in it): h6 <= 0.012 and <= 0.012."""
    import keypoints_agreement as bench

    rows = [r for r in bench.load_pairs() if bench.is_heldout(r["id"])]
    got = {r["id"]: bench.engine_recall(r) for r in rows}
    both = bench.mae(rows, got)
    wide = bench.mae([r for r in rows if r["set"] == "wide"], got)
    assert both["overall"][1] <= 0.01 and both["relation"][1] <= 0.01, both
    assert wide["overall"][1] <= 0.015 and wide["relation"][1] <= 0.01, wide
    fresh = bench.load_fresh()
    assert len(fresh) == len(fresh_pairs())
    got.update({r["id"]: bench.engine_recall(r) for r in fresh})
    fresh_mae = bench.mae(fresh, got)
    assert fresh_mae["overall"][1] <= 0.01 and fresh_mae["relation"][1] <= 0.012, fresh_mae
    fresh2 = bench.load_fresh(bench.FRESH2, "fresh2")
    assert len(fresh2) == len(fresh2_pairs())
    got.update({r["id"]: bench.engine_recall(r) for r in fresh2})
    fresh2_mae = bench.mae(fresh2, got)
    assert fresh2_mae["overall"][1] <= 0.012 and fresh2_mae["relation"][1] <= 0.02, fresh2_mae
    indep = bench.load_fresh(bench.INDEP, "indep")
    assert len(indep) == len(indep_pairs())
    got.update({r["id"]: bench.engine_recall(r) for r in indep})
    indep_mae = bench.mae(indep, got)
    assert indep_mae["overall"][1] <= 0.01 and indep_mae["relation"][1] <= 0.012, indep_mae
    indep2 = bench.load_fresh(bench.INDEP2, "indep2")
    assert len(indep2) == len(indep2_pairs())
    got.update({r["id"]: bench.engine_recall(r) for r in indep2})
    indep2_mae = bench.mae(indep2, got)
    assert indep2_mae["overall"][1] <= 0.012 and indep2_mae["relation"][1] <= 0.025, indep2_mae
    # the sets written blind for round 5 (read in that round): h3 0.008 / 0.017, h4 0.028 / 0.060;
    # for round 6 (read in it): h5 0.001 / 0.000 (0.091 / 0.162 when first measured, unseen);
    # for round 7 (read in it): h6 0.001 / 0.000 (0.071 / 0.153 when first measured, unseen)
    for folder, name, overall, relation, count in ((bench.H3, "h3", 0.012, 0.025, 76), (bench.H4, "h4", 0.04, 0.075, 76),
                                                   (bench.H5, "h5", 0.012, 0.012, 96), (bench.H6, "h6", 0.012, 0.012, 82)):
        blind = bench.load_fresh(folder, name)
        assert len(blind) == count
        got.update({r["id"]: bench.engine_recall(r) for r in blind})
        blind_mae = bench.mae(blind, got)
        assert blind_mae["overall"][1] <= overall and blind_mae["relation"][1] <= relation, (name, blind_mae)


def test_agreement_on_the_sets_nobody_read_is_what_the_card_states() -> None:
    """h7 and h8 were written blind and measured, never read, while the rules changed: the
    engine's agreement on captions nobody tuned on, which #41 asks to be <= 0.10 overall and
    <= 0.15 on relations. After round 7: h7 0.050 / 0.102, h8 0.071 / 0.128 (limits a little above)."""
    import keypoints_agreement as bench

    for folder, name, overall, relation, count in ((bench.H7, "h7", 0.06, 0.11, 88), (bench.H8, "h8", 0.08, 0.135, 80)):
        unseen = bench.load_fresh(folder, name)
        assert len(unseen) == count
        got = {r["id"]: bench.engine_recall(r) for r in unseen}
        unseen_mae = bench.mae(unseen, got)
        assert unseen_mae["overall"][1] <= overall and unseen_mae["relation"][1] <= relation, (name, unseen_mae)


@pytest.mark.parametrize(("caption", "expected"), [
    ("In triangle ABC, AD bisects ∠BAC and meets BC at D.", {"D on BC"}),  # guide rule 8: D ends AD
    ("EG平分∠BEF，交CD于点G。", {"G on CD"}),
    ("The transversal t intersects m and n at A and B respectively.", {"ℓm ∩ ℓt at A", "ℓn ∩ ℓt at B"}),
    ("直线EF分别交AB、CD于点E、F。", {"E on AB", "F on CD"}),
    ("From D a perpendicular is dropped to side AC, meeting it at E.", {"AC ⊥ DE", "E foot AC"}),
    ("A perpendicular AH is dropped from A to BC, landing at H.", {"AH ⊥ BC", "H foot BC"}),
    ("从点O向BC作垂线OE，垂足是E。", {"BC ⊥ EO", "E foot BC"}),
    ("O is joined to A, to B and to P.", {"segment AO", "segment BO", "segment OP"}),
    ("AB and AC, each of length 10.", {"AB = 10", "AC = 10"}),
    ("⊙O, radius 5; A, B on ⊙O.", {"A on ⊙O", "B on ⊙O"}),
    ("Line l1 passes through A(1, 3) and B(3, 7).", {"A on ℓl1", "B on ℓl1"}),
    ("正方形ABCD，边长4。", {"side length of ABCD = 4"}),
    ("直线l:y=x与圆C交于M、N两点。", {"ℓl ∩ ⊙C at M", "ℓl ∩ ⊙C at N"}),
    ("The incircle of triangle ABC, centred at I, touches BC at D, CA at E and AB at F.",
     {"BC tangent to ⊙I at D", "AC tangent to ⊙I at E", "AB tangent to ⊙I at F", "⊙I inscribed ABC"}),
    ("Circle I is drawn. It has exactly one point in common with BC, namely D.", {"BC tangent to ⊙I at D"}),
    ("Ellipse x^2/4 + y^2/3 = 1 with foci F1 and F2; P lies on the ellipse.",
     {"F1 focus ellipse", "F2 focus ellipse", "P on ellipse"}),
    ("椭圆x²/4+y²/3=1的左、右焦点分别为F1、F2，点P在椭圆上。", {"F1 focus ellipse", "F2 focus ellipse", "P on ellipse"}),
    ("The parabola y = x^2 - 2x - 3 meets the x-axis at A and B, and D is its vertex.",
     {"A on x-axis", "B on x-axis", "D vertex parabola"}),
])
def test_wordings_settled_by_the_independent_set(caption: str, expected: set[str]) -> None:
    """General wordings (not one pair's) the independent set showed the engine missing."""
    assert expected <= {to_text(k) for k in parse_caption(caption)}


@pytest.mark.parametrize(("caption", "expected"), [
    ("Two circles are concentric; the larger has radius 5 and the smaller has radius 3.", {"radius of ⊙⁺ = 5", "radius of ⊙⁻ = 3"}),
    ("Circles A and B, centred at A and B, both have radius 6.", {"radius of ⊙A = 6", "radius of ⊙B = 6"}),
    ("M lies on BC and is equidistant from B and C.", {"M on BC", "BM = CM"}),
    ("O is 3 away from both A and C.", {"AO = 3", "CO = 3", "AO = CO"}),
    # every vertex on the circle: the one keypoint *inscribed* (settled after h3/h4), each vertex following from it
    ("Quadrilateral ABCD, $A, B, C, D \\in \\odot O$.", {"ABCD inscribed ⊙O"}),
    ("Triangle ABC has its vertices A, B and C all on circle O.", {"ABC inscribed ⊙O"}),
    ("Triangle ABC is given. Its incircle, circle I, meets side BC only at D, side CA only at E, and side AB only at F.",
     {"BC tangent to ⊙I at D", "AC tangent to ⊙I at E", "AB tangent to ⊙I at F", "⊙I inscribed ABC"}),
    ("Line l: 3x + 4y = 25 touches circle O at T(3, 4).", {"ℓl tangent to ⊙O at T"}),
    ("Line l: y = x + 1 meets circle C at A and B.", {"ℓl ∩ ⊙C at A", "ℓl ∩ ⊙C at B"}),
    ("The line l, with equation y = 2x − 1, crosses the x-axis at the point A.", {"x-axis ∩ ℓl at A"}),
    ("$l: 3x + 4y = 25$ and $l \\cap \\odot O = \\{T\\}$ only.", {"ℓl tangent to ⊙O at T"}),
    ("过点P作⊙O的切线PT，切点为T。", {"point P", "PT tangent to ⊙O at T"}),
    ("由点D分别向AB、AC作垂线，垂足分别为E、F。", {"AB ⊥ DE", "E foot AB", "AC ⊥ DF", "F foot AC"}),
    ("F既在AE上又在BD上。", {"AE ∩ BD at F"}),
    ("正方体ABCD-A1B1C1D1；连PC、BD1。", {"segment CP", "segment BD1"}),
    ("直线l: y=2x-1 与x轴交于点A。", {"x-axis ∩ ℓl at A"}),
    ("$t \\cap l = \\{P\\}$, $t \\cap m = \\{Q\\}$", {"ℓl ∩ ℓt at P", "ℓm ∩ ℓt at Q"}),
    ("Point E bisects the vertical edge CC1.", {"E midpoint CC1"}),
    ("We join A to E and B to D1.", {"segment AE", "segment BD1"}),
    ("Triangle ABC has base BC of 12.", {"BC = 12"}),
    ("Two circles, one centred at A and one centred at B, each with radius 6, are drawn.",
     {"circle ⊙A", "circle ⊙B", "radius of ⊙A = 6", "radius of ⊙B = 6"}),
    ("AB是⊙O的直径，长为10；C、D两点都在⊙O上。", {"AB = 10", "C on ⊙O", "D on ⊙O"}),
])
def test_wordings_settled_by_the_second_independent_set(caption: str, expected: set[str]) -> None:
    """General wordings (classes, not one pair's words) the second independent set showed missing."""
    assert expected <= {to_text(k) for k in parse_caption(caption)}


def test_second_independent_set_conventions() -> None:
    """Guide, settled after the second independent set: coordinates do not place a point on an axis;
    all vertices on a circle state the inscription; an unattached `r = 5` is the one circle's radius;
    a tangency written as one common point is tangency, and its denial is not."""
    assert "A on x-axis" not in {to_text(k) for k in parse_caption("A(-2, 0), B(4, 0); M midpoint of AB.")}
    reference = "Triangle ABC is inscribed in circle O."
    assert score_captions("Triangle ABC has its vertices A, B and C all on circle O.", reference).recall["relation"] == 1.0
    assert score_captions("Triangle ABC; A and B lie on circle O.", reference).recall["relation"] == 0.0
    assert score_captions("Circle O, $r = 5$.", "The radius of circle O is 5.").recall["numerical"] == 1.0
    tangent = "Line l: 3x + 4y = 25 touches circle O at T(3, 4)."
    assert score_captions("$l: 3x + 4y = 25$ and $l \\cap \\odot O = \\{T\\}$ only, $T(3,4)$.", tangent).recall["relation"] == 1.0
    assert score_captions("Line l: 3x + 4y = 25 passes through T(3, 4) but does not touch circle O.", tangent).recall["relation"] == 0.0


def test_no_stray_place_after_a_list_of_meeting_points() -> None:
    """`... at A and B, and D is its vertex`: D is the vertex, not a third point on the axis."""
    got = {to_text(k) for k in parse_caption("The parabola y = x^2 - 2x - 3 meets the x-axis at A and B, and D is its vertex.")}
    assert "D on x-axis" not in got


def test_perpendicular_bisector_is_covered_by_its_definition() -> None:
    reference = "Line l is the perpendicular bisector of AB."
    assert score_captions("M is the midpoint of AB, and line l passes through M with l ⊥ AB.", reference).recall["relation"] == 1.0
    assert score_captions("Line l ⊥ AB.", reference).recall["relation"] == 0.0
    assert score_captions(reference, "Line l ⊥ AB.").recall["relation"] == 1.0


def test_a_name_written_in_a_denied_clause_still_covers_its_segment() -> None:
    """Guide: a negated relation states nothing, but a two-letter name written in it is written."""
    got = score_captions("AB is not parallel to CD.", "Segment AB and segment CD are drawn. AB ∥ CD.").recall
    assert got["element"] == 1.0 and got["relation"] == 0.0
    assert score_captions("AB与CD不平行。", "线段AB、CD。AB∥CD。").recall["element"] == 1.0
