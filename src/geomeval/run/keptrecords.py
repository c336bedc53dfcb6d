"""The copies of a run's written records that its summary reads, held on disk, not in memory.

A run (and a rescore) keeps each record it writes as `Benchmark.kept` makes it: ids, meta,
score values and flags, and the few judgment or extraction keys its `aggregate` reads. Held
as Python objects that is about 1.3 KB an item, which at 100k items is most of what the
process holds. `KeptRecords` writes each kept copy as one JSON line to an anonymous
temporary file in the run's folder (unlinked at once, so nothing is left behind however the
process ends) and holds only where each line starts and how long it is (16 bytes an item)
and, for a run, each planned id's position (about 70 bytes an id, beside the ids the run holds
anyway). Reading back decodes one record at a time, in the run's order; aggregation walks
it a few times (aggregate.py); a small run's records, decoded by the first walk, are held for
the next ones (`MEMO_BYTES`), a large run's are decoded again at each walk, never all held.
"""

from __future__ import annotations

import json
import os
import tempfile
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import overload

from ..core.records import SampleRecord

FLUSH_BYTES = 64 * 1024
"""Lines gathered before one write: a write per record cost a run's event loop about 0.2 ms
each (the GIL to take back after the system call), for lines of about a kilobyte."""

MEMO_BYTES = 4 * 1024 * 1024
"""Kept lines, in bytes, up to which the records a whole walk decoded are held for the next
walks (a few thousand items): a run's summary walks its records three times or more, and
decoding is most of each walk (about 25 ms of a 500-item run's 0.1 s from its last reply to
its exit). Beyond this, every walk decodes again, so memory stays flat in the items. The
records held are the ones each later walk gets: a summary reads them, it does not change them."""


class KeptRecords(Sequence[SampleRecord]):
    """Kept records, in the order of `planned` ids when given (a record of another id is not
    kept, and a second record of an id replaces the first, as a resumed item redone does),
    else in the order they were added (a rescore, which reads samples.jsonl in its order)."""

    def __init__(self, planned: Sequence[str] | None = None, *, folder: Path | None = None) -> None:
        # in `folder` (a run's own; else TMPDIR, which may be memory, as tmpfs is)
        self._file = tempfile.TemporaryFile(prefix=".geomeval-kept-", dir=folder)  # noqa: SIM115 (closed by close())
        self._pending = bytearray()  # lines not yet written (one write per FLUSH_BYTES, not per line)
        self._written = 0  # bytes in the file; the next line starts after these and `_pending`
        self._planned = planned
        self._slots = None if planned is None else {item_id: i for i, item_id in enumerate(planned)}
        size = 0 if planned is None else len(planned)
        self._starts = array("q", [-1]) * size  # -1: no record (yet) for that planned id
        self._lengths = array("l", [0]) * size
        self._count = 0
        self._present: array[int] | None = None  # the slots holding a record, made when indexed
        self._memo: list[SampleRecord] | None = None  # every record, in order, as a whole walk decoded them
        self._changes = 0  # records added so far: a walk during which one is added is not held

    def add(self, record: SampleRecord) -> None:
        """Keep `record` (already `Benchmark.kept`)."""
        line = record.to_json().encode("utf-8")
        if self._slots is None:
            slot = len(self._starts)
            self._starts.append(-1)
            self._lengths.append(0)
        else:
            found = self._slots.get(record.id)
            if found is None:  # not planned (a resumed item a smaller --limit leaves out)
                return
            slot = found
        if self._starts[slot] < 0:
            self._count += 1
        self._starts[slot], self._lengths[slot] = self._written + len(self._pending), len(line)
        self._pending += line
        if len(self._pending) >= FLUSH_BYTES:
            self._flush()
        self._present = None
        self._memo = None
        self._changes += 1

    def __contains__(self, item_id: object) -> bool:
        """Whether a record of the planned id `item_id` is kept (a run's resumed items)."""
        if self._slots is None or not isinstance(item_id, str):
            return False
        slot = self._slots.get(item_id)
        return slot is not None and self._starts[slot] >= 0

    def ids(self) -> Iterator[str]:
        """The ids of the kept records, in order (a run's: without reading them back)."""
        if self._planned is None:
            return (record.id for record in self)
        planned = self._planned
        return (planned[slot] for slot in self._kept_slots())

    def __len__(self) -> int:
        return self._count

    def _kept_slots(self) -> Iterator[int]:
        """The slots holding a record, in order."""
        return (slot for slot, start in enumerate(self._starts) if start >= 0)

    def _flush(self) -> None:
        view = memoryview(self._pending)
        while view:  # a short write (a full disk says so by raising on the next one)
            written = os.pwrite(self._file.fileno(), view, self._written)
            self._written += written
            view = view[written:]
        view.release()
        self._pending.clear()

    def _read(self, slot: int) -> SampleRecord:
        if self._pending:
            self._flush()
        line = os.pread(self._file.fileno(), self._lengths[slot], self._starts[slot])
        return SampleRecord.from_dict(json.loads(line))

    def __iter__(self) -> Iterator[SampleRecord]:
        if self._memo is not None:
            yield from self._memo
            return
        changes = self._changes
        held: list[SampleRecord] | None = [] if self._written + len(self._pending) <= MEMO_BYTES else None
        for slot in self._kept_slots():
            record = self._read(slot)
            if held is not None:
                held.append(record)
            yield record
        if held is not None and changes == self._changes:  # a whole walk, nothing added meanwhile
            self._memo = held

    @overload
    def __getitem__(self, index: int) -> SampleRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[SampleRecord]: ...

    def __getitem__(self, index: int | slice) -> SampleRecord | list[SampleRecord]:
        if self._present is None:
            self._present = array("q", self._kept_slots())
        if self._memo is not None:
            return self._memo[index]
        if isinstance(index, slice):
            return [self._read(slot) for slot in self._present[index]]
        return self._read(self._present[index])

    def close(self) -> None:
        self._memo = None
        self._file.close()

    def __enter__(self) -> KeptRecords:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
