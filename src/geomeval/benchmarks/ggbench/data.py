"""Where GGBench items come from (the rules are `DataSource`'s): the embedded sample, a built
folder, the official release (`GGBench_dataset.json` beside its image folders), or the Hub."""

from __future__ import annotations

from pathlib import Path

from datasets import Dataset, Image, List

from ..datasource import DataSource
from .card import render_card
from .features import FEATURES
from .raw import RELEASE_FILE, read_release


def _is_raw(path: Path) -> bool:
    return (path.is_file() and path.suffix == ".json") or (path / RELEASE_FILE).is_file() or (
        path / "dataset" / RELEASE_FILE
    ).is_file()


SOURCE = DataSource("GGBench", __package__, FEATURES, read_release, render_card, _is_raw, streamed=True)
sample_path = SOURCE.sample_path
from_raw = SOURCE.from_raw
build = SOURCE.build
locate = SOURCE.locate
load = SOURCE.load
IMAGE_COLUMNS = ("problem_image", "final_image", "long_image")


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
