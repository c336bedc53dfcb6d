"""An event loop on a daemon thread, for synchronous callers (lmms-eval's hooks, evaluate
metrics): one shared loop runs the asyncio clients they call."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class BackgroundLoop:
    """An event loop on a daemon thread, for synchronous callers (lmms-eval's hooks)."""

    _instance: BackgroundLoop | None = None
    _guard = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="geomeval-loop")
        self._thread.start()

    @classmethod
    def shared(cls) -> BackgroundLoop:
        with cls._guard:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start `coro` on the loop and return at once (its result is awaited later)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)
