"""Read an ME2 raw release (one records file beside its image folders) into typed rows.

The records are one `*.jsonl` file (a record a line) or `*.json` file (a list of records, or
an object keyed by item id), preferably named `ME2.jsonl`, `ME2.json`, `me2.jsonl`,
`me2.json`, `data.jsonl` or `data.json`. A record carries the public release's keys
(`problem_text`, `problem_image`, `answer_text`, `solution_text`, `summary_solution_text`,
`visual_key_points`, `visual_identification_option`, `visual_identification_answer`,
`chapter_title`, `section_title`, `question_answer_type`, and the descriptive
`question_type` and `answer_type`), optionally `solution_image`, an `id` (or `problem_id`;
else the item is `me2-NNNN` by position) and the provenance geomeval's keypoint-options
builder writes (`option_sources`, `option_items`). Images are paths relative to the records
file's folder, also looked up in `problem_image/`, `solution_image/` and `images/` there; a
path leaving that folder is an error.

Every field is checked and every size bounded, because a release is untrusted text: an
unknown key, a missing one or a bad value stops the build with a `DataError` naming the item
and the field (or, with `skip_invalid`, leaves the item out and counts it).

This module is the one reader of a release: `geomeval me2 make-options` reads the same file
(`locate_release`), the same records in file order with the same ids (`read_records`,
`identify`), the same keypoints (`keypoints`) and within the same limits as the build does;
it only skips the checks of the fields it does not use, and has no `skip_invalid`.
"""

from __future__ import annotations

import codecs
import itertools
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ...engines.images import image_problem
from ..base import DataError
from ..datasource import (
    RawRelease,
    collect,
    iter_json_array,
    iter_json_object,
    read_image,
)
from .features import CIRCLED_OPTIONS, OPTION_LETTERS, OPTION_SOURCES, QUESTION_ANSWER_TYPES

PREFERRED_FILES = ("ME2.jsonl", "ME2.json", "me2.jsonl", "me2.json", "data.jsonl", "data.json")
RECORD_SUFFIXES = (".jsonl", ".json")
IMAGE_DIRS = ("", "problem_image", "solution_image", "images")
MAX_FILE_BYTES = 512 * 1024 * 1024
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_LINE_CHARS = 4_000_000
MAX_RECORDS = 100_000
MAX_TEXT_CHARS = 50_000
MAX_TITLE_CHARS = 1_000
MAX_ID_CHARS = 200
MAX_PATH_CHARS = 1_000
MAX_KEYPOINTS = 64
MAX_KEYPOINT_ENTRY_KEYS = 65_536  # a struct-union entry lists every row's element names
MAX_ELEMENT_CHARS = 1_000
MAX_OPTION_LINES = 2_000
PEEK_BYTES = 64 * 1024
# Keys only an ME2 record has (GeoLaux records have `problem_text` too).
_SIGNATURE_KEYS = (b"summary_solution_text", b"visual_key_points", b"question_answer_type")

REQUIRED_FIELDS = (
    "problem_text",
    "answer_text",
    "solution_text",
    "summary_solution_text",
    "visual_key_points",
    "question_answer_type",
    "problem_image",
    "chapter_title",
    "section_title",
)
OPTIONAL_FIELDS = (
    "id",
    "problem_id",
    "solution_image",
    "visual_identification_option",
    "visual_identification_answer",
    "option_sources",
    "option_items",
    # The public release also describes each item with `question_type` and `answer_type`;
    # `question_answer_type` says the same, so they are checked as text and not kept.
    "question_type",
    "answer_type",
)
KNOWN_FIELDS = frozenset(REQUIRED_FIELDS + OPTIONAL_FIELDS)

_LETTER = re.compile(r"\([ \t]?([A-Ea-e])[ \t]?\)\.?|([A-Ea-e])[.)]?")
# An option marker at a line start: `A.`, `A)`, `A )`, `(A)`, `A:`, `**A.**`, `**A**.`,
# `**(A)**`, `Option A:`; the marker must be followed by white space or the line's end, so
# "A.B is a chord" is not option A.
_LINE_MARKER = re.compile(
    r"[ \t]{0,8}(?:\*\*)?[ \t]{0,2}(?:[Oo]ption[ \t]{1,2})?"
    r"(?:\([ \t]?([A-E])[ \t]?\)|([A-E])(?:\*\*)?[ \t]{0,2}[.):：])(?:\*\*)?(?=\s|$)[ \t]{0,8}"
)
_INLINE_MARKER = re.compile(r"(?<![A-Za-z0-9])\(([A-E])\)")


