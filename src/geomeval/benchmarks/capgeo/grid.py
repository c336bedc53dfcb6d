"""The paper's Table 2: reasoners × captioners × with/without image, plus each reasoner's direct
baseline, as one command; and the correlation between caption scores and the accuracy they
buy (the paper's Figure 5).

Every cell is an ordinary `geomeval run capgeo` folder under `<out>/<reasoner>/<cell>`, so a
grid resumes cell by cell and any cell can be rescored or reported alone. Captions come from
the shared store: one caption pass per captioner, whatever the number of reasoners.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ...engines.judges import Judge
from ...engines.models import Model
from ...engines.stats import pearson, spearman
from .benchmark import CapGeo

GRID_FILE = "grid.json"


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec)[:80]


def run_grid(
    *,
    run: Callable[..., dict[str, Any]],
    source: str,
    reasoners: Sequence[Model],
    captioners: Sequence[Model],
    judge: Judge,
    out_dir: Path,
    captions: Path,
    data: str | None = None,
    limit: int | None = None,
    concurrency: int = 32,
    progress: Callable[[str], None] | None = None,
    sample_seed: int | None = None,
    all_problems: bool = False,
) -> dict[str, Any]:
    """Run every cell with `run` (`runner.run`, given by the caller: the run layer sits above
    the benchmarks) and write `grid.json` and `grid.md`; returns the grid."""
    if not reasoners or not captioners:
        raise ValueError("`geomeval capgeo grid` needs at least one --model (reasoner) and one --captioner")
    columns = ["direct"] + [column_label(c.spec, m) for c in captioners for m in ("with_image", "without_image")]
    grid: dict[str, Any] = {"source": source, "columns": columns, "rows": {}}
    for reasoner in reasoners:
        row: dict[str, Any] = {}
        cells = [("direct", None, "direct")] + [
            (column_label(c.spec, m), c, m) for c in captioners for m in ("with_image", "without_image")
        ]
        for column, captioner, mode in cells:
            if progress:
                progress(f"{reasoner.spec} · {column}")
            bench = CapGeo().configure({"source": source, "mode": mode, "captioner": captioner, "captions": captions,
                                        "sample_seed": sample_seed, "all_problems": all_problems})
            folder = out_dir / _slug(reasoner.spec) / _slug(column)
            results = run(bench, task="capgeo_reasoning", model=reasoner, judge=judge, out_dir=folder, data=data,
                          limit=limit, concurrency=concurrency)
            stats = results["metrics"]["accuracy"]
            row[column] = {"accuracy": stats["value"], "scored": stats["scored"], "total": stats["total"],
                           "run": str(folder)}
        grid["rows"][reasoner.spec] = row
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / GRID_FILE).write_text(json.dumps(grid, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out_dir / "grid.md").write_text(grid_markdown(grid), encoding="utf-8")
    return grid


def column_label(captioner: str | None, mode: str) -> str:
    """A run's column in the grid (and in the paper's Table 2 as the Space lays it out):
    "direct", or "<captioner> · with image" / "<captioner> · without image"."""
    return "direct" if mode == "direct" or not captioner else f"{captioner} · {mode.replace('_', ' ')}"


def cell_text(cell: dict[str, Any]) -> str:
    if cell["accuracy"] is None:
        return f"not scored (0/{cell['total']})"
    note = "" if cell["scored"] == cell["total"] else f" ({cell['scored']}/{cell['total']})"
    return f"{100 * cell['accuracy']:.1f}{note}"


def grid_markdown(grid: dict[str, Any]) -> str:
    lines = [f"# CapGeo grid — {grid['source']}", "", "Accuracy (%) over scored items; (scored/total) where some "
             "items could not be scored (a failed caption or answer).", ""]
    lines.append("| reasoner | " + " | ".join(grid["columns"]) + " |")
    lines.append("|---" * (len(grid["columns"]) + 1) + "|")
    for reasoner, row in grid["rows"].items():
        lines.append(f"| {reasoner} | " + " | ".join(cell_text(row[c]) for c in grid["columns"]) + " |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------- correlation


def correlate(
    caption_scores: dict[str, float], grid: dict[str, Any], *, mode: str = "without image", plot: Path | None = None
) -> dict[str, Any]:
    """Pearson and Spearman between each captioner's caption score and the mean accuracy of
    the reasoners it assisted (in `mode`), with an optional scatter plot."""
    points = []
    for captioner, score in caption_scores.items():
        column = f"{captioner} · {mode}"
        if column not in grid["columns"]:
            raise ValueError(f"captioner {captioner!r} has no '{mode}' column in the grid")
        accuracies = [row[column]["accuracy"] for row in grid["rows"].values() if row[column]["accuracy"] is not None]
        if accuracies:
            points.append((captioner, score, sum(accuracies) / len(accuracies)))
    xs, ys = [p[1] for p in points], [p[2] for p in points]
    result = {"mode": mode, "points": [{"captioner": c, "caption_score": x, "accuracy": y} for c, x, y in points],
              "pearson": pearson(xs, ys), "spearman": spearman(xs, ys)}
    if plot is not None and points:
        _scatter(points, result, plot)
    return result


def _scatter(points: list[tuple[str, float, float]], result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.5, 3.5), dpi=100)
    ax.scatter([100 * p[1] for p in points], [100 * p[2] for p in points], color="#4C72B0")
    for name, x, y in points:
        ax.annotate(name, (100 * x, 100 * y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    r, rho = result["pearson"], result["spearman"]
    title = "caption score vs accuracy"
    if r is not None and rho is not None:
        title += f"\nPearson {r:.2f}, Spearman {rho:.2f}"
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("caption keypoint recall (%)")
    ax.set_ylabel(f"mean accuracy, {result['mode']} (%)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
