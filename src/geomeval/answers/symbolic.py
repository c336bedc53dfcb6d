"""The slow path: math-verify/sympy in a worker process, limited by the work it does.

math-verify guards itself with `signal.alarm`, which only works on the main thread,
and sympy can run for minutes on adversarial input. A separate worker process
(`python -m geomeval.answers._symbolic_worker`, one JSON line per question) gives a
limit that works from any thread (Gradio handlers, asyncio executors) and lets a
runaway simplification be killed outright; the next question starts a fresh worker.

The limit that decides is the worker's CPU time (`CPU_BUDGET_S` per question, counted by
the worker itself), never the clock: the same question gets the same outcome on an idle
machine and on one where the worker is starved of CPU. Spending the budget, like every
other way of getting no verdict, is *undecided*, never "unequal": the caller leaves the
item unscored. A wall-clock wait remains only as a safety net against a worker that never
answers (a stopped or swapped-out process); it is generous, and its expiry is undecided too.
"""

from __future__ import annotations

import atexit
import json
import selectors
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass

CPU_BUDGET_S = 5.0
"""CPU seconds of the worker one question may spend (math-verify's answer to `sin^2 x+cos^2 x
= 1` takes about 0.3 s)."""
SAFETY_NET_S = 600.0
"""Wall-clock seconds to wait for the worker's start or for one answer before giving up
(undecided): only a worker that is stopped, swapped out or starved for minutes reaches it."""
DEFAULT_TIMEOUT_S = CPU_BUDGET_S  # the old name, kept for callers
MAX_SYMBOLIC_CHARS = 300

_lock = threading.Lock()
_worker: subprocess.Popen[str] | None = None


@dataclass(frozen=True, slots=True)
class SymbolicResult:
    """math-verify's verdict (`equal`), or None with `why` there is none; `why` also says why
    an answer math-verify could not read is unequal."""

    equal: bool | None
    why: str = ""


def _read_line(process: subprocess.Popen[str], timeout_s: float) -> str | None:
    """The worker's next line; "" when it has exited; None when nothing came within `timeout_s`."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout_s):
            return None
    return process.stdout.readline()


def _start_worker(safety_net_s: float) -> subprocess.Popen[str] | str:
    """The worker, ready; or why it is not."""
    process = subprocess.Popen(
        [sys.executable, "-m", "geomeval.answers._symbolic_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    line = _read_line(process, safety_net_s)
    if line != "ready\n":
        process.kill()
        process.wait()
        if line is None:
            return f"math-verify did not start within the {safety_net_s:g} s safety net"
        return f"math-verify could not start (exit code {process.returncode})"
    return process


def _stop_worker() -> None:
    global _worker
    if _worker is not None:
        _worker.kill()
        _worker.wait()
        _worker = None


atexit.register(_stop_worker)


def symbolic_equal(prediction: str, gold: str, timeout_s: float = CPU_BUDGET_S) -> bool | None:
    """True/False from math-verify, or None when it gave no verdict (see `symbolic_check`);
    `timeout_s` is the question's budget of the worker's CPU seconds."""
    return symbolic_check(prediction, gold, cpu_budget_s=timeout_s).equal


def symbolic_check(prediction: str, gold: str, *, cpu_budget_s: float = CPU_BUDGET_S,
                   safety_net_s: float = SAFETY_NET_S) -> SymbolicResult:
    """math-verify's verdict on `prediction` = `gold`, or no verdict, saying why: the worker
    spent `cpu_budget_s` CPU seconds on it, could not start, crashed, or gave no answer
    within the `safety_net_s` wall-clock safety net."""
    global _worker
    if len(prediction) > MAX_SYMBOLIC_CHARS or len(gold) > MAX_SYMBOLIC_CHARS:
        return SymbolicResult(None, f"longer than {MAX_SYMBOLIC_CHARS} characters")
    with _lock:
        if _worker is None or _worker.poll() is not None:
            started = _start_worker(safety_net_s)
            if isinstance(started, str):
                _worker = None
                return SymbolicResult(None, started)
            _worker = started
        worker = _worker
        assert worker.stdin is not None
        try:
            worker.stdin.write(json.dumps([gold, prediction, cpu_budget_s]) + "\n")
            worker.stdin.flush()
        except OSError:
            _stop_worker()
            return SymbolicResult(None, "the math-verify worker stopped")
        line = _read_line(worker, safety_net_s)
        if not line:
            _stop_worker()
            if line is None:
                return SymbolicResult(None, f"no answer within the {safety_net_s:g} s safety net")
            if worker.returncode == -signal.SIGPROF:
                return SymbolicResult(None, f"its work budget of {cpu_budget_s:g} CPU seconds was spent")
            return SymbolicResult(None, f"the math-verify worker stopped (exit code {worker.returncode})")
    answer = json.loads(line)
    if isinstance(answer, bool):
        return SymbolicResult(answer)
    # math-verify raised on this text: it cannot read it, which is the answer's doing
    return SymbolicResult(False, "math-verify could not read the answers")
