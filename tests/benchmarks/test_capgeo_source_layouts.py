"""CapGeo's reasoning sources (§5.1: MathVerse Vision Only and Vision Intensive, MathVista's
geometry problems, GeoQA) build from folders laid out as each is published: file names,
field names and nesting as the official files have them, through the real build path
(`data.build_source`, what `geomeval capgeo build` runs). A layout the loaders do not read is
refused naming what was expected and what was found."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.capgeo import data as reasoning_data
from geomeval.engines.hfdata import load_built


def figure(path: Path, fmt: str = "PNG") -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (255, 255, 255)).save(buffer, format=fmt)
    path.write_bytes(buffer.getvalue())
    return path.name


def mathvista_release(root: Path, name: str = "annot_testmini.json") -> Path:
    """MathVista's annotation file as the Hub repository ships it: an object keyed by pid, the
    images under images/ (JPEG), every record with metadata; one non-geometry item."""
    def record(pid: str, task: str, **fields: object) -> dict[str, object]:
        figure(root / "images" / f"{pid}.jpg", "JPEG")
        return {"question": fields["question"], "image": f"images/{pid}.jpg", "choices": fields.get("choices"),
                "unit": fields.get("unit"), "precision": fields.get("precision"), "answer": fields["answer"],
                "question_type": fields["question_type"], "answer_type": fields["answer_type"], "pid": pid,
                "metadata": {"split": "testmini", "language": "english", "img_width": 40, "img_height": 30,
                             "source": "GeoQA+", "category": "math-targeted-vqa", "task": task,
                             "context": "geometry diagram", "grade": "high school",
                             "skills": ["geometry reasoning", "algebraic reasoning"]},
                "query": "Hint: ... Question: " + str(fields["question"])}

    annotations = {
        "5": record("5", "geometry problem solving", question="Find the measure of angle x.",
                    choices=["30°", "45°", "60°", "90°"], answer="45°", question_type="multi_choice",
                    answer_type="text"),
        "17": record("17", "figure question answering", question="What is the largest bar?", answer="7",
                     question_type="free_form", answer_type="integer"),
        "44": record("44", "geometry problem solving", question="Find AB.", unit="cm", precision=1.0,
                     answer="7.5", question_type="free_form", answer_type="float"),
    }
    (root / name).write_text(json.dumps(annotations, ensure_ascii=False, indent=1), encoding="utf-8")
    return root


def mathverse_release(root: Path) -> Path:
    """MathVerse's testmini.json, a list of records, with images.zip unpacked beside it."""
    def record(index: int, problem: int, version: str, folder: str, question: str, answer: str,
               kind: str) -> dict[str, object]:
        figure(root / folder / f"image_{problem}.png")
        return {"sample_index": str(index), "problem_index": str(problem), "problem_version": version,
                "question": question, "image": f"{folder}/image_{problem}.png", "answer": answer,
                "question_type": kind,
                "metadata": {"split": "testmini", "source": "GeoQA", "subject": "Plane Geometry", "subfield": "Angle"},
                "query_wo": "Please directly answer the question ...", "query_cot": "Please first conduct reasoning ...",
                "question_for_eval": "As shown in the figure, AB ∥ CD. Find ∠2.\nChoices:\nA:30°\nB:40°"}

    records = [
        record(1, 1, "Text Dominant", "images_version_1-4", "AB ∥ CD, ∠1 = 40°. Find ∠2.\nChoices:\nA:30°\nB:40°",
               "B", "multi-choice"),
        record(4, 1, "Vision Intensive", "images_version_1-4", "As shown in the figure, find ∠2.\nChoices:\nA:30°\nB:40°",
               "B", "multi-choice"),
        record(6, 1, "Vision Only", "images_version_6", "", "B", "multi-choice"),
        record(10, 2, "Vision Intensive", "images_version_1-4", "Find the length of AB.", "5", "free-form"),
    ]
    (root / "testmini.json").write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return root


