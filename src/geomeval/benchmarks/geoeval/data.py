"""Where GeoEval items come from (the rules are `DataSource`'s): the embedded sample, a built
folder, the official release (one JSON dict per subset beside the diagram folder), or the Hub.

GeoEval is four subsets with one schema, so it is one Hugging Face config per subset
(`geoeval_2000`, `geoeval_backward`, `geoeval_aug`, `geoeval_hard`), all built into one
folder; `load(data, config)` reads one of them.
"""

from __future__ import annotations

from ..datasource import SubsetDataSource
from .card import render_card
from .features import SCHEMA, SUBSETS
from .raw import is_release, read_release, subsets_in

SOURCE = SubsetDataSource(
    "GeoEval", __package__, SCHEMA, read_release, render_card, is_release, configs=SUBSETS, subsets=subsets_in
)
sample_path = SOURCE.sample_path
from_raw = SOURCE.from_raw
build = SOURCE.build
locate = SOURCE.locate
load = SOURCE.load
undecoded = SOURCE.undecoded  # images as {bytes, path}: the columns come from SCHEMA
