"""One ranked leaderboard per benchmark: a paper's published rows and this Space's runs.

A published table's columns are the paper's; a run joins it in the cells its own paper-layout
table gives it (`paper_cells`: ME2's domains and metrics, GeoEval's subsets, CapGeo's caption
columns, ME2's solved × identified pairs), else in every column whose name is one of its
metrics (compared without units and case: "ACS" is "ACS", "VLM-I (%)" is "VLM-I"), in the
table's own scale (shares ×100, or fractions where the paper prints fractions), with its
coverage and its interval (the metric's "ci" or "stderr", when the run has one) beside the
ranking column. Rows are
ranked on one column, best first; a row with no value there is listed last, unranked.

A run enters the ranking only when it ran the table's protocol (`apart_reasons`): one of the
table's tasks, on all of the published items (the release, not the embedded sample, no
`--limit`), with the benchmark's default switches (or the ones the table names), the default
prompts, and every item of the ranking column scored. Any other run is listed below the
ranking with rank "apart" and the reasons in its own column ("10 of 2,186 items", "task
geolaux_aux, not geolaux", "switch steps=geomeval on"). A run's model cell names the model and
the run ("baseline:random · run geolaux-random"), so two runs of one model are told apart.

Runs come from the runs folder (`boards`) and from results.json files a visitor uploads:
those are validated here (size, JSON, a registered benchmark, numeric metrics) and kept by
the app in the visitor's session only, never written to the runs folder.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..benchmarks import REGISTRY
from . import boards, paper_cells
from .limits import MAX_UPLOAD_RESULTS_BYTES, MAX_UPLOADED_RUNS, DemoInputError

PUBLISHED, LOCAL, UPLOADED = "published", "local run", "uploaded"
APART = "apart"  # the rank cell of a run listed apart from the ranking
KIND_COLUMNS = ("kind", "type", "model type")
FIXED = ["rank", "model", "type"]  # then the value columns, coverage, interval, apart because, source
APART_COLUMN = "listed apart because"


LOWER_IS_BETTER = ("lpips", "edit distance", "δpcs")  # ranked lowest first


# a published column's or metric's name as compared (paper_cells reads cells with it too)
_norm = paper_cells.column_key


@dataclass
class Ranked:
    headers: list[str]
    rows: list[list[Any]]
    note: str
    kinds: list[str]
    columns: list[str]  # the numeric columns a ranking may use


def _interval(stats: dict[str, Any], unit: str | None, scale: float | None = None) -> str:
    """The metric's interval as shown (×100 for shares, unless `scale` says otherwise): "[lo,
    hi]" from "ci", "± e" from "stderr" (1.96·stderr), "" when the run has none."""
    scale = scale if scale is not None else 1.0 if unit in boards.RAW_UNITS else 100.0
    if scale == 1.0 and unit not in boards.RAW_UNITS:  # a fraction table: three decimals
        ci = stats.get("ci")
        if isinstance(ci, list | tuple) and len(ci) == 2 and all(isinstance(v, int | float) for v in ci):
            return f"[{ci[0]:.3f}, {ci[1]:.3f}]"
        stderr = stats.get("stderr")
        return f"± {1.96 * stderr:.3f}" if isinstance(stderr, int | float) and math.isfinite(stderr) else ""
    ci = stats.get("ci")
    if isinstance(ci, list | tuple) and len(ci) == 2 and all(isinstance(v, int | float) for v in ci):
        return f"[{scale * ci[0]:.2f}, {scale * ci[1]:.2f}]"
    if isinstance(ci, dict) and all(isinstance(ci.get(k), int | float) for k in ("low", "high")):
        return f"[{scale * ci['low']:.2f}, {scale * ci['high']:.2f}]"
    stderr = stats.get("stderr")
    if isinstance(stderr, int | float) and math.isfinite(stderr):
        return f"± {1.96 * scale * stderr:.2f}"
    return ""


def _run_row(board: boards.Board, columns: list[str], name: str, kind: str, data: dict[str, Any],
             rank_by: str | None) -> tuple[list[Any], list[Any]]:
    found = paper_cells.run_cells(board, data, columns)
    cells = [found[column].value if column in found else None for column in columns]
    coverage, interval = "", ""
    stats = found[rank_by].stats if rank_by in found else None
    if stats:
        if isinstance(stats.get("coverage"), int | float):
            coverage = f"{100 * stats['coverage']:.0f}% ({stats.get('scored', '?')}/{stats.get('total', '?')})"
        interval = _interval(stats, stats.get("unit"), paper_cells.scale_factor(board, stats.get("unit")))
    model = f"{str(data.get('model') or '?')[:80]} · run {name}"
    source = f"{kind}: {name}" + (f" · task {data['task']}" if data.get("task") else "")
    return [model, kind], [*cells, coverage, interval, source]


