"""What each task's YAML gives its doc functions (`TaskSettings`), and the benchmark and
judge each task uses: one per setting per process, as lmms-eval calls the task functions
from several threads."""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .registry import for_task

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
    from ...benchmarks import with_prompt_file
    from ...engines.prompts import ENV_VAR, PromptSet, validated

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
    from ...engines.judges import judge_from_env

    key = settings.judge
    with _state_lock:
        if key not in _judges:
            if not _judges:
                atexit.register(close_judges)
            _judges[key] = judge_from_env(**dict(key)) if key else judge_from_env()
        return _judges[key]


def close_judges(timeout_s: float = 10.0) -> None:
    """Close the judges' HTTP sessions on the loop that opened them (the shared background
    loop process_results scores on), at exit: left open, aiohttp says "Unclosed client
    session" as the interpreter collects them."""
    import asyncio
    import contextlib

    from ...engines.client import BackgroundLoop

    with _state_lock:
        judges = list(_judges.values())
    if not judges or BackgroundLoop._instance is None or not BackgroundLoop._instance.loop.is_running():
        return
    loop = BackgroundLoop._instance.loop
    for judge in judges:
        with contextlib.suppress(Exception):  # at exit: a judge that cannot close is left as it is
            asyncio.run_coroutine_threadsafe(judge.aclose(), loop).result(timeout=timeout_s)


def _benchmark_and_judge(name: str, task: str | None = None, kwargs: Mapping[str, Any] | None = None) -> tuple[Any, Any]:
    """The registry's benchmark (configured for `task` where its entry says how, rendering the
    task's prompts as `geomeval run --prompts` does) and its judge."""
    from ...benchmarks import get_benchmark

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