def locate_release(raw: str | Path) -> Path:
    """The records file of the release `raw` (the file itself, or the one in a folder)."""
    path = Path(raw)
    if path.is_file():
        if path.suffix.lower() not in RECORD_SUFFIXES:
            raise FileNotFoundError(f"{path}: an ME2 release is a .jsonl or .json records file")
        return path
    if not path.is_dir():
        raise FileNotFoundError(f"ME2 raw release not found: {path}")
    found = _records_in(path)
    if isinstance(found, Path):
        return found
    if not found:
        present = sorted(p.name for p in itertools.islice(path.iterdir(), 200))[:12]
        raise FileNotFoundError(
            f"{path} holds no .jsonl or .json records file and no parquet file: no ME2 release "
            "layout known to geomeval. Expected a records file "
            f"({' or '.join(PREFERRED_FILES)}, or one .jsonl/.json file) beside its image folders, "
            f"or the Hub layout of {HUB_ID} (parquet files of split {HUB_SPLIT!r} with the "
            f"columns {', '.join(HUB_COLUMNS)}); found: {', '.join(present) or 'an empty folder'}"
        )
    names = ", ".join(p.name for p in found[:10])
    raise FileNotFoundError(
        f"{path} holds several records files ({names}) and none named {' or '.join(PREFERRED_FILES)}; "
        "pass the release's records file itself"
    )


def _records_in(folder: Path) -> Path | list[Path]:
    """The preferred records file in `folder`, the only candidate, or else every candidate."""
    for name in PREFERRED_FILES:
        if (folder / name).is_file():
            return folder / name
    candidates = sorted(
        p for p in folder.iterdir() if p.suffix.lower() in RECORD_SUFFIXES and p.is_file()
    )
    return candidates[0] if len(candidates) == 1 else candidates


def is_release(path: Path) -> bool:
    """Whether `path` looks like an ME2 raw release: a records file whose first 64 KB show an
    ME2-only key, or a folder holding one. Cheap, so `--data` can be resolved quickly."""
    if is_hub_layout(path):
        return True
    if path.is_dir():
        found = _records_in(path)
        return isinstance(found, Path) and is_release(found)
    if not path.is_file() or path.suffix.lower() not in RECORD_SUFFIXES:
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(PEEK_BYTES)
    except OSError:
        return False
    return any(key in head for key in _SIGNATURE_KEYS)


def read_release(raw: str | Path, *, skip_invalid: bool = False) -> RawRelease:
    """The typed rows of the release `raw`: a records file (or its folder), a folder of the
    authors' Hub dataset as `huggingface-cli download jungypark/ME2` leaves it (its parquet
    files), or a Hub id (downloaded, or taken from the local Hub cache offline)."""
    path = Path(raw).expanduser()
    if not path.exists() and looks_like_hub_id(str(raw)):
        path = hub_snapshot(str(raw))
    if hub_parquet_files(path):
        root = (path if path.is_dir() else path.parent).resolve()
        pairs = hub_records(path)
    else:
        records = locate_release(path)
        root = records.parent.resolve()
        pairs, _kind = _record_pairs(records)
    return collect(
        pairs, lambda item, record: convert_record(item, record, root), skip_invalid=skip_invalid
    )


# ----------------------------------------------------------------------------- the Hub layout
#
# The authors' lmms-eval task (lmms_eval/tasks/ME2/*.yaml and utils.py in their repository)
# reads the Hub dataset `jungypark/ME2`: its default config, split `train` (`test_split:
# train`), one row per problem with the columns below. The figures are `datasets` Image
# columns (`doc["problem_image"].convert("RGB")`), stored in parquet as {bytes, path};
# `visual_key_points` is a list of structs whose fields are every element name of the
# dataset, null but for the row's own (`for key, value in item.items(): if value != None`);
# `visual_identification_option` is the one text of the five options the prompt shows.

HUB_ID = "jungypark/ME2"
HUB_SPLIT = "train"
# What the official task reads (its doc_to_text, doc_to_visual, doc_to_target and
# process_results): a Hub-layout folder must have these columns.
HUB_COLUMNS = (
    "problem_image",
    "problem_text",
    "answer_text",
    "solution_text",
    "summary_solution_text",
    "visual_key_points",
    "visual_identification_option",
    "visual_identification_answer",
    "question_answer_type",
    "chapter_title",
    "section_title",
)
MAX_PARQUET_FILES = 10_000
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}")


def looks_like_hub_id(text: str) -> bool:
    """`owner/name`, as a Hub dataset id is written (a missing local path is not one)."""
    return bool(_HUB_ID.fullmatch(text)) and not text.endswith((*RECORD_SUFFIXES, ".parquet"))


