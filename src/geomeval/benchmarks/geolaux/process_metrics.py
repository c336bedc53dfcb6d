"""GeoLaux's process metrics from step judgments: ACS, PCS, PQS and their breakdowns.

Pure functions over plain values, so the runner, the `evaluate` module (through
`evaluation`) and the lmms-eval task compute the published numbers with one implementation:

- ACS per item: the final-answer judgment (1/0).
- PCS per item: 1 when every step and the final answer are judged correct.
- PQS per item: tanh(3.5·(S − 1)) + 1, where S = Σ wᵢ·sᵢ / Σ wᵢ with wᵢ = e^(−i/n)
  over the n judged steps (n = 1 gives S = s₁; no steps gives S = 0). Early steps
  weigh more, because an early mistake derails everything after it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .features import STEP_BUCKETS

ERROR_TYPES = ("figure_comprehension", "knowledge", "calculation", "logical_reasoning")
BUCKET_NAMES = tuple(f"{low}-{high}" for low, high in STEP_BUCKETS)


def check_marks(marks: Sequence[int]) -> list[int]:
    checked = []
    for index, mark in enumerate(marks, 1):
        if isinstance(mark, bool) or mark not in (0, 1):
            raise ValueError(f"step {index}: judgment must be 0 or 1, got {mark!r}")
        checked.append(int(mark))
    return checked


def weighted_step_score(marks: Sequence[int]) -> float:
    """S: the step marks averaged with weights e^(−i/n), i = 1..n."""
    marks = check_marks(marks)
    n = len(marks)
    if n == 0:
        return 0.0
    weights = [math.exp(-i / n) for i in range(1, n + 1)]
    return sum(w * s for w, s in zip(weights, marks, strict=True)) / sum(weights)


def pqs(marks: Sequence[int]) -> float:
    """Process quality score of one solution: tanh(3.5·(S − 1)) + 1, in [0, 1]. As in the
    official script, a solution of one step scores its mark (0 or 1) and one with no steps 0
    (the formula alone would give tanh(−3.5) + 1 ≈ 0.0018 to both)."""
    marks = check_marks(marks)
    if len(marks) <= 1:
        return float(marks[0]) if marks else 0.0
    return math.tanh(3.5 * (weighted_step_score(marks) - 1.0)) + 1.0


def pcs(marks: Sequence[int], final_correct: int) -> float:
    """1.0 when the solution has steps, all judged correct, and a correct final answer."""
    marks = check_marks(marks)
    final = check_marks([final_correct])[0]
    return 1.0 if marks and all(marks) and final else 0.0


def first_error_step(marks: Sequence[int]) -> int | None:
    """The 1-based index of the first step judged wrong, or None when all are right."""
    for index, mark in enumerate(check_marks(marks), 1):
        if not mark:
            return index
    return None


def item_scores(marks: Sequence[int], final_correct: int) -> dict[str, float]:
    return {
        "ACS": float(check_marks([final_correct])[0]),
        "PCS": pcs(marks, final_correct),
        "PQS": pqs(marks),
    }


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize_process(
    step_marks: Sequence[Sequence[int]],
    final_correct: Sequence[int],
    *,
    buckets: Sequence[str | None] | None = None,
    types: Sequence[str | None] | None = None,
    error_types: Sequence[str | None] | None = None,
) -> dict[str, Any]:
    """Means of ACS/PCS/PQS over judged items, with the paper's breakdowns.

    `buckets` are the reference solutions' step-length buckets ("1-4", …), `types`
    the problem types ("calculation"/"proving"), `error_types` the class of each
    item's first wrong step (None where there is none or it was not classified).
    """
    n = len(step_marks)
    if len(final_correct) != n:
        raise ValueError(f"final_correct has {len(final_correct)} entries for {n} step judgments")
    for name, column in (("buckets", buckets), ("types", types), ("error_types", error_types)):
        if column is not None and len(column) != n:
            raise ValueError(f"{name} has {len(column)} entries for {n} step judgments")
    per_item = [item_scores(m, f) for m, f in zip(step_marks, final_correct, strict=True)]
    summary: dict[str, Any] = {
        metric: _mean([s[metric] for s in per_item]) for metric in ("ACS", "PCS", "PQS")
    }
    summary["n"] = n

    if buckets is not None:
        by_bucket: dict[str, dict[str, Any]] = {}
        order = list(BUCKET_NAMES) + sorted({b for b in buckets if b and b not in BUCKET_NAMES})
        for bucket in order:
            rows = [s for s, b in zip(per_item, buckets, strict=True) if b == bucket]
            if rows:
                by_bucket[bucket] = {
                    **{m: _mean([r[m] for r in rows]) for m in ("ACS", "PCS", "PQS")},
                    "n": len(rows),
                }
        summary["by_step_bucket"] = by_bucket
        summary["delta_pcs"] = delta_pcs({k: v["PCS"] for k, v in by_bucket.items()})

    if types is not None:
        by_type: dict[str, dict[str, Any]] = {}
        for kind in sorted({t for t in types if t}):
            rows = [s for s, t in zip(per_item, types, strict=True) if t == kind]
            acs, pcs_value = _mean([r["ACS"] for r in rows]), _mean([r["PCS"] for r in rows])
            by_type[kind] = {
                "ACS": acs,
                "PCS": pcs_value,
                "PQS": _mean([r["PQS"] for r in rows]),
                "ACS_minus_PCS": acs - pcs_value if acs is not None and pcs_value is not None else None,
                "n": len(rows),
            }
        summary["by_type"] = by_type

    summary["first_error_step"] = first_error_distribution(step_marks)
    if error_types is not None:
        summary["error_types"] = error_type_distribution(error_types)
    return summary


DELTA_FROM, DELTA_TO = BUCKET_NAMES[0], BUCKET_NAMES[-1]


def delta_pcs(pcs_by_bucket: dict[str, float | None]) -> dict[str, Any] | None:
    """The published ΔPCS: the relative drop of PCS from the 1–4-step bucket to the 13–24-step
    bucket, in percent, (PCS₁₋₄ − PCS₁₃₋₂₄) / PCS₁₋₄ × 100 (QvQ: 22.4 → 1.2 gives 94.6;
    positive when PCS drops). None when either bucket is empty or PCS₁₋₄ is 0 (no drop can be
    measured from nothing). Solutions of 0 or over 24 reference steps are in neither bucket."""
    start, end = pcs_by_bucket.get(DELTA_FROM), pcs_by_bucket.get(DELTA_TO)
    if start is None or end is None or start == 0:
        return None
    return {"from": DELTA_FROM, "to": DELTA_TO, "value": (start - end) / start * 100}


def first_error_distribution(step_marks: Sequence[Sequence[int]]) -> dict[str, Any]:
    """How many solutions first go wrong at step 1, 2, …, and how many have no wrong step."""
    counts = Counter(first_error_step(marks) for marks in step_marks)
    with_error = sum(v for k, v in counts.items() if k is not None)
    return {
        "counts": {str(k): counts[k] for k in sorted(k for k in counts if k is not None)},
        "with_error": with_error,
        "without_error": counts.get(None, 0),
    }


def error_type_distribution(error_types: Sequence[str | None]) -> dict[str, Any]:
    """Counts and shares of the classes given (one per item's first wrong step, or one per
    wrong step), among those classified (None is unclassified)."""
    for value in error_types:
        if value is not None and value not in ERROR_TYPES:
            raise ValueError(f"unknown error type {value!r}; expected one of {', '.join(ERROR_TYPES)}")
    counts = Counter(t for t in error_types if t is not None)
    total = sum(counts.values())
    return {
        "counts": {t: counts.get(t, 0) for t in ERROR_TYPES},
        "shares": {t: (counts.get(t, 0) / total if total else None) for t in ERROR_TYPES},
        "classified": total,
    }


def wrong_step_error_distribution(
    step_marks: Sequence[Sequence[int]], step_error_types: Sequence[Sequence[str | None] | None]
) -> dict[str, Any]:
    """The paper's error-type shares: over *every* wrong step of every solution, as the
    official script classifies them. `step_error_types` holds, per solution, the class of
    each wrong step in order (None for the solution, or for a step, left unclassified).
    `needed` counts the wrong steps, `classified` those with a class."""
    if len(step_error_types) != len(step_marks):
        raise ValueError(f"step_error_types has {len(step_error_types)} entries for {len(step_marks)} step judgments")
    classes: list[str | None] = []
    needed = 0
    for index, (marks, types) in enumerate(zip(step_marks, step_error_types, strict=True)):
        wrong = sum(1 for mark in check_marks(marks) if not mark)
        needed += wrong
        if types is None:
            classes += [None] * wrong
            continue
        if len(types) != wrong:
            raise ValueError(f"item {index}: {len(types)} error types for {wrong} wrong steps")
        classes += list(types)
    summary = error_type_distribution(classes)
    summary["needed"] = needed
    return summary
