"""The run viewer shows what the model saw, on every benchmark (issue 40, point 4): the sample
runs the Space ships (`demo.sample_runs`, the guessing baseline on each embedded sample) show
each item's problem or caption, its figures, its options, the answer and the scores with their
reasons, and the wrong/unscored filters split every run's items."""

from __future__ import annotations

from pathlib import Path

import pytest

from geomeval.benchmarks import REGISTRY
from geomeval.demo import boards, runview, sample_runs


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    sample_runs.write_sample_runs(root)
    return root


def test_the_sample_runs_cover_every_benchmark_and_task(runs_root: Path) -> None:
    names = set(boards.run_names(runs_root))
    assert names == {f"{b}-{t}" for b, spec in REGISTRY.items() for t in spec.tasks}
    assert {boards.load_results(runs_root, n)["benchmark"] for n in names} == set(REGISTRY)


@pytest.mark.parametrize("name", [n for n, _b, _t in sample_runs.sample_run_names()])
def test_every_item_shows_its_inputs_figures_answer_and_scores(runs_root: Path, name: str) -> None:
    records = {str(r["id"]): r for r in runview.read_samples(runs_root, name)}
    every = runview.run_items(runs_root, name)
    assert [item_id for _label, item_id in every] == list(records)
    # The filters split the run: every item is right, wrong or unscored by its headline.
    split = {show: {i for _l, i in runview.run_items(runs_root, name, show)} for show in ("wrong", "unscored")}
    states = {i: runview.status(records[i], boards.load_results(runs_root, name).get("headline")) for i in records}
    assert "n/a" not in states.values(), name
    assert split["wrong"] == {i for i, s in states.items() if s == "wrong"}
    assert split["unscored"] == {i for i, s in states.items() if s == "unscored"}
    item_id = every[0][1]
    view = runview.run_item_view(runs_root, name, item_id)
    record = records[item_id]
    assert view.images and all(image.width > 0 for image, _caption in view.images), name
    blocks = view.markdown.split("\n\n")
    benchmark = record["benchmark"]
    heading = "**caption** (the reference caption)" if benchmark == "capgeo_bench" else "**problem**"
    assert heading in blocks, (name, blocks[:4])
    if (record["target"].get("choices") or record["target"].get("options")):
        assert "**options**" in blocks and any(b.startswith("A. ") for b in blocks), name
    assert "**response**" in blocks
    shown = {row[0]: row for row in view.score_rows}
    assert set(shown) == set(record["scores"])
    assert all(row[3] for row in shown.values() if row[1] not in ("unscored", "n/a")), name  # a reason per score


def test_capgeo_bench_items_are_wrong_by_their_dimension_recalls(runs_root: Path) -> None:
    """CapGeo-Bench's headline (Avg) is not an item score: an item is wrong when a dimension's
    recall is below 1 (the baseline's empty caption recalls nothing), never "n/a"."""
    name = "capgeo_bench-capgeo_bench"
    records = runview.read_samples(runs_root, name)
    assert boards.load_results(runs_root, name)["headline"] == "Avg"
    assert all(r["scores"]["elements recall"]["value"] == 0 for r in records)
    assert len(runview.run_items(runs_root, name, "wrong")) == len(records)


def test_a_run_on_data_the_space_lacks_says_why_it_has_no_figures(runs_root: Path, tmp_path: Path) -> None:
    import json
    import shutil

    copy = tmp_path / "runs" / "elsewhere"
    shutil.copytree(runs_root / "me2-me2_solve", copy)
    info = json.loads((copy / "run.json").read_text(encoding="utf-8"))
    (copy / "run.json").write_text(json.dumps({**info, "data": "/data/me2"}), encoding="utf-8")
    item_id = runview.run_items(tmp_path / "runs", "elsewhere")[0][1]
    view = runview.run_item_view(tmp_path / "runs", "elsewhere", item_id)
    assert view.images == [] and "figures are not stored in a run" in view.markdown
    assert "/data/me2" not in view.markdown + view.prompt  # no server path
