"""The GeoLaux builder: real data round-trips through parquet; bad data fails clearly."""

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
from geomeval.benchmarks.geolaux.card import render_card
from geomeval.benchmarks.geolaux.data import build, from_raw, sample_path
from geomeval.benchmarks.geolaux.features import FEATURES, step_bucket

REPO = Path(__file__).resolve().parents[2]


def test_real_sample_builds_and_loads_typed(geolaux_built: Path) -> None:
    ds = load_dataset(str(geolaux_built), split="test")
    assert len(ds) == 100
    assert ds.features == FEATURES
    for row in ds:
        assert isinstance(row["image"], Image.Image)
        row["image"].load()
        if row["auxiliary_image"] is not None:
            assert isinstance(row["auxiliary_image"], Image.Image)
    types = ds.features["type"].int2str(ds["type"])
    assert types.count("proving") == 29 and types.count("calculation") == 71
    row = ds[ds["id"].index("8_2_1")]
    assert row["answer"] == "60" and row["unit"] == "°" and row["choices"][1] == "B.60°"
    assert row["auxiliary_type"] == 2 and row["language"] == "zh"
    assert ds[ds["id"].index("15_5_1")]["answer"] is None


def test_built_folder_is_self_contained(geolaux_built: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(geolaux_built, moved)
    ds = load_dataset(str(moved), split="test")
    assert ds[0]["image"].size[0] > 0


def test_card_in_repo_matches_the_library() -> None:
    assert (REPO / "cards" / "geolaux" / "README.md").read_text(encoding="utf-8") == render_card()


def test_embedded_sample_is_valid_and_bilingual() -> None:
    ds, skipped = from_raw(sample_path())
    assert not skipped and len(ds) >= 8
    assert set(ds["language"]) == {"en", "zh"}
    assert set(ds.features["type"].int2str(ds["type"])) == {"calculation", "proving"}
    assert {step_bucket(n) for n in ds["step_length"]} == {"1-4", "5-8", "9-12", "13-24"}


def _copy_sample(tmp_path: Path) -> Path:
    raw = tmp_path / "raw"
    shutil.copytree(sample_path(), raw)
    return raw


def _edit(raw: Path, item: str, **changes: object) -> None:
    path = raw / "GeoLaux_sample.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data[item].update(changes)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"type": "calc"}, "type", "unknown value 'calc'"),
        ({"choices": ["A.1", "C.2"]}, "choices", "labelled C, expected B"),
        ({"choices": "A.1 B.2"}, "choices", "expected a list"),
        ({"original_image_name": "missing_figure"}, "original_image_name", "image file not found"),
        ({"auxiliary_type": 7}, "auxiliary_type", "expected 0, 1 or 2"),
        ({"step_length": -1}, "step_length", "non-negative integer"),
        ({"original_image_name": "../escape"}, "original_image_name", "plain file name"),
    ],
)
def test_bad_item_names_item_and_field(tmp_path: Path, changes: dict, field: str, message: str) -> None:
    raw = _copy_sample(tmp_path)
    _edit(raw, "zh_1", **changes)
    with pytest.raises(DataError, match=message) as caught:
        build(str(raw), str(tmp_path / "out"))
    assert caught.value.item == "zh_1" and caught.value.field == field
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_undecodable_image_is_reported(tmp_path: Path) -> None:
    raw = _copy_sample(tmp_path)
    (raw / "original_images" / "en_1.png").write_bytes(b"not a png")
    with pytest.raises(DataError, match="does not decode") as caught:
        from_raw(raw)
    assert caught.value.item == "en_1"


def test_skip_invalid_counts_and_keeps_the_rest(tmp_path: Path) -> None:
    raw = _copy_sample(tmp_path)
    _edit(raw, "zh_1", type="calc")
    _edit(raw, "en_2", choices=["B.1"])
    summary = build(str(raw), str(tmp_path / "out"), skip_invalid=True)
    assert {s["id"] for s in summary["skipped"]} == {"zh_1", "en_2"}
    total = len(json.loads((raw / "GeoLaux_sample.json").read_text(encoding="utf-8")))
    assert summary["splits"]["test"]["num_examples"] == total - 2


def test_existing_output_is_not_overwritten_by_accident(tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(str(sample_path()), str(out))
    marker = out / "keep.txt"
    marker.write_text("mine")
    with pytest.raises(FileExistsError, match="--overwrite"):
        build(str(sample_path()), str(out))
    assert marker.read_text() == "mine"
    with pytest.raises(FileExistsError, match=r"did not write \(keep\.txt\)"):  # nor by --overwrite
        build(str(sample_path()), str(out), overwrite=True)
    assert marker.read_text() == "mine"
    marker.unlink()
    build(str(sample_path()), str(out), overwrite=True)
    assert (out / "README.md").exists()


@pytest.mark.slow
def test_dataset_script_face_builds(tmp_path: Path) -> None:
    out = tmp_path / "built"
    result = subprocess.run(
        [sys.executable, str(REPO / "dataset_scripts" / "geolaux" / "build.py"), "--raw", str(sample_path()), "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert len(load_dataset(str(out), split="test")) == len(from_raw(sample_path())[0])
