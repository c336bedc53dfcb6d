"""geomeval's benchmarks inside lmms-eval: the task functions and the `geomeval lmms-eval` wrapper.

The task YAMLs shipped in `geomeval/lmms_tasks/<benchmark>/` name functions that a
`utils.py` of a few lines gets from `entry_points(<its tasks>)`: each task's doc functions
and process_results, made here, and the aggregations. Prompts come from the benchmark's own
`messages` and scores from the scorer `geomeval run` uses (`engine.score_record_sync`), so
both ways of running a model pose the same items and score them the same way. Rows become
items through the benchmark's Features (`benchmarks.rows.named_row`), as in `geomeval run`.

Everything here is shared; what differs per benchmark is its `Benchmark.lmms` declaration,
in its own folder (`benchmarks.lmms.LmmsBenchmark`: tasks, metric names, which image
columns scoring needs, which release folders the cache fingerprint covers), read from the
registry into `BENCHMARKS`, with the Hub id `geomeval publish` writes (`Benchmark.hub`). A task
YAML's `lmms_eval_specific_kwargs` carry its prompts and judge (`TaskSettings`). Tasks: GeoLaux `geolaux`, `geolaux_aux`; GGBench `ggbench_code`;
CapGeo-Bench `capgeo_bench` (the figure alone → a caption, scored by keypoints; tasks in
`lmms_tasks/capgeo/`); CapGeo `capgeo_reasoning_direct`, `capgeo_reasoning_with_image`,
`capgeo_reasoning_without_image` (a reasoner answers with the caption a built reasoning
dataset carries in its `caption` column; same folder, second template
`_reasoning_template_yaml`, and one CapGeo per task, configured for its mode); GeoEval
`geoeval_2000`, `geoeval_backward`, `geoeval_aug`, `geoeval_hard` and the group `geoeval`
of all four (metrics A and T, GeoEval's default input mode); ME2 `me2_solve`, `me2_keypoints`,
`me2_explain` and the group `me2` (each task has its own metrics: `ME2.task_metrics`).
GGBench's `ggbench_image` has no lmms-eval task: lmms-eval 0.7.3's `generate_until`
returns text only, and that track scores the model's drawings.

Metric keys. lmms-eval writes each result as `"<metric>,<filter>"` and splits it back
with `partition(",")` (its table, the W&B logger); the W&B and SwanLab loggers key
`"<task>/<metric>"` and split on "/" expecting two parts; every metric it registers is
an identifier. So each geomeval metric is reported under `metric_key(name)`, its name
with "@" → "_at_", " (0-100)" → "_0_100" and any other run of characters outside
[A-Za-z0-9_] → "_": GeoLaux's ACS, PCS, PQS and GeoEval's A, T stay as they are;
GGBench's "Pass@1" is `Pass_at_1`, "ROUGE-L" `ROUGE_L`, "VLM-I-Mid (0-100)"
`VLM_I_Mid_0_100`, "Step Accuracy" `Step_Accuracy`; CapGeo-Bench's "keypoint recall" is
`keypoint_recall`, "relations F1 (judge)" `relations_F1_judge` (`metric_keys()` lists them
all). Each per-item entry keeps the real name under "metric". Every metric's aggregation is
the mean over scored items (None, shown as N/A, when nothing was scored), and
`<key>_coverage` is the share of items scored among those the metric applies to (a
CapGeo-Bench dimension the reference states nothing in, or GeoEval's T on an item with a
diagram, is not applicable, not a failure). Judge metrics (GeoLaux's PCS/PQS, GGBench's
VLM-*, CapGeo-Bench's "(judge)" keypoints) are scored when a judge is named (the task's
`judge` kwargs, else GEOMEVAL_JUDGE_MODEL), else reported unscored; GeoEval's answer
extraction uses that judge when there is one, the rules alone when not (as `geomeval run`).
A scored entry also carries `score` (the YAMLs' `score_key`), from which lmms-eval prints
Stderr_CLT over the scored items.

Several configs. A benchmark released as subsets with one schema (GeoEval) is one built
folder with one Hugging Face config per subset (`data/<config>/`, a card declaring them):
its entry's `dataset_names` maps each task to its config, each task YAML sets that as
`dataset_name` (lmms-eval 0.7.3 passes it to `datasets.load_dataset(path, name)`), and the
template's `dataset_path` is rewritten as for any other benchmark, so every task reads its
own config of the one folder. A built folder lacking a config a named task needs (a release
without that subset) is refused before lmms-eval starts.

Groups. `lmms_tasks/geoeval/geoeval.yaml` is an lmms-eval group (`group:` and a `task:`
list); `--tasks geoeval` runs its four tasks, and `--data` goes to GeoEval for it too. Its
`aggregate_metric_list` reports A and T (and, since lmms-eval matches those names as
substrings of the result keys, A_coverage and T_coverage) through `mean_over_tasks`: the
mean of the subsets' scores, each subset counting once, over the subsets where the metric
was scored. lmms-eval's own "mean" would fail on a subset whose T is None (no text-only
item in it). The group's line is in the results JSON's `results` and `groups`.

What this relies on in lmms-eval 0.7.3 (read from its source):

- `--include_path DIR` indexes every `*.yaml` under DIR (so `_default_template_yaml`
  is not a task); `include:` names a file beside the YAML; `!function utils.f` loads
  `utils.py` *by file path* as a fresh module named `utils`, so utils.py imports
  geomeval absolutely and holds no state of its own.
- Chat backends (`--model openai`) call `doc_to_messages(doc)` on the full row
  (images decoded to PIL) and expect lmms-eval's protocol, `{"type": "image",
  "url": <PIL image>}`; they re-encode images as PNG data URLs.
- `process_results(doc, results)` gets the row from `eval_docs_no_media`: without its
  image columns, unless the task sets `process_results_use_image: true` (then with
  them, decoded to PIL); `doc_to_text` is called on those same rows while building the
  requests, so a task whose prompt needs the figure keeps the images (GeoLaux,
  CapGeo-Bench, CapGeo's direct and with_image tasks; without_image sets it false, as its
  prompt has no figure). It runs on 4 threads by default. A request that failed every
  retry comes back as the text "[LMMS_EVAL_REQUEST_FAILED after N retries] ...".
- A group YAML may carry only group keys (`group`, `group_alias`, `task`,
  `aggregate_metric_list`, `metadata`; any other key would be pushed into its tasks); its
  aggregation is "mean" or a callable `(metrics, sizes, weight_by_size)`, applied to every
  result key containing the metric's name.
- Results go to `<output_path>/<model>/<date>_results.json`. The CLI logs errors and
  exits 0 even when every task failed, hence the check after the run.

`geomeval lmms-eval --data PATH` applies PATH to the benchmark of the tasks named in
`--tasks` (patterns as lmms-eval matches them); naming tasks of two benchmarks with one
`--data` is refused (`capgeo_*` names CapGeo-Bench's and CapGeo's). Without `--data`, each
benchmark named runs on its embedded sample; CapGeo's is every source's embedded sample with
its reference captions (16 problems), and its `--data` is a built folder (`geomeval capgeo
build`) or a Hub id, since a source's file alone says neither its source nor its captions.
GeoEval's `--data` is a built folder, a raw release (every subset it holds, built once into
the cache) or a Hub id; without it, the embedded sample's four subsets.

An item a benchmark cannot pose (`benchmarks.base.NotPosable`: CapGeo's caption modes on a
row without a caption) still gets a request, since lmms-eval asks for every row: a one-line
placeholder, whose answer the scorer ignores, leaving the item unscored with the reason.
"""

