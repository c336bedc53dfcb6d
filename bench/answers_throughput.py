"""Answer-check throughput on realistic pairs, geomeval vs math-verify, side by side, one core.

    python bench/answers_throughput.py [--seconds 3]

Pairs: every gold answer of the embedded sample and (when present) the real GeoLaux
sample, each against the prediction forms models actually write (LaTeX, unicode,
decimal, worded, option letter, wrong value). Like for like: every checker runs on all the
pairs, whole passes, on the same core; geomeval with its symbolic fallback off and on
(math-verify always compares symbolically). Prints pairs/s for each, the ratios between
them, and the ratio to the 2,000 pairs/s target.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

TARGET = 2000.0
REPO = Path(__file__).resolve().parents[1]


def realistic_pairs() -> list[tuple[str, str, list[str], str | None]]:
    from geomeval.benchmarks.geolaux.data import sample_path

    sources = [sample_path() / "GeoLaux_sample.json", REPO.parent / "shared/data/geolaux_mini_sample/GeoLaux_minidata.json"]
    pairs = []
    for source in sources:
        if not source.is_file():
            continue
        for record in json.loads(source.read_text(encoding="utf-8")).values():
            gold = record["number_answer"]
            if gold in (None, "null"):
                continue
            unit = None if record.get("unit") in (None, "null") else record["unit"]
            latex = gold.replace("√", "\\sqrt").replace("π", "\\pi")
            predictions = [gold, f"${latex}$", f"x = {gold} cm", f"{gold}°" if unit else f"{gold}.0", "12.5", "B"]
            pairs += [(p, gold, record["choices"], unit) for p in predictions]
    return pairs


def rate(fn, pairs, seconds: float) -> float:
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for pair in pairs:
            fn(*pair)
        done += len(pairs)
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    from math_verify import parse, verify

    from geomeval.answers import check_answer
    from geomeval.answers.mathexpr import _values, parse_quantity

    pairs = realistic_pairs()

    def ours(pred, gold, choices, unit):
        return check_answer(pred, gold, choices=choices, unit=unit, symbolic=False)

    def ours_cold(pred, gold, choices, unit):
        parse_quantity.cache_clear()
        _values.cache_clear()
        return check_answer(pred, gold, choices=choices, unit=unit, symbolic=False)

    def math_verify(pred, gold, choices, unit):
        return verify(parse(f"${gold}$"), parse(pred))

    def ours_symbolic(pred, gold, choices, unit):
        parse_quantity.cache_clear()
        _values.cache_clear()
        return check_answer(pred, gold, choices=choices, unit=unit, symbolic=True)

    warm = rate(ours, pairs, args.seconds)
    cold = rate(ours_cold, pairs, args.seconds)
    symbolic = rate(ours_symbolic, pairs, args.seconds)
    mv = rate(math_verify, pairs, args.seconds)
    print(f"realistic pairs: {len(pairs)}, every checker on all of them, one core")
    print(f"geomeval (parse cache warm)  : {warm:10.0f} pairs/s  = {warm / TARGET:5.1f}x the 2,000/s target")
    print(f"geomeval (parse cache cold)  : {cold:10.0f} pairs/s  = {cold / TARGET:5.1f}x the 2,000/s target")
    print(f"geomeval (cold, symbolic on) : {symbolic:10.0f} pairs/s  = {symbolic / TARGET:5.1f}x the 2,000/s target")
    print(f"math-verify parse+verify     : {mv:10.0f} pairs/s")
    print(f"ratio geomeval cold / math-verify: {cold / mv:.0f}x; with the symbolic fallback on: {symbolic / mv:.0f}x")


if __name__ == "__main__":
    main()
