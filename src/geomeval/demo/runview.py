"""The run viewer: one run's items as its samples.jsonl holds them, judged and explained.

A researcher checks a score by reading what produced it: for each item, the prompt the
model was sent, its response, the answer extracted from it, every metric with the judge's
explanation (or why it is unscored), the judge's own marks, and the figures (the problem's,
the model's drawn steps). Items filter to the wrong or the unscored ones, and each has a
link that opens the Space on it.

The run is found as in `boards` (a folder inside the runs folder, never a visitor's path);
its samples.jsonl is read within MAX_SAMPLES_BYTES and MAX_SAMPLE_LINES. The prompt is not
stored in a run, so it is rebuilt with the benchmark's own `messages(item, task)` when the
run used the embedded sample (run.json "data"), and otherwise said to be unavailable.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from PIL import Image

from ..benchmarks import REGISTRY
from . import boards, explore, latex
from .limits import MAX_SAMPLE_LINES, MAX_SAMPLES_BYTES, DemoInputError, no_paths

SAMPLES = "samples.jsonl"
RUN_JSON = "run.json"
SHOW = ("all", "wrong", "unscored")
MAX_IMAGES = 24  # figures shown for one item
MAX_TEXT = 20_000  # characters of a response shown


def _run_folder(root: Path, name: str) -> Path:
    return boards.resolve_run(root, name).parent


def read_samples(root: Path, name: str) -> list[dict[str, Any]]:
    """The run's records (samples.jsonl), bounded; a line that is not JSON is skipped."""
    folder = _run_folder(root, name)
    path = folder / SAMPLES
    if not path.is_file() or not boards._inside(path, root):
        raise DemoInputError(f"run {name!r} has no {SAMPLES} (its items were not kept)")
    size = path.stat().st_size
    if size > MAX_SAMPLES_BYTES:
        raise DemoInputError(f"{name}/{SAMPLES} is {size / 2**20:.1f} MiB; the viewer reads at most "
                             f"{MAX_SAMPLES_BYTES / 2**20:.0f} MiB")
    records: list[dict[str, Any]] = []
    with path.open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines):
            if number >= MAX_SAMPLE_LINES:
                break
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and "id" in record:
                records.append(record)
    return records


def _headline(root: Path, name: str) -> str | None:
    return boards.load_results(root, name).get("headline")


def _parts(headline: str, scores: dict[str, Any]) -> list[str]:
    """The per-item scores a headline is made of when it is not one itself: CapGeo-Bench's Avg
    (and "Avg (judge)") is the mean of the three dimension recalls (`avg_stats`)."""
    from ..benchmarks.capgeo_bench.scoring import AVG, DIMENSION_NAMES

    if headline.startswith(AVG):
        suffix = headline[len(AVG):]
        return [name for name in (f"{label} recall{suffix}" for label in DIMENSION_NAMES.values()) if name in scores]
    return []


def _full_marks(metric: str) -> float:
    """The best value of an item's score: 1 for shares, 5 for ME2's Likert ratings."""
    from ..benchmarks.me2.scoring import LIKERT

    return 5.0 if metric in LIKERT else 1.0


def status(record: dict[str, Any], headline: str | None) -> str:
    """"unscored" (an infrastructure failure or a missing judge), "wrong" (scored below full
    marks), "right", or "n/a" by the run's headline metric (or, for a headline derived from
    several per-item scores, by those: any unscored is unscored, any below full marks wrong)."""
    scores = record.get("scores") or {}
    if not headline:
        return "n/a"
    names = [headline] if headline in scores else _parts(headline, scores)
    states = []
    for name in names:
        score = scores.get(name)
        if not isinstance(score, dict) or score.get("not_applicable"):
            continue
        value = score.get("value")
        if not isinstance(value, int | float):
            states.append("unscored")
        else:
            states.append("right" if value >= _full_marks(name) else "wrong")
    for state in ("unscored", "wrong", "right"):
        if state in states:
            return state
    return "n/a"


# Marks drawn by the font (DejaVu Sans has them), never emoji: a Space without an emoji font
# shows them; the word is always beside the mark.
MARKS = {"right": "✓", "wrong": "✗", "unscored": "⚠", "n/a": "·"}


