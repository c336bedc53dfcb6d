"""Bounds on what a visitor may send, and the error that says which one was hit.

A public Space runs whatever strangers paste: the scorers are bounded already (the
GeoGebra engine's `Limits`, the keypoint engine's `MAX_CHARS`), but the Space refuses far
earlier, with a message naming the limit, so one visitor cannot hold a worker for long.
"""

from __future__ import annotations

import html
import re

MAX_CAPTION_CHARS = 4_000  # a figure caption is a few hundred characters
MAX_SCRIPT_CHARS = 20_000
MAX_SCRIPT_LINES = 400
MAX_SCRIPT_SECONDS = 5.0
MAX_SOLUTION_CHARS = 20_000
MAX_ANSWER_CHARS = 2_000
MAX_CHOICES_CHARS = 2_000
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_IMAGE_PIXELS = 4096 * 4096
MAX_RESULTS_BYTES = 20 * 1024 * 1024  # one results.json in the runs folder
MAX_RUNS = 500  # results.json files read from the runs folder
MAX_FILTERS = 40


class DemoInputError(ValueError):
    """Input the Space refuses (too long, empty, not an image, outside its folders); the
    message is written for the visitor and shown unchanged."""


def check_text(value: str | None, limit: int, what: str, *, required: bool = True) -> str:
    """`value` as a string within `limit` characters; empty is refused when `required`."""
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    if len(text) > limit:
        raise DemoInputError(f"{what} is {len(text):,} characters long; the limit is {limit:,}.")
    if required and not text.strip():
        raise DemoInputError(f"{what} is empty.")
    return text


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|~$])")


def plain(value: object, limit: int = 80) -> str:
    """A visitor's text (a model name, a file's field) for Markdown that must show it as
    written: HTML escaped (a tag is shown, never rendered), Markdown and LaTeX marks escaped,
    one line, cut at `limit` characters."""
    text = " ".join(str(value).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return html.escape(_MARKDOWN.sub(r"\\\1", text), quote=False)


_PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:)?(?:[\\/][\w.@+~-]+){2,}")


def no_paths(text: str) -> str:
    """`text` with every absolute path cut to its last part ("…/results.json"): a message a
    visitor reads names no folder of the server."""
    return _PATH.sub(lambda found: "…/" + re.split(r"[\\/]", found.group(0))[-1], text)


def visitor_message(exc: BaseException) -> str:
    """A refused input's message as a visitor reads it: one line, no server path."""
    return " ".join(no_paths(str(exc)).split())


MAX_SAMPLES_BYTES = 100 * 1024 * 1024  # one samples.jsonl read by the run viewer
MAX_SAMPLE_LINES = 20_000
MAX_UPLOAD_RESULTS_BYTES = 2 * 1024 * 1024  # a results.json a visitor uploads
MAX_UPLOADED_RUNS = 20  # uploads kept for one session
