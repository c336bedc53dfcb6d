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

import codecs
import io
import json
import os
import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any, overload

from ..core.errors import UsageError
from ..engines.hfdata import (
    ShardWriter,
    hub_shards,
    is_built_dataset,
    load_built,
    load_hub,
    refuse_input_inside,
    write_configs,
    write_dataset,
)
from ..engines.images import MAX_IMAGE_BYTES, read_bounded_image
from .base import DataError, Item
from .schema import features as features_of


def looks_local(data: str) -> bool:
    """Whether `--data` that does not exist was meant as a local path rather than a Hub id
    (`name` or `owner/name`): it starts like a path, has more than one slash or a backslash,
    ends like a data file, or its first folder is here (`built/geolauxx` beside `built/`)."""
    if data.startswith((".", "/", "~")) or "\\" in data or data.count("/") > 1:
        return True
    if data.lower().endswith((".json", ".jsonl", ".parquet", ".zip", ".tar", ".gz")):
        return True
    head = data.split("/", 1)[0]
    return "/" in data and Path(head).is_dir()


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def read_json_file(path: Path, encoding: str = "utf-8") -> Any:
    """A release's JSON file, or a DataError naming the file (and the key) for what the json
    module would pass over or report without a name: text that is not UTF-8, invalid or too
    deeply nested JSON, and a key written twice in one object (a release keyed by problem id
    would otherwise lose the first of two items with the same id)."""
    _refuse_outside(path)
    try:
        return json.loads(path.read_text(encoding=encoding), object_pairs_hook=_unique_pairs)
    except UnicodeDecodeError:
        raise DataError("(file)", path.name, "not UTF-8 text") from None
    except _DuplicateKey as exc:
        raise DataError(str(exc.key)[:200], "id", f"{path.name}: the key appears twice in one object") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        raise DataError("(file)", path.name, f"not valid JSON: {str(exc)[:200]}") from None


def _refuse_outside(path: Path) -> None:
    """A DataError naming a release file that a link leads outside the release (`outside_release`)."""
    problem = outside_release(path)
    if problem:
        raise DataError("(file)", path.name, problem)


MAX_JSON_DEPTH = 500
"""Containers one inside another that a streamed release file may nest (the top level is
one): a deeper one is refused as not valid JSON, as the json module refuses one past its
recursion limit, rather than built level by level until memory runs out."""

_STARTS = ("start_map", "start_array")
_ENDS = ("end_map", "end_array")


class _TooDeep(ValueError):
    pass


class _Utf8Chunks:
    """A release file read in binary chunks for ijson, each checked as UTF-8 on the way (an
    incremental decoder, a chunk at a time), so text that is not UTF-8 is named as such, as
    `read_text` names it, rather than as one of yajl's lexical errors. With `utf-8-sig` a
    leading byte-order mark is dropped."""

    def __init__(self, handle: io.BufferedReader, encoding: str):
        self.handle = handle
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.skip_mark = codecs.lookup(encoding).name == "utf-8-sig"

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        if self.skip_mark and data:
            data = data.removeprefix(codecs.BOM_UTF8)
            self.skip_mark = False
        if data or size != 0:
            self.decoder.decode(data, final=not data)  # raises UnicodeDecodeError
        return data


def _json_value(event: str, value: Any, events: Iterator[tuple[str, Any]], depth: int) -> Any:
    """The JSON value whose first parse event is (event, value), built from `events` up to
    its last, at `depth` (its container's). Numbers come as the json module gives them (a
    float where ijson gives a Decimal); a key written twice in one object raises `_DuplicateKey`."""
    if event not in _STARTS:
        return float(value) if isinstance(value, Decimal) else value
    if depth + 1 > MAX_JSON_DEPTH:
        raise _TooDeep()
    root: Any = {} if event == "start_map" else []
    containers: list[Any] = [root]
    key: Any = None  # the key whose value comes next, in the innermost object
    keys: list[Any] = []  # the keys of the enclosing objects, to go back to
    for event, value in events:
        if event == "map_key":
            if value in containers[-1]:
                raise _DuplicateKey(value)
            key = value
            continue
        if event in _ENDS:
            containers.pop()
            if not containers:
                return root
            key = keys.pop()
            continue
        if event in _STARTS:
            if depth + len(containers) + 1 > MAX_JSON_DEPTH:
                raise _TooDeep()
            item: Any = {} if event == "start_map" else []
        else:
            item = float(value) if isinstance(value, Decimal) else value
        inner = containers[-1]
        if type(inner) is list:
            inner.append(item)
        else:
            inner[key] = item
        if event in _STARTS:
            containers.append(item)
            keys.append(key)
    return root  # not reached: ijson raises at a premature end


