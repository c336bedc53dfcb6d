"""`geomeval lmms-eval`: run `python -m lmms_eval` with geomeval's tasks, then check what it
wrote. lmms-eval writes `<output_path>/<model>/<date>_results.json` and exits 0 even when
every task failed, hence the check after the run. `--data` applies to the one benchmark
whose tasks (or groups) `--tasks` names (fnmatch patterns, as lmms-eval matches them)."""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from ...benchmarks.lmms import LmmsBenchmark, metric_key
from ...core.errors import MIN_COVERAGE_EXIT, UsageError
from .datasets import check_configs, resolve_dataset
from .registry import _BY_NAME, BENCHMARKS, GROUPS, TASKS
from .scores import COVERAGE
from .taskfiles import prepare_include_dir

# lmms-eval's openai client sends every message as a list of content parts, even text alone;
# llama.cpp's server refuses that (HTTP 500), so every request fails there.
LIST_CONTENT_HINT = (
    "if lmms-eval's requests failed (LMMS_EVAL_REQUEST_FAILED in its log): its openai client "
    "sends every message as a list of content parts, which llama.cpp's server refuses with HTTP "
    "500; serve the model with vLLM (which accepts both forms), or run `geomeval run`, which sends "
    "a prompt without an image as a plain string."
)
RESULTS_GLOB = "*_results.json"

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


def _row(metrics: Mapping[str, Any], key: str) -> str | None:
    """The result key of metric `key` under any filter ("<key>,<filter>")."""
    return next((k for k in metrics if k.split(",")[0] == key), None)


def summarize_results(path: Path) -> list[str]:
    """One line per geomeval task or group: its summary metrics (by their real names, each
    with its standard error where lmms-eval has one) and the task's coverage."""
    results = json.loads(path.read_text(encoding="utf-8")).get("results", {})
    lines = []
    for task, metrics in results.items():
        spec = _BY_NAME.get(task)
        if spec is None:
            continue
        shown = []
        for metric in spec.summary:
            found = _row(metrics, metric_key(metric))
            if found is None:
                continue
            name, _, where = found.partition(",")
            stderr = metrics.get(f"{name}_stderr,{where}")
            shown.append(f"{metric} {_fmt(metrics[found])}"
                         + (f" ± {_fmt(stderr)}" if isinstance(stderr, (int, float)) else ""))
        if shown:
            found = _row(metrics, COVERAGE)
            cov = f" (coverage {_fmt(metrics[found])})" if found is not None else ""
            lines.append(f"{task}: " + ", ".join(shown) + cov)
    return lines


def coverage_shortfalls(path: Path, min_coverage: float) -> list[str]:
    """`geomeval run --min-coverage`'s check on an lmms-eval results JSON: each geomeval task
    whose `coverage` row (its least covered metric's share of items scored, counting failures
    only: see aggregations.coverage) is below `min_coverage`. The metric behind each row is
    in lmms-eval's log."""
    results = json.loads(path.read_text(encoding="utf-8")).get("results", {})
    short = []
    for task, metrics in results.items():
        if task not in _BY_NAME and task not in GROUPS:
            continue
        found = _row(metrics, COVERAGE)
        value = metrics.get(found) if found is not None else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < min_coverage:
            short.append(f"{task}: coverage {value:.4f}")
    return short


def _child_env() -> dict[str, str]:
    """The environment for lmms-eval, where utils.py must import this same geomeval.

    A source checkout (not installed) goes on PYTHONPATH; site-packages never does,
    which would put it ahead of the standard library.
    """
    import site

    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[3])
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
    from ...benchmarks import REGISTRY, with_prompt_file
    from ...engines.prompts import read_prompt_file

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
    from ...engines.prompts import ENV_VAR

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
            short += coverage_shortfalls(path, min_coverage)
    if short:
        _say("coverage below --min-coverage: " + "; ".join(short))
        _say("unscored items keep their reasons in lmms-eval's samples (--log_samples) and in the log above.")
        _say(LIST_CONTENT_HINT)
        return MIN_COVERAGE_EXIT
    return 0
