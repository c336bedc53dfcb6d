"""CapGeo's reasoning problems as a typed dataset, with one captioner's captions joined in.

`geomeval run capgeo` captions figures itself (the caption pass, into a caption store); an
lmms-eval task cannot, since it poses one request per row. So the captions travel in the
data: `build_source` reads a source's public file with `sources.load_source` and joins a
caption store file by item id. An item the file has no caption for (never captioned, or the
captioner failed) gets caption None, is counted in the build summary, and is left unscored
by the caption modes, never counted wrong.

Without `--data`, the embedded sample of every source is used with its reference captions
(`sources/captions/`, captioner "geomeval-reference"); `build` (what `geomeval lmms-eval`
runs when no --data is given) concatenates the four sources there, in `SOURCES` order, and
writes ids as `<source>/<id>` because the sources' own ids overlap ("1" is an item of
each). A single-source build keeps the source's ids.

A caption file is read strictly: a line that is not a JSON object with an id and a
caption (text or null), or a file that mixes captioners or belongs to another source, stops
the build naming the file and the line. As in the caption store, the last entry of an id
wins (a failed caption is retried by appending).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.errors import UsageError
from ...engines.hfdata import write_dataset
from ..base import DataError
from ..datasource import DataSource, RawRelease
from .card import render_card
from .features import SCHEMA
from .sources import SOURCES, apply_sampling, load_source, sample_captions, sampling

ALL_SOURCES = "all"  # `geomeval capgeo build --source all`: every embedded sample, with its reference captions
_STORE_NAME = re.compile(r"^(?P<captioner>.+)__(?P<source>[a-z_]+)__(?P<variant>[a-z_]+)\.jsonl$")
_BUILD_HINT = (
    "a source's public file is built first, with the captions to join: geomeval capgeo build "
    "--source SOURCE --data FILE --captions CAPTIONS.jsonl --out DIR"
)


class CaptionFileError(UsageError):
    """A caption file that cannot be joined; the message names the file and the line."""


@dataclass(frozen=True)
class CaptionFile:
    """A caption store file's entries by item id ({"caption", "error"}) and its captioner."""

    path: Path
    captioner: str
    entries: dict[str, dict[str, str | None]]


def _entry(path: Path, number: int, line: str) -> tuple[str, str | None, str | None, str | None]:
    """(id, caption, error, captioner) of one line, or a CaptionFileError saying what is wrong."""
    where = f"{path}, line {number}"
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise CaptionFileError(
            f"{where}: not valid JSON ({exc.msg}); a caption file holds one JSON object per line "
            "(a caption pass killed mid-line leaves a torn last line: rerun the pass or delete it)"
        ) from None
    if not isinstance(record, dict):
        raise CaptionFileError(f"{where}: expected an object with id and caption, got {type(record).__name__}")
    item = record.get("id")
    if isinstance(item, bool) or not isinstance(item, (str, int)) or not str(item).strip():
        raise CaptionFileError(f"{where}: the id must be a non-empty string or an integer, got {item!r}")
    if "caption" not in record:
        raise CaptionFileError(f"{where}: no caption field (a failed caption is stored as null)")
    values = {}
    for name in ("caption", "error", "captioner"):
        value = record.get(name)
        if value is not None and not isinstance(value, str):
            raise CaptionFileError(f"{where}: {name} must be text or null, got {type(value).__name__}")
        values[name] = value
    caption, error = values["caption"], values["error"]
    if caption is not None and not caption.strip():
        caption, error = None, error or "the captioner returned an empty caption"
    return str(item).strip(), caption, error, values["captioner"]


