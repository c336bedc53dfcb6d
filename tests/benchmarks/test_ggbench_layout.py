"""GGBench's Hub dataset, laid out as the authors' `evaluate.py` reads it, builds through
geomeval's reader, found automatically; a folder in no known layout says what was expected
and what was found.

The fixture is written from the official code (opendatalab-raiser/GGBench): the README clones
the Hub dataset and runs `evaluate.py` from its `dataset/` folder, where the script reads
`GGBench_dataset.json` (a JSON list) and resolves each item's image paths against that same
folder, stripping a leading "/" (`/Q&A_image/3_5.png`). Per item it reads `id`, `question`,
`question_image`, `text_answer` and `res_image`; the other fields are the release's own.
Images are made here with PIL (nothing is downloaded)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from datasets import load_dataset
from PIL import Image, ImageDraw

from geomeval.benchmarks.ggbench.data import SOURCE, build, from_raw
from geomeval.benchmarks.ggbench.raw import RELEASE_FILE
from geomeval.geogebra import run_script

ANSWER = (
    "#### **Step 1: Draw the segment**\n**Method**:\nPlace A and B and join them.\n\n"
    "```geogebra\nA = (0, 0)\nB = (4, 0)\ns = Segment(A, B)\n```\n\n"
    "#### **Step 2: Two circles**\n**Method**:\nCircles centred at A and B through the other end.\n\n"
    "```geogebra\nc = Circle(A, B)\nd = Circle(B, A)\n```\n\n"
    "#### **Step 3: The bisector**\n**Method**:\nJoin the circles' intersections.\n\n"
    "```geogebra\nP = Intersect(c, d, 1)\nQ = Intersect(c, d, 2)\nm = Line(P, Q)\n```\n"
)


def _png(path: Path, size: tuple[int, int], seed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.new("RGB", size, "white")
    ImageDraw.Draw(image).line((10, 10 + seed, size[0] - 10, size[1] - 10 - seed), fill="black", width=3)
    image.save(path)


def hub_clone(root: Path) -> Path:
    """A clone of the Hub dataset: the release in `dataset/`, images beside its JSON."""
    data = root / "dataset"
    (root / "README.md").parent.mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text("---\nlicense: unknown\n---\n# GGBench\n", encoding="utf-8")
    (root / ".gitattributes").write_text("*.png filter=lfs diff=lfs merge=lfs -text\n", encoding="utf-8")
    records = []
    for number, (difficulty, kind, skill) in enumerate([
        ("Easy", "Straightedge-and-compass construction", "基础几何作图 (Basic Constructions)"),
        ("Hard", "Geometric transformation construction",
         "几何变换作图 (Geometric Transformations),几何定理应用 (Application of Theorems)"),
    ], start=1):
        last = 5  # question figure _1, three step figures _2.._4, the final figure _5
        for k in range(1, last + 1):
            _png(data / "Q&A_image" / f"{number}_{k}.png", (600, 450), k)
        _png(data / "long_image" / f"{number}.png", (1800, 450), 0)
        records.append({
            "id": str(number),
            "text": f"### **Problem Title ({difficulty})**\nBisector {number}",
            "question": f"Segment AB is given. Construct its perpendicular bisector m ({number}).",
            "question_image": f"/Q&A_image/{number}_1.png",
            "text_answer": ANSWER,
            "res_image": f"/Q&A_image/{number}_{last}.png",
            "complete_image": f"./long_image/{number}.png",
            "difficulty": difficulty,
            "inspection_content": "Perpendicular Bisector, Circle Intersection",
            "language": "English",
            "question_type": kind,
            "modal": "Multimodal",
            "skill_classification": skill,
        })
    (data / RELEASE_FILE).write_text(json.dumps(records, ensure_ascii=False, indent=2), encoding="utf-8")
    return root


def test_hub_clone_builds_through_the_reader_found_automatically(tmp_path: Path) -> None:
    clone = hub_clone(tmp_path / "GGBench")
    # --data / --raw naming the clone, its dataset/ folder or the JSON: all read as a raw release
    for named in (clone, clone / "dataset", clone / "dataset" / RELEASE_FILE):
        assert SOURCE.locate(str(named)) == ("raw", named)
    out = tmp_path / "built"
    build(str(clone), str(out))
    ds = load_dataset(str(out), split="test")
    assert ds["id"] == ["1", "2"]
    row = ds[1]
    assert ds.features["difficulty"].int2str(row["difficulty"]) == "Hard"
    assert [ds.features["categories"].feature.int2str(c) for c in row["categories"]] == [
        "Geometric Transformations", "Applications of Geometric Theorems"]
    assert len(row["steps"]) == 3 and row["steps"][2]["code"].endswith("m = Line(P, Q)")
    assert len(row["step_images"]) == 3  # _2, _3, _4 between the question figure and res_image
    assert row["final_image"].size == (600, 450) and row["long_image"].size == (1800, 450)
    assert row["problem_image"] is not None
    assert run_script(row["reference_script"]).pass_at_1
    # the same items from the folder evaluate.py runs in
    assert len(from_raw(clone / "dataset")[0]) == 2


def test_run_reads_the_clone_without_a_build(tmp_path: Path) -> None:
    clone = hub_clone(tmp_path / "GGBench")
    rows = list(SOURCE.rows(str(clone), limit=1))
    assert len(rows) == 1 and rows[0]["problem"].endswith("(1).")


def test_unknown_layout_names_what_was_expected_and_found(tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere"
    (folder / "images").mkdir(parents=True)
    (folder / "ggbench.json").write_text("[]", encoding="utf-8")
    (folder / "dataset.tar.gz").write_bytes(b"\x1f\x8b")
    with pytest.raises(FileNotFoundError) as info:
        build(str(folder), str(tmp_path / "out"))
    message = str(info.value)
    assert f"expected {RELEASE_FILE} beside Q&A_image/" in message and f"dataset/{RELEASE_FILE}" in message
    assert "found dataset.tar.gz, ggbench.json, images/" in message and "unpack dataset.tar.gz first" in message
    with pytest.raises(FileNotFoundError, match="is not a GGBench release"):
        SOURCE.rows(str(folder))
