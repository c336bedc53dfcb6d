"""At the defaults a model is asked as its benchmark's paper asked it: GeoLaux's official
answering script samples at 0.1 with 8,192 tokens, ME2's official task allows 1,024 tokens;
the others leave it unstated (0 and 2,048). Flags override it, and the lmms-eval tasks say the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from geomeval.benchmarks import REGISTRY
from geomeval.testing.chat_server import ChatServer

TASKS = Path(__file__).resolve().parents[2] / "src" / "geomeval" / "lmms_tasks"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True, timeout=600)


def _asked(benchmark: str, tmp_path: Path, *flags: str) -> list[tuple[object, object]]:
    with ChatServer(lambda _request: "no idea") as server:
        done = _cli("run", benchmark, "--model", "openai:m", "--base-url", server.base_url, "--limit", "2",
                    "--cache", "off", "--out", str(tmp_path / f"{benchmark}{len(flags)}"), *flags)
        assert done.returncode == 0, done.stderr[-2000:]
        return [(r.get("max_tokens"), r.get("temperature")) for r in server.requests]


@pytest.mark.parametrize(("benchmark", "expected"), [("geolaux", (8192, 0.1)), ("me2", (1024, 0.0)),
                                                     ("geoeval", (2048, 0.0))])
def test_the_model_is_asked_at_its_papers_settings_unless_told_otherwise(
    benchmark: str, expected: tuple[int, float], tmp_path: Path,
) -> None:
    bench = REGISTRY[benchmark]
    assert (bench.generation_max_tokens, bench.generation_temperature) == expected
    assert set(_asked(benchmark, tmp_path)) == {expected}
    assert set(_asked(benchmark, tmp_path, "-M", "max_tokens=300", "-M", "temperature=0.5")) == {(300, 0.5)}


@pytest.mark.parametrize("benchmark", ["geolaux", "me2"])
def test_lmms_eval_tasks_use_the_declared_settings(benchmark: str) -> None:
    """Where the paper's protocol sets them, the lmms-eval tasks ask with the same settings."""
    bench = REGISTRY[benchmark]
    folder = TASKS / benchmark
    found = []
    for path in sorted(folder.glob("*yaml")):
        text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                         if "!function" not in line)  # lmms-eval's own tag; not needed to read the numbers
        kwargs = (yaml.safe_load(text) or {}).get("generation_kwargs")
        if kwargs:
            found.append((path.name, kwargs["max_new_tokens"], float(kwargs["temperature"])))
    assert found and all(
        (tokens, temperature) == (bench.generation_max_tokens, bench.generation_temperature)
        for _, tokens, temperature in found
    ), found
