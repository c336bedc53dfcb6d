"""Write and read typed datasets the way the Hub serves them, fully offline.

datasets 5.x runs no loading scripts, so a "Hub loader" is parquet shards plus the
card's YAML (`configs` + `dataset_info`); a benchmark of several subsets writes one
config per subset (`write_configs`, `configs_card_header`). Image columns must carry their bytes in
the table (not paths) before `to_parquet`, or the shards would point at files that
do not travel with them. Builds are written to a temporary folder and renamed into
place, so a failed build never leaves a half-written dataset behind.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

DEFAULT_CONFIG = "default"
ROWS_PER_SHARD = 500


def card_header(
    features: Any, splits: dict[str, tuple[int, int]] | None, config: str = DEFAULT_CONFIG
) -> str:
    """The YAML front matter that lets `load_dataset(<dir>)` restore `features` exactly.

    Without `splits` (the card of the full release, before a build), sizes are left out.
    """
    split_names = list(splits) if splits else ["test"]
    header: dict[str, Any] = {
        "configs": [
            {
                "config_name": config,
                "data_files": [
                    {"split": split, "path": f"data/{split}-*.parquet"} for split in split_names
                ],
            }
        ],
        "dataset_info": {
            "config_name": config,
            "features": features._to_yaml_list(),
        },
    }
    if splits:
        header["dataset_info"]["splits"] = [
            {"name": split, "num_bytes": num_bytes, "num_examples": count}
            for split, (count, num_bytes) in splits.items()
        ]
    return "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n"


def configs_card_header(configs: Mapping[str, tuple[Any, dict[str, tuple[int, int]] | None]]) -> str:
    """The YAML front matter of a dataset of several configs (a benchmark's subsets), each
    config's shards in `data/<config>/`: `load_dataset(<dir>, <config>)` restores its features.

    `configs` maps each config to (features, splits); splits as in `card_header`. The first
    config is marked the default, so `load_dataset(<dir>, split=...)` still works unnamed.
    """
    entries, infos = [], []
    for index, (name, (features, splits)) in enumerate(configs.items()):
        split_names = list(splits) if splits else ["test"]
        entry: dict[str, Any] = {
            "config_name": name,
            "data_files": [
                {"split": split, "path": f"data/{name}/{split}-*.parquet"} for split in split_names
            ],
        }
        if index == 0:
            entry["default"] = True
        entries.append(entry)
        info: dict[str, Any] = {"config_name": name, "features": features._to_yaml_list()}
        if splits:
            info["splits"] = [
                {"name": split, "num_bytes": num_bytes, "num_examples": count}
                for split, (count, num_bytes) in splits.items()
            ]
        infos.append(info)
    header = {"configs": entries, "dataset_info": infos}
    return "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n"


def write_dataset(
    splits: dict[str, Any],
    out_dir: str | os.PathLike[str],
    render_card: Any,
    *,
    overwrite: bool = False,
    rows_per_shard: int = ROWS_PER_SHARD,
) -> dict[str, Any]:
    """Write `{split: Dataset}` as parquet shards plus the card `render_card(sizes)`."""

    def fill(tmp: Path) -> dict[str, tuple[int, int]]:
        sizes = _write_splits(splits, tmp / "data", rows_per_shard)
        (tmp / "README.md").write_text(render_card(sizes), encoding="utf-8")
        return sizes

    sizes = _write_atomically(out_dir, fill, overwrite)
    return {"out": str(Path(out_dir)), "splits": {k: {"num_examples": v[0], "num_bytes": v[1]} for k, v in sizes.items()}}


def write_configs(
    configs: Mapping[str, Mapping[str, Any]],
    out_dir: str | os.PathLike[str],
    render_card: Any,
    *,
    overwrite: bool = False,
    rows_per_shard: int = ROWS_PER_SHARD,
) -> dict[str, Any]:
    """Write `{config: {split: Dataset}}` as `data/<config>/` shards plus the card
    `render_card({config: {split: (examples, bytes)}})` (see `configs_card_header`)."""

    def fill(tmp: Path) -> dict[str, dict[str, tuple[int, int]]]:
        sizes = {name: _write_splits(splits, tmp / "data" / name, rows_per_shard) for name, splits in configs.items()}
        (tmp / "README.md").write_text(render_card(sizes), encoding="utf-8")
        return sizes

    sizes = _write_atomically(out_dir, fill, overwrite)
    return {
        "out": str(Path(out_dir)),
        "configs": {
            name: {"splits": {k: {"num_examples": v[0], "num_bytes": v[1]} for k, v in splits.items()}}
            for name, splits in sizes.items()
        },
    }


def _write_splits(splits: Mapping[str, Any], folder: Path, rows_per_shard: int) -> dict[str, tuple[int, int]]:
    """Each split as parquet shards in `folder`; returns {split: (examples, bytes)}."""
    folder.mkdir(parents=True, exist_ok=True)
    sizes: dict[str, tuple[int, int]] = {}
    for split, ds in splits.items():
        n_shards = max(1, -(-len(ds) // rows_per_shard))
        total = 0
        for index in range(n_shards):
            shard = ds.shard(num_shards=n_shards, index=index, contiguous=True)
            path = folder / f"{split}-{index:05d}-of-{n_shards:05d}.parquet"
            shard.to_parquet(str(path))
            total += path.stat().st_size
        sizes[split] = (len(ds), total)
    return sizes


BUILD_MARKER = ".geomeval-build"
"""Written into every folder `geomeval build` makes: `--overwrite` replaces only such a folder."""
# What a build folder holds (build_report.json is the CLI's summary beside the shards): a
# folder built before the marker existed is recognised by holding nothing else.
_BUILD_ENTRIES = frozenset({"README.md", "data", "build_report.json", BUILD_MARKER})


def _replaceable(out: Path) -> str | None:
    """Why `out` must not be replaced by a build, or None when it may (a geomeval build)."""
    if not out.is_dir() or out.is_symlink():
        return f"{out} exists and is not a folder"
    entries = {entry.name for entry in out.iterdir()}
    if BUILD_MARKER in entries:
        return None
    foreign = sorted(entries - _BUILD_ENTRIES)
    if not foreign and is_built_dataset(out):
        return None
    shown = ", ".join(foreign[:3]) + (", …" if len(foreign) > 3 else "")
    return (
        f"{out} holds files geomeval did not build ({shown or 'no dataset card and shards'}); "
        "--overwrite replaces only a folder written by `geomeval build`. Choose a new or empty --out"
    )


def _write_atomically(out_dir: str | os.PathLike[str], fill: Any, overwrite: bool) -> Any:
    """Run `fill(tmp)` in a temporary folder beside `out_dir`, then swap it into place.

    An existing non-empty `out_dir` is replaced only with `overwrite` and only when geomeval
    built it (its marker, or nothing but a card and shards); anything else is refused and left
    untouched. The swap is two renames (old folder aside, new one in), so a kill at any moment
    leaves either the old build or the new one at `out_dir`, or, between the renames, the old
    one beside it as `.<name>.old-*`, never a half-deleted folder."""
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        if not overwrite:
            raise FileExistsError(f"{out} exists and is not empty; pass --overwrite to replace a previous build")
        refusal = _replaceable(out)
        if refusal:
            raise FileExistsError(refusal)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    old: Path | None = None
    try:
        result = fill(tmp)
        (tmp / BUILD_MARKER).write_text("written by geomeval build; --overwrite may replace this folder\n",
                                        encoding="utf-8")
        os.chmod(tmp, 0o777 & ~current_umask())  # mkdtemp makes it 0700; a build is an ordinary folder
        if out.exists():
            if any(out.iterdir()):
                old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
                os.replace(out, old)  # onto the empty placeholder: atomic
            else:
                out.rmdir()
        tmp.rename(out)
    except BaseException:
        if old is not None and not out.exists():
            os.replace(old, out)  # put the previous build back
            old = None
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return result


def current_umask() -> int:
    """The process umask (reading it means setting it; set straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def is_built_dataset(path: Path) -> bool:
    """A card beside parquet shards, in `data/` or (several configs) in `data/<config>/`."""
    return (
        path.is_dir()
        and (path / "README.md").is_file()
        and (any(path.glob("data/*.parquet")) or any(path.glob("data/*/*.parquet")))
    )


def load_built(path: str | os.PathLike[str], split: str = "test", config: str | None = None) -> Any:
    """Load a built dataset folder (parquet shards + card) offline; `config` names one of
    several (None: the default one)."""
    from datasets import load_dataset

    return load_dataset(str(path), config, split=split)


def load_hub(repo_id: str, split: str = "test", config: str | None = None) -> Any:
    """Load a hub dataset id; offline this works only from the local cache, and says so."""
    from datasets import load_dataset

    try:
        return load_dataset(repo_id, config, split=split)
    except Exception as exc:
        raise FileNotFoundError(
            f"{repo_id!r} is not a local path, and loading it as a Hub dataset failed "
            f"({type(exc).__name__}: {exc}). Offline, build the dataset locally with "
            "`geomeval build` and pass its folder to --data."
        ) from None
