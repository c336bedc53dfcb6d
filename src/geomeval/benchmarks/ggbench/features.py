"""GGBench's typed schema: the contract between the builder, the Hub copy and the scorer."""

from __future__ import annotations

from typing import Any

from ...engines.lazy import lazy_attributes
from ..schema import ClassLabel, Image, List, Schema, Value, features

DIFFICULTIES = ("Easy", "Medium", "Hard")
PROBLEM_TYPES = ("straightedge-and-compass", "geometric transformation", "analytic construction")
CATEGORIES = (
    "Basic Constructions",
    "Circle Properties & Constructions",
    "Geometric Transformations",
    "Triangle Properties & Constructions",
    "Applications of Geometric Theorems",
    "Polygon Properties & Constructions",
    "Measurement & Ratios",
    "Locus Constructions",
)


SCHEMA: Schema = {
    "id": Value("string"),
    "problem": Value("string"),
    "problem_image": Image(),  # None when the problem comes without a figure
    "difficulty": ClassLabel(names=list(DIFFICULTIES)),
    "problem_type": ClassLabel(names=list(PROBLEM_TYPES)),
    "categories": List(ClassLabel(names=list(CATEGORIES))),
    # The reference solution: each step's explanation and the GeoGebra commands it runs.
    "steps": List({"text": Value("string"), "code": Value("string")}),
    "reference_script": Value("string"),  # every step's code, in order
    "inspection": Value("string"),  # what a correct construction must show, in words
    "step_images": List(Image()),  # the figure after each step
    "final_image": Image(),
    "long_image": Image(),  # the step images side by side, as the process judge sees them
}
"""The columns and their types, as `datasets.Features.to_dict()` gives them (see `schema`)."""


def _datasets_features() -> dict[str, Any]:
    """The `datasets` Features of `SCHEMA`. Built on first use (module `__getattr__`):
    importing `datasets` costs half a second that `geomeval list`, `--help` and a run need not pay."""
    return {"FEATURES": features(SCHEMA)}


__getattr__ = lazy_attributes(globals(), ("FEATURES",), _datasets_features)
