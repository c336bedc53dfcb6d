"""Where GGBench items come from (the rules are `DataSource`'s): the embedded sample, a built
folder, the official release (`GGBench_dataset.json` beside its image folders), or the Hub."""

from __future__ import annotations

from pathlib import Path

from ..datasource import DataSource
from .card import render_card
from .features import SCHEMA
from .raw import read_release


def _is_raw(path: Path) -> bool:
    """A release JSON, or a folder (asked only once it is not a built one): the reader finds the
    release in it, in any published layout, or says which layouts it reads and what it found."""
    return (path.is_file() and path.suffix == ".json") or path.is_dir()


SOURCE = DataSource("GGBench", __package__, SCHEMA, read_release, render_card, _is_raw)
sample_path = SOURCE.sample_path
from_raw = SOURCE.from_raw
build = SOURCE.build
locate = SOURCE.locate
load = SOURCE.load
undecoded = SOURCE.undecoded  # images as {bytes, path}: the columns come from SCHEMA
