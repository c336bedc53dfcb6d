"""Every registered benchmark's lmms-eval declaration (`benchmarks.lmms.LmmsBenchmark`), by
benchmark, task and group, and each metric's lmms-eval key.

lmms-eval writes each result as `"<metric>,<filter>"` and splits it back with
`partition(",")`; its W&B and SwanLab loggers key `"<task>/<metric>"` and split on "/";
every metric it registers is an identifier. So each geomeval metric is reported under
`benchmarks.lmms.metric_key(name)` (`metric_keys()` lists a benchmark's), and each per-item
entry keeps the real name under "metric".
"""

from __future__ import annotations

from typing import Any

from ...benchmarks.lmms import LmmsBenchmark, metric_key
from ...core.errors import UsageError


def _declared() -> tuple[LmmsBenchmark, ...]:
    """Every registered benchmark's lmms-eval declaration, with its name, title and the Hub id
    its task YAMLs read: the authors' own Hub dataset where they publish one, else "" (a local
    release only: loading.py). Never an id that the authors did not publish, so never one that
    could hold only geomeval's sample, or nothing, under the benchmark's name."""
    from dataclasses import replace

    from ...benchmarks import REGISTRY

    def hub_dataset(hub: Any) -> str:
        if hub is None:
            return ""
        return hub.authors_hub or ""

    return tuple(
        replace(bench.lmms, name=bench.name, title=bench.lmms.title or bench.title, owner=bench,
                hub_dataset=hub_dataset(bench.hub))
        for bench in REGISTRY.values()
        if bench.lmms is not None
    )


BENCHMARKS: tuple[LmmsBenchmark, ...] = _declared()
SPECS = {spec.name: spec for spec in BENCHMARKS}
TASKS = tuple(task for spec in BENCHMARKS for task in spec.tasks)
GROUPS = tuple(group for spec in BENCHMARKS for group in spec.groups)
_BY_TASK = {task: spec for spec in BENCHMARKS for task in spec.tasks}
_BY_NAME = {**_BY_TASK, **{group: spec for spec in BENCHMARKS for group in spec.groups}}


def for_task(task: str) -> LmmsBenchmark:
    try:
        return _BY_TASK[task]
    except KeyError:
        raise UsageError(f"no geomeval lmms-eval task {task!r}; tasks: {', '.join(TASKS)}") from None


def metric_keys(spec: LmmsBenchmark, task: str | None = None) -> dict[str, str]:
    """{geomeval metric name: lmms-eval key} for one benchmark (or one of its tasks)."""
    keys = {name: metric_key(name) for name in spec.metrics_for(task)}
    if len(set(keys.values())) != len(keys):
        raise ValueError(f"{spec.title}: two metrics map to one lmms-eval key: {keys}")
    return keys