def _json_members(path: Path, container: str, expected: str, encoding: str) -> Iterator[tuple[Any, Any]]:
    """(key or position, value) of each member of the file's top-level `container`
    ("start_map" or "start_array"), parsed as they come (ijson, yajl's C backend): memory
    holds one member, never the whole file. Errors as `read_json_file` gives them, each a
    DataError naming the file: not UTF-8, not valid JSON (with the last member read whole,
    where the fault lies after it), nested too deeply, a key written twice (at the top
    level: the item id; inside a member: the item and the key), and, once the whole file
    is checked as JSON, a top level other than `container` (`expected` says what it should be)."""
    import ijson

    _refuse_outside(path)
    last: Any = None
    try:
        with path.open("rb") as handle:
            events = ijson.basic_parse(_Utf8Chunks(handle, encoding))
            first, _ = next(events)
            if first != container:
                depth = 1 if first in _STARTS else 0
                for event, _ in events:  # the whole file is still checked as JSON first
                    depth += 1 if event in _STARTS else -1 if event in _ENDS else 0
                    if depth > MAX_JSON_DEPTH:
                        raise _TooDeep()
                raise DataError("(file)", path.name, f"expected {expected}")
            seen: set[str] = set()
            position = 0
            for event, value in events:
                if event in _ENDS:
                    break
                key: Any = position
                if event == "map_key":
                    key = value
                    if key in seen:
                        raise DataError(str(key)[:200], "id", f"{path.name}: the key appears twice in one object")
                    seen.add(key)
                    event, value = next(events)
                try:
                    member = _json_value(event, value, events, 1)
                except _DuplicateKey as exc:
                    item = str(key)[:200] if container == "start_map" else f"#{key}"
                    raise DataError(item, str(exc.key)[:200], f"{path.name}: the key appears twice in one object") from None
                yield key, member
                last, position = key, position + 1
            for _ in events:  # anything after the top level is an error (ijson: trailing garbage)
                pass
    except UnicodeDecodeError:
        raise DataError("(file)", path.name, "not UTF-8 text") from None
    except _TooDeep:
        raise DataError("(file)", path.name, f"not valid JSON: nested more than {MAX_JSON_DEPTH} levels") from None
    except ijson.JSONError as exc:
        where = "" if last is None else f" after item {last!r}" if container == "start_map" else f" after item #{last}"
        raise DataError("(file)", path.name, f"not valid JSON{where}: {_yajl_message(exc)[:200]}") from None
    except DataError:
        raise
    except (ValueError, SystemError) as exc:  # yajl2_c: a number past Python's digit limit
        raise DataError("(file)", path.name, f"not valid JSON: {str(exc)[:200]}") from None


def _yajl_message(exc: Exception) -> str:
    """yajl's error on one line: what went wrong, then the text around it."""
    text = exc.args[0] if exc.args else str(exc)
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    lines = [line.strip() for line in str(text).splitlines() if line.strip() and "(right here)" not in line]
    return f"{lines[0]} near {lines[1]!r}" if len(lines) > 1 else (lines[0] if lines else "unreadable")


def _checked_members(path: Path, container: str, expected: str, encoding: str) -> Iterator[tuple[Any, Any]]:
    """`_json_members`, read twice: the whole file checked first, member by member and
    nothing kept, then its members given. As with `read_json_file`, a fault of the file (torn,
    not UTF-8, a key written twice) is reported before any item is converted, so it is never
    hidden behind an item's own fault or counted away by `skip_invalid`; the price is a
    second parse (a few seconds for 100k items), not memory."""
    for _ in _json_members(path, container, expected, encoding):
        pass
    yield from _json_members(path, container, expected, encoding)