def hub_snapshot(repo_id: str) -> Path:
    """The local folder of the Hub dataset `repo_id`: its parquet files and card, downloaded
    (with the saved Hub token: the authors' dataset is gated) or, offline, from the cache."""
    try:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(
            repo_id, repo_type="dataset", allow_patterns=["*.parquet", "*.md", "*.json"]
        )
    except Exception as exc:
        raise FileNotFoundError(
            f"{repo_id!r} is not a local path, and downloading it as a Hub dataset failed "
            f"({type(exc).__name__}: {str(exc)[:300]}). The authors' dataset is gated: accept "
            f"its terms on the Hub and log in (`huggingface-cli login`), or download it "
            f"(`huggingface-cli download --repo-type dataset {HUB_ID} --local-dir DIR`) and "
            "pass DIR."
        ) from None
    return Path(folder)


def _parquet_split(path: Path, folder: Path) -> str:
    """The split a parquet file belongs to, as `datasets` names it from the file layout:
    `train-00000-of-00001.parquet`, `train.parquet` or a `train/` folder."""
    stem = path.name.removesuffix(".parquet")
    name = re.split(r"[-_.]", stem, maxsplit=1)[0]
    if name in ("train", "test", "validation", "valid", "dev", "eval"):
        return name
    parent = path.parent
    return parent.name if parent != folder and parent.name not in ("data", "") else stem


def hub_parquet_files(path: Path) -> dict[str, list[Path]]:
    """A Hub-layout folder's parquet files by split (a single `.parquet` file is split
    `train`); empty when `path` holds none (hidden folders such as `.cache` are skipped)."""
    if path.is_file():
        return {HUB_SPLIT: [path]} if path.suffix.lower() == ".parquet" else {}
    if not path.is_dir():
        return {}
    files = sorted(
        p
        for p in itertools.islice(path.rglob("*.parquet"), MAX_PARQUET_FILES)
        if not any(part.startswith(".") for part in p.relative_to(path).parts)
    )
    splits: dict[str, list[Path]] = {}
    for file in files:
        splits.setdefault(_parquet_split(file, path), []).append(file)
    return splits


def is_hub_layout(path: Path) -> bool:
    """Whether `path` holds the authors' Hub dataset: parquet files whose schema has the
    columns only an ME2 release has. Reads one file's schema, not its rows."""
    splits = hub_parquet_files(path)
    files = splits.get(HUB_SPLIT) or next(iter(splits.values()), None)
    if not files:
        return False
    try:
        names = set(_schema_names(files[0]))
    except (OSError, ValueError):
        return False
    return any(key.decode() in names for key in _SIGNATURE_KEYS)


def _schema_names(file: Path) -> list[str]:
    import pyarrow.parquet as pq

    return list(pq.read_schema(file).names)


def _layouts_found(path: Path, splits: dict[str, list[Path]]) -> str:
    shown = "; ".join(
        f"split {name!r} ({len(files)} file(s), columns {', '.join(_schema_names(files[0])[:20])})"
        for name, files in list(splits.items())[:5]
    )
    return shown or f"no parquet file in {path}"


def hub_records(path: Path) -> Iterator[tuple[str, Any]]:
    """The rows of split `train` of a Hub-layout folder (or file) as release records, a
    batch at a time, with their ids (`id`, else `problem_id`, else `me2-NNNN` by position).

    Columns the official task does not read and geomeval does not know are left out; a
    layout without the official split or columns is a `DataError` saying what was expected
    and what was found."""
    import pyarrow.parquet as pq

    splits = hub_parquet_files(path)
    files = splits.get(HUB_SPLIT)
    if not files:
        raise DataError(
            "(release)",
            "(layout)",
            f"expected the Hub layout of {HUB_ID} as its lmms-eval task reads it: parquet files "
            f"of split {HUB_SPLIT!r} with the columns {', '.join(HUB_COLUMNS)}; found "
            f"{_layouts_found(path, splits)}",
        )
    names = _schema_names(files[0])
    missing = [name for name in HUB_COLUMNS if name not in names]
    if missing:
        raise DataError(
            "(release)",
            missing[0],
            f"expected the Hub layout of {HUB_ID} as its lmms-eval task reads it: split "
            f"{HUB_SPLIT!r} with the columns {', '.join(HUB_COLUMNS)}; found the columns "
            f"{', '.join(names[:40])} in {files[0].name} (missing: {', '.join(missing)})",
        )
    position = 0
    for file in files:
        columns = [name for name in _schema_names(file) if name in KNOWN_FIELDS]
        lacking = [name for name in HUB_COLUMNS if name not in columns]
        if lacking:
            raise DataError("(release)", lacking[0], f"column missing from {file.name}")
        for batch in pq.ParquetFile(file).iter_batches(batch_size=32, columns=columns):
            for record in batch.to_pylist():
                if position >= MAX_RECORDS:
                    raise DataError("(file)", file.name, f"more than {MAX_RECORDS} records")
                yield _record_id(record, position_id(position)), _without_nulls(record)
                position += 1


