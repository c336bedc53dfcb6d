"""The aggregations the task YAMLs name: the mean over scored items (None, shown as N/A,
when nothing was scored), coverage among the items a metric applies to, and a group's
mean over its tasks (`mean_over_tasks`; lmms-eval's own "mean" fails on a task's None)."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ...benchmarks.lmms import log_info
from .scores import resolve

log = logging.getLogger(__name__)

def _scored_values(items: Sequence[Any]) -> list[float]:
    return [float(x["value"]) for x in items if isinstance(x, Mapping) and x.get("value") is not None]


def _not_applicable(item: Any) -> bool:
    return isinstance(item, Mapping) and bool(item.get("not_applicable"))


def _log_coverage(metric: str, items: Sequence[Any]) -> None:
    scored = len(_scored_values(items))
    total = len(items)
    inapplicable = sum(1 for x in items if _not_applicable(x))
    tasks = sorted({str(x.get("task")) for x in items if isinstance(x, Mapping) and x.get("task")})
    reasons = Counter(
        x.get("unscored") or "no score" for x in items if isinstance(x, Mapping) and x.get("value") is None
    )
    message = f"{'/'.join(tasks) or 'geomeval'} {metric}: scored {scored}/{total}"
    if inapplicable:
        message += f", not applicable to {inapplicable}"
    if total - inapplicable:
        message += f" ({100 * scored / (total - inapplicable):.1f}% coverage)"
    if reasons:
        message += "; unscored: " + "; ".join(f"{n} × {why}" for why, n in reasons.most_common(3))
    log_info(message)


def mean_of_scored(items: Sequence[Any], metric: str) -> float | None:
    """Mean over scored items only; None when nothing was scored (lmms-eval shows N/A)."""
    resolve(items)
    _log_coverage(metric, items)
    values = _scored_values(items)
    return sum(values) / len(values) if values else None


def aggregate_scored(items: Sequence[Any]) -> float | None:
    """`mean_of_scored` for any metric: lmms-eval passes no metric name to an aggregation,
    so it is read from the items (`process_results` puts it in each)."""
    resolve(items)
    metric = next((str(x["metric"]) for x in items if isinstance(x, Mapping) and x.get("metric")), "metric")
    return mean_of_scored(items, metric)


def coverage(items: Sequence[Any]) -> float | None:
    """Share of items that got a score (items are the `<metric>_coverage` entries).

    Items the metric does not apply to (a CapGeo-Bench dimension the reference caption has
    nothing in, GeoEval's T on an item with a diagram) are no failure, so they leave the
    denominator, as with `--min-coverage`; None (N/A) when the metric applies to none of the
    items."""
    resolve(items)
    if not items:
        return 0.0
    applicable = [x for x in items if not _not_applicable(x)]
    if not applicable:
        return None
    scored = sum(1 for x in applicable if isinstance(x, Mapping) and x.get("scored"))
    return scored / len(applicable)


def mean_over_tasks(metrics: Sequence[Any], sizes: Sequence[int], weight_by_size: bool = False) -> float | None:
    """A group's score from its tasks' scores (a group YAML's `aggregate_metric_list`
    aggregation): the mean over the tasks that scored the metric, each counting once (or by
    its size with `weight_by_size`); None (N/A) when none did.

    lmms-eval's own "mean" multiplies every task's value, and a task's None (GeoEval's T on
    a subset without text-only items, any metric nothing was scored for) would fail the run.
    """
    pairs = [
        (float(value), size if weight_by_size else 1)
        for value, size in zip(metrics, sizes, strict=True)
        if isinstance(value, (int, float)) and not isinstance(value, bool)
    ]
    total = sum(weight for _, weight in pairs)
    return sum(value * weight for value, weight in pairs) / total if total else None