def iter_json_object(
    path: Path, *, expected: str = "a JSON object keyed by problem id", encoding: str = "utf-8",
    prechecked: bool = False,
) -> Iterator[tuple[str, Any]]:
    """(key, value) of each member of a release file's top-level JSON object, one at a time
    (a release keyed by problem id, read incrementally: a 100k-item release is never held
    whole), with the errors `read_json_file` gives, before any member (`_checked_members`).
    `prechecked`: the caller has just read the whole file this way, so it is parsed once,
    not checked again first (a fault found now is still raised, where it lies)."""
    members = _json_members if prechecked else _checked_members
    for key, value in members(path, "start_map", expected, encoding):
        yield str(key), value


def iter_json_array(path: Path, *, expected: str, encoding: str = "utf-8") -> Iterator[Any]:
    """Each element of a release file's top-level JSON list, one at a time, as
    `iter_json_object` (a key written twice inside element i names item `#i`)."""
    for _, value in _checked_members(path, "start_array", expected, encoding):
        yield value


RELEASE_TOP: ContextVar[Path | None] = ContextVar("geomeval_release_top", default=None)
"""What `--data` names (a folder, or a release file) while its release is read, set by
`DataSource`: the links on the way to it are the user's; any link below its folder is the
release's and must not lead out of it (`read_image`, and the release's JSON files)."""


def read_image(
    item_id: str, field_name: str, path: Path, max_bytes: int = MAX_IMAGE_BYTES, *,
    inside: Path | Iterable[Path],
) -> dict[str, Any]:
    """An image file of a release as {bytes, path}, after checking that it exists, lies inside
    the release (`inside`: its folder or folders, symbolic links resolved), is not too large
    (by its size on disk, before reading it) and decodes within the pixel limit; anything else
    is a DataError naming the item and the field.

    While a release is read through `DataSource` (`RELEASE_TOP` set), the file must also
    resolve inside the release's own folder: a symbolic link anywhere below it, a file's or a
    folder's (an image folder linked to elsewhere), that leads out of it is refused, naming the
    link, even when `inside` names the linked folder itself."""
    if not path.is_file():
        raise DataError(item_id, field_name, f"image file not found: {path}")
    roots = [inside] if isinstance(inside, Path) else list(inside)
    resolved = path.resolve()
    if not any(resolved.is_relative_to(root.resolve()) for root in roots):
        raise DataError(item_id, field_name, f"image {path.name} {_leaving(path, _innermost(path, roots))}")
    problem = outside_release(path)
    if problem:
        raise DataError(item_id, field_name, f"image {path.name} {problem}")
    try:
        data = read_bounded_image(resolved, max_bytes)
    except ValueError as exc:
        raise DataError(item_id, field_name, f"image {path.name} {exc}") from None
    return {"bytes": data, "path": path.name}


def outside_release(path: Path) -> str | None:
    """Why a file a release reads (`path`) leads outside the release through a symbolic link
    ("leads outside the release folder through the symbolic link …"), or None: it resolves
    inside the folder `--data` names, or it is what `--data` names, or no release is being
    read through `DataSource`."""
    named = RELEASE_TOP.get()
    if named is None or path.absolute() == named.absolute():
        return None  # the user's own name for it: links up to it are theirs
    top = _release_top(path, named if named.is_dir() else named.parent)
    if top is None or path.resolve().is_relative_to(top.resolve()):
        return None
    return _leaving(path, top)


def _leaving(path: Path, top: Path | None) -> str:
    link = _leaving_link(path, top)
    how = f" through the symbolic link {link} (to {link.resolve()})" if link is not None else ""
    return f"leads outside the release folder{how}"


def _release_top(path: Path, folder: Path) -> Path | None:
    """The deepest folder holding both `path` and the release's `folder`, as written or
    resolved (a reader may hand over either); links up to it are the user's own. None when
    they share nothing but the file system's root."""
    here = path.absolute()
    tops = [Path(os.path.commonpath([here, where])) for where in (folder.absolute(), folder.resolve())]
    top = max(tops, key=lambda where: len(where.parts))
    return top if len(top.parts) > 1 else None


def _innermost(path: Path, roots: list[Path]) -> Path | None:
    here = path.absolute()
    holding = [root.absolute() for root in roots if here.is_relative_to(root.absolute())]
    return max(holding, key=lambda root: len(root.parts), default=None)


def _leaving_link(path: Path, top: Path | None) -> Path | None:
    """The first symbolic link below `top` on the way to `path` that leads out of `top`."""
    if top is None:
        return None
    here, bound = path.absolute(), top.resolve()
    if not here.is_relative_to(top.absolute()):
        return None
    step = top.absolute()
    for part in here.relative_to(top.absolute()).parts:
        step = step / part
        if step.is_symlink() and not step.resolve().is_relative_to(bound):
            return step
    return None


