"""Leaderboards (`boards`): the papers' published numbers beside the runs placed in a folder.

Published numbers live in `leaderboards/*.json`, one file per paper, each table with the
`source` (paper and table) it was copied from, so every number shown can be checked; a
paper whose numbers could not be verified ships its columns with no rows and a note.

Runs are the `results.json` files `geomeval run` writes, found under one folder (default
`runs/`, or GEOMEVAL_SPACE_RUNS, or `--runs`). A run is named by its folder's path relative
to that folder, and a name is only ever looked up among the runs found there: a visitor's
name that climbs out (`../`), is absolute, or goes through a link outside is refused.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from matplotlib.figure import Figure

from ..benchmarks import REGISTRY
from ..engines.fonts import font_family
from .limits import MAX_RESULTS_BYTES, MAX_RUNS, DemoInputError

LEADERBOARD_DIR = Path(__file__).resolve().parent / "leaderboards"
RUNS_ENV = "GEOMEVAL_SPACE_RUNS"
DEFAULT_RUNS = "runs"
RESULTS = "results.json"
MAX_DEPTH = 4  # folders below the runs folder searched for results.json
RAW_UNITS = ("dB", "raw")  # metrics reported as plain values; others are shares shown ×100
# Text from files (run and bucket names, metrics, published titles) is drawn as written:
# "$…$" would otherwise be parsed as mathtext (or TeX), and a bad one fails at savefig.
# The font chain has a CJK fallback (geomeval.engines.fonts), so a Chinese run name is not boxes.
PLAIN_TEXT: dict[str, Any] = {"parse_math": False, "usetex": False, "fontfamily": list(font_family())}


# --------------------------------------------------------------------------- published


@dataclass
class Board:
    """One published table."""

    key: str
    paper: str
    benchmark: str
    title: str
    source: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""
    url: str = ""
    # What a run must match to be ranked in this table (`ranking.apart_reasons`): "tasks",
    # task -> the published item count (null: the paper does not state it), "options" a run
    # must have where they are not the benchmark's defaults, "free" options the table's
    # columns vary (not checked), "judge": the judge model the paper used (its name is in the
    # run's judge spec), or "no_runs": why no single run can be ranked here.
    protocol: dict[str, Any] = field(default_factory=dict)
    # "fraction" where the paper prints shares as fractions (ME2's 0.235), else "percent";
    # `rank_by`: the column a ranking starts on (the table's headline), when not the first.
    scale: str = "percent"
    rank_by: str = ""

    @property
    def label(self) -> str:
        return f"{self.title} — {self.paper}"


def _read_board_file(path: Path) -> list[Board]:
    data = json.loads(path.read_text(encoding="utf-8"))
    boards = []
    for index, table in enumerate(data.get("tables", [])):
        columns = [str(c) for c in table["columns"]]
        rows = [list(row) for row in table.get("rows", [])]
        for number, row in enumerate(rows, 1):
            if len(row) != len(columns):
                raise ValueError(f"{path.name}, table {index}, row {number}: {len(row)} cells for {len(columns)} columns")
        boards.append(Board(
            key=f"{path.stem}/{index}",
            paper=str(data.get("paper", path.stem)),
            benchmark=str(table.get("benchmark") or data.get("benchmark", "")),
            title=str(table.get("title", "")),
            source=str(table.get("source") or data.get("source", "")),
            columns=columns,
            rows=rows,
            note=str(table.get("note") or data.get("note", "")),
            url=str(data.get("url", "")),
            protocol=dict(table.get("protocol") or {}),
            scale=str(table.get("scale") or "percent"),
            rank_by=str(table.get("rank_by") or ""),
        ))
    return boards


def published_boards(benchmark: str | None = None) -> list[Board]:
    """Every published table, or those of one benchmark."""
    boards = []
    for path in sorted(LEADERBOARD_DIR.glob("*.json")):
        boards += _read_board_file(path)
    return [b for b in boards if benchmark in (None, "", b.benchmark)]


def board_choices(benchmark: str | None = None) -> list[tuple[str, str]]:
    return [(board.label, board.key) for board in published_boards(benchmark)]


def _board(key: str | None) -> Board:
    for board in published_boards():
        if board.key == key:
            return board
    raise DemoInputError(f"unknown published table {key!r}")


@dataclass
class Table:
    headers: list[str]
    rows: list[list[Any]]
    note: str = ""


def board_table(key: str | None) -> Table:
    """A published table with its source on every row, and a note saying where it is from
    (or why it has no rows)."""
    board = _board(key)
    rows = [[*row, board.source] for row in board.rows]
    note = f"**{board.title}** · {board.paper} · source: {board.source}"
    if board.url:
        note += f" ({board.url})"
    if board.note:
        note += f"\n\n{board.note}"
    if not board.rows:
        note += "\n\n_No published numbers are included for this table (see the note)._"
    return Table([*board.columns, "source"], rows, note)


def numeric_columns(key: str | None) -> list[str]:
    board = _board(key)
    return [c for i, c in enumerate(board.columns) if any(_number(row[i]) is not None for row in board.rows)]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    try:
        return float(str(value).strip().rstrip("%"))
    except ValueError:
        return None


def board_plot(key: str | None, column: str | None) -> Figure:
    """Bars of one published column across the table's rows (models)."""
    board = _board(key)
    if column not in board.columns:
        raise DemoInputError(f"no column {column!r} in {board.title}")
    index = board.columns.index(column)
    labels, values = [], []
    for row in board.rows:
        value = _number(row[index])
        if value is not None:
            labels.append(str(row[0]))
            values.append(value)
    counts = [n for n in (board.protocol.get("tasks") or {}).values() if isinstance(n, int)]
    n = counts[0] if len(set(counts)) == 1 else None  # the published item count, when one
    note = (f"n = {n:,} items per bar (as published)" if n else "n: not stated by the paper") + \
        "; the paper publishes no intervals"
    return _bars(labels, {column: values}, f"{board.title}: {column}", column, note=note)


