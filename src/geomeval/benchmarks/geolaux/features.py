"""GeoLaux's typed schema: the contract between the builder, the Hub copy and the scorer."""

from __future__ import annotations

from typing import Any

from ...engines.lazy import lazy_attributes
from ..schema import ClassLabel, Image, List, Schema, Value, features

TYPES = ("calculation", "proving")
AUXILIARY_TYPES = ("none", "simple", "complex")
STEP_BUCKETS = ((1, 4), (5, 8), (9, 12), (13, 24))


def step_bucket(step_length: int) -> str:
    """The paper's step-length bucket (1–4, 5–8, 9–12, 13–24) of a reference solution."""
    for low, high in STEP_BUCKETS:
        if low <= step_length <= high:
            return f"{low}-{high}"
    return f">{STEP_BUCKETS[-1][1]}" if step_length > STEP_BUCKETS[-1][1] else "0"


SCHEMA: Schema = {
    "id": Value("string"),
    "problem_text": Value("string"),
    "image": Image(),
    "type": ClassLabel(names=list(TYPES)),
    "choices": List(Value("string")),
    "answer": Value("string"),
    "unit": Value("string"),
    "solution": Value("string"),
    "step_length": Value("int32"),
    "steps_explanation": Value("string"),
    "auxiliary_type": ClassLabel(names=list(AUXILIARY_TYPES)),
    "auxiliary_text": Value("string"),
    "auxiliary_image": Image(),
    "language": Value("string"),
}
"""The columns and their types, as `datasets.Features.to_dict()` gives them (see `schema`)."""


def _datasets_features() -> dict[str, Any]:
    """The `datasets` Features of `SCHEMA`. Built on first use (module `__getattr__`):
    importing `datasets` costs half a second that `geomeval list`, `--help` and a run need not pay."""
    return {"FEATURES": features(SCHEMA)}


__getattr__ = lazy_attributes(globals(), ("FEATURES",), _datasets_features)
