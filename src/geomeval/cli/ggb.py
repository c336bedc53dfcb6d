"""`geomeval ggb …`: run, draw and verify GeoGebra scripts from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..core.errors import UsageError

ggb_app = typer.Typer(
    no_args_is_help=True,
    help="Run, render and verify GeoGebra construction scripts with geomeval's engine.",
)
console = Console(stderr=True)
out = Console()

MAX_INPUT_BYTES = 1_000_000
# A table cell shows at most this many characters of a value, a line or an error, and a list
# its first LIST_SHOWN elements: a 4-line script can make a list of thousands of 60,000-character
# texts, whose whole description took minutes and over a gigabyte to lay out.
CELL_CHARS = 200
LIST_SHOWN = 3


class GgbInputError(UsageError):
    """A script file that cannot be read; main() prints it without a traceback."""


def _read(path: str) -> str:
    if path == "-":
        data = sys.stdin.read(MAX_INPUT_BYTES + 1)
    else:
        file = Path(path)
        if not file.is_file():
            raise GgbInputError(f"{path}: no such file")
        if file.stat().st_size > MAX_INPUT_BYTES:
            raise GgbInputError(f"{path}: larger than {MAX_INPUT_BYTES} bytes")
        data = file.read_text(encoding="utf-8", errors="replace")
    if len(data) > MAX_INPUT_BYTES:
        raise GgbInputError(f"{path}: larger than {MAX_INPUT_BYTES} bytes")
    return data


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x", 1))
    except ValueError:
        raise GgbInputError(f"--size {text!r}: expected WIDTHxHEIGHT, e.g. 800x600") from None
    return width, height


def _clip(text: str, limit: int = CELL_CHARS, *, count: bool = True) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit - 1]}… ({len(text):,} characters)" if count else f"{text[:limit - 1]}…"


def _brief(geo, depth: int = 0) -> str:  # a Geo (imported lazily)
    """`geo.describe()`, bounded: the work and the text stay small whatever the object."""
    from geomeval.geogebra.objects import GeoList, GeoText

    if isinstance(geo, GeoList):
        count = len(geo.elements)
        if depth >= 2 or not count:
            return f"list of {count} elements"
        shown = "; ".join(_brief(element, depth + 1) for element in geo.elements[:LIST_SHOWN])
        return _clip(f"list of {count} elements: {shown}{'; …' if count > LIST_SHOWN else ''}", count=False)
    if isinstance(geo, GeoText):
        head = geo.text[: CELL_CHARS + 1]
        return _clip(f"text={head}") if len(geo.text) <= CELL_CHARS else (
            f"text={head[:CELL_CHARS - 1]}… ({len(geo.text):,} characters)")
    return _clip(geo.describe())


def _run(path: str):  # returns a Construction (imported lazily)
    from geomeval.geogebra import run_script
    from geomeval.geogebra.syntax import ParseError

    try:
        return run_script(_read(path))
    except ParseError as exc:
        raise GgbInputError(f"{path}: {exc}") from None


@ggb_app.command("run")
def run_command(
    script: Annotated[
        str, typer.Argument(help="a script or a whole answer with ```geogebra blocks; - for stdin")
    ],
    png: Annotated[Path | None, typer.Option(help="write the final figure here")] = None,
    steps: Annotated[
        Path | None, typer.Option(help="write one PNG per command block into this folder")
    ] = None,
    long_image: Annotated[
        Path | None, typer.Option("--long", help="write the steps side by side here")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="write per-line status and objects as JSON")
    ] = None,
    size: Annotated[str, typer.Option(help="image size WIDTHxHEIGHT")] = "800x600",
) -> None:
    """Execute a script: per-line status, the objects it made, Pass@1; optionally draw it.

    Exits 1 when some line failed (Pass@1 = 0), 0 when every line ran.
    """
    construction = _run(script)
    width, height = _size(size)
    table = Table("line", "status", "labels", "source", title="lines")
    for status in construction.lines:
        mark = "[green]ok[/green]" if status.ok else f"[red]{escape(_clip(status.error or 'failed'))}[/red]"
        table.add_row(str(status.line), mark, escape(_clip(", ".join(status.labels))), escape(_clip(status.source)))
    out.print(table)
    objects = Table("label", "kind", "value", title="objects")
    for label, geo in construction.objects.items():
        objects.add_row(escape(_clip(label)), geo.kind, escape(_brief(geo)))
    out.print(objects)
    out.print(f"Pass@1: {int(construction.pass_at_1)}  ({len(construction.errors)} failed lines)")
    if png or steps or long_image:
        from geomeval.geogebra.render import render_long_image, render_png, render_steps

        if png:
            png.parent.mkdir(parents=True, exist_ok=True)
            try:
                image = render_png(construction, size=(width, height), show_errors=True)
            except ValueError as exc:  # a size out of range, more objects than a figure draws
                raise GgbInputError(f"{script}: not drawn: {exc}") from None
            png.write_bytes(image)
            out.print(f"figure: {png}")
        if steps:
            steps.mkdir(parents=True, exist_ok=True)
            for index, image in enumerate(render_steps(construction), start=1):
                (steps / f"step_{index:02d}.png").write_bytes(image)
            out.print(f"steps: {steps}")
        if long_image:
            long_image.parent.mkdir(parents=True, exist_ok=True)
            long_image.write_bytes(render_long_image(construction))
            out.print(f"long image: {long_image}")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(
            json.dumps(
                construction.dump(), indent=1, ensure_ascii=False, allow_nan=False, default=str
            )
        )
    if not construction.pass_at_1:
        raise typer.Exit(1)


@ggb_app.command("verify")
def verify_command(
    candidate: Annotated[str, typer.Argument(help="the candidate script or answer")],
    reference: Annotated[str, typer.Argument(help="the reference script")],
    fixed_coordinates: Annotated[
        bool, typer.Option(help="the problem fixes coordinates: compare in place, no similarity")
    ] = False,
    targets: Annotated[
        str | None, typer.Option(help="comma-separated reference labels to check (default: all)")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="write the verdict as JSON")
    ] = None,
) -> None:
    """Compare a candidate construction with a reference one: score in [0, 1] and why."""
    from geomeval.geogebra.verify import verify

    verdict = verify(
        _run(candidate),
        _run(reference),
        fixed_coordinates=fixed_coordinates,
        targets=[t.strip() for t in targets.split(",") if t.strip()] if targets else None,
    )
    out.print(verdict.report(), highlight=False)
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(verdict.to_dict(), indent=1, ensure_ascii=False))
