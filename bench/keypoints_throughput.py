"""Caption keypoint scoring throughput: parse both captions and match them, one core.

    python bench/keypoints_throughput.py [--pairs 5000] [--seconds 3]

Pairs: the caption pairs, gold captions and verbose model-style captions of
tests/test_keypoints.py (plane, analytic and solid geometry; English and Chinese), each
gold or verbose caption against itself and against two perturbed copies (a value changed,
the first sentence dropped), cycled to `--pairs` pairs. Every pair is scored
from text: both captions parsed (no cache) and matched. Prints pairs/s and captions/s and
the ratio to the target of thousands of captions per second: 2,000 pairs/s over all pairs
(4,000 captions parsed per second), and 2,000 captions/s on the long model-style captions
alone (the realistic length of a CapGeo caption). PASS when both hold; exits 1 on FAIL.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from itertools import cycle, islice
from pathlib import Path

TARGET = 2000.0  # caption pairs per second (parse + parse + match)
REPO = Path(__file__).resolve().parents[1]


sys.path.insert(0, str(REPO / "tests"))


def realistic_pairs(count: int) -> list[tuple[str, str]]:
    import test_keypoints as t

    pairs = list(t.PARAPHRASES)
    for caption, _ in t.GOLD + t.HELDOUT + t.FRESH + t.VERBOSE:
        pairs.append((caption, caption))
        pairs.append((re.sub(r"\d+", lambda m: str(int(m.group(0)) + 1), caption, count=1), caption))
        first = re.split(r"(?<=[.。;；])\s*", caption, maxsplit=1)
        pairs.append((first[-1] or caption, caption))
    return list(islice(cycle(pairs), count))


def rate(pairs: list[tuple[str, str]], seconds: float) -> tuple[float, float]:
    """Pairs per second, scoring every pair from text (two parses, one match); keypoints per pair."""
    from geomeval.keypoints import match, parse_caption

    done, keypoints, start = 0, 0, time.perf_counter()
    while True:
        for candidate, reference in pairs:
            keypoints += match(parse_caption(candidate), parse_caption(reference)).overall.gt
        done += len(pairs)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed, keypoints / done


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    import test_keypoints as t

    from geomeval.keypoints import match, parse_caption

    pairs = realistic_pairs(args.pairs)
    verbose = [(c, c) for c, _ in t.VERBOSE]
    match(parse_caption(pairs[0][0]), parse_caption(pairs[0][1]))  # import-time work out of the timing

    all_rate, per_pair = rate(pairs, args.seconds)
    verbose_rate, verbose_kp = rate(verbose, args.seconds)
    chars = sum(len(c) + len(r) for c, r in pairs) / (2 * len(pairs))
    verbose_chars = sum(len(c) for c, _ in verbose) / len(verbose)
    print(f"caption pairs: {len(pairs)} ({len(set(pairs))} distinct), {chars:.0f} characters per caption, "
          f"{per_pair:.1f} reference keypoints per pair")
    print(f"all pairs     : {all_rate:7.0f} pairs/s = {2 * all_rate:7.0f} captions/s  "
          f"-> {all_rate / TARGET:4.1f}x the {TARGET:,.0f} pairs/s target")
    print(f"verbose only  : {verbose_rate:7.0f} pairs/s = {2 * verbose_rate:7.0f} captions/s  "
          f"-> {2 * verbose_rate / TARGET:4.1f}x the {TARGET:,.0f} captions/s target "
          f"({len(verbose)} model-style captions, {verbose_chars:.0f} characters, {verbose_kp:.0f} keypoints each)")
    print(f"per pair      : {1e6 / all_rate:7.1f} µs (all), {1e6 / verbose_rate:7.1f} µs (verbose)")
    verdict = all_rate >= TARGET and 2 * verbose_rate >= TARGET
    print("PASS" if verdict else "FAIL")
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
