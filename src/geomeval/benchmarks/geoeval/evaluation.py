"""GeoEval's accuracy over lists of responses and gold answers, for the `evaluate` module
`metrics/geoeval_accuracy` (which only calls `evaluate_accuracy`).

Each (response, gold) pair becomes the `SampleRecord` `geomeval run geoeval` would write
and is scored by the runner's own path (`engine.score_records_sync` → `GeoEval.score` → `judging.score_record`:
the two-step extraction, then `extraction.is_correct`); an answer the caller extracted
already goes through the same check (`scoring.answer_scores`). Means, coverage and
breakdowns come from `aggregate.metric_summary` / `aggregate.summarize`, so the face, the
runner and the lmms-eval task report the same numbers for the same responses.

Two kinds of "no answer" are kept apart on purpose: a response from which no final answer
can be extracted (empty, a refusal, reasoning without a conclusion) is a *wrong* answer —
the model was asked for one and gave none — while a prediction of None (no response at
all: the request failed) is *unscored*, as the runner scores a failed generation, and
shows up in coverage rather than in accuracy.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ...answers import ChoiceError, parse_choices
from ...core.records import SampleRecord
from ...engines.aggregate import Breakdown, face_summary, summarize
from ...engines.client import BackgroundLoop
from ...engines.engine import score_records_sync
from ...engines.faceinputs import answer_item, check_columns, class_name
from ...engines.judges import Judge, judge_from_env
from .benchmark import GeoEval
from .features import PROBLEM_TYPES, SOURCES, SUBSETS
from .scoring import answer_scores, failed_scores

NO_RESPONSE = "model failed: no response"  # the runner's reason for a missing response
GIVEN = "given"  # the extraction method of an answer the caller extracted (extracted=True)
NO_JUDGE_CONFIGURED = (
    "judge=True needs an LLM judge, and none is configured: set GEOMEVAL_JUDGE_MODEL to the "
    "judge model (with GEOMEVAL_JUDGE_BASE_URL and GEOMEVAL_JUDGE_API_KEY for its server), or "
    "leave judge=False to extract with the rules alone"
)
NO_TEXT_ONLY = "T not computed: pass text_only (per item, True for a problem without a diagram)"
# The breakdown inputs: field name → (group name in the results, the known names, in order).
_GROUPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "subsets": ("subset", SUBSETS),
    "sources": ("source", SOURCES),
    "problem_types": ("problem_type", PROBLEM_TYPES),
}


def evaluate_accuracy(
    predictions: Sequence[str | None],
    references: Sequence[Any],
    *,
    choices: Sequence[Sequence[str] | None] | None = None,
    gold_letters: Sequence[str | None] | None = None,
    extracted: bool = False,
    text_only: Sequence[bool] | None = None,
    subsets: Sequence[Any] | None = None,
    sources: Sequence[Any] | None = None,
    problem_types: Sequence[Any] | None = None,
    problems: Sequence[str | None] | None = None,
    judge: bool = False,
    per_item: bool = False,
) -> dict[str, Any]:
    """GeoEval's A (accuracy over every item) and T (over the text-only items), as
    `geomeval run geoeval` scores them, with coverage and optional breakdowns.

    `predictions` are the models' raw responses, whose final answer is extracted by the
    rules (or, with `judge=True`, by the LLM judge GEOMEVAL_JUDGE_MODEL names, the rules
    catching what it misses); with `extracted=True` they are final answers already, checked
    as given. `references` are the gold values (text or numbers); `choices` and
    `gold_letters`, per item, let an option letter or an option's text count. T needs
    `text_only`; `subsets`, `sources` and `problem_types` add breakdowns; `problems` (the
    question text) is shown to the judge. Bad input is a ValueError naming item and field.
    """
    check_columns(
        predictions,
        references,
        choices=choices,
        gold_letters=gold_letters,
        text_only=text_only,
        subsets=subsets,
        sources=sources,
        problem_types=problem_types,
        problems=problems,
    )
    if extracted and judge:
        raise ValueError(
            "judge=True extracts answers from responses; with extracted=True there is nothing to extract"
        )
    records = _records(predictions, references, choices, gold_letters, text_only, problems)
    groups = _breakdown_keys(records, subsets=subsets, sources=sources, problem_types=problem_types)
    metrics = ("A", "T") if text_only is not None else ("A",)
    if extracted:
        for record in records:
            record.scores = (
                failed_scores(record)
                if record.response is None
                else answer_scores(record, record.response.strip() or None, GIVEN)
            )
        extraction = GIVEN
    else:
        engine = _judge(judge)  # checked last: a bad argument fails before any client is made
        try:
            score_records_sync(GeoEval(), records, engine)
        finally:
            if engine.client is not None:
                BackgroundLoop.shared().run(engine.aclose())
        extraction = "judge" if judge else "rules"
    return _results(records, metrics, groups, extraction, per_item)


# --- input ------------------------------------------------------------------------------------


def _reference(value: Any, index: int, letter: str | None) -> str | None:
    """The gold value as text; numbers are allowed (the release stores some as floats)."""
    if isinstance(value, bool) or not (value is None or isinstance(value, str | numbers.Real)):
        raise ValueError(
            f"item {index}, references: expected the gold answer (text or a number), got {value!r}"
        )
    if isinstance(value, numbers.Real) and not math.isfinite(value):
        raise ValueError(f"item {index}, references: expected a finite gold value, got {value!r}")
    text = None if value is None else str(value).strip()
    if not text and letter is None:
        raise ValueError(
            f"item {index}, references: the gold answer is empty and the item has no gold letter, "
            "so nothing could be counted right"
        )
    return text or None


def _item_choices(value: Any, index: int) -> tuple[list[str] | None, str]:
    """The item's options (None for a free-form item) and their letters, checked."""
    if value is None:
        return None, ""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ValueError(
            f"item {index}, choices: expected a list of options or None, got {value!r}"
        )
    options = list(value)
    if not options:
        return None, ""
    try:
        letters = "".join(parse_choices(options))
    except ChoiceError as exc:
        raise ValueError(f"item {index}, choices: {exc}") from None
    return options, letters


