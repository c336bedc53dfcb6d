"""Where CapGeo-Bench items come from (the rules are `DataSource`'s): the embedded sample, a
built folder, a release (captions JSON/JSONL beside an image folder), or the Hub."""

from __future__ import annotations

from pathlib import Path

from ..datasource import DataSource
from .card import render_card
from .features import SCHEMA
from .raw import RELEASE_NAMES, read_release


def _is_raw(path: Path) -> bool:
    if path.is_file():
        return path.suffix in (".json", ".jsonl")
    return any((path / name).is_file() for name in RELEASE_NAMES)


SOURCE = DataSource("CapGeo-Bench", __package__, SCHEMA, read_release, render_card, _is_raw)
sample_path = SOURCE.sample_path
from_raw = SOURCE.from_raw
build = SOURCE.build
locate = SOURCE.locate
load = SOURCE.load
undecoded = SOURCE.undecoded  # images as {bytes, path}: the columns come from SCHEMA
