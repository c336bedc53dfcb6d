"""GeoLaux's process metrics over lists of step judgments, for the `evaluate` module
`metrics/geolaux_process` (which only calls `evaluate_judgments`).

Unlike the other benchmarks' faces, this one takes judgments, not responses: GeoLaux's
scores are aggregates of a judge's per-step marks, so there is no record to score, and the
face checks its inputs (naming the item and the column) and summarizes them with
`process_metrics.summarize_process`, the function the runner and the lmms-eval task use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..base import NoEvaluateFace
from .features import TYPES
from .process_metrics import ERROR_TYPES, check_marks, summarize_process


def evaluate_judgments(
    predictions: Sequence[Sequence[int] | None],
    references: Sequence[int],
    *,
    step_buckets: Sequence[str | None] | None = None,
    types: Sequence[str | None] | None = None,
    error_types: Sequence[str | None] | None = None,
) -> dict[str, Any]:
    """ACS, PCS and PQS (and the breakdowns the optional columns allow) of `predictions`,
    each item's 0/1 step marks, and `references`, its final-answer judgment."""
    check_inputs(predictions, references, step_buckets=step_buckets, types=types, error_types=error_types)
    return summarize_process(
        predictions,  # type: ignore[arg-type]  # check_inputs refused None
        references, buckets=step_buckets, types=types, error_types=error_types,
    )


def check_inputs(
    predictions: Sequence[Sequence[int] | None],
    references: Sequence[int],
    *,
    step_buckets: Sequence[str | None] | None = None,
    types: Sequence[str | None] | None = None,
    error_types: Sequence[str | None] | None = None,
) -> None:
    """Reject bad judgments with the item index and the field (in the `evaluate` module's names:
    `predictions` are step marks, `references` final-answer judgments)."""
    if len(predictions) != len(references):
        raise ValueError(f"predictions has {len(predictions)} items but references has {len(references)}")
    for index, (marks, final) in enumerate(zip(predictions, references, strict=True)):
        if isinstance(final, bool) or final not in (0, 1):
            raise ValueError(f"item {index}, references: final-answer judgment must be 0 or 1, got {final!r}")
        if marks is None or isinstance(marks, str):
            raise ValueError(f"item {index}, predictions: expected a list of 0/1 step marks, got {marks!r}")
        try:
            check_marks(marks)
        except ValueError as error:
            raise ValueError(f"item {index}, predictions: {error}") from None
    allowed_values: dict[str, tuple[str, ...] | None] = {
        "step_buckets": None, "types": TYPES, "error_types": ERROR_TYPES,
    }
    columns = {"step_buckets": step_buckets, "types": types, "error_types": error_types}
    for name, column in columns.items():
        if column is None:
            continue
        if isinstance(column, str) or len(column) != len(predictions):
            got = "a string" if isinstance(column, str) else f"a list of {len(column)}"
            raise ValueError(f"{name}: expected one entry per item ({len(predictions)} items), got {got}")
        allowed = allowed_values[name]
        for index, value in enumerate(column):
            if value is not None and (not isinstance(value, str) or not value or (allowed and value not in allowed)):
                expected = f"one of {', '.join(allowed)}" if allowed else "a bucket label"
                raise ValueError(f"item {index}, {name}: expected {expected} or None, got {value!r}")


# The module takes judgments, not responses: the step judge's marks, which only a run with a
# live judge has (an offline run, the contract test's, leaves PCS and PQS needing a judge and
# decides ACS with the answer checker, from no marks).
_NEEDS_JUDGE = NoEvaluateFace(
    "metrics/geolaux_process takes the step judge's per-step marks and final-answer judgments, "
    "which only a run with a live judge has; tests/faces/test_metric_geolaux_process.py holds "
    "the module to process_metrics.summarize_process, the runner's own summary"
)
FACES = {"geolaux": _NEEDS_JUDGE, "geolaux_aux": _NEEDS_JUDGE}
