"""Offline, deterministic keypoint engine for scoring geometric figure captions (CapGeo-Bench).

    from geomeval.keypoints import parse_caption, match
    result = match(parse_caption(candidate), parse_caption(reference))
    result.recall["relation"], result["numerical"].missed, print(result.report())

A caption becomes canonical keypoints in three dimensions (elements, spatial relations,
numerical relations: `model`); two sets are matched exactly on canonical forms with values
compared by value (`match`). The rules that make two phrasings equal live in `canonical`;
what the parsers emit is described in `parse_en` and `parse_zh`.
"""

from __future__ import annotations

from ._engine import MAX_CHARS
from .canonical import parse_angle, parse_number, values_equal
from .match import DimensionScore, MatchResult, match, summarize
from .model import DIMENSIONS, ELEMENT, NUMERICAL, RELATION, Keypoint, KeypointSet, to_text
from .parse import detect_language, parse_caption


def score_captions(candidate: str, reference: str, language: str = "auto") -> MatchResult:
    """Parse both captions and match them: the one-call form of the CapGeo keypoint score."""
    return match(parse_caption(candidate, language), parse_caption(reference, language))


__all__ = [
    "DIMENSIONS",
    "ELEMENT",
    "MAX_CHARS",
    "NUMERICAL",
    "RELATION",
    "DimensionScore",
    "Keypoint",
    "KeypointSet",
    "MatchResult",
    "detect_language",
    "match",
    "parse_angle",
    "parse_caption",
    "parse_number",
    "score_captions",
    "summarize",
    "to_text",
    "values_equal",
]