def read_caption_file(path: str | Path, source: str | None = None) -> CaptionFile:
    """A caption store file (`<captioner>__<source>__<variant>.jsonl`, or any JSONL of
    {id, caption, error, captioner} lines), checked line by line; `source` refuses a file
    whose name says it holds another source's captions."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise FileNotFoundError(f"caption file not found: {file}")
    named = _STORE_NAME.match(file.name)
    if source is not None and named and named["source"] in SOURCES and named["source"] != source:
        raise CaptionFileError(f"{file} holds captions of source {named['source']}, not {source}")
    entries: dict[str, dict[str, str | None]] = {}
    captioner: str | None = None
    first_line = 0
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        item, caption, error, who = _entry(file, number, line)
        if who is not None:
            if captioner is not None and who != captioner:
                raise CaptionFileError(
                    f"{file}, line {number}: captioner {who!r}, but line {first_line} has {captioner!r}; "
                    "a caption file holds one captioner's captions"
                )
            captioner, first_line = who, first_line or number
        entries[item] = {"caption": caption, "error": error}
    if not entries:
        raise CaptionFileError(f"{file}: no caption entries")
    if captioner is None:  # entries written by hand: the store's file name says whose they are
        captioner = named["captioner"] if named else file.stem
    return CaptionFile(file, captioner, entries)


@dataclass
class Joined:
    """Rows with captions joined in, and what the join found."""

    rows: list[dict[str, Any]]
    captioner: str | None
    captioned: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # id → the captioner's error
    missing: list[str] = field(default_factory=list)  # ids the caption file has no entry for
    unused: list[str] = field(default_factory=list)  # caption ids that are no item


def join_captions(rows: list[dict[str, Any]], captions: CaptionFile | None, *, id_prefix: str = "") -> Joined:
    """`load_source` rows as dataset rows, each with its caption (None where there is none)."""
    joined = Joined(rows=[], captioner=captions.captioner if captions else None)
    entries = captions.entries if captions else {}
    if captions is not None and rows and not any(row["id"] in entries for row in rows):
        raise CaptionFileError(
            f"{captions.path}: none of its {len(entries)} ids is an item of source {rows[0]['source']} "
            "(another source's captions, or another file of items?)"
        )
    for row in rows:
        entry = entries.get(row["id"])
        caption = entry["caption"] if entry else None
        if caption is not None:
            joined.captioned += 1
        elif entry is not None:
            joined.failed[row["id"]] = entry["error"] or "the captioner gave no caption"
        else:
            joined.missing.append(row["id"])
        joined.rows.append({
            "id": id_prefix + row["id"],
            "source": row["source"],
            "question": row["question"],
            "image": row["image"],
            "choices": list(row["choices"]),
            "answer": row["answer"],
            "question_type": row["question_type"],
            "unit": row.get("unit"),
            "subject": row.get("subject") or "",
            "caption": caption,
            "captioner": joined.captioner,
        })
    known = {row["id"] for row in rows}
    joined.unused = [item for item in entries if item not in known]
    return joined


def _summary(parts: list[Joined]) -> dict[str, Any]:
    items = sum(len(part.rows) for part in parts)
    captioned = sum(part.captioned for part in parts)
    return {
        "items": items,
        "captioned": captioned,
        "without_caption": items - captioned,
        "failed_captions": {k: v for part in parts for k, v in part.failed.items()},
        "never_captioned": [item for part in parts for item in part.missing],
        "unused_captions": [item for part in parts for item in part.unused],
        "captioners": sorted({part.captioner for part in parts if part.captioner}),
    }


def _write(parts: list[Joined], out: str | Path, overwrite: bool) -> dict[str, Any]:
    from datasets import Dataset

    rows = [row for part in parts for row in part.rows]
    dataset = Dataset.from_list(rows, features=SOURCE.features)
    summary = write_dataset({"test": dataset}, out, render_card, overwrite=overwrite)
    return {**summary, **_summary(parts)}


def build_source(
    source: str,
    out: str | Path,
    *,
    data: str | Path | None = None,
    captions: str | Path | None = None,
    overwrite: bool = False,
    sample_seed: int | None = None,
    all_problems: bool = False,
) -> dict[str, Any]:
    """One source's problems (its public file `data`, default its embedded sample) with the
    captions of `captions` (a caption store file; default: the embedded reference captions
    when `data` is the sample, none otherwise), as parquet shards and a card under `out`.

    GeoQA is drawn as `geomeval run capgeo` draws it (the paper's random 200, from
    `sample_seed`; every problem with `all_problems`), so the lmms-eval tasks pose the same
    items; the summary's `subsample` records which.

    The summary counts the items without a caption: `failed_captions` (id → error) and
    `never_captioned` (ids the file has no entry for); `unused_captions` are the file's ids
    that are no item of the source."""
    if source not in SOURCES:
        raise UsageError(f"unknown CapGeo source {source!r}; sources: {', '.join(SOURCES)}")
    drawn = sampling(source, sample_seed, all_problems)
    rows = apply_sampling(load_source(source, data), drawn)
    if captions is None and data is None:
        captions = sample_captions(SOURCES[source]).path
    caption_file = read_caption_file(captions, source) if captions is not None else None
    summary = _write([join_captions(rows, caption_file)], out, overwrite)
    return {**summary, "source": source, "subsample": drawn,
            "caption_file": str(caption_file.path) if caption_file else None}


def _joined_sources(raw: str | Path) -> list[Joined]:
    """Every source found in a folder laid out like the embedded `sources/` (each source's file
    at its sample path), with the reference captions under `captions/`, ids qualified."""
    root = Path(raw)
    parts = []
    for name, source in SOURCES.items():
        file = root / source.sample
        if not file.is_file():
            continue
        store = sample_captions(source, root).path
        captions = read_caption_file(store, name) if store.is_file() else None
        parts.append(join_captions(load_source(name, file), captions, id_prefix=f"{name}/"))
    if not parts:
        raise DataError("(sources)", "(all)", f"no source file of {', '.join(SOURCES)} under {root}")
    return parts


def read_sources(raw: str | Path, *, skip_invalid: bool = False) -> RawRelease:
    """`DataSource`'s raw reader: the sources folder's rows (its loaders stop at a bad record,
    so there is nothing to skip)."""
    return RawRelease(rows=[row for part in _joined_sources(raw) for row in part.rows])


def _is_raw(path: Path) -> bool:
    """No path is read raw: a source's public file needs its source name and its captions,
    which `--data` alone does not give (only the embedded sample, `--data` left out, is)."""
    return False


SOURCE = DataSource("CapGeo reasoning", __package__, SCHEMA, read_sources, render_card,
                    _is_raw, sample_dir="sources")
sample_path = SOURCE.sample_path
from_raw = SOURCE.from_raw


def build(raw: str, out: str, *, skip_invalid: bool = False, overwrite: bool = False) -> dict[str, Any]:
    """Every source of a sources folder (the embedded one: `sample_path()`) with its reference
    captions, concatenated, as parquet shards and a card (`geomeval capgeo build --source all`)."""
    parts = _joined_sources(raw)
    return {**_write(parts, out, overwrite), "source": ALL_SOURCES, "skipped": []}


def locate(data: str | None) -> tuple[str, Path | str]:
    """What `--data` names: ("raw", the embedded sources) for None, ("built", path) or
    ("hub", id); a path that is neither built nor the sample says how to build it."""
    try:
        return SOURCE.locate(data)
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"{exc}; {_BUILD_HINT}") from None


def load(data: str | None) -> Any:
    """The typed dataset `--data` names (None: the embedded sample of every source)."""
    locate(data)  # the hinted error first
    return SOURCE.load(data)
