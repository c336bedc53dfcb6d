"""A Hub id given as --data is read as a stream (issue 43, point 4): against a local stand-in
of the Hub (a folder laid out as the Hub serves a geomeval dataset, read through a file
system that counts the bytes it gives), the run asks its first item when a small part of
the shards has been read, and its rows are those a full download gives."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.base import Item
from geomeval.benchmarks.geolaux import data as geolaux_data
from geomeval.engines import hfdata
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import Generation, Model
from geomeval.run.runner import run
from geomeval.testing.replicated import replicated_release

REPO = "someone/geolaux-standin"
SHARDS = 4


class _Counted(io.RawIOBase):
    """A file whose reads add to a shared count of bytes."""

    def __init__(self, path: Path, counts: dict[str, int]):
        self._file, self._counts, self._name = path.open("rb"), counts, path.name

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._file.read(len(buffer))
        buffer[: len(data)] = data
        self._counts["bytes"] += len(data)
        self._counts[self._name] = self._counts.get(self._name, 0) + len(data)
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def close(self) -> None:
        self._file.close()
        super().close()


class StandInHub:
    """`HfFileSystem`'s glob and open over a local folder holding `datasets/<repo>/...`."""

    def __init__(self, root: Path):
        self.root, self.counts = root, {"bytes": 0}

    def glob(self, pattern: str) -> list[str]:
        return [str(p.relative_to(self.root)) for p in self.root.glob(pattern)]

    def open(self, path: str, mode: str = "rb") -> Any:
        assert mode == "rb"
        return io.BufferedReader(_Counted(self.root / path, self.counts))


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """240 GeoLaux items in 4 shards of 60 rows, row groups of 10, as the Hub lays them out."""
    import pyarrow.parquet as pq

    tmp = tmp_path_factory.mktemp("hub")
    built = tmp / "built"
    geolaux_data.build(str(replicated_release(240, tmp / "raw")), str(built))
    repo = tmp / "root" / "datasets" / REPO
    (repo / "data").mkdir(parents=True)
    shutil.copy(built / "README.md", repo / "README.md")
    table = pq.read_table(next((built / "data").glob("*.parquet")))
    for number in range(SHARDS):
        pq.write_table(table.slice(60 * number, 60), repo / "data" / f"test-{number:05d}-of-{SHARDS:05d}.parquet",
                       row_group_size=10)
    return tmp / "root"


@pytest.fixture
def hub(standin: Path, monkeypatch: pytest.MonkeyPatch) -> StandInHub:
    fs = StandInHub(standin)
    monkeypatch.setattr(hfdata, "hub_filesystem", lambda: fs)
    monkeypatch.setattr(hfdata, "_hub_offline", lambda: False)
    monkeypatch.setattr(hfdata, "load_hub", lambda *a, **k: pytest.fail("the dataset was downloaded whole"))
    return fs


class FirstAsked(Model):
    """Answers "B", noting the bytes the stand-in Hub had given when the first item was asked."""

    spec = "test:first-asked"
    needs_messages = False

    def __init__(self, hub: StandInHub | None):
        self.hub: StandInHub | None = hub
        self.at_first: dict[str, int] | None = None

    async def generate(self, item: Item, messages: Any) -> Generation:
        if self.at_first is None and self.hub is not None:
            self.at_first = dict(self.hub.counts)
        return Generation("B")


def test_a_hub_id_is_streamed_and_its_first_item_asked_early(tmp_path: Path, standin: Path, hub: StandInHub) -> None:
    sizes = {p.name: p.stat().st_size for p in (standin / "datasets" / REPO / "data").glob("*.parquet")}
    model = FirstAsked(hub)
    streamed = run(get_benchmark("geolaux"), task="geolaux", model=model, judge=parse_judge_spec("offline"),
                   out_dir=tmp_path / "hub", data=REPO, concurrency=1)
    first = model.at_first
    assert first is not None and first["bytes"] < 0.6 * sum(sizes.values())
    for name in sorted(sizes)[1:]:  # the later shards: footer and id column read, not their rows
        assert first[name] < 0.4 * sizes[name], name
    assert all(hub.counts[name] >= size for name, size in sizes.items())  # by the end every row was read
    local = run(get_benchmark("geolaux"), task="geolaux", model=FirstAsked(None), judge=parse_judge_spec("offline"),
                out_dir=tmp_path / "local", data=str(standin / "datasets" / REPO))
    assert streamed["n_items"] == local["n_items"] == 240
    assert streamed["metrics"] == local["metrics"]

    def samples(folder: Path) -> dict[str, dict]:
        lines = (folder / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        return {row["id"]: row for row in map(json.loads, lines)}

    assert samples(tmp_path / "hub") == samples(tmp_path / "local")


def test_streamed_rows_are_those_of_a_full_download(standin: Path, hub: StandInHub) -> None:
    source = geolaux_data.SOURCE
    streamed = list(source.rows(REPO))
    whole = source.undecoded(hfdata.load_built(standin / "datasets" / REPO))  # what load_dataset gives
    assert len(streamed) == len(whole) == 240
    assert streamed == [whole[i] for i in range(len(whole))]
    limited = source.rows(REPO, limit=35)  # a --limit opens only the shards it needs
    assert len(limited) == 35 and limited["id"] == [row["id"] for row in streamed[:35]]


def test_streaming_holds_a_window_of_rows_not_the_set(standin: Path, hub: StandInHub) -> None:
    import tracemalloc

    total = sum(p.stat().st_size for p in (standin / "datasets" / REPO / "data").glob("*.parquet"))
    rows = geolaux_data.SOURCE.rows(REPO)
    tracemalloc.start()
    try:
        count = sum(1 for _ in rows)  # each row let go as the next comes
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 240 and peak < 0.5 * total
