"""Checks the `evaluate` faces share on what a caller passes: every column one entry per
item, responses as text or None, and class labels by name or by ClassLabel index. A bad
value is a ValueError naming the item (its position) and the field, before anything is
scored. Also what an answer-accuracy face reports per item (`answer_item`)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any


def check_columns(predictions: Sequence[Any], references: Sequence[Any], **columns: Any) -> None:
    """One entry per item in every column given (None: not given), and responses that are
    text or None."""
    n = len(predictions)
    if n == 0:
        raise ValueError("no items: predictions and references are empty")
    if len(references) != n:
        raise ValueError(f"{n} predictions but {len(references)} references")
    for name, column in columns.items():
        if column is None:
            continue
        if isinstance(column, (str, bytes)) or not isinstance(column, Sequence) or len(column) != n:
            if isinstance(column, (str, bytes)):
                got = "a string"
            elif isinstance(column, Sequence):
                got = f"a list of {len(column)}"
            else:
                got = repr(column)[:60]
            raise ValueError(f"{name}: expected one entry per item ({n} items), got {got}")
    for index, prediction in enumerate(predictions):
        if prediction is not None and not isinstance(prediction, str):
            raise ValueError(
                f"item {index}, predictions: expected a response (a string) or None, got {prediction!r}"
            )


def class_name(value: Any, index: int, field: str, names: Sequence[str]) -> str:
    """A class given by name or by the dataset's ClassLabel index."""
    if isinstance(value, str) and value.strip() in names:
        return value.strip()
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and 0 <= int(value) < len(names):
        return names[int(value)]
    raise ValueError(
        f"item {index}, {field}: expected one of {', '.join(names)} (or 0-{len(names) - 1}), got {value!r}"
    )


def entry(column: Sequence[Any] | None, index: int) -> Any:
    """Item `index`'s value in an optional column (None when the column is not given)."""
    return None if column is None else column[index]


def gold_text(value: Any, index: int, field: str = "references") -> str:
    """A gold answer as text: a string, or a finite number (`evaluate` hands numbers over as
    floats, so 12.0 is the 12 it was); anything else, or an empty answer, is a ValueError
    naming the item and the field."""
    if isinstance(value, bool) or not isinstance(value, str | numbers.Real):
        raise ValueError(f"item {index}, {field}: expected the gold answer (text or a number), got {value!r}")
    if isinstance(value, numbers.Real) and not math.isfinite(value):
        raise ValueError(f"item {index}, {field}: expected a finite gold value, got {value!r}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    if not text:
        raise ValueError(f"item {index}, {field}: the gold answer is empty, so nothing could be counted right")
    return text


def answer_item(record: Any, metric: str) -> dict[str, Any]:
    """A scored answer as an accuracy face's `per_item` entry: the answer read from the
    response, how it was read, whether it is right (None: unscored) and why."""
    score = record.scores[metric]
    extracted = record.extracted or {}
    return {
        "extracted": extracted.get("answer"),
        "method": extracted.get("method"),
        "correct": None if not score.scored else score.value == 1.0,
        "explanation": score.explanation or score.unscored,
    }
