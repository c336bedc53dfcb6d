"""Where a task's data comes from when lmms-eval loads the shipped tasks itself
(`lmms-eval --include_path <geomeval's lmms_tasks>`), and a non-zero exit with the fix when
there is none.

A task YAML's `dataset_path` is the authors' own Hub dataset where they publish one (ME2:
`jungypark/ME2`, GGBench: `opendatalab-raiser/GGBench`), and absent otherwise: GeoLaux's
authors publish it in their GitHub repository, GeoEval's on request, CapGeo's behind a code
link, none as a Hub dataset, so they are read from a local release only (and no id
geomeval could fill, or leave empty, stands under a benchmark's name). Before lmms-eval
loads a geomeval task, `task_dataset` resolves, in this order:

1. `dataset_kwargs: {geomeval_data: PATH}` in the task YAML (or an `--include_path` copy);
2. a YAML `dataset_path` that is a local folder (what `geomeval lmms-eval --data` writes);
3. the environment variable `GEOMEVAL_LMMS_DATA_<NAME>` (`GEOMEVAL_LMMS_DATA_ME2`, ...);
4. the YAML's `dataset_path` (a Hub id).

A raw release (the authors' layout: a download of their Hub dataset, a clone of their
repository, the release JSON with its images) is converted once by geomeval's reader for that
layout into the typed build the tasks read (`datasets.cached_build`); a built folder is read
as it is; the authors' Hub id is fetched (or taken from the Hub cache offline) first.

lmms-eval's CLI reports a task that fails to load and still exits 0, so a missing dataset
raises SystemExit with the fix (exit 1): `except Exception` in lmms-eval does not catch it.
The hook is installed on lmms-eval's task class when a task folder's utils.py is imported
(lmms-eval imports it while it reads the YAMLs of the tasks asked for), and acts only on
tasks whose YAML says `metadata: {source: geomeval}`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...benchmarks.lmms import LmmsBenchmark
from ...core.errors import UsageError

DATA_KWARG = "geomeval_data"
SOURCE = "geomeval"


def env_name(spec: LmmsBenchmark) -> str:
    """The variable naming a benchmark's data: GEOMEVAL_LMMS_DATA_<NAME>."""
    return f"GEOMEVAL_LMMS_DATA_{spec.name.upper()}"


def _authors_snapshot(repo_id: str) -> Path:
    """The authors' Hub dataset as a local folder (their layout, unconverted): downloaded with
    the stored token, or from the Hub cache when offline."""
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(repo_id, repo_type="dataset"))


def _fix(spec: LmmsBenchmark, task: str, reason: str) -> str:
    from ...publishing.hub_metadata import metadata

    meta = metadata(spec.name)
    authors = (f" The authors publish it as {meta.authors_hub} ({meta.authors_hub_note}): set "
               f"{env_name(spec)}={meta.authors_hub} once it is reachable or in the Hub cache."
               if meta.authors_hub else "")
    path = spec.local_data or f"the raw release, or a folder `geomeval build {spec.name} --raw RELEASE --out PATH` wrote"
    return (f"geomeval lmms-eval task {task}: no {spec.title} data ({reason}). Fix: get the release "
            f"and set {env_name(spec)}=PATH ({path}), or give the task YAML `dataset_kwargs: "
            f"{{{DATA_KWARG}: PATH}}`; `geomeval lmms-eval --data PATH` does the same for you.{authors}")


def task_dataset(task: str, dataset_path: str | None, dataset_kwargs: dict[str, Any] | None
                 ) -> tuple[str, dict[str, Any] | None]:
    """(dataset_path, dataset_kwargs) for lmms-eval's `load_dataset` of a geomeval `task`: a
    built folder (a raw release converted once into the cache) or a Hub id in geomeval's
    layout. SystemExit with the fix when no data is named or it cannot be read."""
    from ...benchmarks.base import DataError
    from ...publishing.hub_metadata import metadata
    from .datasets import resolve_dataset
    from .registry import for_task

    spec = for_task(task)
    kwargs = dict(dataset_kwargs or {})
    named = kwargs.pop(DATA_KWARG, None)
    # a YAML naming a local folder (`geomeval lmms-eval --data` writes one) is taken as it is;
    # the shipped YAMLs name Hub ids only, which the variable overrides
    local = dataset_path if dataset_path and Path(dataset_path).expanduser().exists() else None
    given = named or local or os.environ.get(env_name(spec)) or dataset_path
    if not given:
        raise SystemExit(_fix(spec, task, "none named: this release may not be redistributed, so no Hub copy is read"))
    given = str(given)
    meta = metadata(spec.name)
    try:
        where = given
        if meta.authors_hub and given == meta.authors_hub and not Path(given).exists():
            where = str(_authors_snapshot(given))
        resolved = resolve_dataset(where, spec)
    except SystemExit:
        raise
    except (FileNotFoundError, DataError, UsageError, OSError, ValueError) as exc:
        raise SystemExit(_fix(spec, task, f"{given}: {' '.join(str(exc).split())[:400]}")) from None
    except Exception as exc:  # huggingface_hub's errors: offline and not cached, gated, no such repo
        raise SystemExit(_fix(spec, task, f"{given}: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")) from None
    return resolved, (kwargs or None)


def install_download_hook() -> None:
    """Wrap lmms-eval's task `download` (once per process) so a geomeval task's data is
    resolved by `task_dataset` before lmms-eval loads it."""
    try:
        from lmms_eval.api.task import ConfigurableTask  # type: ignore[import-untyped]
    except ImportError:  # imported without lmms-eval (geomeval's own tests of utils.py)
        return
    original = ConfigurableTask.download
    if getattr(original, "_geomeval_hook", False):
        return

    def download(self: Any, dataset_kwargs: Any = None, *args: Any, **kw: Any) -> Any:
        metadata = getattr(self.config, "metadata", None)
        if isinstance(metadata, dict) and metadata.get("source") == SOURCE and self.config.task:
            from .registry import TASKS

            if self.config.task in TASKS:
                path, dataset_kwargs = task_dataset(self.config.task, getattr(self, "DATASET_PATH", None),
                                                    dataset_kwargs)
                self.DATASET_PATH = path
        return original(self, dataset_kwargs, *args, **kw)

    download._geomeval_hook = True  # type: ignore[attr-defined]
    ConfigurableTask.download = download  # type: ignore[method-assign]
