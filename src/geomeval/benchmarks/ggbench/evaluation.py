"""GGBench's metrics over lists of predictions and references, for the `evaluate` modules
`metrics/ggbench_code` and `metrics/ggbench_image` (which only call these).

Each item is scored exactly as `geomeval run` scores it (`scoring`), and means, coverage and
unscored reasons come from the runner's `metric_summary`, so the faces and the runner agree.
Judge metrics are computed from rubric scores the caller already has (1–5, None where
unscored), on both scales.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

from ...core.records import SampleRecord, Score
from ...engines.aggregate import face_summary
from ...engines.imagemetrics import decode_image, lpips_status
from ..base import EvaluateFace, NoEvaluateFace, face_predictions
from . import scoring

NO_RESPONSE = "model failed: no response"  # the runner's reason for a missing response
# The faces' names for the judge inputs, and the `likert_means` argument each feeds.
JUDGE_INPUTS = {
    "text_scores": "text",
    "step_accuracy": "step_accuracy",
    "process_consistency": "process_consistency",
    "problem_solution_accuracy": "problem_solution",
    "result_scores": "result",
}


def rubric_score(value: Any, index: int, field: str) -> int | None:
    """A judge's 1–5 score as an int, or None; anything else is a ValueError naming the item."""
    if value is None:
        return None
    whole = (
        not isinstance(value, bool)
        and isinstance(value, numbers.Real)
        and math.isfinite(value)
        and value == int(float(value))
    )
    if not whole or not 1 <= value <= 5:
        raise ValueError(f"item {index}, {field}: a rubric score must be a whole number from 1 to 5 or None, got {value!r}")
    return int(value)


def judge_arguments(n: int, given: dict[str, Any]) -> dict[str, list[int | None]]:
    """The judge inputs as `likert_means` keywords, after checking length and values."""
    out: dict[str, list[int | None]] = {}
    for field, column in given.items():
        if column is None:
            continue
        if field not in JUDGE_INPUTS:
            raise ValueError(f"unknown judge input {field!r}; known: {', '.join(JUDGE_INPUTS)}")
        if isinstance(column, (str, bytes)) or len(column) != n:
            got = "a string" if isinstance(column, (str, bytes)) else f"a list of {len(column)}"
            raise ValueError(f"{field}: expected one entry per item ({n} items), got {got}")
        out[JUDGE_INPUTS[field]] = [rubric_score(value, index, field) for index, value in enumerate(column)]
    if ("step_accuracy" in out) != ("process_consistency" in out):
        raise ValueError("step_accuracy and process_consistency go together: VLM-I-Mid is their per-item mean")
    return out


def judge_results(n: int, given: dict[str, Any]) -> tuple[dict[str, float | None], dict[str, float]]:
    """The judge metrics' means on both scales, named as the runner names them, and coverage."""
    arguments = judge_arguments(n, given)
    if not arguments:
        return {}, {}
    means = scoring.likert_means(**arguments)
    values: dict[str, float | None] = {}
    coverage: dict[str, float] = {}
    for name in scoring.JUDGE_METRICS:
        if name not in means:
            continue
        stats = means[name]
        shown = [(name, "published")]
        if name in scoring.RESCALED:
            shown.append((name + scoring.RESCALED_SUFFIX, "rescaled"))
        for label, scale in shown:
            values[label] = stats[scale]  # type: ignore[assignment]
            coverage[label] = stats["scored"] / n  # type: ignore[operator]
    return values, coverage


def summarize_items(
    items: list[dict[str, Score]], names: Sequence[str], task: str
) -> tuple[dict[str, float | None], dict[str, float], dict[str, list[dict[str, Any]]]]:
    """Means over scored items (the runner's `metric_summary`), coverage, and why each
    unscored item is unscored."""
    records = [
        SampleRecord(id=str(i), benchmark="ggbench", task=task, target={}, meta={}, scores=scores)
        for i, scores in enumerate(items)
    ]
    means, coverage, _not_applicable, unscored = face_summary(records, names)
    for reasons in unscored.values():  # the code and image tracks have no not-applicable scores
        for entry in reasons:
            entry.pop("not_applicable", None)
    return means, coverage, unscored


def _per_item(items: list[dict[str, Score]]) -> list[dict[str, dict[str, Any]]]:
    return [
        {name: {"value": s.value, "explanation": s.explanation, "unscored": s.unscored} for name, s in scores.items()}
        for scores in items
    ]


def _check_text(value: Any, index: int, field: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"item {index}, {field}: expected a string, got {value!r}")
    return value


