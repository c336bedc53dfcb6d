"""A run's cells in a published table, laid out by the code that lays out `geomeval run`'s own
paper-layout tables, so the Space and the run's report.md never disagree on a number.

- ME2 Tables 2 and 3 (Geometric, Graph, Overall): `me2.scoring.paper_table`, the row of the
  task's accuracy; Tables 5, 6 and A (one column per metric): that table's Overall column.
  Table 4 (solved × identified) pairs a `me2_solve` and a `me2_keypoints` run of one model with
  `me2.joint.joint_table`, as `geomeval me2 joint` does (`joint_rows`).
- GeoEval Table 2 and the abstract's best-per-subset table: `geoeval.scoring.paper_table`
  ("GeoEval-2000 accuracy (%)" is its "GeoEval-2000 A (%)").
- CapGeo Tables 2 and 3: the run's accuracy in the column `capgeo.grid.column_label` names for
  its mode and captioner ("direct", "<captioner> · with image"); Table 3 prints only the
  captioner, which is the with-image mode (the table's note).
- Every other table, and a column the layout does not place (an upload carries no breakdowns):
  the metric named like the column (`metric_for`).

A cell is (value as the table prints it, the stats behind it): a table whose published
numbers are fractions (`Board.scale == "fraction"`, ME2's accuracy and text metrics) shows a
run's share as a fraction, every other one as the reports do (shares ×100).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import boards

FRACTION = "fraction"
ME2_DOMAINS = {"Geometric": "geometry", "Graph": "graph"}  # Tables 2 and 3's columns: the domain breakdown
JOINT_CELLS = ("solved_only", "identified_only", "both", "neither")


@dataclass
class Cell:
    value: float | None
    stats: dict[str, Any] | None = None  # value, unit, ci/stderr, coverage… (None for a derived cell)


def shown(board: boards.Board, stats: dict[str, Any] | None, unit: str | None = None) -> float | None:
    """A metric's value in the table's own scale."""
    if board.scale == FRACTION:
        if not isinstance(stats, dict) or not isinstance(stats.get("value"), int | float):
            return None
        value = float(stats["value"])
        return round(value, 4) if math.isfinite(value) else None
    return boards.display_value(stats, unit)


def scale_factor(board: boards.Board, unit: str | None) -> float:
    """What a share is multiplied by in this table (1 for raw units and fraction tables)."""
    return 1.0 if unit in boards.RAW_UNITS or board.scale == FRACTION else 100.0


def _norm(name: str) -> str:
    return " ".join(re.sub(r"[()%_\-]", " ", str(name).lower()).split())


def column_key(name: str) -> str:
    """A published column's or a metric's name as the leaderboards compare them: lower case,
    the unit marks "(%)", "(0-100)" and "×10⁻²" aside, dashes and underscores as spaces."""
    name = re.sub(r"\((?:%|0-100|×10⁻²)\)|×10⁻²", "", str(name).lower())
    return " ".join(name.replace("_", " ").replace("-", " ").split())


def metric_for(column: str, task: str | None, metrics: dict[str, Any]) -> dict[str, Any] | None:
    """The run's stats for a published column: the metric of that name, or the metric the
    column names for the run's task ("GeoEval-2000 A (%)" is metric A of task geoeval_2000)."""
    wanted = column_key(column)
    for metric, stats in metrics.items():
        if isinstance(stats, dict) and wanted in (column_key(metric), f"{column_key(task or '')} {column_key(metric)}"):
            return stats
    return None


def _with_value(stats: Any, value: Any) -> dict[str, Any] | None:
    """The stats behind a paper-table cell, or a bare {"value": …} when there are none."""
    if isinstance(stats, dict):
        return stats
    return {"value": value} if isinstance(value, int | float) else None


def _me2(board: boards.Board, data: dict[str, Any], columns: list[str]) -> dict[str, Cell]:
    from ..benchmarks.me2.scoring import ACCURACY, paper_table

    task = str(data.get("task") or "")
    tasks = set(board.protocol.get("tasks") or ()) | set(board.protocol.get("cells_from") or ())
    if task not in tasks or not isinstance(data.get("breakdowns"), dict):
        return {}
    table = paper_table(task, {"metrics": data.get("metrics") or {}, "breakdowns": data["breakdowns"]})
    header = table["columns"]
    domains = (data["breakdowns"].get("domain") or {})
    cells: dict[str, Cell] = {}
    for row in table["rows"]:
        metric = str(row[0])
        overall = row[header.index("Overall")]
        if metric == ACCURACY:  # Tables 2 and 3: the domains and the overall accuracy
            for column in columns:
                if column in ME2_DOMAINS:
                    stats = (domains.get(ME2_DOMAINS[column]) or {}).get(metric)
                    cells[column] = Cell(None, _with_value(stats, row[header.index(column)]))
                elif column == "Overall":
                    cells[column] = Cell(None, _with_value((data.get("metrics") or {}).get(metric), overall))
            continue
        for column in columns:  # Tables 5, 6 and A: a column per metric, the Overall cell
            if _norm(column) == _norm(metric) or (column == "BERTScore" and metric.startswith("BERTScore-F1")):
                cells[column] = Cell(None, _with_value((data.get("metrics") or {}).get(metric.split(" (")[0]), overall))
    return cells


