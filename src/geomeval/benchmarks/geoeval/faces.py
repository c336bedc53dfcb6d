"""The `evaluate` face of each task (`FACES`, the declaration's evaluation part): which
module under metrics/ computes it and how a run's records become its inputs. Kept apart from
`evaluation` (the modules' backend, which scores through the benchmark), so that the
declaration imports no module that imports it back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.records import SampleRecord
from ..base import EvaluateFace, face_predictions
from .features import SUBSETS

# --- the run's records, as the face takes them ------------------------------------------------


def run_inputs(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """`evaluate_accuracy`'s keywords for the records of one offline `geomeval run geoeval`
    (rules extraction: the judge's needs a live judge)."""
    return {
        "predictions": face_predictions(records),
        "references": [r.target["answer"] for r in records],
        "choices": [r.target["choices"] for r in records],
        "text_only": [not r.meta["has_diagram"] for r in records],
        "subsets": [r.task for r in records],
        "problems": [r.target["problem"] for r in records],
    }


FACES = {task: EvaluateFace("geoeval_accuracy", run_inputs, ("A", "T")) for task in SUBSETS}