def _gold_letter(value: Any, index: int, letters: str) -> str | None:
    if value is None:
        return None
    letter = value.strip().strip("()").strip().upper() if isinstance(value, str) else None
    if not letters:
        raise ValueError(
            f"item {index}, gold_letters: a gold letter needs the item's choices, and it has none"
        )
    if not letter or len(letter) != 1 or letter not in letters:
        raise ValueError(
            f"item {index}, gold_letters: expected one of {', '.join(letters)} or None, got {value!r}"
        )
    return letter


def _flag(value: Any, index: int) -> bool:
    if not isinstance(value, bool | int) or value not in (0, 1):
        raise ValueError(f"item {index}, text_only: expected True or False, got {value!r}")
    return bool(value)


def _problem(value: Any, index: int) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(
            f"item {index}, problems: expected the question text or None, got {value!r}"
        )
    return value


def _records(
    predictions: Sequence[str | None],
    references: Sequence[Any],
    choices: Sequence[Any] | None,
    gold_letters: Sequence[Any] | None,
    text_only: Sequence[Any] | None,
    problems: Sequence[Any] | None,
) -> list[SampleRecord]:
    """The records `GeoEval.new_record` makes, with the prediction as the response.

    Without `text_only` every item is marked as having a diagram, so T is not applicable
    anywhere instead of silently equal to A; the results then leave T out.
    """
    records = []
    for index, prediction in enumerate(predictions):
        options, letters = _item_choices(choices[index] if choices is not None else None, index)
        letter = _gold_letter(
            gold_letters[index] if gold_letters is not None else None, index, letters
        )
        gold = _reference(references[index], index, letter)
        has_diagram = True if text_only is None else not _flag(text_only[index], index)
        records.append(
            SampleRecord(
                id=str(index),
                benchmark=GeoEval.name,
                task=SUBSETS[0],
                target={
                    "problem": _problem(problems[index] if problems is not None else None, index),
                    "choices": options,
                    "answer": gold,
                    "gold_letter": letter,
                },
                meta={"has_diagram": has_diagram},
                response=prediction,
            )
        )
    return records


def _breakdown_keys(
    records: list[SampleRecord], **columns: Sequence[Any] | None
) -> dict[str, tuple[str, ...]]:
    """File each record under its given subset, source and problem type; the groups given."""
    groups: dict[str, tuple[str, ...]] = {}
    for field, column in columns.items():
        if column is None:
            continue
        group, names = _GROUPS[field]
        for index, (record, value) in enumerate(zip(records, column, strict=True)):
            record.meta[group] = class_name(value, index, field, names)
        groups[group] = names
    for record in records:
        if "subset" in record.meta:
            record.task = record.meta["subset"]  # as the runner files it: the task is the subset
    return groups


# --- scoring ----------------------------------------------------------------------------------


def _judge(wanted: bool) -> Judge:
    """The offline rules, or the configured LLM judge; refused rather than silently falling
    back to the rules, because the caller asked for the paper's judge extraction."""
    if not wanted:
        return Judge("offline")
    engine = judge_from_env()
    if engine.offline:
        raise ValueError(NO_JUDGE_CONFIGURED)
    return engine


# --- results ----------------------------------------------------------------------------------


def _results(
    records: list[SampleRecord],
    metrics: tuple[str, ...],
    groups: dict[str, tuple[str, ...]],
    extraction: str,
    per_item: bool,
) -> dict[str, Any]:
    means, coverage, not_applicable, unscored = face_summary(records, metrics)
    results: dict[str, Any] = dict(means)
    notes = []
    if "T" not in metrics:
        results["T"] = None
        notes.append(NO_TEXT_ONLY)
    methods = Counter((r.extracted or {}).get("method") or "no response" for r in records)
    judge_failures = sum(1 for r in records if (r.judgment or {}).get("judge_error"))
    results.update(
        {
            "n": len(records),
            "extraction": extraction,
            "coverage": coverage,
            "not_applicable": not_applicable,
            "unscored": unscored,
            "methods": dict(methods.most_common()),
            "notes": notes,
        }
    )
    if extraction == "judge":
        results["judge_failures"] = judge_failures
    if groups:
        summary = summarize(records, metrics, breakdowns=[Breakdown(name, order=tuple(order)) for name, order in groups.items()])
        results["breakdowns"] = summary["breakdowns"]
    if per_item:
        results["per_item"] = [_item(r, metrics) for r in records]
    return results


def _item(record: SampleRecord, metrics: tuple[str, ...]) -> dict[str, Any]:
    return {
        **answer_item(record, "A"),
        "judge_error": (record.judgment or {}).get("judge_error"),
        "scores": {
            name: {
                "value": record.scores[name].value,
                "unscored": record.scores[name].unscored,
                "not_applicable": record.scores[name].not_applicable,
            }
            for name in metrics
        },
    }
