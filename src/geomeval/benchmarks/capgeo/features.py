"""CapGeo's typed schema: its reasoning problems with one captioner's captions joined in, so a
caption mode can run from the dataset alone (lmms-eval's tasks do), without a caption pass of
its own. The contract between the builder, the Hub copy and the scorer."""

from __future__ import annotations

from typing import Any

from ...engines.lazy import lazy_attributes
from ..schema import ClassLabel, Image, List, Schema, Value, features

QUESTION_TYPES = ("multi_choice", "free_form")


SCHEMA: Schema = {
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
"""The columns and their types, as `datasets.Features.to_dict()` gives them (see `schema`)."""


def _datasets_features() -> dict[str, Any]:
    """The `datasets` Features of `SCHEMA`. Built on first use (module `__getattr__`):
    importing `datasets` costs half a second that `geomeval list`, `--help` and a run need not pay."""
    return {"FEATURES": features(SCHEMA)}


__getattr__ = lazy_attributes(globals(), ("FEATURES",), _datasets_features)
