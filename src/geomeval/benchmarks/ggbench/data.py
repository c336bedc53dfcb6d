"""Where GGBench items come from (the rules are `DataSource`'s): the embedded sample, a built
folder, the official release (`GGBench_dataset.json` beside its image folders), or the Hub."""

from __future__ import annotations

from pathlib import Path

from ..datasource import DataSource
from .card import render_card
from .features import SCHEMA
from .raw import RELEASE_FILE, read_release


def _is_raw(path: Path) -> bool:
    return (path.is_file() and path.suffix == ".json") or (path / RELEASE_FILE).is_file() or (
        path / "dataset" / RELEASE_FILE
    ).is_file()


SOURCE = DataSource("GGBench", __package__, SCHEMA, read_release, render_card, _is_raw)
sample_path = SOURCE.sample_path
from_raw = SOURCE.from_raw
build = SOURCE.build
locate = SOURCE.locate
load = SOURCE.load
undecoded = SOURCE.undecoded  # images as {bytes, path}: the columns come from SCHEMA