def _count(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else "?"


def _same(recorded: Any, expected: Any) -> bool:
    return str(recorded) == str(expected)


def _default_options(benchmark: str) -> dict[str, Any]:
    from ..benchmarks import get_benchmark

    try:
        return dict(get_benchmark(benchmark).options)
    except Exception:  # a benchmark that cannot be set up here: only the table's own options count
        return {}


def apart_reasons(board: boards.Board, data: dict[str, Any], rank_by: str | None = None) -> list[str]:
    """Why a run (its results.json, whose "config" is its run.json) is not comparable with
    `board`'s published rows; empty when it is. Checked: the table takes single runs, the
    task, the data (the release, not the embedded sample; no --limit), the item count against
    the published one, the run's switches against the benchmark's defaults and the table's
    own, the prompts (no --prompts file), the judge the paper used (where the table names
    one) and the coverage of the ranking column."""
    protocol = board.protocol
    if protocol.get("no_runs"):
        return [f"this table is {protocol['no_runs']}"]
    reasons: list[str] = []
    tasks: dict[str, Any] = dict(protocol.get("tasks") or {})
    task = data.get("task")
    if tasks and task not in tasks:
        reasons.append(f"task {str(task or '?')[:40]}, not {' or '.join(tasks)}")
    config = data.get("config")
    if not isinstance(config, dict):
        reasons.append("its protocol is not recorded (no run.json settings in results.json)")
        config = {}
    else:
        kind = ((config.get("provenance") or {}).get("data") or {}).get("kind") or config.get("data")
        if kind == "embedded-sample":
            reasons.append("embedded sample, not the release")
        if config.get("limit"):
            reasons.append(f"--limit {_count(config['limit'])}")
        expected = {**_default_options(str(data.get("benchmark") or "")), **(protocol.get("options") or {})}
        options = config.get("options")
        recorded: dict[str, Any] = options if isinstance(options, dict) else {}
        free = set(protocol.get("free") or ())
        for key, value in recorded.items():
            if key in expected and key not in free and not _same(value, expected[key]):
                reasons.append(f"switch {str(key)[:40]}={str(value)[:60]} on (the table: {expected[key]})")
        for key, value in (protocol.get("options") or {}).items():
            if key not in recorded:
                reasons.append(f"{key} not recorded (the table: {value})")
        if config.get("prompts"):
            reasons.append("its own prompts (--prompts), not the default ones")
    judge = str(data.get("judge") or config.get("judge") or "")
    if protocol.get("judge") and str(protocol["judge"]).lower() not in judge.lower():
        reasons.append(f"judge {judge[:60] or '?'}, the table's: {protocol['judge']}")
    published = tasks.get(task) if task in tasks else None
    items = data.get("n_items")
    if isinstance(published, int) and items != published:
        reasons.append(f"{_count(items)} of {published:,} items")
    metrics = data.get("metrics") or {}
    cell = paper_cells.run_cells(board, data, [rank_by]).get(rank_by) if rank_by else None
    stats = cell.stats if cell else None
    stats = stats or metrics.get(data.get("headline") or "")
    if isinstance(stats, dict) and isinstance(stats.get("coverage"), int | float) and stats["coverage"] < 1:
        reasons.append(f"{stats.get('scored', '?')} of {stats.get('total', '?')} items scored")
    return reasons


def _joint_reasons(board: boards.Board, joint: paper_cells.JointRow, root: Path) -> list[str]:
    """Why a pair of runs is not comparable with a joint table: each run checked against the
    published table of its own task (ME2's Tables 2 and 3), prefixed with the run."""
    reasons: list[str] = []
    for name in (joint.solve, joint.keypoints):
        data = boards.load_results(root, name)
        own = next((b for b in boards.published_boards(board.benchmark)
                    if data.get("task") in (b.protocol.get("tasks") or {})), None)
        if own is not None:
            reasons += [f"{name}: {why}" for why in apart_reasons(own, data)]
    return reasons


def leaderboard(key: str | None, root: Path, uploaded: dict[str, dict[str, Any]] | None = None,
                rank_by: str | None = None, search: str | None = None, kinds: list[str] | None = None) -> Ranked:
    """The published table `key` with the runs of its benchmark, ranked on `rank_by` (default:
    the first column a run fills, else the table's last numeric column), filtered to rows
    whose model contains `search` and whose type is in `kinds` (all when empty)."""
    board = boards._board(key)
    numeric = boards.numeric_columns(key) if board.rows else []
    value_columns = [c for c in board.columns[1:] if _norm(c) not in KIND_COLUMNS]
    kind_index = next((i for i, c in enumerate(board.columns) if _norm(c) in KIND_COLUMNS), None)
    runs = [(name, LOCAL, data) for name, data in boards._all_results(root, board.benchmark).items()]
    runs += [(name, UPLOADED, data) for name, data in (uploaded or {}).items() if data.get("benchmark") == board.benchmark]
    run_cells = [paper_cells.run_cells(board, d, value_columns) for _n, _k, d in runs]
    joints = paper_cells.joint_rows(root, boards._all_results(root, board.benchmark)) if board.protocol.get("joint") else []
    filled = [c for c in value_columns
              if any(c in found and found[c].value is not None for found in run_cells)
              or any(j.cells.get(c) is not None for j in joints)]
    rankable = list(dict.fromkeys([*filled, *numeric]))
    if rank_by not in rankable:
        rank_by = (board.rank_by if board.rank_by in rankable else None) or (
            filled[0] if filled else (numeric[0] if numeric else None))
    rows: list[list[Any]] = []
    for row in board.rows:
        kind = str(row[kind_index]) if kind_index is not None and row[kind_index] not in (None, "") else PUBLISHED
        cells = [boards._number(row[board.columns.index(c)]) if c in numeric else row[board.columns.index(c)]
                 for c in value_columns]
        rows.append([str(row[0]), kind, *cells, "", "", "", f"{PUBLISHED}: {board.source}"])
    apart: set[int] = set()  # ids of the rows of runs listed apart
    for name, kind, data in runs:
        head, tail = _run_row(board, value_columns, name, kind, data, rank_by)
        reasons = apart_reasons(board, data, rank_by)
        row = [*head, *tail[:-1], "; ".join(reasons), tail[-1]]
        if reasons:
            apart.add(id(row))
        rows.append(row)
    for joint in joints:
        reasons = _joint_reasons(board, joint, root)
        row = [f"{joint.model[:80]} · runs {joint.solve} × {joint.keypoints}", LOCAL,
               *[joint.cells.get(c) for c in value_columns], f"{joint.items:,} items paired"
               + (f" ({joint.unpaired:,} unscored in one run, left out)" if joint.unpaired else ""), "",
               "; ".join(reasons), f"{LOCAL}: {joint.solve} × {joint.keypoints} (geomeval me2 joint)"]
        if reasons:
            apart.add(id(row))
        rows.append(row)
    all_kinds = list(dict.fromkeys(str(r[1]) for r in rows))
    wanted = [k for k in (kinds or []) if k in all_kinds]
    text = (search or "").strip().lower()[:200]
    rows = [r for r in rows if (not wanted or r[1] in wanted) and (not text or text in str(r[0]).lower())]
    index = 2 + value_columns.index(rank_by) if rank_by in value_columns else None
    sign = 1.0 if rank_by and any(word in _norm(rank_by) for word in LOWER_IS_BETTER) else -1.0

    def order(row: list[Any]) -> tuple[int, float]:
        if id(row) in apart:
            return (2, 0.0)
        value = row[index] if index is not None else None
        return (0, sign * float(value)) if isinstance(value, int | float) else (1, 0.0)

    rows.sort(key=order)
    ranked, last, place = [], None, 0
    for position, row in enumerate(rows, 1):
        value = row[index] if index is not None else None
        if id(row) in apart:
            ranked.append([APART, *row])
            continue
        if isinstance(value, int | float):
            place = place if value == last else position
            last = value
        ranked.append([place if isinstance(value, int | float) else "—", *row])
    headers = [*FIXED, *value_columns, f"coverage ({rank_by})" if rank_by else "coverage", "interval (95%)",
               APART_COLUMN, "source"]
    note = (f"**{board.title}** · {board.paper} · ranked by **{rank_by or 'nothing (no numbers)'}**, "
            f"{'lowest' if sign > 0 else 'highest'} first · "
            f"{sum(1 for r in ranked if str(r[-1]).startswith(PUBLISHED))} published row(s), "
            f"{sum(1 for r in ranked if r[2] in (LOCAL, UPLOADED) and r[0] != APART)} run(s) ranked, "
            f"{sum(1 for r in ranked if r[0] == APART)} listed apart. Runs fill the cells their own paper-layout "
            "tables give them, in this table's scale; an empty cell is a number the run or the paper does not have. A run is ranked "
            "only when it ran this table's protocol (task, all published items, default switches and prompts, every "
            f"item scored); any other is listed apart, last, with the reasons in \"{APART_COLUMN}\".")
    if board.note:
        note += f"\n\n{board.note}"
    return Ranked(headers, ranked, note, all_kinds, rankable)


def to_csv(table: Ranked) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(table.headers)
    writer.writerows([["" if v is None else v for v in row] for row in table.rows])
    return buffer.getvalue()


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _check_spread(metric: str, stats: dict[str, Any]) -> None:
    """A metric's stderr (or se) is a number ≥ 0, its ci a [low, high] with low ≤ high and its
    coverage a share: an interval shown as "± -980.00" is refused, naming the metric."""
    for key in ("stderr", "se"):
        if key in stats and stats[key] is not None and (not _finite(stats[key]) or stats[key] < 0):
            raise DemoInputError(f"Metric {metric!r}: \"{key}\" must be a number ≥ 0, not {str(stats[key])[:20]}.")
    ci = stats.get("ci")
    if isinstance(ci, dict):
        ci = [ci.get("low"), ci.get("high")]
    if ci is not None and not (isinstance(ci, list | tuple) and len(ci) == 2 and all(_finite(v) for v in ci)
                               and ci[0] <= ci[1]):
        raise DemoInputError(f"Metric {metric!r}: \"ci\" must be [low, high] with low ≤ high.")
    coverage = stats.get("coverage")
    if coverage is not None and (not _finite(coverage) or not 0 <= coverage <= 1):
        raise DemoInputError(f"Metric {metric!r}: \"coverage\" must be a share between 0 and 1.")


def read_uploaded(path: str | Path | None, upload_root: str | Path | None, kept: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """A visitor's results.json, checked: an upload of this Space, within
    MAX_UPLOAD_RESULTS_BYTES, JSON, a registered benchmark, metrics with numeric values.
    Returns (name, results); the name is the file's stem, made unique in the session."""
    if not path:
        raise DemoInputError("Upload a results.json first.")
    file = Path(path)
    if upload_root is not None and not boards._inside(file, Path(upload_root).resolve()):
        raise DemoInputError("that file is not an upload of this Space")
    if not file.is_file():
        raise DemoInputError("the upload is gone; upload the file again")
    size = file.stat().st_size
    if size > MAX_UPLOAD_RESULTS_BYTES:
        raise DemoInputError(f"The file is {size / 2**20:.1f} MiB; the limit is {MAX_UPLOAD_RESULTS_BYTES / 2**20:.0f} MiB.")
    if len(kept or {}) >= MAX_UPLOADED_RUNS:
        raise DemoInputError(f"This session already holds {MAX_UPLOADED_RUNS} uploaded runs; reload the page to start over.")
    try:
        data = json.loads(file.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise DemoInputError("The file is not UTF-8 text: upload the results.json `geomeval run` wrote.") from None
    except json.JSONDecodeError as exc:
        raise DemoInputError(f"The file is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).") from None
    if not isinstance(data, dict) or not isinstance(data.get("metrics"), dict) or not data["metrics"]:
        raise DemoInputError("The file is not a geomeval results.json: it has no \"metrics\" object.")
    if data.get("benchmark") not in REGISTRY:
        raise DemoInputError(f"The file's benchmark {str(data.get('benchmark'))[:40]!r} is not one of: {', '.join(REGISTRY)}.")
    for metric, stats in data["metrics"].items():
        value = stats.get("value") if isinstance(stats, dict) else "missing"
        if value is not None and not _finite(value):
            raise DemoInputError(f"Metric {str(metric)[:40]!r} has no numeric \"value\".")
        _check_spread(str(metric)[:40], stats)
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise DemoInputError("The file's \"model\" is not text.")
    if isinstance(model, str) and len(model) > 200:
        raise DemoInputError(f"The file's \"model\" is {len(model):,} characters long; the limit is 200.")
    items = data.get("n_items")
    if items is not None and (not isinstance(items, int) or isinstance(items, bool) or items < 0):
        raise DemoInputError("The file's \"n_items\" is not a whole number of items.")
    stem = re.sub(r"[^\w.-]", "_", file.stem)[:40] or "upload"
    name, number = stem, 2
    while name in (kept or {}):
        name, number = f"{stem}-{number}", number + 1
    return name, data
