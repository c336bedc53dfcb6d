"""Browse the benchmarks' embedded samples: tasks, filters, items with their figures.

Nothing here names a benchmark. Benchmarks come from `REGISTRY`, filters from the breakdown
keys each benchmark puts in `new_record(item, task).meta`, and what an item shows from the
shapes of its `fields` (image dicts, strings, lists of steps), so a benchmark added to the
registry appears in the Space as it is, with no change here or in the app.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from PIL import Image

from ..benchmarks import REGISTRY
from ..benchmarks.base import Benchmark, Item
from ..keypoints import parse_caption, to_text
from . import latex
from .limits import MAX_FILTERS, DemoInputError, no_paths

FILTER_SEPARATOR = ": "
MAX_FILTER_VALUES = 40  # a key with more distinct values (ids, free text) is no filter
MAX_DISPLAY_SIDE = 1200  # figures are shrunk to this before they are sent to a browser
TITLE_CHARS = 70
# Field names whose text is code (shown as a code block) or a caption (parsed into keypoints).
CODE_HINTS = ("script", "code")
CAPTION_HINTS = ("caption",)
KEYPOINT_HINTS = ("keypoint", "key_point")
TITLE_HINTS = ("problem", "question", "caption", "text", "prompt")
SOLUTION_HINTS = ("solution", "answer", "explanation", "rationale")
SHORT_TEXT = 40  # one-line strings up to this long are labels (difficulty, type): table rows


@dataclass(frozen=True)
class BenchmarkInfo:
    name: str
    title: str
    tasks: tuple[str, ...]
    data_status: str


@dataclass
class TaskData:
    """One task's embedded sample, loaded once; `error` says why there is none."""

    items: list[Item]
    meta: list[dict[str, Any]]
    error: str | None = None


@dataclass
class ItemView:
    """What the Explore tab shows for one item."""

    id: str
    markdown: str
    images: list[tuple[Image.Image, str]] = field(default_factory=list)
    meta_rows: list[list[str]] = field(default_factory=list)
    keypoint_rows: list[list[str]] = field(default_factory=list)


def benchmarks() -> list[BenchmarkInfo]:
    return [
        BenchmarkInfo(name, bench.title, tuple(bench.tasks), _status(bench)) for name, bench in REGISTRY.items()
    ]


def _status(bench: Benchmark) -> str:
    try:
        return bench.data_status()
    except Exception as exc:  # a benchmark half-written must not take the Space down
        return f"unavailable ({type(exc).__name__}: {no_paths(str(exc))})"


def benchmark_choices() -> list[tuple[str, str]]:
    """(label, name) pairs for a dropdown."""
    return [(f"{info.title} ({info.name})", info.name) for info in benchmarks()]


def _bench(name: str | None) -> Benchmark:
    if not name or name not in REGISTRY:
        raise DemoInputError(f"unknown benchmark {name!r}; known: {', '.join(REGISTRY)}")
    return REGISTRY[name]


def task_choices(benchmark: str | None) -> list[str]:
    return list(_bench(benchmark).tasks)


def _task(bench: Benchmark, task: str | None) -> str:
    if not task:
        return bench.default_task
    if task not in bench.tasks:
        raise DemoInputError(f"{bench.name} has no task {task!r}; its tasks: {', '.join(bench.tasks)}")
    return task


@lru_cache(maxsize=64)
def load_task(benchmark: str, task: str | None = None) -> TaskData:
    """The embedded sample of one task, with each item's breakdown keys. A benchmark whose
    sample cannot be loaded (one still being written) gives an empty task with the reason."""
    bench = _bench(benchmark)
    task = _task(bench, task)
    try:
        items = list(bench.load_items(None, task, None))  # a small sample, held for the Space
        meta = [dict(bench.new_record(item, task).meta) for item in items]
    except Exception as exc:
        return TaskData([], [], f"{bench.title} has no embedded sample to show here: {type(exc).__name__}: {no_paths(str(exc))}")
    return TaskData(items, meta)


def task_summary(benchmark: str, task: str | None = None) -> str:
    """A line of Markdown above the item list: the benchmark, its data, its item count."""
    bench = _bench(benchmark)
    data = load_task(benchmark, task)
    head = f"**{bench.title}** · task `{_task(bench, task)}` · {_status(bench)}"
    if data.error:
        return f"{head}\n\n⚠ {data.error}"
    return f"{head} · {len(data.items)} items in the embedded sample"


