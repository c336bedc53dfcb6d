"""The dataset each benchmark's tasks read: a built folder, a raw release built once into
the cache, or a Hub id (the same rules as `geomeval run --data`); a built folder lacking a
config a named task reads is refused before lmms-eval starts."""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from collections.abc import Sequence
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

import yaml

from ...benchmarks.lmms import LmmsBenchmark
from ...core.errors import UsageError
from ...engines.cache import cache_dir

TASKS_DIR = "lmms_tasks"

def tasks_dir() -> Path:
    """The shipped task folder (usable directly as `--include_path`; data from the Hub)."""
    with as_file(files("geomeval").joinpath(TASKS_DIR)) as path:
        return Path(path)


def _release_roots(spec: LmmsBenchmark, raw: Path) -> tuple[Path, tuple[Path, ...]]:
    """(release JSON, folders its images may sit in): GeoLaux's `locate_release` gives one
    folder, GGBench's a tuple of candidates, CapGeo-Bench's only the captions file (its
    image paths are relative to the file's folder)."""
    found = spec.raw().locate_release(raw)
    if isinstance(found, Path):
        return found, (found.parent,)
    json_path, where = found
    return json_path, (where,) if isinstance(where, Path) else tuple(where)


def _fingerprint(spec: LmmsBenchmark, raw: Path) -> str:
    """Identifies a raw release: its JSON's content, its images' names, sizes and times (or,
    for a small one, every file's name and content)."""
    from ... import __version__

    features = spec.features()
    digest = hashlib.sha256()
    if spec.hash_whole_release:
        digest.update(f"{__version__}\n{spec.name}\n{features._to_yaml_list()}\n{raw.resolve()}\n".encode())
        for path in sorted(p for p in raw.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(f"{path.relative_to(raw).as_posix()}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        return digest.hexdigest()[:16]
    jsons: tuple[Path, ...]
    found: Any
    try:
        found = spec.release_files(raw) if spec.release_files is not None else _release_roots(spec, raw)
    except FileNotFoundError:
        # a layout the raw module's locate_release does not name (ME2's: the authors' Hub
        # parquet files, which its reader reads): every file's name, size and time
        found = None
    if found is None:
        jsons = ()
        labelled = sorted((str(path.relative_to(raw)), path) for path in raw.rglob("*")
                          if path.is_file() and ".cache" not in path.relative_to(raw).parts)
    elif spec.release_files is not None:
        jsons, images = found
        labelled = [(str(path.resolve()), path) for path in images]
    else:
        json_path, roots = found
        jsons = (Path(json_path),)
        labelled = [
            (str(path.relative_to(root)), path)
            for root in dict.fromkeys(r.resolve() for r in roots)
            for folder in spec.release_folders
            for path in sorted((root / folder).rglob("*"))
            if path.is_file()
        ]
    digest.update(f"{__version__}\n{spec.name}\n{features._to_yaml_list()}\n".encode())
    if found is None:
        digest.update(f"{raw.resolve()}\n".encode())
    for json_path in jsons:
        digest.update(f"{json_path.resolve()}\n".encode())
        digest.update(json_path.read_bytes())
    for label, path in labelled:
        stat = path.stat()
        digest.update(f"{label}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def cached_build(raw: Path, spec: LmmsBenchmark) -> Path:
    """Build a raw release once into the cache; later calls reuse the folder."""
    from ...engines.hfdata import is_built_dataset

    target = cache_dir() / "lmms_eval" / f"{spec.name}-{_fingerprint(spec, raw)}"
    if is_built_dataset(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():  # a broken leftover
        shutil.rmtree(target, ignore_errors=True)
    tmp = target.parent / f".{target.name}.{os.getpid()}.{threading.get_ident()}"
    spec.data().build(str(raw), str(tmp), overwrite=True)
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

    from ...benchmarks.base import DataError

    shard = min(path.glob("data/*.parquet"), default=None) or min(path.glob("data/*/*.parquet"))
    columns = set(pq.read_schema(shard).names)
    missing = [name for name in spec.features() if name not in columns]
    if missing:
        raise DataError("(dataset)", missing[0], f"column missing from {path}: not a built {spec.title} dataset")


def resolve_dataset(data_arg: str | None, spec: LmmsBenchmark) -> str:
    """`dataset_path` for a benchmark's tasks: a built folder (building raw data into the
    cache) or a hub id. Same rules as `geomeval run --data`: None is the embedded sample."""
    kind, where = spec.data().locate(data_arg)
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

