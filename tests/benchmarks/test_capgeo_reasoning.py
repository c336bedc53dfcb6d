"""CapGeo's two-stage pipeline on the embedded source samples: loaders, captions stored once
per captioner, the three modes, failures unscored, and the reasoner × captioner grid."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.capgeo.captioning import TEMPLATES
from geomeval.benchmarks.capgeo.grid import correlate, pearson, spearman
from geomeval.benchmarks.capgeo.sources import SOURCES, load_source, sample_file, split_choices
from geomeval.testing.chat_server import ChatServer, prompt_text

ROWS = {name: load_source(name) for name in SOURCES}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True, timeout=600)


def test_loaders_read_each_public_format() -> None:
    assert [r["id"] for r in ROWS["mathvista_geometry"]] == ["1", "2", "3", "4"]  # pid 5 is not geometry
    vista = ROWS["mathvista_geometry"][0]
    assert vista["question_type"] == "multi_choice" and vista["answer"] in vista["choices"]
    only, intensive = ROWS["mathverse_vision_only"], ROWS["mathverse_vision_intensive"]
    assert len(only) == len(intensive) == 4
    assert all(r["question"] == "" for r in only) and all(r["question"] for r in intensive)
    assert [r["answer"] for r in only] == [r["answer"] for r in intensive]
    assert intensive[0]["choices"] and "Choices" not in intensive[0]["question"]
    assert only[0]["choices"] == intensive[0]["choices"]  # letters still count for vision-only items
    geoqa = ROWS["geoqa"][0]
    assert geoqa["answer"] == "B" and geoqa["choices"][1] == "10"
    assert split_choices("Find x.\nChoices:\nA:50°\nB:60°") == ("Find x.", ["50°", "60°"])


def test_bad_source_records_name_item_and_field(tmp_path: Path) -> None:
    source = sample_file(SOURCES["mathvista_geometry"])
    data = json.loads(source.read_text(encoding="utf-8"))
    data["1"]["answer"] = "99°"
    bad = tmp_path / "testmini.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_source("mathvista_geometry", bad)  # images are looked up beside the file
    assert info.value.item == "1" and info.value.field in ("answer", "image")
    line = json.dumps({"id": 7, "subject": "x", "choices": ["1", "2"], "label": 5, "image": "images/1.png"})
    (tmp_path / "test.jsonl").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="points at no option"):
        load_source("geoqa", tmp_path / "test.jsonl")
    with pytest.raises(ValueError, match="unknown CapGeo source"):
        load_source("mathvision")


def _gold() -> dict[str, str]:
    """The right answer for each problem, keyed by a piece of its question."""
    gold = {}
    for rows in ROWS.values():
        for r in rows:
            if r["question"]:
                answer = r["answer"]
                if answer in r["choices"]:
                    answer = "ABCDEFGH"[r["choices"].index(answer)]
                gold[r["question"][:60]] = answer
    return gold


GOLD = _gold()
CAPTION_OPENINGS = tuple(template[:40] for template in TEMPLATES.values())  # what a caption request starts with


def server_script(bad_captioner: str = "openai:bad-captioner") -> object:
    """Captioners write a caption naming themselves; a reasoner answers right when it sees its
    question, or when it sees a caption from 'openai:good' (which transcribes it)."""
    def respond(request: dict) -> str:
        text = prompt_text(request)
        if text.startswith(CAPTION_OPENINGS):
            if request["model"] == bad_captioner.split(":", 1)[1]:
                return ""
            return f"Caption by {request['model']}. In triangle ABC, AB = AC."
        if request["model"] == "weak" and "Caption by good" not in text:
            return "<think>hmm</think><answer>Z</answer>"
        for question, answer in GOLD.items():
            if question in text:
                return f"<think>known</think><answer>{answer}</answer>"
        return "<answer>A</answer>"
    return respond


def test_modes_share_one_caption_pass_and_caption_failures_are_unscored(tmp_path: Path) -> None:
    store = tmp_path / "captions"
    with ChatServer(server_script()) as server:
        common = ["-T", "source=geoqa", "--base-url", server.base_url, "-T", f"captions={store}", "--cache", "off"]
        for mode in ("with_image", "without_image"):
            result = cli("run", "capgeo", "--model", "openai:strong", "-T", "captioner=openai:good", "-T", "mode=" + str(mode),
                         "--out", str(tmp_path / mode), *common)
            assert result.returncode == 0, result.stderr
        captions = [r for r in server.requests if prompt_text(r).startswith(CAPTION_OPENINGS)]
        assert len(captions) == 4  # four items, captioned once for both modes
        without = [r for r in server.requests if "restated in words instead" in prompt_text(r)]
        assert without and all(
            isinstance(r["messages"][-1]["content"], str) for r in without
        )  # without_image sends no image: plain text, as every server accepts
        bad = cli("run", "capgeo", "--model", "openai:strong", "-T", "captioner=openai:bad-captioner",
                  "-T", "mode=with_image", "--out", str(tmp_path / "bad"), "--min-coverage", "0", *common)
        assert bad.returncode == 0, bad.stderr
    results = json.loads((tmp_path / "with_image" / "results.json").read_text())
    assert results["metrics"]["accuracy"]["value"] == 1.0 and results["config"]["options"]["captioner"] == "openai:good"
    failed = json.loads((tmp_path / "bad" / "results.json").read_text())["metrics"]["accuracy"]
    assert failed["scored"] == 0 and "empty caption" in next(iter(failed["unscored_reasons"]))
    stored = [json.loads(line) for line in next(store.glob("openai_good__geoqa__*.jsonl")).read_text().splitlines()]
    assert len(stored) == 4 and all(e["caption"].startswith("Caption by good") for e in stored)


@pytest.mark.slow
def test_resuming_with_another_mode_is_refused(tmp_path: Path) -> None:
    with ChatServer(server_script()) as server:
        out = tmp_path / "run"
        first = cli("run", "capgeo", "-T", "source=geoqa", "--model", "openai:strong", "--base-url", server.base_url,
                    "--out", str(out), "--cache", "off")
        assert first.returncode == 0, first.stderr
        again = cli("run", "capgeo", "-T", "source=geoqa", "--model", "openai:strong", "--base-url", server.base_url,
                    "-T", "captioner=openai:good", "-T", "mode=with_image", "-T", "captions=" + str(tmp_path / "c"),
                    "--out", str(out), "--cache", "off")
        assert again.returncode == 2 and "options" in again.stderr
    assert cli("run", "geolaux", "--model", "baseline:random", "-T", "mode=direct",
               "--out", str(tmp_path / "g")).returncode == 2


@pytest.mark.slow
def test_grid_of_two_reasoners_and_two_captioners(tmp_path: Path) -> None:
    with ChatServer(server_script()) as server:
        result = cli("capgeo", "grid", "--source", "geoqa", "--model", "openai:strong", "--model", "openai:weak",
                     "--captioner", "openai:good", "--captioner", "openai:plain", "--base-url", server.base_url,
                     "--captions", str(tmp_path / "captions"), "--out", str(tmp_path / "grid"), "--cache", "off")
        assert result.returncode == 0, result.stderr
        captions = [r for r in server.requests if prompt_text(r).startswith(CAPTION_OPENINGS)]
        assert len(captions) == 8  # one pass per captioner, whatever the number of reasoners
    assert "CapGeo accuracy (%) — geoqa" in result.stdout
    grid = json.loads((tmp_path / "grid" / "grid.json").read_text())
    assert grid["columns"] == ["direct", "openai:good · with image", "openai:good · without image",
                               "openai:plain · with image", "openai:plain · without image"]
    strong, weak = grid["rows"]["openai:strong"], grid["rows"]["openai:weak"]
    assert all(cell["accuracy"] == 1.0 for cell in strong.values())
    assert weak["direct"]["accuracy"] == 0.0 and weak["openai:plain · without image"]["accuracy"] == 0.0
    assert weak["openai:good · without image"]["accuracy"] == 1.0  # the good captions carry the weak reasoner
    assert "| openai:weak | 0.0 |" in (tmp_path / "grid" / "grid.md").read_text()
    found = correlate({"openai:good": 0.9, "openai:plain": 0.4}, grid, plot=tmp_path / "grid" / "c.png")
    assert found["points"][0]["accuracy"] == 1.0 and found["points"][1]["accuracy"] == 0.5
    assert found["pearson"] == pytest.approx(1.0) and (tmp_path / "grid" / "c.png").is_file()
    runs = {}
    for name, recall in (("good", 0.9), ("plain", 0.4)):  # what `geomeval run capgeo_bench` writes
        runs[name] = tmp_path / f"bench-{name}"
        runs[name].mkdir()
        (runs[name] / "results.json").write_text(json.dumps({
            "headline": "Avg (judge)",
            "metrics": {"Avg (judge)": {"value": recall}, "keypoint recall": {"value": 1 - recall}},
        }))
    shown = cli("capgeo", "correlate", str(tmp_path / "grid"), "--caption-run", f"openai:good={runs['good']}",
                "--caption-run", f"openai:plain={runs['plain']}")
    assert shown.returncode == 0, shown.stderr  # each run's headline: the judged Avg, as Fig. 5
    assert "Pearson 1.000" in shown.stdout and (tmp_path / "grid" / "correlation.png").is_file()
    other = cli("capgeo", "correlate", str(tmp_path / "grid"), "--caption-run", f"openai:good={runs['good']}",
                "--caption-run", f"openai:plain={runs['plain']}", "--metric", "keypoint recall")
    assert other.returncode == 0 and "Pearson -1.000" in other.stdout
    bad = cli("capgeo", "correlate", str(tmp_path / "grid"), "--caption-run", "openai:good")
    assert bad.returncode == 2 and "CAPTIONER=DIR" in bad.stderr


def test_correlation_statistics() -> None:
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3, 4], [1, 4, 9, 16]) == pytest.approx(1.0)  # monotone, not linear
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486832980505138)  # ties share ranks
    assert pearson([1, 1], [2, 3]) is None and pearson([1], [1]) is None


@pytest.mark.slow
def test_a_built_dataset_as_source_supplies_its_captions(tmp_path: Path) -> None:
    built = tmp_path / "built"
    assert cli("capgeo", "build", "--source", "geoqa", "--out", str(built)).returncode == 0
    with ChatServer(server_script()) as server:
        result = cli("run", "capgeo", "-T", "source=" + str(built), "-T", "mode=without_image", "--model", "openai:strong",
                     "--base-url", server.base_url, "--out", str(tmp_path / "run"), "--cache", "off")
        assert result.returncode == 0, result.stderr
        assert not any(prompt_text(r).startswith(CAPTION_OPENINGS) for r in server.requests)
        assert all("The problem restated, with what its figure shows:" in prompt_text(r) for r in server.requests)
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["metrics"]["accuracy"]["value"] == 1.0
    assert results["config"]["options"]["captioner"] == "the built dataset's caption column"
    refused = cli("run", "capgeo", "-T", "source=" + str(built), "-T", "mode=with_image", "-T", "captioner=openai:good",
                  "--model", "openai:strong", "--out", str(tmp_path / "x"))
    assert refused.returncode == 2 and "supplies its own captions" in refused.stderr
    unknown = cli("run", "capgeo", "-T", "source=" + str(tmp_path / "nothing"), "--model", "openai:strong",
                  "--out", str(tmp_path / "y"))
    assert unknown.returncode == 2 and "geomeval capgeo build" in unknown.stderr
