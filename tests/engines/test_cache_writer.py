"""The response cache writes off the caller's thread, in batches, and still reads back a key
just written; nothing queued is lost at close or at a normal exit."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from geomeval.engines.cache import ResponseCache


def _rows(path: Path) -> dict[str, str]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT key, text FROM responses").fetchall())


def test_a_key_just_written_reads_back_at_once_from_any_cache_on_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    cache.put("k", "text", "m", {"finish_reason": "stop"})
    assert cache.get_entry("k") == ("text", {"finish_reason": "stop"})  # before or after its commit
    other = ResponseCache(path)
    assert other.get("k") == "text"
    cache.delete("k")
    assert cache.get("k") is None and other.get("k") is None
    cache.put("k", "again", "m")
    assert other.get("k") == "again"
    other.close()
    cache.close()
    assert _rows(path) == {"k": "again"}


def test_writes_run_on_the_writer_thread_and_close_commits_them(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    writer = cache._writer
    assert writer is not None
    threads: set[str] = set()
    writer.db.set_trace_callback(lambda sql: threads.add(threading.current_thread().name) if "INSERT" in sql else None)
    for n in range(300):
        cache.put(f"k{n}", f"t{n}", "m")
    assert len(cache) == 300  # counts what is committed: waits for the queue
    assert threads == {writer.thread.name}
    cache.close()
    assert len(_rows(path)) == 300


def test_a_process_that_exits_without_closing_keeps_its_writes(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    code = (f"from geomeval.engines.cache import ResponseCache\ncache = ResponseCache({str(path)!r})\n"
            "for n in range(500):\n    cache.put(f'k{n}', 't', 'm')\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    assert len(_rows(path)) == 500


def test_a_cache_file_replaced_meanwhile_gets_a_writer_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    old = ResponseCache(path)
    for name in list(tmp_path.iterdir()):
        name.rename(tmp_path / f"gone-{name.name}")
    new = ResponseCache(path)
    new.put("k", "t", "m")
    new.close()
    old.close()
    assert _rows(path) == {"k": "t"}


def test_a_forked_child_exits_without_waiting_for_its_parents_writer(tmp_path: Path, monkeypatch) -> None:
    import atexit
    import os
    import time

    from geomeval.engines import cache as cache_module

    committed = threading.Event()
    slow = cache_module._Writer._commit

    def slow_commit(self, entries):  # the writes stay queued (unfinished) while the parent forks
        time.sleep(1.0)
        slow(self, entries)
        committed.set()

    monkeypatch.setattr(cache_module._Writer, "_commit", slow_commit)
    cache = ResponseCache(tmp_path / "c.sqlite")
    for index in range(50):
        cache.put(f"k{index}", "text", "m")
    pid = os.fork()
    if pid == 0:  # the child ends as an interpreter does: its exit functions run
        try:
            atexit._run_exitfuncs()
        finally:
            os._exit(0)
    deadline = time.monotonic() + 20
    while (waited := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if waited[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise AssertionError("the forked child waited at exit for a writer thread it does not have")
    assert os.waitstatus_to_exitcode(waited[1]) == 0
    cache.close()
    assert committed.is_set() and len(_rows(tmp_path / "c.sqlite")) == 50
