"""GeoEval's typed schema: the contract between the builder, the Hub copy and the scorer.

All four subsets share it, so a scorer or a breakdown reads every config the same way; the
fields a subset does not have (the rephrased text outside `geoeval_aug`, the backward
question outside `geoeval_backward`) are None there rather than absent.
"""

from __future__ import annotations

from typing import Any

from ...engines.lazy import lazy_attributes
from ..schema import ClassLabel, Image, List, Schema, Value, features

# One Hugging Face config per subset, in the paper's order (the first is the default).
SUBSETS = ("geoeval_2000", "geoeval_backward", "geoeval_aug", "geoeval_hard")
# The release's `dataset_name` values (MATH's is "MATH-Geometry"); the hard subset is a
# collection of its own, with no source dataset per problem.
SOURCES = ("Geometry3K", "PGPS9K", "UniGeo", "GeoQA+", "GeometryQA", "MATH", "MathQA", "GeoEval-hard")
ANSWER_TYPES = ("number", "expression", "coordinate", "option")
PROBLEM_TYPES = ("flat", "solid", "analytic")
COMPLEXITIES = ("Easy", "Middle", "Hard")


SCHEMA: Schema = {
    "id": Value("string"),  # the release's key; backward and aug items keep their main item's
    "subset": ClassLabel(names=list(SUBSETS)),
    "source": ClassLabel(names=list(SOURCES)),
    "problem": Value("string"),  # text.Num_Exp
    "rephrased_problem": Value("string"),  # text.aug_problem (geoeval_aug only)
    "backward_problem": Value("string"),  # backward_text (geoeval_backward only)
    "backward_answer": Value("string"),  # backward_answer_value, the value of the masked x
    "diagram": Image(),  # None for text-only problems
    # The diagram in words (structure then semantic clauses); None when the release has none.
    "diagram_description": Value("string"),
    "choices": List(Value("string")),  # None for free-response problems
    "answer": Value("string"),  # answer_value as text
    # The source's reference solution (program, equation or worked text): the complexity
    # rating measures it; None when the release has none.
    "solution": Value("string"),
    "answer_type": ClassLabel(names=list(ANSWER_TYPES)),  # of the answer the subset grades
    "problem_type": ClassLabel(names=list(PROBLEM_TYPES)),
    "geometry_shapes": List(Value("string")),
    "knowledge_points": List(Value("string")),
    "formal_knowledge_points": List(Value("string")),
    "complexity": ClassLabel(names=list(COMPLEXITIES)),  # None until rated
    "question_length": Value("int32"),  # words in `problem`
}
"""The columns and their types, as `datasets.Features.to_dict()` gives them (see `schema`)."""


def _datasets_features() -> dict[str, Any]:
    """The `datasets` Features of `SCHEMA`. Built on first use (module `__getattr__`):
    importing `datasets` costs half a second that `geomeval list`, `--help` and a run need not pay."""
    return {"FEATURES": features(SCHEMA)}


__getattr__ = lazy_attributes(globals(), ("FEATURES",), _datasets_features)
