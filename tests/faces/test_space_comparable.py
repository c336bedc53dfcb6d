"""Comparable or apart (issue 40, point 1): a run enters a published table's ranking only when
it ran that table's protocol (task, every published item of the release, default switches and
prompts, every item of the ranking column scored); any other run is listed apart, last, with
the reasons. Real run folders (`geomeval run … --model baseline:random`) and real tables."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from geomeval.benchmarks import REGISTRY
from geomeval.demo import boards, ranking


def _run(out: Path, benchmark: str, task: str, *, options: dict[str, Any] | None = None,
         data: str | None = None, limit: int | None = None) -> None:
    from geomeval.benchmarks import get_benchmark
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import ModelOptions, parse_model_spec
    from geomeval.run.runner import run

    bench = get_benchmark(benchmark)
    if options:
        bench = bench.configure(options)
    run(bench, task=task, model=parse_model_spec("baseline:random", ModelOptions()),
        judge=parse_judge_spec("offline"), out_dir=out, data=data, limit=limit)


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from geomeval.benchmarks import get_benchmark

    root = tmp_path_factory.mktemp("runs")
    _run(root / "gl-sample", "geolaux", "geolaux")
    _run(root / "gl-aux", "geolaux", "geolaux_aux")
    _run(root / "gl-steps", "geolaux", "geolaux", options={"steps": "geomeval"})
    folder = str(get_benchmark("ggbench").embedded())  # a built folder: not the embedded sample
    _run(root / "gg-folder", "ggbench", "ggbench_code", data=folder)
    _run(root / "gg-limit", "ggbench", "ggbench_code", data=folder, limit=5)
    return root


def _board(paper: str, source_tail: str) -> boards.Board:
    found = [b for b in boards.published_boards() if b.key.startswith(f"{paper}/") and source_tail in b.source]
    assert len(found) == 1, (paper, source_tail)
    return found[0]


def _by_run(table: ranking.Ranked) -> dict[str, list[Any]]:
    """The run rows of a leaderboard by run name (the model cell ends with "· run NAME")."""
    return {str(r[1]).rsplit(" · run ", 1)[1]: r for r in table.rows if " · run " in str(r[1])}


def test_every_published_table_states_its_protocol() -> None:
    for board in boards.published_boards():
        protocol = board.protocol
        assert protocol.get("tasks") or protocol.get("no_runs"), board.source
        assert set(protocol.get("tasks") or ()) <= set(REGISTRY[board.benchmark].tasks), board.source


def test_sample_run_other_task_and_switch_are_listed_apart_with_why(runs_root: Path) -> None:
    table = ranking.leaderboard("geolaux/0", runs_root)
    why = table.headers.index(ranking.APART_COLUMN)
    acs = table.headers.index("ACS")
    runs = _by_run(table)
    assert set(runs) == {"gl-sample", "gl-aux", "gl-steps"}
    assert all(row[0] == ranking.APART for row in runs.values())
    # The published ranking is the paper's alone: o4-mini first (92.8 on 2,186 problems).
    ranked = [r for r in table.rows if isinstance(r[0], int)]
    assert ranked[0][1] == "o4-mini" and ranked[0][acs] == 92.8 and len(ranked) == 13
    assert {r[1] for r in table.rows[-3:]} == {r[1] for r in runs.values()}  # listed last, below the ranking
    sample = runs["gl-sample"][why]
    assert "10 of 2,186 items" in sample and "embedded sample" in sample and "7 of 10 items scored" in sample
    assert "judge offline, the table's: o4-mini" in sample  # the paper's PCS and PQS are o4-mini's
    assert "task geolaux_aux, not geolaux" in runs["gl-aux"][why]
    assert "switch steps=geomeval on (the table: judge)" in runs["gl-steps"][why]
    assert "task" not in runs["gl-steps"][why] and "switch" not in sample
    # Two runs of the same model spec are told apart by their run.
    assert runs["gl-sample"][1] == "baseline:random · run gl-sample" != runs["gl-steps"][1]
    assert "0 run(s) ranked, 3 listed apart" in table.note
    assert ranking.to_csv(table).splitlines()[0].endswith(f",{ranking.APART_COLUMN},source")


def test_a_run_of_the_tables_protocol_is_ranked(runs_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GGBench-Code (Table 5) as if published on the 15 problems of the folder run: the run on
    all of them is ranked among the paper's rows; the --limit run is apart; against the real
    table (1,411 problems) both are apart."""
    real = _board("ggbench", "Table 5")
    table = ranking.leaderboard(real.key, runs_root, rank_by="Pass@1")
    runs = _by_run(table)
    assert set(runs) == {"gg-folder", "gg-limit"}
    why = table.headers.index(ranking.APART_COLUMN)
    assert runs["gg-folder"][0] == ranking.APART and runs["gg-folder"][why] == "15 of 1,411 items"
    assert "--limit 5" in runs["gg-limit"][why] and "5 of 1,411 items" in runs["gg-limit"][why]

    same = dataclasses.replace(real, protocol={"tasks": {"ggbench_code": 15}})
    assert ranking.apart_reasons(same, _results(runs_root, "gg-folder"), "Pass@1") == []
    assert ranking.apart_reasons(same, _results(runs_root, "gg-limit"), "Pass@1") == ["--limit 5", "5 of 15 items"]
    monkeypatch.setattr(boards, "_board", lambda key: same)
    table = ranking.leaderboard(real.key, runs_root, rank_by="Pass@1")
    runs = _by_run(table)
    passed = table.headers.index("Pass@1")
    ranked = [r for r in table.rows if isinstance(r[0], int)]
    assert runs["gg-folder"] in ranked and runs["gg-folder"][passed] == 0.0
    assert ranked[-1][passed] == 0.0 and ranked[0][0] == 1  # random code runs nowhere: at the bottom
    assert runs["gg-limit"][0] == ranking.APART and table.rows[-1] is runs["gg-limit"]
    assert "1 run(s) ranked, 1 listed apart" in table.note


