"""The ME2 data layer: JSONL and JSON releases round-trip through typed parquet, both
keypoint forms and every option layout are read, and bad records fail naming the item and
the field."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from datasets import load_dataset
from PIL import Image

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.me2.card import render_card
from geomeval.benchmarks.me2.data import build, from_raw, load, locate, sample_path, undecoded
from geomeval.benchmarks.me2.features import FEATURES
from geomeval.benchmarks.me2.raw import (
    is_release,
    keypoint_options,
    keypoints,
    locate_release,
    option_letter,
    read_records,
    split_options,
)

REPO = Path(__file__).resolve().parents[2]
OPTIONS = [
    "point D; segment AD",
    "circle O",
    "tangent line at T",
    "angle BAC marked",
    "midpoint M of BC",
]


def _png(path: Path, colour: str = "white") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 6), colour).save(path)


def _record(item_id: str, **changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": item_id,
        "problem_text": f"In triangle ABC ({item_id}), find AD.\n① 1 ② 2 ③ 3 ④ 4 ⑤ 5",
        "problem_image": f"problem_image/{item_id}.png",
        "solution_image": f"solution_image/{item_id}.png",
        "answer_text": "(B)",
        "solution_text": "Draw the perpendicular AD; then AD = 2.",
        "summary_solution_text": "Drop a perpendicular and use the Pythagorean theorem.",
        "visual_key_points": [
            {"element": "point D", "description": "the foot of the perpendicular from A"}
        ],
        "visual_identification_option": "\n".join(
            f"{'ABCDE'[i]}. {text}" for i, text in enumerate(OPTIONS)
        ),
        "visual_identification_answer": "A",
        "chapter_title": "Triangles",
        "section_title": "",
        "question_answer_type": "geometry_choice",
        "option_sources": [
            "correct",
            "similar_problem",
            "similar_summary",
            "similar_keypoints",
            "random",
        ],
        "option_items": [item_id, "x1", "x2", "x3", "x4"],
    }
    for key, value in changes.items():
        if value is _DROP:
            record.pop(key, None)
        else:
            record[key] = value
    return record


_DROP = object()


def _release(
    tmp_path: Path,
    records: list[dict[str, Any]] | None = None,
    name: str = "ME2.jsonl",
    form: str = "jsonl",
) -> Path:
    root = tmp_path / "raw"
    root.mkdir(parents=True, exist_ok=True)
    records = records if records is not None else [_record("g1"), _record("g2")]
    for record in records:
        for field in ("problem_image", "solution_image"):
            value = record.get(field)
            # Paths outside the folder, and the stems 404 and link, are left for the test to make.
            if (
                isinstance(value, str)
                and ".." not in value
                and not value.startswith("/")
                and Path(value).stem not in ("404", "link")
            ):
                _png(root / value)
    path = root / name
    if form == "jsonl":
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
    elif form == "list":
        path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    else:  # an object keyed by id
        path.write_text(
            json.dumps({r["id"]: r for r in records}, ensure_ascii=False), encoding="utf-8"
        )
    return root


def _error(raw: Path) -> DataError:
    with pytest.raises(DataError) as info:
        from_raw(raw)
    return info.value


# --------------------------------------------------------------------------- reading


@pytest.mark.parametrize(
    ("form", "name"), [("jsonl", "ME2.jsonl"), ("list", "data.json"), ("object", "me2.json")]
)
def test_every_file_form_reads_the_same_rows(tmp_path: Path, form: str, name: str) -> None:
    raw = _release(tmp_path, name=name, form=form)
    ds, skipped = from_raw(raw)
    assert skipped == [] and ds.features == FEATURES and ds["id"] == ["g1", "g2"]
    row = ds[0]
    assert row["answer"] == "B" and row["keypoint_options"] == OPTIONS
    assert ds.features["keypoint_answer"].int2str(row["keypoint_answer"]) == "A"
    assert ds.features["domain"].int2str(row["domain"]) == "geometry"
    assert ds.features["question_format"].int2str(row["question_format"]) == "multiple-choice"
    assert row["chapter"] == "Triangles" and row["section"] is None
    assert row["visual_keypoints"] == [
        {"element": "point D", "description": "the foot of the perpendicular from A"}
    ]
    assert isinstance(row["problem_image"], Image.Image) and isinstance(
        row["solution_image"], Image.Image
    )
    assert ds.features["option_sources"].feature.int2str(row["option_sources"][0]) == "correct"
    assert row["option_items"] == ["g1", "x1", "x2", "x3", "x4"]
    assert len(from_raw(raw / name)[0]) == 2  # the records file itself works too


def test_public_release_shape_without_geomeval_extensions(tmp_path: Path) -> None:
    """Keys as the public release has them: no id, no solution image, no provenance, the
    struct-union keypoints, `question_type`/`answer_type`, a graph short-answer item."""
    bare = _record(
        "x",
        id=_DROP,
        solution_image=_DROP,
        option_sources=_DROP,
        option_items=_DROP,
        problem_image="p0.png",
        answer_text=" 12 cm ",
        question_answer_type="Graph_Short",
        question_type="short",
        answer_type="numeric",
        chapter_title=None,
        visual_key_points=[
            {"point D": "the foot of the perpendicular", "segment AD": None},
            {"point D": None, "segment AD": "the altitude"},
        ],
        visual_identification_option=None,
        visual_identification_answer=None,
    )
    numbered = _record(
        "y",
        id=_DROP,
        problem_id=7,
        problem_image="p1.png",
        solution_image=None,
        option_items=_DROP,
        option_sources=_DROP,
        answer_text="③",
    )
    raw = _release(tmp_path, [bare, numbered])
    ds, _ = from_raw(raw)
    assert ds["id"] == ["me2-0000", "7"]
    row = ds[0]
    assert row["answer"] == "12 cm" and row["solution_image"] is None and row["chapter"] is None
    assert ds.features["domain"].int2str(row["domain"]) == "graph"
    assert ds.features["question_format"].int2str(row["question_format"]) == "short-answer"
    assert row["visual_keypoints"] == [
        {"element": "point D", "description": "the foot of the perpendicular"},
        {"element": "segment AD", "description": "the altitude"},
    ]
    assert row["keypoint_options"] is None and row["keypoint_answer"] is None
    assert row["option_sources"] is None and row["option_items"] is None
    assert ds[1]["answer"] == "C"  # ③


def test_images_are_found_beside_the_records_and_in_the_image_folders(tmp_path: Path) -> None:
    raw = _release(tmp_path, [_record("g1", problem_image="g1.png", solution_image="./g1.png")])
    (raw / "g1.png").unlink()
    _png(raw / "images" / "g1.png", "red")
    ds, _ = from_raw(raw)  # g1.png is not beside the records, but in images/
    assert ds[0]["problem_image"].getpixel((0, 0)) == (255, 0, 0)
    _png(raw / "solution_image" / "g1.png", "lime")  # solution_image/ comes before images/
    assert from_raw(raw)[0][0]["solution_image"].getpixel((0, 0)) == (0, 255, 0)
    _png(raw / "g1.png", "blue")  # beside the records file wins
    assert from_raw(raw)[0][0]["problem_image"].getpixel((0, 0)) == (0, 0, 255)


@pytest.mark.parametrize(
    "text",
    [
        "A. point D; segment AD\nB. circle O\nC. tangent line at T\nD. angle BAC marked\nE. midpoint M of BC",
        "Options:\n(A) point D; segment AD\n(B) circle O\n(C) tangent line at T\n(D) angle BAC marked\n(E) midpoint M of BC",
        "A) point D; segment AD\nB ) circle O\nC: tangent line at T\n**D.** angle BAC marked\n**E**. midpoint M of BC",
        "**(A)** point D; segment AD\nOption B: circle O\nC： tangent line at T\nD) angle BAC marked\nE.   midpoint M of BC  ",
        "(A) point D; segment AD (B) circle O (C) tangent line at T (D) angle BAC marked (E) midpoint M of BC",
        "(A) point D; segment AD (B) circle O\n(C) tangent line at T (D) angle BAC marked (E) midpoint M of BC",
    ],
)
def test_option_string_forms(text: str) -> None:
    assert split_options("x", text) == OPTIONS


def test_multi_line_options_keep_their_continuation_lines() -> None:
    text = "A.\npoint D: the foot\nsegment AD\nB. circle O\nC. tangent line at T\nD. angle BAC\nE. midpoint M"
    options = split_options("x", text)
    assert options[0] == "point D: the foot\nsegment AD" and options[4] == "midpoint M"
    assert split_options("x", "A. A.B is a chord\nB. b\nC. c\nD. d\nE. e")[0] == "A.B is a chord"


def test_option_lists_and_objects() -> None:
    assert keypoint_options("x", OPTIONS) == OPTIONS
    assert (
        keypoint_options(
            "x", {letter: text for letter, text in zip("EDCBA", OPTIONS[::-1], strict=True)}
        )
        == OPTIONS
    )
    with pytest.raises(DataError, match="expected 5 options, got 4"):
        keypoint_options("x", OPTIONS[:4])
    with pytest.raises(DataError, match="keys A-E"):
        keypoint_options("x", {"A": "a", "B": "b", "C": "c", "D": "d", "F": "f"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("A. a\nB. b\nC. c\nD. d", "markers found: ABCD"),
        ("A. a\nC. c\nB. b\nD. d\nE. e", "markers found: ACBDE"),
        ("A. a\nB. b\nC. c\nD. d\nE. e\nA. again", "markers found: ABCDEA"),
        ("just some keypoints", "markers found: none"),
        ("A. a\nB.\nC. c\nD. d\nE. e", "option B is empty"),
    ],
)
def test_bad_option_strings(text: str, message: str) -> None:
    with pytest.raises(DataError) as info:
        split_options("x", text)
    assert info.value.field == "visual_identification_option" and message in info.value.message


def test_option_letters() -> None:
    for written, letter in [
        ("B", "B"),
        ("b", "B"),
        ("(B)", "B"),
        ("B.", "B"),
        ("B)", "B"),
        (" (c) ", "C"),
        ("①", "A"),
        ("⑤", "E"),
    ]:
        assert option_letter(written) == letter, written
    for written in ("F", "3", "(3)", "BC", "answer B", "⑥", ""):
        assert option_letter(written) is None, written


def test_keypoint_forms_and_their_errors() -> None:
    assert keypoints("x", {"element": "O", "description": "the centre"}) == [
        {"element": "O", "description": "the centre"}
    ]
    assert keypoints("x", [{"description": "only words", "element": None}]) == [
        {"element": "", "description": "only words"}
    ]
    with pytest.raises(DataError) as info:
        keypoints("x", [{"point D": "fine"}, {"segment AD": 3}])
    assert (info.value.item, info.value.field) == ("x", "visual_key_points[1]")
    with pytest.raises(DataError, match="at least one"):
        keypoints("x", [{"point D": None}])
    with pytest.raises(DataError, match="more than 64"):
        keypoints("x", [{f"p{i}": "d" for i in range(65)}])


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"diagram": "x.png"}, "diagram", "unknown field"),
        ({"summary_solution_text": _DROP}, "summary_solution_text", "missing"),
        (
            {"question_answer_type": "algebra_choice"},
            "question_answer_type",
            "unknown value 'algebra_choice'",
        ),
        ({"problem_image": "problem_image/404.png"}, "problem_image", "image file not found"),
        (
            {"problem_image": "../outside.png"},
            "problem_image",
            "must stay inside the release folder",
        ),
        (
            {"solution_image": "/etc/passwd"},
            "solution_image",
            "must stay inside the release folder",
        ),
        (
            {"visual_identification_option": "A. a\nB. b\nC. c\nD. d"},
            "visual_identification_option",
            "five options",
        ),
        (
            {"visual_identification_answer": "F"},
            "visual_identification_answer",
            "not an option letter",
        ),
        ({"visual_identification_answer": None}, "visual_identification_answer", "missing, but"),
        ({"answer_text": "3"}, "answer_text", "not an option letter"),
        ({"answer_text": "   "}, "answer_text", "empty"),
        ({"problem_text": "x" * 50_001}, "problem_text", "longer than 50000"),
        ({"visual_key_points": []}, "visual_key_points", "at least one"),
        (
            {
                "option_sources": [
                    "random",
                    "correct",
                    "similar_problem",
                    "similar_summary",
                    "similar_keypoints",
                ]
            },
            "option_sources",
            "at the answer A",
        ),
        (
            {"option_sources": ["correct", "nearest", "random", "random", "random"]},
            "option_sources[1]",
            "unknown source",
        ),
        ({"option_items": ["x9", "x1", "x2", "x3", "x4"]}, "option_items", "not the item itself"),
    ],
)
def test_bad_records_name_item_and_field(
    tmp_path: Path, changes: dict[str, Any], field: str, message: str
) -> None:
    raw = _release(tmp_path, [_record("g1"), _record("g2", **changes)])
    error = _error(raw)
    assert (error.item, error.field) == ("g2", field)
    assert message in error.message


def test_an_image_link_leading_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.png"
    _png(outside)
    raw = _release(tmp_path, [_record("g1", problem_image="problem_image/link.png")])
    (raw / "problem_image").mkdir(exist_ok=True)
    (raw / "problem_image" / "link.png").symlink_to(outside)
    error = _error(raw)
    assert (error.item, error.field) == (
        "g1",
        "problem_image",
    ) and "outside the release folder" in error.message


def test_undecodable_image(tmp_path: Path) -> None:
    raw = _release(tmp_path)
    (raw / "solution_image" / "g2.png").write_bytes(b"not a png")
    error = _error(raw)
    assert (error.item, error.field) == (
        "g2",
        "solution_image",
    ) and "does not decode" in error.message


def test_file_level_errors(tmp_path: Path) -> None:
    raw = _release(tmp_path, [_record("g1"), _record("g1")])
    assert (_error(raw).item, _error(raw).field) == ("g1", "id")  # appears twice
    keyed = _release(tmp_path / "k", [_record("g1")], name="me2.json", form="object")
    record = json.loads((keyed / "me2.json").read_text(encoding="utf-8"))
    record["g1"]["id"] = "other"
    (keyed / "me2.json").write_text(json.dumps(record), encoding="utf-8")
    assert "differs from the key" in _error(keyed).message
    (keyed / "me2.json").write_text("[1, 2", encoding="utf-8")
    assert (_error(keyed).item, _error(keyed).field) == ("(file)", "me2.json")
    (keyed / "me2.json").write_text('"just text"', encoding="utf-8")
    assert "expected a JSON list" in _error(keyed).message


def test_locating_the_records_file(tmp_path: Path) -> None:
    folder = tmp_path / "release"
    folder.mkdir()
    with pytest.raises(FileNotFoundError, match=r"holds no \.jsonl or \.json"):
        locate_release(folder)
    (folder / "a.jsonl").write_text("", encoding="utf-8")
    assert locate_release(folder) == folder / "a.jsonl"  # the only candidate
    (folder / "b.json").write_text("[]", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="several records files"):
        locate_release(folder)
    (folder / "data.json").write_text("[]", encoding="utf-8")
    assert locate_release(folder) == folder / "data.json"
    (folder / "ME2.jsonl").write_text("", encoding="utf-8")
    assert locate_release(folder) == folder / "ME2.jsonl"
    with pytest.raises(FileNotFoundError, match="not found"):
        locate_release(tmp_path / "nowhere")


def test_read_records_gives_the_builds_ids_and_the_records_as_they_are(tmp_path: Path) -> None:
    """`read_records` (what make-options reads): file order, the build's ids, every record
    untouched, the file's format; a bad line is an error naming it, as there is no skip mode."""
    bare = {"id": _DROP, "option_items": _DROP, "option_sources": _DROP}
    records = [_record("g1"), _record("x", problem_id=7, **bare), _record("y", **bare)]
    for form, name, kind in (("jsonl", "ME2.jsonl", "jsonl"), ("list", "data.json", "json")):
        raw = _release(tmp_path / form, records, name=name, form=form)
        pairs, found = read_records(raw)
        assert found == kind and [record for _id, record in pairs] == records
        assert [item_id for item_id, _r in pairs] == ["g1", "7", "me2-0002"]
        assert from_raw(raw)[0]["id"] == ["g1", "7", "me2-0002"]
    keyed = _release(tmp_path / "object", name="me2.json", form="object")
    pairs, found = read_records(keyed)
    assert found == "json-object" and [item_id for item_id, _r in pairs] == ["g1", "g2"]
    with (tmp_path / "jsonl" / "raw" / "ME2.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("\n{not json\n")
    with pytest.raises(DataError) as info:
        read_records(tmp_path / "jsonl" / "raw")
    assert (info.value.item, info.value.field) == ("line 5", "(record)")
    assert "not valid JSON" in info.value.message


def test_is_release_needs_me2_keys(tmp_path: Path) -> None:
    raw = _release(tmp_path)
    assert is_release(raw) and is_release(raw / "ME2.jsonl")
    other = tmp_path / "geolaux"
    other.mkdir()
    (other / "GeoLaux.json").write_text('{"1": {"problem_text": "x"}}', encoding="utf-8")
    assert (
        not is_release(other)
        and not is_release(other / "GeoLaux.json")
        and not is_release(tmp_path / "none")
    )
    assert locate(str(raw)) == ("raw", raw)


def test_skip_invalid_leaves_bad_items_out_and_counts_them(tmp_path: Path) -> None:
    records = [
        _record("g1"),
        _record("g2", answer_text="seven"),
        _record("g3", question_answer_type="x"),
    ]
    raw = _release(tmp_path, records)
    with (raw / "ME2.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("\n{not json\n")
    ds, skipped = from_raw(raw, skip_invalid=True)
    assert ds["id"] == ["g1"]
    assert [(s["id"], s["field"]) for s in skipped] == [
        ("g2", "answer_text"),
        ("g3", "question_answer_type"),
        ("line 5", "(record)"),
    ]
    assert "not valid JSON" in skipped[2]["error"]
    with pytest.raises(DataError) as info:
        from_raw(raw)
    assert (info.value.item, info.value.field) == ("g2", "answer_text")


# --------------------------------------------------------------------------- building


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("me2")
    raw = _release(
        root,
        [_record("g1"), _record("g2", question_answer_type="graph_short", answer_text="y = 2x")],
    )
    out = root / "built"
    summary = build(str(raw), str(out))
    assert summary["skipped"] == [] and summary["splits"]["test"]["num_examples"] == 2
    return out


def test_build_writes_parquet_that_loads_typed_offline(built: Path) -> None:
    ds = load_dataset(str(built), split="test")
    assert ds.features == FEATURES and len(ds) == 2
    assert ds[1]["answer"] == "y = 2x"
    raw_images = undecoded(ds)
    for row in raw_images:
        assert row["problem_image"]["bytes"] and row["solution_image"]["bytes"]
    assert "num_examples: 2" in (built / "README.md").read_text(encoding="utf-8")
    assert locate(str(built)) == ("built", built) and len(load(str(built))) == 2


def test_built_folder_is_self_contained(built: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(built, moved)
    assert load_dataset(str(moved), split="test")[0]["problem_image"].size == (8, 6)


def test_card_in_repo_matches_the_library() -> None:
    card = render_card()
    assert (REPO / "cards" / "me2" / "README.md").read_text(encoding="utf-8") == card
    assert "2504.03197" in card and "## Differences from the paper and the official code" in card


@pytest.mark.slow
def test_build_script_end_to_end(tmp_path: Path) -> None:
    raw = _release(tmp_path, [_record("g1"), _record("g2", answer_text="Z")])
    script = str(REPO / "dataset_scripts" / "me2" / "build.py")
    out = tmp_path / "out"
    failed = subprocess.run(
        [sys.executable, script, "--raw", str(raw), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert failed.returncode == 2 and "'g2'" in failed.stderr and "answer_text" in failed.stderr
    assert not out.exists()  # nothing half-written
    result = subprocess.run(
        [sys.executable, script, "--raw", str(raw), "--out", str(out), "--skip-invalid"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "test: 1 items" in result.stdout and "skipped 1 invalid item(s)" in result.stdout
    report = json.loads((out / "build_report.json").read_text(encoding="utf-8"))
    assert report["skipped"][0]["id"] == "g2"
    assert load_dataset(str(out), split="test")["id"] == ["g1"]


def test_embedded_sample_builds_cleanly(tmp_path: Path) -> None:
    if not (sample_path() / "ME2.jsonl").is_file():
        pytest.skip("the embedded ME2 sample is not there yet")
    ds, skipped = from_raw(sample_path())
    assert skipped == [] and len(ds) == 15 and ds.features == FEATURES
    assert all(row["solution_image"] is not None and row["keypoint_options"] for row in ds)
    domains = {ds.features["domain"].int2str(d) for d in ds["domain"]}
    formats = {ds.features["question_format"].int2str(f) for f in ds["question_format"]}
    assert domains == {"geometry", "graph"} and formats == {"multiple-choice", "short-answer"}
    summary = build(str(sample_path()), str(tmp_path / "built"))
    assert summary["splits"]["test"]["num_examples"] == 15
    assert locate(None)[0] == "raw" and len(load(None)) == 15


def test_size_bounds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from geomeval.benchmarks.me2 import raw as me2_raw

    long_text = "x" * 2000
    raw = _release(tmp_path, [_record("g1"), _record("g2", solution_text=long_text), _record("g3")])
    monkeypatch.setattr(me2_raw, "MAX_LINE_CHARS", 1200)
    ds, skipped = from_raw(raw, skip_invalid=True)
    assert ds["id"] == ["g1", "g3"]  # the record after the long line is read whole
    assert skipped[0]["id"] == "line 2" and "longer than 1200" in skipped[0]["error"]
    monkeypatch.setattr(me2_raw, "MAX_FILE_BYTES", 100)
    error = _error(raw)
    assert (error.item, error.field) == (
        "(file)",
        "ME2.jsonl",
    ) and "larger than 100 bytes" in error.message
