"""ME2's Hub dataset as the authors' lmms-eval task reads it builds through geomeval.

The fixture is written from what the official task reads (`lmms_eval/tasks/ME2/*.yaml` and
`utils.py` in github.com/jungyangpark/ME2): `load_dataset("jungypark/ME2")`, split `train`;
`problem_image` a `datasets` Image (`doc["problem_image"].convert("RGB")`); the text columns
`problem_text`, `answer_text`, `solution_text`, `summary_solution_text`, `chapter_title`,
`section_title`, `question_answer_type`, `visual_identification_option` (one text, shown
verbatim) and `visual_identification_answer`; `visual_key_points` a list of structs whose
fields are the element names of every row, null but for the row's own (the task keeps the
non-null ones). The repository's README adds the solution image. The files lie as
`huggingface-cli download` leaves a Hub dataset: a card beside `data/train-*.parquet`.

The same items written as a raw release (a JSONL file beside its image folders) must give
the same rows, and the folder, a Hub id (download stubbed: the tests stay offline) and
`geomeval build` must all read it; an unknown layout fails saying what was expected and
what was found.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets import Features, Image, Value, load_dataset
from PIL import Image as PILImage

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.me2 import raw as me2_raw
from geomeval.benchmarks.me2.benchmark import ME2
from geomeval.benchmarks.me2.data import from_raw, load, locate, undecoded

REPO = Path(__file__).resolve().parents[2]
OPTIONS = (
    "A. segment AH: the altitude to the base\n"
    "B. point O: the centre of the circle\n"
    "C. right angle at C: inscribed in a semicircle\n"
    "D. segment CE: the altitude to AB\n"
    "E. triangle MNP: the shaded region"
)


def _png(colour: str, size: tuple[int, int] = (9, 7)) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", size, colour).save(buffer, format="PNG")
    return buffer.getvalue()


# Three items in the official columns; the keypoints as each row states them.
ITEMS: list[dict[str, Any]] = [
    {
        "problem_text": "In triangle ABC, AB = AC = 5 and BC = 6. Find the area of triangle ABC.",
        "answer_text": "12",
        "solution_text": "Draw the altitude AH; it bisects BC, so AH = 4 and the area is 12.",
        "summary_solution_text": "Altitude to the base, then the Pythagorean theorem.",
        "keypoints": {"segment AH": "the altitude to the base", "point H": "the midpoint of BC"},
        "visual_identification_option": OPTIONS,
        "visual_identification_answer": "A",
        "question_answer_type": "geometry_short",
        "chapter_title": "Properties of Plane Figures",
        "section_title": "Triangles",
        "colour": "red",
    },
    {
        "problem_text": "Which is the distance from C to AB?\n① 8 ② 8.4 ③ 9 ④ 9.6 ⑤ 10",
        "answer_text": "④",
        "solution_text": "The area is 48 with base BC, so CE = 2 · 48 / 10 = 9.6.",
        "summary_solution_text": "Two altitudes give the same area.",
        "keypoints": {"segment CE": "the altitude to AB"},
        "visual_identification_option": OPTIONS,
        "visual_identification_answer": "D",
        "question_answer_type": "geometry_choice",
        "chapter_title": "Properties of Plane Figures",
        "section_title": "Triangles",
        "colour": "lime",
    },
    {
        "problem_text": "The lines y = x + 2 and y = -2x + 8 meet at P. Find the area bounded with the x-axis.",
        "answer_text": "12",
        "solution_text": "The intercepts are -2 and 4 and P = (2, 4), so the area is ½ · 6 · 4 = 12.",
        "summary_solution_text": "Intercepts give the base, P the height.",
        "keypoints": {"triangle MNP": "the shaded region", "segment PH": "the height from P"},
        "visual_identification_option": OPTIONS,
        "visual_identification_answer": "E",
        "question_answer_type": "graph_short",
        "chapter_title": "Functions",
        "section_title": "",
        "colour": "blue",
    },
]
ELEMENTS = sorted({name for item in ITEMS for name in item["keypoints"]})
TEXT_COLUMNS = (
    "problem_text",
    "answer_text",
    "solution_text",
    "summary_solution_text",
    "visual_identification_option",
    "visual_identification_answer",
    "question_answer_type",
    "chapter_title",
    "section_title",
)
HUB_FEATURES = Features(
    {
        "problem_image": Image(),
        "solution_image": Image(),
        **{name: Value("string") for name in TEXT_COLUMNS},
        # The struct union: every element name of the dataset is a field of every entry.
        "visual_key_points": [{name: Value("string") for name in ELEMENTS}],
    }
)


def _struct_union(keypoints: dict[str, str]) -> list[dict[str, str | None]]:
    return [{name: (text if name == element else None) for name in ELEMENTS} for element, text in keypoints.items()]


def hub_rows() -> list[dict[str, Any]]:
    rows = []
    for index, item in enumerate(ITEMS):
        rows.append(
            {
                "problem_image": {"bytes": _png(item["colour"]), "path": f"problem_{index}.png"},
                "solution_image": {"bytes": _png(item["colour"], (9, 8)), "path": f"solution_{index}.png"},
                **{name: item[name] for name in TEXT_COLUMNS},
                "visual_key_points": _struct_union(item["keypoints"]),
            }
        )
    return rows


def write_hub_layout(folder: Path, split: str = "train", rows: list[dict[str, Any]] | None = None,
                     features: Features = HUB_FEATURES) -> Path:
    """The dataset as `huggingface-cli download --repo-type dataset jungypark/ME2` leaves it."""
    from datasets import Dataset

    (folder / "data").mkdir(parents=True, exist_ok=True)
    dataset = Dataset.from_list(rows if rows is not None else hub_rows(), features=features)
    dataset.to_parquet(str(folder / "data" / f"{split}-00000-of-00001.parquet"))
    (folder / "README.md").write_text(
        "---\nconfigs:\n- config_name: default\n  data_files:\n"
        f"  - split: {split}\n    path: data/{split}-*\n---\n# ME2\n",
        encoding="utf-8",
    )
    return folder


def write_raw_release(folder: Path) -> Path:
    """The same items as a raw release: one JSONL file beside its image folders."""
    records = []
    for index, item in enumerate(ITEMS):
        for kind, size in (("problem_image", (9, 7)), ("solution_image", (9, 8))):
            path = folder / kind / f"{index}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(_png(item["colour"], size))
        records.append(
            {
                "problem_image": f"problem_image/{index}.png",
                "solution_image": f"solution_image/{index}.png",
                **{name: item[name] for name in TEXT_COLUMNS},
                "visual_key_points": [{"element": k, "description": v} for k, v in item["keypoints"].items()],
            }
        )
    (folder / "ME2.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return folder


def comparable(dataset: Any) -> list[dict[str, Any]]:
    """Rows with each image as its bytes (its file name differs between the two layouts)."""
    rows = []
    for row in undecoded(dataset):
        rows.append({k: (v["bytes"] if isinstance(v, dict) and "bytes" in v else v) for k, v in row.items()})
    return rows


@pytest.fixture
def hub_folder(tmp_path: Path) -> Path:
    return write_hub_layout(tmp_path / "hub")


def test_fixture_is_what_the_official_task_reads(hub_folder: Path) -> None:
    """The fixture loads as the task loads the Hub dataset (split `train`) and gives its
    code what it reads: an image to convert, and keypoints whose non-null values are the row's."""
    doc = load_dataset(str(hub_folder), split="train")[0]
    assert doc["problem_image"].convert("RGB").getpixel((0, 0)) == (255, 0, 0)
    stated = [f"{k}: {v}" for entry in doc["visual_key_points"] for k, v in entry.items() if v is not None]
    assert stated == ["segment AH: the altitude to the base", "point H: the midpoint of BC"]
    assert set(doc["visual_key_points"][0]) == set(ELEMENTS)  # the union, nulls included
    assert doc["visual_identification_option"].startswith("A. segment AH")


