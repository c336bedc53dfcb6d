"""CapGeo's typed schemas: the contract between the builders, the Hub copies and the scorers.

`BENCH_FEATURES` is CapGeo-Bench (figures with reference captions, scored by keypoints);
`REASONING_FEATURES` is CapGeo's reasoning problems with one captioner's captions joined in,
so a caption mode can run from the dataset alone (lmms-eval's tasks do), without a caption
pass of its own.
"""

from __future__ import annotations

from typing import Any

from ...lazy import lazy_attributes

CLASSES = ("plane", "analytic", "solid")
DIFFICULTIES = (1, 2, 3, 4)
QUESTION_TYPES = ("multi_choice", "free_form")


def _datasets_features() -> dict[str, Any]:
    """The `datasets` Features of this schema. Built on first use (module `__getattr__`):
    importing `datasets` costs half a second that `geomeval list` and `--help` need not pay."""
    from datasets import ClassLabel, Features, Image, List, Value

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
    REASONING_FEATURES = Features(
        {
            "id": Value("string"),  # the source's own id (pid, sample_index, id)
            "source": Value("string"),  # a `sources.SOURCES` name
            "question": Value("string"),  # "" for MathVerse Vision Only (drawn in the image)
            "image": Image(),
            "choices": List(Value("string")),  # [] for free-form problems
            "answer": Value("string"),  # a letter, an option's text or a value, as the source gives it
            "question_type": ClassLabel(names=list(QUESTION_TYPES)),
            "unit": Value("string"),  # None where the source gives none
            "subject": Value("string"),
            "caption": Value("string"),  # None where the captioner gave none (unscored in caption modes)
            "captioner": Value("string"),  # whose captions these are; None when the build joined none
        }
    )
    return {"BENCH_FEATURES": BENCH_FEATURES, "REASONING_FEATURES": REASONING_FEATURES}


__getattr__ = lazy_attributes(globals(), ("BENCH_FEATURES", "REASONING_FEATURES"), _datasets_features)
