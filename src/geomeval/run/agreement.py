"""How far two judges agree on the same outputs: `geomeval agreement`.

The papers validate their judges against people this way (ME2 reports Spearman correlations
with human ratings, GGBench a Pearson correlation), and a user who wants a cheaper judge
needs the same check. Two sources of judgments are paired by item id: two run folders
(the same outputs rescored by two judges: `geomeval score` into a copy) or a run and a
JSONL file of human labels, one object per line, {"id": ..., "<metric>": value, ...}.

Per metric, over the items both sides scored: Cohen's kappa (quadratic-weighted when the
scores take more than two levels, as Likert ratings do, on the metric's declared scale where
it has one: `declared_scale`; plain for 0/1), Spearman and
Pearson correlations, and Krippendorff's alpha (nominal for 0/1, interval otherwise), each
with a seeded bootstrap 95% interval over items. Plain Python; tests check each against
scikit-learn, scipy or Krippendorff's published examples.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..core.jsonlines import objects_with_id
from ..engines.stats import LEVEL, SEED, pearson, quantile, spearman

DRAWS = 1000
MAX_LABEL_LINES = 1_000_000
Pairs = Sequence[tuple[float, float]]


def cohen_kappa(a: Sequence[Any], b: Sequence[Any], weights: str | None = None,
                labels: Sequence[Any] | None = None) -> float:
    """Cohen's kappa over `labels` (a declared scale, in order; default the categories seen,
    sorted), with no, linear or quadratic weights on the categories' positions (as
    scikit-learn's cohen_kappa_score with `labels`). A weighted kappa depends on the scale: a
    1-5 rating where nobody gave a 3 still has 4 two steps from 2."""
    if labels is None:
        labels = sorted(set(a) | set(b))
    else:
        labels = list(labels)
        outside = sorted((set(a) | set(b)) - set(labels))
        if outside:
            raise UsageError(f"scores {outside[:5]} lie outside the declared scale {labels}")
    index = {label: i for i, label in enumerate(labels)}
    k, n = len(labels), len(a)
    if k < 2:
        return float("nan")
    observed = [[0.0] * k for _ in range(k)]
    for x, y in zip(a, b, strict=True):
        observed[index[x]][index[y]] += 1
    rows = [sum(row) for row in observed]
    cols = [sum(observed[i][j] for i in range(k)) for j in range(k)]

    def weight(i: int, j: int) -> float:
        if weights is None:
            return 0.0 if i == j else 1.0
        return abs(i - j) if weights == "linear" else (i - j) ** 2

    disagreement = sum(weight(i, j) * observed[i][j] for i in range(k) for j in range(k))
    expected = sum(weight(i, j) * rows[i] * cols[j] / n for i in range(k) for j in range(k))
    return 1 - disagreement / expected if expected else float("nan")


def krippendorff_alpha(units: Sequence[Sequence[float | None]], level: str = "interval") -> float:
    """Krippendorff's alpha from units (items), each the values its coders gave (None for a
    coder who gave none); `level` "nominal" or "interval". Units with fewer than two values
    are not pairable and are left out, as the coefficient defines."""
    pairable = [[v for v in unit if v is not None] for unit in units]
    pairable = [unit for unit in pairable if len(unit) >= 2]
    if level == "nominal":
        def delta(x: float, y: float) -> float:
            return 0.0 if x == y else 1.0
    elif level == "interval":
        def delta(x: float, y: float) -> float:
            return (x - y) ** 2
    else:
        raise ValueError(f"level {level!r}: use nominal or interval")  # chosen by the code, not typed by a user
    total = sum(len(unit) for unit in pairable)
    if total < 2:
        return float("nan")
    observed = sum(
        sum(delta(x, y) for i, x in enumerate(unit) for j, y in enumerate(unit) if i != j) / (len(unit) - 1)
        for unit in pairable
    ) / total
    values = [v for unit in pairable for v in unit]
    counts: dict[float, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    expected = sum(counts[x] * counts[y] * delta(x, y) for x in counts for y in counts) / (total * (total - 1))
    return 1 - observed / expected if expected else float("nan")


def _interval(pairs: Pairs, statistic: Callable[[Pairs], float], draws: int = DRAWS,
              seed: int = SEED) -> list[float] | None:
    """Seeded percentile bootstrap over items; draws where the statistic is undefined (all
    one value) are skipped, and no interval is given when most are."""
    rng = random.Random(seed)
    found = []
    for _ in range(draws):
        value = statistic(rng.choices(pairs, k=len(pairs)))
        if not math.isnan(value):
            found.append(value)
    if len(found) < draws / 2:
        return None
    found.sort()
    alpha = (1 - LEVEL) / 2
    return [quantile(found, alpha), quantile(found, 1 - alpha)]


def _nan_if_none(value: float | None) -> float:
    """The correlations say "undefined" with None; the coefficients here with NaN."""
    return float("nan") if value is None else value


def declared_scale(benchmark: str | None, metric: str) -> tuple[float, ...] | None:
    """The levels a metric's scores take by its declaration, in order, or None where it takes
    any value (a share, a text similarity). ME2's judge ratings are 1-5 as published, and
    their " (0-100)" forms (s - 1) / 4; GGBench's rubric ratings are stored as s / 5, and their
    " (0-100)" forms (s - 1) / 4 (VLM-I can average two ratings, so it has no fixed scale)."""
    ratings = (1, 2, 3, 4, 5)
    if benchmark == "me2":
        from ..benchmarks.me2.scoring import LIKERT, RESCALED_SUFFIX

        if metric in LIKERT:
            return tuple(float(s) for s in ratings)
        if metric in {name + RESCALED_SUFFIX for name in LIKERT}:
            return tuple((s - 1) / 4 for s in ratings)
    if benchmark == "ggbench":
        from ..benchmarks.ggbench.scoring import JUDGE_METRICS, RESCALED, RESCALED_SUFFIX

        if metric in JUDGE_METRICS and metric != "VLM-I":
            return tuple(s / 5 for s in ratings)
        if metric in {name + RESCALED_SUFFIX for name in RESCALED if name != "VLM-I"}:
            return tuple((s - 1) / 4 for s in ratings)
    return None


def agreement(pairs: Pairs, scale: Sequence[float] | None = None) -> dict[str, Any]:
    """Every coefficient, with its interval, for (A, B) pairs of one metric's scores; `scale`
    the metric's declared levels (`declared_scale`), which weighted kappa is computed on,
    else the levels observed."""
    observed = sorted({v for pair in pairs for v in pair})
    if scale is not None:
        by_value = {round(v, 9): v for v in scale}
        pairs = [(by_value.get(round(x, 9), x), by_value.get(round(y, 9), y)) for x, y in pairs]
    levels = list(scale) if scale is not None else observed
    binary = set(levels) <= {0.0, 1.0}
    weights = None if len(levels) <= 2 else "quadratic"
    level = "nominal" if binary else "interval"
    statistics: dict[str, Callable[[Pairs], float]] = {
        "kappa": lambda p: cohen_kappa([x for x, _ in p], [y for _, y in p], weights, scale),
        "spearman": lambda p: _nan_if_none(spearman([x for x, _ in p], [y for _, y in p])),
        "pearson": lambda p: _nan_if_none(pearson([x for x, _ in p], [y for _, y in p])),
        "alpha": lambda p: krippendorff_alpha([[x, y] for x, y in p], level),
    }
    found: dict[str, Any] = {"items": len(pairs), "levels": len(levels),
                             "kappa_weights": weights or "none", "alpha_level": level,
                             "scale": "declared" if scale is not None else "observed"}
    for name, statistic in statistics.items():
        value = statistic(pairs) if len(pairs) >= 2 else float("nan")
        found[name] = None if math.isnan(value) else value
        found[f"{name}_ci"] = _interval(pairs, statistic) if found[name] is not None else None
    return found


def _run_scores(run_dir: Path) -> tuple[dict[str, dict[str, float]], str]:
    from ..core.runfiles import RUN_CONFIG, SAMPLES, read_config, read_samples

    if not (run_dir / RUN_CONFIG).exists():
        raise FileNotFoundError(f"{run_dir / RUN_CONFIG} not found: is {run_dir} a geomeval run folder?")
    config = read_config(run_dir / RUN_CONFIG)
    scores = {
        r.id: {m: float(s.value) for m, s in r.scores.items() if s.value is not None}
        for r in read_samples(run_dir / SAMPLES)
    }
    return scores, f"{run_dir} (judge {config.get('judge')})"


def read_labels(path: Path) -> dict[str, dict[str, float]]:
    """Human labels: JSONL, {"id": ..., "<metric>": number, ...} per line."""
    labels: dict[str, dict[str, float]] = {}
    for number, row in objects_with_id(path, max_lines=MAX_LABEL_LINES):
        values = {}
        for key, value in row.items():
            if key == "id" or value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise UsageError(f"{path}, line {number}: {key!r} is not a number")
            values[key] = float(value)
        labels[str(row["id"])] = values
    return labels


def compare_judgments(run_a: Path, other: Path, metrics: Sequence[str] | None = None) -> dict[str, Any]:
    """Agreement per metric between run A's scores and run B's (a folder) or human labels (a
    file), over the items both scored."""
    scores_a, name_a = _run_scores(run_a)
    from ..core.runfiles import RUN_CONFIG, read_config

    benchmark = read_config(run_a / RUN_CONFIG).get("benchmark")
    if other.is_dir():
        scores_b, name_b = _run_scores(other)
    else:
        scores_b, name_b = read_labels(other), f"{other} (labels)"
    common = [i for i in scores_a if i in scores_b]
    if not common:
        raise UsageError(f"{run_a} and {other} share no items")
    if metrics is None:
        metrics = sorted({m for i in common for m in scores_a[i]} & {m for i in common for m in scores_b[i]})
    if not metrics:
        raise UsageError(f"{run_a} and {other} share no scored metric")
    table = {}
    for metric in metrics:
        pairs = [(scores_a[i][metric], scores_b[i][metric]) for i in common
                 if metric in scores_a[i] and metric in scores_b[i]]
        table[metric] = agreement(pairs, declared_scale(benchmark, metric))
    return {"A": name_a, "B": name_b, "common_items": len(common), "metrics": table}
