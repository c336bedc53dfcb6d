"""`geomeval capgeo …`: the reasoners × captioners grid (Table 2) and the caption-score /
accuracy correlation (Figure 5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

capgeo_app = typer.Typer(no_args_is_help=True, help="CapGeo's grid of reasoners and captioners, and its correlation.")
console = Console(stderr=True)
out = Console()


@capgeo_app.command()
def grid(
    source: Annotated[str, typer.Option(help="mathvista_geometry, geoqa, mathverse_vision_only or mathverse_vision_intensive")],
    model: Annotated[list[str], typer.Option(help="a reasoner's model spec (repeat for several)")],
    captioner: Annotated[list[str], typer.Option(help="a captioner's model spec (repeat for several)")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for the grid's runs, grid.json and grid.md")],
    data: Annotated[str | None, typer.Option(help="the source's public file (default: the embedded sample)")] = None,
    base_url: Annotated[str | None, typer.Option(help="server for the reasoners (or GEOMEVAL_BASE_URL)")] = None,
    captioner_base_url: Annotated[str | None, typer.Option(help="server for the captioners (default: --base-url)")] = None,
    captions: Annotated[Path, typer.Option(help="caption store folder, shared by every cell")] = Path("runs/captions"),
    limit: Annotated[int | None, typer.Option(min=1, help="only the first N items")] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=1024)] = 32,
    timeout: Annotated[float, typer.Option(min=1.0, help="seconds per request")] = 120.0,
    max_tokens: Annotated[int, typer.Option(min=1)] = 2048,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="neither read nor write the response cache")] = False,
) -> None:
    """Run every reasoner directly and with each captioner's captions, with and without the image."""
    from .benchmarks.capgeo.grid import cell_text, run_grid
    from .cache import ResponseCache, default_cache_path
    from .judges import Judge
    from .models import ModelOptions, parse_model_spec

    response_cache = None if no_cache else ResponseCache(default_cache_path())

    def build(spec: str, url: str | None) -> object:
        return parse_model_spec(spec, ModelOptions(base_url=url, concurrency=concurrency, timeout_s=timeout,
                                                   max_tokens=max_tokens, cache=response_cache))

    reasoners = [build(spec, base_url) for spec in model]
    captioners = [build(spec, captioner_base_url or base_url) for spec in captioner]
    result = run_grid(
        source=source, reasoners=reasoners, captioners=captioners, judge=Judge("offline"),  # type: ignore[arg-type]
        out_dir=out_dir, captions=captions, data=data, limit=limit, concurrency=concurrency,
        progress=lambda cell: console.print(f"[dim]running {cell}[/dim]"),
    )
    table = Table(title=f"CapGeo accuracy (%) — {source}")
    table.add_column("reasoner")
    for column in result["columns"]:
        table.add_column(column, justify="right")
    for reasoner, row in result["rows"].items():
        table.add_row(reasoner, *(cell_text(row[c]) for c in result["columns"]))
    out.print(table)
    out.print(f"grid: {out_dir / 'grid.json'}\nreport: {out_dir / 'grid.md'}")


@capgeo_app.command()
def correlate(
    grid_dir: Annotated[Path, typer.Argument(help="a folder written by `geomeval capgeo grid`")],
    caption_run: Annotated[
        list[str], typer.Option(help="CAPTIONER=DIR: a capgeo_bench run of that captioner (repeat per captioner)")
    ],
    mode: Annotated[str, typer.Option(help="which grid columns: 'without image' or 'with image'")] = "without image",
    metric: Annotated[str, typer.Option(help="the caption score taken from each capgeo_bench run")] = "keypoint recall",
) -> None:
    """Pearson and Spearman between caption scores and the accuracy they buy, with a plot."""
    from .benchmarks.capgeo.grid import GRID_FILE
    from .benchmarks.capgeo.grid import correlate as compute

    grid_file = grid_dir / GRID_FILE
    if not grid_file.is_file():
        raise FileNotFoundError(f"{grid_file} not found: is {grid_dir} a `geomeval capgeo grid` folder?")
    scores: dict[str, float] = {}
    for pair in caption_run:
        name, sep, folder = pair.partition("=")
        if not sep:
            raise ValueError(f"--caption-run {pair!r}: expected CAPTIONER=DIR")
        results_file = Path(folder) / "results.json"
        if not results_file.is_file():
            raise FileNotFoundError(f"{results_file} not found")
        stats = json.loads(results_file.read_text(encoding="utf-8"))["metrics"].get(metric)
        if stats is None or stats["value"] is None:
            raise ValueError(f"{folder}: metric {metric!r} has no value")
        scores[name] = stats["value"]
    result = compute(scores, json.loads(grid_file.read_text(encoding="utf-8")), mode=mode,
                     plot=grid_dir / "correlation.png")
    (grid_dir / "correlation.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for point in result["points"]:
        out.print(f"{point['captioner']}: caption score {100 * point['caption_score']:.1f}, "
                  f"accuracy {100 * point['accuracy']:.1f}")

    def fmt(value: float | None) -> str:
        return "n/a (needs 2+ captioners with varying scores)" if value is None else f"{value:.3f}"

    out.print(f"Pearson {fmt(result['pearson'])}, Spearman {fmt(result['spearman'])}")
    out.print(f"plot: {grid_dir / 'correlation.png'}")