def _values(value: Any) -> list[str]:
    """A breakdown value as filter values: lists give one value per element."""
    if value is None:
        return []
    if isinstance(value, list | tuple | set):
        return [v for element in value for v in _values(element)]
    if isinstance(value, dict):
        return []
    return [str(value)]


def filter_options(benchmark: str, task: str | None = None) -> list[str]:
    """Filters as "key: value" strings, from the breakdown keys of the task's records.

    A key with a single value filters nothing, and one with very many (an id, free text)
    is not a breakdown, so both are left out.
    """
    data = load_task(benchmark, task)
    by_key: dict[str, list[str]] = {}
    for meta in data.meta:
        for key, value in meta.items():
            seen = by_key.setdefault(key, [])
            for v in _values(value):
                if v not in seen:
                    seen.append(v)
    options = []
    for key, values in by_key.items():
        if 2 <= len(values) <= MAX_FILTER_VALUES:
            options += [f"{key}{FILTER_SEPARATOR}{v}" for v in sorted(values, key=_natural)]
    return options


def _natural(value: str) -> tuple[int, float, str]:
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)


def _parse_filters(filters: Iterable[str] | None, allowed: list[str]) -> dict[str, set[str]]:
    chosen = list(filters or [])
    if len(chosen) > MAX_FILTERS:
        raise DemoInputError(f"{len(chosen)} filters chosen; the limit is {MAX_FILTERS}.")
    wanted: dict[str, set[str]] = {}
    for entry in chosen:
        if entry not in allowed:
            raise DemoInputError(f"unknown filter {entry!r} for this task")
        key, _, value = entry.partition(FILTER_SEPARATOR)
        wanted.setdefault(key, set()).add(value)
    return wanted


def filter_items(benchmark: str, task: str | None = None, filters: Iterable[str] | None = None) -> list[tuple[str, str]]:
    """(label, id) of the items that pass every chosen key (values of one key are
    alternatives, different keys must all hold)."""
    data = load_task(benchmark, task)
    wanted = _parse_filters(filters, filter_options(benchmark, task))
    chosen = []
    for item, meta in zip(data.items, data.meta, strict=True):
        if all(set(_values(meta.get(key))) & values for key, values in wanted.items()):
            chosen.append((_label(item), item.id))
    return chosen


def _label(item: Item) -> str:
    text = latex.plain(_title_text(item))
    if len(text) > TITLE_CHARS:
        text = text[: TITLE_CHARS - 1] + "…"
    return f"{item.id} · {text}" if text else item.id


def _title_field(item: Item) -> str | None:
    """The field that poses the item: the first text field named like a problem (problem,
    question, caption, text, prompt; hints in that order), whatever its length ("Find A C."
    is a whole GeoEval problem), else the first long text field. Never a solution."""
    texts = [(name, value) for name, value in item.fields.items()
             if isinstance(value, str) and value.strip() and not _is_code(name)]
    for hint in TITLE_HINTS:
        for name, _value in texts:
            if _named(name, (hint,)) and not _named(name, SOLUTION_HINTS):
                return name
    for name, value in texts:
        if len(value.strip()) > SHORT_TEXT and not _named(name, SOLUTION_HINTS):
            return name
    return None


def _title_text(item: Item) -> str:
    name = _title_field(item)
    return " ".join(str(item.fields[name]).split()) if name else ""


def _named(name: str, hints: tuple[str, ...]) -> bool:
    """Whether a field name has one of `hints` as a word ("reference_script" is code,
    "diagram_description" is not)."""
    lowered = name.lower().replace("-", "_")
    words = lowered.split("_")
    return any(hint in words or f"{hint}s" in words or ("_" in hint and hint in lowered) for hint in hints)


def _is_text_field(name: str) -> bool:
    """Whether a field holds a statement or solution by its name's last word ("problem_text",
    "answer", "solution"; not "problem_type"): shown in the main pane however short."""
    last = name.lower().replace("-", "_").split("_")[-1]
    return any(last in (hint, f"{hint}s") for hint in TITLE_HINTS + SOLUTION_HINTS)


def _is_code(name: str) -> bool:
    return _named(name, CODE_HINTS)


_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF8", b"RIFF", b"BM")


def _image_bytes(value: Any) -> bytes | None:
    """The encoded image in a field (raw bytes or a datasets `{"bytes", "path"}` dict)."""
    if isinstance(value, dict):
        value = value.get("bytes")
    if isinstance(value, bytes | bytearray) and bytes(value[:8]).startswith(_IMAGE_MAGIC):
        return bytes(value)
    return None


def _is_image(value: Any) -> bool:
    return _image_bytes(value) is not None or isinstance(value, Image.Image)


