"""CapGeo-Bench's keypoint scores over lists of candidate and reference captions, for the
`evaluate` module `metrics/capgeo_keypoints` (which only calls `evaluate_captions`).

Each (candidate, reference) pair becomes the `SampleRecord` `geomeval run capgeo_bench`
would write and is scored by the runner's own path (`engine.score_records_sync` →
`scoring.score_record`), with the offline judge or the judge GEOMEVAL_JUDGE_MODEL
names; means, coverage and unscored reasons come from `metric_summary`, and the Table-4
breakdown from `scoring.aggregate`. So the face, the runner and the lmms-eval task
report the same numbers for the same captions, under the same metric names.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from ...core.records import SampleRecord, Score
from ...engines.aggregate import face_summary
from ...engines.client import BackgroundLoop
from ...engines.engine import score_records_sync
from ...engines.judges import Judge, judge_from_env
from . import scoring
from .benchmark import CapGeoBench
from .features import CLASSES, DIFFICULTIES

ENGINES = ("offline", "judge")
LANGUAGES = ("en", "zh", "auto")  # the keypoint parser's; "auto" decides per caption
BENCHMARK = "capgeo_bench"
NO_JUDGE_CONFIGURED = (
    "engine='judge' needs an LLM judge, and none is configured: set GEOMEVAL_JUDGE_MODEL to the "
    "judge model (with GEOMEVAL_JUDGE_BASE_URL and GEOMEVAL_JUDGE_API_KEY for its server), or use "
    "engine='offline'"
)


def engine_metrics(engine: str) -> tuple[str, ...]:
    """The runner's metric names for one engine (the judge's carry " (judge)")."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    return scoring.OFFLINE_METRICS if engine == "offline" else scoring.JUDGE_METRICS


def _judge(engine: str) -> Judge:
    """The offline judge, or the configured LLM judge; refusing rather than silently scoring
    nothing, because engine='judge' without a judge would return all-None means."""
    if engine == "offline":
        return Judge("offline")
    judge = judge_from_env()
    if judge.offline:
        raise ValueError(NO_JUDGE_CONFIGURED)
    return judge


def _class_name(value: Any, index: int) -> str:
    """A class given by name (plane, analytic, solid) or by its ClassLabel index."""
    if isinstance(value, str) and value.strip().lower() in CLASSES:
        return value.strip().lower()
    if (
        isinstance(value, numbers.Integral)
        and not isinstance(value, bool)
        and 0 <= int(value) < len(CLASSES)
    ):
        return CLASSES[int(value)]
    raise ValueError(
        f"item {index}, classes: expected one of {', '.join(CLASSES)} (or 0-{len(CLASSES) - 1}), got {value!r}"
    )


def _difficulty(value: Any, index: int) -> int:
    if (
        isinstance(value, numbers.Integral)
        and not isinstance(value, bool)
        and int(value) in DIFFICULTIES
    ):
        return int(value)
    raise ValueError(f"item {index}, difficulties: expected 1, 2, 3 or 4, got {value!r}")


def _breakdown_keys(
    n: int, classes: Sequence[Any] | None, difficulties: Sequence[Any] | None
) -> list[dict[str, Any]] | None:
    """Per-item {class, difficulty} for Table 4, checked; None when neither is given.

    Both or neither: Table 4 crosses class with difficulty, and a half-given breakdown
    would file every item under "None"."""
    if classes is None and difficulties is None:
        return None
    if classes is None or difficulties is None:
        raise ValueError(
            "classes and difficulties go together: Table 4 breaks recall down by class and difficulty"
        )
    for name, column in (("classes", classes), ("difficulties", difficulties)):
        if isinstance(column, (str, bytes)) or len(column) != n:
            got = "a string" if isinstance(column, (str, bytes)) else f"a list of {len(column)}"
            raise ValueError(f"{name}: expected one entry per item ({n} items), got {got}")
    return [
        {"class": _class_name(c, i), "difficulty": _difficulty(d, i)}
        for i, (c, d) in enumerate(zip(classes, difficulties, strict=True))
    ]


