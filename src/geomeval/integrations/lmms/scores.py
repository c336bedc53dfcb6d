"""process_results' entries for one item, and scoring in the background at geomeval's judge
concurrency: placeholders now, filled in place by `resolve` when an aggregation runs.

A scored entry holds its value as `score` and the item's `cluster` (the task YAMLs'
`score_key` and `cluster_key`), from which lmms-eval computes its Stderr columns; the item
also gets one `coverage` entry, each metric's state on it (scored, unscored, needs_judge,
not_applicable), from which the task's one coverage row is computed."""

from __future__ import annotations

import itertools
import json
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...benchmarks.lmms import LmmsBenchmark, metric_key
from .registry import metric_keys

# A `coverage` entry's state of each metric on its item (written here, counted by aggregations.py).
SCORED, UNSCORED, NEEDS_JUDGE, NOT_APPLICABLE = "scored", "unscored", "needs_judge", "not_applicable"


def _entries(spec: LmmsBenchmark, task: str, record: Any, scores: Mapping[str, Any]) -> dict[str, Any]:
    """process_results' output for one item's scores. A scored entry also holds its value as
    `score` and the item's `cluster` (variants of one problem share it): the task YAMLs'
    `score_key` and `cluster_key`, from which lmms-eval computes the Stderr_CLT and
    Stderr_Clustered columns over the scored items."""
    from ...core.records import Score

    out: dict[str, Any] = {}
    states: dict[str, str] = {}
    cluster = str(record.meta.get("cluster", record.id)) if record.meta else str(record.id)
    for metric, key in metric_keys(spec, task).items():
        score = scores.get(metric) or Score.missing("the scorer returned no score")
        entry = {**score.to_dict(), "id": record.id, "task": task, "metric": metric}
        if score.value is not None:
            entry.update(score=float(score.value), cluster=cluster)
        out[key] = entry
        states[metric] = (SCORED if score.value is not None else NOT_APPLICABLE if score.not_applicable
                          else NEEDS_JUDGE if score.needs_judge else UNSCORED)
    out[COVERAGE] = {"id": record.id, "task": task, "metrics": states}
    if spec.derive is not None:
        out.update(spec.derive(task, out))
    return out



COVERAGE = "coverage"  # the key of an item's coverage entry, and of the task's coverage row
PENDING = "_geomeval_pending"  # a placeholder's key: its job's number
PENDING_KEY = "_geomeval_key"  # and the entry's key among the item's entries


@dataclass
class _Job:
    """One item being scored in the background, and the placeholders its scores will fill."""

    future: Any  # concurrent.futures.Future of the scored record
    fill: Callable[[Any], dict[str, Any]]  # scored record (or exception) -> the final entries
    placeholders: dict[str, dict[str, Any]]


_jobs: dict[int, _Job] = {}
_warm_lock = threading.Lock()
_warm_tasks: set[str] = set()
_finals: dict[int, dict[str, Any]] = {}  # a finished job's entries, for copies of its placeholders
_jobs_lock = threading.Lock()
_job_numbers = itertools.count(1)


GATHERED = "_geomeval_record"  # a gathered placeholder's record, as JSON (several processes)
_contexts: dict[str, tuple[Any, Any, LmmsBenchmark]] = {}  # task -> (bench, judge, spec), this process's
_gathered_finals: dict[tuple[str, str], dict[str, Any]] = {}  # (task, id) -> a gathered item's entries


def _defer(judge: Any) -> bool:
    """Whether to score later than process_results: a judge is asked (and GEOMEVAL_LMMS_DEFER
    is not 0). In one lmms-eval process the scoring starts at once, in the background; with
    several (`WORLD_SIZE` > 1: lmms-eval gathers every process's entries to its first, which
    aggregates), see `_several_processes`."""
    return not getattr(judge, "offline", True) and os.environ.get("GEOMEVAL_LMMS_DEFER", "1").strip() not in (
        "0", "false", "no")


def _several_processes() -> bool:
    """lmms-eval runs as several processes: each item's placeholders carry its record, and the
    process that aggregates (lmms-eval's first, which gets every process's entries) judges all
    of them there, at its judge's concurrency (`resolve`), instead of each document alone."""
    return os.environ.get("WORLD_SIZE", "1").strip() not in ("", "1")


