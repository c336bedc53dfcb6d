"""Every published table accepts runs (issue 40, point 2): real `geomeval run` folders of every
benchmark (the embedded samples, the guessing baseline; ME2's explanations judged on a loopback
server) get a number in each published table, laid out by the code of the runs' own
paper-layout tables: ME2 Tables 2-6 and A, CapGeo Tables 2-4, GeoEval's Table 2 and its
best-per-subset table, GeoLaux's and GGBench's tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from geomeval.demo import boards, paper_cells, ranking
from geomeval.testing.chat_server import ChatServer

RUNS = {  # run folder -> (benchmark, task)
    "capgeo": ("capgeo", "capgeo_reasoning"),
    "capgeo-bench": ("capgeo_bench", "capgeo_bench"),
    "geoeval-2000": ("geoeval", "geoeval_2000"),
    "geoeval-hard": ("geoeval", "geoeval_hard"),
    "geolaux": ("geolaux", "geolaux"),
    "ggbench-code": ("ggbench", "ggbench_code"),
    "me2-solve": ("me2", "me2_solve"),
    "me2-keypoints": ("me2", "me2_keypoints"),
    "me2-explain": ("me2", "me2_explain"),
}


def _judge(request: dict[str, Any]) -> str:
    return 'Fewer elements named.\n{"rating": [5, 4, 3]}'  # the official judge's reply shape


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from geomeval.benchmarks import get_benchmark
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import ModelOptions, parse_model_spec
    from geomeval.run.runner import run

    root = tmp_path_factory.mktemp("runs")
    model = parse_model_spec("baseline:random", ModelOptions())
    with ChatServer(_judge) as server:
        for folder, (benchmark, task) in RUNS.items():
            judge = parse_judge_spec("openai:j", base_url=server.base_url) if task == "me2_explain" else \
                parse_judge_spec("offline")
            run(get_benchmark(benchmark), task=task, model=model, judge=judge, out_dir=root / folder)
    return root


def _runs(table: ranking.Ranked) -> dict[str, list[Any]]:
    """Run rows by run name ("· run NAME", or "· runs A × B" for a joint row)."""
    rows = {}
    for row in table.rows:
        model = str(row[1])
        for mark in (" · runs ", " · run "):
            if mark in model:
                rows[model.split(mark, 1)[1]] = row
                break
    return rows


def _cells(table: ranking.Ranked, row: list[Any]) -> dict[str, Any]:
    """A row's filled value columns (those between the type and the coverage columns)."""
    first, last = ranking.FIXED.index("type") + 1, next(i for i, h in enumerate(table.headers) if h.startswith("coverage"))
    return {h: row[i] for i, h in enumerate(table.headers[first:last], first) if row[i] is not None}


def test_a_run_has_a_number_in_every_published_table(runs_root: Path) -> None:
    tables = boards.published_boards()
    assert len(tables) >= 15
    empty = []
    for board in tables:
        table = ranking.leaderboard(board.key, runs_root)
        numbers = [c for row in _runs(table).values() for c in _cells(table, row).values()
                   if isinstance(c, int | float)]
        if not numbers:
            empty.append(board.source)
    assert empty == []


def test_me2_tables_are_the_runs_own_paper_tables_in_the_papers_scale(runs_root: Path) -> None:
    solve = boards.load_results(runs_root, "me2-solve")
    own = solve["tables"][0]  # what `geomeval run` printed in report.md
    assert own["columns"] == ["metric", "Geometric", "Graph", "Overall"]
    table = ranking.leaderboard("me2/0", runs_root)
    row = _runs(table)["me2-solve"]
    # Table 2 prints fractions (Molmo 0.235): the run's cells too, not ×100.
    assert _cells(table, row) == {c: round(v, 4) for c, v in zip(own["columns"][1:], own["rows"][0][1:], strict=True)}
    assert "ranked by **Overall**" in table.note
    assert row[table.headers.index("interval (95%)")].startswith("[0.")
    assert _cells(table, _runs(table)["me2-keypoints"]) == {}  # another task's accuracy is not Table 2's

    metrics = boards.load_results(runs_root, "me2-explain")["metrics"]
    ratings = {name: metrics[name]["value"] for name in ("Correctness", "Fidelity", "Referencing")}
    assert all(isinstance(v, float) and 1 <= v <= 5 for v in ratings.values())  # judged on the loopback server
    explain = ranking.leaderboard("me2/3", runs_root)  # Table 5: the judge's mean ratings, 1-5 as printed
    assert _cells(explain, _runs(explain)["me2-explain"]) == ratings
    human = ranking.leaderboard("me2/4", runs_root)  # Table 6: beside the human ratings, never ranked
    row = _runs(human)["me2-explain"]
    assert row[0] == ranking.APART and _cells(human, row) == ratings
    assert "judge's ratings" in row[human.headers.index(ranking.APART_COLUMN)]
    text = ranking.leaderboard("me2/5", runs_root)  # Table A: BERTScore is the run's BERTScore-F1
    cells = _cells(text, _runs(text)["me2-explain"])
    assert cells["BERTScore"] == round(metrics["BERTScore-F1"]["value"], 4)
    assert cells["ROUGE-L"] == round(metrics["ROUGE-L"]["value"], 4)


