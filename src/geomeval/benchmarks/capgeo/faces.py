"""The `evaluate` face of each task (`FACES`, the declaration's evaluation part): which
module under metrics/ computes it and how a run's records become its inputs. Kept apart from
`evaluation` (the modules' backend, which scores through the benchmark), so that the
declaration imports no module that imports it back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.records import SampleRecord
from ..base import EvaluateFace, face_predictions
from .scoring import METRICS

# --- the run's records, as the face takes them ------------------------------------------------


def run_inputs(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """`evaluate_accuracy`'s keywords for the records of one `geomeval run capgeo` (one mode)."""
    mode = records[0].target["mode"] if records else "direct"
    return {
        "predictions": face_predictions(records),
        "references": [r.target["answer"] for r in records],
        "choices": [r.target["choices"] for r in records],
        "units": [r.target.get("unit") for r in records],
        "mode": mode,
        "captions": None if mode == "direct" else [r.target.get("caption") for r in records],
        "question_types": [r.meta["question_type"] for r in records],
        "subjects": [r.meta.get("subject") for r in records],
    }


FACES = {task: EvaluateFace("capgeo_accuracy", run_inputs, METRICS) for task in ("capgeo_reasoning",)}