def test_hub_layout_builds_the_same_rows_as_the_raw_release(hub_folder: Path, tmp_path: Path) -> None:
    from_hub, skipped = from_raw(hub_folder)
    from_jsonl, _ = from_raw(write_raw_release(tmp_path / "raw"))
    assert skipped == [] and len(from_hub) == 3
    assert comparable(from_hub) == comparable(from_jsonl)
    row = from_hub[1]
    assert row["id"] == "me2-0001" and row["answer"] == "D"  # ④, the fourth option
    assert row["visual_keypoints"] == [{"element": "segment CE", "description": "the altitude to AB"}]
    assert row["keypoint_options"][0] == "segment AH: the altitude to the base"
    assert from_hub.features["keypoint_answer"].int2str(row["keypoint_answer"]) == "D"
    assert from_hub[2]["section"] is None and from_hub[2]["problem_image"].getpixel((0, 0)) == (0, 0, 255)


def test_downloaded_folder_is_detected_though_it_has_a_card(hub_folder: Path) -> None:
    """A card beside data/*.parquet is what a built folder looks like too: the columns decide."""
    assert locate(str(hub_folder)) == ("raw", hub_folder)
    assert len(load(str(hub_folder))) == 3
    items = ME2().load_items(str(hub_folder), "me2_keypoints", None)
    assert [item.fields["keypoint_answer"] for item in items] == ["A", "D", "E"]
    assert len(ME2().load_items(str(hub_folder / "data" / "train-00000-of-00001.parquet"), "me2_solve", 2)) == 2


