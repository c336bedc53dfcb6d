"""Figures the Space returns are new files, never rewritten in place (issue 40, point 5):
Gradio copies a returned file into its cache once, under a name no other result has, while an
image it is handed as pixels is saved under the hash of its bytes and rewritten by every
response showing the same figure (a download in flight then reads a truncated body)."""

from __future__ import annotations

import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from geomeval.demo import figures


def test_each_result_gets_a_new_complete_file() -> None:
    image = Image.new("RGB", (64, 48), "white")
    with ThreadPoolExecutor(8) as pool:
        paths = list(pool.map(lambda _i: figures.figure_file(image), range(40)))
    assert len(set(paths)) == 40  # the same figure 40 times: 40 files, none written twice
    for path in paths:
        file = Path(str(path))
        assert file.parent == Path(tempfile.gettempdir()) / figures.FOLDER  # a folder Gradio may serve
        with Image.open(file) as opened:
            opened.load()  # the whole PNG is there
            assert opened.size == (64, 48)
    assert figures.figure_file(None) is None
    gallery = figures.figure_files([(image, "problem_image"), (image, "final_image")])
    assert [c for _p, c in gallery] == ["problem_image", "final_image"] and gallery[0][0] != gallery[1][0]


def test_old_figures_are_swept(monkeypatch: pytest.MonkeyPatch) -> None:
    old = Path(str(figures.figure_file(Image.new("L", (4, 4)))))
    stale = time.time() - figures.KEEP_S - 60
    os.utime(old, (stale, stale))
    monkeypatch.setattr(figures, "_last_sweep", 0.0)
    fresh = Path(str(figures.figure_file(Image.new("L", (4, 4)))))
    assert not old.exists() and fresh.exists()
