"""rich, imported when something is drawn, not when the command line starts.

rich's console, markup, table and progress modules cost about 25 ms to import; `geomeval run`
draws nothing until its progress bar, which `BackgroundBar` starts on a thread while the run
loads its data and sends its first requests, so by the time the results table is drawn rich
is already loaded. `LazyConsole` is a `rich.console.Console` made on first use (its output
stream is looked up as a Console's always is, at each write)."""

from __future__ import annotations

import builtins
import os
import sys
import threading
import time
from collections import deque
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

    def stream(self) -> Any:
        """Where the console writes (without making it)."""
        if self._console is not None:
            return self._console.file
        file = self._settings.get("file")
        return file if file is not None else sys.stderr if self._settings.get("stderr") else sys.stdout

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


def drawn_only_when_stopped(stream: Any) -> bool:
    """Whether rich draws a progress bar on `stream` only once, when it stops: the stream is
    not a terminal and nothing tells rich to treat it as one (TTY_COMPATIBLE, FORCE_COLOR,
    TTY_INTERACTIVE, Jupyter). Where unsure, False (the bar is drawn as it goes)."""
    if any(name in os.environ for name in ("TTY_COMPATIBLE", "FORCE_COLOR", "TTY_INTERACTIVE",
                                           "JUPYTER_COLUMNS", "JUPYTER_LINES")):
        return False
    if hasattr(builtins, "get_ipython"):
        return False
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):
        return False


class BackgroundBar:
    """A rich progress bar started on a thread: `update` keeps the counts until the bar exists
    (the last `HISTORY`, with their times), then passes each on; `close` waits for the thread
    and stops the bar (drawn as `Progress` draws it on leaving its `with`). An error on the
    thread is raised by `close`.

    Importing rich and making the bar is Python work that holds the interpreter's lock, so the
    thread starts it once the work is under way: where the bar is drawn as it goes (a
    terminal), at the second count (the first is what was done before, the second comes when
    the first item is done) or after `START_S`; where it is drawn only when it stops (a pipe,
    a file: `drawn_only_when_stopped`), when at most `last_round` items are left (the run then
    mostly waits for its last replies) or at `close`. The counts kept are replayed into the
    bar at their own times (`Progress`'s clock), so its elapsed time, finish time and speed
    are what a bar made at the start would show."""

    START_S = 0.5
    HISTORY = 1001  # rich's speed estimate keeps the last 1000 steps; one more gives the first of them

    def __init__(self, label: str, console: LazyConsole, last_round: int = 0) -> None:
        self._label = label
        self._console = console
        self._last_round = last_round
        self._lock = threading.Lock()
        self._created = time.monotonic()
        self._replaying: float | None = None  # the time `Progress` reads while counts are replayed
        self._history: deque[tuple[float, int, int]] = deque(maxlen=self.HISTORY)
        self._bar: Any = None
        self._task: Any = None
        self._error: BaseException | None = None
        self._counts = 0
        self._at_end = drawn_only_when_stopped(console.stream())
        self._go = threading.Event()
        self._thread = threading.Thread(target=self._start, name="geomeval-progress", daemon=True)
        self._thread.start()

    def _clock(self) -> float:
        replaying = self._replaying
        return time.monotonic() if replaying is None else replaying

    def _start(self) -> None:
        self._go.wait(None if self._at_end else self.START_S)
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
                transient=False, get_time=self._clock,
            )
            bar.start()
            with self._lock:
                self._replaying = self._created
                self._task = bar.add_task(label, total=None)
                for at, done, total in self._history:
                    self._replaying = at
                    bar.update(self._task, completed=done, total=total)
                self._replaying = None
                self._history.clear()
                self._bar = bar
        except BaseException as exc:  # raised where the bar is closed
            self._error = exc

    def update(self, done: int, total: int) -> None:
        with self._lock:
            self._counts += 1
            due = total - done <= self._last_round if self._at_end else self._counts == 2
            if due:
                self._go.set()
            if self._bar is None:
                self._history.append((time.monotonic(), done, total))
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
