"""Every benchmark's results on its embedded sample, pinned (issue 38: behaviour unchanged).

Each benchmark × task runs on its whole embedded sample with two deterministic models
(`baseline:random`, seeded per item, and `baseline:empty`, which answers nothing) and the
offline judge; the numbers a user reads (metrics with coverage, breakdowns, tables, analyses)
and every record's scores, reasons and extracted answers must equal the stored ones in
`tests/data/results_unchanged.json`. A refactoring that changes any of them fails here.

A deliberate change of results regenerates the file, and the diff is reviewed with it:
`python tests/benchmarks/test_results_unchanged.py` (from the checkout, offline).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "results_unchanged.json"
MODELS = ("baseline:random", "baseline:empty")
# What results.json says about the run's numbers (provenance, timings and versions aside).
KEPT_KEYS = ("n_items", "headline", "metrics", "breakdowns", "tables", "analysis", "skipped_metrics")
SLOW = {("me2", "me2_explain")}  # loads a BERTScore model


def _rounded(value: Any) -> Any:
    """Floats to 10 significant digits, so a last-bit difference in a library's sum is not a change."""
    if isinstance(value, float):
        return float(f"{value:.10g}")
    if isinstance(value, dict):
        return {str(k): _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def outcome(name: str, task: str, model_spec: str) -> dict[str, Any]:
    """The run's numbers and its records' scores, as plain JSON."""
    from geomeval.benchmarks import get_benchmark
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import parse_model_spec
    from geomeval.run.runner import run

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run"
        results = run(get_benchmark(name), task=task, model=parse_model_spec(model_spec),
                      judge=parse_judge_spec("offline"), out_dir=out)
        records = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    summary = {key: results[key] for key in KEPT_KEYS if key in results}
    per_item = {
        r["id"]: {"scores": r.get("scores"), "extracted": r.get("extracted"), "flags": r.get("flags")}
        for r in sorted(records, key=lambda r: r["id"])
    }
    return _rounded({"results": summary, "records": per_item})


def _cases() -> list[tuple[str, str, str]]:
    from geomeval.benchmarks import REGISTRY

    return [(name, task, model) for name, bench in REGISTRY.items() for task in bench.tasks for model in MODELS]


def _param(name: str, task: str, model: str) -> Any:
    marks = [pytest.mark.slow] if (name, task) in SLOW else []
    return pytest.param(name, task, model, marks=marks, id=f"{name}-{task}-{model}")


@pytest.mark.parametrize(("name", "task", "model"), [_param(*case) for case in _cases()])
def test_results_on_the_embedded_samples_are_unchanged(name: str, task: str, model: str) -> None:
    stored = json.loads(GOLDEN.read_text(encoding="utf-8"))
    key = f"{name}/{task}/{model}"
    assert key in stored, f"{key} has no stored results: regenerate {GOLDEN.name} (see the module docstring)"
    got = outcome(name, task, model)
    assert got["results"] == stored[key]["results"], key
    assert got["records"] == stored[key]["records"], key


def test_every_stored_case_is_still_run() -> None:
    stored = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert set(stored) == {f"{n}/{t}/{m}" for n, t, m in _cases()}


if __name__ == "__main__":
    import os

    os.environ.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    table = {f"{n}/{t}/{m}": outcome(n, t, m) for n, t, m in _cases()}
    lines = [f"{json.dumps(key)}: {json.dumps(table[key], sort_keys=True, ensure_ascii=False)}" for key in sorted(table)]
    GOLDEN.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")  # one case a line
    print(f"wrote {len(table)} cases to {GOLDEN}", file=sys.stderr)
