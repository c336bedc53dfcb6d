"""CapGeo's source files are read a record at a time (issue #42): a MathVista or MathVerse
file of many records the source does not keep costs memory for one record, not for the file,
and a GeoQA file is read a line at a time, still refused whole when it is not UTF-8."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path

import pytest
from PIL import Image

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.capgeo.sources import load_source

OTHER_RECORDS = 20000


def png(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (255, 255, 255)).save(buffer, format="PNG")
    path.write_bytes(buffer.getvalue())


def peak_bytes(load: object, *args: object) -> tuple[object, int]:
    """What `load(*args)` returns, and the most memory Python held while it ran (imports done
    first: the embedded sample's source loaded once, untraced)."""
    load_source("mathvista_geometry")
    load_source("mathverse_vision_only")
    tracemalloc.start()
    try:
        result = load(*args)  # type: ignore[operator]
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_mathvista_file_is_parsed_a_record_at_a_time(tmp_path: Path) -> None:
    png(tmp_path / "images" / "g.png")
    records = {f"p{i}": {"question": f"What is bar {i}? " + "x" * 800, "image": f"images/{i}.png", "answer": "1",
                         "question_type": "free_form", "metadata": {"task": "figure question answering"}}
               for i in range(OTHER_RECORDS)}
    records["g"] = {"question": "Find AB.", "image": "images/g.png", "answer": "7.5", "question_type": "free_form",
                    "choices": None, "metadata": {"task": "geometry problem solving", "skills": ["geometry"]}}
    alone = tmp_path / "alone.json"  # the kept record only: what reading its figure costs
    alone.write_text(json.dumps({"g": records["g"]}), encoding="utf-8")
    file = tmp_path / "testmini.json"
    file.write_text(json.dumps(records), encoding="utf-8")
    _, baseline = peak_bytes(load_source, "mathvista_geometry", alone)
    rows, peak = peak_bytes(load_source, "mathvista_geometry", file)
    assert [row["id"] for row in rows] == ["g"]  # type: ignore[attr-defined]
    # parsed whole, the records alone take more than the file's size (about 19 MB; what grows is the set of ids seen, about 3 MB)
    assert peak - baseline < file.stat().st_size / 4, (peak, baseline)


def test_a_mathverse_file_is_parsed_a_record_at_a_time(tmp_path: Path) -> None:
    png(tmp_path / "images_version_5" / "k.png")
    records = [{"sample_index": str(i), "problem_version": "Text Dominant", "question": "q " + "y" * 800,
                "image": "images_version_1-4/x.png", "answer": "A", "question_type": "free-form"}
               for i in range(OTHER_RECORDS)]
    records.append({"sample_index": "k", "problem_version": "Vision Only", "question": "", "answer": "3",
                    "image": "images_version_5/k.png", "question_type": "free-form"})
    alone = tmp_path / "alone.json"
    alone.write_text(json.dumps(records[-1:]), encoding="utf-8")
    file = tmp_path / "testmini.json"
    file.write_text(json.dumps(records), encoding="utf-8")
    _, baseline = peak_bytes(load_source, "mathverse_vision_only", alone)
    rows, peak = peak_bytes(load_source, "mathverse_vision_only", file)
    assert [row["id"] for row in rows] == ["k"]  # type: ignore[attr-defined]
    assert peak - baseline < file.stat().st_size / 4, (peak, baseline)


def test_a_geoqa_file_read_by_lines_keeps_its_line_numbers_and_utf8_check(tmp_path: Path) -> None:
    png(tmp_path / "a.png")
    good = {"id": 1, "subject": "Find x.", "choices": ["1", "2"], "label": 0, "image": "a.png"}
    file = tmp_path / "test.jsonl"
    file.write_text("\n" + json.dumps(good) + "\n\n" + json.dumps({**good, "id": 2, "label": 7}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"item '2', field 'label'"):
        load_source("geoqa", file)
    file.write_text("\n" + json.dumps(good) + "\n{torn\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"item 'line 3'.*not valid JSON"):
        load_source("geoqa", file)
    # a fault in line 2, text that is not UTF-8 after it: the file is refused as not UTF-8
    file.write_bytes(b"\n{torn\n" + json.dumps(good).encode() + b"\n\xff\xfe\n")
    with pytest.raises(DataError, match="not UTF-8 text"):
        load_source("geoqa", file)
    file.write_text("\r\n" + json.dumps(good) + "\r\n", encoding="utf-8")
    assert [row["id"] for row in load_source("geoqa", file)] == ["1"]
    file.write_text("  \n [" + json.dumps(good) + "]\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"expected GeoQA-style JSON lines.*found a JSON list"):
        load_source("geoqa", file)
