"""`-T engine=jar`: GeoGebra 4.0.34 itself runs and draws the answer (its graphics view exported
headless), and PSNR/SSIM/LPIPS compare that drawing with the release's PNG, as the paper's
pipeline does. Needs Debian's geogebra jar and a JDK: skipped without them, unless
REQUIRE_GEOGEBRA_JAR=1 makes their absence a failure."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from geomeval.benchmarks.ggbench.data import sample_path
from geomeval.benchmarks.ggbench.scoring import RENDER_SIZE, image_pair_scores
from geomeval.geogebra import render_png, run_script

pytestmark = pytest.mark.slow

SAMPLE = json.loads((sample_path() / "GGBench_dataset.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def jar():  # type: ignore[no-untyped-def]
    from geomeval.geogebra import jar_scoring

    try:
        jar_scoring.check_available()
    except jar_scoring.JarUnavailable as exc:
        if os.environ.get("REQUIRE_GEOGEBRA_JAR", "").strip() not in ("", "0"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    yield jar_scoring
    jar_scoring.close_shared()


def _pixels(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def test_geogebra_draws_the_script_where_its_objects_are(jar) -> None:  # type: ignore[no-untyped-def]
    """A given window maps world to pixels exactly: A = (0, 0) lands at (100, 225) of a
    600×450 picture of [-1, 5] × [-3, 3], and nothing is drawn where no object is."""
    figure = jar.jar_figure("A = (0, 0)\nB = (4, 0)\ns = Segment(A, B)\nShowAxes(false)", (600, 450),
                            window=(-1.0, 5.0, -3.0, 3.0))
    assert figure["passed"] is False  # 4.0.34 has no ShowAxes command; it still hides the axes here
    assert figure["ok_lines"] == 3 and figure["drawn_objects"] == 3 and figure["png"] is not None
    image = _pixels(figure["png"])
    assert image.size == (600, 450)
    assert min(sum(image.getpixel((100 + dx, 225 + dy))) for dx in (-2, 0, 2) for dy in (-2, 0, 2)) < 400  # A
    assert min(sum(image.getpixel((300, 225 + dy))) for dy in (-1, 0, 1)) < 400  # the segment, at x = 2
    assert all(image.getpixel((x, 60)) == (255, 255, 255) for x in range(0, 600, 7))  # y = 2.4: empty, no axis


def test_the_reference_answer_drawn_by_geogebra_against_the_release_png(jar) -> None:  # type: ignore[no-untyped-def]
    """The pixel metrics read GeoGebra's own figure: the release's reference script drawn by the
    jar (fitted to its objects, GeoGebra's default axes) is not geomeval's renderer's figure,
    and is far closer to the release's PNG than a wrong construction drawn the same way."""
    item = SAMPLE[0]
    release_png = (sample_path() / item["res_image"].lstrip("/")).read_bytes()
    from geomeval.benchmarks.ggbench.raw import parse_answer

    _steps, script = parse_answer(item["id"], item["text_answer"])
    right = jar.jar_figure(script, RENDER_SIZE)
    wrong = jar.jar_figure("A = (0, 0)\nB = (5, 0)\nc = Circle(A, B)", RENDER_SIZE)
    assert right["passed"] and right["drawn_objects"] > 3
    ours = render_png(run_script(script), size=RENDER_SIZE)
    assert _pixels(right["png"]).tobytes() != _pixels(ours).tobytes()  # GeoGebra drew it, not geomeval
    close = image_pair_scores(right["png"], release_png, with_lpips=False)
    far = image_pair_scores(wrong["png"], release_png, with_lpips=False)
    assert close["SSIM"].value is not None and far["SSIM"].value is not None
    assert 0.5 < close["SSIM"].value < 1.0 and close["SSIM"].value > far["SSIM"].value
    assert close["PSNR"].value > far["PSNR"].value
    same = image_pair_scores(right["png"], right["png"], with_lpips=False)
    assert same["SSIM"].value == pytest.approx(1.0)


@pytest.mark.slow
def test_run_with_the_jar_compares_geogebras_figure_with_the_release(tmp_path: Path, jar) -> None:  # type: ignore[no-untyped-def]
    """Through `geomeval run`: one switch, `-T engine=jar`, and the samples say GeoGebra drew the
    figure and the release's PNG is what it was compared with; an answer with no line that
    runs is at the pixel metrics' floor; the default engine keeps its like-for-like reference."""
    rows = [{"id": SAMPLE[0]["id"], "response": SAMPLE[0]["text_answer"]},
            {"id": SAMPLE[1]["id"], "response": "Step 1:\n```geogebra\nP = Foo(1, 2)\n```"}]
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    samples = {}
    for engine in ("geomeval", "jar"):
        out = tmp_path / engine
        result = subprocess.run([sys.executable, "-m", "geomeval.cli", "run", "ggbench", "--model",
                                 f"replay:{replay}", "--limit", "2", "-T", f"engine={engine}", "--out", str(out),
                                 "--min-coverage", "0"], capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        samples[engine] = {s["id"]: s for s in map(json.loads, lines)}
    first, second = SAMPLE[0]["id"], SAMPLE[1]["id"]
    ours, theirs = samples["geomeval"][first], samples["jar"][first]
    assert ours["extracted"]["figure_drawn_by"] == "geomeval" and ours["extracted"]["pixel_reference"] == "rendered"
    assert ours["scores"]["SSIM"]["value"] == pytest.approx(1.0)  # the reference drawn alike
    assert theirs["extracted"]["figure_drawn_by"] == "GeoGebra 4.0.34"
    assert theirs["extracted"]["pixel_reference"] == "release"
    assert 0.5 < theirs["scores"]["SSIM"]["value"] < 1.0 and theirs["scores"]["PSNR"]["value"] < 100
    failed = samples["jar"][second]["scores"]
    assert failed["SSIM"]["value"] == 0.0 and failed["PSNR"]["value"] == 0.0
    assert "GeoGebra 4.0.34" in failed["SSIM"]["explanation"]


def test_jar_with_pixel_reference_rendered_draws_the_reference_with_geogebra_too(jar) -> None:  # type: ignore[no-untyped-def]
    """`-T engine=jar -T pixel_reference=rendered`: the reference script is drawn by GeoGebra as
    well, and the answer in the reference's window, so the reference's own answer is identical
    (SSIM 1) and a wrong one is not."""
    from geomeval.benchmarks.ggbench.raw import parse_answer
    from geomeval.benchmarks.ggbench.scoring import (
        Drawn,
        answer_code,
        jar_scores,
        reference_script_text,
    )

    item = SAMPLE[0]
    steps, script = parse_answer(item["id"], item["text_answer"])
    target = {"reference_script": script, "steps": steps}
    release_png = (sample_path() / item["res_image"].lstrip("/")).read_bytes()
    code = answer_code(reference_script_text(target))  # the reference's code, as the reference is drawn
    same = jar_scores(Drawn(plan="", code=code), target, release_png, False, "rendered")
    assert same.compared_with == "rendered" and same.pass_at_1.value == 1.0
    assert same.pixels["SSIM"].value == pytest.approx(1.0)
    wrong = jar_scores(Drawn(plan="", code="A = (0, 0)\nB = (5, 0)\nc = Circle(A, B)"), target, release_png, False,
                       "rendered")
    assert wrong.pixels["SSIM"].value is not None and wrong.pixels["SSIM"].value < 0.99
    nothing = jar_scores(Drawn(plan="", code="P = Foo(1, 2)"), target, release_png, False, "release")
    assert nothing.pixels["SSIM"].value == 0.0 and nothing.pixels["PSNR"].value == 0.0
