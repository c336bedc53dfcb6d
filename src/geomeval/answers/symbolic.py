"""The slow path: math-verify/sympy in a worker process with a hard timeout.

math-verify guards itself with `signal.alarm`, which only works on the main thread,
and sympy can run for minutes on adversarial input. A separate worker process
(`python -m geomeval.answers._symbolic_worker`, one JSON line per question) gives a
timeout that works from any thread (Gradio handlers, asyncio executors) and lets a
runaway simplification be killed outright; the next question starts a fresh worker.
"""

from __future__ import annotations

import atexit
import json
import selectors
import subprocess
import sys
import threading

DEFAULT_TIMEOUT_S = 5.0
STARTUP_TIMEOUT_S = 60.0
MAX_SYMBOLIC_CHARS = 300

_lock = threading.Lock()
_worker: subprocess.Popen[str] | None = None


def _read_line(process: subprocess.Popen[str], timeout_s: float) -> str | None:
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout_s):
            return None
    line = process.stdout.readline()
    return line or None


def _start_worker() -> subprocess.Popen[str] | None:
    process = subprocess.Popen(
        [sys.executable, "-m", "geomeval.answers._symbolic_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    if _read_line(process, STARTUP_TIMEOUT_S) != "ready\n":
        process.kill()
        return None
    return process


def _stop_worker() -> None:
    global _worker
    if _worker is not None:
        _worker.kill()
        _worker.wait()
        _worker = None


atexit.register(_stop_worker)


def symbolic_equal(prediction: str, gold: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> bool | None:
    """True/False from math-verify, or None when it timed out, crashed or is not installed."""
    global _worker
    if len(prediction) > MAX_SYMBOLIC_CHARS or len(gold) > MAX_SYMBOLIC_CHARS:
        return None
    with _lock:
        if _worker is None or _worker.poll() is not None:
            _worker = _start_worker()
            if _worker is None:
                return None
        assert _worker.stdin is not None
        try:
            _worker.stdin.write(json.dumps([gold, prediction]) + "\n")
            _worker.stdin.flush()
        except OSError:
            _stop_worker()
            return None
        line = _read_line(_worker, timeout_s)
        if line is None:
            _stop_worker()
            return None
    answer = json.loads(line)
    return answer if isinstance(answer, bool) else None