def run_items(root: Path, name: str, show: str = "all") -> list[tuple[str, str]]:
    """(label, id) of the run's items, all or only the wrong or the unscored ones."""
    if show not in SHOW:
        raise DemoInputError(f"show one of {', '.join(SHOW)}")
    headline = _headline(root, name)
    out = []
    for record in read_samples(root, name):
        state = status(record, headline)
        if show == "all" or state == show:
            out.append((f"{MARKS[state]} {record['id']}", str(record["id"])))
    return out


@dataclass
class RunItemView:
    markdown: str
    prompt: str
    score_rows: list[list[Any]]
    images: list[tuple[Image.Image, str]] = field(default_factory=list)
    link: str = ""


def _fenced(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1, default=str)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + f"\n… ({len(text) - MAX_TEXT:,} more characters)"
    return explore._fence(text)


def _run_info(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _prompt(record: dict[str, Any], info: dict[str, Any]) -> str:
    benchmark, task = record.get("benchmark"), record.get("task")
    if benchmark not in REGISTRY:
        return f"_The prompt is not stored in a run, and {benchmark!r} is not a registered benchmark._"
    if info.get("data") not in (None, "embedded-sample"):
        return ("_The prompt is not stored in a run; this run read its data from a folder the Space does not "
                "hold, so it cannot be rebuilt here._")
    if info.get("prompts"):
        return "_This run used its own prompt set (run.json \"prompts\"); the default prompts are not what it sent._"
    try:
        return explore.prompt_markdown(str(benchmark), str(task), str(record["id"]))
    except DemoInputError as exc:
        return f"_The prompt cannot be rebuilt: {no_paths(str(exc))}_"


def _rebuildable(record: dict[str, Any], info: dict[str, Any]) -> str | None:
    """None when the item can be read from the embedded sample the run used; else why not."""
    if record.get("benchmark") not in REGISTRY:
        return f"{str(record.get('benchmark'))[:40]!r} is not a registered benchmark"
    if info.get("data") not in (None, "embedded-sample"):
        return "this run read its data from a folder the Space does not hold"
    return None


def _item_images(record: dict[str, Any], info: dict[str, Any]) -> tuple[list[tuple[Image.Image, str]], str]:
    """The item's figures as the model was shown them, read from the embedded sample the run
    used (a run stores scores, not figures); a note when they cannot be."""
    why = _rebuildable(record, info)
    if why is None:
        try:
            view = explore.item_view(str(record["benchmark"]), str(record.get("task") or ""), str(record["id"]))
        except DemoInputError as exc:
            why = no_paths(str(exc))
        else:
            target, meta = record.get("target") or {}, record.get("meta") or {}
            hidden = target.get("mode") == "without_image" or meta.get("diagram_shown") is False
            note = " (not shown to the model in this run)" if hidden else ""
            return [(image, f"item: {caption}{note}") for image, caption in view.images], ""
    return [], f"_The item's figures are not stored in a run, and {why}: they cannot be shown here._"


# The item's inputs as the run recorded them (its target), in the order a reader wants them.
INPUTS = (("problem", "problem"), ("question", "problem"), ("choices", "options"), ("options", "options"),
          ("caption", "caption"))


def _inputs(record: dict[str, Any]) -> list[str]:
    """Problem, options and caption from the record's target; a CapGeo caption is the one the
    reasoner was given (caption modes), a CapGeo-Bench caption the reference one."""
    target = record.get("target") or {}
    parts = []
    for key, label in INPUTS:
        value = target.get(key)
        if value in (None, "", []):
            continue
        if label == "options" and isinstance(value, list):
            letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            listed = "\n".join(f"{letters[i] if i < 26 else i + 1}. {latex.markdown(str(v))}" for i, v in enumerate(value))
            parts.append(f"**{label}**\n\n{listed}")
        elif label == "caption":
            whose = ("the reference caption" if record.get("benchmark") == "capgeo_bench"
                     else f"the caption the reasoner was given ({target.get('mode') or 'caption'} mode)")
            parts.append(f"**caption** ({whose})\n\n{latex.markdown(str(value).strip())}")
        elif isinstance(value, str):
            parts.append(f"**{label}**\n\n{latex.markdown(value.strip())}")
    if not target.get("caption") and target.get("caption_error"):
        parts.append(f"**caption** (none: {latex.plain(str(target['caption_error']))[:300]})")
    return parts


def _images(record: dict[str, Any], folder: Path, root: Path, rebuilt: bool = False) -> list[tuple[Image.Image, str]]:
    """The problem's figures the record carries (unless the item's own were `rebuilt`) and the
    model's drawn images (paths inside the run folder only)."""
    found: list[tuple[Image.Image, str]] = []
    for key, value in (record.get("target") or {}).items():
        if rebuilt:
            break
        if isinstance(value, str) and len(value) > 100 and value.startswith("iVBOR"):
            try:
                found.append((explore.display_image(base64.b64decode(value, validate=False)), f"target: {key}"))
            except (ValueError, OSError):
                continue
    drawn = record.get("images") or {}
    paths: list[tuple[str, Any]] = []
    if isinstance(drawn, dict):
        for role, value in drawn.items():
            values = value if isinstance(value, list) else [value]
            paths += [(f"model {role} {i}" if len(values) > 1 else f"model {role}", v) for i, v in enumerate(values, 1)]
    for caption, value in paths[:MAX_IMAGES]:
        if not isinstance(value, str):
            continue
        path = (folder / value) if not Path(value).is_absolute() else Path(value)
        if not boards._inside(path, root) or not path.is_file():
            continue
        try:
            found.append((explore.display_image(path.read_bytes()), caption))
        except (ValueError, OSError):
            continue
    return found[:MAX_IMAGES]


def score_rows(record: dict[str, Any]) -> list[list[Any]]:
    """metric, value, judge, and the explanation (or why the item is unscored)."""
    rows = []
    for metric, score in (record.get("scores") or {}).items():
        if not isinstance(score, dict):
            continue
        value = score.get("value")
        shown = "n/a" if score.get("not_applicable") else ("unscored" if value is None else round(float(value), 4))
        why = score.get("unscored") or score.get("explanation") or ""
        rows.append([metric, shown, score.get("judge") or "", latex.plain(str(why))[:2000]])
    return rows


def run_item_view(root: Path, name: str, item_id: str | None) -> RunItemView:
    """What the viewer shows for one item of one run."""
    if not item_id:
        raise DemoInputError("choose an item")
    folder = _run_folder(root, name)
    record = next((r for r in read_samples(root, name) if str(r["id"]) == item_id), None)
    if record is None:
        raise DemoInputError(f"no item {item_id!r} in run {name!r}")
    headline = _headline(root, name)
    state = status(record, headline)
    parts = [f"### {record['id']} · {MARKS[state]} {state} (headline {headline or 'n/a'})"]
    parts += _inputs(record)
    info_json = _run_info(folder)
    figures, missing = _item_images(record, info_json)
    if missing:
        parts.append(missing)
    gold = {k: v for k, v in (record.get("target") or {}).items()
            if k in ("answer", "keypoint_answer", "unit") and v not in (None, "", [])}
    if gold:
        parts.append("**gold**\n\n" + " · ".join(f"{k}: {latex.markdown(str(v))}" for k, v in gold.items()))
    if record.get("generation_error"):
        parts.append(f"**generation error** (infrastructure: the item is unscored)\n\n{_fenced(record['generation_error'])}")
    parts.append("**response**\n\n" + (_fenced(record["response"]) if record.get("response") else "_(empty)_"))
    info = record.get("generation_info") or {}
    if info.get("finish_reason") == "length":
        parts.append("**Note:** the reply was cut at the token limit (scored as given)")
    if record.get("extracted"):
        parts.append(f"**extracted**\n\n{_fenced(record['extracted'])}")
    if record.get("judgment"):
        parts.append(f"**judge's marks and explanation**\n\n{_fenced(record['judgment'])}")
    return RunItemView(
        markdown="\n\n".join(parts),
        prompt=_prompt(record, info_json),
        score_rows=score_rows(record),
        images=(figures + _images(record, folder, root, rebuilt=bool(figures)))[:MAX_IMAGES],
        link=run_link(name, item_id),
    )


def run_link(name: str, item_id: str | None) -> str:
    query = {"tab": "runs", "run": name, "item": item_id or ""}
    return "?" + urlencode({k: v for k, v in query.items() if v})


def run_choices(root: Path) -> list[tuple[str, str]]:
    """(label, name) of every run with its benchmark and model."""
    out = []
    for name, data in boards._all_results(root).items():
        out.append((f"{name} · {data.get('benchmark', '?')} · {data.get('model', '?')}", name))
    return out
