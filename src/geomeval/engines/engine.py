"""Scoring one record, the same way for every face: `geomeval run`, rescoring, the
`evaluate` modules and lmms-eval.

The engine owns what no benchmark should restate: a record whose generation failed is
scored by the benchmark's `model_failed` (every metric unscored, with the failure as the
reason) and never reaches its scorer, so scorers only see records with a response; a
scorer that raises leaves the item unscored, saying why, instead of losing the run; an
unusable judge endpoint stops the run. Benchmarks import from here, never from the
runner, which only runs things.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from ..core.errors import EndpointFailure
from ..core.records import SampleRecord, Score
from .client import BackgroundLoop

if TYPE_CHECKING:
    from ..benchmarks.base import Benchmark
    from .judges import Judge

T = TypeVar("T")


async def for_each(items: Sequence[T], concurrency: int, handle: Callable[[T], Awaitable[None]]) -> None:
    """`handle` every item, `concurrency` at a time, without one task per item up front.

    The workers start one per turn of the event loop: started together, every one of them
    took its first item and posed it (figures encoded, hashed, the cache asked) before the
    loop first polled its sockets, so the first request waited for `concurrency` poses
    (90 ms of a 500-item judge-bound run's start, issue #42). Started in turn, the first
    requests are on the wire while the next items are posed."""
    queue = iter(items)

    async def worker() -> None:
        for item in queue:  # one shared iterator: each item is taken by exactly one worker
            await handle(item)

    workers: list[asyncio.Task[None]] = []
    try:
        for _ in range(max(1, min(concurrency, len(items)))):
            if workers:
                await asyncio.sleep(0)  # one turn of the loop: its sockets polled
                if any(task.done() for task in workers):
                    break  # the items ran out, or a worker failed: gather raises it as it did
            workers.append(asyncio.ensure_future(worker()))
    except BaseException:  # cancelled while starting them: cancelled with it, as gather's are
        for task in workers:
            task.cancel()
        raise
    await asyncio.gather(*workers)


def failed_scores(bench: Benchmark, exc: BaseException) -> dict[str, Score]:
    """Every metric unscored, saying why: scoring itself failed (never a wrong answer)."""
    reason = f"scoring error ({type(exc).__name__}: {str(exc)[:300]})"
    return {metric: Score.missing(reason) for metric in bench.metrics}


async def score(bench: Benchmark, record: SampleRecord, judge: Judge) -> SampleRecord:
    """Set the record's scores: the benchmark's scorer for an answer (its judge asking at the
    benchmark's `judge_temperature`), its `model_failed` scores (no judgment, nothing
    extracted) for a record without one."""
    try:
        if bench.responded(record):
            record.scores = await bench.score(record, judge.for_benchmark(bench.judge_temperature))
        else:
            record.judgment = None
            record.extracted = None
            record.scores = bench.model_failed(record)
    except EndpointFailure:  # the judge's endpoint is unusable: stop the run, not the item
        raise
    except Exception as exc:  # a scorer bug must not lose the run: the item is unscored, with why
        record.scores = failed_scores(bench, exc)
    return record


_scoring_slots: dict[int, asyncio.Semaphore] = {}


async def score_bounded(bench: Benchmark, record: SampleRecord, judge: Judge) -> SampleRecord:
    """`score`, with at most the judge's concurrency of items being scored at once: a caller
    that starts every item at once (lmms-eval's process_results) keeps memory and the
    scorers' CPU work bounded while the judge's requests still overlap."""
    limit = judge.client.concurrency if judge.client is not None else 1
    slots = _scoring_slots.setdefault(limit, asyncio.Semaphore(limit))
    async with slots:
        return await score(bench, record, judge)


def score_record_sync(bench: Benchmark, record: SampleRecord, judge: Judge) -> dict[str, Score]:
    """Score one record from synchronous code (lmms-eval's process_results), through the engine."""
    return BackgroundLoop.shared().run(score(bench, record, judge)).scores


def score_records_sync(bench: Benchmark, records: list[SampleRecord], judge: Judge) -> None:
    """Score many records from synchronous code (the `evaluate` faces), setting their scores;
    judge requests overlap across items, bounded by the judge client's own concurrency."""
    concurrency = judge.client.concurrency if judge.client is not None else 1

    async def one(record: SampleRecord) -> None:
        await score(bench, record, judge)

    BackgroundLoop.shared().run(for_each(records, concurrency, one))