ROW_BATCH = 64
"""Rows a streamed built folder decodes at a time: the window of items (and their image
bytes) a run holds, besides those in flight."""


class BuiltRows:
    """A built folder's rows (`data/<split>-*.parquet`), read shard by shard and `ROW_BATCH`
    rows at a time, so a run holds a window of items, never the whole release. Images come
    as {bytes, path}, as `undecoded` datasets give them; no arrow cache is written (which
    `load_dataset` does on first use, and which memory-maps every image as it is read).

    `keep`: the row numbers to yield (None: all), for a resumed run's items still to do.
    `opener`: how a shard is opened (a Hub dataset's: a remote file read by ranges, so only the
    footers, the id column and the rows reached are fetched; `hfdata.hub_shards`)."""

    def __init__(self, files: list[Any], limit: int | None = None, keep: list[int] | None = None,
                 opener: Callable[[Any], Any] | None = None):
        self.opener = opener
        self.footers: dict[Any, Any] = {}  # each shard's metadata, read once (a remote shard's: one request)
        self.sizes: list[int] = []
        total = 0
        for path in files:  # with a --limit, only the shards that hold its rows are opened
            if limit is not None and total >= limit:
                break
            self.sizes.append(self._open(path).metadata.num_rows)
            total += self.sizes[-1]
        self.files = files[: len(self.sizes)]
        self.total = total if limit is None else min(limit, total)
        self.keep = keep
        self.holds: Any = None  # what lives as long as these rows (a raw release's temporary shards)

    def _open(self, path: Any) -> Any:
        import pyarrow.parquet as pq

        if self.opener is None:
            return pq.ParquetFile(path)
        opened = pq.ParquetFile(self.opener(path), metadata=self.footers.get(path))
        self.footers.setdefault(path, opened.metadata)
        return opened

    @classmethod
    def find(cls, folder: Path, split: str = "test", config: str | None = None) -> list[Path]:
        """The shards `hfdata.write_dataset` (or `write_configs`) wrote for `split`."""
        base = folder / "data" if config is None else folder / "data" / config
        return sorted(base.glob(f"{split}-*-of-*.parquet"))

    @property
    def column_names(self) -> list[str]:
        return list(self._open(self.files[0]).schema_arrow.names) if self.files else []

    def __len__(self) -> int:
        return self.total if self.keep is None else len(self.keep)

    def __getitem__(self, name: str) -> list[Any]:
        """One column's values for every row, as `Dataset[name]` gives them (reading only
        that column; through `ParquetFile`, since `read_table` imports pyarrow.dataset and
        pandas, half a second of a run's start-up)."""
        values: list[Any] = []
        for path in self.files:  # only the shards a --limit needs (__init__)
            values += self._open(path).read(columns=[name]).column(name).to_pylist()
        values = values[: self.total]
        return values if self.keep is None else [values[i] for i in self.keep]

    def select(self, keep: list[int]) -> BuiltRows:
        """The rows at these positions of this selection (yielded in the folder's order)."""
        chosen = keep if self.keep is None else [self.keep[i] for i in keep]
        subset = BuiltRows.__new__(BuiltRows)
        subset.files, subset.sizes, subset.total, subset.keep = self.files, self.sizes, self.total, sorted(chosen)
        subset.holds, subset.opener, subset.footers = self.holds, self.opener, self.footers
        return subset

    def __iter__(self) -> Iterator[dict[str, Any]]:
        wanted = None if self.keep is None else set(self.keep)
        number = 0  # the row number of the batch's first row
        for path in self.files:
            for batch in self._open(path).iter_batches(batch_size=ROW_BATCH):
                end = min(number + batch.num_rows, self.total)
                chosen = [i - number for i in range(number, end) if wanted is None or i in wanted]
                # only the rows wanted are turned into Python values (images included), a run
                # of consecutive rows at a time: `take` would import pandas (half a second)
                for start, length in _runs(chosen):
                    yield from batch.slice(start, length).to_pylist()
                number += batch.num_rows
                if number >= self.total:
                    return