# --------------------------------------------------------------------------- runs


def runs_root(runs: str | Path | None = None) -> Path:
    """The runs folder: `runs` given, else GEOMEVAL_SPACE_RUNS, else ./runs."""
    chosen = runs or os.environ.get(RUNS_ENV) or DEFAULT_RUNS
    return Path(chosen).expanduser().resolve()


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except (ValueError, OSError):
        return False
    return True


def discover_runs(root: Path) -> dict[str, Path]:
    """Run name -> results.json, for every run folder under `root` (links that lead out of
    it are skipped); at most MAX_RUNS."""
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    for folder, subfolders, files in os.walk(root, followlinks=False):
        here = Path(folder)
        depth = len(here.relative_to(root).parts)
        if depth >= MAX_DEPTH:
            subfolders.clear()
        subfolders.sort()
        if RESULTS in files:
            path = here / RESULTS
            if path.is_file() and _inside(path, root):
                name = here.relative_to(root).as_posix()
                found[name] = path
                if len(found) >= MAX_RUNS:
                    break
    return found


def _check_name(name: str | None) -> str:
    """A visitor's run name, refused when it is not a plain path inside the runs folder."""
    if not name or not isinstance(name, str):
        raise DemoInputError("choose a run")
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts or "\\" in name or "\x00" in name:
        raise DemoInputError(f"run name {name!r} refused: runs are named by their folder inside the runs folder")
    return name


def resolve_run(root: Path, name: str | None, runs: dict[str, Path] | None = None) -> Path:
    """The results.json of the run called `name`; anything that is not one of the runs found
    under `root` (a path that climbs out, an absolute path, a link outside) is refused.
    `runs` is a `discover_runs(root)` already made, so several names cost one walk."""
    name = _check_name(name)
    path = (discover_runs(root) if runs is None else runs).get(name)
    if path is None or not _inside(path, root):
        raise DemoInputError(f"no run {name!r} in the runs folder")
    return path


