"""Read a CapGeo-Bench release: a JSON list (or JSONL) of captions and labels beside an image
folder, into typed rows. A bad record stops the build with a `DataError` naming the item and
the field, or (with `skip_invalid`) is left out and counted.

Record fields: `id`, `image` (a path relative to the JSON file), `caption_en` (or
`caption`), `caption_zh` (optional), `class` (or `geometry_class`: plane, analytic, solid),
`difficulty` (1–4) and `source` (optional). Any other field is an error, so a typo is not
silently dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..base import DataError
from ..datasource import RawRelease, collect, iter_json_array, read_image
from .features import CLASSES, DIFFICULTIES

ALIASES = {"caption": "caption_en", "geometry_class": "class"}
KNOWN_FIELDS = frozenset({"id", "image", "caption_en", "caption_zh", "class", "difficulty", "source"})
NULLS = (None, "", "null", "None", "none")
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_CAPTION_CHARS = 20_000
RELEASE_NAMES = ("captions.json", "captions.jsonl")


def locate_release(raw: str | Path) -> Path:
    path = Path(raw)
    if path.is_file():
        return path
    if not path.is_dir():
        raise FileNotFoundError(f"CapGeo-Bench release not found: {path}")
    found = [path / name for name in RELEASE_NAMES if (path / name).is_file()]
    if len(found) != 1:
        listed = ", ".join(p.name for p in sorted(path.glob("*.json*"))) or "none"
        raise FileNotFoundError(
            f"{path} should hold captions.json or captions.jsonl (JSON files there: {listed}); "
            "pass the captions file itself"
        )
    return found[0]


def _records(path: Path) -> Iterator[Any]:
    """The captions file's records, one at a time (a line, or a list element, at a time),
    once the whole file is checked: a torn line stops the build before any record is converted,
    as when the file was read whole."""
    if path.suffix == ".jsonl":
        for _ in _jsonl_records(path):
            pass
        return _jsonl_records(path)
    return iter_json_array(path, expected="a JSON list of captioned figures")


def _jsonl_records(path: Path) -> Iterator[Any]:
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    yield json.loads(line)
                except (json.JSONDecodeError, RecursionError) as exc:
                    raise DataError(f"line {number}", "(record)", f"{path.name}: not valid JSON: {str(exc)[:200]}") from None
    except UnicodeDecodeError:
        raise DataError("(file)", path.name, "not UTF-8 text") from None


def read_release(raw: str | Path, *, skip_invalid: bool = False) -> RawRelease:
    path = locate_release(raw)
    records = _records(path)

    def item_id(index: int, record: Any) -> str:
        return str(record["id"]) if isinstance(record, dict) and record.get("id") not in NULLS else f"#{index}"

    pairs = ((item_id(i, r), r) for i, r in enumerate(records))
    return collect(pairs, lambda item, record: convert_record(item, record, path.parent), skip_invalid=skip_invalid)


def convert_record(item_id: str, record: Any, root: Path) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise DataError(item_id, "(record)", f"expected an object, got {type(record).__name__}")
    fields = {ALIASES.get(k, k): v for k, v in record.items()}
    unknown = sorted(str(k) for k in fields if k not in KNOWN_FIELDS)
    if unknown:
        raise DataError(item_id, unknown[0], f"unknown field (known: {', '.join(sorted(KNOWN_FIELDS))})")

    def text(name: str, *, required: bool) -> str | None:
        value = fields.get(name)
        if value in NULLS:
            if required:
                raise DataError(item_id, name, "missing")
            return None
        if not isinstance(value, str):
            raise DataError(item_id, name, f"expected text, got {type(value).__name__}")
        if len(value) > MAX_CAPTION_CHARS:
            raise DataError(item_id, name, f"longer than {MAX_CAPTION_CHARS} characters")
        return value.strip()

    kind = (text("class", required=True) or "").lower()
    if kind not in CLASSES:
        raise DataError(item_id, "class", f"unknown value {kind[:40]!r} (expected {', '.join(CLASSES)})")
    difficulty = fields.get("difficulty")
    if isinstance(difficulty, str) and difficulty.strip().isdigit():
        difficulty = int(difficulty)
    if isinstance(difficulty, bool) or difficulty not in DIFFICULTIES:
        raise DataError(item_id, "difficulty", f"expected 1, 2, 3 or 4, got {difficulty!r}")
    return {
        "id": item_id,
        "image": _image(item_id, text("image", required=True) or "", root),
        "caption_en": text("caption_en", required=True),
        "caption_zh": text("caption_zh", required=False),
        "geometry_class": kind,
        "difficulty": difficulty,
        "source": text("source", required=False) or "",
    }


def _image(item_id: str, name: str, root: Path) -> dict[str, Any]:
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts or name.startswith("/"):
        raise DataError(item_id, "image", f"image path {name[:120]!r} must be relative and stay inside the release")
    return read_image(item_id, "image", root.joinpath(*parts), MAX_IMAGE_BYTES, inside=root)
