"""The GGBench builder: the official release layout round-trips through typed parquet, and bad
records fail naming the item and the field."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from datasets import load_dataset
from PIL import Image

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.ggbench.card import render_card
from geomeval.benchmarks.ggbench.data import build, from_raw, sample_path
from geomeval.benchmarks.ggbench.features import CATEGORIES, FEATURES
from geomeval.benchmarks.ggbench.raw import categories, parse_answer, problem_type
from geomeval.geogebra import run_script

REPO = Path(__file__).resolve().parents[2]
RELEASE = "GGBench_dataset.json"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ggbench") / "built"
    build(str(sample_path()), str(out))
    return out


def test_sample_builds_and_loads_typed_offline(built: Path) -> None:
    ds = load_dataset(str(built), split="test")
    assert len(ds) == 15 and ds.features == FEATURES
    row = ds[ds["id"].index("1")]
    assert isinstance(row["problem_image"], Image.Image) and isinstance(row["final_image"], Image.Image)
    assert len(row["step_images"]) == len(row["steps"]) == 4
    assert all(isinstance(img, Image.Image) for img in row["step_images"])
    assert row["long_image"].size[0] > row["final_image"].size[0]  # steps side by side
    assert ds.features["difficulty"].int2str(row["difficulty"]) == "Easy"
    names = {ds.features["categories"].feature.int2str(c) for r in ds for c in r["categories"]}
    assert names == set(CATEGORIES)
    assert sum(r["problem_image"] is None for r in ds) == 9  # most problems come without a figure
    for record in ds:  # every reference script the builder assembled runs in the engine
        assert run_script(record["reference_script"]).pass_at_1, record["id"]


def test_built_folder_is_self_contained(built: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(built, moved)
    assert load_dataset(str(moved), split="test")[0]["final_image"].size[0] > 0


def test_card_in_repo_matches_the_library(built: Path) -> None:
    assert (REPO / "cards" / "ggbench" / "README.md").read_text(encoding="utf-8") == render_card()
    assert "num_examples: 15" in (built / "README.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_build_cli_and_dataset_script(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    result = subprocess.run(
        [sys.executable, str(REPO / "dataset_scripts" / "ggbench" / "build.py"), "--raw", str(sample_path()),
         "--out", str(out)], capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert len(load_dataset(str(out), split="test")) == 15


def _copy_sample(tmp_path: Path) -> Path:
    raw = tmp_path / "raw"
    shutil.copytree(sample_path(), raw)
    return raw


def _edit(raw: Path, item: str, **changes: object) -> None:
    path = raw / RELEASE
    data = json.loads(path.read_text(encoding="utf-8"))
    record = next(r for r in data if r["id"] == item)
    for key, value in changes.items():
        if value is None:
            record.pop(key, None)
        else:
            record[key] = value
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"difficulty": "Very hard"}, "difficulty", "unknown value 'Very hard'"),
        ({"question_type": "Origami"}, "question_type", "unknown problem type 'Origami'"),
        ({"skill_classification": "折纸 (Origami)"}, "skill_classification", "unknown category '折纸 (Origami)'"),
        ({"skill_classification": 3}, "skill_classification", "expected text or a list of text"),
        ({"res_image": "/Q&A_image/404.png"}, "res_image", "image file not found"),
        ({"complete_image": "../../etc/passwd"}, "complete_image", "must stay inside the release folder"),
        ({"text_answer": "#### **Step 1: Think**\nNo code here."}, "text_answer", "no ```geogebra code block"),
        ({"question": None}, "question", "missing"),
        ({"solution_code": "x"}, "solution_code", "unknown field"),
    ],
)
def test_bad_records_name_item_and_field(tmp_path: Path, changes: dict, field: str, message: str) -> None:
    raw = _copy_sample(tmp_path)
    _edit(raw, "7", **changes)
    with pytest.raises(DataError) as info:
        from_raw(raw)
    assert (info.value.item, info.value.field) == ("7", field)
    assert message in info.value.message


def test_skip_invalid_leaves_bad_items_out_and_counts_them(tmp_path: Path) -> None:
    raw = _copy_sample(tmp_path)
    _edit(raw, "7", difficulty="Impossible")
    ds, skipped = from_raw(raw, skip_invalid=True)
    assert len(ds) == 14 and skipped == [{"id": "7", "field": "difficulty", "error": skipped[0]["error"]}]
    result = subprocess.run([sys.executable, "-m", "geomeval.cli", "build", "ggbench", "--raw", str(raw),
                             "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and "'7'" in result.stderr and "difficulty" in result.stderr
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_duplicate_ids_and_non_list_release(tmp_path: Path) -> None:
    raw = _copy_sample(tmp_path)
    _edit(raw, "7", id="6")
    with pytest.raises(DataError, match="appears twice"):
        from_raw(raw)
    (raw / RELEASE).write_text('{"1": {}}', encoding="utf-8")
    with pytest.raises(DataError, match="JSON list"):
        from_raw(raw)


def test_answer_steps_and_the_complete_script_at_the_end() -> None:
    answer = (
        "#### **Step 1: Draw AB**\n**Method**:\nPlace two points.\n\n```geogebra\nA = (0, 0)\nB = (4, 0)\n```\n\n"
        "#### **Step 2: The circle**\n**Method**:\nCentre A through B.\n\n```geogebra\nc = Circle(A, B)\n```\n\n"
        "### Complete code\n```geogebra\nA = (0, 0)\nB = (4, 0)\nc = Circle(A, B)\n```\n"
    )
    steps, script = parse_answer("x", answer)
    assert steps[0] == {"text": "Draw AB. Place two points.", "code": "A = (0, 0)\nB = (4, 0)"}
    assert steps[1]["text"].startswith("The circle. Centre A through B.")
    assert script == "A = (0, 0)\nB = (4, 0)\nc = Circle(A, B)"  # not repeated twice
    # A "#" comment inside code is not a heading, and comments do not stop the de-duplication.
    commented = "#### **Step 1: X**\n```geogebra\n# givens\nA = (0, 0)\n```\nMore.\n### All\n```geogebra\nA = (0, 0)\n```"
    steps, script = parse_answer("z", commented)
    assert steps == [{"text": "X. More.", "code": "# givens\nA = (0, 0)"}] and script == "A = (0, 0)"
    steps, script = parse_answer("y", "```geogebra\nA = (1, 1)\n```")
    assert steps == [{"text": "", "code": "A = (1, 1)"}] and script == "A = (1, 1)"


def test_official_spellings_of_types_and_categories() -> None:
    assert problem_type("x", "Straightedge-and-compass construction") == "straightedge-and-compass"
    assert problem_type("x", "geometric transformation construction") == "geometric transformation"
    assert problem_type("x", "Analytic Construction") == "analytic construction"
    found = categories("x", "几何定理应用 (Application of Theorems),轨迹作图 (Locus Construction)")
    assert found == ["Applications of Geometric Theorems", "Locus Constructions"]
    assert categories("x", ["Basic Constructions", "Basic Constructions"]) == ["Basic Constructions"]


def test_official_archive_layout_with_the_json_in_dataset(tmp_path: Path) -> None:
    """`tar -xzvf dataset.tar.gz` gives dataset/GGBench_dataset.json with the image folders
    beside `dataset/`: the folder itself or the JSON file both work as --raw."""
    root = tmp_path / "GGBench"
    shutil.copytree(sample_path(), root)
    (root / "dataset").mkdir()
    (root / RELEASE).rename(root / "dataset" / RELEASE)
    assert len(from_raw(root)[0]) == 15
    assert len(from_raw(root / "dataset" / RELEASE)[0]) == 15
    # A folder in neither layout says which layouts are read and what it holds.
    with pytest.raises(FileNotFoundError, match=r"is not a GGBench release: expected GGBench_dataset\.json.*found GGBench/"):
        from_raw(tmp_path)
