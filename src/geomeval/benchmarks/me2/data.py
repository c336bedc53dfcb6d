"""Where ME2 items come from (the rules are `DataSource`'s): the embedded sample, a built
folder, a raw release (one JSONL or JSON records file beside its image folders), the
authors' Hub dataset (`jungypark/ME2`, as their lmms-eval task reads it: a downloaded
folder of its parquet files, or the Hub id itself), or geomeval's Hub copy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..datasource import DataSource
from .card import render_card
from .features import SCHEMA
from .raw import HUB_ID, hub_snapshot, is_hub_layout, is_release, read_release


class ME2Source(DataSource):
    """`DataSource` that also knows the authors' Hub layout. A download of it has a card
    beside `data/train-*.parquet`, which would pass for a built folder: it is recognised by
    its columns first. A Hub id is fetched (or taken from the cache) and then read as the
    folder it is, the authors' layout or geomeval's built one."""

    def locate(self, data: str | None) -> tuple[str, Path | str]:
        """As `DataSource.locate`, and: a folder of the authors' Hub layout is a raw release;
        the authors' Hub id (`jungypark/ME2`) is fetched (or found in the Hub cache) and is
        the raw release it holds, so every consumer of `locate` (runs, `geomeval lmms-eval`)
        reads it as its task does. Other Hub ids stay ids (`rows` and `load` fetch them)."""
        if data is not None and is_hub_layout(Path(data).expanduser()):
            return "raw", Path(data).expanduser()
        if data == HUB_ID and not Path(data).exists():
            return "raw", hub_snapshot(data)
        return super().locate(data)

    def _local(self, data: str | None) -> str | None:
        kind, where = self.locate(data)
        return str(hub_snapshot(str(where))) if kind == "hub" else data

    def rows(self, data: str | None, limit: int | None = None, config: str | None = None) -> Any:
        return super().rows(self._local(data), limit, config)

    def load(self, data: str | None) -> Any:
        return super().load(self._local(data))


SOURCE = ME2Source("ME2", __package__, SCHEMA, read_release, render_card, is_release)
sample_path = SOURCE.sample_path
from_raw = SOURCE.from_raw
build = SOURCE.build
locate = SOURCE.locate
load = SOURCE.load
undecoded = SOURCE.undecoded  # images as {bytes, path}: the columns come from SCHEMA
