"""One model over several benchmarks and tasks: `geomeval suite`.

Each (benchmark, task) is an ordinary run in its own folder under the model's suite folder,
so a suite resumes exactly as `geomeval run` does (finished items are kept, the rest redone)
and each part can be rescored or compared alone. The suite then writes one combined report
(`suite.json`, `suite.md`) and, in the suite root, a leaderboard with one row per model built
from every model's `suite.json`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..benchmarks import REGISTRY, Benchmark, get_benchmark
from ..benchmarks.options import option_pairs
from ..core.errors import UsageError
from ..engines.client import BudgetExhausted
from ..engines.judges import Judge
from ..engines.models import Model
from .provenance import now
from .runner import Progress, run

SUITE = "suite.json"
LEADERBOARD = "leaderboard.md"


def parse_parts(specs: Sequence[str] | None) -> list[tuple[str, str]]:
    """`benchmark` or `benchmark:task` names; none means every benchmark's default task."""
    if not specs:
        return [(name, bench.default_task) for name, bench in REGISTRY.items()]
    parts = []
    for spec in specs:
        name, _, task = spec.partition(":")
        bench = get_benchmark(name)
        task = task or bench.default_task
        try:
            bench.check_task(task)
        except UsageError as exc:
            raise UsageError(f"{spec!r}: {exc}") from None
        if (bench.name, task) in parts:
            raise UsageError(f"{spec!r} named twice")
        parts.append((bench.name, task))
    return parts


def parse_data(pairs: Sequence[str] | None, parts: Sequence[tuple[str, str]]) -> dict[str, str]:
    """`benchmark=PATH` pairs, one per benchmark of the suite."""
    found: dict[str, str] = {}
    names = {name for name, _ in parts}
    for pair in pairs or ():
        name, sep, path = pair.partition("=")
        if not sep or not path:
            raise UsageError(f"--data {pair!r}: expected BENCHMARK=PATH, e.g. --data geolaux=data/geolaux")
        if name not in names:
            raise UsageError(f"--data {pair!r}: {name!r} is not in this suite ({', '.join(sorted(names))})")
        if name in found:
            raise UsageError(f"--data for {name} given twice")
        found[name] = path
    return found


def parse_options(pairs: Sequence[str] | None, parts: Sequence[tuple[str, str]]) -> dict[str, dict[str, str]]:
    """`-T BENCHMARK.KEY=VALUE` pairs as {benchmark: {key: value}}, each benchmark's checked
    by its own `configure` now, so a bad option stops the suite before any part runs."""
    found: dict[str, dict[str, str]] = {}
    names = {name for name, _ in parts}
    for target, value in option_pairs(pairs or (), scoped=True).items():
        name, _, key = target.partition(".")
        if name not in names:
            raise UsageError(f"-T {target}={value}: {name!r} is not in this suite ({', '.join(sorted(names))})")
        found.setdefault(name, {})[key] = value
    for name, options in found.items():
        get_benchmark(name).configure(options)
    return found


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.split("/")[-1])[:60] or "model"