def _start_scoring(bench: Any, judge: Any, spec: LmmsBenchmark, task: str, record: Any) -> dict[str, Any]:
    from ...engines.client import BackgroundLoop
    from ...engines.engine import score_bounded

    number = next(_job_numbers)
    keys = list(_entries(spec, task, record, {}))  # the keys the final entries will have
    placeholders = {key: {"id": record.id, "task": task, PENDING: number, PENDING_KEY: key} for key in keys}
    names = {key: name for name, key in metric_keys(spec, task).items()}
    names.update((metric_key(name), name) for name in spec.derived)
    for key, entry in placeholders.items():
        if key in names:
            entry["metric"] = names[key]
    if _several_processes():  # judged where lmms-eval aggregates, from the record carried here
        with _jobs_lock:
            _contexts.setdefault(task, (bench, judge, spec))
        text = record.to_json()
        for entry in placeholders.values():
            entry[GATHERED] = text
        return dict(placeholders)

    def fill(outcome: Any) -> dict[str, Any]:
        from ...engines.engine import failed_scores

        scores = failed_scores(bench, outcome) if isinstance(outcome, BaseException) else outcome.scores
        return _entries(spec, task, record, scores)

    job = _Job(BackgroundLoop.shared().submit(score_bounded(bench, record, judge)), fill, placeholders)
    with _jobs_lock:
        _jobs[number] = job
    return dict(placeholders)


def resolve(items: Sequence[Any]) -> Sequence[Any]:
    """`items` with every placeholder among them filled in place, once its item is scored (and
    the item's other placeholders too, which the logged samples hold: lmms-eval may hand an
    aggregation copies of them)."""
    _resolve_gathered(items)
    numbers = {x[PENDING] for x in items if isinstance(x, dict) and PENDING in x and GATHERED not in x}
    for number in sorted(numbers):
        with _jobs_lock:
            job = _jobs.pop(number, None)
        if job is None:
            continue
        try:
            outcome: Any = job.future.result()
        except BaseException as exc:  # an endpoint that stopped serving, a scorer bug: unscored
            outcome = exc
        final = job.fill(outcome)
        for key, entry in job.placeholders.items():
            entry.clear()
            entry.update(final[key])
        with _jobs_lock:
            _finals[number] = final
    for item in items:
        if isinstance(item, dict) and PENDING in item and GATHERED not in item:
            done = _finals.get(item[PENDING])
            if done is not None and item.get(PENDING_KEY) in done:
                key = item[PENDING_KEY]
                item.clear()
                item.update(done[key])
    return items



def _resolve_gathered(items: Sequence[Any]) -> None:
    """Fill the gathered placeholders among `items` (`_several_processes`): every item not yet
    judged here is scored now, all at once through the engine (bounded by the judge's
    concurrency), and its entries kept for the other metrics' aggregations."""
    from ...core.records import SampleRecord
    from ...engines.client import BackgroundLoop
    from ...engines.engine import failed_scores, score_bounded

    waiting: dict[tuple[str, str], str] = {}
    for item in items:
        if isinstance(item, dict) and GATHERED in item:
            key = (str(item.get("task")), str(item.get("id")))
            if key not in _gathered_finals:
                waiting.setdefault(key, item[GATHERED])
    jobs = []
    for (task, item_id), text in waiting.items():
        context = _contexts.get(task)
        if context is None:  # this process made no item of the task: its settings are the task's own
            from .registry import for_task
            from .settings import _benchmark_and_judge

            spec = for_task(task)
            bench, judge = _benchmark_and_judge(spec.name, task)
            context = _contexts.setdefault(task, (bench, judge, spec))
        bench, judge, spec = context
        record = SampleRecord.from_dict(json.loads(text))
        jobs.append((task, item_id, record, bench, spec,
                     BackgroundLoop.shared().submit(score_bounded(bench, record, judge))))
    for task, item_id, record, bench, spec, future in jobs:
        try:
            scores = future.result().scores
        except BaseException as exc:  # an endpoint that stopped serving, a scorer bug: unscored
            scores = failed_scores(bench, exc)
        _gathered_finals[(task, item_id)] = _entries(spec, task, record, scores)
    for item in items:
        if isinstance(item, dict) and GATHERED in item:
            final = _gathered_finals.get((str(item.get("task")), str(item.get("id"))))
            entry_key = str(item.get(PENDING_KEY))
            if final is not None and entry_key in final:
                item.clear()
                item.update(final[entry_key])