def _read_results(root: Path, name: str, path: Path) -> dict[str, Any]:
    """One discovered results.json, read with the same checks as a visitor's name: inside
    `root` once links are followed, a plain file, within MAX_RESULTS_BYTES, a results file."""
    if not _inside(path, root) or not path.is_file():
        raise DemoInputError(f"no run {name!r} in the runs folder")
    size = path.stat().st_size
    if size > MAX_RESULTS_BYTES:
        raise DemoInputError(f"{name}/results.json is {size / 2**20:.1f} MiB; the limit is {MAX_RESULTS_BYTES / 2**20:.0f} MiB")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DemoInputError(f"{name}/results.json is not valid JSON: {exc}") from None
    except OSError as exc:  # gone or unreadable since the walk
        raise DemoInputError(f"{name}/results.json cannot be read: {exc.strerror or exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("metrics"), dict):
        raise DemoInputError(f"{name}/results.json is not a geomeval results file")
    return data


def load_results(root: Path, name: str) -> dict[str, Any]:
    return _read_results(root, name, resolve_run(root, name))


def _all_results(root: Path, benchmark: str | None = None) -> dict[str, dict[str, Any]]:
    """Every readable run (of one benchmark), from one walk of the runs folder."""
    loaded: dict[str, dict[str, Any]] = {}
    for name, path in discover_runs(root).items():
        try:
            results = _read_results(root, name, path)
        except DemoInputError:
            continue  # an unreadable run is left out of the tables, not fatal
        if benchmark in (None, "", results.get("benchmark")):
            loaded[name] = results
    return loaded


def run_names(root: Path, benchmark: str | None = None) -> list[str]:
    return list(_all_results(root, benchmark))


def display_value(stats: dict[str, Any] | None, unit: str | None = None) -> float | None:
    """A metric as the reports print it: shares ×100, dB and raw values as they are."""
    if not isinstance(stats, dict) or not isinstance(stats.get("value"), int | float):
        return None
    value = float(stats["value"])
    if not math.isfinite(value):
        return None
    unit = unit or stats.get("unit")
    return round(value if unit in RAW_UNITS else 100 * value, 2)


def runs_table(root: Path, benchmark: str | None = None) -> Table:
    """One row per run: what it ran, its headline and every metric (shares ×100)."""
    results = _all_results(root, benchmark)
    metrics: list[str] = []
    for data in results.values():
        metrics += [m for m in data["metrics"] if m not in metrics]
    headers = ["run", "benchmark", "task", "model", "judge", "items", "headline", "headline value", *metrics]
    rows = []
    for name, data in results.items():
        headline = data.get("headline") or ""
        row = [name, data.get("benchmark", ""), data.get("task", ""), data.get("model", ""), data.get("judge", ""),
               data.get("n_items"), headline, display_value(data["metrics"].get(headline))]
        row += [display_value(data["metrics"].get(m)) for m in metrics]
        rows.append(row)
    # The folder is the operator's choice and is not shown: a visitor reads no server path.
    note = f"{len(rows)} run(s) in the runs folder" if rows else (
        "No runs in the runs folder: put `geomeval run` output folders there (or set {RUNS_ENV}, or `geomeval demo --runs`)."
    )
    return Table(headers, rows, note)


def _chosen(root: Path, names: list[str] | str | None) -> dict[str, dict[str, Any]]:
    chosen = [names] if isinstance(names, str) else list(names or [])
    if not chosen:
        raise DemoInputError("choose at least one run")
    if len(chosen) > 12:
        raise DemoInputError("compare at most 12 runs at once")
    names = [_check_name(name) for name in chosen]
    runs = discover_runs(root)  # one walk for all the names
    return {name: _read_results(root, name, resolve_run(root, name, runs)) for name in names}


def breakdown_options(root: Path, names: list[str] | str | None) -> tuple[list[str], list[str]]:
    """The breakdown groups and metrics every chosen run has (difficulty, step length,
    class…): a comparison is only offered on what the runs share."""
    groups: list[str] | None = None
    metrics: list[str] | None = None
    for data in _chosen(root, names).values():
        has = [g for g, buckets in (data.get("breakdowns") or {}).items() if buckets]
        groups = has if groups is None else [g for g in groups if g in has]
        metrics = list(data["metrics"]) if metrics is None else [m for m in metrics if m in data["metrics"]]
    return groups or [], metrics or []


@dataclass
class Breakdown:
    table: Table
    series: dict[str, list[float | None]] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    no_data: list[str] = field(default_factory=list)  # chosen runs with no value in this breakdown
    # Per series and bucket: the items scored (n) and the 95% interval (as shown, ×100 for shares).
    counts: dict[str, list[int | None]] = field(default_factory=dict)
    intervals: dict[str, list[tuple[float, float] | None]] = field(default_factory=dict)


def _shown_interval(stats: Any, unit: str | None) -> tuple[float, float] | None:
    """A metric's "ci" in the scale `display_value` shows it, or None."""
    ci = stats.get("ci") if isinstance(stats, dict) else None
    if isinstance(ci, dict):
        ci = [ci.get("low"), ci.get("high")]
    if not (isinstance(ci, list | tuple) and len(ci) == 2 and all(isinstance(v, int | float) for v in ci)):
        return None
    scale = 1.0 if unit in RAW_UNITS else 100.0
    return (round(scale * float(ci[0]), 2), round(scale * float(ci[1]), 2))


def _scored(stats: Any) -> int | None:
    value = stats.get("scored") if isinstance(stats, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def breakdown(root: Path, names: list[str] | str | None, group: str | None, metric: str | None) -> Breakdown:
    """One metric per bucket of one breakdown, a column per run. A bucket a run lacks is
    None ("—" in the table and the plot), never 0; a run with no value at all is left out
    of the series and named in the note."""
    results = _chosen(root, names)
    metrics: list[str] = []
    for data in results.values():
        metrics += [m for m in data["metrics"] if m not in metrics]
    if not metrics:
        raise DemoInputError("none of the chosen runs has a metric")
    if metric not in metrics:
        raise DemoInputError(f"none of the chosen runs has a metric {_short(metric)}; their metrics: {', '.join(metrics)}")
    keys: list[str] = []
    for data in results.values():
        keys += [k for k in ((data.get("breakdowns") or {}).get(group) or {}) if k not in keys]
    if not keys:
        raise DemoInputError(f"none of the chosen runs has a breakdown {_short(group)}")
    series: dict[str, list[float | None]] = {}
    counts: dict[str, list[int | None]] = {}
    intervals: dict[str, list[tuple[float, float] | None]] = {}
    no_data: list[str] = []
    for name, data in results.items():
        unit = (data["metrics"].get(metric) or {}).get("unit")
        buckets = (data.get("breakdowns") or {}).get(group) or {}
        values = [display_value((buckets.get(k) or {}).get(metric), unit) for k in keys]
        if all(v is None for v in values):
            no_data.append(name)
        else:
            series[name] = values
            counts[name] = [_scored((buckets.get(k) or {}).get(metric)) for k in keys]
            intervals[name] = [_shown_interval((buckets.get(k) or {}).get(metric), unit) for k in keys]
    rows = [[key, *[series[name][i] for name in series]] for i, key in enumerate(keys)]
    note = f"{metric} by {group}"
    if no_data:
        note += f" · no data for {', '.join(no_data)} (left out)"
    return Breakdown(Table([group or "", *series], rows, note), series, keys, no_data, counts, intervals)


def _short(value: Any, limit: int = 80) -> str:
    """A visitor's value quoted for a message, cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def breakdown_plot(root: Path, names: list[str] | str | None, group: str | None, metric: str | None) -> Figure:
    found = breakdown(root, names, group, metric)
    title = f"{metric} by {group}"
    if found.no_data:
        title += f" (no data: {', '.join(found.no_data)})"
    return _bars(found.keys, found.series, title, metric or "", counts=found.counts, intervals=found.intervals,
                 note="n: items scored in the bucket; whiskers: 95% interval")


def _bars(labels: list[str], series: Mapping[str, Sequence[float | None]], title: str, ylabel: str, *,
          counts: Mapping[str, Sequence[int | None]] | None = None,
          intervals: Mapping[str, Sequence[tuple[float, float] | None]] | None = None, note: str = "") -> Figure:
    """Grouped bars, one colour per series, each bar labelled with its value: a 0 is a
    labelled "0" at the axis, a missing value a grey "—" (never a bar, never a zero). Each
    bucket's n is written under it ("n=3 | 5", one per series in the legend's order, "?" when
    unknown; a published table's one n is stated by `note`, the x label); each interval is
    drawn as a whisker."""
    figure = Figure(figsize=(8, 4), layout="constrained")
    axes = figure.subplots()
    count = max(1, len(series))
    width = 0.8 / count
    colours = [f"C{i % 10}" for i in range(count)]
    for index, (name, values) in enumerate(series.items()):
        xs = [i + (index - (count - 1) / 2) * width for i in range(len(labels))]
        ns = list((counts or {}).get(name) or [None] * len(values))
        cis = list((intervals or {}).get(name) or [None] * len(values))
        kept = [(x, v, n, ci) for x, v, n, ci in zip(xs, values, ns, cis, strict=True) if v is not None]
        bars = axes.bar([k[0] for k in kept], [k[1] for k in kept], width=width, label=name, color=colours[index],
                        edgecolor=colours[index], linewidth=1.0)
        axes.bar_label(bars, labels=[f"{k[1]:g}" for k in kept], fontsize="x-small", padding=1, **PLAIN_TEXT)
        whiskers = [(x, v, ci) for x, v, _n, ci in kept if ci is not None]
        if whiskers:
            axes.errorbar([w[0] for w in whiskers], [w[1] for w in whiskers],
                          yerr=[[max(0.0, w[1] - w[2][0]) for w in whiskers], [max(0.0, w[2][1] - w[1]) for w in whiskers]],
                          fmt="none", ecolor="0.2", elinewidth=1.0, capsize=3)
        for x, v in zip(xs, values, strict=True):
            if v is None:
                axes.annotate("—", (x, 0), ha="center", va="bottom", color="0.5", fontsize="small", **PLAIN_TEXT)
    if counts is not None:  # n under each bucket
        def n_text(i: int) -> str:
            shown = [counts.get(name, [None] * len(labels))[i] for name in series]
            return "n=" + " | ".join(f"{n:,}" if isinstance(n, int) else "?" for n in shown)
        labels = [f"{label}\n{n_text(i)}" for i, label in enumerate(labels)]
    if note:
        axes.set_xlabel(note, fontsize="x-small", color="0.25", **PLAIN_TEXT)
    axes.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 6 else 0,
                    ha="right" if len(labels) > 6 else "center", **PLAIN_TEXT)
    axes.set_title(title, **PLAIN_TEXT)
    axes.set_ylabel(ylabel, **PLAIN_TEXT)
    if len(series) > 1:
        for text in axes.legend(fontsize="small").get_texts():
            text.set(**PLAIN_TEXT)
    return figure


def benchmark_names() -> list[str]:
    """Benchmarks for the leaderboard filter: the registry's, in its order."""
    return list(REGISTRY)


def figure_alt(figure: Figure | None, limit: int = 1200) -> str:
    """A plot's text alternative (the image's alt, and the caption under it): its title, what
    its axes show, and every bar's value per series, read from the figure itself."""
    if figure is None or not figure.axes:
        return "No plot."
    axes = figure.axes[0]
    ticks = [t.get_text().replace("\n", " ") for t in axes.get_xticklabels()]
    positions = list(axes.get_xticks())
    parts = [f"Bar chart: {axes.get_title() or 'untitled'}; y: {axes.get_ylabel() or 'value'}."]
    bars = [c for c in axes.containers if getattr(c, "patches", None)]
    for number, container in enumerate(bars):
        values = []
        for patch in getattr(container, "patches", ()):
            centre = patch.get_x() + patch.get_width() / 2
            index = min(range(len(positions)), key=lambda i: abs(positions[i] - centre)) if positions else -1
            label = ticks[index] if 0 <= index < len(ticks) else "?"
            bucket, _, counts = label.partition(" n=")  # "1-4 n=5 | 3": this series' n is its own
            ns = counts.split(" | ") if counts else []
            n = f" (n={ns[number]})" if number < len(ns) else ""
            values.append(f"{bucket}{n}: {patch.get_height():g}")
        name = container.get_label()
        series = "" if not name or name.startswith("_") else f"{name}: "
        parts.append(series + "; ".join(values) + ".")
    if axes.get_xlabel():
        parts.append(axes.get_xlabel() + ".")
    text = " ".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"
