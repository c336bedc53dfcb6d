"""Release JSON read a member at a time (`datasource.iter_json_object`, `iter_json_array`):
the same values and the same refusals as reading the file whole with the json module, without
ever holding the file (GeoLaux's 100k-item release is 148 MB of JSON)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.datasource import (
    MAX_JSON_DEPTH,
    collect,
    iter_json_array,
    iter_json_object,
)
from geomeval.benchmarks.geolaux.data import sample_path
from geomeval.benchmarks.geolaux.raw import convert_record, read_release

SAMPLE = "GeoLaux_sample.json"


def _write(tmp_path: Path, content: bytes | str, name: str = "release.json") -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def _copy_sample(tmp_path: Path) -> Path:
    raw = tmp_path / "raw"
    shutil.copytree(sample_path(), raw)
    return raw


def _records(raw: Path) -> dict:
    return json.loads((raw / SAMPLE).read_text(encoding="utf-8"))


def test_members_and_numbers_are_what_the_json_module_gives(tmp_path: Path) -> None:
    text = ('{"a": {"int": 3, "float": 1.5, "exp": 1E2, "neg0": -0.0, "big": 12345678901234567890, '
            '"huge": 1e400, "tiny": 1e-400, "none": null, "yes": true, "text": "∠B \\u00e9 \\ud83d\\ude00", '
            '"nested": [1, [2, {"k": []}], {}]}, "b": [], "c": "x", "d": 0.1}')
    path = _write(tmp_path, text)
    read = list(iter_json_object(path))
    assert read == list(json.loads(text).items())
    assert [type(v) for v in read[0][1].values()] == [type(v) for v in json.loads(text)["a"].values()]
    assert list(iter_json_array(_write(tmp_path, "[1, 2.5, {\"a\": [3]}]", "list.json"), expected="a list")) == [
        1, 2.5, {"a": [3]}]


def test_a_large_release_gives_the_same_rows_as_read_whole(tmp_path: Path) -> None:
    """Hundreds of items, so the file spans many of ijson's 64 KB reads and records straddle them."""
    raw = _copy_sample(tmp_path)
    sample = _records(raw)
    grown = {f"{item_id}-{copy}": record for copy in range(60) for item_id, record in sample.items()}
    (raw / SAMPLE).write_text(json.dumps(grown, ensure_ascii=False, indent=1), encoding="utf-8")
    assert (raw / SAMPLE).stat().st_size > 4 * 64 * 1024
    streamed = read_release(raw)
    whole = collect(((item_id, record) for item_id, record in grown.items()),
                    lambda item_id, record: convert_record(item_id, record, raw))
    assert len(streamed.rows) == len(grown) and streamed.rows == whole.rows


def test_a_fault_of_the_file_is_found_before_any_member_is_given(tmp_path: Path) -> None:
    """As read whole: a torn tail is reported before the first item, not after it was converted
    (so an item's own fault cannot hide the file's, nor `skip_invalid` count it away)."""
    path = _write(tmp_path, '{"first": {"x": 1}, ' + '"filler": "' + "y" * 300_000 + '", "last": {"x": tru}}')
    members = iter_json_object(path)
    with pytest.raises(DataError, match=r"release\.json.*not valid JSON after item 'filler'"):
        next(members)


def test_an_id_written_twice_is_refused_naming_it(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"p1": {"x": 1}, "p2": {"x": 2}, "p1": {"x": 3}}')
    with pytest.raises(DataError, match=r"the key appears twice") as caught:
        list(iter_json_object(path))
    assert (caught.value.item, caught.value.field) == ("p1", "id") and "release.json" in caught.value.message


def test_a_key_written_twice_inside_a_record_is_refused_naming_the_item_and_the_key(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"p1": {"x": 1}, "p2": {"type": "calc", "steps": [{"n": 1, "n": 2}]}}')
    with pytest.raises(DataError, match=r"release\.json: the key appears twice") as caught:
        list(iter_json_object(path))
    assert (caught.value.item, caught.value.field) == ("p2", "n")
    listed = _write(tmp_path, '[{"a": 1}, {"a": 1, "a": 2}]', "list.json")
    with pytest.raises(DataError, match="appears twice") as caught:
        list(iter_json_array(listed, expected="a list"))
    assert (caught.value.item, caught.value.field) == ("#1", "a")


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("[1, 2]", "expected a JSON object keyed by problem id"),
        ('"text"', "expected a JSON object keyed by problem id"),
        ("[1, 2", "not valid JSON"),  # the whole file is checked as JSON before its kind
        ("", "not valid JSON"),
        ('{"a": {"x": 1}} trailing', "not valid JSON after item 'a'"),
        ('{"a": {"x": 1}, "b": {"x": 1,}}', "not valid JSON after item 'a'"),
        (b'{"a": {"x": "\xc3\x28"}}', "not UTF-8 text"),
        (b"\xff\xfe{\"a\": 1}", "not UTF-8 text"),
        ("[" * 100_000, f"nested more than {MAX_JSON_DEPTH} levels"),
        ('{"a": ' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "}", f"nested more than {MAX_JSON_DEPTH} levels"),
    ],
    ids=["list", "string", "torn-list", "empty", "trailing", "malformed-mid-file", "bad-utf8", "utf16",
         "deep-list", "deep-record"],
)
def test_an_unreadable_file_is_a_data_error_naming_it(tmp_path: Path, content: str | bytes, says: str) -> None:
    path = _write(tmp_path, content)
    with pytest.raises(DataError, match=r"not valid JSON|expected|not UTF-8") as caught:
        list(iter_json_object(path))
    assert (caught.value.item, caught.value.field) == ("(file)", "release.json") and says in caught.value.message


