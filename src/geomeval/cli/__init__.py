"""The `geomeval` command line: the app with its benchmark groups, and the entry point that
turns the errors a user can fix into one line and an exit code."""

from __future__ import annotations

import atexit
import logging
import sys
import threading
from typing import TYPE_CHECKING, Any, NoReturn

from ..core.errors import DISK_FULL_EXIT, ENDPOINT_EXIT
from . import commands
from .commands import console
from .lazyrich import escape

if TYPE_CHECKING:
    import typer

_GROUPS_LOCK = threading.Lock()


def full_app() -> typer.Typer:
    """The whole `geomeval` app, with its benchmark groups (`ggb`, `capgeo`, `geoeval`, `me2`),
    which are imported and added on the first call: `geomeval run` dispatches through
    `commands.run_only_app` and never needs them. `geomeval.cli.app` is this app."""
    with _GROUPS_LOCK:
        if not commands.app.registered_groups:
            from .capgeo import capgeo_app
            from .geoeval import geoeval_app
            from .ggb import ggb_app
            from .me2 import me2_app

            commands.app.add_typer(ggb_app, name="ggb")
            commands.app.add_typer(capgeo_app, name="capgeo")
            commands.app.add_typer(geoeval_app, name="geoeval")
            commands.app.add_typer(me2_app, name="me2")
    return commands.app


def __getattr__(name: str) -> Any:
    if name == "app":
        return full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _user_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that carry a message for the user (exit 2, no traceback). Their modules are
    imported here, when an error is being handled, so start-up stays light."""
    from ..benchmarks.base import DataError
    from ..core.errors import UsageError
    from ..engines.prompts import PromptError
    from ..run.runner import RunConflict

    return (UsageError, DataError, PromptError, RunConflict, FileNotFoundError, FileExistsError)


_FOLDER_NAMES = ("path", "out_dir", "folder", "out", "directory", "target")


def _disk_full(exc: BaseException) -> str | None:
    """One line for an error that says the disk is full (anywhere in its chain), naming the
    folder: the one a `DiskFull` carries, else the failed file's, else that of the innermost
    frame on the way that was writing to a path (`_FOLDER_NAMES`); None for any other error."""
    from pathlib import Path

    from ..core.errors import DiskFull, disk_full_message, is_disk_full

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
        from ..engines.endpoints import redact_text

        message = redact_text(record.getMessage())  # no URL secret on the console
        console.print(f"[yellow]warning:[/yellow] {escape(message)}", highlight=False, soft_wrap=True)


def _show_warnings_on_console() -> None:
    logger = logging.getLogger("geomeval")
    if not any(isinstance(h, _ConsoleHandler) for h in logger.handlers):
        logger.addHandler(_ConsoleHandler(logging.WARNING))
        logger.propagate = False


def _owns_process() -> bool:
    """Whether this process is the `geomeval` command and nothing else: started as `python -m
    geomeval`, `python -m geomeval.cli` or the `geomeval` script, not called by other code (a
    test, a `-c` probe) that goes on after `main` exits."""
    entry = sys.modules.get("__main__")
    spec = getattr(entry, "__spec__", None)
    if spec is not None and spec.name in ("geomeval.__main__", "geomeval.cli.__main__"):
        return True
    file = getattr(entry, "__file__", None)
    return isinstance(file, str) and file == sys.argv[0] and file.rsplit("/", 1)[-1] == "geomeval"


def _exit_now(code: object) -> NoReturn:
    """End the process as the interpreter would, less the teardown of every module and object
    (about 0.1 s after a run, everything written: most of the tail a bare client does not
    have): threads that are not daemons joined and executors shut down (threading's own exit
    step), garbage collected (what a cycle held is closed; a run's start-up state is frozen,
    commands.FREEZE_AT_START), atexit functions run (logging
    flushed, temporary folders removed), the streams flushed, then `os._exit`."""
    import gc
    import os
    import threading

    if isinstance(code, str):  # as SystemExit prints a text code
        sys.stderr.write(code + "\n")
        code = 1
    status = code if isinstance(code, int) else 0 if code is None else 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]
        gc.collect()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # anything amiss here: the interpreter's own way, as before
        raise SystemExit(code) from None
    os._exit(status)


def main() -> None:
    """Entry point. Usage mistakes are typer's (in standalone mode it prints the usage and exits
    2, whatever click it bundles); errors the user can fix print one line and exit 2; any other
    exception is a bug and shows its traceback. A process that is the command alone ends
    without the interpreter's teardown (`_exit_now`)."""
    commands.FREEZE_AT_START = _owns_process()
    try:
        _main()
    except SystemExit as exc:
        if _owns_process():
            _exit_now(exc.code)
        raise
    if _owns_process():
        _exit_now(0)


def _main() -> None:
    from ..core.errors import EndpointFailure

    _show_warnings_on_console()
    if sys.argv[1:2] == ["run"]:  # git's commit and the package metadata, read while the run's modules load
        from ..run.provenance import take_code_provenance_early

        take_code_provenance_early()
    # `geomeval run ...` through an app of its command alone (the same objects: usage, errors
    # and help are the whole app's), every other command line through the whole app
    chosen = commands.run_only_app() if sys.argv[1:2] == ["run"] else full_app()
    try:
        chosen(standalone_mode=True, prog_name="geomeval")
    except KeyboardInterrupt:
        sys.exit(130)
    except EndpointFailure as exc:
        from ..engines.endpoints import redact_text

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
        from ..engines.endpoints import redact_text

        console.print(f"[red]error:[/red] {escape(redact_text(str(exc)))}", highlight=False, soft_wrap=True)
        sys.exit(2)


__all__ = ["app", "full_app", "main"]
