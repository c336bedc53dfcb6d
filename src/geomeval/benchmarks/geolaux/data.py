"""Where GeoLaux items come from (the rules are `DataSource`'s): the embedded sample, a built
folder, a raw release (a JSON dict beside its image folders), or the Hub."""

from __future__ import annotations

from pathlib import Path

from ..datasource import DataSource
from .card import render_card
from .features import SCHEMA
from .raw import read_release


def _is_raw(path: Path) -> bool:
    return (path.is_file() and path.suffix == ".json") or path.is_dir()


SOURCE = DataSource("GeoLaux", __package__, SCHEMA, read_release, render_card, _is_raw)
sample_path = SOURCE.sample_path
from_raw = SOURCE.from_raw
build = SOURCE.build
locate = SOURCE.locate
load = SOURCE.load
undecoded = SOURCE.undecoded  # images as {bytes, path}: the columns come from SCHEMA