def _check_inputs(predictions: Sequence[Any], references: Sequence[Any], language: str) -> None:
    n = len(predictions)
    if n == 0:
        raise ValueError("no items: predictions and references are empty")
    if len(references) != n:
        raise ValueError(f"{n} predictions but {len(references)} references")
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    for index, reference in enumerate(references):
        if not isinstance(reference, str) or not reference.strip():
            raise ValueError(
                f"item {index}, references: expected a non-empty reference caption, got {reference!r}"
            )
    for index, prediction in enumerate(predictions):
        if prediction is not None and not isinstance(prediction, str):
            raise ValueError(
                f"item {index}, predictions: expected a caption (a string) or None, got {prediction!r}"
            )


def _records(
    predictions: Sequence[str | None],
    references: Sequence[str],
    language: str,
    keys: list[dict[str, Any]] | None,
) -> list[SampleRecord]:
    """The records `CapGeoBench.new_record` makes, with the candidate as the response."""
    task = "capgeo_bench_zh" if language == "zh" else BENCHMARK
    return [
        SampleRecord(
            id=str(index),
            benchmark=BENCHMARK,
            task=task,
            target={"caption": reference, "language": language},
            meta=dict(keys[index]) if keys is not None else {},
            response=prediction,
        )
        for index, (prediction, reference) in enumerate(zip(predictions, references, strict=True))
    ]


def _score_dict(score: Score) -> dict[str, Any]:
    return {
        "value": score.value,
        "explanation": score.explanation,
        "unscored": score.unscored,
        "not_applicable": score.not_applicable,
    }


def _detail(record: SampleRecord, engine: str) -> dict[str, Any] | None:
    """The engine's keypoint counts and what it missed (and, offline, what was extra)."""
    if engine == "offline":
        return (record.extracted or {}).get("offline")
    return record.judgment


def evaluate_captions(
    predictions: Sequence[str | None],
    references: Sequence[str],
    *,
    engine: str = "offline",
    language: str = "auto",
    classes: Sequence[Any] | None = None,
    difficulties: Sequence[Any] | None = None,
    per_item: bool = False,
) -> dict[str, Any]:
    """Keypoint recall, precision and F1 (overall and per dimension) of each candidate caption
    against its reference, as `geomeval run capgeo_bench` scores them, averaged over items.

    `engine`: "offline" (geomeval's deterministic keypoint parser and exact matching) or
    "judge" (the LLM judge GEOMEVAL_JUDGE_MODEL names; refused when none is set). `language`:
    "en", "zh" or "auto" (per caption). A None prediction (no response) is unscored, as the
    runner scores a failed generation. With `classes` and `difficulties`, adds the Table-4
    breakdown (by class, by difficulty, by both) and its table.
    """
    metrics = engine_metrics(engine)
    _check_inputs(predictions, references, language)
    n = len(predictions)
    keys = _breakdown_keys(n, classes, difficulties)
    records = _records(predictions, references, language, keys)
    judge = _judge(engine)  # checked last: a bad argument fails before any client is made
    try:
        score_records_sync(CapGeoBench(), records, judge)
    finally:
        if judge.client is not None:
            BackgroundLoop.shared().run(judge.aclose())

    means, coverage, not_applicable, unscored = face_summary(records, metrics)
    results: dict[str, Any] = dict(means)
    results.update(
        {
            "n": n,
            "engine": engine,
            "language": language,
            "coverage": coverage,
            "not_applicable": not_applicable,
            "unscored": unscored,
        }
    )
    if keys is not None:
        summary = scoring.aggregate(records)
        results["breakdowns"] = {
            group: {
                bucket: {name: per_metric[name] for name in metrics}
                for bucket, per_metric in buckets.items()
            }
            for group, buckets in summary["breakdowns"].items()
        }
        label = f"({engine} engine"
        results["table"] = next((t for t in summary["tables"] if label in t["title"]), None)
        suffix = "" if engine == "offline" else scoring.JUDGE_SUFFIX
        results["Avg"] = summary["metrics"][scoring.AVG + suffix]["value"]
    if per_item:
        results["per_item"] = [
            {
                "scores": {name: _score_dict(r.scores[name]) for name in metrics},
                "keypoints": _detail(r, engine),
            }
            for r in records
        ]
    return results