def run_suite(
    parts: Sequence[tuple[str, str]],
    *,
    model_spec: str,
    make_model: Callable[[Benchmark], Model],
    make_judge: Callable[[], Judge],
    out_root: Path,
    data: dict[str, str] | None = None,
    limit: int | None = None,
    concurrency: int = 32,
    seed: int = 0,
    progress: Callable[[str], Progress] | None = None,
    run_kwargs: dict[str, Any] | None = None,
    options: dict[str, dict[str, str]] | None = None,
) -> dict[str, Any]:
    """Run every part (a fresh model and judge each, as each run closes its own), then write
    the combined report and the leaderboard. A part that fails (bad data, an endpoint that
    cannot be used) is recorded with its error and the suite goes on; a spent budget stops it.
    `options`: a benchmark's run options (`parse_options`), for each of its parts."""
    model_dir = out_root / slug(model_spec)
    model_dir.mkdir(parents=True, exist_ok=True)
    started = now()
    rows: list[dict[str, Any]] = []
    for name, task in parts:
        out_dir = model_dir / f"{name}-{task}"
        row: dict[str, Any] = {"benchmark": name, "task": task, "out": str(out_dir.relative_to(out_root))}
        try:
            bench = get_benchmark(name)
            if (options or {}).get(name):
                bench = bench.configure((options or {})[name])
            results = run(bench, task=task, model=make_model(bench), judge=make_judge(), out_dir=out_dir,
                          data=(data or {}).get(name), limit=limit, concurrency=concurrency, seed=seed,
                          progress=progress(f"{name}/{task}") if progress else None, **(run_kwargs or {}))
        except BudgetExhausted as exc:
            rows.append({**row, **_headline(exc.results), "stopped": str(exc)})  # type: ignore[attr-defined]
            break
        except Exception as exc:  # one part's failure is reported; the others still run
            rows.append({**row, "error": f"{type(exc).__name__}: {exc}"[:500]})
            continue
        rows.append({**row, **_headline(results)})
    suite = {"model": model_spec, "started_at": started, "finished_at": now(), "limit": limit, "seed": seed,
             "parts": rows}
    (model_dir / SUITE).write_text(json.dumps(suite, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (model_dir / "suite.md").write_text(suite_markdown(suite), encoding="utf-8")
    write_leaderboard(out_root)
    return suite


def _headline(results: dict[str, Any]) -> dict[str, Any]:
    """The part's headline metric with its interval and coverage."""
    metric = results.get("headline") or next(iter(results["metrics"]))
    stats = results["metrics"][metric]
    return {"title": results["title"], "metric": metric, "value": stats["value"], "ci": stats.get("ci"),
            "se": stats.get("se"), "scored": stats["scored"], "total": stats["total"],
            "unit": stats.get("unit"), "n_items": results["n_items"], "judge": results["judge"]}


def _cell(row: dict[str, Any]) -> str:
    from .report import fmt_interval, fmt_metric

    if "error" in row:
        return "failed"
    if row.get("value") is None:
        return "not scored"
    return f"{fmt_metric(row, row.get('unit'))} [{fmt_interval(row, row.get('unit'))}]"


def suite_markdown(suite: dict[str, Any]) -> str:
    lines = [f"# Suite: `{suite['model']}`", "", f"Ran {suite['started_at']} to {suite['finished_at']}"
             + (f", first {suite['limit']} items of each part" if suite.get("limit") else "") + ".", "",
             "| benchmark | task | headline | score [95% interval] | scored | judge | folder |",
             "|---|---|---|---|---|---|---|"]
    for row in suite["parts"]:
        if "error" in row:
            lines.append(f"| {row['benchmark']} | {row['task']} | — | failed: {row['error']} | — | — | {row['out']} |")
            continue
        lines.append(f"| {row['benchmark']} | {row['task']} | {row['metric']} | {_cell(row)} | "
                     f"{row['scored']}/{row['total']} | {row['judge']} | {row['out']} |")
    stopped = [row for row in suite["parts"] if row.get("stopped")]
    if stopped:
        lines += ["", f"Stopped at {stopped[0]['benchmark']}/{stopped[0]['task']}: {stopped[0]['stopped']}. "
                  "Rerun the same command with a larger budget to go on."]
    return "\n".join(lines) + "\n"


def write_leaderboard(out_root: Path) -> Path:
    """One row per model (each `*/suite.json` under `out_root`), one column per part."""
    suites = []
    for path in sorted(out_root.glob(f"*/{SUITE}")):
        try:
            suites.append(json.loads(path.read_text(encoding="utf-8")))
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
    columns: list[tuple[str, str]] = []
    for suite in suites:
        for row in suite["parts"]:
            if (row["benchmark"], row["task"]) not in columns:
                columns.append((row["benchmark"], row["task"]))
    lines = ["# Leaderboard", "", "Each cell: the part's headline metric with its 95% interval.", "",
             "| model | " + " | ".join(f"{b}/{t}" for b, t in columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for suite in suites:
        by_part = {(row["benchmark"], row["task"]): row for row in suite["parts"]}
        cells = [_cell(by_part[c]) if c in by_part else "—" for c in columns]
        lines.append(f"| {suite['model']} | " + " | ".join(cells) + " |")
    path = out_root / LEADERBOARD
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
