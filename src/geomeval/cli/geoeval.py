"""`geomeval geoeval …`: GeoEval's tools beside `geomeval run geoeval` — for now, making
backward problems from forward ones by the paper's method (`backward.make_backward_set`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

geoeval_app = typer.Typer(
    no_args_is_help=True,
    help="GeoEval's tools: backward problems made from forward ones.",
)
out = Console(highlight=False, soft_wrap=True)


@geoeval_app.command("make-backward")
def make_backward(
    out_file: Annotated[
        Path, typer.Option("--out", help="the JSONL file to write, one backward problem a line")
    ],
    data: Annotated[
        str | None,
        typer.Option(help="built folder, raw release, or hub id (default: the embedded sample)"),
    ] = None,
    task: Annotated[
        str, typer.Option(help="the forward subset: geoeval_2000, geoeval_aug or geoeval_hard")
    ] = "geoeval_2000",
    seed: Annotated[
        int,
        typer.Option(help="picks the masked number per problem; the same seed gives the same set"),
    ] = 0,
    limit: Annotated[int | None, typer.Option(min=1, help="only the first N items")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace an existing --out file")] = False,
) -> None:
    """Mask one given number of each forward problem, state its answer, and ask for the number.

    Writes id, source, backward_problem, backward_answer (the masked number), masked (with
    its unit), unknown, forward_answer, candidates and seed per line; lists the items that
    could not be masked, with why.
    """
    from ..benchmarks.geoeval.backward import forward_rows, make_backward_set

    if out_file.exists() and not overwrite:
        raise FileExistsError(f"{out_file} exists; pass --overwrite to replace it")
    rows = forward_rows(data, task, limit)
    result = make_backward_set(rows, seed)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in result.made)
    out_file.write_text(lines, encoding="utf-8")
    out.print(
        f"made {len(result.made)} backward problems from {len(rows)} {task} items (seed {seed}): {out_file}"
    )
    if result.not_maskable:
        out.print(f"not maskable: {len(result.not_maskable)}")
        for entry in result.not_maskable:
            out.print(f"  {entry['id']}: {entry['reason']}")