def display_image(value: Any) -> Image.Image:
    """A figure (bytes, a datasets image dict or a PIL image) decoded and shrunk for display."""
    if isinstance(value, Image.Image):
        picture = value.copy()
    else:
        data = _image_bytes(value)
        if data is None:
            raise ValueError("not an image")
        with Image.open(io.BytesIO(data)) as opened:
            picture = opened.copy()
    picture.thumbnail((MAX_DISPLAY_SIDE, MAX_DISPLAY_SIDE))
    return picture


def _find_item(benchmark: str, task: str | None, item_id: str | None) -> tuple[Item, dict[str, Any]]:
    data = load_task(benchmark, task)
    if data.error:
        raise DemoInputError(data.error)
    for item, meta in zip(data.items, data.meta, strict=True):
        if item.id == item_id:
            return item, meta
    raise DemoInputError(f"no item {item_id!r} in {benchmark}'s embedded sample")


def item_view(benchmark: str, task: str | None, item_id: str | None) -> ItemView:
    """Every field of the item, laid out by its shape: images to the gallery, code as code,
    lists of steps numbered (with their images), captions also as keypoints, scalars and the
    breakdown keys as a table."""
    bench = _bench(benchmark)
    task = _task(bench, task)
    item, record_meta = _find_item(benchmark, task, item_id)
    view = ItemView(id=item.id, markdown="")
    parts: list[str] = [f"### {item.id}"]
    title = _title_field(item)
    if title:
        parts.append(_text_block(title, str(item.fields[title])))
        if _named(title, CAPTION_HINTS):
            view.keypoint_rows += _caption_keypoints(title, str(item.fields[title]))
    scalars: list[list[str]] = []
    for name, value in item.fields.items():
        if name in ("id", title) or value is None or value == [] or value == "":
            continue
        if _is_image(value):
            view.images.append((display_image(value), name))
        elif isinstance(value, list) and value and all(_is_image(v) for v in value):
            view.images += [(display_image(v), f"{name} {i}") for i, v in enumerate(value, 1)]
        elif (isinstance(value, str) and len(value) <= SHORT_TEXT and "\n" not in value and not _is_code(name)
              and not _is_text_field(name)):
            scalars.append([name, value])
        elif isinstance(value, str):
            parts.append(_text_block(name, value))
            if _named(name, CAPTION_HINTS):
                view.keypoint_rows += _caption_keypoints(name, value)
        elif isinstance(value, bool | int | float):
            scalars.append([name, str(value)])
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            parts.append(_steps_block(name, value, view))
        elif isinstance(value, list):
            if _named(name, KEYPOINT_HINTS):
                view.keypoint_rows += [[name, "", str(v)] for v in value]
            if name == "choices" or len(value) > 3:
                listed = "\n".join(f"{i}. {latex.markdown(str(v))}" for i, v in enumerate(value, 1))
                parts.append(f"**{name}**\n\n{listed}")
            else:
                scalars.append([name, ", ".join(str(v) for v in value)])
        else:
            parts.append(f"**{name}**\n\n```json\n{json.dumps(value, ensure_ascii=False, indent=1, default=str)[:4000]}\n```")
    view.meta_rows = [[f"breakdown: {k}", ", ".join(_values(v))] for k, v in record_meta.items()] + scalars
    view.markdown = "\n\n".join(parts)
    return view


def _text_block(name: str, text: str) -> str:
    if _is_code(name):
        return f"**{name}**\n\n```\n{text.strip()}\n```"
    return f"**{name}**\n\n{latex.markdown(text.strip())}"


def _steps_block(name: str, steps: list[dict[str, Any]], view: ItemView) -> str:
    lines = [f"**{name}**", ""]
    for number, step in enumerate(steps, 1):
        texts: list[str] = []
        codes: list[str] = []
        for key, value in step.items():
            if _is_image(value):
                view.images.append((display_image(value), f"{name} {number} {key}"))
            elif isinstance(value, str) and value.strip():
                (codes if _is_code(key) else texts).append(value.strip())
        lines.append(f"{number}. " + latex.markdown(" ".join(texts)))
        lines += [f"\n   ```\n{_indent(code)}\n   ```" for code in codes]
    return "\n".join(lines)


def _indent(text: str) -> str:
    return "\n".join("   " + line for line in text.splitlines())


def _caption_keypoints(name: str, caption: str) -> list[list[str]]:
    """The keypoints the offline engine reads in a caption: what CapGeo scores against."""
    keypoints = parse_caption(caption)
    return [[name, kp.dimension, to_text(kp)] for kp in keypoints]