def test_me2_table_4_pairs_the_solve_and_keypoints_runs_of_one_model(runs_root: Path) -> None:
    table = ranking.leaderboard("me2/2", runs_root)
    row = _runs(table)["me2-solve × me2-keypoints"]
    cells = _cells(table, row)
    solved = boards.load_results(runs_root, "me2-solve")["metrics"]["accuracy"]["value"]
    identified = boards.load_results(runs_root, "me2-keypoints")["metrics"]["accuracy"]["value"]
    # Every item scored in both runs: solved = solved only + both, identified = identified only + both.
    assert cells["solved_only"] + cells["both"] == pytest.approx(100 * solved, abs=0.02)
    assert cells["identified_only"] + cells["both"] == pytest.approx(100 * identified, abs=0.02)
    assert "15 items paired" in row
    why = row[table.headers.index(ranking.APART_COLUMN)]
    assert row[0] == ranking.APART and "me2-solve: embedded sample" in why and "me2-keypoints: 15 of 1,000 items" in why


def test_geoeval_and_capgeo_cells(runs_root: Path) -> None:
    best = ranking.leaderboard("geoeval/1", runs_root)  # the abstract's "accuracy" is Table 2's A
    a = boards.load_results(runs_root, "geoeval-2000")["tables"][0]["rows"][0][1]
    assert _cells(best, _runs(best)["geoeval-2000"]) == {"GeoEval-2000 accuracy (%)": round(100 * a, 2)}
    hard = boards.load_results(runs_root, "geoeval-hard")["metrics"]["A"]["value"]
    assert _cells(best, _runs(best)["geoeval-hard"]) == {"GeoEval-hard accuracy (%)": round(100 * hard, 2)}
    accuracy = boards.load_results(runs_root, "capgeo")["metrics"]["accuracy"]["value"]
    for key in ("capgeo/0", "capgeo/1", "capgeo/2", "capgeo/3"):  # a direct run: the 'direct' column
        table = ranking.leaderboard(key, runs_root)
        assert _cells(table, _runs(table)["capgeo"]) == {"direct": round(100 * accuracy, 2)}, key


def test_capgeo_caption_runs_land_in_their_captioners_column() -> None:
    board = next(b for b in boards.published_boards("capgeo") if "Table 2 (Vision Only)" in b.source)
    columns = board.columns[1:]
    stats = {"value": 0.5}

    def run(mode: str, captioner: str | None) -> dict[str, Any]:
        return {"task": "capgeo_reasoning", "metrics": {"accuracy": stats},
                "config": {"options": {"mode": mode, "captioner": captioner}}}

    assert list(paper_cells.run_cells(board, run("without_image", "openai:gpt-4o"), columns)) == [
        "GPT-4o · without image"]
    assert list(paper_cells.run_cells(board, run("with_image", "openai:gpt-4o"), columns)) == ["GPT-4o · with image"]
    table3 = next(b for b in boards.published_boards("capgeo") if "Table 3 (MathVista)" in b.source)
    assert list(paper_cells.run_cells(table3, run("with_image", "openai:gpt-4o"), table3.columns[1:])) == ["GPT-4o"]
    # OpenAI's o3, which the tables call "GPT-o3"; a spec with a vendor folder lands alike
    assert list(paper_cells.run_cells(board, run("with_image", "openai:o3"), columns)) == ["GPT-o3 · with image"]
    assert list(paper_cells.run_cells(table3, run("with_image", "openai:o3"), table3.columns[1:])) == ["GPT-o3"]
    assert list(paper_cells.run_cells(board, run("without_image", "openai:Qwen/Qwen2.5-VL-7B-Instruct"), columns)) == [
        "Qwen2.5-VL-7B-Instruct · without image"]
    # Table 3 prints the with-image cells only: a without-image run has no column there.
    assert paper_cells.run_cells(table3, run("without_image", "openai:gpt-4o"), table3.columns[1:]) == {}


def test_an_upload_shaped_otherwise_falls_back_to_its_metric_names(tmp_path: Path) -> None:
    """A visitor's results.json with breakdowns that are not a run's (or stats without a value)
    still joins the table by its metric names; it never breaks the leaderboard."""
    odd = {"benchmark": "me2", "task": "me2_explain", "model": "m", "n_items": 1000,
           "metrics": {"ROUGE-L": {"value": 0.25}, "BLEU-2": {"stderr": 0.1}},
           "breakdowns": {"domain": {"geometry": "not a bucket"}}}
    table = ranking.leaderboard("me2/5", tmp_path, {"odd": odd})
    row = _runs(table)["odd"]
    assert _cells(table, row) == {"ROUGE-L": 0.25}
    no_domains = {**odd, "task": "me2_solve", "metrics": {"accuracy": {"value": 0.5}}, "breakdowns": {"domain": []}}
    table = ranking.leaderboard("me2/0", tmp_path, {"odd": no_domains})
    assert _cells(table, _runs(table)["odd"]) == {"Overall": 0.5}  # the domains it lacks stay empty, never 0
