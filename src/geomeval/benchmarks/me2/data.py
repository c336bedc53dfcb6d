"""Where ME2 items come from (the rules are `DataSource`'s): the embedded sample, a built
folder, a raw release (one JSONL or JSON records file beside its image folders), or the Hub."""

from __future__ import annotations

from ..datasource import DataSource
from .card import render_card
from .features import SCHEMA
from .raw import is_release, read_release

SOURCE = DataSource("ME2", __package__, SCHEMA, read_release, render_card, is_release)
sample_path = SOURCE.sample_path
from_raw = SOURCE.from_raw
build = SOURCE.build
locate = SOURCE.locate
load = SOURCE.load
undecoded = SOURCE.undecoded  # images as {bytes, path}: the columns come from SCHEMA
