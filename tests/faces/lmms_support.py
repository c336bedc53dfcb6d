"""What the lmms-eval face tests share: a built sample, an include folder, lmms-eval's own
rows, and `geomeval lmms-eval` run as a user runs it (offline, against a local server).

One place, so that each benchmark's test file holds only what it checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import pytest

from geomeval.integrations import lmms_eval as integration

LOCAL = "127.0.0.1,localhost"


def build_sample(factory: pytest.TempPathFactory, data: ModuleType, name: str) -> Path:
    """The benchmark's embedded sample built as `geomeval build` writes it."""
    out = factory.mktemp(name) / "built"
    data.build(str(data.sample_path()), str(out))
    return out


def include_dir(factory: pytest.TempPathFactory, datasets: dict[str, str]) -> Path:
    """geomeval's task YAMLs with each named task reading the given built folder."""
    return integration.prepare_include_dir(factory.mktemp("inc") / "inc", datasets)


def lmms_docs(include: Path, task: str) -> list[dict]:
    """Rows exactly as lmms-eval 0.7.3 hands them to process_results (its own loader)."""
    from lmms_eval.tasks import TaskManager, get_task_dict

    tasks = get_task_dict([task], TaskManager(include_path=str(include), include_defaults=False))
    return [dict(doc) for doc in tasks[task].eval_docs_no_media]


def geomeval_lmms_eval(
    *args: str,
    cache: Path,
    extra_env: dict[str, str] | None = None,
    drop: Iterable[str] = (),
    timeout: int = 240,
) -> subprocess.CompletedProcess[str]:
    """`geomeval lmms-eval ARGS` in a fresh process: offline, the cache in `cache`, the local
    server reached directly; `extra_env` is applied last, and the `drop` variables removed."""
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "GEOMEVAL_CACHE_DIR": str(cache),
        "NO_PROXY": LOCAL,
        "no_proxy": LOCAL,
        **(extra_env or {}),
    }
    for name in drop:
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "geomeval.cli", "lmms-eval", *args],
        capture_output=True, text=True, timeout=timeout, env=env, check=False,
    )


def only_results(out: Path) -> dict:
    """The one results file lmms-eval wrote under `out`, read."""
    found = integration.find_results(out)
    assert len(found) == 1, found
    return json.loads(found[0].read_text(encoding="utf-8"))