def geoqa_release(root: Path) -> Path:
    """GeoQA's problems as JSON lines (the fields of its release: subject, choices, label),
    images beside the file."""
    lines = []
    for number in range(1, 4):
        figure(root / "images" / f"{number}.png")
        lines.append({"id": number, "subject": f"As shown in the figure, problem {number}. Then x = ()",
                      "choices": ["1", "2", "3", "4"], "label": number - 1, "answer": str(number),
                      "image": f"images/{number}.png"})
    (root / "test.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return root


def built_rows(source: str, release: Path, out: Path) -> tuple[list[dict], dict]:
    summary = reasoning_data.build_source(source, out, data=release)
    return list(load_built(out)), summary


def test_mathvista_hub_annotation_file_builds_its_geometry_problems(tmp_path: Path) -> None:
    rows, summary = built_rows("mathvista_geometry", mathvista_release(tmp_path / "MathVista"), tmp_path / "out")
    assert [r["id"] for r in rows] == ["5", "44"]  # the figure-QA item is not a geometry problem
    assert rows[0]["choices"] == ["30°", "45°", "60°", "90°"] and rows[0]["answer"] == "45°"
    assert rows[1]["choices"] == [] and rows[1]["unit"] == "cm" and rows[1]["answer"] == "7.5"
    assert rows[1]["subject"] == "geometry reasoning, algebraic reasoning"
    assert summary["captioned"] == 0 and summary["items"] == 2  # no captions joined without --captions


def test_mathvista_repository_file_name_builds_too(tmp_path: Path) -> None:
    rows, _ = built_rows("mathvista_geometry", mathvista_release(tmp_path / "data", "testmini.json"), tmp_path / "out")
    assert [r["id"] for r in rows] == ["5", "44"]


@pytest.mark.parametrize(("source", "ids"), [("mathverse_vision_intensive", ["4", "10"]),
                                             ("mathverse_vision_only", ["6"])])
def test_mathverse_testmini_builds_each_version(source: str, ids: list[str], tmp_path: Path) -> None:
    rows, _ = built_rows(source, mathverse_release(tmp_path / "MathVerse"), tmp_path / "out")
    assert [r["id"] for r in rows] == ids
    if source == "mathverse_vision_only":  # the problem is drawn in the image; its letters still count
        assert rows[0]["question"] == "" and rows[0]["choices"] == ["30°", "40°"]
    else:
        assert rows[0]["question"] == "As shown in the figure, find ∠2." and rows[0]["choices"] == ["30°", "40°"]
        assert rows[1]["choices"] == [] and rows[1]["answer"] == "5"


def test_geoqa_lines_build_with_the_subsample_recorded(tmp_path: Path) -> None:
    rows, summary = built_rows("geoqa", geoqa_release(tmp_path / "GeoQA"), tmp_path / "out")
    assert [r["id"] for r in rows] == ["1", "2", "3"] and [r["answer"] for r in rows] == ["A", "B", "C"]
    assert summary["subsample"] == {"size": 200, "seed": 0}  # a file of 200 or fewer is used whole


def test_the_cli_builds_an_official_layout(tmp_path: Path) -> None:
    release = mathvista_release(tmp_path / "MathVista")
    done = subprocess.run([sys.executable, "-m", "geomeval.cli", "capgeo", "build", "--source", "mathvista_geometry",
                           "--data", str(release), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert [r["id"] for r in load_built(tmp_path / "out")] == ["5", "44"]


def test_a_folder_of_another_layout_names_what_was_expected_and_found(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    (hub / "data").mkdir(parents=True)
    (hub / "data" / "testmini-00000-of-00001.parquet").write_bytes(b"PAR1")
    (hub / "README.md").write_text("card")
    with pytest.raises(FileNotFoundError) as error:
        reasoning_data.build_source("mathvista_geometry", tmp_path / "out", data=hub)
    message = str(error.value)
    assert "holds no testmini.json or annot_testmini.json for source mathvista_geometry" in message
    assert "expected MathVista's testmini.json: a JSON object keyed by pid" in message
    assert "found: README.md, data/" in message
    with pytest.raises(DataError, match="Hub parquet shards are not read for mathvista_geometry"):
        reasoning_data.build_source("mathvista_geometry", tmp_path / "out",
                                    data=hub / "data" / "testmini-00000-of-00001.parquet")


def test_geoqa_pickles_are_refused_not_unpickled(tmp_path: Path) -> None:
    pickle = tmp_path / "test.pk"
    pickle.write_bytes(b"\x80\x04K\x01.")
    with pytest.raises(DataError, match=r"test\.pk.*never read for geoqa: unpickling can run code; "
                                        r"expected GeoQA-style JSON lines"):
        reasoning_data.build_source("geoqa", tmp_path / "out", data=pickle)


def test_files_of_the_wrong_shape_name_what_was_expected_and_found(tmp_path: Path) -> None:
    listed = tmp_path / "listed.json"
    listed.write_text(json.dumps([{"pid": "1"}]))
    with pytest.raises(DataError, match=r"expected MathVista's testmini.json: a JSON object keyed by pid.*"
                                        r"found a JSON list of 1"):
        reasoning_data.build_source("mathvista_geometry", tmp_path / "out", data=listed)
    keyed = tmp_path / "keyed.json"
    keyed.write_text(json.dumps({"1": {"question": "q"}}))
    with pytest.raises(DataError, match=r"expected MathVerse's testmini.json: a JSON list.*found a JSON object with "
                                        r"keys 1"):
        reasoning_data.build_source("mathverse_vision_only", tmp_path / "out", data=keyed)
    with pytest.raises(DataError, match=r"item '1', field 'metadata': missing: expected MathVista's.*"
                                        r"the record has question"):
        reasoning_data.build_source("mathvista_geometry", tmp_path / "out", data=keyed)
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"sample_index": "3", "question": "q", "image": "a.png"}]))
    with pytest.raises(DataError, match=r"item '3', field 'problem_version': missing: expected MathVerse's.*the record has "
                                        r"sample_index, question, image"):
        reasoning_data.build_source("mathverse_vision_intensive", tmp_path / "out", data=other)
    as_list = tmp_path / "geoqa.jsonl"
    as_list.write_text(json.dumps([{"id": 1}]))
    with pytest.raises(DataError, match=r"expected GeoQA-style JSON lines.*found a JSON list"):
        reasoning_data.build_source("geoqa", tmp_path / "out", data=as_list)
