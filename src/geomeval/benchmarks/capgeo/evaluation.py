"""CapGeo's reasoning accuracy over lists of responses and gold answers, for the `evaluate`
module `metrics/capgeo_accuracy` (which only calls `evaluate_accuracy`).

Each (response, gold) pair becomes the `SampleRecord` `geomeval run capgeo` would write and is
scored by the runner's own path (`engine.score_records_sync` → `scoring.score_record`: the
`<answer>` read by `extract_final_answer`, then the shared answer checker); means, coverage
and breakdowns come from `aggregate.face_summary` and `aggregate.summarize` with the
benchmark's own `scoring.BREAKDOWNS`. A run scores CapGeo without a judge, so the face needs
none either, and it, the runner and the lmms-eval tasks report the same numbers for the same
responses.

Two kinds of "no answer" are kept apart, as in the other faces: a response without a readable
answer is *wrong* (the model was asked for one), while a prediction of None (the request
failed) is *unscored* and lowers coverage instead. So is an item of a caption mode whose
caption is None (the captioner gave none): it was never posed as the paper poses it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ...core.records import SampleRecord
from ...engines.aggregate import face_summary, summarize
from ...engines.engine import score_records_sync
from ...engines.faceinputs import answer_item, check_columns, class_name, entry, gold_text
from ...engines.judges import Judge
from .benchmark import CapGeo
from .features import QUESTION_TYPES
from .prompts import MODES
from .scoring import BREAKDOWNS, METRICS

NO_RESPONSE = "model failed: no response"  # the runner's reason for a missing response
NO_CAPTIONS = (
    "captions: mode {mode!r} poses each problem with its figure's caption; pass captions (per "
    "item, the caption, or None where the captioner gave none)"
)


def evaluate_accuracy(
    predictions: Sequence[str | None],
    references: Sequence[Any],
    *,
    choices: Sequence[Sequence[str] | None] | None = None,
    units: Sequence[str | None] | None = None,
    mode: str = "direct",
    captions: Sequence[str | None] | None = None,
    question_types: Sequence[Any] | None = None,
    subjects: Sequence[str | None] | None = None,
    per_item: bool = False,
) -> dict[str, Any]:
    """CapGeo's accuracy (the share of problems answered right), as `geomeval run capgeo`
    scores it in `mode`, with coverage and optional breakdowns.

    `predictions` are the reasoner's raw responses; `references` the gold answers as the
    source gives them (a letter, an option's text or a value); `choices` and `units`, per
    item, let an option's text or a unit-bearing value count. A caption mode (`with_image`,
    `without_image`) needs `captions`: an item without one is unscored, whatever the response.
    `question_types` (multi_choice/free_form, by name or ClassLabel index) and `subjects` add
    the run's breakdowns. Bad input is a ValueError naming item and field.
    """
    check_columns(
        predictions, references, choices=choices, units=units, captions=captions,
        question_types=question_types, subjects=subjects,
    )
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
    if mode == "direct" and captions is not None:
        raise ValueError("captions: mode 'direct' poses the figure alone; pass a caption mode or no captions")
    if mode != "direct" and captions is None:
        raise ValueError(NO_CAPTIONS.format(mode=mode))
    records = [
        _record(index, predictions[index], references[index], mode,
                choices=entry(choices, index), unit=entry(units, index), caption=entry(captions, index),
                question_type=entry(question_types, index), subject=entry(subjects, index))
        for index in range(len(predictions))
    ]
    score_records_sync(CapGeo(), records, Judge("offline"))  # no judge: the answer checker alone
    means, coverage, _not_applicable, unscored = face_summary(records, METRICS)
    results: dict[str, Any] = {
        **means,
        "n": len(records),
        "mode": mode,
        "coverage": coverage,
        "unscored": unscored,
        "methods": dict(Counter((r.extracted or {}).get("method") or "no response" for r in records).most_common()),
    }
    columns = {"question_type": question_types, "subject": subjects}  # the run's breakdowns they fill
    given = [b for b in BREAKDOWNS if columns.get(b.name) is not None]
    if given:
        results["breakdowns"] = summarize(records, METRICS, breakdowns=given)["breakdowns"]
    if per_item:
        results["per_item"] = [answer_item(record, "accuracy") for record in records]
    return results


# --- input ------------------------------------------------------------------------------------


def _options(value: Any, index: int) -> list[str]:
    """The item's options ([] for a free-form item), each a non-empty string."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ValueError(f"item {index}, choices: expected a list of options or None, got {value!r}")
    for option in value:
        if not isinstance(option, str) or not option.strip():
            raise ValueError(f"item {index}, choices: every option is a non-empty string, got {option!r}")
    return list(value)


def _text(value: Any, index: int, field: str, what: str) -> str | None:
    """An optional text column's entry: a string, or None (an empty string counts as None)."""
    if value is not None and not isinstance(value, str):
        raise ValueError(f"item {index}, {field}: expected {what} or None, got {value!r}")
    return value or None


def _record(
    index: int, prediction: str | None, reference: Any, mode: str, *, choices: Any, unit: Any, caption: Any,
    question_type: Any, subject: Any,
) -> SampleRecord:
    """The record `CapGeo.new_record` makes in `mode`, with the prediction as the response."""
    meta: dict[str, Any] = {}
    if question_type is not None:
        meta["question_type"] = class_name(question_type, index, "question_types", QUESTION_TYPES)
    if subject is not None:
        meta["subject"] = _text(subject, index, "subjects", "the subject")
    return SampleRecord(
        id=str(index),
        benchmark=CapGeo.name,
        task=CapGeo.tasks[0],
        target={
            "question": "",
            "choices": _options(choices, index),
            "answer": gold_text(reference, index),
            "unit": _text(unit, index, "units", "the answer's unit"),
            "mode": mode,
            "caption": _text(caption, index, "captions", "the caption"),
            "caption_error": None,
        },
        meta=meta,
        response=prediction,
    )


# --- results ----------------------------------------------------------------------------------
