"""ROUGE-L: geomeval's (rouge_score's tokens, rapidfuzz's LCS) against rouge_score's own scorer.

    python bench/rouge_lcs.py [--words N]

rouge_score computes the LCS with an O(n·m) table in pure Python; geomeval uses rapidfuzz's
bit-parallel LCS in C++ and checks the scores against rouge_score's in tests/engines/test_textmetrics.py.
This prints both times and the largest difference on answers of a few sizes, the last one the
size textmetrics.MAX_CHARS allows; it is the measured reason geomeval does not call rouge_score
to score (it needs rouge-score installed: the test extra).
"""

from __future__ import annotations

import argparse
import random
import time


def _text(rng: random.Random, words: int) -> str:
    vocabulary = ["angle", "triangle", "ABC", "equals", "so", "the", "base", "is", "70", "degrees",
                  "isosceles", "radius", "tangent", "perpendicular", "sum", "180", "therefore"]
    return " ".join(rng.choice(vocabulary) for _ in range(words))


def main() -> None:
    from rouge_score import rouge_scorer

    from geomeval.engines.textmetrics import MAX_CHARS, rouge_l

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, nargs="*", default=[100, 1000, 3000, MAX_CHARS // 7])
    args = parser.parse_args()
    rng = random.Random(0)
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    print(f"{'words':>7} {'geomeval s':>11} {'rouge_score s':>14} {'max |diff|':>11}")
    for words in args.words:
        pairs = [(_text(rng, words), _text(rng, words)) for _ in range(3)]
        start = time.perf_counter()
        ours = [rouge_l(a, b) for a, b in pairs]
        mid = time.perf_counter()
        theirs = [scorer.score(b, a)["rougeL"].fmeasure for a, b in pairs]
        end = time.perf_counter()
        diff = max(abs(x - y) for x, y in zip(ours, theirs, strict=True))
        print(f"{words:>7} {mid - start:>11.4f} {end - mid:>14.4f} {diff:>11.2e}")


if __name__ == "__main__":
    main()
