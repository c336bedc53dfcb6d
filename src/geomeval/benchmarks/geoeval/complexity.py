"""GeoEval's complexity rating (the paper's Algorithm 1) and question-length buckets.

Each problem gets

    C = α · norm(len(text) + len(description)) + (1 − α) · norm(len(solution program))

where norm is min–max normalisation over the set being rated, and a level: Easy for
C ≤ 0.2, Middle for 0.2 < C ≤ 0.6, Hard above 0.6. The levels are relative to the
set, so rate the whole release once and store the levels; rating a 10-item sample
on its own gives different levels.

Choices the paper leaves open, made here explicitly:
- α defaults to 0.5. The paper gives no value; 0.5 weighs what the problem states
  and what its solution takes equally, the neutral choice without evidence for
  either, and α is a parameter so another weighting can be reproduced.
- Degenerate sets: a component with no spread (one item, or every item the same
  length) normalises to 0 for every item, as scikit-learn's MinMaxScaler does, so it
  adds nothing; a set in which nothing varies rates every item Easy. An empty set
  rates to an empty list.
- The level edges are compared with a 1e-9 tolerance, so a score that is 0.2 up to
  floating-point rounding is Easy, as the paper's "≤ 0.2" intends.
- Lengths are whatever unit the caller counts in (`measure` counts words), given per
  item as (text, description, program); an item with no program counts 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

DEFAULT_ALPHA = 0.5
EASY, MIDDLE, HARD = "Easy", "Middle", "Hard"  # the paper's names, as features.COMPLEXITIES
EASY_MAX = 0.2
MIDDLE_MAX = 0.6
EDGE_TOLERANCE = 1e-9
# Question-length buckets in words, as the official analysis groups them: ≤20, ≤40, …, >100.
QUESTION_LENGTH_EDGES = (20, 40, 60, 80, 100)
# Diagram-description buckets in words, likewise: ≤40, ≤80, ≤120, ≤160, >160.
DESCRIPTION_LENGTH_EDGES = (40, 80, 120, 160)


class Lengths(NamedTuple):
    """One problem's lengths: its text, its diagram description and its solution program."""

    text: int
    description: int
    program: int


def measure(
    text: str,
    description: str | Sequence[str] | None = None,
    program: str | Sequence[str] | None = None,
) -> Lengths:
    """Word counts (whitespace-separated tokens) of a problem's parts; None counts 0."""
    return Lengths(_words(text), _words(description), _words(program))


def _words(part: str | Sequence[str] | None) -> int:
    if part is None:
        return 0
    if isinstance(part, str):
        return len(part.split())
    return sum(len(str(piece).split()) for piece in part)


def complexity_scores(
    items: Sequence[tuple[int, int, int]], alpha: float = DEFAULT_ALPHA
) -> list[float]:
    """Algorithm 1's score C in [0, 1] for every item, normalised over `items`."""
    _check_alpha(alpha)
    rows = [_checked(index, item) for index, item in enumerate(items)]
    statement = _min_max([text + description for text, description, _ in rows])
    solution = _min_max([program for _, _, program in rows])
    return [alpha * s + (1 - alpha) * p for s, p in zip(statement, solution, strict=True)]


def level(score: float) -> str:
    """Easy (C ≤ 0.2), Middle (0.2 < C ≤ 0.6) or Hard (C > 0.6)."""
    if score <= EASY_MAX + EDGE_TOLERANCE:
        return EASY
    if score <= MIDDLE_MAX + EDGE_TOLERANCE:
        return MIDDLE
    return HARD


def rate(items: Sequence[tuple[int, int, int]], alpha: float = DEFAULT_ALPHA) -> list[str]:
    """The level of every item, rated against the others in `items`."""
    return [level(score) for score in complexity_scores(items, alpha)]


def _min_max(values: list[int]) -> list[float]:
    if not values:
        return []
    low, high = min(values), max(values)
    if high == low:  # no spread: the component tells the items apart not at all
        return [0.0] * len(values)
    return [(value - low) / (high - low) for value in values]


def _check_alpha(alpha: float) -> None:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be a number in [0, 1], got {alpha!r}")


def _checked(index: int, item: tuple[int, int, int]) -> Lengths:
    if len(item) != 3:
        raise ValueError(
            f"item {index}: expected (text, description, program) lengths, got {item!r}"
        )
    for name, value in zip(Lengths._fields, item, strict=True):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(
                f"item {index}: {name} length must be a non-negative integer, got {value!r}"
            )
    return Lengths(*item)


def bucket(count: int, edges: Sequence[int]) -> str:
    """The bucket label of `count` for ascending upper `edges`: "<=20", …, ">100"."""
    if count < 0:
        raise ValueError(f"a length cannot be negative, got {count}")
    for edge in edges:
        if count <= edge:
            return f"<={edge}"
    return f">{edges[-1]}"


def question_length_bucket(question: str | int) -> str:
    """The question's word-count bucket: <=20, <=40, <=60, <=80, <=100 or >100.

    Takes the text, or its word count already made (the data's `question_length`).
    Words are whitespace-separated tokens. The official script splits on single
    spaces, so runs of spaces or newlines count differently there (as empty or
    glued tokens); counting real tokens is the intent.
    """
    count = question if isinstance(question, int) else _words(question)
    return bucket(count, QUESTION_LENGTH_EDGES)


def description_length_bucket(description: str | Sequence[str] | None) -> str:
    """The diagram description's word-count bucket: <=40, <=80, <=120, <=160 or >160."""
    return bucket(_words(description), DESCRIPTION_LENGTH_EDGES)