def test_nesting_up_to_the_limit_is_read(tmp_path: Path) -> None:
    deep = "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1)
    assert list(iter_json_object(_write(tmp_path, '{"a": ' + deep + "}"))) == [("a", json.loads(deep))]


def test_a_byte_order_mark_is_dropped_only_where_the_encoding_says(tmp_path: Path) -> None:
    path = _write(tmp_path, b'\xef\xbb\xbf{"a": 1}')
    assert list(iter_json_object(path, encoding="utf-8-sig")) == [("a", 1)]
    with pytest.raises(DataError, match="not valid JSON"):  # as json.loads refuses read_text's BOM
        list(iter_json_object(path))


def test_skip_invalid_counts_bad_records_but_a_torn_file_still_stops(tmp_path: Path) -> None:
    raw = _copy_sample(tmp_path)
    records = _records(raw)
    records["not-a-record"] = ["a", "list"]
    (raw / SAMPLE).write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    release = read_release(raw, skip_invalid=True)
    assert [(s["id"], s["field"]) for s in release.skipped] == [("not-a-record", "(record)")]
    assert len(release.rows) == len(records) - 1
    text = (raw / SAMPLE).read_text(encoding="utf-8")
    (raw / SAMPLE).write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(DataError, match=rf"{SAMPLE}.*not valid JSON after item"):
        read_release(raw, skip_invalid=True)


class _Rows:
    """A row sink (`ROW_SINK`), as a streamed build's `ShardWriter`, keeping what it is sent."""

    def __init__(self) -> None:
        self.rows: list[dict] = []

    def write(self, row: dict) -> None:
        self.rows.append(row)


def test_a_geoeval_subset_is_rated_whole_but_never_held(tmp_path: Path) -> None:
    """Read twice instead of held: the rows go to the sink as they come, each with the level
    rated over the subset's kept items (an item `skip_invalid` leaves out is not rated)."""
    from geomeval.benchmarks.datasource import ROW_SINK
    from geomeval.benchmarks.geoeval import data as geoeval
    from geomeval.benchmarks.geoeval.complexity import measure, rate
    from geomeval.benchmarks.geoeval.prompts import problem_text
    from geomeval.benchmarks.geoeval.raw import read_release as read_subset

    raw = tmp_path / "geoeval"
    shutil.copytree(geoeval.sample_path(), raw)
    records = json.loads((raw / "select.json").read_text(encoding="utf-8"))
    records["105"]["dataset_name"] = "SolidGeo"
    (raw / "select.json").write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    sink = _Rows()
    token = ROW_SINK.set(sink)
    try:
        release = read_subset(raw, "geoeval_2000", skip_invalid=True)
    finally:
        ROW_SINK.reset(token)
    assert release.rows == [] and [s["id"] for s in release.skipped] == ["105"]
    assert [row["id"] for row in sink.rows] == [key for key in records if key != "105"]
    lengths = [measure(problem_text(row, "geoeval_2000"), row["diagram_description"], row["solution"])
               for row in sink.rows]
    assert [row["complexity"] for row in sink.rows] == rate(lengths)
    held = geoeval.from_raw(raw, skip_invalid=True, config="geoeval_2000")[0]
    assert [geoeval.SOURCE.features["complexity"].int2str(v) for v in held["complexity"]] == rate(lengths)


@pytest.mark.parametrize("text", ['{"a": {"n": ' + "9" * 5000 + "}}", '{"a": {"n": NaN}}', '{"a": {"n": Infinity}}'])
def test_numbers_json_does_not_take_from_a_release_are_refused_naming_the_file(tmp_path: Path, text: str) -> None:
    """A number past Python's digit limit (yajl2_c raises SystemError there) and the NaN and
    Infinity literals (not JSON; yajl refuses them) are a DataError naming the file."""
    path = _write(tmp_path, text)
    with pytest.raises(DataError, match=r"release\.json.*not valid JSON"):
        list(iter_json_object(path))
