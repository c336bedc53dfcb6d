"""How writer threads (the response cache's, the samples file's) take their work: one batch
at a time, whatever is already waiting, so one transaction or one write serves many items."""

from __future__ import annotations

import queue
from typing import TypeVar

T = TypeVar("T")


def next_batch(waiting: queue.Queue[T | None], most: int | None = None) -> list[T | None]:
    """The next item (waiting for it), then whatever else is queued already, up to `most` in
    all; a None (the stop sign) ends the batch as its last item."""
    batch = [waiting.get()]
    while batch[-1] is not None and (most is None or len(batch) < most):
        try:
            batch.append(waiting.get_nowait())
        except queue.Empty:
            break
    return batch
