"""CapGeo's typed reasoning dataset: each source built with its embedded reference captions,
loaded back typed; a caption file that leaves items out gives them None and counts them; bad
caption lines stop the build naming the file and the line; the card in the repository is the
library's; and the reference captions are regenerated from, and true of, the drawings."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from samples.capgeo import generate as sample_source

from geomeval.benchmarks.capgeo import data as reasoning_data
from geomeval.benchmarks.capgeo.captions_store import REFERENCE_CAPTIONER, CaptionStore
from geomeval.benchmarks.capgeo.card import render_card
from geomeval.benchmarks.capgeo.data import CaptionFileError, read_caption_file
from geomeval.benchmarks.capgeo.features import FEATURES, QUESTION_TYPES
from geomeval.benchmarks.capgeo.sources import SOURCES, load_source, sample_captions, sample_file
from geomeval.engines.hfdata import load_built

REPO = Path(__file__).resolve().parents[2]
GEOQA_FILE = sample_file(SOURCES["geoqa"])


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True, timeout=300)


def write_lines(path: Path, *lines: object) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict]]:
    root = tmp_path_factory.mktemp("capgeo-reasoning")
    return {name: (root / name, reasoning_data.build_source(name, root / name)) for name in SOURCES}


@pytest.mark.parametrize("name", list(SOURCES))
def test_each_source_builds_with_its_reference_captions(name: str, built: dict[str, tuple[Path, dict]]) -> None:
    out, summary = built[name]
    rows = load_source(name)
    reference = sample_captions(SOURCES[name]).read()
    assert summary["items"] == summary["captioned"] == len(rows) == 4
    assert summary["without_caption"] == 0 and summary["captioners"] == [REFERENCE_CAPTIONER]
    assert not summary["failed_captions"] and not summary["never_captioned"] and not summary["unused_captions"]

    dataset = load_built(out)
    assert dataset.features == FEATURES
    assert "num_examples: 4" in (out / "README.md").read_text(encoding="utf-8")
    for row, loaded in zip(rows, dataset, strict=True):
        assert loaded["id"] == row["id"] and loaded["source"] == name
        assert loaded["question"] == row["question"] and loaded["answer"] == row["answer"]
        assert loaded["choices"] == row["choices"] and loaded["unit"] == row["unit"]
        assert QUESTION_TYPES[loaded["question_type"]] == row["question_type"]
        assert loaded["caption"] == reference[row["id"]]["caption"] and loaded["caption"]
        assert loaded["captioner"] == REFERENCE_CAPTIONER
        assert loaded["image"].size == sample_source.REASONING_SIZE or name == "mathverse_vision_only"


def test_every_embedded_sample_builds_as_one_dataset(tmp_path: Path) -> None:
    summary = reasoning_data.build(str(reasoning_data.sample_path()), str(tmp_path / "all"))
    assert summary["items"] == summary["captioned"] == 16 and summary["source"] == "all"
    dataset = reasoning_data.load(str(tmp_path / "all"))
    ids = dataset["id"]
    assert len(set(ids)) == 16  # the sources' own ids overlap; qualified they do not
    assert ids[:2] == ["mathverse_vision_only/2", "mathverse_vision_only/4"]
    assert {i.split("/")[0] for i in ids} == set(SOURCES)
    assert reasoning_data.load(None)["id"] == ids  # without --data: the same rows, read raw


def test_a_caption_file_missing_items_gives_none_and_counts_them(tmp_path: Path) -> None:
    captions = write_lines(
        tmp_path / "openai_cap__geoqa__diagram_with_question.jsonl",
        {"id": "1", "captioner": "openai:cap", "caption": "In triangle ABC, DE ∥ BC.", "error": None},
        {"id": "2", "captioner": "openai:cap", "caption": None, "error": "HTTP 500"},
        {"id": 3, "captioner": "openai:cap", "caption": None, "error": "timeout"},
        "",
        {"id": "3", "captioner": "openai:cap", "caption": "Circle O, ∠AOB = 120°.", "error": None},  # retried
        {"id": "99", "captioner": "openai:cap", "caption": "not an item", "error": None},
    )
    summary = reasoning_data.build_source("geoqa", tmp_path / "out", data=GEOQA_FILE, captions=captions)
    assert summary["items"] == 4 and summary["captioned"] == 2 and summary["without_caption"] == 2
    assert summary["failed_captions"] == {"2": "HTTP 500"} and summary["never_captioned"] == ["4"]
    assert summary["unused_captions"] == ["99"] and summary["captioners"] == ["openai:cap"]
    dataset = load_built(tmp_path / "out")
    assert dataset["caption"] == ["In triangle ABC, DE ∥ BC.", None, "Circle O, ∠AOB = 120°.", None]
    assert dataset["captioner"] == ["openai:cap"] * 4  # whose captions, also where one is missing

    bare = reasoning_data.build_source("geoqa", tmp_path / "bare", data=GEOQA_FILE)  # --data, no --captions
    assert bare["captioned"] == 0 and bare["captioners"] == [] and bare["caption_file"] is None
    assert load_built(tmp_path / "bare")["caption"] == [None] * 4


def test_a_hand_written_caption_file_takes_its_captioner_from_its_name(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "my-captioner__geoqa__diagram_with_question.jsonl", {"id": "1", "caption": "x"})
    assert read_caption_file(path, "geoqa").captioner == "my-captioner"
    blank = write_lines(tmp_path / "plain.jsonl", {"id": "1", "caption": "  "})
    entry = read_caption_file(blank).entries["1"]
    assert blank.stem == read_caption_file(blank).captioner
    assert entry == {"caption": None, "error": "the captioner returned an empty caption"}


BAD_LINES = [
    ('{"id": "1", "caption": "ok"}\n{"id": "2", "caption": "torn', r"line 2: not valid JSON"),
    ('["1", "caption"]', r"line 1: expected an object with id and caption, got list"),
    ('{"caption": "no id"}', r"line 1: the id must be a non-empty string or an integer"),
    ('{"id": true, "caption": "x"}', r"line 1: the id must be"),
    ('{"id": "1"}', r"line 1: no caption field"),
    ('{"id": "1", "caption": 42}', r"line 1: caption must be text or null, got int"),
    ('{"id": "1", "caption": "x", "error": ["e"]}', r"line 1: error must be text or null"),
    (
        '{"id": "1", "caption": "x", "captioner": "a"}\n\n{"id": "2", "caption": "y", "captioner": "b"}',
        r"line 3: captioner 'b', but line 1 has 'a'",
    ),
    ("\n\n", r"no caption entries"),
]


@pytest.mark.parametrize(("text", "message"), BAD_LINES)
def test_bad_caption_lines_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "captions.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(CaptionFileError, match=message) as info:
        reasoning_data.build_source("geoqa", tmp_path / "out", data=GEOQA_FILE, captions=path)
    assert str(path) in str(info.value)
    assert not (tmp_path / "out").exists()  # nothing half-built


def test_caption_files_of_another_source_are_refused(tmp_path: Path) -> None:
    vista = sample_captions(SOURCES["mathvista_geometry"]).path
    with pytest.raises(CaptionFileError, match="holds captions of source mathvista_geometry, not geoqa"):
        reasoning_data.build_source("geoqa", tmp_path / "a", captions=vista)
    renamed = write_lines(tmp_path / "c.jsonl", *(json.loads(x) for x in vista.read_text().splitlines()))
    renamed.write_text(renamed.read_text().replace('"id": "', '"id": "pid-'), encoding="utf-8")
    with pytest.raises(CaptionFileError, match="none of its 4 ids is an item of source geoqa"):
        reasoning_data.build_source("geoqa", tmp_path / "b", captions=renamed)
    with pytest.raises(FileNotFoundError, match="caption file not found"):
        reasoning_data.build_source("geoqa", tmp_path / "c", captions=tmp_path / "missing.jsonl")
    with pytest.raises(ValueError, match="unknown CapGeo source"):
        reasoning_data.build_source("mathvision", tmp_path / "d")


def test_card_in_repo_matches_the_library(built: dict[str, tuple[Path, dict]]) -> None:
    card = render_card()
    assert (REPO / "cards" / "capgeo" / "README.md").read_text(encoding="utf-8") == card
    for heading in ("## Fields", "## Sources", "## Building the dataset", "## Modes and scoring", "## lmms-eval tasks"):
        assert heading in card
    for name in FEATURES:  # every column is in the fields table
        assert f"| `{name}` |" in card
    out, _ = built["geoqa"]
    assert (out / "README.md").read_text(encoding="utf-8").split("---\n", 2)[2] == card.split("---\n", 2)[2]


@pytest.mark.slow
def test_cli_builds_and_reports_captions(tmp_path: Path) -> None:
    captions = write_lines(
        tmp_path / "openai_cap__geoqa__diagram_with_question.jsonl",
        {"id": "1", "captioner": "openai:cap", "caption": "Triangle ABC.", "error": None},
        {"id": "2", "captioner": "openai:cap", "caption": None, "error": "HTTP 500"},
    )
    result = cli("capgeo", "build", "--source", "geoqa", "--data", str(GEOQA_FILE), "--captions", str(captions),
                 "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert "test: 4 items" in result.stdout
    assert "captions: 1 of 4 items (captioner openai:cap)" in result.stdout
    assert "without a caption: 3" in result.stdout and "the captioner failed on 1: 2" in result.stdout
    assert "not in the caption file: 2: 3, 4" in result.stdout
    report = json.loads((tmp_path / "out" / "build_report.json").read_text(encoding="utf-8"))
    assert report["without_caption"] == 3 and report["failed_captions"] == {"2": "HTTP 500"}

    sample = cli("capgeo", "build", "--source", "all", "--out", str(tmp_path / "all"))
    assert sample.returncode == 0 and "captions: 16 of 16 items (captioner geomeval-reference)" in sample.stdout

    bad = write_lines(tmp_path / "bad.jsonl", {"id": "1", "caption": "x"}, "not json")
    refused = cli("capgeo", "build", "--source", "geoqa", "--captions", str(bad), "--out", str(tmp_path / "bad"))
    assert refused.returncode == 2 and "bad.jsonl, line 2: not valid JSON" in refused.stderr
    mixed = cli("capgeo", "build", "--source", "all", "--data", str(GEOQA_FILE), "--out", str(tmp_path / "m"))
    assert mixed.returncode == 2 and "--source all builds the embedded samples" in mixed.stderr


# ----------------------------------------------------------------- the reference captions


def test_reference_captions_regenerate_from_the_sample_source() -> None:
    """samples/capgeo/generate.py is the captions' source of truth (as for the figures)."""
    root = sample_source.CAPGEO_DIR
    committed = {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / "sources" / "captions").iterdir()}
    assert committed == sample_source.caption_files(), (
        "committed reference captions differ from samples/capgeo/generate.py; run "
        "`python -m samples.capgeo.generate`"
    )
    for name, source in SOURCES.items():
        store = CaptionStore(root / "sources" / "captions", REFERENCE_CAPTIONER, name, source.variant)
        entries = store.read()
        assert sorted(entries) == sorted(row["id"] for row in load_source(name)), name
        assert all(e["caption"] and e["error"] is None and e["captioner"] == REFERENCE_CAPTIONER
                   for e in entries.values())


