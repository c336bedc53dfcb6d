"""Append finished records to a samples file on a thread of its own, off the event loop.

A GeoLaux record is a 41 KB line (its target carries the figure, which rescoring sends the
judge again). Serialising and writing it on the event loop cost about a millisecond and a
half per item there, most of it waiting to take the GIL back after the write, while every
judge reply in flight waited too. Here the loop only queues the record; a thread turns
what is queued into lines and writes them together, then flushes.

What the file promises does not change: each record is one whole line, written with its
newline in one write and flushed at once, so a `kill -9` leaves at most a torn last line,
which resuming drops and redoes (as it redoes the records still queued). `close` writes
everything queued and closes the file before the caller computes results from it. An error
in the thread (a full disk) is not lost: the next `write`, or `close`, raises it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from pathlib import Path
from types import TracebackType

from ..core.errors import disk_full_error
from ..core.records import SampleRecord
from ..engines.batching import next_batch

QUEUE_RECORDS = 32
"""Records waiting at most; beyond this `write` waits for the thread (memory stays bounded,
and a crash loses no more than this, which a resumed run redoes)."""


class SampleWriter:
    """Appends records to `path` as JSON lines, in the order `write` is called."""

    def __init__(self, path: Path, *, fsync: bool = False):
        self.path = path
        self.fsync = fsync  # on close, also to the disk (a rescore then replaces the original)
        self._sink = path.open("a", encoding="utf-8")
        self._queue: queue.Queue[SampleRecord | None] = queue.Queue(QUEUE_RECORDS)
        self._error: BaseException | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._write, name=f"geomeval-{path.name}", daemon=True)
        self._thread.start()

    def write(self, record: SampleRecord) -> None:
        """Queue `record`, which must not change any more; raises what the thread failed with."""
        if self._error is not None:
            raise self._error
        if self._closed:
            raise RuntimeError(f"{self.path} is closed: no record can be written to it")
        self._queue.put(record)

    def close(self) -> None:
        """Write what is queued, flush and close the file; raises what the thread failed with."""
        self._closed = True
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        try:
            if self._error is None and self.fsync:
                os.fsync(self._sink.fileno())
        finally:
            self._sink.close()
        if self._error is not None:
            raise self._error

    def __enter__(self) -> SampleWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if error is None:
            self.close()
            return
        # after an error too: the records finished before it are kept; a failure to write them
        # is not raised over the error already on its way, which says what went wrong first
        with contextlib.suppress(Exception):
            self.close()

    def _write(self) -> None:
        stopping = False
        while not stopping:
            batch = next_batch(self._queue)
            stopping = batch[-1] is None
            if self._error is not None:  # after a failure, only drained
                continue
            lines = []
            for record in batch:
                if record is None:
                    continue
                try:
                    lines.append(record.to_json(self.path.parent) + "\n")  # figures: files beside it
                except Exception as exc:  # a record that cannot be written: the ones before it are
                    self._error = exc
                    break
            text = "".join(lines)
            try:
                self._sink.write(text)
                self._sink.flush()  # the lines reach the OS now: a kill -9 cannot lose them
            except BaseException as exc:  # a full disk: said by the next write or close, naming the folder
                self._error = self._error or disk_full_error(exc, self.path.parent, len(text.encode()))
