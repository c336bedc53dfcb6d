"""`geomeval capgeo …`: the reasoners × captioners grid (Table 2), the caption-score /
accuracy correlation (Figure 5), and the typed reasoning dataset with captions joined in
(what CapGeo's lmms-eval tasks read)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ..core.errors import UsageError
from .settings import CacheOpt, ModelOpt, cache_setting, model_settings

capgeo_app = typer.Typer(
    no_args_is_help=True,
    help="CapGeo's grid of reasoners and captioners, its correlation, and its captioned dataset.",
)
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
    model_option: ModelOpt = None,
    cache: CacheOpt = None,
    sample_seed: Annotated[int | None, typer.Option(help="geoqa: seed of the paper's random 200 problems (default 0)")] = None,
    all_problems: Annotated[bool, typer.Option(help="geoqa: every problem, not the paper's random 200")] = False,
) -> None:
    """Run every reasoner directly and with each captioner's captions, with and without the image.

    -M and --cache take what `geomeval run` takes; -M applies to every reasoner and captioner
    (max_tokens default 2048, temperature 0)."""
    from ..benchmarks.capgeo.grid import cell_text, run_grid
    from ..engines.cache import ResponseCache, default_cache_path
    from ..engines.judges import Judge
    from ..engines.models import ModelOptions, parse_model_spec

    generation, engine_args = model_settings(model_option or [])
    cache_path, no_cache = cache_setting(cache)
    response_cache = None if no_cache else ResponseCache(cache_path or default_cache_path())

    def build(spec: str, url: str | None) -> object:
        return parse_model_spec(spec, ModelOptions(
            base_url=url, concurrency=concurrency, timeout_s=timeout, max_tokens=generation.get("max_tokens", 2048),
            temperature=generation.get("temperature", 0.0), seed=generation.get("seed", 0), cache=response_cache,
            engine_args=engine_args))

    reasoners = [build(spec, base_url) for spec in model]
    captioners = [build(spec, captioner_base_url or base_url) for spec in captioner]
    from ..run.runner import run

    result = run_grid(
        run=run, source=source, reasoners=reasoners, captioners=captioners, judge=Judge("offline"),  # type: ignore[arg-type]
        out_dir=out_dir, captions=captions, data=data, limit=limit, concurrency=concurrency,
        progress=lambda cell: console.print(f"[dim]running {cell}[/dim]"),
        sample_seed=sample_seed, all_problems=all_problems,
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
    metric: Annotated[
        str | None, typer.Option(help="the caption score taken from each capgeo_bench run (default: the run's "
                                      "headline, Table 4's Avg: the judge engine's when it ran, as Fig. 5 uses)")
    ] = None,
) -> None:
    """Pearson and Spearman between caption scores and the accuracy they buy, with a plot."""
    from ..benchmarks.capgeo.grid import GRID_FILE
    from ..benchmarks.capgeo.grid import correlate as compute

    grid_file = grid_dir / GRID_FILE
    if not grid_file.is_file():
        raise FileNotFoundError(f"{grid_file} not found: is {grid_dir} a `geomeval capgeo grid` folder?")
    scores: dict[str, float] = {}
    for pair in caption_run:
        name, sep, folder = pair.partition("=")
        if not sep:
            raise UsageError(f"--caption-run {pair!r}: expected CAPTIONER=DIR")
        results_file = Path(folder) / "results.json"
        if not results_file.is_file():
            raise FileNotFoundError(f"{results_file} not found")
        results = json.loads(results_file.read_text(encoding="utf-8"))
        chosen = metric or results.get("headline") or "Avg"
        stats = results["metrics"].get(chosen)
        if stats is None or stats["value"] is None:
            raise UsageError(f"{folder}: metric {chosen!r} has no value")
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


SHOWN_IDS = 10  # item ids printed per list; build_report.json has them all


def _ids(ids: list[str]) -> str:
    more = f", … ({len(ids) - SHOWN_IDS} more)" if len(ids) > SHOWN_IDS else ""
    return ", ".join(ids[:SHOWN_IDS]) + more


@capgeo_app.command()
def build(
    source: Annotated[str, typer.Option(help="mathvista_geometry, geoqa, mathverse_vision_only, mathverse_vision_intensive, or all (every embedded sample)")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for parquet shards, the card and build_report.json")],
    data: Annotated[str | None, typer.Option(help="the source's public file (default: the embedded sample)")] = None,
    captions: Annotated[Path | None, typer.Option(help="a caption store file (JSONL) to join by item id (default: the reference captions of the embedded sample; none with --data)")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace an existing non-empty --out")] = False,
    sample_seed: Annotated[int | None, typer.Option(help="geoqa: seed of the paper's random 200 problems (default 0)")] = None,
    all_problems: Annotated[bool, typer.Option(help="geoqa: every problem, not the paper's random 200")] = False,
) -> None:
    """Build the typed reasoning dataset: a source's problems with one captioner's captions."""
    from ..benchmarks.capgeo import data as reasoning_data

    if source == reasoning_data.ALL_SOURCES:
        if data is not None or captions is not None or sample_seed is not None or all_problems:
            raise UsageError("--source all builds the embedded samples with their reference captions: "
                             "--data, --captions, --sample-seed and --all-problems name one source's files")
        summary = reasoning_data.build(str(reasoning_data.sample_path()), str(out_dir), overwrite=overwrite)
    else:
        summary = reasoning_data.build_source(source, out_dir, data=data, captions=captions, overwrite=overwrite,
                                              sample_seed=sample_seed, all_problems=all_problems)
    for split, info in summary["splits"].items():
        out.print(f"{split}: {info['num_examples']} items, {info['num_bytes']} bytes")
    drawn = summary.get("subsample")
    if isinstance(drawn, dict):
        out.print(f"the paper's subsample: at most {drawn['size']} problems, drawn with seed {drawn['seed']}")
    who = ", ".join(summary["captioners"]) or "none joined"
    out.print(f"captions: {summary['captioned']} of {summary['items']} items (captioner {who})")
    if summary["without_caption"]:
        out.print(f"without a caption: {summary['without_caption']} (unscored in the caption modes)")
        failed = summary["failed_captions"]
        if failed:
            out.print(f"  the captioner failed on {len(failed)}: {_ids(list(failed))}")
        if summary["never_captioned"] and summary["captioners"]:
            out.print(f"  not in the caption file: {len(summary['never_captioned'])}: {_ids(summary['never_captioned'])}")
    if summary["unused_captions"]:
        out.print(f"caption ids that are no item of the build (ignored): {len(summary['unused_captions'])}")
    report = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    (out_dir / "build_report.json").write_text(report, encoding="utf-8")
    out.print(f"built: {out_dir}")