def _runs(positions: list[int]) -> Iterator[tuple[int, int]]:
    """(start, length) of each run of consecutive numbers in sorted `positions`."""
    start = previous = None
    for position in positions:
        if previous is not None and position == previous + 1:
            previous = position
            continue
        if start is not None and previous is not None:
            yield start, previous - start + 1
        start = previous = position
    if start is not None and previous is not None:
        yield start, previous - start + 1


class _TemporaryFolder:
    """A folder removed once nothing refers to this (the last rows reading it are gone), or
    when the process exits."""

    def __init__(self, path: Path):
        self.path = path
        weakref.finalize(self, shutil.rmtree, path, True)


class LazyItems(Sequence[Item]):
    """A benchmark's items made from its rows as the run reaches them (`make(row)`), so only
    a window of them, with their images, is alive at a time. Iterating reads the rows again;
    `ids()` reads only the id column; `without(ids)` is the items still to do on a resume."""

    def __init__(self, rows: Any, make: Callable[[dict[str, Any]], Item], id_column: str = "id"):
        self.rows = rows
        self.make = make
        self.id_column = id_column

    def __len__(self) -> int:
        return len(self.rows)

    def ids(self) -> list[str]:
        return [str(v) for v in self.rows[self.id_column]]

    def __iter__(self) -> Iterator[Item]:
        for row in self.rows:
            yield self.make(row)

    @overload
    def __getitem__(self, index: int) -> Item: ...
    @overload
    def __getitem__(self, index: slice) -> list[Item]: ...
    def __getitem__(self, index: int | slice) -> Item | list[Item]:
        positions = range(len(self))[index]
        if isinstance(positions, int):
            return next(iter(LazyItems(self.rows.select([positions]), self.make, self.id_column)))
        return list(LazyItems(self.rows.select(list(positions)), self.make, self.id_column))

    def without(self, done: Iterable[str]) -> LazyItems:
        skip = set(done)
        if not skip:  # a fresh run: nothing to leave out, no id column to read again
            return self
        keep = [i for i, item_id in enumerate(self.ids()) if item_id not in skip]
        return LazyItems(self.rows.select(keep), self.make, self.id_column)


