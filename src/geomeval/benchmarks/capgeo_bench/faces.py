"""The `evaluate` face of each task (`FACES`, the declaration's evaluation part): which
module under metrics/ computes it and how a run's records become its inputs. Kept apart from
`evaluation` (the modules' backend, which scores through the benchmark), so that the
declaration imports no module that imports it back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.records import SampleRecord
from ..base import EvaluateFace, face_predictions
from . import scoring

# --- the run's records, as the face takes them ------------------------------------------------


def run_inputs(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """`evaluate_captions`' keywords for the records of one offline `geomeval run capgeo_bench`
    (one task: one language)."""
    return {
        "predictions": face_predictions(records),
        "references": [r.target["caption"] for r in records],
        "language": records[0].target["language"] if records else "auto",
        "classes": [r.meta["class"] for r in records],
        "difficulties": [r.meta["difficulty"] for r in records],
    }


# The judge engine's metrics need a live judge: the offline ones are what a run without one agrees on.
FACES = {task: EvaluateFace("capgeo_keypoints", run_inputs, scoring.OFFLINE_METRICS)
         for task in ("capgeo_bench", "capgeo_bench_zh")}
