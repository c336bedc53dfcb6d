"""The published ME2 and CapGeo tables the Space shows: copied from the papers with their
sources, in the columns geomeval reports for the same quantity, and consistent with the
arithmetic the papers imply (so a mistyped number fails here)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from geomeval.benchmarks.capgeo import grid
from geomeval.benchmarks.capgeo.sources import SOURCES
from geomeval.benchmarks.capgeo_bench import scoring as bench_scoring
from geomeval.benchmarks.me2 import joint
from geomeval.benchmarks.me2 import scoring as me2_scoring
from geomeval.demo import boards

ME2_GEOMETRY, ME2_GRAPH = 763, 237  # the paper's Table 1 item counts


def _boards(paper: str) -> dict[str, boards.Board]:
    found = {b.source: b for b in boards.published_boards() if b.key.split("/")[0] == paper}
    assert found, f"no published tables for {paper}"
    return found


def _table(paper: str, source_tail: str) -> boards.Board:
    matches = [b for source, b in _boards(paper).items() if source.endswith(source_tail)]
    assert len(matches) == 1, f"{paper}: {source_tail!r} matches {len(matches)} tables"
    return matches[0]


def _rows(board: boards.Board) -> list[dict[str, Any]]:
    return [dict(zip(board.columns, row, strict=True)) for row in board.rows]


def _row(board: boards.Board, **match: Any) -> dict[str, Any]:
    found = [r for r in _rows(board) if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, f"{board.source}: {match} matches {len(found)} rows"
    return found[0]


# --------------------------------------------------------------------------- ME2


def test_me2_every_results_table_is_published_with_its_source() -> None:
    tables = _boards("me2")
    expected = ("Table 2", "Table 3", "Table 4", "Table 5", "Table 6", "Table A")
    assert sorted(s.rsplit(", ", 1)[-1] for s in tables) == sorted(expected)
    for board in tables.values():
        assert board.rows and board.benchmark == "me2" and "2504.03197" in board.source
    text = Path(boards.LEADERBOARD_DIR, "me2.json").read_text(encoding="utf-8")
    # The old file scored keypoint identification by ROUGE-L and quoted a range the paper lacks.
    assert "figure_caption" not in text and "0.006 to 0.149" not in text


def test_me2_published_numbers() -> None:
    t2, t3 = _table("me2", "Table 2"), _table("me2", "Table 3")
    assert _row(t2, model="Qwen2.5-VL", Params="72B") == {
        "model": "Qwen2.5-VL", "Params": "72B", "Geometric": 0.430, "Graph": 0.300, "Overall": 0.399}
    assert _row(t2, model="Gemini 2.0 F")["Overall"] == 0.436
    assert _row(t3, model="URSA")["Overall"] == 0.029
    assert _row(t3, model="Gemini 2.0 F")["Graph"] == 0.726
    assert _row(_table("me2", "Table 5"), model="Gemini 2.0 F")["Referencing"] == 4.103
    assert _row(_table("me2", "Table 6"), model="Math-PUMA")["Correctness"] == 1.041
    table_a = _table("me2", "Table A")
    assert _row(table_a, model="Gemini 2.0 Flash")["METEOR"] == 0.367
    assert _row(table_a, model="URSA")["BERTScore"] == 0.735
    assert [r["model"] for r in _rows(t2)] == [r["model"] for r in _rows(t3)]  # same models, same order
    assert len(t2.rows) == len(t3.rows) == len(table_a.rows) == len(_table("me2", "Table 5").rows) == 10


@pytest.mark.parametrize("tail", ["Table 2", "Table 3"])
def test_me2_overall_is_the_domains_weighted_by_their_items(tail: str) -> None:
    """Overall is the mean over all 1,000 items: 763 geometry and 237 graph. Each printed
    score is rounded to 3 decimals, so the weighted mean of the printed domain scores is
    within 0.001 of the printed Overall, for every row."""
    for row in _rows(_table("me2", tail)):
        weighted = (ME2_GEOMETRY * row["Geometric"] + ME2_GRAPH * row["Graph"]) / (ME2_GEOMETRY + ME2_GRAPH)
        assert abs(weighted - row["Overall"]) <= 0.001, (tail, row)


def test_me2_joint_cells_add_up_to_the_accuracies() -> None:
    """Table 4: solved = solved_only + both (Table 2's Overall), identified = identified_only +
    both (Table 3's); three printed numbers rounded to 0.1 points each, so within 0.15."""
    t2, t3 = _table("me2", "Table 2"), _table("me2", "Table 3")
    names = {"Qwen2.5-VL 7B": ("Qwen2.5-VL", "7B"), "Math-PUMA": ("Math-PUMA", "7B"),
             "Gemini 2.0 F": ("Gemini 2.0 F", "-")}
    rows = _rows(_table("me2", "Table 4"))
    assert [r["model"] for r in rows] == list(names)
    for row in rows:
        model, params = names[row["model"]]
        solved = _row(t2, model=model, Params=params)["Overall"] * 100
        identified = _row(t3, model=model, Params=params)["Overall"] * 100
        assert abs(row["solved_only"] + row["both"] - solved) <= 0.15, row
        assert abs(row["identified_only"] + row["both"] - identified) <= 0.15, row
    assert _row(_table("me2", "Table 4"), model="Gemini 2.0 F")["both"] == 23.1


def test_me2_columns_are_the_ones_geomeval_reports() -> None:
    summary = {"breakdowns": {"domain": {}}, "metrics": {"accuracy": {"value": 0.5}}}
    reported = me2_scoring.paper_table("me2_solve", summary)["columns"][1:]  # after "metric"
    for tail in ("Table 2", "Table 3"):
        assert _table("me2", tail).columns == ["model", "Params", *reported]
    assert set(_table("me2", "Table 4").columns[1:]) <= set(joint.CELLS)
    for tail in ("Table 5", "Table 6"):
        assert _table("me2", tail).columns[1:] == list(me2_scoring.LIKERT)
    table_a = _table("me2", "Table A").columns
    assert table_a[2:6] == list(me2_scoring.TEXT_METRICS)
    # The paper's single BERTScore column names neither P/R/F1 nor a model: its note says so.
    assert table_a[6] == "BERTScore" and "not comparable" in _table("me2", "Table A").note


# --------------------------------------------------------------------------- CapGeo


def test_capgeo_tables_are_published_with_their_sources() -> None:
    tables = _boards("capgeo")
    assert sorted(tables) == sorted(f"CapGeo paper (Li et al., arXiv 2510.09302), {t}" for t in (
        "Table 2 (Vision Only)", "Table 2 (Vision Intensive)", "Table 3 (MathVista)", "Table 3 (GeoQA)", "Table 4"))
    for board in tables.values():
        assert board.rows
        if board.benchmark == "capgeo":  # each reasoning table names the source geomeval runs it as
            named = re.search(r"geomeval source: (\w+)", board.note)
            assert named and named.group(1) in SOURCES, board.source


def test_capgeo_table2_numbers_and_the_abstracts() -> None:
    """The abstract's figures are Table 2 cells: Qwen2.5-VL-72B 8.6 → 59.0 (GPT-4o captions),
    Claude-Opus-4 44.8 → 73.0 (GPT-o3 captions); Section 5.2: Qwen2.5-VL-72B 66.4 with
    GPT-o3's. The printed pairs are (w/o img, w img): text-only LLMs fill only the first."""
    only = _table("capgeo", "Table 2 (Vision Only)")
    qwen = _row(only, reasoner="Qwen2.5-VL-72B-Instruct")
    assert (qwen["direct"], qwen["GPT-4o · with image"], qwen["GPT-o3 · with image"]) == (8.6, 59.0, 66.4)
    assert qwen["GPT-4o · without image"] == 51.1
    claude = _row(only, reasoner="Claude-Opus-4-20250514")
    assert (claude["direct"], claude["GPT-o3 · with image"]) == (44.8, 73.0)
    intensive = _row(_table("capgeo", "Table 2 (Vision Intensive)"), reasoner="Gemini-2.5-pro")
    assert intensive["Qwen2.5-VL-7B-Instruct · without image"] == 75.1
    for board in (only, _table("capgeo", "Table 2 (Vision Intensive)")):
        for row in _rows(board):
            text_only = row["reasoner"] in ("DeepSeek-R1", "Qwen2.5-72B-Instruct", "Qwen2.5-7B-Instruct")
            for column, value in row.items():
                if column == "direct" or column.endswith(" · with image"):
                    assert (value == "–") == text_only, (row["reasoner"], column)
                elif column.endswith("without image"):
                    assert isinstance(value, float), (row["reasoner"], column)


def test_capgeo_table3_numbers() -> None:
    """Section 5.2: on MathVista, Qwen2.5-VL-72B 75.9 → 92.6 with GPT-o3 captions; GPT-o3 94.9."""
    mathvista = _table("capgeo", "Table 3 (MathVista)")
    qwen = _row(mathvista, reasoner="Qwen2.5-VL-72B-Instruct")
    assert (qwen["direct"], qwen["GPT-o3"]) == (75.9, 92.6)
    assert _row(mathvista, reasoner="GPT-o3")["GPT-o3"] == 94.9
    assert _row(_table("capgeo", "Table 3 (GeoQA)"), reasoner="Gemini-2.5-pro-preview-05-06")["Qwen-7B"] == 97.5


def test_capgeo_bench_avg_is_the_mean_of_the_three_dimensions() -> None:
    """Table 4's Avg is the mean of the Element, Relation and Numerical Overall scores:
    GPT-o3 (63.4 + 56.1 + 26.0) / 3 = 48.5; every captioner's printed Avg agrees within the
    rounding of four printed numbers."""
    board = _table("capgeo", "Table 4")
    rows = _rows(board)
    captioners = list(dict.fromkeys(r["captioner"] for r in rows))
    assert captioners == ["GPT-03", "GPT-4o", "Qwen2.5-VL-72B-Instruct", "Qwen2.5-VL-7B-Instruct"]
    for name in captioners:
        own = [r for r in rows if r["captioner"] == name]
        assert [r["dimension"] for r in own] == ["Element", "Relation", "Numerical"]
        assert own[1]["Avg"] is None and own[2]["Avg"] is None  # printed once, on the first row
        mean = bench_scoring.avg(*(r["Overall"] for r in own))
        assert abs(mean - own[0]["Avg"]) <= 0.05 + 1e-9, name
    gpt_o3 = [r for r in rows if r["captioner"] == "GPT-03"]
    assert [r["Overall"] for r in gpt_o3] == [63.4, 56.1, 26.0] and gpt_o3[0]["Avg"] == 48.5
    assert _row(board, captioner="Qwen2.5-VL-7B-Instruct", dimension="Numerical")["SG"] == 75.0


def test_capgeo_columns_are_the_ones_geomeval_reports(tmp_path: Path) -> None:
    # CapGeo-Bench: the columns of a run's own Table 4, the captioner before them.
    metrics = {f"{label} recall": {"value": 0.5} for label in bench_scoring.DIMENSION_NAMES.values()}
    metrics[bench_scoring.AVG] = {"value": 0.5}
    table4 = bench_scoring._table4({"breakdowns": {"class": {}, "difficulty": {}}, "metrics": metrics}, "")
    assert _table("capgeo", "Table 4").columns == ["captioner", *table4["columns"]]
    assert [r[0] for r in table4["rows"]] == ["Element", "Relation", "Numerical"]
    # CapGeo Table 2: the columns `geomeval capgeo grid` writes, captioners named as printed.
    stats = {"metrics": {"accuracy": {"value": 0.5, "scored": 1, "total": 1}}}
    captioners = [SimpleNamespace(spec=name) for name in
                  ("GPT-4o", "GPT-o3", "Qwen2.5-VL-72B-Instruct", "Qwen2.5-VL-7B-Instruct")]
    written = grid.run_grid(run=lambda *args, **kwargs: stats, source="mathverse_vision_only", reasoners=[SimpleNamespace(spec="m")],
                            captioners=captioners, judge=None, out_dir=tmp_path, captions=tmp_path)
    for tail in ("Table 2 (Vision Only)", "Table 2 (Vision Intensive)"):
        assert _table("capgeo", tail).columns == ["reasoner", *written["columns"]]