ROW_SINK: ContextVar[Any] = ContextVar("geomeval_row_sink", default=None)
"""Where `collect` sends each converted row during a streamed build (a `ShardWriter`),
instead of keeping it in `RawRelease.rows`."""


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
    sink = ROW_SINK.get()
    keep = release.rows.append if sink is None else sink.write  # a streamed build holds no row
    for item_id, record in records:
        try:
            if item_id in seen:
                raise DataError(item_id, "id", "appears twice in the release")
            keep(convert(item_id, record))
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
    schema: Mapping[str, Any]  # the typed columns, as plain data (`schema.Schema`): no `datasets` import
    read_release: Callable[..., RawRelease]  # (raw, *, skip_invalid) -> RawRelease
    render_card: Callable[..., str]
    is_raw: Callable[[Path], bool]
    sample_dir: str = "sample"

    @cached_property
    def features(self) -> Any:
        """The `datasets.Features` of `schema`, made on first use (building, loading through
        `datasets`, publishing): reading a built folder needs only `schema`."""
        return features_of(self.schema)

    def sample_path(self) -> Path:
        with as_file(files(self.package).joinpath(self.sample_dir)) as path:
            return Path(path)

    def from_raw(self, raw: str | Path, *, skip_invalid: bool = False) -> tuple[Any, list[dict[str, str]]]:
        from datasets import Dataset

        release = self._read_release(raw, skip_invalid=skip_invalid)
        return Dataset.from_list(release.rows, features=self.features), release.skipped

    def build(self, raw: str, out: str, *, skip_invalid: bool = False, overwrite: bool = False) -> dict[str, Any]:
        """Typed parquet shards and a card from the official raw release, each row written to
        its shard as `collect` converts it: memory holds one shard's rows, however large the
        release. A reader that makes its rows itself (not through `collect`) returns them in
        its release, and they are written after."""
        refuse_input_inside(raw, out, "--raw")  # the build would replace its own release
        skipped: list[dict[str, str]] = []

        def write(folder: Path, split: str, rows_per_shard: int) -> tuple[int, int]:
            sink = ShardWriter(self.features, folder, split, rows_per_shard)
            release = self.read_into(sink, raw, skip_invalid=skip_invalid)
            if sink.count == 0:
                raise DataError("(release)", "(all)", "no valid items to build")
            skipped.extend(release.skipped)
            return sink.close()

        summary = write_dataset({"test": write}, out, self.render_card, overwrite=overwrite)
        summary["skipped"] = skipped
        return summary

    def read_into(
        self, sink: ShardWriter, raw: str | Path, *, skip_invalid: bool = False, config: str | None = None
    ) -> RawRelease:
        """Read the release `raw` (a subset's: `config`) with every row sent to `sink` as it is
        converted (rows the reader kept itself too, after); the release, for its skipped items."""
        token = ROW_SINK.set(sink)
        try:
            release = self._read_config(raw, config, skip_invalid=skip_invalid)
        finally:
            ROW_SINK.reset(token)
        for row in release.rows:  # a reader that kept rows itself: write them too
            sink.write(row)
        return release

    def locate(self, data: str | None) -> tuple[str, Path | str]:
        """What `--data` names: ("raw", sample) for None, ("built", path), ("raw", path) or ("hub", id)."""
        if data is None:
            return "raw", self.sample_path()
        path = Path(data).expanduser()
        if is_built_dataset(path):
            return "built", path
        if self.is_raw(path):
            return "raw", path
        if path.exists():
            raise FileNotFoundError(f"{data}: neither a built {self.title} folder nor a raw release")
        if looks_local(data):
            raise FileNotFoundError(f"--data {data}: no such file or folder")
        return "hub", data

    def undecoded(self, dataset: Any) -> Any:
        """`dataset` with every image column (found from the Features) as {bytes, path}."""
        from .rows import undecoded

        return undecoded(dataset, self.features)

    def named(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """A row as a benchmark's `Item.fields`: class labels as names (`rows.named_row`)."""
        from .rows import named_row

        return named_row(row, self.schema)

    def rows(self, data: str | None, limit: int | None = None, config: str | None = None) -> Any:
        """The rows for `--data` with images as {bytes, path}, to make items from lazily
        (`LazyItems`): a built folder streamed shard by shard (`BuiltRows`), anything else
        the `undecoded` dataset `load` gives, cut at `limit`. `config`: a subset's
        (`SubsetDataSource`). Either gives a column's values as `rows[name]`."""
        kind, where = self.locate(data)
        if kind == "raw" and data is not None:
            return self._raw_rows(Path(where), limit, config)
        files: list[Any] = []
        opener = None
        if kind == "built":
            files = BuiltRows.find(Path(where), config=self._shard_config(config))
        elif kind == "hub":  # a Hub dataset of geomeval's layout: its shards streamed (else loaded whole)
            files, opener = hub_shards(str(where), config=self._shard_config(config))
        if files:
            rows = BuiltRows(files, limit, opener=opener)
            present = set(rows.column_names)  # one footer read, not one per column
            missing = [name for name in self.schema if name not in present]
            if missing:
                raise DataError("(dataset)", missing[0], f"column missing from {data}")
            return rows
        if kind == "raw":  # the embedded sample (small, read whole): `datasets` only where it converts
            from .rows import plain_rows

            release = self._read_config(where, config)
            plain = plain_rows(release.rows, self.schema)
            found: Any = plain if plain is not None else self.undecoded(self._typed(release.rows))
        else:
            found = self.undecoded(self._load_config(data, config))
        return found.select(range(min(limit, len(found)))) if limit is not None else found

    def _read_config(self, raw: Path | str, config: str | None, *, skip_invalid: bool = False) -> RawRelease:
        """A raw release's rows (a subset's: `SubsetDataSource`)."""
        self._shard_config(config)  # one config: refuses another
        return self._read_release(raw, skip_invalid=skip_invalid)

    def _read_release(self, raw: Path | str, *args: Any, **kwargs: Any) -> RawRelease:
        """`read_release(raw, ...)` with `RELEASE_TOP` naming the folder of `raw`, so that no
        image it reads reaches outside it through a link of the release's (`read_image`)."""
        token = RELEASE_TOP.set(Path(raw).expanduser())
        try:
            return self.read_release(raw, *args, **kwargs)
        finally:
            RELEASE_TOP.reset(token)

    def _typed(self, rows: list[dict[str, Any]]) -> Any:
        from datasets import Dataset

        return Dataset.from_list(rows, features=self.features)

    def _raw_rows(self, raw: Path, limit: int | None, config: str | None) -> Any:
        """A raw release's rows, read once into parquet shards in a temporary folder (a row at
        a time, as `build` writes them) and streamed from there (`BuiltRows`): a run of a raw
        release holds a window of its images, not all of them. The folder goes when the rows
        do (and with the process). `config`: a subset's (`SubsetDataSource`)."""
        self._shard_config(config)  # refuses a config the source lacks
        folder = Path(tempfile.mkdtemp(prefix="geomeval-raw-"))
        try:
            sink = ShardWriter(self.features, folder / "data", "test")
            self.read_into(sink, raw, config=config)
            sink.close()  # names the shards
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        rows = BuiltRows(BuiltRows.find(folder), limit)
        rows.holds = _TemporaryFolder(folder)
        return rows

    def raw_dataset(self, raw: str | Path) -> Any:
        """A raw release as a Dataset mapped from disk rather than held in memory (what
        `from_raw` gives, rows and images alike): read a row at a time into temporary shards,
        as `_raw_rows` does, and loaded from them with its arrow cache beside them."""
        from datasets import Dataset

        rows = self._raw_rows(Path(raw), None, None)
        folder = rows.holds.path
        dataset = Dataset.from_parquet([str(f) for f in rows.files], features=self.features,
                                       cache_dir=str(folder / "cache"), keep_in_memory=False)
        dataset.temporary_folder = rows.holds  # the folder goes with the dataset (mapped files stay readable)
        return dataset

    def _shard_config(self, config: str | None) -> str | None:
        """The folder under data/ a built config's shards are in (None: data/ itself)."""
        if config is not None:
            raise UsageError(f"{self.title} has one config; {config!r} names another")
        return None

    def _load_config(self, data: str | None, config: str | None) -> Any:
        return self.load(data)

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
            raise UsageError(f"unknown {self.title} config {config!r}; configs: {', '.join(self.configs)}")
        return config

    def from_raw(
        self, raw: str | Path, *, skip_invalid: bool = False, config: str | None = None
    ) -> tuple[Any, list[dict[str, str]]]:
        from datasets import Dataset

        release = self._read_release(raw, self.config(config), skip_invalid=skip_invalid)
        return Dataset.from_list(release.rows, features=self.features), release.skipped

    def build(self, raw: str, out: str, *, skip_invalid: bool = False, overwrite: bool = False) -> dict[str, Any]:
        """Every subset the raw release holds, one config each, and a card declaring them.

        The summary has `splits` and `skipped` keyed and tagged by config ("<config>/test"),
        plus `missing`: the configs the release did not hold.
        """
        refuse_input_inside(raw, out, "--raw")  # the build would replace its own release
        present = self.subsets(Path(raw)) if self.subsets else self.configs
        if not present:
            raise FileNotFoundError(f"{raw}: no {self.title} subset found ({', '.join(self.configs)})")
        skipped: list[dict[str, str]] = []

        def writer(name: str) -> Callable[[Path, str, int], tuple[int, int]]:
            def write(folder: Path, split: str, rows_per_shard: int) -> tuple[int, int]:
                """The subset's rows written to its shards as the reader converts them (`DataSource.build`)."""
                sink = ShardWriter(self.features, folder, split, rows_per_shard)
                release = self.read_into(sink, raw, skip_invalid=skip_invalid, config=name)
                if sink.count == 0:
                    raise DataError(f"({name})", "(all)", "no valid items to build")
                skipped.extend({"config": name, **entry} for entry in release.skipped)
                return sink.close()

            return write

        built = {name: {"test": writer(name)} for name in present}
        summary = write_configs(built, out, self.render_card, overwrite=overwrite)
        summary["splits"] = {
            f"{name}/{split}": info for name, entry in summary["configs"].items() for split, info in entry["splits"].items()
        }
        summary["skipped"] = skipped
        summary["missing"] = [name for name in self.configs if name not in present]
        return summary

    def _shard_config(self, config: str | None) -> str | None:
        return self.config(config)

    def _read_config(self, raw: Path | str, config: str | None, *, skip_invalid: bool = False) -> RawRelease:
        return self._read_release(raw, self.config(config), skip_invalid=skip_invalid)

    def _load_config(self, data: str | None, config: str | None) -> Any:
        return self.load(data, config=config)

    def load(self, data: str | None, config: str | None = None) -> Any:  # type: ignore[override]
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
