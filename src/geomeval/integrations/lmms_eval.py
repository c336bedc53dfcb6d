"""geomeval's benchmarks inside lmms-eval: the task functions and the `geomeval lmms-eval` wrapper.

The task YAMLs shipped in `geomeval/lmms_tasks/<folder>/` name functions that a `utils.py` of
a few lines gets from `entry_points(<its tasks>)`: each task's doc functions and
process_results, and the aggregations. Prompts come from the benchmark's own `messages` and
scores from the scorer `geomeval run` uses (`engine.score_record_sync`), so both ways of
running a model pose the same items and score them the same way.

What differs per benchmark is its `Benchmark.lmms` declaration in its own folder
(`benchmarks.lmms.LmmsBenchmark`: tasks, groups, metrics, the image columns scoring needs,
what the cache fingerprint covers); its tasks and metrics are listed there, not here. The
machinery lives in `integrations.lmms` (one module per concern); this module is the place
task files, tests and users import it from.

Metrics are reported under `metric_key(name)` (lmms-eval splits result keys on "," and "/"),
and each task once with `coverage`, its least covered metric's share of items scored (as
`--min-coverage` counts). Every aggregation is the mean over scored items (None, N/A, when
nothing was scored) and carries its standard error, which lmms-eval prints as Stderr. Judge
metrics are scored when a judge is named (the task's `judge` kwargs, else
GEOMEVAL_JUDGE_MODEL), else reported unscored. A group (GeoEval's `geoeval`, ME2's `me2`)
reports the mean over its tasks through `mean_over_tasks`, with that mean's standard error
(`stderr_over_tasks`).

`geomeval lmms-eval --data PATH` applies PATH to the one benchmark whose tasks `--tasks`
names; without `--data` each benchmark named runs on its embedded sample.
"""

from __future__ import annotations

from ..benchmarks.lmms import TEMPLATE, log_info, metric_key
from .lmms.aggregations import (
    aggregate_scored,
    coverage,
    mean_of_scored,
    mean_over_tasks,
    standard_error,
    stderr_of_coverage,
    stderr_of_scored,
    stderr_over_tasks,
)
from .lmms.datasets import (
    TASKS_DIR,
    cached_build,
    card_configs,
    check_configs,
    resolve_dataset,
    tasks_dir,
)
from .lmms.registry import BENCHMARKS, GROUPS, SPECS, TASKS, for_task, metric_keys
from .lmms.scores import PENDING, PENDING_KEY, resolve
from .lmms.settings import JUDGE_KEYS, SETTING_KEYS, TaskSettings, reset_state, settings_for
from .lmms.taskfiles import dump_task_yaml, load_task_yaml, prepare_include_dir
from .lmms.tasks import (
    FAILED_MARKERS,
    NOT_POSED,
    ROLES,
    chat_messages,
    doc_to_messages,
    doc_to_row,
    doc_to_text,
    doc_to_visual,
    entry_points,
    process_results,
    to_lmms_messages,
)
from .lmms.wrapper import (
    LIST_CONTENT_HINT,
    RESULTS_GLOB,
    _child_env,
    check_prompt_file,
    coverage_shortfalls,
    dataset_paths_for,
    find_results,
    named_benchmarks,
    named_tasks,
    run_lmms_eval,
    summarize_results,
)

__all__ = [
    "BENCHMARKS", "FAILED_MARKERS", "GROUPS", "JUDGE_KEYS", "LIST_CONTENT_HINT", "NOT_POSED",
    "PENDING", "PENDING_KEY", "RESULTS_GLOB", "ROLES", "SETTING_KEYS", "SPECS", "TASKS",
    "TASKS_DIR", "TEMPLATE", "TaskSettings", "_child_env", "aggregate_scored", "cached_build",
    "card_configs", "chat_messages", "check_configs", "check_prompt_file", "coverage",
    "coverage_shortfalls", "dataset_paths_for", "doc_to_messages", "doc_to_row", "doc_to_text",
    "doc_to_visual", "dump_task_yaml", "entry_points", "find_results", "for_task",
    "load_task_yaml", "log_info", "mean_of_scored", "mean_over_tasks", "metric_key",
    "metric_keys", "named_benchmarks", "named_tasks", "prepare_include_dir", "process_results",
    "reset_state", "resolve", "resolve_dataset", "run_lmms_eval", "settings_for", "standard_error",
    "stderr_of_coverage", "stderr_of_scored", "stderr_over_tasks",
    "summarize_results", "tasks_dir", "to_lmms_messages",
]
