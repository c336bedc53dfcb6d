"""Means over scored items, with coverage, overall and per breakdown group."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .records import SampleRecord
from .stats import mean_uncertainty

JUDGE_OUTCOMES = ("decided", "fallback", "failed")


def metric_summary(records: Sequence[SampleRecord], metric: str) -> dict[str, Any]:
    """Mean of the scored values with its standard error and 95% interval, how many were
    scored, and why the rest were not. Items sharing `meta["cluster"]` (variants of one
    source problem) are counted as one cluster in the standard error."""
    scored = [r for r in records if metric in r.scores and r.scores[metric].scored]
    values = [float(r.scores[metric].value) for r in scored]  # type: ignore[arg-type]
    clusters = [r.meta.get("cluster", r.id) for r in scored]
    reasons = Counter(
        (r.scores[metric].unscored if metric in r.scores else None) or "no score"
        for r in records
        if metric not in r.scores or not r.scores[metric].scored
    )
    needs_judge = sum(1 for r in records if metric in r.scores and r.scores[metric].needs_judge)
    not_applicable = sum(1 for r in records if metric in r.scores and r.scores[metric].not_applicable)
    total = len(records)
    judge = Counter(r.scores[metric].judge for r in records if metric in r.scores and r.scores[metric].judge)
    return {
        "value": (sum(values) / len(values)) if values else None,
        **mean_uncertainty(values, clusters),
        "scored": len(values),
        "total": total,
        "coverage": (len(values) / total) if total else 0.0,
        "needs_judge": needs_judge,
        "not_applicable": not_applicable,
        "unscored_reasons": dict(reasons.most_common(5)),
        # Items the LLM judge decided, left to the rules after failing, or failed on.
        **({"judge": {k: judge.get(k, 0) for k in JUDGE_OUTCOMES}} if judge else {}),
    }


def coverage_shortfalls(results: dict[str, Any], min_coverage: float) -> list[str]:
    """Metrics whose coverage falls below `min_coverage`, counting failures only.

    Items a metric cannot score without an LLM judge are a setting of the run, and items a
    metric does not apply to are no failure either, so both leave the denominator;
    everything else unscored counts.
    """
    short = []
    for name, stats in results["metrics"].items():
        if stats.get("derived"):  # computed from other metrics, whose coverage is checked
            continue
        eligible = stats["total"] - stats.get("needs_judge", 0) - stats.get("not_applicable", 0)
        if eligible <= 0:
            continue
        coverage = stats["scored"] / eligible
        if coverage < min_coverage:
            short.append(
                f"{name}: {stats['scored']}/{eligible} scored ({100 * coverage:.1f}%) "
                f"< {100 * min_coverage:.1f}%"
            )
    return short


GroupKey = Callable[[SampleRecord], "str | Sequence[str] | None"]


@dataclass(frozen=True)
class Breakdown:
    """One breakdown a benchmark declares (`Benchmark.breakdowns`): its name, what groups a
    record (the record's `meta[field]`, `field` defaulting to the name, or a function of the
    record: several groups for an item in two categories, None to leave it out) and the
    order its groups are shown in (groups not listed follow, sorted)."""

    name: str
    field: str = ""
    key: GroupKey | None = None
    order: tuple[str, ...] = ()

    def of(self, record: SampleRecord) -> str | Sequence[str] | None:
        if self.key is not None:
            return self.key(record)
        value = record.meta.get(self.field or self.name)
        return value or None  # an empty text or list is no group


def summarize(
    records: Sequence[SampleRecord],
    metrics: Iterable[str],
    units: Mapping[str, str] | None = None,
    breakdowns: Sequence[Breakdown] = (),
) -> dict[str, Any]:
    """Overall metrics and, per declared breakdown (`Benchmark.breakdowns`), each group's; an
    item in two categories counts in both, and one its breakdown gives no group is left out
    of that breakdown.

    `units` names metrics that are not shares in [0, 1] ("dB", or "raw" for a plain number);
    reports print those as they are instead of as percentages.
    """
    metrics = list(metrics)
    summary: dict[str, Any] = {
        "metrics": {m: metric_summary(records, m) for m in metrics},
        "breakdowns": {},
    }
    for name, unit in (units or {}).items():
        if name in summary["metrics"]:
            summary["metrics"][name]["unit"] = unit
    for breakdown in breakdowns:
        buckets: dict[str, list[SampleRecord]] = {}
        for record in records:
            value = breakdown.of(record)
            for bucket in [value] if isinstance(value, str) else (value or ()):
                buckets.setdefault(bucket, []).append(record)
        order = list(breakdown.order) + sorted(k for k in buckets if k not in breakdown.order)
        summary["breakdowns"][breakdown.name] = {
            k: {m: metric_summary(buckets[k], m) for m in metrics} for k in order if k in buckets
        }
    return summary


def face_summary(
    records: Sequence[SampleRecord], metrics: Iterable[str]
) -> tuple[dict[str, float | None], dict[str, float], dict[str, int], dict[str, list[dict[str, Any]]]]:
    """What the `evaluate` faces return per metric: the mean over scored items, coverage, the
    not-applicable count, and each unscored item (by position) with its reason."""
    means: dict[str, float | None] = {}
    coverage: dict[str, float] = {}
    not_applicable: dict[str, int] = {}
    unscored: dict[str, list[dict[str, Any]]] = {}
    for name in metrics:
        stats = metric_summary(records, name)
        means[name] = stats["value"]
        coverage[name] = stats["coverage"]
        not_applicable[name] = stats["not_applicable"]
        missing = [
            {
                "item": i,
                "reason": (r.scores[name].unscored if name in r.scores else None) or "no score",
                "not_applicable": name in r.scores and r.scores[name].not_applicable,
            }
            for i, r in enumerate(records)
            if name not in r.scores or not r.scores[name].scored
        ]
        if missing:
            unscored[name] = missing
    return means, coverage, not_applicable, unscored