def _figures() -> list[tuple[str, str, sample_source.Drawing]]:
    """(name, figure caption, drawing) of every reasoning figure."""
    found = [(f"mathvista {i.pid}", i.caption, i.drawing) for i in sample_source.MATHVISTA_ITEMS if i.caption]
    found += [(f"mathverse {p.index}", p.caption, p.drawing) for p in sample_source.MATHVERSE_PROBLEMS]
    found += [(f"geoqa {p.id}", p.caption, p.drawing) for p in sample_source.GEOQA_PROBLEMS]
    return found


def test_reference_captions_are_true_of_their_figures() -> None:
    """Every value a caption states is one the drawing's checks verify (the engine evaluates
    them in test_capgeo_sample), and every label drawn (points, lines, given lengths) is in it."""
    assert len(_figures()) == 12  # 16 problems: MathVerse's two versions share a figure
    for name, caption, drawing in _figures():
        for value in re.findall(r"= (\d+(?:\.\d+)?)(°?)", caption):
            number, degree = value
            assert any(re.search(rf"== {re.escape(number)}{degree}(?![\d.])", check) for check in drawing.checks), (
                f"{name}: {number}{degree} is not checked"
            )
        for label in drawing.labels:  # a point may sit inside a name ("triangle ABC")
            edge = "[a-z]" if label.text.isupper() else r"\w"
            assert re.search(rf"(?<!{edge}){re.escape(label.text)}(?!{edge})", caption), f"{name}: {label.text!r}"


