"""Where an item is posed (its record and messages made): on the event loop when posing is
cheap, on a thread when it is slow, so a slow pose never keeps judge replies waiting and a
cheap one does not pay a thread's hand-offs."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from geomeval.benchmarks.base import Item
from geomeval.core.records import SampleRecord
from geomeval.engines.models import Generation
from geomeval.run import runner


class _Bench:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.threads: list[str] = []

    def new_record(self, item: Item, task: str) -> SampleRecord:
        self.threads.append(threading.current_thread().name)
        time.sleep(self.seconds)
        return SampleRecord(item.id, "stub", task, {}, {})

    def messages(self, item: Item, task: str) -> list[dict[str, Any]]:
        return [{"role": "user", "content": item.id}]


class _Model:
    needs_messages = True

    async def generate(self, item: Item, messages: Any) -> Generation:
        return Generation("ok", None)


def _posed_on(seconds: float, task: str) -> list[str]:
    bench = _Bench(seconds)

    async def main() -> list[SampleRecord]:
        return [await runner._generate(bench, task, Item(str(i), {}), _Model()) for i in range(6)]  # type: ignore[arg-type]

    records = asyncio.run(main())
    assert [r.response for r in records] == ["ok"] * 6 and all(r.generation_info for r in records)
    return bench.threads


def test_cheap_poses_stay_on_the_loop_and_slow_ones_go_to_a_thread() -> None:
    loop_thread = threading.current_thread().name  # asyncio.run runs its loop on this thread
    assert set(_posed_on(0.0, "cheap")) == {loop_thread}
    slow = _posed_on(10 * runner.POSE_INLINE_S, "slow")
    # the first (modules loading) and the second (the first timed) on the loop, then a thread
    assert slow[:2] == [loop_thread, loop_thread] and loop_thread not in slow[2:]
