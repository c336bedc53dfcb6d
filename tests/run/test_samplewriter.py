"""SampleWriter: records reach samples.jsonl whole, in order, by close; its errors are raised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geomeval.core.records import SampleRecord
from geomeval.run import samplewriter
from geomeval.run.runner import read_samples


def record(i: int) -> SampleRecord:
    return SampleRecord(id=f"r{i}", benchmark="b", task="t", target={"figure": "x" * 40_000}, meta={"i": i},
                        response="ok\u2028line")


def test_every_record_is_one_whole_line_in_order_once_closed(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text(record(0).to_json() + "\n", encoding="utf-8")  # appended to, as a resumed run
    with samplewriter.SampleWriter(path) as sink:
        for i in range(1, 600):  # more than the queue holds: `write` waits, nothing is lost
            sink.write(record(i))
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 601
    assert [json.loads(line)["id"] for line in lines[:-1]] == [f"r{i}" for i in range(600)]
    assert [r.to_json() for r in read_samples(path)] == [record(i).to_json() for i in range(600)]


def test_records_queued_before_an_error_in_the_run_are_still_written(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    with pytest.raises(KeyError), samplewriter.SampleWriter(path) as sink:
        sink.write(record(1))
        raise KeyError("the run failed")
    assert [r.id for r in read_samples(path)] == ["r1"]


class Unwritable(SampleRecord):
    __slots__ = ()

    def to_json(self, run_dir=None) -> str:
        raise OSError(28, "No space left on device")


def test_a_failed_write_is_raised_by_the_next_write_or_by_close(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    sink = samplewriter.SampleWriter(path)
    sink.write(Unwritable(id="x", benchmark="b", task="t", target={}, meta={}))
    with pytest.raises(OSError, match="No space left"):
        sink.close()
    assert sink._sink.closed

    sink = samplewriter.SampleWriter(path)
    sink.write(Unwritable(id="x", benchmark="b", task="t", target={}, meta={}))
    with pytest.raises(OSError, match="No space left"):
        for i in range(1000):  # the error is raised by a later write, not swallowed
            sink.write(record(i))
    with pytest.raises(OSError):
        sink.close()


def test_a_record_that_cannot_be_written_loses_none_queued_before_it(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    sink = samplewriter.SampleWriter(path)
    sink._queue.mutex.acquire()  # hold the thread off, so all three go in one batch
    try:
        for item in (record(1), record(2), Unwritable(id="x", benchmark="b", task="t", target={}, meta={})):
            sink._queue.queue.append(item)
            sink._queue.unfinished_tasks += 1
        sink._queue.not_empty.notify()
    finally:
        sink._queue.mutex.release()
    with pytest.raises(OSError, match="No space left"):
        sink.close()
    assert [r.id for r in read_samples(path)] == ["r1", "r2"]


def test_closing_after_the_run_failed_raises_the_runs_error_not_its_own(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    with pytest.raises(KeyError, match="the run failed"), samplewriter.SampleWriter(path) as sink:
        sink.write(Unwritable(id="x", benchmark="b", task="t", target={}, meta={}))
        raise KeyError("the run failed")


def test_a_record_written_after_close_is_refused(tmp_path: Path) -> None:
    sink = samplewriter.SampleWriter(tmp_path / "samples.jsonl")
    sink.close()
    with pytest.raises(RuntimeError, match="closed"):
        sink.write(record(1))