def test_reference_captions_restate_the_whole_problem() -> None:
    """As the problem caption prompts ask: the figure's conditions, then the question with its
    options; for Vision Only, the question drawn in the image (MathVerse's question_for_eval)."""
    verse = {p.index: p for p in sample_source.MATHVERSE_PROBLEMS}
    records = {r["sample_index"]: r for r in sample_source.mathverse_records()}
    figures = {
        "mathvista_geometry": {i.pid: i.caption for i in sample_source.MATHVISTA_ITEMS if i.caption},
        "geoqa": {str(p.id): p.caption for p in sample_source.GEOQA_PROBLEMS},
    }
    for name in SOURCES:
        rows = {row["id"]: row for row in load_source(name)}
        for item, entry in sample_captions(SOURCES[name]).read().items():
            figure, _, question = entry["caption"].partition("\n\nQuestion: ")
            if name.startswith("mathverse"):
                record = records[item]
                assert figure == verse[record["problem_index"]].caption
                assert question == (record["question_for_eval"] if name.endswith("only") else record["question"])
            else:
                assert figure == figures[name][item]
                assert question.startswith(rows[item]["question"]), (name, item)
            if rows[item]["choices"]:  # the options are part of the problem restated
                assert all(f":{choice}" in question for choice in rows[item]["choices"]), (name, item)
