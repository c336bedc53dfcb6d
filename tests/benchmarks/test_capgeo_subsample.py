"""GeoQA as the paper evaluates it: a random 200 of its problems (CapGeo §5.1), drawn from a
seed recorded in run.json, so a resumed run never mixes two draws; `--all-problems` keeps
every problem."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks.capgeo.benchmark import CapGeo
from geomeval.benchmarks.capgeo.sources import SOURCES, load_source, sample_file, subsample

PROBLEMS = 250


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def geoqa_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A GeoQA file of 250 problems (more than the paper's 200), each with a real figure."""
    folder = tmp_path_factory.mktemp("geoqa")
    (folder / "images").mkdir()
    shutil.copy(sample_file(SOURCES["geoqa"]).parent / "images" / "1.png", folder / "images" / "1.png")
    lines = [
        json.dumps({"id": n, "subject": f"Problem {n}: find x.", "choices": ["1", "2", "3", "4"],
                    "label": n % 4, "image": "images/1.png"})
        for n in range(PROBLEMS)
    ]
    path = folder / "test.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def ids(bench: CapGeo, data: Path, limit: int | None = None) -> list[str]:
    return [item.id for item in bench.load_items(str(data), "capgeo_reasoning", limit)]


def test_the_draw_is_fixed_by_the_seed_and_keeps_file_order() -> None:
    rows = [{"id": str(n)} for n in range(PROBLEMS)]
    first = subsample(rows, 200, 0)
    assert len(first) == 200 and first == subsample(rows, 200, 0)
    assert [int(r["id"]) for r in first] == sorted(int(r["id"]) for r in first)
    assert len({r["id"] for r in first}) == 200
    assert first != subsample(rows, 200, 1)
    assert subsample(rows[:150], 200, 0) == rows[:150]  # no more than 200: every problem


def test_geoqa_defaults_to_200_problems_recorded_in_the_options(geoqa_file: Path) -> None:
    bench = CapGeo().configure({"source": "geoqa"})
    drawn = ids(bench, geoqa_file)
    assert len(drawn) == 200 and drawn == ids(CapGeo().configure({"source": "geoqa"}), geoqa_file)
    assert bench.options["subsample"] == {"size": 200, "seed": 0}
    other = CapGeo().configure({"source": "geoqa", "sample_seed": 7})
    assert other.options["subsample"] == {"size": 200, "seed": 7}
    assert len(ids(other, geoqa_file)) == 200 and ids(other, geoqa_file) != drawn
    assert ids(bench, geoqa_file, limit=5) == drawn[:5]  # --limit takes the first of the draw
    whole = CapGeo().configure({"source": "geoqa", "all_problems": True})
    assert len(ids(whole, geoqa_file)) == PROBLEMS and whole.options["subsample"] == "all"
    # The embedded sample has 4 problems: all of them, whatever the seed.
    assert len(bench.load_items(None, "capgeo_reasoning", None)) == len(load_source("geoqa")) == 4


def test_sampling_switches_are_refused_where_they_change_nothing(tmp_path: Path) -> None:
    from geomeval.benchmarks.capgeo import data as reasoning_data

    reasoning_data.build_source("geoqa", tmp_path / "built")
    with pytest.raises(ValueError, match="a built -T source holds the problems it was built with"):
        CapGeo().configure({"source": str(tmp_path / "built"), "sample_seed": 1})
    with pytest.raises(ValueError, match="uses mathvista_geometry whole"):
        CapGeo().configure({"source": "mathvista_geometry", "sample_seed": 3})
    with pytest.raises(ValueError, match="give one of them"):
        CapGeo().configure({"source": "geoqa", "sample_seed": 3, "all_problems": True})
    assert "subsample" not in CapGeo().configure({"source": "mathvista_geometry"}).options


@pytest.mark.slow
def test_resuming_with_another_seed_or_all_problems_is_refused(geoqa_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    common = ["run", "capgeo", "-T", "source=geoqa", "--data", str(geoqa_file), "--model", "baseline:random",
              "--limit", "3", "--out", str(out), "--cache", "off"]
    first = cli(*common, "-T", "sample_seed=5")
    assert first.returncode == 0, first.stderr
    config = json.loads((out / "run.json").read_text())
    assert config["options"]["subsample"] == {"size": 200, "seed": 5}
    assert cli(*common, "-T", "sample_seed=5").returncode == 0  # the same draw resumes
    for switch in (["-T", "sample_seed=6"], ["-T", "all_problems=true"], []):  # [] is seed 0
        again = cli(*common, *switch)
        assert again.returncode == 2 and "differs in options" in again.stderr, switch


@pytest.mark.slow
def test_the_build_for_lmms_eval_draws_the_same_problems(geoqa_file: Path, tmp_path: Path) -> None:
    from geomeval.benchmarks.capgeo import data as reasoning_data
    from geomeval.engines.hfdata import load_built

    summary = reasoning_data.build_source("geoqa", tmp_path / "b", data=geoqa_file, sample_seed=3)
    assert summary["items"] == 200 and summary["subsample"] == {"size": 200, "seed": 3}
    built = list(load_built(tmp_path / "b")["id"])
    assert built == ids(CapGeo().configure({"source": "geoqa", "sample_seed": 3}), geoqa_file)
    whole = reasoning_data.build_source("geoqa", tmp_path / "w", data=geoqa_file, all_problems=True)
    assert whole["items"] == PROBLEMS and whole["subsample"] == "all"
    shown = cli("capgeo", "build", "--source", "geoqa", "--data", str(geoqa_file), "--out", str(tmp_path / "c"))
    assert shown.returncode == 0, shown.stderr
    assert "test: 200 items" in shown.stdout and "drawn with seed 0" in shown.stdout
    refused = cli("capgeo", "build", "--source", "mathvista_geometry", "--all-problems", "--out", str(tmp_path / "d"))
    assert refused.returncode == 2 and "uses mathvista_geometry whole" in refused.stderr