from __future__ import annotations

import argparse
import base64
import fnmatch
import hashlib
import io
import itertools
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import as_file, files
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import yaml

from ..benchmarks.lmms import TEMPLATE, LmmsBenchmark, metric_key
from ..cache import cache_dir
from ..errors import MIN_COVERAGE_EXIT, UsageError

TASKS_DIR = "lmms_tasks"
# lmms-eval's openai client sends every message as a list of content parts, even text alone;
# llama.cpp's server refuses that (HTTP 500), so every request fails there.
LIST_CONTENT_HINT = (
    "if lmms-eval's requests failed (LMMS_EVAL_REQUEST_FAILED in its log): its openai client "
    "sends every message as a list of content parts, which llama.cpp's server refuses with HTTP "
    "500; serve the model with vLLM (which accepts both forms), or run `geomeval run`, which sends "
    "a prompt without an image as a plain string."
)
FAILED_MARKERS = ("[LMMS_EVAL_REQUEST_FAILED", "[LMMS_EVAL_BUDGET_EXCEEDED]")
RESULTS_GLOB = "*_results.json"

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- per benchmark


def _declared() -> tuple[LmmsBenchmark, ...]:
    """Every registered benchmark's lmms-eval declaration, with its name, title and Hub id."""
    from dataclasses import replace

    from ..benchmarks import REGISTRY

    return tuple(
        replace(bench.lmms, name=bench.name, title=bench.lmms.title or bench.title,
                hub_dataset=bench.hub.repo_id if bench.hub is not None else f"geomeval/{bench.title}")
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


# --------------------------------------------------------------------------- task functions


def doc_to_row(doc: Mapping[str, Any], task: str) -> dict[str, Any]:
    """An lmms-eval doc as the fields `geomeval run` gives the item."""
    return for_task(task).row(doc)


def _item(row: dict[str, Any]) -> Any:
    from ..benchmarks.base import Item

    return Item(id=str(row["id"]), fields=row, choices=tuple(row.get("choices") or ()))


NOT_POSED = "This item is not posed ({reason}). Reply with an empty answer."


def chat_messages(doc: Mapping[str, Any], task: str, kwargs: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The OpenAI-format messages `geomeval run` sends for this item and task; for an item
    the benchmark cannot pose, a one-line text placeholder (its answer is never scored)."""
    from ..benchmarks.base import NotPosable

    bench, _ = _benchmark_and_judge(for_task(task).name, task, kwargs)
    try:
        return bench.messages(_item(doc_to_row(doc, task)), task)
    except NotPosable as exc:
        return [{"role": "user", "content": [{"type": "text", "text": NOT_POSED.format(reason=exc)}]}]


def _decode_data_url(url: str) -> Any:
    from PIL import Image

    header, _, payload = url.partition(",")
    if not header.startswith("data:") or ";base64" not in header:
        raise ValueError(f"expected a base64 data URL, got {url[:40]!r}")
    image = Image.open(io.BytesIO(base64.b64decode(payload)))
    image.load()
    return image


def to_lmms_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-format messages in lmms-eval's protocol, parts kept in the same order."""
    converted = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        parts: list[dict[str, Any]] = []
        for part in content:
            if part["type"] == "text":
                parts.append({"type": "text", "text": part["text"]})
            elif part["type"] == "image_url":
                parts.append({"type": "image", "url": _decode_data_url(part["image_url"]["url"])})
            else:
                raise ValueError(f"unsupported message part {part['type']!r}")
        converted.append({"role": message["role"], "content": parts})
    return converted


def doc_to_messages(doc: Mapping[str, Any], task: str, kwargs: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    return to_lmms_messages(chat_messages(doc, task, kwargs))


def doc_to_text(doc: Mapping[str, Any], task: str, kwargs: Mapping[str, Any] | None = None) -> str:
    """The prompt's text, for lmms-eval's simple (non-chat) backends."""
    return "\n".join(
        part["text"] for m in chat_messages(doc, task, kwargs) for part in m["content"] if part["type"] == "text"
    )


def doc_to_visual(doc: Mapping[str, Any], task: str, kwargs: Mapping[str, Any] | None = None) -> list[Any]:
    """The prompt's images as PIL, in the order the chat messages carry them."""
    return [
        part["url"]
        for m in doc_to_messages(doc, task, kwargs)
        for part in m["content"]
        if part["type"] == "image"
    ]


_state_lock = threading.Lock()
_benchmarks: dict[tuple[str, str], Any] = {}  # (task, prompt set's source and hash) -> benchmark
_judges: dict[tuple[Any, ...], Any] = {}  # a judge setting -> its judge (one per process)
_task_settings: dict[str, TaskSettings] = {}  # what each task's doc functions were given

# The keys a task YAML's `lmms_eval_specific_kwargs` may hold (per model name, or `default`).
SETTING_KEYS = ("prompt_file", "templates", "judge")
JUDGE_KEYS = ("model", "base_url", "concurrency", "timeout", "max_tokens", "style", "images")


@dataclass(frozen=True)
class TaskSettings:
    """A task's `lmms_eval_specific_kwargs`, checked: the prompts and the judge its YAML sets.

    `prompt_file` is a geomeval prompt file (as `--prompts`; GEOMEVAL_PROMPTS when empty),
    `templates` replaces named templates over it (as one section of such a file), and `judge`
    names the judge (`model`, `base_url`, `concurrency`, `timeout`, `max_tokens`, `style`,
    `images`); each judge key left out falls back to its GEOMEVAL_JUDGE_* variable. API keys
    are never read from a YAML: they stay in the environment (GEOMEVAL_JUDGE_API_KEY).
    lmms-eval passes these to the doc functions only, so `process_results` uses what the
    same task's doc functions were given (they run first, in the same process)."""

    prompt_file: str = ""
    templates: tuple[tuple[str, str], ...] = ()
    judge: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def parse(cls, task: str, kwargs: Mapping[str, Any] | None) -> TaskSettings:
        kwargs = dict(kwargs or {})
        kwargs.pop("default", None)  # lmms-eval leaves the section it merged in
        where = f"task {task}: lmms_eval_specific_kwargs"
        unknown = sorted(k for k in kwargs if k not in SETTING_KEYS and not isinstance(kwargs[k], Mapping))
        if unknown:
            raise ValueError(f"{where}: unknown key {', '.join(map(repr, unknown))}; keys: {', '.join(SETTING_KEYS)}")
        prompt_file = kwargs.get("prompt_file") or ""
        templates = kwargs.get("templates") or {}
        judge = kwargs.get("judge") or {}
        if not isinstance(prompt_file, str):
            raise ValueError(f"{where}.prompt_file: a path, not {type(prompt_file).__name__}")
        if not isinstance(templates, Mapping):
            raise ValueError(f"{where}.templates: a mapping of template name to text")
        if not isinstance(judge, Mapping):
            raise ValueError(f"{where}.judge: a mapping with keys {', '.join(JUDGE_KEYS)}")
        bad = sorted(str(k) for k in judge if k not in JUDGE_KEYS)
        if bad:
            raise ValueError(f"{where}.judge: unknown key {', '.join(map(repr, bad))}; keys: {', '.join(JUDGE_KEYS)}"
                             " (API keys stay in the environment: GEOMEVAL_JUDGE_API_KEY)")
        return cls(prompt_file, tuple(sorted((str(k), v) for k, v in templates.items())),
                   tuple(sorted((str(k), v) for k, v in judge.items() if v not in (None, ""))))


def reset_state() -> None:
    """Forget the benchmarks, judges and task settings made so far, as a fresh lmms-eval
    process would (tests that change the environment between runs in one process)."""
    with _state_lock:
        _benchmarks.clear()
        _judges.clear()
        _task_settings.clear()


def settings_for(task: str, kwargs: Mapping[str, Any] | None = None) -> TaskSettings:
    """The task's settings: from `kwargs` when lmms-eval passes them (remembered for the
    task's process_results), else what the task was last given, else none."""
    with _state_lock:
        if kwargs is None:
            return _task_settings.get(task) or TaskSettings()
        settings = _task_settings.get(task)
    parsed = TaskSettings.parse(task, kwargs)
    if settings != parsed:
        with _state_lock:
            _task_settings[task] = parsed
    return parsed


def _prompt_set(bench: Any, task: str, settings: TaskSettings) -> Any:
    """The benchmark rendering the prompt file (the YAML's, else GEOMEVAL_PROMPTS) with the
    YAML's templates over it."""
    from ..benchmarks import with_prompt_file
    from ..prompts import ENV_VAR, PromptSet, validated

    bench = with_prompt_file(bench, settings.prompt_file or os.environ.get(ENV_VAR) or None)
    if not settings.templates:
        return bench
    base = bench.prompts
    extra = validated(bench.name, bench.prompt_templates, dict(settings.templates),
                      f"task {task}: lmms_eval_specific_kwargs.templates")
    merged = {**base.overrides, **extra.overrides}
    source = " + ".join(s for s in (base.source, extra.source) if s)
    return bench.with_prompts(PromptSet(bench.name, base.defaults, merged, source))


def _judge(settings: TaskSettings) -> Any:
    """One judge per setting per process (process_results runs on several threads)."""
    from ..judges import judge_from_env

    key = settings.judge
    with _state_lock:
        if key not in _judges:
            _judges[key] = judge_from_env(**dict(key)) if key else judge_from_env()
        return _judges[key]


def _benchmark_and_judge(name: str, task: str | None = None, kwargs: Mapping[str, Any] | None = None) -> tuple[Any, Any]:
    """The registry's benchmark (configured for `task` where its entry says how, rendering the
    task's prompts as `geomeval run --prompts` does) and its judge."""
    from ..benchmarks import get_benchmark

    settings = settings_for(task, kwargs) if task is not None else TaskSettings()
    key = (task or name, repr((settings.prompt_file, settings.templates, os.environ.get("GEOMEVAL_PROMPTS"))))
    with _state_lock:
        bench = _benchmarks.get(key)
    if bench is None:
        bench = get_benchmark(name)
        configure = for_task(task).configure if task is not None else None
        if configure is not None and task is not None:
            bench = configure(bench, task)
        bench = _prompt_set(bench, task or name, settings)
        with _state_lock:
            bench = _benchmarks.setdefault(key, bench)
    return bench, _judge(settings)


def process_results(doc: Mapping[str, Any], results: Sequence[Any], task: str) -> dict[str, Any]:
    """Score one response: every metric as Score.to_dict() plus id, task and its real name,
    under its lmms-eval key, and a `<key>_coverage` flag (marked not_applicable where the
    metric does not apply to the item, so coverage counts only failures against it).

    A request lmms-eval gave up on is a generation error (unscored), not a wrong answer.

    With a judge, lmms-eval would wait for each document's judge calls before it hands over
    the next document, so judging would run one item at a time. Instead the scoring starts
    in geomeval's engine and this returns at once with placeholder entries; the task's
    aggregation (which lmms-eval calls after every document) waits for them and fills each
    placeholder in place, so the logged samples hold the final scores too. The judge calls
    of all documents thus run at geomeval's judge concurrency, with its cache and its
    unscored-on-failure rules. Several lmms-eval processes (which gather copies of these
    entries) or GEOMEVAL_LMMS_DEFER=0 score each document before returning, as before.
    """
    from ..engine import score_record_sync

    spec = for_task(task)
    missing = [c for c in spec.scoring_columns if c not in doc]
    if missing:  # not a per-item problem: the task's YAML lost process_results_use_image
        raise ValueError(
            f"{task}: process_results got the row without {', '.join(missing)}; "
            "its task YAML must set process_results_use_image: true"
        )
    bench, judge = _benchmark_and_judge(spec.name, task)
    record = bench.new_record(_item(doc_to_row(doc, task)), task)
    response = results[0] if results else None
    if isinstance(response, str) and response.startswith(FAILED_MARKERS):
        record.generation_error = response  # unscored, never a wrong answer
    else:
        record.response = response
    if _defer(judge):
        with _warm_lock:
            first = task not in _warm_tasks
            if first:  # the first item is scored before any other starts: the scorers' lazy
                # imports (nltk, models) then happen once, never in two threads at a time
                entries = _entries(spec, task, record, score_record_sync(bench, record, judge))
                _warm_tasks.add(task)
                return entries
        return _start_scoring(bench, judge, spec, task, record)
    return _entries(spec, task, record, score_record_sync(bench, record, judge))


def _entries(spec: LmmsBenchmark, task: str, record: Any, scores: Mapping[str, Any]) -> dict[str, Any]:
    """process_results' output for one item's scores. A scored entry also holds its value as
    `score` and the item's `cluster` (variants of one problem share it): the task YAMLs'
    `score_key` and `cluster_key`, from which lmms-eval computes the Stderr_CLT and
    Stderr_Clustered columns over the scored items."""
    from ..records import Score

    out: dict[str, Any] = {}
    cluster = str(record.meta.get("cluster", record.id)) if record.meta else str(record.id)
    for metric, key in metric_keys(spec, task).items():
        score = scores.get(metric) or Score.missing("the scorer returned no score")
        entry = {**score.to_dict(), "id": record.id, "task": task, "metric": metric}
        if score.value is not None:
            entry.update(score=float(score.value), cluster=cluster)
        out[key] = entry
        flag: dict[str, Any] = {"id": record.id, "scored": score.value is not None}
        if score.not_applicable:
            flag["not_applicable"] = True
        out[f"{key}_coverage"] = flag
    if spec.derive is not None:
        out.update(spec.derive(task, out))
    return out


# ---------------------------------------------------------------- judging at geomeval's concurrency

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


def _defer(judge: Any) -> bool:
    """Whether to score in the background: a judge is asked, in a single lmms-eval process."""
    if getattr(judge, "offline", True) or os.environ.get("GEOMEVAL_LMMS_DEFER", "1").strip() in ("0", "false", "no"):
        return False
    return os.environ.get("WORLD_SIZE", "1").strip() in ("", "1")


def _start_scoring(bench: Any, judge: Any, spec: LmmsBenchmark, task: str, record: Any) -> dict[str, Any]:
    from ..client import BackgroundLoop
    from ..engine import score_bounded

    number = next(_job_numbers)
    keys = list(_entries(spec, task, record, {}))  # the keys the final entries will have
    placeholders = {key: {"id": record.id, "task": task, PENDING: number, PENDING_KEY: key} for key in keys}
    names = {key: name for name, key in metric_keys(spec, task).items()}
    names.update((metric_key(name), name) for name in spec.derived)
    for key, entry in placeholders.items():
        if key in names:
            entry["metric"] = names[key]

    def fill(outcome: Any) -> dict[str, Any]:
        from ..engine import failed_scores

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
    numbers = {x[PENDING] for x in items if isinstance(x, dict) and PENDING in x}
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
        if isinstance(item, dict) and PENDING in item:
            done = _finals.get(item[PENDING])
            if done is not None and item.get(PENDING_KEY) in done:
                key = item[PENDING_KEY]
                item.clear()
                item.update(done[key])
    return items


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


def log_info(message: str) -> None:
    """A line in lmms-eval's own log (loguru), or this module's logger outside lmms-eval."""
    try:
        from loguru import logger

        logger.info(message)
    except ImportError:
        log.info(message)


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


# ------------------------------------------------------------------- the YAMLs' entry points

ROLES = ("doc_to_messages", "doc_to_text", "doc_to_visual", "process_results")


def entry_points(*tasks: str) -> dict[str, Callable[..., Any]]:
    """`<task>_doc_to_messages`, `_doc_to_text`, `_doc_to_visual` and `_process_results` for
    each task, plus the shared aggregations: what a task folder's `utils.py` exposes to its
    YAMLs' `!function utils.<name>` tags (lmms-eval names no task when it calls them, so each
    task gets its own functions; their `lmms_eval_specific_kwargs` carry its settings)."""
    out: dict[str, Callable[..., Any]] = {
        "aggregate_scored": aggregate_scored,
        "coverage": coverage,
        "mean_over_tasks": mean_over_tasks,
    }
    for task in tasks:
        for name, aggregate in for_task(task).aggregations:  # an unknown task fails here, at YAML load
            out[name] = _named(name, aggregate)
        out.update(_task_functions(task))
    return out


def _named(name: str, aggregate: Callable[[Sequence[Any]], Any]) -> Callable[[Sequence[Any]], Any]:
    """`aggregate` under the name its YAML gives it (lmms-eval logs and dumps that name)."""

    def named(items: Sequence[Any]) -> Any:
        return aggregate(items)

    named.__name__ = named.__qualname__ = name
    return named


def _task_functions(task: str) -> dict[str, Callable[..., Any]]:
    def messages(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> list[dict[str, Any]]:
        return doc_to_messages(doc, task, lmms_eval_specific_kwargs)

    def text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> str:
        return doc_to_text(doc, task, lmms_eval_specific_kwargs)

    def visual(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> list[Any]:
        return doc_to_visual(doc, task, lmms_eval_specific_kwargs)

    def scored(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, Any]:
        return process_results(doc, results, task)

    made: tuple[Callable[..., Any], ...] = (messages, text, visual, scored)
    functions: dict[str, Callable[..., Any]] = {}
    for role, function in zip(ROLES, made, strict=True):
        name = f"{task}_{role}"
        function.__name__ = function.__qualname__ = name
        functions[name] = function
    return functions


# ------------------------------------------------------------------------------ the wrapper


def tasks_dir() -> Path:
    """The shipped task folder (usable directly as `--include_path`; data from the Hub)."""
    with as_file(files("geomeval").joinpath(TASKS_DIR)) as path:
        return Path(path)


def _release_roots(spec: LmmsBenchmark, raw: Path) -> tuple[Path, tuple[Path, ...]]:
    """(release JSON, folders its images may sit in): GeoLaux's `locate_release` gives one
    folder, GGBench's a tuple of candidates, CapGeo-Bench's only the captions file (its
    image paths are relative to the file's folder)."""
    found = spec.module("raw").locate_release(raw)
    if isinstance(found, Path):
        return found, (found.parent,)
    json_path, where = found
    return json_path, (where,) if isinstance(where, Path) else tuple(where)


def _fingerprint(spec: LmmsBenchmark, raw: Path) -> str:
    """Identifies a raw release: its JSON's content, its images' names, sizes and times (or,
    for a small one, every file's name and content)."""
    from .. import __version__

    features = spec.features()
    digest = hashlib.sha256()
    if spec.hash_whole_release:
        digest.update(f"{__version__}\n{spec.name}\n{features._to_yaml_list()}\n{raw.resolve()}\n".encode())
        for path in sorted(p for p in raw.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(f"{path.relative_to(raw).as_posix()}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        return digest.hexdigest()[:16]
    if spec.release_files is not None:
        jsons, images = spec.release_files(raw)
        labelled = [(str(path.resolve()), path) for path in images]
    else:
        json_path, roots = _release_roots(spec, raw)
        jsons = (json_path,)
        labelled = [
            (str(path.relative_to(root)), path)
            for root in dict.fromkeys(r.resolve() for r in roots)
            for folder in spec.release_folders
            for path in sorted((root / folder).rglob("*"))
            if path.is_file()
        ]
    digest.update(f"{__version__}\n{spec.name}\n{features._to_yaml_list()}\n".encode())
    for json_path in jsons:
        digest.update(f"{json_path.resolve()}\n".encode())
        digest.update(json_path.read_bytes())
    for label, path in labelled:
        stat = path.stat()
        digest.update(f"{label}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def cached_build(raw: Path, spec: LmmsBenchmark) -> Path:
    """Build a raw release once into the cache; later calls reuse the folder."""
    from ..hfdata import is_built_dataset

    target = cache_dir() / "lmms_eval" / f"{spec.name}-{_fingerprint(spec, raw)}"
    if is_built_dataset(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():  # a broken leftover
        shutil.rmtree(target, ignore_errors=True)
    tmp = target.parent / f".{target.name}.{os.getpid()}.{threading.get_ident()}"
    spec.module("data").build(str(raw), str(tmp), overwrite=True)
    try:
        tmp.rename(target)
    except OSError:  # another process built it first
        shutil.rmtree(tmp, ignore_errors=True)
    if not is_built_dataset(target):
        raise FileNotFoundError(f"could not build {spec.title} from {raw} into {target}")
    return target


def _check_built_columns(spec: LmmsBenchmark, path: Path) -> None:
    """A built folder of another benchmark fails here, plainly, not deep inside lmms-eval.

    Reads one shard's schema only (no dataset load): `data/` holds the shards, or one folder
    of them per config."""
    import pyarrow.parquet as pq

    from ..benchmarks.base import DataError

    shard = min(path.glob("data/*.parquet"), default=None) or min(path.glob("data/*/*.parquet"))
    columns = set(pq.read_schema(shard).names)
    missing = [name for name in spec.features() if name not in columns]
    if missing:
        raise DataError("(dataset)", missing[0], f"column missing from {path}: not a built {spec.title} dataset")


def resolve_dataset(data_arg: str | None, spec: LmmsBenchmark) -> str:
    """`dataset_path` for a benchmark's tasks: a built folder (building raw data into the
    cache) or a hub id. Same rules as `geomeval run --data`: None is the embedded sample."""
    kind, where = spec.module("data").locate(data_arg)
    if kind == "built":
        path = Path(where).resolve()
        _check_built_columns(spec, path)
        return str(path)
    if kind == "raw":
        return str(cached_build(Path(where), spec))
    return str(where)


def card_configs(path: Path) -> tuple[str, ...] | None:
    """The configs a built folder's card declares (what `load_dataset(path, name)` accepts);
    None when the card has no `configs` list (one default config)."""
    text = (path / "README.md").read_text(encoding="utf-8")
    if not text.startswith("---"):
        return None
    header = yaml.safe_load(text.split("---", 2)[1]) or {}
    configs = header.get("configs") if isinstance(header, dict) else None
    if not isinstance(configs, list):
        return None
    return tuple(str(entry.get("config_name", "default")) for entry in configs if isinstance(entry, dict))


def check_configs(spec: LmmsBenchmark, dataset_path: str, tasks: Sequence[str]) -> None:
    """Refuse a local dataset that lacks the config a named task reads (a release built
    without that subset): lmms-eval would stop deep in `load_dataset` with a stack trace.
    Hub ids are left to lmms-eval (checking them would need the network)."""
    path = Path(dataset_path)
    wanted = {task: spec.dataset_name(task) for task in tasks if spec.dataset_name(task)}
    if not wanted or not path.is_dir() or not (path / "README.md").is_file():
        return
    declared = card_configs(path) or ()
    missing = [task for task, config in wanted.items() if config not in declared]
    if missing:
        raise UsageError(
            f"{path} holds no {', '.join(str(wanted[t]) for t in missing)} config "
            f"(it has: {', '.join(declared) or 'none'}), which {', '.join(missing)} "
            f"{'reads' if len(missing) == 1 else 'read'}: the release it was built from lacks "
            f"that subset. Leave {'that task' if len(missing) == 1 else 'those tasks'} out of --tasks."
        )


class _Function(str):
    """A `!function` tag's value, kept as a tag through load and dump."""


class _Loader(yaml.SafeLoader):
    pass


class _Dumper(yaml.SafeDumper):
    pass


_Loader.add_constructor("!function", lambda loader, node: _Function(loader.construct_scalar(node)))
_Dumper.add_representer(_Function, lambda dumper, value: dumper.represent_scalar("!function", str(value)))


def load_task_yaml(text: str) -> dict[str, Any]:
    return yaml.load(text, Loader=_Loader)  # a SafeLoader subclass that keeps !function tags


def dump_task_yaml(config: Mapping[str, Any]) -> str:
    return yaml.dump(dict(config), Dumper=_Dumper, sort_keys=False, allow_unicode=True)


def prepare_include_dir(dest: Path, dataset_paths: Mapping[str, str], user_include: str | None = None) -> Path:
    """Copy the shipped tasks into `dest`, pointing each benchmark's tasks at its dataset.

    `dataset_paths` maps a benchmark name to its `dataset_path`; benchmarks left out keep
    their Hub id.
    """
    paths = dict(dataset_paths)
    specs = {spec.name: spec for spec in BENCHMARKS}
    tasks = dest / "geomeval"
    shutil.copytree(tasks_dir(), tasks, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name, dataset_path in paths.items():
        spec = specs.get(name)
        template = tasks / (spec.task_folder if spec else name) / (spec.template if spec else TEMPLATE)
        config = load_task_yaml(template.read_text(encoding="utf-8"))
        config["dataset_path"] = dataset_path
        config.pop("dataset_kwargs", None)
        template.write_text(dump_task_yaml(config), encoding="utf-8")
    if user_include:  # lmms-eval takes one --include_path: carry the user's inside ours
        shutil.copytree(user_include, dest / "user", symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def _split_args(args: Sequence[str]) -> tuple[list[str], str | None, str | None]:
    """(other args, --output_path, --include_path) from the user's lmms-eval arguments."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--output_path")
    parser.add_argument("--include_path")
    known, rest = parser.parse_known_args(list(args))
    return rest, known.output_path, known.include_path


def _tasks_arg(args: Sequence[str]) -> str | None:
    """The value of `--tasks` (last one wins, as with argparse), or None."""
    value = None
    for index, arg in enumerate(args):
        if arg.startswith("--tasks="):
            value = arg.partition("=")[2]
        elif arg == "--tasks" and index + 1 < len(args):
            value = args[index + 1]
    return value


def _expects_results(args: Sequence[str]) -> bool:
    """False for help, listings and other subcommands, which write no results."""
    if not args or list(args) == ["eval"] or any(a in ("-h", "--help") for a in args):
        return False
    if not args[0].startswith("-") and args[0] != "eval":
        return False
    value = _tasks_arg(args)
    return not (value is not None and value.startswith("list"))


def _task_patterns(args: Sequence[str]) -> list[str]:
    value = _tasks_arg(args) or ""
    return [p.strip() for p in value.split(",") if p.strip()]


def named_tasks(spec: LmmsBenchmark, args: Sequence[str]) -> list[str]:
    """The benchmark's tasks `--tasks` names, directly or through one of its groups."""
    patterns = _task_patterns(args)
    if any(fnmatch.fnmatchcase(group, pattern) for group in spec.groups for pattern in patterns):
        return list(spec.tasks)
    return [task for task in spec.tasks if any(fnmatch.fnmatchcase(task, pattern) for pattern in patterns)]


def named_benchmarks(args: Sequence[str]) -> list[LmmsBenchmark]:
    """The benchmarks whose tasks (or groups) `--tasks` names, in table order.

    Names are matched as lmms-eval matches them (fnmatch patterns, comma-separated);
    other tasks (the user's own, a YAML path) belong to no geomeval benchmark."""
    return [spec for spec in BENCHMARKS if named_tasks(spec, args)]


def find_results(output_path: Path, since: float = 0.0) -> list[Path]:
    """Results JSONs lmms-eval wrote under `output_path` (at `<model>/<date>_results.json`)."""
    if not output_path.is_dir():
        return []
    return sorted(p for p in output_path.rglob(RESULTS_GLOB) if p.stat().st_mtime >= since)


def _fmt(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "n/a"


def summarize_results(path: Path) -> list[str]:
    """One line per geomeval task or group: its summary metrics (by their real names) and
    coverage."""
    results = json.loads(path.read_text(encoding="utf-8")).get("results", {})
    lines = []
    for task, metrics in results.items():
        spec = _BY_NAME.get(task)
        if spec is None:
            continue
        shown = []
        for metric in spec.summary:
            key = metric_key(metric)
            found = next((k for k in metrics if k.split(",")[0] == key), None)
            if found is None:
                continue
            cov = metrics.get(found.replace(key, f"{key}_coverage", 1))
            shown.append(f"{metric} {_fmt(metrics[found])}" + (f" (coverage {_fmt(cov)})" if cov is not None else ""))
        if shown:
            lines.append(f"{task}: " + ", ".join(shown))
    return lines


def coverage_shortfalls(path: Path, min_coverage: float, judged: bool) -> list[str]:
    """`geomeval run --min-coverage`'s check on an lmms-eval results JSON: each geomeval task's
    metric whose coverage is below `min_coverage`. Without a judge (`judged` False) a metric
    that scored nothing while others of its task scored is one only a judge can score, and is
    exempt, as `geomeval run` exempts it; with nothing scored at all, every metric counts."""
    results = json.loads(path.read_text(encoding="utf-8")).get("results", {})
    short = []
    for task, metrics in results.items():
        if task not in _BY_NAME and task not in GROUPS:
            continue
        covered = {
            key.split(",")[0][: -len("_coverage")]: value
            for key, value in metrics.items()
            if key.split(",")[0].endswith("_coverage") and isinstance(value, (int, float))
        }
        anything = any(value > 0 for value in covered.values())
        for metric, value in covered.items():
            if value >= min_coverage or (not judged and anything and value == 0):
                continue
            short.append(f"{task} {metric}: coverage {value:.4f}")
    return short


def _child_env() -> dict[str, str]:
    """The environment for lmms-eval, where utils.py must import this same geomeval.

    A source checkout (not installed) goes on PYTHONPATH; site-packages never does,
    which would put it ahead of the standard library.
    """
    import site

    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[2])
    site_dirs = {str(Path(p).resolve()) for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if package_root not in site_dirs:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def dataset_paths_for(specs: Sequence[LmmsBenchmark], data: str | None) -> dict[str, str]:
    """{benchmark: dataset_path} for the benchmarks named: `data` for the one benchmark
    named, else each one's embedded sample. One `--data` cannot serve two benchmarks."""
    if data is not None and len(specs) > 1:
        named = "; ".join(f"{s.title} ({', '.join(s.tasks)})" for s in specs)
        raise UsageError(
            f"--data names one dataset, but --tasks names tasks of several benchmarks: {named}. "
            "Run each benchmark's tasks separately with its own --data, or leave out --data "
            "to run every benchmark named on its embedded sample."
        )
    return {spec.name: resolve_dataset(data, spec) for spec in specs}


def check_prompt_file(path: str) -> str:
    """The prompt file's absolute path, once every section in it is valid for its benchmark
    (lmms-eval would otherwise fail on the first item of a task, deep in its log)."""
    from ..benchmarks import REGISTRY, with_prompt_file
    from ..prompts import read_prompt_file

    for section in read_prompt_file(path):
        if section not in REGISTRY:
            with_prompt_file(next(iter(REGISTRY.values())), path)  # raises, naming the unknown section
        with_prompt_file(REGISTRY[section], path)
    return str(Path(path).expanduser().resolve())


def run_lmms_eval(
    args: Sequence[str], data: str | None = None, min_coverage: float | None = None, prompts: str | None = None
) -> int:
    """Run `python -m lmms_eval <args>` with geomeval's tasks; the exit status to return.

    0 only when a results JSON was written; 1 when lmms-eval wrote none (it exits 0
    on failed tasks); 2 when `--data` is given with tasks of two benchmarks, or names a
    built folder without the config a named task reads; 3 when a metric's coverage is
    below `min_coverage` (as `geomeval run`); lmms-eval's own status when that is not 0.
    `prompts` (or GEOMEVAL_PROMPTS) names a prompt file, checked here and read by the tasks.
    """
    if find_spec("lmms_eval") is None:
        _say(
            "error: lmms-eval is not installed. Install it without CUDA: "
            'pip install -c constraints.txt "lmms-eval==0.7.3" && pip uninstall -y torchvision'
        )
        return 2
    rest, output_path, user_include = _split_args(args)
    expects = _expects_results(rest)
    specs = named_benchmarks(rest) if expects else []
    if expects and data is not None and not specs:
        _say(f"geomeval: --data {data} is not used: --tasks names no geomeval task ({', '.join((*TASKS, *GROUPS))}).")
    from ..prompts import ENV_VAR

    prompt_file = prompts or os.environ.get(ENV_VAR) or None
    try:
        paths = dataset_paths_for(specs, data)
        for spec in specs:
            check_configs(spec, paths[spec.name], named_tasks(spec, rest))
        if prompt_file:
            prompt_file = check_prompt_file(prompt_file)
    except ValueError as exc:
        _say(f"error: {exc}")
        return 2
    if output_path is None and expects:
        output_path = str(Path("runs") / "lmms-eval" / time.strftime("%Y%m%d-%H%M%S"))
    out = Path(output_path).expanduser().resolve() if output_path else None
    with tempfile.TemporaryDirectory(prefix="geomeval-lmms-tasks-") as tmp:
        include = prepare_include_dir(Path(tmp), paths, user_include)
        command = [sys.executable, "-m", "lmms_eval", *rest, "--include_path", str(include)]
        if out is not None:
            command += ["--output_path", str(out)]
        env = _child_env()
        if prompt_file:
            env[ENV_VAR] = prompt_file
            _say(f"geomeval: prompts from {prompt_file}")
        if expects:
            for spec in specs:
                _say(f"geomeval: {spec.title} data {paths[spec.name]}")
            _say(f"geomeval: lmms-eval output under {out}")
        started = time.time()
        status = subprocess.run(command, env=env, check=False).returncode
    if not expects:
        return status
    written = find_results(out, since=started - 1) if out else []
    if status != 0:
        _say(f"error: lmms-eval exited with status {status}.")
        return status if status > 0 else 1
    if not written:
        _say(
            f"error: lmms-eval wrote no results JSON under {out}: the evaluation failed "
            "(lmms-eval exits 0 all the same; its log above says why)."
        )
        return 1
    short: list[str] = []
    for path in written:
        for line in summarize_results(path):
            print(line, flush=True)
        print(f"results: {path}", flush=True)
        if min_coverage is not None:
            short += coverage_shortfalls(path, min_coverage, judged=bool(os.environ.get("GEOMEVAL_JUDGE_MODEL")))
    if short:
        _say("coverage below --min-coverage: " + "; ".join(short))
        _say("unscored items keep their reasons in lmms-eval's samples (--log_samples) and in the log above.")
        _say(LIST_CONTENT_HINT)
        return MIN_COVERAGE_EXIT
    return 0
