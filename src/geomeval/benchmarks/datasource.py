"""Where a benchmark's items come from: its embedded sample, a built folder, a raw release,
or the Hub. Every benchmark resolves `--data` by the same rules, so they live here once.

A benchmark supplies its typed features, its raw-release reader, its card and a test of
whether a path looks like its raw release; `DataSource` does the rest. A benchmark released
as several subsets with one schema uses `SubsetDataSource`: one Hugging Face config per
subset, all of them in one built folder. Raw readers share
`collect`, which converts records one by one, so a bad record either stops the build with a
`DataError` naming the item and the field, or (with `skip_invalid`) is left out and counted.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

from ..hfdata import is_built_dataset, load_built, load_hub, write_configs, write_dataset
from .base import DataError

MAX_IMAGE_BYTES = 20 * 1024 * 1024


def read_image(item_id: str, field_name: str, path: Path, max_bytes: int = MAX_IMAGE_BYTES) -> dict[str, Any]:
    """An image file of a release as {bytes, path}, after checking it exists, is not too large
    and decodes; anything else is a DataError naming the item and the field."""
    from PIL import Image

    if not path.is_file():
        raise DataError(item_id, field_name, f"image file not found: {path}")
    data = path.read_bytes()
    if len(data) > max_bytes:
        raise DataError(item_id, field_name, f"image {path.name} is larger than {max_bytes} bytes")
    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.verify()
    except Exception as exc:
        raise DataError(item_id, field_name, f"image {path.name} does not decode: {exc}") from None
    return {"bytes": data, "path": path.name}


@dataclass
class RawRelease:
    rows: list[dict[str, Any]]
    skipped: list[dict[str, str]] = field(default_factory=list)


def collect(
    records: Iterable[tuple[str, Any]],
    convert: Callable[[str, Any], dict[str, Any]],
    *,
    skip_invalid: bool = False,
) -> RawRelease:
    """Typed rows from (item id, raw record) pairs; an id seen twice is an error too."""
    release = RawRelease(rows=[])
    seen: set[str] = set()
    for item_id, record in records:
        try:
            if item_id in seen:
                raise DataError(item_id, "id", "appears twice in the release")
            release.rows.append(convert(item_id, record))
            seen.add(item_id)
        except DataError as exc:
            if not skip_invalid:
                raise
            release.skipped.append({"id": exc.item, "field": exc.field, "error": exc.message})
    return release


@dataclass(frozen=True)
class DataSource:
    title: str
    package: str  # holds the embedded sample folder
    features: Any
    read_release: Callable[..., RawRelease]  # (raw, *, skip_invalid) -> RawRelease
    render_card: Callable[..., str]
    is_raw: Callable[[Path], bool]
    sample_dir: str = "sample"

    def sample_path(self) -> Path:
        with as_file(files(self.package).joinpath(self.sample_dir)) as path:
            return Path(path)

    def from_raw(self, raw: str | Path, *, skip_invalid: bool = False) -> tuple[Any, list[dict[str, str]]]:
        from datasets import Dataset

        release = self.read_release(raw, skip_invalid=skip_invalid)
        return Dataset.from_list(release.rows, features=self.features), release.skipped

    def build(self, raw: str, out: str, *, skip_invalid: bool = False, overwrite: bool = False) -> dict[str, Any]:
        """Typed parquet shards and a card from the official raw release."""
        dataset, skipped = self.from_raw(raw, skip_invalid=skip_invalid)
        if len(dataset) == 0:
            raise DataError("(release)", "(all)", "no valid items to build")
        summary = write_dataset({"test": dataset}, out, self.render_card, overwrite=overwrite)
        summary["skipped"] = skipped
        return summary

    def locate(self, data: str | None) -> tuple[str, Path | str]:
        """What `--data` names: ("raw", sample) for None, ("built", path), ("raw", path) or ("hub", id)."""
        if data is None:
            return "raw", self.sample_path()
        path = Path(data).expanduser()
        if is_built_dataset(path):
            return "built", path
        if self.is_raw(path):
            return "raw", path
        if path.exists() or data.startswith((".", "/", "~")):
            raise FileNotFoundError(f"{data}: neither a built {self.title} folder nor a raw release")
        return "hub", data

    def load(self, data: str | None) -> Any:
        """The dataset for `--data`: None = embedded sample; a path (built or raw); else a hub id."""
        kind, where = self.locate(data)
        if kind == "built":
            dataset = load_built(where)
        elif kind == "raw":
            dataset, _ = self.from_raw(where)
        else:
            dataset = load_hub(str(where))
        missing = [name for name in self.features if name not in dataset.column_names]
        if missing:
            raise DataError("(dataset)", missing[0], f"column missing from {data}")
        return dataset


@dataclass(frozen=True)
class SubsetDataSource(DataSource):
    """A `DataSource` for a release of several subsets sharing one schema (GeoEval's four).

    Each subset is a config: `read_release(raw, config, *, skip_invalid)` reads one,
    `subsets(raw)` names those a raw release holds, and `build` writes every one of them into
    one folder (`data/<config>/`, see `hfdata.write_configs`) whose card declares them all;
    `render_card(sizes)` gets {config: {split: (examples, bytes)}}. `config=None` means the
    first config, the card's default.
    """

    configs: tuple[str, ...] = ()
    subsets: Callable[[Path], tuple[str, ...]] | None = None

    def config(self, config: str | None) -> str:
        """`config`, checked; None is the default (first) one."""
        if config is None:
            return self.configs[0]
        if config not in self.configs:
            raise ValueError(f"unknown {self.title} config {config!r}; configs: {', '.join(self.configs)}")
        return config

    def from_raw(
        self, raw: str | Path, *, skip_invalid: bool = False, config: str | None = None
    ) -> tuple[Any, list[dict[str, str]]]:
        from datasets import Dataset

        release = self.read_release(raw, self.config(config), skip_invalid=skip_invalid)
        return Dataset.from_list(release.rows, features=self.features), release.skipped

    def build(self, raw: str, out: str, *, skip_invalid: bool = False, overwrite: bool = False) -> dict[str, Any]:
        """Every subset the raw release holds, one config each, and a card declaring them.

        The summary has `splits` and `skipped` keyed and tagged by config ("<config>/test"),
        plus `missing`: the configs the release did not hold.
        """
        present = self.subsets(Path(raw)) if self.subsets else self.configs
        if not present:
            raise FileNotFoundError(f"{raw}: no {self.title} subset found ({', '.join(self.configs)})")
        built: dict[str, dict[str, Any]] = {}
        skipped: list[dict[str, str]] = []
        for name in present:
            dataset, bad = self.from_raw(raw, skip_invalid=skip_invalid, config=name)
            if len(dataset) == 0:
                raise DataError(f"({name})", "(all)", "no valid items to build")
            built[name] = {"test": dataset}
            skipped += [{"config": name, **entry} for entry in bad]
        summary = write_configs(built, out, self.render_card, overwrite=overwrite)
        summary["splits"] = {
            f"{name}/{split}": info for name, entry in summary["configs"].items() for split, info in entry["splits"].items()
        }
        summary["skipped"] = skipped
        summary["missing"] = [name for name in self.configs if name not in present]
        return summary

    def load(self, data: str | None, config: str | None = None) -> Any:
        """One config's dataset for `--data` (None = embedded sample; a built or raw path; else
        a hub id)."""
        name = self.config(config)
        kind, where = self.locate(data)
        if kind == "built":
            dataset = load_built(where, config=name)
        elif kind == "raw":
            dataset, _ = self.from_raw(where, config=name)
        else:
            dataset = load_hub(str(where), config=name)
        missing = [column for column in self.features if column not in dataset.column_names]
        if missing:
            raise DataError("(dataset)", missing[0], f"column missing from {data} ({name})")
        return dataset


def write_files(files: dict[str, bytes], out_dir: str | Path, owned: Iterable[str]) -> list[Path]:
    """Write an embedded sample's files (relative path → bytes) under `out_dir`; returns the
    written paths. The `owned` folders are emptied first, so a dropped item leaves no stale
    file behind for a builder to pick up; nothing else in `out_dir` is touched."""
    import shutil

    out = Path(out_dir)
    for folder in owned:
        if (out / folder).exists():
            shutil.rmtree(out / folder)
    written = []
    for relative, payload in sorted(files.items()):
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(payload)
        written.append(path)
    return written
