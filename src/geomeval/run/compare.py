"""Compare two runs item by item: the auxiliary-line ablation and any other A/B.

Only items scored in *both* runs enter a metric's comparison, so a judge failure in
one run cannot pass for a change in the model. Deltas are B − A, each with a seeded
paired-bootstrap 95% interval and a paired test: McNemar's exact test for 0/1 scores,
a sign-flip permutation test otherwise (`stats.paired_difference`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..benchmarks import REGISTRY
from ..core.errors import UsageError
from ..core.runfiles import RUN_CONFIG, SAMPLES, read_samples
from ..engines.aggregate import ALL
from ..engines.stats import paired_difference


def _load(run_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    config_path = run_dir / RUN_CONFIG
    if not config_path.exists():
        raise FileNotFoundError(f"{config_path} not found: is {run_dir} a geomeval run folder?")
    config = json.loads(config_path.read_text(encoding="utf-8"))
    records = {r.id: r for r in read_samples(run_dir / SAMPLES)}
    return config, records


def _units(run_dir: Path) -> dict[str, str]:
    """Metrics that are not shares (dB, raw), from the run's results.json when it has one."""
    path = run_dir / "results.json"
    if not path.exists():
        return {}
    try:
        metrics = json.loads(path.read_text(encoding="utf-8")).get("metrics") or {}
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return {name: stats["unit"] for name, stats in metrics.items() if isinstance(stats, dict) and stats.get("unit")}


def compare_runs(
    run_a: Path, run_b: Path, *, by: str | None = None, metrics: list[str] | None = None
) -> dict[str, Any]:
    """B − A per group of `by` (default: the benchmark's own, e.g. GeoLaux's auxiliary type)."""
    config_a, records_a = _load(run_a)
    config_b, records_b = _load(run_b)
    if config_a["benchmark"] != config_b["benchmark"]:
        raise UsageError(
            f"cannot compare a {config_a['benchmark']} run with a {config_b['benchmark']} run"
        )
    if by is None:
        bench = REGISTRY.get(config_a["benchmark"])
        by = bench.compare_by if bench is not None else None
    common = [i for i in records_a if i in records_b]
    if not common:
        raise UsageError(f"{run_a} and {run_b} share no items")
    if metrics is None:
        names: list[str] = []
        for record in records_a.values():
            names += [m for m in record.scores if m not in names]
        metrics = names
    groups: dict[str, list[str]] = {ALL: common}
    if by:
        for item_id in common:
            key = records_a[item_id].meta.get(by)
            if key is None:
                raise UsageError(f"item {item_id!r}, field {by!r}: not in the run's breakdown keys")
            groups.setdefault(str(key), []).append(item_id)

    units = _units(run_a)
    table: dict[str, dict[str, Any]] = {}
    for group, ids in groups.items():
        row: dict[str, Any] = {"items": len(ids)}
        for metric in metrics:
            pairs = [
                (records_a[i].scores[metric].value, records_b[i].scores[metric].value)
                for i in ids
                if metric in records_a[i].scores and metric in records_b[i].scores
                and records_a[i].scores[metric].scored and records_b[i].scores[metric].scored
            ]
            if pairs:
                a_values = [float(p[0]) for p in pairs]  # type: ignore[arg-type]
                b_values = [float(p[1]) for p in pairs]  # type: ignore[arg-type]
                row[metric] = {
                    "A": sum(a_values) / len(pairs), "B": sum(b_values) / len(pairs), "paired": len(pairs),
                    **paired_difference(a_values, b_values),
                }
            else:
                row[metric] = {"A": None, "B": None, "delta": None, "paired": 0}
        table[group] = row
    return {
        "benchmark": config_a["benchmark"],
        "A": {"dir": str(run_a), "task": config_a["task"], "model": config_a["model"], "judge": config_a["judge"]},
        "B": {"dir": str(run_b), "task": config_b["task"], "model": config_b["model"], "judge": config_b["judge"]},
        "by": by,
        "metrics": metrics,
        "units": {m: units[m] for m in metrics if m in units},
        "common_items": len(common),
        "only_in_A": sorted(set(records_a) - set(records_b))[:20],
        "only_in_B": sorted(set(records_b) - set(records_a))[:20],
        "groups": table,
    }