def evaluate_code(
    predictions: Sequence[str | None],
    references: Sequence[str | None],
    *,
    per_item: bool = False,
    **judge: Any,
) -> dict[str, Any]:
    """The code track: Pass@1, verifier and code similarity per answer, plus judge metrics
    from given rubric scores. A None prediction (no response) is unscored."""
    n = len(predictions)
    if n == 0:
        raise ValueError("no items: predictions and references are empty")
    if len(references) != n:
        raise ValueError(f"{n} predictions but {len(references)} references")
    judge_values, judge_coverage = judge_results(n, judge)  # checked before the engine runs
    for index, reference in enumerate(references):
        if not _check_text(reference, index, "references").strip():
            raise ValueError(f"item {index}, references: the reference script is empty")
    names = scoring.ENGINE_METRICS + scoring.CODE_METRICS
    items: list[dict[str, Score]] = []
    for index, (answer, reference) in enumerate(zip(predictions, references, strict=True)):
        if answer is None:
            items.append({name: Score.missing(NO_RESPONSE) for name in names})
        else:
            items.append(scoring.code_answer_scores(_check_text(answer, index, "predictions"), str(reference)))
    means, coverage, unscored = summarize_items(items, names, "ggbench_code")
    results: dict[str, Any] = {
        **means, **judge_values, "n": n, "coverage": {**coverage, **judge_coverage}, "unscored": unscored,
    }
    if per_item:
        results["per_item"] = _per_item(items)
    return results


def evaluate_images(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    lpips: bool = False,
    per_item: bool = False,
    **judge: Any,
) -> dict[str, Any]:
    """The image track: PSNR, SSIM (and LPIPS when asked and available) of each drawn final
    image against its reference, plus judge metrics from given rubric scores. A None
    prediction (no response recorded) is unscored; a drawing that cannot be decoded or shows
    one flat colour is the model's failure, at each metric's floor, as `geomeval run` scores
    it (`_drawing_scores`)."""
    n = len(predictions)
    if n == 0:
        raise ValueError("no items: predictions and references are empty")
    if len(references) != n:
        raise ValueError(f"{n} predictions but {len(references)} references")
    judge_values, judge_coverage = judge_results(n, judge)
    for index, reference in enumerate(references):
        if reference is None:
            raise ValueError(f"item {index}, references: a reference image is required, got None")
    notes: list[str] = []
    with_lpips = False
    if lpips:
        reason = lpips_status()  # checked once, so a batch does not warn per item
        with_lpips = reason is None
        if reason is not None:
            notes.append(f"LPIPS not computed: {reason}")
    names = scoring.PIXEL_METRICS if with_lpips else scoring.PIXEL_METRICS[:2]
    items = [
        {name: Score.missing(NO_RESPONSE) for name in names}
        if candidate is None
        else _drawing_scores(index, candidate, reference, names, with_lpips)
        for index, (candidate, reference) in enumerate(zip(predictions, references, strict=True))
    ]
    capped = sum(1 for scores in items if scores["PSNR"].explanation == scoring.PSNR_CAPPED)
    if capped:
        notes.append(
            f"PSNR capped at {scoring.PSNR_CAP:g} dB for {capped} of {n} item(s) identical to the reference "
            "at 256×256 (their PSNR is infinite)"
        )
    means, coverage, unscored = summarize_items(items, names, "ggbench_image")
    results: dict[str, Any] = {
        **means, **judge_values, "n": n, "coverage": {**coverage, **judge_coverage}, "unscored": unscored,
        "notes": notes,
    }
    if per_item:
        results["per_item"] = _per_item(items)
    return results


def _drawing_scores(
    index: int, candidate: Any, reference: Any, names: tuple[str, ...], with_lpips: bool
) -> dict[str, Score]:
    """The run's rule for a model's own drawing (`scoring.pixel_scores`): undecodable (empty,
    corrupt, over the pixel limit) or blank, it is the model's failure and every pixel metric
    is at its floor (PSNR 0, SSIM 0, LPIPS 1); else it is compared. Something that is no
    image at all, or a path to no file, is the caller's mistake: a ValueError naming the item."""
    try:
        decoded = decode_image(candidate)
    except (TypeError, FileNotFoundError) as exc:
        raise ValueError(f"item {index}, predictions: {exc}") from None
    except ValueError as exc:
        return scoring.floor_scores(names, f"image unreadable: {exc}")
    low, high = decoded.convert("L").getextrema()
    if low == high:
        return scoring.floor_scores(names, "the final image is blank")
    return scoring.image_pair_scores(decoded, reference, with_lpips)


# --- a run's records, as the faces take them --------------------------------------------------


def code_inputs(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """`evaluate_code`'s keywords for the records of one offline `geomeval run ggbench --task
    ggbench_code` (the judge rubrics need a live judge's 1–5 scores)."""
    return {
        "predictions": face_predictions(records),
        "references": [r.target["reference_script"] for r in records],
    }


FACES: dict[str, EvaluateFace | NoEvaluateFace] = {
    "ggbench_code": EvaluateFace("ggbench_code", code_inputs, scoring.ENGINE_METRICS + scoring.CODE_METRICS),
    # The run draws the model's images from the paths its outputs recorded and compares them
    # with the reference its engine renders from the release's script; the module compares
    # the images it is handed, and its judge metrics take a live judge's scores.
    "ggbench_image": NoEvaluateFace(
        "metrics/ggbench_image compares images the caller hands it (and takes a live judge's rubric "
        "scores); a run's pixel scores compare the drawings its records point to with the reference "
        "the engine renders, which records do not hold"
    ),
}
