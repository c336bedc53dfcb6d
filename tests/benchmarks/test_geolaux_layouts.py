"""Both published GeoLaux layouts build, detected by themselves, through `geomeval build`:
the authors' repository as it is now (data/GeoLaux_minidata.json, data/mini_original_images/,
data/mini_auxiliary_images/, the folders its evaluation scripts read) and the older release
(original_images/, auxiliary_images/). Fixtures are written here, with the release's file
names, field names and nesting; an unknown layout is refused saying what was expected."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from datasets import load_dataset
from PIL import Image

from geomeval.benchmarks.geolaux.data import build
from geomeval.benchmarks.geolaux.raw import locate_release

# Two items in the release's shape: a multiple-choice calculation whose solution needs an
# auxiliary line (its figure with the line drawn in the auxiliary folder), and a proof with
# the release's "null" strings. The original figure is named without the item's last part,
# as in the release ("3_2_1" shows "3_2").
RECORDS = {
    "3_2_1": {
        "problem_text": "如图，在△ABC中，AB=AC=5，BC=6，求BC边上的高AD的长为",
        "type": "calculation",
        "number_answer": "4",
        "unit": "null",
        "auxiliary_type": 1,
        "choices": ["A.3", "B.4", "C.5", "D.6"],
        "solution": "辅助线：过A作AD⊥BC于D\n∵ AB=AC，AD⊥BC\n∴ BD=3\n∴ AD=√(25-9)=4",
        "step_length": 2,
        "steps_explanation": "：1)、等腰三角形三线合一得BD=3；2)、勾股定理得AD=4。",
        "original_image_name": "3_2",
        "auxiliary_text": "过A作AD⊥BC于D",
        "auxiliary_image_name": "3_2_1",
    },
    "4_5_1": {
        "problem_text": "如图，AB=AC，D是BC的中点，求证：AD⊥BC",
        "type": "proving",
        "number_answer": "null",
        "unit": "null",
        "auxiliary_type": 0,
        "choices": [],
        "solution": "∵ AB=AC，BD=CD，AD=AD\n∴ △ABD≌△ACD\n∴ ∠ADB=∠ADC=90°",
        "step_length": 2,
        "steps_explanation": "：1)、SSS得全等；2)、对应角相等且互补，得垂直。",
        "original_image_name": "4_5",
        "auxiliary_text": "null",
        "auxiliary_image_name": "null",
    },
}


def _png(path: Path, shade: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (24, 16), (shade, 255 - shade, 128)).save(path)


def repository_layout(root: Path) -> Path:
    """The authors' repository: data/ beside README.md and evaluation/."""
    data = root / "data"
    data.mkdir(parents=True)
    (root / "README.md").write_text("GeoLaux\n", encoding="utf-8")
    (root / "evaluation").mkdir()
    (data / "GeoLaux_minidata.json").write_text(json.dumps(RECORDS, ensure_ascii=False, indent=4), encoding="utf-8")
    _png(data / "mini_original_images" / "3_2.png", 10)
    _png(data / "mini_original_images" / "4_5.png", 20)
    _png(data / "mini_auxiliary_images" / "3_2_1.png", 30)
    return root


def older_layout(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "GeoLaux_minidata.json").write_text(json.dumps(RECORDS, ensure_ascii=False, indent=4), encoding="utf-8")
    _png(root / "original_images" / "3_2.png", 10)
    _png(root / "original_images" / "4_5.png", 20)
    _png(root / "auxiliary_images" / "3_2_1.png", 30)
    return root


def _check_built(out: Path) -> None:
    ds = load_dataset(str(out), split="test")
    assert sorted(ds["id"]) == ["3_2_1", "4_5_1"]
    calc = ds[ds["id"].index("3_2_1")]
    assert calc["answer"] == "4" and calc["choices"] == ["A.3", "B.4", "C.5", "D.6"] and calc["unit"] is None
    assert calc["image"].getpixel((0, 0)) == (10, 245, 128)
    assert calc["auxiliary_image"].getpixel((0, 0)) == (30, 225, 128)
    proof = ds[ds["id"].index("4_5_1")]
    assert proof["answer"] is None and proof["auxiliary_image"] is None and proof["auxiliary_text"] is None
    assert proof["image"].getpixel((0, 0)) == (20, 235, 128)


@pytest.mark.parametrize("given", ["root", "data", "json"])
def test_the_authors_repository_layout_builds(tmp_path: Path, given: str) -> None:
    root = repository_layout(tmp_path / "GeoLaux")
    raw = {"root": root, "data": root / "data", "json": root / "data" / "GeoLaux_minidata.json"}[given]
    summary = build(str(raw), str(tmp_path / "out"))
    assert summary["splits"]["test"]["num_examples"] == 2
    _check_built(tmp_path / "out")


@pytest.mark.parametrize("given", ["folder", "json"])
def test_the_older_layout_builds(tmp_path: Path, given: str) -> None:
    root = older_layout(tmp_path / "geolaux_mini_sample")
    raw = root if given == "folder" else root / "GeoLaux_minidata.json"
    build(str(raw), str(tmp_path / "out"))
    _check_built(tmp_path / "out")


def test_geomeval_build_reads_the_repository_from_the_command_line(tmp_path: Path) -> None:
    root = repository_layout(tmp_path / "GeoLaux")
    result = subprocess.run(
        [sys.executable, "-m", "geomeval.cli", "build", "geolaux", "--raw", str(root / "data"), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stderr
    _check_built(tmp_path / "out")


def test_an_unknown_layout_says_what_was_expected_and_what_was_found(tmp_path: Path) -> None:
    root = tmp_path / "odd"
    root.mkdir()
    (root / "GeoLaux_minidata.json").write_text(json.dumps(RECORDS, ensure_ascii=False), encoding="utf-8")
    _png(root / "figures" / "3_2.png", 10)
    with pytest.raises(FileNotFoundError) as caught:
        locate_release(root)
    message = str(caught.value)
    assert "mini_original_images/" in message and "original_images/" in message  # expected
    assert "found: GeoLaux_minidata.json, figures/" in message
    result = subprocess.run(
        [sys.executable, "-m", "geomeval.cli", "build", "geolaux", "--raw", str(root), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode != 0 and "mini_original_images/" in result.stderr and "figures/" in result.stderr
    assert not (tmp_path / "out").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"holds no GeoLaux release JSON.*found: an empty folder"):
        locate_release(empty)


def test_a_figure_missing_from_the_detected_layout_names_the_item(tmp_path: Path) -> None:
    root = repository_layout(tmp_path / "GeoLaux")
    (root / "data" / "mini_auxiliary_images" / "3_2_1.png").unlink()
    from geomeval.benchmarks.base import DataError

    with pytest.raises(DataError, match="mini_auxiliary_images") as caught:
        build(str(root), str(tmp_path / "out"))
    assert caught.value.item == "3_2_1" and caught.value.field == "auxiliary_image_name"
