"""The offline keypoint engine against a hand-annotated development set (docs/keypoint_annotation_guide.md).

tests/data/keypoints_dev/*.jsonl: reference and candidate captions written for this set
(plane, analytic, solid; English and Chinese; paraphrases, omissions, wrong values, extra
facts, derived facts, named figures), each reference annotated with its canonical keypoints
and each candidate with the reference keypoints it misses, so the expected per-dimension
recall follows from the annotation. The engine must agree with it to within 0.05 mean
absolute error per dimension; the per-dimension agreement is what the CapGeo-Bench card reports.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geomeval.keypoints import DIMENSIONS, score_captions

DEV = Path(__file__).parents[1] / "data" / "keypoints_dev"
MAE_LIMIT = 0.05


def dev_pairs() -> list[dict]:
    rows = []
    for path in sorted(DEV.glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows


def engine_recalls(row: dict) -> dict[str, float | None]:
    return score_captions(row["candidate"], row["reference"]).recall


def agreement(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Per dimension: items with an annotated recall, mean |engine - annotation| (an engine N/A
    counts as 0), and the share within 0.05."""
    out: dict[str, dict[str, float]] = {}
    recalls = [engine_recalls(r) for r in rows]
    for dim in DIMENSIONS:
        diffs = [abs((got[dim] or 0.0) - row["recall"][dim]) for row, got in zip(rows, recalls, strict=True)
                 if row["recall"][dim] is not None]
        out[dim] = {"n": len(diffs), "mae": sum(diffs) / len(diffs), "within_005": sum(d <= 0.05 for d in diffs) / len(diffs)}
    return out


def test_development_set_is_well_formed() -> None:
    rows = dev_pairs()
    assert len(rows) >= 150
    assert len({r["id"] for r in rows}) == len(rows)
    assert {r["language"] for r in rows} == {"en", "zh"} and {r["class"] for r in rows} == {"plane", "analytic", "solid"}
    assert {"paraphrase", "omission", "wrong_value", "extra", "derived", "named_figure"} <= {r["family"] for r in rows}
    for row in rows:
        assert row["candidate"] != row["reference"], row["id"]
        for dim in DIMENSIONS:
            keypoints, missed = row["reference_keypoints"][dim], row["missed"][dim]
            assert set(missed) <= set(keypoints) and len(set(keypoints)) == len(keypoints), row["id"]
            expected = (len(keypoints) - len(missed)) / len(keypoints) if keypoints else None
            assert (expected is None) == (row["recall"][dim] is None), row["id"]
            assert expected is None or abs(expected - row["recall"][dim]) < 1e-3, row["id"]


def test_engine_agrees_with_the_annotation_per_dimension() -> None:
    rows = dev_pairs()
    stats = agreement(rows)
    for dim, s in stats.items():  # shown with `pytest -s -k dev`
        print(f"{dim:9s} n={s['n']:3.0f} MAE {s['mae']:.3f} within 0.05: {s['within_005']:.1%}")
    worst = sorted(rows, key=lambda r: -max(abs((v or 0.0) - (r['recall'][d] or 0.0))
                                           for d, v in engine_recalls(r).items() if r["recall"][d] is not None))[:8]
    detail = "\n".join(f"{r['id']}: {engine_recalls(r)} vs {r['recall']}" for r in worst)
    for dim in DIMENSIONS:
        assert stats[dim]["mae"] <= MAE_LIMIT, (dim, stats, detail)


@pytest.mark.parametrize("family", ["paraphrase", "derived", "named_figure", "cross_language"])
def test_a_caption_stating_everything_is_recalled_in_full(family: str) -> None:
    """Captions that miss nothing (by annotation) get recall 1 in nearly every dimension."""
    rows = [r for r in dev_pairs() if r["family"] == family and not any(r["missed"].values())]
    full = [all(v in (None, 1.0) for v in engine_recalls(r).values()) for r in rows]
    assert rows and sum(full) / len(full) >= 0.85, [r["id"] for r, ok in zip(rows, full, strict=True) if not ok]
