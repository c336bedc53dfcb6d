"""CapGeo-Bench's typed schema: the contract between the builder, the Hub copy and the scorer."""

from __future__ import annotations

from datasets import ClassLabel, Features, Image, Value

CLASSES = ("plane", "analytic", "solid")
DIFFICULTIES = (1, 2, 3, 4)

BENCH_FEATURES = Features(
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
