"""`geomeval ggb run/verify` from the command line, bad inputs included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
