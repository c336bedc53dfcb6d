"""Run work on untrusted input (a model's GeoGebra answer, a script typed into the Space) in a
worker process with hard limits on its work and memory.

The GeoGebra engine bounds what it can see (lines, nesting, list and text sizes, a CPU-time
limit checked as it goes), but a limit checked by the code it limits can be outrun: one call
into a library on a huge value never comes back to check. A worker process can be killed
instead. A call that spends more than `timeout_s` CPU seconds of its worker (counted by the
worker's own `ITIMER_PROF`, armed for each call, whose signal ends the process), or a worker
that dies or runs out of memory (its address space is capped with RLIMIT_AS), raises
`SandboxLimit` and the worker is replaced; the caller scores that as the answer's failure.
CPU seconds count work, not waiting: the same answer meets the same limit on an idle machine
and on one where the worker is starved of CPU. The clock is only a safety net (`wall_s`,
generous): a call that has not finished by then raises `SandboxStalled`, a `SandboxLimit`
that says the machine, not the answer, failed (the caller leaves the item unscored). Other
exceptions come back and are re-raised as they are.

Workers are plain subprocesses (`python -m geomeval.engines.sandbox`), at most `workers` at a time;
each is reused for the next call, so its imports are paid once. Arguments and results go
through pickle, between this process and its own child only.
"""

from __future__ import annotations

import atexit
import importlib
import os
import pickle
import selectors
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

DEFAULT_TIMEOUT_S = 60.0  # CPU seconds of the worker per call
DEFAULT_WALL_S = 900.0  # the wall-clock safety net per call (a stalled or starved machine)
DEFAULT_MEMORY_BYTES = 3 * 1024**3


class SandboxLimit(RuntimeError):
    """The call ran past its CPU-time or memory limit, or its worker died; the message says which."""


class SandboxStalled(SandboxLimit):
    """The call did not finish within the wall-clock safety net: the machine's failure (overload,
    a stopped worker), not the answer's; the caller leaves the item unscored."""


def _read_frame(stream: IO[bytes]) -> Any:
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError("the other side closed the pipe")
    size = int.from_bytes(header, "big")
    payload = stream.read(size)
    if len(payload) < size:
        raise EOFError("the other side closed the pipe mid-message")
    return pickle.loads(payload)


def _write_frame(stream: IO[bytes], value: Any) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(payload).to_bytes(8, "big") + payload)
    stream.flush()


def _serve(memory_bytes: int | None) -> None:  # pragma: no cover - runs in the worker
    """The worker's loop: requests on stdin, results on a private copy of stdout (fd 1 itself
    is pointed at stderr, so a library that prints cannot corrupt the protocol)."""
    if memory_bytes:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    while True:
        try:
            target, args, *limit = _read_frame(requests)
        except EOFError:
            return
        cpu_s = limit[0] if limit else None
        try:
            module, _, name = target.partition(":")
            function = getattr(importlib.import_module(module), name)  # imports are not the call's work
            if cpu_s:
                signal.setitimer(signal.ITIMER_PROF, cpu_s)  # its signal's default action ends the worker
            try:
                result: tuple[str, Any] = ("ok", function(*args))
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
        except MemoryError:
            result = ("memory", None)
        except Exception as exc:
            result = ("raise", exc)
        try:
            _write_frame(replies, result)
        except Exception as exc:  # an unpicklable result or exception: say what it was
            _write_frame(replies, ("raise", RuntimeError(f"{type(exc).__name__}: {exc}")))


class _Worker:
    """`python -m geomeval.engines.sandbox`: a plain subprocess, so nothing depends on how the parent
    was started (multiprocessing's spawn re-runs the parent's main script, which fails for
    `python -c`, notebooks and stdin)."""

    def __init__(self, memory_bytes: int | None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "geomeval.engines.sandbox", str(memory_bytes or 0)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )

    def alive(self) -> bool:
        return self.process.poll() is None

    def ask(self, request: tuple[str, tuple[Any, ...], float], timeout_s: float) -> tuple[str, Any] | None:
        """The reply, or None when none came within `timeout_s` of the clock."""
        assert self.process.stdin is not None and self.process.stdout is not None
        _write_frame(self.process.stdin, request)
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout_s):
                return None
        return _read_frame(self.process.stdout)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


class Sandbox:
    """Worker processes that run `module:function(*args)` under hard limits."""

    def __init__(self, workers: int = 2, timeout_s: float = DEFAULT_TIMEOUT_S,
                 memory_bytes: int | None = DEFAULT_MEMORY_BYTES, wall_s: float | None = None) -> None:
        self.timeout_s = timeout_s  # CPU seconds of the worker per call
        self.wall_s = wall_s  # the safety net; None: DEFAULT_WALL_S, or 15× the CPU limit if longer
        self.memory_bytes = memory_bytes
        self._slots = threading.BoundedSemaphore(max(1, workers))
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()

    def call(self, function: Callable[..., Any], *args: Any, timeout_s: float | None = None) -> Any:
        """`function(*args)` in a worker, within `timeout_s` CPU seconds of the worker (the
        sandbox's own by default); `function` must be a module-level function (it is named,
        not pickled). Its result and arguments must pickle."""
        target = f"{function.__module__}:{function.__qualname__}"
        limit = self.timeout_s if timeout_s is None else timeout_s
        wall = self.wall_s if self.wall_s is not None else max(DEFAULT_WALL_S, 15 * limit)
        with self._slots:
            with self._lock:
                worker = self._idle.pop() if self._idle else None
            if worker is None or not worker.alive():
                worker = _Worker(self.memory_bytes)
            try:
                reply = worker.ask((target, args, limit), wall)
                if reply is None:
                    worker.stop()
                    raise SandboxStalled(f"did not finish within the wall-clock safety net of {wall:g} s "
                                         "(the machine is overloaded or the worker was stopped)")
                status, value = reply
            except (EOFError, OSError, pickle.UnpicklingError) as exc:
                worker.stop()
                code = worker.process.returncode
                if code == -signal.SIGPROF:
                    raise SandboxLimit(f"ran past the CPU time limit of {limit:g} s") from None
                raise SandboxLimit(
                    f"the worker stopped (exit code {code}; the memory limit of "
                    f"{(self.memory_bytes or 0) / 1024**3:g} GiB is the usual cause)"
                ) from exc
            with self._lock:
                self._idle.append(worker)
        if status == "ok":
            return value
        if status == "memory":
            raise SandboxLimit(f"ran out of its memory limit of {(self.memory_bytes or 0) / 1024**3:g} GiB")
        raise value

    def close(self) -> None:
        with self._lock:
            workers, self._idle = self._idle, []
        for worker in workers:
            worker.stop()


_shared: Sandbox | None = None
_shared_lock = threading.Lock()


def shared_sandbox() -> Sandbox:
    """The process's sandbox (as many workers as cores, up to 4), stopped at exit."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Sandbox(workers=min(4, os.cpu_count() or 1))
            atexit.register(_shared.close)
        return _shared


if __name__ == "__main__":  # pragma: no cover - the worker
    _serve(int(sys.argv[1]) if len(sys.argv) > 1 else None)
