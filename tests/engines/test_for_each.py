"""`engine.for_each`, the schedule of a run's items: each item handled once, at most
`concurrency` at a time, and its workers started one per turn of the event loop, so the first
item's I/O is served before the last worker takes its item (issue #42: started together, every
worker posed an item before the loop first polled its sockets, holding back the first request)."""

from __future__ import annotations

import asyncio

import pytest

from geomeval.engines.engine import for_each


def test_each_item_once_at_most_concurrency_at_a_time_first_io_served_early() -> None:
    log: list[tuple[str, int]] = []
    busy = [0, 0]  # now, most

    async def handle(item: int) -> None:
        busy[0] += 1
        busy[1] = max(busy)
        log.append(("start", item))
        ready = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(ready.set_result, None)  # ready on the next turn, as I/O
        await ready
        log.append(("resumed", item))
        await asyncio.sleep(0.001)
        busy[0] -= 1

    asyncio.run(for_each(list(range(40)), 8, handle))
    assert sorted(item for kind, item in log if kind == "start") == list(range(40))
    assert busy[1] == 8
    assert log.index(("resumed", 0)) < log.index(("start", 7))  # not after every worker's first item


def test_a_failing_item_stops_it_with_its_error_even_while_workers_start() -> None:
    handled: list[int] = []

    async def handle(item: int) -> None:
        if item == 0:
            raise ValueError("item 0")
        handled.append(item)
        await asyncio.sleep(0.01)

    with pytest.raises(ValueError, match="item 0"):
        asyncio.run(for_each(list(range(100)), 16, handle))
    assert len(handled) < 16  # no further workers were started once one had failed


def test_cancelled_while_starting_leaves_no_worker_running() -> None:
    async def main() -> list[asyncio.Task]:
        async def handle(item: int) -> None:
            await asyncio.sleep(10)

        run = asyncio.ensure_future(for_each(list(range(50)), 32, handle))
        for _ in range(3):
            await asyncio.sleep(0)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        await asyncio.sleep(0)
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    assert asyncio.run(main()) == []