# --------------------------------------------------------------------------- prompts and links

MAX_PROMPT_MESSAGES = 20


def _fence(text: str) -> str:
    """`text` verbatim in a fenced block longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def messages_markdown(messages: list[dict[str, Any]]) -> str:
    """Chat messages as the model receives them: each role, its text verbatim (no Markdown or
    LaTeX rendering, so what is shown is what is sent), and a line per image."""
    parts: list[str] = []
    images = 0
    for message in messages[:MAX_PROMPT_MESSAGES]:
        parts.append(f"**{message.get('role', '?')}**")
        content = message.get("content")
        pieces: list[dict[str, Any]] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        )
        for piece in pieces:
            if piece.get("type") == "text":
                parts.append(_fence(str(piece.get("text", ""))))
            elif piece.get("type") == "image_url":
                images += 1
                url = str((piece.get("image_url") or {}).get("url", ""))
                kind = url[5 : url.find(";")] if url.startswith("data:") and ";" in url[:40] else "image"
                parts.append(f"[image {images} ({kind}, sent inline, {len(url):,} characters)]")
    if len(messages) > MAX_PROMPT_MESSAGES:
        parts.append(f"_… {len(messages) - MAX_PROMPT_MESSAGES} more message(s) not shown_")
    return "\n\n".join(parts)


def prompt_markdown(benchmark: str, task: str | None, item_id: str | None) -> str:
    """The exact prompt a model is sent for this item: the benchmark's own `messages(item, task)`."""
    bench = _bench(benchmark)
    task = _task(bench, task)
    item, _meta = _find_item(benchmark, task, item_id)
    try:
        messages = bench.messages(item, task)
    except Exception as exc:  # a task whose prompt needs a run option (a captioner) says so
        return f"_The prompt for this task cannot be built without a run's options: {type(exc).__name__}: {no_paths(str(exc))}_"
    head = f"The exact messages `geomeval run` sends for item `{item.id}` (task `{task}`, default prompts):"
    return f"{head}\n\n{messages_markdown(messages)}"


def neighbour(benchmark: str, task: str | None, filters: Iterable[str] | None, item_id: str | None, step: int) -> str | None:
    """The item `step` places after (or before) `item_id` among those the filters keep,
    wrapping at the ends; the first item when `item_id` is not among them."""
    ids = [value for _label, value in filter_items(benchmark, task, filters)]
    if not ids:
        return None
    if item_id not in ids:
        return ids[0]
    return ids[(ids.index(item_id) + step) % len(ids)]


def item_link(benchmark: str, task: str | None, item_id: str | None) -> str:
    """The query string that opens the Space on this item (Explore tab)."""
    query = {"tab": "explore", "benchmark": benchmark, "task": task or "", "item": item_id or ""}
    return "?" + urlencode({k: v for k, v in query.items() if v})


def link_target(params: dict[str, str]) -> tuple[str, str, str | None] | None:
    """(benchmark, task, item) named by a deep link's query parameters, checked against the
    registry and the sample; None when the link names no benchmark. A bad link is refused."""
    benchmark = params.get("benchmark")
    if not benchmark:
        return None
    bench = _bench(benchmark)
    task = _task(bench, params.get("task") or None)
    item_id = params.get("item") or None
    if item_id is not None:
        _find_item(benchmark, task, item_id)
    return benchmark, task, item_id


def open_link(params: dict[str, str]) -> tuple[tuple[str, str, str | None] | None, str | None]:
    """`link_target` for a page being opened: a link naming an unknown benchmark, task or item
    is not an error that breaks the page but a mistake to point out. Returns the nearest view
    that exists (the benchmark's first task, the task's first item; None: the default view)
    and one line saying what the link named that is not there, or None when all of it is."""
    benchmark = params.get("benchmark")
    if not benchmark:
        return None, None
    try:
        bench = _bench(benchmark)
    except DemoInputError:
        return None, f"This link names no benchmark {benchmark[:60]!r}; showing the first benchmark instead."
    task = params.get("task") or None
    try:
        task = _task(bench, task)
    except DemoInputError:
        first = _task(bench, None)
        return (benchmark, first, None), (f"This link names no task {str(task)[:60]!r} of {benchmark}; "
                                          f"showing {first} instead.")
    item_id = params.get("item") or None
    if item_id is not None:
        try:
            _find_item(benchmark, task, item_id)
        except DemoInputError:
            return (benchmark, task, None), (f"This link names no item {item_id[:60]!r} in {benchmark} {task}; "
                                             "showing its first item instead.")
    return (benchmark, task, item_id), None
