"""ME2's typed schema: the contract between the builder, the Hub copy and the scorer.

ME2 pairs a problem (text and figure) with a teacher's solution whose figure is the problem
figure plus the elements a teacher would draw or highlight: the *visual keypoints*. Its
keypoint-identification task offers five candidate keypoint sets; four are other items'
keypoints, chosen as the nearest by problem text, by solution summary and by keypoints, and
one at random, so `option_sources` records where each option came from.
"""

from __future__ import annotations

from typing import Any

from ...engines.lazy import lazy_attributes
from ..schema import ClassLabel, Image, List, Schema, Value, features

DOMAINS = ("geometry", "graph")
QUESTION_FORMATS = ("multiple-choice", "short-answer")
OPTION_LETTERS = ("A", "B", "C", "D", "E")
# Korean (and Chinese) problem sets number the five options ①–⑤.
CIRCLED_OPTIONS: dict[str, str] = dict(zip("①②③④⑤", OPTION_LETTERS, strict=True))
# Where each of the five keypoint options comes from: the item's own keypoints, or another
# item's, taken as the nearest by problem text, by summary, by keypoints, or at random.
OPTION_SOURCES = ("correct", "similar_problem", "similar_summary", "similar_keypoints", "random")
# A keypoint-identification record's meta key: True when the prompt showed the solution
# summary (the paper's setup), False in the Appendix C ablation that withholds it.
ANCHORED = "summary_anchoring"
# The release's `question_answer_type` values: (domain, question format).
QUESTION_ANSWER_TYPES: dict[str, tuple[str, str]] = {
    "geometry_choice": ("geometry", "multiple-choice"),
    "geometry_short": ("geometry", "short-answer"),
    "graph_choice": ("graph", "multiple-choice"),
    "graph_short": ("graph", "short-answer"),
}


KEYPOINT = {"element": Value("string"), "description": Value("string")}
SCHEMA: Schema = {
    "id": Value("string"),
    "problem": Value("string"),  # problem_text (a multiple-choice problem lists its options)
    "problem_image": Image(),
    "solution": Value("string"),  # solution_text, the teacher's worked explanation
    # The problem figure with only the keypoints added; None when the release has none.
    "solution_image": Image(),
    "answer": Value("string"),  # answer_text (an option letter for multiple-choice)
    "visual_keypoints": List(KEYPOINT),  # what the solution figure adds or highlights
    "solution_summary": Value("string"),  # summary_solution_text
    "domain": ClassLabel(names=list(DOMAINS)),
    "question_format": ClassLabel(names=list(QUESTION_FORMATS)),
    "chapter": Value("string"),  # chapter_title
    "section": Value("string"),  # section_title
    # Five candidate keypoint sets in A-E order, each as the text the model is shown.
    "keypoint_options": List(Value("string")),
    "keypoint_answer": ClassLabel(names=list(OPTION_LETTERS)),
    # Provenance of each option, A-E; None when the release does not record it.
    "option_sources": List(ClassLabel(names=list(OPTION_SOURCES))),
    # The pool item each option's keypoints were taken from, A-E; None when unrecorded.
    "option_items": List(Value("string")),
}
"""The columns and their types, as `datasets.Features.to_dict()` gives them (see `schema`)."""


def _datasets_features() -> dict[str, Any]:
    """The `datasets` Features of `SCHEMA`. Built on first use (module `__getattr__`):
    importing `datasets` costs half a second that `geomeval list`, `--help` and a run need not pay."""
    return {"FEATURES": features(SCHEMA)}


__getattr__ = lazy_attributes(globals(), ("FEATURES",), _datasets_features)
