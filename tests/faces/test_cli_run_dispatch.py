"""`geomeval run ...` goes through an app of the run command alone (cli.commands.run_only_app),
so a run neither builds every other command's parameters nor imports the benchmark groups'
modules, and rich loads only when something is drawn: what a user sees must be the whole app's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from geomeval.cli import full_app
from geomeval.cli.commands import run_only_app

GROUP_MODULES = ("geomeval.cli.capgeo", "geomeval.cli.ggb", "geomeval.cli.geoeval", "geomeval.cli.me2")


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--help"],
        ["run"],
        ["run", "geolaux"],
        ["run", "geolaux", "--model", "baseline:random", "--judgee", "x"],
        ["run", "geolaux", "--model", "baseline:random", "--concurrency", "0"],
        ["run", "geolaux", "--model", "baseline:random", "--limit", "zero"],
    ],
)
def test_the_run_only_app_answers_as_the_whole_app(args: list[str]) -> None:
    runner = CliRunner()
    whole = runner.invoke(full_app(), args, prog_name="geomeval", terminal_width=100)
    alone = runner.invoke(run_only_app(), args, prog_name="geomeval", terminal_width=100)
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)
    assert "Usage: geomeval run" in whole.output


def test_a_run_imports_no_benchmark_group_and_draws_as_before(tmp_path: Path) -> None:
    out = tmp_path / "out"
    probe = (
        "import sys\n"
        f"sys.argv = ['geomeval', 'run', 'geolaux', '--model', 'baseline:random', '--limit', '3', '--out', {str(out)!r}]\n"
        "import geomeval.cli\n"
        "import geomeval.run.runner as runner\n"
        "started = []\n"
        "real = runner.run\n"
        "def watched(*a, **k):\n"
        "    started.append('rich.console' in sys.modules)\n"
        "    return real(*a, **k)\n"
        "runner.run = watched\n"
        "try:\n    geomeval.cli.main()\nexcept SystemExit:\n    pass\n"
        f"print('loaded', sorted(m for m in {GROUP_MODULES!r} if m in sys.modules), started, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    # no group imported; rich not yet loaded when the run began
    assert done.stderr.strip().splitlines()[-1] == "loaded [] [False]", done.stderr[-2000:]
    # the bar drawn whole at the end (piped output), then the results table
    assert "geolaux/geolaux" in done.stderr and "3/3" in done.stderr, done.stderr[-2000:]
    shown = "".join(done.stdout.split())  # long paths wrap at the console's width
    assert "GeoLaux·geolaux·baseline:random" in shown and f"results:{out / 'results.json'}" in shown


def test_only_the_geomeval_process_freezes_its_start_up_for_the_collector(tmp_path: Path) -> None:
    """The `geomeval` command, alone in its process, moves its start-up state out of the
    collector's sight when the run starts (commands.FREEZE_AT_START); code that calls `main`
    and goes on keeps a collector that sees everything."""
    script = tmp_path / "geomeval"  # what the installed entry point is named: the process is the command's
    script.write_text(
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0, file=sys.stderr))\n"
        "from geomeval.cli import main\n"
        "main()\n",
        encoding="utf-8",
    )
    args = ["run", "geolaux", "--model", "baseline:random", "--limit", "2"]
    owned = subprocess.run([sys.executable, str(script), *args, "--out", str(tmp_path / "a")],
                           capture_output=True, text=True, timeout=300)
    assert owned.returncode == 0 and owned.stderr.strip().splitlines()[-1] == "frozen True", owned.stderr[-2000:]
    probe = (f"import gc, sys\nsys.argv = ['geomeval', *{args!r}, '--out', {str(tmp_path / 'b')!r}]\n"
             "import geomeval.cli\ntry:\n    geomeval.cli.main()\nexcept SystemExit:\n    pass\n"
             "print('frozen', gc.get_freeze_count() > 0, file=sys.stderr)\n")
    called = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert called.returncode == 0 and called.stderr.strip().splitlines()[-1] == "frozen False", called.stderr[-2000:]


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def _drawn(updates: list[tuple[float, int, int]], end: float, clock: _Clock, *, ours: bool) -> str:
    """The progress line of `updates` ((time, done, total)) stopped at `end`: through
    BackgroundBar (made late, its counts replayed), or a rich Progress made at the start."""
    import io

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from geomeval.cli.lazyrich import BackgroundBar, LazyConsole

    stream = io.StringIO()
    if ours:
        bar = BackgroundBar("geolaux/geolaux", LazyConsole(file=stream, width=100), last_round=2)
        for at, done, total in updates:
            clock.now = at
            bar.update(done, total)
        clock.now = end
        bar.close()
        return stream.getvalue()
    label = "geolaux/geolaux"
    with Progress(TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("ETA"), TimeRemainingColumn(), console=Console(file=stream, width=100),
                  transient=False, get_time=clock.monotonic) as progress:
        task = progress.add_task(label, total=None)
        for at, done, total in updates:
            clock.now = at
            progress.update(task, completed=done, total=total)
        clock.now = end
    return stream.getvalue()


@pytest.mark.parametrize("finished", [True, False])
def test_a_bar_made_late_draws_what_one_made_at_the_start_draws(
        monkeypatch: pytest.MonkeyPatch, finished: bool) -> None:
    """Piped output gets the bar once, when it stops; made when the run is nearly done (rich
    loaded then), with its counts replayed at their times, it shows the elapsed time, count
    and time left of a bar made as the run began (a stopped run's estimate included)."""
    from geomeval.cli import lazyrich

    clock = _Clock()
    monkeypatch.setattr(lazyrich, "time", clock)
    steps = [(1000.0 + 7 * i, 3 * i, 30) for i in range(11 if finished else 6)]
    ours = _drawn(steps, 1100.0, clock, ours=True)
    clock.now = 1000.0
    theirs = _drawn(steps, 1100.0, clock, ours=False)
    assert ours == theirs and "geolaux/geolaux" in ours
    assert ("30/30 0:01:10 ETA 0:00:00" if finished else "15/30 0:01:40 ETA 0:00:35") in ours, ours


def test_only_a_stream_rich_would_not_draw_live_waits_for_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from geomeval.cli.lazyrich import drawn_only_when_stopped

    for name in ("TTY_COMPATIBLE", "FORCE_COLOR", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES"):
        monkeypatch.delenv(name, raising=False)
    assert drawn_only_when_stopped(io.StringIO())
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not drawn_only_when_stopped(io.StringIO())
