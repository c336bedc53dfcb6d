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

# --------------------------------------------------------------------------- a run's records


def accuracy_inputs(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """`evaluate_accuracy`'s keywords for the records of one offline `geomeval run me2`
    (me2_solve or me2_keypoints; the answer judge needs a live judge)."""
    task = records[0].task if records else "me2_solve"
    keypoints = task == "me2_keypoints"
    return {
        "predictions": face_predictions(records),
        "references": [r.target["keypoint_answer" if keypoints else "answer"] for r in records],
        "task": task,
        "question_formats": [r.target["question_format"] for r in records],
        "domains": [r.meta["domain"] for r in records],
        "option_sources": [r.target["option_sources"] for r in records] if keypoints else None,
        "problems": [r.target["problem"] for r in records],
    }


def explanation_inputs(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """`evaluate_explanations`' keywords for the records of one offline `geomeval run me2
    --task me2_explain` (the rubric's judge needs a live judge)."""
    return {
        "predictions": face_predictions(records),
        "references": [r.target["reference"] for r in records],
        "keypoints": [r.target["keypoints"] for r in records],
        "answers": [r.target["answer"] for r in records],
        "problems": [r.target["problem"] for r in records],
        "domains": [r.meta["domain"] for r in records],
    }


FACES = {
    **{task: EvaluateFace("me2_accuracy", accuracy_inputs, (scoring.ACCURACY,)) for task in ("me2_solve", "me2_keypoints")},
    "me2_explain": EvaluateFace("me2_explanation", explanation_inputs, scoring.TEXT_METRICS + scoring.BERT_METRICS),
}
