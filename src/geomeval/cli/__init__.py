"""The `geomeval` command line: the app with its benchmark groups, and the entry point that
turns the errors a user can fix into one line and an exit code."""

from __future__ import annotations

import logging
import sys

from rich.markup import escape

from ..errors import ENDPOINT_EXIT
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
        if not isinstance(exc, _user_errors()):
            raise
        from ..endpoints import redact_text

        console.print(f"[red]error:[/red] {escape(redact_text(str(exc)))}", highlight=False, soft_wrap=True)
        sys.exit(2)


__all__ = ["app", "main"]