def _without_nulls(record: dict[str, Any]) -> dict[str, Any]:
    """A parquet row as a release record: a column a row leaves null (an optional one, such
    as `id` or `solution_image`) is as absent, so the release's rules for absent keys hold."""
    optional = set(OPTIONAL_FIELDS)
    return {key: value for key, value in record.items() if value is not None or key not in optional}


def read_records(raw: str | Path) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """Every record of the release `raw` as (item id, the record as it is in the file), in
    file order, and the file's format: "jsonl", "json" (a list) or "json-object" (keyed by
    id). For a tool that rewrites the file (`make-options`): a line that is not a record, a
    record that is not an object or an id that is not usable is a `DataError` naming the item
    (`line N` for an unreadable line) and the field; the other fields are not checked here."""
    path = locate_release(raw)
    pairs, kind = _record_pairs(path)
    return [(item_id, checked_record(item_id, record)) for item_id, record in pairs], kind


def _record_pairs(path: Path) -> tuple[Iterator[tuple[str, Any]], str]:
    """The records file's (item id, raw record) pairs, lazily for JSONL, and its format."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise DataError("(file)", path.name, f"larger than {MAX_FILE_BYTES} bytes")
    if path.suffix.lower() == ".jsonl":
        return _jsonl_records(path), "jsonl"
    keyed = _opens_object(path)
    return _json_records(path, keyed), "json-object" if keyed else "json"


class _Unreadable:
    """A JSONL line that is not a record: converting it raises, so `skip_invalid` counts it
    like any bad item instead of stopping the whole build."""

    def __init__(self, message: str):
        self.message = message


def _jsonl_records(path: Path) -> Iterator[tuple[str, Any]]:
    position = 0
    try:
        with path.open("r", encoding="utf-8-sig") as handle:
            line_number = 0
            while True:
                line = handle.readline(MAX_LINE_CHARS + 1)
                if not line:
                    return
                line_number += 1
                too_long = len(line) > MAX_LINE_CHARS and not line.endswith("\n")
                while too_long and not line.endswith("\n") and line:
                    line = handle.readline(MAX_LINE_CHARS + 1)  # drop the rest of the line
                if not too_long and not line.strip():
                    continue
                if position >= MAX_RECORDS:
                    raise DataError("(file)", path.name, f"more than {MAX_RECORDS} records")
                fallback = position_id(position)
                position += 1
                if too_long:
                    yield (
                        f"line {line_number}",
                        _Unreadable(f"line longer than {MAX_LINE_CHARS} characters"),
                    )
                    continue
                try:
                    record = json.loads(line)
                except (json.JSONDecodeError, RecursionError) as exc:
                    yield f"line {line_number}", _Unreadable(f"not valid JSON: {str(exc)[:200]}")
                    continue
                yield _record_id(record, fallback), record
    except UnicodeDecodeError:
        raise DataError("(file)", path.name, "not UTF-8 text") from None


def _opens_object(path: Path) -> bool:
    """Whether a `.json` records file's top level is an object (keyed by item id) rather than
    a list, from its first character after a byte-order mark and blanks."""
    with path.open("rb") as handle:
        head = handle.read(PEEK_BYTES).removeprefix(codecs.BOM_UTF8)
        while head and not head.strip():
            head = handle.read(PEEK_BYTES)
    return head.lstrip().startswith(b"{")


def _json_records(path: Path, keyed: bool) -> Iterator[tuple[str, Any]]:
    """A `.json` records file's records, a record at a time (a list of records, or an object
    of them keyed by item id), up to `MAX_RECORDS`."""
    expected = "a JSON list of records or an object keyed by item id"
    if keyed:
        # The key is the id; `_check_id` checks that a record's own id agrees.
        members = iter_json_object(path, expected=expected, encoding="utf-8-sig")
        pairs: Iterator[tuple[str, Any]] = ((key[:MAX_ID_CHARS], record) for key, record in members)
    else:
        pairs = identify(iter_json_array(path, expected=expected, encoding="utf-8-sig"))
    for position, pair in enumerate(pairs):
        if position >= MAX_RECORDS:
            raise DataError("(file)", path.name, f"more than {MAX_RECORDS} records")
        yield pair


def position_id(position: int) -> str:
    """The id of a record with none of its own: `me2-0000` for the first record."""
    return f"me2-{position:04d}"


def identify(records: Iterable[Any]) -> Iterator[tuple[str, Any]]:
    """Listed records (a JSON list, records in hand) with their ids, by `_record_id`."""
    return (
        (_record_id(record, position_id(index)), record) for index, record in enumerate(records)
    )


def _record_id(record: Any, fallback: str) -> str:
    """The record's `id` (else `problem_id`) as text, or `fallback` when it has none usable;
    `convert_record` reports an unusable one."""
    if isinstance(record, dict):
        for key in ("id", "problem_id"):
            value = record.get(key)
            if isinstance(value, bool) or value is None:
                continue
            if isinstance(value, (str, int)) and str(value).strip():
                return str(value).strip()[:MAX_ID_CHARS]
    return fallback


def _as_object(item_id: str, record: Any) -> dict[str, Any]:
    if isinstance(record, _Unreadable):
        raise DataError(item_id, "(record)", record.message)
    if not isinstance(record, dict):
        raise DataError(item_id, "(record)", f"expected an object, got {type(record).__name__}")
    return record


def checked_record(item_id: str, record: Any) -> dict[str, Any]:
    """`record` if it is an object whose own id (if any) is usable and agrees with `item_id`;
    else a `DataError` naming the item and the field."""
    record = _as_object(item_id, record)
    _check_id(item_id, record)
    return record


def convert_record(item_id: str, record: Any, root: Path) -> dict[str, Any]:
    """One release record as a typed row; `root` is the (resolved) release folder."""
    record = _as_object(item_id, record)
    unknown = sorted(str(k)[:80] for k in record if k not in KNOWN_FIELDS)
    if unknown:
        raise DataError(
            item_id, unknown[0], f"unknown field (known: {', '.join(sorted(KNOWN_FIELDS))})"
        )
    for name in REQUIRED_FIELDS:
        required(item_id, record, name)
    _check_id(item_id, record)
    for name in ("question_type", "answer_type"):
        _optional_text(item_id, name, record.get(name), MAX_TITLE_CHARS)

    qa_type = _text(
        item_id, "question_answer_type", record["question_answer_type"], MAX_TITLE_CHARS
    ).lower()
    if qa_type not in QUESTION_ANSWER_TYPES:
        raise DataError(
            item_id,
            "question_answer_type",
            f"unknown value {qa_type[:60]!r} (expected {', '.join(QUESTION_ANSWER_TYPES)})",
        )
    domain, question_format = QUESTION_ANSWER_TYPES[qa_type]
    if question_format == "multiple-choice":
        answer = choice_answer(item_id, "answer_text", record["answer_text"])
    else:
        answer = _text(item_id, "answer_text", record["answer_text"], MAX_TEXT_CHARS, numbers=True)

    options, keypoint_answer = _keypoint_task(item_id, record)
    sources = _option_sources(item_id, record.get("option_sources"), keypoint_answer)
    items = _option_items(item_id, record.get("option_items"), keypoint_answer)
    solution_image = record.get("solution_image")
    return {
        "id": item_id,
        "problem": _text(item_id, "problem_text", record["problem_text"], MAX_TEXT_CHARS),
        "problem_image": image(item_id, "problem_image", record["problem_image"], root),
        "solution": _text(item_id, "solution_text", record["solution_text"], MAX_TEXT_CHARS),
        "solution_image": None
        if solution_image is None
        else image(item_id, "solution_image", solution_image, root),
        "answer": answer,
        "visual_keypoints": keypoints(item_id, record["visual_key_points"]),
        "solution_summary": _text(
            item_id, "summary_solution_text", record["summary_solution_text"], MAX_TEXT_CHARS
        ),
        "domain": domain,
        "question_format": question_format,
        "chapter": _optional_text(
            item_id, "chapter_title", record["chapter_title"], MAX_TITLE_CHARS
        ),
        "section": _optional_text(
            item_id, "section_title", record["section_title"], MAX_TITLE_CHARS
        ),
        "keypoint_options": options,
        "keypoint_answer": keypoint_answer,
        "option_sources": sources,
        "option_items": items,
    }


def _check_id(item_id: str, record: dict[str, Any]) -> None:
    """A record's own `id`/`problem_id` must be text or a whole number, and agree with the id
    it is filed under (an object file's key)."""
    for key in ("id", "problem_id"):
        value = record.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise DataError(
                item_id, key, f"expected text or a whole number, got {type(value).__name__}"
            )
        text = str(value).strip()
        if not text:
            raise DataError(item_id, key, "empty")
        if len(text) > MAX_ID_CHARS:
            raise DataError(item_id, key, f"longer than {MAX_ID_CHARS} characters")
        if (key == "id" or record.get("id") is None) and text != item_id:
            raise DataError(
                item_id, key, f"{text[:80]!r} differs from the key the record is filed under"
            )


def required(item_id: str, record: dict[str, Any], field: str) -> Any:
    """The value of a required field (null included), or a `DataError` when it is absent."""
    if field not in record:
        raise DataError(item_id, field, "missing")
    return record[field]


def required_text(item_id: str, record: dict[str, Any], field: str) -> str:
    """A required long text (`problem_text`, `summary_solution_text`, …), as the build reads it."""
    return _text(item_id, field, required(item_id, record, field), MAX_TEXT_CHARS)


def _text(item_id: str, field: str, value: Any, limit: int, *, numbers: bool = False) -> str:
    """A required, non-empty text, stripped; a number too where `numbers` (a short answer)."""
    if numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if value is None:
        raise DataError(item_id, field, "missing (null)")
    if not isinstance(value, str):
        raise DataError(item_id, field, f"expected text, got {type(value).__name__}")
    if len(value) > limit:
        raise DataError(item_id, field, f"longer than {limit} characters")
    text = value.strip()
    if not text:
        raise DataError(item_id, field, "empty")
    return text


def _optional_text(item_id: str, field: str, value: Any, limit: int) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _text(item_id, field, value, limit)


def option_letter(value: str) -> str | None:
    """The option letter a short answer spells: `B`, `b`, `(B)`, `B.`, `B)` or the circled
    number ② (Korean multiple-choice numbering, ①–⑤ for A–E); None for anything else."""
    text = value.strip()
    if len(text) > 8:
        return None
    if text in CIRCLED_OPTIONS:
        return CIRCLED_OPTIONS[text]
    match = _LETTER.fullmatch(text)
    return (match.group(1) or match.group(2)).upper() if match else None


def choice_answer(item_id: str, field: str, value: Any) -> str:
    """A multiple-choice answer as its option letter."""
    text = _text(item_id, field, value, MAX_TITLE_CHARS)
    letter = option_letter(text)
    if letter is None:
        raise DataError(
            item_id, field, f"{text[:40]!r} is not an option letter A-E or a circled number ①-⑤"
        )
    return letter


def image(item_id: str, field: str, value: Any, root: Path) -> dict[str, Any]:
    """The image a release path names, read from the first image folder holding it.

    The path is relative to the release folder (`root`); a path that is absolute, climbs out
    with `..`, or resolves (through a link) outside the folder is refused.
    """
    if value is None:
        raise DataError(item_id, field, "missing (null)")
    if isinstance(value, dict) and value.get("bytes") is not None:
        return embedded_image(item_id, field, value)
    if isinstance(value, dict) and isinstance(value.get("path"), str):
        value = value["path"]  # an Image column that names its file instead of holding it
    if not isinstance(value, str):
        raise DataError(item_id, field, f"expected an image path, got {type(value).__name__}")
    if len(value) > MAX_PATH_CHARS:
        raise DataError(item_id, field, f"image path longer than {MAX_PATH_CHARS} characters")
    cleaned = value.strip().replace("\\", "/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:]
    parts = [p for p in cleaned.split("/") if p and p != "."]
    if not parts:
        raise DataError(item_id, field, "empty image path")
    if cleaned.startswith("/") or re.match(r"[A-Za-z]:", cleaned) or ".." in parts:
        raise DataError(
            item_id, field, f"image path {value[:120]!r} must stay inside the release folder"
        )
    for folder in IMAGE_DIRS:
        candidate = root.joinpath(folder, *parts) if folder else root.joinpath(*parts)
        if candidate.is_file():
            resolved = candidate.resolve()
            if not resolved.is_relative_to(root):
                raise DataError(
                    item_id, field, f"image path {value[:120]!r} leads outside the release folder"
                )
            return read_image(item_id, field, resolved, MAX_IMAGE_BYTES, inside=root)
    looked = ", ".join(f"{folder}/" for folder in IMAGE_DIRS if folder)
    raise DataError(
        item_id, field, f"image file not found: {value[:120]!r} (looked in {root} and its {looked})"
    )


def embedded_image(item_id: str, field: str, value: dict[str, Any]) -> dict[str, Any]:
    """An image a Hub-layout row holds itself (a `datasets` Image as {bytes, path}), checked
    as an image file is: bounded in size, decodable, within the pixel limit."""
    data = value["bytes"]
    if not isinstance(data, bytes):
        raise DataError(item_id, field, f"image bytes expected, got {type(data).__name__}")
    if len(data) > MAX_IMAGE_BYTES:
        raise DataError(item_id, field, f"image larger than {MAX_IMAGE_BYTES} bytes")
    problem = image_problem(data)
    if problem:
        raise DataError(item_id, field, f"image {problem}")
    name = value.get("path")
    return {"bytes": data, "path": name[:MAX_PATH_CHARS] if isinstance(name, str) else None}


def keypoints(item_id: str, value: Any) -> list[dict[str, str]]:
    """`visual_key_points` as {element, description} entries.

    Two forms are read: geomeval's (`[{"element": …, "description": …}]`) and the struct union
    a Hugging Face export makes of per-row element names (`[{"point D": "the foot …",
    "segment AD": null}]`), where every non-null value is one keypoint named by its key. A
    single object stands for a list of one, as the keypoint-options builder reads it.
    """
    field = "visual_key_points"
    entries = [value] if isinstance(value, dict) else value
    if not isinstance(entries, list):
        raise DataError(item_id, field, f"expected a list of keypoints, got {type(value).__name__}")
    if len(entries) > MAX_KEYPOINTS:
        raise DataError(item_id, field, f"more than {MAX_KEYPOINTS} keypoints")
    found: list[dict[str, str]] = []
    for index, entry in enumerate(entries):
        where = f"{field}[{index}]"
        if not isinstance(entry, dict):
            raise DataError(item_id, where, f"expected an object, got {type(entry).__name__}")
        if len(entry) > MAX_KEYPOINT_ENTRY_KEYS:
            raise DataError(item_id, where, f"more than {MAX_KEYPOINT_ENTRY_KEYS} keys")
        present = {key: text for key, text in entry.items() if text is not None}
        if present and set(present) <= {"element", "description"}:
            pairs = [(present.get("element", ""), present.get("description", ""))]
        else:
            pairs = list(present.items())
        for element, description in pairs:
            if not isinstance(element, str):
                raise DataError(
                    item_id, where, f"the element is {type(element).__name__}, not text"
                )
            if not isinstance(description, str):
                raise DataError(
                    item_id,
                    where,
                    f"the description of {element[:60]!r} is {type(description).__name__}, not text",
                )
            if len(element) > MAX_ELEMENT_CHARS or len(description) > MAX_TEXT_CHARS:
                raise DataError(item_id, where, "keypoint text too long")
            if not element.strip() and not description.strip():
                continue  # an empty struct entry carries no keypoint
            found.append({"element": element.strip(), "description": description.strip()})
            if len(found) > MAX_KEYPOINTS:
                raise DataError(item_id, field, f"more than {MAX_KEYPOINTS} keypoints")
    if not found:
        raise DataError(item_id, field, "no keypoint (at least one is required)")
    return found


def _keypoint_task(item_id: str, record: dict[str, Any]) -> tuple[list[str] | None, str | None]:
    """(`keypoint_options`, `keypoint_answer`): both, or neither when the release has none."""
    options, answer = (
        record.get("visual_identification_option"),
        record.get("visual_identification_answer"),
    )
    if options is None and answer is None:
        return None, None
    if options is None:
        raise DataError(
            item_id,
            "visual_identification_option",
            "missing, but visual_identification_answer is given",
        )
    if answer is None:
        raise DataError(
            item_id,
            "visual_identification_answer",
            "missing, but visual_identification_option is given",
        )
    return keypoint_options(item_id, options), choice_answer(
        item_id, "visual_identification_answer", answer
    )


def keypoint_options(item_id: str, value: Any) -> list[str]:
    """The five keypoint options, A-E, without their markers: from the release's single text
    (as its prompt shows it), a list of five texts, or an object keyed A-E."""
    field = "visual_identification_option"
    if isinstance(value, str):
        if len(value) > MAX_TEXT_CHARS:
            raise DataError(item_id, field, f"longer than {MAX_TEXT_CHARS} characters")
        texts = split_options(item_id, value)
    elif isinstance(value, list):
        if len(value) != len(OPTION_LETTERS):
            raise DataError(
                item_id, field, f"expected {len(OPTION_LETTERS)} options, got {len(value)}"
            )
        texts = [
            _text(item_id, f"{field}[{i}]", entry, MAX_TEXT_CHARS) for i, entry in enumerate(value)
        ]
    elif isinstance(value, dict):
        keys = sorted(str(k).strip().upper() for k in value)
        if keys != list(OPTION_LETTERS):
            raise DataError(
                item_id, field, f"expected the keys A-E, got {', '.join(k[:8] for k in keys[:10])}"
            )
        by_letter = {str(k).strip().upper(): entry for k, entry in value.items()}
        texts = [
            _text(item_id, f"{field}.{letter}", by_letter[letter], MAX_TEXT_CHARS)
            for letter in OPTION_LETTERS
        ]
    else:
        raise DataError(
            item_id, field, f"expected text, a list or an object, got {type(value).__name__}"
        )
    return texts


def split_options(item_id: str, text: str) -> list[str]:
    """Five option texts from one string: markers at line starts (`A.`, `A)`, `(A)`, `A:`,
    `**A.**`, …; lines before A are a heading, lines after a marker continue its option) or,
    failing that, inline `(A) … (B) …`. The markers must be A, B, C, D, E, once each, in order."""
    field = "visual_identification_option"
    lines = text.splitlines()
    if len(lines) > MAX_OPTION_LINES:
        raise DataError(item_id, field, f"more than {MAX_OPTION_LINES} lines")
    starts: list[tuple[str, int, str]] = []  # (letter, line index, text after the marker)
    for index, line in enumerate(lines):
        match = _LINE_MARKER.match(line)
        if match:
            starts.append((match.group(1) or match.group(2), index, line[match.end() :]))
    if [letter for letter, _i, _t in starts] == list(OPTION_LETTERS):
        bounds = [i for _l, i, _t in starts] + [len(lines)]
        texts = [
            "\n".join([rest, *lines[bounds[k] + 1 : bounds[k + 1]]]).strip()
            for k, (_l, _i, rest) in enumerate(starts)
        ]
    else:
        inline = list(_INLINE_MARKER.finditer(text))
        if [m.group(1) for m in inline] != list(OPTION_LETTERS):
            shown = (
                "".join(letter for letter, _i, _t in starts)
                or "".join(m.group(1) for m in inline)
                or "none"
            )
            raise DataError(
                item_id,
                field,
                f"expected five options marked A, B, C, D, E in order (markers found: {shown[:40]})",
            )
        ends = [m.start() for m in inline[1:]] + [len(text)]
        texts = [text[m.end() : end].strip() for m, end in zip(inline, ends, strict=True)]
    for letter, option in zip(OPTION_LETTERS, texts, strict=True):
        if not option:
            raise DataError(item_id, field, f"option {letter} is empty")
    return texts


def _option_sources(item_id: str, value: Any, answer: str | None) -> list[str] | None:
    """Where each option came from; exactly one is `correct`, and it is the answer's."""
    field = "option_sources"
    if value is None:
        return None
    if answer is None:
        raise DataError(item_id, field, "given, but the item has no keypoint options")
    if not isinstance(value, list) or len(value) != len(OPTION_LETTERS):
        raise DataError(item_id, field, f"expected a list of {len(OPTION_LETTERS)} sources")
    for index, entry in enumerate(value):
        if entry not in OPTION_SOURCES:
            shown = entry[:40] if isinstance(entry, str) else type(entry).__name__
            raise DataError(
                item_id,
                f"{field}[{index}]",
                f"unknown source {shown!r} (known: {', '.join(OPTION_SOURCES)})",
            )
    position = OPTION_LETTERS.index(answer)
    if value.count("correct") != 1 or value[position] != "correct":
        raise DataError(
            item_id, field, f"exactly one source must be 'correct', at the answer {answer}"
        )
    return list(value)


def _option_items(item_id: str, value: Any, answer: str | None) -> list[str] | None:
    """The item each option's keypoints were taken from; the answer's is the item itself."""
    field = "option_items"
    if value is None:
        return None
    if answer is None:
        raise DataError(item_id, field, "given, but the item has no keypoint options")
    if not isinstance(value, list) or len(value) != len(OPTION_LETTERS):
        raise DataError(item_id, field, f"expected a list of {len(OPTION_LETTERS)} item ids")
    items = [
        _text(item_id, f"{field}[{i}]", entry, MAX_ID_CHARS, numbers=True)
        for i, entry in enumerate(value)
    ]
    position = OPTION_LETTERS.index(answer)
    if items[position] != item_id:
        raise DataError(
            item_id,
            field,
            f"the answer {answer}'s item is {items[position][:60]!r}, not the item itself",
        )
    return items
