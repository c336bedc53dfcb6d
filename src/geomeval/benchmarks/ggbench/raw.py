"""Read the official GGBench release (a JSON list plus image folders) into typed rows.

The release is `GGBench_dataset.json` beside `Q&A_image/` and `long_image/`; image fields
hold paths relative to that folder, written `/Q&A_image/3_5.png` or `./long_image/3.png`.
Every field is checked; an unknown field, a missing one or a bad value stops the build with
a `DataError` naming the item and the field (or, with `skip_invalid`, leaves the item out).

Conversions, documented in the card:
- `question_type` → `problem_type`; `skill_classification` ("中文 (English),…") →
  `categories`, the official spellings mapped to the eight category names.
- `text_answer` → `steps`: one per "Step N" heading, its explanation and the GeoGebra code
  of its ```geogebra blocks. `reference_script` is every step's code in order, unless the
  answer ends with one block repeating all the others (the complete script), which is
  then used as is.
- `step_images`: the images numbered between the question image and the final image
  (`{id}_2.png` … before `res_image` `{id}_5.png`), when the release holds them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..base import DataError
from ..datasource import RawRelease, collect, iter_json_array, read_image
from .features import CATEGORIES, DIFFICULTIES, PROBLEM_TYPES

RELEASE_FILE = "GGBench_dataset.json"
KNOWN_FIELDS = frozenset(
    {
        "id", "text", "question", "question_image", "text_answer", "res_image", "complete_image",
        "difficulty", "inspection_content", "language", "question_type", "modal",
        "skill_classification",
    }
)
REQUIRED_FIELDS = ("id", "question", "text_answer", "res_image", "complete_image", "difficulty",
                   "question_type", "skill_classification")
NULLS = (None, "", "null", "None", "none")
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_ANSWER_CHARS = 200_000
MAX_STEPS = 64
MAX_STEP_IMAGES = 64

# The official spellings (and the issue's) of the eight categories, lower-cased.
_CATEGORY_ALIASES = {name.lower(): name for name in CATEGORIES} | {
    "application of theorems": "Applications of Geometric Theorems",
    "applications of theorems": "Applications of Geometric Theorems",
    "application of geometric theorems": "Applications of Geometric Theorems",
    "locus construction": "Locus Constructions",
    "basic construction": "Basic Constructions",
}
_CATEGORY_ENGLISH = re.compile(r"\(([^()]{1,80})\)\s*$")
_STEP_HEADING = re.compile(
    r"^[ \t]{0,3}#{1,6}[ \t]{0,4}(?:\*\*)?[ \t]{0,2}step[ \t]{0,3}(\d{1,3})[ \t]{0,3}[:.：]?[ \t]{0,3}([^\n]{0,300})$",
    re.IGNORECASE | re.MULTILINE,
)
_FENCE = re.compile(r"^[ \t]{0,3}```[ \t]{0,3}([A-Za-z]{0,20})[^\n]{0,80}\n(.*?)^[ \t]{0,3}```", re.MULTILINE | re.DOTALL)
_SCRIPT_TAGS = frozenset({"geogebra", "ggb", "geogebrascript"})
_OTHER_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]", re.MULTILINE)
_METHOD = re.compile(r"(?:^|(?<=\s))Method[ \t]{0,3}[:：][ \t]{0,3}")
_NUMBERED_IMAGE = re.compile(r"^(.{1,200})_(\d{1,3})\.(png|jpe?g)$", re.IGNORECASE)


def locate_release(raw: str | Path) -> tuple[Path, tuple[Path, ...]]:
    """Return (the release JSON, the folders its image paths may be relative to).

    The official archive unpacks to `dataset/GGBench_dataset.json` with the image folders
    beside either the JSON or its parent folder, so both are searched, the JSON's first.
    """
    path = Path(raw)
    if path.is_dir():
        found = next((c for c in (path / RELEASE_FILE, path / "dataset" / RELEASE_FILE) if c.is_file()), None)
        if found is None:
            raise FileNotFoundError(unknown_layout(path))
        path = found
    elif not path.is_file():
        raise FileNotFoundError(f"GGBench raw release not found: {path}")
    return path, (path.parent, path.parent.parent)


EXPECTED_LAYOUTS = (
    f"{RELEASE_FILE} beside Q&A_image/ and long_image/ (the folder evaluate.py runs in)",
    f"dataset/{RELEASE_FILE} with the image folders in dataset/ or beside it (a clone of the Hub dataset)",
)


def unknown_layout(path: Path) -> str:
    """Why `path` is not a GGBench release: the layouts read, and what the folder holds."""
    entries = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())[:20]
    archives = [e for e in entries if e.endswith((".tar.gz", ".tgz", ".zip", ".tar"))]
    hint = f"; unpack {archives[0]} first" if archives else ""
    return (f"{path} is not a GGBench release: expected {' or '.join(EXPECTED_LAYOUTS)}; "
            f"found {', '.join(entries) or 'an empty folder'}{hint}")


def read_release(raw: str | Path, *, skip_invalid: bool = False) -> RawRelease:
    json_path, roots = locate_release(raw)
    data = iter_json_array(json_path, expected="a JSON list of problems")  # a problem at a time

    def item_id(index: int, record: Any) -> str:
        has_id = isinstance(record, dict) and record.get("id") not in NULLS
        return str(record["id"]) if has_id else f"#{index}"

    pairs = ((item_id(i, record), record) for i, record in enumerate(data))
    return collect(pairs, lambda item, record: convert_record(item, record, roots), skip_invalid=skip_invalid)


def convert_record(item_id: str, record: Any, roots: tuple[Path, ...]) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise DataError(item_id, "(record)", f"expected an object, got {type(record).__name__}")
    unknown = sorted(str(k) for k in record if k not in KNOWN_FIELDS)
    if unknown:
        raise DataError(item_id, unknown[0], f"unknown field (known: {', '.join(sorted(KNOWN_FIELDS))})")
    for name in REQUIRED_FIELDS:
        if record.get(name) in NULLS:
            raise DataError(item_id, name, "missing")

    def text(name: str) -> str:
        value = record.get(name)
        if value in NULLS:
            return ""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise DataError(item_id, name, f"expected text, got {type(value).__name__}")
        return value

    question = text("question").strip()
    answer = text("text_answer")
    if len(answer) > MAX_ANSWER_CHARS:
        raise DataError(item_id, "text_answer", f"longer than {MAX_ANSWER_CHARS} characters")
    steps, script = parse_answer(item_id, answer)
    final_path = _relative(item_id, "res_image", text("res_image"), roots)
    question_image = text("question_image")
    return {
        "id": item_id,
        "problem": question,
        "problem_image": _image(item_id, "question_image", _relative(item_id, "question_image", question_image, roots), roots)
        if question_image
        else None,
        "difficulty": _difficulty(item_id, text("difficulty")),
        "problem_type": problem_type(item_id, text("question_type")),
        "categories": categories(item_id, record.get("skill_classification")),
        "steps": steps,
        "reference_script": script,
        "inspection": text("inspection_content").strip(),
        "step_images": [_image(item_id, "res_image", p, roots) for p in _step_image_paths(final_path)],
        "final_image": _image(item_id, "res_image", final_path, roots),
        "long_image": _image(
            item_id, "complete_image", _relative(item_id, "complete_image", text("complete_image"), roots), roots
        ),
    }


def _difficulty(item_id: str, value: str) -> str:
    for name in DIFFICULTIES:
        if value.strip().lower() == name.lower():
            return name
    raise DataError(item_id, "difficulty", f"unknown value {value[:40]!r} (expected {', '.join(DIFFICULTIES)})")


def problem_type(item_id: str, value: str) -> str:
    """The official `question_type` ("Straightedge-and-compass construction", …) as one of
    the three problem types."""
    lowered = value.strip().lower()
    if "straightedge" in lowered or "compass" in lowered or "ruler" in lowered:
        return PROBLEM_TYPES[0]
    if "transform" in lowered:
        return PROBLEM_TYPES[1]
    if "analytic" in lowered or "coordinate" in lowered:
        return PROBLEM_TYPES[2]
    raise DataError(item_id, "question_type", f"unknown problem type {value[:60]!r}")


def categories(item_id: str, value: Any) -> list[str]:
    """`skill_classification` as category names: a "中文 (English),…" string or a list."""
    if isinstance(value, str):
        entries = [e for e in re.split(r"[,，;；]", value[:2000]) if e.strip()]
    elif isinstance(value, list) and all(isinstance(e, str) for e in value):
        entries = value[:32]
    else:
        raise DataError(item_id, "skill_classification", f"expected text or a list of text, got {type(value).__name__}")
    names: list[str] = []
    for entry in entries:
        english = _CATEGORY_ENGLISH.search(entry.strip())
        key = (english.group(1) if english else entry).strip().lower()
        name = _CATEGORY_ALIASES.get(key)
        if name is None:
            raise DataError(item_id, "skill_classification", f"unknown category {entry.strip()[:80]!r}")
        if name not in names:
            names.append(name)
    if not names:
        raise DataError(item_id, "skill_classification", "no category given")
    return names


def parse_answer(item_id: str, answer: str) -> tuple[list[dict[str, str]], str]:
    """Steps ({text, code}) and the reference script from an official `text_answer`."""
    headings = list(_STEP_HEADING.finditer(answer))
    if headings:
        bounds = [m.start() for m in headings] + [len(answer)]
        chunks = [(m.group(2), answer[m.end() : bounds[i + 1]]) for i, m in enumerate(headings)]
        preamble = answer[: headings[0].start()]
    else:
        chunks, preamble = [("", answer)], ""
    if len(chunks) > MAX_STEPS:
        raise DataError(item_id, "text_answer", f"more than {MAX_STEPS} steps")
    steps = []
    blocks: list[str] = [code for _text, code in _split_code(preamble)]
    for title, whole in chunks:
        # Another heading inside the last step ("### Complete code") starts an epilogue: its
        # code counts for the reference script, not for the step.
        cut = _heading_outside_code(whole) if headings else None
        body, epilogue = (whole[:cut], whole[cut:]) if cut is not None else (whole, "")
        parts = _split_code(body)
        code = "\n".join(c for _t, c in parts if c)
        blocks += [c for _t, c in parts if c]
        prose = " ".join(t for t, _c in parts if t)
        title = title.strip().strip("*").strip()
        explanation = _METHOD.sub("", prose).strip()
        steps.append({"text": (f"{title}. " if title and explanation else title) + explanation, "code": code})
        blocks += [c for _t, c in _split_code(epilogue) if c]
    if not blocks:
        raise DataError(item_id, "text_answer", "no ```geogebra code block in the reference answer")
    return steps, _reference_script(blocks)


def _heading_outside_code(text: str) -> int | None:
    """Where the first markdown heading outside a code fence starts (a `#` comment inside a
    ```geogebra block is not a heading)."""
    inside = False
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip(" \t")
        if stripped.startswith("```"):
            inside = not inside
        elif not inside and _OTHER_HEADING.match(line):
            return offset
        offset += len(line)
    return None


def _split_code(body: str) -> list[tuple[str, str]]:
    """(prose, code) pieces of a step: the text around each fenced GeoGebra block."""
    pieces: list[tuple[str, str]] = []
    last = 0
    for match in _FENCE.finditer(body):
        tag = match.group(1).lower()
        if tag and tag not in _SCRIPT_TAGS:
            continue  # e.g. a ```python block is prose for our purposes
        pieces.append((_clean(body[last : match.start()]), match.group(2).strip()))
        last = match.end()
    pieces.append((_clean(body[last:]), ""))
    return [(t, c) for t, c in pieces if t or c]


def _clean(prose: str) -> str:
    return re.sub(r"\s+", " ", prose.replace("**", "")).strip()


def _reference_script(blocks: list[str]) -> str:
    """All blocks in order, or the last one alone when it already repeats every other line."""
    if len(blocks) > 1:
        earlier = {line for block in blocks[:-1] for line in _command_lines(block)}
        if earlier <= set(_command_lines(blocks[-1])):
            return blocks[-1]
    return "\n".join(blocks)


def _command_lines(block: str) -> list[str]:
    """A block's commands, without blank and comment-only lines."""
    lines = (line.strip() for line in block.splitlines())
    return [line for line in lines if line and not line.startswith(("#", "//"))]


def _relative(item_id: str, field_name: str, value: str, roots: tuple[Path, ...]) -> Path:
    """A release image path ("/Q&A_image/3_5.png", "./long_image/3.png") inside the release."""
    cleaned = value.strip().replace("\\", "/").lstrip("/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:]
    parts = [p for p in cleaned.split("/") if p]
    if not parts or any(p in (".", "..") for p in parts):
        raise DataError(item_id, field_name, f"image path {value[:120]!r} must stay inside the release folder")
    candidates = [root.joinpath(*parts) for root in roots]
    found = next((path for path in candidates if path.is_file()), None)
    if found is None:
        raise DataError(item_id, field_name, f"image file not found: {candidates[0]}")
    return found


def _step_image_paths(final: Path) -> list[Path]:
    """`{stem}_k` images between the question's (_1) and the final one's number, in order."""
    match = _NUMBERED_IMAGE.match(final.name)
    if not match:
        return []
    stem, last, ext = match.group(1), int(match.group(2)), match.group(3)
    found = []
    for k in range(2, min(last, MAX_STEP_IMAGES + 2)):
        path = final.with_name(f"{stem}_{k}.{ext}")
        if path.is_file():
            found.append(path)
    return found


def _image(item_id: str, field_name: str, path: Path, roots: tuple[Path, ...]) -> dict[str, Any]:
    return read_image(item_id, field_name, path, MAX_IMAGE_BYTES, inside=roots)
