"""GeoEval's complexity rating (Algorithm 1), by hand, and the length buckets."""

from __future__ import annotations

import pytest

from geomeval.benchmarks.geoeval.complexity import (
    DEFAULT_ALPHA,
    EASY,
    HARD,
    MIDDLE,
    Lengths,
    bucket,
    complexity_scores,
    description_length_bucket,
    level,
    measure,
    question_length_bucket,
    rate,
)

# (text, description, program) lengths. Statement = text + description: 10, 30, 50, 30,
# normalised 0, .5, 1, .5; programs 2, 6, 10, 4, normalised 0, .5, 1, .25.
ITEMS = [(10, 0, 2), (20, 10, 6), (40, 10, 10), (30, 0, 4)]


def test_scores_and_levels_by_hand() -> None:
    assert complexity_scores(ITEMS) == pytest.approx([0.0, 0.5, 1.0, 0.375])
    assert rate(ITEMS) == [EASY, MIDDLE, HARD, MIDDLE]
    assert DEFAULT_ALPHA == 0.5


def test_alpha_one_uses_the_statement_only() -> None:
    assert complexity_scores(ITEMS, alpha=1.0) == pytest.approx([0.0, 0.5, 1.0, 0.5])
    assert rate(ITEMS, alpha=1) == [EASY, MIDDLE, HARD, MIDDLE]


def test_alpha_zero_uses_the_program_only() -> None:
    assert complexity_scores(ITEMS, alpha=0.0) == pytest.approx([0.0, 0.5, 1.0, 0.25])
    assert rate(ITEMS, alpha=0) == [EASY, MIDDLE, HARD, MIDDLE]


def test_alpha_moves_an_item_across_an_edge() -> None:
    items = [(0, 0, 0), (10, 0, 10), (1, 0, 9)]  # third: statement .1, program .9
    assert complexity_scores(items, alpha=0.9) == pytest.approx([0.0, 1.0, 0.18])
    assert rate(items, alpha=0.9)[2] == EASY
    assert rate(items, alpha=0.5)[2] == MIDDLE  # 0.5
    assert rate(items, alpha=0.1)[2] == HARD  # 0.82


def test_edges_are_inclusive() -> None:
    # Statement and program both run 0..10, so each item's two parts normalise to tenths.
    items = [(0, 0, 0), (10, 0, 10), (4, 0, 0), (6, 0, 6), (6, 0, 7), (2, 1, 3)]
    assert complexity_scores(items) == pytest.approx([0.0, 1.0, 0.2, 0.6, 0.65, 0.3])
    assert rate(items) == [EASY, HARD, EASY, MIDDLE, HARD, MIDDLE]
    assert level(0.2) == EASY and level(0.2 + 1e-12) == EASY and level(0.2001) == MIDDLE
    assert level(0.6) == MIDDLE and level(0.6 + 1e-12) == MIDDLE and level(0.6001) == HARD
    rounded = 0.3 * 0.2 + 0.7 * 0.2  # 0.19999999999999998 or 0.2 up to rounding: Easy either way
    assert level(rounded) == EASY


def test_degenerate_sets() -> None:
    assert complexity_scores([]) == [] and rate([]) == []
    assert complexity_scores([(30, 12, 8)]) == [0.0] and rate([(30, 12, 8)]) == [EASY]
    assert rate([(5, 5, 5)] * 4) == [EASY] * 4
    # Equal statements: that part has no spread and adds nothing, so C ≤ 1 − α.
    flat_statement = [(20, 0, 0), (10, 10, 5), (20, 0, 10)]
    assert complexity_scores(flat_statement) == pytest.approx([0.0, 0.25, 0.5])
    assert rate(flat_statement) == [EASY, MIDDLE, MIDDLE]
    assert rate(flat_statement, alpha=0.0) == [EASY, MIDDLE, HARD]


def test_named_lengths_and_measure() -> None:
    assert rate([Lengths(text=10, description=0, program=2), Lengths(50, 0, 10)]) == [EASY, HARD]
    lengths = measure(
        "In triangle ABC, AB = 5 and BC = 12. Find AC.",
        ["line A B", "line B C"],
        "g_minus C_3 N_0 V_0",
    )
    assert lengths == Lengths(text=12, description=6, program=4)
    assert measure("Find x.") == Lengths(2, 0, 0)


@pytest.mark.parametrize(
    ("items", "alpha", "message"),
    [
        (ITEMS, -0.1, "alpha"),
        (ITEMS, 1.5, "alpha"),
        (ITEMS, True, "alpha"),
        ([(1, 2)], 0.5, "expected"),
        ([(1, -2, 3)], 0.5, "description length"),
        ([(1, 2, 3.5)], 0.5, "program length"),
    ],
)
def test_invalid_input_is_refused(items: list, alpha: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rate(items, alpha)


@pytest.mark.parametrize(
    ("words", "label"),
    [
        (0, "<=20"),
        (1, "<=20"),
        (20, "<=20"),
        (21, "<=40"),
        (40, "<=40"),
        (41, "<=60"),
        (80, "<=80"),
        (100, "<=100"),
        (101, ">100"),
        (250, ">100"),
    ],
)
def test_question_length_buckets(words: int, label: str) -> None:
    assert question_length_bucket(" ".join(["word"] * words)) == label
    assert question_length_bucket(words) == label


def test_words_are_real_tokens() -> None:
    spaced = "Find  the\nlength of   AB."
    assert question_length_bucket(spaced) == "<=20"
    assert measure(spaced).text == 5  # the official split(" ") would count 8 pieces here


def test_description_buckets_and_generic_bucket() -> None:
    assert description_length_bucket(None) == "<=40"
    assert description_length_bucket(["word " * 30, "word " * 20]) == "<=80"
    assert description_length_bucket("w " * 161) == ">160"
    assert bucket(5, (3, 6)) == "<=6" and bucket(7, (3, 6)) == ">6"
    with pytest.raises(ValueError, match="negative"):
        bucket(-1, (3, 6))


def test_level_names_are_the_papers() -> None:
    assert (EASY, MIDDLE, HARD) == ("Easy", "Middle", "Hard")
