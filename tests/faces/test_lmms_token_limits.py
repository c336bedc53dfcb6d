"""Token limits from one place: every lmms-eval task asks with its benchmark's declared
generation settings (`Benchmark.generation_max_tokens` and `generation_temperature`), the
ones `geomeval run` asks with, whatever the benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from geomeval.benchmarks import REGISTRY

TASKS = Path(__file__).resolve().parents[2] / "src" / "geomeval" / "lmms_tasks"


def _yaml(path: Path) -> dict:
    text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines() if "!function" not in line)
    return yaml.safe_load(text) or {}


@pytest.mark.parametrize("name", sorted(n for n, b in REGISTRY.items() if b.lmms is not None))
def test_each_task_asks_with_its_benchmarks_declared_settings(name: str) -> None:
    bench = REGISTRY[name]
    spec = bench.lmms
    folder = TASKS / (spec.folder or name)
    template = _yaml(folder / spec.template)
    found = []
    for path in sorted(folder.glob("*.yaml")):
        config = _yaml(path)
        if config.get("include") != spec.template:
            continue
        kwargs = {**(template.get("generation_kwargs") or {}), **(config.get("generation_kwargs") or {})}
        found.append((path.name, kwargs.get("max_new_tokens"), float(kwargs.get("temperature", 0))))
    assert found, name
    assert {(tokens, temp) for _, tokens, temp in found} == \
        {(bench.generation_max_tokens, bench.generation_temperature)}, found
