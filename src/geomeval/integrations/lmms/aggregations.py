"""The aggregations the task YAMLs name: the mean over scored items (None, shown as N/A,
when nothing was scored), the task's coverage (one `coverage` row: the least covered
metric's share of items scored, as `--min-coverage` reads it), and a group's mean over its
tasks (`mean_over_tasks`; lmms-eval's own "mean" fails on a task's None).

Each aggregation carries its standard error (`STDERR_ATTR`): lmms-eval 0.7.3 asks
`stderr_for_metric(aggregation, bootstrap_iters)` for a metric's Stderr column and knows
only its own functions, so `install_stderr_hook` answers for geomeval's (the analytic
standard error of the mean over the items the value is a mean of). A group's Stderr is set
where lmms-eval sets it, `consolidate_group_results`: lmms-eval 0.7.3 pools its tasks' with
`pooled_sample_stderr` (the error of a size-weighted mean, each task's variance taken over
all its samples) and writes N/A when any task's is N/A, which is wrong for geomeval's group
score, the mean over the tasks that scored the metric (`mean_over_tasks`), and left every
GeoEval T row N/A. `install_stderr_hook` wraps it so a geomeval group gets the standard
error of that mean (`stderr_over_tasks`). `--bootstrap_iters 0` still turns every Stderr
off."""

from __future__ import annotations

import logging
import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ...benchmarks.lmms import STDERR_ATTR, log_info, with_stderr
from .scores import NEEDS_JUDGE, NOT_APPLICABLE, SCORED, resolve

log = logging.getLogger(__name__)

NOT_AVAILABLE = "N/A"  # lmms-eval's own mark for a Stderr it cannot compute (a group's pools none)


def standard_error(values: Sequence[float]) -> float | str:
    """The analytic standard error of the mean of `values`: their sample standard deviation
    (n - 1) over the square root of n, as lmms-eval's `mean_stderr`; "N/A" under two values."""
    if len(values) < 2:
        return NOT_AVAILABLE
    return statistics.stdev(values) / math.sqrt(len(values))


def install_stderr_hook() -> None:
    """Wrap lmms-eval's `stderr_for_metric` (once per process) so that an aggregation carrying
    its own standard error (`with_stderr`) gets it, unless `--bootstrap_iters 0` turned Stderr
    off; every other aggregation keeps lmms-eval's answer."""
    try:
        from lmms_eval import evaluator_utils  # type: ignore[import-untyped]
    except ImportError:  # imported without lmms-eval (geomeval's own tests of utils.py)
        return
    original = evaluator_utils.stderr_for_metric
    if getattr(original, "_geomeval_hook", False):
        return

    def stderr_for_metric(metric: Any, bootstrap_iters: int) -> Any:
        own = getattr(metric, STDERR_ATTR, None)
        if own is not None and isinstance(bootstrap_iters, int) and bootstrap_iters > 0:
            return own
        return original(metric, bootstrap_iters)

    stderr_for_metric._geomeval_hook = True  # type: ignore[attr-defined]
    evaluator_utils.stderr_for_metric = stderr_for_metric
    _install_group_hook(evaluator_utils)


def _install_group_hook(evaluator_utils: Any) -> None:
    """Wrap lmms-eval's `consolidate_group_results` (in evaluator_utils, and in evaluator,
    which imports it by name) so that, once every group is aggregated (its top-level call),
    each geomeval group's metric gets `stderr_over_tasks` under lmms-eval's key for it."""
    import sys

    original = evaluator_utils.consolidate_group_results
    if getattr(original, "_geomeval_hook", False):
        return

    def consolidate_group_results(results: Any, versions: Any, task_dict: Any, task_root: Any = None,
                                  *args: Any, **kwargs: Any) -> Any:
        out = original(results, versions, task_dict, task_root, *args, **kwargs)
        if task_root is None:  # lmms-eval's own call, not its recursion: every group is done
            set_group_stderrs(out[0], task_dict, out[3])
        return out

    consolidate_group_results._geomeval_hook = True  # type: ignore[attr-defined]
    evaluator_utils.consolidate_group_results = consolidate_group_results
    evaluator = sys.modules.get("lmms_eval.evaluator")  # imported later, it takes the wrapper
    if evaluator is not None and getattr(evaluator, "consolidate_group_results", None) is original:
        setattr(evaluator, "consolidate_group_results", consolidate_group_results)  # noqa: B010


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


def stderr_of_scored(items: Sequence[Any]) -> float | str:
    """The standard error of `mean_of_scored`: over the scored items, the ones it is a mean of."""
    return standard_error(_scored_values(resolve(items)))


with_stderr(aggregate_scored, stderr_of_scored)



