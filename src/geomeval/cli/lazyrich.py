"""rich, imported when something is drawn, not when the command line starts.

rich's console, markup, table and progress modules cost about 25 ms to import; `geomeval run`
draws nothing until its progress bar, which `BackgroundBar` starts on a thread while the run
loads its data and sends its first requests, so by the time the results table is drawn rich
is already loaded. `LazyConsole` is a `rich.console.Console` made on first use (its output
stream is looked up as a Console's always is, at each write)."""

from __future__ import annotations

import threading
from typing import Any


def escape(text: str) -> str:
    """`rich.markup.escape`."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


class LazyConsole:
    """A `rich.console.Console(**settings)`, made when an attribute is first read."""

    def __init__(self, **settings: Any) -> None:
        self._settings = settings
        self._console: Any = None
        self._lock = threading.Lock()

    def made(self) -> Any:
        """The console itself (made now if it is not yet)."""
        if self._console is None:
            with self._lock:
                if self._console is None:
                    from rich.console import Console

                    self._console = Console(**self._settings)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.made(), name)


class BackgroundBar:
    """A rich progress bar started on a thread: `update` keeps the latest count until the bar
    exists, then passes each on; `close` waits for the thread and stops the bar (drawn as
    `Progress` draws it on leaving its `with`). An error on the thread is raised by `close`.

    The thread starts the bar once the work is under way: at the second count (the first is
    what was done before, the second comes when the first item is done) or after `START_S`,
    whichever is first, so importing rich and drawing (Python work that holds the
    interpreter's lock) overlap the run's waits for replies, not its start-up."""

    START_S = 0.5

    def __init__(self, label: str, console: LazyConsole) -> None:
        self._label = label
        self._console = console
        self._lock = threading.Lock()
        self._latest: tuple[int, int] | None = None
        self._bar: Any = None
        self._task: Any = None
        self._error: BaseException | None = None
        self._counts = 0
        self._go = threading.Event()
        self._thread = threading.Thread(target=self._start, name="geomeval-progress", daemon=True)
        self._thread.start()

    def _start(self) -> None:
        self._go.wait(self.START_S)
        try:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            label = self._label
            bar = Progress(
                TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=self._console.made(),
                transient=False,
            )
            bar.start()
            with self._lock:
                self._task = bar.add_task(label, total=None)
                self._bar = bar
                if self._latest is not None:
                    bar.update(self._task, completed=self._latest[0], total=self._latest[1])
        except BaseException as exc:  # raised where the bar is closed
            self._error = exc

    def update(self, done: int, total: int) -> None:
        with self._lock:
            self._counts += 1
            if self._counts == 2:
                self._go.set()
            if self._bar is None:
                self._latest = (done, total)
                return
            bar, task = self._bar, self._task
        bar.update(task, completed=done, total=total)

    def close(self) -> None:
        self._go.set()
        self._thread.join()
        if self._bar is not None:
            self._bar.stop()
        if self._error is not None:
            raise self._error
