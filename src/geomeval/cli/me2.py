"""`geomeval me2 …`: ME2's tools beside `geomeval run me2`: remaking the
keypoint-identification options of a release (`benchmarks.me2.options`), e.g. with another
embedder or seed, or for a release that ships without them; the joint table of a
problem-solving run and a keypoint-identification run (`benchmarks.me2.joint`); and the
summary-anchoring ablation of two keypoint-identification runs (`benchmarks.me2.anchoring`)."""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

me2_app = typer.Typer(
    no_args_is_help=True,
    help="ME2's tools: keypoint-identification options made from a release; the solve × identify table; "
    "the summary-anchoring ablation.",
)
out = Console(highlight=False, soft_wrap=True)


@me2_app.callback()
def me2() -> None:
    """ME2's tools."""


def _sample_records() -> Path:
    with as_file(files("geomeval.benchmarks.me2").joinpath("sample", "ME2.jsonl")) as path:
        return Path(path)


@me2_app.command("make-options")
def make_options(
    out_file: Annotated[
        Path, typer.Option("--out", help="the records file to write, the input's with new options")
    ],
    data: Annotated[
        Path | None,
        typer.Option(
            help="a release records file (.jsonl or .json), or its folder, found as `geomeval build me2` finds it (default: the embedded sample)"
        ),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            help="places the correct option and draws the random distractor; same seed, same options"
        ),
    ] = 0,
    embedder: Annotated[
        str,
        typer.Option(
            help="what 'nearest' is measured with: minilm (default; the paper used Qwen3 Embedding), lexical, "
            "or a local sentence-transformers folder, e.g. a Qwen3-Embedding download for the paper's setting"
        ),
    ] = "minilm",
    overwrite: Annotated[bool, typer.Option(help="replace an existing --out file")] = False,
) -> None:
    """Give every item five keypoint options: its own keypoints, those of the nearest items by
    problem, by summary and by keypoints, and a random item's.

    Writes the records back in order with visual_identification_option ("A. …" to "E. …"),
    visual_identification_answer, option_sources and option_items; every other field is kept.
    """
    from ..benchmarks.me2.options import embedder_from_spec, make_options_for_release
    from ..core.errors import UsageError

    if out_file.exists() and not overwrite:
        raise FileExistsError(f"{out_file} exists; pass --overwrite to replace it")
    try:
        chosen = embedder_from_spec(embedder)
    except ImportError as exc:  # a missing optional package is the user's to install
        raise UsageError(str(exc)) from None
    summary = make_options_for_release(
        data if data is not None else _sample_records(),
        out_file,
        seed=seed,
        embedder=chosen,
        overwrite=overwrite,
    )
    out.print(
        f"made keypoint options for {summary['items']} items with {summary['embedder']} "
        f"(seed {seed}): {summary['out']}"
    )
    out.print(f"fell back to the next nearest item: {summary['fallbacks']} times")


@me2_app.command("joint")
def joint(
    solve_run: Annotated[Path, typer.Argument(help="a `geomeval run me2 --task me2_solve` folder")],
    keypoints_run: Annotated[Path, typer.Argument(help="a `--task me2_keypoints` folder of the same model")],
    json_out: Annotated[Path | None, typer.Option("--json", help="also write the table here")] = None,
) -> None:
    """The paper's Table 4: of the items both runs scored, how many were solved and
    identified, solved only, identified only, or neither; overall and per domain."""
    import json

    from rich.table import Table

    from ..benchmarks.me2.joint import CELLS, joint_table

    result = joint_table(solve_run, keypoints_run)
    table = Table(title=f"solved ({solve_run}) × identified ({keypoints_run})")
    for column in ("group", "items", *CELLS):
        table.add_column(column, justify="left" if column == "group" else "right")
    for group, row in result["groups"].items():
        cells = [f"{row[c]} ({100 * row['shares'][c]:.1f}%)" for c in CELLS]
        table.add_row(group, str(row["items"]), *cells)
    out.print(table)
    if result["unpaired"]:
        out.print(f"left out: {result['unpaired']} items not scored in both runs")
    if result["only_in_keypoints_run"]:
        out.print(f"left out: {result['only_in_keypoints_run']} items only in the keypoints run")
    if json_out:
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        out.print(f"table: {json_out}")


@me2_app.command("anchoring")
def anchoring(
    anchored_run: Annotated[Path, typer.Argument(help="a `geomeval run me2 --task me2_keypoints` folder (with the summary)")],
    unanchored_run: Annotated[
        Path, typer.Argument(help="the same model's `--task me2_keypoints -T mode=without_summary` folder")
    ],
    json_out: Annotated[Path | None, typer.Option("--json", help="also write the comparison here")] = None,
) -> None:
    """The paper's Appendix C ablation: keypoint identification with and without the solution
    summary, on the items both runs scored: accuracy of each, the items kept, lost and gained
    without it, and which kind of option each chose; overall and per domain."""
    import json

    from rich.table import Table

    from ..benchmarks.me2.anchoring import anchoring_table, report_tables
    from ..run.report import fmt_cell

    result = anchoring_table(anchored_run, unanchored_run)
    for spec in report_tables(result):
        table = Table(title=spec["title"])
        for index, column in enumerate(spec["columns"]):
            table.add_column(column, justify="left" if index == 0 else "right")
        for row in spec["rows"]:
            table.add_row(*(fmt_cell(v, spec.get("style", "percent")) for v in row))
        out.print(table)
    if result["unpaired"]:
        out.print(f"left out: {result['unpaired']} items not scored in both runs")
    if result["only_in_unanchored_run"]:
        out.print(f"left out: {result['only_in_unanchored_run']} items only in the run without the summary")
    if json_out:
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        out.print(f"comparison: {json_out}")
