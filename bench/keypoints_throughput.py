"""Caption keypoint scoring throughput: parse both captions and match them, one core.

    python bench/keypoints_throughput.py [--pairs 5000] [--seconds 3]

Pairs: the caption pairs, gold captions and verbose model-style captions of
tests/engines/test_keypoints.py (plane, analytic and solid geometry; English and Chinese), each
gold or verbose caption against itself and against two perturbed copies (a value changed,
the first sentence dropped), cycled to `--pairs` pairs. Every pair is scored
from text: both captions parsed (no cache) and matched. Prints pairs/s and captions/s and
the ratio to the target of thousands of captions per second: 2,000 pairs/s over all pairs
(4,000 captions parsed per second), and 2,000 captions/s on the long model-style captions
alone (the realistic length of a CapGeo caption). PASS when both hold; exits 1 on FAIL.

    python bench/keypoints_throughput.py --against HEAD

also times the engine as committed at a git revision (its src/geomeval/keypoints, read with
`git archive` into a temporary folder and imported under another name; the work tree is not
touched), interleaved with the current engine on the same pairs in the same process, and
prints the throughput ratio current / that revision for each workload.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from itertools import cycle, islice
from pathlib import Path

TARGET = 2000.0  # caption pairs per second (parse + parse + match)
REPO = Path(__file__).resolve().parents[1]


sys.path.insert(0, str(REPO / "tests" / "engines"))  # test_keypoints: the pairs timed


def realistic_pairs(count: int) -> list[tuple[str, str]]:
    import test_keypoints as t

    pairs = list(t.PARAPHRASES)
    for caption, _ in t.GOLD + t.HELDOUT + t.FRESH + t.VERBOSE:
        pairs.append((caption, caption))
        pairs.append((re.sub(r"\d+", lambda m: str(int(m.group(0)) + 1), caption, count=1), caption))
        first = re.split(r"(?<=[.。;；])\s*", caption, maxsplit=1)
        pairs.append((first[-1] or caption, caption))
    return list(islice(cycle(pairs), count))


def engine_at(revision: str, folder: Path) -> object:
    """The keypoints package as committed at `revision`, imported as `keypoints_<hash>` from `folder`."""
    name = "keypoints_" + re.sub(r"\W", "_", revision)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "src/geomeval/keypoints"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith(".py"):
                target = folder / name / Path(member.name).name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(tar.extractfile(member).read())  # type: ignore[union-attr]
    sys.path.insert(0, str(folder))
    return importlib.import_module(name)


def rate(pairs: list[tuple[str, str]], seconds: float, engine: object | None = None) -> tuple[float, float]:
    """Pairs per second, scoring every pair from text (two parses, one match); keypoints per pair."""
    if engine is None:
        from geomeval import keypoints as engine
    match: Callable = engine.match  # type: ignore[attr-defined]
    parse_caption: Callable = engine.parse_caption  # type: ignore[attr-defined]

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
    parser.add_argument("--against", metavar="REVISION", help="also time the engine at this git revision (e.g. HEAD)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds with --against")
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
    if args.against:
        compare(args.against, pairs, verbose, args.seconds, args.rounds)
    print("PASS" if verdict else "FAIL")
    return 0 if verdict else 1


def compare(revision: str, pairs: list[tuple[str, str]], verbose: list[tuple[str, str]], seconds: float, rounds: int) -> None:
    """Current engine vs the one at `revision`, alternating runs on the same pairs (best of `rounds`)."""
    from geomeval import keypoints as current

    with tempfile.TemporaryDirectory() as folder:
        old = engine_at(revision, Path(folder))
        for name, workload in (("all pairs", pairs), ("verbose only", verbose)):
            best = {"current": 0.0, revision: 0.0}
            for _ in range(rounds):
                for label, engine in (("current", current), (revision, old)):
                    best[label] = max(best[label], rate(workload, seconds / rounds, engine)[0])
            print(f"{name:14s}: current {best['current']:7.0f} pairs/s, {revision} {best[revision]:7.0f} pairs/s "
                  f"-> ratio current/{revision} {best['current'] / best[revision]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
