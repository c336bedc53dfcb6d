"""Where ME2 items come from (the rules are `DataSource`'s): the embedded sample, a built
folder, a raw release (one JSONL or JSON records file beside its image folders), or the Hub."""

from __future__ import annotations

from datasets import Dataset, Image

from ..datasource import DataSource
from .card import render_card
from .features import FEATURES
from .raw import is_release, read_release

SOURCE = DataSource("ME2", __package__, FEATURES, read_release, render_card, is_release)
sample_path = SOURCE.sample_path
from_raw = SOURCE.from_raw
build = SOURCE.build
locate = SOURCE.locate
load = SOURCE.load
IMAGE_COLUMNS = ("problem_image", "solution_image")


def undecoded(dataset: Dataset) -> Dataset:
    """The same rows with images as {bytes, path}, ready to send or compare without
    re-encoding."""
    from datasets.utils import logging as ds_logging

    shown = ds_logging.is_progress_bar_enabled()
    ds_logging.disable_progress_bar()  # a schema change on a small table: no progress bar
    try:
        for column in IMAGE_COLUMNS:
            dataset = dataset.cast_column(column, Image(decode=False))
        return dataset
    finally:
        if shown:
            ds_logging.enable_progress_bar()
