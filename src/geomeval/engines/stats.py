"""Uncertainty and paired tests for the numbers a run reports, in plain Python.

Why each choice:
- A mean of 0/1 scores gets the analytic standard error sqrt(p(1-p)/n) and the Wilson
  score interval, which stays inside [0, 1] and behaves at p = 0 or 1 and small n, where
  the normal interval does not.
- Any other mean gets the analytic standard error s/sqrt(n) and a percentile bootstrap
  interval drawn with a fixed seed, so the same records always give the same interval;
  above BOOTSTRAP_UP_TO items (where the mean is close to normal and resampling every
  breakdown cell would cost seconds) the normal interval mean ± z·s/sqrt(n).
- Items that share a source problem (a benchmark sets `meta["cluster"]`, e.g. augmented
  variants of one problem) are not independent: the standard error is the cluster-robust
  one, G/(G-1) * sum_g (sum_{i in g} (y_i - mean))^2 / n^2, with a normal interval.
- Paired comparisons use only items both runs scored: McNemar's exact test (a two-sided
  binomial test on the discordant pairs) for 0/1 scores, a sign-flip permutation test
  otherwise (exact up to 2^12 flips, else a seeded Monte Carlo), and a seeded paired
  bootstrap interval for the difference.

scipy is not needed at run time; tests check each statistic against scipy on the same data.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from statistics import NormalDist
from typing import Any

LEVEL = 0.95
BOOTSTRAP_DRAWS = 2000
BOOTSTRAP_UP_TO = 500
PERMUTATIONS = 10000
EXACT_FLIPS_UP_TO = 12  # items: 2^12 sign patterns are enumerated exactly
SEED = 0
# Below this many items, or with an interval wider than this many points either side, a
# report says plainly that the number cannot separate models.
FEW_ITEMS = 30
WIDE_HALF_WIDTH = 0.05


def _z(level: float = LEVEL) -> float:
    return NormalDist().inv_cdf(0.5 + level / 2)


def is_binary(values: Sequence[float]) -> bool:
    return all(v in (0, 1) for v in values)


def wilson_interval(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The Wilson score interval for a proportion (as scipy's binomtest(...).proportion_ci
    with method="wilson")."""
    if n == 0:
        return (0.0, 1.0)
    z = _z(level)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    position = q * (len(sorted_values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def bootstrap_interval(
    values: Sequence[float], *, level: float = LEVEL, draws: int = BOOTSTRAP_DRAWS, seed: int = SEED
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean, resampling items with a fixed seed (the
    normal interval above BOOTSTRAP_UP_TO items)."""
    n = len(values)
    if n > BOOTSTRAP_UP_TO:
        mean, half = sum(values) / n, _z(level) * sample_sd(values) / math.sqrt(n)
        return (mean - half, mean + half)
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(draws))
    alpha = (1 - level) / 2
    return (quantile(means, alpha), quantile(means, 1 - alpha))


def sample_sd(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


def clustered_se(values: Sequence[float], clusters: Sequence[Hashable]) -> float:
    """Cluster-robust standard error of a mean (CR1: G/(G-1) small-sample factor). With one
    item per cluster it equals s/sqrt(n)."""
    n = len(values)
    mean = sum(values) / n
    sums: dict[Hashable, float] = {}
    for value, cluster in zip(values, clusters, strict=True):
        sums[cluster] = sums.get(cluster, 0.0) + (value - mean)
    groups = len(sums)
    if groups < 2:
        return float("nan")
    return math.sqrt(groups / (groups - 1) * sum(s * s for s in sums.values())) / n


def mean_uncertainty(
    values: Sequence[float], clusters: Sequence[Hashable] | None = None, *, level: float = LEVEL
) -> dict[str, Any]:
    """Standard error and interval of the mean of `values`, with the method used; None
    fields when there are too few values to say anything."""
    n = len(values)
    if n == 0:
        return {"se": None, "ci": None, "ci_method": None}
    mean = sum(values) / n
    if clusters is not None and len(set(clusters)) < n:
        se = clustered_se(values, clusters)
        if math.isnan(se):
            return {"se": None, "ci": None, "ci_method": "clustered (one cluster: no interval)",
                    "clusters": 1}
        z = _z(level)
        low, high = mean - z * se, mean + z * se
        if is_binary(values):
            low, high = max(0.0, low), min(1.0, high)
        return {"se": se, "ci": [low, high], "ci_method": "clustered normal", "clusters": len(set(clusters))}
    if is_binary(values):
        successes = int(sum(values))
        return {"se": math.sqrt(mean * (1 - mean) / n), "ci": list(wilson_interval(successes, n, level)),
                "ci_method": "wilson"}
    if n < 2:
        return {"se": None, "ci": None, "ci_method": "bootstrap (one item: no interval)"}
    method = "bootstrap" if n <= BOOTSTRAP_UP_TO else "normal"
    return {"se": sample_sd(values) / math.sqrt(n), "ci": list(bootstrap_interval(values, level=level)),
            "ci_method": method}


def too_few(n: int, ci: Sequence[float] | None) -> bool:
    """True when a number rests on too few items, or its interval is too wide, to rank models."""
    return n < FEW_ITEMS or (ci is not None and (ci[1] - ci[0]) / 2 > WIDE_HALF_WIDTH)


def _binom_two_sided_half(k: int, n: int) -> float:
    """Two-sided exact binomial p-value at p = 1/2 for the smaller count k (symmetric case)."""
    if n == 0:
        return 1.0
    k = min(k, n - k)
    log_half_n = -n * math.log(2)
    tail = sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half_n)
               for i in range(k + 1))
    return min(1.0, 2 * tail)


def mcnemar(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """McNemar's exact test on paired 0/1 scores: the discordant pairs, b-only right against
    a-only right, tested against an even split."""
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x == 1 and y == 0)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if x == 0 and y == 1)
    return {"test": "mcnemar exact", "p_value": _binom_two_sided_half(only_a, only_a + only_b),
            "only_A_right": only_a, "only_B_right": only_b}


def permutation_test(
    a: Sequence[float], b: Sequence[float], *, permutations: int = PERMUTATIONS, seed: int = SEED
) -> dict[str, Any]:
    """Two-sided paired sign-flip test of mean(b - a) = 0: exact when few items differ,
    else a seeded Monte Carlo (its p-value counts the observed split, so it is never 0)."""
    diffs = [y - x for x, y in zip(a, b, strict=True) if y != x]
    observed = abs(sum(diffs))
    tolerance = 1e-12 * max(1.0, observed)
    if not diffs:
        return {"test": "sign-flip permutation", "p_value": 1.0, "exact": True}
    if len(diffs) <= EXACT_FLIPS_UP_TO:
        extreme = 0
        total = 1 << len(diffs)
        for mask in range(total):
            flipped = sum(-d if mask >> i & 1 else d for i, d in enumerate(diffs))
            extreme += abs(flipped) >= observed - tolerance
        return {"test": "sign-flip permutation", "p_value": extreme / total, "exact": True}
    rng = random.Random(seed)
    extreme = sum(
        abs(sum(d if rng.random() < 0.5 else -d for d in diffs)) >= observed - tolerance
        for _ in range(permutations)
    )
    return {"test": "sign-flip permutation", "p_value": (extreme + 1) / (permutations + 1), "exact": False,
            "permutations": permutations}


def paired_difference(a: Sequence[float], b: Sequence[float], *, level: float = LEVEL) -> dict[str, Any]:
    """B - A over paired items: the mean difference, its standard error, a seeded bootstrap
    interval, and the paired test that fits the scores."""
    n = len(a)
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    delta = sum(diffs) / n if n else None
    result: dict[str, Any] = {"delta": delta, "se": sample_sd(diffs) / math.sqrt(n) if n > 1 else None,
                              "ci": list(bootstrap_interval(diffs, level=level)) if n > 1 else None}
    if n:
        result.update(mcnemar(a, b) if is_binary(a) and is_binary(b) else permutation_test(a, b))
    return result


# ------------------------------------------------------------------------- correlation


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r; None when it is undefined (fewer than two pairs, or a constant side)."""
    n = len(xs)
    if n < 2 or n != len(ys):
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    sy = math.sqrt(sum((y - my) ** 2 for y in ys))
    if sx == 0 or sy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / (sx * sy)


def ranks(values: Sequence[float]) -> list[float]:
    """Average ranks, 1-based (ties share the mean of their positions), as Spearman's rho needs."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rho: Pearson's r of the average ranks; None where that is undefined."""
    return pearson(ranks(xs), ranks(ys)) if len(xs) == len(ys) else None
