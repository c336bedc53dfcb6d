"""Figures handed to Gradio as files of their own: one new file per result, never rewritten.

Gradio saves an output PIL image under the hash of its bytes and rewrites that file on every
response that shows the same figure, so a visitor still downloading it reads a truncated body
(issue 40: 2 of 40 concurrent downloads of an Explore figure failed). A file path is copied
into Gradio's cache instead, under a temporary name renamed into place, and never rewritten
once there. So every figure a handler returns is written here first, completely, to a file
whose name no other result has (`tempfile.mkstemp`), and Gradio is given that path.

The files live in one folder under the system's temporary folder (which Gradio serves from);
a file is deleted once it is older than `KEEP_S`, long after Gradio has copied it.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

FOLDER = "geomeval-space-figures"
KEEP_S = 15 * 60.0  # Gradio copies a returned file while answering; a quarter of an hour is ample
SWEEP_EVERY_S = 60.0

_lock = threading.Lock()
_last_sweep = 0.0


def figure_folder() -> Path:
    folder = Path(tempfile.gettempdir()) / FOLDER
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _sweep(folder: Path, now: float) -> None:
    """Delete this folder's figures older than KEEP_S, at most once a minute."""
    global _last_sweep
    with _lock:
        if now - _last_sweep < SWEEP_EVERY_S:
            return
        _last_sweep = now
    for path in folder.glob("*.png"):
        try:
            if now - path.stat().st_mtime > KEEP_S:
                path.unlink()
        except OSError:  # gone already (another thread's sweep)
            pass


def figure_file(image: Any) -> str | None:
    """`image` (a PIL image, or None) written as a PNG to a new file of its own; its path."""
    if image is None:
        return None
    folder = figure_folder()
    _sweep(folder, time.time())
    handle, name = tempfile.mkstemp(prefix="figure-", suffix=".png", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            image.save(out, format="PNG")
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return name


def figure_files(images: list[tuple[Any, str]]) -> list[tuple[str | None, str]]:
    """A gallery's (image, caption) pairs with each image as `figure_file`."""
    return [(figure_file(image), caption) for image, caption in images]