def test_hub_id_reads_the_downloaded_snapshot(hub_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    asked: list[tuple[str, str]] = []

    def snapshot_download(repo_id: str, repo_type: str, **_: Any) -> str:
        asked.append((repo_id, repo_type))
        return str(hub_folder)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    items = ME2().load_items("jungypark/ME2", "me2_explain", None)
    assert len(items) == 3 and items[0].fields["solution"].startswith("Draw the altitude AH")
    assert from_raw("jungypark/ME2")[0]["id"] == ["me2-0000", "me2-0001", "me2-0002"]
    assert asked[0] == ("jungypark/ME2", "dataset")
    # The authors' id is the raw release it holds for every consumer of `locate`
    # (`geomeval lmms-eval` builds it into its cache as it does a local release).
    assert locate("jungypark/ME2") == ("raw", hub_folder)


def test_geomeval_build_from_the_hub_folder(hub_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "built"
    result = subprocess.run(
        [sys.executable, "-m", "geomeval", "build", "me2", "--raw", str(hub_folder), "--out", str(out)],
        capture_output=True, text=True, timeout=300, cwd=REPO,
    )
    assert result.returncode == 0, result.stderr
    assert "test: 3 items" in result.stdout
    built = load_dataset(str(out), split="test")
    assert comparable(built) == comparable(from_raw(hub_folder)[0])


def test_unknown_layouts_name_what_was_expected_and_found(tmp_path: Path) -> None:
    wrong_split = write_hub_layout(tmp_path / "test-split", split="test")
    with pytest.raises(DataError) as info:
        from_raw(wrong_split)
    assert "split 'train'" in info.value.message and "found split 'test'" in info.value.message

    other = tmp_path / "other"
    (other / "data").mkdir(parents=True)
    pq.write_table(pa.table({"question": ["q"], "summary_solution_text": ["s"]}),
                   other / "data" / "train-00000-of-00001.parquet")
    with pytest.raises(DataError) as info:
        from_raw(other)
    assert info.value.field == "problem_image"
    assert "found the columns question, summary_solution_text" in info.value.message
    assert "missing: problem_image, problem_text" in info.value.message

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(FileNotFoundError) as raised:
        from_raw(empty)
    assert "Hub layout of jungypark/ME2" in str(raised.value) and "found: notes.txt" in str(raised.value)


def test_a_bad_embedded_image_names_the_item_and_field(tmp_path: Path) -> None:
    rows = hub_rows()
    rows[2]["problem_image"] = {"bytes": b"not a png", "path": "x.png"}
    folder = write_hub_layout(tmp_path / "bad", rows=rows)
    with pytest.raises(DataError) as info:
        from_raw(folder)
    assert (info.value.item, info.value.field) == ("me2-0002", "problem_image")
    ds, skipped = from_raw(folder, skip_invalid=True)
    assert len(ds) == 2 and skipped[0]["id"] == "me2-0002"


def test_the_union_of_element_names_may_be_large() -> None:
    """1,000 problems with about four keypoints each: thousands of element names in the union."""
    entry = {f"point P{i}": None for i in range(5000)} | {"point P7": "the seventh"}
    assert me2_raw.keypoints("x", [entry]) == [{"element": "point P7", "description": "the seventh"}]

