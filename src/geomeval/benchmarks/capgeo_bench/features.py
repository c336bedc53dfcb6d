"""CapGeo-Bench's typed schema (figures with reference captions, scored by keypoints): the
contract between the builder, the Hub copy and the scorer."""

from __future__ import annotations

from typing import Any

from ...lazy import lazy_attributes

CLASSES = ("plane", "analytic", "solid")
DIFFICULTIES = (1, 2, 3, 4)


def _datasets_features() -> dict[str, Any]:
    """The `datasets` Features of this schema. Built on first use (module `__getattr__`):
    importing `datasets` costs half a second that `geomeval list` and `--help` need not pay."""
    from datasets import ClassLabel, Features, Image, Value

    FEATURES = Features(
        {
            "id": Value("string"),
            "image": Image(),
            "caption_en": Value("string"),
            "caption_zh": Value("string"),  # None where the release has no Chinese caption
            "geometry_class": ClassLabel(names=list(CLASSES)),
            "difficulty": Value("int8"),  # 1 (simplest) to 4
            "source": Value("string"),
        }
    )
    return {"FEATURES": FEATURES}


__getattr__ = lazy_attributes(globals(), ("FEATURES",), _datasets_features)
