"""`geomeval ggb run/verify` from the command line, bad inputs included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REFERENCE = "A = (0, 0)\nB = (4, 0)\nc = Circle(A, B)\nd = Circle(B, A)\nC = Intersect(c, d, 1)\nt = Polygon(A, B, C)\n"


def ggb(*args: str) -> subprocess.CompletedProcess[str]:
    code = "from geomeval.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "ggb", *args], capture_output=True, text=True, timeout=120
    )


def test_run_draws_the_figure_and_exits_by_pass_at_1(tmp_path: Path) -> None:
    good = tmp_path / "good.ggb"
    good.write_text(REFERENCE)
    png, out_json = tmp_path / "fig.png", tmp_path / "run.json"
    result = ggb("run", str(good), "--png", str(png), "--json", str(out_json), "--size", "320x240")
    assert result.returncode == 0, result.stderr
    assert "Pass@1: 1" in result.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    dump = json.loads(out_json.read_text())
    assert dump["pass_at_1"] and {o["label"] for o in dump["objects"]} >= {"A", "C", "t"}

    bad = tmp_path / "bad.ggb"
    bad.write_text("A = (0, 0)\nParallelLine(A, l)\n")
    result = ggb("run", str(bad))
    assert result.returncode == 1
    assert "Unknown command: ParallelLine" in result.stdout and "Pass@1: 0" in result.stdout


def test_verify_prints_the_score(tmp_path: Path) -> None:
    ref = tmp_path / "ref.ggb"
    ref.write_text(REFERENCE)
    cand = tmp_path / "cand.ggb"
    cand.write_text(REFERENCE.replace("(4, 0)", "(8, 0)"))  # the same figure, scaled
    result = ggb("verify", str(cand), str(ref))
    assert result.returncode == 0, result.stderr
    assert "score 1.00 (15/15 checks)" in result.stdout
    result = ggb("verify", str(cand), str(ref), "--fixed-coordinates")
    assert "score 0.47 (7/15 checks)" in result.stdout and "✗" in result.stdout


def test_bad_inputs_give_a_clear_error(tmp_path: Path) -> None:
    missing = ggb("run", str(tmp_path / "nope.ggb"))
    assert missing.returncode == 2 and "nope.ggb: no such file" in missing.stderr
    script = tmp_path / "s.ggb"
    script.write_text("A = (0, 0)\n")
    size = ggb("run", str(script), "--png", str(tmp_path / "f.png"), "--size", "big")
    assert size.returncode == 2 and "--size 'big'" in size.stderr
    huge = tmp_path / "huge.ggb"
    huge.write_text("A = (0, 0)\n" * 200_000)
    too_big = ggb("run", str(huge))
    assert too_big.returncode == 2 and "larger than" in too_big.stderr


# Four lines make 4,000 texts of 58,892 characters each (issue 37, point 7): describing the
# list whole made a 236-million-character table cell, and drawing every text took minutes
# and over a gigabyte.
HOSTILE = "l = Sequence(k, k, 1, 9999)\nt = Text(l)\ns = Sequence(t, k, 1, 4000)\nA = (0, 0)\n"


@pytest.mark.slow
def test_a_script_of_huge_texts_is_shown_and_drawn_with_bounded_work(tmp_path: Path) -> None:
    script = tmp_path / "hostile.ggb"
    script.write_text(HOSTILE)
    png = tmp_path / "fig.png"
    result = ggb("run", str(script), "--png", str(png))
    assert result.returncode == 0, result.stderr
    assert len(result.stdout) < 5_000  # every cell bounded, however large the value
    assert "list of 4000 elements: text={1, 2, 3" in result.stdout and "(58,887 characters)" in result.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_figure_draws_a_bounded_count_of_text_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    """The renderer's text work is counted in characters: each text cut to the image's width
    (what lies past it is never seen), the figure's texts to MAX_TEXT_CHARS_DRAWN in all."""
    import matplotlib.axes

    from geomeval.geogebra import run_script
    from geomeval.geogebra.render import MAX_TEXT_CHARS_DRAWN, render_png

    drawn: list[int] = []
    original = matplotlib.axes.Axes.text

    def counting(self, x, y, s, *args, **kwargs):
        drawn.append(len(s))
        return original(self, x, y, s, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "text", counting)
    render_png(run_script(HOSTILE), size=(800, 600))
    assert drawn and max(drawn) == 800 and sum(drawn) <= MAX_TEXT_CHARS_DRAWN


def test_a_text_cut_at_the_images_width_draws_the_same_pixels() -> None:
    from geomeval.geogebra import run_script
    from geomeval.geogebra.render import render_png

    long = "t = Text(\"" + "W" * 900 + "\", (0, 0))\nA = (0, 0)\nB = (5, 3)\n"
    cut = "t = Text(\"" + "W" * 400 + "\", (0, 0))\nA = (0, 0)\nB = (5, 3)\n"
    assert render_png(run_script(long), size=(400, 300)) == render_png(run_script(cut), size=(400, 300))
