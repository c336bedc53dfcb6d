"""CapGeo-Bench's typed schema (figures with reference captions, scored by keypoints): the
contract between the builder, the Hub copy and the scorer."""

from __future__ import annotations

from typing import Any

from ...engines.lazy import lazy_attributes
from ..schema import ClassLabel, Image, Schema, Value, features

CLASSES = ("plane", "analytic", "solid")
DIFFICULTIES = (1, 2, 3, 4)


SCHEMA: Schema = {
    "id": Value("string"),
    "image": Image(),
    "caption_en": Value("string"),
    "caption_zh": Value("string"),  # None where the release has no Chinese caption
    "geometry_class": ClassLabel(names=list(CLASSES)),
    "difficulty": Value("int8"),  # 1 (simplest) to 4
    "source": Value("string"),
}
"""The columns and their types, as `datasets.Features.to_dict()` gives them (see `schema`)."""


def _datasets_features() -> dict[str, Any]:
    """The `datasets` Features of `SCHEMA`. Built on first use (module `__getattr__`):
    importing `datasets` costs half a second that `geomeval list`, `--help` and a run need not pay."""
    return {"FEATURES": features(SCHEMA)}


__getattr__ = lazy_attributes(globals(), ("FEATURES",), _datasets_features)
