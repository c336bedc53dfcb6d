"""The `geomeval` command line: the app with its benchmark groups, and the entry point that
turns the errors a user can fix into one line and an exit code."""

from __future__ import annotations

import logging
import sys

from rich.markup import escape

from ..errors import DISK_FULL_EXIT, ENDPOINT_EXIT
from .capgeo import capgeo_app
from .commands import app, console
from .geoeval import geoeval_app
from .ggb import ggb_app
from .me2 import me2_app

app.add_typer(ggb_app, name="ggb")
app.add_typer(capgeo_app, name="capgeo")
app.add_typer(geoeval_app, name="geoeval")
app.add_typer(me2_app, name="me2")


def _user_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that carry a message for the user (exit 2, no traceback). Their modules are
    imported here, when an error is being handled, so start-up stays light."""
    from ..benchmarks.base import DataError
    from ..errors import UsageError
    from ..prompts import PromptError
    from ..runner import RunConflict

    return (UsageError, DataError, PromptError, RunConflict, FileNotFoundError, FileExistsError)


_FOLDER_NAMES = ("path", "out_dir", "folder", "out", "directory", "target")


def _disk_full(exc: BaseException) -> str | None:
    """One line for an error that says the disk is full (anywhere in its chain), naming the
    folder: the one a `DiskFull` carries, else the failed file's, else that of the innermost
    frame on the way that was writing to a path (`_FOLDER_NAMES`); None for any other error."""
    from pathlib import Path

    from ..errors import DiskFull, disk_full_message, is_disk_full

    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and seen not in chain and len(chain) < 16:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for error in chain:
        if isinstance(error, DiskFull):
            return str(error)
    full = next((error for error in chain if is_disk_full(error)), None)
    if full is None:
        return None
    folder: Path | None = None
    filename = getattr(full, "filename", None)
    if isinstance(filename, (str, Path)) and filename:
        folder = Path(filename) if Path(filename).is_dir() else Path(filename).parent
    trace = full.__traceback__
    frames = []
    while trace is not None and folder is None:
        frames.append(trace.tb_frame)
        trace = trace.tb_next
    for frame in reversed(frames):
        for name in _FOLDER_NAMES:
            value = frame.f_locals.get(name)
            if isinstance(value, Path):
                folder = value if value.is_dir() else value.parent
                break
        if folder is not None:
            break
    return disk_full_message(folder if folder is not None else Path.cwd())


class _ConsoleHandler(logging.Handler):
    """The library's warnings (a server that makes the client narrow its requests in flight)
    printed on the console, above the progress bar, in yellow."""

    def emit(self, record: logging.LogRecord) -> None:
        from ..endpoints import redact_text

        message = redact_text(record.getMessage())  # no URL secret on the console
        console.print(f"[yellow]warning:[/yellow] {escape(message)}", highlight=False, soft_wrap=True)


def _show_warnings_on_console() -> None:
    logger = logging.getLogger("geomeval")
    if not any(isinstance(h, _ConsoleHandler) for h in logger.handlers):
        logger.addHandler(_ConsoleHandler(logging.WARNING))
        logger.propagate = False


def main() -> None:
    """Entry point. Usage mistakes are typer's (in standalone mode it prints the usage and exits
    2, whatever click it bundles); errors the user can fix print one line and exit 2; any other
    exception is a bug and shows its traceback."""
    from ..errors import EndpointFailure

    _show_warnings_on_console()
    try:
        app(standalone_mode=True, prog_name="geomeval")
    except KeyboardInterrupt:
        sys.exit(130)
    except EndpointFailure as exc:
        from ..endpoints import redact_text

        console.print(f"[red]error:[/red] {escape(redact_text(str(exc)))}", highlight=False, soft_wrap=True)
        console.print(
            "Nothing was counted for the items not yet done; what was saved stays saved. "
            "Fix the endpoint and rerun the same command to resume.", highlight=False, soft_wrap=True,
        )
        sys.exit(ENDPOINT_EXIT)
    except Exception as exc:
        full = _disk_full(exc)
        if full is not None:
            console.print(f"[red]error:[/red] {escape(full)}", highlight=False, soft_wrap=True)
            sys.exit(DISK_FULL_EXIT)
        if not isinstance(exc, _user_errors()):
            raise
        from ..endpoints import redact_text

        console.print(f"[red]error:[/red] {escape(redact_text(str(exc)))}", highlight=False, soft_wrap=True)
        sys.exit(2)


__all__ = ["app", "main"]