def _geoeval(board: boards.Board, data: dict[str, Any], columns: list[str]) -> dict[str, Cell]:
    from ..benchmarks.geoeval.scoring import PAPER_SUBSETS, TABLE2_COLUMNS, paper_table

    if not isinstance(data.get("breakdowns"), dict):
        return {}
    table = paper_table({"breakdowns": data["breakdowns"]})
    subsets = data["breakdowns"].get("subset") or {}
    stats_of = {_norm(f"{PAPER_SUBSETS[task]} {metric}"): (subsets.get(task) or {}).get(metric)
                for task, metric in TABLE2_COLUMNS}
    values = dict(zip(table["columns"], table["rows"][0], strict=True))
    cells: dict[str, Cell] = {}
    for column in columns:
        key = _norm(column).replace(" accuracy", " a")  # the abstract's "accuracy" is Table 2's A
        for label, value in values.items():
            if _norm(label) == key and value is not None:
                cells[column] = Cell(None, _with_value(stats_of.get(key), value))
    return cells


def _model_name(spec: str) -> str:
    """A captioner's model as the tables name it, the tables' "GPT-" prefix aside (they write
    OpenAI's o3 "GPT-o3"): "openai:gpt-4o" -> "4o", "openai:o3" and "GPT-o3" -> "o3"."""
    name = _norm(spec.split(":", 1)[-1].rsplit("/", 1)[-1])
    return name[4:] if name.startswith("gpt ") else name


def _capgeo(board: boards.Board, data: dict[str, Any], columns: list[str]) -> dict[str, Cell]:
    from ..benchmarks.capgeo.grid import column_label

    if data.get("task") != "capgeo_reasoning":
        return {}
    options = (data.get("config") or {}).get("options") or {}
    mode = str(options.get("mode") or "direct")
    captioner = options.get("captioner")
    stats = (data.get("metrics") or {}).get("accuracy")
    label = column_label(str(captioner) if captioner else None, mode)
    if label == "direct":
        return {"direct": Cell(None, stats)} if "direct" in columns else {}
    name = _model_name(str(captioner))
    for column in columns:
        if " · " in column:  # Table 2: "<captioner> · with image" as the grid writes it
            who, _, how = column.partition(" · ")
            if _model_name(who) == name and how == label.rpartition(" · ")[2]:
                return {column: Cell(None, stats)}
        elif mode == "with_image" and _model_name(column) == name:  # Table 3: the captioner alone
            return {column: Cell(None, stats)}
    return {}


LAYOUTS = {"me2": _me2, "geoeval": _geoeval, "capgeo": _capgeo}


def run_cells(board: boards.Board, data: dict[str, Any], columns: list[str]) -> dict[str, Cell]:
    """The run's cells in `board`'s `columns`, with their values in the table's scale."""
    layout = LAYOUTS.get(board.benchmark)
    try:
        cells = layout(board, data, columns) if layout else {}
    except (KeyError, TypeError, AttributeError, ValueError, IndexError):  # an upload shaped otherwise than a run's
        cells = {}
    metrics = data.get("metrics") or {}
    for column in columns:  # a column the layout does not place (or an upload without breakdowns)
        stats = metric_for(column, data.get("task"), metrics) if column not in cells else None
        if stats is not None:
            cells[column] = Cell(None, stats)
    for cell in cells.values():
        if cell.value is None:
            cell.value = shown(board, cell.stats)
    return cells


# --------------------------------------------------------------------------- ME2 Table 4


@dataclass
class JointRow:
    model: str
    solve: str  # run names
    keypoints: str
    cells: dict[str, float | None]  # shares ×100 over the items both runs scored
    items: int
    unpaired: int


def joint_rows(root: Path, runs: dict[str, dict[str, Any]]) -> list[JointRow]:
    """ME2's Table 4 for every pair of a `me2_solve` and a `me2_keypoints` run of the same model
    in the runs folder (their samples.jsonl read by `me2.joint.joint_table`, as `geomeval me2
    joint` reads them); a model with several runs of a task pairs each with each."""
    from ..benchmarks.me2.joint import joint_table
    from ..run.compare import ALL

    found = boards.discover_runs(root)
    solve = [(n, d) for n, d in runs.items() if d.get("task") == "me2_solve" and n in found]
    identify = [(n, d) for n, d in runs.items() if d.get("task") == "me2_keypoints" and n in found]
    rows = []
    for s_name, s_data in solve:
        for k_name, k_data in identify:
            if s_data.get("model") != k_data.get("model"):
                continue
            try:
                table = joint_table(found[s_name].parent, found[k_name].parent)
            except (OSError, ValueError, KeyError):  # no samples.jsonl, or not one task: no pair
                continue
            group = table["groups"].get(ALL)
            if not group:
                continue
            cells = {c: round(100 * group["shares"][c], 2) for c in JOINT_CELLS}
            rows.append(JointRow(str(s_data.get("model") or "?"), s_name, k_name, cells, int(group["items"]),
                                 int(table["unpaired"])))
    return rows