def _eligible_flags(items: Sequence[Any]) -> dict[str, list[float]]:
    """Per metric, 1.0 or 0.0 (scored or not) for each item that counts against its coverage:
    as `geomeval run --min-coverage` counts, an item the metric does not apply to, or one it
    could score only with an LLM judge the run did not name, is no failure and is left out."""
    flags: dict[str, list[float]] = {}
    for item in items:
        states = item.get("metrics") if isinstance(item, Mapping) else None
        if not isinstance(states, Mapping):
            continue
        for metric, state in states.items():
            bucket = flags.setdefault(str(metric), [])
            if state not in (NEEDS_JUDGE, NOT_APPLICABLE):
                bucket.append(1.0 if state == SCORED else 0.0)
    return {metric: values for metric, values in flags.items() if values}


def _least_covered(items: Sequence[Any]) -> tuple[str, list[float]] | None:
    flags = _eligible_flags(resolve(items))
    if not flags:
        return None
    return min(flags.items(), key=lambda pair: (sum(pair[1]) / len(pair[1]), pair[0]))


def coverage(items: Sequence[Any]) -> float | None:
    """The task's coverage, once (items are its `coverage` entries, one per item): the least
    covered metric's share of items scored among those that count against it
    (`_eligible_flags`) -- the number `--min-coverage` is checked against; 0.0 for no items,
    None (N/A) when no metric counts any item. Each metric's own count is logged."""
    least = _least_covered(items)
    if not items:
        return 0.0
    if least is None:
        return None
    for metric, values in sorted(_eligible_flags(items).items()):
        log_info(f"{_task_of(items)} {metric}: scored {int(sum(values))}/{len(values)} counted items")
    metric, values = least
    return sum(values) / len(values)


def stderr_of_coverage(items: Sequence[Any]) -> float | str:
    """The standard error of `coverage`: of the least covered metric's share, over its items."""
    least = _least_covered(items)
    return NOT_AVAILABLE if least is None else standard_error(least[1])


with_stderr(coverage, stderr_of_coverage)


def _task_of(items: Sequence[Any]) -> str:
    tasks = sorted({str(x.get("task")) for x in items if isinstance(x, Mapping) and x.get("task")})
    return "/".join(tasks) or "geomeval"


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


def stderr_over_tasks(values: Sequence[Any], stderrs: Sequence[Any], sizes: Sequence[int],
                      weight_by_size: bool = False) -> float | str:
    """The standard error of `mean_over_tasks(values, sizes, weight_by_size)`: the tasks'
    items are distinct, so their means are taken as independent and the group's error is
    sqrt(sum of w_i**2 * se_i**2) / sum of w_i over the tasks that scored the metric (w_i = 1,
    or the task's size). A task with no value is left out, as the mean leaves it out; "N/A"
    when a task that counts has no standard error (one scored item, `--bootstrap_iters 0`),
    or no task counts."""
    terms: list[tuple[float, float]] = []
    for value, stderr, size in zip(values, stderrs, sizes, strict=True):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if not isinstance(stderr, (int, float)) or isinstance(stderr, bool) or math.isnan(stderr):
            return NOT_AVAILABLE
        terms.append((float(size if weight_by_size else 1), float(stderr)))
    total = sum(weight for weight, _ in terms)
    if not terms or not total:
        return NOT_AVAILABLE
    return math.sqrt(sum((weight * stderr) ** 2 for weight, stderr in terms)) / total


def set_group_stderrs(results: dict[str, dict[str, Any]], task_dict: Mapping[Any, Any],
                      subtasks: Mapping[str, Sequence[str]]) -> None:
    """Give each group whose metric is aggregated by `mean_over_tasks` that metric's
    `stderr_over_tasks`, under lmms-eval's key ("<metric>_stderr,<filter>"), in place of the
    pooled one lmms-eval set (groups nested in `task_dict` included)."""
    for key, value in task_dict.items():
        config = getattr(key, "config", None)
        if isinstance(value, Mapping):
            set_group_stderrs(results, value, subtasks)
        if config is None:
            continue
        group = str(key.group_name)
        for entry in config.get("aggregate_metric_list") or ():
            if getattr(entry.get("aggregation"), "__name__", None) != mean_over_tasks.__name__:
                continue
            for filter_name in entry.get("filter_list") or ("none",):
                metric = f"{entry['metric']},{filter_name}"
                if group not in results or metric not in results[group]:
                    continue
                tasks = [task for task in subtasks.get(group, ()) if metric in results.get(task, {})]
                stderr_key = f"{entry['metric']}_stderr,{filter_name}"
                results[group][stderr_key] = stderr_over_tasks(
                    [results[task][metric] for task in tasks],
                    [results[task].get(stderr_key, NOT_AVAILABLE) for task in tasks],
                    [int(results[task].get("samples", 0)) for task in tasks],
                    bool(entry.get("weight_by_size", False)),
                )
