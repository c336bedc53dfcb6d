"""GeoLaux's typed schema: the contract between the builder, the Hub copy and the scorer."""

from __future__ import annotations

from typing import Any

from ...lazy import lazy_attributes

TYPES = ("calculation", "proving")
AUXILIARY_TYPES = ("none", "simple", "complex")
STEP_BUCKETS = ((1, 4), (5, 8), (9, 12), (13, 24))


def step_bucket(step_length: int) -> str:
    """The paper's step-length bucket (1–4, 5–8, 9–12, 13–24) of a reference solution."""
    for low, high in STEP_BUCKETS:
        if low <= step_length <= high:
            return f"{low}-{high}"
    return f">{STEP_BUCKETS[-1][1]}" if step_length > STEP_BUCKETS[-1][1] else "0"


def _datasets_features() -> dict[str, Any]:
    """The `datasets` Features of this schema. Built on first use (module `__getattr__`):
    importing `datasets` costs half a second that `geomeval list` and `--help` need not pay."""
    from datasets import ClassLabel, Features, Image, List, Value

    FEATURES = Features(
        {
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
    )
    return {"FEATURES": FEATURES}


__getattr__ = lazy_attributes(globals(), ("FEATURES",), _datasets_features)