def _results(root: Path, name: str) -> dict[str, Any]:
    return boards.load_results(root, name)


def test_tables_that_take_no_single_run_and_uploads_without_a_protocol(runs_root: Path) -> None:
    human = _board("me2", "Table 6")
    reasons = ranking.apart_reasons(human, {"benchmark": "me2", "task": "me2_explain", "metrics": {}})
    assert reasons == ["this table is human ratings of 80 problems; geomeval has no human evaluation (a me2_explain "
                       "run's cells here are its judge's ratings, to read beside them)"]
    upload = {"benchmark": "geolaux", "task": "geolaux", "model": "m", "n_items": 2186,
              "metrics": {"ACS": {"value": 0.95}}}
    table = ranking.leaderboard("geolaux/0", runs_root / "none", {"mine": upload})
    mine = _by_run(table)["mine"]
    assert mine[0] == ranking.APART and "not recorded" in mine[table.headers.index(ranking.APART_COLUMN)]
    assert [r[1] for r in table.rows if r[0] == 1] == ["o4-mini"]  # 95 would lead, were it ranked
    capgeo = _board("capgeo", "Table 3 (GeoQA)")
    other_source = {"benchmark": "capgeo", "task": "capgeo_reasoning", "n_items": 200, "metrics": {},
                    "config": {"data": "/data/geoqa", "options": {"source": "mathvista_geometry", "mode": "with_image"}}}
    assert ranking.apart_reasons(capgeo, other_source) == [
        "switch source=mathvista_geometry on (the table: geoqa)"]  # mode is the table's columns: not checked
    explain = _board("me2", "Table 5")
    run = {"benchmark": "me2", "task": "me2_explain", "n_items": 1000, "judge": "openai:gpt-4o-mini",
           "metrics": {}, "config": {"data": "/data/me2"}}
    assert ranking.apart_reasons(explain, run) == ["judge openai:gpt-4o-mini, the table's: gpt-4o-2024-08-06"]
    assert ranking.apart_reasons(explain, {**run, "judge": "openai:gpt-4o-2024-08-06"}) == []
