"""Where GGBench items come from: the embedded sample, a built folder, a raw release, or the Hub."""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

from datasets import Dataset, Image, List

from ...hfdata import is_built_dataset, load_built, load_hub, write_dataset
from ..base import DataError
from .card import render_card
from .features import FEATURES
from .raw import RELEASE_FILE, read_release

SAMPLE_DIR = "sample"
IMAGE_COLUMNS = ("problem_image", "final_image", "long_image")


def sample_path() -> Path:
    with as_file(files(__package__).joinpath(SAMPLE_DIR)) as path:
        return Path(path)


def from_raw(raw: str | Path, *, skip_invalid: bool = False) -> tuple[Dataset, list[dict[str, str]]]:
    release = read_release(raw, skip_invalid=skip_invalid)
    return Dataset.from_list(release.rows, features=FEATURES), release.skipped


def build(raw: str, out: str, *, skip_invalid: bool = False, overwrite: bool = False) -> dict[str, Any]:
    """Build typed parquet shards and a card from the official raw release."""
    dataset, skipped = from_raw(raw, skip_invalid=skip_invalid)
    if len(dataset) == 0:
        raise DataError("(release)", "(all)", "no valid items to build")
    summary = write_dataset({"test": dataset}, out, render_card, overwrite=overwrite)
    summary["skipped"] = skipped
    return summary


def locate(data: str | None) -> tuple[str, Path | str]:
    """What `--data` names: ("raw", sample) for None, ("built", path), ("raw", path) or ("hub", id)."""
    if data is None:
        return "raw", sample_path()
    path = Path(data).expanduser()
    if is_built_dataset(path):
        return "built", path
    if (path.is_file() and path.suffix == ".json") or (path / RELEASE_FILE).is_file() or (
        path / "dataset" / RELEASE_FILE
    ).is_file():
        return "raw", path
    if path.exists() or data.startswith((".", "/", "~")):
        raise FileNotFoundError(f"{data}: neither a built GGBench folder nor a raw release")
    return "hub", data


def load(data: str | None) -> Dataset:
    """The dataset for `--data`: None = embedded sample; a path (built or raw); else a hub id."""
    kind, where = locate(data)
    if kind == "built":
        dataset = load_built(where)
    elif kind == "raw":
        dataset, _ = from_raw(where)
    else:
        dataset = load_hub(str(where))
    missing = [name for name in FEATURES if name not in dataset.column_names]
    if missing:
        raise DataError("(dataset)", missing[0], f"column missing from {data}")
    return dataset


def undecoded(dataset: Dataset) -> Dataset:
    """The same rows with images as {bytes, path}, ready to send or score without re-encoding."""
    from datasets.utils import logging as ds_logging

    shown = ds_logging.is_progress_bar_enabled()
    ds_logging.disable_progress_bar()  # a schema change on a small table: no progress bar
    try:
        for column in IMAGE_COLUMNS:
            dataset = dataset.cast_column(column, Image(decode=False))
        return dataset.cast_column("step_images", List(Image(decode=False)))
    finally:
        if shown:
            ds_logging.enable_progress_bar()
